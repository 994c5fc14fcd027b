#!/bin/bash
# Facts about the host: the one place that asks dpkg, apt and
# /etc/os-release.  Sourced by scripts/config.sh (so by every script),
# tests/lib.sh and scripts/system-loader.sh (inlined into the installed
# copy by scripts/install.sh, which must run without the checkout); run
# as a command by bench/bench.py and .ci/run:
#
#   scripts/host.sh pkg-version PKG    the installed version of PKG, or nothing
#   scripts/host.sh glibc-release      the installed libc6's glibc release (2.36)
#   scripts/host.sh codename           the Debian release's code name (bookworm)
#   scripts/host.sh mirrors            "ARCHIVE SECURITY-ARCHIVE" of the apt sources
#   scripts/host.sh bootstrap-packages what a fresh machine needs before make
#
# Everything here is read-only.

# What .ci/run, docker/Dockerfile and `make check-distro' install on a
# fresh machine before anything else; scripts/deps.sh installs the rest.
HUGELD_BOOTSTRAP_PKGS="make gcc g++ patch xz-utils ca-certificates"

# pkg_version PKG: the Debian version of PKG as dpkg knows it (empty if
# it is not installed).  DPKG_VERSION_OVERRIDE_<pkg> lets the tests fake
# a version (tests/t-version.sh).
pkg_version () {
  local var="DPKG_VERSION_OVERRIDE_${1//[^A-Za-z0-9]/_}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null \
    | awk '$3 == "installed" { print $4 }'
}

# glibc_release [DEBVERSION]: the upstream glibc release of a libc6
# version (default: the installed one): 2.41-12+deb13u4 -> 2.41.
glibc_release () {
  local v=${1-$(pkg_version libc6)}
  v=${v#*:}
  echo "${v%%-*}"
}

# glibc_pkgs_at VERSION CMD...: "PKG=VERSION" for libc6, libc-bin and
# every other package built from glibc that is installed where CMD
# (a prefix such as "chroot ROOT") runs dpkg-query: they move together
# (each depends on the others' exact version;
# libc-gconv-modules-extra since 2.44).
glibc_pkgs_at () {
  local v=$1; shift
  "$@" dpkg-query -W -f='${binary:Package} ${source:Package} ${db:Status-Abbrev}\n' \
    | awk -v v="$v" '$2 == "glibc" && $3 ~ /^ii/ { sub(/:amd64$/, "", $1); seen[$1] = 1 }
        END { seen["libc6"] = seen["libc-bin"] = 1; for (p in seen) printf "%s=%s ", p, v }'
}

# umount_root ROOT: lazily unmount what a chroot at ROOT had mounted
# (proc, sys, dev/pts, dev), where mounted.
umount_root () {
  local m
  for m in "$1/proc" "$1/sys" "$1/dev/pts" "$1/dev"; do
    mountpoint -q "$m" 2> /dev/null && umount -l "$m"
  done
  return 0
}

# os_codename: bookworm, trixie, ... (empty if /etc/os-release has none).
os_codename () {
  (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
}

# debian_mirrors: "ARCHIVE SECURITY" -- the Debian archive and security
# archive of the host's own apt sources (e.g. http://deb.debian.org/debian/
# and http://deb.debian.org/debian-security/); either may be empty.
debian_mirrors () {
  local codename uri rel main='' sec=''
  codename=$(os_codename)
  while read -r uri rel; do
    case $rel in
      "$codename"|stable|oldstable) [ -n "$main" ] || main=$uri ;;
      "$codename"-security|*/updates) [ -n "$sec" ] || sec=$uri ;;
    esac
  done < <(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null | sort -u)
  echo "$main $sec"
}

# Run as a command (not sourced, nor inlined into another script): one
# fact on standard output.
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${0##*/}" = host.sh ]; then
  case "${1:-}" in
    pkg-version) [ $# = 2 ] || { echo "usage: host.sh pkg-version PKG" >&2; exit 2; }
		 pkg_version "$2" ;;
    glibc-release) glibc_release ;;
    codename) os_codename ;;
    mirrors) debian_mirrors ;;
    bootstrap-packages) echo "$HUGELD_BOOTSTRAP_PKGS" ;;
    *) echo "usage: host.sh pkg-version PKG | glibc-release | codename | mirrors | bootstrap-packages" >&2
       exit 2 ;;
  esac
fi

# private_apt DIR SUITE MIRROR [SECURITY]: apt-get options (the array
# APT) for SUITE of the Debian archive MIRROR, with its own sources,
# lists, status and cache under DIR: the host's apt state is not
# touched.  Release files of sid and experimental are taken even when
# their Valid-Until has passed (a mirror that is not refreshed every few
# days); the packages are still checked against the archive keyring.
# PRIVATE_APT_ARCH: the architecture of its packages (default amd64;
# make check-arm64 takes arm64 ones).
private_apt () {
  local d=$1 suite=$2 mirror=$3 security=${4:-} keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local opt="target=Packages"
  [ -f "$keyring" ] && opt="signed-by=$keyring $opt"
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/state"
  : >> "$d/status"
  {
    echo "deb [$opt] $mirror $suite main"
    case $suite in
      sid|unstable|experimental|rc-buggy) ;;
      *) echo "deb [$opt] $mirror $suite-updates main"
         [ -z "$security" ] || echo "deb [$opt] $security $suite-security main" ;;
    esac
  } > "$d/sources.list"
  APT=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
       -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
       -o Dir::State="$d/state" -o Dir::State::Lists="$d/lists"
       -o Dir::State::status="$d/status" -o Dir::Cache="$d/cache"
       -o APT::Architecture="${PRIVATE_APT_ARCH:-amd64}"
       -o APT::Architectures="${PRIVATE_APT_ARCH:-amd64}"
       -o Acquire::Languages=none -o quiet=1)
  case $suite in
    sid|unstable|experimental|rc-buggy) APT+=(-o Acquire::Check-Valid-Until=false) ;;
  esac
  if [ "$(id -u)" = 0 ]; then APT+=(-o APT::Sandbox::User=root)
  else APT+=(-o Debug::NoLocking=1)
  fi
}
