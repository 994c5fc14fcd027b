#!/bin/bash
# Root's outputs against the users who own a directory on the way or
# name what root writes about (issue 50).  Each part plays the attacker
# as nobody:
#  1. The metrics file.  A tree laid out as Debian's (var/lib/prometheus
#     nobody's, node-exporter in it root's 0755; etc/apt/apt.conf.d, the
#     victim, root's), and root's `status --all --prometheus -o
#     .../node-exporter/hugeld.prom' (the metrics unit, every minute).
#     nobody puts a symbolic link to the victim at node-exporter's name;
#     swaps in a directory of its own holding hugeld.prom as a link into
#     the victim; swaps in an empty one of its own; and (a loop, 60
#     runs) exchanges node-exporter with each of those (renameat2
#     RENAME_EXCHANGE, as fast as it can) while root writes.  The victim
#     stays empty, nothing is written but hugeld.prom in root's
#     directory, no temporary file is left, and each run writes a
#     complete file (a new one, read through a descriptor of root's
#     directory) or exits 1 with one line.  Root's own earlier link at
#     hugeld.prom is replaced, not followed.
#  2. Names: a process of nobody's named (PR_SET_NAME) with bytes that
#     are not UTF-8 and control characters, holding a huge page; one on
#     hugeld's ld.so with a private copy of a library whose path holds
#     such bytes.  status --all --prometheus -o writes the file, which a
#     strict reader of the text format (tests/outputs/promcheck.py;
#     promtool and the Python client's parser too where installed)
#     takes, with the names as escaped text (\xNN, \r); no temporary
#     file; status --all -o (the human form) is UTF-8 with no control
#     character.
#  3. hugeld enable: every class of control character (C0 with \t, \r
#     and \n, DEL, C1), U+2028, U+2029 and a byte that is not UTF-8, in
#     --libs, --segments, --backing, hugeld's loader path and the
#     unit's own loader (a program whose PT_INTERP holds it): refused
#     in one line, exit 1, the drop-in unchanged.  A value with %,
#     quotes, backslashes and spaces (--libs, and the loader's path) is
#     written, and systemd (systemd-analyze verify's dump of the unit
#     with the drop-in) reads exactly those values, one Environment=
#     each, and no other directive.  Against a systemctl that only
#     answers, as t-ops.
#  4. The AppArmor abstraction (scripts/deb/apparmor-base.d-hugeld):
#     apparmor_parser parses and compiles it (from base.d, as
#     installed), and by its globs (tests/outputs/aarules.py) it grants
#     the names the helper gives two libraries' cache entries, read and
#     (zones) map, and not what else may be under the cache (.tmp-*,
#     source/, other kinds and names); /proc/PID/cgroup only to its
#     owner.
. "$(dirname "$0")/lib.sh"

need_root "(writes as root where nobody owns a directory, processes as nobody, the pool)"
export HUGELD_LDSO
H=${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}
if [ -z "${HUGELD_CMD:-}" ] && [ ! -x "$H" ]; then
  make -C "$HUGELD_TOP/tools" OUT="$HUGELD_TOP/build/tools" > "$TEST_TMP/build.log" 2>&1 \
    || { fail "build: make -C tools" "$(tail -3 "$TEST_TMP/build.log" | tr '\n' ' ')"; finish; }
fi
PY=/usr/bin/python3
PROMCHECK=$HUGELD_TOP/tests/outputs/promcheck.py
NOBODY_UID=$(id -u nobody) NOBODY_GID=$(id -g nobody)
# As nobody; an array, so that a command run in the background is the
# process itself ($!), each word execing the next.
AS_NOBODY=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups --)
as_nobody () { "${AS_NOBODY[@]}" "$@"; }
chmod 755 "$TEST_TMP"
T=$(readlink -f "$TEST_TMP")
# The test's own files, root's alone.
OUT=$T/out
mkdir -m 700 "$OUT"
# A directory nobody may write in (the swapper's count).
mkdir -m 1777 "$T/as"
at_exit 'kill $(jobs -p) 2> /dev/null; wait 2> /dev/null'

# exchange A B: renameat2 (A, B, RENAME_EXCHANGE), as the caller.
exchange () {
  $PY - "$1" "$2" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, os.fsencode(sys.argv[1]), -100, os.fsencode(sys.argv[2]), 2) != 0:
    sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
