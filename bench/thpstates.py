#!/usr/bin/env python3
"""Every page-cache state side by side (issue 44): clang-14 started by the
stock loader (2.36), by hugeld's loader with LD_HUGEPAGE_BACKING=thp, by
glibc 2.44's stock loader and by the same with glibc.elf.thp=1, as root
and as nobody, in each state the page cache of libLLVM-14 and
libclang-cpp 14 can be in when a start finds it:

  cold          dropped (POSIX_FADV_DONTNEED of the two files);
  after-stock   dropped, then one run of the same command under the
                stock loader (as the same user): small folios where it
                faulted, and its readahead;
  after-cat     dropped, then read whole with read(2) (cat);
  warm          the variant's own steady state: dropped, one run of the
                variant, and for hugeld `hugeld thp repair' of the two
                files, as its timer does within a minute; then the run;
  held          dropped, then a stock-loaded clang -E that waits on a
                FIFO keeps the libraries mapped (what it faulted in, in
                small folios) while the run happens;
  repaired      after-stock, then `hugeld thp repair' (root): what
                every start finds once the repair has run;

and, with --busy, cold, after-stock and after-cat again while another
job reads the disk: BUSY_CMD, a loop of dd with O_DIRECT over a 4 GiB
file of its own (no page cache of its own: it competes for the disk
only), started before the state's first round and stopped after its
last, its throughput recorded.

The two libraries are private copies (in WORK/lib, on the file system of
WORK, default build/bench-thpstates), loaded through LD_LIBRARY_PATH
(--library-path for 2.44), so that no other process on the machine
maps them and dropping them drops them.  Each round runs the variants
in rotated order, each after its own preparation; per state and user,
reported are the medians of wall time and of the per-round ratios to
the stock loaders of the same round (with the interquartile range),
and, from separate probes (a clang -E waiting on a FIFO, 3 per cell),
the share of the libraries' executable mappings on PMDs (smaps
FilePmdMapped / Size) and of what they had mapped (/ Rss).

  thpstates.py --libc244 DIR [--rounds N] [--users root,nobody]
               [--states LIST] [--busy] [--cmd version|syntax]
               [--out DIR]                                   (root)
  thpstates.py --table JSON...     the results as a markdown table
  thpstates.py --summary JSON      a run's summary: that table and the
                                   medians of every cell, in markdown

DIR: an unpacked libc6 2.44 (dpkg-deb -x of Debian experimental's
libc6_2.44-*.deb).  HUGELD_LDSO (default build/stage/opt/hugeld/ld.so)
and HUGELD_CMD (build/stage/opt/hugeld/bin/hugeld) are hugeld's.

After every cell a run rewrites OUT/thpstates-CMD[TAG].json.xz, its raw
results (every round; compact JSON, xz-compressed), and beside it
thpstates-CMD[TAG].md, its summary (--summary).  --table and --summary read
a JSON file compressed or not (benchlib.load_json).
"""
import argparse
import errno
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from benchlib import base_env, drop_page_cache, json_path, load_json, log, save_json  # noqa: E402

CLANG = "/usr/lib/llvm-14/bin/clang"
LIBS = ["/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
        "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14"]
STOCK = "/lib64/ld-linux-x86-64.so.2"
HUGELD = os.environ.get("HUGELD_LDSO",
                        os.path.join(TOP, "build/stage/opt/hugeld/ld.so"))
HUGELD_CMD = os.environ.get("HUGELD_CMD",
                            os.path.join(TOP, "build/stage/opt/hugeld/bin/hugeld"))
CXX = r"""#include <algorithm>
#include <map>
#include <string>
#include <vector>
struct P { int a; std::string s; bool operator<(const P &o) const { return a < o.a; } };
std::string f(int k) {
  std::vector<P> v; std::map<std::string, P> m;
  for (int j = 0; j < k; j++) { P x{j, std::to_string(j)}; v.push_back(x); m[x.s] = x; }
  std::sort(v.begin(), v.end());
  std::string r; for (auto &p : m) r += p.first;
  return r;
}
int main(int c, char **) { return f(c).size(); }
"""
STATES = ["cold", "after-stock", "after-cat", "warm", "held", "repaired"]
BUSY_STATES = ["cold", "after-stock", "after-cat"]
BIG_MIB = 4096


