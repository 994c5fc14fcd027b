#!/bin/bash
# Objects selected by LD_HUGEPAGE_LIBS land on 2 MiB pages: the
# generated big-code program (tens of MiB of code, a big RELRO table,
# big .data and .bss) as a shared library, dlopened, as PIE, as non-PIE
# and linked with 2 MiB-aligned segments.  bigcheck itself verifies
# /proc/self/smaps (--expect), RELRO, no rwx mapping, fork + COW,
# threads and brk; here we compare its results with the stock loader's
# and check the pool accounting and the LD_DEBUG report.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
need_pool 96

# variant: name | program and arguments | LD_HUGEPAGE_LIBS
variants=(
  "shared|$F/bigcheck-shared|libbig.so"
  "dlopen|$F/bigcheck-dlopen --dlopen $F/libbig.so|libbig.so"
  "soname|$F/bigcheck-dlopen --dlopen $TEST_TMP/libalias.so|libbig.so"
  "pie|$F/bigcheck-pie|bigcheck-pie"
  "nopie|$F/bigcheck-nopie|bigcheck-nopie"
  "shared-2m|$F/bigcheck-shared-2m|libbig-2m.so"
  "pie-2m|$F/bigcheck-pie-2m|bigcheck-pie-2m"
)

run () { run_report "$@"; }

# "soname": libbig.so under a file name its pattern does not match,
# selected by its DT_SONAME (ld.so reads the name only when the file
# name selects nothing).
cp "$F/libbig.so" "$TEST_TMP/libalias.so"
chmod 755 "$TEST_TMP"
chmod 644 "$TEST_TMP/libalias.so"

# same NAME PFX: run PFX exited 0 with the stock loader's output.
same () {
  local name=$1 pfx=$2
  if [ "$(cat "$pfx.rc")" != 0 ]; then
    fail "$name" "exit $(cat "$pfx.rc"): $(grep -v '^ok:' "$pfx.err" | head -5 | tr '\n' ' ')"
  elif ! cmp -s "$pfx.out" "$T/stock.out"; then
    fail "$name" "output differs from the stock loader: $(head -c 200 "$pfx.out")"
  else
    pass "$name"
  fi
}


