#!/bin/bash
# Files shorter than their program headers say (damaged, or cut while
# being written): a library cut in its last PT_LOAD (its text, 10% in:
# the stock loader loads it; its RW segment: the stock loader dies of
# SIGBUS zeroing the bss's first page), cut in a middle one (its text),
# and one cut while another process maps it whole.  Loaded
# through hugeld with every object selected, with each backing, the
# pool empty and not, the page cache cold and warm, as root and as an
# unprivileged user: the same output and exit status as the stock
# loader (which loads a library cut after the code it runs, and dies
# of SIGBUS where code in the cut part runs), never a crash in ld.so.
# Then one cut in place and grown back, again and again, while it is
# loaded with each backing: never a SIGBUS in ld.so.  One control shows
# the thp backing took the intact copy's text.
. "$(dirname "$0")/lib.sh"

need_root "(empties and fills the huge page pool, drops page caches)"
need_fixtures libbig-2m.so
B=$TEST_TMP/short
mkdir -p "$B"
chmod 755 "$TEST_TMP" "$B"
gcc -O2 -Wall -o "$B/load" "$HUGELD_TOP/tests/badelf/load.c" \
  && gcc -shared -fPIC -nostartfiles -Wl,-z,max-page-size=0x200000 -Wl,-T,"$HUGELD_TOP/tests/shortfile/last-text.lds" \
       -o "$B/lastx.so" "$FIXTURES/big-pic.o" "$HUGELD_TOP/tests/cache/valuelib.c" \
  || { fail build "load, lastx.so"; finish; }

# cut NAME WHICH FRACTION [FROM]: a copy of FROM (libbig-2m.so) cut
# FRACTION (percent) into its PT_LOAD number WHICH (last: the last one).
cut_copy () {
  python3 - "${4:-$FIXTURES/libbig-2m.so}" "$B/$1.so" "$2" "$3" <<'PY'
import struct, sys
src, dst, which, pct = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(src, "rb").read()
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
loads = []
for i in range(phnum):
    t, f, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
    if t == 1 and fsz > 0:
        loads.append((off, fsz))
off, fsz = loads[-1] if which == "last" else loads[int(which)]
size = off + fsz * pct // 100
open(dst, "wb").write(data[:size])
print(size)
PY
}
cut_copy cut-lastx last 10 "$B/lastx.so" > /dev/null \
  && cut_copy cut-last last 50 > /dev/null \
  && cut_copy cut-text 1 60 > /dev/null \
  && cp "$FIXTURES/libbig-2m.so" "$B/whole.so" \
  && cp "$B/lastx.so" "$B/held.so" \
  || { fail build "cut copies"; finish; }
