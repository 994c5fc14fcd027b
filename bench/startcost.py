#!/usr/bin/env python3
"""What hugeld costs a program that gets nothing from it (issue 53):

  policy    /bin/true through hugeld's loader with no /etc/hugeld.conf,
            and with files of 5 (global lines), 50 and 500 rules (with
            program blocks) that select nothing for it (paired: ratio to
            no file);
  libs *    /bin/true and sh -c : against the stock loader: hugeld with
            nothing set, then with LD_HUGEPAGE_LIBS='*' and the default
            backing, with a pool and without one (the pool's files read
            0 in a mount namespace of its own, tests/isolate.sh:
            others' pages are left alone);
  steps     where the difference goes, counted, not timed: instructions
            (valgrind --tool=callgrind, ld.so's functions inclusive),
            and system calls (strace -f -c).

Each start is one of N back-to-back starts (bench/cost/spawn.c: the mean
time from posix_spawn to exit), the variants of a round in rotating
order; reported are the medians and the medians of the per-round ratios.
Every program is started by the kernel, as on a machine whose system
loader is hugeld's: hugeld's variants run in a mount namespace where
its ld.so is bound over the system's, the stock loader's outside it.
Whatever /etc/hugeld.conf held is put back.

  startcost.py [--rounds R] [--starts N] [--out DIR]   (root)

The raw results go to OUT/startcost.json.xz (benchlib.save_json)."""
import argparse
import fcntl
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from benchlib import HUGELD, base_env, log, save_json  # noqa: E402
from policy import rules50  # noqa: E402

CONF = "/etc/hugeld.conf"
ISOLATE = os.path.join(TOP, "tests", "isolate.sh")


def rules5():
    """5 rules, global ones only: the libraries a fleet selects
    everywhere and the segments (nothing selects /bin/true)."""
    g = [x for x in rules50().splitlines()[1:]
         if x.startswith(("libs ", "segments "))][:5]
    assert len(g) == 5, g
    return "# hugeld.conf: a 5-rule policy for the bench\n" + "\n".join(g) + "\n"


def rules500():
    """500 rules: the 50-rule file's global lines, then its program
    blocks again under 150 other program names (nothing selects
    /bin/true or sh)."""
    lines = rules50().splitlines()
    glob = [x for x in lines[1:] if not x.startswith(("program", "  "))]
    out = ["# hugeld.conf: a 500-rule policy for the bench"] + glob
    i = 0
    while len(out) - 1 + 3 <= 500:
        out += ["program /opt/app%03d/bin/server*" % i,
                "  libs libapp%03d.so*:libcrypto.so*" % i,
                "  segments text,rodata,relro"]
        i += 1
    while len(out) - 1 < 500:
        out.append("cache /opt/app%03d/lib/libapp.so" % len(out))
    text = "\n".join(out) + "\n"
    n = sum(1 for x in text.splitlines()
            if x.strip() and not x.lstrip().startswith("#"))
    assert n == 500, n
    return text


def set_conf(text):
    """/etc/hugeld.conf holds TEXT (None: there is none)."""
    if text is None:
        if os.path.lexists(CONF):
            os.unlink(CONF)
    else:
        with open(CONF + ".tmp", "w") as f:
            f.write(text)
        os.chmod(CONF + ".tmp", 0o644)
        os.rename(CONF + ".tmp", CONF)
    os.sync()
    time.sleep(0.2)


