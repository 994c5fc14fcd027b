# hugeld check-arm64: the arm64 guest's own checks, sourced by
# tests/kernels/init.sh (as /t/init-more.sh) after its own, with its
# functions (run_stock, run_hugeld, why, dump, pass, fail, ...).
#
# The BTI test (tests/arm64/bti*.c): bti-main calls a function whose
# first instruction is the landing pad "bti c", then one whose first is
# a nop, both through a pointer, both in code of a BTI-marked object on
# whole 2 MiB pages: libbti.so ("lib") or the program itself ("main").
# Where the processor has BTI, glibc maps that code with PROT_BTI and
# the second call is killed by SIGILL.  Under hugeld, with each
# backing, the program must behave exactly as under the stock loader
# (the same output and SIGILL), and its code must be where the backing
# puts it: on 2 MiB pages for private and shared (the KernelPageSize of
# the mapping, from /proc/self/smaps), mapped from the file for thp (the
# initramfs has no file THP); the report of smaps' VmFlags ("bt") is
# printed too.  Three ways to run it: ld.so run as a command loading
# the library (dl-load.c), the program run by ld.so as a command
# (dl-load.c), and the program with PT_INTERP /opt/hugeld/ld.so, which
# the kernel maps (rtld.c).

# nolp_info NAME: the KernelPageSize (kB) and PROT_BTI of bti-main's
# report on NAME.err.
nolp_kps () { sed -n 's/^info: nolp at .*: KernelPageSize \([0-9-]*\) kB.*/\1/p' $W/$1.err; }
nolp_bti () { sed -n 's/^info: nolp at .*, PROT_BTI \([a-z]*\),.*/\1/p' $W/$1.err; }

# bti_check NAME WHAT REF KPS ENV... CMD...: run with hugeld, compare
# with the stock run REF; the nolp function must be on pages of KPS kB
# (one of the words of KPS).
bti_check () {
  local n=$1 what=$2 ref=$3 kps=$4 bad= got k ok=
  shift 4
  run_hugeld $n "$@"
  got=$(nolp_kps $n)
  for k in $kps; do [ "$got" = "$k" ] && ok=1; done
  if [ "$(cat $W/$ref.rc)" != 132 ]; then
    bad="the stock loader's run was not killed by SIGILL"
  elif [ "$(cat $W/$n.rc)" != "$(cat $W/$ref.rc)" ] || ! cmp -s $W/$n.out $W/$ref.out; then
    bad=$(why $n $ref)
  elif [ -z "$ok" ]; then
    bad="the code is on pages of ${got:-?} kB, not $kps kB: $(grep -m1 '^info: nolp' $W/$n.err); LD_DEBUG: $(grep -E 'libbti|bti-main' $W/$n.dbg | grep -E ' text |fallback' | head -3 | sed 's/^ *[0-9]*: *//' | oneline)"
  fi
  if [ -n "$bad" ]; then
    fail "$n: $what" "$bad"
    dump $n
  else
    echo "--- $n: LD_DEBUG=hugepages"
    grep -E 'text|BTI' $W/$n.dbg | head -8
    pass "$n: $what: $(status "$(cat $W/$n.rc)") as under the stock loader, the code on $got kB pages, PROT_BTI in smaps: $(nolp_bti $n)"
  fi
}

if grep -qw bti /proc/cpuinfo; then
  pass "bti: the processor has BTI ($(grep -m1 '^Features' /proc/cpuinfo | tr -s ' ' | cut -c1-200))"
else
  fail "bti" "the guest's processor has no BTI (qemu -cpu max should give it)"
fi

# The stock loader: SIGILL at the call without a landing pad.
run_stock bti-ref-lib $T/bti-main lib
run_stock bti-ref-lib-tail $T/bti-main lib-tail
run_stock bti-ref-main $T/bti-main main
_run bti-ref-interp $T/bti-main main
_run bti-ref-interp-tail $T/bti-main main-tail
for r in bti-ref-lib bti-ref-lib-tail bti-ref-main bti-ref-interp bti-ref-interp-tail; do
  if [ "$(cat $W/$r.rc)" = 132 ] && grep -q '^landing pad: 7$' $W/$r.out \
     && ! grep -q '^no landing pad' $W/$r.out; then
    pass "$r: stock loader: the landing pad returns, the other call is killed by SIGILL (PROT_BTI in smaps: $(nolp_bti $r))"
  else
    fail "$r: stock loader" "$(status "$(cat $W/$r.rc)"), output '$(oneline < $W/$r.out)', not SIGILL after 'landing pad: 7'"
    dump $r
  fi
done

