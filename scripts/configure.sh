#!/bin/bash
# Configure glibc in build/obj the way Debian 12 configures its libc6
# (debian/rules, debian/rules.d/build.mk, debian/sysdeps/{linux,amd64}.mk of
# the glibc-source package), so that the resulting ld.so is interchangeable
# with /lib64/ld-linux-x86-64.so.2.  Only the package version string
# differs: it names hugeld, so `ld.so --version` tells the two apart.
set -euo pipefail
. "$(dirname "$0")/config.sh"

version=$("$HUGELD_TOP/scripts/check-version.sh")
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
[ "$arch" = x86_64-linux-gnu ] || die "only x86_64-linux-gnu is supported, not $arch"

CC="x86_64-linux-gnu-gcc-12 -Wl,--hash-style=both"
CXX="x86_64-linux-gnu-g++-12 -Wl,--hash-style=both"
command -v x86_64-linux-gnu-g++-12 >/dev/null || CXX=:   # C++ only matters for tests
opts=(
  --host=x86_64-linux-gnu --build=x86_64-linux-gnu --prefix=/usr
  --without-selinux --disable-crypt
  --enable-stackguard-randomization --enable-stack-protector=strong
  "--with-pkgversion=Debian GLIBC $version hugeld $HUGELD_VERSION"
  --with-bugurl=http://www.debian.org/Bugs/
  --with-timeoutfactor=25
  --enable-kernel=3.2
  --with-selinux --enable-multi-arch
)
wanted=$(printf '%s\n' "$CC" "$CXX" "${opts[@]}" | sha1sum | cut -d' ' -f1)
if [ -f "$OBJDIR/config.status" ] && [ "$(cat "$OBJDIR/.hugeld-config" 2>/dev/null)" = "$wanted" ]; then
  exit 0
fi

rm -rf "$OBJDIR"
mkdir -p "$OBJDIR"
# debian/rules.d/build.mk writes these into configparms.
cat > "$OBJDIR/configparms" <<PARMS
BUILD_CC = x86_64-linux-gnu-gcc
BUILD_CXX = x86_64-linux-gnu-g++
CFLAGS = -pipe -O2 -g
ASFLAGS = -pipe -O2 -g
BUILD_CFLAGS = -O2 -g
LDFLAGS = 
BASH := /bin/bash
KSH := /bin/bash
SHELL := /bin/bash
LIBGD = no
bindir = /usr/bin
datadir = /usr/share
complocaledir = /usr/lib/locale
sysconfdir = /etc
libexecdir = /usr/lib/$arch
rootsbindir = /sbin
includedir = /usr/include
docdir = /usr/share/doc
mandir = /usr/share/man
sbindir = /usr/sbin
vardbdir = /var/lib/misc
libdir = /usr/lib/$arch
slibdir = /lib/$arch
rtlddir = /lib64
PARMS
echo "hugeld: configuring glibc $version in $OBJDIR"
( cd "$OBJDIR" && CC="$CC" CXX="$CXX" AUTOCONF=false MAKEINFO=: \
    "$SRCDIR/configure" "${opts[@]}" > configure.log 2>&1 ) \
  || { tail -20 "$OBJDIR/configure.log" >&2; die "configure failed (log: $OBJDIR/configure.log)"; }
echo "$wanted" > "$OBJDIR/.hugeld-config"
