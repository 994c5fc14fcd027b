#!/bin/bash
# hugeld's settings from glibc's system-wide tunables (glibc 2.44 and
# later: /etc/tunables.conf, compiled by ldconfig into /etc/ld.so.cache):
# a [proc:NAME] line selects libbig.so for the program it names (by
# name or by path) and not for another; an overridable line loses to
# GLIBC_TUNABLES and to LD_HUGEPAGE_LIBS, a nonoverridable (`-') line
# wins over both; a line wins over the policy file; a set-user-ID
# program takes only the lines marked for it (`*'); LD_DEBUG=hugepages
# says "(/etc/tunables.conf)"; `hugeld config check' shows the lines.
# The programs are started by the kernel with hugeld as PT_INTERP, as
# [proc:] filters name the program by /proc/self/exe.  The caches are
# made with `ldconfig -C' in the test's directory and bound over
# /etc/ld.so.cache in a private mount namespace for each run: the
# system's cache is never written.  As root and as nobody.  On a glibc
# whose ldconfig has no tunables file (-t), skipped.
. "$(dirname "$0")/lib.sh"
as_users

F=$FIXTURES
need_root "to bind a cache over /etc/ld.so.cache in a mount namespace"
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
if ! "$LDCONFIG" --help 2>&1 | grep -q 'TUNCONF'; then
  skip all "this glibc's ldconfig takes no tunables file (ldconfig -t TUNCONF, /etc/tunables.conf: glibc 2.44 and later)"
  finish
fi
need_fixtures libbig.so
command -v unshare > /dev/null || { fail unshare "no unshare (util-linux)"; finish; }
reserve_hugepages 48 || { fail reserve "cannot reserve 48 huge pages"; finish; }
take_policy_file
TUN=glibc.elf.hugepage

# The programs, in a directory every user can reach: bigcheck linked
# against libbig.so, hugeld its PT_INTERP; myprog, a copy named
# otherprog, a copy named myprog in another directory, a set-user-ID
# root copy (mysuid).
B=$(mktemp -d /var/tmp/hugeld-tunconf.XXXXXX)
at_exit "rm -rf $B"
chmod 755 "$B"; mkdir -m 755 "$B/lib" "$B/other"
cp "$F/libbig.so" "$B/lib/"
cc -I"$HUGELD_TOP/tests/fixtures" -O2 -pthread "$HUGELD_TOP/tests/fixtures/bigcheck.c" \
  -o "$B/myprog" -Wl,-z,relro -L"$B/lib" -lbig -Wl,-rpath,"$B/lib" \
  -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$TEST_TMP/cc.err" \
  || { fail "link myprog" "$(head -3 "$TEST_TMP/cc.err" | tr '\n' ' ')"; finish; }
cp "$B/myprog" "$B/otherprog"; cp "$B/myprog" "$B/other/myprog"
cp "$B/myprog" "$B/mysuid"; chmod 4755 "$B/mysuid"

# cache NAME: a cache made by ldconfig from $T/NAME.conf (stdin) into
# $T/NAME.cache; ldconfig's output in $T/NAME.ldconfig.
cache () {
  cat > "$T/$1.conf"
  "$LDCONFIG" -X -C "$T/$1.cache" -t "$T/$1.conf" > "$T/$1.ldconfig" 2>&1 \
    || fail "ldconfig -t $1.conf" "$(head -3 "$T/$1.ldconfig" | tr '\n' ' ')"
  chmod 644 "$T/$1.cache"
}
# probe NAME CACHE EXPECT PROG ENV...: PROG (a path, started by the
# kernel) with ENV and CACHE bound over /etc/ld.so.cache, checking with
# bigcheck's --expect EXPECT that exactly those kinds of libbig.so and
# the program are on 2 MiB pages (smaps: KernelPageSize 2048 kB).
probe () {
  local n=$1 c=$2 expect=$3 prog=$4; shift 4
  local RUN_PREFIX=(unshare -m sh -c 'mount --bind "$0" /etc/ld.so.cache && exec "$@"' "$T/$c.cache")
  run_report "$T/$n" "$@" -- "$prog" --expect "$expect"
}
ok () {  # ok NAME WHAT: NAME ran and its pages were as expected.
  if [ "$(cat "$T/$1.rc")" = 0 ]; then
    pass "$AS$2"
  else
    fail "$AS$2" "exit $(cat "$T/$1.rc"): $(grep -v '^ok:' "$T/$1.err" | head -3 | tr '\n' ' ')"
  fi
}
said () {  # said NAME PATTERN WHAT: the report of NAME has PATTERN.
  if grep -q -- "$2" "$T/$1.dbg"; then pass "$AS$3"
  else fail "$AS$3" "$(grep -m4 'hugepages: [a-zA-Z/]' "$T/$1.dbg" | tr '\n' ';')"
  fi
}

