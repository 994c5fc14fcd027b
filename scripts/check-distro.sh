#!/bin/bash
# make check-distro DIST=bookworm|trixie|sid|experimental: hugeld built
# and tested on another Debian release than the host's, in a chroot.
# sid is Debian's next release (glibc 2.43); experimental is a sid root
# whose libc6 (and glibc-source, libc6-dev, libc-bin, libc6-dbg) come
# from experimental (glibc 2.44): what a sid machine that takes the next
# glibc first looks like.
#
#   scripts/check-distro.sh DIST            # build + `make check TIER=all' (both tiers) in the root
#   scripts/check-distro.sh DIST --shell    # a shell in the root (mounts set up)
#   scripts/check-distro.sh DIST --prepare  # only make/update the root and copy the checkout
#   scripts/check-distro.sh DIST --run CMD  # CMD (a shell command) in /hugeld in the root
#
# The root is build/distro/DIST: debootstrap --variant=minbase of DIST
# (once; cached between runs, `rm -rf build/distro/DIST' to start over)
# plus what .ci/run installs on a fresh machine, kept up to date from
# DIST, DIST-updates and DIST-security.  Each run copies the checkout's
# files (git ls-files: tracked and new, not build/) to /hugeld in the
# root, keeping /hugeld/build there, so the glibc build inside is
# incremental.  Then `make check TIER=all' (every test) runs in the chroot as root, with /proc,
# /sys (and so /sys/fs/cgroup), /dev (and so /dev/hugepages, /dev/pts)
# bound from the host: the tests size and use the host's huge page pool
# and restore it.  The output ends with the chroot's
# "N passed, N failed, N skipped" line; the exit status is make's.
#
# The archive is the host's own (apt sources); HUGELD_DEBIAN_MIRROR and
# HUGELD_DEBIAN_SECURITY override it.  Log: build/distro/DIST.log.
set -euo pipefail
. "$(dirname "$0")/config.sh"

dist=${1:-}
mode=${2:-check}
run_cmd=${3:-}
case $dist in
  bookworm|trixie|sid|experimental) ;;
  '') die "usage: check-distro.sh DIST [--prepare|--shell|--run CMD] (DIST: bookworm, trixie, sid or experimental)" ;;
  *) die "DIST must be bookworm, trixie, sid or experimental (the releases hugeld supports), not $dist" ;;
esac
# The suite debootstrap makes the root from.
base=$dist
[ "$dist" != experimental ] || base=sid
case $mode in check|--prepare|--shell) ;; --run) [ -n "$run_cmd" ] || die "--run needs a command" ;; *) die "unknown option $mode" ;; esac
[ "$(id -u)" = 0 ] || die "check-distro must run as root (debootstrap, chroot, mounts)"
[ "$(uname -m)" = x86_64 ] || die "only x86_64 is supported"

ROOT=$BUILDDIR/distro/$dist
LOG=$BUILDDIR/distro/$dist.log
mkdir -p "$BUILDDIR/distro"

# The Debian archive and security archive of the host's own apt sources.
read -r mirror security <<< "$(debian_mirrors) "
mirror=${HUGELD_DEBIAN_MIRROR:-$mirror} security=${HUGELD_DEBIAN_SECURITY:-$security}
[ -n "$mirror" ] || die "cannot find the Debian archive in the host's apt sources (set HUGELD_DEBIAN_MIRROR)"

# Mounts under the root, deepest first.
mounts_under () {
  awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}
umount_all () {
  local m
  for m in $(mounts_under); do umount -l "$m" 2>/dev/null || true; done
}
# Never remove a root that still has the host's /dev or /sys bound into it.
remove_root () {
  umount_all
  [ -z "$(mounts_under)" ] || die "cannot unmount $(mounts_under | tr '\n' ' '); not removing $ROOT"
  rm -rf "$ROOT"
}

command -v debootstrap > /dev/null || "$HUGELD_TOP/scripts/deps.sh" distro
[ -x "/usr/share/debootstrap/scripts/$base" ] || [ -e "/usr/share/debootstrap/scripts/$base" ] \
  || die "this debootstrap does not know $base (apt-get install debootstrap from backports)"

# What .ci/run installs on a fresh machine; `make' installs the rest
# (scripts/deps.sh), inside the root, from DIST's archive.
BASE_PKGS=$(echo "$HUGELD_BOOTSTRAP_PKGS" | tr " " ,)
stamp="$dist $mirror $BASE_PKGS"
umount_all
if [ "$(cat "$ROOT/.hugeld-root" 2>/dev/null)" != "$stamp" ]; then
  remove_root
  echo "check-distro: debootstrap --variant=minbase $base from $mirror (log: $LOG)"
  if ! debootstrap --variant=minbase --include="$BASE_PKGS" "$base" "$ROOT" "$mirror" > "$LOG" 2>&1; then
    tail -5 "$LOG" >&2
    remove_root
    die "debootstrap $base failed (log: $LOG)"
  fi
  echo "$stamp" > "$ROOT/.hugeld-root"
