#!/bin/bash
# A position-independent program started by the kernel (hugeld's ld.so
# as its PT_INTERP), selected: the kernel puts it at a random 4 KiB
# aligned address, and ld.so moves it where its shared cache entry fits
# or its text is at its file phase (thp), before anything runs.
#  1. thp, as root and as nobody: moved in 20 of 20 starts; what it
#     sees of itself agrees everywhere (getauxval, /proc/self/auxv,
#     dl_iterate_phdr, _start, /proc/self/maps, /proc/self/stat's code
#     bounds); its result is the stock loader's; its text PMD-mapped
#     once the page cache holds it in 2 MiB folios;
#  2. the shared cache: its text from the cache's entry in >= 19 of 20
#     starts, each process taking no pool page for it; under a tracer
#     (strace) not moved (the control);
#  3. gdb: run from the start, a breakpoint is hit; attached to a moved
#     process, it finds the program's symbols and libraries where they
#     are; a core dump's backtrace and auxiliary vector name the new
#     address;
#  4. perf records a moved program started under it with its names;
#  5. seccomp: systemd's @system-service and Docker's default with the
#     kill action: moved, runs; a filter that refuses prctl or mremap:
#     not moved, runs where the kernel put it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(the pool, the shared cache, core_pattern)"
mkdir -p "$B"
chmod 755 "$TEST_TMP" "$B"
cc -O2 -g -Wall -I"$HUGELD_TOP/tests/fixtures" -fPIE -pie -o "$B/pieprobe" \
  "$HUGELD_TOP/tests/pie/pieprobe.c" "$FIXTURES/big-pic.o" \
  -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$TEST_TMP/cc.err" \
  || { fail "build pieprobe" "$(head -3 "$TEST_TMP/cc.err" | tr '\n' ' ')"; finish; }
PROBE=$B/pieprobe
SEL=(LD_HUGEPAGE_LIBS=pieprobe)
THP=(LD_HUGEPAGE_LIBS=pieprobe LD_HUGEPAGE_BACKING=thp)
STOCK=$(env LD_HUGEPAGE_LIBS= "$PROBE" check | sed -n 's/^digest //p')
[ -n "$STOCK" ] || { fail "pieprobe unselected" "no digest"; finish; }

# starts N ENV...: N starts of pieprobe check as $AS_USER; sets MOVED,
# AGREE, PHASE, SAME (how many were moved, agreed, had their text at its
# file phase, gave the stock result) and BAD (the first that did not).
starts () {
  local n=$1; shift
  MOVED=0 AGREE=0 PHASE=0 SAME=0 BAD=
  local i dbg
  run_as_argv || return 1
  for i in $(seq "$n"); do
    dbg=$(report_out "$TEST_TMP/s")
    env "$@" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$dbg" \
      ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$PROBE" check > "$TEST_TMP/s.out" 2> "$TEST_TMP/s.err"
    report_collect "$TEST_TMP/s"
    grep -q ': moved from 0x' "$TEST_TMP/s.dbg" && MOVED=$((MOVED + 1))
    grep -qx 'agree yes' "$TEST_TMP/s.out" && AGREE=$((AGREE + 1))
    grep -qx 'phase yes' "$TEST_TMP/s.out" && PHASE=$((PHASE + 1))
    if [ "$(sed -n 's/^digest //p' "$TEST_TMP/s.out")" = "$STOCK" ]; then SAME=$((SAME + 1))
    elif [ -z "$BAD" ]; then BAD="$(cat "$TEST_TMP/s.err") $(grep -m2 'moved' "$TEST_TMP/s.dbg")"
    fi
  done
}

