#!/bin/bash
# make series RELEASE=R: hugeld as a `git format-patch' series against
# the pristine glibc R (the tarball inside R's glibc-source), written to
# build/series-out/R/.  Generated from glibc-patches/ (the hooks and
# their messages) and elf/ (hugeld's own files), in the order and
# grouping of glibc-patches/upstream/series; the series carries every
# line ld.so builds (no copy step), and applies with `git am'.
#
#   scripts/series.sh RELEASE [SRC]
#
# SRC is the pristine source tree of RELEASE; by default the one
# `make check-series' keeps in build/series/RELEASE/glibc-RELEASE, or
# for the host's release the installed glibc-source's tarball.  The git
# repository the series is made in is kept in build/series/RELEASE/git:
# its tag `pristine' is SRC, its branch `series' the series, and its tag
# `dropin' the last commit before the patches only upstream takes
# (glibc-patches/upstream/patches): that tree has the drop-in's code.
set -euo pipefail
. "$(dirname "$0")/config.sh"

"$HUGELD_TOP/scripts/deps.sh" series
rel=${1:?usage: scripts/series.sh RELEASE [SRC]}
release_supported "$rel" || die "glibc $rel is not a supported release (glibc-patches/releases)"
UP=$PATCHDIR/upstream
src=${2:-$BUILDDIR/series/$rel/glibc-$rel}
if [ ! -d "$src" ] && [ "$rel" = "$GLIBC_RELEASE" ]; then
  src=$BUILDDIR/series/$rel/glibc-$rel
  mkdir -p "$BUILDDIR/series/$rel"
  tar -C "$BUILDDIR/series/$rel" -xf "$GLIBC_TARBALL"
fi
[ -d "$src" ] || die "no glibc $rel source in $src: run make check-series first (it downloads each release's glibc-source)"
out=$BUILDDIR/series-out/$rel
repo=$BUILDDIR/series/$rel/git

# The patch of glibc-patches/series numbered NNNN for this release; with
# a second argument "upstream", of glibc-patches/upstream/patches.
patch_for () {
  local p list=$PATCHDIR/series dir=$PATCHDIR
  [ "${2:-}" != upstream ] || { list=$UP/patches dir=$UP; }
  p=$(series_for "$rel" "$list" | grep "^$1-" || true)
  [ -n "$p" ] || die "${list#"$HUGELD_TOP"/} has no patch $1 for glibc $rel"
  echo "$dir/$p"
}
# The message of a glibc-patches patch: its subject without "[PATCH
# N/M]", a blank line, and its text up to the "---" line.
patch_message () {
  sed -n '1,/^---$/p' "$1" | sed -e '/^---$/d' -e '/^From: /d' \
    -e 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//'
}
apply () { patch -s -p1 -F0 -d "$repo" --no-backup-if-mismatch -r - < "$1" \
  || die "$(basename "$1") does not apply to glibc $rel"; }

# Git, with the same author, committer and date for every commit: the
# series is a function of this tree and the release's source.
date=$(git -C "$HUGELD_TOP" log -1 --format=%cI 2>/dev/null || echo 2026-01-01T00:00:00Z)
g () {
  GIT_AUTHOR_NAME="The hugeld authors" GIT_AUTHOR_EMAIL="hugeld@invalid" \
  GIT_COMMITTER_NAME="The hugeld authors" GIT_COMMITTER_EMAIL="hugeld@invalid" \
  GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
    git -C "$repo" -c core.autocrlf=false -c gc.auto=0 "$@"
}
commit () { g add -A . && g commit -q --no-verify -F "$1"; }

# The repository: the pristine tree, once; the series branch made anew.
if ! g rev-parse -q --verify refs/tags/pristine > /dev/null 2>&1; then
  rm -rf "$repo"
  mkdir -p "$repo"
  cp -a "$src/." "$repo/"
  g init -q
  printf 'glibc %s, pristine (%s)\n' "$rel" "$src" > "$BUILDDIR/series/$rel/pristine.msg"
  commit "$BUILDDIR/series/$rel/pristine.msg"
  g tag pristine
fi
g checkout -q -f -B series pristine
g clean -q -fdx
g tag -d dropin > /dev/null 2>&1 || true

# The loader's files before each concern of the series is added
# (`concern' lines): elf/'s files with every concern's diff taken back,
# last concern first, and without its files.  The commits before the
# concerns take their files from here; each concern commit then adds
# its files and applies its diff, and after the last one the tree has
# elf/'s files exactly.
msg=$(mktemp)
stage=$(mktemp -d)
trap 'rm -rf "$msg" "$stage"' EXIT
mkdir "$stage/elf"
cp "$HUGELD_TOP"/elf/dl-hugepage* "$HUGELD_TOP"/elf/tst-hugepage* "$stage/elf/"
while read -r kind a b rest; do
  [ "$kind" = concern ] || continue
  [ -f "$UP/split/$b" ] || die "glibc-patches/upstream/series names split/$b, which does not exist"
  patch -s -p1 -F0 -R -d "$stage" --no-backup-if-mismatch -r - < "$UP/split/$b" \
    || die "glibc-patches/upstream/split/$b does not take back from elf/'s files: update it (diff -u from the tree without the concern to elf/'s files)"
  for f in $rest; do
    [ -f "$stage/elf/$f" ] || die "glibc-patches/upstream/series names elf/$f, which does not exist"
    rm "$stage/elf/$f"
  done
