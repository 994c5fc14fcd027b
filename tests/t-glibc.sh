#!/bin/bash
# hugeld's tests that live in glibc's own tree (elf/tst-hugepage-*.c,
# glibc's support/ skeleton), run by glibc's harness in build/obj: the
# harness runs them as `elf/ld.so --library-path ... test', with the
# environment from elf/Makefile (LD_HUGEPAGE_LIBS or the
# glibc.elf.hugepage.libs tunable, and the backing).  tst-hugepage-plan
# (the pure planner) runs once; each other test runs with a pool and
# without one; tst-hugepage-shared also with a cache entry for
# its module, made here with `hugeld cache add'.  What the tests print
# (their .out) says which case they checked, and must be the one set up.
. "$(dirname "$0")/lib.sh"
. "$HUGELD_TOP/tests/cache-lib.sh"

need_root "to reserve huge pages and make a cache entry"
[ -f "$HUGELD_OBJDIR/config.status" ] || { fail "glibc build tree" "$HUGELD_OBJDIR is not built"; finish; }
MOD=$HUGELD_OBJDIR/elf/tst-hugepage-mod.so
TESTS="elf/tst-hugepage-plan elf/tst-hugepage-dlopen elf/tst-hugepage-tunable elf/tst-hugepage-thp elf/tst-hugepage-shared"

# harness TEST CASE WANT: run TEST with glibc's harness; PASS if glibc
# says PASS and its output has the line WANT.
harness () {
  local t=$1 case=$2 want=$3 res
  make -C "$HUGELD_OBJDIR" test t="$t" > "$TEST_TMP/make.log" 2>&1
  res=$(head -1 "$HUGELD_OBJDIR/$t.test-result" 2>/dev/null)
  case "$res" in
    PASS:*)
      if [ -z "$want" ] || grep -q "^$want" "$HUGELD_OBJDIR/$t.out"; then
        pass "$t, $case (glibc harness): $want"
      else
        fail "$t, $case (glibc harness)" "passed, but did not check \"$want\": $(head -3 "$HUGELD_OBJDIR/$t.out" | tr '\n' ' ')"
      fi ;;
    *) fail "$t, $case (glibc harness)" "${res:-no result}: $(tail -5 "$HUGELD_OBJDIR/$t.out" 2>/dev/null | tr '\n' ' ')" ;;
  esac
}

# The planner needs nothing of the machine.
harness elf/tst-hugepage-plan "pure" ""
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
"$H" cache remove "$MOD" > /dev/null 2>&1
harness elf/tst-hugepage-dlopen "pool of 16" "text on 2 MiB pages from the pool"
harness elf/tst-hugepage-tunable "pool of 16" "text on 2 MiB pages from the pool"
harness elf/tst-hugepage-thp "pool of 16" "text mapped from the file"
harness elf/tst-hugepage-shared "no cache entry" "no cache entry: ordinary pages"

cache_remember_mount
at_exit "cleanup_cache $MOD"
if "$H" cache add "$MOD" > "$TEST_TMP/add.log" 2>&1; then
  harness elf/tst-hugepage-shared "cache entry" "served from the shared cache"
else
  fail "hugeld cache add tst-hugepage-mod.so" "$(head -3 "$TEST_TMP/add.log" | tr '\n' ' ')"
fi
cleanup_cache "$MOD"

reserve_hugepages 0
harness elf/tst-hugepage-dlopen "no pool" "no pool: ordinary pages"
harness elf/tst-hugepage-tunable "no pool" "no pool: ordinary pages"
harness elf/tst-hugepage-thp "no pool" "text mapped from the file"
finish
