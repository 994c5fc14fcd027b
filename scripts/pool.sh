# The 2 MiB huge page pool for hugeld's scripts and tests: the one place
# that reads, resizes, saves and restores /proc/sys/vm/nr_hugepages.
# Sourced, not run.  (The hugeld command's `plan --apply` sizes pools
# for users; this is only for our own scripts.)
#
#   pool_size            the pool's size now
#   pool_save            own the pool (pool_lock) and remember its size (once)
#   pool_restore         put the remembered size back
#   pool_set N           make the pool N pages; fails if the kernel gave fewer
#   pool_at_least N      grow the pool to N pages if it is smaller

HUGELD_POOL_FILE=${HUGELD_POOL_FILE:-/proc/sys/vm/nr_hugepages}

pool_size () { cat "$HUGELD_POOL_FILE"; }

# pool_lock: one hugeld script or test at a time owns the pool (the
# tests count free pages and resize the pool; two at once would see
# each other's pages).  The lock is flock(2) on the pool's file itself,
# so it also holds between the host and a chroot that binds the host's
# /proc (make check-distro does; a new proc mount has its own lock).  Taken by pool_save, held until the shell exits
# (processes it starts inherit it).  A holder that never lets go (a
# daemon left running) is waited for HUGELD_POOL_LOCK_WAIT seconds.
pool_lock () {
  [ -z "${_hugeld_pool_fd:-}" ] || return 0
  command -v flock > /dev/null || return 0
  exec {_hugeld_pool_fd}< "$HUGELD_POOL_FILE" || return 0
  if ! flock -n "$_hugeld_pool_fd"; then
    echo "hugeld: waiting for another hugeld script or test that is using the huge page pool" >&2
    flock -w "${HUGELD_POOL_LOCK_WAIT:-1800}" "$_hugeld_pool_fd" \
      || echo "hugeld: the pool is still in use after ${HUGELD_POOL_LOCK_WAIT:-1800} s; going on" >&2
  fi
}

pool_save () {
  pool_lock
  [ -n "${_hugeld_pool_saved:-}" ] || _hugeld_pool_saved=$(pool_size)
}

pool_restore () {
  [ -z "${_hugeld_pool_saved:-}" ] || echo "$_hugeld_pool_saved" > "$HUGELD_POOL_FILE"
}

pool_set () {
  echo "$1" > "$HUGELD_POOL_FILE" 2>/dev/null || return 1
  [ "$(pool_size)" -ge "$1" ]
}

pool_at_least () {
  [ "$(pool_size)" -ge "$1" ] || pool_set "$1"
}
