#!/bin/busybox sh
# hugeld check-kernels: /init of the guest that scripts/check-kernels.sh
# boots under qemu with each kernel.  The initramfs holds busybox (static),
# the loader under test at /opt/hugeld/ld.so, the stock loader and
# libc.so.6 at the host's paths, and in /t the big-code test programs
# (tests/fixtures), bigcheck-interp (PT_INTERP /opt/hugeld/ld.so),
# probe-mremap and probe-collapse (tests/kernels/*.c, static) and
# hugeld-thp (tools/hugeld-thp.c, static).  A second cpio
# archive, appended for each kernel, adds its modules for the ext4
# disk in /kmod (NAME.ko, and "order": the load order); the disk itself
# is /dev/vda (virtio, read-only): bigcheck-shared and libbig.so in /t.
#
# It writes one line per check on the console (ttyS0):
#   @hugeld PASS <check>
#   @hugeld FAIL <check>: <why>
# then "@hugeld DONE" and powers off; the host turns these lines into
# "PASS: kernels-<version>: <check>".  Diagnostics of failed checks
# (stderr, LD_DEBUG=hugepages report, kernel messages) are written on
# the console too, without the @hugeld prefix.
#
# Kernel command line: hugepages=N reserves the pool; hugeld.timeout=S
# bounds each program run (default 120 s).
#
# The expectation depends on what the kernel can do, as probe-mremap
# finds out (not on its version): if it can move a hugetlb mapping with
# mremap (MREMAP_FIXED), the selected objects must be on 2 MiB pages
# (bigcheck --expect); if not, each program must behave exactly as with
# the stock loader (same output, same exit status, all of bigcheck's
# other checks pass), on huge pages or not.  Every check compares with
# the stock loader (/lib64/ld-linux-x86-64.so.2) in the same guest.

/bin/busybox mkdir -p /proc /sys /dev /tmp /usr/bin /usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

T=/t
W=/tmp/w
HUGELD=/opt/hugeld/ld.so
STOCK=/lib64/ld-linux-x86-64.so.2
RUN_TIMEOUT=120
# hugeld.stock=PATH: the stock loader of another machine
# (make check-arm64: /lib/ld-linux-aarch64.so.1).
for w in $(cat /proc/cmdline); do
  case $w in
    hugeld.timeout=*) RUN_TIMEOUT=${w#*=} ;;
    hugeld.stock=*) STOCK=${w#*=} ;;
  esac
done
mkdir -p $W
unset LD_HUGEPAGE_LIBS LD_HUGEPAGE_SEGMENTS LD_DEBUG LD_DEBUG_OUTPUT

say () { echo "@hugeld $*"; }
pass () { say "PASS $1"; }
fail () { say "FAIL $1: $2"; }
oneline () { tr '\n' ' ' | sed 's/  */ /g; s/ $//'; }
meminfo () { sed -n "s/^$1: *\\([0-9]*\\).*/\\1/p" /proc/meminfo; }

finish () {
  say DONE
  sync
  poweroff -f
  echo o > /proc/sysrq-trigger
  sleep 10
}

# _run NAME CMD...: NAME.out, .err, .rc (128 + signal if killed),
# .dbg (LD_DEBUG_OUTPUT files) and .kmsg (kernel messages of the run).
_run () {
  local n=$1; shift
  rm -f $W/$n.*
  dmesg -c > /dev/null 2>&1
  timeout "$RUN_TIMEOUT" "$@" > $W/$n.out 2> $W/$n.err < /dev/null
  echo $? > $W/$n.rc
  cat $W/$n.dbg.* > $W/$n.dbg 2> /dev/null || : > $W/$n.dbg
  dmesg | grep -iE 'segfault|trap|killed|sigbus|bus error|hugetlb|hugepage|general protection|bug|oops|rip:' \
    > $W/$n.kmsg 2> /dev/null
}
# run_stock NAME PROG ARGS: with the stock loader, nothing selected.
run_stock () { local n=$1; shift; _run $n $STOCK "$@"; }
# run_hugeld NAME ENV... CMD...: with LD_DEBUG=hugepages.
run_hugeld () {
  local n=$1; shift
  _run $n env LD_DEBUG=hugepages LD_DEBUG_OUTPUT=$W/$n.dbg "$@"
}

# status RC: "exit N" or "killed by SIGxxx".
status () {
  if [ "$1" -gt 128 ] 2> /dev/null; then
    echo "killed by SIG$(kill -l $(($1 - 128)) 2> /dev/null || echo $(($1 - 128)))"
  else
    echo "exit $1"
  fi
}

# What bigcheck found on 2 MiB pages (its "info: KIND: ... N KiB on
# 2 MiB pages" lines), e.g. "text 22528 KiB, rodata 8192 KiB".
huge_summary () {
  awk '/^info: (text|rodata|relro|data|bss): / {
         k = $2; sub(":", "", k)
         for (i = 2; i < NF; i++)
           if ($i == "KiB" && $(i + 1) == "on" && $(i - 1) + 0 > 0) {
             s = s sep k " " $(i - 1) " KiB"; sep = ", " }
       }
       END { print (s == "" ? "none" : s) }' "$1"
}
# Huge pages the loader reported using (LD_DEBUG=hugepages).
pages_used () {
  sed -n 's/.* \([0-9][0-9]*\) huge pages used.*/\1/p' "$1" \
    | awk '{ s += $1 } END { print s + 0 }'
}

