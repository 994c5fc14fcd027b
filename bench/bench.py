#!/usr/bin/env python3
"""hugeld benchmarks (issue #7): hugeld against the stock loader, kernel THP
and libhugetlbfs' hugectl, on synthetic iTLB/dTLB-bound programs, clang,
MariaDB, and the cost of loading onto huge pages.

  bench.py [--quick] [--only SECTION,...] [--out DIR]

Sections: synthetic, clang, startup, mariadb, costs, policy (default: all
of these) and elfthp (glibc 2.44 only: bench/elfthp.py).  Must run as
root: it sets /proc/sys/vm/nr_hugepages and
/sys/kernel/mm/transparent_hugepage/enabled and mounts a hugetlbfs under
/tmp for libhugetlbfs; all three are restored on exit (also on ^C).

Every comparison runs its variants round-robin (A B C A B C ..., the order
rotated each round), several runs each, and reports medians and ratios to
the first variant (the stock loader).  Raw samples go to OUT/raw/*.json.xz
(compact JSON, xz-compressed; benchlib.load_json reads them), the machine
to OUT/raw/machine.json; bench/report.py turns them into OUT/RESULTS.md
and PNG plots.
"""
import argparse, json, os, platform, re, shutil, signal, statistics, subprocess, sys, tempfile, time

# The machinery (system state, perf, the runner, probes): bench/benchlib.py.
from policy import policy  # bench/policy.py: the cost of /etc/hugeld.conf
from elfthp import elfthp  # bench/elfthp.py: beside glibc 2.44's glibc.elf.thp
from benchlib import (FIXTURES, HERE, HUGELD, STOCK, TOP, System, base_env, drop_page_cache,
                      bigcheck_probe, ldd_probe, log, perf_probe, read,
                      run_group, save_json, sh, variant)

CLANG = "/usr/lib/llvm-14/bin/clang"
LLVM_LIBS = ["/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
             "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14"]
CLANG_SEL = "libLLVM-14.so*:libclang-cpp.so*"
MARIADB_SEL = "mariadbd:libcrypto*:libssl*"


