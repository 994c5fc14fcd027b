#!/usr/bin/env python3
"""The start right after the thp repair (issue 50): clang-14 --version
with hugeld's thp backing (no pool) on private copies of libLLVM-14 and
libclang-cpp, against the stock loader:

  prepare   the libraries dropped from the page cache, a stock-loaded
            clang run (its faults leave small folios), then `hugeld thp
            repair' of the two (root, as its timer runs it);
  first     the first start after that, by hugeld;
  later     the next hugeld starts (the median of two);
  stock     the stock loader on a machine without hugeld: the same
            preparation but the repair (the page cache as ordinary
            readers leave it), then its start;
  same      the stock loader in the page cache the repair left (where
            the kernel maps 2 MiB folios for any loader whose mapping
            is aligned, as Linux 6.18 aligns large file mappings, it
            gets what hugeld gets).

Each round prepares each state afresh, the order alternating, so that
the drift of a noisy machine hits all; reported are the medians of wall
time and of the per-round ratios to the stock loader's start (first,
later; and same).

  thpfirst.py [--rounds N] [--users root,nobody] [--out DIR]   (root)

The raw results go to OUT/thpfirst.json.xz (benchlib.save_json)."""
import argparse
import os
import pwd
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (HUGELD, STOCK, base_env, drop_page_cache, log,  # noqa: E402
                      save_json, timed)

CLANG = "/usr/lib/llvm-14/bin/clang"
LIBS = ["/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
        "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14"]
HUGELD_CMD = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--users", default="root,nobody")
    ap.add_argument("--work", default="/var/tmp/hugeld-thpfirst")
    ap.add_argument("--out", default=os.path.join(HERE, "results",
                                                  "thp-repair"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("thpfirst.py: run as root")
    # Private copies (a file system that makes large folios: not tmpfs),
    # readable by all, as the libraries are.
    os.makedirs(args.work, exist_ok=True)
    os.chmod(args.work, 0o755)
    libs = []
    for p in LIBS:
        q = os.path.join(args.work, os.path.basename(p))
        if not os.path.exists(q):
            shutil.copy2(p, q)
        os.chmod(q, 0o644)
        libs.append(q)
    os.sync()
    base = base_env()
    base["LD_LIBRARY_PATH"] = args.work
    hug = dict(base, LD_HUGEPAGE_LIBS="libLLVM-14.so*:libclang-cpp.so*",
               LD_HUGEPAGE_BACKING="thp", LD_HUGEPAGE_SEGMENTS="text,rodata")
    stock = [STOCK, CLANG, "--version"]
    hcmd = [HUGELD, CLANG, "--version"]

    def prepare(kw, repair=True):
        drop_page_cache(libs)
        timed(stock, base, **kw)
        if repair:
            subprocess.run([HUGELD_CMD, "thp", "repair", "--quiet"] + libs,
                           env=dict(os.environ, LD_HUGEPAGE_LIBS=""),
                           stdout=subprocess.DEVNULL, check=True)

    res = {"id": "thp-first-start", "rounds": args.rounds, "users": []}
    for user in args.users.split(","):
        kw = {}
        if user != "root":
            pw = pwd.getpwnam(user)
            kw = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        first, later, stk, same = [], [], [], []
        for r in range(args.rounds + 1):
            order = ("h", "s", "m") if r % 2 == 0 else ("m", "s", "h")
            got = {}
            for who in order:
                prepare(kw, repair=who != "s")
                if who == "h":
                    got["first"] = timed(hcmd, hug, **kw)[0]
                    got["later"] = statistics.median(
                        timed(hcmd, hug, **kw)[0] for _ in range(2))
                elif who == "s":
                    got["stock"] = timed(stock, base, **kw)[0]
                else:
                    got["same"] = timed(stock, base, **kw)[0]
            if r == 0:
                continue        # Warm-up.
            first.append(got["first"])
            later.append(got["later"])
            stk.append(got["stock"])
            same.append(got["same"])
        rf = statistics.median(a / b for a, b in zip(first, stk))
        rl = statistics.median(a / b for a, b in zip(later, stk))
        rs = statistics.median(a / b for a, b in zip(same, stk))
        rls = statistics.median(a / b for a, b in zip(later, same))
        res["users"].append({"user": user, "first_s": first,
                             "later_s": later, "stock_s": stk,
                             "same_s": same, "ratio_first": rf,
                             "ratio_later": rl, "ratio_same": rs,
                             "ratio_later_same": rls})
        log("  %-7s first start after the repair %.1f ms, later %.1f ms, "
            "stock %.1f ms: first/stock %.3f, later/stock %.3f; the stock "
            "loader after the repair %.1f ms (%.3f of its own; hugeld's "
            "later %.3f of it)" % (
                user, 1000 * statistics.median(first),
                1000 * statistics.median(later),
                1000 * statistics.median(stk), rf, rl,
                1000 * statistics.median(same), rs, rls))
    os.makedirs(args.out, exist_ok=True)
    save_json(res, os.path.join(args.out, "thpfirst.json.xz"))


if __name__ == "__main__":
    main()
