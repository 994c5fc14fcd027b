#!/bin/bash
# LD_HUGEPAGE_BACKING: the shared hugetlbfs cache (`hugeld cache'), and
# thp without a pool.  A 10 MiB test library (tests/cache/valuelib.c:
# value () returns VALUE from the middle of 6 MiB of code, on a whole
# 2 MiB page) is cached, then used by several processes at once, replaced
# on disk, tampered with, loaded on a full pool, added concurrently with
# loads, dlopened in loops and forked from; every run must give the
# stock loader's answer for the library on disk.  What the processes
# get runs as root and again as nobody (a service's own user), against
# the stock loader run the same way; the cache itself is root's: only
# root adds, removes and prunes entries.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(hugetlbfs cache, huge page pool)"
cache_test_setup || finish
LIB=$L/libvalue.so
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
at_exit 'cleanup_cache "$LIB"'

# 1. Add: the entry takes the zones' pages out of the pool once.
free0=$(meminfo HugePages_Free)
if ! "$H" cache add "$LIB" > "$TEST_TMP/add.out" 2>&1; then
  fail "cache add (root: only root writes the cache)" "$(cat "$TEST_TMP/add.out")"; finish
fi
# The entry's pages, and its text pages (TEXTN): the loader's own plan.
need=$(cache_pages "$LIB")
TEXTN=$(cache_pages "$LIB" text)
free1=$(meminfo HugePages_Free)
[ "$need" -ge 2 ] && [ "$TEXTN" -ge 1 ] && [ $((free0 - free1)) = "$need" ] \
  && pass "cache add (root: only root writes the cache): $need huge pages taken from the pool once ($(head -1 "$TEST_TMP/add.out"))" \
  || fail "cache add (root: only root writes the cache)" "need=$need free $free0 -> $free1"
"$H" cache list > "$TEST_TMP/list.out" 2>&1
grep -q "$LIB" "$TEST_TMP/list.out" && grep -qi "out of the pool" "$TEST_TMP/list.out" \
  && pass "cache list names the entry and says its pages are out of the pool" \
  || fail "cache list" "$(head -5 "$TEST_TMP/list.out" | tr '\n' ' ')"

# Which zones ld.so would map from the entry now, as the helper says
# (hp_cache_open and hp_open_zone's checks): all of them; one made
# writable by others is not trusted; another file has no entry.
out=$(cache_present "$LIB")
notpresent=$(echo "${out#None }" | tr ' ' '\n' | grep -v ':True$')
[ "${out%% *}" = None ] && [ -z "$notpresent" ] && echo "$out" | grep -q ' text:True' \
  && pass "hugeld-plan --cache: every zone of the entry present, as ld.so would find it ($out)" \
  || fail "hugeld-plan --cache: zones present" "$out"
zone=$(cache_present "$LIB" dir)/$(cache_present "$LIB" inode)/$(cache_present "$LIB" version)/$(cache_present "$LIB" zone.0.name)
mode=$(stat -c %a "$zone")
chmod o+w "$zone"
out=$(cache_present "$LIB")
chmod "$mode" "$zone"
case $out in
  "None "*":not trusted: writable by group or others"*) pass "hugeld-plan --cache: a zone file writable by others is not present (\"$out\")" ;;
  *) fail "hugeld-plan --cache: a zone writable by others" "$out" ;;
esac
out=$(cache_present "$B/libvalue-2.so")
case $out in
  "no cache entry for this file "*) pass "hugeld-plan --cache: a file without an entry: \"no cache entry for this file\"" ;;
  *) fail "hugeld-plan --cache: a file without an entry" "$out" ;;
esac

