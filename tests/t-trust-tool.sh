#!/bin/bash
# Trust, the hugeld command's side: what another user can put where
# root's hugeld looks must not hang it, choose what it caches, get a
# file that user could not read into the cache (which everybody can
# read), make it use a cache directory that user made, or make `pool
# auto' reserve the machine's memory.  Each part plays the attacker:
#  1. cache entries whose files became a FIFO and a link to /dev/zero,
#     `cache' lines that name a FIFO and another user's symbolic link:
#     cache list, status --all (as root and as nobody) and cache sync
#     (as root; --dry-run as nobody) each finish (under timeout 20, a
#     FAIL if it fires) and name the path and why; the other user's
#     link is not followed.
#  2. A 0644 library in a 0700 directory (by its path, and through
#     root's link from a 0755 directory): cache add refuses it in one
#     line, and neither its bytes nor its path get into the cache.
#  3. /dev/hugepages/hugeld made first by nobody on a hugetlbfs mounted
#     mode=1777 (a private mount namespace, over /dev/hugepages), with
#     an entry whose source is a FIFO: cache add, list and status
#     refuse it in one line with its owner and the fix, and put nothing
#     in it; ld.so does not use it.
#  4. pool auto and a file whose program headers claim twice the
#     memory: sync --dry-run --reserve-pool caps the pool at a quarter
#     of MemTotal, and says so in one line.
#  5. The package: the boot unit has a start timeout; the dpkg
#     trigger's sync that hangs is stopped (HUGELD_SYNC_TIMEOUT, 2 s
#     here), with one line, and the script still succeeds (a private
#     mount namespace: /opt and /etc are the test's there).
#  6. Processes that name a FIFO, a device or hugeld's ld.so where
#     their loader was (also in a mount namespace of their own), one
#     that does not answer, programs whose PT_INTERP is a FIFO or a
#     device: status, status --all, plan and --direct answer, judge by
#     what they opened, and open only regular files (strace).
#  7. Escape sequences, carriage returns and newlines in a process's
#     settings, its command name and a library's name: shown escaped
#     in every human-readable output, kept in --json.
# Parts 1 and 4 run `cache sync' on a test policy file (--file): the
# system's current entries are added back at the end, as in t-sync.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(hugetlbfs cache, pool, other users)"
export HUGELD_LDSO
# Every run of the command is under a timeout: the code before these
# fixes hangs on this test's files.
HT=(timeout -k 5 20 "$H")
cache_keep_current
reserve_hugepages 24 || { fail reserve "cannot reserve 24 huge pages"; finish; }
cache_test_setup || finish
at_exit cleanup_cache
NOBODY_UID=$(id -u nobody) NOBODY_GID=$(id -g nobody)
AS_NOBODY=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups
           -- env HOME=/)
# bounded NAME CMD...: CMD under timeout 20, its output (both streams)
# in $TEST_TMP/NAME.out, its status in rc; false if the timeout fired.
bounded () {
  local name=$1; shift
  timeout -k 5 20 "$@" > "$TEST_TMP/$name.out" 2>&1
  rc=$?
  [ $rc != 124 ] && [ $rc != 137 ]
}
out_of () { head -c 400 "$TEST_TMP/$1.out" | tr '\n' '|'; }
sources () { "${HT[@]}" cache list --json 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin)["entries"]:
    print(e["source"])'; }