chmod 644 "$B"/*.so

as_user () {
  if [ "$1" = nobody ]; then shift; setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  else shift; "$@"; fi
}

# compare WHAT FILE STATE: stock and hugeld on FILE, in each setting.
ok=0 bad=0
compare () {
  local what=$1 f=$2 state=$3 who backing pool stock huge
  local -a envs
  for who in root nobody; do
    [ "$state" = cold ] && drop_page_cache "$f"
    [ "$state" = warm ] && cat "$f" > /dev/null
    stock=$(as_user $who timeout 60 "$SYSTEM_LDSO" "$B/load" "$f" 2>&1; echo "exit $?")
    for pool in 0 8; do
      pool_set $pool
      for backing in default thp private; do
	[ "$state" = cold ] && drop_page_cache "$f"
	envs=(LD_HUGEPAGE_LIBS='*')
	[ $backing = default ] || envs+=(LD_HUGEPAGE_BACKING=$backing)
	huge=$(as_user $who env "${envs[@]}" timeout 60 "$HUGELD_LDSO" "$B/load" "$f" 2>&1; echo "exit $?")
	if [ "$stock" = "$huge" ]; then ok=$((ok + 1))
	else
	  bad=$((bad + 1))
	  fail "$what, $state, as $who, backing $backing, pool $pool" "stock: $(echo "$stock" | tr '\n' ' ') hugeld: $(echo "$huge" | tr '\n' ' ')"
	fi
      done
    done
  done
  [ $bad = 0 ] && pass "$what, $state: as the stock loader for root and nobody, each backing, pool 0 and 8 ($(echo "$stock" | tr '\n' ' '))"
  bad=0
}
reserve_hugepages 0
for state in cold warm; do
  compare "cut in its last PT_LOAD, its text" "$B/cut-lastx.so" $state
  compare "cut in its last PT_LOAD, RW" "$B/cut-last.so" $state
  compare "cut in its text (a middle PT_LOAD)" "$B/cut-text.so" $state
done

# Cut while another process maps it whole (and has read all of it).
python3 -c 'import mmap, sys, time
f = open(sys.argv[1], "rb"); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
sum(m[i] for i in range(0, len(m), 4096)); print("ready", flush=True); time.sleep(120)' "$B/held.so" > "$B/holder.out" &
holder=$!
at_exit "kill $holder 2> /dev/null"
for _ in $(seq 100); do grep -q ready "$B/holder.out" && break; sleep 0.1; done
size=$(cut_copy cut-tmp last 10 "$B/lastx.so")
truncate -s "$size" "$B/held.so"
compare "cut while another process maps it" "$B/held.so" warm
kill $holder 2> /dev/null

# Cut and grown back while it is being loaded (issue 43): a writer
# cuts a copy of lastx.so in place 60% into its text (its last PT_LOAD),
# writes the rest back and leaves it whole for 3 ms, again and again,
# while it is loaded REGROW_LOADS times (100; REGROW_LOADS=1000 gives
# the issue's figure) with each backing, as root and as nobody: shared
# (its cache entry, made before the writer starts, is stale from the
# first cut on; the file is compared by pread), private (a pool of 32;
# filled by pread), thp (issue 44: the zones are only marked
# MADV_HUGEPAGE and nothing of them is read at load; the one page
# ld.so reads before mapping, the last page of a segment's file
# contents, is read by pread, which past the end of a cut file reads
# nothing).  ld.so never dies of SIGBUS (exit 135), and every load has
# the stock loader's output and exit status, as the stock loader's own
# loads under the same writer do.  (With issue 43's thp fill, which
# touched each 2 MiB of a zone with a load, 25 of 200 thp loads as
# nobody died of SIGBUS here; the test stands against any read of the
# mapping at load coming back.)  The thp loads write LD_DEBUG reports:
# at least one load as each user must have had its text taken by the
# thp backing, or the thp cases tested nothing.
N=${REGROW_LOADS:-100}
gcc -O2 -Wall -o "$B/regrow" "$HUGELD_TOP/tests/shortfile/regrow.c" \
  && cp "$B/lastx.so" "$B/regrow.so" && chmod 644 "$B/regrow.so" \
  || { fail build "regrow"; finish; }
cut=$(cut_copy cut-tmp2 last 60 "$B/lastx.so")
H=${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}
pool_set 32
cached=no
timeout -k 5 60 "$H" cache add "$B/regrow.so" > "$TEST_TMP/regrow-cache.out" 2>&1 && cached=yes
at_exit 'timeout -k 5 60 "$H" cache remove "$B/regrow.so" > /dev/null 2>&1'
expect=$("$SYSTEM_LDSO" "$B/load" "$B/regrow.so" 2>&1; echo "exit $?")
"$B/regrow" "$B/regrow.so" "$cut" 3000 > "$TEST_TMP/regrow.out" 2>&1 &
writer=$!
at_exit "kill $writer 2> /dev/null"
for _ in $(seq 100); do grep -q ready "$TEST_TMP/regrow.out" && break; sleep 0.1; done
# loads WHO LDSO ENV...: N loads of the file as WHO under the writer;
# prints "SIGBUS OTHER": how many died of SIGBUS, how many else
# differed from EXPECT.
loads () {
  local who=$1 ldso=$2 bus=0 other=0 i out; shift 2
  for i in $(seq "$N"); do
    out=$(as_user $who timeout 60 env "$@" "$ldso" "$B/load" "$B/regrow.so" 2>&1; echo "exit $?")
    case $out in
      *"exit 135") bus=$((bus + 1)) ;;
      "$expect") ;;
      *) other=$((other + 1)); echo "$out" > "$TEST_TMP/regrow-other.out" ;;
    esac
  done
  echo "$bus $other"
}
stock_all=
for who in root nobody; do
  read -r bus other <<< "$(loads $who "$SYSTEM_LDSO")"
  stock="$bus SIGBUS, $other other"
  stock_all+="$who: $stock; "
  for backing in shared private thp; do
    dbg=()
    if [ $backing = thp ]; then
      mkdir -p "$TEST_TMP/regrow-dbg-$who" && chmod 777 "$TEST_TMP/regrow-dbg-$who"
      dbg=(LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/regrow-dbg-$who/dbg")
    fi
    read -r bus other <<< "$(loads $who "$HUGELD_LDSO" LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_BACKING=$backing "${dbg[@]}")"
    what="cut and grown back while loaded $N times as $who, backing $backing$([ $backing = shared ] && echo " (entry made: $cached)")"
    if [ "$bus" = 0 ] && [ "$other" = 0 ]; then
      pass "$what: no SIGBUS, every load as the stock loader's (${expect//$'\n'/ }; stock: $stock)"
    else
      fail "$what" "$bus SIGBUS, $other other (stock: $stock): $(head -c 200 "$TEST_TMP/regrow-other.out" 2>/dev/null | tr '\n' ' ')"
    fi
  done
done
kill $writer 2> /dev/null
wait $writer 2> /dev/null
for who in root nobody; do
  took=$(grep -l 'regrow.so: text .*thp: page-cache huge pages asked for (MADV_HUGEPAGE)' "$TEST_TMP/regrow-dbg-$who"/dbg.* 2>/dev/null | wc -l)
  [ "$took" -gt 0 ] \
    && pass "control: the thp backing took the text in $took of the $N loads as $who under the writer" \
    || fail "control: the thp backing took the text in none of the $N loads as $who under the writer" "$(cat "$TEST_TMP/regrow-dbg-$who"/dbg.* 2>/dev/null | grep regrow.so | tail -3 | tr '\n' ' ')"
done
[ "$stock_all" = "root: 0 SIGBUS, 0 other; nobody: 0 SIGBUS, 0 other; " ] \
  && pass "control: the stock loader's $N loads under the writer, as root and nobody: 0 SIGBUS, the same output ($(tail -1 "$TEST_TMP/regrow.out"))" \
  || fail "control: the stock loader's loads under the writer" "$stock_all"

# Control: the thp backing took the intact copy's text (so the cases
# above went through it).
pool_set 0
drop_page_cache "$B/whole.so"
rm -f "$TEST_TMP"/dbg.*
LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_BACKING=thp LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/dbg" \
  "$HUGELD_LDSO" "$B/load" "$B/whole.so" > /dev/null 2>&1
grep -q 'whole.so: text .*thp: page-cache huge pages asked for (MADV_HUGEPAGE) for [1-9][0-9]* 2 MiB ranges' "$TEST_TMP"/dbg.* \
  && pass "control: the thp backing took the intact copy's text ($(grep -h -m1 'whole.so: text' "$TEST_TMP"/dbg.* | sed 's/.*thp: //' | cut -c1-120))" \
  || fail "control: the thp backing took the intact copy's text" "$(grep -h whole.so "$TEST_TMP"/dbg.* | tail -3 | tr '\n' ' ')"
finish