# Diagnostics of a failed run on the console (the host keeps the log).
dump () {
  local n=$1
  echo "--- $n: $(status "$(cat $W/$n.rc)"), stdout: $(head -c 200 $W/$n.out | oneline)"
  echo "--- $n: stderr (last 20 lines)"
  tail -20 $W/$n.err
  echo "--- $n: LD_DEBUG=hugepages (last 20 lines)"
  tail -20 $W/$n.dbg
  echo "--- $n: kernel messages"
  head -20 $W/$n.kmsg
  echo "--- end of $n"
}

# why NAME REF: a one-line reason why run NAME differs from run REF.
why () {
  local n=$1 ref=$2 r f k d
  r="$(status "$(cat $W/$n.rc)") (stock loader: $(status "$(cat $W/$ref.rc)"))"
  if cmp -s $W/$n.out $W/$ref.out; then
    r="$r, same output"
  else
    r="$r, output '$(head -c 80 $W/$n.out | oneline)' instead of '$(head -c 80 $W/$ref.out | oneline)'"
  fi
  f=$(grep -E '^(FAIL|bigcheck|.*error)' $W/$n.err | head -3 | oneline)
  [ -z "$f" ] && f=$(grep -vE '^(ok|info|hugetlb):' $W/$n.err | tail -2 | oneline)
  [ -n "$f" ] && r="$r; $f"
  k=$(grep -iE 'segfault|trap|killed|sigbus|general protection' $W/$n.kmsg | head -2 | sed 's/^\[[ 0-9.]*\] //' | oneline)
  [ -n "$k" ] && r="$r; kernel: $k"
  d=$(grep -E 'fallback|failed|error' $W/$n.dbg | tail -2 | sed 's/^ *[0-9]*: *//' | oneline)
  [ -n "$d" ] && r="$r; LD_DEBUG: $d"
  echo "$r"
}

# ref NAME PROG ARGS: the stock loader's run of PROG, which must pass
# all of bigcheck's checks with nothing on 2 MiB pages.
ref () {
  local n=$1; shift
  run_stock $n "$@" --expect none
  if [ "$(cat $W/$n.rc)" != 0 ] || ! grep -q '^result: ' $W/$n.out; then
    fail "stock loader: $n" "$(why $n $n)"
    dump $n
  fi
}