EOF
}

# --- 1. The metrics file in a directory of another user's ---------------------

R=$T/root1
PD=$R/var/lib/prometheus
NE=$PD/node-exporter
VICTIM=$R/etc/apt/apt.conf.d
PROM=$NE/hugeld.prom
mkdir -p "$NE" "$VICTIM"
chmod -R 755 "$R"
chown nobody: "$PD"
NE_INO=$(stat -c %i "$NE")
CANNOT="hugeld: cannot write $PROM: "
# metrics: root's run of the metrics unit; rc, $OUT/m.out, $OUT/m.err.
metrics () {
  "$H" status --all --prometheus -o "$PROM" > "$OUT/m.out" 2> "$OUT/m.err"
  rc=$?
}
# untouched: nothing in the victim, no temporary file anywhere in the
# tree; else says what (and is false).
untouched () {
  local v t
  v=$(ls -A "$VICTIM")
  t=$(find "$R" -name '.hugeld.prom.*' | tr '\n' ' ')
  [ -z "$v" ] && [ -z "$t" ] && return 0
  echo "victim holds: ${v:-nothing}; temporary files: ${t:-none}"
  return 1
}
# refused WHY: the run exited 1 with the one line "$CANNOT$WHY" and
# printed nothing on standard output.
refused () {
  [ $rc = 1 ] && [ ! -s "$OUT/m.out" ] && [ "$(wc -l < "$OUT/m.err")" = 1 ] \
    && [ "$(cat "$OUT/m.err")" = "$CANNOT$1" ]
}
complete () { $PY "$PROMCHECK" "$1" > "$OUT/check.json" 2> "$OUT/check.err" && grep -q hugeld_cache_saved_pages "$OUT/check.json"; }

metrics
if [ $rc = 0 ] && complete "$PROM" && [ "$(stat -c '%a %U' "$PROM")" = "644 root" ] && why=$(untouched); then
  pass "metrics: written in root's node-exporter under nobody's prometheus directory, mode 0644, complete"
else
  fail "metrics: the plain case" "rc $rc: $(cat "$OUT/m.err") $(cat "$OUT/check.json" "$OUT/check.err" 2>/dev/null | head -c 200) ${why:-}"
fi
cp "$PROM" "$OUT/first.prom"

# nobody's link to the victim at node-exporter's name.
as_nobody mv "$NE" "$PD/ne.real" && as_nobody ln -s "$VICTIM" "$NE"
metrics
if refused "not followed: the symbolic link $NE is owned by nobody (uid $NOBODY_UID), not by root" && why=$(untouched); then
  pass "metrics: nobody's link to the victim at node-exporter's name: not followed, one line, nothing written"
else
  fail "metrics: nobody's link to the victim at node-exporter's name" "rc $rc: $(cat "$OUT/m.err") ${why:-}"
fi
as_nobody rm "$NE"

# nobody's own directory, with hugeld.prom a link into the victim.
as_nobody mkdir "$PD/mine"
as_nobody ln -s "$VICTIM/99hugeld" "$PD/mine/hugeld.prom"
as_nobody mv "$PD/mine" "$NE"
metrics
if refused "its directory $NE is owned by nobody (uid $NOBODY_UID), not by root" && why=$(untouched) \
   && [ "$(readlink "$NE/hugeld.prom")" = "$VICTIM/99hugeld" ]; then
  pass "metrics: nobody's directory swapped in, hugeld.prom in it a link into the victim: refused in one line, the link untouched"
else
  fail "metrics: nobody's directory with a planted link" "rc $rc: $(cat "$OUT/m.err") ${why:-}"
fi
as_nobody rm -r "$NE"

# nobody's own empty directory.
as_nobody mkdir "$NE"
metrics
if refused "its directory $NE is owned by nobody (uid $NOBODY_UID), not by root" && [ -z "$(ls -A "$NE")" ] \
   && why=$(untouched); then
  pass "metrics: nobody's own directory swapped in: refused in one line, nothing written in it"
else
  fail "metrics: nobody's own directory swapped in" "rc $rc: $(cat "$OUT/m.err") $(ls -A "$NE") ${why:-}"
