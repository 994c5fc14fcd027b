"""hugeld beside glibc 2.44's own glibc.elf.thp (issue 20): the stock
loader, the stock loader with GLIBC_TUNABLES=glibc.elf.thp=1, and hugeld
with each backing (private, shared, thp), on the same programs, in one
round-robin run per group.

Objects: the big-code fixtures as most Debian objects are built
(-z separate-code, 4 KiB max-page-size: segments not 2 MiB-aligned, so
glibc.elf.thp does nothing for them; Debian 12's libLLVM-14 and
libclang-cpp 14 are not built so, and glibc.elf.thp does apply to them:
bench/loadercov.py) and the same code relinked 2 MiB-aligned
(-z max-page-size=0x200000 -z separate-code: the text segment's address
and file offset are 0 modulo 2 MiB, so glibc.elf.thp applies), plus the
start-up of the system's clang with its libLLVM/libclang-cpp.

THP is in madvise mode for every variant (glibc.elf.thp and hugeld's thp
backing both madvise).  Page cache: the fixtures are copied, synced and
dropped (POSIX_FADV_DONTNEED), so the first run, the stock loader's
warm-up, reads them back through readahead and faults: the page cache
then holds what the kernel builds for an ordinary reader (small folios
unless the file system and kernel make large ones).  That is the state a
library installed long ago and read by some other process first is in.
The coverage probe runs after the timed runs, in that same state; the
thp-based variants are probed a second time from a dropped page cache
("cold"), where the first reader is the variant itself.

Needs glibc 2.44 or later as the system's C library (ld.so
--list-tunables lists glibc.elf.thp): run it in `make check-distro
DIST=experimental' (scripts/check-distro.sh experimental --run
'make -C bench bench-elfthp')."""
import glob, os, shutil, subprocess

from benchlib import (FIXTURES, drop_page_cache, HUGELD, STOCK, base_env, bigcheck_probe, log,
                      run_group, sh, variant)

HUGELD_CMD = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")
ELFTHP = {"GLIBC_TUNABLES": "glibc.elf.thp=1"}
# bigcheck --bench rounds: 4 times the default (about 2 s per run here).
ROUNDS = 48
FILES = ["bigcheck-pie", "bigcheck-pie-2m", "bigcheck-shared", "bigcheck-shared-2m",
         "libbig.so", "libbig-2m.so"]