done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$UP/series" | tac)

# elf/Makefile's rtld-routines: patch 0004's block (applied the first
# time), its list cut to the files the series has added so far
# ($added), in 0004's order.  The rest of the Makefile is left as the
# commits before made it.
routines () {
  local mk=$repo/elf/Makefile p4
  p4=$(patch_for 0004)
  grep -q '^  # rtld-routines (hugeld)$' "$mk" || apply "$p4"
  awk -v have="$added" \
      -v list="$(sed -n 's/^+  \(dl-hugepage[a-z-]*\) \\$/\1/p' "$p4" | tr '\n' ' ')" '
    /^# hugeld: map selected objects onto huge pages/ { mark = 1; print; next }
    mark && /^rtld-routines \+= \\$/ {
      print; mark = 0; inblock = 1
      n = split(list, a, " ")
      for (i = 1; i <= n; i++)
        if (index(have, " " a[i] ".c ") != 0) print "  " a[i] " \\"
      next }
    inblock && /^  dl-hugepage[a-z-]* \\$/ { next }
    inblock && /^  # rtld-routines \(hugeld\)$/ { inblock = 0 }
    { mark = 0; print }' "$mk" > "$mk.new"
  mv "$mk.new" "$mk"
}

added=" "
grep -v -e '^#' -e '^[[:space:]]*$' "$UP/series" | while read -r kind a b rest; do
  case $kind in
    patch)
      p=$(patch_for "$a")
      apply "$p"
      for f in $b $rest; do
        [ -f "$stage/elf/$f" ] || die "glibc-patches/upstream/series names elf/$f, which does not exist"
        cp "$stage/elf/$f" "$repo/elf/$f"
        added="$added$f "
      done
      patch_message "$p" > "$msg"
      ;;
    files)
      files=$b${rest:+ $rest}
      if [ "$files" = rest ]; then
        files=$(cd "$stage/elf" && ls dl-hugepage* | while read -r f; do
                  case $added in *" $f "*) ;; *) echo "$f" ;; esac; done | tr '\n' ' ')
      fi
      for f in $files; do
        [ -f "$stage/elf/$f" ] || die "glibc-patches/upstream/series names elf/$f, which does not exist or is a later concern's"
        [ ! -e "$src/elf/$f" ] || die "elf/$f would overwrite a glibc $rel file"
        cp "$stage/elf/$f" "$repo/elf/$f"
        added="$added$f "
      done
      routines
      cp "$UP/$a" "$msg"
      ;;
    concern)
      # A concern: its message (a file, or NNNN: that glibc-patches
      # patch, applied too, with its message), its diff to the files
      # added so far, and its own files.
      case $a in
        [0-9][0-9][0-9][0-9]) p=$(patch_for "$a"); apply "$p"; patch_message "$p" > "$msg" ;;
        *) cp "$UP/$a" "$msg" ;;
      esac
      for f in $rest; do
        [ ! -e "$src/elf/$f" ] || die "elf/$f would overwrite a glibc $rel file"
        cp "$HUGELD_TOP/elf/$f" "$repo/elf/$f"
        added="$added$f "
      done
      patch -s -p1 -F0 -d "$repo" --no-backup-if-mismatch -r - < "$UP/split/$b" \
        || die "glibc-patches/upstream/split/$b does not apply to the series' files"
      routines
      ;;
    upstream)
      # The drop-in's code ends before the first of these: tag it.
      g rev-parse -q --verify refs/tags/dropin > /dev/null || g tag dropin
      p=$(patch_for "$a" upstream)
      apply "$p"
      patch_message "$p" > "$msg"
      ;;
    tests)
      p=$(patch_for "$a")
      apply "$p"
      cp "$HUGELD_TOP"/elf/tst-hugepage* "$repo/elf/"
      patch_message "$p" > "$msg"
      ;;
    manual)
      # glibc's manual, where the tree has one: Debian's glibc-source
      # has no manual/*.texi (removed for the DFSG), so its series has
      # no manual commit.
      if [ ! -f "$repo/manual/tunables.texi" ]; then
        echo "hugeld: glibc $rel: the manual commit ($a) is left out: the tree has no manual/tunables.texi"
        continue
      fi
      said=$("$HUGELD_TOP/scripts/series-manual.sh" insert "$repo/manual/tunables.texi" "$UP/$b") \
        || die "glibc $rel's manual/tunables.texi: $said"
      cp "$UP/$a" "$msg"
      ;;
    news)
      awk -v text="$UP/$b" '
        !done && /^Major new features:/ { print; getline; print
          while ((getline line < text) > 0) print line
          print ""; done = 1; next }
        { print }
        END { if (!done) exit 3 }' "$repo/NEWS" > "$repo/NEWS.new" \
        || die "NEWS of glibc $rel has no \"Major new features:\" line"
      mv "$repo/NEWS.new" "$repo/NEWS"
      cp "$UP/$a" "$msg"
      ;;
    *) die "glibc-patches/upstream/series: unknown line: $kind $a $b $rest" ;;
  esac
  commit "$msg"
done

g rev-parse -q --verify refs/tags/dropin > /dev/null || g tag dropin

rm -rf "$out"
mkdir -p "$out"
g format-patch -q --no-signature --zero-commit -o "$out" pristine..series
echo "hugeld: the series for glibc $rel: $out ($(ls "$out" | wc -l) patches)"
