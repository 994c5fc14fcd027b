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
#   upgrade writes its new loader there, never over hugeld.  Nothing but
#   the libc6 package's loader is ever written to .distrib: the bytes
#   are checked against dpkg's checksum of the package before the rename.
# - Every replacement of a file is a rename(2) of a complete, fsync'ed
#   copy made under a fresh temporary name (a leftover temporary file or
#   symbolic link is removed, never written through): at no moment is
#   there no loader, or half a loader, even after a power cut.
# - ld.so and libc.so.6 must come from the same glibc build.  Before a
#   dpkg run that may unpack or remove a package built from glibc
#   (dpkg-pre: the run's action and its archives' control fields say
#   so; a run it cannot read counts as one), $REAL becomes a symlink to
#   $REAL.distrib, so while dpkg unpacks a new libc6 the loader is always
#   the one that comes with the libc.so.6 on disk, exactly as without
#   hugeld.  Every other run (a service's package upgraded, its postinst
#   restarting the service, systemctl daemon-reexec) keeps hugeld, so
#   what it starts runs on hugeld.  After the run (dpkg-post), hugeld
#   goes back in place only if it is built from the same libc6 version
#   as the loader the package put in .distrib.  Otherwise $REAL stays a
#   symlink to the distribution's loader (so later libc6 upgrades keep
#   it matched too) and a message says hugeld is off until it is
#   rebuilt and installed again: a libc6 upgrade always ends with a
#   matching loader.  Processes started while the switch was in place
#   run on the distribution's loader until they are restarted: the
#   post-invoke hook and status name them.  (The hook does not call
#   dpkg-divert: dpkg holds its lock.)
# - The hooks run a copy of this script that install puts in
#   /var/lib/hugeld (root's), and they use $PREFIX/ld.so only if it and
#   every directory above it belong to root and nobody else can write
#   them; otherwise the distribution's loader stays.
# - install refuses a hugeld built from another glibc than the installed
#   libc6, and checks that programs still start before it returns;
#   uninstall puts back only a loader that matches libc6's checksum and
#   runs programs.
# - Every step is ordered so that an interruption anywhere (kill -9, a
#   power cut) leaves a system whose loader matches its libc.so.6, and
#   running the same command again finishes the job.
#
# If the system loader is ever broken (no program starts), boot a rescue
# system or use a static busybox, and copy $REAL.distrib over $REAL; or
# run: /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2.distrib /bin/cp \
#        /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2.distrib \
#        /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
set -euo pipefail

PREFIX=${PREFIX:-/opt/hugeld}
# The loader by the name libc6 ships it under, which is the name dpkg
# diverts and checksums: /lib/x86_64-linux-gnu/... in Debian 12,
# /usr/lib/x86_64-linux-gnu/... in Debian 13 (the /usr merge moved it;
# /lib is a symbolic link to usr/lib on both).
# (awk reads the whole list: a reader that stops early would kill
# dpkg-query with SIGPIPE, and pipefail would take that for no answer.)
# On arm64: /lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 (Debian 12).
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
case $ARCH in
  arm64) MULTIARCH=aarch64-linux-gnu LDNAME=ld-linux-aarch64.so.1 ;;
  *) ARCH=amd64 MULTIARCH=x86_64-linux-gnu LDNAME=ld-linux-x86-64.so.2 ;;
esac
REAL=$(dpkg-query -L "libc6:$ARCH" 2>/dev/null \
	 | awk -v m="/$MULTIARCH/$LDNAME" 'substr($0, length($0) - length(m) + 1) == m && !n++')
[ -n "$REAL" ] || REAL=/lib/$MULTIARCH/$LDNAME
DISTRIB=$REAL.distrib
HOOKS=/etc/dpkg/dpkg.cfg.d/hugeld
STATE_DIR=/var/lib/hugeld
STATE=$STATE_DIR/system-loader
# What the dpkg hooks run: the copy of this script install made in a
# directory only root can write, never code under $PREFIX directly.
HOOK=$STATE_DIR/dpkg-hook
SELF=$PREFIX/libexec/hugeld-system-loader

