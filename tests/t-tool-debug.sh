#!/bin/bash
# The hugeld command with the tools that read a process's code: perf
# (perf-map must make perf name functions it showed as raw addresses,
# from .symtab, a debug file by build ID, or .dynsym, and keep others'
# map lines) and gdb (on a process and a core file whose stack is in huge
# page library code, and a breakpoint there).  On the big-code benchmark
# and on gdb's own libpython.  Shared set-up: tests/tool-lib.sh.
. "$(dirname "$0")/tool-lib.sh"

start_bench || fail "benchmark on huge pages" "no huge page mapping in /proc/$bench/maps"

# --- perf -----------------------------------------------------------------

if ! command -v perf > /dev/null || ! perf version > /dev/null 2>&1; then
  skip perf "perf not installed (apt-get install linux-perf)"
else
  # Attached to a running process, perf sees the huge pages as
  # anonymous memory: raw addresses, until the map file is there.
  rm -f /tmp/perf-$bench.map
  perfmaps+=(/tmp/perf-$bench.map)
  perf record -q -e cpu-clock -p $bench -o "$TEST_TMP/perf.data" -- sleep 2 > /dev/null 2>&1
  # Samples in anonymous memory are in the [JIT] lines (perf's name
  # for memory it looks up in /tmp/perf-PID.map).
  report () {
    perf report -i "$TEST_TMP/perf.data" --stdio --sort dso,sym 2> /dev/null \
      | grep '\[JIT\] tid'
  }
  report > "$TEST_TMP/report0"
  if [ -s "$TEST_TMP/report0" ] && ! grep -v '\] 0x0000' "$TEST_TMP/report0" | grep -q .; then
    pass "perf (control): without a map, the huge page code's samples are raw addresses ($(wc -l < "$TEST_TMP/report0") lines)"
  else
    fail "perf (control): without a map, huge page code shows as raw addresses" "$(grep -v '\] 0x0000' "$TEST_TMP/report0" | head -3 | tr '\n' '|')"
  fi
  out=$($H perf-map $bench 2>&1)
  report > "$TEST_TMP/report1"
  named=$(grep -c '\] big_fn_[0-9]*$\|\] big_run$' "$TEST_TMP/report1")
  if [ "$named" -gt 10 ] && grep -q '\] big_run$' "$TEST_TMP/report1"; then
    pass "perf-map PID: perf report names big_run and $((named - 1)) big_fn_* in the huge page code ($out)"
  else
    fail "perf-map PID: perf report names the functions" "$out; $(head -5 "$TEST_TMP/report1" | tr '\n' '|')"
  fi
  # A real program: libpython's huge text, symbols from .dynsym.
  if command -v gdb > /dev/null; then
    cat > "$TEST_TMP/work.py" <<'PY'
import time
s = "Ab cd Ef gh " * 4000
t = time.time() + 6
while time.time() < t:
    s.upper().split()
    s.lower().replace("ab", "xy")
PY
    $H run --libs 'libpython3*' -- gdb -batch -nx -ex "source $TEST_TMP/work.py" > /dev/null 2>&1 &
    gw=$!
    if wait_huge $gw; then
      sleep 0.5
      perf record -q -e cpu-clock -p $gw -o "$TEST_TMP/perf-py.data" -- sleep 1.5 > /dev/null 2>&1
      out=$($H perf-map $gw 2>&1)
      perfmaps+=(/tmp/perf-$gw.map)
      perf report -i "$TEST_TMP/perf-py.data" --stdio --sort dso,sym 2> /dev/null \
	| grep -v '^#' > "$TEST_TMP/report-py"
      if grep -q '\[JIT\] tid [0-9]*  *\[\.\] _\?Py[A-Za-z_]*$' "$TEST_TMP/report-py"; then
	pass "perf-map on gdb's libpython$PYV (.dynsym): perf report names $(grep '\[JIT\]' "$TEST_TMP/report-py" | grep -v 0x0000 | head -2 | awk '{ print $NF }' | tr '\n' ' ')"
      else
	fail "perf-map on gdb's libpython$PYV" "$out; $(grep -m4 JIT "$TEST_TMP/report-py" | tr '\n' '|')"
      fi
    else
      fail "perf-map on gdb's libpython$PYV" "not on huge pages"
    fi
    kill $gw 2> /dev/null
  fi
fi

