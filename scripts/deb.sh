#!/bin/bash
# make deb: the built loader and tool as a Debian package,
#   build/hugeld_<hugeld version>+<libc6 version>_<arch>.deb
# (amd64; arm64 natively or cross-built with make deb ARCH=arm64)
#
# What it holds:
#   /opt/hugeld/...      exactly what `make install' puts there: ld.so,
#                        bin/hugeld, libexec/hugeld-plan,
#                        libexec/hugeld-system-loader, the man page and
#                        the bash completion
#   /usr/bin/hugeld, /usr/share/man/man1/hugeld.1.gz,
#   /usr/share/bash-completion/completions/hugeld   (so that the command,
#                        `man hugeld' and completion work without PATH changes)
#   /usr/share/doc/hugeld/{copyright,changelog.Debian.gz}, lintian overrides
#   /etc/apparmor.d/abstractions/base.d/hugeld   (a conffile: what lets a
#                        program confined by an AppArmor profile that
#                        includes <abstractions/base> read the policy file
#                        and map the shared cache; scripts/deb/apparmor-base.d-hugeld)
#
# It depends on exactly the libc6 it was built from: ld.so and libc.so.6
# share GLIBC_PRIVATE internals, so apt must never pair this loader with
# another libc6 (an upgrade of libc6 removes it, or holds libc6 back).
# Installing it never changes the system loader; `make install-system'
# (/opt/hugeld/libexec/hugeld-system-loader install) stays an explicit
# step.  If that was done, removing or purging the package first puts
# the distribution's loader back (prerm), the same way `uninstall' does.
set -euo pipefail
. "$(dirname "$0")/config.sh"

# (scripts/install.sh, run below by make install, refuses a loader
# built from another glibc than the installed libc6.)
libc=$(pkg_version libc6)
# amd64, or arm64 (natively, or cross-built: make deb ARCH=arm64).
arch=$HUGELD_ARCH
version=$HUGELD_VERSION+$libc
deb=$BUILDDIR/hugeld_${version}_$arch.deb
root=$BUILDDIR/deb/root
rm -rf "$BUILDDIR/deb"
mkdir -p "$root"

# /opt/hugeld as `make install' makes it (no /usr/local links).
make -s -C "$HUGELD_TOP" install ARCH="$arch" DESTDIR="$root" PREFIX=/opt/hugeld LINKDIR= > "$BUILDDIR/deb/install.log" 2>&1 \
  || { tail -5 "$BUILDDIR/deb/install.log" >&2; die "make install DESTDIR=$root failed"; }
opt=$root/opt/hugeld
for f in ld.so bin/hugeld lib/python3/hugeld/cli.py libexec/hugeld-plan libexec/hugeld-conf \
	 libexec/hugeld-thp \
	 libexec/hugeld-system-loader share/man/man1/hugeld.1 \
	 share/man/man5/hugeld.conf.5 share/bash-completion/completions/hugeld; do
  [ -f "$opt/$f" ] || die "make install did not install /opt/hugeld/$f"
done

# Stripped as Debian strips its own loader and programs (the build
# tree keeps the symbols; the build ID stays, for debuginfo).
strip=strip
[ "$arch" = "$HUGELD_BUILD_ARCH" ] || strip=$HUGELD_TRIPLET-strip
"$strip" --strip-unneeded --remove-section=.comment "$opt/ld.so" "$opt/libexec/hugeld-plan" \
  "$opt/libexec/hugeld-conf" "$opt/libexec/hugeld-thp"
"${HUGELD_RUN[@]}" "$opt/ld.so" --version > /dev/null || die "the stripped ld.so does not run"

# Where Debian looks for commands, manual pages and completions.
install -d "$root/usr/bin" "$root/usr/share/man/man1" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/doc/hugeld" \
  "$root/usr/share/lintian/overrides"
ln -s /opt/hugeld/bin/hugeld "$root/usr/bin/hugeld"
gzip -9n < "$HUGELD_TOP/tools/hugeld.1" > "$root/usr/share/man/man1/hugeld.1.gz"
install -m 0644 "$HUGELD_TOP/tools/hugeld.bash-completion" \
  "$root/usr/share/bash-completion/completions/hugeld"

cat > "$root/usr/share/doc/hugeld/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: hugeld
Comment: The dynamic loader is built from Debian's glibc-source $libc,
 with hugeld's patches and files added; the glibc source is the Debian
 glibc package's (see /usr/share/doc/libc6/copyright).

Files: *
Copyright: 2026 The hugeld authors
           1991-2025 Free Software Foundation, Inc. and the GNU C Library contributors
License: LGPL-2.1+

License: LGPL-2.1+
 This library is free software; you can redistribute it and/or
 modify it under the terms of the GNU Lesser General Public
 License as published by the Free Software Foundation; either
 version 2.1 of the License, or (at your option) any later version.
 .
 On Debian systems, the complete text of the GNU Lesser General Public
 License version 2.1 can be found in /usr/share/common-licenses/LGPL-2.1.
