#!/bin/bash
# make check-kernels: the loader under other kernels.  Boots Debian's
# kernels of Debian 11 (5.10), 12 (6.1), 13 (6.12), unstable (sid: 7.2)
# and experimental (7.3-rc7) under qemu, each with an initramfs that
# holds the built loader (build/obj/elf/ld.so, at /opt/hugeld/ld.so),
# the stock loader, libc.so.6 and the big-code test programs, and runs
# the huge-page checks of tests/kernels/init.sh in it: a selected DSO,
# a dlopened library, PIE and non-PIE programs run as "ld.so PROG", a
# program with PT_INTERP /opt/hugeld/ld.so, fork with data and bss on
# huge pages, NUMA bindings, the shared cache, thp, an empty pool, and
# the thp backing for a library on ext4 (a read-only virtio disk made
# here with mke2fs -d) with the page cache warm (single pages) and cold:
# the same result as the stock loader, and where the thp repair
# (hugeld-thp --repair, tools/hugeld-thp.c) puts the text on 2 MiB
# folios, the next start has it on huge pages.  Every check compares with the stock loader in
# the same guest.  Whether the selected objects must be on huge pages
# depends on whether the kernel can move a hugetlb mapping with mremap
# (MREMAP_FIXED), which a probe finds out in the guest
# (tests/kernels/probe-mremap.c); where it cannot (5.10), the programs
# must only behave exactly as with the stock loader.
#
#   scripts/check-kernels.sh [SUITE...]
#       default: bullseye bookworm trixie sid experimental
#
# The kernels are the newest linux-image-*-amd64-unsigned (or the signed
# linux-image) that the suite's linux-image-amd64 depends on; from 7.x
# on (sid, experimental) that package only depends on
# linux-binary-<abi>-amd64, whose unsigned twin linux-binary-unsigned-
# <abi>-amd64 holds the kernel, and the modules are in
# linux-modules-<abi>-amd64.  A suite without linux-image-amd64 gets its
# newest linux-image-<abi>-amd64; experimental without any kernel is
# skipped with a note.  They are downloaded with apt from the Debian
# archive the host's own apt sources name (and its security archive,
# except for sid and experimental), through a private apt state under
# build/kernels/apt: the host's sources, lists and cache are not touched.
# Downloads, vmlinuz and the guest's modules (virtio_blk, ext4 and what
# they need, decompressed: a cpio archive appended to the initramfs)
# stay cached in build/kernels.  Prints "PASS: kernels-<version>:
# <check>" / "FAIL: ...: <why>" per check and "N passed, N failed"; the
# serial console of each boot is kept in build/kernels/logs/<version>.log.
#
# Environment: KERNEL_SUITES, KERNELS_OFFLINE=1 (no apt-get update, use
# the cached kernels), KERNEL_MIRROR / KERNEL_SECURITY_MIRROR (instead of
# the host's), KERNEL_LDSO (another loader than build/obj/elf/ld.so),
# QEMU_ACCEL=kvm|tcg, QEMU_MEM_MIB (1024), KERNEL_POOL (huge pages, 64),
# BOOT_TIMEOUT (seconds per boot; 300 with KVM, 600 with TCG),
# RUN_TIMEOUT (per program run in the guest; 60, 180 with TCG),
# KVM_START_TIMEOUT (60), FIXTURES (build/tests).
#
# Time, measured on the development machine (2 cores, AMD EPYC, Linux
# 6.18; default fixtures, 6.5 MB initramfs): with TCG a full run takes
# 4 min 40 s with the kernels cached (5.10: 57 s, 6.1: 54 s, 6.12: 50 s,
# 7.2: 53 s, 7.3: 54 s, plus about 11 s for the apt-get updates, the
# initramfs and the ext4 image; before the ext4 check, 5.10, 6.1 and
# 6.12 took 28, 40 and 39 s); the first run downloads three kernel
# packages of about 57 MB each, and for each 7.x kernel one of 14 MB and
# its modules package of about 105 MB, on top (about 10 s per 57 MB
# here).  With KVM: not measured, as that machine's /dev/kvm is PVM
# (kvm_pvm), on which Debian's kernels do not get past their
# decompressor in 4 minutes (and -cpu host makes qemu 7.2 abort), so
# the script uses TCG there; with a hardware KVM expect a few seconds
# per kernel.
set -euo pipefail
. "$(dirname "$0")/config.sh"

