# Shared settings for the hugeld scripts.  Sourced, not run.
# Everything here can be overridden from the environment.

HUGELD_TOP=${HUGELD_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILDDIR=${BUILDDIR:-$HUGELD_TOP/build}
GLIBC_TARBALL=${GLIBC_TARBALL:-/usr/src/glibc/glibc-2.36.tar.xz}
GLIBC_SRCDIR_NAME=glibc-2.36
PRISTINE=$BUILDDIR/pristine/$GLIBC_SRCDIR_NAME
SRCDIR=$BUILDDIR/src
OBJDIR=$BUILDDIR/obj
HUGELD_VERSION=${HUGELD_VERSION:-0.1}
PREFIX=${PREFIX:-/opt/hugeld}
DESTDIR=${DESTDIR:-}

die () { echo "hugeld: $*" >&2; exit 1; }

# The Debian version of a package as dpkg knows it (empty if absent).
# DPKG_VERSION_OVERRIDE_<pkg> lets the tests fake a version.
pkg_version () {
  local var="DPKG_VERSION_OVERRIDE_${1//[^A-Za-z0-9]/_}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null \
    | awk '$3 == "installed" { print $4 }'
}
