#!/bin/bash
# The hugeld command (tools/): run, plan and status, its errors, and
# its installation (perf-map and gdb: t-tool-debug.sh).  On the generated big-code program
# (bigcheck-shared with libbig.so, bigcheck-pie, bigcheck-dlopen, a PIE
# with hugeld as PT_INTERP) and on real programs: gdb, which links
# libpython3.11.so (selected as libpython3*), gcc's cc1 (its own text)
# and Debian's python3.11 (libpython linked in, selected as python3*).
#
# `plan' must give the pages the loader really takes (its LD_DEBUG
# report, and the zones themselves), `status' what /proc/PID/smaps
# says, `perf-map' must make perf name functions it showed as raw
# addresses, and gdb must read a process and a core file whose stack
# is in huge page library code.
#
# HUGELD_CMD may name the command to test (e.g. the installed
# /opt/hugeld/bin/hugeld); by default it is built into build/tools.
. "$(dirname "$0")/tool-lib.sh"

# --- Help, version, install --------------------------------------------------

for c in "" run plan status perf-map gdb; do
  out=$($H $c --help 2>&1); rc=$?
  if [ $rc = 0 ] && echo "$out" | grep -qi 'usage\|commands:'; then
    pass "--help${c:+ for $c}"
  else
    fail "--help${c:+ for $c}" "exit $rc: $(echo "$out" | head -2 | tr '\n' ' ')"
  fi
done
$H --version | grep -q '^hugeld [0-9]' && pass "--version" \
  || fail "--version" "$($H --version 2>&1)"

# The helper is the loader's planner: its symbols are there.
if nm "$HELPER" 2> /dev/null | grep -q ' T _dl_hugepage_plan$' \
   && nm "$HELPER" | grep -q ' T _dl_hugepage_match_list$'; then
  pass "hugeld-plan is linked with the loader's _dl_hugepage_plan and _dl_hugepage_match_list"
else
  fail "hugeld-plan links the loader's planner" "$(nm "$HELPER" 2>&1 | grep -c _dl_hugepage)"
fi

# The settings a command runs a program with: decided by the loader's
# own _dl_hugepage_resolve (hugeld-conf --effective), an option over
# a variable (set, even empty) over the policy file over the default.
CONF_HELPER=$(dirname "$HELPER")/hugeld-conf
E=$TEST_TMP/effective.conf
printf 'libs libA.so\nlibs libB.so\nsegments text\nprogram /bin/tru*\n  backing private\n' > "$E"
chmod 0644 "$E"
# eff [VAR=VALUE...] [-- OPTION VALUE...]: "setting=value(source)..."
# with the file's name as E.
eff () {
  local vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  env -i "${vars[@]}" "$CONF_HELPER" --effective "$@" --run /bin/true "$E" 2>&1 \
    | $PY -c 'import json, sys
d = json.load(sys.stdin)
print((" ".join("%s=%s(%s)" % (k, d[k]["value"], d[k]["source"])
                for k in ("libs", "segments", "backing"))
       + " program %s" % d["policy"]["program"]).replace(sys.argv[1], "E"))' "$E"
}
out=$(eff)
[ "$out" = "libs=libA.so:libB.so(E lines 1, 2) segments=text(E line 3) backing=private(E line 5) program E line 4" ] \
  && pass "hugeld-conf --effective: all from the policy file, with their lines" \
  || fail "hugeld-conf --effective: from the file" "$out"
out=$(eff LD_HUGEPAGE_LIBS=x LD_HUGEPAGE_SEGMENTS= LD_HUGEPAGE_BACKING=private -- --backing thp)
[ "$out" = "libs=x(LD_HUGEPAGE_LIBS) segments=(LD_HUGEPAGE_SEGMENTS) backing=thp(--backing) program E line 4" ] \
  && pass "hugeld-conf --effective: option over variable, an empty variable keeps the file's value away" \
  || fail "hugeld-conf --effective: option, variable" "$out"
# The tunables in GLIBC_TUNABLES: under their variables, over the file.
out=$(eff LD_HUGEPAGE_SEGMENTS=all GLIBC_TUNABLES=glibc.malloc.perturb=1:glibc.elf.hugepage.libs=libC.so,libD.so:glibc.elf.hugepage.segments=text:glibc.elf.hugepage.backing=thp)
[ "$out" = "libs=libC.so:libD.so(glibc.elf.hugepage.libs) segments=all(LD_HUGEPAGE_SEGMENTS) backing=thp(glibc.elf.hugepage.backing) program E line 4" ] \
  && pass "hugeld-conf --effective: a tunable under its variable and over the file (libs' commas as colons)" \
  || fail "hugeld-conf --effective: tunables" "$out"
out=$(GLIBC_TUNABLES=glibc.elf.hugepage.libs=libbig.so $H plan --ldso "$HUGELD_LDSO" "$FIXTURES/bigcheck-shared" 2>&1)
echo "$out" | grep -q '^settings: libs libbig.so (glibc.elf.hugepage.libs); ' \
  && echo "$out" | grep -q '"libbig.so" (file name)' \
  && pass "hugeld plan: GLIBC_TUNABLES=glibc.elf.hugepage.libs=libbig.so selects libbig.so, and says where from" \
  || fail "hugeld plan with the libs tunable" "$(echo "$out" | head -5 | tr '\n' ' ')"
env -i LD_HUGEPAGE_LIBS= "$CONF_HELPER" --effective --run /bin/true "$E" > "$TEST_TMP/e.out" 2> "$TEST_TMP/e.err"
rc=$?
[ $rc = 3 ] && [ ! -s "$TEST_TMP/e.out" ] && [ "$(wc -l < "$TEST_TMP/e.err")" = 1 ] \
  && grep -q '^hugeld-conf: nothing selected: ' "$TEST_TMP/e.err" \
  && pass "hugeld-conf --effective: LD_HUGEPAGE_LIBS= selects nothing (exit 3, one line)" \
  || fail "hugeld-conf --effective: LD_HUGEPAGE_LIBS=" "exit $rc: $(cat "$TEST_TMP/e.err")"
