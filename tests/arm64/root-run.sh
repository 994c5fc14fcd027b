#!/bin/bash
# hugeld check-arm64 (ARM64_ROOT=1): the run in the debootstrapped
# Debian 12 arm64 root, as its first program (tests/arm64/root-init.sh;
# the root is a copy-on-write snapshot, /mnt/hugeld the run's disk with
# the arm64 .deb, this script, atexit-smaps and coverage.py):
#   - the .deb installs (dpkg -i);
#   - real programs (python3, perl, sqlite3, clang-14) give the stock
#     loader's output and exit status with every object selected
#     (LD_HUGEPAGE_LIBS='*'), run by /opt/hugeld/ld.so with each backing
#     (shared: after hugeld cache add of their libraries);
#   - clang's libraries' text (libLLVM-14, libclang-cpp) on 2 MiB and
#     64 KiB pages, from the kernel's smaps at clang's exit, per backing
#     (private and the default shared,private,thp must reach 98%; shared
#     alone has no 64 KiB pages yet, and thp on ext4 before 6.16 none);
#   - with ARM64_GLIBC=1, glibc's own tests (tests/arm64/glibc-run.sh);
#   - hugeld as the system loader (hugeld-system-loader install): the
#     same programs run directly, with every object selected, and the
#     uninstall gives the distribution's loader back.
# One "@hugeld PASS|FAIL ..." line per check on the console, then DONE.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
mount -t proc proc /proc 2> /dev/null
mount -t sysfs sysfs /sys 2> /dev/null
mount -t devtmpfs devtmpfs /dev 2> /dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run 2> /dev/null
exec < /dev/console > /dev/console 2>&1
M=/mnt/hugeld
W=/tmp/w
mkdir -p $W
HUGELD=/opt/hugeld/ld.so
say () { echo "@hugeld $*"; }
pass () { say "PASS $1"; }
fail () { say "FAIL $1: $2"; }
oneline () { tr '\n' ' ' | sed 's/  */ /g; s/ $//' | cut -c1-300; }
finish () {
  say DONE
  sync
  echo o > /proc/sysrq-trigger
  sleep 10
}

echo "root: $(cat /etc/debian_version), Linux $(uname -r), libc6 $(dpkg-query -W -f '${Version}' libc6)"

# 1. The package.
if dpkg -i $M/hugeld.deb > $W/dpkg.log 2>&1 && [ -x $HUGELD ] && $HUGELD --version > /dev/null; then
  pass "deb: dpkg -i $(dpkg-query -W -f '${Package} ${Version} ${Architecture}' hugeld): $($HUGELD --version | head -1)"
else
  fail "deb: dpkg -i" "$(tail -3 $W/dpkg.log | oneline)"
  finish
fi

# The programs: NAME and command line (the same input every time).
printf 'int f (int x) { return x * 3 + 1; }\nint g (int *a, int n) { int s = 0; for (int i = 0; i < n; ++i) s += f (a[i]); return s; }\n' > $W/hello.c
# The programs, after a prefix ($@: nothing, or env VAR=... and the
# loader), with the same input every time.
p_python3 () {
  timeout 600 "$@" /usr/bin/python3 -c 'import json, sqlite3, hashlib, zlib
print(json.dumps(sorted({i: i * i for i in range(50)}.items())[:5]), hashlib.sha256(b"x" * 100000).hexdigest(), zlib.crc32(b"hugeld" * 1000), sqlite3.sqlite_version)'
}
p_perl () {
  timeout 600 "$@" /usr/bin/perl -e 'my %h; $h{$_} = $_ ** 2 for 1 .. 1000; print join(",", map { $h{$_} } 1 .. 10), "\n"'
}
p_sqlite3 () {
  timeout 600 "$@" /usr/bin/sqlite3 :memory: 'create table t(a); insert into t values (1), (2), (3); select sum(a), group_concat(a) from t;'
}
p_clang () {
  timeout 600 "$@" /usr/lib/llvm-14/bin/clang -O2 -S -o - hello.c
}
progs="python3 perl sqlite3 clang"
# run NAME PROG PREFIX...: NAME.out (stdout and the exit status), NAME.err.
run () {
  local n=$1 p=$2
  shift 2
  ( cd $W && p_$p "$@" > $W/$n.out 2> $W/$n.err < /dev/null; echo "exit $?" >> $W/$n.out )
}
for p in $progs; do run ref-$p $p; done

