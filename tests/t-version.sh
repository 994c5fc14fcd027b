#!/bin/bash
# The build's version check: ld.so and libc.so.6 share GLIBC_PRIVATE
# internals, so hugeld must only ever be built from the glibc-source of
# exactly the installed libc6.  scripts/check-version.sh enforces that, and
# scripts/prepare-source.sh must refuse before extracting anything.
# DPKG_VERSION_OVERRIDE_glibc_source fakes the glibc-source version.
. "$(dirname "$0")/lib.sh"

# Start from no overrides at all.
for v in $(compgen -e); do
  case $v in DPKG_VERSION_OVERRIDE_*) unset "$v" ;; esac
done

libc=$(pkg_version libc6)
if [ -z "$libc" ]; then
  fail "libc6 version" "dpkg knows no installed libc6"
  finish
fi
# A glibc-source of the same glibc release but another Debian version.
FAKE=${libc}fake
if [ "$libc" = "$FAKE" ]; then
  fail "libc6 version" "the installed libc6 is $FAKE, the version this test fakes"
  finish
fi

# names_both NAME FILE: PASS if FILE names the fake glibc-source version and
# the installed libc6's.  (The fake version may contain the real one as a
# prefix -- 2.36-9+deb12u14 in 2.36-9+deb12u14fake -- so the real one is
# looked for with the fake one taken out.)
names_both () {
  local name=$1 msg=$2 rest
  rest=$(awk -v f="$FAKE" '{ while ((i = index($0, f)) > 0) $0 = substr($0, 1, i - 1) "<FAKE>" substr($0, i + length(f)); print }' "$msg")
  if ! grep -q -F -- "$FAKE" "$msg"; then
    fail "$name" "the message does not name the glibc-source version $FAKE: $(tr '\n' ' ' < "$msg")"
  elif ! grep -q -F -- "$libc" <<< "$rest"; then
    fail "$name" "the message does not name the installed libc6 version $libc: $(tr '\n' ' ' < "$msg")"
  else
    pass "$name"
  fi
}

cv=$HUGELD_TOP/scripts/check-version.sh
ps=$HUGELD_TOP/scripts/prepare-source.sh

# 1. Normally: exit 0, print the libc6 version (callers capture it).
"$cv" > "$TEST_TMP/cv.out" 2> "$TEST_TMP/cv.err"
rc=$?
if [ $rc != 0 ]; then
  fail "check-version.sh" "exited $rc: $(tr '\n' ' ' < "$TEST_TMP/cv.err")"
elif [ "$(cat "$TEST_TMP/cv.out")" != "$libc" ]; then
  fail "check-version.sh" "printed '$(tr '\n' ' ' < "$TEST_TMP/cv.out")', not the libc6 version $libc"
else
  pass "check-version.sh"
fi

# 2. With a glibc-source of another version: refuse, naming both.
DPKG_VERSION_OVERRIDE_glibc_source=$FAKE "$cv" > "$TEST_TMP/cvf.msg" 2>&1
rc=$?
if [ $rc = 0 ]; then
  fail "check-version.sh refuses $FAKE" "exited 0 with glibc-source $FAKE and libc6 $libc: $(tr '\n' ' ' < "$TEST_TMP/cvf.msg")"
else
  pass "check-version.sh refuses $FAKE"
  names_both "check-version.sh refuses $FAKE: message names both versions" "$TEST_TMP/cvf.msg"
fi

# 2b. A glibc release without a patch series (libc6 and glibc-source
# both faked to 2.0-1): refuse, naming the supported releases.
DPKG_VERSION_OVERRIDE_libc6=2.0-1 DPKG_VERSION_OVERRIDE_glibc_source=2.0-1 "$cv" > "$TEST_TMP/cvu.msg" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q 'glibc 2.0 .*not supported.*supported: ' "$TEST_TMP/cvu.msg" \
   && grep -qF "${libc%%-*}" "$TEST_TMP/cvu.msg"; then
  pass "check-version.sh refuses a glibc release without a patch series"
else
  fail "check-version.sh refuses a glibc release without a patch series" "exit $rc: $(tr '\n' ' ' < "$TEST_TMP/cvu.msg")"
fi

# 3. prepare-source.sh refuses the same way, before extracting anything
# into its (fresh, empty) BUILDDIR.
bd=$(mktemp -d "$TEST_TMP/builddir.XXXXXX")
BUILDDIR=$bd DPKG_VERSION_OVERRIDE_glibc_source=$FAKE "$ps" > "$TEST_TMP/ps.msg" 2>&1
rc=$?
left=$(cd "$bd" && find . -mindepth 1 | head -5 | tr '\n' ' ')
if [ $rc = 0 ]; then
  fail "prepare-source.sh refuses $FAKE" "exited 0 with glibc-source $FAKE and libc6 $libc: $(tail -3 "$TEST_TMP/ps.msg" | tr '\n' ' ')"
else
  pass "prepare-source.sh refuses $FAKE"
  names_both "prepare-source.sh refuses $FAKE: message names both versions" "$TEST_TMP/ps.msg"
fi
if [ -n "$left" ] || grep -q 'extracting' "$TEST_TMP/ps.msg"; then
  fail "prepare-source.sh refuses $FAKE: nothing extracted" "BUILDDIR now holds: ${left:-nothing}; output: $(head -3 "$TEST_TMP/ps.msg" | tr '\n' ' ')"
else
  pass "prepare-source.sh refuses $FAKE: nothing extracted"
fi

finish
