#!/bin/bash
# Real programs with every object on huge pages (LD_HUGEPAGE_LIBS='*'
# LD_HUGEPAGE_SEGMENTS=all) give the stock loader's results, and each
# got huge pages (an empty pool must fail, not pass):
# - Python's own regression tests (a subset of `python3 -m test`, from
#   Debian's libpython3.X-testsuite of the release's python3, run in-process),
# - a set of perl programs (shasum, json_pp, prove over Test::More tests),
# - a real C project compiled with gcc whose cc1, as and ld run through
#   hugeld (zlib from Debian's source package): the objects must be
#   byte-identical to a stock build, and zlib's own tests must pass.
# Each runs as root, then as nobody (a service's own user) against the
# stock loader run as nobody: python's with 12 of the 31 test files.
. "$(dirname "$0")/lib.sh"

need_root "(pool, packages)"
# Copies for fork + copy-on-write of data/bss need spare pages.
reserve_hugepages 256 || { fail reserve "cannot reserve 256 huge pages"; finish; }
HUGE=(env LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all)
export DEBIAN_FRONTEND=noninteractive

# pages FILE: huge pages the LD_DEBUG report FILE says were used.
pages () { sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p' "$1" 2>/dev/null | awk '{s += $1} END {print s+0}'; }
# as_user_argv: as_user, and A, the words that run a command as that
# user (none for root).
as_user_argv () { as_user "$1"; run_as_argv || finish; A=(${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"}); }
USERS=("" nobody)

# --- Python's regression tests --------------------------------------------
# The release's python3 (3.11 in Debian 12, 3.13 in Debian 13).
PYV=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PY=/usr/bin/python$PYV
# (libregrtest, python -m test's runner, comes with the standard
# library; the tests it runs do not.)
testsuite () { dpkg-query -W -f='${Status}' "libpython$PYV-testsuite" 2> /dev/null | grep -q ' installed$'; }
if ! testsuite; then
  apt-get install -y -qq libpython$PYV-testsuite > "$TEST_TMP/apt.log" 2>&1 \
    || { apt-get update -qq > /dev/null 2>&1; apt-get install -y -qq libpython$PYV-testsuite >> "$TEST_TMP/apt.log" 2>&1; }
fi
PYTESTS="test_json test_re test_struct test_math test_unicode test_collections
  test_itertools test_functools test_datetime test_hashlib test_zlib test_bz2
  test_lzma test_fractions test_heapq test_bisect test_string test_textwrap
  test_csv test_dict test_list test_set test_tuple test_float test_long
  test_int test_ctypes test_ast test_codecs test_base64 test_binascii"
# As nobody, the quicker part.
PYTESTS_NOBODY="test_json test_re test_struct test_math test_unicode
  test_collections test_hashlib test_zlib test_float test_long
  test_ctypes test_codecs"
if testsuite; then
  summary () { grep -E '^(All )?[0-9]+ tests? (OK|failed|skipped)|^Tests result:' "$1"; }
  for who in "${USERS[@]}"; do
    as_user_argv "$who"
    tests=$PYTESTS
    [ -z "$who" ] || tests=$PYTESTS_NOBODY
    D=$TEST_TMP/py${who:+-$who}
    mkdir -p "$D"
    [ -z "$who" ] || chown "$who" "$D"
    (cd "$D" && "${A[@]}" "$SYSTEM_LDSO" "$PY" -m test -q $tests > stock.log 2>&1)
    rc1=$?
    # (No LD_DEBUG here: children run by the stock loader would print a
    # warning about the unknown category, which some tests check for.)
    (cd "$D" && "${HUGE[@]}" "${A[@]}" "$HUGELD_LDSO" "$PY" -m test -q $tests > huge.log 2>&1)
    rc2=$?
    "${HUGE[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$(report_out "$D/pydbg")" "${A[@]}" "$HUGELD_LDSO" "$PY" \
      -c 'import json, decimal, sqlite3, hashlib, ctypes' > /dev/null 2>&1
    report_collect "$D/pydbg"
    s1=$(summary "$D/stock.log"); s2=$(summary "$D/huge.log")
    pypages=$(pages "$D/pydbg.dbg")
    # The tests were there to run (python -m test counts a test it cannot
    # import as failed, under both loaders alike: no comparison).
    if [ $rc1 = $rc2 ] && [ -n "$s1" ] && [ "$s1" = "$s2" ] && [ "$pypages" -gt 0 ] \
       && ! grep -q "No module named 'test\." "$D/stock.log"; then
      pass "${AS}python3 -m test ($(echo $tests | wc -w) files): same results ($(echo "$s2" | tr '\n' ' ')), $pypages huge pages"
    else
      fail "${AS}python3 -m test: same results, on huge pages" "huge pages=$pypages stock rc=$rc1 [$(echo "$s1" | tr '\n' ' ')] hugeld rc=$rc2 [$(echo "$s2" | tr '\n' ' ')]"
    fi
  done
  as_user_argv ""
else
  fail "python3 -m test" "libpython$PYV-testsuite could not be installed"
fi

# --- perl programs ---------------------------------------------------------
P=$TEST_TMP/perl
mkdir -p "$P/t"
for i in 1 2 3 4 5 6; do
  cat > "$P/t/$i.t" <<EOF
use strict; use warnings;
use Test::More;
use List::Util qw(sum max shuffle);
use Data::Dumper; use Storable qw(dclone); use POSIX qw(floor);
my @a = map { (\$_ * 7919) % 1000 } 1 .. 20000 * $i;
is(sum(@a), sum(sort { \$a <=> \$b } @a), "sum stable");
is(max(@a), 999, "max");
my %h = map { \$_ => \$_ ** 2 } 1 .. 1000;
is_deeply(dclone(\\%h), \\%h, "dclone");
like(Dumper([1, {a => 2}]), qr/'a' => 2/, "Dumper");
is(floor(-1.5), -2, "floor");
my \$s = join ",", map { sprintf "%05.1f", \$_ / 3 } 1 .. 5000;
is(length \$s, 32000, "sprintf");
ok(("x" x 1000) =~ /^(x{10})+\$/, "regex");
done_testing();
EOF
done
printf 'the quick brown fox\n%.0s' $(seq 2000) > "$P/data.txt"
echo '{"b":[1,2,{"c":null}],"a":"x","n":1.5e3}' > "$P/data.json"
# perl_run LDSO: the programs' output, run as A's user; fails if any
# of them does (runs in the subshell of a command substitution, so
# pipefail stays there).
perl_run () {
  local ldso=$1 rc=0
  set -o pipefail
  "${A[@]}" "$ldso" /usr/bin/perl /usr/bin/shasum -a 256 "$P/data.txt" | cut -d' ' -f1 || rc=1
  "${A[@]}" "$ldso" /usr/bin/perl /usr/bin/json_pp -json_opt canonical,pretty < "$P/data.json" || rc=1
  # prove runs each test with $^X, which is the loader here: name perl.
  (cd "$P" && "${A[@]}" "$ldso" /usr/bin/perl /usr/bin/prove -Q --exec "$ldso /usr/bin/perl" t 2>&1 | sed 's/ *[0-9]* wallclock.*//') || rc=1
  return $rc
}
for who in "${USERS[@]}"; do
  as_user_argv "$who"
  o1=$(perl_run "$SYSTEM_LDSO"); rc1=$?
  o2=$(export LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all; perl_run "$HUGELD_LDSO"); rc2=$?
  R=$TEST_TMP/pl${who:+-$who}
  "${HUGE[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$(report_out "$R")" "${A[@]}" "$HUGELD_LDSO" /usr/bin/perl \
    -MPOSIX -MStorable -MData::Dumper -e 1 > /dev/null 2>&1
  report_collect "$R"
  # Debian's perl has libperl linked in, 1.6 MiB of text: no part of it
  # or of its XS modules fills a whole 2 MiB page, so the check is that
  # hugeld planned it (selected, and said so), not a page count.
  plpages=$(pages "$R.dbg")
  if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$o1" = "$o2" ] && grep -q 'Result: PASS' <<< "$o2" \
     && grep -q '/usr/bin/perl: selected by pattern' "$R.dbg" \
     && { [ "$plpages" -gt 0 ] || grep -q '/usr/bin/perl: nothing fills a whole huge page' "$R.dbg"; }; then
    pass "${AS}perl: shasum, json_pp and prove (6 test files): same output, selected, $plpages huge pages (no part of Debian's perl fills 2 MiB)"
  else
    fail "${AS}perl programs: same output, selected" "rc=$rc1/$rc2 huge pages=$plpages $(grep -m1 '/usr/bin/perl' "$R.dbg") $(diff <(echo "$o1") <(echo "$o2") | head -5 | tr '\n' ' ')"
  fi
done
as_user_argv ""

# --- a real C project compiled with gcc through hugeld --------------------
Z=$TEST_TMP/zlib
mkdir -p "$Z/lists/partial" "$Z/get"
# The release's source archives: main, updates, security (the host's).
read -r zm zs <<< "$(debian_mirrors) "
zm=${HUGELD_DEBIAN_MIRROR:-${zm:-http://deb.debian.org/debian}}
zs=${HUGELD_DEBIAN_SECURITY:-${zs:-${zm%/debian*}/debian-security}}
dist=$(os_codename)
printf 'deb-src %s %s main\ndeb-src %s %s-updates main\ndeb-src %s %s-security main\n' \
  "$zm" "$dist" "$zm" "$dist" "$zs" "$dist" > "$Z/sources.list"
APTOPT=(-o Dir::Etc::SourceList="$Z/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$Z/lists")
APT=(apt-get -qq "${APTOPT[@]}")
# Any version of zlib's source will do (an index may name one that a
# mirror does not have yet): the newest that downloads.
zlib_source () {
  local v
  for v in $(apt-cache "${APTOPT[@]}" showsrc zlib 2> /dev/null | awk '$1 == "Version:" { print $2 }' | sort -r -V -u); do
    (cd "$Z/get" && "${APT[@]}" source --download-only "zlib=$v" >> "$Z/apt.log" 2>&1) && return 0
  done
  return 1
}
if "${APT[@]}" update > "$Z/apt.log" 2>&1 && zlib_source \
   && tarball=$(ls "$Z"/get/zlib_*.orig.tar.* 2>/dev/null | head -1) && [ -n "$tarball" ]; then
  # build_zlib DIR CC: zlib built with CC and tested in DIR, as A's user.
  build_zlib () {
    mkdir -p "$1" && { [ -z "$AS_USER" ] || chown "$AS_USER" "$1"; } \
      && (cd "$1" && CC="$2" CFLAGS="-O2 -g0" "${A[@]}" sh -c 'tar --strip-components=1 -xf "$0" \
            && ./configure --static > configure.log 2>&1 \
            && make -j2 libz.a example minigzip > make.log 2>&1 && make test > test.log 2>&1' "$tarball")
  }
  # gcc runs cc1 by path but as and ld by name: the wrapper finds them
  # on PATH and runs them through hugeld.
  printf '#!/bin/sh\np=$1; shift\ncase $p in */*) ;; *) p=$(command -v "$p") ;; esac\nexec %s "$p" "$@"\n' \
    "$HUGELD_LDSO" > "$Z/wrap"
  chmod +x "$Z/wrap"
  for who in "${USERS[@]}"; do
    as_user_argv "$who"
    ZS=$Z/stock${who:+-$who} ZH=$Z/huge${who:+-$who}
    build_zlib "$ZS" gcc; rc1=$?
    (export LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all
     build_zlib "$ZH" "$HUGELD_LDSO /usr/bin/gcc -wrapper $Z/wrap"); rc2=$?
    "${HUGE[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$(report_out "$ZH/cc")" "${A[@]}" "$HUGELD_LDSO" /usr/bin/gcc \
      -wrapper "$Z/wrap" -c -o "$ZH/x.o" "$ZH/adler32.c" > /dev/null 2>&1
    report_collect "$ZH/cc"
    n=$(ls "$ZS"/*.o 2>/dev/null | wc -l)
    same=1
    for o in "$ZS"/*.o; do cmp -s "$o" "$ZH/$(basename "$o")" || same=0; done
    cc1pages=$(grep -h 'cc1: .* huge pages used' "$ZH/cc.dbg" | head -1 | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p')
    if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$n" -gt 10 ] && [ $same = 1 ] \
       && grep -q '\*\*\* zlib test OK \*\*\*' "$ZH/test.log" && [ "${cc1pages:-0}" -gt 0 ]; then
      pass "${AS}zlib built with gcc/cc1/as/ld through hugeld: $n objects byte-identical, make test OK, cc1 on ${cc1pages} huge pages"
    else
      fail "${AS}zlib through hugeld" "rc=$rc1/$rc2 objects=$n identical=$same cc1pages=$cc1pages $(tail -3 "$ZH/make.log" 2>/dev/null | tr '\n' ' ')"
    fi
  done
  as_user_argv ""
else
  fail "zlib source" "apt-get source failed: $(tail -3 "$Z/apt.log" | tr '\n' ' ')"
fi
finish