# ---------------------------------------------------------------- synthetic
def synthetic(sysm, w, q, perf_events):
    runs, warm = (3, 1) if q else (5, 1)
    ext, shm = w["ext4"], w["shm"]
    hugectl = ["hugectl", "--force-preload", "--library-use-path"]
    hlenv = {"LD_LIBRARY_PATH": w["hlib"], "HUGETLB_PATH": sysm.hugetlbfs()}
    groups = []

    def std(kind, prog, args, sel, extra_env=None, hugectl_opts=None, tmpfs=True):
        ee = dict(extra_env or {})
        hl = dict(ee, LD_HUGEPAGE_LIBS=sel)

        def a(d):
            return [x.replace("@", d) for x in args]
        pa = [a for a in args if a != "--bench" and a != "--bench-mem"]

        def pr(loader, d):
            return bigcheck_probe(([loader] if loader else []) + [os.path.join(d, prog)]
                                  + [x.replace("@", d) for x in pa] + ["--rounds", "1"])
        vs = [variant("stock", "stock ld.so (ext4)", [STOCK, os.path.join(ext, prog)] + a(ext),
                      ee, probe=pr(STOCK, ext)),
              variant("hugeld", "hugeld (ext4)", [HUGELD, os.path.join(ext, prog)] + a(ext),
                      hl, probe=pr(HUGELD, ext))]
        if tmpfs:
            ra = w["ra"]
            vs += [variant("stock-ra", "stock ld.so (ext4, page cache via readahead)",
                           [STOCK, os.path.join(ra, prog)] + a(ra), ee, probe=pr(STOCK, ra)),
                   variant("stock-tmpfs", "stock ld.so (tmpfs)", [STOCK, os.path.join(shm, prog)] + a(shm),
                           ee, probe=pr(STOCK, shm)),
                   variant("hugeld-tmpfs", "hugeld (tmpfs)", [HUGELD, os.path.join(shm, prog)] + a(shm),
                           hl, probe=pr(HUGELD, shm))]
        vs.append(variant("thp", "stock ld.so, THP=always", [STOCK, os.path.join(ext, prog)] + a(ext),
                          ee, thp="always", probe=pr(STOCK, ext)))
        if hugectl_opts:
            p2 = prog + "-2m"
            vs += [variant("stock-2m", "stock ld.so, 2 MiB-aligned build",
                           [STOCK, os.path.join(ext, p2)] + a(ext), ee,
                           probe=bigcheck_probe([STOCK, os.path.join(ext, p2), "--rounds", "1"])),
                   variant("hugectl", "hugectl %s, 2 MiB-aligned build" % " ".join(hugectl_opts),
                           hugectl + hugectl_opts + [os.path.join(ext, p2)] + a(ext), dict(ee, **hlenv),
                           probe=bigcheck_probe(hugectl + hugectl_opts + [os.path.join(ext, p2), "--rounds", "1"])),
                   variant("hugeld-2m", "hugeld, 2 MiB-aligned build",
                           [HUGELD, os.path.join(ext, p2)] + a(ext), dict(ee, LD_HUGEPAGE_LIBS=p2),
                           probe=bigcheck_probe([HUGELD, os.path.join(ext, p2), "--rounds", "1"]))]
        return vs

    groups.append(run_group(sysm, "itlb-pie", "iTLB-bound, code in a PIE (bigcheck-pie --bench)",
                            std("itlb", "bigcheck-pie", ["--bench"], "bigcheck-pie",
                                hugectl_opts=["--text"]), runs, warm, perf_events))
    groups.append(run_group(sysm, "itlb-shared", "iTLB-bound, code in a shared library (bigcheck-shared --bench, libbig.so)",
                            std("itlb", "bigcheck-shared", ["--bench"], "libbig.so"), runs, warm, perf_events,
                            {"note": "hugectl: not applicable, libhugetlbfs remaps only the main executable's segments"}))
    groups.append(run_group(sysm, "itlb-dlopen", "iTLB-bound, code in a dlopened library (bigcheck-dlopen --dlopen libbig.so --bench)",
                            std("itlb", "bigcheck-dlopen", ["--dlopen", "@/libbig.so", "--bench"], "libbig.so"),
                            runs, warm, perf_events,
                            {"note": "hugectl: not applicable, libhugetlbfs remaps only the main executable's segments"}))
    groups.append(run_group(sysm, "dtlb-pie", "dTLB-bound, random walk over 8 MiB .data + 16 MiB .bss (bigcheck-pie --bench-mem, LD_HUGEPAGE_SEGMENTS=all)",
                            std("dtlb", "bigcheck-pie", ["--bench-mem"], "bigcheck-pie",
                                extra_env={"LD_HUGEPAGE_SEGMENTS": "all"},
                                hugectl_opts=["--text", "--data", "--bss"], tmpfs=False),
                            runs, warm, perf_events,
                            {"note": "hugectl --data --bss: libhugetlbfs 2.23 prints \"Executable has too many "
                             "segments (max 3)\" (the -z separate-code build has 4 PT_LOADs: R, R E, R, RW) and "
                             "remaps nothing, so that row is the stock layout"}))
    return groups


