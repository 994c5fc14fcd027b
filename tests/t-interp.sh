#!/bin/bash
# Programs started by the kernel with hugeld as their interpreter
# (PT_INTERP): the kernel has mapped the program on 4 KiB pages, and
# ld.so moves the selected zones onto huge pages before relocating it.
# The big-code program is relinked here with --dynamic-linker=$HUGELD_LDSO
# as PIE, non-PIE and 2 MiB-aligned PIE.  bigcheck verifies smaps,
# W^X, RELRO, fork/COW, threads and that the brk heap still grows.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
SRC=$HUGELD_TOP/tests/fixtures
if [ "$(id -u)" != 0 ]; then
  skip all "must run as root to reserve huge pages"
  finish
fi
unset LD_HUGEPAGE_LIBS LD_HUGEPAGE_SEGMENTS LD_DEBUG LD_DEBUG_OUTPUT
reserve_hugepages 64 || { fail reserve "cannot reserve 64 huge pages"; finish; }

B=$TEST_TMP/bin
mkdir -p "$B"
chmod 755 "$TEST_TMP" "$B"
link () { # name flags...: bigcheck relinked with hugeld as PT_INTERP
  local name=$1; shift
  cc -I"$SRC" -O2 -pthread "$SRC/bigcheck.c" "$@" -o "$B/$name" \
    -Wl,-z,relro -Wl,-z,pack-relative-relocs \
    -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$TEST_TMP/$name.cc" \
    || fail "link $name" "$(head -3 "$TEST_TMP/$name.cc" | tr '\n' ' ')"
}
link ipie -fPIE -pie "$F/big-pic.o"
link inopie -fno-pie -no-pie "$F/big-nopic.o"
link ipie2m -fPIE -pie "$F/big-pic.o" -Wl,-z,max-page-size=0x200000 -Wl,-z,separate-code

interp=$(readelf -lW "$B/ipie" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ "$interp" = "$HUGELD_LDSO" ] && pass "PT_INTERP is $HUGELD_LDSO" \
  || fail "PT_INTERP is $HUGELD_LDSO" "$interp"

ref=$("$F/bigcheck-pie" --expect none 2> "$TEST_TMP/ref.err") \
  || fail "stock run" "$(tail -3 "$TEST_TMP/ref.err" | tr '\n' ' ')"

# check NAME ENV... -- PROG ARGS...: same result as the stock loader,
# all of bigcheck's checks pass.
run_check () {
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local out
  out=$(env "${envs[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/dbg" "$@" 2> "$TEST_TMP/err")
  local rc=$?
  if [ $rc = 0 ] && [ "$out" = "$ref" ]; then
    pass "$name"
  else
    fail "$name" "exit $rc, $(grep -E '^FAIL' "$TEST_TMP/err" | head -3 | tr '\n' ' ') $(cat "$TEST_TMP"/dbg.* 2>/dev/null | grep -m2 'fallback\|ordinary pages:' | tr '\n' ' ')"
  fi
  rm -f "$TEST_TMP"/dbg.*
}

for p in ipie inopie ipie2m; do
  run_check "$p: not selected: no huge pages" -- "$B/$p" --expect none
  run_check "$p: default: text, rodata, relro on 2 MiB pages" \
    LD_HUGEPAGE_LIBS=$p -- "$B/$p" --expect text,rodata,relro
  run_check "$p: all: data and bss too; brk heap grows" \
    LD_HUGEPAGE_LIBS=$p LD_HUGEPAGE_SEGMENTS=all -- "$B/$p" --expect text,rodata,relro,data,bss
  # Without ASLR the brk heap starts right after .bss.
  run_check "$p: all, no ASLR (setarch -R): brk heap grows" \
    LD_HUGEPAGE_LIBS=$p LD_HUGEPAGE_SEGMENTS=all -- setarch -R "$B/$p" --expect text,rodata,relro,data,bss
  # Matched by the name it was run by (a symlink).
  ln -sf "$B/$p" "$B/alias-$p"
  run_check "$p: selected by the name it was run by (symlink)" \
    LD_HUGEPAGE_LIBS="alias-$p" -- "$B/alias-$p" --expect text,rodata,relro
done

# What other tools see: /proc/self/exe and AT_BASE are unchanged.
exe=$(LD_HUGEPAGE_LIBS=ipie "$B/ipie" --bench --rounds 0 >/dev/null; \
      LD_HUGEPAGE_LIBS=ipie LD_SHOW_AUXV=1 "$B/ipie" --bench --rounds 0 | grep -E '^AT_(BASE|EXECFN):')
grep -q "AT_EXECFN: *$B/ipie" <<< "$exe" && grep -q 'AT_BASE: *0x' <<< "$exe" \
  && pass "auxv: AT_EXECFN and AT_BASE as the kernel set them" \
  || fail "auxv: AT_EXECFN and AT_BASE" "$exe"

# AT_SECURE: a setuid-root copy run by an unprivileged user ignores
# the variables (first show the same check fails without setuid).
if command -v setpriv >/dev/null; then
  cp "$B/ipie" "$B/suid-ipie"; chmod 4755 "$B/suid-ipie"
  cp "$B/ipie" "$B/plain-ipie"; chmod 755 "$B/plain-ipie"
  nobody () { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  nobody env LD_HUGEPAGE_LIBS='*' "$B/plain-ipie" --expect none > /dev/null 2> "$TEST_TMP/plain.err"
  grep -q '^FAIL: text not on 2 MiB pages' "$TEST_TMP/plain.err" \
    && pass "control: the program itself honours LD_HUGEPAGE_LIBS when not setuid" \
    || fail "control: the program itself honours LD_HUGEPAGE_LIBS" "$(grep -m2 FAIL "$TEST_TMP/plain.err")"
  if nobody env LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all "$B/suid-ipie" --expect none \
       > /dev/null 2> "$TEST_TMP/suid.err"; then
    pass "setuid program ignores LD_HUGEPAGE_LIBS for itself"
  else
    fail "setuid program ignores LD_HUGEPAGE_LIBS for itself" "$(grep -m3 FAIL "$TEST_TMP/suid.err" | tr '\n' ' ')"
  fi
else
  skip "setuid main program" "no setpriv"
fi

# An empty pool: the program runs on the kernel's pages.
echo 0 > /proc/sys/vm/nr_hugepages
run_check "ipie: pool of 0 pages: runs on ordinary pages" \
  LD_HUGEPAGE_LIBS=ipie LD_HUGEPAGE_SEGMENTS=all -- "$B/ipie" --expect none
finish