# 1. FIFOs, devices and other users' links.
D=$TEST_TMP/t1
O=$TEST_TMP/other
mkdir -p "$D" "$O"
chmod 755 "$D" "$O"
cp "$B/libvalue-1.so" "$D/libfifo.so"
cp "$B/libvalue-2.so" "$D/libdev.so"
cp "$B/libvalue-1.so" "$O/libreal.so"
chmod 644 "$D"/*.so "$O/libreal.so"
at_exit 'rm -f "$D"/*; "${HT[@]}" cache remove "$D/libfifo.so" "$D/libdev.so" "$O/libreal.so" > /dev/null 2>&1'
if ! "${HT[@]}" cache add "$D/libfifo.so" "$D/libdev.so" > "$TEST_TMP/add1.out" 2>&1; then
  fail "setup: cache add" "$(out_of add1)"; finish
fi
# What users who can write where the files were leave there: a FIFO
# nobody writes to, a link to a device, and a link of another user's
# to a library root did not mean to cache.
rm -f "$D/libfifo.so" "$D/libdev.so"
mkfifo -m 666 "$D/libfifo.so" "$D/libpipe.so"
ln -s /dev/zero "$D/libdev.so"
ln -s "$O/libreal.so" "$D/libuser.so"
chown -h daemon "$D/libuser.so"
CONF=$TEST_TMP/hugeld.conf
printf 'cache %s/lib*.so\n' "$D" > "$CONF"
chmod 644 "$CONF"
FIFO_WHY="not a regular file (a FIFO)"
DEV_WHY="not a regular file (a character device)"
LINK_WHY="not followed: the symbolic link $D/libuser.so is owned by daemon (uid $(id -u daemon)), not by root"

for who in root nobody; do
  run=(); [ $who = nobody ] && run=("${AS_NOBODY[@]}")
  if ! bounded "list-$who" "${run[@]}" "$H" cache list; then
    fail "cache list as $who: finishes" "still running after 20 s: $(out_of "list-$who")"
  elif [ $rc = 0 ] && grep -q "^$D/libfifo.so  *missing: $FIFO_WHY " "$TEST_TMP/list-$who.out" \
       && grep -q "^$D/libdev.so  *missing: $DEV_WHY " "$TEST_TMP/list-$who.out"; then
    pass "cache list as $who: finishes; the entry whose file is now a FIFO, and the one whose file links to /dev/zero: \"missing: $FIFO_WHY\", \"missing: $DEV_WHY\""
  else
    fail "cache list as $who" "rc $rc: $(out_of "list-$who")"
  fi
  if ! bounded "status-$who" "${run[@]}" "$H" status --all; then
    fail "status --all as $who: finishes" "still running after 20 s: $(out_of "status-$who")"
  elif grep -q "^  stale entry: $D/libfifo.so: $FIFO_WHY$" "$TEST_TMP/status-$who.out" \
       && grep -q "^  stale entry: $D/libdev.so: $DEV_WHY$" "$TEST_TMP/status-$who.out"; then
    pass "status --all as $who: finishes, names both files and why"
  else
    fail "status --all as $who" "rc $rc: $(grep -A3 'shared cache' "$TEST_TMP/status-$who.out" | tr '\n' '|')"
  fi
done

# sync --dry-run as nobody, then sync as root.
for who in nobody root; do
  if [ $who = nobody ]; then
    bounded "sync-$who" "${AS_NOBODY[@]}" "$H" cache sync --dry-run --file "$CONF"
  else
    bounded "sync-$who" "$H" cache sync --file "$CONF"
  fi
  [ $rc = 124 ] || [ $rc = 137 ] && { fail "cache sync as $who: finishes" "still running after 20 s: $(out_of "sync-$who")"; continue; }
  s=$TEST_TMP/sync-$who.out
  verb=removed; [ $who = nobody ] && verb="would remove"
  link_why=$LINK_WHY; [ $who = nobody ] && link_why="$LINK_WHY or you"
  if [ $rc = 0 ] && grep -q "^$verb $D/libfifo.so (missing: $FIFO_WHY)" "$s" \
     && grep -q "^$verb $D/libdev.so (missing: $DEV_WHY)" "$s" \
     && grep -qF "hugeld: warning: $D/libpipe.so ($CONF:1): not cached: $FIFO_WHY" "$s" \
     && grep -qF "hugeld: warning: $D/libfifo.so ($CONF:1): not cached: $FIFO_WHY" "$s" \
     && grep -qF "hugeld: warning: $D/libdev.so ($CONF:1): not cached: $DEV_WHY" "$s" \
     && grep -qF "hugeld: warning: $D/libuser.so ($CONF:1): not cached: $link_why" "$s"; then
    pass "cache sync as $who$([ $who = nobody ] && echo ", --dry-run"): finishes; the two entries go, with why; the FIFOs, the device and the other user's link are one warning each"
  else
    fail "cache sync as $who" "rc $rc: $(out_of "sync-$who")"
  fi
done
# The other user's link alone (the FIFOs and the device link gone):
# not followed, nothing cached.
rm -f "$D/libfifo.so" "$D/libdev.so" "$D/libpipe.so"
printf 'cache %s/libuser.so\n' "$D" > "$CONF"
bounded link "$H" cache sync --file "$CONF"
src=$(sources)
if [ $rc = 0 ] && ! grep -q "^$O/libreal.so$" <<< "$src" \
   && grep -qF "hugeld: warning: $D/libuser.so ($CONF:1): not cached: $LINK_WHY" "$TEST_TMP/link.out"; then
  pass "cache sync does not follow another user's symbolic link: $O/libreal.so is not cached, one warning"
else
  fail "cache sync does not follow another user's symbolic link" "rc $rc: $(out_of link) entries: $(tr '\n' ' ' <<< "$src")"
fi

# 2. Disclosure: a library others could not read through its path.
S=$TEST_TMP/private
mkdir -p "$S" "$TEST_TMP/pub"
chmod 700 "$S"
chmod 755 "$TEST_TMP/pub"
cp "$B/libvalue-1.so" "$S/libsecret.so"
chmod 644 "$S/libsecret.so"
ln -s "$S" "$TEST_TMP/pub/lib"
at_exit '"${HT[@]}" cache remove "$S/libsecret.so" > /dev/null 2>&1'
for how in "" " (through root's link from a 0755 directory)"; do
  p=$S/libsecret.so
  [ -z "$how" ] || p=$TEST_TMP/pub/lib/libsecret.so
  "${HT[@]}" cache add "$p" > "$TEST_TMP/secret.out" 2> "$TEST_TMP/secret.err"
  rc=$?
  src=$(sources)
  left=$(find "$CACHE" -path "*/source$S*" 2>/dev/null | wc -l)
  if [ $rc != 0 ] && [ "$(wc -l < "$TEST_TMP/secret.err")" = 1 ] \
     && grep -qF "hugeld: $p: not cached: its directory $S is not searchable by others (mode 0700)" "$TEST_TMP/secret.err" \
     && ! grep -q "^$S/" <<< "$src" && [ "$left" = 0 ]; then
    pass "a 0644 library in a 0700 directory$how: cache add refuses it in one line, no entry, no source path"
  else
    fail "cache add of a library in a 0700 directory ($p)" "rc $rc, $left source paths in the cache: $(head -c 300 "$TEST_TMP/secret.err" | tr '\n' '|') entries: $(tr '\n' ' ' <<< "$src")"
  fi