KDIR=$BUILDDIR/kernels
FIXTURES=${FIXTURES:-$BUILDDIR/tests}
LDSO=${KERNEL_LDSO:-$OBJDIR/elf/ld.so}
SYSTEM_LDSO=${SYSTEM_LDSO:-/lib64/ld-linux-x86-64.so.2}
GUEST_LDSO=/opt/hugeld/ld.so
# Guest memory in MiB, split between two NUMA nodes (the guest empties
# node 1's huge page pool to test a memory policy bound to it).
QEMU_MEM_MIB=${QEMU_MEM_MIB:-1024}
QEMU_MEM=${QEMU_MEM_MIB}M
KERNEL_POOL=${KERNEL_POOL:-64}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || read -r -a suites <<< "${KERNEL_SUITES:-bullseye bookworm trixie sid experimental}"

note () { echo "hugeld: $*" >&2; }

# What is needed, and clear words if it is not there.
[ -x "$LDSO" ] || die "$LDSO is missing: build the loader first (make build)"
for f in bigcheck-shared bigcheck-dlopen bigcheck-pie bigcheck-nopie libbig.so big-pic.o; do
  [ -f "$FIXTURES/$f" ] || die "$FIXTURES/$f is missing: build the fixtures first (make fixtures)"
done
"$HUGELD_TOP/scripts/deps.sh" kernels
[ -x /bin/busybox ] || die "/bin/busybox is missing (apt-get install busybox-static)"
"$SYSTEM_LDSO" --verify /bin/busybox > /dev/null 2>&1 \
  && die "/bin/busybox is not statically linked (apt-get install busybox-static)"

# KVM if /dev/kvm can be opened and is a hardware KVM (kvm_intel or
# kvm_amd).  PVM (kvm_pvm, virtualisation without hardware support) is
# made for PVM-enabled guest kernels; Debian's crawl under it (not past
# their decompressor in 4 minutes): TCG then.  A KVM under which a kernel does not reach /init
# within KVM_START_TIMEOUT seconds (TCG needs about 10) is given up for
# TCG as well, and so is one that makes qemu fail before that (boot
# below).
if [ -n "${QEMU_ACCEL:-}" ]; then accel=$QEMU_ACCEL
elif ! { : <> /dev/kvm; } 2> /dev/null; then accel=tcg accel_why="/dev/kvm cannot be opened"
elif [ -d /sys/module/kvm_pvm ] && [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
  accel=tcg accel_why="/dev/kvm is PVM (kvm_pvm), which cannot run Debian's kernels at speed"
else accel=kvm
fi
USER_BOOT_TIMEOUT=${BOOT_TIMEOUT:-} USER_RUN_TIMEOUT=${RUN_TIMEOUT:-}
KVM_START_TIMEOUT=${KVM_START_TIMEOUT:-60}
set_accel () {
  accel=$1
  case $accel in
    kvm) qemu_accel=(-accel kvm -cpu host)
         BOOT_TIMEOUT=${USER_BOOT_TIMEOUT:-300} RUN_TIMEOUT=${USER_RUN_TIMEOUT:-60} ;;
    tcg) qemu_accel=(-accel tcg -cpu max)
         BOOT_TIMEOUT=${USER_BOOT_TIMEOUT:-600} RUN_TIMEOUT=${USER_RUN_TIMEOUT:-180} ;;
    *) die "QEMU_ACCEL must be kvm or tcg, not $accel" ;;
  esac
}
set_accel "$accel"

mkdir -p "$KDIR/logs" "$KDIR/bin"

# The Debian archive and security archive of the host's own apt sources.
read -r mirror security <<< "$(debian_mirrors) "
mirror=${KERNEL_MIRROR:-$mirror} security=${KERNEL_SECURITY_MIRROR:-$security}
[ -n "$mirror" ] || die "cannot find the Debian archive in the host's apt sources (set KERNEL_MIRROR)"

# apt_for SUITE: the private apt of SUITE, as the array APT (options;
# scripts/host.sh's private_apt).
apt_for () { private_apt "$KDIR/apt/$1" "$1" "$mirror" "$security"; }

