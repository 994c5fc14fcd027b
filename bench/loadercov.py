#!/usr/bin/env python3
"""How much of clang-14's libLLVM-14 and libclang-cpp text each loader gets
on PMD-mapped huge pages, per page-cache state, and the cold start-up wall
time of a small compile, loaders alternated (issue 34).

  bench/loadercov.py --libc244 DIR [--rounds N] [--probes N] [--json OUT]
                     [--only coverage|timing] [--version]                 (root)

DIR: the root of an unpacked libc6 2.44 (`apt-get download libc6` from
Debian experimental, `dpkg-deb -x`; nothing is installed).  Variants:
stock 2.36 (/lib64/ld-linux-x86-64.so.2), stock 2.44 (DIR's ld.so with
--library-path DIR/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu),
2.44 with GLIBC_TUNABLES=glibc.elf.thp=1, and hugeld's loader ($HUGELD_LDSO,
default build/stage/opt/hugeld/ld.so) with LD_HUGEPAGE_LIBS=libLLVM*:
libclang-cpp* LD_HUGEPAGE_BACKING=thp.  Needs clang-14; drops the whole
page cache (echo 3 > /proc/sys/vm/drop_caches) before every cold run.

Coverage: clang -E of a FIFO, read from /proc/PID/smaps while it waits on
the FIFO (the code it ran so far is mapped): FilePmdMapped of the
libraries' executable mappings / their size.  States: cold (dropped),
warm (dropped, then cat), held (dropped, then a stock 2.36 clang -E of
another FIFO keeps the libraries mapped) and held-warm (dropped, cat, then
that holder).  Timing: clang -fsyntax-only of a small C++ file from a
dropped page cache, the variants in rotated order each round.

--json OUT: the raw results as compact JSON, xz-compressed when OUT ends
in .xz (bench/results/thpside/loadercov-clang14.json.xz; benchlib.load_json
reads either).
"""
import argparse, errno, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from benchlib import save_json  # noqa: E402
CLANG = "/usr/lib/llvm-14/bin/clang"
LIBS = [os.path.realpath("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"),
        os.path.realpath("/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14")]
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


def variants(libc):
    lib = os.path.join(libc, "usr/lib/x86_64-linux-gnu")
    ld244 = [os.path.join(lib, "ld-linux-x86-64.so.2"), "--library-path",
             lib + ":/usr/lib/x86_64-linux-gnu"]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LD_", "GLIBC_TUNABLES"))}
    hugeld = os.environ.get("HUGELD_LDSO", os.path.join(TOP, "build/stage/opt/hugeld/ld.so"))
    return [("stock-2.36", ["/lib64/ld-linux-x86-64.so.2"], env),
            ("stock-2.44", ld244, env),
            ("2.44-elf.thp", ld244, dict(env, GLIBC_TUNABLES="glibc.elf.thp=1")),
            ("hugeld-thp", [hugeld], dict(env, LD_HUGEPAGE_LIBS="libLLVM*:libclang-cpp*",
                                          LD_HUGEPAGE_BACKING="thp"))]


def drop():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3")


def cat():
    for p in LIBS:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


class Waiting:
    """clang -E FIFO run by LOADER, stopped at the FIFO's read."""

    def __init__(self, work, loader, env):
        self.fifo = tempfile.mktemp(suffix=".c", dir=work)
        os.mkfifo(self.fifo)
        self.p = subprocess.Popen(loader + [CLANG, "-E", self.fifo, "-o", "/dev/null"],
                                  env=env)
        for _ in range(3000):  # until clang opens it for reading
            try:
                self.fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                if e.errno != errno.ENXIO or self.p.poll() is not None:
                    raise
                time.sleep(0.01)
        time.sleep(0.2)

    def smaps(self):
        """{lib: [size, rss, filepmd, anonhuge]} kB of its executable mappings."""
        out = {os.path.basename(l): [0, 0, 0, 0] for l in LIBS}
        cur = None
        with open("/proc/%d/smaps" % self.p.pid) as f:
            for line in f:
                w = line.split()
                if "-" in w[0] and len(w) >= 5 and ":" not in w[0]:
                    name = os.path.basename(w[5]) if len(w) > 5 else ""
                    cur = out.get(name) if "x" in w[1] else None
                elif cur is not None and w[0] in ("Size:", "Rss:", "FilePmdMapped:",
                                                  "AnonHugePages:"):
                    cur[("Size:", "Rss:", "FilePmdMapped:", "AnonHugePages:")
                        .index(w[0])] += int(w[1])
        return out

    def close(self):
        os.close(self.fd)
        self.p.wait()
        os.unlink(self.fifo)


def coverage(o, vs, work):
    states = {"cold": [drop], "warm": [drop, cat], "held": [drop, "hold"],
              "held-warm": [drop, cat, "hold"]}
    res = {}
    for sname, steps in states.items():
        for name, loader, env in vs:
            for k in range(o.probes):
                holder = None
                for s in steps:
                    if s == "hold":
                        holder = Waiting(work, vs[0][1], vs[0][2])
                    else:
                        s()
                w = Waiting(work, loader, env)
                cov = w.smaps()
                w.close()
                if holder:
                    holder.close()
                res.setdefault(sname, {}).setdefault(name, []).append(cov)
                print("cov %-9s %-13s %s" % (sname, name, "  ".join(
                    "%s %.0f%% (pmd %d of %d kB, rss %d)" % (l, 100.0 * c[2] / c[0], c[2], c[0], c[1])
                    for l, c in cov.items())), flush=True)
    return res


def timing(o, vs, work):
    src = os.path.join(work, "small.cpp")
    with open(src, "w") as f:
        f.write(CXX)
    walls = {v[0]: [] for v in vs}
    for r in range(o.rounds):
        for name, loader, env in vs[r % len(vs):] + vs[:r % len(vs)]:
            drop()
            t0 = time.perf_counter()
            subprocess.run(loader + [CLANG] + (["--version"] if o.version else ["-fsyntax-only", src]),
                           env=env, check=True, stdout=subprocess.DEVNULL)
            walls[name].append(time.perf_counter() - t0)
        print("round %d %s" % (r, " ".join("%s %.3f" % (k, v[-1]) for k, v in walls.items())),
              flush=True)
    return walls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libc244", required=True)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--probes", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--version", action="store_true", help="time clang --version instead")
    ap.add_argument("--only", choices=["coverage", "timing"])
    o = ap.parse_args()
    vs = variants(o.libc244)
    work = tempfile.mkdtemp()
    res = {"thp": {f: open("/sys/kernel/mm/transparent_hugepage/" + f).read().strip()
                   for f in ("enabled", "shmem_enabled", "defrag")},
           "kernel": os.uname().release}
    if o.only != "timing":
        res["coverage"] = coverage(o, vs, work)
    if o.only != "coverage":
        walls = res["walls"] = timing(o, vs, work)
        base = walls["stock-2.36"]
        for name, w in walls.items():
            r36 = [b / a for a, b in zip(base, w)]
            r44 = [b / a for a, b in zip(walls["stock-2.44"], w)]
            print("cold %-13s median %.3f s (%.3f-%.3f)  /stock-2.36 %.2f (%.2f-%.2f)"
                  "  /stock-2.44 %.2f (%.2f-%.2f)" % (
                      name, statistics.median(w), min(w), max(w), statistics.median(r36),
                      min(r36), max(r36), statistics.median(r44), min(r44), max(r44)))
    if o.json:
        save_json(res, o.json)


if __name__ == "__main__":
    main()
