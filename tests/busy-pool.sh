#!/bin/bash
# Run a command (make check, say) while other processes use huge pages,
# as on a machine that does more than run hugeld's tests: what the
# tests must not mistake for a failure of hugeld (tests/lib.sh,
# scripts/pool.sh: what others hold is counted and left to them).
#
#   tests/busy-pool.sh [--pages N] [--cycle S] -- COMMAND...
#
# While COMMAND runs (as root):
#   - a hugetlb holder: grows nr_hugepages by N (default 24) as an
#     administrator would, without hugeld's pool lock, maps N
#     MAP_HUGETLB pages, touches them and holds them; every second it
#     checks that it still has them.  With --cycle S it lets them go and
#     maps them again every S seconds (a holder whose use changes under
#     a test: a check that compares the pool's counts before and after
#     may then see it);
#   - a page-cache holder: maps, read-only with MADV_HUGEPAGE and
#     MADV_COLLAPSE, a 64 MiB file of its own and the large libraries
#     the tests run (libc, libpython, libperl, libLLVM where there), so
#     that the page cache holds them in 2 MiB folios while the tests run.
# It takes hugeld's pool lock first and hands it to COMMAND (as
# _hugeld_pool_fd, scripts/pool.sh): the holders are there before any
# test takes the pool, and the tests of other checkouts on the machine
# wait rather than meet holders they were not written for.
# At the end each prints what it held (from /proc/PID/status and
# smaps), and the pool is shrunk by N again.  Exits with COMMAND's
# status.
set -u
pages=24 cycle=0
while [ $# -gt 0 ]; do
  case $1 in
    --pages) pages=$2; shift 2 ;;
    --cycle) cycle=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: tests/busy-pool.sh [--pages N] [--cycle S] -- COMMAND..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "tests/busy-pool.sh: must run as root (it grows the pool)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/busy-pool.XXXXXX)
P=/proc/sys/vm/nr_hugepages

. "$(dirname "$0")/../scripts/pool.sh"
pool_lock
export _hugeld_pool_fd
echo $(( $(cat $P) + pages )) > $P
python3 - "$pages" "$cycle" > "$tmp/hugetlb.log" 2>&1 <<'EOF' &
import ctypes, mmap, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
MAP_HUGETLB = 0x40000
H = 2 << 20
n, cycle = int(sys.argv[1]), int(sys.argv[2])
def take():
    p = libc.mmap(None, n * H, mmap.PROT_READ | mmap.PROT_WRITE,
                  mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB, -1, 0)
    if p in (None, ctypes.c_void_p(-1).value):
        return None
    for i in range(n):
        ctypes.c_char.from_address(p + i * H).value = b"x"
    return p
p = None
since = time.time()
maps = 0
while True:
    if p is None:
        p = take()
        if p is not None:
            maps += 1
            since = time.time()
            print("holding %d pages (map %d)" % (n, maps), flush=True)
    elif cycle and time.time() - since >= cycle:
        libc.munmap(p, n * H)
        p = None
        time.sleep(1)
        continue
    time.sleep(1)
EOF
hpid=$!
python3 - "$tmp" > "$tmp/thp.log" 2>&1 <<'EOF' &
import ctypes, glob, mmap, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
H = 2 << 20
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
own = os.path.join(sys.argv[1], "big")
with open(own, "wb") as f:
    f.write(os.urandom(64 << 20))
files = [own]
for pat in ("/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libpython3*.so.1*",
            "/usr/lib/x86_64-linux-gnu/libperl.so.5*", "/usr/lib/llvm-*/lib/libLLVM*.so*",
            "/usr/lib/x86_64-linux-gnu/libLLVM*.so*"):
    files += sorted(glob.glob(pat))[:1]
held = []
for path in files:
    size = os.path.getsize(path) & ~(H - 1)
    if size < H:
        continue
    fd = os.open(path, os.O_RDONLY)
    area = libc.mmap(None, size + H, 0, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    a = (area + H - 1) & ~(H - 1)
    p = libc.mmap(a, size, mmap.PROT_READ | mmap.PROT_EXEC, mmap.MAP_PRIVATE | 0x10, fd, 0)
    libc.madvise(p, size, MADV_HUGEPAGE)
    libc.madvise(p, size, MADV_COLLAPSE)
    for off in range(0, size, 4096):
        ctypes.c_ubyte.from_address(p + off).value
    held.append((path, p))
pmd = 0
for line in open("/proc/self/smaps"):
    if line.startswith("FilePmdMapped:"):
        pmd += int(line.split()[1])
print("page cache: %d kB FilePmdMapped over %s" % (pmd, " ".join(f for f, _ in held)), flush=True)
while True:
    time.sleep(60)
EOF
tpid=$!
sleep 5
echo "busy-pool: hugetlb holder $hpid ($(cat "$tmp/hugetlb.log" | tail -1)), page-cache holder $tpid ($(cat "$tmp/thp.log"))"
echo "busy-pool: HugePages $(awk '/^HugePages_(Total|Free|Rsvd)/ { printf "%s ", $0 }' /proc/meminfo)"
"$@"
rc=$?
echo "busy-pool: hugetlb holder at the end: $(grep HugetlbPages /proc/$hpid/status | tr -s ' \t' ' '), $(grep -c holding "$tmp/hugetlb.log") maps"
echo "busy-pool: page-cache holder at the end: $(awk '/^FilePmdMapped:/ { s += $2 } END { print s " kB FilePmdMapped" }' /proc/$tpid/smaps)"
kill "$hpid" "$tpid"
wait "$hpid" "$tpid" 2> /dev/null
n=$(( $(cat $P) - pages ))
echo $(( n < 0 ? 0 : n )) > $P
rm -rf "$tmp"
exit $rc
