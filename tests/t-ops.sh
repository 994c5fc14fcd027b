#!/bin/bash
# The operator's hugeld (issue 42), on libbigbody.so and its runner:
#
# - what did not happen is said: a pattern that selects nothing (run,
#   plan, config check, with the names it may have meant), a pool too
#   small for the plan (run, plan), a malformed pattern in ld.so (one
#   warning line), a policy file ld.so ignores (status, config check,
#   errors on stderr);
# - status: kernel threads; --all lists processes whose only huge pages
#   are the page cache's, and the node (cache entries, the processes
#   mapping each, what sharing saves); the hints for a selected object
#   with no huge page, among them the PIE the kernel placed off its file
#   phase under thp (the cases that need no machine state are in
#   tests/unit/test_hugeld_ops.py);
# - status --all --prometheus read back with the Prometheus client's
#   own parser (python3-prometheus-client), its numbers against smaps;
#   hugeld check PID passing with the pool and failing, in one line,
#   without enough of it;
# - hugeld enable and disable, against a systemctl that only answers
#   (the real service, mariadb under systemd, is in check-boot);
# - conventions: an error changes nothing (cache add of a missing file
#   mounts nothing, cache remove of one removes nothing), the empty-pool
#   refusal names --backing thp, make uninstall takes out all of make
#   install.
. "$(dirname "$0")/lib.sh"
need_root "to size the pool and read every process"
need_loaders
need_fixtures libbigbody.so bigbody-run
F=$FIXTURES
H=${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}
export HUGELD_LDSO
PY=/usr/bin/python3

# (Whatever other processes hold: scripts/pool.sh.)
available () { pool_avail; }
set_available () { pool_set_avail "$1"; }
reserve_hugepages 0 || { fail reserve "cannot take the pool"; finish; }

# start NAME ENV...: bigbody-run --wait under hugeld's ld.so with ENV,
# its stdin a FIFO kept open; sets PID.  stop ends them all.
PIDS=()
start () {
  local name=$1; shift
  mkfifo "$TEST_TMP/$name.in"
  env "$@" "$HUGELD_LDSO" "$F/bigbody-run" --wait < "$TEST_TMP/$name.in" \
    > "$TEST_TMP/$name.out" 2> "$TEST_TMP/$name.err" &
  PID=$!
  exec {fd}> "$TEST_TMP/$name.in"
  eval "FD_$name=$fd"
  PIDS+=("$PID")
  local i
  for i in $(seq 100); do
    grep -q ready "$TEST_TMP/$name.out" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "start $name" "not ready: $(cat "$TEST_TMP/$name.err")"
  return 1
}
stop () { local p; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; PIDS=(); }
at_exit stop

# --- Say what did not happen -------------------------------------------------

set_available 60
out=$("$H" plan "$F/bigbody-run" --libs 'libbigbdy.so:libbigbody.so' 2>&1 >/dev/null)
echo "$out" | grep -q "^hugeld: warning: pattern 'libbigbdy.so' selects none of the 3 objects $F/bigbody-run loads (did you mean libbigbody.so?)" \
  && pass "plan: a pattern that selects nothing, on stderr, with the name it may have meant" \
  || fail "plan: a pattern that selects nothing" "$out"
out=$("$H" plan "$F/bigbody-run" --libs 'libbigbody.so' 2>&1 >/dev/null)
[ -z "$out" ] && pass "plan: no warning where every pattern selects something" \
  || fail "plan: no warning" "$out"
out=$("$H" run --libs 'libbigbdy.so' -- "$F/bigbody-run" 2> "$TEST_TMP/run.err")
rc=$?
[ $rc = 0 ] && [ "$out" = "$("$SYSTEM_LDSO" "$F/bigbody-run")" ] \
  && grep -q "^hugeld: warning: pattern 'libbigbdy.so' selects none of the 3 objects .*(did you mean libbigbody.so?)" "$TEST_TMP/run.err" \
  && pass "run: the warning, and the program runs" \
  || fail "run: a pattern that selects nothing" "exit $rc: $(cat "$TEST_TMP/run.err")"

