#!/bin/bash
# A pool too small for every zone of an object (issue 42): ld.so gives
# it to text first, then rodata, relro, data and bss, and a zone that
# does not fit whole gets as many whole huge pages as the pool has (its
# first ones; the rest stays as the stock loader mapped it, or goes to
# the next backing).  `hugeld plan' shows the same order.
#
# libbigbody.so (tests/fixtures/bigbody.S): rodata 6 huge pages before
# a text of 35, then relro 1.  With 40 pages available: text 35 and
# rodata 5; with 20: text 20; with 5: text 5.  Checked from inside the
# process (/proc/self/smaps: KernelPageSize 2048 kB over each region),
# against HugePages_Free before and after, against LD_DEBUG=hugepages,
# and the program's result against the stock loader's.
. "$(dirname "$0")/lib.sh"
need_root "to size the pool"
need_loaders
need_fixtures libbigbody.so bigbody-run
F=$FIXTURES
H=${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}

# The plan itself: the fixture has the shape the test is about.
zones=$("$H" plan --ldso "$HUGELD_LDSO" "$F/bigbody-run" --libs libbigbody.so --json 2>/dev/null \
  | python3 -c 'import json, sys
d = json.load(sys.stdin)
o = [o for o in d["objects"] if o["path"].endswith("/libbigbody.so")][0]
print(" ".join("%s:%d:%d" % (z["kind"], z["pages"], z["order"]) for z in o["zones"]))')
[ "$zones" = "rodata:6:1 text:35:0 relro:1:2" ] \
  && pass "plan: libbigbody.so is rodata 6, text 35, relro 1, in ld.so's order text, rodata, relro" \
  || fail "plan: libbigbody.so's zones and order" "$zones"

stock=$("$SYSTEM_LDSO" "$F/bigbody-run")

# available: free pages of the pool that no mapping has reserved.
available () { pool_avail; }
# set_available N: a pool with N pages available, whatever others hold.
set_available () { pool_set_avail "$1"; }
reserve_hugepages 0 || { fail reserve "cannot take the pool"; finish; }

# run_at N BACKING: run bigbody-run with N pages available; sets GOT
# ("text T rodata R relro L"), USED (the pages the pool lost while it
# ran), OUT (its result) and DBG (the report's file).
run_at () {
  local n=$1 backing=$2 before after
  set_available "$n" || { fail "$n available" "the kernel gave $(available)"; return 1; }
  rm -f "$TEST_TMP"/dbg.*
  before=$(meminfo HugePages_Free)
  OUT=$(LD_HUGEPAGE_LIBS=libbigbody.so LD_HUGEPAGE_BACKING=$backing \
        LD_DEBUG=hugepages LD_DEBUG_OUTPUT=$TEST_TMP/dbg \
        "$HUGELD_LDSO" "$F/bigbody-run" --report 2> "$TEST_TMP/report")
  GOT=$(sed -n 's/^huge pages: //p' "$TEST_TMP/report")
  after=$(sed -n 's/^free pool pages: //p' "$TEST_TMP/report")
  USED=$(( before - after ))
  DBG=$(ls "$TEST_TMP"/dbg.* 2>/dev/null | head -1)
}

for backing in private shared,private,thp; do
  for case in "40 text 35 rodata 5 relro 0" "20 text 20 rodata 0 relro 0" \
              "5 text 5 rodata 0 relro 0"; do
    set -- $case
    n=$1; shift
    want="$*"
    name="$n pages available, LD_HUGEPAGE_BACKING=$backing"
    run_at "$n" "$backing" || continue
    # Another process taking pages meanwhile would show in USED.
    total=$(( $2 + $4 + $6 ))
    if [ "$GOT" = "$want" ] && [ "$USED" = "$total" ]; then
      pass "$name: $GOT on 2 MiB pages (smaps), the pool gave $USED"
    else
      fail "$name" "got '$GOT' (want '$want'), the pool gave $USED (want $total)"
    fi
    [ "$OUT" = "$stock" ] && pass "$name: the stock loader's result" \
      || fail "$name: result" "'$OUT' vs '$stock'"
  done
done

# The report says what it did with the zone that did not fit.
run_at 20 private
grep -q 'text \[0x[0-9a-f]*, 0x[0-9a-f]*): private: the pool has room for 20 of its 35 huge pages: \[0x[0-9a-f]*, 0x[0-9a-f]*) on them, the rest to the next backing' "$DBG" \
  && grep -q 'text \[0x[0-9a-f]*, 0x[0-9a-f]*) on ordinary pages: the pool had no room for it, and no backing follows' "$DBG" \
  && grep -q 'libbigbody.so: 20 huge pages used, 22 not available' "$DBG" \
  && pass "LD_DEBUG=hugepages: 20 of text's 35 pages, the rest on ordinary pages, 20 used and 22 not" \
  || fail "LD_DEBUG=hugepages for 20 pages" "$(grep -i 'libbigbody' "$DBG" | grep -v 'ordinary pages: does not' | tail -6 | tr '\n' '|')"

# `hugeld plan' shows that order, for the pool it sees.
set_available 40
out=$("$H" plan --ldso "$HUGELD_LDSO" "$F/bigbody-run" --libs libbigbody.so 2>&1)
echo "$out" | grep -q 'gets 40 huge pages of its 42 pages (text first' \
  && echo "$out" | grep -Eq '^ +text +35 of +35 ' && echo "$out" | grep -Eq '^ +rodata +5 of +6 ' \
  && echo "$out" | grep -Eq '^ +relro +0 of +1 ' \
  && pass "hugeld plan with 40 available: text 35 of 35, rodata 5 of 6, relro 0 of 1" \
  || fail "hugeld plan with 40 available" "$(echo "$out" | tail -6 | tr '\n' '|')"
set_available 42
out=$("$H" plan --ldso "$HUGELD_LDSO" "$F/bigbody-run" --libs libbigbody.so 2>&1)
echo "$out" | grep -q 'gets .* huge pages of its' \
  && fail "hugeld plan with 42 available" "says a short pool: $(echo "$out" | tail -4 | tr '\n' '|')" \
  || pass "hugeld plan with the pool the plan needs: no short-pool list"

finish
