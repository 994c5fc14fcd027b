#!/bin/bash
# Programs that map their own code again by the path /proc/self/maps
# names (V8 does, at every start: node, chromium, electron) are never
# served their text from the shared cache, whose hugetlbfs files map
# only at 2 MiB offsets.  The fixture (tests/cache/selfmap.c) does what
# V8 does and dies, as V8 aborts, when that mmap fails.
# - `hugeld cache add' caches its read-only data but not its text, and
#   says why; ld.so's report names the reason for the text;
# - run with the cache present, in the default order and with each
#   backing, as root and as nobody: the stock loader's exit status, and
#   its text on 2 MiB pages (smaps at its exit) where a backing gives
#   them;
# - the control: the same program with the name made at run time (no
#   copy of it in the file) is cached whole, and dies under `shared' as
#   V8 did: the checks above can fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(hugetlbfs cache, huge page pool)"
need_loaders
need_fixtures selfmap selfmap-hidden atexit-smaps
reserve_hugepages 12 || { fail reserve "cannot reserve 12 huge pages"; finish; }
cache_remember_mount
mkdir -p "$B"
chmod 755 "$TEST_TMP" "$B"
P=$B/selfmap
PH=$B/selfmap-hidden
cp "$FIXTURES/selfmap" "$P"
cp "$FIXTURES/selfmap-hidden" "$PH"
at_exit 'cleanup_cache "$P" "$PH"'
ATEXIT=$FIXTURES/atexit-smaps
as_users
# Where atexit-smaps, run as each user, writes (as run_as_setup makes it).
mkdir -p "$RUN_AS_DIR" && chmod 1777 "$RUN_AS_DIR"

# blob_kps SMAPS: the KernelPageSize (kB) of the mapping that holds the
# fixture's blob (the text zone's whole 2 MiB page: [0x600000, 0x800000)).
blob_kps () {
  awk '/^[0-9a-f]+-[0-9a-f]+ / { split($1, a, "-"); on = strtonum("0x" a[1]) <= 0x601000 && strtonum("0x" a[2]) > 0x601000; next }
       on && $1 == "KernelPageSize:" { print $2; exit }' "$1"
}

# 1. cache add: rodata only, and why.
"$H" cache add "$P" > "$TEST_TMP/add.out" 2>&1
rc=$?
kinds=$(cache_present "$P")
if [ $rc = 0 ] && grep -q "text not cached: the object looks at its own mappings" "$TEST_TMP/add.out" \
   && ! echo "$kinds" | grep -q ' text:' && [ "$(cache_present "$P" notext)" != None ]; then
  pass "cache add: the text of a program that reads /proc/self/maps is left out, and the line says why ($(head -c 160 "$TEST_TMP/add.out")...)"
else
  fail "cache add: text left out" "rc $rc: $(cat "$TEST_TMP/add.out") zones: $kinds"
fi

# 2. Every backing and the default order, as root and as nobody.
stock_rc=$("$SYSTEM_LDSO" "$P" > /dev/null 2>&1; echo $?)
for who in "${AS_USERS[@]}"; do
  as_user "$who"
  for b in "" shared private thp; do
    T=$TEST_TMP/run-${b:-default}${who:+-$who}
    S=$RUN_AS_DIR/smaps-${b:-default}${who:+-$who}
    run_report "$T" LD_HUGEPAGE_LIBS=selfmap ${b:+LD_HUGEPAGE_BACKING=$b} -- \
      "$ATEXIT" "$S" "$HUGELD_LDSO" "$P"
    rc=$(cat "$T.rc"); kps=$(blob_kps "$S")
    textwhy=$(grep -m1 'selfmap: text .*shared: ' "$T.dbg" | sed 's/.*shared: //')
    case ${b:-default} in
      default|private) want=2048 ;;
      *) want= ;;
    esac
    if [ "$rc" != "$stock_rc" ]; then
      fail "${AS}backing ${b:-default}" "exit status $rc, the stock loader's $stock_rc: $(cat "$T.err" | head -2)"
    elif [ -n "$want" ] && [ "$kps" != "$want" ]; then
      fail "${AS}backing ${b:-default}: the remapped text on huge pages" "KernelPageSize ${kps:-?} kB: $(grep -m2 'selfmap: text' "$T.dbg" | tr '\n' ' ')"
    elif [ "$b" != private ] && [ "$b" != thp ] && [ "${textwhy#text not cached}" = "$textwhy" ]; then
      fail "${AS}backing ${b:-default}: the report says why the text is not served" "$textwhy"
    else
      pass "${AS}backing ${b:-default}: exit status $rc as the stock loader, \"$(cat "$T.out")\", its text on ${kps:-?} kB pages${textwhy:+ (shared: $textwhy)}"
    fi
  done
done
as_user ""

# 3. The control: the program whose file holds no such name is cached
# whole (the rule cannot see it) and dies under shared.
"$H" cache add "$PH" > "$TEST_TMP/addh.out" 2>&1
T=$TEST_TMP/control
run_report "$T" LD_HUGEPAGE_LIBS=selfmap-hidden LD_HUGEPAGE_BACKING=shared -- "$HUGELD_LDSO" "$PH"
if echo "$(cache_present "$PH")" | grep -q ' text:True' && [ "$(cat "$T.rc")" = 3 ] \
   && grep -q 'mapping /dev/hugepages/hugeld/.* again at offset .*: Invalid argument' "$T.err"; then
  pass "control: with its text served from the cache, the program dies as V8 did (\"$(head -1 "$T.err")\"): the checks above can fail"
else
  fail "control: text cached, program dies under shared" "rc $(cat "$T.rc"): $(head -2 "$T.err" | tr '\n' ' ') zones: $(cache_present "$PH")"
fi
finish
