#!/bin/bash
# hugeld cache sync: the shared cache made what a policy file declares.
# Adds the declared library (its pages leave the pool), a second run is
# a no-op, a library replaced by rename (as dpkg does) gets a current
# entry for its new inode and new processes map the new bytes from it
# while a process started before keeps the old ones, no stale entry is
# left, an entry that is not declared is removed, two syncs at once
# leave one consistent cache, and a file ld.so would ignore changes
# nothing.  The policy file is a test file passed with --file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

if [ "$(id -u)" != 0 ]; then
  skip all "must run as root (hugetlbfs cache, pool)"
  finish
fi
unset LD_HUGEPAGE_LIBS LD_HUGEPAGE_SEGMENTS LD_HUGEPAGE_BACKING LD_DEBUG LD_DEBUG_OUTPUT
reserve_hugepages 24 || { fail reserve "cannot reserve 24 huge pages"; finish; }
cache_test_setup || finish
LIB=$L/libvalue.so
OTHER=$L/libother.so
cp "$B/libvalue-2.so" "$OTHER"
at_exit "cleanup_cache $LIB $OTHER"
chmod 755 "$TEST_TMP" "$B" "$L"
CONF=$TEST_TMP/hugeld.conf
printf 'libs libvalue.so\ncache %s/libvalue*.so\npool auto\n' "$L" > "$CONF"
chmod 644 "$CONF"
sync_ () { "$H" cache sync --file "$CONF" "$@"; }
entries () { "$H" cache list --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for e in d["entries"]:
    print(e["source"], e["state"], e["pages"])'; }

# 1. Adds what is declared.
free0=$(meminfo HugePages_Free)
sync_ > "$TEST_TMP/s1.out" 2>&1; rc=$?
free1=$(meminfo HugePages_Free)
want=$(cache_pages "$LIB")
entries > "$TEST_TMP/e1"
if [ $rc = 0 ] && grep -q "^$LIB current $want$" "$TEST_TMP/e1" && [ $((free0 - free1)) = "$want" ]; then
  pass "sync adds the declared library ($want huge pages left the pool)"
else
  fail "sync adds the declared library" "rc $rc, free $free0 -> $free1, entries: $(tr '\n' ' ' < "$TEST_TMP/e1") $(tail -2 "$TEST_TMP/s1.out" | tr '\n' ' ')"
fi

# 2. Idempotent.
sync_ > "$TEST_TMP/s2.out" 2>&1; rc=$?
entries > "$TEST_TMP/e2"
[ $rc = 0 ] && grep -q "^nothing to do" "$TEST_TMP/s2.out" && cmp -s "$TEST_TMP/e1" "$TEST_TMP/e2" \
  && [ "$(meminfo HugePages_Free)" = "$free1" ] \
  && pass "a second sync changes nothing" \
  || fail "a second sync changes nothing" "$(tr '\n' ' ' < "$TEST_TMP/s2.out")"

# 3. A process maps version 1 from the cache.
hold_start "$TEST_TMP/old" LD_HUGEPAGE_LIBS=libvalue.so
oldpid=$(cat "$TEST_TMP/old.pid")
[ "$(value_of "$TEST_TMP/old.out")" = 1 ] && [ "$(smaps_kb "$oldpid" "$CACHE/" Size)" -gt 0 ] \
  && pass "version 1 mapped from the cache" \
  || fail "version 1 mapped from the cache" "value $(value_of "$TEST_TMP/old.out"), $(grep -m2 shared "$TEST_TMP/old.dbg" | tr '\n' ' ')"

# 4. Replaced by rename, as dpkg does: stale until the sync, then current.
cp "$B/libvalue-2.so" "$L/.libvalue.so.new"
mv -f "$L/.libvalue.so.new" "$LIB"
"$H" cache list > "$TEST_TMP/l-stale.out"
grep -q "stale" "$TEST_TMP/l-stale.out" \
  && pass "after the rename, cache list shows the stale entry and its pages" \
  || fail "cache list shows the stale entry" "$(tr '\n' ' ' < "$TEST_TMP/l-stale.out")"
sync_ > "$TEST_TMP/s3.out" 2>&1; rc=$?
entries > "$TEST_TMP/e3"
"$H" cache list > "$TEST_TMP/l3.out"
if [ $rc = 0 ] && grep -q "^$LIB current" "$TEST_TMP/e3" && ! grep -qv " current " "$TEST_TMP/e3" \
   && ! grep -q stale "$TEST_TMP/l3.out"; then
  pass "sync after the rename: a current entry for the new file, no stale entry"
else
  fail "sync after the rename" "rc $rc: $(tr '\n' ' ' < "$TEST_TMP/e3") $(tr '\n' ' ' < "$TEST_TMP/s3.out")"
fi
hold_start "$TEST_TMP/new" LD_HUGEPAGE_LIBS=libvalue.so
newpid=$(cat "$TEST_TMP/new.pid")
ino=$(printf 'i%x' "$(stat -c %i "$LIB")")
[ "$(value_of "$TEST_TMP/new.out")" = 2 ] && [ "$(smaps_kb "$newpid" "$CACHE/$ino/" Size)" -gt 0 ] \
  && pass "a new process gets version 2's text from the cache" \
  || fail "a new process gets version 2's text from the cache" "value $(value_of "$TEST_TMP/new.out"), $(grep -m2 'shared\|text' "$TEST_TMP/new.dbg" | tr '\n' ' ')"
hold_stop "$TEST_TMP/new"
# The process started before keeps running version 1's pages.
[ "$(smaps_kb "$oldpid" "$CACHE/" Size)" -gt 0 ] && kill -0 "$oldpid" \
  && pass "the process started before still maps version 1's pages" \
  || fail "the process started before still maps version 1's pages" ""
hold_stop "$TEST_TMP/old"
[ "$(value_of "$TEST_TMP/old.out")" = 1 ] || fail "old process's value" "$(cat "$TEST_TMP/old.out")"

# 5. No longer declared: removed.  libother.so is added by hand first.
"$H" cache add "$OTHER" > /dev/null 2>&1
printf 'libs libvalue.so\ncache %s\n' "$LIB" > "$CONF"
sync_ > "$TEST_TMP/s5.out" 2>&1; rc=$?
entries > "$TEST_TMP/e5"
[ $rc = 0 ] && ! grep -q "^$OTHER " "$TEST_TMP/e5" && grep -q "^$LIB current" "$TEST_TMP/e5" \
  && pass "an entry that is not declared is removed" \
  || fail "an entry that is not declared is removed" "$(tr '\n' ' ' < "$TEST_TMP/e5")"

# 6. Two syncs at once (after a change): one consistent cache.
"$H" cache clear > /dev/null
sync_ > "$TEST_TMP/c1.out" 2>&1 & p1=$!
sync_ > "$TEST_TMP/c2.out" 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
entries > "$TEST_TMP/e6"
n=$(grep -c . "$TEST_TMP/e6")
[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$n" = 1 ] && grep -q "^$LIB current $want$" "$TEST_TMP/e6" \
  && [ "$(ls "$CACHE" | grep -c '^\.tmp')" = 0 ] \
  && pass "two syncs at once: one current entry, nothing left over" \
  || fail "two syncs at once" "rc $r1 $r2, entries: $(tr '\n' ' ' < "$TEST_TMP/e6")"

# 7. A file ld.so would ignore changes nothing.
printf 'libs libvalue.so\ncache %s\nbogus line\n' "$OTHER" > "$CONF"
sync_ > "$TEST_TMP/s7.out" 2>&1; rc=$?
entries > "$TEST_TMP/e7"
[ $rc != 0 ] && cmp -s "$TEST_TMP/e6" "$TEST_TMP/e7" && grep -q "hugeld.conf:3: unknown keyword" "$TEST_TMP/s7.out" \
  && pass "a file with a bad line: sync refuses, cache unchanged" \
  || fail "a file with a bad line: sync refuses" "rc $rc $(tr '\n' ' ' < "$TEST_TMP/s7.out")"
printf 'cache %s\n' "$OTHER" > "$CONF"; chmod 666 "$CONF"
sync_ > "$TEST_TMP/s8.out" 2>&1; rc=$?
entries > "$TEST_TMP/e8"
[ $rc != 0 ] && cmp -s "$TEST_TMP/e6" "$TEST_TMP/e8" && grep -q "writable by group or others" "$TEST_TMP/s8.out" \
  && pass "a file others can write: sync refuses, cache unchanged" \
  || fail "a file others can write: sync refuses" "rc $rc $(tr '\n' ' ' < "$TEST_TMP/s8.out")"
finish