nm "$CONF_HELPER" 2> /dev/null | grep -q ' T _dl_hugepage_resolve$' \
  && pass "hugeld-conf is linked with the loader's _dl_hugepage_resolve" \
  || fail "hugeld-conf links _dl_hugepage_resolve" "$(nm "$CONF_HELPER" 2>&1 | head -1)"

D=$TEST_TMP/dest
if make -C "$HUGELD_TOP/tools" OUT="$TEST_TMP/tools-out" DESTDIR="$D" \
     install > "$TEST_TMP/install.log" 2>&1; then
  ok=yes
  for f in opt/hugeld/bin/hugeld opt/hugeld/lib/python3/hugeld/cli.py \
	   opt/hugeld/libexec/hugeld-plan \
	   opt/hugeld/share/man/man1/hugeld.1 \
	   opt/hugeld/share/bash-completion/completions/hugeld; do
    [ -f "$D/$f" ] || { ok="no $f"; break; }
  done
  [ "$(readlink "$D/usr/local/bin/hugeld")" = /opt/hugeld/bin/hugeld ] \
    || ok="usr/local/bin/hugeld -> $(readlink "$D/usr/local/bin/hugeld")"
  [ "$(readlink "$D/usr/local/share/man/man1/hugeld.1")" = /opt/hugeld/share/man/man1/hugeld.1 ] \
    || ok="no man page link"
  head -1 "$D/opt/hugeld/bin/hugeld" | grep -q '^#!/usr/bin/python3 -IS$' || ok="shebang"
  grep -q '^_LDSO = "/opt/hugeld/ld.so"$' "$D/opt/hugeld/lib/python3/hugeld/common.py" || ok="loader path"
  # Compiled, and checked by the source's hash: install keeps it valid.
  n=$(ls "$D"/opt/hugeld/lib/python3/hugeld/__pycache__/*.pyc "$D"/opt/hugeld/lib/python3/hugeld/*/__pycache__/*.pyc 2>/dev/null | wc -l)
  [ "$n" -ge 20 ] || ok="$n compiled modules"
  [ "$ok" = yes ] && pass "make install DESTDIR=: bin/hugeld and its compiled package, libexec/hugeld-plan, man page, completion, /usr/local links" \
    || fail "make install DESTDIR=" "$ok"
  # The installed copy finds its helper in ../libexec.
  out=$(HUGELD_PLAN= "$D/opt/hugeld/bin/hugeld" plan "$F/bigcheck-shared" --libs libbig.so --json 2>&1 | jq 'd["pages_per_process"]')
  [ "$out" = 16 ] && pass "installed hugeld finds ../libexec/hugeld-plan" \
    || fail "installed hugeld finds ../libexec/hugeld-plan" "$out"
  make -C "$HUGELD_TOP/tools" OUT="$TEST_TMP/tools-out" DESTDIR="$D" uninstall > /dev/null 2>&1
  left=$(find "$D" -type f -o -type l)
  [ -z "$left" ] && pass "make uninstall removes it all" || fail "make uninstall" "$left"
else
  fail "make install DESTDIR=" "$(tail -3 "$TEST_TMP/install.log" | tr '\n' ' ')"
fi
if command -v groff > /dev/null; then
  w=$(groff -man -ww -z "$HUGELD_TOP/tools/hugeld.1" 2>&1)
  [ -z "$w" ] && pass "man page: groff -man -ww has no warning" || fail "man page" "$w"
fi
# Bash completion: subcommands and segment lists.
comp=$(bash -c '
  . "$1"
  c () { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _hugeld; echo "${COMPREPLY[*]}"; }
  c hugeld st; c hugeld plan x --segments text,ro; c hugeld status --j' _ "$HUGELD_TOP/tools/hugeld.bash-completion" 2>&1)
if [ "$comp" = $'status\ntext,rodata\n--json' ]; then
  pass "bash completion: commands, segment lists, options"
else
  fail "bash completion" "$(echo "$comp" | tr '\n' '|')"
fi

# --- plan against what the loader does -------------------------------------

# plan_vs_run NAME PATTERNS SEGMENTS EXPECT -- PROG ARGS: the plan's pages
# and zones are the loader's (hugeld run --debug), and bigcheck's own
# checks (--expect) pass.
plan_vs_run () {
  local name=$1 libs=$2 segs=$3 expect=$4; shift 5
  local prog=$1; shift
  local j=$TEST_TMP/plan-$name.json dbg=$TEST_TMP/dbg-$name
  rm -f "$dbg".*
  if ! $H plan "$prog" --libs "$libs" --segments "$segs" "${plan_extra[@]}" --json > "$j" 2> "$j.err"; then
    fail "plan $name" "$(cat "$j.err")"; return
  fi
  local planned; planned=$(jq 'd["pages_per_process"]' < "$j")
  ensure_pool
  $H run --libs "$libs" --segments "$segs" --debug="$dbg" -- "$prog" "$@" \
    ${expect:+--expect "$expect"} > "$TEST_TMP/$name.out" 2> "$TEST_TMP/$name.err"
  local rc=$?
  local got; got=$(dbg_pages "$dbg")
  if [ $rc != 0 ]; then
    fail "run $name" "exit $rc: $(grep -m3 'FAIL\|hugeld' "$TEST_TMP/$name.err" | tr '\n' ' ')"
  elif [ "$planned" = "$got" ] && [ "$got" -gt 0 ]; then
    pass "plan $name ($libs, $segs): $planned pages = the loader's report; run: checks pass"
  else
    fail "plan $name ($libs, $segs): planned pages = loader's" "planned $planned, loader $got"
  fi
  local obj
  for obj in "${zone_objs[@]}"; do
    if [ -n "$(dbg_zones "$dbg" "$obj")" ] \
       && [ "$(plan_zones "$j" "$obj")" = "$(dbg_zones "$dbg" "$obj")" ]; then
      pass "plan $name: $obj's zones are the loader's ($(dbg_zones "$dbg" "$obj" | awk '{ printf "%s %s-%s; ", $1, $2, $3 }'))"
    else
      fail "plan $name: $obj's zones are the loader's" \
	"plan: $(plan_zones "$j" "$obj" | tr '\n' '|') loader: $(dbg_zones "$dbg" "$obj" | tr '\n' '|')"
    fi
  done
}
plan_extra=()
zone_objs=(libbig.so)
plan_vs_run shared libbig.so text,rodata,relro text,rodata,relro -- "$F/bigcheck-shared"
plan_vs_run shared-all libbig.so all text,rodata,relro,data,bss -- "$F/bigcheck-shared"
zone_objs=(bigcheck-pie)
plan_vs_run pie bigcheck-pie text,rodata,relro text,rodata,relro -- "$F/bigcheck-pie"
zone_objs=(libbig.so)
plan_extra=(--dlopen "$F/libbig.so")
plan_vs_run dlopen libbig.so text '' -- "$F/bigcheck-dlopen" --dlopen "$F/libbig.so" --expect text

# More program headers than linkers write: ld.so (on every glibc, also
# where it reads the table itself) and the plan take at most the same
# number, so the plan promises what ld.so maps with 80, and neither
# maps an object with 300.
for n in 80 300; do
  got=$(readelf -hW "$F/phdr$n/libbig.so" | sed -n 's/.*Number of program headers: *//p')
  [ "$got" = $n ] || fail "fixture phdr$n/libbig.so has $n program headers" "it has $got"
done
plan_extra=(--dlopen "$F/phdr80/libbig.so")
plan_vs_run phdr80 libbig.so text '' -- "$F/bigcheck-dlopen" --dlopen "$F/phdr80/libbig.so" --expect text
plan_extra=()
j=$TEST_TMP/plan-phdr300.json
$H plan "$F/bigcheck-dlopen" --dlopen "$F/phdr300/libbig.so" --libs libbig.so --json > "$j" 2>&1
planned=$(jq 'd["pages_per_process"]' < "$j")
why=$(jq '[o["error"] for o in d["objects"] if o["path"].endswith("/phdr300/libbig.so")]' < "$j")
LD_DEBUG=hugepages LD_HUGEPAGE_LIBS=libbig.so "$HUGELD_LDSO" "$F/bigcheck-dlopen" \
  --dlopen "$F/phdr300/libbig.so" --expect none > /dev/null 2> "$TEST_TMP/phdr300.err"
rc=$?
if [ "$planned" = 0 ] && [ "$why" = "['more than 256 program headers']" ] && [ $rc = 0 ] \
   && grep -q '/phdr300/libbig.so: ordinary pages: more than 256 program headers$' "$TEST_TMP/phdr300.err"; then
  pass "300 program headers: the plan and ld.so both leave the object on ordinary pages (more than 256)"
else
  fail "300 program headers: plan and ld.so agree" "planned $planned ($why), ld.so exit $rc: $(grep -m2 'phdr300\|FAIL' "$TEST_TMP/phdr300.err" | tr '\n' ' ')"
fi

# thp listed first: ld.so puts text at its file phase (other zones
# follow the bias), not where it gets the most pages; the plan with
# --backing places it the same.
j=$TEST_TMP/plan-thp.json
$H plan "$F/bigcheck-shared" --libs libbig.so --backing thp,private --json > "$j" 2>&1
thp_plan=$(plan_zones "$j" libbig.so | awk '{ print $1, $2, $3 }')
LD_DEBUG=hugepages LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=thp,private \
  "$HUGELD_LDSO" "$F/bigcheck-shared" 2> "$TEST_TMP/thp.err" > /dev/null
thp_run=$(sed -n 's|.*/libbig.so: \([a-z+]*\) \[\(0x[0-9a-f]*\), \(0x[0-9a-f]*\)) at 0x[0-9a-f]*: thp: .*|\1 \2 \3|p' "$TEST_TMP/thp.err" | sort)
best=$(plan_zones "$TEST_TMP/plan-shared.json" libbig.so | awk '{ print $1, $2, $3 }')
if [ -n "$thp_plan" ] && [ "$thp_plan" = "$thp_run" ] && [ "$thp_plan" != "$best" ] \
   && grep -q '^ok: all checks passed' "$TEST_TMP/thp.err"; then
  pass "plan --backing thp,private: text at its file phase, the loader's zones ($(echo $thp_run)), not the most-pages placement ($(echo $best))"
else
  fail "plan --backing thp,private = the loader's thp zones" "plan: $(echo $thp_plan) loader: $(echo $thp_run) best: $(echo $best) err: $(grep -v '^ok:' "$TEST_TMP/thp.err" | tail -3)"
fi

# The text output: the table, the total and the pool for N copies.
out=$($H plan "$F/bigcheck-shared" --libs libbig.so --copies 3 2>&1)
if echo "$out" | grep -q '^/.*/libbig.so  *"libbig.so" (file name)  *11  *4  *1  *-  *-  *16$' \
   && echo "$out" | grep -q '^per process: 16 huge pages (32 MiB)$' \
   && echo "$out" | grep -q '^pool for 3 processes: nr_hugepages >= 48 ' \
   && echo "$out" | grep -q '^debugger: a breakpoint in huge-page text of a process that has forked children needs 1 spare huge page per 2 MiB page it is in (at most 11 per debugged process), else the children die of SIGBUS; hbreak needs none, hugeld gdb --grow-pool reserves them$' \
   && echo "$out" | grep -q '^pool now: HugePages_Total [0-9]*, Free'; then
  pass "plan: table (text 11, rodata 4, relro 1 = 16), per process, pool for --copies 3 = 48, debugger cost (11)"
else
  fail "plan: table and totals" "$(echo "$out" | tr '\n' '|')"
fi
# The debugger's cost in --json, and no such line without huge-page text.
dj=$($H plan "$F/bigcheck-shared" --libs libbig.so --json | jq 'd["debugger_spare_pages"]')
dr=$($H plan "$F/bigcheck-shared" --libs libbig.so --segments rodata 2>&1)
dn=$($H plan "$F/bigcheck-shared" --libs libbig.so --segments rodata --json | jq 'd["debugger_spare_pages"]')
if [ "$dj" = 11 ] && [ "$dn" = 0 ] && ! echo "$dr" | grep -q '^debugger:'; then
  pass "plan --json: debugger_spare_pages 11 (the text pages); rodata only: 0 and no debugger line"
else
  fail "plan --json: debugger_spare_pages" "text: $dj, rodata only: $dn $(echo "$dr" | grep '^debugger:')"
fi
out=$($H plan "$F/bigcheck-shared" --libs libbig.so -v 2>&1)
echo "$out" | grep -q '^  data  *\[0x[0-9a-f]*, 0x[0-9a-f]*)  ordinary pages: its kind is not in the segments setting$' \
  && echo "$out" | grep -Eq '^(/usr)?/lib/x86_64-linux-gnu/libc.so.6  *-' \
  && pass "plan -v: every range with its reason, unselected objects listed" \
  || fail "plan -v" "$(echo "$out" | grep -m3 'data\|libc')"
# Selected by DT_SONAME: libbig.so through a symlink with another name.
ln -sf "$F/libbig.so" "$TEST_TMP/libother.so"
out=$($H plan "$F/bigcheck-dlopen" --libs libbig.so --dlopen "$TEST_TMP/libother.so" --json | jq '[(o["matched_by"], o["huge_pages"]) for o in d["objects"] if o["selected"]]')
[ "$out" = "[('DT_SONAME', 16)]" ] && pass "plan: selection by DT_SONAME (the loader's matcher)" \
  || fail "plan: selection by DT_SONAME" "$out"

# A program with hugeld as PT_INTERP: the kernel picks its base; the
# plan gives the range, the loader's count is inside it.
cc -I"$HUGELD_TOP/tests/fixtures" -O2 -pthread "$HUGELD_TOP/tests/fixtures/bigcheck.c" \
  "$F/big-pic.o" -o "$TEST_TMP/ipie" -Wl,-z,relro -Wl,-z,pack-relative-relocs \
  -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$TEST_TMP/ipie.cc"
if [ -x "$TEST_TMP/ipie" ]; then
  j=$($H plan "$TEST_TMP/ipie" --libs ipie --direct --json)
  lo=$(echo "$j" | jq 'd["direct_start"]["min_pages"]')
  hi=$(echo "$j" | jq 'd["direct_start"]["max_pages"]')
  counted=$(echo "$j" | jq 'd["pages_per_process"]')
  note=$($H plan "$TEST_TMP/ipie" --libs ipie | grep '^note: started directly')
  ok=yes
  for i in 1 2 3; do
    rm -f "$TEST_TMP"/dipie.*
    $H run --direct --libs ipie --debug="$TEST_TMP/dipie" -- "$TEST_TMP/ipie" --expect text,rodata,relro \
      > /dev/null 2> "$TEST_TMP/dipie.err" || ok="run failed: $(grep -m2 FAIL "$TEST_TMP/dipie.err")"
    got=$(dbg_pages "$TEST_TMP/dipie")
    [ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ] || ok="loader took $got, plan $lo..$hi"
  done
  if [ "$ok" = yes ] && [ "$counted" = "$hi" ] && [ -n "$note" ]; then
    pass "plan --direct (PT_INTERP hugeld): $lo..$hi pages, counts $hi; run --direct took $got; note without --direct"
  else
    fail "plan --direct" "$ok; counted $counted; note '$note'"
  fi
else
  fail "link a PIE with hugeld as PT_INTERP" "$(head -3 "$TEST_TMP/ipie.cc")"
fi

ensure_pool
# The huge pages the release's python3's own text gets when selected.
PYPAGES=$($H plan "$PYBIN" --libs 'python3*' --json 2> /dev/null | jq 'd["pages_per_process"]')
# Real programs.  gdb links libpython3.11.so; cc1 is a 20 MiB non-PIE
# program; python3.11 has libpython linked in, but its text does not
# hold one whole aligned 2 MiB page: plan and loader agree on nothing.
real_plan () {
  local name=$1 libs=$2; shift 2
  local dbg=$TEST_TMP/dbg-$name
  rm -f "$dbg".*
  local planned; planned=$($H plan "$1" --libs "$libs" --json 2> "$TEST_TMP/$name.perr" | jq 'd["pages_per_process"]')
  $H run --no-pool-check --libs "$libs" --debug="$dbg" -- "$@" > "$TEST_TMP/$name.out" 2> "$TEST_TMP/$name.err"
  local rc=$? got; got=$(dbg_pages "$dbg")
  if [ $rc = 0 ] && [ -n "$planned" ] && [ "$planned" = "$got" ]; then
    pass "real program $name ($libs): plan $planned pages = the loader's report"
  else
    fail "real program $name ($libs): plan = loader" "exit $rc, planned '$planned' ($(head -1 "$TEST_TMP/$name.perr")), loader $got $(head -2 "$TEST_TMP/$name.err" | tr '\n' ' ')"
  fi
}
command -v gdb > /dev/null && real_plan gdb 'libpython3*' gdb -batch -nx -ex 'python print(6 * 7)'
echo 'int f (int x) { return x * 2; }' > "$TEST_TMP/x.c"
cc1=$(cc -print-prog-name=cc1)
[ -x "$cc1" ] && real_plan cc1 cc1 "$cc1" -quiet "$TEST_TMP/x.c" -o "$TEST_TMP/x.s"
real_plan python3 'python3*' "$PYBIN" -c 'print(6 * 7)'
# Debian 12's python3.11 (non-PIE, 2.7 MiB of text) has no whole 2 MiB
# page; where the release's python3 has, the plan = loader check above
# covers it.
if [ "$PYPAGES" = 0 ]; then
  grep -q "python$PYV: nothing fills a whole huge page" "$TEST_TMP"/dbg-python3.* 2>/dev/null \
    && $H plan "$PYBIN" --libs 'python3*' -v | grep -q '^  text .*ordinary pages: does not fill a whole huge page' \
    && pass "real program python$PYV: plan -v and the loader both say its text does not fill a 2 MiB page" \
    || fail "real program python$PYV: reason reported" "$(cat "$TEST_TMP"/dbg-python3.* | grep -m2 python3)"
fi

ensure_pool
# --- run ------------------------------------------------------------------

out=$($H run --no-pool-check --libs nothing -- sh -c 'echo "$0"; exit 7'); rc=$?
[ $rc = 7 ] && [ "$out" = sh ] && pass "run: argv[0] as typed, the program's exit status (7)" \
  || fail "run: argv[0] and exit status" "exit $rc, \$0 '$out'"
out=$(LD_HUGEPAGE_LIBS=libbig.so $H run -- "$F/bigcheck-shared" --expect text,rodata,relro 2>&1 >/dev/null | tail -1)
[ "$out" = "ok: all checks passed" ] && pass "run: LD_HUGEPAGE_LIBS from the environment when no --libs" \
  || fail "run: LD_HUGEPAGE_LIBS from the environment" "$out"
# --perf-map: the parent writes the map of its child.
before=$(ls /tmp/perf-*.map 2> /dev/null)
$H run --perf-map --libs libbig.so -- "$F/bigcheck-shared" --bench --rounds 3 > /dev/null 2>&1; rc=$?
new=$(comm -13 <(echo "$before") <(ls /tmp/perf-*.map 2> /dev/null))
if [ $rc = 0 ] && [ -n "$new" ] && grep -q ' big_fn_[0-9]*$' $new && grep -q ' big_run$' $new; then
  pass "run --perf-map: $(basename $new) names big_run and $(grep -c ' big_fn_' $new) big_fn_*"
else
  fail "run --perf-map" "exit $rc, new map files: $new"
fi
rm -f $new

ensure_pool
# --- status ---------------------------------------------------------------

start_bench || fail "status: benchmark on huge pages" "no huge page mapping in /proc/$bench/maps"
smaps_pages=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { split($1, a, "-"); len = strtonum("0x" a[2]) - strtonum("0x" a[1]) }
		   /^KernelPageSize: *2048 kB/ { n += len / 2097152 } END { print n + 0 }' /proc/$bench/smaps)
st_pages=$(jq 'd["pages"]' < "$TEST_TMP/status.json")
st_zones=$($PY - "$TEST_TMP/status.json" <<'PY' | sort
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["objects"]:
    if o["path"].endswith("/libbig.so"):
        for r in o["ranges"]:
            print(r["kind"], hex(r["object_start"]), hex(r["object_end"]), r["pages"])
PY
)
if [ "$st_pages" = 16 ] && [ "$st_pages" = "$smaps_pages" ] \
   && [ "$st_zones" = "$(plan_zones "$TEST_TMP/plan-shared.json" libbig.so)" ]; then
  pass "status PID --json: libbig.so's ranges and kinds = the plan's zones, $st_pages pages = smaps"
else
  fail "status PID --json" "pages $st_pages (smaps $smaps_pages), ranges: $(echo "$st_zones" | tr '\n' '|') $(cat "$TEST_TMP/status.err")"
fi
jq '[d["ldso_command"], d["hugeld"], d["settings"]["libs"], d["program"]]' < "$TEST_TMP/status.json" \
  | grep -q "^\[True, True, 'libbig.so', '$F/bigcheck-shared'\]$" \
  && pass "status: run by hugeld's ld.so as a command, program and settings from /proc" \
  || fail "status: loader, program and settings" "$(jq '[d["ldso_command"], d["hugeld"], d["settings"], d["program"]]' < "$TEST_TMP/status.json")"
out=$($H status $bench)
if echo "$out" | grep -q "^process $bench (bigcheck-shared via ld.so): 16 huge pages (32 MiB) in 1 object$" \
   && echo "$out" | grep -q '^  /.*/libbig.so  *text  *[0-9a-f]*-[0-9a-f]*  *\[0x[0-9a-f]*, 0x[0-9a-f]*)  *private  *11$' \
   && echo "$out" | grep -q '^pool (2 MiB): HugePages_Total [0-9]*, Free [0-9]*, Rsvd [0-9]*, Surp [0-9]*: [0-9]* in use'; then
  pass "status PID: the table and the pool"
else
  fail "status PID: the table" "$(echo "$out" | tr '\n' '|')"
fi
$H status --all --json > "$TEST_TMP/all.json"
out=$(jq "[(p['pages'], p['objects'][0]['path'].split('/')[-1]) for p in d['processes'] if p['pid'] == $bench], d['pool']['total'] > 0" < "$TEST_TMP/all.json" 2>&1)
[ "$out" = "[(16, 'libbig.so')] True" ] && pass "status --all --json: the benchmark with 16 pages of libbig.so, the pool" \
  || fail "status --all --json" "$out"
$H status --all | grep -q "^ *$bench  *16  *32  *0  *bigcheck-shared via ld.so  *libbig.so (16)$" \
  && pass "status --all: the table" || fail "status --all" "$($H status --all | head -5 | tr '\n' '|')"

# Selected by the tunable: status reads it from the process's
# GLIBC_TUNABLES with ld.so's own parser, names it, and plans with it.
GLIBC_TUNABLES=glibc.malloc.perturb=0:glibc.elf.hugepage.libs=nothing.so,libbig.so \
  "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 1000 > /dev/null 2>&1 &
tun=$!
if wait_huge $tun; then
  out=$($H status $tun 2>&1)
  echo "$out" | grep -q '^  settings: libs nothing.so:libbig.so (glibc.elf.hugepage.libs); segments text,rodata,relro (ld.so.s default)' \
    && echo "$out" | grep -q '^  /.*/libbig.so  *text ' \
    && pass "status PID: libs from GLIBC_TUNABLES, named as the tunable; libbig.so's zones" \
    || fail "status PID with the libs tunable" "$(echo "$out" | head -6 | tr '\n' '|')"
else
  fail "status PID with the libs tunable" "the process got no huge page"
fi
kill $tun 2> /dev/null; wait $tun 2> /dev/null
# The attacker's side: a process whose environment has an LD_PRELOAD
# library (and the tunable) must not get that library into the helpers
# root's status runs for it.  The library leaves a mark when a hugeld
# helper or command loads it; the process itself loads it too, so the
# check can fail.
cat > "$TEST_TMP/mark.c" <<EOF
#include <stdio.h>
#include <string.h>
__attribute__ ((constructor)) static void
mark (void)
{
  char comm[32] = "";
  FILE *f = fopen ("/proc/self/comm", "r");
  if (f != NULL) { if (fgets (comm, sizeof comm, f) == NULL) comm[0] = 0; fclose (f); }
  FILE *o = fopen (strncmp (comm, "hugeld", 6) == 0 ? "$TEST_TMP/mark.helper"
		   : "$TEST_TMP/mark.self", "w");
  if (o != NULL) fclose (o);
}
EOF
rm -f "$TEST_TMP/mark.self" "$TEST_TMP/mark.helper"
if cc -shared -fPIC -o "$TEST_TMP/mark.so" "$TEST_TMP/mark.c"; then
  LD_PRELOAD=$TEST_TMP/mark.so GLIBC_TUNABLES=glibc.elf.hugepage.libs=libbig.so \
    "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 1000 > /dev/null 2>&1 &
  evil=$!
  wait_huge $evil
  $H status $evil > "$TEST_TMP/evil.out" 2>&1
  $H status --all > /dev/null 2>&1
  kill $evil 2> /dev/null; wait $evil 2> /dev/null
  if [ -e "$TEST_TMP/mark.self" ] && [ ! -e "$TEST_TMP/mark.helper" ] \
     && grep -q 'libs libbig.so (glibc.elf.hugepage.libs)' "$TEST_TMP/evil.out"; then
    pass "status PID of a process with LD_PRELOAD in its environment: its tunable read, its library never loaded into hugeld's helpers"
  else
    fail "status PID: another process's LD_PRELOAD" "self $([ -e "$TEST_TMP/mark.self" ] && echo marked || echo unmarked), helper $([ -e "$TEST_TMP/mark.helper" ] && echo MARKED || echo unmarked): $(head -4 "$TEST_TMP/evil.out" | tr '\n' '|')"
  fi
else
  fail "build mark.so" ""
fi

# Selected but not on huge pages: the stock loader ignores the setting.
LD_HUGEPAGE_LIBS=libbig.so "$F/bigcheck-shared" --bench --rounds 400 > /dev/null 2>&1 &
stock=$!
sleep 0.3
out=$($H status $stock)
# The kernel may map the stock loader's libbig.so from 2 MiB page-cache
# folios (an ext4 mapping it aligned, folios left by a thp run): status
# must then say so, as smaps does, and still not credit the selection.
pmd=$(awk '/libbig.so$/ {f=1; next} /^[0-9a-f]+-/ {f=0} f && /^FilePmdMapped:/ {s+=$2} END {print s+0}' /proc/$stock/smaps)
if [ "$pmd" -gt 0 ]; then
  head="1 object; thp $pmd kB" why="; its page-cache huge pages are the kernel's own"
else
  head="0 objects" why=""
fi
echo "$out" | grep -qxF "process $stock (bigcheck-shared): 0 huge pages (0 MiB) in $head" \
  && echo "$out" | grep -q 'loader: .*(not hugeld)' \
  && echo "$out" | grep -q 'note: .*/libbig.so is selected by "libbig.so" (file name) but has no huge pages:' \
  && echo "$out" | grep -qxF "        its plan has 16 pages, but this process's loader is not hugeld and ignores the selection$why" \
  && pass "status: a process whose loader is not hugeld: 0 pages, libbig.so selected without huge pages (page-cache PMD mappings: $pmd kB)" \
  || fail "status: selected without huge pages" "FilePmdMapped $pmd kB: $(echo "$out" | tr '\n' '|')"
kill $stock 2> /dev/null; wait $stock 2> /dev/null

# Selected, on hugeld, and no huge page: status gives the reason that
# holds.  (1) The private backing with no free page in the pool.
pool_set 0
LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=private "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 1000000 > /dev/null 2>&1 &
p=$!
sleep 0.3
out=$($H status $p)
kill $p 2> /dev/null; wait $p 2> /dev/null
echo "$out" | grep -qxF "        its plan has 16 pages, and the pool has 0 pages free now: if it had none when the object was loaded, ld.so got no page (a short pool goes to text first)" \
  && pass "status: selected on hugeld with an empty pool: the pool is named, as a condition" \
  || fail "status: selected with an empty pool" "$(echo "$out" | tr '\n' '|')"
# status_after_add BACKING: OUT, what hugeld status says of a process
# that loaded libbig.so with BACKING, once libbig.so's cache entry has
# been made after it started (ADD: what cache add said).
status_after_add () {
  ensure_pool
  LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=$1 "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 1000000 > /dev/null 2>&1 &
  local p=$!
  sleep 0.3
  ensure_pool
  add=$($H cache add "$F/libbig.so" 2>&1)
  out=$($H status $p)
  $H cache remove "$F/libbig.so" > /dev/null 2>&1
  kill $p 2> /dev/null; wait $p 2> /dev/null
}
# (2) The shared backing, and the entry made after the process started:
# a restart gives it the cache's pages.
status_after_add shared
echo "$out" | grep -qxF "        its plan has 16 pages, and the shared cache serves it now, but its entry was made after this process started: a restart maps the cache's pages" \
  && pass "status: cached after the process started: a restart is named" \
  || fail "status: cached after the process started" "cache add: $add; $(echo "$out" | tr '\n' '|')"
# (3) A private copy, and the entry made after the process started (a
# service its postinst restarted before the trigger's sync): a restart
# maps the cache's pages and frees the copy's.
status_after_add shared,private
echo "$out" | grep -q "^  note: .*/libbig.so: a private copy ([0-9]* pool pages) of what the shared cache serves now: its entry was made after this process started; a restart maps the cache's pages and frees these$" \
  && pass "status: a private copy of what the cache serves since: a restart is named" \
  || fail "status: a private copy of what the cache serves since" "cache add: $add; $(echo "$out" | tr '\n' '|')"

ensure_pool
# A real program: gdb with libpython3* selected, in a Python sleep.
if command -v gdb > /dev/null; then
  $H run --libs 'libpython3*' -- gdb -batch -nx -ex 'python import time; time.sleep(20)' > /dev/null 2>&1 &
  gp=$!
  if wait_huge $gp; then
    planned=$($H plan gdb --libs 'libpython3*' --json | jq 'd["pages_per_process"]')
    out=$($H status $gp --json | jq '[(o["path"].split("/")[-1], o["pages"], sorted(r["kind"] for r in o["ranges"])) for o in d["objects"]]')
    [ "$out" = "[('libpython$PYV.so.1.0', $planned, ['rodata', 'text'])]" ] \
      && pass "status of gdb with libpython3*: text and rodata of libpython$PYV.so.1.0, $planned pages as planned" \
      || fail "status of gdb with libpython3*" "$out (planned $planned)"
    # gdb on it: the Python interpreter's frames, some in the huge text.
    if command -v gdb > /dev/null; then
      pytext=$($H status $gp --json | jq "[(r['start'], r['end']) for o in d['objects'] for r in o['ranges'] if r['kind'] == 'text']")
      timeout 60 $H gdb $gp -- -batch -nx -iex 'set debuginfod enabled off' -ex bt > "$TEST_TMP/gdbpy.out" 2>&1
      n=$(frames_in "$TEST_TMP/gdbpy.out" "$pytext" \
        '#[0-9]+ +(0x[0-9a-f]+) in .* from .*/libpython3\.[0-9]+\.so')
      # A named interpreter function (PyEval_EvalCode in Debian 12; the
      # dynamic symbols where the library has no others).
      if [ "$n" -ge 1 ] && grep -q " in Py[A-Za-z_]* () from .*/libpython$PYV.so" "$TEST_TMP/gdbpy.out"; then
        pass "gdb attach to gdb with libpython3* on huge pages: backtrace through the interpreter, $n frame(s) in its huge text"
      else
        fail "gdb attach to gdb with libpython3*" "$n frames in huge text: $(grep -m6 '^#' "$TEST_TMP/gdbpy.out" | tr '\n' '|')"
      fi
    fi
  else
    fail "status of gdb with libpython3*" "no huge pages"
  fi
fi

# python3.X selected: where nothing of it can go on huge pages (Debian
# 12's python3.11), status says why.
if [ "$PYPAGES" = 0 ]; then
  $H run --no-pool-check --libs 'python3*' -- "$PYBIN" -c 'import time; time.sleep(20)' > /dev/null 2>&1 &
  pp=$!
  # `hugeld run' is itself a python3 script until it execs the loader:
  # wait for the loader's mapping, not python's (seen under load).
  hl=$(readlink -f "$HUGELD_LDSO")
  for i in $(seq 200); do
    grep -qF "$hl" /proc/$pp/maps 2> /dev/null && grep -q "python$PYV" /proc/$pp/maps && break
    sleep 0.05
  done
  sleep 0.2
  out=$($H status $pp)
  if echo "$out" | grep -q "^process $pp (python$PYV via ld.so): 0 huge pages (0 MiB) in 0 objects$" \
     && echo "$out" | grep -q "^  note: $PYBIN is selected by \"python3\\*\" (file name) but has no huge pages:\$" \
     && echo "$out" | grep -q 'none of its parts fills a whole 2 MiB page'; then
    pass "status of python$PYV with python3*: 0 pages, selected, none of its parts fills a 2 MiB page (as planned)"
  else
    fail "status of python$PYV with python3*" "$(echo "$out" | tr '\n' '|')"
  fi
  kill $pp 2> /dev/null
fi

# The debugger and perf parts are in t-tool-debug.sh.
if [ -n "${gp:-}" ] && kill -0 $gp 2> /dev/null; then kill $gp; fi
kill $bench 2> /dev/null; wait $bench 2> /dev/null

ensure_pool
# --- plan --apply -----------------------------------------------------------

P=/proc/sys/vm/nr_hugepages
at_exit "echo $(cat $P) > $P"
pool_state () { cat $P; cat /sys/devices/system/node/node*/hugepages/hugepages-2048kB/nr_hugepages; }
avail=$(( $(meminfo HugePages_Free) - $(meminfo HugePages_Rsvd) ))
old=$(cat $P)
copies=$(( avail / 16 + 2 ))          # more than is available now
out=$($H plan "$F/bigcheck-shared" --libs libbig.so --copies $copies --apply 2>&1); rc=$?
new=$(cat $P)
avail_after=$(( $(meminfo HugePages_Free) - $(meminfo HugePages_Rsvd) ))
if [ $rc = 0 ] && [ "$new" -gt "$old" ] && [ "$avail_after" -ge $((copies * 16)) ] \
   && echo "$out" | grep -q "^applied: pool nr_hugepages [0-9]* -> $new$"; then
  pass "plan --apply --copies $copies: nr_hugepages $old -> $new, $avail_after available (needed $((copies * 16)), $avail were)"
else
  fail "plan --apply" "exit $rc, nr_hugepages $old -> $new, $avail_after available: $(echo "$out" | tail -2 | tr '\n' ' ')"
fi
out=$($H plan "$F/bigcheck-shared" --libs libbig.so --copies 1 --apply 2>&1)
echo "$out" | grep -q '^applied: pool already has [0-9]* available huge pages .*nothing to do$' && [ "$(cat $P)" = "$new" ] \
  && pass "plan --apply when enough is available: nothing to do" \
  || fail "plan --apply, enough available" "$(echo "$out" | tail -1)"
node0=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
if [ -f $node0 ]; then
  n0=$(cat $node0)
  nfree=$(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages)
  c=$(( nfree / 16 + 1 ))
  out=$($H plan "$F/bigcheck-shared" --libs libbig.so --copies $c --apply --node 0 2>&1); rc=$?
  [ $rc = 0 ] && [ "$(cat $node0)" -gt "$n0" ] && echo "$out" | grep -q '^applied: node 0 nr_hugepages' \
    && pass "plan --apply --node 0: node 0's pool $n0 -> $(cat $node0)" \
    || fail "plan --apply --node 0" "exit $rc, $n0 -> $(cat $node0): $(echo "$out" | tail -1)"
fi
before=$(pool_state)
one_line_error "plan --apply --node 99: no such node" 1 $H plan "$F/bigcheck-shared" --libs libbig.so --apply --node 99
[ "$(pool_state)" = "$before" ] && pass "plan --apply --node 99: pool unchanged" || fail "plan --node 99: pool changed" ""
chmod 755 "$TEST_TMP"
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
  one_line_error "plan --apply as an ordinary user: refused" 1 \
    setpriv --reuid=65534 --regid=65534 --clear-groups $H plan "$F/bigcheck-shared" --libs libbig.so --copies 1000 --apply
  [ "$(pool_state)" = "$before" ] && pass "plan --apply as an ordinary user: pool unchanged" \
    || fail "plan --apply as an ordinary user: pool changed" ""
else
  skip "plan --apply as an ordinary user" "no setpriv"
fi

# --- Errors: one line, non-zero, nothing changed -----------------------------

one_line_error "bad pattern (unclosed [)" 1 $H plan "$F/bigcheck-shared" --libs 'lib[big.so'
one_line_error "bad pattern list (empty pattern)" 1 $H run --libs 'libbig.so::x' -- /bin/true
one_line_error "bad pattern (trailing backslash)" 1 $H plan "$F/bigcheck-shared" --libs 'libbig\'
one_line_error "bad segment list" 1 $H plan "$F/bigcheck-shared" --libs libbig.so --segments text,code
one_line_error "nothing selected" 1 $H run -- /bin/true
printf '#!/bin/sh\ntouch "%s/script-ran"\n' "$TEST_TMP" > "$TEST_TMP/script.sh"
chmod +x "$TEST_TMP/script.sh"
one_line_error "run: a script, not ELF" 1 $H run --libs x -- "$TEST_TMP/script.sh"
[ ! -e "$TEST_TMP/script-ran" ] && pass "run: the script was not run" || fail "run: the script was run" ""
one_line_error "plan: not an ELF file" 1 $H plan /etc/passwd --libs x
one_line_error "run: no such program" 1 $H run --libs x -- no-such-program-here
if echo 'int main (void) { return 0; }' | cc -static -x c - -o "$TEST_TMP/static" 2> /dev/null; then
  one_line_error "plan: a statically linked program" 1 $H plan "$TEST_TMP/static" --libs x
fi
sleep 0.01 & gone=$!; wait $gone
one_line_error "status: a PID that vanished" 1 $H status $gone
one_line_error "perf-map: a PID that vanished" 1 $H perf-map $gone
one_line_error "gdb: a PID that vanished" 1 $H gdb $gone
one_line_error "gdb --core: not a core file" 1 $H gdb --core "$F/libbig.so"
one_line_error "usage: unknown command" 2 $H frobnicate
one_line_error "usage: status with a bad PID" 2 $H status 12x
one_line_error "usage: --copies 0" 2 $H plan "$F/bigcheck-shared" --libs libbig.so --copies 0
# No pool: run refuses (the loader would silently use ordinary pages).
# Other tests running at the same time may resize the pool meanwhile:
# then try again, up to 3 times.
before=$(cat $P)
for i in 1 2 3; do
  echo 0 > $P
  rm -f "$TEST_TMP/ran"
  $H run --libs x -- touch "$TEST_TMP/ran" > "$TEST_TMP/e.out" 2> "$TEST_TMP/e.err"
  rc=$?
  [ "$(cat $P)" = 0 ] && break
  echo "note: the pool was resized by someone else; again" >&2
done
# (The pages other processes use stay, as surplus pages: HugePages_Total
# counts them, and none is free.  --libs x selects nothing, so no cache
# entry, of whatever file, lets run go on.)
if [ $rc = 1 ] && [ "$(wc -l < "$TEST_TMP/e.err")" = 1 ] \
   && grep -q "^hugeld: no free huge pages (HugePages_Total $(meminfo HugePages_Total)," "$TEST_TMP/e.err"; then
  pass "run with no free huge page: refused (exit 1: $(cat "$TEST_TMP/e.err"))"
else
  fail "run with no free huge page: refused" "exit $rc: $(head -2 "$TEST_TMP/e.err" | tr '\n' '|')"
fi
if [ ! -e "$TEST_TMP/ran" ]; then pass "run with no pool: the program was not run"
else fail "run with no pool: the program was run" ""
fi
echo "$before" > $P
# The shared cache holds an entry, but of none of the objects this
# program selects: run refuses still (the cache gives this program
# nothing; before, any entry at all let it go on).
if reserve_hugepages 20 && $H cache add "$F/libbig.so" > "$TEST_TMP/add.out" 2>&1; then
  at_exit "'$H' cache remove '$F/libbig.so' > /dev/null 2>&1"
  echo 0 > $P
  rm -f "$TEST_TMP/ran2"
  $H run --libs x -- touch "$TEST_TMP/ran2" > /dev/null 2> "$TEST_TMP/e2.err"; rc=$?
  if [ $rc = 1 ] && grep -q "^hugeld: no free huge pages" "$TEST_TMP/e2.err" && [ ! -e "$TEST_TMP/ran2" ]; then
    pass "run with no free page, the cache holding another object's entry: refused, the program not run"
  else
    fail "run with no free page and another object's cache entry: refused" "exit $rc: $(head -2 "$TEST_TMP/e2.err" | tr '\n' '|')"
  fi
  # The same program selecting the cached library goes on, and says so.
  $H run --libs libbig.so -- "$F/bigcheck-shared" --expect text,rodata > "$TEST_TMP/r3.out" 2> "$TEST_TMP/e3.err"; rc=$?
  if [ $rc = 0 ] && grep -q "only objects in the shared cache .* and thp get huge pages" "$TEST_TMP/e3.err"; then
    pass "run with no free page, the program's library cached: goes on, says only cached objects get huge pages"
  else
    fail "run with no free page, the program's library cached" "exit $rc: $(head -3 "$TEST_TMP/e3.err" | tr '\n' '|') $(tail -2 "$TEST_TMP/r3.out" | tr '\n' '|')"
  fi
  $H cache remove "$F/libbig.so" > /dev/null 2>&1
else
  fail "cache add libbig.so (20 pages reserved)" "$(tail -2 "$TEST_TMP/add.out" | tr '\n' '|')"
fi

finish
