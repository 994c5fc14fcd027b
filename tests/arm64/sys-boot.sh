#!/bin/bash
# hugeld check-arm64: the second boot (tests/arm64/sys-install.sh made
# hugeld the system loader and wrote /etc/hugeld.conf "libs *"): this
# script is PID 1, and bash, which runs it, was loaded by hugeld.  The
# programs must give the stock loader's results of the first boot with
# every object selected by the policy file, no variable set; then
# hugeld is taken out again and the loader is the distribution's.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
mount -t proc proc /proc; mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null; mount -t tmpfs tmpfs /run
exec < /dev/console > /dev/console 2>&1
M=/mnt/hugeld
say () { echo "@hugeld $*"; }
. $M/programs.sh
ldv=$(/lib/ld-linux-aarch64.so.1 --version | head -1)
if [ "$$" = 1 ] && grep -q 'hugeld' <<< "$ldv" && grep -q '^libs \*' /etc/hugeld.conf; then
  say "PASS boot: PID 1 ($(readlink /proc/1/exe)) started by the system loader, which is hugeld ($ldv), with /etc/hugeld.conf selecting every object"
else
  say "FAIL boot: PID $$, loader '$ldv'"
fi
for p in $progs; do
  run /var/lib/hugeld-test/sys-$p $p
  if cmp -s /var/lib/hugeld-test/sys-$p.out /var/lib/hugeld-test/ref-$p.out; then
    say "PASS boot-$p: $p with hugeld the system loader and libs * from the policy file: the stock loader's output"
  else
    say "FAIL boot-$p: '$(tr '\n' ' ' < /var/lib/hugeld-test/sys-$p.out | cut -c1-120)' instead of '$(tr '\n' ' ' < /var/lib/hugeld-test/ref-$p.out | cut -c1-120)'; $(tail -2 /var/lib/hugeld-test/sys-$p.err | tr '\n' ' ')"
  fi
done
# What clang's libraries got from the policy file alone (the default
# backing: shared,private,thp, without a cache entry: private).
( cd /var/lib/hugeld-test && $M/atexit-smaps /tmp/smaps-clang /usr/lib/llvm-14/bin/clang -O2 -S -o /dev/null hello.c )
say "PASS boot-clang-text: clang's libraries with libs * from the policy file (text, rodata and relro selected): $(python3 $M/coverage.py /tmp/smaps-clang /usr/lib/aarch64-linux-gnu/libLLVM-14.so.1 /usr/lib/aarch64-linux-gnu/libclang-cpp.so.14 | sed 's#/usr/lib/aarch64-linux-gnu/##' | tr '\n' ' ')"
if /opt/hugeld/libexec/hugeld-system-loader uninstall > /tmp/sys2.log 2>&1 < /dev/null \
   && ! /lib/ld-linux-aarch64.so.1 --version | grep -q hugeld; then
  say "PASS boot-uninstall: the distribution's loader back: $(/lib/ld-linux-aarch64.so.1 --version | head -1)"
else
  say "FAIL boot-uninstall: $(tail -3 /tmp/sys2.log | tr '\n' ' ')"
fi
say DONE
sync
mount -o remount,ro / 2> /dev/null
echo o > /proc/sysrq-trigger
sleep 10
