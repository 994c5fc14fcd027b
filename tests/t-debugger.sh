#!/bin/bash
# Debuggers and forked children.  Huge-page text is private memory that
# a forked child shares with its parent until one of them writes to it,
# and a debugger's software breakpoint is such a write: the process that
# gets it needs its own copy of that 2 MiB page, which can only come from
# the pool.  A parent and two children run libbig.so's huge-page text
# (tests/pressure/textfork.c, until the scenario ends the run:
# stop_run); gdb attaches to one of them and puts a breakpoint on
# big_fn_3000 (checked to be in a KernelPageSize 2048 kB text mapping
# the processes share).  The pool is shrunk, once
# they run, to exactly the pages in use (+ the spare pages a scenario
# gives).  What happens (Linux 6.18 here; the README documents it):
#   - parent, no spare page: the parent, which owns the pages'
#     reservation, gets the copy and stops at the breakpoint; the kernel
#     takes the page away from the children ("PID N killed due to
#     inadequate hugepage pool", rate-limited) and they die of SIGBUS at
#     an address in that page (what each child's own SIGBUS handler
#     reports, and its exit status, are what the check reads: never the
#     kernel's log);
#   - parent, one spare page: everybody lives, the spare page stays the
#     parent's copy after the breakpoint is deleted;
#   - child, no spare page: the child lives, but the breakpoint is not
#     inserted: silently in a shared object (gdb takes it for an unloaded
#     library's), "Cannot insert breakpoint" in the program's own text;
#   - child, one spare page: it stops at it, everybody lives;
#   - a hardware breakpoint (hbreak), no spare page: no copy, all live;
#   - a process without children, no spare page: nothing to copy;
#   - hugeld gdb warns before attaching, and --grow-pool reserves the
#     pages first: then the breakpoint in the parent costs nobody;
#   - uprobes on the same function (tracefs): they never fire in the
#     huge copy, make no copy and hurt nobody, registered before or after
#     the process started.
# Scenarios 1 and 5 run a second time as nobody (a service's own user,
# debugged by that user: textfork, gdb and hugeld gdb all run as nobody;
# "as nobody: "): the kill case, and a copy that comes from a spare page.
# The others are not repeated for time (3 and 4 wait for textfork's 20 s
# to end), and do not depend on the user any more than these.
# --grow-pool and the uprobes are root's (the pool, tracefs), and so
# named.
# Other processes that take or give back huge pages, or resize the pool,
# while a scenario runs (another test at the same time) change what it
# measures: a sampler notices that, and such a scenario is run again
# (3 tries at most).
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
need_root "(pool, ptrace, tracefs)"
command -v gdb > /dev/null || { skip all "no gdb"; finish; }
need_fixtures libbig.so big-pic.o
B=$TEST_TMP/bin
mkdir -p "$B"
LIB=$(readlink -f "$F/libbig.so")
# textfork with libbig.so (run by hugeld's ld.so), and textfork-main with
# the big code in the program itself (hugeld as PT_INTERP, so that gdb
# knows the program's symbols).
cc -O2 -Wall -I"$HUGELD_TOP/tests/fixtures" "$HUGELD_TOP/tests/pressure/textfork.c" \
  -o "$B/textfork" -L"$F" -lbig -Wl,-rpath,"$F" \
  && cc -O2 -Wall -fPIE -pie -I"$HUGELD_TOP/tests/fixtures" "$HUGELD_TOP/tests/pressure/textfork.c" \
       "$F/big-pic.o" -o "$B/textfork-main" -Wl,--dynamic-linker="$HUGELD_LDSO" \
  || { fail "build textfork" ""; finish; }
if [ -z "${HUGELD_CMD:-}" ]; then
  make -C "$HUGELD_TOP/tools" OUT="$HUGELD_TOP/build/tools" > "$TEST_TMP/tools.log" 2>&1 \
    || { fail "build: make -C tools" "$(tail -3 "$TEST_TMP/tools.log" | tr '\n' ' ')"; finish; }
  HUGELD_CMD=$HUGELD_TOP/build/tools/hugeld
