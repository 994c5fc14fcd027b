#!/bin/bash
# The thp repair against what users map, each attacker played as
# nobody under the timer's own command line (hugeld-thp-repair.service:
# LD_HUGEPAGE_LIBS= hugeld thp repair --quiet), and the repair before a
# service starts (hugeld thp repair --program, what hugeld enable's
# ExecStartPre= runs):
#  1. a sparse "object" on tmpfs (/dev/shm, and a tmpfs nobody mounts in
#     a user namespace of their own) mapped r-x, MADV_HUGEPAGE, one page
#     per 2 MiB: no hole filled (the file's blocks), no shmem made
#     (Shmem in /proc/meminfo), the file listed as not trusted;
#  2. the same on ext4, nobody's own file: nothing read into the page
#     cache; a root-owned sparse file anyone may read (as
#     /var/log/lastlog): its holes never read ("hole");
#  3. a file cut and regrown while the repair runs (nobody's, and a
#     root-owned one cut by root, 300 runs): no SIGBUS, no failed run;
#  4. a FUSE file whose server stops answering (allow_other, so that
#     root could open it): the run ends at once and calls it not
#     trusted; a process whose maps never answer (injected: no user can
#     hold a map's lock on demand on kernels that read maps under
#     per-VMA locks): left out after 2 s, the others repaired;
#  5. no smaps read, every /proc/PID/maps read before the helper goes
#     to idle priority (strace);
#  6. the budget: no more new folios than --budget; the unit's
#     MemoryMax= above the command's default budget;
#  7. --program: a program whose library an ordinary process read first
#     (cat): after the repair, the program started with the thp
#     backing has >= 90% of the library's text zone PMD-mapped (and
#     without it, as the stock loader leaves it).
. "$(dirname "$0")/lib.sh"

need_root "(plays nobody against root's repair)"
H=$HUGELD_CMD
THP=$(dirname "$H")/../libexec/hugeld-thp
[ -x "$THP" ] || THP=$HUGELD_TOP/build/tools/hugeld-thp
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
# The timer's command, as its unit runs it.
UNIT=$HUGELD_TOP/scripts/deb/hugeld-thp-repair.service
timer_repair () { env LD_HUGEPAGE_LIBS= "$H" thp repair --quiet "$@"; }

B=$TEST_TMP/bin
mkdir -p "$B"; chmod 755 "$TEST_TMP" "$B"
cc -O2 -Wall -o "$B/mapper" "$HUGELD_TOP/tests/thprepair/mapper.c" \
  || { fail "build mapper" ""; finish; }
MKELF=$HUGELD_TOP/tests/thprepair/mkelf.py
# A directory on a disk file system (/tmp is a tmpfs on Debian 13).
DISK=$(mktemp -d /var/tmp/hugeld-thprepair.XXXXXX)
at_exit "rm -rf '$DISK'"
chmod 755 "$DISK"
DISKFS=$(stat -f -c %T "$DISK")
mkdir "$DISK/nobody"; chown nobody "$DISK/nobody"

# hold NAME FILE MODE [AS...]: run mapper on FILE (MODE sparse, all or
# none) as the rest of the line's user, until release NAME.
hold () {
  local n=$TEST_TMP/$1 f=$2 mode=$3; shift 3
  rm -f "$n.in"; mkfifo "$n.in"
  "$@" "$B/mapper" "$f" "$mode" < "$n.in" > "$n.out" 2> "$n.err" &
  echo $! > "$n.pid"
  exec {fd}> "$n.in"; echo "$fd" > "$n.fd"
  local i
  for i in $(seq 100); do grep -q '^ready' "$n.out" 2> /dev/null && return 0; sleep 0.1; done
  return 1
}
release () {
  local n=$TEST_TMP/$1
  [ -f "$n.fd" ] || return 0
  eval "exec $(cat "$n.fd")>&-"
  wait "$(cat "$n.pid")" 2> /dev/null
  rm -f "$n.fd" "$n.in"
}
# record FILE KEY: KEY of FILE's record in $TEST_TMP/r.json (hugeld thp
# repair --json), "?" if none.
record () {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["files"] if r["file"] == sys.argv[2]]
print(r[0].get(sys.argv[3], "?") if r else "?")' "$TEST_TMP/r.json" "$1" "$2" 2> /dev/null || echo "?"
}
blocks () { stat -c %b "$1"; }
resident () { fincore -n -o PAGES "$1" | tr -d ' '; }