set_available 5
"$H" run --libs libbigbody.so -- "$F/bigbody-run" > /dev/null 2> "$TEST_TMP/run.err"
grep -q "^hugeld: warning: the pool has [0-9]* of the 42 huge pages this process takes from it: [0-9]* short; ld.so gives the pages there are to text first (hugeld plan $F/bigbody-run --libs 'libbigbody.so' --apply reserves them)" "$TEST_TMP/run.err" \
  && pass "run: a pool too small for the plan: how many short, and what reserves them" \
  || fail "run: a pool too small" "$(cat "$TEST_TMP/run.err")"
out=$("$H" plan "$F/bigbody-run" --libs libbigbody.so 2>&1)
echo "$out" | grep -q '^short by [0-9]*: run with --apply' \
  && echo "$out" | grep -Eq '^ +text +[0-9]+ of +35 ' \
  && pass "plan: short by N, and what a process started now gets (text first)" \
  || fail "plan: a pool too small" "$(echo "$out" | tail -5 | tr '\n' '|')"

# ld.so: a malformed pattern is one warning line; the program runs.
LD_HUGEPAGE_LIBS='libbigbody[' "$HUGELD_LDSO" "$F/bigbody-run" > "$TEST_TMP/o" 2> "$TEST_TMP/e"
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$TEST_TMP/e")" = 1 ] \
  && grep -q "warning: LD_HUGEPAGE_LIBS=libbigbody\[: pattern has a '\[' that is not closed (write \\\\\[ for a literal one) (in \"libbigbody\[\")" "$TEST_TMP/e" \
  && pass "ld.so: LD_HUGEPAGE_LIBS with an unclosed [: one warning line ($(cat "$TEST_TMP/e"))" \
  || fail "ld.so: a malformed pattern" "exit $rc: $(cat "$TEST_TMP/e")"
GLIBC_TUNABLES='glibc.elf.hugepage.libs=x\' "$HUGELD_LDSO" "$F/bigbody-run" > /dev/null 2> "$TEST_TMP/e"
grep -q 'warning: glibc.elf.hugepage.libs=x\\: pattern ends with a lone backslash' "$TEST_TMP/e" \
  && pass "ld.so: the tunable is named when the pattern came from it" \
  || fail "ld.so: a malformed pattern in the tunable" "$(cat "$TEST_TMP/e")"
LD_HUGEPAGE_LIBS='libbigbody.so::' "$HUGELD_LDSO" "$F/bigbody-run" > /dev/null 2> "$TEST_TMP/e"
[ ! -s "$TEST_TMP/e" ] && pass "ld.so: an empty pattern (a colon too many) says nothing" \
  || fail "ld.so: an empty pattern" "$(cat "$TEST_TMP/e")"

# config check: errors on stderr; a pattern selecting nothing anywhere.
C=$TEST_TMP/conf
printf 'libs libbigbdy.so\n' > "$C"
"$H" config check --file "$C" --program "$F/bigbody-run" > "$TEST_TMP/o" 2> "$TEST_TMP/e"
rc=$?
[ $rc = 0 ] && grep -q "^hugeld: warning: pattern 'libbigbdy.so' selects none of the 3 objects .*(did you mean libbigbody.so?)" "$TEST_TMP/e" \
  && ! grep -q warning "$TEST_TMP/o" \
  && pass "config check --program: the file's patterns select nothing for it: a warning on stderr" \
  || fail "config check: patterns that select nothing" "exit $rc: $(cat "$TEST_TMP/e")"
printf 'libs libbigbody.so\nsegments text,nonsense\n' > "$C"
"$H" config check --file "$C" > "$TEST_TMP/o" 2> "$TEST_TMP/e"
rc=$?
[ $rc = 1 ] && grep -q ":2: " "$TEST_TMP/e" && grep -q "ld.so ignores the whole file" "$TEST_TMP/e" \
  && ! grep -q ":2: \|ignores" "$TEST_TMP/o" \
  && pass "config check: a bad line and its consequence on stderr, exit 1" \
  || fail "config check: errors on stderr" "exit $rc: out $(cat "$TEST_TMP/o" | tr '\n' '|') err $(cat "$TEST_TMP/e" | tr '\n' '|')"
