#!/bin/busybox sh
# hugeld check-kernels: /init of the guest that scripts/check-kernels.sh
# boots under qemu with each kernel.  The initramfs holds busybox (static),
# the loader under test at /opt/hugeld/ld.so, the stock loader and
# libc.so.6 at the host's paths, and in /t the big-code test programs
# (tests/fixtures), bigcheck-interp (PT_INTERP /opt/hugeld/ld.so) and
# probe-mremap (tests/kernels/probe-mremap.c, static).
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
for w in $(cat /proc/cmdline); do
  case $w in hugeld.timeout=*) RUN_TIMEOUT=${w#*=} ;; esac
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
# kernel makes of MADV_HUGEPAGE and MADV_COLLAPSE, the result is the
# stock loader's, and the report says what was asked for.
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
echo "$POOL" > /proc/sys/vm/nr_hugepages

finish
