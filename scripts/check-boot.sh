#!/bin/bash
# make check-boot: hugeld on a whole machine, from PID 1 on.  Boots a
# Debian image made here (debootstrap of the host's release with
# systemd and the release's kernel, apparmor, systemd-coredump, gdb
# and elfutils, plus build/hugeld_*.deb from `make deb') under qemu,
# six times, and runs tests/boot/guest.sh in
# it after each boot (a unit ordered after multi-user.target):
#
#   1. policy: hugeld as a policy-file user.  The boot unit fills the
#      cache; the system is running with no failed unit; a service run
#      through hugeld maps its library from the cache; the library's
#      package upgraded with dpkg -i is re-synced by the trigger, and
#      the service restarted maps the new entry; the service's own
#      package upgraded (postinst: daemon-reexec, restart) maps it
#      again.  One service on hugeld without hugeld as the system
#      loader (hugeld enable mariadb --libs mariadbd: a drop-in that
#      mounts the loader in the service's namespace): mariadb is up and
#      answers, its process is mariadbd for ps, pidof and systemctl,
#      with the pool at 0 (hugeld check fails, one line) and at the
#      planned size (hugeld check passes); disable puts it back.  The
#      metrics timer is enabled and its service writes the Prometheus
#      text for node_exporter.
#      Then hugeld becomes the system loader, with `libs *' and
#      `pool auto'.
#   2. system: the boot unit succeeds again (a new boot, an empty
#      cache); no failed unit; PID 1 and every process run on hugeld;
#      no process holds a private copy of an object the cache serves,
#      not even one that mapped it before the unit filled the cache;
#      a MemoryDenyWriteExecute= service (journald) maps a cached
#      library from the cache; the service's package upgraded with
#      dpkg -i (daemon-reexec and restart in its postinst): the service
#      and PID 1 run on hugeld with the cached pages afterwards; a
#      hardened service (SystemCallFilter=@system-service with the
#      kill action, MemoryDenyWriteExecute=, PrivateDevices=, a system
#      user) is up, never restarted, and hugeld status says what it
#      got.
#   3. guards (the kernel's security modules plus bpf, where it has the
#      BPF module): AppArmor enforcing, as Debian boots; a service
#      confined by a profile that includes <abstractions/base> maps
#      the cache through the package's base.d/hugeld; one whose base
#      has no base.d runs all the same, its library on what else it
#      can have, and LD_DEBUG=hugepages and hugeld status name the
#      guard; a service with RestrictFileSystems= without hugetlbfs
#      likewise (SKIP where the kernel or systemd cannot enforce it);
#      a process killed in code from the cache, and one in a private
#      copy: coredumpctl's stack trace, gdb and eu-stack on its core.
#      Then the pool is made smaller than the cache.
#   4. small pool: the machine boots to running, no failed unit; what
#      does not fit is said in the unit's journal; the hardened service
#      is up as in 2.  Then a bad line in the policy file.
#   5. bad policy file: the machine boots, the boot unit names the bad
#      line and is the only failed unit, programs run on ordinary
#      pages.  Then hugeld-system-loader uninstall: the distribution's
#      loader back, byte for byte; hugeld purged.
#   6. stock: the machine without hugeld, for the boot time to compare.
#
# Prints "PASS: boot-<phase>: <check>" / "FAIL: ..." per check and "N
# passed, N failed"; each boot's serial console is kept in
# build/boot/logs/<phase>.log, the guest's own log in
# build/boot/logs/guest.log.
#
# The base image (debootstrap + kernel, ~400 MB, a few minutes) is
# cached in build/boot/base-<release>; every run starts from a fresh
# copy of it.  Environment: BOOT_MEM_MIB (2048), BOOT_TIMEOUT (seconds
# per boot and its checks; 1200), QEMU_ACCEL (kvm if /dev/kvm works,
# else tcg), BOOT_MIRROR (instead of the host's Debian archive).
#
# Time, measured on the development machine (2 cores, TCG): see the
# "check-boot" entry of docs/whole-machine.md.
set -euo pipefail
. "$(dirname "$0")/config.sh"

