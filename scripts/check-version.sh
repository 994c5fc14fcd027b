#!/bin/bash
# Refuse to build a loader from a glibc source that is not exactly the
# installed libc6: ld.so and libc.so.6 share GLIBC_PRIVATE internals, so a
# loader from any other version cannot run beside the system's libc.so.6.
set -euo pipefail
. "$(dirname "$0")/config.sh"

libc=$(pkg_version libc6)
src=$(pkg_version glibc-source)
[ -n "$libc" ] || die "libc6 is not installed (dpkg knows no version of it)"
[ -n "$src" ] || die "glibc-source is not installed; run: apt-get install glibc-source=$libc"
if [ "$libc" != "$src" ]; then
  die "version mismatch: glibc-source is $src but the installed libc6 is $libc; the loader must be built from the same source (apt-get install glibc-source=$libc)"
fi
release_supported "$GLIBC_RELEASE" \
  || die "glibc $GLIBC_RELEASE (libc6 $libc) is not supported: it is not in glibc-patches/releases (supported: $(supported_releases))"
[ -f "$GLIBC_TARBALL" ] || die "glibc-source $src is installed but $GLIBC_TARBALL is missing"
echo "$libc"
