#!/bin/bash
# Configure glibc in build/obj the way Debian configures its libc6, from
# the installed glibc-source's own debian/ directory (debian/rules,
# debian/rules.d/build.mk, debian/sysdeps/{linux,ARCH}.mk): the
# compiler (DEB_GCC_VERSION), its flags, and the configure options of
# the libc pass on amd64 (or, with ARCH=arm64, on arm64, cross-built
# from amd64 or native).  So the resulting ld.so is interchangeable
# with /lib64/ld-linux-x86-64.so.2 (/lib/ld-linux-aarch64.so.1) of that
# release.  Only the package
# version string differs: it names hugeld, so `ld.so --version` tells
# the two apart.
set -euo pipefail
. "$(dirname "$0")/config.sh"

version=$("$HUGELD_TOP/scripts/check-version.sh")
# The build machine's triplet, and the target's (HUGELD_ARCH, from
# ARCH=: amd64 natively; arm64 natively or cross-built from amd64 with
# Debian's gcc-N-aarch64-linux-gnu: scripts/config.sh).
build_arch=$(dpkg-architecture -qDEB_BUILD_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
arch=$HUGELD_TRIPLET
case $build_arch in
  x86_64-linux-gnu|aarch64-linux-gnu) ;;
  *) die "only x86_64-linux-gnu and aarch64-linux-gnu can build hugeld, not $build_arch" ;;
esac

rules=$GLIBC_DEBIAN/rules
buildmk=$GLIBC_DEBIAN/rules.d/build.mk
linuxmk=$GLIBC_DEBIAN/sysdeps/linux.mk
# The architecture's own file: extra_config_options (and amd64's CC
# flags; arm64 has none).
archmk=$GLIBC_DEBIAN/sysdeps/$HUGELD_ARCH.mk
for f in "$rules" "$buildmk" "$linuxmk" "$archmk"; do
  [ -f "$f" ] || die "$f is missing (glibc-source $version is installed incompletely)"
done
# one FILE SED-EXPR WHAT: the single value SED-EXPR prints from FILE.
one () {
  local v
  v=$(sed -n "$2" "$1" | head -1)
  [ -n "$v" ] || die "cannot find $3 in $1; configure.sh needs updating for glibc $GLIBC_RELEASE"
  echo "$v"
}
gccv=$(one "$rules" 's/^DEB_GCC_VERSION ?= *\(-[0-9][0-9]*\)*$/\1/p' DEB_GCC_VERSION)
timeout=$(one "$rules" 's/^TIMEOUTFACTOR *= *\([0-9][0-9]*\) *$/\1/p' TIMEOUTFACTOR)
minkernel=$(one "$linuxmk" 's/^MIN_KERNEL_SUPPORTED *:= *\([0-9.]*\) *$/\1/p' MIN_KERNEL_SUPPORTED)
# linux.mk's libc_extra_config_options, all its assignments (2.43 adds
# --with-selinux and --enable-systemtap in conditionals that are true
# for a normal build: no stage1/stage2 profile).
linux_opts=$(sed -n 's/^ *libc_extra_config_options *+*= *\(.*\)$/\1/p' "$linuxmk" \
  | sed 's/\$(extra_config_options)//g' | tr '\n' ' ')
grep -q '^ *libc_extra_config_options' "$linuxmk" \
  || die "cannot find libc_extra_config_options in $linuxmk; configure.sh needs updating for glibc $GLIBC_RELEASE"
