#!/bin/bash
# glibc's own elf/ and dlfcn/ tests against the hugeld build, plain and
# with LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all for every test
# program (scripts/check-glibc.sh, also `make check-glibc'): identical
# results, every failure explained in tests/glibc-xfail.txt.
. "$(dirname "$0")/lib.sh"
if out=$("$HUGELD_TOP/scripts/check-glibc.sh" 2>"$TEST_TMP/err"); then
  pass "$out"
else
  fail "glibc's own tests" "$out $(grep -v '^hugeld: glibc tests' "$TEST_TMP/err" | head -8 | tr '\n' ' ')"
fi
grep '^hugeld: glibc tests' "$TEST_TMP/err" | sed 's/^/  /'
finish
