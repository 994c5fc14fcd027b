#!/bin/bash
# The Debian package (make deb, scripts/deb.sh), in a throwaway root of
# the host's release (debian_root in lib.sh):
# - its name and Depends name exactly the libc6 it was built from;
#   lintian finds nothing (where lintian can be installed); its one file
#   in /etc, the AppArmor abstraction base.d/hugeld, is a conffile that
#   apparmor_parser accepts in a profile including <abstractions/base>
#   (where apparmor is installed; make check-boot loads it for real);
# - apt-get installs it in the root (a chroot) with a policy file that
#   declares a cache: the postinst skips the cache sync, says so in one
#   line, and takes no page of the host's pool;
# - apt-get installs it; it does not touch the system loader; the
#   loader, the command, the man page and the completion work; the demo
#   (scripts/demo.sh, with the package's loader) puts the big-code
#   library on 2 MiB pages and runs;
# - purged, nothing of it is left (the abstraction neither);
# - installed again and made the system loader (install-system), then
#   purged: the distribution's loader is back byte for byte, the
#   diversion and the dpkg hooks are gone, apt-get succeeds, programs run.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
  skip all "must run as root (debootstrap, chroot, pool)"
  finish
fi
for f in bigcheck-shared libbig.so; do
  [ -e "$FIXTURES/$f" ] || { fail fixtures "$FIXTURES/$f missing (make fixtures)"; finish; }
done
libc=$(pkg_version libc6)
ver=$(. "$HUGELD_TOP/scripts/config.sh" && echo "$HUGELD_VERSION")
DEB=$HUGELD_TOP/build/hugeld_${ver}+${libc}_amd64.deb

# --- the package itself -----------------------------------------------------
rm -f "$DEB"
if "$HUGELD_TOP/scripts/deb.sh" > "$TEST_TMP/deb.log" 2>&1 && [ -f "$DEB" ]; then
  pass "make deb: build/$(basename "$DEB")"
else
  fail "make deb" "$(tail -3 "$TEST_TMP/deb.log" | tr '\n' ' ')"
  finish
fi
dep=$(dpkg-deb -f "$DEB" Depends)
if [[ ", $dep, " == *", libc6 (= $libc), "* ]]; then
  pass "Depends: libc6 (= $libc), exactly the libc6 it was built from"
else
  fail "Depends names the exact libc6" "$dep"
fi
files=$(dpkg-deb -c "$DEB" | awk '{ print $6 }')
missing=
unit=$(grep -E '^\./(usr/)?lib/systemd/system/hugeld-cache\.service$' <<< "$files")
for f in ./opt/hugeld/ld.so ./opt/hugeld/bin/hugeld ./opt/hugeld/lib/python3/hugeld/cli.py \
	 ./opt/hugeld/lib/python3/hugeld/__pycache__/cli.cpython-$(/usr/bin/python3 -c 'import sys; print("%d%d" % sys.version_info[:2])').pyc \
	 ./opt/hugeld/libexec/hugeld-plan \
	 ./opt/hugeld/libexec/hugeld-conf ./opt/hugeld/libexec/hugeld-thp \
	 ./opt/hugeld/libexec/hugeld-system-loader ./opt/hugeld/share/man/man1/hugeld.1 \
	 ./opt/hugeld/share/bash-completion/completions/hugeld ./usr/bin/hugeld \
	 ./usr/share/man/man1/hugeld.1.gz ./usr/share/man/man5/hugeld.conf.5.gz \
	 ./usr/share/doc/hugeld/copyright "${unit:-hugeld-cache.service}" \
	 "${unit%/*}/hugeld-metrics.service" "${unit%/*}/hugeld-metrics.timer" \
	 "${unit%/*}/hugeld-thp-repair.service" "${unit%/*}/hugeld-thp-repair.timer"; do
  grep -qx -- "$f" <<< "$files" || missing="$missing $f"
done
[ -z "$missing" ] && pass "contents: /opt/hugeld (loader, command compiled, helpers, system-loader, man pages, completion), /usr/bin/hugeld, man pages, copyright, $unit, the metrics timer, the thp repair's service and timer" \
  || fail "contents" "missing:$missing"