out=$("$H" config check --file "$TEST_TMP/none" --json 2>/dev/null)
echo "$out" | $PY -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (d["used"] is False and d["exists"] is False))' \
  && pass "config check --json without the file: used false" \
  || fail "config check --json without the file" "$out"

# --- status ------------------------------------------------------------------

out=$("$H" status 2); rc=$?
[ $rc = 0 ] && [ "$out" = "process 2 (kthreadd): a kernel thread: no memory of its own, nothing on huge pages" ] \
  && pass "status 2: a kernel thread, named as such" || fail "status 2" "exit $rc: $out"

# The kernel places a PIE at a random 4 KiB multiple, off its file
# phase but one time in 512; thp only.  ld.so moves it to its file
# phase (elf/dl-hugepage-move.c), but not under a tracer: then neither
# LD_DEBUG nor status blames the pool or another process, they name the
# kernel's address.  The runner and its 71 MiB of text linked into one
# PIE with hugeld as its PT_INTERP (a patchelf'd PIE is the same to the
# kernel).
if ! cc -O2 -fPIE -pie -o "$TEST_TMP/ipie" "$HUGELD_TOP/tests/fixtures/bigbody-run.c" \
     "$HUGELD_TOP/tests/fixtures/bigbody.S" -Wl,-z,relro \
     -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$TEST_TMP/ipie.cc"; then
  fail "link the PIE" "$(head -3 "$TEST_TMP/ipie.cc")"
  finish
fi
LD_HUGEPAGE_LIBS=ipie LD_HUGEPAGE_BACKING=thp LD_DEBUG=hugepages \
  "$TEST_TMP/ipie" --rounds 0 > /dev/null 2> "$TEST_TMP/ipie.err"
grep -q "ipie: moved from 0x[0-9a-f]* to 0x[0-9a-f]*, where its text is at its file phase, for thp" "$TEST_TMP/ipie.err" \
  && ! grep -q "not congruent" "$TEST_TMP/ipie.err" \
  && pass "ld.so: a kernel-placed PIE under thp is moved to its file phase" \
  || fail "ld.so: a kernel-placed PIE under thp moved" "$(grep 'moved\|thp:' "$TEST_TMP/ipie.err" | head -3 | tr '\n' '|')"
for i in 1 2 3; do
  LD_HUGEPAGE_LIBS=ipie LD_HUGEPAGE_BACKING=thp LD_DEBUG=hugepages \
    strace -o /dev/null "$TEST_TMP/ipie" --rounds 0 > /dev/null 2> "$TEST_TMP/ipie.err"
  grep -q "not congruent" "$TEST_TMP/ipie.err" && break
done
grep -q "not moved from the kernel's address .*: a debugger traces it" "$TEST_TMP/ipie.err" \
  && grep -q "text \[.*): thp: the zone's address is not congruent to its file offset modulo 2 MiB (the kernel chose the program's address and ld.so did not move it" "$TEST_TMP/ipie.err" \
  && ! grep -q "list thp first" "$TEST_TMP/ipie.err" \
  && pass "ld.so: a kernel-placed PIE under thp and a tracer: not moved, the kernel chose its address (not 'list thp first')" \
  || fail "ld.so: a kernel-placed PIE under thp and a tracer" "$(grep 'moved\|thp:' "$TEST_TMP/ipie.err" | head -3 | tr '\n' '|')"
