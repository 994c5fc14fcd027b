#!/bin/bash
# make check-arm64: the arm64 loader (make build ARCH=arm64, cross-built
# here) under Debian's arm64 kernels, booted with qemu-system-aarch64
# (TCG, -M virt, -cpu max: BTI and PAC; 2 vCPUs) from an initramfs, as
# make check-kernels boots the amd64 one: the same guest script,
# tests/kernels/init.sh, with the stock loader of Debian 12's arm64
# libc6 (/lib/ld-linux-aarch64.so.1, hugeld.stock= on the kernel's
# command line), the fixtures cross-built for arm64, and the arm64
# checks of tests/arm64/init-arm64.sh after it (the BTI test in every
# backing, the text's ends on 64 KiB pages).  Then the whole machine: a
# debootstrapped Debian 12 arm64 root booted with each kernel, where
# the arm64 .deb is installed, real programs (python3, perl, sqlite3,
# clang-14) run with every object selected under each backing, clang's
# libraries' text is measured by page size, and hugeld is made the
# system loader and taken out again (tests/arm64/root-run.sh).
#
#   scripts/check-arm64.sh [SUITE...]
#       default: bookworm trixie sid (Linux 6.1, 6.12, 7.x); "none": only
#       the whole machine's checks, with bookworm's kernel
#
# The guest's user space is Debian 12's arm64 libc6 of exactly the
# version the loader was built from (glibc-source is the same for every
# architecture) and busybox-static, both downloaded with apt through a
# private apt state for arm64 under build/arm64/kernels/apt (the host's
# dpkg gets no foreign architecture).  The kernels are each suite's
# linux-image-arm64 (its -unsigned twin, or from 7.x on
# linux-binary-unsigned-<abi>-arm64 and linux-modules-<abi>-arm64),
# found as check-kernels.sh finds the amd64 ones; their vmlinuz
# (gzip-compressed Image, or an EFI zboot image) is decompressed to the
# raw Image qemu boots.  Prints "PASS: arm64-<version>: <check>" or
# "FAIL: ..." per check and "N passed, N failed"; the serial console of
# each boot is build/arm64/kernels/logs/<version>.log.
#
# Environment: KERNELS_OFFLINE=1 (no apt-get update: the cached
# kernels), KERNEL_MIRROR / KERNEL_SECURITY_MIRROR, ARM64_LDSO (another
# loader than build/arm64/obj/elf/ld.so), QEMU_MEM_MIB (1536: 7.2 ran out of
# memory on node 0 with 1024),
# KERNEL_POOL (huge pages of 2 MiB, 64), KERNEL_POOL64 (of 64 KiB,
# 256), BOOT_TIMEOUT (s per boot, 1500),
# RUN_TIMEOUT (s per program run in the guest, 300).
set -euo pipefail
export HUGELD_ARCH=arm64
. "$(dirname "$0")/config.sh"

KDIR=$BUILDDIR/arm64/kernels
FIX=$BUILDDIR/arm64/tests
LDSO=${ARM64_LDSO:-$OBJDIR/elf/ld.so}
GUEST_LDSO=/opt/hugeld/ld.so
STOCK=/lib/ld-linux-aarch64.so.1
QEMU_MEM_MIB=${QEMU_MEM_MIB:-1536}
KERNEL_POOL=${KERNEL_POOL:-64}
KERNEL_POOL64=${KERNEL_POOL64:-256}
ARM64_ROOT_POOL=${ARM64_ROOT_POOL:-200}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-1500}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || read -r -a suites <<< "${KERNEL_SUITES:-bookworm trixie sid}"

note () { echo "hugeld: $*" >&2; }

[ -x "$LDSO" ] || die "$LDSO is missing: build the arm64 loader first (make build ARCH=arm64)"
"$HUGELD_TOP/scripts/deps.sh" arm64
gccv=$(sed -n 's/^DEB_GCC_VERSION ?= *\(-[0-9][0-9]*\) *$/\1/p' "$GLIBC_DEBIAN/rules" | head -1)
CC=$HUGELD_TRIPLET-gcc$gccv
STRIP=$HUGELD_TRIPLET-strip
command -v "$CC" > /dev/null || die "$CC is missing (scripts/deps.sh arm64)"
mkdir -p "$KDIR/logs" "$FIX"

