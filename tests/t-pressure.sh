#!/bin/bash
# Pool pressure: the pool runs out midway, shrinks while programs start,
# 100 processes start at once on a small pool, threads dlopen at the same
# time, and fork + copy-on-write with data/bss on huge pages when the
# pool has no page for the copy.  Every program must give the stock
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
for i in 1 2 3 4; do cp "$F/libbig.so" "$B/libbig$i.so"; done

# --- fork + copy-on-write with the pool exhausted -------------------------
setpool 64
used=$(LD_DEBUG=hugepages LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss "$B/cow" 1 2>&1 >/dev/null \
       | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p')
out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss "$B/cow" 1)
[ "$out" = $'child: exit 0\nparent: alive, memory intact' ] \
  && pass "fork/COW with spare pages: child and parent fine ($used pages)" \
  || fail "fork/COW with spare pages" "$out"
setpool "$used"
out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss "$B/cow" 1); rc=$?
[ $rc = 0 ] && [ "$out" = $'child: signal BUS\nparent: alive, memory intact' ] \
  && pass "fork/COW, pool exhausted, child writes: child SIGBUS, parent lives" \
  || fail "fork/COW, pool exhausted, child writes" "rc=$rc $out"
out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss "$B/cow" 2); rc=$?
[ $rc = 0 ] && [ "$out" = $'child: signal BUS\nparent: alive, memory intact' ] \
  && pass "fork/COW, pool exhausted, parent writes first: parent keeps the page, child SIGBUS" \
  || fail "fork/COW, pool exhausted, parent writes first" "rc=$rc $out"
# A fork storm: 20 children each write to a huge page while 2 spare
# pages exist: at most 2 succeed, the rest die of SIGBUS, the parent lives.
setpool $((used + 2))
out=$(LD_HUGEPAGE_LIBS=cow LD_HUGEPAGE_SEGMENTS=bss "$B/cow" 3 20); rc=$?
ok=$(sed -n 's/^children: \([0-9]*\) ok.*/\1/p' <<< "$out")
bus=$(sed -n 's/.* \([0-9]*\) SIGBUS.*/\1/p' <<< "$out")
if [ $rc = 0 ] && grep -q '^parent: alive, memory intact' <<< "$out" \
   && [ "${ok:-0}" -ge 1 ] && [ "${ok:-9}" -le 2 ] && [ $((ok + bus)) = 20 ]; then
  pass "fork storm, 20 children writing, 2 spare pages: $ok ok, $bus SIGBUS, parent lives"
else
  fail "fork storm" "rc=$rc $out"
fi
setpool "$used"
# The default segments are never written after start-up: no COW huge page.
out=$(LD_HUGEPAGE_LIBS=cow "$B/cow" 1)
[ "$out" = $'child: exit 0\nparent: alive, memory intact' ] \
  && pass "fork/COW, pool exhausted, default segments: nothing to copy, both fine" \
  || fail "fork/COW, default segments" "$out"

# --- the pool runs out midway ---------------------------------------------
setpool 64
ref=$("$B/dlthreads" "$B/libbig1.so") || fail "reference run" ""
ref1=$(sed 's/^0: //' <<< "$ref")
need=$(LD_DEBUG=hugepages LD_HUGEPAGE_LIBS='libbig*' "$HUGELD_LDSO" "$B/dlthreads" "$B/libbig1.so" 2>&1 >/dev/null \
       | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p')
[ -n "$need" ] && [ "$need" -gt 0 ] || { fail "one copy of libbig.so goes on huge pages" "need=$need"; need=16; }
setpool $((need + need / 2))
rm -f "$TEST_TMP"/mid.*
out=$(LD_HUGEPAGE_LIBS='libbig*' LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/mid" \
      "$HUGELD_LDSO" "$B/dlthreads" "$B/libbig1.so" "$B/libbig2.so" "$B/libbig3.so")
rc=$?
want=$(printf '0: %s\n1: %s\n2: %s' "$ref1" "$ref1" "$ref1")
if [ $rc = 0 ] && [ "$out" = "$want" ]; then
  pass "pool for 1.5 copies, 3 copies loaded: all correct"
else
  fail "pool for 1.5 copies, 3 copies loaded: all correct" "rc=$rc $out"
fi
if grep -qh "$need huge pages used, 0 not available" "$TEST_TMP"/mid.* \
   && grep -qh 'fallback to ordinary pages: mmap MAP_HUGETLB failed: ENOMEM' "$TEST_TMP"/mid.*; then
  pass "pool runs out midway: the first copy complete, later zones fall back with ENOMEM"
else
  fail "pool runs out midway" "$(grep -h 'pages used' "$TEST_TMP"/mid.* | tr '\n' ' ')"
fi

# --- threads dlopen concurrently on a small pool --------------------------
setpool $((need * 2))
rm -f "$TEST_TMP"/thr.*
out=$(LD_HUGEPAGE_LIBS='libbig*' LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/thr" \
      "$HUGELD_LDSO" "$B/dlthreads" "$B/libbig1.so" "$B/libbig2.so" "$B/libbig3.so" "$B/libbig4.so")
rc=$?
want=$(printf '0: %s\n1: %s\n2: %s\n3: %s' "$ref1" "$ref1" "$ref1" "$ref1")
huge=$(sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p' "$TEST_TMP"/thr.* | awk '{s += $1} END {print s+0}')
if [ $rc = 0 ] && [ "$out" = "$want" ] && [ "$huge" -ge "$need" ]; then
  pass "4 threads dlopen 4 copies at once, pool for 2: all correct ($huge pages went huge)"
else
  fail "4 threads dlopen at once" "rc=$rc $out"
fi
[ "$(meminfo HugePages_Free)" = "$(meminfo HugePages_Total)" ] \
  && pass "after the threads test the pool is fully free" \
  || fail "pool free after threads test" "$(meminfo HugePages_Free) of $(meminfo HugePages_Total)"

# --- 100 processes at once on a small pool --------------------------------
setpool 20
want=$("$SYSTEM_LDSO" "$F/bigcheck-shared" --bench --rounds 0)
rm -f "$TEST_TMP"/hp.*
for i in $(seq 100); do
  LD_HUGEPAGE_LIBS=libbig.so LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/hp" \
    "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 0 > "$TEST_TMP/p$i.out" 2>&1 &
done
wait
bad=0
for i in $(seq 100); do [ "$(cat "$TEST_TMP/p$i.out")" = "$want" ] || bad=$((bad + 1)); done
got=$(grep -l ' [1-9][0-9]* huge pages used' "$TEST_TMP"/hp.* | wc -l)
fell=$(grep -l 'fallback' "$TEST_TMP"/hp.* | wc -l)
[ $bad = 0 ] && [ "$got" -ge 1 ] && [ "$fell" -ge 1 ] \
  && pass "100 processes at once on a pool of 20 pages: all correct ($got got huge pages, $fell fell back)" \
  || fail "100 processes at once" "$bad wrong, $got got huge pages, $fell fell back"

# --- the pool shrinks and grows while programs start ----------------------
( for i in $(seq 60); do setpool $(( (i * 7) % 40 )); sleep 0.05; done ) &
shrinker=$!
bad=0
for i in $(seq 30); do
  out=$(LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 0 2>&1) \
    && [ "$out" = "$want" ] || bad=$((bad + 1))
done
wait $shrinker
[ $bad = 0 ] && pass "30 starts while the pool size changes under them: all correct" \
  || fail "starts while the pool changes" "$bad wrong"
finish