EOF
date=$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$HUGELD_TOP" log -1 --format=%ct 2>/dev/null || date +%s)}")
{
  echo "hugeld ($version) unstable; urgency=medium"
  echo
  echo "  * hugeld $HUGELD_VERSION built from Debian's glibc-source $libc"
  echo "    ($(git -C "$HUGELD_TOP" describe --always --dirty 2>/dev/null || echo 'no git'))."
  echo
  echo " -- hugeld maintainers <hugeld@example.org>  $date"
} | gzip -9n > "$root/usr/share/doc/hugeld/changelog.Debian.gz"
# Programs name /opt/hugeld/ld.so as their PT_INTERP and users run it by
# that path (README): the loader cannot move to /usr without breaking them.
cat > "$root/usr/share/lintian/overrides/hugeld" <<'EOF'
# /opt/hugeld/ld.so is the path programs name as their PT_INTERP and
# users run (README); the package keeps make install's layout.
hugeld: dir-or-file-in-opt *
# As for libc6's own loader: ld.so must be executable, and needs no
# other library.
hugeld: shared-library-is-executable 0755 [opt/hugeld/ld.so]
hugeld: shared-library-lacks-prerequisites [opt/hugeld/ld.so]
# The file trigger starts the thp repair's one-shot service without
# waiting for it (systemctl --no-block start, after asking policy-rc.d):
# deb-systemd-invoke starts no static unit, and waits.
hugeld: maintainer-script-calls-systemctl [postinst:*]
# The command's own package, private to /opt/hugeld and on no sys.path,
# is shipped compiled (checked-hash bytecode, made when it is built):
# the command runs with python3 -IS, writes no cache, and starts in a
# third of the time of compiling at each run (bench/results).
hugeld: package-installs-python-pycache-dir *
EOF

# The boot unit (pool and shared cache from /etc/hugeld.conf), the
# metrics timer (status --all --prometheus for node_exporter) and the
# thp repair's timer and service (hugeld thp repair), where the
# release's systemd looks for packaged units (/lib/systemd/system in
# Debian 12, /usr/lib/systemd/system in 13).
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || true)
if [ -z "$unitdir" ]; then
  case $(os_codename) in
    bullseye|bookworm) unitdir=/lib/systemd/system ;;
    *) unitdir=/usr/lib/systemd/system ;;
  esac
fi
install -d "$root$unitdir"
install -m 0644 "$HUGELD_TOP/scripts/deb/hugeld-cache.service" \
  "$HUGELD_TOP/scripts/deb/hugeld-metrics.service" \
  "$HUGELD_TOP/scripts/deb/hugeld-metrics.timer" \
  "$HUGELD_TOP/scripts/deb/hugeld-thp-repair.service" \
  "$HUGELD_TOP/scripts/deb/hugeld-thp-repair.timer" "$root$unitdir/"
install -d "$root/usr/share/man/man5"
gzip -9n < "$HUGELD_TOP/tools/hugeld.conf.5" > "$root/usr/share/man/man5/hugeld.conf.5.gz"

# AppArmor: profiles that include <abstractions/base> (most of those
# Debian ships for services) allow the distribution's loader and
# libraries; this lets them read the policy file and map the shared
# cache the same way, as packages add to an abstraction (base.d, which
# base includes if it exists; AppArmor 3.0 and later).  The postinst
# makes it newer than the compiled profiles and reloads them, so that it
# applies at once.
install -d "$root/etc/apparmor.d/abstractions/base.d"
install -m 0644 "$HUGELD_TOP/scripts/deb/apparmor-base.d-hugeld" \
  "$root/etc/apparmor.d/abstractions/base.d/hugeld"

# Maintainer scripts (scripts/deb/): postinst enables the unit and runs
# cache sync on the file trigger (triggers); prerm puts the system loader
# back and frees the cache; postrm cleans up.
install -d "$root/DEBIAN"
for f in postinst prerm postrm; do
  install -m 0755 "$HUGELD_TOP/scripts/deb/$f" "$root/DEBIAN/$f"
done
install -m 0644 "$HUGELD_TOP/scripts/deb/triggers" "$root/DEBIAN/triggers"
echo /etc/apparmor.d/abstractions/base.d/hugeld > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<EOF
Package: hugeld
Version: $version
Architecture: $arch
Maintainer: hugeld maintainers <hugeld@example.org>
Installed-Size: $size
Depends: libc6 (= $libc), python3
Recommends: systemd
Suggests: gdb, linux-perf
Section: admin
Priority: optional
Description: dynamic loader that maps selected objects onto huge pages
 hugeld is the GNU C Library's dynamic loader (ld.so), built from the
 Debian glibc-source $libc, with one addition: objects whose
 names match LD_HUGEPAGE_LIBS are placed on explicit 2 MiB huge pages
 (MAP_HUGETLB) as they are loaded, falling back to ordinary pages when
 the pool has none.  It is installed as /opt/hugeld/ld.so, beside the
 system's loader, which it does not change.
 .
 The hugeld command runs programs through it, plans the huge page pool,
 and shows what a running process got.  With /etc/hugeld.conf (see
 hugeld.conf(5)) the loader selects objects for every process without
 variables, and hugeld-cache.service and a dpkg trigger keep the shared
 cache of libraries current across reboots and upgrades.
EOF
( cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z \
    | xargs -0 md5sum ) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums" "$root/DEBIAN/conffiles"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb.tmp" > /dev/null
mv -f "$deb.tmp" "$deb"
echo "hugeld: built $deb"