fi
as_nobody rmdir "$NE"
as_nobody mv "$PD/ne.real" "$NE"

# A group-writable node-exporter of root's (0775): refused too.
chmod 775 "$NE"
metrics
if refused "its directory $NE is writable by its group (mode 0775)" && why=$(untouched); then
  pass "metrics: root's directory, but group-writable: refused in one line"
else
  fail "metrics: a group-writable directory" "rc $rc: $(cat "$OUT/m.err") ${why:-}"
fi
chmod 755 "$NE"

# Root's own link at hugeld.prom (made before): replaced, not followed.
ln -sfn "$VICTIM/99hugeld" "$PROM"
metrics
if [ $rc = 0 ] && [ -f "$PROM" ] && [ ! -L "$PROM" ] && complete "$PROM" && why=$(untouched); then
  pass "metrics: a link at hugeld.prom is replaced by the file, not followed"
else
  fail "metrics: a link at hugeld.prom" "rc $rc: $(cat "$OUT/m.err") ${why:-}"
fi

# The race: nobody exchanges node-exporter with a link to the victim
# and with a directory of its own (holding a link into the victim), as
# fast as it can, while root writes 60 times.  A descriptor of root's
# directory reads what each run wrote there, whatever its name then.
as_nobody ln -s "$VICTIM" "$PD/link"
as_nobody mkdir "$PD/own"
as_nobody ln -s "$VICTIM/98hugeld" "$PD/own/hugeld.prom"
touch "$OUT/marker"
sleep 0.01
exec {nefd}< "$NE"
"${AS_NOBODY[@]}" $PY - "$NE" "$PD/link" "$PD/own" "$T/as/count" <<'EOF' &
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
ne, link, own = (os.fsencode(a) for a in sys.argv[1:4])
n = [0]
def stop(*_):
    with open(sys.argv[4], "w") as f:
        f.write("%d\n" % n[0])
    os._exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    for other in (link, own):
        for _ in range(2):
            if libc.renameat2(-100, ne, -100, other, 2) == 0:
                n[0] += 1
EOF
swapper=$!
wrote=0 refusals=0 bad=
for i in $(seq 60); do
  before=$(stat -L -c %i "/proc/self/fd/$nefd/hugeld.prom" 2>/dev/null)
  metrics
  if [ $rc = 0 ]; then
    after=$(stat -L -c %i "/proc/self/fd/$nefd/hugeld.prom" 2>/dev/null)
    if [ -s "$OUT/m.out" ] || [ -s "$OUT/m.err" ] || [ "$after" = "$before" ] \
       || ! complete "/proc/self/fd/$nefd/hugeld.prom"; then
      bad+="run $i: exit 0 but no new complete file in root's directory ($(cat "$OUT/m.err" "$OUT/check.err" 2>/dev/null | head -c 200)); "
    else
      wrote=$((wrote + 1))
    fi
  elif [ $rc = 1 ] && [ ! -s "$OUT/m.out" ] && [ "$(wc -l < "$OUT/m.err")" = 1 ] \
       && grep -q "^$CANNOT" "$OUT/m.err"; then
    refusals=$((refusals + 1))
  else
    bad+="run $i: exit $rc: $(head -3 "$OUT/m.err" | tr '\n' '|'); "
  fi
done
kill -TERM $swapper 2> /dev/null
wait $swapper 2> /dev/null
swaps=$(cat "$T/as/count" 2> /dev/null)
# Root's directory back at its name.
for o in "$PD/link" "$PD/own"; do
  [ "$(stat -c %i "$o")" = "$NE_INO" ] && exchange "$NE" "$o"
done
exec {nefd}<&-
# What was written since the loop began: hugeld.prom in root's
# directory, nothing else.
others=$(find "$R" -newer "$OUT/marker" ! -type d ! -path "$PROM" | tr '\n' ' ')
if [ -z "$bad" ] && [ -z "$others" ] && why=$(untouched) && [ "${swaps:-0}" -gt 1000 ] \
   && [ "$(readlink "$PD/own/hugeld.prom")" = "$VICTIM/98hugeld" ] && [ "$(ls -A "$PD/own")" = hugeld.prom ] \
   && [ "$(stat -c %i "$NE")" = "$NE_INO" ] && complete "$PROM"; then
  pass "metrics: 60 runs while nobody exchanged node-exporter $swaps times with a link to the victim and with its own directory: $wrote complete files in root's directory, $refusals refusals in one line, the victim empty, nothing else written, no temporary file"
