#!/bin/bash
# ld.so and the hugeld command take the same settings from the same
# sources (issue 41's one resolver): for every combination of the
# LD_HUGEPAGE_* variables, GLIBC_TUNABLES, a line of /etc/tunables.conf
# (glibc 2.44 and later: through ld.so.cache; skipped before) and the
# policy file, setting by setting, ld.so's LD_DEBUG=hugepages report of
# a program the kernel starts with hugeld as its PT_INTERP equals what
# hugeld-conf --effective answers for the same sources; and for the
# cases the issues name (the libs from the policy file with GLIBC_TUNABLES'
# segments and backing, a global tunables.conf line, two GLIBC_TUNABLES
# strings, `libs=hold,,x', a variable named like a tunable, AT_SECURE)
# also what `hugeld status PID' says of the running process.  Then what
# status reads of a process whose environment is large: two GLIBC_TUNABLES
# strings of 120 KB, each longer than an argument may be
# (MAX_ARG_STRLEN), and `status --all' lists such a process with its
# huge pages.  tests/settings/differential.py does the comparing, as
# root, in a mount namespace of its own whose /etc is an overlay:
# the machine's /etc/hugeld.conf and ld.so.cache are never written.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
need_root "to write /etc/hugeld.conf in a mount namespace and run set-user-ID programs"
command -v unshare > /dev/null || { fail unshare "no unshare (util-linux)"; finish; }
H=${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}
CONF_HELPER=$(dirname "$(readlink -f "$H")")/hugeld-conf
[ -x "$CONF_HELPER" ] || CONF_HELPER=$(dirname "$(readlink -f "$H")")/../libexec/hugeld-conf
[ -x "$CONF_HELPER" ] || { fail "hugeld-conf" "not found next to $H"; finish; }

# The programs, where nobody can reach them: waitprog with hugeld as its
# PT_INTERP, and a set-user-ID root copy.
B=$(mktemp -d /var/tmp/hugeld-effective.XXXXXX)
at_exit "rm -rf $B"
chmod 755 "$B"
cc -O2 -o "$B/execenv" "$HUGELD_TOP/tests/settings/execenv.c" 2> "$TEST_TMP/cc.err" \
  && cc -O2 -o "$B/waitprog" "$HUGELD_TOP/tests/settings/waitprog.c" \
       -Wl,--dynamic-linker="$HUGELD_LDSO" 2>> "$TEST_TMP/cc.err" \
  || { fail "build the programs" "$(head -3 "$TEST_TMP/cc.err" | tr '\n' ' ')"; finish; }
cp "$B/waitprog" "$B/suidprog"; chmod 4755 "$B/suidprog"

LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
tunconf=()
if "$LDCONFIG" --help 2>&1 | grep -q TUNCONF; then
  tunconf=(--ldconfig "$LDCONFIG")
else
  skip "/etc/tunables.conf lines" "this glibc's ldconfig takes no tunables file (glibc 2.44 and later)"
fi

unshare -m python3 "$HUGELD_TOP/tests/settings/differential.py" \
  --prog "$B/waitprog" --suid-prog "$B/suidprog" --execenv "$B/execenv" \
  --conf-helper "$CONF_HELPER" --hugeld "$H" ${tunconf[@]+"${tunconf[@]}"} \
  > "$TEST_TMP/diff.out" 2>&1
rc=$?
sum=$(grep '^differential:' "$TEST_TMP/diff.out")
if [ $rc = 0 ] && [ -n "$sum" ]; then
  pass "ld.so = hugeld-conf --effective = hugeld status: ${sum#differential: }"
else
  fail "ld.so, hugeld-conf --effective and hugeld status agree" \
    "${sum:-no summary}: $(grep -v '^differential:' "$TEST_TMP/diff.out" | head -5 | tr '\n' '|')"
fi

# The large environment's process maps libbig.so: 16 huge pages, taken
# only now (the pool is shared by the tests that run at the same time).
need_fixtures bigcheck-shared libbig.so
# The pool's lock first (reserving what is there), then 20 free pages
# more than what others hold.
if reserve_hugepages "$(meminfo HugePages_Total)" \
   && reserve_hugepages $(( $(meminfo HugePages_Total) - $(meminfo HugePages_Free) + 20 )); then
  unshare -m python3 "$HUGELD_TOP/tests/settings/differential.py" \
    --prog "$B/waitprog" --suid-prog "$B/suidprog" --execenv "$B/execenv" \
    --conf-helper "$CONF_HELPER" --hugeld "$H" --big-only \
    --big "$HUGELD_LDSO" "$F/bigcheck-shared" > "$TEST_TMP/big.out" 2>&1
  line=$(grep '^big environment:' "$TEST_TMP/big.out")
  [ -n "$line" ] && grep -q ', 0 disagreements' "$TEST_TMP/big.out" \
    && pass "${line#big environment: }" \
    || fail "two GLIBC_TUNABLES strings of 120 KB" "$(grep -v '^differential:' "$TEST_TMP/big.out" | head -3 | tr '\n' '|')"
else
  skip "a process with two GLIBC_TUNABLES of 120 KB in status --all" "cannot reserve 20 huge pages"
fi
finish
