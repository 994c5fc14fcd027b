# Shared helpers for hugeld's shell tests.  Sourced by tests/t-*.sh.
#
# Every test script prints one line per check:
#   PASS: <test>: <check>
#   FAIL: <test>: <check>: <why>
#   SKIP: <test>: <check>: <why>
# and exits non-zero if any check failed.  tests/run.sh adds them up.

set -u
HUGELD_TOP=${HUGELD_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
. "$HUGELD_TOP/tests/clean-env.sh"
HUGELD_LDSO=${HUGELD_LDSO:-/opt/hugeld/ld.so}
SYSTEM_LDSO=${SYSTEM_LDSO:-/lib64/ld-linux-x86-64.so.2}
HUGELD_OBJDIR=${HUGELD_OBJDIR:-$HUGELD_TOP/build/obj}
TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
TEST_TMP=${TEST_TMP:-$(mktemp -d "/tmp/hugeld-$TEST_NAME.XXXXXX")}
mkdir -p "$TEST_TMP"
# Fixtures are built once per checkout into build/tests.
FIXTURES=${FIXTURES:-$HUGELD_TOP/build/tests}

_failed=0
_cleanups=()

pass () { echo "PASS: $TEST_NAME: $1"; }
# A failure of a test that owns the pool while other processes' huge
# pages changed may be theirs (scripts/pool.sh, pool_disturbed): the
# test is run again (RETRY, and the exit status 75: tests/run.sh runs
# it again, HUGELD_TEST_TRIES times in all), and on its last try it
# fails as any failure does, saying what changed.  Never a skip: a
# busy machine must not hide a regression.
_retry=0
fail () {
  local why
  if why=$(pool_disturbed || head -1 "$TEST_TMP/pool-disturbed" 2> /dev/null); then
    if [ "${HUGELD_TEST_TRY:-1}" -lt "${HUGELD_TEST_TRIES:-1}" ]; then
      echo "RETRY: $TEST_NAME: $1: $why, which may explain: ${2:-}"; _retry=1
    else
      echo "FAIL: $TEST_NAME: $1: ${2:-} (and $why, on each of ${HUGELD_TEST_TRIES:-1} tries)"; _failed=1
    fi
  else
    echo "FAIL: $TEST_NAME: $1: ${2:-}"; _failed=1
  fi
}
skip () { echo "SKIP: $TEST_NAME: $1: ${2:-}"; }

# check NAME CMD...: PASS if CMD succeeds, FAIL (with its output) if not.
check () {
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then pass "$name"
  else fail "$name" "$(echo "$out" | tail -5 | tr '\n' ' ')"
  fi
}

at_exit () { _cleanups+=("$1"); }
_run_cleanups () {
  local i
  for (( i=${#_cleanups[@]}-1; i>=0; i-- )); do eval "${_cleanups[$i]}"; done
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$TEST_TMP"
  # Only disturbed failures: ask for another try.
  [ "$_failed" != 0 ] || [ "$_retry" = 0 ] || exit 75
}
trap _run_cleanups EXIT

finish () { exit $_failed; }

# need_root WHY: unless run as root, skip the whole test and end it here
# ("must run as root WHY"; tests/run.sh counts such a skip as a failure
# in a run as root).
need_root () {
  [ "$(id -u)" = 0 ] && return 0
  skip all "must run as root $1"
  finish
}

# need_pool N: the test needs root and N free huge pages of its own
# (reserve_hugepages); otherwise it says why and ends.
need_pool () {
  need_root "to reserve huge pages"
  reserve_hugepages "$1" || { fail reserve "cannot reserve $1 huge pages"; finish; }
}

# need_loaders: unless $HUGELD_LDSO and $SYSTEM_LDSO are both executable
# files, fail (check "loaders") and end the test here.
need_loaders () {
  local l
  for l in "$HUGELD_LDSO" "$SYSTEM_LDSO"; do
    [ -x "$l" ] || { fail "loaders" "$l is not an executable file"; finish; }
  done
}

# need_fixtures FILE...: unless each FILE is in $FIXTURES (built by make
# fixtures), fail (check "fixtures") and end the test here.
need_fixtures () {
  local f
  for f in "$@"; do
    [ -e "$FIXTURES/$f" ] || { fail fixtures "$FIXTURES/$f missing (make fixtures)"; finish; }
  done
}

meminfo () { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# fixed_replace FROM TO: copy stdin to stdout, replacing every occurrence
# of the fixed string FROM (no regex: paths contain dots) by TO.
fixed_replace () {
  FROM=$1 TO=$2 awk '
    BEGIN { from = ENVIRON["FROM"]; to = ENVIRON["TO"] }
    { out = ""; s = $0
      while ((i = index(s, from)) > 0) {
        out = out substr(s, 1, i - 1) to; s = substr(s, i + length(from))
      }
      print out s }'
}

. "$HUGELD_TOP/scripts/pool.sh"
. "$HUGELD_TOP/scripts/host.sh"

# reserve_hugepages N: make sure the 2 MiB pool has exactly N pages (as
# root), restoring the old size when the test exits.  Later changes
# within the test: pool_set N.
reserve_hugepages () {
  if [ -z "${_hugeld_pool_saved:-}" ]; then
    pool_save
    at_exit pool_restore
    pool_watch
  fi
  pool_set "$1"
}

# pool_watch: while the test runs, note in $TEST_TMP/pool-disturbed
# when other processes map another amount of huge pages than when it
# took the pool (looked at whenever the pool's counts change, every
# 0.2 s).  fail then says SKIP: what the test saw may be theirs.  (Not
# a child of the test's shell, whose `wait' would wait for it.)
pool_watch () {
  ( ( echo "$BASHPID" > "$TEST_TMP/pool-watch.pid"
      last=
      while sleep 0.2 && kill -0 $$ 2> /dev/null; do
        c=
        while read -r k v _; do
          case $k in HugePages_Total:|HugePages_Free:|HugePages_Rsvd:) c="$c $v" ;; esac
        done < /proc/meminfo
        [ "$c" != "$last" ] || continue
        last=$c
        now=$(pool_others_kb)
        [ "$now" = "$_hugeld_pool_others_kb" ] \
          || echo "other processes' huge pages went from $_hugeld_pool_others_kb kB to $now kB while the test ran" >> "$TEST_TMP/pool-disturbed"
      done ) > /dev/null 2>&1 & )
  at_exit 'kill "$(cat "$TEST_TMP/pool-watch.pid" 2> /dev/null)" 2> /dev/null'
}

# pool_none WHAT: make a case where ld.so finds no huge page pool at
# all (after pool_set 0).  Where other processes keep pages in the pool
# (they stay there), the case isolates itself: RUN_PREFIX (run_report)
# is set to run each program in a mount namespace of its own where the
# pool's files read 0 (tests/isolate.sh --no-pool), and the caller sets it back
# (RUN_PREFIX=()) after the case.  False, with WHAT failed, only where
# that cannot be done (not root, no unshare).
pool_none () {
  local h=/sys/kernel/mm/hugepages/hugepages-2048kB n
  n=$(cat "$h/nr_hugepages" "$h/nr_overcommit_hugepages" 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')
  [ "$n" = 0 ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null; then
    fail "$1" "the machine keeps a pool of $n pages that other processes use, and hiding it from ld.so needs root and unshare"
    return 1
  fi
  echo "$TEST_NAME: $1: other processes keep $n pool pages: ld.so is shown no pool in a mount namespace of its own (tests/isolate.sh --no-pool)"
  RUN_PREFIX=(unshare -m "$HUGELD_TOP/tests/isolate.sh" --no-pool)
}

# take_policy_file: the test may write /etc/hugeld.conf (CONF): what
# was there is moved aside and put back when the test exits.  One test
# at a time, of any checkout on the machine, owns the file: the lock is
# flock(2) on /etc, held until the test exits (as scripts/pool.sh's on
# the pool), so that a test from another tree can neither change the
# file under this one nor leave this one's file behind.
take_policy_file () {
  CONF=/etc/hugeld.conf
  if [ -z "${_hugeld_conf_fd:-}" ] && command -v flock > /dev/null \
     && exec {_hugeld_conf_fd}< /etc && ! flock -n "$_hugeld_conf_fd"; then
    local t0=$SECONDS
    echo "hugeld: waiting for another test that is using $CONF" >&2
    flock -w "${HUGELD_POOL_LOCK_WAIT:-1800}" "$_hugeld_conf_fd" \
      || echo "hugeld: $CONF still in use after ${HUGELD_POOL_LOCK_WAIT:-1800} s; going on" >&2
    [ -z "${HUGELD_POOL_WAITED:-}" ] || echo $((SECONDS - t0)) >> "$HUGELD_POOL_WAITED"
  fi
  if [ -e "$CONF" ] || [ -L "$CONF" ]; then
    mv "$CONF" "$TEST_TMP/saved.conf"
    at_exit "rm -f $CONF; mv $TEST_TMP/saved.conf $CONF"
  else
    at_exit "rm -f $CONF"
  fi
}

# drop_page_cache FILE: write FILE out and drop its pages from the page
# cache (those no process maps), so that the next read starts cold.
drop_page_cache () {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# file_thp_possible FILE: "yes" if this kernel and FILE's file system
# give page-cache huge pages at all: a plain 2 MiB-aligned mapping of
# FILE (4 MiB or more; its cache dropped first) with MADV_HUGEPAGE,
# without ld.so, comes up FilePmdMapped; else "no".
file_thp_possible () {
  drop_page_cache "$1"
  python3 - "$1" <<'EOF'
import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
H = 2 << 20
area = libc.mmap(None, 3 * H, 0, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
a = (area + H - 1) & ~(H - 1)
p = libc.mmap(a, 2 * H, mmap.PROT_READ, mmap.MAP_PRIVATE | 0x10, fd, H)
libc.madvise(ctypes.c_void_p(p), 2 * H, 14)
s = 0
for off in range(0, 2 * H, 4096):
    s += ctypes.c_ubyte.from_address(p + off).value
on = False; kb = 0
for line in open("/proc/self/smaps"):
    if "-" in line.split()[0] and not line.startswith(" "):
        on = line.startswith("%x-" % p)
    elif on and line.startswith("FilePmdMapped:"):
        kb += int(line.split()[1])
print("yes" if kb >= 2048 else "no")
EOF
}

# hugetlb_cgroup_root: set cgroot to a cgroup v2 hierarchy with the
# hugetlb controller enabled for its children (the one mounted, or one
# mounted here for the test; put back as it was when the test ends).
# Says why (SKIP or FAIL) and returns 1 where there is none.
hugetlb_cgroup_root () {
  cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
  if [ -z "$cgroot" ]; then
    cgroot=$TEST_TMP/cgroup2
    mkdir -p "$cgroot"
    mount -t cgroup2 none "$cgroot" 2>/dev/null && at_exit "umount '$cgroot'"
  fi
  if ! grep -qw hugetlb "$cgroot/cgroup.controllers" 2>/dev/null; then
    skip all "no cgroup v2 hierarchy with the hugetlb controller (bound to cgroup v1?)"
    return 1
  fi
  if ! grep -qw hugetlb "$cgroot/cgroup.subtree_control"; then
    echo +hugetlb > "$cgroot/cgroup.subtree_control" \
      || { fail setup "cannot enable the hugetlb controller in $cgroot"; return 1; }
    at_exit "echo -hugetlb > '$cgroot/cgroup.subtree_control' 2>/dev/null || true"
  fi
}

# Programs as another user.  Services run as their own user, not as
# root: a test runs the checks of what a program gets a second time as
# an unprivileged user, with AS_USER set to that user's name
# (AS_USER=nobody; empty, the default: the shell's own user).  The
# shell stays root and keeps the rest: the pool, cgroups, the cache,
# the files.  as_user USER sets AS_USER and AS, the prefix of the
# check names of that run ("as nobody: "; as_user "" goes back to
# root, AS "").  A check that holds only for root says why in its
# name: "(root: WHY)".  (t-thp keeps its own RUN_AS, the words of
# setpriv.)
AS_USER=
AS=
as_user () { AS_USER=$1 AS=${1:+as $1: }; }

# as_users: AS_USERS, the users a test that does not need root runs its
# checks as: the shell's own user (""), and nobody where the shell may
# become another user (root).  Run by another user, the runs as nobody
# are skipped, once, saying why.
as_users () {
  AS_USERS=("")
  if [ "$(id -u)" = 0 ]; then AS_USERS+=(nobody)
  else skip "as nobody" "only root may run programs as another user (setpriv)"
  fi
}

# run_as_argv: the array RUN_AS_ARGV, the words that run the rest of a
# command line as $AS_USER (setpriv: the user's uid and gid, no
# supplementary groups, so no capability once the command is executed;
# none when AS_USER is empty), for env, sh -c 'exec "$@"' and such
# (setpriv by its full path: for wrappers that execv, as wxdeny).
# First run_as_setup; returns 1 if that fails.
# run_as CMD...: CMD as $AS_USER.
run_as_argv () {
  RUN_AS_ARGV=()
  [ -n "$AS_USER" ] || return 0
  run_as_setup || return 1
  RUN_AS_ARGV=("$(command -v setpriv)" --reuid="$(id -u "$AS_USER")" --regid="$(id -g "$AS_USER")" --clear-groups --)
}
run_as () {
  run_as_argv || return 1
  ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$@"
}

# run_as_setup: what a program run as another user needs of the test's
# directory: $TEST_TMP (mktemp's 0700) reachable, but not listable
# (0711), so that the files the program reads there can be (tests make
# them with the default umask, readable by all; the fixtures in
# build/tests are), and RUN_AS_DIR, $TEST_TMP/as, a directory every
# user may write in (sticky, as /tmp) for what the program writes: its
# LD_DEBUG_OUTPUT report.  Says why (FAIL) and returns 1 if it cannot.
RUN_AS_DIR=$TEST_TMP/as
run_as_setup () {
  [ -d "$RUN_AS_DIR" ] && return 0
  command -v setpriv > /dev/null || { fail "run as $AS_USER" "no setpriv (util-linux)"; return 1; }
  id -u "$AS_USER" > /dev/null 2>&1 || { fail "run as $AS_USER" "no user $AS_USER"; return 1; }
  chmod go+x "$TEST_TMP" && mkdir -p "$RUN_AS_DIR" && chmod 1777 "$RUN_AS_DIR" \
    || { fail "run as $AS_USER" "cannot make $RUN_AS_DIR"; return 1; }
}

# report_out PFX: the LD_DEBUG_OUTPUT of the run PFX (the loader writes
# OUT.PID), where $AS_USER may write: PFX.dbg, or for a run as another
# user a file in RUN_AS_DIR named after PFX; whatever an earlier run
# left there removed.  report_collect PFX: what the run wrote there,
# into PFX.dbg (empty if nothing).
report_out () {
  local out=$1.dbg
  if [ -n "$AS_USER" ]; then
    run_as_setup || return 1
    out=${1#"$TEST_TMP"/}
    out=$RUN_AS_DIR/${out//\//_}.dbg
  fi
  rm -f "$out".*
  echo "$out"
}
report_collect () {
  local p out=${1#"$TEST_TMP"/}
  for p in "$1.dbg" "$RUN_AS_DIR/${out//\//_}.dbg"; do
    if compgen -G "$p.*" > /dev/null; then
      cat "$p".* > "$1.dbg"; [ "$p" = "$1.dbg" ] || rm -f "$p".*
      return
    fi
  done
  : > "$1.dbg"
}

# run_report PFX ENV... -- CMD...: run CMD with ENV and
# LD_DEBUG=hugepages, as $AS_USER; PFX.out, PFX.err, PFX.rc (exit
# status) and PFX.dbg (the report, from LD_DEBUG_OUTPUT) are what it
# did.  If the caller has an array RUN_PREFIX (local to it, as a rule),
# its words run first, as the shell's own user, and must end by
# executing the rest of their arguments (CMD, as $AS_USER): a command
# that moves itself into a cgroup, or enters namespaces, say.
run_report () {
  local pfx=$1; shift
  local envs=() out
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  if ! run_as_argv || ! out=$(report_out "$pfx"); then
    echo 127 > "$pfx.rc"; : > "$pfx.out"; : > "$pfx.err"; : > "$pfx.dbg"
    return
  fi
  env "${envs[@]}" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$out" ${RUN_PREFIX[@]+"${RUN_PREFIX[@]}"} \
    ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$@" > "$pfx.out" 2> "$pfx.err"
  echo $? > "$pfx.rc"
  report_collect "$pfx"
}

# link_interp OUT FLAGS...: the big-code checker (tests/fixtures/bigcheck.c)
# linked with FLAGS (and the big-code object they name) into OUT, with
# $HUGELD_LDSO as its PT_INTERP, so that the kernel maps it.
link_interp () {
  local out=$1; shift
  cc -I"$HUGELD_TOP/tests/fixtures" -O2 -pthread "$HUGELD_TOP/tests/fixtures/bigcheck.c" \
    "$@" -o "$out" -Wl,-z,relro -Wl,-z,pack-relative-relocs \
    -Wl,--dynamic-linker="$HUGELD_LDSO" 2> "$out.cc" \
    || { fail "link $(basename "$out")" "$(head -3 "$out.cc" | tr '\n' ' ')"; return 1; }
}

# debian_root DIR: DIR becomes a throwaway root of the host's own Debian
# release, entered with in_root CMD...: a copy of a minimal debootstrap
# made once per checkout (build/chroot-base-RELEASE), with /proc and
# /dev mounted, the release's archives (main, updates, security: the
# host's own, or HUGELD_DEBIAN_MIRROR and HUGELD_DEBIAN_SECURITY), and
# libc6 at the host's version, the one hugeld is built from.  Unmounted
# and removed when the test ends.  Sets DIST; on failure says why (FAIL)
# and returns 1.  Needs root.
debian_root () {
  local c=$1 base mirror security host got m
  command -v debootstrap > /dev/null \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null 2>&1
  command -v debootstrap > /dev/null || { fail debootstrap "cannot install debootstrap"; return 1; }
  DIST=$(os_codename)
  # A sid machine (check-distro's sid and experimental roots): its
  # os-release names the next testing release, but its archive is sid
  # (plus experimental), which has no -updates or -security; the root
  # gets the host's own sources.
  local sid=
  if grep -qsE '^deb .* (sid|unstable) ' /etc/apt/sources.list; then DIST=sid sid=1; fi
  [ -n "$DIST" ] || { fail "release" "/etc/os-release names no VERSION_CODENAME"; return 1; }
  read -r mirror security <<< "$(debian_mirrors) "
  mirror=${HUGELD_DEBIAN_MIRROR:-${mirror:-http://deb.debian.org/debian}}
  security=${HUGELD_DEBIAN_SECURITY:-${security:-${mirror%/debian*}/debian-security}}
  base=$HUGELD_TOP/build/chroot-base-$DIST
  if [ ! -f "$base/.done" ]; then
    rm -rf "$base"
    debootstrap --variant=minbase "$DIST" "$base" "$mirror" > "$TEST_TMP/dbs.log" 2>&1 \
      || { fail "debootstrap $DIST" "$(tail -3 "$TEST_TMP/dbs.log" | tr '\n' ' ')"; return 1; }
    touch "$base/.done"
  fi
  _root_umount "$c"
  rm -rf "$c"
  cp -a "$base" "$c"
  at_exit "_root_umount '$c'; rm -rf '$c'"
  mount -t proc proc "$c/proc"
  mount --bind /dev "$c/dev"
  cp /etc/resolv.conf "$c/etc/resolv.conf" 2>/dev/null || true
  if [ -n "$sid" ]; then
    cp /etc/apt/sources.list "$c/etc/apt/sources.list"
    # sid's Release files may be past their Valid-Until on a mirror that
    # is not refreshed daily; packages are still checked.
    echo 'Acquire::Check-Valid-Until "false";' > "$c/etc/apt/apt.conf.d/99hugeld-valid-until"
  else
    printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
      "$mirror" "$DIST" "$mirror" "$DIST" "$security" "$DIST" > "$c/etc/apt/sources.list"
  fi
  _root=$c
  host=$(pkg_version libc6)
  got=$(in_root dpkg-query -W -f='${Version}' libc6)
  if [ "$got" != "$host" ]; then
    # The release's libc6 moved on (a point release or security update).
    in_root apt-get update -qq > "$TEST_TMP/root-apt.log" 2>&1
    in_root apt-get install -y -qq $(root_glibc_at "$host") >> "$TEST_TMP/root-apt.log" 2>&1
    got=$(in_root dpkg-query -W -f='${Version}' libc6)
    [ "$got" = "$host" ] \
      || { fail "root's libc6 matches the build" "it has $got, hugeld is built from $host: $(tail -2 "$TEST_TMP/root-apt.log" | tr '\n' ' ')"; return 1; }
  fi
}
# root_glibc_at VERSION: glibc's packages of the root at VERSION
# (glibc_pkgs_at, scripts/host.sh).
root_glibc_at () { glibc_pkgs_at "$1" in_root; }
_root_umount () { umount_root "$1"; }
# root_loader: the dynamic loader's path as the root's libc6 lists it
# (/lib/x86_64-linux-gnu/... in Debian 12, /usr/lib/... in Debian 13).
root_loader () {
  in_root dpkg-query -L libc6:amd64 | awk '/^\/.*\/x86_64-linux-gnu\/ld-linux-x86-64\.so\.2$/ && !n++'
}
in_root () { chroot "$_root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
