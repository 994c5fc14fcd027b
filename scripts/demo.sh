#!/bin/bash
# The main job: run the bundled big-code program (24 MiB of code in 6000
# functions, called in a fixed random order: an iTLB-bound workload)
# through the stock loader and through hugeld with its library
# selected, show what landed on huge pages, and time both.
set -euo pipefail
. "$(dirname "$0")/config.sh"

LDSO=${HUGELD_LDSO:-$DESTDIR$PREFIX/ld.so}
SYSTEM_LDSO=/lib64/ld-linux-x86-64.so.2
F=$BUILDDIR/tests
PROG=$F/bigcheck-shared
RUNS=${RUNS:-7}
[ -x "$LDSO" ] || die "$LDSO is not installed (make install)"
[ -x "$PROG" ] || die "$PROG is not built (make fixtures)"
unset LD_HUGEPAGE_LIBS LD_HUGEPAGE_SEGMENTS LD_DEBUG

pool=/proc/sys/vm/nr_hugepages
old=$(cat $pool)
want=40
if [ "$old" -lt "$want" ]; then
  [ -w $pool ] || die "need $want huge pages in the pool: run as root, or: echo $want > $pool"
  trap 'echo "$old" > '"$pool" EXIT
  echo "$want" > $pool
fi
echo "== Huge page pool: $(awk '/HugePages_Total/ {print $2}' /proc/meminfo) pages of 2 MiB"
echo
echo "== What the loader did (LD_DEBUG=hugepages, LD_HUGEPAGE_LIBS=libbig.so):"
LD_HUGEPAGE_LIBS=libbig.so LD_DEBUG=hugepages "$LDSO" "$PROG" --bench --rounds 1 2>&1 >/dev/null \
  | sed -n 's/^ *[0-9]*:\t*/  /; /selected by\| at 0x\|huge pages used\|fallback/p'
echo
echo "== Checked from inside the process (/proc/self/smaps):"
LD_HUGEPAGE_LIBS=libbig.so "$LDSO" "$PROG" --expect text,rodata,relro 2>&1 >/dev/null \
  | grep -E '2 MiB|bytes on|^FAIL' | sed 's/^/  /' || true
echo
echo "== Code: $RUNS alternating runs each of the iTLB-bound benchmark"
echo "   (6000 functions on separate pages called in random order; LD_HUGEPAGE_LIBS=libbig.so)"
python3 "$HUGELD_TOP/scripts/abtime.py" --runs "$RUNS" \
  --label-a "stock ld.so" --label-b "hugeld, text on 2 MiB" \
  --env-b LD_HUGEPAGE_LIBS=libbig.so \
  --json "$BUILDDIR/demo-code.json" \
  -- "$SYSTEM_LDSO" "$PROG" --bench --- "$LDSO" "$PROG" --bench
echo
echo "== Data: $RUNS alternating runs each of the dTLB-bound benchmark"
echo "   (random walk over 8 MiB .data and 16 MiB .bss; LD_HUGEPAGE_SEGMENTS=all)"
python3 "$HUGELD_TOP/scripts/abtime.py" --runs "$RUNS" \
  --label-a "stock ld.so" --label-b "hugeld, all on 2 MiB" \
  --env-b LD_HUGEPAGE_LIBS=libbig.so --env-b LD_HUGEPAGE_SEGMENTS=all \
  --json "$BUILDDIR/demo-data.json" \
  -- "$SYSTEM_LDSO" "$PROG" --bench-mem --- "$LDSO" "$PROG" --bench-mem
echo
echo "Note: on kernels whose page cache keeps 2 MiB folios (ext4 on Linux 6.1x),"
echo "the stock loader's file-backed text may already be PMD-mapped by the"
echo "kernel (FilePmdMapped in smaps), which shrinks the code speed-up here."