# Nothing outside /opt/hugeld and /usr/share except the /usr/bin link,
# the units (boot, metrics, thp repair) and, in /etc, the AppArmor
# abstraction (a conffile).
AA=etc/apparmor.d/abstractions/base.d/hugeld
other=$(grep -v -e '^\./$' -e '^\./opt/' -e '^\./usr/$' -e '^\./usr/share/' -e '^\./usr/bin/$' -e '^\./usr/bin/hugeld$' \
  -e '^\./\(usr/\)\?\(lib/\(systemd/\(system/\(hugeld-cache\.service\|hugeld-metrics\.service\|hugeld-metrics\.timer\|hugeld-thp-repair\.service\|hugeld-thp-repair\.timer\)\?\)\?\)\?\)\?$' \
  -e '^\./\(etc/\(apparmor\.d/\(abstractions/\(base\.d/\(hugeld\)\?\)\?\)\?\)\?\)\?$' <<< "$files")
[ -z "$other" ] && pass "no files outside /opt/hugeld, /usr/share, /usr/bin/hugeld, the units and /$AA (no loader)" \
  || fail "files outside /opt/hugeld" "$(echo "$other" | tr '\n' ' ')"
# The AppArmor abstraction: a conffile, and what apparmor_parser accepts
# in a profile that includes <abstractions/base> (which includes
# base.d), with the host's own abstractions.
conff=$(dpkg-deb -I "$DEB" conffiles 2> /dev/null)
if ! grep -qx "./$AA" <<< "$files" || [ "$conff" != "/$AA" ]; then
  fail "/$AA: in the package, its only conffile" "conffiles: $conff"
elif ! command -v apparmor_parser > /dev/null || [ ! -f /etc/apparmor.d/abstractions/base ]; then
  skip "/$AA: apparmor_parser" "apparmor is not installed here (its check runs in make check-boot)"
else
  A=$TEST_TMP/apparmor.d
  mkdir -p "$A"
  cp -a /etc/apparmor.d/abi /etc/apparmor.d/tunables /etc/apparmor.d/abstractions "$A/"
  mkdir -p "$A/abstractions/base.d"
  dpkg-deb --fsys-tarfile "$DEB" | tar -xO "./$AA" > "$A/abstractions/base.d/hugeld"
  printf 'abi <abi/3.0>,\ninclude <tunables/global>\nprofile hugeld-t-deb /usr/bin/true {\n  include <abstractions/base>\n}\n' > "$A/t-deb"
  if apparmor_parser -Q -K -b "$A" -I "$A" "$A/t-deb" > "$TEST_TMP/aa.log" 2>&1 \
     && apparmor_parser -Q -K -p -b "$A" -I "$A" "$A/t-deb" 2> /dev/null | grep -q '^ */dev/hugepages/hugeld/i\[0-9a-f\]\*/.*{text,rodata}-.* rm,$'; then
    pass "/$AA: a conffile; apparmor_parser accepts a profile that includes <abstractions/base> with it"
  else
    fail "/$AA: apparmor_parser" "$(grep -v 'Cache read/write disabled' "$TEST_TMP/aa.log" | head -3 | tr '\n' ' ')(the profile is refused, or once preprocessed it has no rule that maps the cache's zones: rm)"
  fi
fi

command -v lintian > /dev/null || apt-get install -y -qq --no-install-recommends lintian > /dev/null 2>&1
if ! command -v lintian > /dev/null; then
  skip lintian "lintian cannot be installed"
elif lintian --fail-on error,warning "$DEB" > "$TEST_TMP/lintian.log" 2>&1; then
  pass "lintian: no errors or warnings (overrides: /opt, and ld.so's own as in libc6)"
else
  fail "lintian" "$(grep -E '^[EW]:' "$TEST_TMP/lintian.log" | head -5 | tr '\n' ' ')"
fi

