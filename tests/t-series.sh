#!/bin/bash
# The patch series (glibc-patches/series): one list for every supported
# release, with release ranges on the patches that have a version per
# range.  Offline checks of what scripts/prepare-source.sh reads; `make
# check-series' applies it to every release's source (it downloads them).
. "$(dirname "$0")/lib.sh"
. "$HUGELD_TOP/scripts/config.sh"

releases=$(supported_releases)
check "glibc-patches/releases lists 2.36, 2.41, 2.43 and 2.44" \
  test "$releases" = "2.36 2.41 2.43 2.44"

# Each release gets each numbered patch exactly once, in order.
for r in $releases; do
  nums=$(series_for "$r" | cut -c1-4 | tr '\n' ' ')
  want=$(ls "$HUGELD_TOP"/glibc-patches/*.patch | xargs -n1 basename | cut -c1-4 | sort -u | tr '\n' ' ')
  check "series for $r: every patch number once, in order ($nums)" test "$nums" = "$want"
done
# The versions per range go to the right releases.
in_series () { series_for "$1" | grep "$2" "$3"; }
check "2.36 gets 2.36's UNSECURE_ENVVARS hunk" in_series 2.36 -qx '0003-.*-2.36.patch'
check "2.41 gets the 2.37- UNSECURE_ENVVARS hunk" in_series 2.41 -q '^0003-.*programs.patch$'
check "2.43 gets the phdr-array prepare hook" in_series 2.43 -qx '0006-.*-it.patch'
check "2.44 gets the dl_pt_load_iterator prepare hook" in_series 2.44 -qx '0006-.*-2.44.patch'
check "a release after 2.44 gets 2.44's versions" in_series 2.45 -qx '0006-.*-2.44.patch'

# Every patch file is in the series, and every series line names a file.
for f in "$HUGELD_TOP"/glibc-patches/*.patch; do
  b=$(basename "$f")
  check "series names $b" grep -q "^$b\b" "$HUGELD_TOP/glibc-patches/series"
done
while read -r p _; do
  check "series line $p is a file" test -f "$HUGELD_TOP/glibc-patches/$p"
done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$HUGELD_TOP/glibc-patches/series")

# A malformed range is an error, not a silently skipped patch.
bad=$TEST_TMP/bad
mkdir -p "$bad"
printf '0001-x.patch 2.36-2.41-2.44\n' > "$bad/series"
if ( PATCHDIR=$bad; series_for 2.36 ) > /dev/null 2>&1; then
  fail "a malformed release range is refused" "series_for accepted 2.36-2.41-2.44"
else
  pass "a malformed release range is refused"
fi
# The patches name hugeld's files and functions as they are: every
# dl-hugepage*.c a patch names exists in elf/, and where a patch says
# "FUNCTION (FILE" (a C name, with an underscore), that file defines or
# calls it.
names_ok=yes
for f in "$HUGELD_TOP"/glibc-patches/*.patch; do
  for c in $(grep -o 'dl-hugepage[a-z-]*\.c' "$f" | sort -u); do
    [ -e "$HUGELD_TOP/elf/$c" ] || { names_ok=no; fail "$(basename "$f") names $c" "no elf/$c"; }
  done
  while read -r fn c; do
    grep -qw "$fn" "$HUGELD_TOP/elf/$c" 2> /dev/null \
      || { names_ok=no; fail "$(basename "$f") says $fn is in $c" "it is in: $(grep -lw "$fn" "$HUGELD_TOP"/elf/*.c | xargs -r -n1 basename | tr '\n' ' ')"; }
  done < <(grep -oE '\b[a-z]*_[a-z_]+ \(dl-hugepage[a-z-]*\.c' "$f" | tr -d '(' | sort -u)
done
[ $names_ok = yes ] && pass "the patches name only files in elf/, and each function where it is"

finish
