#!/usr/bin/env python3
"""Big programs started by the kernel with hugeld as the system loader,
their text from the shared cache (issue 53):

  cargo     a 42 MB position-independent program: N starts of `cargo
            --version', each one's LD_DEBUG=hugepages report read for
            the move (the kernel put it at a random address; ld.so moves
            it where its cache entry fits) and for the pages it took
            (from the cache: none of the pool's own); and its start
            time, paired with the stock loader's;
  cc1       a build that runs gcc's cc1 once per file (make -j2 of M
            small C files): how many cc1 processes had their text from
            the one cache entry, and the pool's free pages before,
            lowest during (sampled every millisecond) and after.

Everything runs in a mount namespace of its own where hugeld's ld.so
is bound over the system's (/lib64/ld-linux-x86-64.so.2 leads to it),
so that the kernel starts each program with it, as on a machine where
hugeld is the system loader; the machine's own loader is left alone.

  piecache.py [--starts N] [--files M] [--out DIR]   (root; the cache
  entries it adds are removed at the end)

The raw results go to OUT/piecache.json.xz (benchlib.save_json)."""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import HUGELD, base_env, log, save_json, timed  # noqa: E402

HUGELD_CMD = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")
CARGO = sorted(glob.glob(os.path.expanduser(
    "~/.rustup/toolchains/stable-*/bin/cargo")) or ["/usr/bin/cargo"])[0]
CC1 = sorted(glob.glob("/usr/lib/gcc/x86_64-linux-gnu/*/cc1"))[-1]
SYSTEM_LDSO = os.path.realpath("/lib64/ld-linux-x86-64.so.2")
# The stock loader's copy, a path no longer than the system loader's
# (patch_interp).
STOCK_COPY = "/var/tmp/hugeld-stock-ld"


