#!/usr/bin/env python3
"""The thp backing against what the page cache holds (issue 27): clang-14
--version and a one-line compile through the stock loader and through
hugeld with LD_HUGEPAGE_BACKING=thp (no pool), and, for comparison,
hugeld with the two libraries in the shared cache
(LD_HUGEPAGE_BACKING=shared,private), in three states of the page cache
of libLLVM-14 and libclang-cpp:

  cold            dropped before the run;
  warm-by-stock   dropped, then read whole by an ordinary process
                  (cat): small folios, as after any other reader;
  warm-by-hugeld  as hugeld left it (its 2 MiB folios).

Each round prepares the state before each run, stock first, so that the drift of a noisy machine hits both alike;
reported are the medians of wall and user time and the median of the
per-round hugeld/stock ratios, and, once per state, how much of the two
libraries' R-E segments a long-lived hugeld clang had on the page
cache's 2 MiB folios (FilePmdMapped).

With --libdir DIR the two libraries are copied into DIR (a mount of
another file system, say XFS) and every variant loads them from there
(LD_LIBRARY_PATH).  With --user NAME every clang runs as that user (a
service's own, or nobody): one who may not write the libraries, for
whom the page cache cannot be asked.

  thprepair.py [--rounds N] [--out DIR] [--libdir DIR] [--user NAME]
                                          (root: drops the page cache)

The raw results go to OUT/thp-repair.json.xz (compact JSON,
xz-compressed; benchlib.load_json reads it).
"""
import argparse, os, pwd, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (HUGELD, STOCK, base_env, drop_page_cache, fill_by_read,  # noqa: E402
                      log, save_json, timed)

CLANG = "/usr/lib/llvm-14/bin/clang"
# subprocess.run's user and group for every clang (--user).
AS = {}
LIBS = ["/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
        "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14"]
SEL = "libLLVM-14.so*:libclang-cpp.so*"


def drop():
    drop_page_cache(LIBS)


def fill_by_stock():
    fill_by_read(LIBS)


def coverage(env, rd):
    """FilePmdMapped of the libraries' R-E segments in a clang that waits
    on its standard input, as (pmd kB, size kB, rss kB): since ld.so
    leaves what the page cache lacks to be read on first use, RSS is
    what clang has run so far."""
    p = subprocess.Popen([HUGELD, CLANG, "-fintegrated-cc1", "-resource-dir", rd,
                          "-fsyntax-only", "-x", "c", "-"], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, **AS)
    time.sleep(2)
    pmd = size = rss = 0
    on = False
    with open("/proc/%d/smaps" % p.pid) as f:
        for line in f:
            w = line.split()
            if "-" in w[0] and not w[0].endswith(":"):
                on = "x" in w[1] and any(os.path.basename(l) in line for l in LIBS)
            elif on and w[0] == "Size:":
                size += int(w[1])
            elif on and w[0] == "Rss:":
                rss += int(w[1])
            elif on and w[0] == "FilePmdMapped:":
                pmd += int(w[1])
    p.communicate(b"")
    return pmd, size, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "thp-repair"))
    ap.add_argument("--libdir")
    ap.add_argument("--user")
    o = ap.parse_args()
    if o.user:
        pw = pwd.getpwnam(o.user)
        AS.update(user=pw.pw_uid, group=pw.pw_gid, extra_groups=[])
    extra = {}
    if o.libdir:
        for i, l in enumerate(LIBS):
            dst = os.path.join(o.libdir, os.path.basename(l))
            subprocess.run(["cp", l, dst], check=True)
            LIBS[i] = dst
        os.sync()
        extra = {"LD_LIBRARY_PATH": o.libdir}
    rd = subprocess.run([CLANG, "-print-resource-dir"], stdout=subprocess.PIPE,
                        text=True, check=True).stdout.strip()
    os.makedirs(o.out, exist_ok=True)
    stock_env = dict(base_env(), **extra)
    thp_env = dict(base_env(), LD_HUGEPAGE_LIBS=SEL, LD_HUGEPAGE_BACKING="thp",
                   **extra)
    shared_env = dict(base_env(), LD_HUGEPAGE_LIBS=SEL,
                      LD_HUGEPAGE_BACKING="shared,private", **extra)
    hugeld_cmd = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")
    pool = "/proc/sys/vm/nr_hugepages"
    with open(pool) as f:
        pool0 = f.read().strip()
    with open(pool, "w") as f:
        f.write("160")
    subprocess.run([hugeld_cmd, "cache", "add"] + LIBS, check=True,
                   stdout=subprocess.DEVNULL)
    try:
        run_states(o, rd, cmds_of(rd, o.out), stock_env, thp_env, shared_env)
    finally:
        subprocess.run([hugeld_cmd, "cache", "remove"] + LIBS, stdout=subprocess.DEVNULL)
        with open(pool, "w") as f:
            f.write(pool0)