else
  fail "metrics: the race" "${bad:0:600} written elsewhere: ${others:-nothing}; ${why:-} swaps ${swaps:-none}; own: $(ls -A "$PD/own" | tr '\n' ' ')"
fi

# --- 2. Names that are not UTF-8 ---------------------------------------------

reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
N2=$T/names
mkdir -m 755 "$N2"
OUT2=$T/metrics
mkdir -m 755 "$OUT2"
HOLD_PIPE=$OUT/hold.pipe
mkfifo "$HOLD_PIPE"
exec {HOLD_FD}<> "$HOLD_PIPE"
at_exit 'exec {HOLD_FD}>&-'
# spawn NAME CMD...: CMD in the background, its standard input the
# pipe held open until the test ends; waits for "ready".  PID: its
# process (each command in CMD execs the next).
spawn () {
  local name=$1; shift
  "$@" < "$HOLD_PIPE" > "$OUT/$name.out" 2>&1 &
  PID=$!
  local i
  for i in $(seq 100); do
    grep -q ready "$OUT/$name.out" 2>/dev/null && return 0
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
# The name: two bytes that are not UTF-8, CR, LF, ESC[2J, C1 NEL
# (UTF-8 c2 85), within PR_SET_NAME's 15 bytes.
if spawn comm "${AS_NOBODY[@]}" $PY -c '
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(15, ctypes.c_char_p(b"\xff\xfe\r\n\x1b[2J\xc2\x85"), 0, 0, 0)
m = mmap.mmap(-1, 2 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40000)
m[0:1] = b"x"
print("ready", flush=True)
sys.stdin.read()'; then
  comm_pid=$PID
else
  fail "setup: a process named with bytes that are not UTF-8" "$(head -c 300 "$OUT/comm.out")"
  comm_pid=
fi
lib_pid=
if [ ! -x "$HUGELD_LDSO" ]; then
  skip "a library whose path is not UTF-8" "no loader at $HUGELD_LDSO"
else
  LIBW=$N2/$'lib\xff\r\e]0;x\a\xe2\x80\xa8value.so'
  PROGW=$N2/$'hold\xfe\t'
  if cc -O2 -o "$PROGW" "$HUGELD_TOP/tests/cache/hold.c" -ldl \
     && cc -shared -fPIC -O2 -DVALUE=1 -o "$LIBW" "$HUGELD_TOP/tests/cache/valuelib.c" \
     && chmod 755 "$PROGW" && chmod 644 "$LIBW" \
     && spawn lib "${AS_NOBODY[@]}" env LD_HUGEPAGE_LIBS='lib*' LD_HUGEPAGE_BACKING=private "$HUGELD_LDSO" "$PROGW" "$LIBW" \
     && grep -q "_Hugetlb: *[1-9]" "/proc/$PID/smaps"; then
    lib_pid=$PID
  else
    fail "setup: a library whose path is not UTF-8, on a private copy" "$(head -c 300 "$OUT/lib.out" 2>/dev/null)"
  fi
fi
"$H" status --all --prometheus -o "$OUT2/hugeld.prom" > "$OUT/n.out" 2> "$OUT/n.err"
rc=$?
left=$(ls -A "$OUT2" | grep -v '^hugeld\.prom$' | tr '\n' ' ')
if [ $rc = 0 ] && [ ! -s "$OUT/n.err" ] && [ -z "$left" ] && complete "$OUT2/hugeld.prom"; then
  pass "metrics with such names: written, read by the strict reader, no temporary file"
  # The labels, unescaped, are the names as hugeld shows them.
  $PY - "$OUT/check.json" "${comm_pid:-0}" "${lib_pid:-0}" "$N2" > "$OUT/labels" 2>&1 <<'EOF'
import json, sys
samples = json.load(open(sys.argv[1]))
comm, lib, d = sys.argv[2:5]
want_comm = r"\xff\xfe\r\n\x1b[2J\x85"
want_lib = d + r"/lib\xff\r\x1b]0;x\x07\u2028value.so"
bad = []
if comm != "0":
    got = {s[1].get("command") for s in samples
           if s[0] == "hugeld_process_huge_pages" and s[1].get("pid") == comm}
    if got != {want_comm}:
        bad.append("command of %s: %r, not %r" % (comm, got, want_comm))
if lib != "0":
    got = {s[1].get("object") for s in samples
           if s[0] == "hugeld_object_huge_pages" and s[1].get("pid") == lib}
    if want_lib not in got:
        bad.append("objects of %s: %r, not %r" % (lib, got, want_lib))
print("; ".join(bad) or "ok")
sys.exit(1 if bad else 0)
EOF
  if [ $? = 0 ]; then
    pass "metrics: the command name$([ -n "$lib_pid" ] && echo " and the library's path") as escaped text (\\xff, \\r, \\n, \\x1b, \\x85$([ -n "$lib_pid" ] && echo ", \\u2028"))"
  else
    fail "metrics: the names' labels" "$(cat "$OUT/labels")"
  fi
else
  fail "metrics with such names" "rc $rc: $(head -3 "$OUT/n.err" | tr '\n' '|') left: ${left:-nothing}; $(cat "$OUT/check.err" 2>/dev/null)"
fi
if [ ! -f "$OUT2/hugeld.prom" ]; then
  :
elif command -v promtool > /dev/null; then
  if promtool check metrics < "$OUT2/hugeld.prom" > "$OUT/promtool.out" 2>&1; then
    pass "metrics with such names: promtool check metrics takes them"
  else
    fail "metrics with such names: promtool check metrics" "$(head -3 "$OUT/promtool.out" | tr '\n' ' ')"
  fi
else
  skip "metrics: promtool" "not installed (Debian: prometheus)"
fi
if [ ! -f "$OUT2/hugeld.prom" ]; then
  :
elif $PY -c 'import prometheus_client' 2> /dev/null; then
  if $PY -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
n = sum(len(f.samples) for f in text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()))
print(n)' "$OUT2/hugeld.prom" > "$OUT/client.out" 2>&1; then
    pass "metrics with such names: the Python client's parser reads $(cat "$OUT/client.out") samples"
  else
    fail "metrics with such names: the Python client's parser" "$(tail -1 "$OUT/client.out")"
  fi
