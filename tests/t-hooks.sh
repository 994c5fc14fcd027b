#!/bin/bash
# The dpkg hooks of hugeld as the system loader (scripts/system-loader.sh,
# sourced for its functions), outside any root, with fake inputs:
# - the pre-invoke hook's answer (may this dpkg run unpack a package
#   built from glibc?) for each spelling of a recursive install that
#   dpkg accepts (-R -i, -iR, -Ri, --recursive, apt's --unpack
#   --recursive), read by the hook from the command line of a fake dpkg
#   that runs it as dpkg does (sh -c), with a libc6 archive directly in
#   the directory, in a subdirectory, behind a link to a directory, or
#   linked to; an unrelated package's run must keep hugeld;
# - the post-invoke hook's list of processes left on the distribution's
#   loader (a copy of the system's loader stands for .distrib): a
#   long-lived process started on it is named; the hook's own subshells
#   and children, which map it too, are not;
# - the package's postinst (scripts/deb/postinst, triggered, with a stub
#   hugeld in a private /opt, a policy file in a private /etc, and stub
#   ischroot and /run; root, for the mount namespace): the cache sync
#   runs on a running system, and is skipped, in one line saying why and
#   what to run, in a chroot, with DPKG_ROOT set, or without systemd.
. "$(dirname "$0")/lib.sh"

SL=$HUGELD_TOP/scripts/system-loader.sh
export SL

# --- the pre-invoke hook's answer ------------------------------------------
# A fake dpkg: a program called dpkg (the hook looks for it among its
# parents) that runs $HOOK with sh -c, as dpkg runs its hooks.
T=$TEST_TMP/bin
mkdir -p "$T"
printf '%s\n' '#include <stdlib.h>' '#include <sys/wait.h>' \
  'int main (void) { int s = system (getenv ("HOOK")); return WIFEXITED (s) ? WEXITSTATUS (s) : 1; }' \
  > "$T/dpkg.c"
if ! cc -o "$T/dpkg" "$T/dpkg.c" 2> "$TEST_TMP/cc.log"; then
  fail "a fake dpkg" "$(head -3 "$TEST_TMP/cc.log" | tr '\n' ' ')"
  finish
fi
export HOOK='bash -c ". \"$SL\"; if run_may_change_libc; then echo may-change; else echo no-change; fi"'

# Two archives: libc6 and an unrelated package.
D=$TEST_TMP/debs
for p in libc6 hpother; do
  mkdir -p "$TEST_TMP/pkg-$p/DEBIAN"
  printf 'Package: %s\nVersion: 9.9\nArchitecture: all\nMaintainer: hugeld tests <t@example.org>\nDescription: hugeld t-hooks\n fake\n' \
    "$p" > "$TEST_TMP/pkg-$p/DEBIAN/control"
  mkdir -p "$D"
  dpkg-deb --root-owner-group --build "$TEST_TMP/pkg-$p" "$D/${p}_9.9_all.deb" > /dev/null \
    || { fail "dpkg-deb --build $p" ""; finish; }
done

# Each package laid out four ways under $W/PKG: directly in the
# directory, two directories down, behind a symbolic link to a directory
# outside it, and a directory of links to the archive (apt's way); and
# the operand itself a link to a directory.
W=$TEST_TMP/w
for p in libc6 hpother; do
  deb=$D/${p}_9.9_all.deb
  mkdir -p "$W/$p/direct" "$W/$p/sub/a/b" "$W/$p/linked" "$W/$p/store" "$W/$p/links"
  cp "$deb" "$W/$p/direct/"
  cp "$deb" "$W/$p/sub/a/b/"
  cp "$deb" "$W/$p/store/"
  touch "$W/$p/linked/README"
  ln -s ../store "$W/$p/linked/more"
  ln -s "$deb" "$W/$p/links/001-$p.deb"
  ln -s store "$W/$p/dirlink"
done

# answer ACTION ARG...: the hook's answer for `dpkg ARG...' run in $W.
answer () {
  (cd "$W" && DPKG_HOOK_ACTION=$1 timeout 60 "$T/dpkg" "${@:2}" 2> /dev/null)
}
spellings=("install -R -i" "install -iR" "install -Ri" "install --recursive --install"
	   "install -i --recursive" "install -GRi"
	   "unpack --status-fd 3 --no-triggers --unpack --auto-deconfigure --recursive")
