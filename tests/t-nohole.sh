#!/bin/bash
# Never a hole in a mapping.  tests/pressure/inject.c runs a program
# under ptrace and makes every mremap that moves a huge copy into place
# behave as on Linux before 5.16 (or as any kernel whose move fails
# after it unmapped the target): the destination is unmapped, then
# EINVAL.  ld.so must map those ranges again from the file, exactly as
# the stock loader had them, and the program must give the stock
# result.  If the ordinary pages cannot be mapped again either
# (hole-nomap), the load must fail with one clear error, like any failed
# mmap: never a SIGSEGV over a hole.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
need_pool 64

B=$TEST_TMP/bin
mkdir -p "$B"
cc -O2 -Wall -Werror -o "$B/inject" "$HUGELD_TOP/tests/pressure/inject.c" \
  || { fail "build inject" ""; finish; }
# The big-code program with hugeld as PT_INTERP: mapped by the kernel.
link_interp "$B/bigcheck-interp" -fPIE -pie "$F/big-pic.o" || finish

# variant: name | command | LD_HUGEPAGE_LIBS
variants=(
  "shared|$HUGELD_LDSO $F/bigcheck-shared|libbig.so"
  "dlopen|$HUGELD_LDSO $F/bigcheck-dlopen --dlopen $F/libbig.so|libbig.so"
  "pie|$HUGELD_LDSO $F/bigcheck-pie|bigcheck-pie"
  "nopie|$HUGELD_LDSO $F/bigcheck-nopie|bigcheck-nopie"
  "interp|$B/bigcheck-interp|bigcheck-interp"
)

# The private copies are what mremap moves into place; LD_HUGEPAGE_BACKING
# keeps the other backings out of the counts (the thp copy of writable
# zones is checked on its own below).
run () { run_report "$@"; }