fi
H=$HUGELD_CMD
export HUGELD_LDSO

# textfork runs until stop_run ends it (SECS at the most), so that the
# children still run when the breakpoint is hit however long gdb takes
# to attach; stop_run lets them go on LIVE seconds after gdb detached.
SECS=20
LIVE=2
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
GDB=(gdb -nx -batch -iex 'set debuginfod enabled off')
avail () { echo $(( $(cat $HP/free_hugepages) - $(cat $HP/resv_hugepages) )); }
reserve_hugepages 0 || { fail pool "cannot take the pool"; finish; }
# No surplus pages: a copy can only come from the pool.
over=$(cat /proc/sys/vm/nr_overcommit_hugepages)
if [ "$over" != 0 ]; then
  echo 0 > /proc/sys/vm/nr_overcommit_hugepages
  at_exit "echo $over > /proc/sys/vm/nr_overcommit_hugepages"
fi

# Every process a scenario started; reap kills those still running (only
# if the PID is still a textfork of ours) and stops the sampler.
PIDS=()
SAMPLER=
DISTURBED=$TEST_TMP/disturbed
TRACK_POOL=yes
reap () {
  local p
  for p in "${PIDS[@]}"; do
    grep -qa textfork "/proc/$p/cmdline" 2>/dev/null && kill -KILL "$p" 2>/dev/null
  done
  PIDS=()
  stop_sampler
}
at_exit reap

# The huge pages held by processes other than PID..., and the pool's
# size and reservations: what must not change while a scenario runs.
others () {
  local ours=" $* "
  grep -H '^HugetlbPages:' /proc/[0-9]*/status 2> /dev/null \
    | awk -v ours="$ours" '{ split($1, f, "/"); if ($2 > 0 && index(ours, " " f[3] " ") == 0) n += $2 }
                           END { print n + 0 }'
}
fingerprint () {
  echo "pool $([ $TRACK_POOL = yes ] && pool_size) reserved $(cat $HP/resv_hugepages), other processes' huge pages $(others "$@") kB"
}
# start_sampler PID...: every 0.1 s, note in $DISTURBED when the
# fingerprint is not what it is now.
start_sampler () {
  stop_sampler
  local base; base=$(fingerprint "$@")
  ( while :; do
      now=$(fingerprint "$@")
      [ "$now" = "$base" ] || echo "$base, then $now" >> "$DISTURBED"
      sleep 0.1
    done ) &
  SAMPLER=$!
}
stop_sampler () {
  [ -z "$SAMPLER" ] || { kill "$SAMPLER" 2> /dev/null; wait "$SAMPLER" 2> /dev/null; }
  SAMPLER=
}

# scenario FUNC: FUNC runs one scenario and returns 0 if what happened is
# what the README says (then OK is the PASS line), else sets WHY.  A
# wrong result is run again if the pool was disturbed meanwhile.
scenario () {
  local try
  for try in 1 2 3; do
    : > "$DISTURBED"
    OK= WHY=
    if "$1"; then reap; pass "$AS$OK"; return 0; fi
    reap
    [ -s "$DISTURBED" ] || break
    echo "note: $AS$NAME: the pool changed under the test ($(head -1 "$DISTURBED")); again"
    WHY="$WHY (the pool changed under the test in each of 3 tries)"
  done
  fail "$AS$NAME" "$WHY"
}

