#!/bin/bash
# The user interface: LD_DEBUG=help lists the category, bad
# LD_HUGEPAGE_SEGMENTS values are reported in one line, the feature is
# off in --list/--verify/ldd modes, and AT_SECURE programs ignore every
# hugeld variable and tunable.  What a program makes of the variables runs as root
# and as nobody (a service's own user: "as nobody: ").
. "$(dirname "$0")/lib.sh"
as_users

F=$FIXTURES

# Any user: LD_DEBUG=help prints the loader's fixed list of categories
# (and exits), the same for every user; checked once.
out=$(LD_DEBUG=help "$HUGELD_LDSO" /bin/true 2>&1)
echo "$out" | grep -q '^  hugepages  *display objects put on huge pages' \
  && pass "LD_DEBUG=help lists hugepages" \
  || fail "LD_DEBUG=help lists hugepages" "$out"

# What a program gets from the variables, as root and as nobody (a
# service's own user: "as nobody: ").
for who in "${AS_USERS[@]}"; do
  as_user "$who"

  # A typo in LD_HUGEPAGE_SEGMENTS: one line on stderr, default used,
  # program output unchanged.
  err=$(LD_HUGEPAGE_LIBS=nothing LD_HUGEPAGE_SEGMENTS=txt run_as "$HUGELD_LDSO" /bin/echo hi 2>&1 >/dev/null)
  if [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q 'LD_HUGEPAGE_SEGMENTS=txt ignored'; then
    pass "${AS}bad LD_HUGEPAGE_SEGMENTS: one clear line"
  else
    fail "${AS}bad LD_HUGEPAGE_SEGMENTS: one clear line" "$err"
  fi
  out=$(LD_HUGEPAGE_LIBS=nothing LD_HUGEPAGE_SEGMENTS=txt run_as "$HUGELD_LDSO" /bin/echo hi 2>/dev/null)
  [ "$out" = hi ] && pass "${AS}bad LD_HUGEPAGE_SEGMENTS: program runs" \
    || fail "${AS}bad LD_HUGEPAGE_SEGMENTS: program runs" "$out"

  # Garbage and huge values never break a program.
  long=$(head -c 100000 /dev/zero | tr '\0' '*')
  bad=0
  for val in '' ':' '::::' '[' '[[[' '\' '***' "$long" $'\x01\x02' '/' '//x'; do
    out=$(LD_HUGEPAGE_LIBS="$val" run_as "$HUGELD_LDSO" /bin/echo ok 2> "$TEST_TMP/garbage.err")
    # A malformed pattern (an unclosed '[', a lone '\') is one warning
    # line on stderr; anything else, nothing.
    case $val in
      '[' | '[[[' | '\') want=1 ;;
      *) want=0 ;;
    esac
    n=$(wc -l < "$TEST_TMP/garbage.err")
    if [ "$out" != ok ] || [ "$n" != $want ] \
       || { [ $want = 1 ] && ! grep -q ": warning: LD_HUGEPAGE_LIBS=.*: pattern " "$TEST_TMP/garbage.err"; }; then
      fail "${AS}LD_HUGEPAGE_LIBS=$(printf %q "${val:0:20}")" "$out; $(head -2 "$TEST_TMP/garbage.err")"
      bad=1
    fi
  done
  [ $bad = 1 ] || pass "${AS}garbage LD_HUGEPAGE_LIBS values: programs run; a malformed pattern is one warning line"
  bad=0
  for val in ',' ',,,' 'all,all' "$(head -c 50000 /dev/zero | tr '\0' 't')"; do
    out=$(LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS="$val" run_as "$HUGELD_LDSO" /bin/echo ok 2>/dev/null)
    [ "$out" = ok ] || { fail "${AS}LD_HUGEPAGE_SEGMENTS=$(printf %q "${val:0:20}")" "$out"; bad=1; }
  done
  [ $bad = 1 ] || pass "${AS}garbage LD_HUGEPAGE_SEGMENTS values: programs run"

  # --list, --verify and ldd mode never plan or map huge pages.
  for mode in --list --verify; do
    run_report "$TEST_TMP/mode$mode${who:+-$who}" LD_HUGEPAGE_LIBS='*' -- \
      "$HUGELD_LDSO" $mode "$F/bigcheck-shared"
    if grep -q 'hugepages:' "$TEST_TMP/mode$mode${who:+-$who}.dbg"; then
      fail "${AS}$mode: feature off" "$(head -2 "$TEST_TMP/mode$mode${who:+-$who}.dbg")"
    else
      pass "${AS}$mode: feature off"
    fi
  done
  run_report "$TEST_TMP/ldd${who:+-$who}" LD_TRACE_LOADED_OBJECTS=1 LD_HUGEPAGE_LIBS='*' -- \
    "$HUGELD_LDSO" "$F/bigcheck-shared"
  if grep -q 'hugepages:' "$TEST_TMP/ldd${who:+-$who}.dbg"; then
    fail "${AS}ldd mode (LD_TRACE_LOADED_OBJECTS): feature off" "$(head -2 "$TEST_TMP/ldd${who:+-$who}.dbg")"
  else
    pass "${AS}ldd mode (LD_TRACE_LOADED_OBJECTS): feature off"
  fi
