#!/bin/bash
# hugeld as the distribution's loader, in a throwaway root of the host's
# Debian release made with debootstrap and entered with chroot (never on this machine itself):
# install, use apt-get, dpkg, bash, perl, python3; select a program with
# LD_HUGEPAGE_LIBS and find its text on huge pages; a libc6 downgrade and
# upgrade keep ld.so and libc.so.6 matched; install refuses a mismatched
# libc6; uninstall brings the stock loader back byte for byte.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
  skip all "must run as root (debootstrap, chroot)"
  finish
fi
TOOL=/opt/hugeld/libexec/hugeld-system-loader
host_libc=$(pkg_version libc6)
C=$HUGELD_TOP/build/chroot
debian_root "$C" || finish
REAL=$(root_loader)
[ -n "$REAL" ] || { fail "the root's loader" "libc6 lists no ld-linux-x86-64.so.2"; finish; }
pass "debootstrap: a Debian $DIST root, libc6 $(pkg_version libc6) as on the host"

# hugeld as `make install' would put it there.
mkdir -p "$C/opt"
cp -a "$(dirname "$HUGELD_LDSO")" "$C/opt/hugeld"
stock_sum=$(md5sum "$C$REAL" | cut -d' ' -f1)

if in_root "$TOOL" install > "$TEST_TMP/install.log" 2>&1 \
   && in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld; then
  pass "install: /lib64/ld-linux-x86-64.so.2 is hugeld"
else
  fail "install" "$(cat "$TEST_TMP/install.log" | tr '\n' ' ')"
  finish
fi
in_root dpkg-divert --list "$REAL" | grep -q "$REAL.distrib" \
  && pass "install: dpkg-divert keeps the distribution's loader as .distrib" \
  || fail "install: dpkg-divert" "$(in_root dpkg-divert --list)"
in_root "$TOOL" install > /dev/null 2>&1 && pass "install again: idempotent" \
  || fail "install again: idempotent" ""

# The system works as before with no hugeld variables.
check "bash runs" in_root bash -c 'echo $((6*7)) | grep -qx 42'
check "perl runs" in_root perl -e 'exit(!(join(",", sort { $a <=> $b } (3,1,2)) eq "1,2,3"))'
check "dpkg works" in_root sh -c 'dpkg -l libc6 | grep -q "^ii"'
if in_root apt-get update -qq > "$TEST_TMP/apt.log" 2>&1 \
   && in_root apt-get install -y -qq --no-install-recommends python3-minimal >> "$TEST_TMP/apt.log" 2>&1; then
  pass "apt-get update and install (python3-minimal)"
  check "python3 runs" in_root python3 -c 'import re; assert re.sub("b+", "x", "abbbc") == "axc"'
else
  fail "apt-get update and install" "$(tail -3 "$TEST_TMP/apt.log" | tr '\n' ' ')"
fi
in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld \
  && pass "after apt-get, hugeld is still the loader (libc6 unchanged)" \
  || fail "after apt-get, hugeld is still the loader" "$(in_root /lib64/ld-linux-x86-64.so.2 --version | head -1)"

is_hugeld_loader () { in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld; }

# A selected program's text lands on huge pages.
reserve_hugepages 32 || fail reserve "cannot reserve huge pages"
cp "$FIXTURES/bigcheck-pie" "$C/usr/local/bin/"
if in_root env LD_HUGEPAGE_LIBS=bigcheck-pie /usr/local/bin/bigcheck-pie --expect text,rodata,relro \
     > "$TEST_TMP/big.out" 2> "$TEST_TMP/big.err"; then
  pass "LD_HUGEPAGE_LIBS=bigcheck-pie: its text is on 2 MiB pages (smaps)"
else
  fail "LD_HUGEPAGE_LIBS=bigcheck-pie: text on 2 MiB pages" "$(grep -m3 FAIL "$TEST_TMP/big.err" | tr '\n' ' ')"
fi
if in_root /usr/local/bin/bigcheck-pie --expect none > /dev/null 2>&1; then
  pass "without LD_HUGEPAGE_LIBS: ordinary pages"
else
  fail "without LD_HUGEPAGE_LIBS: ordinary pages" ""
fi

# libc6 reinstalled (same version): hugeld stays.
in_root apt-get install -y -qq --reinstall libc6 > "$TEST_TMP/re.log" 2>&1 \
  || fail "apt-get --reinstall libc6" "$(tail -3 "$TEST_TMP/re.log" | tr '\n' ' ')"
