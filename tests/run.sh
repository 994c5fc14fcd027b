#!/bin/bash
# Run hugeld's tests: every tests/t-*.sh (or the ones named, or those of
# one group of tests/groups), then print the totals as "N passed, N
# failed, N skipped".
#
#   tests/run.sh                    all of them but the programs group (make check)
#   tests/run.sh --group GROUP      one part: loader, command, system, glibc,
#                                   programs (make check-programs)
#   tests/run.sh --list             the index: group, test, what it checks
#   tests/run.sh tests/t-X.sh...    the tests named
#
# Run as root, a test that skips itself for want of root fails: root is
# what it asked for.
set -u
cd "$(dirname "$0")/.."
# Every test starts from the same environment, whatever the caller set.
. tests/clean-env.sh
GROUPS_FILE=tests/groups
tests=()
case "${1:-}" in
  --list)
    awk '!/^#/ && NF' "$GROUPS_FILE"
    exit 0 ;;
  --group)
    [ $# = 2 ] || { echo "usage: tests/run.sh --group GROUP" >&2; exit 2; }
    mapfile -t tests < <(awk -v g="$2" '!/^#/ && $1 == g { print "tests/" $2 ".sh" }' "$GROUPS_FILE")
    [ ${#tests[@]} -gt 0 ] || { echo "tests/run.sh: no group $2 in $GROUPS_FILE (groups: $(awk '!/^#/ && NF { print $1 }' "$GROUPS_FILE" | sort -u | tr '\n' ' '))" >&2; exit 2; }
    ;;
  # All but the real-program corpus (make check-programs: minutes of
  # package installs and runs of its own).
  "") mapfile -t tests < <(awk '!/^#/ && NF && $1 != "programs" { print "tests/" $2 ".sh" }' "$GROUPS_FILE" | sort) ;;
  *) tests=("$@") ;;
esac
# This run's own log (another run at the same time, in this checkout,
# writes its own), kept as build/tests/run.log when the run ends.
mkdir -p build/tests
log=$(mktemp build/tests/run.XXXXXX.log)
trap 'mv -f "$log" build/tests/run.log' EXIT
status=0
# The index must name every test once, so that a group runs all of its
# part: a test in no group, or in two, is a failure of the whole run.
if [ $# = 0 ]; then
  for t in tests/t-*.sh; do
    n=$(awk -v t="$(basename "$t" .sh)" '!/^#/ && $2 == t' "$GROUPS_FILE" | wc -l)
    [ "$n" = 1 ] || echo "FAIL: run: $t is in $n groups of $GROUPS_FILE (must be 1)" | tee -a "$log"
  done
fi
for t in "${tests[@]}"; do
  echo "== $t"
  name=$(basename "$t" .sh)
  bash "$t" 2>&1 | tee -a "$log" | grep -E '^(PASS|FAIL|SKIP):' || true
  rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ] && ! grep -q "^FAIL: $name:" "$log"; then
    echo "FAIL: $name: script: exited $rc" | tee -a "$log"
  fi
  if [ "$(id -u)" = 0 ] && grep -q "^SKIP: $name: .*must run as root" "$log"; then
    echo "FAIL: $name: skipped for want of root in a run as root" | tee -a "$log"
  fi
done
p=$(grep -c '^PASS:' "$log"); f=$(grep -c '^FAIL:' "$log"); s=$(grep -c '^SKIP:' "$log")
if [ "$f" != 0 ]; then echo; echo "Failures:"; grep '^FAIL:' "$log"; status=1; fi
echo
echo "$p passed, $f failed, $s skipped"
exit $status
