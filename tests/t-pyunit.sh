#!/bin/bash
# The hugeld command's Python unit tests (tests/unit/test_*.py, stdlib
# unittest): argparse, the man page and the bash completion list the same
# options; the argument checks and formatting helpers; the package's
# shape; the open rule, C and Python, on one table of cases (as root).
. "$(dirname "$0")/lib.sh"

# The checks of settings ask the planning helper, as the command does,
# and the open rule runs in both: the helper next to $HUGELD_CMD (as
# tests/tool-lib.sh finds it), else the one in build/tools.
if [ -z "${HUGELD_PLAN:-}" ] && [ -n "${HUGELD_CMD:-}" ]; then
  HUGELD_PLAN=$(dirname "$(readlink -f "$HUGELD_CMD")")/hugeld-plan
  [ -x "$HUGELD_PLAN" ] || HUGELD_PLAN=$(dirname "$HUGELD_PLAN")/../libexec/hugeld-plan
fi
if [ -z "${HUGELD_PLAN:-}" ]; then
  [ -x "$HUGELD_TOP/build/tools/hugeld-plan" ] || make -C "$HUGELD_TOP/tools" > /dev/null
  HUGELD_PLAN=$HUGELD_TOP/build/tools/hugeld-plan
fi
export HUGELD_PLAN
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
