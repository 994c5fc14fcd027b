#!/bin/bash
# hugeld check-arm64: the first of two boots of a copy of the arm64
# root (tests/arm64/sys-boot.sh is the second): the stock loader's
# results of the programs, then the .deb installed, /etc/hugeld.conf
# selecting every object ("libs *", as for every process), and hugeld
# made the system loader; then the machine powers off, and the next
# boot starts with hugeld as the loader of PID 1 and of everything.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
mount -t proc proc /proc; mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null; mount -t tmpfs tmpfs /run
exec < /dev/console > /dev/console 2>&1
M=/mnt/hugeld
say () { echo "@hugeld $*"; }
. $M/programs.sh
mkdir -p /var/lib/hugeld-test
printf 'int f (int x) { return x * 3 + 1; }\n' > /var/lib/hugeld-test/hello.c
for p in $progs; do run /var/lib/hugeld-test/ref-$p $p; done
if dpkg -i $M/hugeld.deb > /tmp/dpkg.log 2>&1 \
   && printf '# check-arm64: every object of every process\nlibs *\n' > /etc/hugeld.conf \
   && /opt/hugeld/libexec/hugeld-system-loader install > /tmp/sys.log 2>&1 < /dev/null; then
  say "PASS boot-install: the .deb, /etc/hugeld.conf (libs *) and hugeld as the system loader: $(/lib/ld-linux-aarch64.so.1 --version | head -1)"
else
  say "FAIL boot-install: $(tail -3 /tmp/dpkg.log /tmp/sys.log | tr '\n' ' ' | cut -c1-300)"
fi
say DONE
sync
mount -o remount,ro / 2> /dev/null
echo o > /proc/sysrq-trigger
sleep 10