# ---------------------------------------------------------------- clang
def clang(sysm, w, q, perf_events):
    runs, warm = (2, 1) if q else (3, 1)
    nfun = 3 if q else 6
    src = os.path.join(w["ext4"], "clang-work-%d.cpp" % nfun)
    with open(src, "w") as f:
        sh([sys.executable, os.path.join(HERE, "gen_cxx.py"), str(nfun)], stdout=f)
    rd = subprocess.run([CLANG, "-print-resource-dir"], stdout=subprocess.PIPE,
                        text=True, check=True).stdout.strip()
    llvm_shm = os.path.join(w["shm"], "llvm")
    os.makedirs(llvm_shm, exist_ok=True)
    for l in LLVM_LIBS:
        shutil.copy(l, llvm_shm)
    # The tmpfs copies must really be the ones loaded.
    lst = subprocess.run([STOCK, "--list", CLANG], env=dict(base_env(), LD_LIBRARY_PATH=llvm_shm),
                         stdout=subprocess.PIPE, text=True).stdout
    assert lst.count(llvm_shm) == 2, lst
    # -fintegrated-cc1: the compilation runs in the process the loader
    # started (the driver would otherwise re-exec itself via the kernel).
    # -resource-dir: /proc/self/exe is the loader, not clang.
    args = [CLANG, "-fintegrated-cc1", "-resource-dir", rd, "-O2", "-c", src, "-o", "/dev/null"]
    sel = {"LD_HUGEPAGE_LIBS": CLANG_SEL}
    tm = {"LD_LIBRARY_PATH": llvm_shm}
    vs = [variant("stock", "stock ld.so (ext4)", [STOCK] + args),
          variant("hugeld", "hugeld (ext4)", [HUGELD] + args, sel, probe=ldd_probe([HUGELD] + args[:-5] + ["-E", "-x", "c", "/dev/null", "-o", "/dev/null"])),
          variant("stock-tmpfs", "stock ld.so (libs on tmpfs)", [STOCK] + args, tm),
          variant("hugeld-tmpfs", "hugeld (libs on tmpfs)", [HUGELD] + args, dict(sel, **tm)),
          variant("thp", "stock ld.so, THP=always", [STOCK] + args, thp="always")]
    if q:
        vs = [vs[0], vs[1], vs[2], vs[3]]
    return [run_group(sysm, "clang", "clang-14 -O2 -c of a %d-function C++ file (%s on huge pages)"
                      % (nfun, CLANG_SEL), vs, runs, warm, perf_events)]


# ---------------------------------------------------------------- startup
def lib_pages_probe(cmd):
    """Start CMD (a clang that reads its source from stdin), give it a moment
    to load, and sum what backs its code: huge pages from the shared cache
    (mappings of /dev/hugepages/hugeld files), private hugetlb copies
    (/anon_hugepage), and page-cache huge pages of libLLVM/libclang-cpp
    (FilePmdMapped).  By mapping, not by smaps' Shared_/Private_Hugetlb,
    which only count how many processes map a page right now."""
    def probe(env):
        p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        res = {"cache_hugetlb_kib": 0, "private_hugetlb_kib": 0, "file_pmd_kib": 0}
        kind = None
        try:
            for line in open("/proc/%d/smaps" % p.pid):
                f = line.split()
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    kind = ("cache" if "/hugeld/" in line else
                            "private" if "/anon_hugepage" in line else
                            "lib" if "libLLVM" in line or "libclang-cpp" in line
                            else None)
                elif kind == "lib" and f and f[0] == "FilePmdMapped:":
                    res["file_pmd_kib"] += int(f[1])
                elif kind in ("cache", "private") and f \
                        and f[0] in ("Shared_Hugetlb:", "Private_Hugetlb:"):
                    res[kind + "_hugetlb_kib"] += int(f[1])
        finally:
            p.communicate(b"")
        return res
    return probe