done

# 3. Squatting: another user's /dev/hugepages/hugeld, in a mount
# namespace of the test's own (nothing outside it sees the mount).
NS=$TEST_TMP/ns
mkdir -p "$NS"
chmod 755 "$NS"
mkfifo -m 666 "$NS/fifo"
made_mnt=
[ -d /dev/hugepages ] || { mkdir /dev/hugepages && made_mnt=1; }
[ -z "$made_mnt" ] || at_exit 'rmdir /dev/hugepages 2> /dev/null'
export H B LIB=$L/libvalue.so NS NOBODY_UID NOBODY_GID
unshare -m bash -c '
  mount -t hugetlbfs -o pagesize=2M,mode=1777 none /dev/hugepages || exit 3
  # nobody makes the directory first, and an entry in it whose source
  # is a FIFO of theirs.
  setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- \
    mkdir -p /dev/hugepages/hugeld/i1/v1/source"$NS" || exit 4
  setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- \
    touch /dev/hugepages/hugeld/i1/v1/source"$NS"/fifo || exit 4
  for c in "cache add $LIB" "cache list" "status --all" "cache prune"; do
    set -- $c
    n=$1-${2#--}
    timeout -k 5 20 "$H" $c > "$NS/$n.out" 2> "$NS/$n.err"
    echo $? > "$NS/$n.rc"
  done
  find /dev/hugepages/hugeld ! -user "$NOBODY_UID" > "$NS/root-made"
  if [ -x "$HUGELD_LDSO" ]; then
    echo | env LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_BACKING=shared \
      LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$NS/ld.dbg" "$HUGELD_LDSO" "$B/hold" "$LIB" \
      > "$NS/ld.out" 2>&1
  fi
  exit 0' > "$NS/ns.log" 2>&1
nsrc=$?
fix="/dev/hugepages/hugeld is not owned by root (owned by nobody, uid $NOBODY_UID): ld.so ignores it and hugeld does not use it; remove it: rm -rf /dev/hugepages/hugeld, and mount the hugetlbfs with mode=0755 so that no other user can make it (mount -o remount,mode=0755 /dev/hugepages; it is mode 1777)"
if [ $nsrc != 0 ]; then
  skip "squatted cache directory" "no private hugetlbfs in a mount namespace here (step $nsrc): $(head -c 200 "$NS/ns.log")"
else
  for n in cache-add cache-list cache-prune; do
    if [ "$(cat "$NS/$n.rc")" = 124 ] || [ "$(cat "$NS/$n.rc")" = 137 ]; then
      fail "squatted cache directory: ${n/-/ }: finishes" "still running after 20 s"
    elif [ "$(cat "$NS/$n.rc")" = 1 ] && [ "$(wc -l < "$NS/$n.err")" = 1 ] \
         && grep -qFx "hugeld: $fix" "$NS/$n.err"; then
      pass "squatted cache directory: ${n/-/ } refuses it: one line with its owner and the fix, exit 1"
    else
      fail "squatted cache directory: ${n/-/ }" "rc $(cat "$NS/$n.rc"): $(head -c 400 "$NS/$n.err" | tr '\n' '|')"
    fi
  done
  if [ "$(cat "$NS/status-all.rc")" = 124 ] || [ "$(cat "$NS/status-all.rc")" = 137 ]; then
    fail "squatted cache directory: status --all: finishes" "still running after 20 s"
  elif grep -qFx "shared cache: $fix" "$NS/status-all.out"; then
    pass "squatted cache directory: status --all says so, with the fix"
  else
    fail "squatted cache directory: status --all" "rc $(cat "$NS/status-all.rc"): $(grep -A1 'shared cache' "$NS/status-all.out" | tr '\n' '|')"
  fi
  [ ! -s "$NS/root-made" ] \
    && pass "squatted cache directory: hugeld put nothing in it" \
    || fail "squatted cache directory: hugeld put nothing in it" "$(head -5 "$NS/root-made" | tr '\n' ' ')"
  if [ ! -x "$HUGELD_LDSO" ]; then
    skip "squatted cache directory: ld.so" "no loader at $HUGELD_LDSO"
  elif [ "$(head -1 "$NS/ld.out")" = "value 1" ] && ! grep -q '(shared)' "$NS/ld.dbg".* 2>/dev/null; then
    pass "squatted cache directory: ld.so maps nothing from it, stock result ($(cat "$NS/ld.dbg".* 2>/dev/null | grep -m1 -o 'shared: .*'))"
  else
    fail "squatted cache directory: ld.so" "$(head -1 "$NS/ld.out"): $(cat "$NS/ld.dbg".* 2>/dev/null | grep -m2 'shared' | tr '\n' ' ')"
  fi
fi

# 4. pool auto's cap: a file whose program headers claim a text
# segment of twice the memory (sparse: it takes no room).
D4=$TEST_TMP/t4
mkdir -p "$D4"
chmod 755 "$D4"
memkb=$(meminfo MemTotal)
python3 - "$D4/libhuge.so" $(( memkb * 2048 )) <<'EOF'
import struct, sys
H = 2 << 20
size = (int(sys.argv[2]) + H - 1) // H * H
eh = (b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
      + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0))
text = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, size, size, H)
data = struct.pack("<IIQQQQQQ", 1, 6, size, size, size, 4096, 4096, H)
with open(sys.argv[1], "wb") as f:
    f.write(eh + text + data)
    f.truncate(size + 4096)
EOF
chmod 644 "$D4/libhuge.so"
printf 'cache %s/lib*.so\npool auto\n' "$D4" > "$CONF"
cap=$(( memkb * 1024 / 4 / (2 << 20) ))
bounded pool "$H" cache sync --file "$CONF" --dry-run --reserve-pool
if [ $rc = 0 ] && [ "$(grep -c '^pool auto: capped at' "$TEST_TMP/pool.out")" = 1 ] \
   && grep -q "^pool auto: capped at $cap huge pages (.*, a quarter of MemTotal)" "$TEST_TMP/pool.out" \
   && grep -q "^pool: \(would grow nr_hugepages from [0-9]* to $cap\|nr_hugepages [0-9]*, not grown\) (" "$TEST_TMP/pool.out" \
   && grep -q "^would cache $D4/libhuge.so: " "$TEST_TMP/pool.out"; then
  pass "pool auto with a file that claims $(( memkb * 2 / 1024 )) MiB of text: capped at $cap pages, a quarter of MemTotal, in one line"
else
  fail "pool auto is capped" "rc $rc, cap $cap: $(out_of pool)"
fi
grep -q 'quarter' "$HUGELD_TOP/tools/hugeld.conf.5" \
  && pass "hugeld.conf(5) documents the cap" \
  || fail "hugeld.conf(5) documents the cap" ""

# 5. The package: a sync that hangs holds neither the boot nor dpkg.
for u in hugeld-cache.service hugeld-thp-repair.service; do
  UNIT=$HUGELD_TOP/scripts/deb/$u
  t=$(sed -n 's/^TimeoutStartSec=//p' "$UNIT")
  if [ -n "$t" ] && [ "$t" != infinity ] && sed -n '/^\[Service\]/,/^\[/p' "$UNIT" | grep -q '^TimeoutStartSec='; then
    pass "$u: TimeoutStartSec=$t"
  else
    fail "$u has a start timeout" "TimeoutStartSec='$t'"
  fi
done
P=$TEST_TMP/pkg
mkdir -p "$P/opt/hugeld/bin" "$P/up" "$P/work" "$P/run/systemd/system" "$P/stubs"
printf '#!/bin/sh\nexec sleep 600\n' > "$P/opt/hugeld/bin/hugeld"
# A running system, where the postinst syncs (tests/t-hooks.sh: not in
# a chroot, as check-distro's runs are, nor without systemd).
printf '#!/bin/sh\nexit 1\n' > "$P/stubs/ischroot"
chmod 755 "$P/opt/hugeld/bin/hugeld" "$P/stubs/ischroot"
export P HUGELD_TOP
start=$(date +%s)
unshare -m bash -c '
  mount --bind "$P/opt" /opt || exit 3
  mount -t overlay overlay -o "lowerdir=/etc,upperdir=$P/up,workdir=$P/work" /etc || exit 4
  mount --bind "$P/run" /run || exit 5
  printf "cache /usr/lib/nothing.so\n" > /etc/hugeld.conf
  PATH="$P/stubs:$PATH" HUGELD_SYNC_TIMEOUT=2 env -u DPKG_ROOT \
    timeout -k 5 30 sh "$HUGELD_TOP/scripts/deb/postinst" triggered /usr/lib \
    > "$P/postinst.out" 2> "$P/postinst.err"
  echo $? > "$P/postinst.rc"' > "$P/ns.log" 2>&1
nsrc=$?
took=$(( $(date +%s) - start ))
if [ $nsrc != 0 ]; then
  skip "dpkg trigger: a sync that hangs" "no private /opt, /etc and /run in a mount namespace here (step $nsrc): $(head -c 200 "$P/ns.log")"