for s in "${spellings[@]}"; do
  read -r action opts <<< "$s"
  wrong=
  for p in libc6 hpother; do
    [ $p = libc6 ] && want=may-change || want=no-change
    for where in direct sub linked links dirlink; do
      # shellcheck disable=SC2086 # the options are words
      got=$(answer "$action" $opts "$p/$where")
      [ "$got" = "$want" ] || wrong="$wrong $p/$where:${got:-nothing}"
    done
  done
  # Two operands, the libc6 archive in the second, given by its full path.
  got=$(answer "$action" $opts hpother/direct "$W/libc6/linked")
  [ "$got" = may-change ] || wrong="$wrong hpother/direct+libc6/linked:${got:-nothing}"
  [ -z "$wrong" ] \
    && pass "dpkg $opts DIR: libc6 in the directory, two down, behind a link to a directory, linked to, or the directory a link: may change glibc; an unrelated package: no change" \
    || fail "dpkg $opts DIR" "wrong answers:$wrong"
done

# Without --recursive: the archives named; a directory is not searched
# (dpkg refuses it), so it counts as may change.
got="$(answer install -i hpother/direct/hpother_9.9_all.deb) $(answer install -i libc6/store/libc6_9.9_all.deb) $(answer install -i hpother/direct)"
[ "$got" = "no-change may-change may-change" ] \
  && pass "dpkg -i ARCHIVE: an unrelated archive keeps hugeld, libc6's does not; dpkg -i DIR (not recursive) may change" \
  || fail "dpkg -i ARCHIVE" "$got (want: no-change may-change may-change)"
# After the first operand, or after --, nothing is an option: -R there
# is a file name (and not one dpkg can read, so: may change).
got="$(answer install -i hpother/direct/hpother_9.9_all.deb -R) $(answer install -i -- -R)"
[ "$got" = "may-change may-change" ] \
  && pass "dpkg -i ARCHIVE -R, dpkg -i -- -R: -R is an operand there, not recursive" \
  || fail "dpkg -i ARCHIVE -R" "$got"
# A loop of links (dpkg skips it; the hook cannot tell that from an
# unreadable directory, so: may change), answered at once.
mkdir -p "$W/loop/a"
cp "$D/hpother_9.9_all.deb" "$W/loop/a/"
ln -s .. "$W/loop/a/up"
start=$SECONDS
got=$(answer install -R -i loop)
[ "$got" = may-change ] && [ $((SECONDS - start)) -lt 30 ] \
  && pass "dpkg -R -i DIR with a loop of links: may change, answered in $((SECONDS - start)) s" \
  || fail "dpkg -R -i DIR with a loop of links" "${got:-nothing} after $((SECONDS - start)) s"
# Not under dpkg at all: may change.
got=$(DPKG_HOOK_ACTION=install bash -c ". \"$SL\"; if run_may_change_libc; then echo may-change; else echo no-change; fi" 2> /dev/null)
[ "$got" = may-change ] && pass "no dpkg among the hook's parents: may change" \
  || fail "no dpkg among the hook's parents" "${got:-nothing}"

# --- the post-invoke hook's list ----------------------------------------------
# After a libc6 run the hook itself runs on .distrib (dpkg started it
# through the switched loader path), so every subshell it forks maps it.
FAKE=$TEST_TMP/ld-linux-x86-64.so.2.distrib
cp "$(readlink -f "$SYSTEM_LDSO")" "$FAKE"
export FAKE
"$FAKE" /bin/sleep 600 < /dev/null > /dev/null 2>&1 &
svc=$!
at_exit "kill $svc 2> /dev/null"
for _ in $(seq 50); do grep -qsF "$FAKE" "/proc/$svc/maps" && break; sleep 0.1; done
want="$svc ($(cat "/proc/$svc/comm"))"
"$FAKE" /bin/bash -c '. "$SL"; DISTRIB=$FAKE
  "$FAKE" /bin/sleep 600 < /dev/null > /dev/null 2>&1 &
  own=$!
  for i in 1 2 3 4 5; do echo "list: $(not_hugeld | tr "\n" "|")"; done
  say_not_hugeld "restart them" 2>&1
  kill $own
  DISTRIB=$FAKE.none; echo "none: $(not_hugeld)"' > "$TEST_TMP/list.out" 2>&1
bad=$(grep '^list: ' "$TEST_TMP/list.out" | grep -vxF "list: $want|")
if [ "$(grep -c '^list: ' "$TEST_TMP/list.out")" = 5 ] && [ -z "$bad" ]; then
  pass "not_hugeld, 5 times: names the process started on .distrib ($want), not the hook's own subshells nor its child"