USERS=("" nobody)
for who in "${USERS[@]}"; do
  as_user "$who"
  # 2. Sharing: 4 processes use the entry's pages, no more from the pool.
  T=$TEST_TMP/share${who:+-$who}
  mkdir -p "$T"
  for i in 1 2 3 4; do hold_start "$T/p$i" LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_SEGMENTS=text,rodata; done
  free2=$(meminfo HugePages_Free)
  ok=0
  for i in 1 2 3 4; do
    pid=$(cat "$T/p$i.pid")
    kb=$(awk '/^[0-9a-f]+-/ { on = index($0, "/hugeld/") > 0 } on && /^KernelPageSize:/ && $2 == 2048 { n++ } END { print n + 0 }' /proc/$pid/smaps)
    sh=$(smaps_kb "$pid" /hugeld/ Shared_Hugetlb)
    [ "$(value_of "$T/p$i.out")" = 1 ] && [ "$kb" -ge 2 ] && [ "$sh" -ge 4096 ] \
      && grep -q "text .* on $TEXTN huge pages (shared)" "$T/p$i.dbg" && ok=$((ok + 1))
  done
  [ $ok = 4 ] && [ "$free2" = "$free1" ] \
    && pass "${AS}4 processes: text and rodata from the cache on KernelPageSize 2048 kB pages, HugePages_Free stays $free2 (no page per process)" \
    || fail "${AS}sharing" "$ok of 4 processes shared; HugePages_Free $free1 -> $free2; $(grep -h 'text' "$T"/p1.dbg | head -2 | tr '\n' ' ')"
  for i in 1 2 3 4; do hold_stop "$T/p$i"; done

  # 3. Same results as the stock loader.
  stock=$(echo | run_as "$SYSTEM_LDSO" "$B/hold" "$LIB" | head -1)
  got=$(echo | LD_HUGEPAGE_LIBS=libvalue.so run_as "$HUGELD_LDSO" "$B/hold" "$LIB" | head -1)
  [ "$stock" = "value 1" ] && [ "$got" = "$stock" ] \
    && pass "${AS}result with the cache: $got, as the stock loader" \
    || fail "${AS}result with the cache" "stock '$stock', hugeld '$got'"
done
as_user ""

# 4. Trust: a tampered entry is not used (shared only, so nothing else
# can hide it), and the program still runs from the file.
vdir=$(dirname "$(find "$CACHE" -path "*/text-*" -newer "$B/hold" | head -1)")
zone=$(find "$vdir" -name 'text-*' | head -1)
tamper () {
  local what=$1 why=$2 undo=$3; shift 3
  "$@"
  local who T hp
  for who in "${USERS[@]}"; do
    as_user "$who"
    T=$TEST_TMP/trust-$what${who:+-$who}
    hold_start "$T" LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_BACKING=shared
    hp=$(smaps_kb "$(cat "$T.pid")" /hugeld/ Shared_Hugetlb)
    hold_stop "$T"
    if [ "$(value_of "$T.out")" = 1 ] && [ "$hp" = 0 ] && grep -q "shared: $why" "$T.dbg"; then
      pass "${AS}trust: $what: not used (\"$why\"), stock result"
    else
      fail "${AS}trust: $what" "value $(value_of "$T.out"), shared kB $hp, $(grep -m1 'shared:' "$T.dbg")"
    fi
  done
  as_user ""
  eval "$undo"
}
tamper "zone file owned by another user" "not trusted: not owned by root" \
  "chown root \"$zone\"" chown nobody "$zone"
tamper "zone file group-writable" "not trusted: writable by group or others" \
  "chmod 0444 \"$zone\"" chmod 0464 "$zone"
tamper "zone file world-writable" "not trusted: writable by group or others" \
  "chmod 0444 \"$zone\"" chmod 0446 "$zone"
tamper "version directory others can write" "not trusted: writable by group or others" \
  "chmod 0755 \"$vdir\"" chmod 0757 "$vdir"
tamper "version directory owned by another user" "not trusted: not owned by root" \
  "chown root \"$vdir\"" chown nobody "$vdir"
tamper "cache directory others can write" "not trusted: writable by group or others" \
  "chmod 0755 $CACHE" chmod 1777 "$CACHE"
# hugetlbfs has no symbolic links (ld.so opens with O_NOFOLLOW all the
# same); a file of another file system put in the zone's place (a bind
# mount) is refused by the file system check.
head -c "$(stat -c %s "$zone")" "$B/libvalue-2.so" > "$TEST_TMP/fake" 2>/dev/null
truncate -s "$(stat -c %s "$zone")" "$TEST_TMP/fake"
chmod 0444 "$TEST_TMP/fake"
tamper "zone file of another file system (bind mount)" "not trusted: not on a hugetlbfs of 2 MiB pages" \
  "umount \"$zone\"" mount --bind "$TEST_TMP/fake" "$zone"
