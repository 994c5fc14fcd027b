#!/bin/bash
# Pool pressure: the pool runs out midway, shrinks while programs start,
# 100 processes start at once on a small pool, threads dlopen at the same
# time, and fork + copy-on-write with data/bss on huge pages when the
# pool has no page for the copy; and RLIMIT_AS or RLIMIT_DATA, not the
# pool, refuses the copy (the report names the limit).  Every program must give the stock
# loader's result; the parent of a fork is never the one that dies.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
S=$HUGELD_TOP/tests/pressure
need_root "to size the huge page pool"
reserve_hugepages 0 || true
setpool () { pool_set "$1"; }

B=$TEST_TMP/bin
mkdir -p "$B"
cc -O1 -Wall -Werror -o "$B/cow" "$S/cow.c" -Wl,--dynamic-linker="$HUGELD_LDSO" || fail "build cow" ""
cc -O1 -Wall -Werror -pthread -o "$B/dlthreads" "$S/dlthreads.c" || fail "build dlthreads" ""
cc -O1 -Wall -Werror -o "$B/limits" "$S/limits.c" || fail "build limits" ""
for i in 1 2 3 4; do cp "$F/libbig.so" "$B/libbig$i.so"; done

# Everything as root, then as nobody (a service's own user: "as
# nobody: "), each against the stock loader run as the same user.  The
# shell stays root and sizes the pool (root's own business, and the
# point of the test).
for who in "" nobody; do
  as_user "$who"
  W=${who:+-$who}

  # --- fork + copy-on-write with the pool exhausted -------------------------
  setpool 64
  used=$(run_as env LD_DEBUG=hugepages LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss "$B/cow" 1 2>&1 >/dev/null \
         | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p')
  out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss run_as "$B/cow" 1)
  [ "$out" = $'child: exit 0\nparent: alive, memory intact' ] \
    && pass "${AS}fork/COW with spare pages: child and parent fine ($used pages)" \
    || fail "${AS}fork/COW with spare pages" "$out"
  setpool "$used"
  out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss run_as "$B/cow" 1); rc=$?
  [ $rc = 0 ] && [ "$out" = $'child: signal BUS\nparent: alive, memory intact' ] \
    && pass "${AS}fork/COW, pool exhausted, child writes: child SIGBUS, parent lives" \
    || fail "${AS}fork/COW, pool exhausted, child writes" "rc=$rc $out"
  out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss run_as "$B/cow" 2); rc=$?
  [ $rc = 0 ] && [ "$out" = $'child: signal BUS\nparent: alive, memory intact' ] \
    && pass "${AS}fork/COW, pool exhausted, parent writes first: parent keeps the page, child SIGBUS" \
    || fail "${AS}fork/COW, pool exhausted, parent writes first" "rc=$rc $out"
  # A fork storm: 20 children each write to a huge page while 2 spare
  # pages exist: at most 2 succeed, the rest die of SIGBUS, the parent lives.
  setpool $((used + 2))
  out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss run_as "$B/cow" 3 20); rc=$?
  ok=$(sed -n 's/^children: \([0-9]*\) ok.*/\1/p' <<< "$out")
  bus=$(sed -n 's/.* \([0-9]*\) SIGBUS.*/\1/p' <<< "$out")
  if [ $rc = 0 ] && grep -q '^parent: alive, memory intact' <<< "$out" \
     && [ "${ok:-0}" -ge 1 ] && [ "${ok:-9}" -le 2 ] && [ $((ok + bus)) = 20 ]; then
    pass "${AS}fork storm, 20 children writing, 2 spare pages: $ok ok, $bus SIGBUS, parent lives"
  else
    fail "${AS}fork storm" "rc=$rc $out"
  fi
  setpool "$used"
  # The default segments are never written after start-up: no COW huge page.
  out=$(LD_HUGEPAGE_LIBS=cow run_as "$B/cow" 1)
  [ "$out" = $'child: exit 0\nparent: alive, memory intact' ] \
    && pass "${AS}fork/COW, pool exhausted, default segments: nothing to copy, both fine" \
    || fail "${AS}fork/COW, default segments" "$out"

  # --- the pool runs out midway ---------------------------------------------
  setpool 64
  ref=$(run_as "$B/dlthreads" "$B/libbig1.so") || fail "${AS}reference run" ""
  ref1=$(sed 's/^0: //' <<< "$ref")
  need=$(run_as env LD_DEBUG=hugepages LD_HUGEPAGE_LIBS='libbig*' "$HUGELD_LDSO" "$B/dlthreads" "$B/libbig1.so" 2>&1 >/dev/null \
         | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p')
  [ -n "$need" ] && [ "$need" -gt 0 ] || { fail "${AS}one copy of libbig.so goes on huge pages" "need=$need"; need=16; }
  setpool $((need + need / 2))
  run_report "$TEST_TMP/mid$W" LD_HUGEPAGE_LIBS='libbig*' -- \
    "$HUGELD_LDSO" "$B/dlthreads" "$B/libbig1.so" "$B/libbig2.so" "$B/libbig3.so"
  rc=$(cat "$TEST_TMP/mid$W.rc") out=$(cat "$TEST_TMP/mid$W.out")
  want=$(printf '0: %s\n1: %s\n2: %s' "$ref1" "$ref1" "$ref1")
  if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then
    pass "${AS}pool for 1.5 copies, 3 copies loaded: all correct"
  else
    fail "${AS}pool for 1.5 copies, 3 copies loaded: all correct" "rc=$rc $out"
  fi
  if grep -q "$need huge pages used, 0 not available" "$TEST_TMP/mid$W.dbg" \
     && grep -q 'fallback to ordinary pages: mmap MAP_HUGETLB failed: ENOMEM' "$TEST_TMP/mid$W.dbg"; then
    pass "${AS}pool runs out midway: the first copy complete, later zones fall back with ENOMEM"
  else
    fail "${AS}pool runs out midway" "$(grep 'pages used' "$TEST_TMP/mid$W.dbg" | tr '\n' ' ')"
  fi

  # --- a resource limit, not the pool ----------------------------------------
  # RLIMIT_AS and RLIMIT_DATA set to leave room for libbig.so's ordinary
  # mapping and 8 MiB, not for a private copy of its text (tests/
  # pressure/limits.c), with a pool that has the pages: the load goes
  # on on ordinary pages, as the stock loader's under the same limit,
  # and LD_DEBUG=hugepages names the limit, not the pool.
  setpool 64
  for lim in as data; do
    LIM=$(tr a-z A-Z <<< "$lim")
    want=$(run_as "$SYSTEM_LDSO" "$B/limits" $lim "$B/libbig1.so" 2>&1)
    run_report "$TEST_TMP/lim-$lim$W" LD_HUGEPAGE_LIBS='libbig*' LD_HUGEPAGE_BACKING=private -- \
      "$HUGELD_LDSO" "$B/limits" $lim "$B/libbig1.so"
    out=$(cat "$TEST_TMP/lim-$lim$W.out")
    if [ "$out" = loaded ] && [ "$want" = loaded ] && [ "$(cat "$TEST_TMP/lim-$lim$W.rc")" = 0 ] \
       && grep -q "text .* fallback to ordinary pages: mmap MAP_HUGETLB failed: ENOMEM, over RLIMIT_$LIM, " "$TEST_TMP/lim-$lim$W.dbg" \
       && ! grep -q 'pool empty' "$TEST_TMP/lim-$lim$W.dbg"; then
      pass "${AS}RLIMIT_$LIM too small for the copy, pool free: loaded as the stock loader loads it, the report names RLIMIT_$LIM"
    else
      fail "${AS}RLIMIT_$LIM too small for the copy" "stock: $want, hugeld: $out: $(grep -m2 'ENOMEM\|huge pages used' "$TEST_TMP/lim-$lim$W.dbg" | tr '\n' ' ')"
    fi
  done
  # Control: without the limit, the same load puts the text on huge pages.
  run_report "$TEST_TMP/lim-none$W" LD_HUGEPAGE_LIBS='libbig*' LD_HUGEPAGE_BACKING=private -- \
    "$HUGELD_LDSO" "$B/limits" none "$B/libbig1.so"
  grep -q "libbig1.so: text .* on [0-9]* huge pages" "$TEST_TMP/lim-none$W.dbg" \
    && pass "${AS}control: no limit, the same load's text on huge pages" \
    || fail "${AS}control: no limit, text on huge pages" "$(grep -m2 'text' "$TEST_TMP/lim-none$W.dbg" | tr '\n' ' ')"

  # --- threads dlopen concurrently on a small pool --------------------------
  setpool $((need * 2))
  run_report "$TEST_TMP/thr$W" LD_HUGEPAGE_LIBS='libbig*' -- \
    "$HUGELD_LDSO" "$B/dlthreads" "$B/libbig1.so" "$B/libbig2.so" "$B/libbig3.so" "$B/libbig4.so"
  rc=$(cat "$TEST_TMP/thr$W.rc") out=$(cat "$TEST_TMP/thr$W.out")
  want=$(printf '0: %s\n1: %s\n2: %s\n3: %s' "$ref1" "$ref1" "$ref1" "$ref1")
  huge=$(sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p' "$TEST_TMP/thr$W.dbg" | awk '{s += $1} END {print s+0}')
  if [ "$rc" = 0 ] && [ "$out" = "$want" ] && [ "$huge" -ge "$need" ]; then
    pass "${AS}4 threads dlopen 4 copies at once, pool for 2: all correct ($huge pages went huge)"
  else
    fail "${AS}4 threads dlopen at once" "rc=$rc $out"
  fi
  [ "$(pool_ours)" = 0 ] \
    && pass "${AS}after the threads test the pool is fully free" \
    || fail "${AS}pool free after threads test" "$(pool_ours) pages still in use (besides other processes' $(pool_others))"

  # --- 100 processes at once on a small pool --------------------------------
  setpool 20
  want=$(run_as "$SYSTEM_LDSO" "$F/bigcheck-shared" --bench --rounds 0)
  run_as_argv && hp=$(report_out "$TEST_TMP/hp$W") || hp=$TEST_TMP/hp$W.none
  for i in $(seq 100); do
    ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} env LD_HUGEPAGE_LIBS=libbig.so LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$hp" \
      "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 0 > "$TEST_TMP/p$i$W.out" 2>&1 &
  done
  wait
  bad=0
  for i in $(seq 100); do [ "$(cat "$TEST_TMP/p$i$W.out")" = "$want" ] || bad=$((bad + 1)); done
  got=$(grep -l ' [1-9][0-9]* huge pages used' "$hp".* 2> /dev/null | wc -l)
  fell=$(grep -l 'fallback' "$hp".* 2> /dev/null | wc -l)
  [ $bad = 0 ] && [ "$got" -ge 1 ] && [ "$fell" -ge 1 ] \
    && pass "${AS}100 processes at once on a pool of 20 pages: all correct ($got got huge pages, $fell fell back)" \
    || fail "${AS}100 processes at once" "$bad wrong, $got got huge pages, $fell fell back"

  # --- the pool shrinks and grows while programs start ----------------------
  ( for i in $(seq 60); do setpool $(( (i * 7) % 40 )); sleep 0.05; done ) &
  shrinker=$!
  bad=0
  for i in $(seq 30); do
    out=$(LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all run_as "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 0 2>&1) \
      && [ "$out" = "$want" ] || bad=$((bad + 1))
  done
  wait $shrinker
  [ $bad = 0 ] && pass "${AS}30 starts while the pool size changes under them: all correct" \
    || fail "${AS}starts while the pool changes" "$bad wrong"
done
as_user ""
finish
