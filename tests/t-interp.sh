#!/bin/bash
# Programs started by the kernel with hugeld as their interpreter
# (PT_INTERP): the kernel has mapped the program on 4 KiB pages, and
# ld.so moves the selected zones onto huge pages before relocating it.
# The big-code program is relinked here with --dynamic-linker=$HUGELD_LDSO
# as PIE, non-PIE and 2 MiB-aligned PIE.  bigcheck verifies smaps,
# W^X, RELRO, fork/COW, threads and that the brk heap still grows.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
need_root "to reserve huge pages"
reserve_hugepages 64 || { fail reserve "cannot reserve 64 huge pages"; finish; }

B=$TEST_TMP/bin
mkdir -p "$B"
chmod 755 "$TEST_TMP" "$B"
link () { local name=$1; shift; link_interp "$B/$name" "$@"; }
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

# ldd (and the loader's own --list) lists the same objects with the
# variables set, and maps nothing onto huge pages.
l1=$(ldd "$B/ipie" | sed 's/ (0x[0-9a-f]*)//')
l2=$(LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all ldd "$B/ipie" | sed 's/ (0x[0-9a-f]*)//')
[ -n "$l1" ] && [ "$l1" = "$l2" ] && pass "ldd: same objects with LD_HUGEPAGE_LIBS set" \
  || fail "ldd: same objects with LD_HUGEPAGE_LIBS set" "$l2"

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

# gdb attaches to a running selected program and reads its core file:
# the backtrace names the functions in huge-page text.
if command -v gdb > /dev/null; then
  cat > "$TEST_TMP/wait.c" <<'WAIT'
#include <stdio.h>
#include <unistd.h>
asm (".text\n.balign 4096\n.globl pad_lo\npad_lo:\n.fill 0x300000,1,0xc3\n");
__attribute__ ((noinline)) void
hugeld_waiting (void)
{
  puts ("ready");
  fflush (stdout);
  pause ();
}
asm (".text\n.globl pad_hi\npad_hi:\n.fill 0x300000,1,0xc3\n");
int
main (void)
{
  hugeld_waiting ();
  return 0;
}
WAIT
  cc -O1 -g -fno-toplevel-reorder -o "$B/iwait" "$TEST_TMP/wait.c" -Wl,--dynamic-linker="$HUGELD_LDSO"
  LD_HUGEPAGE_LIBS=iwait "$B/iwait" > "$TEST_TMP/wait.out" &
  pid=$!
  for i in $(seq 50); do grep -q ready "$TEST_TMP/wait.out" 2>/dev/null && break; sleep 0.1; done
  base=$(awk -v p="$B/iwait" '$6 == p { split($1, a, "-"); print a[1]; exit }' /proc/$pid/maps)
  fn=$(nm "$B/iwait" | awk '$3 == "hugeld_waiting" { print $1 }')
  addr=$(( 0x$base + 0x$fn ))
  kps=$(python3 - "$pid" "$addr" <<'PY'
import sys
pid, addr = sys.argv[1], int(sys.argv[2])
inside = False
for line in open("/proc/%s/smaps" % pid):
    f = line.split()
    if "-" in f[0] and len(f) >= 5:
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        inside = lo <= addr < hi
    elif inside and f[0] == "KernelPageSize:":
        print(f[1]); break
PY
)
  [ "$kps" = 2048 ] && pass "gdb: the waiting function is on a 2 MiB page" \
    || fail "gdb: the waiting function is on a 2 MiB page" "KernelPageSize $kps kB"
  [ "$(readlink /proc/$pid/exe)" = "$B/iwait" ] \
    && pass "/proc/PID/exe is the program" \
    || fail "/proc/PID/exe is the program" "$(readlink /proc/$pid/exe)"
  gdb -batch -nx -p "$pid" -ex bt -ex "gcore $TEST_TMP/core" > "$TEST_TMP/attach.out" 2>&1
  grep -q 'hugeld_waiting ()' "$TEST_TMP/attach.out" && grep -q 'in main ()' "$TEST_TMP/attach.out" \
    && pass "gdb attach: backtrace through huge-page text" \
    || fail "gdb attach: backtrace" "$(grep -E '^#|rror' "$TEST_TMP/attach.out" | head -4 | tr '\n' ' ')"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  gdb -batch -nx "$B/iwait" "$TEST_TMP/core" -ex bt > "$TEST_TMP/core.out" 2>&1
  grep -q 'hugeld_waiting ()' "$TEST_TMP/core.out" && grep -q 'in main ()' "$TEST_TMP/core.out" \
    && pass "gdb core file (gcore): backtrace through huge-page text" \
    || fail "gdb core file: backtrace" "$(grep -E '^#|rror|warning' "$TEST_TMP/core.out" | head -4 | tr '\n' ' ')"
else
  skip "gdb attach and core file" "no gdb"
fi

# An empty pool: the program runs on the kernel's pages.
pool_set 0
run_check "ipie: pool of 0 pages: runs on ordinary pages" \
  LD_HUGEPAGE_LIBS=ipie LD_HUGEPAGE_SEGMENTS=all -- "$B/ipie" --expect none
finish