read -r mirror security <<< "$(debian_mirrors) "
mirror=${KERNEL_MIRROR:-$mirror} security=${KERNEL_SECURITY_MIRROR:-$security}
[ -n "$mirror" ] || die "cannot find the Debian archive in the host's apt sources (set KERNEL_MIRROR)"
apt_for () { PRIVATE_APT_ARCH=arm64 private_apt "$KDIR/apt/$1" "$1" "$mirror" "$security"; }
apt_update () { # SUITE
  local suite=$1
  mkdir -p "$KDIR/$suite"
  apt_for "$suite"
  [ "${KERNELS_OFFLINE:-0}" = 1 ] && return 1
  apt-get "${APT[@]}" update > "$KDIR/$suite/update.log" 2>&1 && return 0
  note "$suite: apt-get update failed (see $KDIR/$suite/update.log): using what is cached"
  return 1
}

# download and kernel_modules: scripts/kernels-lib.sh.
KARCH=arm64
. "$HUGELD_TOP/scripts/kernels-lib.sh"

# The guest's user space: libc6 of exactly the loader's version, and
# busybox-static, from bookworm (the release whose glibc-source the
# loader is built from).
USERSUITE=${ARM64_USER_SUITE:-$(os_codename)}
if apt_update "$USERSUITE"; then
  v=$(apt-cache "${APT[@]}" policy libc6 | sed -n 's/^ *Candidate: //p')
  [ "$v" = "$GLIBC_DEBVERSION" ] || die "$USERSUITE's arm64 libc6 is $v, the loader is built from glibc-source $GLIBC_DEBVERSION: update the host (apt-get upgrade) or its archive"
  bb=$(apt-cache "${APT[@]}" policy busybox-static | sed -n 's/^ *Candidate: //p')
  echo "libc6 $v busybox-static $bb" > "$KDIR/$USERSUITE/user"
fi
read -r _ v _ bb < "$KDIR/$USERSUITE/user" || die "no cached arm64 user space (run without KERNELS_OFFLINE)"
LIBC_DEB=$(download "$USERSUITE" libc6 "$v")
BUSYBOX_DEB=$(download "$USERSUITE" busybox-static "$bb")

