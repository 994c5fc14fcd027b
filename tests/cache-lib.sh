# Helpers for the tests of the shared cache (t-cache, t-overlay,
# t-container).  Sourced after tests/lib.sh.
#
# cache_test_setup builds tests/cache/hold.c into $B/hold and
# tests/cache/valuelib.c, a 10 MiB library whose value () returns VALUE
# from the middle of 6 MiB of code, into $B/libvalue-1.so and -2.so, and
# puts a copy of version 1 (an inode of the test's own) at
# $L/libvalue.so.  H is the hugeld command.

H=${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}
CACHE=/dev/hugepages/hugeld
B=$TEST_TMP/bin
L=$TEST_TMP/lib

# cache_present LIB [FIELD]: what ld.so would find of LIB's entry now,
# by the helper (hugeld-plan --cache): the lookup's failure (or None),
# then KIND:True or KIND:why not for each zone; with FIELD, that field
# of the cache member (a zone's with zone.N.FIELD).
cache_present () {
  "$HUGELD_TOP/build/tools/hugeld-plan" --cache "$1" | python3 -c '
import json, sys
c = json.load(sys.stdin)["objects"][0]["cache"]
if len(sys.argv) > 1:
    f = sys.argv[1].split(".")
    print(c["zones"][int(f[1])][f[2]] if f[0] == "zone" else c[f[0]])
else:
    print(c["lookup"], " ".join("%s:%s" % (z["kind"], z["present"] or z["absent_why"])
                                for z in c["zones"]))' ${2:+"$2"}
}

cache_test_setup () {
  mkdir -p "$B" "$L"
  # cache add caches only what others can read through its path (the
  # cache is readable by all): TEST_TMP is made 0700.
  chmod 755 "$TEST_TMP" "$B" "$L"
  cc -O2 -Wall -Werror -o "$B/hold" "$HUGELD_TOP/tests/cache/hold.c" -ldl \
    || { fail "build hold" ""; return 1; }
  local v
  for v in 1 2; do
    cc -shared -fPIC -O2 -DVALUE=$v -o "$B/libvalue-$v.so" \
      "$HUGELD_TOP/tests/cache/valuelib.c" \
      || { fail "build valuelib" ""; return 1; }
  done
  cp "$B/libvalue-1.so" "$L/libvalue.so"
  cache_remember_mount
}

# cache_keep_current: the system's current entries are added back when
# the test ends (registered now: it runs after the pool is put back),
# for tests that make the cache what their own policy file says.  The
# command runs under a time limit, as every run of it in such a test.
cache_keep_current () {
  _cache_before=$(timeout -k 5 20 "$H" cache list --json 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin)["entries"]:
    if e["state"] == "current" and e["source"]:
        print(e["source"])' 2>/dev/null)
  [ -z "$_cache_before" ] \
    || at_exit 'printf "%s\n" "$_cache_before" | xargs -r -d "\n" timeout -k 5 20 "$H" cache add > /dev/null 2>&1'
}

# The cache and the mount are the system's: leave them as they were
# (cleanup_cache unmounts /dev/hugepages only if it was not mounted).
cache_remember_mount () {
  _mounted_before=no
  mountpoint -q /dev/hugepages && _mounted_before=yes
  return 0
}

# cleanup_cache LIB...: remove the entries of LIB..., and the hugetlbfs
# mount if the test made it.  Each LIB on its own: `cache remove A B'
# removes nothing when one of them has no entry.
cleanup_cache () {
  local f
  for f in "$@"; do timeout -k 5 20 "$H" cache remove "$f" > /dev/null 2>&1; done
  if [ "${_mounted_before:-yes}" = no ] && mountpoint -q /dev/hugepages; then
    rm -rf "$CACHE"; umount /dev/hugepages
  fi
}

# hold_start NAME ENV...: run hold on ${HOLD_LIB:-$LIB} through hugeld
# with ENV in the background, as $AS_USER (tests/lib.sh), wait for
# "ready"; its pid in $NAME.pid, output in $NAME.out, the
# LD_DEBUG=hugepages report in $NAME.dbg; hold_stop NAME ends it.
hold_start () {
  local n=$1 out; shift
  rm -f "$n.stop"
  run_as_argv && out=$(report_out "$n") || return 1
  env "$@" HOLD_UNTIL="$n.stop" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$out" \
    ${HOLD_WRAP:-} ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$HUGELD_LDSO" "$B/hold" "${HOLD_LIB:-$LIB}" \
    < /dev/null > "$n.out" 2> "$n.err" &
  echo $! > "$n.pid"
  local i
  for i in $(seq 100); do
    grep -q '^ready' "$n.out" 2>/dev/null && break
    kill -0 "$(cat "$n.pid")" 2>/dev/null || break
    sleep 0.1
  done
  report_collect "$n"
}
hold_stop () {
  touch "$1.stop"
  wait "$(cat "$1.pid")"
}

# smaps_kb PID PATTERN FIELD: FIELD summed over PID's mappings whose
# line names PATTERN.
smaps_kb () {
  awk -v pat="$2" -v f="$3:" '
    /^[0-9a-f]+-[0-9a-f]+ / { on = index($0, pat) > 0; next }
    on && $1 == f { s += $2 } END { print s + 0 }' "/proc/$1/smaps"
}
value_of () { sed -n 's/^value //p' "$1"; }

# cache_pages LIB [KIND]: the huge pages of LIB's cache entry (of KIND
# only, if given), by the loader's own plan (hugeld-plan --cache).
cache_pages () {
  "$HUGELD_TOP/build/tools/hugeld-plan" --cache "$1" | python3 -c '
import json, sys
z = json.load(sys.stdin)["objects"][0]["cache"]["zones"]
kind = sys.argv[1] if len(sys.argv) > 1 else None
print(sum(x["size"] for x in z if kind in (None, x["kind"])) // 2097152)' ${2:+"$2"}
}
