# hugeld: run programs with hugeld's loader, plan the huge page pool,
# show what is on huge pages, and keep perf working.
# Copyright (C) 2026 The hugeld authors.
# This file is part of hugeld, a patch set for the GNU C Library.
#
# The GNU C Library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Lesser General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
#
# The GNU C Library is distributed in the hope that it will be useful,
# but WITHOUT ANY WARRANTY; without even the implied warranty of
# MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
# Lesser General Public License for more details.
#
# You should have received a copy of the GNU Lesser General Public
# License along with the GNU C Library; if not, see
# <https://www.gnu.org/licenses/>.

"""hugeld thp status|repair: the page cache under the zones that the
thp backing maps from files, and its repair between starts.

ld.so's thp backing only marks an object's mappings MADV_HUGEPAGE
(elf/dl-hugepage-thp.c): what the page cache holds in small folios
(another process read the file first) stays so for every process until
it is dropped and read again.  That costs a start a multiple of its
time and cannot drop what another process maps, so it is done here,
by root, between starts: the hugeld-thp helper (tools/hugeld-thp*.c)
finds what processes map in the thp backing's shape, plans each
object with the loader's own planner and, per 2 MiB range, asks the
page cache (mincore) and repairs it (MADV_COLLAPSE where the kernel
collapses file text, else drop and read again where nobody maps it).

It trusts nothing a user maps: the helper looks only at files that
root owns, nobody else may write and that live on a disk file system,
reads no range with a hole, makes at most --budget MiB of new folios a
run, and survives a file cut under it; the command gives each run of
the helper a time limit, and a run stuck on one process or file is
started again without it (it is reported as such).

Which objects: the FILEs given; with --program PROG, the objects PROG
loads that its settings select for the thp backing (a unit's
ExecStartPre=, written by hugeld enable, so that a service maps its
text from 2 MiB folios whatever the page cache held); else those that
the settings of a process with nothing in its environment (the
system-wide tunables and the policy file's global lines, by ld.so's
resolver) select for the thp backing among the libraries of the
dynamic linker's cache (ldconfig -p), and those running processes map
in the thp backing's shape.  Names and reasons shown are escaped
(common.shown): a process or a file's owner chose them.
hugeld-thp-repair.timer runs `hugeld thp repair' every minute, the
package's trigger after every package change."""

import json
import os
import re
import sys

from .. import helpers, spawn
from ..common import HUGE, THP_BUDGET_MIB, Error, ldso_arg, positive_int, shown, warn
from ..openfile import NotOpened, open_regular
from ..planner import helper_objects, ldso_list
from ..registry import Command, argument, flag, value
from ..settings import program_path, resolve

LDCONFIG_DIRS = "/sbin:/usr/sbin:/usr/bin:/bin"
# How long one run of the helper may take, and how many times a run
# stuck on one process or file is started again without it.  A stuck
# run costs this limit: the unit's own limit (60 s) is above the two.
HELPER_TIME_LIMIT = 15
RESTARTS = 2
# How long the helper's scan waits for one process's maps
# (THP_SCAN_STALL_MS, tools/hugeld-thp.h): for the words of the report.
SCAN_STALL_MS = 2000


def _lines(out):
    """The complete JSON lines of the helper's output OUT: (records,
    the last "done" line or None)."""
    recs, done = [], None
    text = out.decode("utf-8", "surrogateescape")
    for line in text.split("\n")[:-1]:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("done"):
            done = r
        else:
            recs.append(r)
    return recs, done


def _one_run(args):
    """One run of the helper with ARGS (after the helper's path): its
    records, its "done" line (None if it was stopped) and what it was
    reading when it was stopped ("scan PID", "file M:N:I", "named I"),
    or None."""
    fd = os.memfd_create("hugeld-thp-progress", os.MFD_CLOEXEC)
    try:
        try:
            p = helpers.run(helpers.THP, ["--progress-fd", str(fd)] + args,
                            timeout=HELPER_TIME_LIMIT, pass_fds=(fd,))
        except spawn.TimedOut as e:
            recs, _ = _lines(e.stdout)
            where = os.pread(fd, 256, 0).split(b"\n")[0]
            return recs, None, where.decode("utf-8", "replace").strip()
    finally:
        os.close(fd)
    if p.returncode != 0:
        raise Error(helpers.failure(helpers.THP, p))
    recs, done = _lines(p.stdout)
    return recs, done, None