# --- 1. sparse tmpfs files --------------------------------------------
SHM=/dev/shm/hugeld-thprepair.$$
mkdir -p "$SHM"; chown nobody "$SHM"; at_exit "rm -rf '$SHM'"
"${NOBODY[@]}" /usr/bin/python3 "$MKELF" "$SHM/evil.so" 256
if hold shm "$SHM/evil.so" sparse "${NOBODY[@]}"; then
  b0=$(blocks "$SHM/evil.so"); s0=$(meminfo Shmem)
  timer_repair > "$TEST_TMP/q.out" 2>&1; st=$?
  "$H" thp repair --json > "$TEST_TMP/r.json" 2> /dev/null
  b1=$(blocks "$SHM/evil.so"); s1=$(meminfo Shmem)
  why=$(record "$SHM/evil.so" why)
  if [ "$st" = 0 ] && [ "$b1" = "$b0" ] && [ $((s1 - s0)) -lt 16384 ] && [[ $why == "not trusted"* ]]; then
    pass "as nobody: a sparse 256 MiB object on /dev/shm, one page per 2 MiB mapped: no hole filled ($b0 -> $b1 blocks), Shmem ${s0} -> ${s1} kB; the report: $why"
  else
    fail "as nobody: sparse /dev/shm object" "status $st, blocks $b0 -> $b1, Shmem $s0 -> $s1 kB, why: $why; $(tr '\n' ' ' < "$TEST_TMP/q.out")"
  fi
else
  fail "as nobody: map the /dev/shm object" "$(cat "$TEST_TMP/shm.err")"
fi
release shm

# The same on a tmpfs nobody mounts in a user namespace of their own.
UNS=$TEST_TMP/uns; mkdir -p "$UNS"; chown nobody "$UNS"
rm -f "$TEST_TMP/uns.in"; mkfifo "$TEST_TMP/uns.in"
"${NOBODY[@]}" unshare -Urm sh -c 'mount -t tmpfs none "$1" && python3 "$2" "$1/evil.so" 512 && exec "$3" "$1/evil.so" sparse' \
  sh "$UNS" "$MKELF" "$B/mapper" < "$TEST_TMP/uns.in" > "$TEST_TMP/uns.out" 2> "$TEST_TMP/uns.err" &
