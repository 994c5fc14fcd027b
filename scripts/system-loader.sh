#!/bin/bash
# Install hugeld as the system's dynamic loader, safely, and take it out
# again.  Installed as $PREFIX/libexec/hugeld-system-loader; run as root.
#
#   system-loader.sh install     put $PREFIX/ld.so in place of the system loader
#   system-loader.sh uninstall   put the distribution's loader back, byte for byte
#   system-loader.sh status      say which loader the system runs
#   system-loader.sh dpkg-pre    dpkg hook: before any dpkg run
#   system-loader.sh dpkg-post   dpkg hook: after any dpkg run
#
# How it stays safe:
# - The loader path ($REAL, owned by libc6) is diverted with dpkg-divert
#   to $REAL.distrib, which keeps the distribution's loader: a libc6
#   upgrade writes its new loader there, never over hugeld.
# - Every replacement of $REAL is a rename(2) of a complete file: at no
#   moment is there no loader, or half a loader.
# - ld.so and libc.so.6 must come from the same glibc build.  Before
#   every dpkg run (dpkg-pre), $REAL becomes a symlink to $REAL.distrib,
#   so while dpkg unpacks a new libc6 the loader is always the one that
#   comes with the libc.so.6 on disk, exactly as without hugeld.  After
#   the run (dpkg-post), hugeld goes back in place only if libc6 is still
#   the version hugeld was built from.  Otherwise $REAL stays a symlink
#   to the distribution's loader (so later libc6 upgrades keep it
#   matched too) and a message says hugeld is off until it is rebuilt
#   and installed again: a libc6 upgrade always ends with a matching
#   loader.  (The hook does not call dpkg-divert: dpkg holds its lock.)
# - install refuses a hugeld built from another glibc than the installed
#   libc6, and checks that programs still start before it returns.
#
# If the system loader is ever broken (no program starts), boot a rescue
# system or use a static busybox, and copy $REAL.distrib over $REAL; or
# run: /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2.distrib /bin/cp \
#        /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2.distrib \
#        /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
set -euo pipefail

PREFIX=${PREFIX:-/opt/hugeld}
REAL=/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
DISTRIB=$REAL.distrib
HOOKS=/etc/dpkg/dpkg.cfg.d/hugeld
STATE=/var/lib/hugeld/system-loader
SELF=$PREFIX/libexec/hugeld-system-loader

say () { echo "hugeld: $*" >&2; }
die () { say "$*"; exit 1; }

libc_version () {
  dpkg-query -W -f='${Status} ${Version}\n' libc6 2>/dev/null \
    | awk '$3 == "installed" { print $4 }'
}
# The Debian version a loader was built from, from its --version line.
loader_version () {
  "$1" --version 2>/dev/null | sed -n '1s/.*(Debian GLIBC \([^ )]*\).*/\1/p'
}
diverted () {
  dpkg-divert --list "$REAL" 2>/dev/null | grep -q "to $DISTRIB"
}
installed () { [ -f "$STATE" ] && diverted; }

# put SRC: atomically make $REAL a copy of SRC.
put () {
  cp "$1" "$REAL.hugeld-tmp"
  chmod 0755 "$REAL.hugeld-tmp"
  mv -f -T "$REAL.hugeld-tmp" "$REAL"
}
# link_distrib: atomically make $REAL a symlink to the distribution's loader.
link_distrib () {
  ln -sfn "$(basename "$DISTRIB")" "$REAL.hugeld-tmp"
  mv -f -T "$REAL.hugeld-tmp" "$REAL"
}

programs_start () {
  /bin/true && /bin/sh -c 'exit 0' && ls / > /dev/null
}

