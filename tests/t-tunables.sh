#!/bin/bash
# hugeld's settings as tunables: glibc.elf.hugepage.libs, .segments and
# .backing in GLIBC_TUNABLES select as LD_HUGEPAGE_LIBS, _SEGMENTS and
# _BACKING do; a variable that is set wins over its tunable, and a
# tunable over the policy file; the libs tunable separates its patterns
# with commas (GLIBC_TUNABLES's entries are separated by colons).  The
# drop-in keeps glibc's tunable list as built, so libc.so.6's own
# tunables act under hugeld's loader as under the stock one.  (AT_SECURE
# programs: t-settings.)  As root and as nobody.
. "$(dirname "$0")/lib.sh"
as_users

F=$FIXTURES
need_root "to reserve huge pages and write /etc/hugeld.conf"
need_fixtures
reserve_hugepages 48 || { fail reserve "cannot reserve 48 huge pages"; finish; }
take_policy_file
TUN=glibc.elf.hugepage

# probe NAME EXPECT ENV...: bigcheck-shared (libbig.so) under hugeld with
# ENV, checking with bigcheck's --expect EXPECT that exactly those kinds
# are on 2 MiB pages; PASS/FAIL line WHAT is the caller's.
probe () {
  local n=$1 expect=$2; shift 2
  run_report "$T/$n" "$@" -- "$HUGELD_LDSO" "$F/bigcheck-shared" --expect "$expect"
}
ok () {  # ok NAME WHAT: NAME ran as the stock loader runs it.
  if [ "$(cat "$T/$1.rc")" = 0 ] && cmp -s "$T/$1.out" "$T/stock.out"; then
    pass "$AS$2"
  else
    fail "$AS$2" "exit $(cat "$T/$1.rc"): $(grep -v '^ok:' "$T/$1.err" | head -3 | tr '\n' ' ')"
  fi
}
# The report's selection and count lines (what was selected, by which
# pattern, how many huge pages): the same for a tunable and a variable.
picked () { grep -o 'selected by pattern.*\|not selected\|[0-9]* huge pages used.*' "$T/$1.dbg"; }