def cmds_of(rd, out):
    one = os.path.join(out, "one.c")
    with open(one, "w") as f:
        f.write("int f (void) { return 1; }\n")
    return {"version": [CLANG, "--version"],
            "compile": [CLANG, "-fintegrated-cc1", "-resource-dir", rd, "-c", one,
                        "-o", "/dev/null"]}


def run_states(o, rd, cmds, stock_env, thp_env, shared_env):
    states = {"cold": drop, "warm-by-stock": fill_by_stock, "warm-by-hugeld": None}
    fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", LIBS[0]],
                        stdout=subprocess.PIPE, text=True).stdout.strip()
    res = {"id": "thp-repair", "kernel": os.uname().release, "rounds": o.rounds,
           "libs": LIBS, "fs": fs, "user": o.user or "root",
           "groups": []}
    for sname, prep in states.items():
        if prep is None:
            # What hugeld left: one hugeld run first.
            fill_by_stock()
            subprocess.run([HUGELD] + cmds["version"], env=thp_env,
                           stdout=subprocess.DEVNULL, check=True, **AS)
        (prep or (lambda: None))()
        pmd, size, rss = coverage(thp_env, rd)
        for cname, cmd in cmds.items():
            s, h, c = [], [], []
            for r in range(o.rounds):
                (prep or (lambda: None))()
                s.append(timed([STOCK] + cmd, stock_env, **AS))
                (prep or (lambda: None))()
                h.append(timed([HUGELD] + cmd, thp_env, **AS))
                (prep or (lambda: None))()
                c.append(timed([HUGELD] + cmd, shared_env, **AS))
            g = {"state": sname, "cmd": cmd, "name": cname,
                 "stock_wall": [x[0] for x in s], "thp_wall": [x[0] for x in h],
                 "shared_wall": [x[0] for x in c],
                 "stock_user": [x[1] for x in s], "thp_user": [x[1] for x in h],
                 "shared_user": [x[1] for x in c],
                 "thp_pmd_kb": pmd, "text_kb": size, "thp_rss_kb": rss}
            for v, x in (("thp", h), ("shared", c)):
                r = [b[0] / a[0] for a, b in zip(s, x)]
                g[v + "_ratio_wall"] = statistics.median(r)
                g[v + "_ratio_wall_spread"] = [min(r), max(r)]
                g[v + "_ratio_user"] = statistics.median(
                    b[1] / max(a[1], 1e-6) for a, b in zip(s, x))
            res["groups"].append(g)
            log("%-15s %-8s stock %6.1f ms | thp %6.1f ms ratio %.2f (%.2f-%.2f) user %.2f"
                " | shared %6.1f ms ratio %.2f (%.2f-%.2f) | thp coverage %d of %d kB (%.1f%%; %.1f%% of the %d kB mapped)" % (
                    sname, cname, 1000 * statistics.median(g["stock_wall"]),
                    1000 * statistics.median(g["thp_wall"]), g["thp_ratio_wall"],
                    g["thp_ratio_wall_spread"][0], g["thp_ratio_wall_spread"][1],
                    g["thp_ratio_user"], 1000 * statistics.median(g["shared_wall"]),
                    g["shared_ratio_wall"], g["shared_ratio_wall_spread"][0],
                    g["shared_ratio_wall_spread"][1], pmd, size, 100.0 * pmd / max(size, 1),
                    100.0 * pmd / max(rss, 1), rss))
    os.unlink(cmds["compile"][5])
    save_json(res, os.path.join(o.out, "thp-repair.json.xz"))


if __name__ == "__main__":
    main()