def spawn_us(spawn, n, cmd, env, prefix=()):
    """The mean microseconds of N starts of CMD, after N/10 unmeasured."""
    full = list(prefix) + [spawn]
    subprocess.run(full + [str(max(1, n // 10))] + cmd, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    out = subprocess.run(full + [str(n)] + cmd, env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return float(out)


def paired(variants, rounds, n, spawn, base_name):
    """Rounds of the VARIANTS (name, cmd, env, conf, prefix), rotating;
    the samples and each one's median ratio to BASE_NAME's."""
    samples = {v[0]: [] for v in variants}
    for r in range(rounds + 1):
        k = r % len(variants)
        for name, cmd, env, conf, prefix in variants[k:] + variants[:k]:
            if conf is not False:
                set_conf(conf)
            us = spawn_us(spawn, n, cmd, env, prefix)
            if r > 0:
                samples[name].append(us)
    base = samples[base_name]
    return {name: {"samples_us": s, "median_us": statistics.median(s),
                   "ratio": statistics.median(a / b for a, b in zip(s, base))}
            for name, s in samples.items()}


def instructions(cmd, env, prefix=()):
    """Instructions of one start (callgrind), and those of ld.so's
    hugeld functions, inclusive: {"total", "functions": {name: n}}."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(list(prefix) + ["valgrind", "--tool=callgrind",
                                       "--callgrind-out-file=" + out] + cmd,
                       env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             stdout=subprocess.PIPE, text=True).stdout
    total = 0
    funcs = {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) .*PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*:(_dl_hugepage_\w+|hp_\w+)"
                     r"(?:\s|$)", line)
        if m and m.group(2) not in funcs:
            funcs[m.group(2)] = int(m.group(1).replace(",", ""))
    return {"total": total, "functions": funcs}


def syscalls(cmd, env, prefix=()):
    """System calls of one start (strace -f -c): {name: calls}."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "st")
        subprocess.run(list(prefix) + ["strace", "-f", "-c", "-o", out] + cmd,
                       env=env, check=True, stdout=subprocess.DEVNULL)
        text = open(out).read()
    calls = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] not in ("total", "syscall") and \
                f[3].isdigit():
            calls[f[-1]] = int(f[3])
    return calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--starts", type=int, default=400)
    ap.add_argument("--out", default=os.path.join(HERE, "results",
                                                  "start-cost"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("startcost.py: run as root")
    work = tempfile.mkdtemp(prefix="hugeld-startcost.")
    spawn = os.path.join(work, "spawn")
    subprocess.run(["gcc", "-O2", "-o", spawn,
                    os.path.join(HERE, "cost", "spawn.c")], check=True)
    # The tests' lock on the policy file (tests/lib.sh, take_policy_file).
    lock = os.open("/etc", os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    saved = None
    if os.path.lexists(CONF):
        saved = CONF + ".hugeld-bench"
        os.rename(CONF, saved)
    env = base_env()
    every = dict(env, LD_HUGEPAGE_LIBS="*")
    # hugeld as the system loader, in a namespace of the batch's own.
    system = os.path.realpath("/lib64/ld-linux-x86-64.so.2")
    bind = 'mount --bind "$0" "$1" && shift && exec "$@"'
    hugeld = ("unshare", "-m", "sh", "-c", bind, os.path.realpath(HUGELD),
              system)
    nopool = ("unshare", "-m", ISOLATE, "--no-pool", "sh", "-c", bind,
              os.path.realpath(HUGELD), system)
    stock_nopool = ("unshare", "-m", ISOLATE, "--no-pool")
    res = {"id": "start-cost", "rounds": args.rounds, "starts": args.starts}
    try:
        t50, t500 = rules50(), rules500()
        t5 = rules5()
        true = ["/bin/true"]
        res["policy"] = paired(
            [("none", true, env, None, hugeld),
             ("rules5", true, env, t5, hugeld),
             ("rules50", true, env, t50, hugeld),
             ("rules500", true, env, t500, hugeld)],
            args.rounds, args.starts, spawn, "none")
        set_conf(None)
        for p in ("none", "rules5", "rules50", "rules500"):
            set_conf({"none": None, "rules5": t5, "rules50": t50,
                      "rules500": t500}[p])
            res["policy"][p]["instructions"] = instructions(true, env,
                                                            hugeld)
            res["policy"][p]["syscalls"] = syscalls(true, env, hugeld)
        set_conf(None)
        # A program that loads an object that may fill a huge page
        # (libbig.so, 44 MiB) and reads the file then; it selects
        # nothing for it either.
        lib = os.path.join(TOP, "build", "tests", "libbig.so")
        if not os.path.exists(lib):
            sys.exit("startcost.py: %s missing: run make fixtures" % lib)
        bigdep = os.path.join(work, "bigdep")
        subprocess.run(["gcc", "-x", "c", "-", "-x", "none", "-o", bigdep,
                        "-Wl,--no-as-needed", lib,
                        "-Wl,-rpath," + os.path.dirname(lib)],
                       input="int main (void) { return 0; }\n", text=True,
                       check=True)
        res["policy_bigdep"] = paired(
            [("none", [bigdep], env, None, hugeld),
             ("rules5", [bigdep], env, t5, hugeld),
             ("rules50", [bigdep], env, t50, hugeld),
             ("rules500", [bigdep], env, t500, hugeld)],
            args.rounds, args.starts // 4, spawn, "none")
        set_conf(None)
        log("policy file, a program with libbig.so (the file read when it "
            "is loaded): %.1f us without one; 5 rules %.3f, 50 rules %.3f, "
            "500 rules %.3f" % (res["policy_bigdep"]["none"]["median_us"],
                                res["policy_bigdep"]["rules5"]["ratio"],
                                res["policy_bigdep"]["rules50"]["ratio"],
                                res["policy_bigdep"]["rules500"]["ratio"]))
        every_p = ("none", "rules5", "rules50", "rules500")
        log("policy file: /bin/true %.1f us without one; 5 rules %.3f, "
            "50 rules %.3f, 500 rules %.3f (instructions %d, %d, %d, %d; "
            "system calls %d, %d, %d, %d)" % (
                res["policy"]["none"]["median_us"],
                res["policy"]["rules5"]["ratio"],
                res["policy"]["rules50"]["ratio"],
                res["policy"]["rules500"]["ratio"],
                *(res["policy"][p]["instructions"]["total"]
                  for p in every_p),
                *(sum(res["policy"][p]["syscalls"].values())
                  for p in every_p)))
        for label, cmd in (("true", ["/bin/true"]),
                           ("sh", ["/bin/sh", "-c", ":"])):
            r = res["libs_" + label] = paired(
                [("stock", cmd, env, False, ()),
                 ("hugeld_unset", cmd, env, False, hugeld),
                 ("hugeld", cmd, every, False, hugeld),
                 ("stock_nopool", cmd, env, False, stock_nopool),
                 ("hugeld_nopool", cmd, every, False, nopool)],
                args.rounds, args.starts, spawn, "stock")
            np = statistics.median(
                a / b for a, b in zip(r["hugeld_nopool"]["samples_us"],
                                      r["stock_nopool"]["samples_us"]))
            r["hugeld_nopool"]["ratio_to_stock_nopool"] = np
            for v, e, pre in (("stock", env, ()),
                              ("hugeld_unset", env, hugeld),
                              ("hugeld", every, hugeld),
                              ("hugeld_nopool", every, nopool)):
                r[v]["instructions"] = instructions(cmd, e, pre)
                r[v]["syscalls"] = syscalls(cmd, e, pre)
            log("libs *: %s: stock %.1f us; hugeld with nothing set %.3f; "
                "libs * %.3f with a pool, %.3f without (instructions %d, %d, "
                "%d, %d; system calls %d, %d, %d, %d)"
                % (" ".join(cmd), r["stock"]["median_us"],
                   r["hugeld_unset"]["ratio"], r["hugeld"]["ratio"], np,
                   r["stock"]["instructions"]["total"],
                   r["hugeld_unset"]["instructions"]["total"],
                   r["hugeld"]["instructions"]["total"],
                   r["hugeld_nopool"]["instructions"]["total"],
                   sum(r["stock"]["syscalls"].values()),
                   sum(r["hugeld_unset"]["syscalls"].values()),
                   sum(r["hugeld"]["syscalls"].values()),
                   sum(r["hugeld_nopool"]["syscalls"].values())))
    finally:
        set_conf(None)
        if saved:
            os.replace(saved, CONF)
    os.makedirs(args.out, exist_ok=True)
    save_json(res, os.path.join(args.out, "startcost.json.xz"))


if __name__ == "__main__":
    main()
