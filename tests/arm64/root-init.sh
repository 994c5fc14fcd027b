#!/bin/busybox sh
# hugeld check-arm64: /init of the initramfs that boots the
# debootstrapped arm64 Debian root (scripts/check-arm64.sh, ARM64_ROOT):
# load the modules of /kmod (virtio, ext4), mount /dev/vda (the root,
# read-write) and, if there is one, /dev/vdb (the run's files) on its
# /mnt/hugeld, and switch to the root's program named by hugeld.run= on
# the kernel's command line (default /hugeld-stage2).
/bin/busybox mkdir -p /proc /sys /dev /newroot /usr/bin /usr/sbin /sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null
exec < /dev/console > /dev/console 2>&1
RUN=/hugeld-stage2
for w in $(cat /proc/cmdline); do
  case $w in hugeld.run=*) RUN=${w#*=} ;; esac
done
for m in $(cat /kmod/order 2> /dev/null); do insmod /kmod/$m.ko 2> /dev/null; done
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done
if ! mount -t ext4 /dev/vda /newroot; then
  echo "@hugeld FAIL root: cannot mount /dev/vda"
  echo "@hugeld DONE"
  poweroff -f
fi
if [ -b /dev/vdb ]; then
  mkdir -p /newroot/mnt/hugeld
  mount -t ext4 -o ro /dev/vdb /newroot/mnt/hugeld
fi
umount /proc /sys 2> /dev/null
exec /bin/busybox switch_root /newroot "$RUN"