fi
"$H" status --all -o "$OUT2/status.txt" > "$OUT/n.out" 2> "$OUT/n.err"
rc=$?
left=$(ls -A "$OUT2" | grep -v '^hugeld\.prom$\|^status\.txt$' | tr '\n' ' ')
if [ $rc = 0 ] && [ -z "$left" ] && iconv -f UTF-8 -t UTF-8 "$OUT2/status.txt" > /dev/null 2>&1 \
   && [ "$(LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$OUT2/status.txt")" = 0 ] \
   && { [ -z "$comm_pid" ] || grep -q "^ *$comm_pid .*"'\\xff\\xfe\\r\\n\\x1b\[2J\\x85' "$OUT2/status.txt"; }; then
  pass "status --all -o: UTF-8, no control character, the name escaped as on a terminal"
else
  fail "status --all -o with such names" "rc $rc: $(head -3 "$OUT/n.err" | tr '\n' '|') left: ${left:-nothing}; $(grep -a "^ *$comm_pid " "$OUT2/status.txt" | cat -v)"
fi

# --- 3. hugeld enable: what a unit file cannot hold -----------------------------

U=hugeld-test-outputs-$$.service
DROPIN=/etc/systemd/system/$U.d/hugeld.conf
mkdir -p "$T/bin"
# systemctl cat answers with UNIT_PROGRAM's file, if set, else sleep.
cat > "$T/bin/systemctl" <<EOF
#!/bin/sh
case "\$1" in
  cat) printf '# /lib/systemd/system/$U\n[Service]\nExecStart=%s 1000\n' "\${UNIT_PROGRAM:-/usr/bin/sleep}" ;;
  daemon-reload) ;;
  *) exit 1 ;;