# huge_addr PID FILE SYMBOL: "ADDRESS KERNELPAGE_KB PERMS SHARED_HUGETLB_KB"
# of the function SYMBOL of FILE (a PIE or DSO) in process PID.
huge_addr () {
  /usr/bin/python3 - "$@" <<'PY'
import os, subprocess, sys
pid, path, sym = int(sys.argv[1]), sys.argv[2], sys.argv[3]
off = [int(f[0], 16) for f in (l.split() for l in subprocess.run(
    ["nm", path], capture_output=True, text=True).stdout.splitlines())
    if len(f) == 3 and f[2] == sym][0]
ino = os.stat(path).st_ino
maps, cur = [], None
for line in open("/proc/%d/smaps" % pid):
    k = line.split(None, 1)[0]
    if "-" in k and not k.endswith(":"):
        x = line.split()
        a, b = (int(v, 16) for v in x[0].split("-"))
        cur = {"a": a, "b": b, "perms": x[1], "off": int(x[2], 16),
               "ino": int(x[4]), "kps": 4, "shared": 0}
        maps.append(cur)
    elif k == "KernelPageSize:":
        cur["kps"] = int(line.split()[1])
    elif k == "Shared_Hugetlb:":
        cur["shared"] = int(line.split()[1])
base = [m["a"] for m in maps if m["ino"] == ino and m["off"] == 0][0]
addr = base + off
m = [m for m in maps if m["a"] <= addr < m["b"]][0]
print("%#x %d %s %d" % (addr, m["kps"], m["perms"], m["shared"]))
PY
}

# start NAME SPARE NCHILDREN CMD...: run CMD NCHILDREN SECS in the
# background on a pool with room for it; once it runs, shrink the pool to
# the pages in use + SPARE.  Sets OUT, BG, PARENT and KIDS; fails if the
# program does not start or the pool cannot be made so.
start () {
  local name=$1 spare=$2 n=$3 i; shift 3
  OUT=$TEST_TMP/$name${AS_USER:+-$AS_USER}.out
  PARENT= KIDS=()
  stop_sampler
  pool_set $(( $(pool_ours) + 24 )) || { WHY="cannot grow the pool"; return 1; }
  timeout $((SECS + 10)) "$@" "$n" "$SECS" > "$OUT" 2>&1 &
  BG=$!
  for i in $(seq 100); do grep -q '^ready' "$OUT" && break; sleep 0.1; done
  read -r _ PARENT KIDS < <(grep '^ready' "$OUT")
  # shellcheck disable=SC2206
  KIDS=($KIDS)
  [ -n "$PARENT" ] || { WHY="textfork did not start: $(head -3 "$OUT" | tr '\n' ' ')"; return 1; }
  PIDS+=("$PARENT" "${KIDS[@]}")
  pool_set $(( $(pool_ours) + spare ))
  start_sampler "${PIDS[@]}"
  [ "$(avail)" = "$spare" ] || { WHY="pool: $(avail) spare pages, not $spare"; echo "$WHY" >> "$DISTURBED"; return 1; }
}
# libfork NAME SPARE NCHILDREN: start textfork with libbig.so selected,
# as $AS_USER.
libfork () {
  run_as_argv || { WHY="cannot run as $AS_USER"; return 1; }
  start "$@" env LD_HUGEPAGE_LIBS=libbig.so ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$HUGELD_LDSO" "$B/textfork"
}

# stop_run [PARENT BG KID...]: let the processes go on for LIVE seconds
# (less once every child has died: a child whose text page a breakpoint's
# copy took away runs into it within one round of big_run), then end
# textfork (SIGUSR1, which it passes on to its children) and wait for
# it.  Sets RC (its status).  Without arguments: the last start's.
stop_run () {
  local parent=${1:-$PARENT} bg=${2:-$BG} i k st alive
  local kids=("${@:3}")
  [ $# -ge 3 ] || kids=("${KIDS[@]}")
  for (( i = 0; i < LIVE * 10; i++ )); do
    alive=0
    for k in "${kids[@]}"; do
      st=$(awk '{ print $3 }' "/proc/$k/stat" 2> /dev/null)
      [ -z "$st" ] || [ "$st" = Z ] || alive=1
    done
    [ $alive = 1 ] || break
    sleep 0.1
  done
  grep -qa textfork "/proc/$parent/cmdline" 2> /dev/null && kill -USR1 "$parent" 2> /dev/null
  wait "$bg"
  RC=$?
}

# on_huge NAME PID [FILE]: big_fn_3000 of FILE (libbig.so) in PID must be
# on a 2 MiB page of text; with "shared", one other processes map too.
on_huge () {
  local pid=$1 file=${2:-$LIB} want=${3:-shared}
  read -r ADDR kps perms shared < <(huge_addr "$pid" "$file" big_fn_3000)
  if [ "$kps" = 2048 ] && [ "$perms" = r-xp ]; then
    case $want in
      shared) [ "$shared" -gt 0 ] && return 0 ;;
      private) [ "$shared" = 0 ] && return 0 ;;
    esac
  fi
  WHY="big_fn_3000 at $ADDR: KernelPageSize $kps kB, $perms, Shared_Hugetlb $shared kB (want 2048 kB r-xp, $want)"
  # Not on huge pages: the pool was not what start made it.
  echo "$WHY" >> "$DISTURBED"
  return 1
}

