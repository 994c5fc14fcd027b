#!/bin/bash
# make check-series-build: every commit of the host release's series for
# upstream (make series) builds ld.so, in turn; the drop-in's last
# commit (tag dropin) builds the same loader code as the project's
# build; and the tree of the whole series, whose last patches register
# the glibc.elf.hugepage tunables, lists them in `ld.so --list-tunables'
# and passes hugeld's tests in glibc's harness (tests/t-glibc.sh).
#
# The series' tree is checked out in build/series-build/src (a git
# worktree of build/series/RELEASE/git), configured as the
# distribution configures glibc (scripts/configure.sh), built once at
# the pristine commit, and then after each commit incrementally: make
# rebuilds what the commit changed.  The code of ld.so's objects that
# the series changes (rtld, dl-load, dl-hugepage*) is compared, section
# by section, with the project's build in build/obj.  A full glibc build
# (7 to 11 minutes on 2 CPUs), then about 35 s a commit (registering
# the tunables rebuilds what includes the tunable list: some minutes);
# not part of CI's run (the README says so).  Needs root for the pool
# and the hugeld command ($HUGELD_CMD, as tests/run.sh takes it).
#
# SERIES_ELF_TESTS=1 also runs glibc's own elf tests (scripts/check-glibc.sh
# elf: plain, and with every object selected) at the pristine commit and
# at each commit: each must pass check-glibc (failures only those listed
# in tests/glibc-xfail.txt, the same results with every object on huge
# pages) and give the pristine tree's results for every test the
# pristine tree has.  Some minutes a commit; SERIES_ELF_COMMITS="09 13"
# runs them only at those commits (and the pristine one).
#
# Prints "PASS: series-build-N TITLE (Ss)" or "FAIL: ..." per commit
# and check, then "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/config.sh"

rel=$GLIBC_RELEASE
"$HUGELD_TOP/scripts/series.sh" "$rel"
repo=$BUILDDIR/series/$rel/git
B=$BUILDDIR/series-build
jobs=${JOBS:-$(nproc)}
pass=0 fail=0

git -C "$repo" worktree prune
if [ ! -e "$B/src/.git" ]; then
  rm -rf "$B/src"
  mkdir -p "$B"
  git -C "$repo" worktree add -q --detach "$B/src" pristine
fi
git -C "$B/src" checkout -q --detach -f pristine
BUILDDIR=$B "$HUGELD_TOP/scripts/configure.sh"

step () {
  local name=$1 start=$SECONDS
  if make -C "$B/obj" -j"$jobs" > "$B/build-$name.log" 2>&1 && [ -x "$B/obj/elf/ld.so" ] \
     && "$B/obj/elf/ld.so" --version > /dev/null; then
    echo "PASS: series-build $name ($((SECONDS - start))s)"; pass=$((pass + 1))
  else
    echo "FAIL: series-build $name: $(grep -m3 -E ': error:|\*\*\* ' "$B/build-$name.log" | tr '\n' ' ' | cut -c1-300) ($B/build-$name.log)"
    fail=$((fail + 1))
    return 1
  fi
}

# The same loader code as the project's build: the sections that hold
# code and data of every object the series changes.
same_code () {
  local why=
  if [ ! -f "$OBJDIR/elf/rtld.os" ]; then
    echo "SKIP: series-build: the drop-in's last commit against the project's ld.so: $OBJDIR is not built (make build)"
    return 0
  fi
  for o in "$OBJDIR"/elf/rtld.os "$OBJDIR"/elf/dl-load.os "$OBJDIR"/elf/dl-hugepage*.os; do
    b=$B/obj/elf/$(basename "$o")
    [ -f "$b" ] || { why="$(basename "$o") is not built by the series"; break; }
    for sec in .text .rodata .data; do
      objcopy -O binary --only-section="$sec" "$o" "$B/a.bin" 2>/dev/null || : > "$B/a.bin"
      objcopy -O binary --only-section="$sec" "$b" "$B/b.bin" 2>/dev/null || : > "$B/b.bin"
      [ "$sec" != .text ] || [ -s "$B/a.bin" ] || { why="$(basename "$o"): no .text read"; break 2; }
      cmp -s "$B/a.bin" "$B/b.bin" || { why="$(basename "$o"): $sec differs"; break 2; }
    done
  done
  if [ -z "$why" ]; then
    echo "PASS: series-build: the drop-in's last commit has the code of build/obj's ld.so objects"; pass=$((pass + 1))
  else
    echo "FAIL: series-build: the drop-in's last commit is not the project's ld.so: $why"; fail=$((fail + 1))
  fi
}