def startup(sysm, w, q, perf_events):
    """Start-up of short-lived clang processes: the private copy against the
    shared cache, thp and the stock loader (issue 10)."""
    runs, warm = (7, 1) if q else (21, 2)
    hugeld = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")
    libs = [os.path.realpath(l) for l in LLVM_LIBS]
    sh([hugeld, "cache", "add"] + libs)
    one = os.path.join(w["ext4"], "one.c")
    with open(one, "w") as f:
        f.write("int f (void) { return 1; }\n")
    rd = subprocess.run([CLANG, "-print-resource-dir"], stdout=subprocess.PIPE,
                        text=True, check=True).stdout.strip()
    # The page cache: the libraries are dropped, then read once by a thp
    # run, so they are cached in huge folios where the kernel can do it
    # (what a long-running system with thp would have).  Every variant
    # then starts from that warm page cache.
    drop_page_cache(libs)
    thp_env = dict(base_env(), LD_HUGEPAGE_LIBS=CLANG_SEL, LD_HUGEPAGE_BACKING="thp")
    subprocess.run([HUGELD, CLANG, "--version"], env=thp_env, stdout=subprocess.DEVNULL, check=True)
    state = "warm; dropped, then read first by a thp run (huge folios where the kernel does that)"
    probe_cmd = [CLANG, "-fintegrated-cc1", "-resource-dir", rd, "-fsyntax-only", "-x", "c", "-"]
    out = []
    try:
        for gid, what, args in (
                ("startup-version", "clang-14 --version", [CLANG, "--version"]),
                ("startup-compile", "clang-14 -c of a one-line C file",
                 [CLANG, "-fintegrated-cc1", "-resource-dir", rd, "-c", one, "-o", "/dev/null"])):
            vs = [variant("stock", "stock ld.so", [STOCK] + args,
                          probe=lib_pages_probe([STOCK] + probe_cmd))]
            for b in ("private", "shared", "thp"):
                env = {"LD_HUGEPAGE_LIBS": CLANG_SEL, "LD_HUGEPAGE_BACKING": b}
                if b == "shared":
                    # Read-only zones from the cache, RELRO privately.
                    env["LD_HUGEPAGE_BACKING"] = "shared,private"
                vs.append(variant(b, "hugeld, LD_HUGEPAGE_BACKING=%s" % env["LD_HUGEPAGE_BACKING"],
                                  [HUGELD] + args, env, probe=lib_pages_probe([HUGELD] + probe_cmd)))
            out.append(run_group(sysm, gid, "%s (%s; page cache %s)" % (what, CLANG_SEL, state),
                                 vs, runs, warm, perf_events, extra={"page_cache": state}))
            for v in out[-1]["variants"]:
                log("    %-8s libs: %s" % (v["name"], v.get("pages")))
    finally:
        subprocess.run([hugeld, "cache", "remove"] + libs)
    return out


