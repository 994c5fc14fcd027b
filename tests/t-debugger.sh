#!/bin/bash
# Debuggers and forked children.  Huge-page text is private memory that
# a forked child shares with its parent until one of them writes to it,
# and a debugger's breakpoint is such a write: it needs a second huge
# page for the copy, which can only come from the pool.  What happens
# (Linux 6.18 here; the README documents it):
#   - breakpoint in the parent, no spare page: the parent, which owns the
#     pages' reservation, gets the copy and stops at the breakpoint; the
#     kernel takes the page away from the children ("killed due to
#     inadequate hugepage pool") and they die of SIGBUS;
#   - breakpoint in the parent, one spare page: everybody lives;
#   - breakpoint in a child, no spare page: the child lives, but the
#     breakpoint is silently not inserted (it never triggers);
#   - breakpoint in a child, one spare page: it triggers, everybody lives.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
if [ "$(id -u)" != 0 ]; then
  skip all "must run as root (pool, ptrace)"
  finish
fi
command -v gdb > /dev/null || { skip all "no gdb"; finish; }
unset LD_HUGEPAGE_LIBS LD_HUGEPAGE_SEGMENTS LD_DEBUG LD_DEBUG_OUTPUT
B=$TEST_TMP/bin
mkdir -p "$B"
cc -O2 -Wall -I"$HUGELD_TOP/tests/fixtures" "$HUGELD_TOP/tests/pressure/textfork.c" \
  -o "$B/textfork" -L"$F" -lbig -Wl,-rpath,"$F" || { fail "build textfork" ""; finish; }

reserve_hugepages 32 || { fail reserve "cannot reserve huge pages"; finish; }
need=$(LD_DEBUG=hugepages LD_HUGEPAGE_LIBS=libbig.so "$HUGELD_LDSO" "$B/textfork" 0 0 2>&1 \
       | sed -n 's/.* \([0-9]*\) huge pages used.*/\1/p')
[ -n "$need" ] && [ "$need" -gt 0 ] || { fail "textfork on huge pages" "no huge pages used"; finish; }

# scenario NAME SPARE TARGET: textfork with 2 children on a pool of
# exactly the pages needed + SPARE; gdb attaches to TARGET (parent or
# child), sets a breakpoint in libbig.so's huge-page text, continues to
# it, removes it and detaches.  Sets OUT, GDB, RC and KMSG.
scenario () {
  local name=$1 spare=$2 target=$3 parent c1 c2 pid bg i
  pool_set $((need + spare)) || { fail "$name" "cannot size the pool"; return 1; }
  OUT=$TEST_TMP/$name.out GDB=$TEST_TMP/$name.gdb
  dmesg -C 2>/dev/null
  LD_HUGEPAGE_LIBS=libbig.so timeout 60 "$HUGELD_LDSO" "$B/textfork" 2 4 > "$OUT" 2>&1 &
  bg=$!
  for i in $(seq 100); do grep -q '^ready' "$OUT" && break; sleep 0.1; done
  read -r _ parent c1 c2 < <(grep '^ready' "$OUT")
  [ "$target" = parent ] && pid=$parent || pid=$c1
  timeout 60 gdb -p "$pid" -batch -ex 'break big_fn_3000' -ex continue -ex delete \
    -ex detach > "$GDB" 2>&1
  wait $bg
  RC=$?
  KMSG=$(dmesg 2>/dev/null | grep -c 'killed due to inadequate hugepage pool')
}

scenario parent-nospare 0 parent
if [ "$RC" != 0 ] && [ "$(grep -c 'killed by signal 7' "$OUT")" = 2 ] \
   && grep -q '^Breakpoint 1, .* in big_fn_3000' "$GDB"; then
  pass "breakpoint in the parent, no spare page: parent stops at it, both children die of SIGBUS${KMSG:+ ($KMSG kernel messages)}"
else
  fail "breakpoint in the parent, no spare page" "rc=$RC $(tr '\n' ' ' < "$OUT") $(grep -m1 Breakpoint "$GDB")"
fi
scenario parent-spare 1 parent
if [ "$RC" = 0 ] && [ "$(grep -c ': ok' "$OUT")" = 2 ] && grep -q '^Breakpoint 1, ' "$GDB"; then
  pass "breakpoint in the parent, one spare page: parent stops at it, children live"
else
  fail "breakpoint in the parent, one spare page" "rc=$RC $(tr '\n' ' ' < "$OUT")"
fi
scenario child-nospare 0 child
if [ "$RC" = 0 ] && [ "$(grep -c ': ok' "$OUT")" = 2 ] && ! grep -q '^Breakpoint 1, ' "$GDB"; then
  pass "breakpoint in a child, no spare page: everybody lives, the breakpoint is not inserted"
else
  fail "breakpoint in a child, no spare page" "rc=$RC $(tr '\n' ' ' < "$OUT") $(grep -m1 'Breakpoint 1,' "$GDB")"
fi
scenario child-spare 1 child
if [ "$RC" = 0 ] && [ "$(grep -c ': ok' "$OUT")" = 2 ] && grep -q '^Breakpoint 1, ' "$GDB"; then
  pass "breakpoint in a child, one spare page: the child stops at it, everybody lives"
else
  fail "breakpoint in a child, one spare page" "rc=$RC $(tr '\n' ' ' < "$OUT")"
fi
# The same with the object on ordinary pages: the breakpoint is free.
pool_set 0
dmesg -C 2>/dev/null
LD_HUGEPAGE_LIBS=libbig.so timeout 60 "$HUGELD_LDSO" "$B/textfork" 2 4 > "$TEST_TMP/np.out" 2>&1 &
bg=$!
for i in $(seq 100); do grep -q '^ready' "$TEST_TMP/np.out" && break; sleep 0.1; done
read -r _ parent _ < <(grep '^ready' "$TEST_TMP/np.out")
timeout 60 gdb -p "$parent" -batch -ex 'break big_fn_3000' -ex continue -ex delete -ex detach \
  > "$TEST_TMP/np.gdb" 2>&1
wait $bg && grep -q '^Breakpoint 1, ' "$TEST_TMP/np.gdb" \
  && pass "control: text on ordinary pages (empty pool), breakpoint in the parent, children live" \
  || fail "control: ordinary pages" "$(tr '\n' ' ' < "$TEST_TMP/np.out")"
finish
