#!/bin/bash
# make series RELEASE=R: hugeld as a `git format-patch' series against
# the pristine glibc R (the tarball inside R's glibc-source), written to
# build/series-out/R/: the drop-in build's own patches and files, as
# commits that each build (docs/releases.md).
#
#   scripts/series.sh RELEASE [SRC]
#
# Nothing in it is written by hand but the patches of glibc-patches/ and
# the files of elf/, which it takes whole:
#
#   1. the patch that builds hugeld's files into ld.so ($FILES_PATCH,
#      elf/Makefile's rtld-routines) with every elf/dl-hugepage* file:
#      the loader, which nothing calls yet;
#   2. every other patch of glibc-patches/series for R, in its order;
#      an elf/tst-hugepage* file goes with the first of them that names
#      it (or, for a .c file, its test).
#
# Each commit's message is its patch's header.  Author, committer and
# date are fixed, so the series is a function of this tree and the
# release.  The tree after the last commit is the one the build makes
# from the same source (make check-series compares them; make
# check-series-build builds each commit).
#
# SRC is the pristine source tree of RELEASE; by default the one `make
# check-series' keeps in build/series/RELEASE/glibc-RELEASE, or for the
# host's release the installed glibc-source's tarball.  The repository
# is build/series/RELEASE/git: tag `pristine' is SRC, branch `series'
# the series.
set -euo pipefail
. "$(dirname "$0")/config.sh"
FILES_PATCH=0004

"$HUGELD_TOP/scripts/deps.sh" series
rel=${1:?usage: scripts/series.sh RELEASE [SRC]}
release_supported "$rel" || die "glibc $rel is not a supported release (glibc-patches/releases)"
src=${2:-$BUILDDIR/series/$rel/glibc-$rel}
if [ ! -d "$src" ] && [ "$rel" = "$GLIBC_RELEASE" ]; then
  mkdir -p "$BUILDDIR/series/$rel"
  tar -C "$BUILDDIR/series/$rel" -xf "$GLIBC_TARBALL"
fi
[ -d "$src" ] || die "no glibc $rel source in $src: run make check-series first (it downloads each release's glibc-source)"
out=$BUILDDIR/series-out/$rel
repo=$BUILDDIR/series/$rel/git

date=$(git -C "$HUGELD_TOP" log -1 --format=%cI 2>/dev/null || echo 2026-01-01T00:00:00Z)
g () {
  GIT_AUTHOR_NAME="The hugeld authors" GIT_AUTHOR_EMAIL="hugeld@invalid" \
  GIT_COMMITTER_NAME="The hugeld authors" GIT_COMMITTER_EMAIL="hugeld@invalid" \
  GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
    git -C "$repo" -c core.autocrlf=false -c gc.auto=0 "$@"
}

# The repository: the pristine tree, once; the series branch made anew.
if ! g rev-parse -q --verify refs/tags/pristine > /dev/null 2>&1; then
  rm -rf "$repo"
  mkdir -p "$repo"
  cp -a "$src/." "$repo/"
  g init -q
  g add -A . && g commit -q --no-verify -m "glibc $rel, pristine"
  g tag pristine
fi
g checkout -q -f -B series pristine
g clean -q -fdx

# elf/'s files: the loader's, and the tests' (placed by the patch that
# names them).
tsts=" "
for f in "$HUGELD_TOP"/elf/*; do
  b=${f##*/}
  [ ! -e "$src/elf/$b" ] || die "elf/$b would overwrite a glibc $rel file"
  case $b in
    dl-hugepage*) ;;
    tst-hugepage*) tsts="$tsts$b " ;;
    *) die "elf/$b is neither a dl-hugepage* nor a tst-hugepage* file: the series does not know where it goes" ;;
  esac
done

msg=$(mktemp)
trap 'rm -f "$msg"' EXIT
patches=$(series_for "$rel")
first=$(grep "^$FILES_PATCH-" <<< "$patches") || die "glibc-patches/series has no patch $FILES_PATCH for glibc $rel"
for p in $first $(grep -v "^$FILES_PATCH-" <<< "$patches"); do
  patch -s -p1 -F0 -d "$repo" --no-backup-if-mismatch -r - < "$PATCHDIR/$p" \
    || die "$p does not apply to glibc $rel"
  [ "$p" != "$first" ] || cp "$HUGELD_TOP"/elf/dl-hugepage* "$repo/elf/"
  for t in $tsts; do
    if grep -qF -e "$t" -e "${t%.c}" "$PATCHDIR/$p"; then
      cp "$HUGELD_TOP/elf/$t" "$repo/elf/"
      tsts=${tsts/ $t / }
    fi
  done
  # The message: the subject (unfolded) without "[PATCH N/M]", a blank
  # line, and the text up to the "---" line.
  awk '/^---$/ { exit }
       body { print; next }
       /^Subject: / { sub(/^Subject: (\[PATCH[^]]*\] )?/, ""); subj = $0; next }
       /^[ \t]/ && subj != "" { sub(/^[ \t]+/, " "); subj = subj $0; next }
       /^$/ { print subj; print ""; body = 1 }' "$PATCHDIR/$p" > "$msg"
  g add -A . && g commit -q --no-verify -F "$msg"
done
for t in $tsts; do die "no patch of glibc-patches/series names elf/$t: name it in the patch that adds its test"; done

rm -rf "$out"
mkdir -p "$out"
g format-patch -q --no-signature --zero-commit -o "$out" pristine..series
echo "hugeld: the series for glibc $rel: $out ($(ls "$out" | wc -l) patches)"