# The kernels (fetch_kernel of check-kernels.sh, for arm64).
fetch_kernel () {
  SKIP=
  local suite=$1 sel=$KDIR/$1/selected meta abi p z deb member
  if ! apt_update "$suite"; then
    [ -f "$sel" ] || die "no cached kernel for $suite"
    read -r KPKG KVER IMAGE KMODS < "$sel"
    return
  fi
  meta=$(apt-cache "${APT[@]}" depends linux-image-arm64 2> /dev/null \
           | sed -n 's/^ *|\{0,1\}Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1)
  [ -n "$meta" ] || meta=$(apt-cache "${APT[@]}" pkgnames linux-image- 2> /dev/null \
                             | grep -E '^linux-image-[0-9][^ ]*-arm64$' | sort -V | tail -1)
  if [ -z "$meta" ]; then
    note "$suite: no arm64 kernel: skipped"
    SKIP=1
    return
  fi
  abi=${meta#linux-image-}
  KPKG=
  for p in "$meta-unsigned" "linux-binary-unsigned-$abi" "linux-binary-$abi" "$meta"; do
    if apt-cache "${APT[@]}" show "$p" > /dev/null 2>&1; then KPKG=$p; break; fi
  done
  [ -n "$KPKG" ] || die "$suite: no package of $meta"
  KVER=$(apt-cache "${APT[@]}" policy "$KPKG" | sed -n 's/^ *Candidate: //p')
  IMAGE=$KDIR/$suite/Image-$abi
  KMODS=$KDIR/$suite/modules-$abi.cpio.gz
  if [ -f "$sel" ] && { read -r p z _ < "$sel"; [ "$p $z" = "$KPKG $KVER" ]; } \
     && [ -f "$IMAGE" ] && [ -f "$KMODS" ] && [ "$(cat "$KMODS.list" 2> /dev/null)" = "$KERNEL_MODULES" ]; then
    return
  fi
  rm -f "$KDIR/$suite"/linux-*.deb "$KDIR/$suite"/Image-* "$KDIR/$suite"/modules-*
  deb=$(download "$suite" "$KPKG" "$KVER")
  member=$(dpkg-deb --fsys-tarfile "$deb" | tar -t \
             | awk '(/^\.\/boot\/vmlinuz-/ || /^\.\/(usr\/)?lib\/modules\/[^\/]*\/vmlinuz/) && !f { print; f = 1 }')
  [ -n "$member" ] || die "$suite: no vmlinuz in $deb"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$member" > "$IMAGE.z"
  raw_image "$IMAGE.z" "$IMAGE.tmp" || die "$suite: cannot make a raw Image of $member"
  rm -f "$IMAGE.z"
  mv "$IMAGE.tmp" "$IMAGE"
  if ! dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -c '/kernel/fs/ext4/ext4\.ko' > /dev/null; then
    p=${KPKG#linux-binary-}; p=${p#unsigned-}
    deb=$(download "$suite" "linux-modules-$p" "$KVER")
  fi
  kernel_modules "$deb" "$KMODS"
  echo "$KERNEL_MODULES" > "$KMODS.list"
  echo "$KPKG $KVER $IMAGE $KMODS" > "$sel"
}

# raw_image IN OUT: the arm64 Image in vmlinuz IN: gzip-compressed, or
# an EFI zboot image ("MZ", "zimg" at 4, the payload's offset and size
# at 8 and 12, its compression at 24), or already raw.
raw_image () {
  local in=$1 out=$2 magic off size comp
  magic=$(head -c 4 "$in" | od -An -tx1 | tr -d ' \n')
  case $magic in
    1f8b*) gzip -dc "$in" > "$out" ;;
    4d5a*)
      if [ "$(dd if="$in" bs=1 skip=4 count=4 2> /dev/null)" = zimg ]; then
        off=$(od -An -tu4 -j8 -N4 "$in" | tr -d ' ')
        size=$(od -An -tu4 -j12 -N4 "$in" | tr -d ' ')
        comp=$(dd if="$in" bs=1 skip=24 count=8 2> /dev/null | tr -d '\0')
        case $comp in
          gzip) tail -c +$((off + 1)) "$in" | head -c "$size" | gzip -dc > "$out" ;;
          zstd) tail -c +$((off + 1)) "$in" | head -c "$size" | zstd -qdc > "$out" ;;
          xz) tail -c +$((off + 1)) "$in" | head -c "$size" | xz -dc > "$out" ;;
          *) return 1 ;;
        esac
      else
        cp "$in" "$out"
      fi ;;
    *) cp "$in" "$out" ;;
  esac
  # The arm64 Image header's magic, "ARM\x64", at 0x38.
  [ "$(od -An -tx1 -j56 -N4 "$out" | tr -d ' \n')" = 41524d64 ]
}


# The guest's programs, cross-built: the fixtures, bigcheck with
# PT_INTERP /opt/hugeld/ld.so, the static probes and tools, the BTI
# test (tests/arm64/bti*.c).  Debian 12's arm64 ld does not separate
# code from read-only data by default (its amd64 ld does): the fixtures
# are linked with -z separate-code, so that they have the segments
# bigcheck expects, as on amd64.
make -s -C "$HUGELD_TOP/tests/fixtures" CC="$CC" OUT="$FIX" LDFLAGS=-Wl,-z,separate-code \
  "$FIX/bigcheck-shared" "$FIX/bigcheck-dlopen" "$FIX/bigcheck-pie" \
  "$FIX/bigcheck-nopie" "$FIX/libbig.so" "$FIX/big-pic.o" 2>&1 \
  | grep -v 'pack-relative-relocs ignored' >&2 || :
