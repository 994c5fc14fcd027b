#!/bin/bash
# The hugeld command's Python unit tests (tests/unit/test_*.py, stdlib
# unittest): argparse, the man page and the bash completion list the same
# options; the argument checks and formatting helpers.
. "$(dirname "$0")/lib.sh"

# The checks of settings ask the planning helper, as the command does.
[ -x "$HUGELD_TOP/build/tools/hugeld-plan" ] || make -C "$HUGELD_TOP/tools" > /dev/null
export HUGELD_PLAN=${HUGELD_PLAN:-$HUGELD_TOP/build/tools/hugeld-plan}
out=$(cd "$HUGELD_TOP" && /usr/bin/python3 -W error -m unittest discover -v \
        -s tests/unit -p 'test_*.py' 2>&1)
rc=$?
while read -r line; do
  case $line in
    *" ... ok") pass "${line% ... ok}" ;;
    *" ... skipped "*) skip "${line%% ... *}" "${line#* ... skipped }" ;;
    *" ... FAIL"|*" ... ERROR") fail "${line% ... *}" "see below" ;;
  esac
done <<< "$out"
if [ $rc != 0 ]; then
  fail "python unit tests" "$(echo "$out" | grep -E '^(AssertionError|[A-Za-z]*Error)' | head -3 | tr '\n' ' ')"
fi
finish