for who in "${AS_USERS[@]}"; do
  as_user "$who"
  T=$TEST_TMP/run${who:+-$who}; mkdir -p "$T"; chmod 755 "$T"
  rm -f "$CONF"
  run_report "$T/stock" -- "$SYSTEM_LDSO" "$F/bigcheck-shared" --expect none
  [ "$(cat "$T/stock.rc")" = 0 ] || { fail "${AS}stock loader" "$(head -3 "$T/stock.err")"; continue; }

  # The tunable alone selects exactly as the variable.
  probe var text,rodata,relro LD_HUGEPAGE_LIBS=libbig.so
  probe tun text,rodata,relro GLIBC_TUNABLES=$TUN.libs=libbig.so
  ok var "LD_HUGEPAGE_LIBS=libbig.so: text, rodata, relro on 2 MiB pages"
  ok tun "$TUN.libs=libbig.so, no LD_ variable: text, rodata, relro on 2 MiB pages"
  if [ -n "$(picked var)" ] && [ "$(picked var)" = "$(picked tun)" ]; then
    pass "${AS}the tunable selects exactly as the variable ($(picked tun | tr '\n' ';'))"
  else
    fail "${AS}the tunable selects exactly as the variable" "variable: $(picked var | tr '\n' ';') tunable: $(picked tun | tr '\n' ';')"
  fi
  grep -q "hugepages: $TUN.libs=libbig.so\$" "$T/tun.dbg" \
    && pass "${AS}LD_DEBUG=hugepages names the tunable" \
    || fail "${AS}LD_DEBUG=hugepages names the tunable" "$(grep -m3 'hugepages: [a-zL]' "$T/tun.dbg" | tr '\n' ';')"

  # All three, among glibc's own tunables; a comma list of patterns.
  probe all text,rodata,relro,data,bss \
    "GLIBC_TUNABLES=glibc.malloc.perturb=0:$TUN.libs=nothing.so,libbig.so:$TUN.segments=all:$TUN.backing=private"
  ok all "libs (two patterns, commas), segments and backing as tunables: every kind on 2 MiB pages"
  grep -q 'selected by pattern "libbig.so"' "$T/all.dbg" && grep -q "backing: private (GLIBC_TUNABLES)" "$T/all.dbg" \
    && pass "${AS}the second pattern selects; backing private from the tunable" \
    || fail "${AS}the second pattern selects; backing private from the tunable" "$(grep -m4 'selected\|backing:' "$T/all.dbg" | tr '\n' ';')"

  # A variable that is set wins over its tunable, even empty.
  probe varwins none LD_HUGEPAGE_LIBS=no-such.so GLIBC_TUNABLES=$TUN.libs=libbig.so
  ok varwins "LD_HUGEPAGE_LIBS=no-such.so wins over $TUN.libs=libbig.so: nothing on huge pages"
  probe empty none LD_HUGEPAGE_LIBS= GLIBC_TUNABLES=$TUN.libs=libbig.so
  ok empty "LD_HUGEPAGE_LIBS= (empty) turns hugeld off whatever the tunable says"
  probe segvar text LD_HUGEPAGE_SEGMENTS=text "GLIBC_TUNABLES=$TUN.libs=libbig.so:$TUN.segments=all"
  ok segvar "LD_HUGEPAGE_SEGMENTS=text wins over $TUN.segments=all: text only"
  probe tunempty none GLIBC_TUNABLES=$TUN.libs=
  ok tunempty "$TUN.libs= (empty) turns hugeld off, as LD_HUGEPAGE_LIBS="

  # A bad value: one clear line naming the tunable; the program runs.
  probe bad text,rodata,relro "GLIBC_TUNABLES=$TUN.libs=libbig.so:$TUN.segments=txt"
  ok bad "bad $TUN.segments: default segments, program runs"
  err=$(GLIBC_TUNABLES=$TUN.libs=nothing:$TUN.segments=txt run_as "$HUGELD_LDSO" /bin/echo hi 2>&1 >/dev/null)
  [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "$TUN.segments=txt ignored" \
    && pass "${AS}bad $TUN.segments: one clear line" \
    || fail "${AS}bad $TUN.segments: one clear line" "$(echo "$err" | tr '\n' ' ')"

  # A string glibc 2.41 and later ignore as a whole (a pattern list with
  # the variable's colons): hugeld takes none of its tunables from it.
  probe colons none "GLIBC_TUNABLES=$TUN.libs=libbig.so:libother.so"
  ok colons "$TUN.libs with colons (a malformed GLIBC_TUNABLES): ignored, nothing on huge pages"

  # The policy file comes after the tunables: its libs apply where no
  # tunable or variable gives libs; a tunable's segments win over its.
  printf 'libs libbig.so\nsegments all\n' > "$CONF"; chmod 644 "$CONF"
  probe file text,rodata,relro,data,bss
  ok file "control: the policy file alone selects every kind"
  probe tunfile text GLIBC_TUNABLES=$TUN.segments=text
  ok tunfile "$TUN.segments=text wins over the policy file's segments all"
  probe tunlibsfile none GLIBC_TUNABLES=$TUN.libs=no-such.so
  ok tunlibsfile "$TUN.libs=no-such.so wins over the policy file's libs"
  rm -f "$CONF"

  # libc.so.6's own tunables act the same under hugeld's loader: a
  # fresh malloc block is filled by glibc.malloc.perturb as under the
  # stock loader (and not without it: the check can fail).
  if [ -z "$who" ]; then
    cc -O1 -o "$TEST_TMP/perturb" "$HUGELD_TOP/tests/tunables/perturb.c" || fail "build perturb" ""
    chmod 755 "$TEST_TMP" "$TEST_TMP/perturb"
  fi
  for sel in "" "$TUN.libs=libc.so.6:"; do
    s=$(GLIBC_TUNABLES=glibc.malloc.perturb=85 run_as "$SYSTEM_LDSO" "$TEST_TMP/perturb")
    h=$(GLIBC_TUNABLES=${sel}glibc.malloc.perturb=85 run_as "$HUGELD_LDSO" "$TEST_TMP/perturb")
    n=$(run_as "$HUGELD_LDSO" "$TEST_TMP/perturb")
    if [ -n "$s" ] && [ "$s" = "$h" ] && [ "$s" != "$n" ] && [ "${s:0:2}" = aa ]; then
      pass "${AS}glibc.malloc.perturb=85${sel:+ with $sel}: malloc's bytes as under the stock loader (${s:0:8}…, without it ${n:0:8}…)"
    else
      fail "${AS}glibc.malloc.perturb=85${sel:+ with $sel}" "stock $s hugeld $h without $n"
    fi
  done
done
as_user ""

# glibc's tunable list is the one libc.so.6 was built with: the same
# names, in the same order, with the same ranges.
s=$("$SYSTEM_LDSO" --list-tunables 2>&1); h=$("$HUGELD_LDSO" --list-tunables 2>&1)
if [ -n "$s" ] && [ "$s" = "$h" ]; then
  pass "ld.so --list-tunables: the stock loader's list, unchanged ($(echo "$s" | wc -l) tunables)"
else
  fail "ld.so --list-tunables: the stock loader's list" "$(diff <(echo "$s") <(echo "$h") | head -5 | tr '\n' ' ')"
fi
finish