do_uninstall () {
  if ! diverted; then
    rm -f "$HOOKS" "$STATE"
    say "hugeld is not installed as the system loader"
    return 0
  fi
  [ -f "$DISTRIB" ] || die "$DISTRIB is missing; restore the loader from the libc6 package"
  put "$DISTRIB"
  programs_start || die "programs do not start with $DISTRIB"
  rm -f "$HOOKS"
  dpkg-divert --quiet --local --no-rename --remove "$REAL"
  rm -f "$DISTRIB" "$STATE"
  # Check against the package's own checksum.
  local sum want
  sum=$(md5sum "$REAL" | cut -d' ' -f1)
  want=$(awk -v f="${REAL#/}" '$2 == f { print $1 }' /var/lib/dpkg/info/libc6:amd64.md5sums 2>/dev/null)
  if [ -n "$want" ] && [ "$sum" != "$want" ]; then
    die "the restored $REAL does not match the libc6 package's checksum; reinstall libc6"
  fi
  say "the system loader is the distribution's again ($(loader_version "$REAL"))"
}

do_install () {
  [ "$(id -u)" = 0 ] || die "install needs root"
  local hl=$PREFIX/ld.so
  [ -x "$hl" ] || die "$hl is not installed (make install)"
  local libc hv
  libc=$(libc_version)
  hv=$(loader_version "$hl")
  [ -n "$libc" ] || die "libc6 is not installed"
  [ "$hv" = "$libc" ] || die "refusing: $hl is built from glibc $hv but the installed libc6 is $libc; rebuild hugeld from glibc-source $libc"
  # The candidate must run programs before it becomes the system loader.
  "$hl" /bin/true && "$hl" --list /bin/sh > /dev/null \
    || die "$hl cannot run /bin/true here; not installing"
  if ! diverted; then
    [ -f "$REAL" ] && [ ! -L "$REAL" ] || die "$REAL is not a regular file"
    cp -p "$REAL" "$DISTRIB.hugeld-tmp"
    mv -f -T "$DISTRIB.hugeld-tmp" "$DISTRIB"
    dpkg-divert --quiet --local --no-rename --divert "$DISTRIB" --add "$REAL"
  fi
  mkdir -p "$(dirname "$STATE")" "$(dirname "$HOOKS")"
  echo "$hv" > "$STATE"
  cat > "$HOOKS" <<EOF
# hugeld is the system loader: keep ld.so and libc.so.6 matched across
# every dpkg run (see $SELF).
pre-invoke=$SELF dpkg-pre
post-invoke=$SELF dpkg-post
EOF
  put "$hl"
  if ! programs_start; then
    put "$DISTRIB"
    die "programs did not start with hugeld as the system loader; the distribution's loader is back"
  fi
  say "hugeld ($hv) is the system loader; the distribution's is kept as $DISTRIB"
  say "set LD_HUGEPAGE_LIBS for the programs to put on huge pages; '$SELF uninstall' reverts"
}

do_dpkg_pre () {
  installed || exit 0
  link_distrib
}

do_dpkg_post () {
  installed || exit 0
  local libc hv
  libc=$(libc_version)
  hv=$(cat "$STATE")
  if [ "$libc" = "$hv" ] && [ "$(loader_version "$PREFIX/ld.so")" = "$hv" ]; then
    put "$PREFIX/ld.so"
    programs_start || { link_distrib; say "hugeld did not run programs after dpkg; the distribution's loader is back"; }
  else
    say "libc6 is now ${libc:-removed} but hugeld was built from $hv:"
    say "the system runs the distribution's loader until hugeld is rebuilt (make; make install) and '$SELF install' is run again"
  fi
}

do_status () {
  if installed && [ -L "$REAL" ]; then
    echo "system loader: the distribution's, through $REAL -> $(readlink "$REAL") (hugeld $(cat "$STATE") is off: libc6 changed)"
  elif installed; then
    echo "system loader: hugeld $(cat "$STATE") ($REAL; distribution's kept as $DISTRIB)"
  else
    echo "system loader: the distribution's ($(loader_version "$REAL"))"
  fi
  echo "libc6: $(libc_version)"
}

case "${1:-}" in
  install) do_install ;;
  uninstall) [ "$(id -u)" = 0 ] || die "uninstall needs root"; do_uninstall ;;
  status) do_status ;;
  dpkg-pre) do_dpkg_pre ;;
  dpkg-post) do_dpkg_post ;;
  *) echo "usage: $0 install|uninstall|status" >&2; exit 2 ;;
esac
