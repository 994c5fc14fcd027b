#!/bin/bash
# The pure code outside glibc, under ASan/UBSan: the planner's test
# (elf/tst-hugepage-plan.c, the one glibc's framework also runs, here
# with tests/unit/support's copy of its harness), the unit tests of the
# other pure files with hand-made inputs, then the fuzz target over the
# seed corpus and random inputs.  Built by `make unit-build`.
. "$(dirname "$0")/lib.sh"

B=$HUGELD_TOP/build/tests
for t in "tst-hugepage-plan:planner test" "test-unit:unit tests"; do
  if out=$("$B/${t%%:*}" 2>&1); then
    pass "${t#*:}: $(echo "$out" | tail -1)"
  else
    fail "${t#*:}" "$(echo "$out" | grep -A2 '^error:' | head -6 | tr '\n' ' ')"
  fi
done
corpus=("$HUGELD_TOP"/tests/fuzz/corpus/*)
[ -e "${corpus[0]}" ] || corpus=()
if out=$(HUGELD_FUZZ_RUNS=${FUZZ_RUNS:-300000} "$B/fuzz-plan" "${corpus[@]}" 2>&1); then
  pass "planner fuzz: $(echo "$out" | tail -1)"
else
  fail "planner fuzz" "$(echo "$out" | tail -5 | tr '\n' ' ')"
fi
finish