# hold NAME ENV...: pieprobe wait as $AS_USER until release NAME; its
# pid in NAME.pid, its load bias in NAME.base.
hold () {
  local n=$TEST_TMP/$1; shift
  run_as_argv || return 1
  rm -f "$n.in"; mkfifo "$n.in"; chmod 666 "$n.in"
  env "$@" ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$PROBE" wait < "$n.in" > "$n.out" 2> "$n.err" &
  echo $! > "$n.pid"
  exec {fd}> "$n.in"; echo "$fd" > "$n.fd"
  local i
  for i in $(seq 100); do grep -q '^ready' "$n.out" 2> /dev/null && break; sleep 0.05; done
  sed -n 's/^ready //p' "$n.out" > "$n.base"
  grep -q '^ready' "$n.out"
}
release () {
  local n=$TEST_TMP/$1
  [ -f "$n.fd" ] || return 0
  eval "exec $(cat "$n.fd")>&-"
  wait "$(cat "$n.pid")" 2> /dev/null
  rm -f "$n.fd"
}
# text_kb NAME: "SIZE PMD HUGETLB CACHE" of the program's executable
# mappings in NAME (kB; CACHE: of them from the shared cache's files).
text_kb () {
  awk -v p="$PROBE" '/^[0-9a-f]+-[0-9a-f]+ / { on = ($2 ~ /x/) && ($6 == p || index($6, "/dev/hugepages/hugeld/") == 1)
      c = index($6, "/dev/hugepages/hugeld/") == 1; next }
    on && $1 == "Size:" { s += $2; if (c) k += $2 }
    on && $1 == "FilePmdMapped:" { m += $2 }
    on && $1 == "KernelPageSize:" && $2 == 2048 { h += sz } { if ($1 == "Size:") sz = $2 }
    END { print s + 0, m + 0, h + 0, k + 0 }' "/proc/$(cat "$TEST_TMP/$1.pid")/smaps"
}

reserve_hugepages 0 || { fail reserve "cannot empty the pool"; finish; }

# --- 1. thp ---------------------------------------------------------------
for who in "" nobody; do
  as_user "$who"
  starts 20 "${THP[@]}"
  if [ $MOVED = 20 ] && [ $AGREE = 20 ] && [ $PHASE = 20 ] && [ $SAME = 20 ]; then
    pass "${AS}thp: moved in $MOVED of 20 starts, its text at its file phase in $PHASE; what it sees of its address agrees in $AGREE; the stock result in $SAME"
  else
    fail "${AS}thp: 20 starts" "moved $MOVED, phase $PHASE, agree $AGREE, stock result $SAME: $BAD"
  fi
done
as_user ""
# Unselected, the kernel's address stays (the control of the phase).
starts 20 LD_HUGEPAGE_LIBS=
[ $MOVED = 0 ] && [ $AGREE = 20 ] && [ $SAME = 20 ] \
  && pass "nothing selected: never moved, its text at its file phase in $PHASE of 20 starts (the kernel's chance: 1 in 512)" \
  || fail "nothing selected" "moved $MOVED, agree $AGREE, stock result $SAME"

if [ "$(file_thp_possible "$PROBE")" = yes ]; then
  # A first start reads the text (its sequential faults leave some
  # ranges in small folios, as any cold start may), the thp repair (its
  # timer) makes them whole, and the next start maps them with PMDs.
  drop_page_cache "$PROBE"
  hold warm0 "${THP[@]}"; release warm0
  "$H" thp repair "$PROBE" > "$TEST_TMP/repair.out" 2>&1
  hold warm "${THP[@]}"
  read -r size pmd _ < <(text_kb warm)
  release warm
  # The text's whole 2 MiB pages: all but its two ends.
  [ "$pmd" -ge $(( (size - 4096) * 90 / 100 )) ] \
    && pass "thp: after a start and the repair, the next start has $pmd of its $size kB of text PMD-mapped" \
    || fail "thp: text PMD-mapped" "$pmd of $size kB: $(cat "$TEST_TMP/repair.out")"
else
  skip "thp: text PMD-mapped" "no page-cache huge pages here"
fi

# --- 2. the shared cache ---------------------------------------------------
cache_remember_mount
at_exit 'cleanup_cache "$PROBE"'
reserve_hugepages 40 || { fail reserve "cannot reserve 40 huge pages"; finish; }
"$H" cache add "$PROBE" > "$TEST_TMP/add.out" 2>&1
if ! grep -q 'text [0-9]' "$TEST_TMP/add.out"; then
  fail "cache add pieprobe" "$(cat "$TEST_TMP/add.out")"