for i in 1 2 3; do
  mkfifo "$TEST_TMP/ipie$i.in"
  LD_HUGEPAGE_LIBS=ipie LD_HUGEPAGE_BACKING=thp strace -o /dev/null "$TEST_TMP/ipie" --rounds 0 --wait \
    < "$TEST_TMP/ipie$i.in" > "$TEST_TMP/ipie$i.out" 2>&1 &
  spid=$!; PIDS+=("$spid")
  exec {ifd}> "$TEST_TMP/ipie$i.in"
  for j in $(seq 50); do grep -q ready "$TEST_TMP/ipie$i.out" && break; sleep 0.1; done
  ipid=$(pgrep -P $spid | head -1)
  out=$("$H" status ${ipid:-$spid} 2>&1)
  exec {ifd}>&-
  echo "$out" | grep -q "its text is at an address not congruent" && break
done
echo "$out" | grep -q "its text is at an address not congruent to its file offset modulo 2 MiB, where no page-cache huge page can map it (thp): the kernel chose the program's address" \
  && ! echo "$out" | grep -q "pool empty\|another process read it first" \
  && pass "status: the kernel-placed PIE under thp and a tracer: its address, not the pool nor another reader" \
  || fail "status: the kernel-placed PIE under thp and a tracer" "$(echo "$out" | grep -A3 note | tr '\n' '|')"
stop

# A selected object that cannot have a whole 2 MiB page (libc).
set_available 60
start small LD_HUGEPAGE_LIBS=libc.so.6 || finish
out=$("$H" status $PID)
echo "$out" | grep -A1 "note: .*libc.so.6 is selected" | grep -q "none of its parts fills a whole 2 MiB page" \
  && pass "status: a selected object with no whole 2 MiB page says so" \
  || fail "status: no whole page" "$(echo "$out" | grep -A2 note | tr '\n' '|')"
stop
# Selected, the pool empty when it was loaded, and empty now.
set_available 0
start empty LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=private || finish
out=$("$H" status $PID)
echo "$out" | grep -A1 "note: .*libbigbody.so is selected" | grep -q "its plan has 42 pages, and the pool has 0 pages free now: if it had none when the object was loaded, ld.so got no page" \
  && pass "status: selected, no page: what the pool holds now, as a condition" \
  || fail "status: pool empty" "$(echo "$out" | grep -A2 note | tr '\n' '|')"
# hugeld check fails in one line naming the object and why.
"$H" check $PID > "$TEST_TMP/o" 2> "$TEST_TMP/e"; rc=$?
[ $rc = 1 ] && [ ! -s "$TEST_TMP/o" ] && [ "$(wc -l < "$TEST_TMP/e")" = 1 ] \
  && grep -q "^hugeld check: process $PID (bigbody-run): $F/libbigbody.so: text on 0 of its 35 huge pages: its plan has 42 pages" "$TEST_TMP/e" \
  && pass "check PID without the pool: exit 1, one line naming the object and why" \
  || fail "check PID without the pool" "exit $rc: $(cat "$TEST_TMP/e")"
stop
# A short pool: text gets what there is, check names the rest.
set_available 20
start short LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=private || finish
"$H" check $PID > "$TEST_TMP/o" 2> "$TEST_TMP/e"; rc=$?
[ $rc = 1 ] && grep -q "libbigbody.so: text on 20 of its 35 huge pages: the rest stayed on ordinary pages" "$TEST_TMP/e" \
  && pass "check PID with 20 pages: text on 20 of its 35" \
  || fail "check PID with 20 pages" "exit $rc: $(cat "$TEST_TMP/e")"
