#!/bin/bash
# make check-series: apply glibc-patches/series, as scripts/prepare-source.sh
# does (patch -p1 -F0), to the glibc source of every release in
# glibc-patches/releases, and check that each patch applies and that the
# hugeld files would not overwrite a glibc file.  No build: this is the
# quick check that a change to a hook (or a new Debian upload) still
# fits every release.
#
# The sources are the glibc-source packages of the releases' Debian
# suites (whatever version the suite has now; the version the series
# was last checked against is in glibc-patches/releases), downloaded
# through a private apt state under build/series (the host's apt is not
# touched) and kept there.  SERIES_OFFLINE=1 uses what is there.
# Prints "PASS: series-RELEASE (glibc-source VERSION)" or "FAIL: ...",
# then "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/config.sh"

SDIR=$BUILDDIR/series
mkdir -p "$SDIR"
read -r mirror security <<< "$(debian_mirrors) "
mirror=${HUGELD_DEBIAN_MIRROR:-$mirror} security=${HUGELD_DEBIAN_SECURITY:-$security}
pass=0 fail=0

while read -r rel suite _; do
  d=$SDIR/$rel
  mkdir -p "$d"
  # The suite's glibc-source .deb (once per version).
  if [ "${SERIES_OFFLINE:-0}" != 1 ]; then
    private_apt "$SDIR/apt/$suite" "$suite" "$mirror" "$security"
    apt-get "${APT[@]}" update > "$d/update.log" 2>&1 \
      || { echo "FAIL: series-$rel: apt-get update for $suite failed ($d/update.log)"; fail=$((fail + 1)); continue; }
    ( cd "$d" && apt-get "${APT[@]}" download glibc-source > "$d/download.log" 2>&1 ) \
      || { echo "FAIL: series-$rel: no glibc-source in $suite ($d/download.log)"; fail=$((fail + 1)); continue; }
  fi
  deb=$(ls -t "$d"/glibc-source_*_all.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || { echo "FAIL: series-$rel: no glibc-source package in $d"; fail=$((fail + 1)); continue; }
  ver=$(dpkg-deb -f "$deb" Version)
  case $ver in
    "$rel"-*) ;;
    *) echo "FAIL: series-$rel: $suite's glibc-source is $ver, not glibc $rel"; fail=$((fail + 1)); continue ;;
  esac
  src=$d/glibc-$rel
  if [ "$(cat "$d/.version" 2>/dev/null)" != "$ver" ]; then
    rm -rf "$src" "$d/x"
    dpkg-deb -x "$deb" "$d/x"
    tar -C "$d" -xf "$d/x/usr/src/glibc/glibc-$rel.tar.xz"
    rm -rf "$d/x"
    echo "$ver" > "$d/.version"
  fi
  # A scratch copy of the files the series touches.
  work=$(mktemp -d)
  why=
  while read -r p; do
    sed -n 's,^+++ [^/]*/\([^[:space:]]*\).*,\1,p' "$PATCHDIR/$p" | while read -r f; do
      mkdir -p "$work/$(dirname "$f")"
      [ -e "$work/$f" ] || [ ! -f "$src/$f" ] || cp "$src/$f" "$work/$f"
    done
    out=$(patch -p1 -F0 -d "$work" --no-backup-if-mismatch -r - < "$PATCHDIR/$p" 2>&1) \
      || { why="$p does not apply: $(echo "$out" | grep -i -m1 'failed\|error\|malformed')"; break; }
  done < <(series_for "$rel")
  for f in "$HUGELD_TOP"/elf/*; do
    [ -z "$why" ] || break
    [ ! -e "$src/elf/$(basename "$f")" ] || why="elf/$(basename "$f") would overwrite a glibc $rel file"
  done
  rm -rf "$work"
  if [ -z "$why" ]; then
    echo "PASS: series-$rel (glibc-source $ver, $(series_for "$rel" | wc -l) patches)"; pass=$((pass + 1))
  else
    echo "FAIL: series-$rel (glibc-source $ver): $why"; fail=$((fail + 1))
  fi
done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHDIR/releases")

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
