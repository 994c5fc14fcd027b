#!/bin/sh
# hugeld check-arm64: debootstrap's second stage of the arm64 root, run
# in the guest as the root's first program (tests/arm64/root-init.sh).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
if /debootstrap/debootstrap --second-stage > /root/stage2.log 2>&1; then
  echo "@hugeld PASS root: debootstrap --second-stage"
else
  echo "@hugeld FAIL root: debootstrap --second-stage: $(tail -3 /root/stage2.log 2> /dev/null | tr '\n' ' ')"
  tail -20 /debootstrap/debootstrap.log 2> /dev/null
fi
echo "@hugeld DONE"
sync
mount -o remount,ro / 2> /dev/null
echo o > /proc/sysrq-trigger
sleep 10