esac
EOF
chmod 755 "$T/bin/systemctl"
at_exit "rm -rf /etc/systemd/system/$U.d"
# enable's loader: any executable file will do (a later --ldso wins).
mkdir -m 755 "$T/ld"
LDF=$T/ld/ld.so
cp /bin/true "$LDF"
en () { PATH=$T/bin:$PATH "$H" enable "$U" --ldso "$LDF" "$@" > "$OUT/e.out" 2> "$OUT/e.err"; rc=$?; }
# The drop-in every refusal must leave as it is.
en --libs sleep --segments text --backing private
if [ $rc = 0 ] && [ -f "$DROPIN" ]; then
  cp "$DROPIN" "$OUT/dropin.before"
else
  fail "enable: setup" "rc $rc: $(cat "$OUT/e.err")"; finish
fi
# An executable with control characters in its name, for --ldso.
declare -A CLASS=([tab]=$'\t' [cr]=$'\r' [lf]=$'\n' [soh]=$'\x01' [esc]=$'\e' [del]=$'\x7f'
                  [c1-nel]=$'\xc2\x85' [c1-csi]=$'\xc2\x9b' [u2028]=$'\xe2\x80\xa8' [u2029]=$'\xe2\x80\xa9' [byte-ff]=$'\xff')
# refused_enable WHAT CLASS: exit 1, one line naming WHAT and the
# character's kind, nothing on stdout, the drop-in unchanged.
refused_enable () {
  local kind
  case $2 in
    u2028) kind="a line separator" ;; u2029) kind="a paragraph separator" ;;
    byte-ff) kind="a byte that is not UTF-8" ;; *) kind="a control character" ;;
  esac
  [ $rc = 1 ] && [ ! -s "$OUT/e.out" ] && [ "$(wc -l < "$OUT/e.err")" = 1 ] \
    && grep -q "^hugeld: $1 .*, $kind, which a unit file cannot hold (systemd would read a line of its own); nothing written$" "$OUT/e.err" \
    && cmp -s "$DROPIN" "$OUT/dropin.before"
}
printf 'int main (void) { return 0; }\n' > "$OUT/m.c"
for what in --libs --segments --backing ldso interp; do
  bad=
  for c in "${!CLASS[@]}"; do
    x=${CLASS[$c]}
    case $what in
      --libs) en --libs "sleep${x}ExecStartPre=/bin/touch $T/pwned" ; w=--libs ;;
      --segments) en --libs sleep --segments "text${x}" ; w=--segments ;;
      --backing) en --libs sleep --backing "private${x}" ; w=--backing ;;
      ldso)
        l=$T/ld/"ld${x}ExecStartPre=.so"
        cp /bin/true "$l" && chmod 755 "$l"
        en --libs sleep --ldso "$l"; w="hugeld's loader" ;;
      interp)
        p=$T/ld/prog-$c
        cc -o "$p" "$OUT/m.c" -Wl,--dynamic-linker="/lib64/ld${x}ExecStartPre=/bin/true" 2> "$OUT/cc.err" \
          || { bad+="$c: cc: $(head -1 "$OUT/cc.err"); "; continue; }
        # The default --libs: the program's own name.
        export UNIT_PROGRAM=$p
        en; w="the system's loader"
        unset UNIT_PROGRAM ;;
    esac
    refused_enable "$w" "$c" || bad+="$c: rc $rc: $(head -2 "$OUT/e.err" | tr '\n' '|'); "
  done
  label=$what
  [ $what = ldso ] && label="hugeld's loader path (--ldso)"
  [ $what = interp ] && label="the unit's loader (its program's PT_INTERP)"
  if [ -z "$bad" ]; then
    pass "enable: $label with each of tab, CR, LF, SOH, ESC, DEL, C1 (NEL, CSI), U+2028, U+2029, a byte that is not UTF-8: refused in one line, exit 1, the drop-in unchanged"
  else
    fail "enable: $label with control characters" "${bad:0:700}"
  fi
done
[ ! -e "$T/pwned" ] || fail "enable: nothing ran" "$T/pwned exists"

# What a unit file can hold, quoted: %, double and single quotes,
# backslashes, spaces; in --libs and in the loader's path.  systemd
# reads back exactly those values.
LIBS='sleep:lib%d "q" it'"'"'s a\b c.so*'
LD2=$T/ld/'my ld %n "q" \x.so'
cp /bin/true "$LD2" && chmod 755 "$LD2"
en --libs "$LIBS" --backing private,thp --ldso "$LD2"
if [ $rc != 0 ]; then
  fail "enable: a value with %, quotes, backslashes and spaces" "rc $rc: $(cat "$OUT/e.err")"