say () { echo "hugeld: $*" >&2; }
die () { say "$*"; exit 1; }

# For the interruption tests (tests/t-system.sh): HUGELD_TEST_KILL_AT=NAME
# makes the script kill itself with SIGKILL at the step called NAME, as
# a power cut or the OOM killer would.
step () {
  if [ "${HUGELD_TEST_KILL_AT:-}" = "$1" ]; then kill -9 $$; fi
}

# pkg_version (scripts/host.sh; scripts/install.sh puts its text here).
. "$(dirname "${BASH_SOURCE[0]}")/host.sh"   # @HOST_SH@
libc_version () { pkg_version libc6; }
# The Debian version a loader was built from, from its --version line.
loader_version () {
  "$1" --version 2>/dev/null | sed -n '1s/.*(Debian GLIBC \([^ )]*\).*/\1/p'
}
diverted () {
  dpkg-divert --list "$REAL" 2>/dev/null | grep -q "to $DISTRIB"
}
installed () { [ -f "$STATE" ] && diverted; }

# is_distrib FILE: FILE is a regular file with exactly the bytes of the
# loader in the installed libc6 package (dpkg's own checksum), and it
# runs a program.
is_distrib () {
  local want
  [ -f "$1" ] && [ ! -L "$1" ] || return 1
  want=$(dpkg-query --control-show "libc6:$ARCH" md5sums 2>/dev/null \
	 | awk -v f="${REAL#/}" '$2 == f { print $1 }')
  [ -n "$want" ] || return 1
  [ "$(md5sum < "$1" | cut -d' ' -f1)" = "$want" ] || return 1
  "$1" /bin/true
}