# SELinux support is for nscd only; where libselinux1-dev could not be
# installed (deps.sh tries), the loader is built without it.
# A cross build has no libselinux1-dev of the target: without it too.
if [ -z "$(pkg_version libselinux1-dev)" ] || [ "$arch" != "$build_arch" ]; then
  linux_opts=${linux_opts//--with-selinux/--without-selinux}
fi
arch_opts=$(one "$archmk" 's/^extra_config_options *= *\(.*\)$/\1/p' extra_config_options)
if [ "$HUGELD_ARCH" = amd64 ]; then
  cc_flags=$(one "$archmk" 's/^CC *= *$(DEB_HOST_GNU_TYPE)-$(BASE_CC)$(DEB_GCC_VERSION)\(.*\)$/\1/p' "amd64's CC")
else
  # debian/rules' CC as it is: arm64.mk does not set one.
  ! grep -q '^CC *=' "$archmk" || die "$archmk sets CC, which configure.sh does not read for $HUGELD_ARCH"
  cc_flags=
fi
# build.mk's configure call: CC="$(call xx,CC) EXTRA" and its options.
cc_extra=$(sed -n 's/^[[:space:]]*CC="$(call xx,CC)\(.*\)" \\$/\1/p' "$buildmk" | head -1)
grep -q '^[[:space:]]*CC="$(call xx,CC)' "$buildmk" || die "cannot find configure's CC in $buildmk"
call=$(awk '/\$\(CURDIR\)\/configure \\$/ { on = 1; next } on { print } on && /with_headers/ { exit }' "$buildmk")
[ -n "$call" ] || die "cannot find the configure call in $buildmk"
literal=()
buildflags=" $(dpkg-buildflags --get CFLAGS 2>/dev/null) "
while read -r line; do
  line=${line%\\}; line=${line%"${line##*[![:space:]]}"}
  case $line in
    # Plain options are passed as they are.
    --*[\$\"\ ]*) ;;
    --*) literal+=("$line"); continue ;;
  esac
  # $(if $(filter FLAG,$(call dpkg_host_buildflags, CFLAGS)),OPTION):
  # OPTION if dpkg-buildflags' CFLAGS has the word FLAG (2.43 passes
  # --enable-stack-protector=strong this way).
  # 2.44 also passes --enable-cet=permissive as
  # $(if $(and $(filter linux,$(DEB_HOST_ARCH_OS)),$(filter FLAG,...)),OPTION)
  # (the host OS is linux here).
  # 2.41 writes the flags as $(shell dpkg-buildflags --get CFLAGS).
  line=${line//'$(shell dpkg-buildflags --get CFLAGS)'/'$(call dpkg_host_buildflags, CFLAGS)'}
  if [[ $line =~ ^'$(if $(filter '([^,]*)',$(call dpkg_host_buildflags, CFLAGS)),'([^\)]*)')'$ ]] \
     || [[ $line =~ ^'$(if $(and $(filter linux,$(DEB_HOST_ARCH_OS)),$(filter '([^,]*)',$(call dpkg_host_buildflags, CFLAGS))),'([^\)]*)')'$ ]]; then
    case $buildflags in *" ${BASH_REMATCH[1]} "*) literal+=("${BASH_REMATCH[2]}") ;; esac
    continue
  fi
  case $line in
    # The ones with make variables, handled below (the conditional ones
    # are off for amd64: pt_chown = no, threads = yes, mvec = yes; the
    # dpkg-buildflags ones are evaluated above).
    --host=*|--build=*|--enable-add-ons=*|--with-pkgversion=*|--with-bugurl=*) ;;
    --with-timeoutfactor=*|*--enable-pt_chown*|*--disable-nscd*|*--disable-mathvec*) ;;
    *with_headers*) ;;
    *) die "$buildmk passes '$line' to configure, which configure.sh does not know; it needs updating for glibc $GLIBC_RELEASE" ;;
  esac
done <<< "$call"

CC="$arch-gcc$gccv$cc_flags$cc_extra"
CXX="$arch-g++$gccv$cc_flags$cc_extra"
command -v "$arch-g++$gccv" >/dev/null || CXX=:   # C++ only matters for tests
if [ "$arch" = "$build_arch" ]; then gccpkg=gcc$gccv; else gccpkg=gcc$gccv-${arch//_/-}; fi
command -v "$arch-gcc$gccv" >/dev/null \
  || die "$arch-gcc$gccv (Debian's compiler for glibc $GLIBC_RELEASE) is not installed (apt-get install $gccpkg)"
# mvec: debian/rules' "mvec = no" unless the architecture's libc pass
# says yes (amd64 does, arm64 does not): --disable-mathvec then.
grep -q '^libc_mvec *= *yes' "$archmk" || literal+=(--disable-mathvec)
# rtlddir: the architecture's libc_rtlddir (amd64: /lib64), else
# debian/rules' rtlddir (/lib).
rtlddir=$(sed -n 's/^libc_rtlddir *= *\([^ ]*\) *$/\1/p' "$archmk" | head -1)
[ -n "$rtlddir" ] || rtlddir=$(one "$rules" 's/^rtlddir *= *\([^ ]*\) *$/\1/p' rtlddir)
read -r -a linux_opts <<< "$linux_opts"
read -r -a arch_opts <<< "$arch_opts"
opts=(
  --host="$arch" --build="$build_arch" --prefix=/usr
  "${literal[@]}"
  "--with-pkgversion=Debian GLIBC $version hugeld $HUGELD_VERSION"
  --with-bugurl=http://www.debian.org/Bugs/
  --with-timeoutfactor="$timeout"
  --enable-kernel="$minkernel"
  "${linux_opts[@]}" "${arch_opts[@]}"
)
wanted=$(printf '%s\n' "$CC" "$CXX" "${opts[@]}" | sha1sum | cut -d' ' -f1)
if [ -f "$OBJDIR/config.status" ] && [ "$(cat "$OBJDIR/.hugeld-config" 2>/dev/null)" = "$wanted" ]; then
  exit 0
fi

rm -rf "$OBJDIR"
mkdir -p "$OBJDIR"
# debian/rules.d/build.mk writes these into configparms.
cat > "$OBJDIR/configparms" <<PARMS
BUILD_CC = $build_arch-gcc
BUILD_CXX = $build_arch-g++
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
rtlddir = $rtlddir
PARMS
echo "hugeld: configuring glibc $version in $OBJDIR"
( cd "$OBJDIR" && CC="$CC" CXX="$CXX" AUTOCONF=false MAKEINFO=: \
    "$SRCDIR/configure" "${opts[@]}" > configure.log 2>&1 ) \
  || { tail -20 "$OBJDIR/configure.log" >&2; die "configure failed (log: $OBJDIR/configure.log)"; }
echo "$wanted" > "$OBJDIR/.hugeld-config"
