# The 2 MiB huge page pool for hugeld's scripts and tests: the one place
# that reads, resizes, saves and restores /proc/sys/vm/nr_hugepages.
# Sourced, not run.  (The hugeld command's `plan --apply` sizes pools
# for users; this is only for our own scripts.)
#
#   pool_size            the pool's size now
#   pool_save            remember the size (once; later calls keep the first)
#   pool_restore         put the remembered size back
#   pool_set N           make the pool N pages; fails if the kernel gave fewer
#   pool_at_least N      grow the pool to N pages if it is smaller

HUGELD_POOL_FILE=${HUGELD_POOL_FILE:-/proc/sys/vm/nr_hugepages}

pool_size () { cat "$HUGELD_POOL_FILE"; }

pool_save () {
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