upid=$!
exec {ufd}> "$TEST_TMP/uns.in"
for i in $(seq 100); do grep -q '^ready' "$TEST_TMP/uns.out" 2> /dev/null && break; kill -0 $upid 2> /dev/null || break; sleep 0.1; done
if grep -q '^ready' "$TEST_TMP/uns.out"; then
  s0=$(meminfo Shmem)
  timer_repair > "$TEST_TMP/q.out" 2>&1; st=$?
  "$H" thp repair --json > "$TEST_TMP/r.json" 2> /dev/null
  s1=$(meminfo Shmem)
  why=$(python3 -c 'import json, sys
print([r["why"] for r in json.load(open(sys.argv[1]))["files"] if r["file"].endswith("/evil.so")][0])' "$TEST_TMP/r.json" 2> /dev/null)
  if [ "$st" = 0 ] && [ $((s1 - s0)) -lt 16384 ] && [[ $why == "not trusted"* ]]; then
    pass "as nobody: a sparse 512 MiB object on a tmpfs of their own user namespace: Shmem ${s0} -> ${s1} kB; the report: $why"
  else
    fail "as nobody: sparse object on their own tmpfs" "status $st, Shmem $s0 -> $s1 kB, why: $why"
  fi
else
  skip "as nobody: a tmpfs in their own user namespace" "unshare -Urm: $(tr '\n' ' ' < "$TEST_TMP/uns.err")"
fi
eval "exec $ufd>&-"; wait $upid 2> /dev/null

# --- 2. ext4: nobody's file, and root's sparse file -------------------
"${NOBODY[@]}" /usr/bin/python3 "$MKELF" "$DISK/nobody/evil.so" 256
if hold own "$DISK/nobody/evil.so" sparse "${NOBODY[@]}"; then
  r0=$(resident "$DISK/nobody/evil.so")
  timer_repair > "$TEST_TMP/q.out" 2>&1; st=$?
  "$H" thp repair --json > "$TEST_TMP/r.json" 2> /dev/null
  r1=$(resident "$DISK/nobody/evil.so"); why=$(record "$DISK/nobody/evil.so" why)
  if [ "$st" = 0 ] && [ "$r1" -le "$r0" ] && [ "$why" = "not trusted: not owned by root" ]; then
    pass "as nobody: their own sparse object on $DISKFS: nothing read ($r0 -> $r1 pages cached): $why"
  else
    fail "as nobody: own sparse object on $DISKFS" "status $st, cached $r0 -> $r1, why: $why"
  fi
else
  fail "as nobody: map their own file" "$(cat "$TEST_TMP/own.err")"
fi
release own

python3 "$MKELF" "$DISK/lastlog.so" 256; chmod 644 "$DISK/lastlog.so"
if hold root "$DISK/lastlog.so" sparse "${NOBODY[@]}"; then
  r0=$(resident "$DISK/lastlog.so")
  timer_repair > "$TEST_TMP/q.out" 2>&1; st=$?
  "$H" thp repair --json > "$TEST_TMP/r.json" 2> /dev/null
  r1=$(resident "$DISK/lastlog.so"); hole=$(record "$DISK/lastlog.so" hole)
  if [ "$st" = 0 ] && [ "$r1" -le "$r0" ] && [ "$hole" != "?" ] && [ "$hole" -gt 0 ]; then
    pass "as nobody: a root-owned sparse file anyone may read, mapped one page per 2 MiB: $hole ranges left for their holes, nothing read ($r0 -> $r1 pages cached)"
  else
    fail "as nobody: root's sparse file" "status $st, cached $r0 -> $r1, hole $hole; $(tr '\n' ' ' < "$TEST_TMP/q.out")"
  fi
else
  fail "as nobody: map root's sparse file" "$(cat "$TEST_TMP/root.err")"
fi
release root

# --- 3. a file cut and regrown while the repair runs ------------------
cp "$FIXTURES/libbig.so" "$DISK/nobody/cut.so"; chown nobody "$DISK/nobody/cut.so"
hold cutn "$DISK/nobody/cut.so" none "${NOBODY[@]}"
"${NOBODY[@]}" /usr/bin/python3 -c 'import os, sys, time
f, size = sys.argv[1], os.path.getsize(sys.argv[1])
end = time.time() + 600
while time.time() < end and os.path.exists(f):
    os.truncate(f, 4096); os.truncate(f, size)' "$DISK/nobody/cut.so" &
cutter=$!
bad=0; runs=0
for i in $(seq 50); do
  timer_repair > "$TEST_TMP/q.out" 2>&1; st=$?
  runs=$((runs + 1))
  [ "$st" = 0 ] || { bad=$((bad + 1)); cp "$TEST_TMP/q.out" "$TEST_TMP/bad.out"; }
done
kill $cutter 2> /dev/null; wait $cutter 2> /dev/null
release cutn
[ $bad = 0 ] && pass "as nobody: their file cut and regrown in a loop: $runs runs of the timer's command, none failed" \
  || fail "as nobody: file cut and regrown" "$bad of $runs runs failed: $(tr '\n' ' ' < "$TEST_TMP/bad.out")"

# A root-owned file (a package upgrade writing in place) cut under the
# repair itself: the helper's own mapping raises SIGBUS.  The helper
# (what the command runs) 300 times: a death by a signal is its exit
# status.
cp "$FIXTURES/libbig.so" "$DISK/cut.so"; cp "$FIXTURES/libbig.so" "$DISK/orig.so"
python3 -c 'import os, sys, time
f, orig = sys.argv[1], open(sys.argv[2], "rb").read()
end = time.time() + 600
n = 0
while time.time() < end and os.path.exists(f):
    os.truncate(f, 1 << 20)
    n += 1
    if n % 4 == 0:
        with open(f, "r+b") as w:
            w.write(orig)
        os.posix_fadvise(os.open(f, os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)
    else:
        os.truncate(f, len(orig))' "$DISK/cut.so" "$DISK/orig.so" &
cutter=$!
bad=0; sigbus=0; runs=0; changed=0
for i in $(seq 300); do
  "$THP" --repair "$DISK/cut.so" > "$TEST_TMP/r.jsonl" 2> "$TEST_TMP/r.err"; st=$?
  runs=$((runs + 1))
  [ "$st" = $((128 + 7)) ] && sigbus=$((sigbus + 1))
  if [ "$st" != 0 ] || ! grep -q '"done": true' "$TEST_TMP/r.jsonl"; then
    bad=$((bad + 1)); { echo "status $st"; cat "$TEST_TMP/r.err"; } > "$TEST_TMP/bad.err"
  fi
  c=$(sed -n 's/.*"changed": \([0-9]*\).*/\1/p' "$TEST_TMP/r.jsonl" | head -1)
  changed=$((changed + ${c:-0}))
done
kill $cutter 2> /dev/null; wait $cutter 2> /dev/null
[ $bad = 0 ] && [ $sigbus = 0 ] \
  && pass "root's file cut and regrown under the repair: 300 runs, 0 SIGBUS, none failed ($changed ranges found changed mid-repair)" \
  || fail "root's file cut under the repair" "$sigbus SIGBUS, $bad of $runs failed: $(tr '\n' ' ' < "$TEST_TMP/bad.err" 2> /dev/null)"

# --- 4. a FUSE file that stops answering; a process that does not -----
FMNT=$TEST_TMP/fuse; mkdir -p "$FMNT"; chown nobody "$FMNT"
if cc -O2 -Wall -o "$B/fusestall" "$HUGELD_TOP/tests/thprepair/fusestall.c" $(pkg-config --cflags --libs fuse3 2> /dev/null) 2> "$TEST_TMP/fuse.err"; then
  mode=$(stat -c %a /dev/fuse)
  [ "$mode" = 666 ] || { chmod 666 /dev/fuse; at_exit "chmod $mode /dev/fuse"; }
  if ! grep -q '^user_allow_other' /etc/fuse.conf 2> /dev/null; then
    cp -p /etc/fuse.conf "$TEST_TMP/fuse.conf.saved" 2> /dev/null || : > "$TEST_TMP/fuse.conf.saved"
    echo user_allow_other >> /etc/fuse.conf
    at_exit "cp '$TEST_TMP/fuse.conf.saved' /etc/fuse.conf"
  fi
  "${NOBODY[@]}" "$B/fusestall" -f -s -o allow_other "$FMNT" 2> "$TEST_TMP/fuse.err" &
  fpid=$!
  at_exit "kill -TERM $fpid 2> /dev/null; umount -l '$FMNT' 2> /dev/null"
  for i in $(seq 50); do [ -f "$FMNT/lib.so" ] && break; sleep 0.1; done
  if hold fuse "$FMNT/lib.so" sparse "${NOBODY[@]}"; then
    kill -USR1 $fpid
    t0=$(date +%s%N)
    timeout 120 env LD_HUGEPAGE_LIBS= "$H" thp repair --json > "$TEST_TMP/r.json" 2> "$TEST_TMP/r.err"; st=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    why=$(record "$FMNT/lib.so" why)
    if [ "$st" = 0 ] && [ $ms -lt 10000 ] && [[ $why == "not trusted: on fuse"* ]]; then
      pass "as nobody: a FUSE file (allow_other) whose server stopped answering: the run took $ms ms: $why"
    else
      fail "as nobody: stalled FUSE file" "status $st after $ms ms, why: $why; $(tr '\n' ' ' < "$TEST_TMP/r.err")"
    fi
    kill -TERM $fpid 2> /dev/null
    umount -l "$FMNT" 2> /dev/null
  else
    fail "as nobody: map the FUSE file" "$(cat "$TEST_TMP/fuse.err" "$TEST_TMP/fuse.err" 2> /dev/null)"
  fi
  release fuse
else
  skip "as nobody: a FUSE file" "cannot build the FUSE server: $(head -2 "$TEST_TMP/fuse.err" | tr '\n' ' ')"
fi

# A process whose maps do not answer (the test hook stalls its read for
# good), beside one that maps a root-owned library in small folios: the
# run ends, having left it out after the watchdog's 2 s.  The bound on
# the run is only against a hang (the library's repair reads 26 MiB,
# slow on a loaded machine); the record says the watchdog fired.
cp "$FIXTURES/libbig.so" "$DISK/libheld.so"; sync "$DISK/libheld.so"
drop_page_cache "$DISK/libheld.so"; cat "$DISK/libheld.so" > /dev/null
hold quiet "$DISK/libheld.so" none "${NOBODY[@]}"
hold stuck "$DISK/nobody/evil.so" sparse "${NOBODY[@]}"
t0=$(date +%s%N)
HUGELD_THP_TEST_STALL_PID=$(cat "$TEST_TMP/stuck.pid") timeout 120 env LD_HUGEPAGE_LIBS= "$H" thp repair --json > "$TEST_TMP/r.json" 2> "$TEST_TMP/r.err"; st=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
stuckrec=$(record "process $(cat "$TEST_TMP/stuck.pid")" error)
rep=$(record "$DISK/libheld.so" repaired); huge=$(record "$DISK/libheld.so" huge); ranges=$(record "$DISK/libheld.so" ranges)
if [ "$st" = 0 ] && [ $ms -lt 60000 ] && [[ $stuckrec == *"did not answer"* ]] && [ "$ranges" != "?" ] && [ "$huge" = "$ranges" ]; then
  pass "a process whose maps do not answer: left out after 2 s (the run took $ms ms: $stuckrec); the other process's library: $rep of $ranges ranges repaired, all on 2 MiB folios"
elif [ "$st" = 0 ] && [ $ms -lt 60000 ] && [[ $stuckrec == *"did not answer"* ]] && [ "$(file_thp_possible "$DISK/orig.so")" = no ]; then
  skip "a process whose maps do not answer: the other's library repaired" "no page-cache huge pages on $DISKFS here (left out after 2 s: the run took $ms ms)"
else
  fail "a process whose maps do not answer" "status $st after $ms ms; stuck: $stuckrec; the library: $rep repaired, $huge of $ranges huge; $(tr '\n' ' ' < "$TEST_TMP/r.err")"
fi
release stuck
release quiet

# --- 5. what the scan reads, and at which priority ---------------------
hold quiet "$DISK/libheld.so" none "${NOBODY[@]}"
if command -v strace > /dev/null; then
  strace -f -qq -e trace=openat,sched_setscheduler -o "$TEST_TMP/strace" env LD_HUGEPAGE_LIBS= "$H" thp repair --quiet > /dev/null 2>&1
  smaps=$(grep -c 'smaps' "$TEST_TMP/strace")
  lastmaps=$(grep -n '/proc/[0-9]*/maps"' "$TEST_TMP/strace" | tail -1 | cut -d: -f1)
  idle=$(grep -n 'SCHED_IDLE' "$TEST_TMP/strace" | head -1 | cut -d: -f1)
  nmaps=$(grep -c '/proc/[0-9]*/maps"' "$TEST_TMP/strace")
  if [ "$smaps" = 0 ] && [ -n "$idle" ] && [ -n "$lastmaps" ] && [ "$lastmaps" -lt "$idle" ]; then
    pass "the timer's run reads no smaps; its $nmaps maps reads all come before it goes to idle priority (strace line $lastmaps < $idle)"
  else
    fail "the scan's reads and priority" "smaps opened $smaps times; last maps read at line ${lastmaps:-none}, SCHED_IDLE at ${idle:-none}"
  fi
else
  skip "the scan's reads and priority" "no strace"
fi
release quiet

# --- 6. the budget -----------------------------------------------------
drop_page_cache "$DISK/libheld.so"; cat "$DISK/libheld.so" > /dev/null
"$H" thp repair --json --budget 4 "$DISK/libheld.so" > "$TEST_TMP/r.json" 2>&1
read_kb=$(record "$DISK/libheld.so" read_kb); over=$(record "$DISK/libheld.so" budget)
if [ "$read_kb" != "?" ] && [ "$read_kb" -le 4096 ] && [ "$over" != "?" ] && [ "$over" -gt 0 ]; then
  pass "--budget 4: $read_kb KiB of new folios, $over ranges left for the next run"
else
  fail "--budget 4" "read $read_kb KiB, $over left over budget: $(tr '\n' ' ' < "$TEST_TMP/r.json")"
fi
mem=$(sed -n 's/^MemoryMax=\([0-9]*\)M$/\1/p' "$UNIT")
budget=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from hugeld.common import THP_BUDGET_MIB; print(THP_BUDGET_MIB)' "$HUGELD_TOP/tools")
if [ -n "$mem" ] && [ "$mem" -gt "$budget" ] && grep -q '^ExecStart=.*thp repair' "$UNIT"; then
  pass "the repair's unit: MemoryMax=${mem}M, above the command's budget of $budget MiB a run"
else
  fail "the repair's unit's memory limit" "MemoryMax=${mem:-none} (M), budget $budget MiB"
fi

# --- 7. --program: a service's objects repaired before it starts -------
P=$DISK/svc; mkdir -p "$P"; chmod 755 "$P"
cp "$FIXTURES/libbig.so" "$P/libbig.so"
cat > "$TEST_TMP/svc.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
extern int big_digest (void);
int
main (void)
{
  FILE *maps = fopen ("/proc/self/maps", "r");
  char line[4096];
  unsigned long a, b, sum = 0;
  char perms[8];
  while (maps != NULL && fgets (line, sizeof line, maps) != NULL)
    if (sscanf (line, "%lx-%lx %7s", &a, &b, perms) == 3
	&& perms[2] == 'x' && strstr (line, "libbig.so") != NULL)
      for (unsigned long p = a; p < b; p += 4096)
	sum += *(volatile unsigned char *) p;
  printf ("ready %lu\n", (sum + big_digest ()) & 1);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
EOF
cc -O2 -o "$P/svc" "$TEST_TMP/svc.c" -L"$P" -l:libbig.so -Wl,-rpath,"$P" \
  || { fail "build the service fixture" ""; finish; }
sync "$P/svc" "$P/libbig.so"
SVCENV=(LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=thp LD_HUGEPAGE_SEGMENTS=text)
# start_svc NAME: the fixture under hugeld's loader as nobody, with the
# thp backing; SVCPMD the kB of libbig.so's text PMD-mapped, SVCZONE
# the kB of its text mappings' whole 2 MiB pages (what can be).
start_svc () {
  local n=$TEST_TMP/$1
  rm -f "$n.in"; mkfifo "$n.in"
  "${NOBODY[@]}" env "${SVCENV[@]}" "$HUGELD_LDSO" "$P/svc" < "$n.in" > "$n.out" 2> "$n.err" &
  echo $! > "$n.pid"
  exec {fd}> "$n.in"; echo "$fd" > "$n.fd"
  local i
  for i in $(seq 100); do grep -q '^ready' "$n.out" 2> /dev/null && break; sleep 0.1; done
  read -r SVCPMD SVCZONE < <(gawk '/^[0-9a-f]+-[0-9a-f]+ / {
      on = ($2 ~ /x/) && index($0, "libbig.so") > 0
      if (on) { split($1, r, "-"); a = strtonum("0x" r[1]); b = strtonum("0x" r[2])
        h = 2 * 1024 * 1024; lo = int((a + h - 1) / h); hi = int(b / h)
        if (hi > lo) z += (hi - lo) * 2048 }
      next }
    on && $1 == "FilePmdMapped:" { p += $2 } END { print p + 0, z + 0 }' "/proc/$(cat "$n.pid")/smaps")
}
if [ "$(file_thp_possible "$P/libbig.so")" = no ]; then
  skip "--program: the service's text on 2 MiB pages" "no page-cache huge pages on $DISKFS here"
else
  # Without the repair: what cat left.
  drop_page_cache "$P/libbig.so"; cat "$P/libbig.so" > /dev/null
  start_svc ctl; ctl=$SVCPMD; release ctl
  drop_page_cache "$P/libbig.so"; cat "$P/libbig.so" > /dev/null
  env "${SVCENV[@]}" "$H" thp repair --program "$P/svc" > "$TEST_TMP/prep.out" 2>&1; st=$?
  start_svc svc; pmd=$SVCPMD zone=$SVCZONE; release svc
  if [ "$st" = 0 ] && [ "$zone" -gt 0 ] && [ "$pmd" -ge $((zone * 90 / 100)) ]; then
    pass "as nobody: a program whose library cat read first, after hugeld thp repair --program (its ExecStartPre=): $pmd of the ${zone} kB of whole 2 MiB pages of its text PMD-mapped (without the repair: $ctl kB)"
  else
    fail "--program" "status $st, $pmd of $zone kB PMD-mapped (without: $ctl kB): $(tr '\n' ' ' < "$TEST_TMP/prep.out")"
  fi
fi

finish
