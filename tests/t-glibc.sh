#!/bin/bash
# hugeld's tests that live in glibc's own tree (elf/tst-hugepage-*.c,
# glibc's support/ skeleton), run by glibc's harness in build/obj: the
# harness runs them as `elf/ld.so --library-path ... test', with the
# environment from elf/Makefile (LD_HUGEPAGE_LIBS=tst-hugepage-mod.so).
. "$(dirname "$0")/lib.sh"

need_root "to reserve huge pages"
[ -f "$HUGELD_OBJDIR/config.status" ] || { fail "glibc build tree" "$HUGELD_OBJDIR is not built"; finish; }
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }

for t in elf/tst-hugepage-dlopen; do
  make -C "$HUGELD_OBJDIR" test t="$t" > "$TEST_TMP/make.log" 2>&1
  res=$(cat "$HUGELD_OBJDIR/$t.test-result" 2>/dev/null | head -1)
  case "$res" in
    PASS:*) pass "$t (glibc harness)" ;;
    *) fail "$t (glibc harness)" "${res:-no result}: $(tail -5 "$HUGELD_OBJDIR/$t.out" 2>/dev/null | tr '\n' ' ')" ;;
  esac
done
finish
