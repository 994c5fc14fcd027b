#!/bin/sh
# hugeld tests: run a command where ld.so finds no huge page pool,
# whatever other processes keep in the machine's.
#   unshare -m tests/nopool.sh CMD...
# In the mount namespace of its own that unshare gives it, the files
# ld.so sizes the pool by (dl-hugepage-pool.c: the 2 MiB pool's
# nr_hugepages, nr_overcommit_hugepages and free_hugepages, and
# /proc/sys/vm's) read 0, then CMD runs.  The machine's pool, and the
# pages others use in it, are left as they are: a test of "no pool at
# all" runs beside a database that holds pool pages.
set -e
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
exec "$@"
