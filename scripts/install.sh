#!/bin/bash
# Install the built loader as $DESTDIR$PREFIX/ld.so.  Changes nothing
# else on the system: the system's loader and libc stay as they are.
set -euo pipefail
. "$(dirname "$0")/config.sh"

src=$OBJDIR/elf/ld.so
[ -f "$src" ] || die "$src does not exist; run make first"
# Refuse to install a loader built from another glibc than the one
# installed now (libc6 may have been upgraded since the build).
built=$("${HUGELD_RUN[@]}" "$src" --version | sed -n '1s/.*(Debian GLIBC \([^ ]*\) hugeld.*/\1/p')
libc=$(pkg_version libc6)
[ "$built" = "$libc" ] || die "the built ld.so is glibc $built but the installed libc6 is $libc; rebuild (make distclean && make)"
dest=$DESTDIR$PREFIX
install -d "$dest"
install -m 0755 "$src" "$dest/ld.so.new"
mv -f "$dest/ld.so.new" "$dest/ld.so"
install -d "$dest/libexec"
# The installed script stands alone: PREFIX filled in, scripts/host.sh
# put in place of the line that sources it.
awk -v prefix="$PREFIX" -v host="$HUGELD_TOP/scripts/host.sh" '
  /^PREFIX=\$\{PREFIX:-\/opt\/hugeld\}$/ { print "PREFIX=${PREFIX:-" prefix "}"; next }
  /# @HOST_SH@$/ { while ((getline l < host) > 0) print l; next }
  { print }' "$HUGELD_TOP/scripts/system-loader.sh" > "$dest/libexec/hugeld-system-loader.new"
grep -q '^pkg_version ()' "$dest/libexec/hugeld-system-loader.new" \
  || die "could not put scripts/host.sh into hugeld-system-loader"
chmod 0755 "$dest/libexec/hugeld-system-loader.new"
mv -f "$dest/libexec/hugeld-system-loader.new" "$dest/libexec/hugeld-system-loader"
echo "hugeld: installed $dest/ld.so ($("${HUGELD_RUN[@]}" "$dest/ld.so" --version | head -1))"