SRC=$HUGELD_TOP/tests/fixtures
K=$HUGELD_TOP/tests/kernels
A=$HUGELD_TOP/tests/arm64
# build OUT DEPS... -- CC-ARGS...: OUT made again when a DEP is newer.
build () {
  local out=$1 deps=() a
  shift
  while [ "$1" != -- ]; do deps+=("$1"); shift; done
  shift
  if [ ! -f "$out" ] || [ -n "$(find "${deps[@]}" -newer "$out" 2> /dev/null)" ]; then
    "$CC" "$@" -o "$out.tmp" || die "cannot build $out"
    mv "$out.tmp" "$out"
  fi
}
build "$FIX/bigcheck-interp" "$SRC/bigcheck.c" "$SRC/big.h" "$FIX/big-pic.o" -- \
  -I"$SRC" -O2 -g -pthread -fPIE -pie "$SRC/bigcheck.c" "$FIX/big-pic.o" \
  -Wl,-z,relro -Wl,-z,separate-code -Wl,--dynamic-linker="$GUEST_LDSO"
for p in probe-mremap membind probe-collapse; do
  build "$FIX/$p" "$K/$p.c" -- -static -O2 -Wall -Wextra "$K/$p.c"
done
# The mapper of t-thprepair (init.sh's thp-held-collapse: a running
# process that maps the text in small folios), as check-kernels.sh
# builds it.
build "$FIX/mapper" "$HUGELD_TOP/tests/thprepair/mapper.c" -- -static -O2 -Wall -Wextra \
  "$HUGELD_TOP/tests/thprepair/mapper.c"
build "$FIX/mkcache" "$K/mkcache.c" "$HUGELD_TOP"/elf/dl-hugepage-*.[ch] -- \
  -static -O2 -Wall -Wextra -I"$HUGELD_TOP/elf" "$K/mkcache.c" \
  "$HUGELD_TOP"/elf/dl-hugepage-{plan,kinds,dynamic,match,cache,place}.c