# check NAME WHAT KINDS REF ENV... CMD...: run CMD with hugeld and
# compare it with the stock run REF.  KINDS are what must be on 2 MiB
# pages (bigcheck --expect): required when the kernel can move hugetlb
# mappings; otherwise only the page sizes of "none" (nothing selected,
# empty pool) are checked, and the rest must just behave like the stock
# loader.  Extra conditions: $NEED_ERR (a line bigcheck's stderr must
# have) and $NEED_DBG (a line the LD_DEBUG report must have);
# $REQUIRE=yes requires KINDS on 2 MiB pages on every kernel.
check () {
  local name=$1 what=$2 kinds=$3 ref=$4 rc huge used bad reason mremap=$MREMAP
  shift 4
  [ "${REQUIRE:-}" = yes ] && mremap=required
  REQUIRE=''
  if [ "$(cat $W/$ref.rc)" != 0 ]; then
    fail "$name: $what" "the stock loader's run failed"
    NEED_ERR='' NEED_DBG=''
    return
  fi
  if [ "$kinds" = none ] || [ "$mremap" != no ]; then
    run_hugeld $name "$@" --expect $kinds
  else
    run_hugeld $name "$@"
  fi
  rc=$(cat $W/$name.rc)
  huge=$(huge_summary $W/$name.err)
  used=$(pages_used $W/$name.dbg)
  bad=
  if [ "$rc" != "$(cat $W/$ref.rc)" ] || ! cmp -s $W/$name.out $W/$ref.out; then
    bad=$(why $name $ref)
  elif [ -n "${NEED_ERR:-}" ] && ! grep -qF "$NEED_ERR" $W/$name.err; then
    bad="no '$NEED_ERR' on stderr"
  elif [ -n "${NEED_DBG:-}" ] && ! grep -qF "$NEED_DBG" $W/$name.dbg; then
    bad="LD_DEBUG=hugepages has no '$NEED_DBG': $(grep -m2 -vE '^ *[0-9]*: *$' $W/$name.dbg | oneline)"
  fi
  NEED_ERR='' NEED_DBG=''
  if [ -n "$bad" ]; then
    fail "$name: $what" "$bad"
    dump $name
    return
  fi
  # The loader's report, for the console log.
  echo "--- $name: LD_DEBUG=hugepages"
  head -30 $W/$name.dbg
  if [ "$kinds" = none ]; then
    pass "$name: $what: nothing on 2 MiB pages, same result as the stock loader"
  elif [ "$mremap" != no ]; then
    pass "$name: $what: $kinds on 2 MiB pages ($huge; $used huge pages used), same result as the stock loader"
  elif [ "$huge" = none ]; then
    reason=$(grep -m1 'fallback to ordinary pages' $W/$name.dbg | sed 's/^[ 0-9]*:[[:space:]]*hugepages: //')
    pass "$name: $what: same result as the stock loader, on ordinary pages (huge pages optional here)${reason:+; LD_DEBUG: $reason}"
  else
    pass "$name: $what: same result as the stock loader, on 2 MiB pages: $huge ($used huge pages used)"
  fi
}

# The kernel and the pool.
POOL=$(meminfo HugePages_Total)
if [ "${POOL:-0}" -ge 48 ]; then
  pass "boot: Linux $(uname -r), $POOL huge pages of $(meminfo Hugepagesize) kB reserved"
else
  fail "boot: Linux $(uname -r)" "only ${POOL:-no} huge pages reserved (hugepages= on the command line)"
fi

# What the kernel can do with hugetlb mappings.
probe=$($T/probe-mremap 2>&1)
case $? in
  0) MREMAP=yes
     pass "probe: $probe: huge pages required for the selected objects" ;;
  1) MREMAP=no
     pass "probe: $probe: huge pages optional, the stock loader's behaviour required" ;;
  *) MREMAP=unknown
     fail "probe" "$probe (huge pages required)" ;;
esac

# The stock loader's runs.
ref ref-shared $T/bigcheck-shared
ref ref-dlopen $T/bigcheck-dlopen --dlopen $T/libbig.so
ref ref-pie $T/bigcheck-pie
ref ref-nopie $T/bigcheck-nopie
ref ref-interp $T/bigcheck-interp

DEF=text,rodata,relro
ALL=text,rodata,relro,data,bss

check unselected "LD_HUGEPAGE_LIBS unset" none ref-shared \
  $HUGELD $T/bigcheck-shared
check shared "libbig.so, a DSO of bigcheck-shared" $DEF ref-shared \
  LD_HUGEPAGE_LIBS=libbig.so $HUGELD $T/bigcheck-shared
check dlopen "libbig.so, dlopened" $DEF ref-dlopen \
  LD_HUGEPAGE_LIBS=libbig.so $HUGELD $T/bigcheck-dlopen --dlopen $T/libbig.so
check pie "PIE program (ld.so PROG)" $DEF ref-pie \
  LD_HUGEPAGE_LIBS=bigcheck-pie $HUGELD $T/bigcheck-pie
check nopie "non-PIE program (ld.so PROG)" $DEF ref-nopie \
  LD_HUGEPAGE_LIBS=bigcheck-nopie $HUGELD $T/bigcheck-nopie
check interp "PIE program with PT_INTERP $HUGELD" $DEF ref-interp \
  LD_HUGEPAGE_LIBS=bigcheck-interp $T/bigcheck-interp
NEED_ERR="ok: fork: child's writes to data and bss are its own"
check fork "libbig.so with its data and bss too, fork: child and parent fine" $ALL ref-shared \
  LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all $HUGELD $T/bigcheck-shared
