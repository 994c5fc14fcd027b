#!/bin/sh
# hugeld tests: run a command away from what other processes keep in
# the machine's huge page pool and shared cache.
#   unshare -m tests/isolate.sh [--no-pool] [--no-cache] CMD...
# In the mount namespace of its own that unshare gives it:
#   --no-pool   the files ld.so and the command size the pool by
#               (dl-hugepage-pool.c: the 2 MiB pool's nr_hugepages,
#               nr_overcommit_hugepages and free_hugepages, and
#               /proc/sys/vm's) read 0: ld.so finds no pool at all,
#               while the pages others use stay theirs;
#   --no-cache  a hugetlbfs of its own, empty, on /dev/hugepages: no
#               shared cache, whatever the machine's holds (its pages
#               stay in use by their entries);
# then CMD runs.  The machine's pool and cache are left as they are: a
# test of "no pool" or "no cache entry" runs beside a database that
# holds pool pages, or a machine whose own sync filled the cache.
set -e
mount --make-rprivate / 2> /dev/null || true
while [ $# -gt 0 ]; do
  case $1 in
    --no-pool)
      zero=$(mktemp /tmp/hugeld-nopool.XXXXXX)
      echo 0 > "$zero"
      chmod 444 "$zero"
      for f in /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages \
               /sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages \
               /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
               /proc/sys/vm/nr_hugepages /proc/sys/vm/nr_overcommit_hugepages; do
        [ ! -e "$f" ] || mount --bind "$zero" "$f"
      done
      # The file stays reachable through the mounts; its name goes now.
      rm -f "$zero"
      shift ;;
    --no-cache)
      mkdir -p /dev/hugepages
      mount -t hugetlbfs -o mode=0755,pagesize=2M none /dev/hugepages
      shift ;;
    *) break ;;
  esac
done
exec "$@"