# Everything as root, then as nobody (a service's own user; inject,
# the tracer, runs as nobody too), each compared with the stock loader
# run the same way.
for who in "" nobody; do
  as_user "$who"

  for v in "${variants[@]}"; do
    IFS='|' read -r name cmd libs <<< "$v"
    T=$TEST_TMP/$name${who:+-$who}
    mkdir -p "$T"
    read -r -a argv <<< "$cmd"
    [ "$name" = interp ] && stock=("$SYSTEM_LDSO" "${argv[@]}") \
      || stock=("$SYSTEM_LDSO" "${argv[@]:1}")
    run "$T/stock" -- "${stock[@]}" --expect none
    [ "$(cat "$T/stock.rc")" = 0 ] || { fail "$AS$name: stock loader" "$(tail -2 "$T/stock.err")"; continue; }

    # Every move turned into a hole: all zones mapped again from the file.
    run "$T/hole" LD_HUGEPAGE_BACKING=private LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=all -- \
      "$B/inject" hole "${argv[@]}" --expect none
    holes=$(sed -n 's/^inject: \([0-9]*\) mremap calls turned into holes.*/\1/p' "$T/hole.err")
    again=$(grep -c 'fallback to ordinary pages (mapped again from the file): mremap failed: EINVAL' "$T/hole.dbg")
    if [ "$(cat "$T/hole.rc")" != 0 ]; then
      fail "$AS$name: moves that leave a hole" "exit $(cat "$T/hole.rc"): $(grep -v '^ok:' "$T/hole.err" | head -3 | tr '\n' ' ')"
    elif ! cmp -s "$T/hole.out" "$T/stock.out"; then
      fail "$AS$name: moves that leave a hole" "output differs from the stock loader"
    elif [ "${holes:-0}" -lt 1 ] || [ "$again" != "$holes" ]; then
      fail "$AS$name: moves that leave a hole" "holes=$holes, zones mapped again=$again"
    else
      pass "$AS$name: $holes moves left holes; each zone mapped again from the file, stock result, bigcheck's mapping checks pass"
    fi
    [ "$(pool_ours)" = 0 ] \
      && pass "$AS$name: no huge page kept after the failed moves" \
      || fail "$AS$name: no huge page kept after the failed moves" "$(pool_ours) pages still in use (besides other processes' $(pool_others))"

    # Nor can the ordinary pages be mapped again: the load fails cleanly.
    run "$T/lost" LD_HUGEPAGE_BACKING=private LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=all -- \
      "$B/inject" hole-nomap "${argv[@]}" --expect none
    rc=$(cat "$T/lost.rc")
    msg='cannot map segment back after a failed move to huge pages'
    if [ "$rc" -ge 128 ]; then
      fail "$AS$name: nothing can be mapped again: clean load failure" "killed: $(grep -m1 'killed' "$T/lost.err")"
    elif [ "$rc" = 0 ]; then
      fail "$AS$name: nothing can be mapped again: clean load failure" "exit 0 with a lost range?"
    elif ! grep -q "$msg" "$T/lost.err"; then
      fail "$AS$name: nothing can be mapped again: clean load failure" "exit $rc: $(grep -v '^ok:' "$T/lost.err" | head -3 | tr '\n' ' ')"
    else
      pass "$AS$name: nothing can be mapped again: load fails with \"$msg\" (exit $rc), no crash"
    fi

    # A kernel that cannot move hugetlb mappings at all (Linux 5.10): the
    # probe finds out, nothing is moved, no huge page is even taken.
    run "$T/old" LD_HUGEPAGE_BACKING=private LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=all -- \
      "$B/inject" oldkernel "${argv[@]}" --expect none
    holes=$(sed -n 's/^inject: \([0-9]*\) mremap calls turned into holes.*/\1/p' "$T/old.err")
    why=$(grep -c 'fallback to ordinary pages: moving a huge page mapping (mremap; Linux 5.16 or later) failed: EINVAL' "$T/old.dbg")
    if [ "$(cat "$T/old.rc")" = 0 ] && cmp -s "$T/old.out" "$T/stock.out" \
       && [ "$holes" = 1 ] && [ "$why" -ge 1 ] && ! grep -q 'on [0-9]* huge pages' "$T/old.dbg"; then
      pass "$AS$name: kernel without hugetlb mremap: only the probe tried, $why zones on ordinary pages with the reason, stock result"
    else
      fail "$AS$name: kernel without hugetlb mremap" "rc=$(cat "$T/old.rc") holes=$holes reported=$why $(grep -v '^ok:' "$T/old.err" | head -2 | tr '\n' ' ')"
    fi
  done

  # The thp backing's anonymous copies of writable zones are moved into
  # place the same way (any kernel): a move that leaves a hole is mapped
  # again from the file, and read-only zones are only advised, not moved.
  T=$TEST_TMP/thp${who:+-$who}
  mkdir -p "$T"
  run "$T/stock" -- "$SYSTEM_LDSO" "$F/bigcheck-shared" --expect none
  run "$T/hole" LD_HUGEPAGE_BACKING=thp LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all -- \
    "$B/inject" hole "$HUGELD_LDSO" "$F/bigcheck-shared" --expect none
  holes=$(sed -n 's/^inject: \([0-9]*\) mremap calls turned into holes.*/\1/p' "$T/hole.err")
  again=$(grep -c 'thp: mremap failed: .*(mapped again from the file)' "$T/hole.dbg")
  advised=$(grep -c 'thp: page-cache huge pages asked for' "$T/hole.dbg")
  if [ "$(cat "$T/hole.rc")" = 0 ] && cmp -s "$T/hole.out" "$T/stock.out" \
     && [ "${holes:-0}" -ge 1 ] && [ "$again" = "$holes" ] && [ "$advised" -ge 1 ]; then
    pass "${AS}thp: $holes anonymous copies' moves left holes; each mapped again from the file, $advised read-only zones advised, stock result"
  else
    fail "${AS}thp: moves that leave a hole" "rc=$(cat "$T/hole.rc") holes=$holes again=$again advised=$advised"
  fi

  # Not selected: the loader makes no move at all, the tracer sees none.
  run "$TEST_TMP/unsel${who:+-$who}" LD_HUGEPAGE_LIBS=no-such-object -- \
    "$B/inject" hole "$HUGELD_LDSO" "$F/bigcheck-shared" --expect none
  grep -q '^inject: 0 mremap calls' "$TEST_TMP/unsel${who:+-$who}.err" && [ "$(cat "$TEST_TMP/unsel${who:+-$who}.rc")" = 0 ] \
    && pass "${AS}not selected: no mremap, stock behaviour" \
    || fail "${AS}not selected: no mremap" "$(grep '^inject' "$TEST_TMP/unsel${who:+-$who}.err")"
done
as_user ""
finish