elif ! command -v systemd-analyze > /dev/null; then
  skip "enable: systemd reads the values back" "no systemd-analyze"
else
  # The drop-in beside a unit of the test's own, read by systemd's own
  # parser (verify's debug dump of the unit).
  V=$T/units
  mkdir -p "$V/$U.d"
  printf '[Unit]\nDescription=t-outputs\n[Service]\nExecStart=/usr/bin/sleep 1000\n' > "$V/$U"
  cp "$DROPIN" "$V/$U.d/"
  real=$(readlink -f "$(readelf -lW /usr/bin/sleep | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')")
  SYSTEMD_LOG_LEVEL=debug systemd-analyze verify --man=no "$V/$U" > "$OUT/dump" 2> "$OUT/dump.err"
  env_lines=$(grep -a $'^\t\tEnvironment: ' "$OUT/dump" | sed $'s/^\t\tEnvironment: //')
  bind=$(grep -a $'^\t\tBindReadOnlyPaths: ' "$OUT/dump" | sed $'s/^\t\tBindReadOnlyPaths: //')
  want_env="LD_HUGEPAGE_LIBS=$LIBS
LD_HUGEPAGE_BACKING=private,thp"
  if [ "$env_lines" = "$want_env" ] && [ "$bind" = "$LD2:$real:rbind" ] \
     && [ "$(grep -c '^Environment=' "$DROPIN")" = 2 ] && [ "$(grep -c '^BindReadOnlyPaths=' "$DROPIN")" = 1 ] \
     && [ "$(wc -l < "$DROPIN")" = 6 ] && [ "$(grep -ac $'^\t\t-> ExecStartPre' "$OUT/dump")" = 1 ] \
     && grep -aq $'^\t\t\tCommand Line: /usr/bin/timeout 30 .* thp repair --quiet --program /usr/bin/sleep$' "$OUT/dump"; then
    pass "enable: --libs and --ldso with %, quotes, backslashes and spaces: one Environment= per setting, and systemd reads exactly those values (and one ExecStartPre=, the thp repair's)"
  else
    fail "enable: a value with %, quotes, backslashes and spaces" "systemd read: $(echo "$env_lines" | cat -v | tr '\n' '|') bind: $bind; the file: $(cat -v "$DROPIN" | tr '\n' '|') $(head -c 200 "$OUT/dump.err")"
  fi
fi

# --- 4. The AppArmor abstraction: the cache's own names, the own cgroup ----------

AA=$HUGELD_TOP/scripts/deb/apparmor-base.d-hugeld
if ! command -v apparmor_parser > /dev/null; then
  skip "AppArmor: the abstraction parses" "no apparmor_parser (Debian: apparmor)"
else
  # As the package installs it: included by <abstractions/base> from
  # base.d, in a profile of the test's own; parsed and compiled, not
  # loaded (-Q: no kernel needed).
  mkdir -p "$OUT/aa/abstractions/base.d"
  cp "$AA" "$OUT/aa/abstractions/base.d/hugeld"
  if [ -f /etc/apparmor.d/abstractions/base ]; then
    inc='#include <abstractions/base>'
  else
    inc='#include <abstractions/base.d/hugeld>'
  fi
  printf '#include <tunables/global>\nprofile hugeld-t-outputs /usr/bin/true {\n  %s\n}\n' "$inc" > "$OUT/aa/profile"
  if apparmor_parser -Q -K -I "$OUT/aa" "$OUT/aa/profile" > "$OUT/aa.out" 2>&1 \
     && apparmor_parser -Q -K -I "$OUT/aa" -p "$OUT/aa/profile" 2> /dev/null | grep -q '^ *owner @{PROC}/@{pid}/cgroup r,'; then
    pass "AppArmor: the abstraction parses and compiles (apparmor_parser -Q -K $(apparmor_parser --version | head -1 | sed 's/.*version //'), included from base.d)"
  else
    fail "AppArmor: the abstraction parses" "$(grep -v 'Cache read/write' "$OUT/aa.out" | head -3 | tr '\n' ' ')"
  fi