mapfile -t THP_SRCS < <(make -s --no-print-directory -C "$HUGELD_TOP/tools" thp-sources)
build "$FIX/hugeld-thp" "${THP_SRCS[@]}" "$HUGELD_TOP"/tools/*.h "$HUGELD_TOP"/elf/dl-hugepage-*.h -- \
  -static -O2 -Wall -Wextra -I"$HUGELD_TOP/elf" "${THP_SRCS[@]}"
BTI_FLAGS=(-O2 -Wall -Wextra -mbranch-protection=standard)
build "$FIX/libbti.so" "$A/btilib.c" "$A/bti.h" -- "${BTI_FLAGS[@]}" -fPIC -shared \
  -nostartfiles -Wl,-soname,libbti.so "$A/btilib.c"
build "$FIX/bti-main" "$A/bti.c" "$A/bti.h" "$A/bti-start.S" "$FIX/libbti.so" -- \
  "${BTI_FLAGS[@]}" -DBTI_MAIN -fPIE -pie -nostartfiles "$A/bti-start.S" "$A/bti.c" \
  -L"$FIX" -lbti -Wl,-rpath,/t
build "$FIX/bti-main-interp" "$A/bti.c" "$A/bti.h" "$A/bti-start.S" "$FIX/libbti.so" -- \
  "${BTI_FLAGS[@]}" -DBTI_MAIN -fPIE -pie -nostartfiles "$A/bti-start.S" "$A/bti.c" \
  -L"$FIX" -lbti -Wl,-rpath,/t -Wl,--dynamic-linker="$GUEST_LDSO"
for f in libbti.so bti-main; do
  "$HUGELD_TRIPLET-readelf" -nW "$FIX/$f" | grep -q 'AArch64 feature: BTI' \
    || die "$FIX/$f has no BTI property note"
done

# The initramfs: busybox, libc6, the loader, /t.
ROOT=$KDIR/root
INITRD=$KDIR/initramfs.cpio.gz
rm -rf "$ROOT"
mkdir -p "$ROOT"/{t,opt/hugeld,proc,sys,dev,tmp,root,bin}
dpkg-deb -x "$LIBC_DEB" "$ROOT"
dpkg-deb --fsys-tarfile "$BUSYBOX_DEB" | tar -x -C "$ROOT" ./bin/busybox
rm -rf "$ROOT/usr/share"
[ -e "$ROOT$STOCK" ] || die "$LIBC_DEB has no $STOCK"
install -m 755 "$K/init.sh" "$ROOT/init"
install -m 644 "$A/init-arm64.sh" "$ROOT/t/init-more.sh"
cp "$LDSO" "$ROOT$GUEST_LDSO"
for f in bigcheck-shared bigcheck-dlopen bigcheck-pie bigcheck-nopie libbig.so bigcheck-interp \
         probe-mremap membind probe-collapse mkcache hugeld-thp mapper libbti.so bti-main \
         bti-main-interp; do
  "$STRIP" -o "$ROOT/t/$f" "$FIX/$f" 2> /dev/null || cp "$FIX/$f" "$ROOT/t/$f"
done
[ "$(id -u)" = 0 ] && mknod -m 600 "$ROOT/dev/console" c 5 1 2> /dev/null || :
(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
  | gzip -1 > "$INITRD.tmp"
mv "$INITRD.tmp" "$INITRD"
note "arm64 initramfs: $(du -h "$INITRD" | cut -f1); loader $LDSO of $(date -r "$LDSO" '+%F %T')"
rm -rf "$ROOT"

# The ext4 disk (/dev/vda, read-only): bigcheck-shared and libbig.so,
# for init.sh's file THP checks (as check-kernels.sh makes it).
EXT4_IMG=$KDIR/ext4.img
if [ ! -f "$EXT4_IMG" ] || [ "$FIX/libbig.so" -nt "$EXT4_IMG" ] || [ "$0" -nt "$EXT4_IMG" ]; then
  command -v mke2fs > /dev/null || PATH=$PATH:/sbin:/usr/sbin
  rm -rf "$EXT4_IMG.d"
  mkdir -p "$EXT4_IMG.d/t"
  "$STRIP" -o "$EXT4_IMG.d/t/bigcheck-shared" "$FIX/bigcheck-shared"
  "$STRIP" -o "$EXT4_IMG.d/t/libbig.so" "$FIX/libbig.so"
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
    || die "cannot make $EXT4_IMG"
  mv "$EXT4_IMG.tmp" "$EXT4_IMG"
  rm -rf "$EXT4_IMG.d" "$EXT4_IMG.conf"
fi

passed=0 failed=0
result () { # PASS|FAIL LABEL CHECK
  echo "$1: $2: $3"
  if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

total_start=$(date +%s)
for suite in "${suites[@]}"; do
  [ "$suite" != none ] || continue
  fetch_kernel "$suite"
  [ -z "$SKIP" ] || continue
  label=arm64-$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<< "$KVER")
  log=$KDIR/logs/${label#arm64-}.log
  note "$label: booting $KPKG $KVER ($suite) with qemu-system-aarch64 (TCG)"
  KINITRD=$KDIR/initramfs-kernel.cpio.gz
  cat "$INITRD" "$KMODS" > "$KINITRD"
  start=$(date +%s)
  : > "$log"
  rc=0
  timeout "$BOOT_TIMEOUT" qemu-system-aarch64 -nodefaults -no-user-config \
    -M virt -accel tcg -cpu max,pauth-impdef=on -smp 2 -m "${QEMU_MEM_MIB}M" \
    -object memory-backend-ram,id=m0,size=$((QEMU_MEM_MIB / 2))M \
    -object memory-backend-ram,id=m1,size=$((QEMU_MEM_MIB - QEMU_MEM_MIB / 2))M \
    -numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
    -display none -monitor none -serial "file:$log" -no-reboot \
    -drive "file=$EXT4_IMG,format=raw,if=virtio,readonly=on" \
    -kernel "$IMAGE" -initrd "$KINITRD" \
    -append "console=ttyAMA0 loglevel=3 panic=-1 hugepages=$KERNEL_POOL hugepagesz=64K hugepages=$KERNEL_POOL64 hugeld.timeout=$RUN_TIMEOUT hugeld.stock=$STOCK" \
    < /dev/null > "${log%.log}.qemu" 2>&1 || rc=$?
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

# boot_root LABEL LOG APPEND DRIVES...: boot the kernel fetch_kernel
# chose with the root initramfs (tests/arm64/root-init.sh) and DRIVES,
# then collect the log's results as the initramfs boots do.
boot_root () {
  local label=$1 log=$2 append=$3 rc=0 line done=0 start
  shift 3
  cat "$KDIR/rootinit.cpio.gz" "$KMODS" > "$KDIR/rootinit-kernel.cpio.gz"
  : > "$log"
  start=$(date +%s)
  timeout "$BOOT_TIMEOUT" qemu-system-aarch64 -nodefaults -no-user-config \
    -M virt -accel tcg -cpu max,pauth-impdef=on -smp 2 -m "${QEMU_MEM_MIB}M" \
    -display none -monitor none -serial "file:$log" -no-reboot "$@" \
    -kernel "$IMAGE" -initrd "$KDIR/rootinit-kernel.cpio.gz" \
    -append "console=ttyAMA0 loglevel=3 panic=-1 $append" \
    < /dev/null > "${log%.log}.qemu" 2>&1 || rc=$?
  note "${log##*/}: $(( $(date +%s) - start ))s (serial console: $log)"
  while IFS= read -r line; do
    case $line in
      "PASS "*) result PASS "$label" "${line#PASS }" ;;
      "FAIL "*) result FAIL "$label" "${line#FAIL }" ;;
      DONE) done=1 ;;
    esac
  done < <(tr -d '\r' < "$log" 2> /dev/null | grep -o '@hugeld .*' | sed 's/^@hugeld //')
  [ $done = 1 ] || result FAIL "$label" "guest: qemu exited $rc before the guest finished: $( (tr -d '\r' < "$log"; cat "${log%.log}.qemu") 2> /dev/null | grep -v '^ *$' | tail -4 | tr '\n' ' ')"
}

