#!/usr/bin/env python3
"""What the thp repair's timer costs as the machine grows (issue 50):
`hugeld thp repair --quiet', its unit's own command line (hugeld off for
its own process), run with N other processes alive (100, 2,000 and
10,000 sleeping ones: each a small program's parent forks the rest),
with nothing selected and with a policy file that selects 50 of the
dynamic linker's libraries for the thp backing.  Each cell runs the
command several times and reports the medians of its wall time and of
its CPU time (the command and the helpers it waits for, from getrusage
of the children), and what that is per minute: the timer runs it every
minute after the last run, so CPU time per run / (60 s + wall) is its
average share of one core.

  thpscale.py [--runs N] [--counts 100,2000,10000] [--out DIR]
                                        (root: the repair needs it)

Whatever /etc/hugeld.conf held is put back.  The raw results go to
OUT/thpscale.json.xz (benchlib.save_json)."""
import argparse
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
sys.path.insert(0, HERE)
from benchlib import log, save_json  # noqa: E402

CONF = "/etc/hugeld.conf"
HUGELD_CMD = os.environ.get("HUGELD_CMD", "/opt/hugeld/bin/hugeld")
SLEEPERS_C = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int
main (int argc, char **argv)
{
  int n = atoi (argv[1]);
  for (int i = 1; i < n; ++i)
    if (fork () == 0)
      {
        pause ();
        _exit (0);
      }
  printf ("ready\n");
  fflush (stdout);
  pause ();
  return 0;
}
"""


def selected_50():
    """A policy file selecting 50 libraries of the dynamic linker's
    cache for the thp backing (the first 50 of 2 MiB or more)."""
    out = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                         text=True).stdout
    libs = []
    for line in out.splitlines():
        if "=>" not in line:
            continue
        path = line.split("=>")[1].strip()
        try:
            if os.path.getsize(path) >= 2 << 20 and path not in libs:
                libs.append(path)
        except OSError:
            continue
    names = sorted({os.path.basename(p) for p in libs})[:50]
    return ("libs %s\nbacking thp\nsegments text,rodata\n"
            % ":".join(names)), len(names)


def one_run():
    """Wall and CPU seconds of one run of the timer's command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    env = dict(os.environ, LD_HUGEPAGE_LIBS="")
    subprocess.run([HUGELD_CMD, "thp", "repair", "--quiet"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime
                                                - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--counts", default="100,2000,10000")
    ap.add_argument("--out", default=os.path.join(HERE, "results",
                                                  "thp-repair"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("thpscale.py: run as root")
    tmp = tempfile.mkdtemp(prefix="thpscale.")
    src = os.path.join(tmp, "sleepers.c")
    with open(src, "w") as f:
        f.write(SLEEPERS_C)
    prog = os.path.join(tmp, "sleepers")
    subprocess.run(["cc", "-O2", "-o", prog, src], check=True)
    saved = None
    if os.path.lexists(CONF):
        saved = CONF + ".thpscale"
        os.rename(CONF, saved)
    conf, nsel = selected_50()
    res = {"id": "thp-repair-scale", "runs": args.runs, "selected": nsel,
           "cells": []}
    try:
        for count in [int(c) for c in args.counts.split(",")]:
            base = len([d for d in os.listdir("/proc") if d.isdigit()])
            p = subprocess.Popen([prog, str(max(1, count - base))],
                                 stdout=subprocess.PIPE, text=True,
                                 start_new_session=True)
            p.stdout.readline()
            n = len([d for d in os.listdir("/proc") if d.isdigit()])
            try:
                for policy in ("none", "50 selected"):
                    if policy == "none":
                        if os.path.exists(CONF):
                            os.unlink(CONF)
                    else:
                        with open(CONF, "w") as f:
                            f.write(conf)
                        os.chmod(CONF, 0o644)
                    one_run()
                    runs = [one_run() for _ in range(args.runs)]
                    wall = statistics.median(w for w, _ in runs)
                    cpu = statistics.median(c for _, c in runs)
                    share = cpu / (60 + wall)
                    cell = {"processes": n, "policy": policy,
                            "wall_s": [w for w, _ in runs],
                            "cpu_s": [c for _, c in runs],
                            "median_wall_s": wall, "median_cpu_s": cpu,
                            "core_share": share}
                    res["cells"].append(cell)
                    log("  %6d processes, %-11s: wall %.3f s, CPU %.3f s a "
                        "run: %.2f%% of one core" % (n, policy, wall, cpu,
                                                     100 * share))
            finally:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                time.sleep(1)
    finally:
        if os.path.exists(CONF):
            os.unlink(CONF)
        if saved:
            os.rename(saved, CONF)
        shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(args.out, exist_ok=True)
    save_json(res, os.path.join(args.out, "thpscale.json.xz"))


if __name__ == "__main__":
    main()