class Bench(object):
    def __init__(self, o):
        self.o = o
        self.work = os.path.abspath(o.work)
        self.lib = os.path.join(self.work, "lib")
        os.makedirs(self.lib, exist_ok=True)
        os.chmod(self.work, 0o755)
        os.chmod(self.lib, 0o755)
        self.libs = []
        for src in LIBS:
            dst = os.path.join(self.lib, os.path.basename(src))
            if not os.path.exists(dst) or \
                    os.path.getsize(dst) != os.path.getsize(os.path.realpath(src)):
                shutil.copyfile(os.path.realpath(src), dst + ".tmp")
                os.rename(dst + ".tmp", dst)
            os.chmod(dst, 0o644)
            self.libs.append(dst)
        os.sync()
        self.fifos = os.path.join(self.work, "fifo")
        os.makedirs(self.fifos, exist_ok=True)
        os.chmod(self.fifos, 0o1777)
        self.src = os.path.join(self.work, "small.cpp")
        with open(self.src, "w") as f:
            f.write(CXX)
        os.chmod(self.src, 0o644)
        lib244 = os.path.join(o.libc244, "usr/lib/x86_64-linux-gnu")
        ld244 = [os.path.join(lib244, "ld-linux-x86-64.so.2"), "--library-path",
                 ":".join([self.lib, lib244, "/usr/lib/x86_64-linux-gnu",
                           "/lib/x86_64-linux-gnu"])]
        env = base_env()
        env.pop("GLIBC_TUNABLES", None)
        lp = dict(env, LD_LIBRARY_PATH=self.lib)
        self.variants = [
            ("stock-2.36", [STOCK], lp),
            ("hugeld-thp", [HUGELD], dict(lp, LD_HUGEPAGE_LIBS="libLLVM*:libclang-cpp*",
                                          LD_HUGEPAGE_BACKING="thp")),
            ("stock-2.44", ld244, env),
            ("2.44-elf.thp", ld244, dict(env, GLIBC_TUNABLES="glibc.elf.thp=1")),
        ]
        self.cmd = ([CLANG, "--version"] if o.cmd == "version"
                    else [CLANG, "-fsyntax-only", self.src])
        self.busy = None
        self.repairs = []

    # --- users -------------------------------------------------------
    @staticmethod
    def as_user(user):
        if user == "root":
            return {}
        return {"user": 65534, "group": 65534, "extra_groups": []}

    # --- page cache --------------------------------------------------
    def drop(self):
        drop_page_cache(self.libs)

    def cat(self):
        for p in self.libs:
            with open(p, "rb") as f:
                while f.read(1 << 20):
                    pass

    def repair(self):
        """hugeld thp repair of the two libraries; its wall time is
        kept (self.repairs)."""
        t0 = time.perf_counter()
        subprocess.run([HUGELD_CMD, "thp", "repair"] + self.libs,
                       stdout=subprocess.DEVNULL, check=True,
                       env=dict(base_env(), LD_HUGEPAGE_LIBS=""))
        self.repairs.append(time.perf_counter() - t0)

    def run(self, v, user, cmd=None):
        """Run V; (wall s, user+system s, minor faults, major faults)."""
        name, pre, env = v
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(pre + (cmd or self.cmd), env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       **self.as_user(user))
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (wall, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
                r1.ru_minflt - r0.ru_minflt, r1.ru_majflt - r0.ru_majflt)

    def prepare(self, state, v, user):
        """Put the page cache in STATE for variant V; a holder to stop
        after the run, or None."""
        stock = self.variants[0]
        self.drop()
        if state == "after-stock":
            self.run(stock, user)
        elif state == "after-cat":
            self.cat()
        elif state == "warm":
            self.run(v, user)
            if v[0] == "hugeld-thp":
                self.repair()
        elif state == "held":
            return Waiting(self, stock, user)
        elif state == "repaired":
            self.run(stock, user)
            self.repair()
        return None

    # --- the competing reader ----------------------------------------
    def start_busy(self):
        big = os.path.join(self.work, "big")
        if not os.path.exists(big) or os.path.getsize(big) != BIG_MIB << 20:
            log("writing %s (%d MiB) for the competing reader" % (big, BIG_MIB))
            subprocess.run(["dd", "if=/dev/urandom", "of=" + big, "bs=4M",
                            "count=%d" % (BIG_MIB // 4), "oflag=direct",
                            "status=none"], check=True)
        self.busy_count = os.path.join(self.work, "busy.count")
        with open(self.busy_count, "w"):
            pass
        sh = ("while :; do dd if=%s of=/dev/null bs=4M iflag=direct status=none;"
              " echo >> %s; done" % (big, self.busy_count))
        self.busy = subprocess.Popen(["sh", "-c", sh], start_new_session=True)
        self.busy_t0 = time.time()
        time.sleep(2)

    def stop_busy(self):
        if self.busy is None:
            return None
        os.killpg(self.busy.pid, signal.SIGTERM)
        self.busy.wait()
        self.busy = None
        dt = time.time() - self.busy_t0
        with open(self.busy_count) as f:
            passes = len(f.read().splitlines())
        return passes * BIG_MIB / dt if dt > 0 else None


class Waiting(object):
    """clang -E of a FIFO under variant V as USER, stopped at the FIFO's
    read (the code it ran so far is mapped)."""

    def __init__(self, b, v, user):
        self.fifo = tempfile.mktemp(suffix=".c", dir=b.fifos)
        os.mkfifo(self.fifo)
        os.chmod(self.fifo, 0o666)
        name, pre, env = v
        self.p = subprocess.Popen(pre + [CLANG, "-E", self.fifo, "-o", "/dev/null"],
                                  env=env, **b.as_user(user))
        self.fd = None
        for _ in range(3000):
            try:
                self.fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                if e.errno != errno.ENXIO or self.p.poll() is not None:
                    raise
                time.sleep(0.01)
        time.sleep(0.2)

    def smaps(self, libs):
        """[size, rss, filepmd] kB of the executable mappings of LIBS."""
        out = [0, 0, 0]
        on = False
        with open("/proc/%d/smaps" % self.p.pid) as f:
            for line in f:
                w = line.split()
                if "-" in w[0] and ":" not in w[0]:
                    on = "x" in w[1] and len(w) > 5 and w[5] in libs
                elif on and w[0] in ("Size:", "Rss:", "FilePmdMapped:"):
                    out[("Size:", "Rss:", "FilePmdMapped:").index(w[0])] += int(w[1])
        return out

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
        self.p.wait()
        os.unlink(self.fifo)


def disk_read_mib(path):
    """MiB read so far from the device that holds PATH (all readers),
    or None."""
    st = os.stat(path)
    try:
        with open("/sys/dev/block/%d:%d/stat" % (os.major(st.st_dev),
                                                 os.minor(st.st_dev))) as f:
            return int(f.read().split()[2]) * 512 / (1 << 20)
    except (OSError, ValueError, IndexError):
        return None


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def coverage(b, state, user, probes):
    res = {}
    for v in b.variants:
        covs = []
        for _ in range(probes):
            holder = b.prepare(state, v, user)
            w = Waiting(b, v, user)
            covs.append(w.smaps(b.libs))
            w.close()
            if holder:
                holder.close()
        res[v[0]] = covs
        c = covs[len(covs) // 2]
        log("cov %-12s %-6s %-13s pmd %6d of %6d kB (%.0f%% of size, %.0f%% of rss %d)"
            % (state, user, v[0], c[2], c[0], 100.0 * c[2] / max(c[0], 1),
               100.0 * c[2] / max(c[1], 1), c[1]))
    return res


def timing(b, state, user, rounds):
    """{variant: [(wall, cpu, minflt, majflt)]} of ROUNDS rounds."""
    runs = {v[0]: [] for v in b.variants}
    n = len(b.variants)
    for r in range(rounds):
        order = b.variants[r % n:] + b.variants[:r % n]
        for v in order:
            holder = b.prepare(state, v, user)
            try:
                runs[v[0]].append(b.run(v, user))
            finally:
                if holder:
                    holder.close()
    return runs


def quart(xs):
    xs = sorted(xs)
    if len(xs) < 4:
        return [xs[0], xs[-1]]
    q = statistics.quantiles(xs, n=4)
    return [q[0], q[2]]


def ratios(walls, a, base):
    r = [x / y for x, y in zip(walls[a], walls[base])]
    return {"median": statistics.median(r), "iqr": quart(r), "range": [min(r), max(r)]}


def cov_text(covs):
    """'PMD/Rss%' (and PMD/Size%) of the median probe: [size, rss, pmd]."""
    if not covs:
        return "-"
    c = sorted(covs, key=lambda x: x[2])[len(covs) // 2]
    return "%.0f%% (%.0f%%)" % (100.0 * c[2] / max(c[1], 1), 100.0 * c[2] / max(c[0], 1))


# The head of the table of --table and --summary.
TABLE_HEAD = ["| state | user | stock 2.36 | hugeld thp / stock | hugeld CPU / stock | "
              "hugeld on PMDs | stock 2.44 / 2.36 | 2.44 elf.thp / stock 2.44 | "
              "elf.thp on PMDs | hugeld / elf.thp | load |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]


def cmd_text(res):
    """The command of the run RES without clang's path (and the C++
    file's directory)."""
    return " ".join(res["cmd"][1:]).replace(os.path.dirname(res["cmd"][-1]) + "/", "")


def table(paths):
    """A markdown table of the cells of the JSON files PATHS."""
    rows = list(TABLE_HEAD)
    for path in paths:
        rows += table_rows(load_json(path))
    return "\n".join(rows)


def table_rows(res):
    """The rows of the table for the run RES: a line naming it, then a
    row per cell."""
    rows = ["| **%s** (%s, %d rounds) | | | | | | | | | | |" % (
        cmd_text(res), res["date"], res["rounds"])]
    for c in res["cells"]:
        r = c["ratios"]
        cov = c.get("coverage", {})

        def rq(x):
            return "%.2f (%.2f-%.2f)" % (x["median"], x["iqr"][0], x["iqr"][1])
        rows.append("| %s%s | %s | %.0f ms | %s | %.2f | %s | %.2f | %s | %s | %s | %.1f-%.1f%s |" % (
            c["state"], " busy" if c["busy"] else "", c["user"],
            1000 * statistics.median(c["walls"]["stock-2.36"]),
            rq(r["to_stock_2.36"]["hugeld-thp"]),
            ratios(c["cpu"], "hugeld-thp", "stock-2.36")["median"],
            cov_text(cov.get("hugeld-thp")),
            r["to_stock_2.36"]["stock-2.44"]["median"],
            rq(r["to_stock_2.44"]["2.44-elf.thp"]), cov_text(cov.get("2.44-elf.thp")),
            rq(r["hugeld_to_elf.thp"]),
            min(c["load_before"][0], c["load_after"][0]),
            max(c["load_before"][0], c["load_after"][0]),
            ("; reader %.0f MiB/s" % c["busy_mib_s"] if c.get("busy_mib_s") else "")
            + ("; disk %.0f MiB/s" % c["disk_read_mib_s"] if c.get("disk_read_mib_s") else "")))
    return rows


def chosen(setting):
    """The value chosen in a sysfs SETTING as read: "madvise" of
    "always [madvise] never"."""
    if "[" not in setting:
        return setting
    return setting[setting.index("[") + 1:setting.index("]")]


def summary(res, raw):
    """The summary of the run RES, whose raw results are in the file
    RAW (a name beside the summary): the table of --table and the
    medians of every cell, in markdown."""
    name = raw[:raw.rindex(".json")] if ".json" in raw else raw
    variants = list(res["cells"][0]["walls"]) if res["cells"] else []
    out = ["# %s: clang %s, %s" % (name, cmd_text(res), res["date"]), "",
           "`bench/thpstates.py`, %d rounds; Linux %s, THP `%s` (defrag `%s`), "
           "`read_ahead_kb` %s.  Every round: [%s](%s).  The states, variants "
           "and columns: bench/results/thpstates/README.md and the docstring "
           "of bench/thpstates.py, which made this (`--summary`)." % (
               res["rounds"], res["kernel"], chosen(res["thp"]["enabled"]),
               chosen(res["thp"]["defrag"]), res.get("read_ahead_kb") or "-", raw, raw), "",
           "## Ratios and coverage", ""] + TABLE_HEAD + table_rows(res) + [
           "", "## Medians", "",
           "Of each variant's runs in the cell: wall time ms / CPU (user + "
           "system) ms / minor faults / major faults.  Repair: `hugeld thp "
           "repair` of the two libraries in the cell's preparations (warm, "
           "repaired, their coverage probes included), median (range) and "
           "count.", "",
           "| state | user | %s | repair |" % " | ".join(v.replace("-", " ") for v in variants),
           "|---|---|" + "---:|" * (len(variants) + 1)]
    for c in res["cells"]:
        rep = c.get("repair_s")
        out.append("| %s%s | %s | %s | %s |" % (
            c["state"], " busy" if c["busy"] else "", c["user"],
            " | ".join("%.1f / %.1f / %.0f / %.0f" % (
                1000 * statistics.median(c["walls"][v]),
                1000 * statistics.median(c["cpu"][v]),
                statistics.median(c["minflt"][v]), statistics.median(c["majflt"][v]))
                for v in variants),
            "%.0f ms (%.0f-%.0f), %d" % (1000 * statistics.median(rep), 1000 * min(rep),
                                          1000 * max(rep), len(rep)) if rep else "-"))
    return "\n".join(out)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--table":
        print(table(sys.argv[2:]))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        print(summary(load_json(sys.argv[2]), os.path.basename(json_path(sys.argv[2]))))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--libc244", required=True)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--probes", type=int, default=3)
    ap.add_argument("--users", default="root,nobody")
    ap.add_argument("--states", default=",".join(STATES))
    ap.add_argument("--busy", action="store_true")
    ap.add_argument("--busy-only", action="store_true")
    ap.add_argument("--cmd", choices=["version", "syntax"], default="version")
    ap.add_argument("--work", default=os.path.join(TOP, "build", "bench-thpstates"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "thpstates"))
    ap.add_argument("--tag", default="")
    ap.add_argument("--no-coverage", action="store_true")
    o = ap.parse_args()
    b = Bench(o)
    os.makedirs(o.out, exist_ok=True)
    res = {"kernel": os.uname().release, "cmd": b.cmd, "rounds": o.rounds,
           "thp": {f: open("/sys/kernel/mm/transparent_hugepage/" + f).read().strip()
                   for f in ("enabled", "defrag")},
           "read_ahead_kb": open("/sys/block/vda/queue/read_ahead_kb").read().strip()
           if os.path.exists("/sys/block/vda/queue/read_ahead_kb") else None,
           "date": time.strftime("%Y-%m-%d %H:%M"), "cells": []}
    plan = []
    if not o.busy_only:
        plan += [(s, False) for s in o.states.split(",")]
    if o.busy or o.busy_only:
        plan += [(s, True) for s in BUSY_STATES if s in o.states.split(",")]
    try:
        for state, busy in plan:
            for user in o.users.split(","):
                cell = {"state": state, "busy": busy, "user": user,
                        "load_before": loadavg()}
                disk0, t0 = disk_read_mib(b.work), time.time()
                if busy:
                    b.start_busy()
                if not o.no_coverage and not busy:
                    cell["coverage"] = coverage(b, state, user, o.probes)
                runs = timing(b, state, user, o.rounds)
                if busy:
                    cell["busy_mib_s"] = b.stop_busy()
                cell["load_after"] = loadavg()
                disk1 = disk_read_mib(b.work)
                if disk0 is not None and disk1 is not None:
                    # Everything the disk read during the cell (the
                    # competing reader, the runs, other users).
                    cell["disk_read_mib_s"] = (disk1 - disk0) / (time.time() - t0)
                if b.repairs:
                    # The repairs of this cell's preparations (warm,
                    # repaired: after a run that left small folios).
                    cell["repair_s"] = b.repairs
                    log("%-12s %-6s hugeld thp repair: median %.0f ms (%d runs)"
                        % (state, user, 1000 * statistics.median(b.repairs),
                           len(b.repairs)))
                    b.repairs = []
                walls = {k: [x[0] for x in v] for k, v in runs.items()}
                cell["walls"] = walls
                cell["cpu"] = {k: [x[1] for x in v] for k, v in runs.items()}
                cell["minflt"] = {k: [x[2] for x in v] for k, v in runs.items()}
                cell["majflt"] = {k: [x[3] for x in v] for k, v in runs.items()}
                cell["ratios"] = {
                    "to_stock_2.36": {k: ratios(walls, k, "stock-2.36") for k in walls},
                    "to_stock_2.44": {k: ratios(walls, k, "stock-2.44") for k in walls},
                    "hugeld_to_elf.thp": ratios(walls, "hugeld-thp", "2.44-elf.thp"),
                }
                res["cells"].append(cell)
                rs = cell["ratios"]
                cpu = {k: 1000 * statistics.median(v) for k, v in cell["cpu"].items()}
                log("%-12s%s %-6s cpu ms: %s | faults: %s" % (
                    state, " busy" if busy else "     ", user,
                    " ".join("%s %.1f" % (k, c) for k, c in cpu.items()),
                    " ".join("%s %d/%d" % (k, statistics.median(cell["minflt"][k]),
                                           statistics.median(cell["majflt"][k]))
                             for k in cpu)))
                log("%-12s%s %-6s stock-2.36 %6.1f ms | hugeld %.2f (%.2f-%.2f) | "
                    "stock-2.44 %.2f | elf.thp %.2f of 2.44 | hugeld/elf.thp %.2f%s | load %.2f->%.2f"
                    % (state, " busy" if busy else "     ", user,
                       1000 * statistics.median(walls["stock-2.36"]),
                       rs["to_stock_2.36"]["hugeld-thp"]["median"],
                       rs["to_stock_2.36"]["hugeld-thp"]["iqr"][0],
                       rs["to_stock_2.36"]["hugeld-thp"]["iqr"][1],
                       rs["to_stock_2.36"]["stock-2.44"]["median"],
                       rs["to_stock_2.44"]["2.44-elf.thp"]["median"],
                       rs["hugeld_to_elf.thp"]["median"],
                       " (reader %.0f MiB/s)" % cell["busy_mib_s"]
                       if busy and cell.get("busy_mib_s") else "",
                       cell["load_before"][0], cell["load_after"][0]))
                base = os.path.join(o.out, "thpstates-%s%s" % (o.cmd, o.tag))
                save_json(res, base + ".json.xz")
                with open(base + ".md", "w") as f:
                    f.write(summary(res, os.path.basename(base) + ".json.xz") + "\n")
    finally:
        b.stop_busy()


if __name__ == "__main__":
    main()