elif [ "$(cat "$P/postinst.rc")" = 0 ] && [ "$took" -lt 20 ] \
     && [ "$(wc -l < "$P/postinst.err")" = 1 ] \
     && grep -q "^hugeld: cache sync did not finish in 2 s and was stopped" "$P/postinst.err"; then
  pass "dpkg trigger: a sync that hangs is stopped (HUGELD_SYNC_TIMEOUT=2: ${took} s), one line, postinst exits 0"
else
  fail "dpkg trigger: a sync that hangs is stopped" "rc $(cat "$P/postinst.rc"), ${took} s: $(cat "$P/postinst.out" "$P/postinst.err" | tr '\n' '|')"
fi
# 6. What a process names (its loader, the files it maps) and what a
# program names (its PT_INTERP) decide nothing, open nothing but
# regular files and hang nothing (issue 43).  nobody runs a copy of the
# stock loader, then deletes it and puts at its name: a FIFO; the same
# FIFO, in root's view only, while the copy sits on a tmpfs in
# nobody's own mount namespace (unshare -Urm); a link to /dev/full; a
# link to hugeld's ld.so.  A control runs on hugeld's ld.so.  status
# PID and status --all (under strace -ff) must answer promptly, say
# "(not hugeld)" for each copy and "(hugeld)" for the control, and open
# none of those names and nothing but regular files (O_PATH, which
# opens nothing, aside).  A process whose reading does not return is
# played by the planning helper hanging on it (HUGELD_PLAN, a wrapper):
# status --all lists the others and says so in one line, after its
# time limit.  A program whose PT_INTERP is a FIFO or a link to a
# device: plan answers, --direct says why, nothing is opened.
mkdir -p "$TEST_TMP/t6"
T6=$(readlink -f "$TEST_TMP/t6")
chmod 755 "$T6"
LDSO_REAL=$(readlink -f "$HUGELD_LDSO")
HH=$T6/hugehold
cc -O2 -Wall -Werror -o "$HH" "$HUGELD_TOP/tests/trust/hugehold.c" \
  || { fail "build hugehold" ""; finish; }
# Each attacker's own directory.
for d in fifo ns dev link interp; do
  mkdir -p "$T6/$d"
  chown "$NOBODY_UID:$NOBODY_GID" "$T6/$d"
