#!/bin/bash
# Run hugeld's tests: those of one tier (tests/groups; `make check' is
# the default tier, `make check-full' the slower one), or those of one
# group within it, or the ones named; print each test's seconds, then
# the slowest tests and the totals as "N passed, N failed, N skipped".
#
#   tests/run.sh                    the default tier (make check)
#   tests/run.sh --tier TIER        tier TIER only (full: make check-full, programs:
#                                   make check-programs); all: every test
#   tests/run.sh --group GROUP      one part of the tier: loader, command, system, glibc,
#                                   programs
#   tests/run.sh --list             the index: group, test, what it checks (and its tier)
#   tests/run.sh tests/t-X.sh...    the tests named, whatever their tier
#
# --tier and --group go together.  Each test's own seconds (not those it
# waited for the pool while another checkout's test had it) go to
# build/tests/times (TEST SECONDS WAITED RESULT, this run's tests).  Run as
# root, a test that skips itself for want of root fails: root is what it
# asked for.
set -u
cd "$(dirname "$0")/.."
# Every test starts from the same environment, whatever the caller set.
. tests/clean-env.sh
GROUPS_FILE=tests/groups
usage () { echo "usage: tests/run.sh [--tier TIER] [--group GROUP] | --list | TEST..." >&2; exit 2; }
# index: the groups' lines, each with the test's tier last ("check" for
# a test on no `tier' line).
index () {
  awk '!/^#/ && NF && $1 == "tier" { tier[$3] = $2; next }
       !/^#/ && NF { line[++n] = $0; name[n] = $2 }
       END { for (i = 1; i <= n; i++) print line[i] "\t" (name[i] in tier ? tier[name[i]] : "check") }' "$GROUPS_FILE"
}
tier= group= named=no tests=()
while [ $# -gt 0 ]; do
  case $1 in
    --list) index | awk -F'\t' '{ print $1 ($2 == "check" ? "" : "   [" $2 "]") }'; exit 0 ;;
    --tier) [ $# -ge 2 ] || usage; tier=$2; shift 2 ;;
    --group) [ $# -ge 2 ] || usage; group=$2; shift 2 ;;
    -*) usage ;;
    *) named=yes tests+=("$1"); shift ;;
  esac