else
  fail "not_hugeld names only $want" "$(tr '\n' ' ' < "$TEST_TMP/list.out")"
fi
grep -qxF "hugeld: 1 process(es) started while the distribution's loader was in place run without hugeld until restarted: $want; restart them" "$TEST_TMP/list.out" \
  && pass "the post-invoke hook's line: 1 process, $want, and the advice" \
  || fail "the post-invoke hook's line" "$(grep -v '^list: ' "$TEST_TMP/list.out" | tr '\n' ' ')"
grep -qx "none: " "$TEST_TMP/list.out" \
  && pass "not_hugeld with no process on that loader: nothing" \
  || fail "not_hugeld with no process on that loader" "$(grep '^none: ' "$TEST_TMP/list.out")"

# --- the postinst's cache sync ------------------------------------------------
if [ "$(id -u)" != 0 ]; then
  skip "postinst: cache sync skipped where not a running system" "needs root (a mount namespace)"
  finish
fi
P=$TEST_TMP/postinst
mkdir -p "$P/opt/hugeld/bin" "$P/up" "$P/work" "$P/stubs" "$P/run-systemd/systemd/system" "$P/run-none"
printf '#!/bin/sh\necho "sync ran: $*" > %s/synced\necho synced\n' "$P" > "$P/opt/hugeld/bin/hugeld"
printf '#!/bin/sh\nexit "${ISCHROOT_RC:-1}"\n' > "$P/stubs/ischroot"
chmod 755 "$P/opt/hugeld/bin/hugeld" "$P/stubs/ischroot"
export P HUGELD_TOP
# postinst_in CASE RUN ISCHROOT_RC DPKG_ROOT: run the postinst's
# trigger with /run from $P/RUN and ischroot answering ISCHROOT_RC;
# its output in $P/CASE.out, exit status in $P/CASE.rc, and
# $P/CASE.synced if the sync ran.
postinst_in () {
  rm -f "$P/synced"
  unshare -m bash -c '
    mount --bind "$P/opt" /opt || exit 3
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$P/up,workdir=$P/work" /etc || exit 4
    mount --bind "$P/$2" /run || exit 5
    printf "cache /usr/lib/nothing.so\n" > /etc/hugeld.conf
    env -u DPKG_ROOT ${4:+DPKG_ROOT=$4} PATH="$P/stubs:$PATH" ISCHROOT_RC=$3 \
      timeout 30 sh "$HUGELD_TOP/scripts/deb/postinst" triggered /usr/lib > "$P/$1.out" 2>&1
    echo $? > "$P/$1.rc"' - "$@" > "$P/ns.log" 2>&1
  local rc=$?
  [ ! -f "$P/synced" ] || mv "$P/synced" "$P/$1.synced"
  return $rc
}
if ! postinst_in running run-systemd 1; then
  skip "postinst: cache sync skipped where not a running system" "no private /opt, /etc and /run in a mount namespace here: $(head -c 200 "$P/ns.log")"
  finish
fi
[ "$(cat "$P/running.rc")" = 0 ] && [ -f "$P/running.synced" ] \
  && grep -q "^hugeld: libraries changed (/usr/lib): hugeld cache sync$" "$P/running.out" \
  && pass "postinst on a running system (not a chroot, no DPKG_ROOT, systemd running): the trigger runs hugeld cache sync" \
  || fail "postinst on a running system: the sync runs" "rc $(cat "$P/running.rc"): $(tr '\n' '|' < "$P/running.out")"
# skipped NAME RUN ISCHROOT_RC DPKG_ROOT WHY: the sync skipped, one line.
skipped () {
  postinst_in "$1" "$2" "$3" "$4"
  local line="hugeld: libraries changed (/usr/lib): cache sync skipped: $5; run 'hugeld cache sync' on the running system (hugeld-cache.service does it at boot)"
  if [ "$(cat "$P/$1.rc")" = 0 ] && [ ! -f "$P/$1.synced" ] && [ "$(cat "$P/$1.out")" = "$line" ]; then
    pass "postinst, $5: no sync, one line saying why and what to run"
  else
    fail "postinst, $5: no sync, one line" "rc $(cat "$P/$1.rc"), synced: $([ -f "$P/$1.synced" ] && echo yes || echo no): $(tr '\n' '|' < "$P/$1.out")"
  fi
}
skipped chroot run-systemd 0 "" "in a chroot (ischroot)"
skipped dpkgroot run-systemd 1 /target "installed into /target (DPKG_ROOT)"
skipped nosystemd run-none 1 "" "systemd is not running (no /run/systemd/system)"

finish
