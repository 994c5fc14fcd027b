#!/bin/bash
# Run hugeld's tests: every tests/t-*.sh (or the ones named), then print
# the totals as "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(tests/t-*.sh)
log=build/tests/run.log
mkdir -p build/tests
: > "$log"
status=0
for t in "${tests[@]}"; do
  echo "== $t"
  bash "$t" 2>&1 | tee -a "$log" | grep -E '^(PASS|FAIL|SKIP):' || true
  rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ] && ! grep -q "^FAIL: $(basename "$t" .sh):" "$log"; then
    echo "FAIL: $(basename "$t" .sh): script: exited $rc" | tee -a "$log"
  fi
done
p=$(grep -c '^PASS:' "$log"); f=$(grep -c '^FAIL:' "$log"); s=$(grep -c '^SKIP:' "$log")
if [ "$f" != 0 ]; then echo; echo "Failures:"; grep '^FAIL:' "$log"; status=1; fi
echo
echo "$p passed, $f failed, $s skipped"
exit $status
