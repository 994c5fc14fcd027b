#!/bin/bash
# Programs started by the kernel with hugeld as their interpreter
# (PT_INTERP): the kernel has mapped the program on 4 KiB pages, and
# ld.so moves the selected zones onto huge pages before relocating it.
# The big-code program is relinked here with --dynamic-linker=$HUGELD_LDSO
# as PIE, non-PIE and 2 MiB-aligned PIE.  bigcheck verifies smaps,
# W^X, RELRO, fork/COW, threads and that the brk heap still grows.
# What the programs get runs as root, then as nobody (a service's own
# user), each against the stock loader run as the same user; making a
# set-user-ID copy is root's.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
need_pool 64

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

# The stock result, as each user: bigcheck-pie run by the kernel with
# the system loader.
for who in "" nobody; do
  as_user "$who"
  run_as "$F/bigcheck-pie" --expect none > "$TEST_TMP/ref${who:+-$who}" 2> "$TEST_TMP/ref.err" \
    || fail "${AS}stock run" "$(tail -3 "$TEST_TMP/ref.err" | tr '\n' ' ')"
done
as_user ""

# run_check NAME ENV... -- PROG ARGS...: PROG as $AS_USER gives the same
# result as the stock loader as that user, all of bigcheck's checks pass.
run_check () {
  local name=$AS$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local dbg out rc
  if ! run_as_argv || ! dbg=$(report_out "$TEST_TMP/run"); then
    fail "$name" "cannot run as $AS_USER"; return
  fi
  out=$(env "${envs[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$dbg" \
        ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$@" 2> "$TEST_TMP/err")
  rc=$?
  report_collect "$TEST_TMP/run"
  if [ $rc = 0 ] && [ "$out" = "$(cat "$TEST_TMP/ref${AS_USER:+-$AS_USER}")" ]; then
    pass "$name"
  else
    fail "$name" "exit $rc, $(grep -E '^FAIL' "$TEST_TMP/err" | head -3 | tr '\n' ' ') $(grep -m2 'fallback\|ordinary pages:' "$TEST_TMP/run.dbg" | tr '\n' ' ')"
  fi
}

for who in "" nobody; do
  as_user "$who"
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
  # (The variables after setpriv: LD_SHOW_AUXV is for the program alone.)
  exe=$(run_as env LD_HUGEPAGE_LIBS=ipie "$B/ipie" --bench --rounds 0 >/dev/null; \
        run_as env LD_HUGEPAGE_LIBS=ipie LD_SHOW_AUXV=1 "$B/ipie" --bench --rounds 0 | grep -E '^AT_(BASE|EXECFN):')
  grep -q "AT_EXECFN: *$B/ipie" <<< "$exe" && grep -q 'AT_BASE: *0x' <<< "$exe" \
    && pass "${AS}auxv: AT_EXECFN and AT_BASE as the kernel set them" \
    || fail "${AS}auxv: AT_EXECFN and AT_BASE" "$exe"

  # ldd (and the loader's own --list) lists the same objects with the
  # variables set, and maps nothing onto huge pages.
  l1=$(run_as ldd "$B/ipie" | sed 's/ (0x[0-9a-f]*)//')
  l2=$(LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all run_as ldd "$B/ipie" | sed 's/ (0x[0-9a-f]*)//')
  [ -n "$l1" ] && [ "$l1" = "$l2" ] && pass "${AS}ldd: same objects with LD_HUGEPAGE_LIBS set" \
    || fail "${AS}ldd: same objects with LD_HUGEPAGE_LIBS set" "$l2"
done
as_user ""

# AT_SECURE: a setuid-root copy run by an unprivileged user ignores
# the variables (first show the same check fails without setuid).
# Root's: only root makes a set-user-ID-root copy (the copies run as
# nobody).
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
    pass "setuid program ignores LD_HUGEPAGE_LIBS for itself (root: only root makes a set-user-ID-root copy)"
  else
    fail "setuid program ignores LD_HUGEPAGE_LIBS for itself (root: only root makes a set-user-ID-root copy)" "$(grep -m3 FAIL "$TEST_TMP/suid.err" | tr '\n' ' ')"
  fi
else
  skip "setuid main program" "no setpriv"
fi

# gdb attaches to a running selected program and reads its core file:
# the backtrace names the functions in huge-page text.  As root, then
# as nobody (the program and gdb: a user debugging their own service;
# the core file goes where nobody may write).
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
  for who in "" nobody; do
    as_user "$who"
    run_as_argv || continue
    core=$TEST_TMP/core
    [ -z "$who" ] || core=$RUN_AS_DIR/core
    rm -f "$TEST_TMP/wait.out" "$core"
    env LD_HUGEPAGE_LIBS=iwait ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$B/iwait" > "$TEST_TMP/wait.out" &
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
    [ "$kps" = 2048 ] && pass "${AS}gdb: the waiting function is on a 2 MiB page" \
      || fail "${AS}gdb: the waiting function is on a 2 MiB page" "KernelPageSize $kps kB"
    [ "$(readlink /proc/$pid/exe)" = "$B/iwait" ] \
      && pass "${AS}/proc/PID/exe is the program" \
      || fail "${AS}/proc/PID/exe is the program" "$(readlink /proc/$pid/exe)"
    run_as gdb -batch -nx -p "$pid" -ex bt -ex "gcore $core" > "$TEST_TMP/attach.out" 2>&1
    grep -q 'hugeld_waiting ()' "$TEST_TMP/attach.out" && grep -q 'in main ()' "$TEST_TMP/attach.out" \
      && pass "${AS}gdb attach: backtrace through huge-page text" \
      || fail "${AS}gdb attach: backtrace" "$(grep -E '^#|rror' "$TEST_TMP/attach.out" | head -4 | tr '\n' ' ')"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    run_as gdb -batch -nx "$B/iwait" "$core" -ex bt > "$TEST_TMP/core.out" 2>&1
    grep -q 'hugeld_waiting ()' "$TEST_TMP/core.out" && grep -q 'in main ()' "$TEST_TMP/core.out" \
      && pass "${AS}gdb core file (gcore): backtrace through huge-page text" \
      || fail "${AS}gdb core file: backtrace" "$(grep -E '^#|rror|warning' "$TEST_TMP/core.out" | head -4 | tr '\n' ' ')"
  done
  as_user ""
else
  skip "gdb attach and core file" "no gdb"
fi

# An empty pool: the program runs on the kernel's pages.
pool_set 0
for who in "" nobody; do
  as_user "$who"
  run_check "ipie: pool of 0 pages: runs on ordinary pages" \
    LD_HUGEPAGE_LIBS=ipie LD_HUGEPAGE_SEGMENTS=all -- "$B/ipie" --expect none
done
as_user ""
finish