def has_elf_thp():
    p = subprocess.run([STOCK, "--list-tunables"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return "glibc.elf.thp" in p.stdout


def cold(probe, paths):
    """PROBE run from a dropped page cache for PATHS."""
    def p(env):
        drop_page_cache(paths)
        return probe(env)
    return p


def fixtures_copy(work):
    d = os.path.join(work, "fixtures-elfthp")
    os.makedirs(d, exist_ok=True)
    for f in FILES:
        src = os.path.join(FIXTURES, f)
        if not os.path.exists(src):
            raise RuntimeError("%s missing: run make fixtures" % src)
        shutil.copy2(src, os.path.join(d, f))
    drop_page_cache([os.path.join(d, f) for f in FILES])
    return d


def newest_clang():
    c = sorted(glob.glob("/usr/lib/llvm-*/bin/clang"),
               key=lambda p: int(p.split("llvm-")[1].split("/")[0]))
    return c[-1] if c else None


def clang_libs(clang):
    out = subprocess.run([STOCK, "--list", clang], stdout=subprocess.PIPE, text=True).stdout
    return [l.split("=>")[1].split()[0] for l in out.splitlines()
            if "=>" in l and ("libLLVM" in l or "libclang-cpp" in l)]


def variants(cmd, sel, probe_cmd, files, extra_env=None):
    """The five variants of one program: CMD after the loader, SEL the
    objects hugeld selects, FILES what a cold probe drops."""
    ee = dict(extra_env or {})
    pr = lambda loader: bigcheck_probe([loader] + probe_cmd)
    vs = [variant("stock", "stock ld.so", [STOCK] + cmd, ee, thp="madvise", probe=pr(STOCK)),
          variant("elfthp", "stock ld.so, glibc.elf.thp=1", [STOCK] + cmd, dict(ee, **ELFTHP),
                  thp="madvise", probe=pr(STOCK))]
    for b, backing in (("private", "private"), ("shared", "shared,private"), ("thp", "thp")):
        env = dict(ee, LD_HUGEPAGE_LIBS=sel, LD_HUGEPAGE_BACKING=backing)
        vs.append(variant(b, "hugeld, LD_HUGEPAGE_BACKING=%s" % backing, [HUGELD] + cmd, env,
                          thp="madvise", probe=pr(HUGELD)))
    for v in vs:
        if v["name"] in ("elfthp", "thp"):
            v["cold_probe"] = cold(v["probe"], files)
    return vs


def cold_probes(sysm, group, vs):
    """Coverage of the thp-based variants from a dropped page cache."""
    for v, ent in zip(vs, group["variants"]):
        if "cold_probe" in v:
            sysm.thp(v["thp"])
            env = base_env()
            env.update(v["env"])
            ent["pages_cold"] = v["cold_probe"](env)
            sysm.thp(None)
            log("    %-8s cold page cache: %s" % (v["name"], ent["pages_cold"]))


def elfthp(sysm, w, q, perf_events):
    if not has_elf_thp():
        raise RuntimeError("the system's ld.so (%s) has no glibc.elf.thp tunable: "
                           "this section needs glibc 2.44 (make check-distro DIST=experimental)"
                           % STOCK)
    runs, warm = (3, 1) if q else (7, 1)
    d = fixtures_copy(os.path.dirname(w["ext4"]))
    P = lambda f: os.path.join(d, f)
    groups = []
    cached = []
    try:
        # The shared backing maps read-only zones from the hugetlbfs cache.
        cached = [P(f) for f in ("bigcheck-pie", "bigcheck-pie-2m", "libbig.so", "libbig-2m.so")]
        sh([HUGELD_CMD, "cache", "add"] + cached)
        drop_page_cache([P(f) for f in FILES])
        state = ("page cache dropped, then read by the first run (the stock loader's "
                 "warm-up); thp-based variants also probed from a dropped cache")
        for gid, title, prog, sel, files in (
                ("elfthp-itlb-pie", "iTLB-bound PIE, -z separate-code (not 2 MiB-aligned)",
                 "bigcheck-pie", "bigcheck-pie", ["bigcheck-pie"]),
                ("elfthp-itlb-pie-2m", "iTLB-bound PIE relinked 2 MiB-aligned",
                 "bigcheck-pie-2m", "bigcheck-pie-2m", ["bigcheck-pie-2m"]),
                ("elfthp-itlb-shared", "iTLB-bound code in libbig.so (not 2 MiB-aligned)",
                 "bigcheck-shared", "libbig.so", ["bigcheck-shared", "libbig.so"]),
                ("elfthp-itlb-shared-2m", "iTLB-bound code in libbig-2m.so (2 MiB-aligned)",
                 "bigcheck-shared-2m", "libbig-2m.so", ["bigcheck-shared-2m", "libbig-2m.so"])):
            env = {"LD_LIBRARY_PATH": d}
            vs = variants([P(prog), "--bench", "--rounds", str(ROUNDS)], sel,
                          [P(prog), "--rounds", "1"],
                          [P(f) for f in files], env)
            g = run_group(sysm, gid, "%s (%s)" % (title, state), vs, runs, warm, perf_events,
                          extra={"page_cache": state})
            cold_probes(sysm, g, vs)
            groups.append(g)
        clang = newest_clang()
        if clang:
            libs = [os.path.realpath(l) for l in clang_libs(clang)]
            sel = ":".join(sorted({os.path.basename(l).split(".so")[0] + ".so*" for l in libs}))
            sh([HUGELD_CMD, "cache", "add"] + libs)
            cached += libs
            drop_page_cache(libs)
            # A one-line compile, not --version: clang prints its
            # InstalledDir from /proc/self/exe, which is the loader.
            one = P("one.c")
            with open(one, "w") as f:
                f.write("int f (void) { return 1; }\n")
            rd = subprocess.run([clang, "-print-resource-dir"], stdout=subprocess.PIPE,
                                text=True, check=True).stdout.strip()
            args = [clang, "-fintegrated-cc1", "-resource-dir", rd, "-c", one, "-o", "/dev/null"]
            vs = variants(args, sel, args, libs)
            for v in vs:
                v["probe"] = None
                v.pop("cold_probe", None)
            g = run_group(sysm, "elfthp-startup", "%s -c of a one-line C file, %s selected (%s)"
                          % (os.path.basename(clang), sel, state), vs, 41 if not q else 11, 2,
                          perf_events, extra={"page_cache": state})
            groups.append(g)
        else:
            log("elfthp: no /usr/lib/llvm-*/bin/clang: no start-up group")
    finally:
        if cached:
            subprocess.run([HUGELD_CMD, "cache", "remove"] + cached)
    return groups