# 2. Every object selected, run by ld.so, each backing.  The shared
# cache: hugeld cache add of what clang and python3 load.
mkdir -p /dev/hugepages
mount -t hugetlbfs -o pagesize=2M none /dev/hugepages
LLVM=/usr/lib/aarch64-linux-gnu/libLLVM-14.so.1
CLANGCPP=/usr/lib/aarch64-linux-gnu/libclang-cpp.so.14
hugeld cache add $LLVM $CLANGCPP /usr/bin/python3.11 > $W/cache.log 2>&1 \
  && echo "cache: $(tail -2 $W/cache.log | oneline)" \
  || fail "cache add" "$(tail -3 $W/cache.log | oneline)"
for b in private shared thp default; do
  # default: shared,private,thp (2 MiB pages from the cache, the ends
  # on private 64 KiB pages).
  bk=$b
  [ $b = default ] && bk=shared,private,thp
  for p in $progs; do
    run $b-$p $p env "LD_HUGEPAGE_LIBS=*" LD_HUGEPAGE_BACKING=$bk $HUGELD
    if cmp -s $W/$b-$p.out $W/ref-$p.out; then
      pass "$b-$p: $p with every object selected, backing $b, run by ld.so: the stock loader's output and exit status ($(tail -1 $W/ref-$p.out))"
    else
      fail "$b-$p: $p, backing $b" "'$(oneline < $W/$b-$p.out)' instead of '$(oneline < $W/ref-$p.out)'; $(tail -2 $W/$b-$p.err | oneline)"
    fi
  done
  # clang's libraries on huge pages (text only, so that the object's
  # first segment stays mapped from its file).
  ( cd $W && LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=text LD_HUGEPAGE_BACKING=$bk \
      $M/atexit-smaps $W/smaps-$b $HUGELD /usr/lib/llvm-14/bin/clang -O2 -S -o /dev/null hello.c )
  python3 $M/coverage.py $W/smaps-$b $LLVM $CLANGCPP > $W/cov-$b 2>&1
  cov=$(sed -n 's/.*; huge \([0-9]*\)%$/\1/p' $W/cov-$b | sort -n | head -1)
  if [ -z "$cov" ]; then
    fail "$b-clang-text: clang's libraries' text" "$(oneline < $W/cov-$b)"
  elif { [ $b = private ] || [ $b = default ]; } && [ "$cov" -lt 98 ]; then
    fail "$b-clang-text: clang's libraries' text on 2 MiB and 64 KiB pages, backing $b" "$(oneline < $W/cov-$b)"
  else
    pass "$b-clang-text: clang's libraries' text on huge pages, backing $b: $(oneline < $W/cov-$b)"
  fi
done
rm -rf /dev/hugepages/hugeld
umount /dev/hugepages

# hugeld status counts each page size: python3 with its text on private
# 2 MiB and 64 KiB pages, kept running; status's counts must be the
# kernel's (smaps: Private_Hugetlb by KernelPageSize).
CMD=$(command -v hugeld || echo /opt/hugeld/bin/hugeld)
mkfifo $W/py.in
LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=text LD_HUGEPAGE_BACKING=private \
  $HUGELD /usr/bin/python3 -c 'import sys; print("ready", flush=True); sys.stdin.read()' \
  < $W/py.in > $W/py.out 2>&1 &
