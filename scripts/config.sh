# Shared settings for the hugeld scripts.  Sourced, not run.
# Everything here can be overridden from the environment.

HUGELD_TOP=${HUGELD_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILDDIR=${BUILDDIR:-$HUGELD_TOP/build}
SRCDIR=$BUILDDIR/src
OBJDIR=$BUILDDIR/obj
HUGELD_VERSION=${HUGELD_VERSION:-0.1}
PREFIX=${PREFIX:-/opt/hugeld}
DESTDIR=${DESTDIR:-}

die () { echo "hugeld: $*" >&2; exit 1; }

# pkg_version, glibc_release, os_codename, debian_mirrors.
. "$HUGELD_TOP/scripts/host.sh"

# The glibc release is the installed libc6's (2.41-12+deb13u4 -> 2.41):
# its glibc-source holds /usr/src/glibc/glibc-RELEASE.tar.xz and
# debian/, and glibc-patches/RELEASE/series is the patch series for it.
GLIBC_DEBVERSION=$(pkg_version libc6)
GLIBC_RELEASE=$(glibc_release "$GLIBC_DEBVERSION")
GLIBC_SRCDIR_NAME=glibc-$GLIBC_RELEASE
GLIBC_TARBALL=${GLIBC_TARBALL:-/usr/src/glibc/$GLIBC_SRCDIR_NAME.tar.xz}
GLIBC_DEBIAN=${GLIBC_DEBIAN:-/usr/src/glibc/debian}
PATCHDIR=$HUGELD_TOP/glibc-patches/$GLIBC_RELEASE
PRISTINE=$BUILDDIR/pristine/$GLIBC_SRCDIR_NAME

# The glibc releases with a patch series (glibc-patches/*/series).
supported_releases () {
  local d
  for d in "$HUGELD_TOP"/glibc-patches/*/series; do
    [ -f "$d" ] && basename "$(dirname "$d")"
  done | tr '\n' ' ' | sed 's/ $//'
}