# Each variant as root, then as nobody (a service's own user) with the
# stock loader, the default segments and all of them.
for v in "${variants[@]}"; do
  IFS='|' read -r name cmd libs <<< "$v"
  read -r -a argv <<< "$cmd"
  for who in "" nobody; do
    as_user "$who"
    T=$TEST_TMP/$name${who:+-$who}
    mkdir -p "$T"

    run "$T/stock" -- "$SYSTEM_LDSO" "${argv[@]}" --expect none
    if [ "$(cat "$T/stock.rc")" != 0 ] || ! grep -q '^result: ' "$T/stock.out"; then
      fail "$AS$name: stock loader" "$(tail -3 "$T/stock.err" | tr '\n' ' ')"
      continue
    fi

    # Not selected: exactly like the stock loader, no huge pages.
    if [ -z "$who" ]; then
      run "$T/unsel" LD_HUGEPAGE_LIBS=no-such-object -- "$HUGELD_LDSO" "${argv[@]}" --expect none
      same "$name: not selected: same result, no huge pages" "$T/unsel"
    fi

    # Default segments: text, rodata, relro.
    run "$T/def" LD_HUGEPAGE_LIBS="$libs" -- "$HUGELD_LDSO" "${argv[@]}" \
      --expect text,rodata,relro --hugetlb-report
    same "$AS$name: default: text, rodata, relro on 2 MiB pages; checks pass" "$T/def"
    by="file name"
    [ "$name" = soname ] && by=DT_SONAME
    if grep -q "selected by pattern \"$libs\" ($by" "$T/def.dbg"; then
      pass "$AS$name: LD_DEBUG reports the pattern and what it matched ($by)"
    else
      fail "$AS$name: LD_DEBUG reports the pattern" "$(head -3 "$T/def.dbg" | tr '\n' ' ')"
    fi
    # The pages the loader reports are the pages the process holds.
    used=$(sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p' "$T/def.dbg" | awk '{s+=$1} END {print s+0}')
    smaps=$(sed -n 's/^hugetlb: smaps_pages=\([0-9]*\).*/\1/p' "$T/def.err")
    # (The pool's pages in use, less those other processes held when
    # the test took the pool.)
    inuse=$(sed -n 's/^hugetlb: .*pool_in_use=\([0-9]*\).*/\1/p' "$T/def.err")
    inuse=$(( ${inuse:--1} - $(pool_others) ))
    if [ -n "$used" ] && [ "$used" -gt 0 ] && [ "$used" = "$smaps" ] && [ "$used" = "$inuse" ]; then
      pass "$AS$name: pages reported ($used) = smaps = HugePages in use"
    else
      fail "$AS$name: pages reported = smaps = HugePages in use" "report=$used smaps=$smaps meminfo=$inuse (other processes' $(pool_others) pages not counted)"
    fi
    [ "$(pool_ours)" = 0 ] && pass "$AS$name: pool fully free after exit" \
      || fail "$AS$name: pool fully free after exit" "$(pool_ours) pages still in use (besides other processes' $(pool_others))"

    # Everything, data and bss included.
    run "$T/all" LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=all -- \
      "$HUGELD_LDSO" "${argv[@]}" --expect text,rodata,relro,data,bss
    same "$AS$name: all: every kind on 2 MiB pages; fork/COW, threads, brk fine" "$T/all"

    # Text only.
    if [ -z "$who" ]; then
      run "$T/text" LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=text -- \
        "$HUGELD_LDSO" "${argv[@]}" --expect text
      same "$name: text only" "$T/text"
    fi
  done
done
as_user ""

# The pool too small, as root and as nobody.
for who in "" nobody; do
  as_user "$who"
  T=$TEST_TMP/pool${who:+-$who}
  mkdir -p "$T"
  run "$T/stock" -- "$SYSTEM_LDSO" "$F/bigcheck-shared" --expect none

  # An empty pool: the program runs normally on ordinary pages and the
  # report says why.
  pool_set 0
  run "$T/empty" LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all -- \
    "$HUGELD_LDSO" "$F/bigcheck-shared" --expect none
  same "${AS}pool of 0 pages: runs on ordinary pages" "$T/empty"
  grep -q 'fallback to ordinary pages: mmap MAP_HUGETLB failed: ENOMEM' "$T/empty.dbg" \
    && pass "${AS}pool of 0 pages: fallback reported" \
    || fail "${AS}pool of 0 pages: fallback reported" "$(grep -m3 hugepages "$T/empty.dbg" | tr '\n' ' ')"

  # A pool too small for everything: some zones get huge pages, the rest
  # falls back, the result is the same.
  pool_set 5
  run "$T/small" LD_HUGEPAGE_LIBS=libbig.so -- "$HUGELD_LDSO" "$F/bigcheck-shared"
  same "${AS}pool of 5 pages: partial, same result" "$T/small"
  if grep -q 'fallback to ordinary pages' "$T/small.dbg" && grep -q 'on [0-9]* huge pages' "$T/small.dbg"; then
    pass "${AS}pool of 5 pages: some zones huge, the rest fell back"
  else
    fail "${AS}pool of 5 pages: some zones huge, the rest fell back" "$(grep -c hugepages "$T/small.dbg") lines"
  fi
done
as_user ""

# dlopen/dlclose 100 times with a pool that holds two copies: nothing
# leaks, the last round is still on huge pages.  (As root only: it
# takes seconds, and the runs as nobody above get the same pages.)
T=$TEST_TMP/pool
need=$(sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p' "$TEST_TMP/dlopen/def.dbg" | head -1)
need=${need:-20}
pool_set $((2 * need))
run "$T/loop" LD_HUGEPAGE_LIBS=libbig.so -- "$HUGELD_LDSO" "$F/bigcheck-dlopen" \
  --dlopen "$F/libbig.so" --dlopen-loop 100
if [ "$(cat "$T/loop.rc")" = 0 ] && grep -q 'last round on huge pages: yes' "$T/loop.err"; then
  pass "dlopen/dlclose x100, pool of 2 copies ($((2 * need)) pages): last round on huge pages"
else
  fail "dlopen/dlclose x100: last round on huge pages" "rc=$(cat "$T/loop.rc") $(grep -i 'last round\|FAIL' "$T/loop.err" | head -3 | tr '\n' ' ')"
fi
n=$(grep -c 'huge pages used' "$T/loop.dbg")
[ "$n" -ge 100 ] && pass "dlopen/dlclose x100: every round was planned and mapped ($n)" \
  || fail "dlopen/dlclose x100: every round mapped" "$n reports"
grep -q 'fallback' "$T/loop.dbg" && fail "dlopen/dlclose x100: no fallback (no leak)" \
  "$(grep -m1 fallback "$T/loop.dbg")" || pass "dlopen/dlclose x100: no fallback, so no leak"
finish