# ---------------------------------------------------------------- mariadb
class MariaDB:
    def __init__(self, sysm, w, q):
        self.sysm = sysm
        self.dir = os.path.join(w["ext4"], "mariadb")
        self.data = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "sock")
        self.port = 33917
        self.proc = None
        self.q = q
        self.tables, self.rows = 4, 20000

    def install(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        sh(["mariadb-install-db", "--no-defaults", "--datadir=" + self.data, "--user=root",
            "--skip-test-db", "--auth-root-authentication-method=socket"],
           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self, loader, env, thp):
        self.sysm.thp(thp)
        e = base_env()
        e.update(env)
        cmd = [loader, "/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + self.data,
               "--socket=" + self.sock, "--port=%d" % self.port, "--bind-address=127.0.0.1",
               "--user=root", "--skip-name-resolve", "--innodb-buffer-pool-size=256M",
               "--innodb-log-file-size=64M", "--performance-schema=OFF",
               "--pid-file=" + os.path.join(self.dir, "pid"),
               "--log-error=" + os.path.join(self.dir, "error.log")]
        self.proc = subprocess.Popen(cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            if self.proc.poll() is not None:
                raise RuntimeError("mariadbd exited %d, see %s/error.log" % (self.proc.returncode, self.dir))
            if subprocess.run(["mariadb-admin", "--no-defaults", "-S", self.sock, "-uroot", "ping"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("mariadbd did not come up")

    def smaps(self):
        """Huge page use of the server and the RSS of the selected objects."""
        pat = re.compile(r"/(mariadbd|libcrypto[^/]*|libssl[^/]*)$")
        res = {"hugetlb_kib": 0, "rss_kib": 0, "file_pmd_kib": 0, "anon_huge_kib": 0}
        cur = False
        for line in read("/proc/%d/smaps" % self.proc.pid).splitlines():
            f = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                cur = bool(len(f) >= 6 and pat.search(f[-1]))
                continue
            if f[0] in ("Private_Hugetlb:", "Shared_Hugetlb:"):
                res["hugetlb_kib"] += int(f[1])
            if f[0] == "AnonHugePages:":
                res["anon_huge_kib"] += int(f[1])
            if cur and f[0] == "Rss:":
                res["rss_kib"] += int(f[1])
            if cur and f[0] == "FilePmdMapped:":
                res["file_pmd_kib"] += int(f[1])
        return res

    def stop(self):
        if self.proc is None:
            return
        self.sysm.thp(None)
        subprocess.run(["mariadb-admin", "--no-defaults", "-S", self.sock, "-uroot", "shutdown"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def sql(self, q):
        sh(["mariadb", "--no-defaults", "-S", self.sock, "-uroot", "-e", q])

    def sysbench(self, test, secs, threads=2):
        p = subprocess.run(["sysbench", test, "--db-driver=mysql", "--mysql-host=127.0.0.1",
                            "--mysql-port=%d" % self.port, "--mysql-user=sb", "--mysql-password=sb",
                            "--mysql-db=sbtest", "--tables=%d" % self.tables,
                            "--table-size=%d" % self.rows, "--threads=%d" % threads,
                            "--time=%d" % secs, "--events=0", "--rand-seed=1", "run"
                            if secs else "prepare"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=secs + 300)
        if p.returncode != 0:
            raise RuntimeError("sysbench %s failed: %s" % (test, p.stdout[-1000:]))
        if not secs:
            return {}
        tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", p.stdout).group(1))
        qps = float(re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec", p.stdout).group(1))
        lat = float(re.search(r"95th percentile:\s+([\d.]+)", p.stdout).group(1))
        return {"tps": tps, "qps": qps, "p95_ms": lat}


def mariadb(sysm, w, q, perf_events):
    reps, secs, warm = (1, 5, 2) if q else (2, 15, 5)
    m = MariaDB(sysm, w, q)
    log("mariadb: installing a datadir and preparing %d x %d rows" % (m.tables, m.rows))
    m.install()
    try:
        m.start(STOCK, {}, None)
        m.sql("CREATE DATABASE sbtest; CREATE USER sb@'127.0.0.1' IDENTIFIED BY 'sb';"
              " GRANT ALL ON sbtest.* TO sb@'127.0.0.1';")
        m.sysbench("oltp_read_only", 0)
        m.stop()
        vs = [("stock", "stock ld.so", STOCK, {}, None),
              ("hugeld", "hugeld (%s)" % MARIADB_SEL, HUGELD, {"LD_HUGEPAGE_LIBS": MARIADB_SEL}, None)]
        if not q:
            vs.append(("thp", "stock ld.so, THP=always", STOCK, {}, "always"))
        tests = ["oltp_point_select", "oltp_read_only"]
        res = {v[0]: {"label": v[1], "env": v[3], "thp": v[4] or sysm.old_thp, "runs": []} for v in vs}
        for r in range(reps):
            order = vs[r % len(vs):] + vs[:r % len(vs)]
            for name, label, loader, env, thp in order:
                m.start(loader, env, thp)
                pages = m.smaps()
                m.sysbench("oltp_read_only", warm)      # warm the buffer pool
                run = {"smaps_after_start": pages}
                for t in tests:
                    run[t] = m.sysbench(t, secs)
                m.stop()
                res[name]["runs"].append(run)
                log("  mariadb %-10s round %d: %s" % (name, r + 1, ", ".join(
                    "%s %.0f tps" % (t, run[t]["tps"]) for t in tests)))
    finally:
        m.stop()
    out = {"id": "mariadb", "title": "MariaDB %s + sysbench, %d tables x %d rows, 2 threads, %d s runs, "
           "%d server restarts per variant" % (mariadb_version(), m.tables, m.rows, secs, reps),
           "tests": tests, "seconds": secs, "reps": reps, "variants": []}
    base = None
    for name, label, *_ in vs:
        v = res[name]
        med = {t: {k: statistics.median(x[t][k] for x in v["runs"]) for k in ("tps", "qps", "p95_ms")}
               for t in tests}
        if base is None:
            base = med
        v.update({"name": name, "median": med,
                  "ratio": {t: med[t]["tps"] / base[t]["tps"] for t in tests},
                  "pages": v["runs"][0]["smaps_after_start"]})
        out["variants"].append(v)
        log("  mariadb %-10s %s" % (name, ", ".join("%s %.0f tps (x%.3f)" % (t, med[t]["tps"], v["ratio"][t])
                                                    for t in tests)))
    return [out]


def mariadb_version():
    p = subprocess.run(["/usr/sbin/mariadbd", "--version"], stdout=subprocess.PIPE, text=True)
    m = re.search(r"Ver (\S+)", p.stdout)
    return m.group(1) if m else "?"


# ---------------------------------------------------------------- costs
def costs(sysm, w, q, perf_events):
    rounds, iters = (2, 5) if q else (5, 10)
    out = []
    libs = {"ext4": os.path.join(w["ext4"], "libcost100.so"),
            "tmpfs": os.path.join(w["shm"], "libcost100.so")}
    # The executable segment's file range: what hugeld puts on huge pages.
    ph = subprocess.run(["readelf", "-lW", libs["ext4"]], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"LOAD\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)\s+\S+\s+R E", ph)
    off, size = int(m.group(1), 16), int(m.group(2), 16)
    mib = size / 2**20
    sel = {"LD_HUGEPAGE_LIBS": "libcost100.so"}
    dlt, flo = os.path.join(w["bin"], "dltime"), os.path.join(w["bin"], "floor")
    vs = [("stock", "stock ld.so: dlopen", [STOCK, dlt, "--touch", libs["ext4"], str(iters)], {}),
          ("hugeld-off", "hugeld, not selected: dlopen", [HUGELD, dlt, "--touch", libs["ext4"], str(iters)], {}),
          ("hugeld", "hugeld, selected: dlopen", [HUGELD, dlt, "--touch", libs["ext4"], str(iters)], sel),
          ("floor", "floor: mmap MAP_HUGETLB + pread", [flo, libs["ext4"], str(off), str(size), str(iters)], {}),
          ("stock-tmpfs", "stock ld.so (tmpfs): dlopen", [STOCK, dlt, "--touch", libs["tmpfs"], str(iters)], {}),
          ("hugeld-tmpfs", "hugeld, selected (tmpfs): dlopen", [HUGELD, dlt, "--touch", libs["tmpfs"], str(iters)], sel),
          ("floor-tmpfs", "floor (tmpfs)", [flo, libs["tmpfs"], str(off), str(size), str(iters)], {})]
    log("costs: load time of a %.0f MiB library (%d rounds x %d dlopens)" % (mib, rounds, iters))
    samp = {v[0]: [] for v in vs}
    for r in range(rounds):
        for name, label, cmd, env in vs[r % len(vs):] + vs[:r % len(vs)]:
            e = base_env()
            e.update(env)
            p = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, text=True)
            if p.returncode not in (0,):
                raise RuntimeError("%s failed" % cmd)
            samp[name].append(json.loads(p.stdout))
    pages = ldd_probe([HUGELD, dlt, libs["ext4"], "1"])(dict(base_env(), **sel))
    load = {"id": "load-cost", "title": "Load time of a %.0f MiB library (text), page cache warm" % mib,
            "bytes": size, "mib": mib, "hugeld_pages": pages.get("hugeld_pages"), "variants": []}
    for name, label, cmd, env in vs:
        s = samp[name]
        if name.startswith("floor"):
            t = statistics.median(x["median_us"] for x in s)
            touch = 0.0
        else:
            t = statistics.median(x["dlopen_median_us"] for x in s)
            touch = statistics.median(x["touch_median_us"] for x in s)
        load["variants"].append({"name": name, "label": label, "cmd": cmd, "env": env, "samples": s,
                                 "load_us": t, "touch_us": touch,
                                 "load_us_per_mib": t / mib, "load_plus_touch_us_per_mib": (t + touch) / mib})
        log("  %-36s load %9.1f us (%6.1f us/MiB), first touch of all pages %8.1f us"
            % (label, t, t / mib, touch))
    out.append(load)

    if not q:
        # Build cost: the 2 MiB-aligned link hugectl needs (hugeld needs none).
        bo = os.path.join(FIXTURES, "big-pic.o")
        src = os.path.join(TOP, "tests", "fixtures", "bigcheck.c")
        inc = os.path.join(TOP, "tests", "fixtures")
        base = ["gcc", "-I" + inc, "-O2", "-g", "-fPIE", "-pie", "-pthread", src, bo,
                "-Wl,-z,relro", "-Wl,-z,pack-relative-relocs"]
        two = ["-Wl,-z,max-page-size=0x200000", "-Wl,-z,separate-code"]
        bt = {"normal": [], "2m": []}
        for r in range(3):
            for k, extra in (("normal", []), ("2m", two)):
                o = os.path.join(w["ext4"], "link-%s" % k)
                t0 = time.perf_counter()
                sh(base + extra + ["-o", o])
                bt[k].append(time.perf_counter() - t0)
                bt[k + "_size"] = os.path.getsize(o)
                os.unlink(o)
        out.append({"id": "build-cost", "title": "Link time and size of bigcheck-pie, normal vs 2 MiB-aligned (the build hugectl needs)",
                    "link_s": {k: statistics.median(bt[k]) for k in ("normal", "2m")},
                    "size": {k: bt[k + "_size"] for k in ("normal", "2m")}, "samples": bt})
        log("  link: normal %.2f s %d B, 2 MiB-aligned %.2f s %d B" % (
            out[-1]["link_s"]["normal"], bt["normal_size"], out[-1]["link_s"]["2m"], bt["2m_size"]))
    return out


# ---------------------------------------------------------------- setup
def machine(sysm, perf_events, perf_why):
    cpu = re.search(r"model name\s*:\s*(.*)", read("/proc/cpuinfo")).group(1)
    mem = int(re.search(r"MemTotal:\s+(\d+)", read("/proc/meminfo")).group(1)) // 1024
    fs = subprocess.run(["findmnt", "-no", "FSTYPE", "-T", TOP], stdout=subprocess.PIPE, text=True).stdout.strip()
    return {"cpu": cpu, "cpus": os.cpu_count(), "mem_mib": mem, "kernel": platform.release(),
            "os": re.search(r'PRETTY_NAME="(.*)"', read("/etc/os-release")).group(1),
            "thp_default": sysm.old_thp, "shmem_enabled": read(
                "/sys/kernel/mm/transparent_hugepage/shmem_enabled").strip(),
            "fs": fs, "loadavg_start": read("/proc/loadavg").split()[:3],
            "perf_tlb_events": perf_events, "perf_note": perf_why,
            "glibc": subprocess.run([os.path.join(TOP, "scripts", "host.sh"), "pkg-version", "libc6"],
                                    stdout=subprocess.PIPE, text=True).stdout.strip(),
            "date": time.strftime("%Y-%m-%d %H:%M %Z")}


def setup(out):
    work = os.path.join(HERE, "work")
    ext = os.path.join(work, "fixtures")
    b = os.path.join(work, "bin")
    hlib = os.path.join(work, "hlib")
    for d in (ext, b, hlib):
        os.makedirs(d, exist_ok=True)
    # Private copies: others may rebuild build/tests while we run.
    need = ["bigcheck-pie", "bigcheck-pie-2m", "bigcheck-shared", "bigcheck-dlopen", "libbig.so"]
    for f in need:
        src = os.path.join(FIXTURES, f)
        if not os.path.exists(src):
            sys.exit("bench: %s missing: run make fixtures" % src)
        # One big write(): the page cache gets 2 MiB folios, as it does
        # for the linker's output, and the kernel PMD-maps the stock
        # loader's text (FilePmdMapped).
        with open(src, "rb") as i, open(os.path.join(ext, f) + ".tmp", "wb") as o:
            o.write(i.read())
        shutil.copymode(src, os.path.join(ext, f) + ".tmp")
        os.rename(os.path.join(ext, f) + ".tmp", os.path.join(ext, f))
    # The same bytes with the page cache dropped: refilled by readahead
    # and faults in small folios (a library installed long ago and evicted).
    ra = os.path.join(work, "fixtures-ra")
    os.makedirs(ra, exist_ok=True)
    for f in need:
        shutil.copy2(os.path.join(ext, f), ra)
        fd = os.open(os.path.join(ra, f), os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    shm = tempfile.mkdtemp(prefix="hugeld-bench.", dir="/dev/shm")
    for f in need:
        shutil.copy2(os.path.join(ext, f), shm)
    for c, extra in (("floor", []), ("dltime", ["-ldl"])):
        sh(["gcc", "-O2", "-Wall", "-o", os.path.join(b, c), os.path.join(HERE, "cost", c + ".c")] + extra)
    lib = os.path.join(ext, "libcost100.so")
    if not os.path.exists(lib):
        sh([os.path.join(HERE, "cost", "mklib.sh"), lib, "100"])
    shutil.copy2(lib, shm)
    # hugectl preloads "libhugetlbfs.so", which Debian ships only in -dev:
    # a private symlink to libhugetlbfs.so.0 stands in for it.
    l = os.path.join(hlib, "libhugetlbfs.so")
    if not os.path.lexists(l):
        os.symlink("/usr/lib/x86_64-linux-gnu/libhugetlbfs.so.0", l)
    return {"ext4": ext, "ra": ra, "shm": shm, "bin": b, "hlib": hlib}


SECTIONS = {"synthetic": synthetic, "clang": clang, "startup": startup, "mariadb": mariadb,
            "costs": costs, "policy": policy, "elfthp": elfthp}
# Sections that are not part of a default run: elfthp needs glibc 2.44.
DEFAULT = [s for s in SECTIONS if s != "elfthp"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(DEFAULT))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    o = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: run as root (huge page pool, THP mode, hugetlbfs mount)")
    need = [HUGELD] + ([CLANG] if set(o.only.split(",")) & {"clang", "startup"} else [])
    for p in need:
        if not os.path.exists(p):
            sys.exit("bench: %s missing" % p)
    raw = os.path.join(o.out, "raw")
    os.makedirs(raw, exist_ok=True)
    sysm = System(None)

    def on_signal(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    w = None
    t0 = time.time()
    try:
        w = setup(o.out)
        sysm.pool(max(sysm.old_pool, 320))
        perf_events, perf_why = perf_probe()
        mach = machine(sysm, perf_events, perf_why)
        log("machine:", mach)
        results = []
        for s in o.only.split(","):
            ts = time.time()
            try:
                r = SECTIONS[s](sysm, w, o.quick, perf_events)
            except (RuntimeError, subprocess.CalledProcessError, AssertionError) as e:
                log("section %s FAILED: %s" % (s, e))
                r = [{"id": s, "error": str(e)}]
            for g in r:
                g["section"] = s
                g["seconds"] = time.time() - ts
                save_json(g, os.path.join(raw, g["id"] + ".json.xz"))
            results += r
        mach["loadavg_end"] = read("/proc/loadavg").split()[:3]
        mach["total_seconds"] = time.time() - t0
        mach["mode"] = "quick" if o.quick else "elfthp" if o.only == "elfthp" else "full"
        with open(os.path.join(raw, "machine.json"), "w") as f:
            json.dump(mach, f, indent=1)
    finally:
        sysm.restore()
        if w:
            shutil.rmtree(w["shm"], ignore_errors=True)
    sh([sys.executable, os.path.join(HERE, "report.py"), o.out])
    log("done in %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