# The whole machine (ARM64_ROOT=0 leaves it out): a debootstrapped
# Debian 12 arm64 root (minbase and ARM64_ROOT_PKGS), its second stage
# run in the guest once under bookworm's kernel (build/arm64/root.img,
# cached; 680 s here), then booted with each kernel as a copy-on-write
# snapshot with the arm64 .deb (make deb ARCH=arm64) and
# tests/arm64/root-run.sh on a second disk (about 90 s a kernel).
ARM64_ROOT_PKGS=${ARM64_ROOT_PKGS:-python3,perl,sqlite3,clang-14}
if [ "${ARM64_ROOT:-1}" = 1 ]; then
  # The kernels the root is booted with: those of the run, or (none)
  # bookworm's.
  root_suites=()
  for suite in "${suites[@]}"; do [ "$suite" = none ] || root_suites+=("$suite"); done
  [ ${#root_suites[@]} -gt 0 ] || root_suites=(bookworm)
  RDIR=$BUILDDIR/arm64/rootfs
  RIMG=$BUILDDIR/arm64/root.img
  fetch_kernel bookworm
  rr=$KDIR/rootinit
  rm -rf "$rr"
  mkdir -p "$rr/bin" "$rr/dev"
  dpkg-deb --fsys-tarfile "$BUSYBOX_DEB" | tar -x -C "$rr" ./bin/busybox
  install -m 755 "$A/root-init.sh" "$rr/init"
  [ "$(id -u)" = 0 ] && mknod -m 600 "$rr/dev/console" c 5 1 2> /dev/null || :
  (cd "$rr" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
    | gzip -1 > "$KDIR/rootinit.cpio.gz"
  rm -rf "$rr"
  if [ "$(cat "$RIMG.done" 2> /dev/null)" != "$ARM64_ROOT_PKGS $GLIBC_DEBVERSION" ]; then
    command -v debootstrap > /dev/null || "$HUGELD_TOP/scripts/deps.sh" distro
    rm -rf "$RDIR" "$RIMG" "$RIMG.done"
    note "arm64 root: debootstrap --foreign (minbase, $ARM64_ROOT_PKGS)"
    debootstrap --foreign --arch=arm64 --variant=minbase --include="$ARM64_ROOT_PKGS" \
      bookworm "$RDIR" "$mirror" > "$BUILDDIR/arm64/debootstrap.log" 2>&1 \
      || die "debootstrap --foreign failed (see $BUILDDIR/arm64/debootstrap.log)"
    install -m 755 "$A/stage2.sh" "$RDIR/hugeld-stage2"
    command -v mke2fs > /dev/null || PATH=$PATH:/sbin:/usr/sbin
    mke2fs -q -F -t ext4 -L hugeld-root -d "$RDIR" "$RIMG.tmp" 4G \
      || die "cannot make $RIMG"
    rm -rf "$RDIR"
    note "arm64 root: debootstrap --second-stage in the guest (TCG)"
    boot_root arm64-root "$KDIR/logs/root-stage2.log" "hugeld.run=/hugeld-stage2" \
      -drive "file=$RIMG.tmp,format=raw,if=virtio"
    if grep -q '@hugeld PASS root: debootstrap' "$KDIR/logs/root-stage2.log"; then
      mv "$RIMG.tmp" "$RIMG"
      echo "$ARM64_ROOT_PKGS $GLIBC_DEBVERSION" > "$RIMG.done"
    fi
  fi
  if [ -f "$RIMG" ] && [ -f "$A/root-run.sh" ]; then
    deb=$(ls -t "$BUILDDIR"/hugeld_*+"$GLIBC_DEBVERSION"_arm64.deb 2> /dev/null | head -1)
    [ -n "$deb" ] || die "no arm64 .deb: make deb ARCH=arm64 first"
    rd=$BUILDDIR/arm64/run.d
    rm -rf "$rd"
    mkdir -p "$rd"
    cp "$deb" "$rd/hugeld.deb"
    install -m 755 "$A/root-run.sh" "$rd/run.sh"
    build "$FIX/atexit-smaps" "$HUGELD_TOP/tests/programs/atexit-smaps.c" -- \
      -O2 -Wall -Wextra "$HUGELD_TOP/tests/programs/atexit-smaps.c"
    cp "$FIX/atexit-smaps" "$FIX/bti-main" "$FIX/libbti.so" "$rd/"
    cp "$A/coverage.py" "$A/programs.sh" "$rd/"
    install -m 755 "$A/sys-install.sh" "$A/sys-boot.sh" "$rd/"
    # glibc's own tests (ARM64_GLIBC=0 leaves them out): the tests of
    # ARM64_GLIBC_SUBDIRS (elf) built on the host by make check with a
    # test-wrapper that records each test's command instead of running
    # it (tests/arm64/glibc-record.sh; 143 s here), and the build tree on
    # a third disk (a copy-on-write snapshot), which the guest mounts
    # where it was built and runs the commands from, twice
    # (tests/arm64/glibc-run.sh; 337 s): with the first kernel only.
    glibc_drive=()
    if [ "${ARM64_GLIBC:-1}" = 1 ]; then
      rec=$BUILDDIR/arm64/glibc-tests.list
      gsub=${ARM64_GLIBC_SUBDIRS:-elf}
      if [ ! -f "$rec" ] || [ "$OBJDIR/elf/ld.so" -nt "$rec" ] || [ "$(cat "$rec.subdirs" 2> /dev/null)" != "$gsub" ]; then
        note "glibc's tests: building the tests of $gsub (cross) and recording their commands"
        : > "$rec.tmp"
        gstart=$(date +%s)
        HUGELD_GLIBC_RECORD=$rec.tmp make -k -C "$OBJDIR" subdirs="$gsub" -j"$(nproc)" check \
          test-wrapper="$A/glibc-record.sh" > "$BUILDDIR/arm64/glibc-build.log" 2>&1 \
          || note "glibc's tests: make check ended with errors (see $BUILDDIR/arm64/glibc-build.log)"
        note "glibc's tests: $(wc -l < "$rec.tmp") commands recorded in $(( $(date +%s) - gstart ))s"
        mv "$rec.tmp" "$rec"
        echo "$gsub" > "$rec.subdirs"
      fi
      gd=$BUILDDIR/arm64/glibc-img.d
      rm -rf "$gd" "$BUILDDIR/arm64/glibc.img"
      mkdir -p "$gd/arm64"
      cp -al "$SRCDIR" "$gd/src"
      cp -al "$OBJDIR" "$gd/arm64/obj"
      mke2fs -q -F -t ext4 -d "$gd" "$BUILDDIR/arm64/glibc.img" \
        $(( $(du -sm "$gd" | cut -f1) * 3 / 2 + 256 ))M || die "cannot make glibc.img"
      rm -rf "$gd"
      cp "$rec" "$rd/glibc-tests.list"
      echo "$BUILDDIR" > "$rd/glibc-top"
      cp "$A/glibc-run.sh" "$rd/"
      glibc_drive=(-drive "file=$BUILDDIR/arm64/glibc.img,format=raw,if=virtio,snapshot=on")
    fi
    rm -f "$BUILDDIR/arm64/run.img"
    mke2fs -q -F -t ext4 -d "$rd" "$BUILDDIR/arm64/run.img" 64M || die "cannot make run.img"
    for suite in "${root_suites[@]}"; do
      [ "$suite" != none ] || continue
      fetch_kernel "$suite"
      [ -z "$SKIP" ] || continue
      label=arm64-root-$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<< "$KVER")
      boot_root "$label" "$KDIR/logs/root-run-${label#arm64-root-}.log" \
        "hugepages=$ARM64_ROOT_POOL hugepagesz=64K hugepages=$KERNEL_POOL64 hugeld.run=/mnt/hugeld/run.sh" \
        -drive "file=$RIMG,format=raw,if=virtio,snapshot=on" \
        -drive "file=$BUILDDIR/arm64/run.img,format=raw,if=virtio,readonly=on" "${glibc_drive[@]}"
      glibc_drive=()
    done
    # hugeld as the loader from boot on (ARM64_BOOT=0 leaves it out):
    # two boots of a copy of the root with the first kernel, the first
    # installing the .deb, /etc/hugeld.conf "libs *" and hugeld as the
    # system loader (tests/arm64/sys-install.sh), the second starting
    # PID 1 with it (tests/arm64/sys-boot.sh).
    if [ "${ARM64_BOOT:-1}" = 1 ]; then
      fetch_kernel "${root_suites[0]}"
      label=arm64-boot-$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<< "$KVER")
      cp --sparse=always "$RIMG" "$BUILDDIR/arm64/root-sys.img"
      for step in install boot; do
        boot_root "$label" "$KDIR/logs/boot-$step.log" \
          "hugepages=$ARM64_ROOT_POOL hugepagesz=64K hugepages=$KERNEL_POOL64 hugeld.run=/mnt/hugeld/sys-$step.sh" \
          -drive "file=$BUILDDIR/arm64/root-sys.img,format=raw,if=virtio" \
          -drive "file=$BUILDDIR/arm64/run.img,format=raw,if=virtio,readonly=on"
      done
      rm -f "$BUILDDIR/arm64/root-sys.img"
    fi
  fi
fi

echo
echo "check-arm64: $(( $(date +%s) - total_start ))s for ${#suites[@]} kernels"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