# --- installed in a root of this release ----------------------------------
C=$HUGELD_TOP/build/chroot-deb
debian_root "$C" || finish
REAL=$(root_loader)
[ -n "$REAL" ] || { fail "the root's loader" "libc6 lists no ld-linux-x86-64.so.2"; finish; }
stock_sum=$(md5sum < "$C$REAL" | cut -d' ' -f1)
cp "$DEB" "$C/tmp/"
in_root apt-get update -qq > /dev/null 2>&1
apt_install () {
  in_root apt-get install -y -qq "/tmp/$(basename "$DEB")" > "$TEST_TMP/$1.log" 2>&1
}
# Installed in a chroot (as in an image build) with a policy file that
# declares a cache: the postinst skips the sync (it would mount a
# hugetlbfs over the root's /dev/hugepages and fill it from the host's
# pool), says so, and takes no page of the pool.
reserve_hugepages 40 || { fail pool "cannot reserve 40 huge pages"; finish; }
mkdir -p "$C/usr/local/lib"
cp "$FIXTURES/libbig.so" "$C/usr/local/lib/"
printf 'libs libbig.so\ncache /usr/local/lib/libbig.so\n' > "$C/etc/hugeld.conf"
chmod 644 "$C/etc/hugeld.conf"
free0=$(meminfo HugePages_Free)
if apt_install install1 && [ -x "$C/opt/hugeld/ld.so" ]; then
  pass "apt-get install ./$(basename "$DEB") (with its dependencies)"
else
  fail "apt-get install" "$(tail -3 "$TEST_TMP/install1.log" | tr '\n' ' ')"
  finish
fi
free1=$(meminfo HugePages_Free)
if [ "$free1" = "$free0" ] && ! mountpoint -q "$C/dev/hugepages" \
   && grep -q "^hugeld: installed: cache sync skipped: in a chroot (ischroot); run 'hugeld cache sync'" "$TEST_TMP/install1.log"; then
  pass "installed in a chroot, a cache declared: the sync skipped, said in one line; no page of the host's pool taken ($free0 free before and after)"
else
  fail "installed in a chroot: no sync" "HugePages_Free $free0 -> $free1, $(mountpoint "$C/dev/hugepages" 2>&1); $(grep 'hugeld:' "$TEST_TMP/install1.log" | head -3 | tr '\n' ' ')"
fi
umount "$C/dev/hugepages" 2> /dev/null
rm -f "$C/etc/hugeld.conf" "$C/usr/local/lib/libbig.so"
[ "$(md5sum < "$C$REAL" | cut -d' ' -f1)" = "$stock_sum" ] && [ ! -e "$C$REAL.distrib" ] \
  && [ -z "$(in_root dpkg-divert --list "$REAL")" ] \
  && pass "installing it leaves the system loader alone (same bytes, no diversion)" \
  || fail "the system loader is untouched" "$(in_root dpkg-divert --list "$REAL")"
v=$(in_root /opt/hugeld/ld.so --version | head -1)
hv=$(in_root hugeld --version 2>&1)
if [[ $v == *"GLIBC $libc hugeld"* ]] && [[ $hv == "hugeld $ver" ]] \
   && in_root /opt/hugeld/ld.so /bin/true \
   && [ -s "$C/usr/share/man/man1/hugeld.1.gz" ] \
   && [ -f "$C/usr/share/bash-completion/completions/hugeld" ]; then
  pass "installed: /opt/hugeld/ld.so runs programs ($v), hugeld on PATH ($hv), man page, completion"
else
  fail "installed: loader and command" "ld.so: $v; hugeld: $hv"
fi
# What the package's own command plans, with its own helper.
plan=$(in_root env HUGELD_LDSO= HUGELD_PLAN= hugeld plan /bin/true --libs 'libc.so*' 2>&1)
grep -q '^per process: ' <<< "$plan" && pass "hugeld plan (the package's tool and helper) works" \
  || fail "hugeld plan in the root" "$(head -3 <<< "$plan" | tr '\n' ' ')"

# The demo with the package's loader, run inside the root (the checkout
# bound read-only, its fixtures built on this host, whose libc6 is the
# root's).
mkdir -p "$C/hugeld" "$C/demo"
mount --bind "$HUGELD_TOP" "$C/hugeld" && mount -o remount,bind,ro "$C/hugeld"
at_exit "umount -l '$C/hugeld' 2> /dev/null"
reserve_hugepages 40 || { fail pool "cannot reserve 40 huge pages"; finish; }
in_root env HUGELD_LDSO=/opt/hugeld/ld.so BUILDDIR=/demo RUNS=3 \
  bash -c 'mkdir -p /demo && cp -a /hugeld/build/tests /demo/ && /hugeld/scripts/demo.sh' \
  > "$TEST_TMP/demo.log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'ok: text on 2 MiB pages' "$TEST_TMP/demo.log" \
   && grep -q 'huge pages used' "$TEST_TMP/demo.log"; then
  pass "make demo's script with the package's loader: text on 2 MiB pages, runs ($(grep -m1 'ok: text' "$TEST_TMP/demo.log" | sed 's/^ *//'))"