def survey(named, repair, scan=False, budget=THP_BUDGET_MIB, idle=False):
    """hugeld-thp's records for the files NAMED ([(name, path)]) and,
    with SCAN, those processes map in the thp shape; and its "done"
    line (the reasons' words, the counts of files left alone).  A run
    that does not finish in time is started again without the process
    or file it was stuck on, which gets a record {"file", "error"}."""
    named = list(named)
    out, skip_pids, skip_files = [], [], []
    done = None
    for attempt in range(RESTARTS + 1):
        args = (["--repair", "--budget", str(budget)] if repair else [])
        args += (["--idle"] if idle else []) + (["--scan"] if scan else [])
        for pid in skip_pids:
            args += ["--skip", str(pid)]
        for f in skip_files:
            args += ["--skip-file", f]
        recs, done, stuck = _one_run(args + ["--"] + [p for _, p in named])
        # The named files come first, one record each, in order.
        for r, (name, _) in zip(recs, named):
            r["file"] = name
        out += recs
        budget -= sum(r.get("read_kb", 0) for r in recs) // 1024
        if stuck is None:
            break
        reported = len([r for r in recs if r.get("pid") is None])
        what, _, arg = stuck.partition(" ")
        limit = "no answer in %d s: left out of this run" % HELPER_TIME_LIMIT
        if what == "named" and arg.isdigit() and int(arg) < len(named):
            out.append({"file": named[int(arg)][0], "error": limit})
            named = named[int(arg) + 1:]
        else:
            named = named[reported:]
        if what == "scan" and arg.isdigit():
            skip_pids.append(int(arg))
            out.append({"file": "process %s" % arg, "error":
                        "its memory map did not answer in %d s: left out "
                        "of this run" % HELPER_TIME_LIMIT})
        elif what == "file":
            skip_files.append(arg)
            out.append({"file": "file %s (device:inode)" % arg,
                        "error": limit})
        skip_files += [r["id"] for r in recs if "id" in r]
        if budget <= 0:
            break
    done = done or {}
    for pid in done.get("stuck", []):
        out.append({"file": "process %d" % pid, "error": "its memory map "
                    "did not answer in %d s (another thread keeps it busy): "
                    "left out of this run" % (SCAN_STALL_MS // 1000)})
    return out, done


def dynamic_linker_libraries():
    """The paths the dynamic linker's cache names (ldconfig -p), once
    each, in its order."""
    ldconfig = None
    for d in LDCONFIG_DIRS.split(":"):
        if os.access(os.path.join(d, "ldconfig"), os.X_OK):
            ldconfig = os.path.join(d, "ldconfig")
            break
    if ldconfig is None:
        return []
    try:
        p = spawn.run([ldconfig, "-p"], timeout=30)
    except (OSError, spawn.TimedOut):
        return []
    out, seen = [], set()
    for line in p.stdout.decode("utf-8", "surrogateescape").splitlines():
        m = re.match(r"\s+\S+ \(.*\) => (/.*)$", line)
        if m and m.group(1) not in seen:
            seen.add(m.group(1))
            out.append(m.group(1))
    return out


def _selected_for_thp(st, paths):
    """[(path, real path)] of PATHS that the Settings ST select for the
    thp backing (by ld.so's rules, through hugeld-plan), once each, big
    enough for a 2 MiB range."""
    libs, backing = st.effective["libs"], st.effective["backing"]
    segments = st.effective["segments"]
    if not libs or "thp" not in backing.split(","):
        return []
    cands, seen = [], set()
    for path in paths:
        try:
            with open_regular(path) as o:
                real, fst = o.real, o.st
        except NotOpened:
            continue
        if fst.st_size < HUGE or (fst.st_dev, fst.st_ino) in seen:
            continue
        seen.add((fst.st_dev, fst.st_ino))
        cands.append((path, real))
    out = []
    for (path, real), (o, _) in zip(cands, helper_objects(
            ["--libs", libs, "--segments", segments, "--backing", backing,
             "--no-pool"],
            [r for _, r in cands])):
        if o is not None and o["selected"]:
            out.append((path, real))
    return out


def policy_files(path=None):
    """[(path, real path)] of the objects that the settings a process
    gets with nothing in its environment (the system-wide tunables and
    the policy file at PATH, default ld.so's, its global lines, as
    ld.so's resolver takes them: hugeld-conf --effective) select among
    the dynamic linker's libraries, where their backing lists thp."""
    try:
        st = resolve("thp", {}, {}, None, path)
    except Error:
        # Nothing selected, or a value ld.so ignores: nothing to look at.
        return []
    return _selected_for_thp(st, dynamic_linker_libraries())


def program_files(prog, ldso):
    """[(path, real path)] of the objects program PROG loads (itself,
    then what ld.so --list finds) that its settings select for the thp
    backing: this process's environment (a unit's Environment=, as the
    service gets it), GLIBC_TUNABLES, the system-wide tunables and the
    policy file's lines for PROG."""
    prog = program_path(prog)
    st = resolve("run", {}, os.environ, prog)
    objs = [prog] + [p for _, p in ldso_list(ldso, prog) if p]
    return _selected_for_thp(st, objs)


def targets(args):
    """[(name, path to open)] of the objects named, and whether the
    processes' mappings are scanned too."""
    if args.files:
        return [(f, f) for f in args.files], False
    if args.program:
        return program_files(args.program, ldso_arg(args)), False
    return policy_files(), True


def describe(r, reasons):
    """One line for hugeld-thp's record R (REASONS: the words of each
    reason a range is left in small folios)."""
    name = shown(r["file"])
    if r.get("pid"):
        name += " (mapped by process %d)" % r["pid"]
    if "error" in r:
        return "%s: %s" % (name, shown(r["error"]))
    if r["ranges"] == 0:
        return "%s: %s" % (name, shown(r["why"]) if r["why"] else
                           "no 2 MiB range the thp backing maps from the "
                           "file")
    parts = ["%d on 2 MiB folios" % r["huge"]]
    done = [x for x in (
        "%d repaired" % r["repaired"] if r["repaired"] else "",
        "%d collapsed" % r["collapsed"] if r["collapsed"] else "") if x]
    if done:
        parts[0] += " (%s)" % ", ".join(done)
    if r["small"]:
        parts.append("%d in small folios" % r["small"])
    for k, words in reasons.items():
        if r.get(k):
            parts.append("%d left in small folios: %s" % (r[k], shown(words)))
    if r["not_cached"]:
        parts.append("%d not cached (read as 2 MiB folios on first use)"
                     % r["not_cached"])
    line = "%s: %s of the thp backing's 2 MiB ranges: %s" % (
        name, r["ranges"], ", ".join(parts))
    if r["why"]:
        line += " (%s)" % shown(r["why"])
    return line


def _left(r):
    """Whether the record R says something was done, failed or left."""
    return "error" in r or r.get("repaired") or r.get("collapsed") \
        or any(r.get(k) for k in ("held", "hole", "budget", "kept",
                                  "changed", "failed"))


def no_command(args):
    raise Error("thp: give a command: status or repair (try --help)")


def cmd_thp(args):
    if os.geteuid() != 0:
        raise Error("thp %s: needs root (the page cache is asked with "
                    "mincore, which tells only root and a file's owner or "
                    "writer what it holds)" % args.subcommand)
    if args.files and args.program:
        raise Error("thp %s: give FILEs or --program, not both"
                    % args.subcommand)
    repair = args.subcommand == "repair"
    named, scan = targets(args)
    res, done = survey(named, repair, scan,
                       getattr(args, "budget", None) or THP_BUDGET_MIB,
                       idle=repair and scan)
    if not res and not args.files and not args.quiet:
        print("hugeld: no object to look at: none given, none the settings "
              "select for the thp backing, none mapped in its shape now")
    if args.json:
        json.dump({"files": res, "summary": done}, sys.stdout, indent=1)
        print()
    else:
        reasons = done.get("reasons", {})
        for r in res:
            if args.quiet and not _left(r):
                continue
            print(describe(r, reasons))
        if done.get("unlisted"):
            print("hugeld: %d more files left alone (not trusted), not "
                  "listed" % done["unlisted"])
    failed = [r for r in res if "error" in r]
    for r in failed:
        if args.json:
            warn("%s: %s" % (r["file"], r["error"]))
    return 1 if failed and (args.files or args.program) else 0


def thp_subcommand(name, what, budget):
    """The Command thp NAME (status, repair), which does WHAT; BUDGET:
    it takes --budget."""
    return Command(
        name=name, synopsis=("thp %s [FILE... | --program PROG]%s [--json] "
                             "[--quiet]" % (name, " [--budget MIB]"
                                            if budget else ""),),
        summary=what, description=what.capitalize() + " under the thp "
        "backing's 2 MiB ranges of each FILE (default: the objects the "
        "policy file selects for thp and those processes map with it).",
        options=(
            argument("files", "FILE", count="*"),
            value("--program", metavar="PROG", help="the objects PROG loads "
                  "(itself and its libraries, by ld.so --list) that its "
                  "settings (this environment, the policy file) select for "
                  "the thp backing: what a unit's ExecStartPre= (hugeld "
                  "enable) repairs before the service maps them"),
            flag("--json", help="print JSON"),
            flag("--quiet", help="print only objects where something was "
                 "repaired or failed")) + ((
            value("--budget", metavar="MIB", convert=positive_int,
                  help="make at most MIB MiB of new 2 MiB folios in this run "
                  "(default %d; the rest is left for the next run)"
                  % THP_BUDGET_MIB),) if budget else ()),
        run=cmd_thp)


COMMAND = Command(
    name="thp", rank=95,
    synopsis=("thp status | repair [FILE... | --program PROG] "
              "[--budget MIB] [--json] [--quiet]",),
    summary="what the page cache holds under the thp backing's zones, and "
    "making small folios 2 MiB ones (root)",
    description="The thp backing (LD_HUGEPAGE_BACKING=thp) maps an "
    "object's read-only zones from its file and marks them "
    "MADV_HUGEPAGE; the kernel maps a 2 MiB range with one huge page "
    "where the page cache holds it in one 2 MiB folio, or reads it "
    "as one where it holds nothing, but where another process read "
    "the file first (cat, a backup, a program the stock loader "
    "started) it holds small folios, and every process maps them "
    "with 4 KiB pages.  ld.so leaves them so: repairing them would "
    "cost the start the user waits for.  status shows, per object, "
    "its 2 MiB ranges on 2 MiB folios, in small folios (and whether "
    "another process maps them) and not cached; repair makes the "
    "small ones 2 MiB folios: MADV_COLLAPSE where the kernel "
    "collapses file text, else dropped and read again where no "
    "process maps them (a range another process maps is left "
    "alone).  Objects: the FILEs, else those the system-wide "
    "tunables and the policy file's global lines select for the thp "
    "backing among the dynamic linker's libraries (ldconfig -p) and "
    "those running processes map with it.  Root only.  "
    "hugeld-thp-repair.timer runs repair every minute.",
    epilog="example: hugeld thp repair /usr/lib/x86_64-linux-gnu/"
    "libLLVM-14.so.1",
    run=no_command, subcommands=(
        thp_subcommand("status", "show what the page cache holds", False),
        thp_subcommand("repair", "make small folios 2 MiB ones", True)))
