# Shared by scripts/check-kernels.sh and scripts/check-arm64.sh (sourced):
# the kernel packages' download and the guest's modules.  They expect
# KDIR, KARCH (amd64 or arm64: the packages' architecture), the APT
# array of apt_for, and note and die.

# download SUITE PKG VERSION: PKG's $KARCH .deb in $KDIR/SUITE (kept
# until SUITE has another kernel); prints its path.
download () {
  local suite=$1 pkg=$2 ver=$3 deb
  deb=$KDIR/$suite/${pkg}_${ver//:/%3a}_$KARCH.deb
  if [ ! -f "$deb" ]; then
    note "$suite: downloading $pkg $ver ($KARCH)"
    (cd "$KDIR/$suite" && apt-get "${APT[@]}" download "$pkg=$ver" > download.log 2>&1) \
      || die "$suite: apt-get download $pkg=$ver failed (see $KDIR/$suite/download.log)"
    [ -f "$deb" ] || deb=$(ls "$KDIR/$suite/${pkg}"_*_"$KARCH".deb | head -1)
  fi
  echo "$deb"
}

# kernel_modules DEB OUT: the modules the guest needs to mount an ext4
# and an XFS disk (virtio_pci, virtio_blk, ext4, xfs and what they
# depend on; Debian
# builds them all as modules, except virtio_pci since 6.12; and
# crc32c_generic, which ext4 up to 6.12 wants even without metadata_csum
# but finds through modprobe, which the guest has not), decompressed
# (Debian compresses them with xz from 6.12 on; busybox insmod takes
# plain .ko) into a cpio archive, OUT, that is appended to the
# initramfs: /kmod/NAME.ko and /kmod/order (load order).  Debian's
# packages have no modules.dep (depmod makes it when they are
# installed), and the host may have no kmod: the dependencies are read
# from each module's .modinfo ("depends=a,b").  A module the package
# does not have is taken to be built in.
KERNEL_MODULES="virtio_pci virtio_blk crc32c_generic ext4 xfs"
kernel_modules () {
  local deb=$1 out=$2 tmp=$2.d f n
  local -A path=() seen=()
  rm -rf "$tmp"
  mkdir -p "$tmp/x" "$tmp/root/kmod"
  dpkg-deb --fsys-tarfile "$deb" \
    | tar -x -C "$tmp/x" --wildcards '*/kernel/fs/*' '*/kernel/lib/*' '*/kernel/crypto/*' \
          '*/kernel/arch/*' '*/kernel/drivers/block/*' '*/kernel/drivers/virtio/*' 2> /dev/null || :
  while IFS= read -r f; do
    n=${f##*/}; n=${n%%.ko*}; n=${n//-/_}
    path[$n]=$f
  done < <(find "$tmp/x" -name '*.ko' -o -name '*.ko.*')
  [ ${#path[@]} -gt 0 ] || die "no modules in $deb"
  add_module () {
    local n=${1//-/_} f d
    [ -z "${seen[$n]:-}" ] || return 0
    seen[$n]=1
    f=${path[$n]:-}
    [ -n "$f" ] || return 0          # built in
    case $f in
      *.xz) xz -dc "$f" ;;
      *.zst) zstd -qdc "$f" ;;
      *.gz) gzip -dc "$f" ;;
      *) cat "$f" ;;
    esac > "$tmp/root/kmod/$n.ko" || die "cannot decompress $f"
    for d in $(tr '\0' '\n' < "$tmp/root/kmod/$n.ko" | sed -n 's/^depends=//p' | head -1 | tr ',' ' '); do
      add_module "$d"
    done
    echo "$n" >> "$tmp/root/kmod/order"
  }
  for n in $KERNEL_MODULES; do add_module "$n"; done
  : >> "$tmp/root/kmod/order"
  (cd "$tmp/root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
    | gzip -1 > "$out.tmp"
  mv "$out.tmp" "$out"
  note "$KARCH modules for the guest: $(tr '\n' ' ' < "$tmp/root/kmod/order")($(du -h "$out" | cut -f1))"
  rm -rf "$tmp"
}