else
  fail "demo with the package's loader" "exit $rc: $(grep -E 'ok:|FAIL|hugeld:|Error' "$TEST_TMP/demo.log" | head -4 | tr '\n' ' ')"
fi
umount -l "$C/hugeld"

# Purged: nothing left.
in_root apt-get purge -y -qq hugeld > "$TEST_TMP/purge1.log" 2>&1
rc=$?
left=$(cd "$C" && ls -d opt/hugeld usr/bin/hugeld usr/share/doc/hugeld var/lib/hugeld etc/dpkg/dpkg.cfg.d/hugeld \
  "$AA" lib/systemd/system/hugeld-cache.service usr/lib/systemd/system/hugeld-cache.service \
  etc/systemd/system/*/hugeld-cache.service lib/systemd/system/hugeld-thp-repair.* \
  usr/lib/systemd/system/hugeld-thp-repair.* etc/systemd/system/*/hugeld-thp-repair.* \
  lib/systemd/system/hugeld-metrics.* usr/lib/systemd/system/hugeld-metrics.* \
  etc/systemd/system/*/hugeld-metrics.* 2> /dev/null)
if [ $rc = 0 ] && [ -z "$left" ] && [ -z "$(in_root dpkg-query -W -f='${Status}' hugeld 2> /dev/null | grep -v not-installed)" ]; then
  pass "apt-get purge: nothing of hugeld left"
else
  fail "apt-get purge" "exit $rc, left: $left $(tail -2 "$TEST_TMP/purge1.log" | tr '\n' ' ')"
fi

# Installed again and made the system loader, then purged.
apt_install install2 || fail "apt-get install again" "$(tail -3 "$TEST_TMP/install2.log" | tr '\n' ' ')"
in_root /opt/hugeld/libexec/hugeld-system-loader install > "$TEST_TMP/sys.log" 2>&1
if in_root /lib64/ld-linux-x86-64.so.2 --version | head -1 | grep -q hugeld; then
  pass "install-system from the package: the system loader is hugeld"
else
  fail "install-system from the package" "$(tail -3 "$TEST_TMP/sys.log" | tr '\n' ' ')"
fi
in_root apt-get purge -y -qq hugeld > "$TEST_TMP/purge2.log" 2>&1
rc=$?
sum=$(md5sum < "$C$REAL" | cut -d' ' -f1)
left=$(cd "$C" && ls -d opt/hugeld var/lib/hugeld etc/dpkg/dpkg.cfg.d/hugeld "${REAL#/}.distrib" 2> /dev/null)
div=$(in_root dpkg-divert --list "$REAL")
if [ $rc = 0 ] && [ "$sum" = "$stock_sum" ] && [ ! -L "$C$REAL" ] && [ -z "$left" ] && [ -z "$div" ] \
   && in_root bash -c 'perl -e 1 && /bin/true' && in_root dpkg --verify libc6 > "$TEST_TMP/verify.log" 2>&1 \
   && in_root apt-get install -y -qq --reinstall libc6 > "$TEST_TMP/re.log" 2>&1; then
  pass "purge after install-system: the distribution's loader back byte for byte, no diversion, no hooks, no state; dpkg --verify libc6 clean; apt-get still works"
else
  fail "purge after install-system" "apt exit $rc, loader $sum (stock $stock_sum), left: $left, divert: $div; $(grep -i 'hugeld\|error' "$TEST_TMP/purge2.log" | head -3 | tr '\n' ' ') $(cat "$TEST_TMP/verify.log" 2> /dev/null | head -2)"
fi
grep -q "putting the distribution's loader back" "$TEST_TMP/purge2.log" \
  && pass "purge says it put the distribution's loader back" \
  || fail "purge message" "$(head -5 "$TEST_TMP/purge2.log" | tr '\n' ' ')"
finish
