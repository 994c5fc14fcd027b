#!/usr/bin/env python3
"""A short pool spent where it helps (issue 42): tests/fixtures'
libbigbody.so (rodata 6 huge pages before a text of 35, relro 1) run by
its iTLB-bound runner under two loaders, with 40, 20 and 5 pool pages
available.

  shortpool.py --ldso-a OLD_LD.SO --ldso-b NEW_LD.SO [--runs N]
               [--rounds R] [--pages 40,20,5] [--json FILE]

Root: it sizes the pool (under the pool lock scripts/pool.sh uses, the
flock of /proc/sys/vm/nr_hugepages) and puts it back.  For each pool,
first what each loader puts on huge pages (bigbody-run --report: the
2 MiB pages of text, rodata and relro in /proc/self/smaps), then A and
B in turn (A B A B ...), each run's wall time, medians and the B/A
ratio.  Every run must print the stock loader's result.  The stock
loader (no huge page at all) is timed too, as the floor.
"""

import argparse
import fcntl
import json
import os
import re
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POOL = "/proc/sys/vm/nr_hugepages"
STOCK = "/lib64/ld-linux-x86-64.so.2"


def meminfo(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def available():
    return meminfo("HugePages_Free") - meminfo("HugePages_Rsvd")


def set_available(n):
    """A pool with N pages available, whatever others hold."""
    want = meminfo("HugePages_Total") - available() + n
    with open(POOL, "w") as f:
        f.write("%d\n" % want)
    if available() != n:
        sys.exit("shortpool: the kernel gave %d available pages, not %d"
                 % (available(), n))


def env_for(backing):
    e = dict(os.environ)
    e.update(LD_HUGEPAGE_LIBS="libbigbody.so", LD_HUGEPAGE_BACKING=backing)
    e.pop("LD_DEBUG", None)
    return e


def report(ldso, prog, backing):
    """(text, rodata, relro) pages on huge pages under LDSO."""
    p = subprocess.run([ldso, prog, "--rounds", "0", "--report"],
                       env=env_for(backing), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=True)
    m = re.search(r"huge pages: text (\d+) rodata (\d+) relro (\d+)",
                  p.stderr.decode())
    return tuple(int(x) for x in m.groups())


def timed(ldso, prog, rounds, backing):
    t0 = time.perf_counter()
    p = subprocess.run([ldso, prog, "--rounds", str(rounds)],
                       env=env_for(backing), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("shortpool: %s exited %d: %s" % (ldso, p.returncode,
                                                  p.stderr.decode()[-300:]))
    return wall, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ldso-a", required=True, help="the loader before")
    ap.add_argument("--ldso-b", required=True, help="the loader after")
    ap.add_argument("--fixtures", default=os.path.join(TOP, "build", "tests"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--pages", default="40,20,5")
    ap.add_argument("--backing", default="private")
    ap.add_argument("--json")
    args = ap.parse_args()
    prog = os.path.join(args.fixtures, "bigbody-run")
    lock = os.open(POOL, os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    saved = meminfo("HugePages_Total")
    results = []
    try:
        stock_out = subprocess.run([STOCK, prog, "--rounds",
                                    str(args.rounds)],
                                   stdout=subprocess.PIPE, check=True).stdout
        for n in [int(x) for x in args.pages.split(",")]:
            set_available(n)
            got = {k: report(l, prog, args.backing)
                   for k, l in (("A", args.ldso_a), ("B", args.ldso_b))}
            t = {"A": [], "B": [], "stock": []}
            for r in range(args.runs + 1):
                for k, l in (("A", args.ldso_a), ("B", args.ldso_b),
                             ("stock", STOCK)):
                    set_available(n)
                    wall, out = timed(l, prog, args.rounds, args.backing)
                    if out != stock_out:
                        sys.exit("shortpool: %s printed %r, the stock loader "
                                 "%r" % (l, out, stock_out))
                    if r:       # the first round warms the page cache
                        t[k].append(wall)
            med = {k: statistics.median(v) for k, v in t.items()}
            ratios = [b / a for a, b in zip(t["A"], t["B"])]
            results.append({"available": n, "pages": got, "wall": t,
                            "median": med,
                            "ratio_b_a": statistics.median(ratios)})
    finally:
        with open(POOL, "w") as f:
            f.write("%d\n" % saved)
        os.close(lock)
    print("| pages available | A: text, rodata, relro on 2 MiB | B: text, "
          "rodata, relro on 2 MiB | A median s | B median s | B/A "
          "(median of pairs) | stock ld.so s |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print("| %d | %s | %s | %.3f | %.3f | %.3f | %.3f |" % (
            r["available"], "%d, %d, %d" % r["pages"]["A"],
            "%d, %d, %d" % r["pages"]["B"], r["median"]["A"],
            r["median"]["B"], r["ratio_b_a"], r["median"]["stock"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
