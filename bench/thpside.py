#!/usr/bin/env python3
"""Side by side (issue 27): the stock loader, the stock loader with glibc
2.44's glibc.elf.thp=1 (where the C library has that tunable), hugeld's
thp backing (LD_HUGEPAGE_BACKING=thp: no pool) and hugeld's shared cache
(LD_HUGEPAGE_BACKING=shared,private), on two workloads:

  clang    the system's clang with its libLLVM and libclang-cpp:
           --version, and a one-line compile;
  big120   a 120 MiB library: the big-code fixture with 30,000
           functions (libbig.so, -z separate-code, 4 KiB max-page-size,
           built once into build/bench-big120): start-up
           (bigcheck --bench --rounds 0) and one iTLB-bound round;

in three states of the page cache of the workload's libraries:

  cold            dropped before each run;
  warm-by-stock   dropped, then read whole by an ordinary process (cat)
                  before each run: every run is the first after an
                  ordinary reader, so hugeld's thp pays its one-time
                  repair in each;
  warm-by-hugeld  as one hugeld thp run left it (its 2 MiB folios),
                  nothing done between runs.

Each round runs every variant once, in that order, preparing the state
before each run; reported are the medians of wall time and the median of
the per-round ratios to the stock loader, with their spread.  Once per
state and variant, a process that dlopens the libraries, reads every
page of their executable segments (as a program that ran all of its
code would) and waits reports how much of them is on huge pages (2 MiB
page-cache folios, anonymous THP, or hugetlb).

  thpside.py [--rounds N] [--out DIR] [--only clang|big120]   (root)

It writes OUT/thpside-glibc-VERSION.md, the tables, and beside it
.json.xz, the raw results (compact JSON, xz-compressed;
benchlib.load_json reads it).
"""
import argparse, fcntl, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from benchlib import (HUGELD, STOCK, base_env, drop_page_cache, fill_by_read,  # noqa: E402
                      log, save_json, timed)

HUGELD_CMD = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")
POOL = "/proc/sys/vm/nr_hugepages"
BIG_FUNCTIONS = 30000

HOLDER_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* holder LIB...: dlopen each LIB, read every page of its executable
   segments, then print for each their size and how much of them is on
   huge pages (kB), say "ready", and wait until standard input
   closes.  */