NEED_ERR="ok: fork: child's writes to data and bss are its own"
check fork-interp "PT_INTERP program with all segments, fork: child and parent fine" $ALL ref-interp \
  LD_HUGEPAGE_LIBS=bigcheck-interp LD_HUGEPAGE_SEGMENTS=all $T/bigcheck-interp

# A memory policy bound to a NUMA node without huge pages (numactl
# --membind): the kernel refuses the reservation or the pages
# themselves; either way ordinary pages, the reason reported, and no
# SIGBUS at the first store to data or bss.
N0=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
N1=/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages
# All segments of libbig.so take 27 huge pages, the fork check's child a
# few more for its copies of the data and bss pages it writes.  The
# guest's memory is its root file system too: compact it first, or a
# 512 MiB node may not have 40 free 2 MiB blocks (6.12 got 43 of 64).
MEMBIND_NEED=40
if [ -w $N1 ]; then
  echo 0 > $N1
  for try in 1 2 3; do
    sync
    echo 3 > /proc/sys/vm/drop_caches 2> /dev/null
    echo 1 > /proc/sys/vm/compact_memory 2> /dev/null
    echo "$POOL" > $N0
    [ "$(cat $N0)" -ge $MEMBIND_NEED ] && break
  done
  if [ "$(cat $N1)" = 0 ] && [ "$(cat $N0)" -ge $MEMBIND_NEED ]; then
    NEED_DBG="fallback to ordinary pages"
    check membind "memory bound to node 1, which has no huge pages, all segments" none ref-shared \
      LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all $T/membind 1 $HUGELD $T/bigcheck-shared
    NEED_DBG="fallback to ordinary pages"
    check membind-interp "memory bound to node 1, PT_INTERP program, all segments" none ref-interp \
      LD_HUGEPAGE_LIBS=bigcheck-interp LD_HUGEPAGE_SEGMENTS=all $T/membind 1 $T/bigcheck-interp
    NEED_ERR="ok: fork: child's writes to data and bss are its own"
    check membind0 "memory bound to node 0, which has them, all segments" $ALL ref-shared \
      LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all $T/membind 0 $HUGELD $T/bigcheck-shared
  else
    fail "membind" "cannot move the pool to node 0 (node 0: $(cat $N0) of the $MEMBIND_NEED needed, node 1: $(cat $N1))"
  fi
else
  fail "membind" "the guest has no NUMA node 1"
fi

# The shared cache (LD_HUGEPAGE_BACKING=shared), made by mkcache (the
# guest has no Python for `hugeld cache add'): required on every kernel.
# Where mremap cannot move hugetlb mappings, ld.so maps the cache file
# straight over the ordinary pages.  No pool page is taken per process.
mkdir -p /dev/hugepages
if mount -t hugetlbfs -o pagesize=2M none /dev/hugepages \
   && cached=$($T/mkcache $T/libbig.so); then
  free0=$(meminfo HugePages_Free)
  NEED_DBG="huge pages (shared)" REQUIRE=yes
  check cache "libbig.so's text and rodata from the shared cache ($cached pages)" text,rodata ref-shared \
    LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=text,rodata LD_HUGEPAGE_BACKING=shared \
    $HUGELD $T/bigcheck-shared
  [ "$(meminfo HugePages_Free)" = "$free0" ] \
    && pass "cache: no huge page taken per process (HugePages_Free $free0)" \
    || fail "cache: no huge page taken per process" "HugePages_Free $free0 -> $(meminfo HugePages_Free)"
  NEED_DBG="huge pages (shared)" REQUIRE=yes
  check cache-dlopen "libbig.so dlopened, from the shared cache" text,rodata ref-dlopen \
    LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=text,rodata LD_HUGEPAGE_BACKING=shared \
    $HUGELD $T/bigcheck-dlopen --dlopen $T/libbig.so
  rm -rf /dev/hugepages/hugeld
  umount /dev/hugepages
else
  fail "cache" "cannot mount hugetlbfs or make the entry: $cached"
fi

# thp (LD_HUGEPAGE_BACKING=thp): nothing from the pool; whatever the
# kernel makes of MADV_HUGEPAGE, the result is the stock loader's, and
# the report says what was asked for.
NEED_DBG="thp: page-cache huge pages asked for"
check thp "libbig.so with LD_HUGEPAGE_BACKING=thp, all segments" none ref-shared \
  LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all LD_HUGEPAGE_BACKING=thp $HUGELD $T/bigcheck-shared