# The registered tunables in the whole series' ld.so.
tunables_listed () {
  local out why=
  out=$(GLIBC_TUNABLES=glibc.elf.hugepage.libs=liba.so,libb.so*:glibc.elf.hugepage.backing=private \
        "$B/obj/elf/ld.so" --list-tunables 2>&1) || why="ld.so --list-tunables failed: $out"
  for line in "glibc.elf.hugepage.libs: liba.so,libb.so*" "glibc.elf.hugepage.segments:" \
              "glibc.elf.hugepage.backing: private"; do
    [ -n "$why" ] || echo "$out" | grep -qxF "$line" || why="no line \"$line\""
  done
  if [ -z "$why" ]; then
    echo "PASS: series-build: ld.so --list-tunables lists glibc.elf.hugepage.libs, .segments and .backing, with their values"; pass=$((pass + 1))
  else
    echo "FAIL: series-build: ld.so --list-tunables: $why"; fail=$((fail + 1))
  fi
}

# glibc's elf tests at this commit ($1: its name), if SERIES_ELF_TESTS=1.
elf_tests () {
  [ "${SERIES_ELF_TESTS:-0}" = 1 ] || return 0
  local name=$1 out start=$SECONDS why=
  case " pristine ${SERIES_ELF_COMMITS:-$name} " in *" $name "*) ;; *) return 0 ;; esac
  out=$(BUILDDIR=$B "$HUGELD_TOP/scripts/check-glibc.sh" elf 2> "$B/elf-$name.err") \
    || why="check-glibc: $(grep -m3 'unexpected\|differ' "$B/elf-$name.err" | tr '\n' ' ')"
  cp "$B/check-glibc/plain.sum" "$B/elf-$name.sum" 2> /dev/null || why="no results"
  if [ -z "$why" ] && [ "$name" != pristine ]; then
    # The pristine tree's tests, with this commit's results.
    local d
    d=$(join -1 2 -2 2 -o 1.1,1.2,2.1 <(sed 's/: / /' "$B/elf-pristine.sum" | sort -k2) \
                                     <(sed 's/: / /' "$B/elf-$name.sum" | sort -k2) \
        | awk '$1 != $3 { print $2 ": " $1 " -> " $3 }')
    [ -z "$d" ] || why="results differ from the pristine tree's: $(echo "$d" | head -5 | tr '\n' ' ')"
  fi
  if [ -z "$why" ]; then
    echo "PASS: series-build $name: glibc's elf tests ($out; $((SECONDS - start))s)"; pass=$((pass + 1))
  else
    echo "FAIL: series-build $name: glibc's elf tests: $why ($B/elf-$name.err)"; fail=$((fail + 1))
  fi
}

built=no
step pristine || { echo "$pass passed, $fail failed"; exit 1; }
elf_tests pristine
n=0
dropin=$(git -C "$repo" rev-parse dropin)
for c in $(git -C "$repo" rev-list --reverse pristine..series); do
  n=$((n + 1))
  git -C "$B/src" checkout -q --detach "$c"
  step "$(printf '%02d' "$n")-$(git -C "$repo" log -1 --format=%s "$c" | tr -c 'A-Za-z0-9._\n-' '-')" || break
  [ "$c" != "$dropin" ] || same_code
  elf_tests "$(printf '%02d' "$n")"
  [ "$c" != "$(git -C "$repo" rev-parse series)" ] || built=yes
done

# The whole series' tree, if every commit built.
if [ "$built" = yes ]; then
  tunables_listed
  # hugeld's tests in glibc's harness, in the whole series' tree.
  if HUGELD_OBJDIR=$B/obj "$HUGELD_TOP/tests/run.sh" "$HUGELD_TOP/tests/t-glibc.sh" > "$B/t-glibc.log" 2>&1; then
    echo "PASS: series-build: tests/t-glibc.sh in the whole series' tree ($(grep -c '^PASS' "$B/t-glibc.log") passed)"; pass=$((pass + 1))
  else
    echo "FAIL: series-build: tests/t-glibc.sh in the whole series' tree: $(grep -m2 '^FAIL' "$B/t-glibc.log" | tr '\n' ' ') ($B/t-glibc.log)"; fail=$((fail + 1))
  fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