# Symbolic links: hugetlbfs cannot hold one (symlink(2) fails with
# EINVAL), but a directory mounted over part of the cache can.
ldir=$TEST_TMP/links
mkdir -p "$ldir/zone" "$ldir/version"
chmod 0755 "$ldir" "$ldir/zone" "$ldir/version"
ln -s "$TEST_TMP/fake" "$ldir/zone/$(basename "$zone")"
ln -s "$vdir" "$ldir/version/$(basename "$vdir")"
tamper "zone file a symbolic link (a directory mounted over the entry)" \
  "not trusted: a symbolic link" "umount \"$vdir\"" mount --bind "$ldir/zone" "$vdir"
idir=$(dirname "$vdir")
tamper "version directory a symbolic link (mounted over its parent)" \
  "not trusted: a symbolic link or not a directory" "umount \"$idir\"" \
  mount --bind "$ldir/version" "$idir"
"$H" cache list > /dev/null 2>&1
hold_start "$TEST_TMP/trust-back" LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_BACKING=shared
hold_stop "$TEST_TMP/trust-back"
grep -q "text .* on $TEXTN huge pages (shared)" "$TEST_TMP/trust-back.dbg" \
  && pass "trust: the restored entry is used again" \
  || fail "trust: the restored entry is used again" "$(grep -m2 'text' "$TEST_TMP/trust-back.dbg" | tr '\n' ' ')"

# 5. A full pool: the cache's pages are out of the pool; with no page
# free, loads still share them, and forked children live.
used=$(pool_ours)
pool_set "$used" || true
for who in "${USERS[@]}"; do
  as_user "$who"
  T=$TEST_TMP/full${who:+-$who}
  hold_start "$T" LD_HUGEPAGE_LIBS=libvalue.so
  hold_stop "$T"
  [ "$(pool_avail)" = 0 ] && [ "$(value_of "$T.out")" = 1 ] \
    && grep -q "text .* on $TEXTN huge pages (shared)" "$T.dbg" \
    && pass "${AS}pool with 0 free pages: the cached text is still shared, stock result" \
    || fail "${AS}full pool: shared" "free $(pool_avail), value $(value_of "$T.out"), $(grep -m1 text "$T.dbg")"
  out=$(echo | LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_SEGMENTS=text,rodata run_as "$HUGELD_LDSO" "$B/hold" "$LIB" 50)
  rc=$?
  [ $rc = 0 ] && echo "$out" | grep -q '^50 children ok' \
    && pass "${AS}fork with shared zones and no spare huge page: 50 children live" \
    || fail "${AS}fork with shared zones and no spare page" "rc=$rc $(echo "$out" | tr '\n' ' ')"
done
as_user ""
cp "$B/libvalue-2.so" "$TEST_TMP/libother.so"
if "$H" cache add "$TEST_TMP/libother.so" > "$T.add" 2>&1; then
  fail "cache add on a full pool (root: only root writes the cache)" "succeeded: $(cat "$T.add")"
else
  left=$(find "$CACHE" -name '.tmp*' | wc -l)
  [ "$(wc -l < "$T.add")" -le 2 ] && [ "$left" = 0 ] && [ "$(pool_avail)" = 0 ] \
    && pass "cache add on a full pool (root: only root writes the cache): fails with \"$(head -1 "$T.add")\", nothing left behind" \
    || fail "cache add on a full pool (root: only root writes the cache)" "left $left; $(cat "$T.add" | tr '\n' ' ')"
fi

