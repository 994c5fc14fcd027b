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

. "$HUGELD_TOP/scripts/pool.sh"
want=40
if [ "$(pool_size)" -lt "$want" ]; then
  [ -w "$HUGELD_POOL_FILE" ] || die "need $want huge pages in the pool: run as root, or: echo $want > $HUGELD_POOL_FILE"
  pool_save
  trap pool_restore EXIT
  pool_set "$want" || die "the kernel gave only $(pool_size) of $want huge pages"
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
python3 "$HUGELD_TOP/bench/abtime.py" --runs "$RUNS" \
  --label-a "stock ld.so" --label-b "hugeld, text on 2 MiB" \
  --env-b LD_HUGEPAGE_LIBS=libbig.so \
  --json "$BUILDDIR/demo-code.json" \
  -- "$SYSTEM_LDSO" "$PROG" --bench --- "$LDSO" "$PROG" --bench
echo "   How to read it: the stock loader's text is on 4 KiB pages only where the"
echo "   kernel does not map the page cache's own 2 MiB folios.  On Linux 6.16 and"
echo "   later (ext4, XFS) a file the linker has just written is often in the page"
echo "   cache in 2 MiB folios, which the kernel maps huge (FilePmdMapped) for the"
echo "   stock loader too: then the two are close, and the tmpfs run at the end"
echo "   shows the difference 4 KiB text makes."
echo
echo "== Data: $RUNS alternating runs each of the dTLB-bound benchmark"
echo "   (random walk over 8 MiB .data and 16 MiB .bss; LD_HUGEPAGE_SEGMENTS=all)"
python3 "$HUGELD_TOP/bench/abtime.py" --runs "$RUNS" \
  --label-a "stock ld.so" --label-b "hugeld, all on 2 MiB" \
  --env-b LD_HUGEPAGE_LIBS=libbig.so --env-b LD_HUGEPAGE_SEGMENTS=all \
  --json "$BUILDDIR/demo-data.json" \
  -- "$SYSTEM_LDSO" "$PROG" --bench-mem --- "$LDSO" "$PROG" --bench-mem
echo
# Start-up: a process that loads libbig.so and exits at once (--help),
# with each backing: the private copy costs a copy per process, the
# shared cache an mmap, thp an madvise.
H=${HUGELD_CMD:-$(dirname "$LDSO")/bin/hugeld}
startup () {
  echo "== Start-up, $1 (LD_HUGEPAGE_BACKING=$2): $RUNS alternating runs each"
  echo "   of a process that loads libbig.so and exits (bigcheck --help)"
  python3 "$HUGELD_TOP/bench/abtime.py" --runs "$RUNS" \
    --label-a "stock ld.so" --label-b "hugeld, $2" \
    --env-b LD_HUGEPAGE_LIBS=libbig.so --env-b LD_HUGEPAGE_BACKING="$2" \
    --json "$BUILDDIR/demo-startup-$3.json" \
    -- "$SYSTEM_LDSO" "$PROG" --help --- "$LDSO" "$PROG" --help
  echo
}
startup "private copy" private private
mounted=yes
mountpoint -q /dev/hugepages 2> /dev/null || mounted=no
uncache () {
  "$H" cache remove "$F/libbig.so" > /dev/null 2>&1 || true
  if [ $mounted = no ] && mountpoint -q /dev/hugepages 2> /dev/null; then
    rmdir /dev/hugepages/hugeld 2> /dev/null || true
    umount /dev/hugepages || true
  fi
}
trap 'uncache; pool_restore' EXIT
if out=$("$H" cache add "$F/libbig.so" 2>&1); then
  echo "   $out"
  startup "shared cache" shared,private shared
else
  echo "== Start-up, shared cache: skipped: $out"
  echo
fi
uncache
startup "page-cache huge pages" thp thp

# The same code benchmark with the program and library on tmpfs, whose
# page cache is not PMD-mapped (shmem_enabled=never by default): what
# the stock loader gets where the kernel has no large file folios.
shm=$(mktemp -d /dev/shm/hugeld-demo.XXXXXX)
trap 'rm -rf "$shm"; uncache; pool_restore' EXIT
cp "$F/libbig.so" "$PROG" "$shm/"
echo "== Code again, files on tmpfs (no file-backed huge pages for the stock loader)"
python3 "$HUGELD_TOP/bench/abtime.py" --runs "$RUNS" \
  --label-a "stock ld.so" --label-b "hugeld, text on 2 MiB" \
  --env-b LD_HUGEPAGE_LIBS=libbig.so \
  --json "$BUILDDIR/demo-code-tmpfs.json" \
  -- "$SYSTEM_LDSO" "$shm/$(basename "$PROG")" --bench --- "$LDSO" "$shm/$(basename "$PROG")" --bench
echo
echo "   On tmpfs the page cache is not mapped huge (shmem_enabled=never): the"
echo "   stock loader's text is on 4 KiB pages, as after a cold read on most"
echo "   kernels; this is the gain of text on 2 MiB pages."