BDIR=$BUILDDIR/boot
LOGS=$BDIR/logs
SUITE=$(os_codename)
BASE=$BDIR/base-$SUITE
ROOT=$BDIR/root
IMG=$BDIR/disk.img
MEM=${BOOT_MEM_MIB:-2048}
TIMEOUT=${BOOT_TIMEOUT:-1200}
note () { echo "hugeld: check-boot: $*" >&2; }

[ "$(id -u)" = 0 ] || die "check-boot must run as root (debootstrap, chroot, dpkg in the image)"
DEB=$(ls -t "$BUILDDIR"/hugeld_*_amd64.deb 2> /dev/null | head -1)
[ -n "$DEB" ] || die "no $BUILDDIR/hugeld_*_amd64.deb: run make deb first"
for c in debootstrap qemu-system-x86_64 mke2fs dpkg-deb mkfs.xfs; do
  command -v "$c" > /dev/null || scripts_missing=1
done
if [ -n "${scripts_missing:-}" ]; then
  apt-get install -y -qq --no-install-recommends debootstrap qemu-system-x86 \
    e2fsprogs xfsprogs > /dev/null
fi
mkdir -p "$LOGS"

chroot_mounts () {
  mount -t proc proc "$1/proc"
  mount -t sysfs sys "$1/sys"
  mount --bind /dev "$1/dev"
}
in_chroot () {
  chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive "${@:2}"
}