pypid=$!
exec 7> $W/py.in
for i in $(seq 100); do grep -q ready $W/py.out && break; sleep 0.2; done
smaps_pages () {
  awk -v kb=$2 '/^[0-9a-f]+-[0-9a-f]+ /{k=0} /^KernelPageSize:/{k=$2}
    /^(Private|Shared)_Hugetlb:/{if (k == kb) s += $2} END{print s / kb}' /proc/$1/smaps
}
k64=$(smaps_pages $pypid 64); k2m=$(smaps_pages $pypid 2048)
timeout 120 $CMD status $pypid > $W/status.txt 2>&1
head1=$(head -1 $W/status.txt)
s64=$(echo "$head1" | grep -o '[0-9]* huge pages\? of 64 KiB' | cut -d' ' -f1)
s2m=$(echo "$head1" | sed -n 's/^process [0-9]* ([^)]*): \([0-9]*\) huge page.*/\1/p')
exec 7>&-
wait $pypid
if [ "${k64:-0}" -gt 0 ] && [ "$s64" = "$k64" ] && [ "$s2m" = "$k2m" ]; then
  pass "status-sizes: hugeld status counts python3's pages by size as smaps does: $k2m of 2 MiB, $k64 of 64 KiB ($head1)"
else
  fail "status-sizes: hugeld status by page size" "smaps $k2m of 2 MiB, ${k64:-0} of 64 KiB; status: $(head -3 $W/status.txt | oneline)"
fi

# hugeld plan says the 64 KiB pages ld.so gave python3's text ends.
timeout 300 $CMD plan --libs '*' --segments text --backing private /usr/bin/python3 > $W/plan.txt 2>&1
p64=$(sed -n 's/.*(+\([0-9]*\) of 64 KiB).*/\1/p' $W/plan.txt | awk '{s += $1} END {print s + 0}')
if [ "${k64:-0}" -gt 0 ] && [ "$p64" = "$k64" ]; then
  pass "plan-sizes: hugeld plan gives python3's text $p64 pages of 64 KiB, as ld.so did ($(grep -m1 'of 64 KiB' $W/plan.txt | oneline))"
else
  fail "plan-sizes: hugeld plan's 64 KiB pages" "plan $p64, ld.so ${k64:-0}: $(grep -m3 'python3\|64 KiB\|hugeld:' $W/plan.txt | oneline)"
fi

# 3. glibc's own tests (ARM64_GLIBC=1): the cross-built tree on
# /dev/vdc, mounted where it was built.
if [ -b /dev/vdc ] && [ -f $M/glibc-top ]; then
  top=$(cat $M/glibc-top)
  mkdir -p $top
  if mount -t ext4 /dev/vdc $top; then
    . $M/glibc-run.sh
    run_glibc_tests $M/glibc-tests.list $top/arm64/obj
    umount $top
  else
    fail "glibc-tests" "cannot mount /dev/vdc"
  fi
fi

# 4. hugeld as the system loader.
if /opt/hugeld/libexec/hugeld-system-loader install > $W/sys.log 2>&1 < /dev/null; then
  pass "system-loader: install: $(tail -1 $W/sys.log | oneline)"
  for p in $progs; do
    run sys-$p $p env "LD_HUGEPAGE_LIBS=*"
    if cmp -s $W/sys-$p.out $W/ref-$p.out; then
      pass "sys-$p: $p run directly, hugeld the system loader, every object selected: the stock loader's output"
    else
      fail "sys-$p: $p with hugeld the system loader" "'$(oneline < $W/sys-$p.out)' instead of '$(oneline < $W/ref-$p.out)'; $(tail -2 $W/sys-$p.err | oneline)"
    fi
  done
  if /opt/hugeld/libexec/hugeld-system-loader uninstall > $W/sys2.log 2>&1; then
    pass "system-loader: uninstall: the distribution's loader back"
  else
    fail "system-loader: uninstall" "$(tail -3 $W/sys2.log | oneline)"
  fi
else
  fail "system-loader: install" "exit $?: $(tail -3 $W/sys.log | oneline)"
  tail -20 $W/sys.log
fi
finish