struct seg { unsigned long s, e; int lib; };
static struct seg segs[64];
static int nseg, nlibs;
static char **libs;
static int
cb (struct dl_phdr_info *i, size_t sz, void *d)
{
  const char *b = strrchr (i->dlpi_name, '/');
  b = b ? b + 1 : i->dlpi_name;
  for (int l = 0; l < nlibs; ++l)
    {
      const char *c = strrchr (libs[l], '/');
      if (strcmp (b, c ? c + 1 : libs[l]) != 0)
        continue;
      for (int k = 0; k < i->dlpi_phnum && nseg < 64; ++k)
        {
          const ElfW(Phdr) *p = &i->dlpi_phdr[k];
          if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
            segs[nseg++] = (struct seg) { i->dlpi_addr + p->p_vaddr,
                                          i->dlpi_addr + p->p_vaddr
                                          + p->p_memsz, l };
        }
    }
  return 0;
}
int
main (int argc, char **argv)
{
  libs = argv + 1;
  nlibs = argc - 1;
  for (int l = 0; l < nlibs; ++l)
    if (dlopen (libs[l], RTLD_NOW | RTLD_GLOBAL) == NULL)
      {
        fprintf (stderr, "%s\n", dlerror ());
        return 1;
      }
  dl_iterate_phdr (cb, NULL);
  /* Touch every page, as a program that ran all of the code would.  */
  unsigned long sum = 0;
  for (int s = 0; s < nseg; ++s)
    for (unsigned long p = segs[s].s & -4096UL; p < segs[s].e; p += 4096)
      sum += *(volatile unsigned char *) p;
  double size[64] = { 0 }, huge[64] = { 0 };
  FILE *f = fopen ("/proc/self/smaps", "r");
  char line[4096];
  unsigned long ms = 0, me = 0;
  double hk = 0;
  int have = 0, hugetlb = 0;
  for (;;)
    {
      char *r = fgets (line, sizeof line, f);
      unsigned long a, b;
      if (r == NULL || sscanf (line, "%lx-%lx ", &a, &b) == 2)
        {
          if (have)
            for (int s = 0; s < nseg; ++s)
              {
                unsigned long x = segs[s].s > ms ? segs[s].s : ms;
                unsigned long y = segs[s].e < me ? segs[s].e : me;
                if (y > x)
                  {
                    size[segs[s].lib] += (y - x) / 1024.0;
                    huge[segs[s].lib] += (hugetlb ? (y - x) / 1024.0
                                          : hk * (y - x) / (me - ms));
                  }
              }
          if (r == NULL)
            break;
          ms = a, me = b, hk = 0, have = 1, hugetlb = 0;
          continue;
        }
      char key[64];
      unsigned long v;
      /* A hugetlb mapping is all huge pages, touched or not.  */
      if (sscanf (line, "%63s %lu", key, &v) == 2
          && strcmp (key, "KernelPageSize:") == 0 && v >= 2048)
        hugetlb = 1;
      else if (sscanf (line, "%63s %lu", key, &v) == 2
          && (strcmp (key, "FilePmdMapped:") == 0
              || strcmp (key, "AnonHugePages:") == 0
              || strcmp (key, "Shared_Hugetlb:") == 0
              || strcmp (key, "Private_Hugetlb:") == 0))
        hk += v;
    }
  for (int l = 0; l < nlibs; ++l)
    printf ("cov %s %.0f %.0f\n", libs[l], size[l], huge[l]);
  printf ("ready %lu\n", sum & 1);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def have_elfthp():
    p = subprocess.run([STOCK, "--list-tunables"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return "glibc.elf.thp" in p.stdout


def clang_workload(work):
    clang = "/usr/lib/llvm-14/bin/clang"
    if not os.path.exists(clang):
        clang = os.path.realpath(subprocess.run(["sh", "-c", "command -v clang"],
                                                stdout=subprocess.PIPE, text=True).stdout.strip())
    listing = subprocess.run([STOCK, "--list", clang], stdout=subprocess.PIPE,
                             text=True, check=True).stdout
    libs = [w[2] for w in (l.split() for l in listing.splitlines())
            if len(w) > 2 and w[1] == "=>"
            and (w[0].startswith("libLLVM") or w[0].startswith("libclang-cpp"))]
    rd = subprocess.run([clang, "-print-resource-dir"], stdout=subprocess.PIPE,
                        text=True, check=True).stdout.strip()
    one = os.path.join(work, "one.c")
    with open(one, "w") as f:
        f.write("int f (void) { return 1; }\n")
    return {"name": "clang", "title": "%s with %s" % (clang, ", ".join(
                os.path.basename(l) for l in libs)),
            "libs": libs, "sel": ":".join(os.path.basename(l).split(".so")[0] + ".so*"
                                          for l in libs),
            "cmds": {"version": [clang, "--version"],
                     "compile": [clang, "-fintegrated-cc1", "-resource-dir", rd, "-c",
                                 one, "-o", "/dev/null"]}}


def big_workload():
    out = os.path.join(TOP, "build", "bench-big120")
    log("building the 120 MiB library in %s (once: a few minutes)" % out)
    sh(["make", "-s", "-C", os.path.join(TOP, "tests", "fixtures"), "OUT=" + out,
        "FUNCTIONS=%d" % BIG_FUNCTIONS, out + "/libbig.so", out + "/bigcheck-shared"],
       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    prog = os.path.join(out, "bigcheck-shared")
    return {"name": "big120", "title": "libbig.so with %d functions (bigcheck-shared)"
            % BIG_FUNCTIONS, "libs": [os.path.join(out, "libbig.so")], "sel": "libbig.so",
            "cmds": {"start": [prog, "--bench", "--rounds", "0"],
                     "run": [prog, "--bench", "--rounds", "1"]}}


def variants_of(w, elfthp):
    env = base_env()
    v = [("stock", "stock ld.so", STOCK, env)]
    if elfthp:
        v.append(("elfthp", "stock ld.so, glibc.elf.thp=1", STOCK,
                  dict(env, GLIBC_TUNABLES="glibc.elf.thp=1")))
    v.append(("thp", "hugeld thp", HUGELD,
              dict(env, LD_HUGEPAGE_LIBS=w["sel"], LD_HUGEPAGE_BACKING="thp")))
    v.append(("shared", "hugeld shared", HUGELD,
              dict(env, LD_HUGEPAGE_LIBS=w["sel"], LD_HUGEPAGE_BACKING="shared,private")))
    return v


def coverage(holder, ldso, env, libs):
    p = subprocess.Popen([ldso, holder] + libs, env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    size = huge = 0.0
    for line in p.stdout:
        w = line.split()
        if w and w[0] == "cov":
            size += float(w[2])
            huge += float(w[3])
        if w and w[0] == "ready":
            break
    p.stdin.close()
    p.wait()
    return size, huge


def run_workload(o, w, holder, elfthp):
    libs = w["libs"]
    vs = variants_of(w, elfthp)
    thp_env = [v for v in vs if v[0] == "thp"][0][3]
    first = list(w["cmds"].values())[0]
    states = {"cold": lambda: drop_page_cache(libs),
              "warm-by-stock": lambda: fill_by_read(libs),
              "warm-by-hugeld": None}
    groups = []
    for sname, prep in states.items():
        if prep is None:
            fill_by_read(libs)
            sh([HUGELD] + first, env=thp_env, stdout=subprocess.DEVNULL)
        cov = {}
        for name, label, ldso, env in vs:
            (prep or (lambda: None))()
            size, huge = coverage(holder, ldso, env, libs)
            cov[name] = {"size_kb": size, "huge_kb": huge}
        for cname, cmd in w["cmds"].items():
            t = {v[0]: [] for v in vs}
            for r in range(o.rounds):
                for name, label, ldso, env in vs:
                    (prep or (lambda: None))()
                    t[name].append(timed([ldso] + cmd, env))
            g = {"workload": w["name"], "state": sname, "cmd": cname, "argv": cmd,
                 "coverage": cov, "wall": {k: [x[0] for x in v] for k, v in t.items()},
                 "user": {k: [x[1] for x in v] for k, v in t.items()}, "ratio": {}}
            for name, label, ldso, env in vs[1:]:
                r = [b[0] / a[0] for a, b in zip(t["stock"], t[name])]
                g["ratio"][name] = [statistics.median(r), min(r), max(r)]
            groups.append(g)
            log("%-7s %-15s %-8s stock %7.1f ms | %s" % (
                w["name"], sname, cname, 1000 * statistics.median(g["wall"]["stock"]),
                " | ".join("%s %.2f (%.2f-%.2f), %.0f%% huge" % (
                    n, g["ratio"][n][0], g["ratio"][n][1], g["ratio"][n][2],
                    100 * cov[n]["huge_kb"] / max(cov[n]["size_kb"], 1)) for n in g["ratio"])))
    return {"workload": w["name"], "title": w["title"], "libs": libs,
            "variants": [[v[0], v[1]] for v in vs], "groups": groups}


def report(res, path):
    out = ["# Side by side: stock, glibc.elf.thp, hugeld thp, hugeld shared (bench/thpside.py)", "",
           "Linux %s, glibc %s, %s; %d rounds, each variant once per round, the page-cache "
           "state prepared before each run.  Ratios: median of the per-round ratios to the "
           "stock loader's wall time (spread in brackets); below 1 is faster.  Huge: share "
           "of the libraries' executable segments on 2 MiB pages (page-cache folios, THP "
           "or hugetlb) in a process that loaded them in that state and then read every "
           "page of them.  Raw: the .json.xz beside this file."
           % (res["kernel"], res["glibc"], res["fs"], res["rounds"]), ""]
    for w in res["workloads"]:
        names = [v[0] for v in w["variants"]]
        labels = dict(w["variants"])
        out += ["## %s" % w["title"], "",
                "| state | command | stock | " + " | ".join(labels[n] for n in names[1:]) + " |",
                "|---|---|---:|" + "---:|" * (len(names) - 1)]
        for g in w["groups"]:
            cov = g["coverage"]
            cells = ["%.2f (%.2f–%.2f), %.0f%% huge" % (
                g["ratio"][n][0], g["ratio"][n][1], g["ratio"][n][2],
                100 * cov[n]["huge_kb"] / max(cov[n]["size_kb"], 1)) for n in names[1:]]
            out.append("| %s | %s | %.1f ms, %.0f%% huge | %s |" % (
                g["state"], g["cmd"], 1000 * statistics.median(g["wall"]["stock"]),
                100 * cov["stock"]["huge_kb"] / max(cov["stock"]["size_kb"], 1),
                " | ".join(cells)))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "thpside"))
    ap.add_argument("--only", choices=["clang", "big120"])
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    work = os.path.join(o.out, "work")
    os.makedirs(work, exist_ok=True)
    holder = os.path.join(work, "holder")
    with open(holder + ".c", "w") as f:
        f.write(HOLDER_C)
    sh(["cc", "-O2", "-o", holder, holder + ".c", "-ldl"])
    elfthp = have_elfthp()
    ws = []
    if o.only in (None, "clang"):
        ws.append(clang_workload(work))
    if o.only in (None, "big120"):
        ws.append(big_workload())
    libs = [l for w in ws for l in w["libs"]]
    pages = sum((os.path.getsize(l) >> 21) + 2 for l in libs) + 16
    # Own the pool as scripts/pool.sh's pool_lock does.
    lock = open(POOL)
    fcntl.flock(lock, fcntl.LOCK_EX)
    with open(POOL) as f:
        pool0 = f.read().strip()
    with open(POOL, "w") as f:
        f.write(str(pages))
    sh([HUGELD_CMD, "cache", "add"] + libs, stdout=subprocess.DEVNULL)
    glibc = subprocess.run(["getconf", "GNU_LIBC_VERSION"], stdout=subprocess.PIPE,
                           text=True).stdout.split()[-1]
    fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", libs[0]],
                        stdout=subprocess.PIPE, text=True).stdout.strip()
    res = {"id": "thpside", "kernel": os.uname().release, "glibc": glibc, "fs": fs,
           "rounds": o.rounds, "elfthp": elfthp, "workloads": []}
    try:
        for w in ws:
            res["workloads"].append(run_workload(o, w, holder, elfthp))
    finally:
        subprocess.run([HUGELD_CMD, "cache", "remove"] + libs, stdout=subprocess.DEVNULL)
        with open(POOL, "w") as f:
            f.write(pool0)
    name = "thpside-glibc-%s" % glibc
    save_json(res, os.path.join(o.out, name + ".json.xz"))
    report(res, os.path.join(o.out, name + ".md"))
    log("wrote %s.md and .json.xz in %s" % (name, o.out))


if __name__ == "__main__":
    main()