else
  served=0 free_drop=0 bad=
  free0=$(meminfo HugePages_Free)
  for i in $(seq 20); do
    hold c "${SEL[@]}"
    read -r size _ huge cached < <(text_kb c)
    free1=$(meminfo HugePages_Free)
    release c
    if [ "$cached" -gt 0 ] && [ "$huge" -ge "$cached" ]; then served=$((served + 1))
    elif [ -z "$bad" ]; then bad="$size kB of text, $cached kB from the cache: $(cat "$TEST_TMP/c.err")"
    fi
    [ $((free0 - free1)) -gt $free_drop ] && free_drop=$((free0 - free1))
  done
  entry=$(sed -n 's/.*: \([0-9]*\) huge pages (.*text \([0-9]*\)).*/\2/p' "$TEST_TMP/add.out")
  if [ $served -ge 19 ] && [ $free_drop -lt "${entry:-0}" ]; then
    pass "the cache: text from pieprobe's entry ($entry huge pages of text) in $served of 20 starts; a process takes at most $free_drop pool pages besides it (relro)"
  else
    fail "the cache: 20 starts" "served $served, a process took $free_drop pool pages (entry: $entry of text): $bad"
  fi
  # Under a tracer it stays where the kernel put it.
  if command -v strace > /dev/null; then
    env "${SEL[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/tr" strace -f -o /dev/null "$PROBE" check > "$TEST_TMP/tr.out" 2>&1
    grep -q 'not moved .*a debugger traces it' "$TEST_TMP"/tr.* && grep -qx 'agree yes' "$TEST_TMP/tr.out" \
      && pass "under strace (a tracer): not moved, and says why" \
      || fail "under strace" "$(grep -h moved "$TEST_TMP"/tr.* | head -2) $(cat "$TEST_TMP/tr.out")"
  fi
  "$H" cache remove "$PROBE" > /dev/null 2>&1
fi
reserve_hugepages 0

# --- 3. gdb and core dumps -------------------------------------------------
GDB=(timeout 120 gdb -nx -batch -iex 'set debuginfod enabled off' -iex 'set startup-with-shell off')
if command -v gdb > /dev/null; then
  env "${THP[@]}" "${GDB[@]}" -ex 'break big_digest' -ex run -ex 'bt 2' --args "$PROBE" check > "$TEST_TMP/gdb1" 2>&1
  grep -q '^Breakpoint 1, .* in big_digest' "$TEST_TMP/gdb1" && grep -q '^#1 .* in main ' "$TEST_TMP/gdb1" \
    && pass "gdb from the start: the breakpoint at big_digest is hit, main called it" \
    || fail "gdb from the start" "$(grep -v '^\[' "$TEST_TMP/gdb1" | tail -4 | tr '\n' ' ')"

  hold g "${THP[@]}"
  base=$(cat "$TEST_TMP/g.base")
  off=$(nm "$PROBE" | awk '$3 == "big_digest" { print $1 }')
  want=$(printf '0x%x' $(( base + 0x$off )))
  "${GDB[@]}" -p "$(cat "$TEST_TMP/g.pid")" -ex 'p &big_digest' -ex bt -ex 'info sharedlibrary' > "$TEST_TMP/gdb2" 2>&1
  got=$(sed -n 's/^\$1 = .* \(0x[0-9a-f]*\) <big_digest>.*/\1/p' "$TEST_TMP/gdb2")
  if [ "$got" = "$want" ] && grep -q ' in main ' "$TEST_TMP/gdb2" && grep -q 'libc.so.6' "$TEST_TMP/gdb2"; then
    pass "gdb attached to a moved process: big_digest at $got (its base $base plus its offset), main in the backtrace, libc among its libraries"
  else
    fail "gdb attached" "big_digest at ${got:-?}, want $want: $(grep -v '^\[' "$TEST_TMP/gdb2" | tail -5 | tr '\n' ' ')"
  fi
  # Its core: the kernel writes its own copy of the auxiliary vector.
  PATTERN=$(cat /proc/sys/kernel/core_pattern)
  mkdir -p "$TEST_TMP/cores"
  at_exit 'printf "%s\n" "$PATTERN" > /proc/sys/kernel/core_pattern'
  release g
  (ulimit -c unlimited; exec env "${THP[@]}" "$PROBE" wait) < /dev/zero > "$TEST_TMP/k.out" 2>&1 &
  kpid=$!
  for i in $(seq 100); do grep -q '^ready' "$TEST_TMP/k.out" 2> /dev/null && break; sleep 0.05; done
  kbase=$(sed -n 's/^ready //p' "$TEST_TMP/k.out")
  echo "$TEST_TMP/cores/core.%p" > /proc/sys/kernel/core_pattern
  kill -SEGV $kpid; wait $kpid 2> /dev/null
  printf '%s\n' "$PATTERN" > /proc/sys/kernel/core_pattern
  core=$TEST_TMP/cores/core.$kpid
  entry=$(readelf -hW "$PROBE" | awk '/Entry point/ { print $4 }')
  want=$(printf '0x%x' $(( kbase + entry )))
  got=$(eu-readelf -n "$core" 2> /dev/null | awk '$1 == "ENTRY:" { print $2; exit }')
  "${GDB[@]}" "$PROBE" "$core" -ex bt > "$TEST_TMP/gdb3" 2>&1
  if [ -s "$core" ] && [ "$got" = "$want" ] && grep -q ' in main ' "$TEST_TMP/gdb3"; then
    pass "a core of a moved process: its auxiliary vector's AT_ENTRY $got (the moved entry), gdb's backtrace reaches main"
  else
    fail "core of a moved process" "core $(ls -l "$core" 2>&1 | cut -c1-60), AT_ENTRY ${got:-?} want $want: $(grep -v '^\[' "$TEST_TMP/gdb3" | tail -3 | tr '\n' ' ')"
  fi