grep -m3 'thp:' $W/thp.dbg
grep -m2 'transparent' $W/thp.err

# An empty pool: ordinary pages, and the report says why.
echo 0 > /proc/sys/vm/nr_hugepages
if [ "$(meminfo HugePages_Total)" = 0 ]; then
  NEED_DBG="fallback to ordinary pages"
  check fallback "empty pool (nr_hugepages=0), every object and segment selected" none ref-shared \
    'LD_HUGEPAGE_LIBS=*' LD_HUGEPAGE_SEGMENTS=all $HUGELD $T/bigcheck-shared
  NEED_DBG="fallback to ordinary pages"
  check fallback-interp "empty pool, PT_INTERP program, all segments" none ref-interp \
    LD_HUGEPAGE_LIBS=bigcheck-interp LD_HUGEPAGE_SEGMENTS=all $T/bigcheck-interp
else
  fail "fallback: empty pool" "cannot set nr_hugepages to 0: $(meminfo HugePages_Total) pages left"
fi

# File THP on ext4 (LD_HUGEPAGE_BACKING=thp), with the pool still empty
# so that the page cache has the memory.  /dev/vda is a read-only ext4
# disk with bigcheck-shared and libbig.so (made by check-kernels.sh);
# its modules are in /kmod (order: load order).  ld.so only marks the
# text MADV_HUGEPAGE (elf/dl-hugepage-thp.c); whether it ends up on the
# page cache's 2 MiB folios depends on the kernel and on what the page
# cache holds already:
#   warm: the file read with read(2) first (cat, readahead off), so
#         the page cache holds single pages, which the start maps as
#         the stock loader does; hugeld-thp --repair (what `hugeld thp
#         repair' runs, between starts) then collapses them
#         (MADV_COLLAPSE, where the kernel collapses file text: 7.2 and
#         later) or drops them and reads them again as 2 MiB folios
#         (where the file system makes them);
#   cold: after drop_caches, so the faults of a MADV_HUGEPAGE mapping
#         read whole 2 MiB folios, where the file system has large
#         folios (ext4 from 6.16 on).
# Each run PASSes if it behaves as the stock loader's, reaches the
# coverage asked of its first start (NEED), and, where the repair says
# it put every range on a 2 MiB folio, the next start has >= 90% of
# the text's whole 2 MiB pages PMD-mapped (bigcheck adds up
# FilePmdMapped of its mappings); elsewhere that is only reported.
E=/mnt/ext4
THP=/sys/kernel/mm/transparent_hugepage
# thp_cov NAME: sets COV (percent) and COVTXT from bigcheck's "info:
# text: START-END (...): ...; N KiB of transparent huge pages" line.
thp_cov () {
  local l s e t n
  l=$(grep -m1 '^info: text: ' $W/$1.err)
  s=${l#info: text: }; s=${s%%-*}
  e=${l#info: text: *-}; e=${e%% *}
  t=$(echo "$l" | sed -n 's/.*; \([0-9]*\) KiB of transparent huge pages.*/\1/p')
  if [ -z "$l" ] || [ -z "$t" ]; then
    COV=0 COVMISS=0 COVTXT="no text report from bigcheck"
    return
  fi
  n=$(( (e >> 21) - ((s + 0x1fffff) >> 21) ))
  [ $n -gt 0 ] || n=1
  COV=$(( t * 100 / (n * 2048) ))
  # Whole 2 MiB pages of the text not PMD-mapped.
  COVMISS=$(( (n * 2048 - t + 2047) / 2048 ))
  COVTXT="$COV% ($t KiB in $n whole 2 MiB pages)"
}
# repair_field KEY: the number KEY of hugeld-thp's first record (the
# file's) in $W/repair.json; the done line's "reasons" has the same keys.
repair_field () { head -1 $W/repair.json | sed -n "s/.*\"$1\": \([0-9][0-9]*\).*/\1/p"; }
# thp_fs NAME WHAT DIR REF [NEED]: libbig.so from the disk mounted on
# DIR with the thp backing, compared with the stock loader's run REF,
# then hugeld-thp --repair of libbig.so and the next start.  NEED: the
# coverage (%) required of the first start (default 0: only reported;
# "some": none at all (no large folios), or all but at most two of the
# text's whole 2 MiB pages: the ranges ld.so's own reads before the
# mapping (the headers, the page the zero fill writes) may have put in
# small folios, as the stock loader's reads do).
thp_fs () {
  local n=$1 what=$2 dir=$3 refn=$4 need=${5:-0} bad= first ranges huge
  run_hugeld $n LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=thp \
    $HUGELD $dir/t/bigcheck-shared --expect none
  thp_cov $n
  first=$COVTXT
  echo "thp-${dir##*/}: $n: first start, text $COVTXT"
  if [ "$(cat $W/$n.rc)" != "$(cat $W/$refn.rc)" ] || ! cmp -s $W/$n.out $W/$refn.out; then
    bad=$(why $n $refn)
  elif ! grep -q ': text \[.*thp: page-cache huge pages asked for (MADV_HUGEPAGE)' $W/$n.dbg; then
    bad="no thp zone for the text: $(grep -m2 -E ': text |thp' $W/$n.dbg | sed 's/^ *[0-9]*: *//' | oneline)"
  elif [ "$need" = some ]; then
    [ "$COV" = 0 ] || [ "$COVMISS" -le 2 ] \
      || bad="some 2 MiB folios came, but only $COVTXT PMD-mapped"
  elif [ "$COV" -lt "$need" ]; then
    bad="a cold start got 2 MiB folios here, but only $COVTXT PMD-mapped"
  fi
  $T/hugeld-thp --repair $dir/t/libbig.so > $W/repair.json 2> $W/repair.err
  echo "thp-${dir##*/}: $n: hugeld-thp --repair: $(oneline < $W/repair.json) $(oneline < $W/repair.err)"
  ranges=$(repair_field ranges) huge=$(repair_field huge)
  run_hugeld $n-next LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=thp \
    $HUGELD $dir/t/bigcheck-shared --expect none
  thp_cov $n-next
  if [ -n "$bad" ]; then
    :
  elif [ "$(cat $W/$n-next.rc)" != "$(cat $W/$refn.rc)" ] || ! cmp -s $W/$n-next.out $W/$refn.out; then
    bad="after the repair: $(why $n-next $refn)"
  elif [ -z "$ranges" ] || [ "$ranges" = 0 ]; then
    bad="hugeld-thp --repair: $(oneline < $W/repair.json) $(oneline < $W/repair.err)"
  elif [ "$huge" = "$ranges" ] && [ "$COV" -lt 90 ]; then
    bad="the repair put all $ranges ranges on 2 MiB folios, but the next start has only $COVTXT PMD-mapped"
  fi
  if [ -n "$bad" ]; then
    fail "$n: $what" "$bad"
    dump $n
  else
    echo "--- $n: LD_DEBUG=hugepages"
    grep -E 'thp|huge pages used' $W/$n.dbg | head -8
    pass "$n: $what: first start text $first PMD-mapped; repair: $huge of $ranges ranges on 2 MiB folios; next start $COVTXT; same result as the stock loader"
  fi
}
thp_ext4 () { thp_fs "$1" "$2" $E ext4-ref; }
ext4_err=
if [ -f /kmod/order ]; then
  for m in $(cat /kmod/order); do
    insmod /kmod/$m.ko > $W/insmod.err 2>&1 || ext4_err="$ext4_err insmod $m: $(tail -1 $W/insmod.err | oneline);"
  done
fi
for i in 1 2 3 4 5 6 7 8 9 10; do
  [ -b /dev/vda ] && break
  sleep 1
done
mkdir -p $E
if [ ! -b /dev/vda ]; then
  fail "thp-ext4" "no /dev/vda (virtio disk):$ext4_err $(dmesg | grep -iE 'virtio|vda|module' | tail -2 | oneline)"
elif ! mount -t ext4 -o ro /dev/vda $E > $W/mount.err 2>&1; then
  fail "thp-ext4" "cannot mount /dev/vda (ext4):$ext4_err $(oneline < $W/mount.err) $(dmesg | grep -iE 'ext4|vda' | tail -2 | oneline)"
else
  thp0=$(sed 's/.*\[\(.*\)\].*/\1/' $THP/enabled)
  echo madvise > $THP/enabled
  echo "thp-ext4: enabled $(cat $THP/enabled) (was $thp0), defrag $(cat $THP/defrag)," \
    "shmem_enabled $(cat $THP/shmem_enabled 2> /dev/null)"
  echo "thp-ext4: $THP: $(ls $THP | oneline)"
  # Warm: read(2) with readahead off makes every folio a single page
  # (with the default window, 8 MiB for this disk on 7.x, kernels whose
  # ext4 has large folios already make some 2 MiB ones while cat reads
  # the file).
  sync
  echo 3 > /proc/sys/vm/drop_caches
  ra=/sys/block/vda/queue/read_ahead_kb
  ra0=$(cat $ra)
  echo 0 > $ra
  cat $E/t/libbig.so > /dev/null
  echo "$ra0" > $ra
  run_stock ext4-ref $E/t/bigcheck-shared --expect none
  if [ "$(cat $W/ext4-ref.rc)" != 0 ] || ! grep -q '^result: ' $W/ext4-ref.out; then
    fail "thp-ext4: stock loader" "$(why ext4-ref ext4-ref)"
    dump ext4-ref
  else
    thp_cov ext4-ref
    echo "thp-ext4: ext4-ref: stock loader, text $COVTXT"
    thp_ext4 thp-ext4-warm "libbig.so on ext4, LD_HUGEPAGE_BACKING=thp, page cache of single pages (cat) first"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    thp_ext4 thp-ext4-cold "libbig.so on ext4, LD_HUGEPAGE_BACKING=thp, page cache dropped first"
    # For the record only (bench/results/kernels-7x.md): the stock
    # loader after a cat with the default readahead, and from a cold
    # page cache with THP "always".
    sync
    echo 3 > /proc/sys/vm/drop_caches
    cat $E/t/libbig.so > /dev/null
    run_stock ext4-stock-cat $E/t/bigcheck-shared --expect none
    thp_cov ext4-stock-cat
    echo "thp-ext4: ext4-stock-cat: stock loader after cat (read_ahead_kb $ra0), text $COVTXT"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    echo always > $THP/enabled
    run_stock ext4-stock-always $E/t/bigcheck-shared --expect none
    thp_cov ext4-stock-always
    echo "thp-ext4: ext4-stock-always: stock loader, page cache dropped, THP always, text $COVTXT"
    echo madvise > $THP/enabled
    # MADV_COLLAPSE's own errors (tests/kernels/probe-collapse.c).
    sync
    echo 3 > /proc/sys/vm/drop_caches
    echo 0 > $ra
    cat $E/t/libbig.so > /dev/null
    echo "$ra0" > $ra
    pc=$($T/probe-collapse $E/t/libbig.so 2>&1)
    echo "thp-ext4: probe-collapse warm: $pc"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    echo "thp-ext4: probe-collapse cold: $($T/probe-collapse $E/t/libbig.so 2>&1)"
    # A running process that maps the text in small folios (cat first,
    # then it reads every page: a service started after a backup): the
    # timer's repair collapses them under it where the kernel collapses
    # file text (probe-collapse's pages "ok": 7.2 and later), and the
    # process's next reads map them with PMDs; elsewhere the ranges are
    # held by it and left as they are.
    sync
    echo 3 > /proc/sys/vm/drop_caches
    echo 0 > $ra
    cat $E/t/libbig.so > /dev/null
    echo "$ra0" > $ra
    rm -f $W/held.in; mkfifo $W/held.in
    $T/mapper $E/t/libbig.so all < $W/held.in > $W/held.out 2>&1 &
    hp=$!
    exec 7> $W/held.in
    for i in $(seq 100); do grep -q ready $W/held.out && break; sleep 0.1; done
    echo >&7
    for i in $(seq 50); do grep -q '^pmd' $W/held.out && break; sleep 0.1; done
    pmd0=$(sed -n 's/^pmd //p' $W/held.out | tail -1)
    $T/hugeld-thp --repair $E/t/libbig.so > $W/repair.json 2> $W/repair.err
    collapsed=$(repair_field collapsed) held=$(repair_field held) ranges=$(repair_field ranges)
    echo >&7
    for i in $(seq 50); do [ "$(grep -c '^pmd' $W/held.out)" -ge 2 ] && break; sleep 0.1; done
    pmd1=$(sed -n 's/^pmd //p' $W/held.out | tail -1)
    exec 7>&-
    wait $hp
    echo "thp-ext4: held by a running process: repair $(head -1 $W/repair.json | cut -c1-240); its PMD-mapped kB ${pmd0:-?} -> ${pmd1:-?}"
    if echo "$pc" | grep -q 'each page: [1-9][0-9]* ok'; then
      if [ "${collapsed:-0}" -gt 0 ] && [ "${pmd1:-0}" -ge $(( collapsed * 2048 * 9 / 10 )) ]; then
        pass "thp-held-collapse: a running process's text in small folios: the repair collapsed $collapsed of $ranges ranges under it (file MADV_COLLAPSE); its PMD-mapped kB ${pmd0} -> ${pmd1}"
      else
        fail "thp-held-collapse" "this kernel collapses file text, but the repair collapsed ${collapsed:-?} of ${ranges:-?} (held ${held:-?}); PMD-mapped kB ${pmd0:-?} -> ${pmd1:-?}"
      fi
    elif [ "${held:-0}" -gt 0 ] && [ "${collapsed:-0}" = 0 ]; then
      pass "thp-held-collapse: a running process's text in small folios: no file MADV_COLLAPSE here, $held of $ranges ranges left held by it (nothing dropped under it)"
    else
      fail "thp-held-collapse" "no file MADV_COLLAPSE here, but held ${held:-?}, collapsed ${collapsed:-?} of ${ranges:-?}"
    fi
  fi
  echo "$thp0" > $THP/enabled
  umount $E
fi

# The same on XFS (/dev/vdb, read-only, made by check-kernels.sh where
# the host could): XFS has large folios from Linux 5.18 on.  Cold
# first: a fault in a MADV_HUGEPAGE mapping reads a 2 MiB folio where
# the kernel makes them on XFS, and then the text must be huge but for
# at most two 2 MiB pages that ld.so's own reads before the mapping may
# have put in small folios (Linux 6.1: 8 of 10, 6.12: 9 of 10).  Then after a cat (small folios): the first start
# maps them as the stock loader does, and where the repair puts every
# range on a 2 MiB folio (drop and read again, or MADV_COLLAPSE), the
# next start must have >= 90%.  The stock loader cold with THP
# "always" is only recorded.
X=/mnt/xfs
mkdir -p $X
if [ ! -b /dev/vdb ]; then
  echo "thp-xfs: no /dev/vdb (the host made no XFS image): XFS not checked"
elif ! mount -t xfs -o ro /dev/vdb $X > $W/mount-xfs.err 2>&1; then
  fail "thp-xfs" "cannot mount /dev/vdb (xfs):$ext4_err $(oneline < $W/mount-xfs.err) $(dmesg | grep -iE 'xfs|vdb' | tail -2 | oneline)"
else
  thp0=$(sed 's/.*\[\(.*\)\].*/\1/' $THP/enabled)
  echo madvise > $THP/enabled
  sync
  echo 3 > /proc/sys/vm/drop_caches
  run_stock xfs-ref $X/t/bigcheck-shared --expect none
  if [ "$(cat $W/xfs-ref.rc)" != 0 ] || ! grep -q '^result: ' $W/xfs-ref.out; then
    fail "thp-xfs: stock loader" "$(why xfs-ref xfs-ref)"
    dump xfs-ref
  else
    thp_cov xfs-ref
    echo "thp-xfs: xfs-ref: stock loader, cold, text $COVTXT"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    thp_fs thp-xfs-cold "libbig.so on XFS, LD_HUGEPAGE_BACKING=thp, page cache dropped first" $X xfs-ref some
    echo "thp-xfs: /proc/vmstat after the cold run: $(grep -E '^thp_file' /proc/vmstat | oneline)"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    ra=/sys/block/vdb/queue/read_ahead_kb
    ra0=$(cat $ra)
    echo 0 > $ra
    cat $X/t/libbig.so > /dev/null
    echo "$ra0" > $ra
    thp_fs thp-xfs-warm "libbig.so on XFS, LD_HUGEPAGE_BACKING=thp, page cache of single pages (cat) first" $X xfs-ref
    sync
    echo 3 > /proc/sys/vm/drop_caches
    echo always > $THP/enabled
    run_stock xfs-stock-always $X/t/bigcheck-shared --expect none
    thp_cov xfs-stock-always
    echo "thp-xfs: xfs-stock-always: stock loader, page cache dropped, THP always, text $COVTXT"
  fi
  echo "$thp0" > $THP/enabled
  umount $X
fi

echo "$POOL" > /proc/sys/vm/nr_hugepages

# The checks of one machine only (make check-arm64: tests/arm64/init-arm64.sh,
# BTI), with the functions above.
[ -f /t/init-more.sh ] && . /t/init-more.sh

finish