for who in "${AS_USERS[@]}"; do
  as_user "$who"
  T=$TEST_TMP/run${who:+-$who}; mkdir -p "$T"; chmod 755 "$T"
  rm -f "$CONF"

  # An overridable line for the program named myprog.
  cache name <<EOF
# hugeld's test
[proc:myprog]
$TUN.libs=libbig.so
EOF
  if [ -z "$who" ]; then
    grep -q "tunable $TUN.libs not recognized" "$T/name.ldconfig" \
      && pass "ldconfig keeps $TUN.libs (it warns that it does not know it)" \
      || fail "ldconfig keeps $TUN.libs" "$(head -3 "$T/name.ldconfig" | tr '\n' ' ')"
  fi
  probe name-my name text,rodata,relro "$B/myprog"
  ok name-my "[proc:myprog] $TUN.libs=libbig.so: myprog's libbig.so on 2 MiB pages"
  said name-my "hugepages: $TUN.libs=libbig.so (/etc/tunables.conf)\$" \
    "LD_DEBUG=hugepages: $TUN.libs=libbig.so (/etc/tunables.conf)"
  probe name-other name none "$B/otherprog"
  ok name-other "[proc:myprog]: otherprog (the same file, another name) gets nothing"
  probe name-dir name text,rodata,relro "$B/other/myprog"
  ok name-dir "[proc:myprog]: a myprog in another directory is selected too (the name)"
  probe name-env name none "$B/myprog" GLIBC_TUNABLES=$TUN.libs=no-such.so
  ok name-env "an overridable line loses to GLIBC_TUNABLES=$TUN.libs=no-such.so"
  probe name-var name none "$B/myprog" LD_HUGEPAGE_LIBS=no-such.so
  ok name-var "an overridable line loses to LD_HUGEPAGE_LIBS=no-such.so"
  probe name-off name none "$B/myprog" LD_HUGEPAGE_LIBS=
  ok name-off "LD_HUGEPAGE_LIBS= (empty) turns hugeld off under an overridable line"
  probe name-seg name text "$B/myprog" GLIBC_TUNABLES=$TUN.segments=text
  ok name-seg "the line's libs with GLIBC_TUNABLES's segments: text only"

  # A nonoverridable line for the program at one path.
  cache path <<EOF
[proc:$B/myprog]
-$TUN.libs=libbig.so
[]
$TUN.segments=text,rodata
EOF
  probe path-my path text,rodata "$B/myprog"
  ok path-my "[proc:$B/myprog] -$TUN.libs, then an unfiltered segments line: text and rodata"
  said path-my "segments: text rodata (/etc/tunables.conf)" "LD_DEBUG=hugepages: segments from /etc/tunables.conf"
  probe path-dir path none "$B/other/myprog"
  ok path-dir "[proc:/path]: the myprog in another directory gets nothing"
  probe path-env path text,rodata "$B/myprog" GLIBC_TUNABLES=$TUN.libs=no-such.so
  ok path-env "a nonoverridable line wins over GLIBC_TUNABLES=$TUN.libs=no-such.so"
  probe path-var path text,rodata "$B/myprog" LD_HUGEPAGE_LIBS=no-such.so
  ok path-var "a nonoverridable line wins over LD_HUGEPAGE_LIBS=no-such.so"
  said path-var "LD_HUGEPAGE_LIBS ignored: $TUN.libs is nonoverridable" \
    "LD_DEBUG=hugepages says the variable is ignored"
  probe path-off path text,rodata "$B/myprog" LD_HUGEPAGE_LIBS=
  ok path-off "a nonoverridable line wins over LD_HUGEPAGE_LIBS= (empty)"
  probe path-segenv path text "$B/myprog" GLIBC_TUNABLES=$TUN.segments=text
  ok path-segenv "the overridable segments line loses to GLIBC_TUNABLES=$TUN.segments=text"

  # A later line that applies replaces an earlier one, lock and all.
  cache order <<EOF