else
  skip gdb "gdb is not installed"
fi

# --- 4. perf ---------------------------------------------------------------
if command -v perf > /dev/null && perf record -q -e cpu-clock -o "$TEST_TMP/t.data" -- true > /dev/null 2>&1; then
  env "${THP[@]}" perf record -q -e cpu-clock -o "$TEST_TMP/p.data" -- "$PROBE" spin 1 > /dev/null 2>&1
  perf report -i "$TEST_TMP/p.data" --stdio --sort dso,sym 2> /dev/null | grep -v '^#' | grep . > "$TEST_TMP/p.rep"
  named=$(awk '$2 == "pieprobe" && $4 ~ /^big_/ { s += $1 } END { printf "%d", s }' "$TEST_TMP/p.rep")
  unknown=$(awk '$2 ~ /unknown|JIT/ { s += $1 } END { printf "%d", s }' "$TEST_TMP/p.rep")
  [ "$named" -ge 50 ] && [ "$unknown" -lt 5 ] \
    && pass "perf record of a moved program: ${named}% of the samples named in pieprobe's big_* functions, ${unknown}% unknown" \
    || fail "perf record of a moved program" "named ${named}%, unknown ${unknown}%: $(head -4 "$TEST_TMP/p.rep" | tr '\n' '|')"
else
  skip perf "perf cannot record here"
fi

# --- 5. seccomp --------------------------------------------------------------
if make -s -C "$HUGELD_TOP/tests/fixtures" OUT="$FIXTURES" "$FIXTURES/hp-seccomp" > "$TEST_TMP/make.log" 2>&1; then
  S=$HUGELD_TOP/tests/seccomp
  for prof in system-service-252 docker-default; do
    env "${THP[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/sc" "$FIXTURES/hp-seccomp" "$S/$prof.txt" kill -- "$PROBE" check > "$TEST_TMP/sc.out" 2>&1; rc=$?
    [ $rc = 0 ] && grep -qx 'agree yes' "$TEST_TMP/sc.out" && grep -qx 'phase yes' "$TEST_TMP/sc.out" \
      && grep -q ': moved from' "$TEST_TMP"/sc.* \
      && pass "seccomp $prof, kill: moved, runs, what it sees agrees" \
      || fail "seccomp $prof, kill" "exit $rc: $(cat "$TEST_TMP/sc.out" | tr '\n' ' ')"
    rm -f "$TEST_TMP"/sc.*
  done
  for call in prctl mremap; do
    { grep -v "^$call\$" "$S/system-service-252.txt"; echo "$call errno 1"; } > "$TEST_TMP/no-$call.txt"
    env "${THP[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/sc" "$FIXTURES/hp-seccomp" "$TEST_TMP/no-$call.txt" kill -- "$PROBE" check > "$TEST_TMP/sc.out" 2>&1; rc=$?
    why=$(grep -h 'not moved' "$TEST_TMP"/sc.* 2> /dev/null | sed 's/.*not moved/not moved/' | head -1)
    [ $rc = 0 ] && grep -qx 'agree yes' "$TEST_TMP/sc.out" && [ "$(sed -n 's/^digest //p' "$TEST_TMP/sc.out")" = "$STOCK" ] \
      && [ -n "$why" ] \
      && pass "$call refused (EPERM): runs where the kernel put it, what it sees agrees: $why" \
      || fail "$call refused" "exit $rc, $why: $(cat "$TEST_TMP/sc.out" | tr '\n' ' ')"
    rm -f "$TEST_TMP"/sc.*
  done
else
  fail "build hp-seccomp" "$(tail -3 "$TEST_TMP/make.log" | tr '\n' ' ')"
fi

finish
