#!/bin/bash
# Make sure the packages needed to build (or test) hugeld are installed.
# As root on Debian, install what is missing; otherwise name it and fail.
#   scripts/deps.sh build   # what `make` needs
#   scripts/deps.sh test    # what `make check` needs on top
#   scripts/deps.sh kernels # what `make check-kernels` needs (qemu, busybox)
#   scripts/deps.sh arm64   # what `make check-arm64` needs (qemu-system-aarch64,
#                             the cross compiler; run with HUGELD_ARCH=arm64)
#   scripts/deps.sh distro  # what `make check-distro` needs (debootstrap)
#   scripts/deps.sh series  # what `make series` and `make check-series` need (git)
#   scripts/deps.sh bench   # what `make bench` needs (make -C bench deps)
#   scripts/deps.sh programs # the real programs of `make check-programs'
#                            (tests/programs/corpus.sh lists them)
set -euo pipefail
. "$(dirname "$0")/config.sh"

# glibc-source first: its debian/rules names the compiler Debian builds
# this glibc with (DEB_GCC_VERSION: gcc-12 for 2.36, gcc-14 for 2.41).
build_pkgs="glibc-source gawk bison python3 make binutils patch xz-utils dpkg-dev"
# Debian builds glibc with SELinux support, which only nscd uses; the
# loader is the same without it.  sid can have a libselinux1-dev that
# is not installable beside its libselinux1 for a while, so it is tried,
# not required.
build_try_pkgs="libselinux1-dev"
test_pkgs="gdb elfutils libc6-dbg perl python3 gcc g++ file util-linux binutils libcap2-bin debootstrap linux-perf runc python3-venv python3-yaml python3-prometheus-client strace e2fsprogs libseccomp-dev fuse3 libfuse3-dev pkg-config"
gcc_pkgs () {
  local v
  v=$(sed -n 's/^DEB_GCC_VERSION ?= *\(-[0-9][0-9]*\) *$/\1/p' "$GLIBC_DEBIAN/rules" 2>/dev/null | head -1)
  [ -n "$v" ] && echo "gcc$v g++$v"
  # A cross build (ARCH=arm64 on amd64): Debian's cross compiler of the
  # same version and the target's kernel headers, from the host's own
  # archive (no foreign architecture is added to dpkg), and qemu-user
  # to run the built ld.so --version (make install and make deb).
  if [ -n "$v" ] && [ "$HUGELD_ARCH" != "$HUGELD_BUILD_ARCH" ]; then
    echo "gcc$v-${HUGELD_TRIPLET//_/-} libc6-dev-$HUGELD_ARCH-cross linux-libc-dev-$HUGELD_ARCH-cross qemu-user"
  fi
}
# Packages the release's own configure options need: <sys/sdt.h> for
# --enable-systemtap (Debian's linux.mk from 2.43 on).
release_pkgs () {
  grep -q -- '--enable-systemtap' "$GLIBC_DEBIAN/sysdeps/linux.mk" 2>/dev/null && echo systemtap-sdt-dev
  return 0
}
# The python3 testsuite of the release's python3 (tests/t-realprogs.sh).
python_pkgs () {
  local v
  v=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) && echo "libpython$v-testsuite"
}

# need PKG...: install what is missing (as root), or name it and fail.
need () {
  local missing= p args=
  for p in "$@"; do
    [ -n "$(pkg_version "$p")" ] || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "hugeld: installing missing packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "${_apt_updated:-}" ]; then apt-get update -qq >/dev/null; _apt_updated=1; fi
    # glibc-source and libc6-dbg must match libc6 exactly: ask for that version.
    for p in $missing; do
      case $p in
        glibc-source|libc6-dbg) args="$args $p=$(pkg_version libc6)" ;;
        *) args="$args $p" ;;
      esac
    done
    apt-get install -y -qq --no-install-recommends $args >/dev/null \
      || die "apt-get install failed for:$missing"
  else
    die "missing packages:$missing (install them with: apt-get install$missing)"
  fi
}

# want PKG...: like need, for packages some tests use if the release has
# them (clang-14: t-policy's libLLVM case; Debian 12 has it, 13 does not).
want () {
  local p have=
  for p in "$@"; do
    apt-cache show "$p" > /dev/null 2>&1 && have="$have $p"
  done
  [ -z "$have" ] || need $have
}

# try PKG...: install what is missing if apt can; say so if it cannot.
try () {
  local p
  for p in "$@"; do
    [ -z "$(pkg_version "$p")" ] || continue
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || continue
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 \
      || echo "hugeld: $p cannot be installed here; building without it"
  done
}

case "${1:-build}" in
  build) need $build_pkgs; need $(gcc_pkgs) $(release_pkgs); try $build_try_pkgs ;;
  test) need $build_pkgs; need $(gcc_pkgs) $(release_pkgs); try $build_try_pkgs; need $test_pkgs; need $(python_pkgs); want clang-14 ;;
  fuzz) need clang-14 libclang-rt-14-dev ;;
  kernels) need qemu-system-x86 busybox-static cpio gcc libc6-dev e2fsprogs xfsprogs xz-utils ;;
  arm64) need qemu-system-arm cpio e2fsprogs xz-utils zstd $(gcc_pkgs) ;;
  distro) need debootstrap ;;
  series) need git patch xz-utils ;;
  bench) need clang-14 mariadb-server mariadb-client sysbench libhugetlbfs-bin libhugetlbfs0 \
	      python3-matplotlib linux-perf ;;
  programs) need $(awk 'NF >= 3 { for (i = 3; i <= NF; ++i) print $i }' <<< "$(
		. "$HUGELD_TOP/tests/programs/corpus.sh"; echo "$PROGRAMS")" | sort -u) ;;
  *) die "usage: deps.sh build|test|fuzz|kernels|arm64|distro|series|bench|programs" ;;
esac
