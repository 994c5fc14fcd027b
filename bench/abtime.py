#!/usr/bin/env python3
"""Time two commands in alternating runs and report medians and ratios.

  abtime.py [--runs N] [--warmup W] [--env-b K=V ...] -- A-CMD... --- B-CMD...

Runs A and B alternately (A B A B ...) so that drift in a noisy, shared
machine hits both alike; measures each run's wall time and the user and
system CPU time of the child; prints medians, the B/A ratios, and (with
--json FILE) writes the raw samples.  Every run must exit 0 and all runs
of one command must print the same stdout, or the comparison is void.
"""
import argparse, json, os, resource, statistics, subprocess, sys, time


def run_once(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("abtime: %s exited %d: %s" % (" ".join(cmd), p.returncode,
                                               p.stderr.decode(errors="replace")[-500:]))
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, p.stdout


def main():
    argv = sys.argv[1:]
    if "--" not in argv or "---" not in argv:
        sys.exit(__doc__)
    i = argv.index("--")
    j = argv.index("---")
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--label-a", default="A")
    ap.add_argument("--label-b", default="B")
    ap.add_argument("--env-a", action="append", default=[])
    ap.add_argument("--env-b", action="append", default=[])
    ap.add_argument("--json")
    opts = ap.parse_args(argv[:i])
    cmd_a, cmd_b = argv[i + 1:j], argv[j + 1:]
    env_a, env_b = dict(os.environ), dict(os.environ)
    for e, kv in ((env_a, opts.env_a), (env_b, opts.env_b)):
        for item in kv:
            k, _, v = item.partition("=")
            e[k] = v
    samples = {"A": [], "B": []}
    outs = {"A": set(), "B": set()}
    for r in range(opts.warmup + opts.runs):
        for name, cmd, env in (("A", cmd_a, env_a), ("B", cmd_b, env_b)):
            wall, user, sys_, out = run_once(cmd, env)
            outs[name].add(out)
            if r >= opts.warmup:
                samples[name].append({"wall": wall, "user": user, "sys": sys_})
    for n in outs:
        if len(outs[n]) != 1:
            sys.exit("abtime: command %s printed different output in different runs" % n)
    if outs["A"] != outs["B"]:
        sys.exit("abtime: A and B printed different output: %r vs %r"
                 % (next(iter(outs["A"]))[-200:], next(iter(outs["B"]))[-200:]))
    med = {n: {k: statistics.median(s[k] for s in samples[n]) for k in ("wall", "user", "sys")}
           for n in samples}
    la, lb = opts.label_a, opts.label_b
    print("%-28s %10s %10s %10s" % ("median of %d runs" % opts.runs, "wall s", "user s", "sys s"))
    for n, label in (("A", la), ("B", lb)):
        print("%-28s %10.3f %10.3f %10.3f" % (label, med[n]["wall"], med[n]["user"], med[n]["sys"]))
    # A figure that is 0 for A (a start-up's user time, below what the
    # kernel's accounting resolves) gives no ratio: say so, not "nan".
    ratio = {k: (med["B"][k] / med["A"][k] if med["A"][k] else None) for k in ("wall", "user")}
    cell = {k: ("%10.3f" % ratio[k] if ratio[k] is not None else "%10s" % "-") for k in ratio}
    print("%-28s %s %s" % ("ratio %s / %s" % (lb, la), cell["wall"], cell["user"]))
    absent = [k for k in ratio if ratio[k] is None]
    if absent:
        print("(no %s ratio: the median %s time of %s is 0 s, below what the kernel "
              "accounts for so short a process)" % (" or ".join(absent), " and ".join(absent), la))
    if ratio["wall"]:
        print("speed-up (wall): %.1f%%" % ((1 / ratio["wall"] - 1) * 100))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"a": {"label": la, "cmd": cmd_a, "samples": samples["A"], "median": med["A"]},
                       "b": {"label": lb, "cmd": cmd_b, "samples": samples["B"], "median": med["B"]},
                       "ratio": ratio}, f, indent=1)


if __name__ == "__main__":
    main()
