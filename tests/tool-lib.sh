# Shared by the hugeld command's tests, t-tool.sh and t-tool-debug.sh
# (sourced; not a test itself): root and fixtures, the command under
# test (HUGELD_CMD, or built into build/tools), the pool, helpers.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

F=$FIXTURES
PY=/usr/bin/python3
need_root "to reserve huge pages"
export HUGELD_LDSO
need_fixtures bigcheck-shared libbig.so bigcheck-pie bigcheck-dlopen big-pic.o

# --- Build -----------------------------------------------------------------

if [ -z "${HUGELD_CMD:-}" ]; then
  if make -C "$HUGELD_TOP/tools" OUT="$HUGELD_TOP/build/tools" \
       > "$TEST_TMP/build.log" 2>&1; then
    pass "build: make -C tools (hugeld, hugeld-plan)"
  else
    fail "build: make -C tools" "$(tail -5 "$TEST_TMP/build.log" | tr '\n' ' ')"
    finish
  fi
  HUGELD_CMD=$HUGELD_TOP/build/tools/hugeld
fi
H=$HUGELD_CMD
HELPER=$(dirname "$(readlink -f "$H")")/hugeld-plan
[ -x "$HELPER" ] || HELPER=$(dirname "$(readlink -f "$H")")/../libexec/hugeld-plan

# The pool: at most about 40 pages at a time here.  Enlarge it only if
# fewer are free; check again before each part.
need=48
ensure_pool () {
  [ "$(pool_avail)" -ge $need ] && [ -n "${pool_saved:-}" ] && return 0
  if [ -z "${pool_saved:-}" ]; then
    pool_saved=yes
    reserve_hugepages $need
  else
    pool_set $(( $(pool_ours) + need ))
  fi
  [ "$(pool_avail)" -ge $need ]
}
ensure_pool || { fail reserve "cannot get $need free huge pages"; finish; }

# Helpers.
jq () { $PY -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
# dbg_pages PREFIX: huge pages the loader reported in PREFIX.*
dbg_pages () {
  cat "$1".* 2> /dev/null | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p' \
    | awk '{ s += $1 } END { print s + 0 }'
}
# dbg_zones PREFIX OBJ: "kind start end pages" of OBJ's zones in the report
dbg_zones () {
  cat "$1".* 2> /dev/null \
    | sed -n "s|.*hugepages: .*/$2: \([a-z+]*\) \[\(0x[0-9a-f]*\), \(0x[0-9a-f]*\)) at 0x[0-9a-f]* on \([0-9]*\) huge pages|\1 \2 \3 \4|p" \
    | sort
}
# plan_zones JSON OBJ: the same from `hugeld plan --json'
plan_zones () {
  $PY - "$1" "$2" <<'PY' | sort
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["objects"]:
    if o["path"].endswith("/" + sys.argv[2]) and o["selected"]:
        for z in o["zones"]:
            print(z["kind"], hex(z["start"]), hex(z["end"]), z["pages"])
PY
}
# one_line_error NAME RC-EXPECTED CMD...: fails with one "hugeld: " line
# on stderr, nothing on stdout.
one_line_error () {
  local name=$1 want=$2; shift 2
  "$@" > "$TEST_TMP/e.out" 2> "$TEST_TMP/e.err"
  local rc=$?
  if [ $rc = "$want" ] && [ "$(wc -l < "$TEST_TMP/e.err")" = 1 ] \
     && grep -q '^hugeld' "$TEST_TMP/e.err" && [ ! -s "$TEST_TMP/e.out" ]; then
    pass "$name (exit $rc: $(cat "$TEST_TMP/e.err"))"
  else
    fail "$name" "exit $rc, stderr: $(head -3 "$TEST_TMP/e.err" | tr '\n' '|') stdout: $(head -c 100 "$TEST_TMP/e.out")"
  fi
}
# wait_huge PID: until the process has huge page mappings and their
# number has stopped changing (the loader maps zone after zone; a loaded
# machine can be slow at it).
wait_huge () {
  local i n last=-1
  for i in $(seq 200); do
    n=$(grep -c anon_hugepage "/proc/$1/maps" 2> /dev/null)
    if [ "${n:-0}" -gt 0 ] && [ "$n" = "$last" ]; then return 0; fi
    last=${n:-0}
    sleep 0.1
  done
  [ "${last:-0}" -gt 0 ]
}
# Background processes still running at the end: this shell's own jobs
# only (a reaped PID may have been reused).
at_exit 'kill $(jobs -p) 2> /dev/null; wait 2> /dev/null'
# The /tmp/perf-PID.map files this test makes.
perfmaps=()
at_exit 'rm -f "${perfmaps[@]}"'

# The release's python3 (3.11 in Debian 12, 3.13 in 13).
PYV=$($PY -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYBIN=/usr/bin/python$PYV

# start_bench: the big-code benchmark run by `hugeld run' with libbig.so
# selected, in the background (PID in bench), and its `status --json'
# in $TEST_TMP/status.json; fails if it got no huge page mapping.
start_bench () {
  $H run --libs libbig.so -- "$F/bigcheck-shared" --bench --rounds 1000 > /dev/null 2>&1 &
  bench=$!
  local ok=0
  wait_huge $bench || ok=1
  $H status $bench --json > "$TEST_TMP/status.json" 2> "$TEST_TMP/status.err"
  return $ok
}

# frames_in FILE RANGES REGEX: how many lines of the gdb output FILE
# match REGEX (its group 1 a PC) with the PC in one of RANGES (a Python
# list of (start, end)).
frames_in () {
  $PY - "$@" <<'PY'
import ast, re, sys
ranges = ast.literal_eval(sys.argv[2])
n = 0
for line in open(sys.argv[1]):
    m = re.match(sys.argv[3], line)
    if m and any(a <= int(m.group(1), 16) < b for a, b in ranges):
        n += 1
print(n)
PY
}