in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld \
  && pass "libc6 reinstalled: hugeld is still the loader" \
  || fail "libc6 reinstalled: hugeld is still the loader" "$(cat "$TEST_TMP/re.log" | tail -3 | tr '\n' ' ')"
# Nothing was left running on the distribution's loader: the
# post-invoke hook names no process (not its own subshells either).
grep -q "removed\|rebuilt\|process(es)" "$TEST_TMP/re.log" \
  && fail "libc6 reinstalled: no message" "$(grep hugeld "$TEST_TMP/re.log" | head -3 | tr '\n' ' ')" \
  || pass "libc6 reinstalled: the hooks say nothing (no 'removed', no 'rebuild', no process to restart)"

# A service's package upgraded with dpkg -i: its postinst restarts the
# service (here: runs the big-code program with LD_HUGEPAGE_LIBS and
# starts a daemon).  The run unpacks nothing of glibc's, so what the
# postinst starts runs on hugeld, with huge pages.  Then the same
# package in one run with libc6: the loader is the distribution's for
# that run, and the post-invoke hook names the daemon started meanwhile.
P=$TEST_TMP/hpsvc
mkdir -p "$P/DEBIAN"
cat > "$P/DEBIAN/control" <<'EOF2'
Package: hpsvc
Version: 1
Architecture: all
Maintainer: hugeld tests <root@localhost>
Description: a service whose postinst restarts it (hugeld's t-system)
EOF2
cat > "$P/DEBIAN/postinst" <<'EOF2'
#!/bin/sh
out=/var/tmp/hpsvc.out
LD_HUGEPAGE_LIBS=bigcheck-pie /usr/local/bin/bigcheck-pie --expect text,rodata,relro > $out 2>&1
echo "rc $?" >> $out
grep ld-linux /proc/self/maps | head -1 >> $out
[ -f /var/tmp/hpsvc.pid ] && kill "$(cat /var/tmp/hpsvc.pid)" 2> /dev/null
setsid sleep 600 < /dev/null > /dev/null 2>&1 &
echo $! > /var/tmp/hpsvc.pid
exit 0
EOF2
chmod 755 "$P/DEBIAN/postinst"
dpkg-deb --root-owner-group --build "$P" "$C/tmp/hpsvc.deb" > /dev/null
in_root dpkg -i /tmp/hpsvc.deb > "$TEST_TMP/svc.log" 2>&1
if grep -q "^rc 0" "$C/var/tmp/hpsvc.out" && ! grep -q distrib "$C/var/tmp/hpsvc.out" \
   && grep -q "$REAL" "$C/var/tmp/hpsvc.out" && is_hugeld_loader; then
  pass "dpkg -i of a service: what its postinst starts runs on hugeld, text on 2 MiB pages"
else
  fail "dpkg -i of a service: runs on hugeld" "$(tr '\n' ' ' < "$C/var/tmp/hpsvc.out" | cut -c1-300); $(grep hugeld "$TEST_TMP/svc.log" | head -2 | tr '\n' ' ')"
fi
svc=$(cat "$C/var/tmp/hpsvc.pid")
grep -q "$REAL.distrib" "/proc/$svc/maps" \
  && fail "dpkg -i of a service: its daemon" "maps the distribution's loader" \
  || pass "dpkg -i of a service: its daemon ($svc) maps hugeld, not .distrib"
libc_deb=$(ls "$C"/var/cache/apt/archives/libc6_*.deb 2> /dev/null | head -1)
if [ -z "$libc_deb" ]; then
  skip "dpkg -i libc6 and a service" "no libc6 archive in the root's apt cache"
else
  in_root dpkg -i "${libc_deb#$C}" /tmp/hpsvc.deb > "$TEST_TMP/svc2.log" 2>&1
  svc=$(cat "$C/var/tmp/hpsvc.pid")
  if grep -q distrib "$C/var/tmp/hpsvc.out" && is_hugeld_loader \
     && grep -q "hugeld: .*process(es) started while the distribution's loader was in place .*$svc (sleep).*daemon-reexec" "$TEST_TMP/svc2.log"; then
    pass "dpkg -i libc6 and a service: the distribution's loader for the run, hugeld after it, and the daemon left on the old loader is named"
  else
    fail "dpkg -i libc6 and a service" "$(grep ld-linux "$C/var/tmp/hpsvc.out"); $(grep hugeld "$TEST_TMP/svc2.log" | head -3 | tr '\n' ' ')"
  fi
  "${HUGELD_CMD:-$HUGELD_TOP/build/tools/hugeld}" status "$svc" > "$TEST_TMP/svc-hstatus.log" 2>&1
  grep -q "note: started while a dpkg run had the distribution's loader in place" "$TEST_TMP/svc-hstatus.log" \
    && pass "hugeld status of the daemon says why it is not on hugeld" \
    || fail "hugeld status of the daemon" "$(head -c 400 "$TEST_TMP/svc-hstatus.log" | tr '\n' ' ')"
  in_root "$TOOL" status > "$TEST_TMP/svc-status.log" 2>&1
  grep -q "^  $svc (sleep)" "$TEST_TMP/svc-status.log" \
    && pass "hugeld-system-loader status lists the processes not on hugeld" \
    || fail "hugeld-system-loader status lists them" "$(cat "$TEST_TMP/svc-status.log" | tr '\n' ' ')"
  # The same two archives found by dpkg --recursive behind a symbolic
  # link to a directory: dpkg follows it, and so must the pre-invoke
  # hook (tests/t-hooks.sh has every spelling and layout).
  mkdir -p "$C/tmp/store" "$C/tmp/rdir"
  cp "$libc_deb" "$C/tmp/hpsvc.deb" "$C/tmp/store/"
  ln -sfn ../store "$C/tmp/rdir/more"
  in_root dpkg --recursive -i /tmp/rdir > "$TEST_TMP/svc3.log" 2>&1
  if grep -q distrib "$C/var/tmp/hpsvc.out" && is_hugeld_loader \
     && grep -q "^Unpacking libc6" "$TEST_TMP/svc3.log"; then
    pass "dpkg --recursive -i DIR, libc6 behind a link to a directory: the distribution's loader for the run, hugeld after it"
  else
    fail "dpkg --recursive -i DIR, libc6 behind a link" "$(grep ld-linux "$C/var/tmp/hpsvc.out"); $(grep -i 'hugeld\|unpack' "$TEST_TMP/svc3.log" | head -4 | tr '\n' ' ')"
  fi
  rm -rf "$C/tmp/store" "$C/tmp/rdir"
fi
kill "$(cat "$C/var/tmp/hpsvc.pid")" 2> /dev/null
in_root dpkg -r hpsvc > /dev/null 2>&1

# libc6 changes version: the loader always matches libc.so.6.  Debian's
# archive keeps the previous point release, so go there and back.
old=$(in_root apt-cache policy libc6 \
      | awk -v host="$host_libc" '{ v = ($1 == "***") ? $2 : $1 }
                                   v ~ /^[0-9]+\.[0-9]+-/ && v != host { print v; exit }')
if [ -z "$old" ]; then
  skip "libc6 version change" "no other libc6 version in the archive"
else
  in_root apt-get install -y -qq --allow-downgrades $(root_glibc_at "$old") \
    > "$TEST_TMP/down.log" 2>&1
  v=$(in_root /lib64/ld-linux-x86-64.so.2 --version | head -1)
  if [ "$(in_root dpkg-query -W -f='${Version}' libc6)" = "$old" ] && grep -q "GLIBC $old)" <<< "$v"; then
    pass "libc6 downgraded to $old: the loader is the distribution's $old, not hugeld"
  else
    fail "libc6 downgraded: matching loader" "$v; $(tail -3 "$TEST_TMP/down.log" | tr '\n' ' ')"
  fi
  grep -q "rebuilt" "$TEST_TMP/down.log" && pass "libc6 changed: the hook says hugeld is off until rebuilt" \
    || fail "libc6 changed: message" "$(grep hugeld "$TEST_TMP/down.log" | head -3 | tr '\n' ' ')"
  check "libc6 changed: programs run" in_root bash -c 'perl -e 1 && dpkg -l libc6 > /dev/null'
  if in_root "$TOOL" install > "$TEST_TMP/refuse.log" 2>&1; then
    fail "install refuses a mismatched libc6" "it installed"
  else
    grep -q "refusing: .*$host_libc.*$old" "$TEST_TMP/refuse.log" \
      && pass "install refuses a mismatched libc6, naming both versions" \
      || fail "install refuses a mismatched libc6" "$(cat "$TEST_TMP/refuse.log")"
  fi
  in_root apt-get install -y -qq $(root_glibc_at "$host_libc") > "$TEST_TMP/up.log" 2>&1
  in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld \
    && pass "libc6 back to $host_libc: hugeld is the loader again" \
    || fail "libc6 back: hugeld again" "$(tail -3 "$TEST_TMP/up.log" | tr '\n' ' ')"
fi

# --- Interruptions: a kill -9 at each step, then the same command again.
DISTRIB=$REAL.distrib
libc_sum=$(awk -v f="${REAL#/}" '$2 == f { print $1 }' "$C/var/lib/dpkg/info/libc6:amd64.md5sums")
# sane LABEL: the system runs programs, its loader is built from the
# installed libc6 (hugeld or the distribution's, nothing else), and
# .distrib, where it exists, is the distribution's loader.
sane () {
  local v l
  v=$(in_root /lib64/ld-linux-x86-64.so.2 --version 2>&1 | head -1)
  l=$(in_root dpkg-query -W -f='${Version}' libc6)
  if ! in_root bash -c 'perl -e 1 && /bin/true'; then
    fail "$1: programs run" "$v"
  elif ! grep -q "GLIBC $l[ )]" <<< "$v"; then
    fail "$1: the loader matches libc6 $l" "$v"
  elif [ -e "$C$DISTRIB" ] && [ "$(md5sum < "$C$DISTRIB" | cut -d' ' -f1)" != "$libc_sum" ]; then
    fail "$1: .distrib is the distribution's loader" "$(ls -l "$C$DISTRIB")"
  else
    pass "$1: programs run, loader matches libc6, .distrib intact"
  fi
}
is_hugeld () { in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld; }
is_stock () { [ ! -L "$C$REAL" ] && [ "$(md5sum < "$C$REAL" | cut -d' ' -f1)" = "$stock_sum" ]; }
killed_at () { # STEP COMMAND...: run COMMAND in the root, killed at STEP
  local step=$1 rc; shift
  in_root env HUGELD_TEST_KILL_AT="$step" "$@" > "$TEST_TMP/kill.log" 2>&1
  rc=$?
  # The installer itself, or the hook under dpkg, really was killed.
  [ $rc = 137 ] || grep -q "exit code 137\|exit status 137\|Killed" "$TEST_TMP/kill.log" \
    || fail "killed at $step" "not killed (exit $rc): $(tail -2 "$TEST_TMP/kill.log" | tr '\n' ' ')"
}

# uninstall killed at each of its steps; uninstall again finishes it.
for step in put-ld-linux-x86-64.so.2 undivert hooks; do
  is_hugeld || in_root "$TOOL" install > /dev/null 2>&1
  killed_at "$step" "$TOOL" uninstall
  sane "uninstall killed at $step"
  if in_root "$TOOL" uninstall > "$TEST_TMP/un2.log" 2>&1 && is_stock \
     && [ -z "$(in_root dpkg-divert --list "$REAL")" ] && [ ! -e "$C/etc/dpkg/dpkg.cfg.d/hugeld" ]; then
    pass "uninstall killed at $step: uninstall again restores the stock loader"
  else
    fail "uninstall killed at $step: uninstall again" "$(tail -2 "$TEST_TMP/un2.log" | tr '\n' ' ')"
  fi
done
# install killed at each of its steps; install again finishes it.
for step in save put-dpkg-hook hookfile divert put-ld-linux-x86-64.so.2; do
  killed_at "$step" "$TOOL" install
  sane "install killed at $step"
  if in_root "$TOOL" install > "$TEST_TMP/in2.log" 2>&1 && is_hugeld; then
    pass "install killed at $step: install again makes hugeld the loader"
  else
    fail "install killed at $step: install again" "$(tail -2 "$TEST_TMP/in2.log" | tr '\n' ' ')"
  fi
  in_root "$TOOL" uninstall > /dev/null 2>&1
done
in_root "$TOOL" install > /dev/null 2>&1
# The dpkg hooks killed: dpkg stops; the next dpkg run puts things right.
for step in link put-ld-linux-x86-64.so.2; do
  killed_at "$step" apt-get install -y -qq --reinstall libc6
  sane "dpkg hook killed at $step"
  # What dpkg asks for after an interrupted run (libc6 may be left
  # unpacked and not configured: the post-invoke hook of the unpack
  # pass is the one that puts hugeld back), then another run.
  if in_root dpkg --configure -a > "$TEST_TMP/re2.log" 2>&1 \
     && in_root apt-get install -y -qq --reinstall libc6 >> "$TEST_TMP/re2.log" 2>&1 && is_hugeld; then
    pass "dpkg hook killed at $step: the next dpkg run puts hugeld back"
  else
    fail "dpkg hook killed at $step: the next dpkg run" "$(tail -2 "$TEST_TMP/re2.log" | tr '\n' ' ')"
  fi
done
# A leftover temporary symlink to .distrib (an old installer's
# interrupted link_distrib) is never written through.
ln -sfn "$(basename "$DISTRIB")" "$C$REAL.hugeld-tmp"
in_root apt-get install -y -qq --reinstall libc6 > /dev/null 2>&1
sane "leftover $REAL.hugeld-tmp symlink"
is_hugeld && [ ! -e "$C$REAL.hugeld-tmp" ] \
  && pass "leftover temporary symlink: removed, not written through" \
  || fail "leftover temporary symlink" "$(ls -l "$C$REAL"*)"
# A $PREFIX others can write: the hooks keep the distribution's loader.
chmod g+w "$C/opt/hugeld"
in_root apt-get install -y -qq --reinstall libc6 > "$TEST_TMP/gw.log" 2>&1
sane "group-writable /opt/hugeld"
if ! is_hugeld && grep -q "refusing /opt/hugeld/ld.so" "$TEST_TMP/gw.log"; then
  pass "group-writable /opt/hugeld: the dpkg hook refuses it, one clear line, distribution's loader"
else
  fail "group-writable /opt/hugeld: the hook refuses" "$(grep hugeld "$TEST_TMP/gw.log" | head -2 | tr '\n' ' ')"
fi
in_root "$TOOL" install > "$TEST_TMP/gwi.log" 2>&1 \
  && fail "group-writable /opt/hugeld: install refuses" "it installed" \
  || { grep -q "refusing: .* written by others" "$TEST_TMP/gwi.log" \
       && pass "group-writable /opt/hugeld: install refuses" \
       || fail "group-writable /opt/hugeld: install refuses" "$(cat "$TEST_TMP/gwi.log")"; }
chmod g-w "$C/opt/hugeld"
in_root apt-get install -y -qq --reinstall libc6 > /dev/null 2>&1
is_hugeld && pass "/opt/hugeld root's again: the next dpkg run puts hugeld back" \
  || fail "/opt/hugeld root's again: hugeld back" ""
# A damaged .distrib: uninstall refuses to put it back.
cp -p "$C$DISTRIB" "$TEST_TMP/distrib.save"
printf 'x' >> "$C$DISTRIB"
if in_root "$TOOL" uninstall > "$TEST_TMP/bad.log" 2>&1; then
  fail "damaged .distrib: uninstall refuses" "it uninstalled"
else
  grep -q "refusing: .*distrib is not the libc6 package's loader" "$TEST_TMP/bad.log" && is_hugeld \
    && in_root /bin/true \
    && pass "damaged .distrib: uninstall refuses in one line, hugeld stays, programs run" \
    || fail "damaged .distrib: uninstall refuses" "$(cat "$TEST_TMP/bad.log")"
fi
cp -p "$TEST_TMP/distrib.save" "$C$DISTRIB"

# Uninstall: the stock loader, byte for byte; no diversion, no hooks.
if in_root "$TOOL" uninstall > "$TEST_TMP/un.log" 2>&1; then
  pass "uninstall"
else
  fail "uninstall" "$(cat "$TEST_TMP/un.log" | tr '\n' ' ')"
fi
[ "$(md5sum "$C$REAL" | cut -d' ' -f1)" = "$stock_sum" ] && [ ! -L "$C$REAL" ] \
  && pass "uninstall: the stock loader is back byte for byte" \
  || fail "uninstall: stock loader byte for byte" "$(ls -l "$C$REAL")"
if [ -n "$(in_root dpkg-divert --list "$REAL")" ] || [ -e "$C/etc/dpkg/dpkg.cfg.d/hugeld" ] \
   || [ -e "$C$REAL.distrib" ] || [ -e "$C/var/lib/hugeld" ] || ls "$C$REAL".hugeld-tmp > /dev/null 2>&1; then
  fail "uninstall: no diversion, hook, state, .distrib or temporary file left" "$(in_root dpkg-divert --list "$REAL")"
else
  pass "uninstall: no diversion, hook, state, .distrib or temporary file left"
fi
check "after uninstall: dpkg --verify libc6 is clean" in_root dpkg --verify libc6
finish