done
as_user ""

# AT_SECURE: a real setuid-root program (its interpreter is hugeld) run
# by an unprivileged user ignores LD_HUGEPAGE_LIBS, and does not pass
# the variables on to its children.  Root's: only root makes the
# set-user-ID-root, set-group-ID-root and file-capability copies (the
# programs themselves run as nobody).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  skip "setuid program ignores the variables" "needs root and setpriv"
else
  reserve_hugepages 40 || fail reserve "cannot reserve huge pages"
  d=$(mktemp -d /var/tmp/hugeld-suid.XXXXXX)
  at_exit "rm -rf $d"
  chmod 755 "$d"
  cp "$F/libbig.so" "$d/" || fail "copy libbig.so" "fixtures not built"
  gcc -O2 -DBIG_DLOPEN -I"$HUGELD_TOP/tests/fixtures" -o "$d/suid-bigcheck" \
    "$HUGELD_TOP/tests/fixtures/bigcheck.c" -pthread -ldl \
    -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$TEST_TMP/cc.err" \
    || fail "build setuid test program" "$(head -3 "$TEST_TMP/cc.err")"
  chmod 4755 "$d/suid-bigcheck"
  run_as_nobody () {
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  }
  # First prove the test can fail: without setuid the variable works.
  cp "$d/suid-bigcheck" "$d/plain-bigcheck"
  chmod 755 "$d/plain-bigcheck"
  run_as_nobody env LD_HUGEPAGE_LIBS=libbig.so "$d/plain-bigcheck" \
    --dlopen "$d/libbig.so" --expect none > /dev/null 2> "$TEST_TMP/plain.err"
  if grep -q '^FAIL: text not on 2 MiB pages' "$TEST_TMP/plain.err"; then
    pass "control: non-setuid program honours LD_HUGEPAGE_LIBS"
  else
    fail "control: non-setuid program honours LD_HUGEPAGE_LIBS" \
      "$(grep -m3 'FAIL\|error' "$TEST_TMP/plain.err" | tr '\n' ' ')"
  fi
  if run_as_nobody env LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_SEGMENTS=all \
       "$d/suid-bigcheck" --dlopen "$d/libbig.so" --expect none \
       > /dev/null 2> "$TEST_TMP/suid.err"; then
    pass "setuid program ignores LD_HUGEPAGE_LIBS (root: only root makes a set-user-ID-root binary)"
  else
    fail "setuid program ignores LD_HUGEPAGE_LIBS (root: only root makes a set-user-ID-root binary)" "$(grep FAIL "$TEST_TMP/suid.err" | head -3 | tr '\n' ' ')"
  fi
  # The tunables too: the control honours glibc.elf.hugepage.libs, the
  # setuid program does not.
  run_as_nobody env GLIBC_TUNABLES=glibc.elf.hugepage.libs=libbig.so "$d/plain-bigcheck" \
    --dlopen "$d/libbig.so" --expect none > /dev/null 2> "$TEST_TMP/plain-tun.err"
  if grep -q '^FAIL: text not on 2 MiB pages' "$TEST_TMP/plain-tun.err"; then
    pass "control: non-setuid program honours glibc.elf.hugepage.libs"
  else
    fail "control: non-setuid program honours glibc.elf.hugepage.libs" \
      "$(grep -m3 'FAIL\|error' "$TEST_TMP/plain-tun.err" | tr '\n' ' ')"
  fi
  if run_as_nobody env GLIBC_TUNABLES=glibc.elf.hugepage.libs=libbig.so:glibc.elf.hugepage.segments=all \
       "$d/suid-bigcheck" --dlopen "$d/libbig.so" --expect none \
       > /dev/null 2> "$TEST_TMP/suid-tun.err"; then
    pass "setuid program ignores glibc.elf.hugepage.* tunables (root: only root makes a set-user-ID-root binary)"
  else
    fail "setuid program ignores glibc.elf.hugepage.* tunables (root: only root makes a set-user-ID-root binary)" "$(grep FAIL "$TEST_TMP/suid-tun.err" | head -3 | tr '\n' ' ')"
  fi
  # setgid, and file capabilities: AT_SECURE too.
  cp "$d/plain-bigcheck" "$d/sgid-bigcheck"
  chgrp root "$d/sgid-bigcheck"; chmod 2755 "$d/sgid-bigcheck"
  if run_as_nobody env LD_HUGEPAGE_LIBS=libbig.so GLIBC_TUNABLES=glibc.elf.hugepage.libs=libbig.so \
       "$d/sgid-bigcheck" \
       --dlopen "$d/libbig.so" --expect none > /dev/null 2> "$TEST_TMP/sgid.err"; then
    pass "setgid program ignores LD_HUGEPAGE_LIBS and its tunable (root: only root makes a set-group-ID-root binary)"
  else
    fail "setgid program ignores LD_HUGEPAGE_LIBS and its tunable (root: only root makes a set-group-ID-root binary)" "$(grep FAIL "$TEST_TMP/sgid.err" | head -3 | tr '\n' ' ')"
  fi
  if command -v setcap > /dev/null; then
    cp "$d/plain-bigcheck" "$d/cap-bigcheck"
    setcap cap_net_bind_service+ep "$d/cap-bigcheck"
    if run_as_nobody env LD_HUGEPAGE_LIBS=libbig.so "$d/cap-bigcheck" \
         --dlopen "$d/libbig.so" --expect none > /dev/null 2> "$TEST_TMP/cap.err"; then
      pass "file-capability program ignores LD_HUGEPAGE_LIBS (root: only root sets file capabilities)"
    else
      fail "file-capability program ignores LD_HUGEPAGE_LIBS (root: only root sets file capabilities)" "$(grep FAIL "$TEST_TMP/cap.err" | head -3 | tr '\n' ' ')"
    fi
  else
    fail "file-capability program" "setcap not installed (apt-get install libcap2-bin)"
  fi
  # Children of a setuid program do not inherit the variables.
  cat > "$TEST_TMP/envdump.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main (void)
{
  /* Become root fully so the child is not AT_SECURE itself.  */
  if (setuid (0) != 0) return 2;
  execl ("/usr/bin/env", "env", (char *) NULL);
  return 3;
}
EOF
  gcc -o "$d/suid-env" "$TEST_TMP/envdump.c" -Wl,--dynamic-linker="$HUGELD_LDSO"
  chmod 4755 "$d/suid-env"
  envout=$(run_as_nobody env LD_HUGEPAGE_LIBS=x LD_HUGEPAGE_SEGMENTS=all "$d/suid-env")
  if echo "$envout" | grep -q '^LD_HUGEPAGE'; then
    fail "setuid program: variables erased for children (root: only root makes a set-user-ID-root binary)" "$(echo "$envout" | grep LD_HUGEPAGE)"
  else
    pass "setuid program: variables erased for children (root: only root makes a set-user-ID-root binary)"
  fi
fi
# The variables are read once: a program that writes its process title
# over the environment block (PostgreSQL, nginx) and dlopens afterwards
# still gets what it was started with; as root and as nobody (the
# service's own user).
if [ "$(id -u)" = 0 ] && reserve_hugepages 32; then
  gcc -O1 -o "$TEST_TMP/retitle" "$HUGELD_TOP/tests/pressure/retitle.c"
  for who in "${AS_USERS[@]}"; do
    as_user "$who"
    out=$(LD_HUGEPAGE_LIBS=libbig.so run_as "$HUGELD_LDSO" "$TEST_TMP/retitle" "$F/libbig.so" 2>&1)
    [ "$out" = "huge: yes" ] && pass "${AS}environment overwritten before dlopen: still selected" \
      || fail "${AS}environment overwritten before dlopen: still selected" "$out"
  done
  as_user ""
else
  skip "environment overwritten before dlopen" "needs root and 32 huge pages"
fi
finish