ensure_pool
# Symbol sources: .symtab, else a debug file by build ID, else .dynsym.
S=$TEST_TMP/stripped
mkdir -p "$S" "$TEST_TMP/debug"
cp "$F/bigcheck-shared" "$S/"
bid=$(readelf -n "$F/libbig.so" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
mkdir -p "$TEST_TMP/debug/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$F/libbig.so" "$TEST_TMP/debug/.build-id/${bid:0:2}/${bid:2}.debug"
strip --strip-all -o "$S/libbig.so" "$F/libbig.so"
$H run --libs libbig.so -- "$S/bigcheck-shared" --bench --rounds 400 > /dev/null 2>&1 &
sp=$!
if wait_huge $sp; then
  dyn=$($H perf-map $sp -o - 2> /dev/null)
  dbg=$($H perf-map $sp -o - --debug-dir "$TEST_TMP/debug" 2> /dev/null)
  src=$($H perf-map $sp -o "$TEST_TMP/x.map" --debug-dir "$TEST_TMP/debug" 2>&1)
  if ! echo "$dyn" | grep -q ' big_fn_' && echo "$dyn" | grep -q ' big_run$' \
     && [ "$(echo "$dbg" | grep -c ' big_fn_')" -gt 5000 ] \
     && echo "$src" | grep -q "from $TEST_TMP/debug/.build-id/"; then
    pass "perf-map: stripped library: .dynsym only ($(echo "$dyn" | grep -vc "+0x") functions), with its debug file by build ID $(echo "$dbg" | wc -l)"
  else
    fail "perf-map: symbol sources" "dynsym: $(echo "$dyn" | wc -l) lines, debug: $(echo "$dbg" | grep -c big_fn_) big_fn_; $src"
  fi
else
  fail "perf-map: stripped library on huge pages" "no huge pages"
fi
kill $sp 2> /dev/null

# A stripped library from the shared cache, profiled attached: perf sees
# its text as anonymous memory ([JIT]); after perf-map every sample is
# named, by .dynsym or by the library and address (what perf shows for
# the stripped file under the stock loader), none a raw address.
if command -v perf > /dev/null && perf version > /dev/null 2>&1; then
  . "$HUGELD_TOP/tests/cache-lib.sh"
  chmod 755 "$TEST_TMP" "$S"
  cache_remember_mount
  at_exit 'cleanup_cache "$S/libbig.so"'
  if $H cache add "$S/libbig.so" > "$TEST_TMP/sadd.out" 2>&1; then
    LD_HUGEPAGE_LIBS=libbig.so "$HUGELD_LDSO" "$S/bigcheck-shared" --bench --rounds 400 > /dev/null 2>&1 &
    sp=$!
    perfmaps+=(/tmp/perf-$sp.map)
    if wait_huge $sp && grep -q '/dev/hugepages/hugeld/.*/text-' /proc/$sp/maps; then
      perf record -q -e cpu-clock -p $sp -o "$TEST_TMP/perf-s.data" -- sleep 1.5 > /dev/null 2>&1
      perf report -i "$TEST_TMP/perf-s.data" --stdio --sort dso,sym 2> /dev/null | grep '\[JIT\] tid' > "$TEST_TMP/rs0"
      out=$($H perf-map $sp 2>&1)
      perf report -i "$TEST_TMP/perf-s.data" --stdio --sort dso,sym 2> /dev/null | grep '\[JIT\] tid' > "$TEST_TMP/rs1"
      raw0=$(grep -c '\] 0x0000' "$TEST_TMP/rs0"); raw1=$(grep -c '\] 0x0000' "$TEST_TMP/rs1")
      byaddr=$(grep -c '\] libbig.so+0x[0-9a-f]*$' "$TEST_TMP/rs1")
      if [ "$raw0" -gt 0 ] && [ "$raw1" = 0 ] && [ "$byaddr" -gt 0 ] && grep -q '\] big_run$' "$TEST_TMP/rs1"; then
        pass "perf-map of a stripped library from the cache: $raw0 raw addresses before, none after: big_run by .dynsym, $byaddr pieces as libbig.so+ADDRESS ($out)"
      else
        fail "perf-map of a stripped library from the cache" "raw before $raw0, after $raw1, by address $byaddr: $out; $(head -3 "$TEST_TMP/rs1" | tr '\n' '|')"
      fi
    else
      fail "perf-map of a stripped library from the cache" "its text is not from the cache: $(grep hugeld /proc/$sp/maps | head -2)"
    fi
    kill $sp 2> /dev/null
  else
    fail "cache add of a stripped library" "$(cat "$TEST_TMP/sadd.out")"
  fi
fi

# The map file in /tmp: others' lines are kept, links are not followed.
m=/tmp/perf-$bench.map
perfmaps+=($m)
printf '1000 10 jit_code_somewhere\n' > $m
$H perf-map $bench > /dev/null 2>&1
grep -q '^1000 10 jit_code_somewhere$' $m && grep -q ' big_run$' $m \
  && pass "perf-map: keeps lines others wrote about other memory" \
  || fail "perf-map: keeps others' lines" "$(head -2 $m | tr '\n' '|')"
echo precious > "$TEST_TMP/target"
rm -f $m; ln -s "$TEST_TMP/target" $m
one_line_error "perf-map: /tmp/perf-PID.map is a symbolic link: refused" 1 $H perf-map $bench
[ "$(cat "$TEST_TMP/target")" = precious ] && [ -L $m ] \
  && pass "perf-map: the link and its target untouched" || fail "perf-map: link target" "$(head -c 80 "$TEST_TMP/target")"
rm -f $m

# --- gdb ------------------------------------------------------------------

if command -v gdb > /dev/null; then
  # Attach to the benchmark (run by ld.so as a command): its stack is in
  # libbig.so's huge page text.
  timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -p $bench \
    -ex bt -ex 'info sharedlibrary' -ex "gcore $TEST_TMP/core" > "$TEST_TMP/attach.out" 2>&1
  text=$(jq "[(r['start'], r['end']) for o in d['objects'] for r in o['ranges'] if r['kind'] == 'text']" < "$TEST_TMP/status.json")
  frames_on_huge () { # FILE: how many of the first frames' PCs are in huge text
    frames_in "$1" "$text" '#[0-9]+ +(0x[0-9a-f]+) in (big_fn_[0-9]+|big_run) '
  }
  a=$TEST_TMP/attach.out
  if grep -q '^#[01] .* in big_fn_[0-9]* () from .*/libbig.so$\|^#[01] .* in big_run () from .*/libbig.so$' $a \
     && [ "$(frames_on_huge $a)" -ge 1 ] \
     && grep -q '^0x[0-9a-f]*  *0x[0-9a-f]*  *Yes.* /.*/libbig.so$' $a \
     && grep -q '^Saved corefile' $a; then
    pass "gdb attach: backtrace through libbig.so's huge page text ($(frames_on_huge $a) frame(s) there), info sharedlibrary, gcore"
  else
    fail "gdb attach" "$(grep -E '^#|rror|Saved|libbig' $a | head -5 | tr '\n' '|')"
  fi
  # hugeld gdb adds the program's own symbols (ld.so-command mode).
  timeout 60 $H gdb $bench -- -batch -nx -iex 'set debuginfod enabled off' -ex bt > "$TEST_TMP/hattach.out" 2>&1
  grep -q '^#[0-9]* .* in big_run () from .*/libbig.so$' "$TEST_TMP/hattach.out" \
    && grep -q '^#[0-9]* .* in main (.*bigcheck.c:[0-9]*$' "$TEST_TMP/hattach.out" \
    && pass "hugeld gdb PID: backtrace from libbig.so's huge pages down to main (bigcheck.c)" \
    || fail "hugeld gdb PID" "$(grep -E '^#|rror' "$TEST_TMP/hattach.out" | head -4 | tr '\n' '|')"
  if [ -s "$TEST_TMP/core" ]; then
    timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' "$HUGELD_LDSO" "$TEST_TMP/core" \
      -ex bt -ex 'info sharedlibrary' > "$TEST_TMP/core.out" 2>&1
    c=$TEST_TMP/core.out
    if grep -q '^#[01] .* in \(big_fn_[0-9]*\|big_run\) () from .*/libbig.so$' $c \
       && [ "$(frames_on_huge $c)" -ge 1 ] && grep -q 'Yes.* /.*/libbig.so$' $c; then
      pass "gdb core file (gcore): backtrace through libbig.so's huge page text, info sharedlibrary"
    else
      fail "gdb core file" "$(grep -E '^#|rror|libbig' $c | head -4 | tr '\n' '|')"
    fi
    timeout 60 $H gdb --core "$TEST_TMP/core" -- -batch -nx -iex 'set debuginfod enabled off' -ex bt > "$TEST_TMP/hcore.out" 2>&1
    grep -q '^#[0-9]* .* in big_run () from .*/libbig.so$' "$TEST_TMP/hcore.out" \
      && grep -q '^#[0-9]* .* in main (.*bigcheck.c:[0-9]*$' "$TEST_TMP/hcore.out" \
      && pass "hugeld gdb --core: backtrace from libbig.so's huge pages down to main" \
      || fail "hugeld gdb --core" "$(grep -E '^#|rror' "$TEST_TMP/hcore.out" | head -4 | tr '\n' '|')"
  else
    fail "gdb gcore" "no core file"
  fi
  # A breakpoint in the huge page library of a program hugeld run-style
  # (ld.so as a command) started under gdb.
  timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' \
    -ex 'set breakpoint pending on' \
    -ex "set exec-wrapper env LD_HUGEPAGE_LIBS=libbig.so LD_DEBUG=hugepages LD_DEBUG_OUTPUT=$TEST_TMP/gdbrun" \
    -ex 'break big_digest' -ex run -ex bt -ex kill \
    --args "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 1 > "$TEST_TMP/gdbrun.out" 2>&1
  if grep -q '^Breakpoint 1, .* in big_digest () from .*/libbig.so$\|^Breakpoint 1, big_digest ()' "$TEST_TMP/gdbrun.out" \
     && [ "$(dbg_pages "$TEST_TMP/gdbrun")" = 16 ]; then
    pass "gdb: breakpoint in libbig.so's huge page text (ld.so as a command) is hit"
  else
    fail "gdb: breakpoint in huge page library" "$(grep -E '^Breakpoint|^#|rror' "$TEST_TMP/gdbrun.out" | head -3 | tr '\n' '|') pages $(dbg_pages "$TEST_TMP/gdbrun")"
  fi
else
  skip gdb "gdb not installed"
fi
kill $bench 2> /dev/null; wait $bench 2> /dev/null
finish