# text_pages PID: how many 2 MiB pages of executable text PID maps (what
# hugeld gdb counts; taken from the process, not from the plan).
text_pages () {
  awk '/^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); x = ($2 ~ /x/); n = (strtonum("0x" r[2]) - strtonum("0x" r[1])) / 2097152 }
       /^KernelPageSize: +2048 kB/ && x { t += n } END { print t + 0 }' "/proc/$1/smaps"
}

# debug NAME PID BREAK: gdb, as $AS_USER, attaches to PID, sets BREAK
# (break or hbreak) on big_fn_3000, continues, deletes it and detaches;
# then stop_run.  Sets G (gdb's output) and RC (the program's status).
debug () {
  local name=$1 pid=$2 bp=$3
  G=$TEST_TMP/$name${AS_USER:+-$AS_USER}.gdb
  run_as_argv
  timeout 20 ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "${GDB[@]}" -p "$pid" -ex "$bp big_fn_3000" -ex continue -ex delete -ex detach > "$G" 2>&1
  stop_run
}
stopped () { grep -q "^Breakpoint 1, $(printf '0x%016x' "$ADDR") in big_fn_3000 " "$G"; }
kids_ok () { [ "$(grep -c '^child [0-9]*: ok$' "$OUT")" = "$1" ]; }
kids_bus () { [ "$(grep -c '^child [0-9]*: killed by signal 7$' "$OUT")" = "$1" ]; }
# page_lost PID: child PID's SIGBUS handler (textfork.c) reported a fault
# at an address in the 2 MiB page that holds big_fn_3000 ($ADDR), with
# si_code BUS_ADRERR (2): the page the kernel took away from it, not any
# other SIGBUS.
page_lost () {
  local a
  a=$(sed -n "s/^child $1: SIGBUS at \(0x[0-9a-f]*\), si_code 2\$/\1/p" "$OUT")
  [ -n "$a" ] && [ $(( a >> 21 )) = $(( ADDR >> 21 )) ]
}
show () { echo "rc=$RC $(tr '\n' ' ' < "$OUT")| gdb: $(grep -E '^(Breakpoint|Hardware|Warning|Cannot)' "$G" | tr '\n' ' ')"; }

# 1. Breakpoint in the parent, no spare page.
parent_nospare () {
  libfork p0 0 2 && on_huge "$PARENT" || return 1
  local n; n=$(text_pages "$PARENT")
  run_as "$H" gdb --print-command "$PARENT" > /dev/null 2> "$TEST_TMP/warn"
  debug p0 "$PARENT" break
  local c k=0
  for c in "${KIDS[@]}"; do page_lost "$c" && k=$((k + 1)); done
  OK="breakpoint in the parent, no spare page: the parent stops at it, both children die of SIGBUS at an address in big_fn_3000's huge page (their exit status and their own SIGBUS report); hugeld gdb warned first ($n shared text pages, 0 spare)"
  WHY="$(show) children that report a SIGBUS in big_fn_3000's page: $k; hugeld gdb: $(cat "$TEST_TMP/warn")"
  stopped && [ "$RC" = 1 ] && kids_bus 2 && [ "$k" = 2 ] \
    && grep -q "^hugeld: warning: process $PARENT shares $n huge pages of text with a forked parent or child or the shared cache, and the pool has 0 spare: .* --grow-pool (root) to reserve $n more$" "$TEST_TMP/warn"
}
NAME="breakpoint in the parent, no spare page"; scenario parent_nospare

