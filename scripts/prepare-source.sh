#!/bin/bash
# Lay out the glibc source tree that hugeld is built from:
#   build/pristine/glibc-X.Y   the distribution's tarball, untouched
#   build/src                  pristine + glibc-patches/series (for X.Y) + elf/*
# (X.Y: the installed libc6's glibc release, e.g. 2.36 or 2.41)
# Files are only rewritten when their content changes, so the glibc build
# in build/obj stays incremental: editing one of our files rebuilds only
# what depends on it.
set -euo pipefail
. "$(dirname "$0")/config.sh"

version=$("$HUGELD_TOP/scripts/check-version.sh")

# 1. Pristine source, extracted once per version.
if [ "$(cat "$BUILDDIR/pristine/.version" 2>/dev/null)" != "$version" ]; then
  echo "hugeld: extracting $GLIBC_TARBALL ($version)"
  rm -rf "$BUILDDIR/pristine" "$SRCDIR" "$OBJDIR"
  mkdir -p "$BUILDDIR/pristine"
  tar -C "$BUILDDIR/pristine" -xf "$GLIBC_TARBALL"
  [ -d "$PRISTINE" ] || die "$GLIBC_TARBALL did not contain $GLIBC_SRCDIR_NAME/"
  echo "$version" > "$BUILDDIR/pristine/.version"
fi
if [ ! -d "$SRCDIR" ]; then
  cp -a "$PRISTINE" "$SRCDIR.tmp"
  mv "$SRCDIR.tmp" "$SRCDIR"
fi

# 2. Apply the series to copies of the pristine files it touches.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
touched=$stage/touched
: > "$touched"
patches=$stage/patches
series_for "$GLIBC_RELEASE" > "$patches"
while read -r p; do
  f=$PATCHDIR/$p
  [ -f "$f" ] || die "glibc-patches/series names $p but glibc-patches/$p does not exist"
  sed -n 's,^+++ [^/]*/\([^[:space:]]*\).*,\1,p' "$f" >> "$touched"
done < "$patches"
sort -u -o "$touched" "$touched"
mkdir -p "$stage/tree"
while read -r rel; do
  mkdir -p "$stage/tree/$(dirname "$rel")"
  if [ -f "$PRISTINE/$rel" ]; then cp -p "$PRISTINE/$rel" "$stage/tree/$rel"; fi
done < "$touched"
while read -r p; do
  patch -s -p1 -F0 -d "$stage/tree" --no-backup-if-mismatch -r - < "$PATCHDIR/$p" \
    || die "glibc-patches/$p does not apply to $GLIBC_SRCDIR_NAME"
done < "$patches"

# 3. Our own files under elf/ go to the source's elf/.
for f in "$HUGELD_TOP"/elf/*; do
  [ -f "$f" ] || continue
  rel=elf/$(basename "$f")
  [ -e "$PRISTINE/$rel" ] && die "elf/$(basename "$f") would overwrite a glibc file; use a patch"
  cp "$f" "$stage/tree/$rel"
  echo "$rel" >> "$touched"
done

# 4. Install changed files; restore files we no longer change.
state=$BUILDDIR/src.files
[ -f "$state" ] || : > "$state"
sort -u "$touched" "$state" | while read -r rel; do
  if [ -f "$stage/tree/$rel" ]; then new=$stage/tree/$rel
  elif [ -f "$PRISTINE/$rel" ]; then new=$PRISTINE/$rel
  else rm -f "$SRCDIR/$rel"; continue
  fi
  if ! cmp -s "$new" "$SRCDIR/$rel"; then
    mkdir -p "$SRCDIR/$(dirname "$rel")"
    cp "$new" "$SRCDIR/$rel"
    echo "hugeld: updated $rel"
  fi
done
sort -u "$touched" > "$state"