fi
# What it grants, by its globs, for names the cache really has: the
# helper's names of two libraries' entries (one with a build ID, one
# without), and what ld.so must not be given.
PLAN=$(dirname "$(readlink -f "$H")")/hugeld-plan
[ -x "$PLAN" ] || PLAN=$(dirname "$PLAN")/../libexec/hugeld-plan
mkdir -m 755 "$T/aalib"
cc -shared -fPIC -O2 -DVALUE=1 -o "$T/aalib/libvalue.so" "$HUGELD_TOP/tests/cache/valuelib.c" \
  && cc -shared -fPIC -O2 -DVALUE=2 -Wl,--build-id=none -o "$T/aalib/libnobid.so" "$HUGELD_TOP/tests/cache/valuelib.c" \
  || fail "AppArmor: build the libraries" ""
if "$PLAN" --cache "$T/aalib/libvalue.so" "$T/aalib/libnobid.so" > "$OUT/names.json" 2> "$OUT/names.err" \
   && $PY - "$OUT/names.json" > "$OUT/aa-cases.json" 2> "$OUT/aa-cases.err" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
C = "/dev/hugepages/hugeld"
cases = [[C + "/", "r", "yes"], [C + "/.synced", "r", "yes"],
         [C + "/x", "m", "no"], [C + "/x", "r", "no"],
         ["/dev/hugepages/other/text-0-200000-600000", "m", "no"],
         ["/proc/1234/cgroup", "r", "owner"],
         ["/proc/sys/vm/nr_hugepages", "r", "yes"],
         ["/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages", "r", "yes"],
         ["/sys/fs/cgroup/system.slice/x.service/hugetlb.2MB.max", "r", "yes"],
         ["/sys/kernel/mm/transparent_hugepage/enabled", "r", "yes"]]
versions = set()
for o in d["objects"]:
    c = o["cache"]
    versions.add(c["version"].rsplit("-", 1)[1] == "none")
    i, e = C + "/" + c["inode"], C + "/" + c["inode"] + "/" + c["version"]
    cases += [[i + "/", "r", "yes"], [e + "/", "r", "yes"],
              [e + "/" + c["device"], "r", "yes"], [e + "/no-text", "r", "yes"],
              [e + "/" + c["device"], "m", "no"],
              [i + "/.tmp-1a2b3c/", "r", "no"], [e + "/source/", "r", "no"],
              [e + "/source" + o["path"], "r", "no"], [e + "/source" + o["path"], "m", "no"],
              [e + "/data-0-0-200000", "m", "no"], [e + "/relro-0-0-200000", "m", "no"]]
    if not c["zones"]:
        sys.exit("no zone for %s: %s" % (o["path"], c.get("why_not")))
    for z in c["zones"]:
        cases += [[e + "/" + z["name"], "r", "yes"], [e + "/" + z["name"], "m", "yes"],
                  [e + "/" + z["name"], "w", "no"],
                  [i + "/.tmp-1a2b3c/" + z["name"], "m", "no"],
                  [i + "/.tmp-1a2b3c/" + z["name"], "r", "no"],
                  [e + "/source/" + z["name"], "m", "no"],
                  [e + "/" + z["name"] + "/x", "r", "no"]]
if versions != {True, False}:
    sys.exit("not one version name with a build ID and one without")
json.dump(cases, sys.stdout)
EOF
then
  n=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/aa-cases.json")
  if $PY "$HUGELD_TOP/tests/outputs/aarules.py" "$AA" < "$OUT/aa-cases.json" > "$OUT/aa-rules.out" 2>&1; then
    pass "AppArmor: the abstraction grants the cache's entries as ld.so names them (read; map the text and rodata zones) and nothing else there (not .tmp-*, source/, other kinds or names), and a process's cgroup file only with owner ($n cases)"
  else
    fail "AppArmor: what the abstraction grants" "$(head -5 "$OUT/aa-rules.out" | tr '\n' ' ')"
  fi
else
  fail "AppArmor: the cache's names from the helper" "$(head -c 300 "$OUT/names.err" "$OUT/aa-cases.err" | tr '\n' ' ')"
fi
finish