-$TUN.libs=no-such.so
[proc:myprog]
$TUN.libs=libbig.so
EOF
  probe order-my order text,rodata,relro "$B/myprog"
  ok order-my "a later [proc:myprog] line replaces an earlier nonoverridable one"
  probe order-env order none "$B/myprog" GLIBC_TUNABLES=$TUN.libs=no-such.so
  ok order-env "... and the lock with it: GLIBC_TUNABLES wins again"
  probe order-other order none "$B/otherprog" GLIBC_TUNABLES=$TUN.libs=libbig.so
  ok order-other "otherprog keeps the nonoverridable no-such.so over GLIBC_TUNABLES"

  # The policy file comes after the system-wide tunables.
  printf 'libs libbig.so\nsegments all\n' > "$CONF"; chmod 644 "$CONF"
  cache seg <<EOF
$TUN.segments=text
EOF
  probe seg-file seg text "$B/myprog"
  ok seg-file "$TUN.segments=text in tunables.conf wins over the policy file's segments all"
  cache empty <<EOF
# nothing
EOF
  probe empty-file empty text,rodata,relro,data,bss "$B/myprog"
  ok empty-file "control: the policy file alone selects every kind"
  rm -f "$CONF"

  # AT_SECURE (a set-user-ID root program run by nobody): a line
  # without flags (nonsecure) does not apply, a `*' (anysecure) or `@'
  # (onlysecure) line does; `@' only there.
  if [ -n "$who" ]; then
    cache sec <<EOF
[proc:mysuid]
$TUN.libs=libbig.so
EOF
    probe sec-plain sec none "$B/mysuid"
    ok sec-plain "set-user-ID: a nonsecure line (the default) does not apply"
    cache anysec <<EOF
[proc:mysuid]
*$TUN.libs=libbig.so
EOF
    probe sec-any anysec text,rodata,relro "$B/mysuid" GLIBC_TUNABLES=$TUN.libs=no-such.so LD_HUGEPAGE_LIBS=no-such.so
    ok sec-any "set-user-ID: an anysecure (*) line applies; GLIBC_TUNABLES and the variable stay ignored"
    cache onlysec <<EOF
@$TUN.libs=libbig.so
EOF
    probe sec-only onlysec text,rodata,relro "$B/mysuid"
    ok sec-only "set-user-ID: an onlysecure (@) line applies"
    probe sec-only-plain onlysec none "$B/myprog"
    ok sec-only-plain "an onlysecure (@) line does not apply to an ordinary program"
  fi
done
as_user ""

# hugeld config check: the lines ld.so takes, from ld.so's own code; a
# tunables.conf newer than the cache is said.  In a mount namespace with
# a copy of /etc holding the test's files.
mkdir -p "$TEST_TMP/etc"
cp -a /etc/. "$TEST_TMP/etc/"
cp "$T/path.cache" "$TEST_TMP/etc/ld.so.cache"
cp "$T/path.conf" "$TEST_TMP/etc/tunables.conf"
touch -d '1 hour ago' "$TEST_TMP/etc/tunables.conf"
rm -f "$TEST_TMP/etc/hugeld.conf"
cfg () {
  unshare -m sh -c 'mount --bind "$0" /etc && exec "$@"' "$TEST_TMP/etc" \
    "$HUGELD_CMD" config check "$@" 2>&1
}
out=$(cfg --program "$B/myprog")
if echo "$out" | grep -q "^  $TUN.libs=libbig.so  (nonoverridable" \
   && echo "$out" | grep -q "^  $TUN.segments=text,rodata  (GLIBC_TUNABLES and LD_HUGEPAGE_SEGMENTS override" \
   && ! echo "$out" | grep -q "newer than"; then
  pass "hugeld config check --program myprog: both lines, which is nonoverridable"
else
  fail "hugeld config check --program myprog" "$(echo "$out" | head -6 | tr '\n' ';')"
fi
out=$(cfg --program "$B/otherprog")
if echo "$out" | grep -q "^  $TUN.segments=text,rodata" && ! echo "$out" | grep -q "$TUN.libs"; then
  pass "hugeld config check --program otherprog: only the unfiltered line"
else
  fail "hugeld config check --program otherprog" "$(echo "$out" | head -6 | tr '\n' ';')"
fi
touch "$TEST_TMP/etc/tunables.conf"
touch -d '1 hour ago' "$TEST_TMP/etc/ld.so.cache"
out=$(cfg)
echo "$out" | grep -q "warning: /etc/tunables.conf is newer than /etc/ld.so.cache" \
  && pass "hugeld config check: /etc/tunables.conf newer than the cache (ldconfig not run) is said" \
  || fail "hugeld config check: tunables.conf newer than the cache" "$(echo "$out" | head -4 | tr '\n' ';')"
finish