# fetch_kernel SUITE: the newest kernel of SUITE, downloaded and its
# vmlinuz and modules extracted if not cached yet.  Sets KPKG, KVER,
# VMLINUZ and KMODS (kernel_modules below).
#
# Two packagings: up to Linux 6.x, linux-image-amd64 depends on
# linux-image-<abi>-amd64 (signed), whose -unsigned twin holds the same
# /boot/vmlinuz-<abi>-amd64 and the modules.  From 7.x on (sid,
# experimental), linux-image-<abi>-amd64 only depends on
# linux-binary-<abi>-amd64 (signed; unsigned: linux-binary-unsigned-
# <abi>-amd64), which holds /usr/lib/modules/<abi>-amd64/vmlinuz[.unsigned]
# and nothing else, and on linux-modules-<abi>-amd64 for the modules.
fetch_kernel () {
  SKIP=
  local suite=$1 sel=$KDIR/$1/selected meta abi p v z deb member offline=${KERNELS_OFFLINE:-0}
  mkdir -p "$KDIR/$suite"
  apt_for "$suite"
  if [ "$offline" != 1 ] && ! apt-get "${APT[@]}" update > "$KDIR/$suite/update.log" 2>&1; then
    [ -f "$sel" ] || die "apt-get update for $suite failed (see $KDIR/$suite/update.log)"
    note "$suite: apt-get update failed, using the cached kernel"
    offline=1
  fi
  if [ "$offline" = 1 ]; then
    [ -f "$sel" ] || die "no cached kernel for $suite (run without KERNELS_OFFLINE)"
    read -r KPKG KVER VMLINUZ p < "$sel"
    [ -f "$VMLINUZ" ] || die "$VMLINUZ is missing (run without KERNELS_OFFLINE)"
  else
    meta=$(apt-cache "${APT[@]}" depends linux-image-amd64 2> /dev/null \
             | sed -n 's/^ *|\{0,1\}Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1)
    # A suite without linux-image-amd64 (experimental may lack it): its
    # newest linux-image-<abi>-amd64.
    [ -n "$meta" ] || meta=$(apt-cache "${APT[@]}" pkgnames linux-image- 2> /dev/null \
                               | grep -E '^linux-image-[0-9][^ ]*-amd64$' | sort -V | tail -1)
    if [ -z "$meta" ] && [ "$suite" = experimental ]; then
      note "experimental: no kernel of its own at the moment: skipped"
      SKIP=1
      return
    fi
    [ -n "$meta" ] || die "$suite: no linux-image-amd64 nor linux-image-*-amd64 in $mirror (see $KDIR/$suite/update.log)"
    abi=${meta#linux-image-}
    KPKG=
    for p in "$meta-unsigned" "linux-binary-unsigned-$abi" "linux-binary-$abi" "$meta"; do
      if apt-cache "${APT[@]}" show "$p" > /dev/null 2>&1; then KPKG=$p; break; fi
    done
    [ -n "$KPKG" ] || die "$suite: no package of $meta"
    KVER=$(apt-cache "${APT[@]}" policy "$KPKG" | sed -n 's/^ *Candidate: //p')
    [ -n "$KVER" ] && [ "$KVER" != "(none)" ] || die "$suite: no version of $KPKG"
    if [ -f "$sel" ] && { read -r p v z _ < "$sel"; [ "$p $v" = "$KPKG $KVER" ] && [ -f "$z" ]; }; then
      VMLINUZ=$z
    else
      # Another kernel: the old one's packages and files go.
      rm -f "$KDIR/$suite"/*.deb "$KDIR/$suite"/vmlinuz-* "$KDIR/$suite"/modules-*
      deb=$(download "$suite" "$KPKG" "$KVER")
      member=$(dpkg-deb --fsys-tarfile "$deb" | tar -t \
                 | awk '(/^\.\/boot\/vmlinuz-/ || /^\.\/(usr\/)?lib\/modules\/[^\/]*\/vmlinuz/) && !f { print; f = 1 }')
      [ -n "$member" ] || die "$suite: no /boot/vmlinuz-* nor /usr/lib/modules/*/vmlinuz in $deb"
      case $member in
        ./boot/*) VMLINUZ=$KDIR/$suite/${member#./boot/} ;;
        *) z=${member%/vmlinuz*}; VMLINUZ=$KDIR/$suite/vmlinuz-${z##*/} ;;
      esac
      dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$member" > "$VMLINUZ.tmp"
      mv "$VMLINUZ.tmp" "$VMLINUZ"
    fi
  fi
  # The modules, made again when KERNEL_MODULES changes: in the kernel's
  # own package, or (7.x) in linux-modules-<abi>.
  KMODS=$KDIR/$suite/modules-${VMLINUZ##*/vmlinuz-}.cpio.gz
  if [ ! -f "$KMODS" ] || [ "$(cat "$KMODS.list" 2> /dev/null)" != "$KERNEL_MODULES" ]; then
    deb=$(download "$suite" "$KPKG" "$KVER")
    if ! dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -c '/kernel/fs/ext4/ext4\.ko' > /dev/null; then
      abi=${KPKG#linux-binary-}; abi=${abi#unsigned-}
      deb=$(download "$suite" "linux-modules-$abi" "$KVER")
    fi
    kernel_modules "$deb" "$KMODS"
    echo "$KERNEL_MODULES" > "$KMODS.list"
  fi
  echo "$KPKG $KVER $VMLINUZ $KMODS" > "$sel"
}

# download and kernel_modules: scripts/kernels-lib.sh.
KARCH=amd64
. "$HUGELD_TOP/scripts/kernels-lib.sh"

# The guest's programs: bigcheck relinked with hugeld as PT_INTERP
# (as in tests/t-interp.sh), and the static mremap probe.
SRC=$HUGELD_TOP/tests/fixtures
interp=$KDIR/bin/bigcheck-interp
probe=$KDIR/bin/probe-mremap
membind=$KDIR/bin/membind
if [ ! -f "$interp" ] || [ "$SRC/bigcheck.c" -nt "$interp" ] || [ "$SRC/big.h" -nt "$interp" ] \
   || [ "$FIXTURES/big-pic.o" -nt "$interp" ]; then
  cc -I"$SRC" -O2 -g -pthread -fPIE -pie "$SRC/bigcheck.c" "$FIXTURES/big-pic.o" \
    -o "$interp.tmp" -Wl,-z,relro -Wl,-z,pack-relative-relocs \
    -Wl,--dynamic-linker="$GUEST_LDSO" || die "cannot link $interp"
  mv "$interp.tmp" "$interp"
fi
if [ ! -f "$probe" ] || [ "$HUGELD_TOP/tests/kernels/probe-mremap.c" -nt "$probe" ]; then
  cc -static -O2 -Wall -Wextra "$HUGELD_TOP/tests/kernels/probe-mremap.c" -o "$probe.tmp" \
    || die "cannot build $probe"
  mv "$probe.tmp" "$probe"
fi

if [ ! -f "$membind" ] || [ "$HUGELD_TOP/tests/kernels/membind.c" -nt "$membind" ]; then
  cc -static -O2 -Wall -Wextra "$HUGELD_TOP/tests/kernels/membind.c" -o "$membind.tmp" \
    || die "cannot build $membind"
  mv "$membind.tmp" "$membind"
fi

collapse=$KDIR/bin/probe-collapse
if [ ! -f "$collapse" ] || [ "$HUGELD_TOP/tests/kernels/probe-collapse.c" -nt "$collapse" ]; then
  cc -static -O2 -Wall -Wextra "$HUGELD_TOP/tests/kernels/probe-collapse.c" -o "$collapse.tmp" \
    || die "cannot build $collapse"
  mv "$collapse.tmp" "$collapse"
fi

mkcache=$KDIR/bin/mkcache
if [ ! -f "$mkcache" ] || [ -n "$(find "$HUGELD_TOP/tests/kernels/mkcache.c" "$HUGELD_TOP"/elf/dl-hugepage-{plan,kinds,dynamic,match,cache,place}.c \
     "$HUGELD_TOP"/elf/dl-hugepage-*.h -newer "$mkcache")" ]; then
  cc -static -O2 -Wall -Wextra -I"$HUGELD_TOP/elf" "$HUGELD_TOP/tests/kernels/mkcache.c" \
    "$HUGELD_TOP"/elf/dl-hugepage-{plan,kinds,dynamic,match,cache,place}.c -o "$mkcache.tmp" \
    || die "cannot build $mkcache"
  mv "$mkcache.tmp" "$mkcache"
fi

# The mapper of t-thprepair, static: a running process that maps a
# library in small folios while the repair runs (7.2's file
# MADV_COLLAPSE makes them 2 MiB folios under it).
mapper=$KDIR/bin/mapper
if [ ! -f "$mapper" ] || [ "$HUGELD_TOP/tests/thprepair/mapper.c" -nt "$mapper" ]; then
  cc -static -O2 -Wall -Wextra "$HUGELD_TOP/tests/thprepair/mapper.c" -o "$mapper.tmp" \
    || die "cannot build $mapper"
  mv "$mapper.tmp" "$mapper"
fi

# hugeld-thp, static: the thp repair (hugeld thp repair) in the guest.
thprepair=$KDIR/bin/hugeld-thp
mapfile -t THP_SRCS < <(make -s --no-print-directory -C "$HUGELD_TOP/tools" thp-sources)
if [ ! -f "$thprepair" ] || [ -n "$(find "${THP_SRCS[@]}" "$HUGELD_TOP"/tools/*.h "$HUGELD_TOP"/elf/dl-hugepage-*.h -newer "$thprepair")" ]; then
  cc -static -O2 -Wall -Wextra -I"$HUGELD_TOP/elf" "${THP_SRCS[@]}" -o "$thprepair.tmp" \
    || die "cannot build $thprepair"
  mv "$thprepair.tmp" "$thprepair"
fi

# The initramfs (the same for every kernel: no modules needed).
ROOT=$KDIR/root
INITRD=$KDIR/initramfs.cpio.gz
rm -rf "$ROOT"
mkdir -p "$ROOT"/{t,opt/hugeld,proc,sys,dev,tmp,root}
# copy_in PATH: PATH into ROOT at the same place, with the symbolic
# links met on the way (merged /usr: /lib64 -> usr/lib64, ...).
copy_in () {
  local p cur='' c target
  p=$(realpath -m -s "$1")
  local IFS=/
  for c in ${p#/}; do
    cur=$cur/$c
    if [ -L "$cur" ]; then
      if [ ! -e "$ROOT$cur" ] && [ ! -L "$ROOT$cur" ]; then
        mkdir -p "$ROOT${cur%/*}"
        cp -P "$cur" "$ROOT$cur"
      fi
      target=$(readlink "$cur")
      case $target in /*) ;; *) target=${cur%/*}/$target ;; esac
      copy_in "$target${p#"$cur"}"
      return
    fi
  done
  if [ ! -e "$ROOT$p" ]; then
    mkdir -p "$ROOT${p%/*}"
    cp "$p" "$ROOT$p"
  fi
}
# The host's layout of /bin, /sbin, /lib and /lib64 (merged /usr or not).
for d in bin sbin lib lib64; do
  if [ -L "/$d" ]; then
    ln -s "$(readlink "/$d")" "$ROOT/$d"
    mkdir -p "$ROOT/$(realpath -m -s --relative-to=/ "$(dirname "/$d")/$(readlink "/$d")")"
  else
    mkdir -p "$ROOT/$d"
  fi
done
# The init script starts with #!/bin/busybox.
copy_in /bin/busybox
install -m 755 "$HUGELD_TOP/tests/kernels/init.sh" "$ROOT/init"
cp "$LDSO" "$ROOT$GUEST_LDSO"
copy_in "$SYSTEM_LDSO"
for f in bigcheck-shared bigcheck-dlopen bigcheck-pie bigcheck-nopie libbig.so; do
  cp "$FIXTURES/$f" "$ROOT/t/"
done
cp "$interp" "$probe" "$membind" "$mkcache" "$collapse" "$thprepair" "$mapper" "$ROOT/t/"
# The libraries they need (libc.so.6), at the host's paths.
for f in "$ROOT"/t/bigcheck-* "$ROOT/t/libbig.so"; do
  "$SYSTEM_LDSO" --list "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
  case $lib in "$ROOT"/*|"$FIXTURES"/*) ;; *) copy_in "$lib" ;; esac
done
[ "$(id -u)" = 0 ] && mknod -m 600 "$ROOT/dev/console" c 5 1 2> /dev/null || :
(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
  | gzip -1 > "$INITRD.tmp"
mv "$INITRD.tmp" "$INITRD"
note "initramfs: $(du -h "$INITRD" | cut -f1) ($(du -sh "$ROOT" | cut -f1) unpacked); loader $LDSO of $(date -r "$LDSO" '+%F %T')"
rm -rf "$ROOT"

# The ext4 disk (/dev/vda in the guest, read-only) for the check of
# file THP: bigcheck-shared and libbig.so.  4 KiB blocks (mke2fs would
# take 1 KiB ones for so small a file system) and only features that
# Linux 5.10 mounts and that need no crc32c module (no metadata_csum,
# orphan_file), whatever the host's mke2fs.conf says.
EXT4_IMG=$KDIR/ext4.img
if [ ! -f "$EXT4_IMG" ] || [ "$FIXTURES/libbig.so" -nt "$EXT4_IMG" ] \
   || [ "$FIXTURES/bigcheck-shared" -nt "$EXT4_IMG" ] || [ "$0" -nt "$EXT4_IMG" ]; then
  command -v mke2fs > /dev/null || PATH=$PATH:/sbin:/usr/sbin
  rm -rf "$EXT4_IMG.d"
  mkdir -p "$EXT4_IMG.d/t"
  cp "$FIXTURES/bigcheck-shared" "$FIXTURES/libbig.so" "$EXT4_IMG.d/t/"
  cat > "$EXT4_IMG.conf" << 'EOF2'
[defaults]
	base_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr
	blocksize = 4096
	inode_size = 256
	inode_ratio = 16384
[fs_types]
	ext4 = {
		features = has_journal,extent,huge_file,flex_bg,64bit,dir_nlink,extra_isize
	}
EOF2
  rm -f "$EXT4_IMG.tmp"
  MKE2FS_CONFIG=$EXT4_IMG.conf mke2fs -q -F -t ext4 -T ext4 -L hugeld -d "$EXT4_IMG.d" \
    "$EXT4_IMG.tmp" $(( $(du -sm "$EXT4_IMG.d" | cut -f1) + 32 ))M > /dev/null \
    || die "cannot make $EXT4_IMG (mke2fs -d, e2fsprogs >= 1.43)"
  mv "$EXT4_IMG.tmp" "$EXT4_IMG"
  rm -rf "$EXT4_IMG.d" "$EXT4_IMG.conf"
fi

# The XFS disk (/dev/vdb, read-only) with the same two files: a file
# system with large folios from Linux 5.18 on, where the thp repair's
# drop and read again (not MADV_COLLAPSE) decides the coverage before
# 7.x.  300
# MiB (mkfs.xfs's minimum), sparse; without bigtime and inobtcount,
# which Linux 5.10 only knows as experimental.  Made through a loop
# mount, so only where this host can (root, a loop device): the guests
# then report that XFS was not checked.
XFS_IMG=$KDIR/xfs.img
if [ ! -f "$XFS_IMG" ] || [ "$FIXTURES/libbig.so" -nt "$XFS_IMG" ] \
   || [ "$FIXTURES/bigcheck-shared" -nt "$XFS_IMG" ] || [ "$0" -nt "$XFS_IMG" ]; then
  command -v mkfs.xfs > /dev/null || PATH=$PATH:/sbin:/usr/sbin
  rm -f "$XFS_IMG" "$XFS_IMG.tmp"
  mnt=$KDIR/xfs.mnt
  mkdir -p "$mnt"
  if truncate -s 300M "$XFS_IMG.tmp" \
     && mkfs.xfs -q -f -L hugeld -m bigtime=0,inobtcount=0 "$XFS_IMG.tmp" > "$KDIR/xfs.log" 2>&1 \
     && timeout 60 mount -o loop "$XFS_IMG.tmp" "$mnt" >> "$KDIR/xfs.log" 2>&1; then
    mkdir -p "$mnt/t"
    cp "$FIXTURES/bigcheck-shared" "$FIXTURES/libbig.so" "$mnt/t/" && ok=1 || ok=
    timeout 60 umount "$mnt" || umount -l "$mnt" || :
    [ -n "$ok" ] && mv "$XFS_IMG.tmp" "$XFS_IMG"
  fi
  rm -f "$XFS_IMG.tmp"
  rmdir "$mnt" 2> /dev/null || :
  [ -f "$XFS_IMG" ] || note "no XFS image (mkfs.xfs or a loop mount failed: $(tail -1 "$KDIR/xfs.log" 2> /dev/null)); XFS is not checked"
fi
xfs_drive=()
[ -f "$XFS_IMG" ] && xfs_drive=(-drive "file=$XFS_IMG,format=raw,if=virtio,readonly=on")
note "qemu with $accel${accel_why:+ ($accel_why)}"

# boot: boot VMLINUZ with INITRD, the console going to $log; sets rc
# (qemu's exit status, 124 if BOOT_TIMEOUT ran out).  Under KVM, if the
# guest's /init has not spoken after KVM_START_TIMEOUT seconds, KVM is
# given up and the boot done again with TCG (for this and the later
# kernels).
boot () {
  local pid waited=0 why
  : > "$log"
  timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -nodefaults -no-user-config "${qemu_accel[@]}" \
    -smp 2 -m "$QEMU_MEM" -object memory-backend-ram,id=m0,size=$((QEMU_MEM_MIB / 2))M \
    -object memory-backend-ram,id=m1,size=$((QEMU_MEM_MIB - QEMU_MEM_MIB / 2))M \
    -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
    -display none -monitor none -serial "file:$log" -no-reboot \
    -drive "file=$EXT4_IMG,format=raw,if=virtio,readonly=on" "${xfs_drive[@]}" \
    -kernel "$VMLINUZ" -initrd "$KINITRD" \
    -append "console=ttyS0 loglevel=3 panic=-1 hugepages=$KERNEL_POOL hugeld.timeout=$RUN_TIMEOUT" \
    < /dev/null > "${log%.log}.qemu" 2>&1 &
  pid=$!
  if [ "$accel" = kvm ]; then
    while kill -0 $pid 2> /dev/null && ! grep -q '@hugeld' "$log" \
          && [ $waited -lt "$KVM_START_TIMEOUT" ]; do
      sleep 1
      waited=$((waited + 1))
    done
    if ! grep -q '@hugeld' "$log"; then
      if kill $pid 2> /dev/null; then why="no word from the guest after ${waited}s"
      else why="qemu failed: $(tail -1 "${log%.log}.qemu")"
      fi
      wait $pid || :
      note "$label: KVM: $why: using TCG"
      set_accel tcg
      boot
      return
    fi
  fi
  rc=0
  wait $pid || rc=$?
}

passed=0 failed=0
result () { # PASS|FAIL LABEL CHECK
  echo "$1: $2: $3"
  if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

for suite in "${suites[@]}"; do
  fetch_kernel "$suite"
  [ -z "$SKIP" ] || continue
  label=kernels-$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<< "$KVER")
  log=$KDIR/logs/${label#kernels-}.log
  note "$label: booting $KPKG $KVER (${VMLINUZ##*/}, $suite) with $accel"
  # The initramfs and this kernel's modules: two concatenated archives.
  KINITRD=$KDIR/initramfs-kernel.cpio.gz
  cat "$INITRD" "$KMODS" > "$KINITRD"
  start=$(date +%s)
  boot
  note "$label: $(( $(date +%s) - start ))s (serial console: $log)"
  done=0
  while IFS= read -r line; do
    case $line in
      "PASS "*) result PASS "$label" "${line#PASS }" ;;
      "FAIL "*) result FAIL "$label" "${line#FAIL }" ;;
      DONE) done=1 ;;
    esac
  done < <(tr -d '\r' < "$log" 2> /dev/null | grep -o '@hugeld .*' | sed 's/^@hugeld //')
  if [ $done = 0 ]; then
    if [ "$rc" = 124 ]; then why="timed out after ${BOOT_TIMEOUT}s"
    else why="qemu exited $rc before the guest finished"
    fi
    result FAIL "$label" "guest: $why: $( (tr -d '\r' < "$log"; cat "${log%.log}.qemu") 2> /dev/null | grep -v '^ *$' | tail -4 | tr '\n' ' ')"
  fi
done

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
