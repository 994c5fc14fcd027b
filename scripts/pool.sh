# The 2 MiB huge page pool for hugeld's scripts and tests: the one place
# that reads, resizes, saves and restores /proc/sys/vm/nr_hugepages.
# Sourced, not run.  (The hugeld command's `plan --apply` sizes pools
# for users; this is only for our own scripts.)
#
#   pool_size            the pool's size now (nr_hugepages)
#   pool_save            own the pool (pool_lock); remember its size and
#                        what others use of it (once)
#   pool_restore         put the remembered size back
#   pool_set N           make the pool hold N pages a new mapping can
#                        have, besides what others used at pool_save
#                        (0: no pool at all); fails if the kernel gave fewer
#   pool_set_avail N     make the pool hold N pages a new mapping can have
#                        now, whoever holds the others; fails if not
#   pool_ours            the pages in use beyond those in use at
#                        pool_save: this script's
#   pool_others          the pages others had in use at pool_save
#   pool_avail           the pages a new mapping can have now
#   pool_disturbed       whether others' huge pages changed since pool_save
#
# Others: processes that are not hugeld's scripts or tests (those take
# the lock) may use pool pages at any time (a database, a benchmark,
# another loader's cache).  What they use when a script takes the pool
# is counted and left to them: pool_set sizes the pool above it, and a
# test that wants "nothing of ours left in the pool" asks pool_ours, not
# whether HugePages_Free equals HugePages_Total.  Where others take or
# give back pages while a test runs, what the test sees of the pool may
# be theirs: its failures are then skips that say so (tests/lib.sh).

HUGELD_POOL_FILE=${HUGELD_POOL_FILE:-/proc/sys/vm/nr_hugepages}

pool_size () { cat "$HUGELD_POOL_FILE"; }

# pool_lock: one hugeld script or test at a time owns the pool (the
# tests count free pages and resize the pool; two at once would see
# each other's pages).  The lock is flock(2) on the pool's file itself,
# so it also holds between the host and a chroot that binds the host's
# /proc (make check-distro does; a new proc mount has its own lock).
# Taken by pool_save, held until the shell exits (processes it starts
# inherit it; so does a shell that finds _hugeld_pool_fd set).  A holder
# that never lets go (a daemon left running) is waited for
# HUGELD_POOL_LOCK_WAIT seconds; the seconds waited are added to the
# file HUGELD_POOL_WAITED names, if any (tests/run.sh: not a test's own
# time).
pool_lock () {
  [ -z "${_hugeld_pool_fd:-}" ] || return 0
  command -v flock > /dev/null || return 0
  exec {_hugeld_pool_fd}< "$HUGELD_POOL_FILE" || return 0
  if ! flock -n "$_hugeld_pool_fd"; then
    local t0=$SECONDS
    echo "hugeld: waiting for another hugeld script or test that is using the huge page pool" >&2
    flock -w "${HUGELD_POOL_LOCK_WAIT:-1800}" "$_hugeld_pool_fd" \
      || echo "hugeld: the pool is still in use after ${HUGELD_POOL_LOCK_WAIT:-1800} s; going on" >&2
    [ -z "${HUGELD_POOL_WAITED:-}" ] || echo $((SECONDS - t0)) >> "$HUGELD_POOL_WAITED"
  fi
}

# _pool_count EXPR: EXPR of /proc/meminfo's HugePages_Total (t), Free
# (f) and Rsvd (r).
_pool_count () {
  awk '$1 == "HugePages_Total:" { t = $2 } $1 == "HugePages_Free:" { f = $2 }
       $1 == "HugePages_Rsvd:" { r = $2 } END { print '"$1"' }' /proc/meminfo
}
pool_avail () { _pool_count 'f - r'; }

# pool_others_kb: the huge pages (kB, HugetlbPages of /proc/PID/status)
# that processes other than this shell and its descendants map now.
pool_others_kb () {
  cat /proc/[0-9]*/status 2> /dev/null | awk -v top="$$" '
    $1 == "Pid:" { pid = $2 } $1 == "PPid:" { pp[pid] = $2 }
    $1 == "HugetlbPages:" && $2 > 0 { kb[pid] = $2 }
    END { for (p in kb) {
            q = p
            for (i = 0; i < 100 && q > 1 && q != top; i++) q = pp[q]
            if (q != top) n += kb[p] }
          print n + 0 }'
}

pool_save () {
  pool_lock
  [ -z "${_hugeld_pool_saved:-}" ] || return 0
  _hugeld_pool_saved=$(pool_size)
  _hugeld_pool_busy=$(_pool_count 't - f + r')     # in use or reserved
  _hugeld_pool_inuse=$(_pool_count 't - f')
  _hugeld_pool_others_kb=$(pool_others_kb)
}

pool_restore () {
  [ -z "${_hugeld_pool_saved:-}" ] || echo "$_hugeld_pool_saved" > "$HUGELD_POOL_FILE"
}

# pool_set 0 writes 0: the pages others use then stay theirs as surplus
# pages (and come back into the pool with the next pool_set N), so that
# ld.so finds no pool, as on a machine without one.
pool_set () {
  local n=$(( $1 == 0 ? 0 : ${_hugeld_pool_busy:-0} + $1 ))
  echo "$n" > "$HUGELD_POOL_FILE" 2>/dev/null || return 1
  [ "$(pool_size)" -ge "$n" ]
}

pool_set_avail () {
  echo $(( $(_pool_count 't - f + r') + $1 )) > "$HUGELD_POOL_FILE" 2>/dev/null || return 1
  [ "$(pool_avail)" = "$1" ]
}

# (Pages in use, not reservations: a mapping others make and do not
# touch does not make a test's pages look kept.)
pool_ours () { echo $(( $(_pool_count 't - f') - ${_hugeld_pool_inuse:-0} )); }
pool_others () { echo "${_hugeld_pool_inuse:-0}"; }

# pool_disturbed: true, saying how on stdout, if other processes map
# another amount of huge pages than at pool_save.
pool_disturbed () {
  [ -n "${_hugeld_pool_others_kb:-}" ] || return 1
  local now; now=$(pool_others_kb)
  [ "$now" != "$_hugeld_pool_others_kb" ] || return 1
  echo "other processes' huge pages went from $_hugeld_pool_others_kb kB to $now kB while the test ran"
}