done
if [ $named = no ]; then
  mapfile -t tests < <(index | awk -F'\t' -v t="${tier:-check}" -v g="$group" '
    (t == "all" || $2 == t) { split($1, f, " "); if (g == "" || f[1] == g) print "tests/" f[2] ".sh" }')
  [ ${#tests[@]} -gt 0 ] || { echo "tests/run.sh: no test in tier ${tier:-check}${group:+, group $group} (tiers: check $(awk '$1 == "tier" { print $2 }' "$GROUPS_FILE" | sort -u | tr '\n' ' ')all; groups: $(index | awk '{ print $1 }' | sort -u | tr '\n' ' '))" >&2; exit 2; }
fi
# This run's own log (another run at the same time, in this checkout,
# writes its own), kept as build/tests/run.log when the run ends.
mkdir -p build/tests
log=$(mktemp build/tests/run.XXXXXX.log)
times=$(mktemp build/tests/times.XXXXXX)
waited=$(mktemp build/tests/waited.XXXXXX)
trap 'mv -f "$log" build/tests/run.log; mv -f "$times" build/tests/times; rm -f "$waited"' EXIT
status=0
# The index must name every test once, so that a group runs all of its
# part: a test in no group, or in two, or on a `tier' line but in no
# group, is a failure of the whole run.
if [ $named = no ] && [ -z "$group" ]; then
  for t in tests/t-*.sh; do
    n=$(index | awk -F'\t' -v t="$(basename "$t" .sh)" '{ split($1, f, " ") } f[2] == t' | wc -l)
    [ "$n" = 1 ] || echo "FAIL: run: $t is in $n groups of $GROUPS_FILE (must be 1)" | tee -a "$log"
  done
  for t in $(awk '!/^#/ && $1 == "tier" { print $3 }' "$GROUPS_FILE"); do
    [ -f "tests/$t.sh" ] || echo "FAIL: run: $GROUPS_FILE puts $t in a tier, but there is no tests/$t.sh" | tee -a "$log"
  done
fi
start=$SECONDS waited_all=0
for t in "${tests[@]}"; do
  echo "== $t"
  name=$(basename "$t" .sh)
  t0=$SECONDS
  before=$(wc -l < "$log")
  : > "$waited"
  # A test whose only failures came while other processes changed their
  # huge pages asks for another try (exit status 75, RETRY lines;
  # tests/lib.sh): only the last try's lines count.
  tries=${HUGELD_TEST_TRIES:-3}
  for ((try = 1; ; try++)); do
    HUGELD_TEST_TRY=$try HUGELD_TEST_TRIES=$tries HUGELD_POOL_WAITED=$waited \
      bash "$t" > "$log.try" 2>&1 < /dev/null &
    tail --pid=$! -s 0.2 -n +1 -f "$log.try" 2> /dev/null | grep -E '^(PASS|FAIL|SKIP|RETRY):' || true
    wait $!; rc=$?
    [ "$rc" = 75 ] && [ "$try" -lt "$tries" ] || break
    echo "-- $name: another try ($((try + 1)) of $tries): other processes changed their huge pages while it failed"
  done
  cat "$log.try" >> "$log"; rm -f "$log.try"
  [ "$rc" != 75 ] || rc=1
  if [ "$rc" != 0 ] && ! grep -q "^FAIL: $name:" "$log"; then
    echo "FAIL: $name: script: exited $rc" | tee -a "$log"
  fi
  if [ "$(id -u)" = 0 ] && grep -q "^SKIP: $name: .*must run as root" "$log"; then
    echo "FAIL: $name: skipped for want of root in a run as root" | tee -a "$log"
  fi
  # What it left in the shared cache: an entry of a file of its own
  # (under its temporary directories, named hugeld-NAME.* or
  # hugeld-SHORTNAME.*) is a failure, then taken out (prune: its file
  # is gone).
  if [ "$(id -u)" = 0 ] && [ -n "${HUGELD_CMD:-}" ] \
     && [ -n "$(find /dev/hugepages/hugeld -mindepth 2 -maxdepth 2 2>/dev/null | head -1)" ]; then
    left=$(timeout -k 5 20 "$HUGELD_CMD" cache list --json 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin)["entries"]:
    if any("/hugeld-%s." % n in (e["source"] or "") for n in sys.argv[1:]):
        print(e["source"], e["state"])' "$name" "${name#t-}" | tr '\n' ';')
    if [ -n "$left" ]; then
      echo "FAIL: $name: left cache entries of its own files: $left" | tee -a "$log"
      timeout -k 5 20 "$HUGELD_CMD" cache prune > /dev/null 2>&1
    fi
  fi
  # Its own seconds: not those it waited for the pool while a test of
  # another checkout had it (scripts/pool.sh).
  wait=$(awk '{ s += $1 } END { print s + 0 }' "$waited")
  secs=$((SECONDS - t0 - wait))
  res=$(tail -n +"$((before + 1))" "$log" | awk '/^PASS:/ { p++ } /^FAIL:/ { f++ } /^SKIP:/ { s++ }
        END { printf "%d passed, %d failed, %d skipped", p, f, s }')
  w=; [ "$wait" = 0 ] || w=" (and $wait s waiting for the pool)"
  echo "-- $name: ${secs} s$w ($res)"
  echo "$name $secs $wait $res" >> "$times"
  waited_all=$((waited_all + wait))
done
p=$(grep -c '^PASS:' "$log"); f=$(grep -c '^FAIL:' "$log"); s=$(grep -c '^SKIP:' "$log")
if [ "$f" != 0 ]; then echo; echo "Failures:"; grep '^FAIL:' "$log"; status=1; fi
echo
total=$((SECONDS - start - waited_all))
w=; [ "$waited_all" = 0 ] || w=", and $waited_all s waiting for the pool"
echo "Slowest ($((total / 60)) min $((total % 60)) s in all$w):"
sort -k2,2nr "$times" | head -8 | awk '{ printf "  %-16s %5d s\n", $1, $2 }'
echo "$p passed, $f failed, $s skipped"
exit $status
