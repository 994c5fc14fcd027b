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

# The architecture the loader is built for, in Debian's words:
# HUGELD_ARCH (make ARCH=arm64 sets it), default the build machine's.
# amd64 and arm64; arm64 natively or cross-built on amd64.  A cross
# build has its own tree, build/ARCH/obj (the source in build/src is
# the same for every architecture).
HUGELD_BUILD_ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
HUGELD_ARCH=${HUGELD_ARCH:-$HUGELD_BUILD_ARCH}
case $HUGELD_ARCH in
  amd64|x86_64) HUGELD_ARCH=amd64 HUGELD_TRIPLET=x86_64-linux-gnu ;;
  arm64|aarch64) HUGELD_ARCH=arm64 HUGELD_TRIPLET=aarch64-linux-gnu ;;
  *) die "ARCH=$HUGELD_ARCH: hugeld is built for amd64 or arm64" ;;
esac
# HUGELD_RUN: how to run a program built for HUGELD_ARCH here (a cross
# build's ld.so --version: under qemu-user).
HUGELD_RUN=()
if [ "$HUGELD_ARCH" != "$HUGELD_BUILD_ARCH" ]; then
  OBJDIR=$BUILDDIR/$HUGELD_ARCH/obj
  HUGELD_RUN=(qemu-${HUGELD_TRIPLET%%-*})
fi

# pkg_version, glibc_release, os_codename, debian_mirrors.
. "$HUGELD_TOP/scripts/host.sh"

# The glibc release is the installed libc6's (2.41-12+deb13u4 -> 2.41):
# its glibc-source holds /usr/src/glibc/glibc-RELEASE.tar.xz and
# debian/; glibc-patches/series, read by series_for, is the patch series.
GLIBC_DEBVERSION=$(pkg_version libc6)
GLIBC_RELEASE=$(glibc_release "$GLIBC_DEBVERSION")
GLIBC_SRCDIR_NAME=glibc-$GLIBC_RELEASE
GLIBC_TARBALL=${GLIBC_TARBALL:-/usr/src/glibc/$GLIBC_SRCDIR_NAME.tar.xz}
GLIBC_DEBIAN=${GLIBC_DEBIAN:-/usr/src/glibc/debian}
PATCHDIR=$HUGELD_TOP/glibc-patches
PRISTINE=$BUILDDIR/pristine/$GLIBC_SRCDIR_NAME

# The glibc releases hugeld supports (glibc-patches/releases).
supported_releases () {
  awk '!/^#/ && NF { printf "%s%s", sep, $1; sep = " " }' "$PATCHDIR/releases"
}

# Whether glibc release $1 (X.Y) is supported.
release_supported () {
  awk -v r="$1" '!/^#/ && $1 == r { found = 1 } END { exit !found }' "$PATCHDIR/releases"
}

# The patches of glibc-patches/series (or of the list $2 in its format)
# for release $1 (X.Y), in order: a line "PATCH" is for every release,
# "PATCH FIRST-LAST" for FIRST to LAST (either may be empty: "2.37-",
# "-2.36").
series_for () {
  awk -v r="$1" '
    function num(v,  a) { split(v, a, "."); return a[1] * 1000 + a[2] }
    /^#/ || !NF { next }
    NF == 1 { print $1; next }
    {
      n = split($2, b, "-")
      if (n != 2) { print "bad release range in series: " $0 > "/dev/stderr"; exit 2 }
      if ((b[1] == "" || num(r) >= num(b[1])) && (b[2] == "" || num(r) <= num(b[2])))
        print $1
    }' "${2:-$PATCHDIR/series}"
}
