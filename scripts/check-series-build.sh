#!/bin/bash
# make check-series-build: every commit of the host release's series
# (make series) builds ld.so, in turn, and the last one builds the same
# loader code as the project's build.
#
# The series' tree is checked out in build/series-build/src (a git
# worktree of build/series/RELEASE/git), configured as the distribution
# configures glibc (scripts/configure.sh), built once at the pristine
# commit and then after each commit incrementally.  The code (.text,
# .rodata, .data) of ld.so's objects that the series changes (rtld,
# dl-load, dl-hugepage*) is compared with the project's build in
# build/obj.  A full glibc build (7 to 11 minutes on 2 CPUs), then
# about 35 s a commit; not part of CI's run.
#
# Prints "PASS: series-build NAME (Ss)" or "FAIL: ..." per commit and
# check, then "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/config.sh"

"$HUGELD_TOP/scripts/series.sh" "$GLIBC_RELEASE"
repo=$BUILDDIR/series/$GLIBC_RELEASE/git
B=$BUILDDIR/series-build
pass=0 fail=0
ok () { echo "PASS: series-build $1"; pass=$((pass + 1)); }
no () { echo "FAIL: series-build $1"; fail=$((fail + 1)); }

git -C "$repo" worktree prune
if [ ! -e "$B/src/.git" ]; then
  rm -rf "$B/src"
  mkdir -p "$B"
  git -C "$repo" worktree add -q --detach "$B/src" pristine
fi
git -C "$B/src" checkout -q --detach -f pristine
BUILDDIR=$B "$HUGELD_TOP/scripts/configure.sh"

step () {
  local start=$SECONDS
  if make -C "$B/obj" -j"${JOBS:-$(nproc)}" > "$B/build-$1.log" 2>&1 && "$B/obj/elf/ld.so" --version > /dev/null; then
    ok "$1 ($((SECONDS - start))s)"
  else
    no "$1: $(grep -m3 -E ': error:|\*\*\* ' "$B/build-$1.log" | tr '\n' ' ' | cut -c1-300) ($B/build-$1.log)"
    return 1
  fi
}

step pristine || { echo "$pass passed, $fail failed"; exit 1; }
n=0
for c in $(git -C "$repo" rev-list --reverse pristine..series); do
  n=$((n + 1))
  git -C "$B/src" checkout -q --detach "$c"
  step "$(printf '%02d' "$n")-$(git -C "$repo" log -1 --format=%s "$c" | tr -c 'A-Za-z0-9._\n-' '-')" || break
done

# The last commit's code is the project's build's.
if [ "$fail" != 0 ]; then :
elif [ ! -f "$OBJDIR/elf/rtld.os" ]; then
  echo "SKIP: series-build: the series' ld.so against the project's: $OBJDIR is not built (make build)"
else
  why=
  for o in "$OBJDIR"/elf/rtld.os "$OBJDIR"/elf/dl-load.os "$OBJDIR"/elf/dl-hugepage*.os; do
    b=$B/obj/elf/${o##*/}
    [ -f "$b" ] || { why="${o##*/} is not built by the series"; break; }
    for sec in .text .rodata .data; do
      objcopy -O binary --only-section="$sec" "$o" "$B/a.bin" 2>/dev/null || : > "$B/a.bin"
      objcopy -O binary --only-section="$sec" "$b" "$B/b.bin" 2>/dev/null || : > "$B/b.bin"
      [ "$sec" != .text ] || [ -s "$B/a.bin" ] || { why="${o##*/}: no .text read"; break 2; }
      cmp -s "$B/a.bin" "$B/b.bin" || { why="${o##*/}: $sec differs"; break 2; }
    done
  done
  if [ -z "$why" ]; then ok "the last commit has the code of build/obj's ld.so objects"
  else no "the last commit is not the project's ld.so: $why"
  fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