def meminfo(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def in_namespace():
    """Re-run this script in a mount namespace with hugeld's loader bound
    over the system's (unless that is done already)."""
    if os.environ.get("PIECACHE_NS") == "1":
        return
    # The stock loader, for the paired timing: a copy made before ours
    # is bound over it.
    fd, stock = tempfile.mkstemp(prefix="hugeld-piecache-ld.")
    with open(SYSTEM_LDSO, "rb") as f:
        os.write(fd, f.read())
    os.close(fd)
    os.chmod(stock, 0o755)
    script = ('mount --bind "$1" "$2" && shift 2 && exec "$@"')
    os.execvp("unshare", ["unshare", "-m", "sh", "-c", script, "sh",
                          os.path.realpath(HUGELD), SYSTEM_LDSO, "env",
                          "PIECACHE_NS=1", "PIECACHE_STOCK=" + stock,
                          sys.executable] + sys.argv)


def hugeld(*args):
    return subprocess.run([HUGELD_CMD] + list(args), capture_output=True,
                          text=True, env=dict(os.environ, LD_HUGEPAGE_LIBS=""))


def reports(outdir, name):
    """The LD_DEBUG reports in OUTDIR: for each, whether the program NAME
    was moved, and the huge pages its objects used and how many of them
    were the cache's."""
    out = []
    for path in glob.glob(os.path.join(outdir, "dbg.*")):
        text = open(path, errors="replace").read()
        if "/" + name + ":" not in text and name + ":" not in text:
            continue
        moved = bool(re.search(r": moved from 0x", text))
        used = shared = 0
        for m in re.finditer(r"(\d+) huge pages used, \d+ not available "
                             r"\((\d+) shared", text):
            used += int(m.group(1))
            shared += int(m.group(2))
        out.append({"moved": moved, "used": used, "shared": shared})
    return out


def patch_interp(path, interp):
    """Make PATH's PT_INTERP name INTERP (no longer than the one it
    has), so that the kernel starts it with that loader."""
    import struct
    with open(path, "r+b") as f:
        h = f.read(64)
        phoff, = struct.unpack_from("<Q", h, 32)
        phentsize, phnum = struct.unpack_from("<HH", h, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ptype, _, off, _, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
            if ptype == 3:
                new = interp.encode() + b"\0"
                if len(new) > filesz:
                    sys.exit("%s: %s does not fit its PT_INTERP" % (path,
                                                                  interp))
                f.seek(off)
                f.write(new.ljust(filesz, b"\0"))
                return
    sys.exit("%s: no PT_INTERP" % path)


def cargo_starts(cargo, n, work):
    dbg = os.path.join(work, "cargo-dbg")
    os.makedirs(dbg)
    env = dict(base_env(), LD_HUGEPAGE_LIBS="cargo", LD_DEBUG="hugepages",
               LD_DEBUG_OUTPUT=os.path.join(dbg, "dbg"))
    free0 = meminfo("HugePages_Free")
    for _ in range(n):
        subprocess.run([cargo, "--version"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
    got = reports(dbg, "cargo")
    # Start time, paired, both started by the kernel: with hugeld's
    # loader (the system's in this namespace), and a copy whose
    # PT_INTERP names the stock loader's copy.
    stock_cargo = os.path.join(work, "cargo-stock")
    shutil.copy2(cargo, stock_cargo)
    patch_interp(stock_cargo, STOCK_COPY)
    sel = dict(base_env(), LD_HUGEPAGE_LIBS="cargo")
    stock, hug = [], []
    for r in range(n + 2):
        pair = [("h", [cargo, "--version"], sel),
                ("s", [stock_cargo, "--version"], sel)]
        if r % 2:
            pair.reverse()
        t = {w: timed(cmd, env)[0] for w, cmd, env in pair}
        if r >= 2:
            hug.append(t["h"])
            stock.append(t["s"])
    return {"starts": n, "reports": got, "free_before": free0,
            "free_after": meminfo("HugePages_Free"), "hugeld_s": hug,
            "stock_s": stock,
            "ratio": statistics.median(a / b for a, b in zip(hug, stock))}


def cc1_build(m, work):
    src = os.path.join(work, "build")
    os.makedirs(src)
    for i in range(m):
        with open(os.path.join(src, "f%d.c" % i), "w") as f:
            f.write("#include <stdio.h>\nint f%d (int x) { return x * %d; }\n"
                    % (i, i))
    with open(os.path.join(src, "Makefile"), "w") as f:
        f.write("OBJS = %s\nall: $(OBJS)\n%%.o: %%.c\n\tgcc -O2 -c $< -o $@\n"
                % " ".join("f%d.o" % i for i in range(m)))
    dbg = os.path.join(work, "cc1-dbg")
    os.makedirs(dbg)
    env = dict(base_env(), LD_HUGEPAGE_LIBS="cc1", LD_DEBUG="hugepages",
               LD_DEBUG_OUTPUT=os.path.join(dbg, "dbg"))
    free0 = meminfo("HugePages_Free")
    low = [free0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            low[0] = min(low[0], meminfo("HugePages_Free"))
            time.sleep(0.001)
    t = threading.Thread(target=sample)
    t.start()
    try:
        subprocess.run(["make", "-s", "-j2", "-C", src], env=env, check=True)
    finally:
        done.set()
        t.join()
    got = reports(dbg, "cc1")
    return {"files": m, "reports": got, "free_before": free0,
            "free_lowest": low[0], "free_after": meminfo("HugePages_Free")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "pie"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("piecache.py: run as root")
    in_namespace()
    work = tempfile.mkdtemp(prefix="hugeld-piecache.", dir="/var/tmp")
    os.chmod(work, 0o755)
    shutil.move(os.environ["PIECACHE_STOCK"], STOCK_COPY)
    # cargo copied where others may read it (rustup keeps it under
    # /root, whose entry in the cache everybody could read: refused).
    cargo = os.path.join(work, "cargo")
    shutil.copy2(CARGO, cargo)
    os.chmod(cargo, 0o755)
    res = {"id": "pie-cache", "cargo": CARGO, "cc1": CC1}
    added = []
    # Room for the two entries (about 40 pages), given back at the end.
    with open("/proc/sys/vm/nr_hugepages") as f:
        pool0 = int(f.read())
    with open("/proc/sys/vm/nr_hugepages", "w") as f:
        f.write("%d\n" % (pool0 + 64))
    try:
        for prog in (cargo, CC1):
            r = hugeld("cache", "add", prog)
            if r.returncode != 0:
                sys.exit("hugeld cache add %s: %s" % (prog, r.stderr.strip()))
            added.append(prog)
        res["cache_pages"] = meminfo("HugePages_Total") - meminfo(
            "HugePages_Free")
        c = res["cargo_starts"] = cargo_starts(cargo, args.starts, work)
        served = sum(1 for x in c["reports"] if x["shared"] > 0)
        moved = sum(1 for x in c["reports"] if x["moved"])
        own = sum(x["used"] - x["shared"] for x in c["reports"])
        log("cargo --version, %d starts by the kernel: moved in %d, text "
            "from the cache in %d, %d pool pages of their own; start %.1f "
            "ms, %.3f of the stock loader's (%.1f ms, also started by the "
            "kernel); pool free %d -> %d"
            % (args.starts, moved, served, own,
               1000 * statistics.median(c["hugeld_s"]), c["ratio"],
               1000 * statistics.median(c["stock_s"]), c["free_before"],
               c["free_after"]))
        b = res["cc1_build"] = cc1_build(args.files, work)
        served = sum(1 for x in b["reports"] if x["shared"] > 0)
        own = sum(x["used"] - x["shared"] for x in b["reports"])
        log("make -j2 of %d files: %d cc1 processes, text from the cache in "
            "%d, %d pool pages of their own; pool free %d before, %d at the "
            "lowest, %d after" % (args.files, len(b["reports"]), served, own,
                                  b["free_before"], b["free_lowest"],
                                  b["free_after"]))
    finally:
        for prog in added:
            hugeld("cache", "remove", prog)
        shutil.rmtree(work, ignore_errors=True)
        if os.path.exists(STOCK_COPY):
            os.unlink(STOCK_COPY)
        with open("/proc/sys/vm/nr_hugepages", "w") as f:
            f.write("%d\n" % pool0)
    os.makedirs(args.out, exist_ok=True)
    save_json(res, os.path.join(args.out, "piecache.json.xz"))


if __name__ == "__main__":
    main()
