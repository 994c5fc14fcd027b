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
# with the stock run REF; the nolp function must be on pages of KPS kB.
bti_check () {
  local n=$1 what=$2 ref=$3 kps=$4 bad= got
  shift 4
  run_hugeld $n "$@"
  got=$(nolp_kps $n)
  if [ "$(cat $W/$n.rc)" != "$(cat $W/$ref.rc)" ] || ! cmp -s $W/$n.out $W/$ref.out; then
    bad=$(why $n $ref)
  elif [ "$got" != "$kps" ]; then
    bad="the code is on pages of ${got:-?} kB, not $kps kB: $(grep -m1 '^info: nolp' $W/$n.err); LD_DEBUG: $(grep -E 'libbti|bti-main' $W/$n.dbg | grep -E ' text |fallback' | head -3 | sed 's/^ *[0-9]*: *//' | oneline)"
  fi
  if [ -n "$bad" ]; then
    fail "$n: $what" "$bad"
    dump $n
  else
    echo "--- $n: LD_DEBUG=hugepages"
    grep -E 'text|BTI' $W/$n.dbg | head -8
    pass "$n: $what: $(status "$(cat $W/$n.rc)") as under the stock loader, the code on $kps kB pages, PROT_BTI in smaps: $(nolp_bti $n)"
  fi
}

if grep -qw bti /proc/cpuinfo; then
  pass "bti: the processor has BTI ($(grep -m1 '^Features' /proc/cpuinfo | tr -s ' ' | cut -c1-200))"
else
  fail "bti" "the guest's processor has no BTI (qemu -cpu max should give it)"
fi

# The stock loader: SIGILL at the call without a landing pad.
run_stock bti-ref-lib $T/bti-main lib
run_stock bti-ref-main $T/bti-main main
_run bti-ref-interp $T/bti-main main
for r in bti-ref-lib bti-ref-main bti-ref-interp; do
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
done
if [ -n "$cache_ok" ]; then
  rm -rf /dev/hugepages/hugeld
  umount /dev/hugepages
fi