fi

trap umount_all EXIT
# The root is a mount point of its own, so that / in the chroot is one:
# runc (t-container) changes the propagation of its root mount, which
# fails with EINVAL on a directory that is not a mount point.
mount --bind "$ROOT" "$ROOT"
# The host's /proc itself, not a new proc mount: the tests' pool lock
# (flock on /proc/sys/vm/nr_hugepages, scripts/pool.sh) is then one
# lock for the chroot and the host.
mount --bind /proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys"; mount --make-rslave "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"; mount --make-rslave "$ROOT/dev"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# The archives of a DIST install: main, updates, security (sid has
# neither updates nor security; experimental is sid plus experimental).
{
  echo "deb $mirror $base main"
  case $dist in
    bookworm|trixie)
      echo "deb $mirror $dist-updates main"
      [ -z "$security" ] || echo "deb $security $dist-security main" ;;
    experimental) echo "deb $mirror experimental main" ;;
  esac
} > "$ROOT/etc/apt/sources.list"
# sid and experimental publish a new Release file every few hours, with a
# Valid-Until a week ahead; a mirror or snapshot that is not refreshed
# that often is refused as expired.  The packages are still signed.
case $dist in
  sid|experimental) echo 'Acquire::Check-Valid-Until "false";' > "$ROOT/etc/apt/apt.conf.d/99hugeld-valid-until" ;;
esac
# No daemons started by package scripts inside the root.
printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"
chmod 0755 "$ROOT/usr/sbin/policy-rc.d"

in_root () {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive "$@"
}

# Up to date with DIST's point release and security updates (libc6 and
# glibc-source must be the same version, which deps.sh installs).
echo "check-distro: apt-get update and upgrade in $ROOT"
if ! in_root sh -c 'apt-get update -qq && apt-get dist-upgrade -y -qq' >> "$LOG" 2>&1; then
  tail -5 "$LOG" >&2
  die "apt-get in the $dist root failed (log: $LOG)"
fi
# experimental: the C library from experimental, everything else from
# sid (experimental's packages have priority 1, so only what is named
# here comes from it, and apt keeps it there).  deps.sh then installs
# glibc-source and libc6-dbg of exactly that libc6 version.
if [ "$dist" = experimental ] \
   && ! in_root sh -c 'apt-get install -y -qq -t experimental libc6 libc6-dev libc-bin libc-dev-bin' >> "$LOG" 2>&1; then
  tail -5 "$LOG" >&2
  die "installing experimental's libc6 in the $dist root failed (log: $LOG)"
fi

# The checkout's files, without build/ (the root's own build/ is kept).
mkdir -p "$ROOT/hugeld"
find "$ROOT/hugeld" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
( cd "$HUGELD_TOP" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do
        case $f in build/*) continue ;; esac
        [ -e "$f" ] && printf '%s\0' "$f"
      done | tar --null --ignore-failed-read -T - -cf - ) | tar -C "$ROOT/hugeld" -xf - \
  || die "copying the checkout to $ROOT/hugeld failed (a file changed while it was copied? run again)"
echo "check-distro: copied the checkout to $ROOT/hugeld ($(in_root dpkg-query -W -f='libc6 ${Version}' libc6))"

case $mode in
  --prepare) exit 0 ;;
  --shell) in_root bash -c 'cd /hugeld && exec bash -i' || true; exit 0 ;;
  --run) in_root bash -c "cd /hugeld && $run_cmd"; exit ;;
esac

echo "check-distro: make check TIER=all in the $dist root (log: $LOG)"
run=$BUILDDIR/distro/$dist.check.log
set +e
in_root bash -c 'cd /hugeld && make check TIER=all' 2>&1 | tee "$run"
rc=${PIPESTATUS[0]}
set -e
cat "$run" >> "$LOG"
# The chroot's totals last (tests/run.sh's line), then make's exit status.
summary=$(grep '^[0-9]* passed, [0-9]* failed' "$run" | tail -1)
echo
if [ -n "$summary" ]; then
  echo "check-distro $dist (libc6 $(in_root dpkg-query -W -f='${Version}' libc6)): make check exited $rc"
  echo "$summary"
else
  echo "check-distro $dist: make check stopped before the tests ended (exit $rc; log: $run)"
fi
exit "$rc"
