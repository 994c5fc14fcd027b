#!/bin/bash
# make check-series: apply glibc-patches/series, as scripts/prepare-source.sh
# does (patch -p1 -F0), to the glibc source of every release in
# glibc-patches/releases, and check that each patch applies and that the
# hugeld files would not overwrite a glibc file.  No build: this is the
# quick check that a change to a hook (or a new Debian upload) still
# fits every release.  It also makes each release's series (make series;
# scripts/series.sh), applies it with git am to the pristine tree, and
# checks that the tree it makes has exactly the files the build makes.
# That each of its commits builds is checked by the longer make
# check-series-build (scripts/check-series-build.sh).
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

"$HUGELD_TOP/scripts/deps.sh" series
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
  # The series (make series): generated, applied with git am to the
  # pristine tree, and the tree it makes is the one the build makes: the
  # files it changes are those the patches change (as in the scratch
  # copy) and elf/'s, each the same.
  if [ -z "$why" ]; then
    repo=$d/git
    if ! out=$("$HUGELD_TOP/scripts/series.sh" "$rel" "$src" 2>&1); then
      why="make series: $(echo "$out" | tail -1)"
    elif ! am=$(git -C "$repo" checkout -q -f -B am pristine 2>&1 \
                && git -C "$repo" -c user.name=check -c user.email=check@invalid \
                     am -q "$BUILDDIR/series-out/$rel"/*.patch 2>&1); then
      why="git am of the series failed: $(echo "$am" | head -2 | tr '\n' ' ')"
      git -C "$repo" am --abort > /dev/null 2>&1 || true
    elif [ "$(git -C "$repo" diff --name-only pristine am | LC_ALL=C sort)" \
           != "$( (cd "$work" && find . -type f | sed 's,^\./,,'; cd "$HUGELD_TOP" && ls elf/*) | LC_ALL=C sort -u)" ]; then
      why="the series changes other files than the build: $(git -C "$repo" diff --name-only pristine am | tr '\n' ' ')"
    else
      while read -r f; do
        case $f in elf/dl-hugepage*|elf/tst-hugepage*) want=$HUGELD_TOP/$f ;; *) want=$work/$f ;; esac
        git -C "$repo" show "am:$f" | cmp -s - "$want" \
          || { why="the series' $f is not the one the build makes"; break; }
      done < <(git -C "$repo" diff --name-only pristine am)
      nseries=$(ls "$BUILDDIR/series-out/$rel" | wc -l)
    fi
    git -C "$repo" checkout -q -f series 2> /dev/null || true
  fi
  rm -rf "$work"
  if [ -z "$why" ]; then
    echo "PASS: series-$rel (glibc-source $ver, $(series_for "$rel" | wc -l) patches; make series: $nseries, git am applies them, the same files as the build)"; pass=$((pass + 1))
  else
    echo "FAIL: series-$rel (glibc-source $ver): $why"; fail=$((fail + 1))
  fi
done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHDIR/releases")

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
