"""The machinery of bench.py: the system state it changes and restores
(pool, THP mode, hugetlbfs mount), perf, the round-robin runner and the
probes that check what each variant got.  bench.py holds the sections."""
import fcntl, glob, json, lzma, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

from abtime import run_once  # bench/abtime.py: the demo's measurement too

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

HUGELD = os.environ.get("HUGELD_LDSO", "/opt/hugeld/ld.so")
STOCK = "/lib64/ld-linux-x86-64.so.2"
FIXTURES = os.path.join(TOP, "build", "tests")
THP = "/sys/kernel/mm/transparent_hugepage/enabled"
POOL = "/proc/sys/vm/nr_hugepages"


def log(*a):
    print("[bench %s]" % time.strftime("%H:%M:%S"), *a, flush=True)


def drop_page_cache(paths):
    """Drop PATHS from the page cache (written back first)."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def fill_by_read(paths):
    """PATHS dropped, then read whole with read(2), as any ordinary
    process reads a file (cat, a backup, the stock loader's neighbour):
    the page cache then holds what the kernel's readahead makes."""
    drop_page_cache(paths)
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


def timed(cmd, env, **kw):
    """Run CMD (standard output discarded, must exit 0; KW as for
    subprocess.run, user= say): (wall, user) seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True, **kw)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


# ---------------------------------------------------------------- raw results
# What an .xz file starts with (the xz format's stream header magic).
XZ_MAGIC = b"\xfd7zXZ\x00"


def json_path(path):
    """PATH, or PATH.xz when only that exists: a raw result named as it
    was before it was stored compressed."""
    if not os.path.exists(path) and os.path.exists(path + ".xz"):
        return path + ".xz"
    return path


def load_json(path):
    """The JSON in PATH (or PATH.xz, see json_path), xz-compressed or
    not: every script that reads a raw result reads it through this."""
    with open(json_path(path), "rb") as f:
        data = f.read()
    if data.startswith(XZ_MAGIC):
        data = lzma.decompress(data)
    return json.loads(data)


def save_json(obj, path):
    """Write OBJ to PATH as compact JSON (one line), xz-compressed when
    PATH ends in .xz, through a temporary file renamed over PATH: a run
    stopped while writing leaves the last whole file.  Writing X.json.xz
    removes the X.json an earlier version of the scripts wrote there.  The
    compression is xz -9's with a dictionary no larger than the data
    (for data under 64 MiB the same stream but for the dictionary size
    in its header; xz -dc reads it): -9's own 64 MiB dictionary would
    have the compressor take and free some 670 MiB between the cells of
    a benchmark."""
    data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    if path.endswith(".xz"):
        dict_size = 1 << 12
        while dict_size < len(data) and dict_size < 1 << 26:
            dict_size <<= 1
        data = lzma.compress(data, check=lzma.CHECK_CRC64, filters=[
            {"id": lzma.FILTER_LZMA2, "preset": 9, "dict_size": dict_size}])
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    if path.endswith(".json.xz") and os.path.exists(path[:-3]):
        os.unlink(path[:-3])


# ---------------------------------------------------------------- system state
class System:
    """Pool, THP mode and the hugetlbfs mount, restored on exit."""

    def __init__(self, work):
        self.work = work
        # Own the pool as scripts/pool.sh's pool_lock does (flock on the
        # pool's file), for as long as the benchmark runs.
        self.pool_lock = open(POOL)
        try:
            fcntl.flock(self.pool_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            print("bench: waiting for another hugeld script or test that is "
                  "using the huge page pool", file=sys.stderr)
            fcntl.flock(self.pool_lock, fcntl.LOCK_EX)
        self.old_pool = int(read(POOL))
        self.old_thp = re.search(r"\[(\w+)\]", read(THP)).group(1)
        self.mount = None
        self.cur_thp = self.old_thp

    def pool(self, n):
        if n > int(read(POOL)):
            write(POOL, str(n))
        got = int(read(POOL))
        log("huge page pool: %d pages (was %d)" % (got, self.old_pool))
        return got

    def thp(self, mode):
        mode = mode or self.old_thp
        if mode != self.cur_thp:
            write(THP, mode)
            self.cur_thp = mode

    def hugetlbfs(self):
        if self.mount is None:
            self.mount = tempfile.mkdtemp(prefix="hugeld-bench-hugetlbfs.", dir="/tmp")
            sh(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none", self.mount])
        return self.mount

    def restore(self):
        try:
            write(THP, self.old_thp)
        except OSError as e:
            print("bench: cannot restore THP:", e, file=sys.stderr)
        try:
            write(POOL, str(self.old_pool))
        except OSError as e:
            print("bench: cannot restore pool:", e, file=sys.stderr)
        if self.mount:
            subprocess.run(["umount", self.mount])
            os.rmdir(self.mount)
            self.mount = None


def perf_probe():
    """Which TLB events perf stat can count here (often none in a VM)."""
    if not shutil.which("perf"):
        return [], "perf not installed"
    ev = ["iTLB-load-misses", "dTLB-load-misses", "dTLB-store-misses"]
    p = subprocess.run(["perf", "stat", "-x,", "-e", ",".join(ev), "true"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ok = [e for e in ev if re.search(r"^[0-9]+,[^,]*,%s" % re.escape(e), p.stderr, re.M)]
    why = "" if ok else "perf stat: " + "; ".join(
        l.strip() for l in p.stderr.splitlines() if "not supported" in l or "not counted" in l)
    return ok, why or "no TLB events"


def perf_run(cmd, env, events):
    out = tempfile.mktemp(prefix="hugeld-bench-perf.")
    subprocess.run(["perf", "stat", "-x,", "-o", out, "-e", ",".join(events), "--"] + cmd,
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = {}
    for line in read(out).splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2] in events and f[0].isdigit():
            res[f[2]] = int(f[0])
    os.unlink(out)
    return res


# ---------------------------------------------------------------- runner
def base_env():
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("LD_HUGEPAGE") or k in ("LD_DEBUG", "LD_LIBRARY_PATH", "LD_PRELOAD") \
                or k.startswith("HUGETLB_"):
            del env[k]
    return env


def variant(name, label, cmd, env=None, thp=None, probe=None):
    return {"name": name, "label": label, "cmd": cmd, "env": env or {}, "thp": thp,
            "probe": probe}


def run_group(sysm, gid, title, variants, runs, warmup, perf_events, extra=None):
    """Round-robin timing of VARIANTS; first one is the baseline."""
    log("%s: %s (%d variants x %d runs + %d warm-up)" % (gid, title, len(variants), runs, warmup))
    samples = {v["name"]: [] for v in variants}
    outs = {v["name"]: set() for v in variants}
    n = len(variants)
    for r in range(warmup + runs):
        order = variants[r % n:] + variants[:r % n]
        for v in order:
            sysm.thp(v["thp"])
            env = base_env()
            env.update(v["env"])
            wall, user, sys_, out = run_once(v["cmd"], env)
            outs[v["name"]].add(out)
            if r >= warmup:
                samples[v["name"]].append({"wall": wall, "user": user, "sys": sys_})
    sysm.thp(None)
    allout = set()
    for k, o in outs.items():
        if len(o) != 1:
            sys.exit("bench: %s/%s printed different output in different runs" % (gid, k))
        allout |= o
    if len(allout) != 1:
        sys.exit("bench: %s: variants printed different outputs" % gid)
    res = {"id": gid, "title": title, "runs": runs, "warmup": warmup, "variants": []}
    base = None
    for v in variants:
        s = samples[v["name"]]
        med = {k: statistics.median(x[k] for x in s) for k in ("wall", "user", "sys")}
        spread = {k: (max(x[k] for x in s) - min(x[k] for x in s)) / med[k] if med[k] else 0
                  for k in ("wall", "user")}
        if base is None:
            base = med
        ent = {"name": v["name"], "label": v["label"], "cmd": v["cmd"], "env": v["env"],
               "thp": v["thp"] or sysm.old_thp, "samples": s, "median": med,
               "spread": spread,
               "ratio": {k: med[k] / base[k] for k in ("wall", "user")}}
        if v.get("probe"):
            sysm.thp(v["thp"])
            env = base_env()
            env.update(v["env"])
            ent["pages"] = v["probe"](env)
            sysm.thp(None)
        if perf_events:
            sysm.thp(v["thp"])
            env = base_env()
            env.update(v["env"])
            ent["perf"] = perf_run(v["cmd"], env, perf_events)
            sysm.thp(None)
        res["variants"].append(ent)
        log("  %-34s wall %8.3f s  user %8.3f s  ratio %.3f / %.3f" % (
            v["label"], med["wall"], med["user"], ent["ratio"]["wall"], ent["ratio"]["user"]))
    if extra:
        res.update(extra)
    return res


# ---------------------------------------------------------------- probes
INFO = re.compile(r"info: (\w+): .*\((\d+) KiB\): (\d+) KiB on 2 MiB pages.*?; (\d+) KiB of transparent")


def bigcheck_probe(cmd):
    """Run bigcheck (one round, no --bench) the same way; its info lines say
    how much of each region is on hugetlb pages and on THP/PMD-mapped pages."""
    def probe(env):
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        res = {}
        for m in INFO.finditer(p.stderr):
            res[m.group(1)] = {"kib": int(m.group(2)), "hugetlb_kib": int(m.group(3)),
                               "thp_kib": int(m.group(4))}
        m = re.search(r"info: process: (\d+) KiB on 2 MiB pages", p.stderr)
        if m:
            res["process_hugetlb_kib"] = int(m.group(1))
        return res
    return probe


def ldd_probe(cmd):
    """LD_DEBUG=hugepages of the same command: huge pages used per object."""
    def probe(env):
        env = dict(env)
        if "LD_HUGEPAGE_LIBS" not in env:
            return {}
        d = tempfile.mkdtemp(prefix="hugeld-bench-dbg.")
        env["LD_DEBUG"] = "hugepages"
        env["LD_DEBUG_OUTPUT"] = os.path.join(d, "dbg")
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res = {}
        for f in glob.glob(os.path.join(d, "dbg*")):
            for m in re.finditer(r"hugepages: (\S+): (\d+) huge pages used", read(f)):
                res[os.path.basename(m.group(1))] = int(m.group(2))
        shutil.rmtree(d)
        return {"hugeld_pages": res}
    return probe