# 5b. A debugger's breakpoint in cached code (the zones are mapped
# copy-on-write): with a spare page the process gets its own copy of
# that 2 MiB page and stops at it; with none gdb cannot insert it and
# the program runs on; either way another process mapping the entry is
# untouched and the pool is as before once the program exits.
gdb_value () {
  echo | LD_HUGEPAGE_LIBS=libvalue.so timeout -k 5 120 gdb -nx -batch \
    -ex 'set breakpoint pending on' -ex 'break value' -ex run -ex 'bt 1' -ex continue \
    --args "$HUGELD_LDSO" "$B/hold" "$LIB" > "$1" 2>&1
}
hold_start "$TEST_TMP/other" LD_HUGEPAGE_LIBS=libvalue.so
pool_set "$used" || true
free_a=$(meminfo HugePages_Free)
gdb_value "$TEST_TMP/gdb0"
free_b=$(meminfo HugePages_Free)
pool_set $((used + 1)) || true
gdb_value "$TEST_TMP/gdb1"
free_c=$(meminfo HugePages_Free)
hold_stop "$TEST_TMP/other"
if grep -q 'exited normally' "$TEST_TMP/gdb0" && ! grep -Eq '^Breakpoint 1(\.1)?, ' "$TEST_TMP/gdb0" \
   && grep -q '^value 1' "$TEST_TMP/gdb0" && [ "$free_a" = 0 ] && [ "$free_b" = 0 ]; then
  pass "gdb breakpoint in cached text, no spare huge page: not inserted ($(grep -m1 -i 'cannot insert\|cannot access' "$TEST_TMP/gdb0" || echo 'never stops')), the program runs to its end"
else
  fail "gdb breakpoint in cached text, no spare page" "free $free_a -> $free_b: $(grep -E 'Breakpoint|Cannot|exited|value' "$TEST_TMP/gdb0" | head -4 | tr '\n' ' ')"
fi
if grep -Eq '^Breakpoint 1(\.1)?, .* in value \(\)' "$TEST_TMP/gdb1" && grep -q 'exited normally' "$TEST_TMP/gdb1" \
   && [ "$free_c" = 1 ] && [ "$(value_of "$TEST_TMP/other.out")" = 1 ] && grep -q "text .* (shared)" "$TEST_TMP/other.dbg"; then
  pass "gdb breakpoint in cached text, one spare huge page: it stops there (its own copy), exits normally, the page back in the pool, another process on the entry untouched"
else
  fail "gdb breakpoint in cached text, one spare page" "free after $free_c; other: value $(value_of "$TEST_TMP/other.out"); $(grep -E 'Breakpoint|Cannot|exited' "$TEST_TMP/gdb1" | head -4 | tr '\n' ' ')"
fi
pool_set 16

# 6. dlopen/dlclose loops with shared zones leak nothing.
for who in "${USERS[@]}"; do
  as_user "$who"
  free_a=$(meminfo HugePages_Free)
  T=$TEST_TMP/loop${who:+-$who}
  run_report "$T" HOLD_LOOP=100 LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_SEGMENTS=text,rodata -- \
    "$HUGELD_LDSO" "$B/hold" "$LIB" < /dev/null
  n=$(grep -c 'text .* (shared)' "$T.dbg")
  [ "$(cat "$T.rc")" = 0 ] && grep -q '^100 loops ok' "$T.out" && [ "$n" -ge 100 ] \
    && [ "$(meminfo HugePages_Free)" = "$free_a" ] \
    && pass "${AS}dlopen/dlclose x100 with shared zones: $n loads from the cache, HugePages_Free back at $free_a" \
    || fail "${AS}dlopen/dlclose loop" "rc $(cat "$T.rc"), $n shared loads, free $free_a -> $(meminfo HugePages_Free); $(tail -2 "$T.err" | tr '\n' ' ')"
done
as_user ""

# 7. Concurrent adds and loads: every load gives the right answer, and
# one complete entry remains.
"$H" cache remove "$LIB" > /dev/null 2>&1
T=$TEST_TMP/conc
mkdir -p "$T"
for i in 1 2 3; do "$H" cache add "$LIB" > "$T/add$i" 2>&1 & done
bad=0
for i in $(seq 20); do
  # Every other load as nobody.
  as_user "$( [ $((i % 2)) = 0 ] && echo nobody)"
  v=$(echo | LD_HUGEPAGE_LIBS=libvalue.so run_as "$HUGELD_LDSO" "$B/hold" "$LIB" 2>&1 | head -1)
  [ "$v" = "value 1" ] || bad=$((bad + 1))