stop
set_available 60
start full LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=private || finish
out=$("$H" check $PID 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q "the text of 1 selected object on huge pages (35 pages)" \
  && pass "check PID with the pool: exit 0 ($out)" || fail "check PID with the pool" "exit $rc: $out"
[ -z "$("$H" check -q $PID 2>&1)" ] && pass "check -q: silent when it passes" \
  || fail "check -q" "$("$H" check -q $PID 2>&1)"

# --- Prometheus ------------------------------------------------------------------

"$H" status --all --prometheus -o "$TEST_TMP/hugeld.prom"; rc=$?
$PY - "$TEST_TMP/hugeld.prom" "$PID" "$F/libbigbody.so" <<'EOF' > "$TEST_TMP/prom.out" 2>&1
import sys
from prometheus_client.parser import text_string_to_metric_families
text, pid, obj = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
got = {}
for fam in text_string_to_metric_families(text):
    for s in fam.samples:
        # The command label is status's name of the process.
        labels = {k: v for k, v in s.labels.items() if k != "command"}
        got[(s.name, tuple(sorted(labels.items())))] = s.value
# smaps: the object's hugetlb pages (its mappings' Private_Hugetlb).
lo, hi = None, None
maps = open("/proc/%s/maps" % pid).read().splitlines()
for l in maps:
    if l.endswith(obj):
        a, b = (int(x, 16) for x in l.split()[0].split("-"))
        lo = a if lo is None else min(lo, a)
        hi = b if hi is None else max(hi, b)
kb = 0
cur = None
for l in open("/proc/%s/smaps" % pid):
    f = l.split()
    if "-" in f[0] and not f[0].endswith(":"):
        a, b = (int(x, 16) for x in f[0].split("-"))
        cur = lo <= a and b <= hi
    elif cur and f[0] in ("Private_Hugetlb:", "Shared_Hugetlb:"):
        kb += int(f[1])
m = {}
for l in open("/proc/meminfo"):
    k, v = l.split(":")
    m[k] = int(v.split()[0])
want = {
    ("hugeld_object_huge_pages", (("backing", "private"), ("object", obj),
                                  ("pid", pid))): kb // 2048,
    ("hugeld_pool_pages", (("state", "total"),)): m["HugePages_Total"],
    ("hugeld_pool_pages", (("state", "free"),)): m["HugePages_Free"],
    ("hugeld_pool_pages", (("state", "reserved"),)): m["HugePages_Rsvd"],
}
bad = ["%s: %s != %s" % (k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
print("; ".join(bad) if bad else "ok %d pages" % (kb // 2048))
sys.exit(1 if bad or kb == 0 else 0)
EOF
prc=$?
[ $rc = 0 ] && [ $prc = 0 ] \
  && pass "status --all --prometheus: parsed by prometheus_client; the object's pages and the pool as smaps and meminfo say ($(cat "$TEST_TMP/prom.out"))" \
  || fail "status --all --prometheus" "exit $rc: $(cat "$TEST_TMP/prom.out" | tail -3 | tr '\n' ' ')"
[ ! -e "$TEST_TMP/hugeld.prom.tmp.$$" ] && [ "$(stat -c %a "$TEST_TMP/hugeld.prom")" = 644 ] \
  && pass "status -o FILE: written whole by rename, mode 0644" || fail "status -o" "$(ls -la "$TEST_TMP")"
stop

# --all: a process whose only huge pages are the page cache's.
if [ "$(file_thp_possible "$F/libbigbody.so")" = yes ]; then
  start thp LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=thp || finish
  pmd=$(awk '/^FilePmdMapped:/ { s += $2 } END { print s + 0 }' /proc/$PID/smaps)
  out=$("$H" status --all)
  line=$(echo "$out" | awk -v p=$PID '$1 == p')
  if [ "$pmd" -gt 0 ] && [ -n "$line" ] && echo "$line" | grep -q "libbigbody.so (thp [0-9]* MiB)"; then
    pass "status --all lists a process with page-cache huge pages only ($pmd kB FilePmdMapped): $line"
  else
    fail "status --all with page-cache huge pages only" "FilePmdMapped $pmd kB; $(echo "$out" | head -5 | tr '\n' '|')"
  fi
  stop
else
  skip "status --all with page-cache huge pages only" "this kernel or file system gives no page-cache huge pages for text"
fi

# The node: one cache entry, mapped by two processes, saves 42 pages.
set_available 50
if "$H" cache add "$F/libbigbody.so" > "$TEST_TMP/add.out" 2>&1; then
  at_exit "'$H' cache remove '$F/libbigbody.so' > /dev/null 2>&1"
  start s1 LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=shared || finish
  start s2 LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=shared || finish
  # The entry holds the read-only zones, text and rodata: 41 pages.
  out=$("$H" status --all)
  echo "$out" | grep -q "^  $F/libbigbody.so: 41 huge pages, mapped by 2 processes$" \
    && echo "$out" | grep -q "^sharing saves 41 huge pages (82 MiB) against a private copy in each process" \
    && pass "status --all: the cache entry, the 2 processes mapping it, 41 pages saved" \
    || fail "status --all: the node" "$(echo "$out" | tail -6 | tr '\n' '|')"
  stop
else
  fail "cache add libbigbody.so" "$(cat "$TEST_TMP/add.out")"
fi

# --- Conventions -------------------------------------------------------------------

# In a mount namespace of its own with nothing on /dev/hugepages: an
# add that can add nothing makes no mount.
out=$(unshare -m --propagation private sh -c '
  while mountpoint -q /dev/hugepages; do umount /dev/hugepages || exit 3; done
  "$1" cache add /nonexistent.so > /dev/null 2> "$2"; rc=$?
  mountpoint -q /dev/hugepages && echo "$rc mounted" || echo "$rc none"' _ "$H" "$TEST_TMP/e")
[ "$out" = "1 none" ] && [ "$(wc -l < "$TEST_TMP/e")" = 1 ] \
  && pass "cache add of a missing file: one error line, no mount made ($(cat "$TEST_TMP/e"))" \
  || fail "cache add of a missing file" "$out: $(cat "$TEST_TMP/e")"
if "$H" cache add "$F/libbigbody.so" > /dev/null 2>&1; then
  "$H" cache remove "$F/libbigbody.so" /nonexistent.so > "$TEST_TMP/o" 2> "$TEST_TMP/e"; rc=$?
  [ $rc = 1 ] && ! grep -q freed "$TEST_TMP/o" && grep -q "/nonexistent.so: not in the cache; nothing removed" "$TEST_TMP/e" \
    && "$H" cache list | grep -q "^$F/libbigbody.so " \
    && pass "cache remove with a file not in the cache: an error, and nothing removed" \
    || fail "cache remove with a file not in the cache" "exit $rc: $(cat "$TEST_TMP/o" "$TEST_TMP/e" | tr '\n' '|')"
  "$H" cache remove "$F/libbigbody.so" > /dev/null 2>&1
fi
set_available 0
# Where the shared cache holds this program's libbigbody.so (the
# machine's own sync), run warns and goes on instead: the run sees a
# cache of its own, empty (tests/isolate.sh).
unshare -m "$HUGELD_TOP/tests/isolate.sh" --no-cache \
  "$H" run --libs libbigbody.so -- "$F/bigbody-run" > /dev/null 2> "$TEST_TMP/e"; rc=$?
[ $rc = 1 ] && grep -q -- "--backing thp (no pool)" "$TEST_TMP/e" \
  && pass "run with no free page: refuses, naming --backing thp" \
  || fail "run with no free page" "exit $rc: $(cat "$TEST_TMP/e")"

# make uninstall takes out everything make install put in.
# (make install's steps without its build of glibc: the build is there.)
D=$TEST_TMP/dest
if DESTDIR=$D "$HUGELD_TOP/scripts/install.sh" > "$TEST_TMP/install.log" 2>&1 \
   && make -s -C "$HUGELD_TOP/tools" OUT="$TEST_TMP/tools-out" DESTDIR="$D" \
        LINKDIR=/usr/local install >> "$TEST_TMP/install.log" 2>&1; then
  n=$(find "$D" -type f | wc -l)
  make -s -C "$HUGELD_TOP" uninstall DESTDIR="$D" LINKDIR=/usr/local BUILDDIR="$TEST_TMP" \
    > "$TEST_TMP/uninstall.log" 2>&1
  left=$(find "$D/opt" "$D/usr/local" -mindepth 1 \( -type f -o -type l -o -path "$D/opt/hugeld" \) 2>/dev/null)
  [ -z "$left" ] && [ "$n" -gt 20 ] && pass "make uninstall removes all $n files of make install, and /opt/hugeld" \
    || fail "make uninstall" "$(echo "$left" | head -5 | tr '\n' ' ')"
else
  fail "make install DESTDIR=" "$(tail -3 "$TEST_TMP/install.log" | tr '\n' ' ')"
fi

# --- hugeld enable / disable, against a systemctl that answers ---------------

U=hugeld-test-$$.service
mkdir -p "$TEST_TMP/bin"
cat > "$TEST_TMP/bin/systemctl" <<EOF
#!/bin/sh
case "\$1" in
  cat) printf '# /lib/systemd/system/$U\n[Service]\nUser=nobody\nExecStart=-/usr/bin/sleep \$OPTS 1000\n' ;;
  daemon-reload) echo reload >> "$TEST_TMP/reloads" ;;
  *) exit 1 ;;
esac
EOF
chmod 755 "$TEST_TMP/bin/systemctl"
at_exit "rm -rf /etc/systemd/system/$U.d"
PATH=$TEST_TMP/bin:$PATH "$H" enable "$U" --libs 'sleep:libc.so*' --backing private,thp > "$TEST_TMP/o" 2>&1; rc=$?
real=$(readlink -f "$(readelf -lW /usr/bin/sleep | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')")
want="# Written by hugeld enable (hugeld(1)); hugeld disable removes it.
[Service]
Environment=LD_HUGEPAGE_LIBS=sleep:libc.so*
Environment=LD_HUGEPAGE_BACKING=private,thp
ExecStartPre=-+/usr/bin/timeout 30 $(readlink -f "$H") thp repair --quiet --program /usr/bin/sleep
BindReadOnlyPaths=$HUGELD_LDSO:$real"
[ $rc = 0 ] && [ "$(cat /etc/systemd/system/$U.d/hugeld.conf)" = "$want" ] \
  && [ "$(cat "$TEST_TMP/reloads")" = reload ] \
  && pass "enable: the drop-in sets the variables and mounts the loader over $real, systemd reloaded" \
  || fail "enable" "exit $rc: $(cat "$TEST_TMP/o") | $(cat /etc/systemd/system/$U.d/hugeld.conf 2>&1 | tr '\n' '|')"
# What the drop-in makes, without systemd: the loader mounted over the
# system's in a mount namespace of its own; the program the kernel
# starts there is loaded by hugeld, its text on huge pages, and is its
# own process (comm, exe); the rest of the machine sees nothing of it.
set_available 60
mkfifo "$TEST_TMP/ns.in"
unshare -m --propagation private sh -c "mount --bind -o ro '$HUGELD_LDSO' '$real' && exec env LD_HUGEPAGE_LIBS=bigbody-run:libbigbody.so LD_HUGEPAGE_BACKING=private '$F/bigbody-run' --wait" \
  < "$TEST_TMP/ns.in" > "$TEST_TMP/ns.out" 2>&1 &
sp=$!; PIDS+=("$sp")
exec {nsfd}> "$TEST_TMP/ns.in"
for i in $(seq 50); do grep -q ready "$TEST_TMP/ns.out" && break; sleep 0.1; done
kb=$(awk '$1 ~ /_Hugetlb:$/ { s += $2 } END { print s + 0 }' /proc/$sp/smaps 2>/dev/null)
[ "$(cat /proc/$sp/comm 2>/dev/null)" = bigbody-run ] \
  && [ "$(readlink /proc/$sp/exe)" = "$F/bigbody-run" ] && [ "${kb:-0}" -gt 0 ] \
  && ! grep -q "$(basename "$HUGELD_LDSO")" /proc/self/mountinfo \
  && pass "the loader mounted in a namespace: the program is its own process (comm, exe), $kb kB on huge pages; the rest of the machine untouched" \
  || fail "the loader mounted in a namespace" "comm $(cat /proc/$sp/comm 2>/dev/null), exe $(readlink /proc/$sp/exe), $kb kB: $(head -3 "$TEST_TMP/ns.out")"
# Its maps name the system's loader; status and check know hugeld's by
# the file it maps.
out=$("$H" status $sp 2>&1)
"$H" check $sp > "$TEST_TMP/o" 2>&1; rc=$?
echo "$out" | grep -q "^  loader: $real (hugeld)$" && [ $rc = 0 ] \
  && pass "status and check of it: its loader is hugeld's, by the file it maps ($(cat "$TEST_TMP/o"))" \
  || fail "status and check in the namespace" "check exit $rc: $(cat "$TEST_TMP/o"); $(echo "$out" | grep loader)"
stop
PATH=$TEST_TMP/bin:$PATH "$H" disable "$U" > "$TEST_TMP/o" 2>&1; rc=$?
[ $rc = 0 ] && [ ! -e /etc/systemd/system/$U.d ] \
  && pass "disable: the drop-in and its directory removed" || fail "disable" "exit $rc: $(cat "$TEST_TMP/o")"
mkdir -p /etc/systemd/system/$U.d && echo '[Service]' > /etc/systemd/system/$U.d/hugeld.conf
PATH=$TEST_TMP/bin:$PATH "$H" disable "$U" > "$TEST_TMP/o" 2> "$TEST_TMP/e"; rc=$?
[ $rc = 1 ] && [ -e /etc/systemd/system/$U.d/hugeld.conf ] && grep -q "was not written by hugeld enable: left alone" "$TEST_TMP/e" \
  && pass "disable: a hugeld.conf hugeld did not write is left alone" || fail "disable of another's file" "exit $rc: $(cat "$TEST_TMP/e")"
# A unit whose command is a shell: --libs is needed.
cat > "$TEST_TMP/bin/systemctl" <<EOF
#!/bin/sh
case "\$1" in
  cat) printf '# /lib/systemd/system/$U\n[Service]\nExecStart=/bin/sh -c "exec sleep 1"\n' ;;
  daemon-reload) echo reload >> "$TEST_TMP/reloads" ;;
  *) exit 1 ;;