done
as_nobody () { setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "$@"; }
# spawn NAME CMD...: CMD in the background, its standard input open
# until the test ends (HOLD_PIPE's writer); waits for "ready".
# PID[NAME] is its process: CMD is no shell function, and each of its
# commands (setpriv, env, unshare, sh -c 'exec') execs the next.
declare -A PID
HOLD_PIPE=$T6/hold.pipe
mkfifo "$HOLD_PIPE"
exec {HOLD_FD}<> "$HOLD_PIPE"
at_exit 'exec {HOLD_FD}>&-'
spawn () {
  local name=$1; shift
  "$@" < "$HOLD_PIPE" > "$T6/$name.out" 2>&1 &
  PID[$name]=$!
  at_exit "kill ${PID[$name]} 2> /dev/null"
  local i
  for i in $(seq 100); do
    grep -q ready "$T6/$name.out" 2>/dev/null && return 0
    kill -0 "${PID[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
# opens_ok TRACE NAME...: the strace -ff files TRACE.* show no open
# (but O_PATH, which opens nothing) of any NAME, and nothing opened but
# regular files and directories: each descriptor an open returned is
# judged by the fstat (newfstatat, statx) of it that follows, as every
# opener here does (Python's open, the opening rule, ld.so).  Not by
# strace -yy's names: those it looks up again by path, which is what
# the attacker changed.  Prints what was wrong.
opens_ok () {
  python3 - "$@" <<'PY'
import glob, re, sys
trace, names = sys.argv[1], set(sys.argv[2:])
bad = []
call = re.compile(r'^(open|openat|openat2)\((?:[^,]*, )?"((?:[^"\\]|\\.)*)", ([^,)]*).*\) = (-?\d+)')
stat = re.compile(r'^(?:fstat|newfstatat|statx)\((\d+), (?:"", )?.*?(?:st_mode|stx_mode)=(S_IF[A-Z]+)')
for f in glob.glob(trace + ".*"):
    lines = open(f, errors="replace").read().splitlines()
    for i, line in enumerate(lines):
        m = call.match(line)
        if not m or "O_PATH" in m.group(3):
            continue
        path, fd = m.group(2), int(m.group(4))
        if path in names:
            bad.append("opened %s (%s)" % (path, m.group(3)))
        if fd < 0:
            continue
        for later in lines[i + 1:]:
            s = stat.match(later)
            if s and int(s.group(1)) == fd:
                if s.group(2) not in ("S_IFREG", "S_IFDIR"):
                    bad.append("%s: %s" % (s.group(2), line[:160]))
                break
            if re.match(r'^close\(%d\)' % fd, later):
                break
print("; ".join(bad[:4]))
sys.exit(1 if bad else 0)
PY
}
# traced NAME CMD...: CMD under strace -ff (opens, fstats, closes) and
# a time limit; output in $T6/NAME.out, status in rc; false if the limit
# fired.
traced () {
  local name=$1; shift
  rm -f "$T6/$name.trace".*
  strace -ff -qq -e trace=open,openat,openat2,fstat,newfstatat,statx,close \
    -o "$T6/$name.trace" \
    timeout -k 5 20 "$@" > "$T6/$name.out" 2>&1
  rc=$?
  [ $rc != 124 ] && [ $rc != 137 ]
}

started=1
cp "$SYSTEM_LDSO" "$T6/fifo/ld.so" && cp "$SYSTEM_LDSO" "$T6/dev/ld.so" \
  && cp "$SYSTEM_LDSO" "$T6/link/ld.so" && chown "$NOBODY_UID" "$T6"/*/ld.so \
  || started=0
spawn fifo "${AS_NOBODY[@]}" "$T6/fifo/ld.so" "$HH" || started=0
spawn dev "${AS_NOBODY[@]}" "$T6/dev/ld.so" "$HH" || started=0
spawn link "${AS_NOBODY[@]}" "$T6/link/ld.so" "$HH" || started=0
spawn control "$HUGELD_LDSO" "$HH" || started=0
as_nobody rm "$T6/fifo/ld.so" "$T6/dev/ld.so" "$T6/link/ld.so"
as_nobody mkfifo "$T6/fifo/ld.so"
as_nobody ln -s /dev/full "$T6/dev/ld.so"
as_nobody ln -s "$HUGELD_LDSO" "$T6/link/ld.so"
# In nobody's own mount namespace: a tmpfs over its directory, the copy
# in it; in root's view, a FIFO at that name.
as_nobody mkfifo "$T6/ns/ld.so"
cases="fifo dev link control"
if spawn ns "${AS_NOBODY[@]}" unshare -Urm sh -c 'mount -t tmpfs none "$0" && cp "$1" "$0/ld.so" && exec "$0/ld.so" "$2"' "$T6/ns" "$SYSTEM_LDSO" "$HH"; then
  cases="fifo ns dev link control"
else
  skip "a loader on a tmpfs in nobody's own mount namespace" "unshare -Urm as nobody: $(head -c 200 "$T6/ns.out" | tr '\n' ' ')"
fi
[ $started = 1 ] || { fail "setup: the processes" "$(head -c 300 "$T6"/*.out | tr '\n' ' ')"; finish; }
declare -A WHAT=([fifo]="a FIFO at its loader's name" [ns]="its loader on a tmpfs in its own namespace, a FIFO at that name in root's"
                 [dev]="a link to /dev/full at its loader's name" [link]="a link to hugeld's ld.so at its stock loader's name"
                 [control]="on hugeld's ld.so")
all_names=("$T6/fifo/ld.so" "$T6/ns/ld.so" "$T6/dev/ld.so" "$T6/link/ld.so" /dev/full)
for c in $cases; do
  # The copies were deleted, but in nobody's namespace: there it is
  # what the process runs (/proc/PID/exe), as for the control.
  want="  loader: $T6/$c/ld.so (not hugeld)"
  [ $c = ns ] && want+=", run as a command"
  [ $c = control ] && want="  loader: $LDSO_REAL (hugeld), run as a command"
  if ! traced "status-$c" "$H" status "${PID[$c]}"; then
    fail "status of a process with ${WHAT[$c]}: answers" "still running after 20 s: $(head -c 300 "$T6/status-$c.out" | tr '\n' '|')"
  elif [ $rc != 0 ] || ! grep -qxF "$want" "$T6/status-$c.out"; then
    fail "status of a process with ${WHAT[$c]}" "rc $rc, want \"$want\": $(grep -m1 loader: "$T6/status-$c.out")"
  elif ! why=$(opens_ok "$T6/status-$c.trace" "${all_names[@]}"); then
    fail "status of a process with ${WHAT[$c]}: opens only regular files" "$why"
  else
    pass "status of a process with ${WHAT[$c]}: answers, \"$(sed 's/^  //' <<< "$want")\", opens only regular files (strace)"
  fi
done
if ! traced status-all "$H" status --all; then
  fail "status --all beside those processes: answers" "still running after 20 s"
else
  missing=
  for c in $cases; do
    grep -q "^ *${PID[$c]} " "$T6/status-all.out" || missing+=" $c"
  done
  if [ $rc = 0 ] && [ -z "$missing" ] && why=$(opens_ok "$T6/status-all.trace" "${all_names[@]}"); then
    pass "status --all: answers, lists each of them, opens only regular files (strace)"
  else
    fail "status --all beside those processes" "rc $rc, not listed:${missing:- none}; ${why:-}"
  fi
fi

# A process whose reading does not return, beside the others.
REAL_PLAN=${HUGELD_PLAN:-}
if [ -z "$REAL_PLAN" ]; then
  REAL_PLAN=$(dirname "$(readlink -f "$H")")/hugeld-plan
  [ -x "$REAL_PLAN" ] || REAL_PLAN=$(dirname "$REAL_PLAN")/../libexec/hugeld-plan
fi
if spawn stall "$HH"; then
  cat > "$T6/plan-stall" <<EOF
#!/bin/sh
# The helper asked about process ${PID[stall]}'s hugetlb cgroup never
# answers: a stand-in for a read of its /proc files that does not
# return.
case " \$* " in *" --cgroup-none ${PID[stall]} "*) echo \$\$ >> "$T6/stalled"; exec sleep 120 ;; esac
exec "$REAL_PLAN" "\$@"
EOF
  chmod 755 "$T6/plan-stall"
  at_exit '[ -f "$T6/stalled" ] && kill $(cat "$T6/stalled") 2> /dev/null'
  start=$(date +%s)
  HUGELD_PLAN=$T6/plan-stall timeout -k 5 60 "$H" status --all > "$T6/stall-all.out" 2>&1
  rc=$? took=$(( $(date +%s) - start ))
  line="(not counted: process ${PID[stall]} (hugehold): no answer in 10 s (reading its /proc files waits: its memory is held busy))"
  if [ $rc = 0 ] && [ $took -lt 40 ] && grep -qxF "$line" "$T6/stall-all.out" \
     && grep -q "^ *${PID[control]} " "$T6/stall-all.out"; then
    pass "status --all beside a process that does not answer: done in $took s, the others listed, one line for it"
  else
    fail "status --all beside a process that does not answer" "rc $rc, $took s: $(head -c 600 "$T6/stall-all.out" | tr '\n' '|')"
  fi
  HUGELD_PLAN=$T6/plan-stall timeout -k 5 60 "$H" status "${PID[stall]}" > "$T6/stall-one.out" 2>&1
  rc=$?
  if [ $rc = 1 ] && [ "$(cat "$T6/stall-one.out")" = "hugeld: process ${PID[stall]}: no answer in 10 s (reading its /proc files waits: its memory is held busy)" ]; then
    pass "status of a process that does not answer: one line after 10 s, exit 1"
  else
    fail "status of a process that does not answer" "rc $rc: $(head -c 300 "$T6/stall-one.out" | tr '\n' '|')"
  fi
else
  fail "setup: a process that does not answer" "$(cat "$T6/stall.out")"
fi

# A program whose PT_INTERP is a FIFO, or a link to a device.
as_nobody mkfifo "$T6/interp/fifo"
as_nobody ln -s /dev/full "$T6/interp/dev"
printf 'int main (void) { return 0; }\n' > "$T6/m.c"
for k in fifo dev; do
  cc -o "$T6/prog-$k" "$T6/m.c" -Wl,--dynamic-linker="$T6/interp/$k" \
    || { fail "build a program with PT_INTERP $k" ""; continue; }
  why="a FIFO"; [ $k = dev ] && why="a character device"
  if ! traced "plan-$k" "$H" plan --libs '*' "$T6/prog-$k"; then
    fail "plan of a program whose PT_INTERP is $why: answers" "still running after 20 s"
  elif [ $rc != 0 ] || ! why2=$(opens_ok "$T6/plan-$k.trace" "$T6/interp/$k" /dev/full); then
    fail "plan of a program whose PT_INTERP is $why" "rc $rc: $(head -c 300 "$T6/plan-$k.out" | tr '\n' '|') ${why2:-}"
  else
    pass "plan --libs '*' of a program whose PT_INTERP is $why: answers, opens only regular files (strace)"
  fi
  for cmd in plan run; do
    if [ $cmd = plan ]; then
      traced "direct-$k" "$H" plan --direct --libs '*' "$T6/prog-$k"
    else
      traced "direct-$k" "$H" run --direct --no-pool-check --libs '*' -- "$T6/prog-$k"
    fi
    want="hugeld: --direct: $T6/prog-$k's interpreter is $T6/interp/$k, not hugeld's loader (not a regular file ($why))"
    if [ $rc = 1 ] && [ "$(head -1 "$T6/direct-$k.out" | cut -c1-${#want})" = "$want" ] \
       && [ "$(wc -l < "$T6/direct-$k.out")" = 1 ] && opens_ok "$T6/direct-$k.trace" "$T6/interp/$k" /dev/full > /dev/null; then
      pass "$cmd --direct, PT_INTERP $why: one line saying so, nothing opened"
    else
      fail "$cmd --direct, PT_INTERP $why" "rc $rc: $(head -c 300 "$T6/direct-$k.out" | tr '\n' '|')"
    fi
  done
done

# 7. Nothing a process controls reaches root's terminal raw (issue
# 43): a process named with ESC[2J and a CR, running a library whose
# name holds an OSC sequence, a CR and a newline, with LD_HUGEPAGE_LIBS
# that erases the line above and writes a false loader line after a
# newline, and LD_HUGEPAGE_SEGMENTS with a CR and ESC[2K.  Every
# human-readable output (status, status --all, plan, an error) has no
# control character but its own newlines, shows each escaped, and
# forges no line; --json keeps the values as they are.
mkdir -p "$TEST_TMP/t7"
T7=$(readlink -f "$TEST_TMP/t7")
chmod 755 "$T7"
PROG=$T7/$'hold\e[2J\r'
LIBW=$T7/$'lib\e]0;pwned\a\r\nvalue.so'
LIBS_VALUE=$'\e[1A\e[2K\r  loader: /opt/x/ld.so (hugeld)\nforged line:lib*'
SEGS_VALUE=$'text\r\e[2K'
cp "$B/hold" "$PROG" && cp "$B/libvalue-1.so" "$LIBW" && chmod 755 "$PROG" && chmod 644 "$LIBW" \
  || { fail "setup: names with escape sequences" ""; finish; }
# controls FILE: the lines of FILE that hold a control character (but
# the newline that ends them), C1 ones (UTF-8 \xc2\x80-\x9f) included.
controls () { LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$1"; }
if ! spawn weird env LD_HUGEPAGE_LIBS="$LIBS_VALUE" LD_HUGEPAGE_SEGMENTS="$SEGS_VALUE" \
     LD_HUGEPAGE_BACKING=private "$HUGELD_LDSO" "$PROG" "$LIBW"; then
  fail "setup: a process with escape sequences" "$(head -c 300 "$T6/weird.out" | tr '\n' '|')"
else
  p=${PID[weird]}
  esc_libs='\x1b[1A\x1b[2K\r  loader: /opt/x/ld.so (hugeld)\nforged line:lib*'
  esc_prog='hold\x1b[2J\r'
  # /proc/PID/maps shows a newline in a name as \012.
  esc_lib="$T7/"'lib\x1b]0;pwned\x07\r\012value.so'
  for how in "status $p" "status --all"; do
    n=${how// /-}
    timeout -k 5 20 "$H" $how > "$T7/$n.out" 2>&1
    rc=$?
    c=$(controls "$T7/$n.out")
    forged=$(grep -c '^forged\|^ *loader: /opt/x' "$T7/$n.out")
    ok=1
    grep -qF "$esc_prog" "$T7/$n.out" || ok=0
    if [ "$how" = "status $p" ]; then
      grep -qF "libs $esc_libs (LD_HUGEPAGE_LIBS)" "$T7/$n.out" && grep -qF "$esc_lib" "$T7/$n.out" \
        && grep -qF 'LD_HUGEPAGE_SEGMENTS=text\r\x1b[2K' "$T7/$n.out" || ok=0
    else
      grep -qF 'lib\x1b]0;pwned\x07\r\012value.so' "$T7/$n.out" || ok=0
    fi
    if [ $rc = 0 ] && [ "$c" = 0 ] && [ "$forged" = 0 ] && [ $ok = 1 ]; then
      pass "$(cut -d' ' -f1-2 <<< "${how/$p/PID}"): no control character, the command name, library path and settings shown escaped, no line forged"
    else
      fail "${how/$p/PID} shows what the process controls escaped" "rc $rc, $c lines with control characters, $forged forged, escaped forms found: $ok: $(head -c 600 "$T7/$n.out" | cat -v | tr '\n' '|')"
    fi
  done
  timeout -k 5 20 "$H" status --json "$p" > "$T7/json.out" 2>&1
  if python3 - "$T7/json.out" "$LIBS_VALUE" "$SEGS_VALUE" "$PROG" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
s = st["settings"]
sys.exit(0 if s["given"]["libs"] == sys.argv[2]
         and s["given"]["segments"] == sys.argv[3]
         and st["program"] == sys.argv[4] else 1)
PY
  then
    pass "status --json: the values as the process has them"
  else
    fail "status --json: the values as the process has them" "$(head -c 300 "$T7/json.out" | cat -v)"
  fi
fi
timeout -k 5 20 "$H" plan --libs '*' "$LIBW" > "$T7/plan.out" 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(controls "$T7/plan.out")" = 0 ] \
   && grep -qF "$T7/"'lib\x1b]0;pwned\x07\r\nvalue.so' "$T7/plan.out"; then
  pass "plan of a library whose name holds escape sequences and a newline: shown escaped"
else
  fail "plan of a library with escape sequences in its name" "rc $rc: $(head -c 400 "$T7/plan.out" | cat -v | tr '\n' '|')"
fi
timeout -k 5 20 "$H" plan --libs '*' "$T7/"$'none\nforged line\e[2J' > "$T7/err.out" 2>&1
rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$T7/err.out")" = 1 ] && [ "$(controls "$T7/err.out")" = 0 ] \
   && grep -qF 'none\nforged line\x1b[2J' "$T7/err.out"; then
  pass "an error about a name with a newline and ESC[2J: one line, escaped"
else
  fail "an error about a name with a newline and ESC[2J" "rc $rc: $(cat -v "$T7/err.out" | tr '\n' '|')"
fi
finish
