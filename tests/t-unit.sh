#!/bin/bash
# The planner and the matcher outside glibc: the unit tests with
# hand-made program headers, then the fuzz target over the seed corpus
# and random inputs (both under ASan/UBSan).  Built by `make unit-build`.
. "$(dirname "$0")/lib.sh"

B=$HUGELD_TOP/build/tests
if out=$("$B/test-plan" 2>&1); then
  pass "planner unit tests: $(echo "$out" | tail -1)"
else
  fail "planner unit tests" "$(echo "$out" | grep FAIL | head -5 | tr '\n' ' ')"
fi
corpus=("$HUGELD_TOP"/tests/fuzz/corpus/*)
[ -e "${corpus[0]}" ] || corpus=()
if out=$(HUGELD_FUZZ_RUNS=${FUZZ_RUNS:-300000} "$B/fuzz-plan" "${corpus[@]}" 2>&1); then
  pass "planner fuzz: $(echo "$out" | tail -1)"
else
  fail "planner fuzz" "$(echo "$out" | tail -5 | tr '\n' ' ')"
fi
finish
