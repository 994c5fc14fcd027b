#!/bin/bash
# Make sure the packages needed to build (or test) hugeld are installed.
# As root on Debian, install what is missing; otherwise name it and fail.
#   scripts/deps.sh build   # what `make` needs
#   scripts/deps.sh test    # what `make check` needs on top
#   scripts/deps.sh kernels # what `make check-kernels` needs (qemu, busybox)
set -euo pipefail
. "$(dirname "$0")/config.sh"

build_pkgs="glibc-source gawk bison python3 make gcc-12 binutils libselinux1-dev patch xz-utils"
test_pkgs="gdb libc6-dbg perl python3 gcc g++ file util-linux binutils libcap2-bin debootstrap libpython3.11-testsuite linux-perf"

case "${1:-build}" in
  build) want=$build_pkgs ;;
  test) want="$build_pkgs $test_pkgs" ;;
  fuzz) want="clang-14" ;;
  kernels) want="qemu-system-x86 busybox-static cpio gcc libc6-dev" ;;
  *) die "usage: deps.sh build|test|fuzz|kernels" ;;
esac

missing=
for p in $want; do
  [ -n "$(pkg_version "$p")" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "hugeld: installing missing packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # glibc-source must match libc6 exactly: ask for that version.
  args=
  for p in $missing; do
    if [ "$p" = glibc-source ]; then
      args="$args glibc-source=$(pkg_version libc6)"
    else
      args="$args $p"
    fi
  done
  apt-get install -y -qq --no-install-recommends $args >/dev/null \
    || die "apt-get install failed for:$missing"
else
  die "missing packages:$missing (install them with: apt-get install$missing)"
fi