# 2. Breakpoint in the parent, one spare page: it becomes the parent's copy.
parent_spare () {
  libfork p1 1 2 && on_huge "$PARENT" || return 1
  G=$TEST_TMP/p1.gdb
  timeout 20 "${GDB[@]}" -p "$PARENT" -ex 'break big_fn_3000' -ex continue -ex delete -ex detach > "$G" 2>&1
  local left; left=$(avail)
  stop_run
  OK="breakpoint in the parent, one spare page: the parent stops at it, children live; the spare page stays the parent's copy after the breakpoint is deleted"
  WHY="$(show) spare pages after gdb: $left"
  stopped && [ "$RC" = 0 ] && kids_ok 2 && [ "$left" = 0 ]
}
NAME="breakpoint in the parent, one spare page"; scenario parent_spare

# 3. Breakpoint in a child, no spare page, in a shared object's text.
child_nospare () {
  libfork c0 0 2 && on_huge "${KIDS[0]}" || return 1
  debug c0 "${KIDS[0]}" break
  OK="breakpoint in a child, no spare page (library text): everybody lives, the breakpoint is silently not inserted (never stops)"
  WHY=$(show)
  [ "$RC" = 0 ] && kids_ok 2 && ! grep -q '^Breakpoint 1, ' "$G" \
    && ! grep -q 'Cannot insert' "$G" && grep -q 'exited normally' "$G"
}
NAME="breakpoint in a child, no spare page (library text)"; scenario child_nospare

# 4. The same in the program's own text (hugeld as PT_INTERP): gdb says so.
child_nospare_main () {
  start m0 0 2 env LD_HUGEPAGE_LIBS=textfork-main "$B/textfork-main" \
    && on_huge "${KIDS[0]}" "$B/textfork-main" || return 1
  debug m0 "${KIDS[0]}" break
  OK="breakpoint in a child, no spare page (program text): gdb cannot insert it (\"Cannot access memory\"), everybody lives"
  WHY=$(show)
  [ "$RC" = 0 ] && kids_ok 2 && ! grep -q '^Breakpoint 1, ' "$G" \
    && grep -q '^Cannot insert breakpoint 1\.' "$G" && grep -q "^Cannot access memory at address $ADDR" "$G"
}
NAME="breakpoint in a child, no spare page (program text)"; scenario child_nospare_main

# 5. Breakpoint in a child, one spare page.
child_spare () {
  libfork c1 1 2 && on_huge "${KIDS[0]}" || return 1
  debug c1 "${KIDS[0]}" break
  OK="breakpoint in a child, one spare page: the child stops at it, everybody lives"
  WHY=$(show)
  stopped && [ "$RC" = 0 ] && kids_ok 2
}
NAME="breakpoint in a child, one spare page"; scenario child_spare

# 6. A hardware breakpoint writes nothing.
hbreak_nospare () {
  libfork h0 0 2 && on_huge "$PARENT" || return 1
  debug h0 "$PARENT" hbreak
  OK="hardware breakpoint (hbreak) in the parent, no spare page: the parent stops at it, children live"
  WHY=$(show)
  stopped && [ "$RC" = 0 ] && kids_ok 2
}
NAME="hbreak in the parent, no spare page"; scenario hbreak_nospare

# 7. No children: the page is the process's alone, nothing to copy.
nochildren () {
  libfork n0 0 0 && on_huge "$PARENT" "$LIB" private || return 1
  $H gdb --print-command "$PARENT" > /dev/null 2> "$TEST_TMP/warn"
  debug n0 "$PARENT" break
  OK="breakpoint in a process without children, no spare page: it stops at it, and hugeld gdb does not warn"
  WHY="$(show) $(cat "$TEST_TMP/warn")"
  stopped && [ "$RC" = 0 ] && [ ! -s "$TEST_TMP/warn" ]
}
NAME="no children, no spare page"; scenario nochildren