# --- The base image: Debian with systemd and the release's kernel. ------
make_base () {
  local mirror security
  read -r mirror security <<< "$(debian_mirrors) "
  mirror=${BOOT_MIRROR:-${mirror:-http://deb.debian.org/debian}}
  security=${security:-${mirror%/debian*}/debian-security}
  note "making the base image in $BASE (debootstrap $SUITE from $mirror)"
  rm -rf "$BASE"
  debootstrap --variant=minbase \
    --include=systemd,systemd-sysv,udev,dbus,kmod,procps,python3,e2fsprogs \
    "$SUITE" "$BASE" "$mirror" > "$LOGS/debootstrap.log" 2>&1 \
    || die "debootstrap failed: $(tail -3 "$LOGS/debootstrap.log" | tr '\n' ' ')"
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$mirror" "$SUITE" "$mirror" "$SUITE" "$security" "$SUITE" \
    > "$BASE/etc/apt/sources.list"
  # A small initramfs with just what mounts the root: a virtio disk,
  # ext4.
  mkdir -p "$BASE/etc/initramfs-tools/conf.d"
  echo MODULES=list > "$BASE/etc/initramfs-tools/conf.d/hugeld-boot"
  printf '%s\n' virtio_pci virtio_blk ext4 >> "$BASE/etc/initramfs-tools/modules"
  cp /etc/resolv.conf "$BASE/etc/resolv.conf"
  chroot_mounts "$BASE"
  trap 'umount_root "$BASE"' EXIT
  in_chroot "$BASE" apt-get update -qq > "$LOGS/base-apt.log" 2>&1
  in_chroot "$BASE" apt-get install -y -qq --no-install-recommends \
    linux-image-amd64 initramfs-tools >> "$LOGS/base-apt.log" 2>&1 \
    || die "installing the kernel failed: $(tail -3 "$LOGS/base-apt.log" | tr '\n' ' ')"
  in_chroot "$BASE" apt-get clean
  umount_root "$BASE"
  trap - EXIT
  touch "$BASE/.done"
}
[ -f "$BASE/.done" ] || make_base

# The image's glibc must be the one hugeld is built from (the host's
# libc6): the release's archive may have moved on since, or the host
# may be behind it.
base_glibc () {
  local got
  got=$(in_chroot "$BASE" dpkg-query -W -f='${Version}' libc6)
  [ "$got" != "$GLIBC_DEBVERSION" ] || return 0
  note "the base's libc6 is $got: installing $GLIBC_DEBVERSION, the host's"
  chroot_mounts "$BASE"
  trap 'umount_root "$BASE"' EXIT
  in_chroot "$BASE" apt-get update -qq > "$LOGS/base-glibc.log" 2>&1
  in_chroot "$BASE" apt-get install -y -qq --allow-downgrades \
    $(glibc_pkgs_at "$GLIBC_DEBVERSION" in_chroot "$BASE") >> "$LOGS/base-glibc.log" 2>&1 || :
  in_chroot "$BASE" apt-get clean
  umount_root "$BASE"
  trap - EXIT
  got=$(in_chroot "$BASE" dpkg-query -W -f='${Version}' libc6)
  [ "$got" = "$GLIBC_DEBVERSION" ] \
    || die "the image's libc6 is $got, hugeld is built from $GLIBC_DEBVERSION (not in the archive?): $(tail -2 "$LOGS/base-glibc.log" | tr '\n' ' ')"
}
base_glibc

# mariadb-server, for the service recipe (hugeld enable) in phase 1;
# disabled in the image, started by the checks only.
base_mariadb () {
  in_chroot "$BASE" dpkg-query -W -f='${Status}' mariadb-server 2> /dev/null \
    | grep -q 'install ok installed' && return 0
  note "installing mariadb-server in the base image"
  chroot_mounts "$BASE"
  trap 'umount_root "$BASE"' EXIT
  in_chroot "$BASE" apt-get update -qq > "$LOGS/base-mariadb.log" 2>&1
  in_chroot "$BASE" apt-get install -y -qq --no-install-recommends mariadb-server \
    >> "$LOGS/base-mariadb.log" 2>&1 \
    || die "installing mariadb-server in the base image failed: $(tail -3 "$LOGS/base-mariadb.log" | tr '\n' ' ')"
  in_chroot "$BASE" apt-get clean
  umount_root "$BASE"
  trap - EXIT
}
base_mariadb
# --- The guards' packages (issue 40). -----------------------------------
# AppArmor as Debian boots it (the kernel has it on; the apparmor
# package loads the profiles), and what looks at a crashed process
# (systemd-coredump, gdb, elfutils' eu-stack).  Added to the cached
# base once.
GUARD_PKGS="apparmor systemd-coredump gdb elfutils"
base_guard_packages () {
  local p missing=
  for p in $GUARD_PKGS; do
    in_chroot "$BASE" dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q ' installed$' \
      || missing="$missing $p"
  done
  [ -n "$missing" ] || return 0
  note "installing$missing in the base image"
  chroot_mounts "$BASE"
  trap 'umount_root "$BASE"' EXIT
  in_chroot "$BASE" apt-get update -qq > "$LOGS/base-guards.log" 2>&1
  in_chroot "$BASE" apt-get install -y -qq --no-install-recommends $missing \
    >> "$LOGS/base-guards.log" 2>&1 \
    || die "installing$missing in the base failed: $(tail -3 "$LOGS/base-guards.log" | tr '\n' ' ')"
  in_chroot "$BASE" apt-get clean
  umount_root "$BASE"
  trap - EXIT
  [ "$(in_chroot "$BASE" dpkg-query -W -f='${Version}' libc6)" = "$GLIBC_DEBVERSION" ] \
    || die "installing$missing moved the base's libc6 off $GLIBC_DEBVERSION"
}
base_guard_packages

# --- The packages the guest upgrades. -----------------------------------
# libhpdemo 1 and 2 ship /usr/lib/hpdemo/libhpdemo.so (10 MiB: value ()
# returns the version from the middle of 6 MiB of code,
# tests/cache/valuelib.c).  hpsvc 1 and 2 ship /usr/bin/hpsvc
# (tests/cache/hold.c: maps the library, prints its value, stays) and
# hpsvc.service; their postinst does what Debian packages of services
# do on an upgrade: enable, daemon-reexec, restart.
PKGS=$BDIR/pkgs
rm -rf "$PKGS"; mkdir -p "$PKGS"
cc -O2 -o "$PKGS/hpsvc" "$HUGELD_TOP/tests/cache/hold.c" -ldl
control () { # NAME VERSION DESCRIPTION
  cat <<EOF
Package: $1
Version: $2
Architecture: amd64
Maintainer: hugeld tests <root@localhost>
Description: hugeld check-boot: $3
EOF
}
for v in 1 2; do
  P=$PKGS/libhpdemo-$v
  mkdir -p "$P/DEBIAN" "$P/usr/lib/hpdemo"
  cc -shared -fPIC -O2 -DVALUE=$v -o "$P/usr/lib/hpdemo/libhpdemo.so" \
    "$HUGELD_TOP/tests/cache/valuelib.c"
  control libhpdemo $v "a library with 6 MiB of code" > "$P/DEBIAN/control"
  dpkg-deb --root-owner-group --build "$P" "$PKGS/libhpdemo_${v}_amd64.deb" > /dev/null
  P=$PKGS/hpsvc-$v
  mkdir -p "$P/DEBIAN" "$P/usr/bin" "$P/lib/systemd/system"
  cp "$PKGS/hpsvc" "$P/usr/bin/hpsvc"
  cat > "$P/lib/systemd/system/hpsvc.service" <<'EOF'
[Unit]
Description=hugeld check-boot: a service that maps libhpdemo
[Service]
Environment=HOLD_UNTIL=/run/hpsvc.stop
ExecStart=/usr/bin/hpsvc /usr/lib/hpdemo/libhpdemo.so
[Install]
WantedBy=multi-user.target
EOF
  control hpsvc $v "a service that maps libhpdemo" > "$P/DEBIAN/control"
  cat > "$P/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  deb-systemd-helper enable hpsvc.service > /dev/null || true
  if [ -d /run/systemd/system ]; then
    systemctl daemon-reexec
    deb-systemd-invoke restart hpsvc.service
  fi
fi
EOF
  chmod 755 "$P/DEBIAN/postinst"
  dpkg-deb --root-owner-group --build "$P" "$PKGS/hpsvc_${v}_amd64.deb" > /dev/null
done

# --- The run's image: a fresh copy with hugeld and the checks. ---------
note "making the image ($(basename "$DEB"))"
rm -rf "$ROOT" "$IMG"
cp -a "$BASE" "$ROOT"
cp "$DEB" "$PKGS"/*.deb "$ROOT/root/"
install -m 755 "$HUGELD_TOP/tests/boot/guest.sh" "$ROOT/usr/local/sbin/hugeld-boot-check"
cat > "$ROOT/etc/systemd/system/hugeld-boot-check.service" <<'EOF'
[Unit]
Description=hugeld check-boot: the checks of this boot
After=multi-user.target
[Service]
# simple: the boot is complete (is-system-running) while the checks run.
Type=simple
ExecStart=/usr/local/sbin/hugeld-boot-check
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/hugeld-boot-check.service \
  "$ROOT/etc/systemd/system/multi-user.target.wants/hugeld-boot-check.service"
# An early process that maps the cached library before the boot unit
# has filled the cache (as PID 1, journald and udevd map theirs): with
# hugeld as the system loader it must not take a private copy.
cat > "$ROOT/etc/systemd/system/hpearly.service" <<'EOF'
[Unit]
Description=hugeld check-boot: an early process that maps libhpdemo before the cache is filled
DefaultDependencies=no
After=local-fs.target
Before=hugeld-cache.service sysinit.target
[Service]
Type=exec
Environment=HOLD_UNTIL=/run/hpearly.stop
ExecStart=/usr/bin/hpsvc /usr/lib/hpdemo/libhpdemo.so
[Install]
WantedBy=sysinit.target
EOF
mkdir -p "$ROOT/etc/systemd/system/sysinit.target.wants"
ln -sf /etc/systemd/system/hpearly.service \
  "$ROOT/etc/systemd/system/sysinit.target.wants/hpearly.service"
# A service hardened as Debian's and systemd's own units are: its own
# system user, a seccomp allow-list with the kill action (no
# SystemCallErrorNumber=), no writable executable memory, a private
# /dev (systemd binds /dev/hugepages into it, so the cache is there:
# hugeld status shows it mapped).  With hugeld as the system loader
# and `libs *' it must start and stay up, whatever backing its library
# gets (Restart= counts every death).
cat > "$ROOT/etc/systemd/system/hphard.service" <<'EOF'
[Unit]
Description=hugeld check-boot: a hardened service that maps libhpdemo
[Service]
User=hphard
SystemCallFilter=@system-service
MemoryDenyWriteExecute=yes
PrivateDevices=yes
NoNewPrivileges=yes
Environment=HOLD_UNTIL=/run/hphard.stop
ExecStart=/usr/bin/hpsvc /usr/lib/hpdemo/libhpdemo.so
Restart=on-failure
RestartSec=1
[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/hphard.service \
  "$ROOT/etc/systemd/system/multi-user.target.wants/hphard.service"
# The guards phase (issue 40; tests/boot/guest.sh guards_*): four
# services the checks start themselves (enabled, the system phase would
# find their private copies), each mapping libhpdemo with hugeld as the
# system loader and `libs *':
#   hpaa   confined by an AppArmor profile that includes
#          <abstractions/base>, and with it the package's
#          base.d/hugeld: it maps the cache;
#   hpaa2  confined by the same profile but with base as it is without
#          base.d (a profile the package's abstraction does not reach):
#          it falls back, and LD_DEBUG=hugepages names the guard;
#   hpaa3  as hpaa, with LD_HUGEPAGE_BACKING=private: AppArmor refuses
#          anonymous huge page memory in a profile without
#          attach_disconnected, so it runs on ordinary pages, named;
#   hprfs  RestrictFileSystems= with systemd's sets of basic, block
#          and temporary file systems, which leave out hugetlbfs (the
#          BPF security module refuses the cache's open).
# And hpspin (tests/guards/spin.c), a program linked with libhpspin
# (tests/guards/spinlib.c) that spins in the middle of its text, for
# core dumps through systemd-coredump.
guard_image () {
  local a=$ROOT/etc/apparmor.d base=$ROOT/etc/apparmor.d/abstractions/base p inc
  grep -q '^ *include if exists <abstractions/base.d>' "$base" \
    || die "the image's abstractions/base does not include base.d"
  mkdir -p "$ROOT/usr/lib/hpdemo"
  cp "$PKGS/hpsvc" "$ROOT/usr/bin/hpaa"
  cp "$PKGS/hpsvc" "$ROOT/usr/bin/hpaa2"
  cp "$PKGS/hpsvc" "$ROOT/usr/bin/hpaa3"
  cp "$PKGS/hpsvc" "$ROOT/usr/bin/hpaa4"
  sed '/^ *include if exists <abstractions\/base.d>/d' "$base" \
    > "$a/abstractions/hugeld-check-base-only"
  for p in hpaa hpaa2 hpaa3 hpaa4; do
    inc=abstractions/base flags= extra=
    [ $p = hpaa2 ] && inc=abstractions/hugeld-check-base-only
    # hpaa4: what a profile needs for private copies (docs/security.md).
    [ $p = hpaa4 ] && flags=' flags=(attach_disconnected)' extra='  / rwm,'
    printf '%s\n' "# hugeld check-boot: a service confined as Debian confines its own." \
      'abi <abi/3.0>,' 'include <tunables/global>' "profile $p /usr/bin/$p$flags {" \
      "  include <$inc>" "  /usr/bin/$p mr," '  /usr/lib/hpdemo/libhpdemo.so mr,' ${extra:+"$extra"} '}' \
      > "$a/usr.bin.$p"
    printf '%s\n' '[Unit]' "Description=hugeld check-boot: a service under the AppArmor profile $p" \
      '[Service]' \
      "Environment=HOLD_UNTIL=/run/$p.stop LD_DEBUG=hugepages$(case $p in hpaa2) echo ' LD_HUGEPAGE_LIBS=libhpdemo.so' ;; hpaa[34]) echo ' LD_HUGEPAGE_BACKING=private' ;; esac)" \
      "ExecStart=/usr/bin/$p /usr/lib/hpdemo/libhpdemo.so" 'Restart=on-failure' 'RestartSec=1' \
      > "$ROOT/etc/systemd/system/$p.service"
  done
  printf '%s\n' '[Unit]' 'Description=hugeld check-boot: a service whose file systems leave out hugetlbfs' \
    '[Service]' 'User=hphard' 'RestrictFileSystems=@basic-api @common-block @temporary' \
    'Environment=HOLD_UNTIL=/run/hprfs.stop LD_DEBUG=hugepages' \
    'ExecStart=/usr/bin/hpsvc /usr/lib/hpdemo/libhpdemo.so' 'Restart=on-failure' 'RestartSec=1' \
    > "$ROOT/etc/systemd/system/hprfs.service"
  cc -shared -fPIC -O2 -o "$ROOT/usr/lib/hpdemo/libhpspin.so" "$HUGELD_TOP/tests/guards/spinlib.c" \
    && cc -O2 -g -o "$ROOT/usr/bin/hpspin" "$HUGELD_TOP/tests/guards/spin.c" \
         -L"$ROOT/usr/lib/hpdemo" -lhpspin -Wl,-rpath,/usr/lib/hpdemo \
    || die "building hpspin"
}
guard_image
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$ROOT/etc/fstab"
echo hugeld-boot > "$ROOT/etc/hostname"
# mariadb starts only when the checks start it (phase 1).
rm -f "$ROOT"/etc/systemd/system/multi-user.target.wants/mariadb.service \
  "$ROOT"/etc/systemd/system/mysql.service "$ROOT"/etc/systemd/system/mysqld.service
# Nothing else may run dpkg or apt while the checks do.
for t in apt-daily.timer apt-daily-upgrade.timer; do
  ln -sf /dev/null "$ROOT/etc/systemd/system/$t"
done
chroot_mounts "$ROOT"
trap 'umount_root "$ROOT"' EXIT
in_chroot "$ROOT" dpkg -i /root/libhpdemo_1_amd64.deb /root/hpsvc_1_amd64.deb > "$LOGS/image.log" 2>&1 \
  || die "dpkg -i libhpdemo 1, hpsvc 1 in the image: $(tail -3 "$LOGS/image.log" | tr '\n' ' ')"
in_chroot "$ROOT" useradd --system --no-create-home --shell /usr/sbin/nologin hphard >> "$LOGS/image.log" 2>&1 \
  || die "useradd hphard in the image"
# Phase 1 runs the service through hugeld's ld.so, as a policy-file
# user would.
mkdir -p "$ROOT/etc/systemd/system/hpsvc.service.d"
cat > "$ROOT/etc/systemd/system/hpsvc.service.d/hugeld.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=/opt/hugeld/ld.so /usr/bin/hpsvc /usr/lib/hpdemo/libhpdemo.so
EOF
cat > "$ROOT/etc/hugeld.conf" <<'EOF'
# check-boot phase 1: hugeld as a policy-file user.
libs libhpdemo.so
cache /usr/lib/hpdemo/libhpdemo.so
pool auto
EOF
in_chroot "$ROOT" dpkg -i "/root/$(basename "$DEB")" >> "$LOGS/image.log" 2>&1 \
  || die "dpkg -i hugeld in the image: $(tail -3 "$LOGS/image.log" | tr '\n' ' ')"
in_chroot "$ROOT" systemctl is-enabled hugeld-cache.service > /dev/null \
  || die "hugeld-cache.service is not enabled in the image"
umount_root "$ROOT"
trap - EXIT
mkdir -p "$ROOT/var/lib/hugeld-boot-check"
echo policy > "$ROOT/var/lib/hugeld-boot-check/phase"
VMLINUZ=$(ls "$ROOT"/boot/vmlinuz-* | head -1)
INITRD=$(ls "$ROOT"/boot/initrd.img-* | head -1)
[ -f "$VMLINUZ" ] && [ -f "$INITRD" ] || die "no kernel or initramfs in the image"
cp "$VMLINUZ" "$BDIR/vmlinuz"; cp "$INITRD" "$BDIR/initrd.img"
# The guards phase boots with the BPF security module on (systemd's
# RestrictFileSystems= needs it), as an administrator who uses that
# setting boots: the kernel's own list (CONFIG_LSM) plus bpf, where the
# kernel has it (CONFIG_BPF_LSM) and the list lacks it; otherwise the
# kernel's default, and the guest says RestrictFileSystems= is not
# enforced (SKIP).
GUARDS_LSM=
KCONFIG=$(ls "$ROOT"/boot/config-* 2> /dev/null | head -1)
if [ -n "$KCONFIG" ] && grep -q '^CONFIG_BPF_LSM=y' "$KCONFIG"; then
  lsms=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$KCONFIG")
  case ",$lsms," in
    *,bpf,*) ;;
    ,,) ;;
    *) GUARDS_LSM="lsm=$lsms,bpf" ;;
  esac
fi
mke2fs -q -t ext4 -d "$ROOT" -L root "$IMG" 4G \
  || die "mke2fs -d of the image failed"
rm -rf "$ROOT"

# --- The boots. ---------------------------------------------------------
# KVM where it is the real thing; TCG otherwise (as check-kernels: a
# PVM /dev/kvm, as on the development machines, cannot boot Debian's
# kernels at speed, and nested KVM does not work there).
ACCEL=${QEMU_ACCEL:-}
if [ -z "$ACCEL" ]; then
  if ! { : <> /dev/kvm; } 2> /dev/null; then ACCEL=tcg
  elif [ -d /sys/module/kvm_pvm ] && [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then ACCEL=tcg
  else ACCEL=kvm
  fi
fi
case "$ACCEL" in
  kvm) CPU=host ;;
  tcg) CPU=max ACCEL=tcg,thread=multi ;;
  *) die "QEMU_ACCEL must be kvm or tcg, not $ACCEL" ;;
esac
note "booting with $ACCEL, $MEM MiB"

# A second disk, XFS (large folios since Linux 5.18: the image's 6.1
# makes no 2 MiB page-cache folios on ext4): the guest puts a copy of
# mariadbd there for the thp backing's service check (/dev/vdb).
XFSIMG=$BDIR/xfs.img
rm -f "$XFSIMG"
truncate -s 1G "$XFSIMG"
mkfs.xfs -q -f -L hpxfs "$XFSIMG" || die "cannot make $XFSIMG"

passed=0 failed=0
boot () {
  local phase=$1 log=$LOGS/$1.log start rc=0
  start=$(date +%s)
  timeout "$TIMEOUT" qemu-system-x86_64 -accel "$ACCEL" -cpu "$CPU" -smp 2 -m "$MEM" \
    -kernel "$BDIR/vmlinuz" -initrd "$BDIR/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 systemd.show_status=auto${2:+ $2}" \
    -drive "file=$IMG,if=virtio,format=raw" \
    -drive "file=$XFSIMG,if=virtio,format=raw" -display none -monitor none \
    -serial "file:$log" -no-reboot > "$LOGS/$1.qemu" 2>&1 || rc=$?
  note "boot $phase: $(( $(date +%s) - start )) s$([ $rc = 124 ] && echo ', stopped by the time limit')"
  # The guest's lines, as systemd put them on the console (after a
  # "[time] hugeld-boot-check[pid]: " prefix).
  tr -d '\r' < "$log" | sed -n 's/^.*\(\(PASS\|FAIL\|SKIP\|INFO\|DONE\): boot-\)/\1/p' > "$log.lines"
  grep -E '^(PASS|FAIL|SKIP|INFO): ' "$log.lines" || :
  local p f
  p=$(grep -c '^PASS: ' "$log.lines" || :)
  f=$(grep -c '^FAIL: ' "$log.lines" || :)
  passed=$((passed + p)) failed=$((failed + f))
  if ! grep -q "^DONE: boot-$phase" "$log.lines"; then
    echo "FAIL: boot-$phase: the checks did not finish (rc $rc; see $log)"
    failed=$((failed + 1))
    return 1
  fi
}
# The system phase boots with a pool reserved on the kernel command
# line, as many machines do (before memory fragments): the early
# processes could take private copies from it before the boot unit.
for phase in policy system guards smallpool badconf stock; do
  args=
  [ "$phase" = system ] && args=hugepages=8
  [ "$phase" = guards ] && args=$GUARDS_LSM
  boot "$phase" "$args" || break
done
# The guest's own log, for a failure's details.
debugfs -R "cat /var/log/hugeld-boot-check.log" "$IMG" > "$LOGS/guest.log" 2> /dev/null || :
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