esac
EOF
rm -rf /etc/systemd/system/$U.d
PATH=$TEST_TMP/bin:$PATH "$H" enable "$U" > "$TEST_TMP/o" 2> "$TEST_TMP/e"; rc=$?
[ $rc = 1 ] && grep -q "runs /bin/sh, which runs the program: give --libs" "$TEST_TMP/e" && [ ! -e /etc/systemd/system/$U.d ] \
  && pass "enable: a shell in ExecStart= needs --libs; nothing written" || fail "enable of a shell" "exit $rc: $(cat "$TEST_TMP/e")"

# ld.so run as a command, selecting something, names the process after
# the program (hugeld run); selecting nothing, as the stock loader.
LD_HUGEPAGE_LIBS=sleep "$HUGELD_LDSO" --argv0 /usr/bin/sleep /usr/bin/sleep 100 &
sp=$!; PIDS+=("$sp"); sleep 0.3
[ "$(cat /proc/$sp/comm)" = sleep ] && ps -o comm= -p $sp | grep -qx sleep \
  && pass "ld.so PROG, selecting: the process is named after the program (comm $(cat /proc/$sp/comm))" \
  || fail "ld.so PROG: the process's name" "comm $(cat /proc/$sp/comm)"
stop
LD_HUGEPAGE_LIBS= "$HUGELD_LDSO" /usr/bin/sleep 100 &
sp=$!; PIDS+=("$sp"); sleep 0.3
[ "$(cat /proc/$sp/comm)" = "$(basename "$HUGELD_LDSO")" ] \
  && pass "ld.so PROG, nothing selected: the name the stock loader leaves ($(cat /proc/$sp/comm))" \
  || fail "ld.so PROG, nothing selected: the name" "comm $(cat /proc/$sp/comm)"
stop

finish