# 8. hugeld gdb --grow-pool: the pages first, then the breakpoint.
grow_pool () {
  libfork g0 0 2 && on_huge "$PARENT" || return 1
  local before n; before=$(pool_size) n=$(text_pages "$PARENT")
  G=$TEST_TMP/g0.gdb
  timeout 20 $H gdb --grow-pool "$PARENT" -- "${GDB[@]:1}" -ex 'break big_fn_3000' -ex continue \
    -ex delete -ex detach > "$G" 2>&1
  stop_run
  OK="hugeld gdb --grow-pool (root: it resizes the pool) on the parent, no spare page: pool $before -> $((before + n)), the parent stops at the breakpoint, children live"
  WHY="$(show) $(grep '^hugeld' "$G")"
  stopped && [ "$RC" = 0 ] && kids_ok 2 \
    && grep -q "^hugeld: grew the huge page pool from $before to $((before + n)) pages .* process $PARENT shares can be copied; when done: echo $before > /proc/sys/vm/nr_hugepages$" "$G"
}
TRACK_POOL=no
NAME="hugeld gdb --grow-pool (root: it resizes the pool)"; scenario grow_pool
TRACK_POOL=yes

# As nobody: the kill case (1) and the child's copy from a spare page (5).
as_user nobody
NAME="breakpoint in the parent, no spare page"; scenario parent_nospare
NAME="breakpoint in a child, one spare page"; scenario child_spare
as_user ""

# 9. uprobes on big_fn_3000 (the same file offset) through tracefs.
T=/sys/kernel/tracing
if [ ! -e $T/uprobe_events ] && [ -d $T ] && grep -qw tracefs /proc/filesystems \
   && mount -t tracefs nodev $T 2> /dev/null; then
  at_exit "umount $T"
fi
EV=hugeld_dbg$$
if [ ! -w $T/uprobe_events ]; then
  skip "uprobes (root: tracefs)" "no tracefs with uprobe_events here (CONFIG_UPROBE_EVENTS, or tracefs cannot be mounted)"
elif ! echo "p:$EV/big_fn_3000 $LIB:0x$(nm "$LIB" | awk '$3 == "big_fn_3000" { print $1 }')" >> $T/uprobe_events 2> /dev/null; then
  skip "uprobes (root: tracefs)" "cannot add a uprobe event"
else
  at_exit "echo '-:$EV/big_fn_3000' >> $T/uprobe_events"
  mkdir $T/instances/$EV && at_exit "rmdir $T/instances/$EV"
  en=$T/instances/$EV/events/$EV/big_fn_3000/enable
  at_exit "echo 0 > $en"
  hits () { awk -v f="$LIB" '$1 == f && $2 == "big_fn_3000" { print $3 }' $T/uprobe_profile; }
  # A starts before the uprobe exists, B after (the kernel then puts it
  # into the file pages ld.so maps first); both run with children on a
  # pool without spare pages.
  uprobes () {
    echo 0 > "$en"
    libfork ua 24 2 && on_huge "$PARENT" || return 1
    local pa=$PARENT bga=$BG outa=$OUT ka=("${KIDS[@]}") h0 h hc ok left rca rcb
    h0=$(hits)
    echo 1 > "$en"
    libfork ub 0 2 && on_huge "$PARENT" || return 1
    sleep 1
    left=$(avail)
    stop_run; rcb=$RC
    LIVE=0 stop_run "$pa" "$bga" "${ka[@]}"; rca=$RC
    echo 0 > "$en"
    h=$(( $(hits) - h0 ))
    echo 1 > "$en"
    timeout 10 "$B/textfork" 0 0.3 > /dev/null     # control: ordinary pages
    echo 0 > "$en"
    hc=$(( $(hits) - h0 - h ))
    ok=$(cat "$outa" "$OUT" | grep -c '^child [0-9]*: ok$')
    OK="uprobe (root: tracefs) on big_fn_3000, registered before and after start, children, no spare page: never fires in the huge copy, no copy, all live (control on ordinary pages: $hc hits)"
    WHY="hits $h (control $hc), rc $rca $rcb, $ok children ok, $left spare pages left"
    [ "$h" = 0 ] && [ "$hc" -gt 0 ] && [ "$rca$rcb" = 00 ] && [ "$ok" = 4 ] && [ "$left" = 0 ]
  }
  NAME="uprobes (root: tracefs)"; scenario uprobes
fi
finish