# root_only PATH: PATH and every directory above it are owned by root
# and nobody else can write them (no group or other write bit).
root_only () {
  local p=$1 owner mode
  while :; do
    [ -e "$p" ] || return 1
    owner=$(stat -L -c %u "$p")
    mode=$(stat -L -c %a "$p")
    [ "$owner" = 0 ] || return 1
    [ $(( 8#$mode & 8#022 )) = 0 ] || return 1
    [ "$p" = / ] && return 0
    p=$(dirname "$p")
  done
}

# tmp_for TARGET: a fresh temporary name next to TARGET.  A leftover of
# an interrupted run, file or symbolic link, is removed first.
tmp_for () {
  rm -f "$1.hugeld-tmp"
  echo "$1.hugeld-tmp"
}
# commit TMP TARGET: TARGET becomes the complete file TMP by one
# rename(2), with the data and then the directory on disk.
commit () {
  sync "$1"
  mv -f -T "$1" "$2"
  sync "$(dirname "$2")"
}
# put SRC TARGET: atomically make TARGET a copy of the regular file SRC.
put () {
  local tmp
  tmp=$(tmp_for "$2")
  cp --no-dereference -- "$1" "$tmp"
  [ -f "$tmp" ] && [ ! -L "$tmp" ] || die "cannot make $tmp"
  chmod 0755 "$tmp"
  step "put-$(basename "$2")"
  commit "$tmp" "$2"
}
# link_distrib: atomically make $REAL a symlink to the distribution's loader.
link_distrib () {
  local tmp
  tmp=$(tmp_for "$REAL")
  ln -s "$(basename "$DISTRIB")" "$tmp"
  step link
  commit "$tmp" "$REAL"
}
# write_file TARGET: standard input becomes TARGET, atomically.
write_file () {
  local tmp
  tmp=$(tmp_for "$1")
  cat > "$tmp"
  commit "$tmp" "$1"
}

programs_start () {
  /bin/true && /bin/sh -c 'exit 0' && ls / > /dev/null
}

# save_distrib: copy the distribution's loader from $REAL to .distrib,
# checking the bytes against libc6's checksum before the rename.
save_distrib () {
  local tmp
  is_distrib "$REAL" || die "$REAL is not the libc6 package's loader (dpkg's checksum); run 'apt-get install --reinstall libc6' first"
  tmp=$(tmp_for "$DISTRIB")
  cp --no-dereference -- "$REAL" "$tmp"
  is_distrib "$tmp" || die "the copy $tmp does not match libc6's checksum"
  step save
  commit "$tmp" "$DISTRIB"
}

do_uninstall () {
  # In this order every state in between is safe, and uninstall run
  # again finishes an interrupted one:
  #   1. the distribution's loader, verified, goes back into $REAL;
  #   2. the diversion goes: libc6 upgrades write $REAL again;
  #   3. only then the hooks (while diverted they are what keeps the
  #      loader matched), the state and .distrib.
  if diverted; then
    if ! is_distrib "$REAL"; then
      is_distrib "$DISTRIB" || die "refusing: $DISTRIB is not the libc6 package's loader (dpkg's checksum), or does not run programs; run 'apt-get install --reinstall libc6', then uninstall again"
      put "$DISTRIB" "$REAL"
      programs_start || die "programs do not start with $DISTRIB"
    fi
    step undivert
    dpkg-divert --quiet --local --no-rename --remove "$REAL"
  elif ! is_distrib "$REAL"; then
    # Damaged by hand: take the verified copy if there is one.
    is_distrib "$DISTRIB" || die "$REAL is not the libc6 package's loader and no verified copy is left; run 'apt-get install --reinstall libc6'"
    put "$DISTRIB" "$REAL"
  fi
  step hooks
  rm -f "$HOOKS" "$HOOKS.hugeld-tmp"
  sync "$(dirname "$HOOKS")"
  rm -f "$STATE" "$STATE.hugeld-tmp" "$HOOK" "$HOOK.hugeld-tmp" \
    "$DISTRIB" "$DISTRIB.hugeld-tmp" "$REAL.hugeld-tmp"
  if [ -d "$STATE_DIR" ]; then rmdir "$STATE_DIR" 2>/dev/null || true; fi
  is_distrib "$REAL" || die "the restored $REAL does not match the libc6 package's checksum; reinstall libc6"
  say "the system loader is the distribution's ($(loader_version "$REAL"))"
}

do_install () {
  [ "$(id -u)" = 0 ] || die "install needs root"
  local hl=$PREFIX/ld.so
  [ -x "$hl" ] || die "$hl is not installed (make install)"
  root_only "$hl" || die "refusing: $hl or a directory above it is not owned by root or can be written by others"
  local libc hv
  libc=$(libc_version)
  hv=$(loader_version "$hl")
  [ -n "$libc" ] || die "libc6 is not installed"
  [ "$hv" = "$libc" ] || die "refusing: $hl is built from glibc $hv but the installed libc6 is $libc; rebuild hugeld from glibc-source $libc"
  # The candidate must run programs before it becomes the system loader.
  "$hl" /bin/true && "$hl" --list /bin/sh > /dev/null \
    || die "$hl cannot run /bin/true here; not installing"
  # The order keeps every state in between safe, and install run again
  # finishes an interrupted one: .distrib is saved and the hooks are in
  # place before the diversion makes libc6 upgrades write to .distrib
  # (the hooks do nothing until then), and hugeld replaces $REAL last.
  if ! diverted; then
    # After an interrupted uninstall $REAL may not be the distribution's
    # loader any more, but then .distrib is, verified.
    if is_distrib "$REAL" || ! is_distrib "$DISTRIB"; then
      save_distrib
    fi
  fi
  mkdir -p "$STATE_DIR" "$(dirname "$HOOKS")"
  chmod 0755 "$STATE_DIR"
  put "$(readlink -f "$0")" "$HOOK"
  echo "$hv" | write_file "$STATE"
  step hookfile
  write_file "$HOOKS" <<EOF
# hugeld is the system loader: keep ld.so and libc.so.6 matched across
# every dpkg run (see $SELF).
# (uninstall, also run by the hugeld package's prerm, removes the hook
# in the middle of a dpkg run: then the post-invoke has nothing to do.)
pre-invoke=if [ -x $HOOK ]; then $HOOK dpkg-pre; fi
post-invoke=if [ -x $HOOK ]; then $HOOK dpkg-post; fi
EOF
  if ! diverted; then
    step divert
    dpkg-divert --quiet --local --no-rename --divert "$DISTRIB" --add "$REAL"
  fi
  is_distrib "$DISTRIB" || die "$DISTRIB is not the libc6 package's loader; run 'apt-get install --reinstall libc6', then install again"
  put "$hl" "$REAL"
  if ! programs_start; then
    put "$DISTRIB" "$REAL"
    die "programs did not start with hugeld as the system loader; the distribution's loader is back"
  fi
  say "hugeld ($hv) is the system loader; the distribution's is kept as $DISTRIB"
  say "set LD_HUGEPAGE_LIBS for the programs to put on huge pages; '$SELF uninstall' reverts"
}

# ppid PID: the parent of process PID, read by bash itself (nothing to
# wait for); empty if PID is gone.
ppid () {
  local k v
  { while read -r k v; do
      if [ "$k" = PPid: ]; then echo "$v"; return 0; fi
    done < "/proc/$1/status"; } 2> /dev/null || :
}

# dpkg_pid: the dpkg process that runs this hook (through sh -c), found
# by walking up the parent processes; empty if there is none.
dpkg_pid () {
  local pid=$$ n comm
  for n in 1 2 3 4 5 6 7 8; do
    [ "$pid" -gt 1 ] 2> /dev/null || return 0
    comm=
    { read -r comm < "/proc/$pid/comm"; } 2> /dev/null || :
    if [ "$comm" = dpkg ]; then
      echo "$pid"; return 0
    fi
    pid=$(ppid "$pid")
  done
}

# Everything the pre-invoke hook runs to read dpkg's command line (find
# over directories, dpkg-deb on each archive) fits in HOOK_SECONDS in
# all, each command under timeout(1): a loop of symbolic links, a huge
# tree or a stalled disk must not hold dpkg.  Past it, the answer is
# "may change glibc".
HOOK_SECONDS=120

# glibc_deb FILE SECONDS: FILE is a package built from glibc (libc6
# holds the loader and libc.so.6; the others move with it), or dpkg-deb
# cannot read it in SECONDS.
glibc_deb () {
  local f
  f=$(timeout "$2" dpkg-deb --field "$1" Package Source 2> /dev/null) || return 0
  grep -Eq '^(Package: libc6$|Source: glibc( |$))' <<< "$f"
}

# run_may_change_libc: whether the dpkg run that called the hook may
# unpack or remove a package built from glibc.  Read from dpkg's own
# command line: its action (DPKG_HOOK_ACTION), and the archives (or,
# with --recursive, the directories of archives) of an install or
# unpack, or the packages of a remove or purge.  Anything the hook
# cannot tell counts as yes: a wrong yes costs hugeld for the run, a
# wrong no would pair a new libc.so.6 with this loader.
run_may_change_libc () {
  local action=${DPKG_HOOK_ACTION:-} pid cwd
  local -a args=()
  case "$action" in
    configure|triggers-only|verify|audit|record-avail) return 1 ;;
    install|unpack|remove|purge) ;;
    *) return 0 ;;
  esac
  pid=$(dpkg_pid)
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
  cwd=$(timeout 10 readlink "/proc/$pid/cwd") || return 0
  mapfile -d '' -t args < "/proc/$pid/cmdline" || return 0
  [ ${#args[@]} -gt 0 ] || return 0
  cmdline_may_change_libc "$action" "$cwd" "${args[@]:1}"
}

# cmdline_may_change_libc ACTION CWD ARG...: the same for a dpkg run in
# CWD whose arguments (after its name) are ARG..., read as dpkg reads
# them (lib/dpkg/options.c): options up to the first operand or "--";
# short options bundle ("-iR" is -i -R, "-Ri" is -R -i), and -D takes
# the rest of its word or the next argument as its value; a long option
# is spelled in full, its value after "=" or in the next argument.
# With -R or --recursive every operand is searched as dpkg searches it
# (src/main/archives.c: every regular file whose name ends in .deb,
# following symbolic links, to files and to directories alike), here
# with find -L; a loop of links, an unreadable directory or a search
# that does not finish in time counts as yes.
cmdline_may_change_libc () {
  local action=$1 cwd=$2 i=0 arg o end=$((SECONDS + HOOK_SECONDS)) left recursive=0
  shift 2
  local -a a=("$@") ops=() debs=()
  while [ $i -lt ${#a[@]} ]; do
    arg=${a[i]}
    case "$arg" in
      --) i=$((i + 1)); break ;;
      --recursive) recursive=1 ;;
      --pre-invoke|--post-invoke|--path-exclude|--path-include|--verify-format|\
      --status-logger|--status-fd|--log|--root|--abort-after|--admindir|--instdir|\
      --ignore-depends|--debug|--force|--refuse|--no-force)
	i=$((i + 1)) ;;
      --*) ;;
      -?*)
	o=${arg#-}
	case "${o%%D*}" in *R*) recursive=1 ;; esac
	case "$o" in *D) [ -n "${o#*D}" ] || i=$((i + 1)) ;; esac ;;
      *) break ;;
    esac
    i=$((i + 1))
  done
  for arg in "${a[@]:i}"; do
    # Relative to dpkg's directory; never a word find takes for an option.
    case "$arg" in /*) ops+=("$arg") ;; *) ops+=("$cwd/$arg") ;; esac
  done
  # No operand: an action of its own kind (say, --pending).
  [ ${#ops[@]} -gt 0 ] || return 0
  case "$action" in
    remove|purge)
      # Package names, with or without their architecture.
      for arg in "${a[@]:i}"; do
	case "${arg%%:*}" in libc6|libc6-*|libc-*|locales*) return 0 ;; esac
      done
      return 1 ;;
  esac
  if [ $recursive = 1 ]; then
    mapfile -d '' -t debs < <(timeout "$HOOK_SECONDS" find -L "${ops[@]}" \
				-name '*.deb' -type f -print0 2> /dev/null)
    wait $! || return 0
  else
    debs=("${ops[@]}")
  fi
  for arg in "${debs[@]}"; do
    left=$((end - SECONDS))
    [ $left -gt 0 ] && [ -f "$arg" ] || return 0
    glibc_deb "$arg" $((left < 30 ? left : 30)) && return 0
  done
  return 1
}

do_dpkg_pre () {
  installed || exit 0
  run_may_change_libc || exit 0
  link_distrib
}

# not_hugeld: "PID (COMMAND)" of each process whose loader is the
# distribution's: started while a dpkg run had it in place, and running
# without hugeld until restarted.  Not counted: this script, the
# processes it runs from (dpkg's hook shell), and whatever descends from
# it (its subshells and children, which map the loader it was started
# with, and are gone a moment later); nor a process that has exited by
# the time the list is made.
not_hugeld () {
  local f pid p self=" " comm
  local -a found=() left=()
  p=$$
  while [ "${p:-0}" -gt 1 ]; do
    self="$self$p "
    p=$(ppid "$p")
  done
  mapfile -t found < <(timeout 30 grep -lsF "$DISTRIB" /proc/[0-9]*/maps 2> /dev/null || :)
  for f in "${found[@]}"; do
    pid=${f#/proc/}; pid=${pid%/maps}
    case "$self" in *" $pid "*) continue ;; esac
    # Up its parents: one of them this script, it is ours; none left
    # (it exited meanwhile), it is gone.
    p=$pid
    while [ "${p:-0}" -gt 1 ] && [ "$p" != $$ ]; do p=$(ppid "$p"); done
    [ "$p" = 1 ] && left+=("/proc/$pid/maps")
  done
  [ ${#left[@]} -gt 0 ] || return 0
  # Those still there and still on the distribution's loader.
  mapfile -t found < <(timeout 30 grep -lsF "$DISTRIB" "${left[@]}" 2> /dev/null || :)
  for f in "${found[@]}"; do
    pid=${f#/proc/}; pid=${pid%/maps}
    comm=
    { read -r comm < "/proc/$pid/comm"; } 2> /dev/null || :
    echo "$pid ($comm)"
  done
}

# say_not_hugeld HINT: one line naming the processes that run on the
# distribution's loader, if any, and what brings hugeld to them.
say_not_hugeld () {
  local -a all=()
  local list more=
  mapfile -t all < <(not_hugeld)
  [ ${#all[@]} -gt 0 ] || return 0
  list=$(printf ', %s' "${all[@]:0:20}")
  [ ${#all[@]} -le 20 ] || more=', ...'
  say "${#all[@]} process(es) started while the distribution's loader was in place run without hugeld until restarted: ${list#, }$more${1:+; $1}"
}

do_dpkg_post () {
  installed || exit 0
  local libc hv was_link=0
  [ -L "$REAL" ] && was_link=1
  # The libc6 on disk: the version of the loader its package put in
  # .distrib.  dpkg's database says "not installed" between the unpack
  # and the configure pass of a libc6 upgrade or reinstall, while the
  # files are already the new ones.
  libc=$(loader_version "$DISTRIB")
  hv=$(cat "$STATE")
  if ! root_only "$PREFIX/ld.so"; then
    [ -L "$REAL" ] || link_distrib
    say "refusing $PREFIX/ld.so: it or a directory above it is not owned by root or can be written by others;"
    say "the system runs the distribution's loader until that is fixed and '$SELF install' is run again"
  elif [ "$libc" = "$hv" ] && [ "$(loader_version "$PREFIX/ld.so")" = "$hv" ]; then
    if [ -L "$REAL" ] || ! cmp -s "$PREFIX/ld.so" "$REAL"; then
      put "$PREFIX/ld.so" "$REAL"
      programs_start || { link_distrib; say "hugeld did not run programs after dpkg; the distribution's loader is back"; return; }
    fi
    [ $was_link = 0 ] || say_not_hugeld "systemctl daemon-reexec for PID 1, systemctl restart for services"
  elif [ -z "$libc" ]; then
    [ -L "$REAL" ] || link_distrib
    say "$DISTRIB runs no program: the system runs the distribution's loader; reinstall libc6"
  else
    [ -L "$REAL" ] || link_distrib
    say "libc6 is now $libc but hugeld was built from $hv:"
    say "the system runs the distribution's loader until hugeld is rebuilt (make; make install) and '$SELF install' is run again"
  fi
}

do_status () {
  if installed && [ -L "$REAL" ]; then
    echo "system loader: the distribution's, through $REAL -> $(readlink "$REAL") (hugeld $(cat "$STATE") is off)"
  elif installed; then
    echo "system loader: hugeld $(cat "$STATE") ($REAL; distribution's kept as $DISTRIB)"
  else
    echo "system loader: the distribution's ($(loader_version "$REAL"))"
  fi
  echo "libc6: $(libc_version)"
  if installed && [ ! -L "$REAL" ]; then
    local list
    list=$(not_hugeld)
    if [ -n "$list" ]; then
      echo "on the distribution's loader until restarted (started while a dpkg run that changed glibc's packages ran):"
      sed 's/^/  /' <<< "$list"
    fi
  fi
}

# Sourced (tests/t-hooks.sh): the functions only.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then return 0; fi

case "${1:-}" in
  install) do_install ;;
  uninstall) [ "$(id -u)" = 0 ] || die "uninstall needs root"; do_uninstall ;;
  status) do_status ;;
  dpkg-pre) do_dpkg_pre ;;
  dpkg-post) do_dpkg_post ;;
  *) echo "usage: $0 install|uninstall|status" >&2; exit 2 ;;
esac