done
as_user ""
wait
versions=$(find "$CACHE" -mindepth 2 -maxdepth 2 -type d | wc -l)
tmps=$(find "$CACHE" -name '.tmp*' | wc -l)
[ $bad = 0 ] && [ "$versions" -ge 1 ] && [ "$tmps" = 0 ] \
  && [ "$(echo | LD_DEBUG=hugepages LD_HUGEPAGE_LIBS=libvalue.so "$HUGELD_LDSO" "$B/hold" "$LIB" 2>&1 | grep -c '(shared)')" = 2 ] \
  && pass "3 concurrent cache adds (root's) and 20 loads (10 as nobody): all loads right, one complete entry, no temporary left" \
  || fail "concurrent adds and loads" "bad loads $bad, versions $versions, tmps $tmps: $(cat "$T"/add* | tr '\n' ' ')"

# 8. Replaced libraries: by rename (a new inode) and rewritten in place
# (same inode): new processes get the new library, as the stock loader.
replaced () {
  local how=$1 why=$2 want=$3
  local who T stock
  for who in "${USERS[@]}"; do
    as_user "$who"
    T=$TEST_TMP/replace-${how// /-}${who:+-$who}
    run_report "$T" LD_HUGEPAGE_LIBS=libvalue.so -- "$HUGELD_LDSO" "$B/hold" "$LIB" < /dev/null
    stock=$(echo | run_as "$SYSTEM_LDSO" "$B/hold" "$LIB" | head -1)
    if [ "$stock" = "value $want" ] && [ "$(head -1 "$T.out")" = "$stock" ] && grep -q "shared: $why" "$T.dbg"; then
      pass "${AS}library replaced $how after cache add: \"$why\", the new library's result ($stock)"
    else
      fail "${AS}library replaced $how" "stock '$stock', hugeld '$(head -1 "$T.out")', $(grep -m1 'shared:' "$T.dbg")"
    fi
  done
  as_user ""
}
cp "$B/libvalue-2.so" "$L/libvalue.so.new"
mv "$L/libvalue.so.new" "$LIB"
replaced "by rename" "no cache entry for this file" 2
"$H" cache add "$LIB" > /dev/null 2>&1 || fail "cache add again" ""
# Rewritten in place with the same size and the old mtime put back:
# only the ctime (and the bytes) tell.
touch -r "$LIB" "$TEST_TMP/mtime"
cat "$B/libvalue-1.so" > "$LIB"
touch -r "$TEST_TMP/mtime" "$LIB"
replaced "in place (same inode, same size and mtime)" "stale cache entry" 1
"$H" cache prune > "$TEST_TMP/prune.out" 2>&1
[ "$(find "$CACHE" -mindepth 1 -maxdepth 2 -type d 2>/dev/null | wc -l)" -le 1 ] \
  && pass "cache prune (root: only root writes the cache) removes the stale entry ($(head -1 "$TEST_TMP/prune.out"))" \
  || fail "cache prune (root: only root writes the cache)" "$(cat "$TEST_TMP/prune.out" | tr '\n' ' ')"

# 9. The pool emptied (nr_hugepages 0: the entry's pages stay, as
# surplus pages, and nr_hugepages then counts them): the default
# backing maps every zone of the entry.  (A hugetlb cgroup that allows
# no page, where the placement would be for thp, is in t-cgroup.)
"$H" cache add "$LIB" > /dev/null 2>&1 || fail "cache add before emptying the pool" ""
pool_set 0
for who in "${USERS[@]}"; do
  as_user "$who"
  T=$TEST_TMP/nopool${who:+-$who}
  hold_start "$T" LD_HUGEPAGE_LIBS=libvalue.so
  pid=$(cat "$T.pid")
  oncache=$(smaps_kb "$pid" "$CACHE/" Size)
  huge=$(smaps_kb "$pid" "$CACHE/" KernelPageSize)
  hold_stop "$T"
  if [ "$(value_of "$T.out")" = 1 ] && [ "$oncache" = $((need * 2048)) ] && [ "$huge" -ge 2048 ] \
     && grep -q "libvalue.so: $need huge pages used, .*($need shared" "$T.dbg"; then
    pass "${AS}pool emptied, cached library, LD_HUGEPAGE_BACKING unset: all $need pages from the cache"
  else
    fail "${AS}empty pool, cached library" "value $(value_of "$T.out"), $oncache KiB from the cache (want $((need * 2048))): $(grep -m1 'placement:' "$T.dbg") $(grep -m1 'huge pages used' "$T.dbg")"
  fi
done
as_user ""

# 10. No pool: thp.  From a cold page cache the text comes up on
# page-cache huge pages (FilePmdMapped), where the kernel can do it at
# all (a plain mapping with MADV_HUGEPAGE, without ld.so, finds out).
"$H" cache remove "$LIB" > /dev/null 2>&1
pool_set 0
cp "$B/libvalue-1.so" "$LIB.cold" && mv "$LIB.cold" "$LIB"
cp "$LIB" "$TEST_TMP/probe.so"
can=$(file_thp_possible "$TEST_TMP/probe.so")
# The big-code library (44 MiB, text from 68 KiB on, like real
# libraries; a toy whose text starts in the file's first 2 MiB shares
# that huge folio with the ELF header ld.so read, which the kernel then
# reads around in small folios).
L2=$TEST_TMP/big
mkdir -p "$L2"
cp "$FIXTURES/libbig.so" "$L2/libbig.so"
pool_none "empty pool, thp and the placement" && for who in "${USERS[@]}"; do
  as_user "$who"
  drop_page_cache "$L2/libbig.so"
  T=$TEST_TMP/thp${who:+-$who}
  run_report "$T.stock" -- "$SYSTEM_LDSO" --library-path "$L2" "$FIXTURES/bigcheck-shared" --expect none
  drop_page_cache "$L2/libbig.so"
  run_report "$T" LD_HUGEPAGE_LIBS=libbig.so -- "$HUGELD_LDSO" --library-path "$L2" "$FIXTURES/bigcheck-shared" --expect none
  pmd=$(sed -n 's/^info: text: .*; \([0-9]*\) KiB of transparent huge pages.*/\1/p' "$T.err")
  zonekb=$(sed -n 's/.*libbig.so: text \[\(0x[0-9a-f]*\), \(0x[0-9a-f]*\)).*thp:.*/\1 \2/p' "$T.dbg" \
    | head -1 | { read -r a b; echo $(( (b - a) / 1024 )); })
  if [ "$(cat "$T.rc")" != 0 ] || ! cmp -s "$T.out" "$T.stock.out"; then
    fail "${AS}empty pool, thp" "rc $(cat "$T.rc"), output differs from the stock loader: $(grep -v '^ok' "$T.err" | head -2 | tr '\n' ' ')"
  elif ! grep -q 'text .* thp: page-cache huge pages asked for' "$T.dbg"; then
    fail "${AS}empty pool, thp" "no thp report: $(grep -m3 text "$T.dbg" | tr '\n' ' ')"
  elif [ "$can" != yes ]; then
    skip "${AS}empty pool, thp: text FilePmdMapped" "this kernel or file system gives no page-cache huge pages even without ld.so (report: $(grep -m1 'thp:' "$T.dbg" | sed 's/.*thp: //'))"
  elif [ "${pmd:-0}" -ge $((zonekb * 9 / 10)) ] && [ "$zonekb" -gt 0 ]; then
    pass "${AS}empty pool, cold page cache: libbig.so's text ${pmd} KiB FilePmdMapped (zone ${zonekb} KiB), stock result, report says what was asked ($(grep -m1 'libbig.so: text.*thp:' "$T.dbg" | sed 's/.*thp: //'))"
  else
    fail "${AS}empty pool, thp: text FilePmdMapped" "${pmd:-?} KiB of ${zonekb} KiB"
  fi
done
RUN_PREFIX=()
as_user ""
T=$TEST_TMP/thp
# The placement: for the most huge pages while there is a pool, for thp
# (text at its file phase) with none, LD_HUGEPAGE_BACKING unset.
if [ ! -e "$T.dbg" ]; then :
elif grep -q 'placement: text at its file phase, for thp (costs up to one huge page per zone); no huge page pool; objects with a shared cache entry are placed for it$' "$T.dbg" \
   && grep -q 'placement: the most huge pages' "$TEST_TMP/share/p1.dbg"; then
  pass "placement: the most huge pages with a pool, text at its file phase for thp with no pool at all"
else
  fail "placement" "no pool: $(grep -m1 placement "$T.dbg"); pool: $(grep -m1 placement "$TEST_TMP/share/p1.dbg")"
fi
finish