# The shared cache for libbti.so and bti-main (mkcache, as init.sh's
# cache check makes it).
mkdir -p /dev/hugepages
cache_ok=
if mount -t hugetlbfs -o pagesize=2M none /dev/hugepages \
   && cached=$($T/mkcache $T/libbti.so) && cached2=$($T/mkcache $T/bti-main); then
  cache_ok=yes
  echo "bti: shared cache: libbti.so $cached pages, bti-main $cached2 pages"
else
  fail "bti: shared cache" "cannot mount hugetlbfs or make the entries: $cached ${cached2:-}"
fi

for b in private shared thp; do
  [ $b = shared ] && [ -z "$cache_ok" ] && continue
  kps=2048
  [ $b = thp ] && kps=4
  bti_check bti-$b-lib "libbti.so (dlopen path), backing $b" bti-ref-lib $kps \
    LD_HUGEPAGE_LIBS=libbti.so LD_HUGEPAGE_BACKING=$b $HUGELD $T/bti-main lib
  bti_check bti-$b-main "bti-main run by ld.so, backing $b" bti-ref-main $kps \
    LD_HUGEPAGE_LIBS=bti-main LD_HUGEPAGE_BACKING=$b $HUGELD $T/bti-main main
  # The kernel maps bti-main-interp where it likes: the shared cache's
  # entry is for bti-main's file, so only private and thp.
  [ $b = shared ] || bti_check bti-$b-interp "bti-main-interp (PT_INTERP hugeld, kernel-mapped), backing $b" \
    bti-ref-interp $kps LD_HUGEPAGE_LIBS=bti-main-interp LD_HUGEPAGE_BACKING=$b $T/bti-main-interp main
  # The end of the text: on 64 KiB pages with the private backing (ld.so
  # places the library at its file phase; the kernel places the
  # program where it likes, so its end may be on a 2 MiB page), on the
  # ordinary ones with shared and thp (no 64 KiB cache or thp yet).
  tk=4
  [ $b = private ] && tk=64
  bti_check bti-$b-lib-tail "libbti.so's last partial 2 MiB, backing $b" bti-ref-lib-tail $tk \
    LD_HUGEPAGE_LIBS=libbti.so LD_HUGEPAGE_BACKING=$b $HUGELD $T/bti-main lib-tail
  [ $b = private ] && tk="64 2048"
  [ $b = shared ] || bti_check bti-$b-interp-tail "bti-main-interp's last partial 2 MiB, backing $b" \
    bti-ref-interp-tail "$tk" LD_HUGEPAGE_LIBS=bti-main-interp LD_HUGEPAGE_BACKING=$b $T/bti-main-interp main-tail
done
if [ -n "$cache_ok" ]; then
  rm -rf /dev/hugepages/hugeld
  umount /dev/hugepages
fi

# 64 KiB pages (dl-hugepage-cont.c): the 64 KiB pool (hugepagesz=64K
# hugepages=N on the command line), then how much of libbti.so's text
# (5.4 MiB, two whole 2 MiB pages) each backing puts on 2 MiB and on
# 64 KiB pages: with the private backing at least 98% of it on the two
# together, some of it on 64 KiB pages; the others are reported.
P64=/sys/kernel/mm/hugepages/hugepages-64kB
if [ -r $P64/nr_hugepages ] && [ "$(cat $P64/nr_hugepages)" -gt 0 ]; then
  pass "pool64: $(cat $P64/nr_hugepages) huge pages of 64 kB reserved ($(cat $P64/free_hugepages) free)"
else
  fail "pool64" "no 64 kB huge pages: $(cat $P64/nr_hugepages 2> /dev/null || echo "no $P64")"
fi
# cover NAME OBJ: COVER, the share (%) of OBJ's text on 2 MiB and 64 KiB
# pages, from bti-main's sizes line on NAME.out; SIZES, the line.
cover () {
  local l total two sf
  l=$(grep "^sizes $2:" $W/$1.out)
  SIZES=${l#sizes }
  total=$(echo "$l" | sed -n 's/^sizes [^:]*: \([0-9]*\) KiB:.*/\1/p')
  two=$(echo "$l" | grep -o '[0-9]* KiB on 2048 kB' | cut -d' ' -f1)
  sf=$(echo "$l" | grep -o '[0-9]* KiB on 64 kB' | cut -d' ' -f1)
  SF=${sf:-0}
  COVER=$(( ( ${two:-0} + SF ) * 100 / ${total:-1} ))
}
run_stock sizes-ref $T/bti-main sizes libbti.so
cover sizes-ref libbti.so
echo "sizes: stock loader: $SIZES"
for b in private shared thp; do
  [ $b = shared ] && [ -z "$cache_ok" ] && continue
  [ $b = shared ] && mount -t hugetlbfs -o pagesize=2M none /dev/hugepages && $T/mkcache $T/libbti.so > /dev/null
  free64=$(cat $P64/free_hugepages 2> /dev/null)
  run_hugeld sizes-$b LD_HUGEPAGE_LIBS=libbti.so LD_HUGEPAGE_BACKING=$b $HUGELD $T/bti-main sizes libbti.so
  [ $b = shared ] && { rm -rf /dev/hugepages/hugeld; umount /dev/hugepages; }
  cover sizes-$b libbti.so
  if [ "$(cat $W/sizes-$b.rc)" != 0 ]; then
    fail "sizes-$b: libbti.so, backing $b" "$(why sizes-$b sizes-ref)"
    dump sizes-$b
  elif [ $b = private ] && { [ "$COVER" -lt 98 ] || [ "$SF" = 0 ]; }; then
    fail "sizes-$b: libbti.so's text on 2 MiB and 64 KiB pages, backing $b" "only $COVER%: $SIZES; LD_DEBUG: $(grep -E '64 KiB' $W/sizes-$b.dbg | head -3 | sed 's/^ *[0-9]*: *//' | oneline)"
    dump sizes-$b
  else
    echo "--- sizes-$b: LD_DEBUG=hugepages"
    grep -E 'text|used' $W/sizes-$b.dbg | head -10
    pass "sizes-$b: libbti.so's text on 2 MiB and 64 KiB pages, backing $b: $COVER% ($SIZES; 64 kB pool free before: $free64)"
  fi
done
# An empty 64 KiB pool: the ends stay on ordinary pages, the report
# says why, the rest is as before.
if [ -w $P64/nr_hugepages ]; then
  n64=$(cat $P64/nr_hugepages)
  echo 0 > $P64/nr_hugepages
  NEED_DBG="not 64 KiB ones"
  run_hugeld sizes-nopool64 LD_HUGEPAGE_LIBS=libbti.so LD_HUGEPAGE_BACKING=private $HUGELD $T/bti-main sizes libbti.so
  cover sizes-nopool64 libbti.so
  if [ "$(cat $W/sizes-nopool64.rc)" = 0 ] && [ "$SF" = 0 ] && grep -q 'not 64 KiB ones' $W/sizes-nopool64.dbg; then
    pass "sizes-nopool64: empty 64 kB pool: the ends on ordinary pages, $COVER% on 2 MiB pages ($SIZES); LD_DEBUG: $(grep -m1 'not 64 KiB ones' $W/sizes-nopool64.dbg | sed 's/^ *[0-9]*: *//')"
  else
    fail "sizes-nopool64: empty 64 kB pool" "$(status "$(cat $W/sizes-nopool64.rc)"), $SIZES"
    dump sizes-nopool64
  fi
  NEED_DBG=
  echo "$n64" > $P64/nr_hugepages
fi
# An empty 2 MiB pool: the next size, the whole text on 64 KiB pages
# (at least 98% of it), the report says the 2 MiB zones went there.
P2M=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ -w $P2M/nr_hugepages ] && [ -r $P64/free_hugepages ]; then
  n2m=$(cat $P2M/nr_hugepages)
  echo 0 > $P2M/nr_hugepages
  run_hugeld sizes-nopool2m LD_HUGEPAGE_LIBS=libbti.so LD_HUGEPAGE_BACKING=private $HUGELD $T/bti-main sizes libbti.so
  cover sizes-nopool2m libbti.so
  total=$(echo "$SIZES" | sed -n 's/^[^:]*: \([0-9]*\) KiB:.*/\1/p')
  if [ "$(cat $W/sizes-nopool2m.rc)" = 0 ] && [ "$COVER" -ge 98 ] \
       && [ $(( SF * 100 / ${total:-1} )) -ge 98 ]; then
    pass "sizes-nopool2m: empty 2 MiB pool: $COVER% of the text on 64 KiB pages instead ($SIZES); LD_DEBUG: $(grep -m1 'huge pages of 64 KiB' $W/sizes-nopool2m.dbg | sed 's/^ *[0-9]*: *//')"
  else
    fail "sizes-nopool2m: empty 2 MiB pool: the text on 64 KiB pages" "$(status "$(cat $W/sizes-nopool2m.rc)"), $COVER%: $SIZES; LD_DEBUG: $(grep -E '64 KiB|pool' $W/sizes-nopool2m.dbg | head -3 | sed 's/^ *[0-9]*: *//' | oneline)"
    dump sizes-nopool2m
  fi
  echo "$n2m" > $P2M/nr_hugepages
fi
