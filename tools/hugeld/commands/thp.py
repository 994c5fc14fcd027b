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
by root, between starts: the hugeld-thp helper (tools/hugeld-thp.c)
plans each object with the loader's own planner and, per 2 MiB range,
asks the page cache (mincore) and repairs it (MADV_COLLAPSE where the
kernel collapses file text, else drop and read again where nobody
maps it).  Which objects: the FILEs given, else those that the
settings of a process with nothing in its environment (the system-wide
tunables and the policy file's global lines, by ld.so's resolver)
select for the thp backing among the libraries of the dynamic linker's
cache (ldconfig -p), and those running processes map with
MADV_HUGEPAGE at an address congruent to their file offset modulo
2 MiB (smaps VmFlags "hg"; opened through /proc/PID/map_files; each
process within status's time limit).  Names and reasons shown are
escaped (common.shown): a process or a file's owner chose them.
hugeld-thp-repair.timer runs `hugeld thp repair' every minute, the
package's trigger after every package change."""

import json
import os
import re
import sys

from .. import spawn
from ..common import HUGE, Error, helper_path, shown, warn
from ..openfile import NotOpened, open_regular
from ..planner import helper_objects
from ..settings import resolve
from .status import within

LDCONFIG_DIRS = "/sbin:/usr/sbin:/usr/bin:/bin"


def thp_helper():
    """The hugeld-thp helper: next to hugeld-plan."""
    p = os.path.join(os.path.dirname(helper_path()), "hugeld-thp")
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        raise Error("the hugeld-thp helper is missing (%s; make -C tools)"
                    % p)
    return p


def _run_thp(files, repair):
    args = [thp_helper()] + (["--repair"] if repair else []) + files
    try:
        p = spawn.run(args)
    except OSError as e:
        raise Error("cannot run %s: %s" % (args[0], e.strerror))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Error(re.sub(r"^hugeld-thp: ", "", msg[0]) if msg
                    else "%s failed (status %d)" % (args[0], p.returncode))
    return json.loads(p.stdout.decode("utf-8", "surrogateescape"))["files"]


def survey(files, repair):
    """hugeld-thp's record for each of FILES ([(name, path)]), or
    {"file": name, "error": why}: one run of the helper for all; if
    that fails (a file that is not an object), one run per file."""
    if not files:
        return []
    try:
        out = _run_thp([p for _, p in files], repair)
        for r, (name, _) in zip(out, files):
            r["file"] = name
        return out
    except Error:
        pass
    out = []
    for name, p in files:
        try:
            r = _run_thp([p], repair)[0]
            r["file"] = name
        except Error as e:
            msg = str(e)
            r = {"file": name, "error": msg[len(p) + 2:]
                 if msg.startswith(p + ": ") else msg}
        out.append(r)
    return out


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


def policy_files(path=None):
    """[(path, real path)] of the objects that the settings a process
    gets with nothing in its environment (the system-wide tunables and
    the policy file at PATH, default ld.so's, its global lines, as
    ld.so's resolver takes them: hugeld-conf --effective) select among
    the dynamic linker's libraries, where their backing lists thp; big
    enough for a 2 MiB range."""
    try:
        st = resolve("thp", {}, {}, None, path)
    except Error:
        # Nothing selected, or a value ld.so ignores: nothing to look at.
        return []
    libs, backing = st.effective["libs"], st.effective["backing"]
    segments = st.effective["segments"]
    if not libs or "thp" not in backing.split(","):
        return []
    cands, seen = [], set()
    for path in dynamic_linker_libraries():
        try:
            with open_regular(path) as o:
                real, st = o.real, o.st
        except NotOpened:
            continue
        if st.st_size < HUGE or (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        cands.append((path, real))
    out = []
    for (path, real), (o, _) in zip(cands, helper_objects(
            ["--libs", libs, "--segments", segments, "--backing", backing,
             "--no-pool"],
            [r for _, r in cands])):
        if o is not None and o["selected"]:
            out.append((path, real))
    return out


def _hg_mappings(pid, wanted):
    """Of the mappings of process PID whose start addresses are in
    WANTED, those whose VmFlags have "hg" (MADV_HUGEPAGE)."""
    out, cur = set(), None
    try:
        with open("/proc/%d/smaps" % pid, encoding="utf-8",
                  errors="surrogateescape", newline="\n") as f:
            for line in f:
                k = line.split(None, 1)[0] if line.strip() else ""
                if "-" in k and not k.endswith(":"):
                    a = int(k.split("-")[0], 16)
                    cur = a if a in wanted else None
                elif cur is not None and k == "VmFlags:" \
                        and " hg" in line:
                    out.add(cur)
    except OSError:
        pass
    return out


def _thp_candidates(pid, seen):
    """The executable file mappings of process PID at addresses
    congruent to their file offsets modulo 2 MiB, over at least one
    whole 2 MiB, of files not in SEEN ({(device, inode)}): {start:
    (end, (device, inode), path)}; and the starts of those marked
    MADV_HUGEPAGE.  A mapped file's name is any bytes but a newline:
    kept as they are (surrogateescape)."""
    cands = {}
    with open("/proc/%d/maps" % pid, encoding="utf-8",
              errors="surrogateescape", newline="\n") as f:
        for line in f:
            w = line.split(None, 5)
            if len(w) < 6 or w[1] != "r-xp" or w[4] == "0" \
                    or not w[5].startswith("/"):
                continue
            a, b = (int(x, 16) for x in w[0].split("-"))
            off = int(w[2], 16)
            key = (w[3], w[4])
            if (a - off) % HUGE or key in seen \
                    or (b & -HUGE) - ((a + HUGE - 1) & -HUGE) < HUGE:
                continue
            cands[a] = (b, key, w[5].rstrip("\n"))
    return cands, (_hg_mappings(pid, cands) if cands else set())


def mapped_files():
    """[(path, /proc/PID/map_files/...)] of the objects running processes
    map executable and MADV_HUGEPAGE at an address congruent to the file
    offset modulo 2 MiB, over at least one whole 2 MiB (thp zones),
    once per file.  Only root can open map_files: [] for anyone
    else."""
    if os.geteuid() != 0:
        return []
    out, seen = [], set()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        pid = int(d)
        try:
            cands, hg = within(pid, lambda: _thp_candidates(pid, seen))
        except (Error, OSError):
            # Gone, not readable, or no answer in time: left out (its
            # objects are looked at by the next run).
            continue
        for a in sorted(hg):
            b, key, path = cands[a]
            if key in seen:
                continue
            seen.add(key)
            if path.endswith(" (deleted)"):
                continue
            out.append((path, "/proc/%d/map_files/%x-%x" % (pid, a, b)))
    return out


def targets(args):
    """[(name, path to open)] of the objects to look at."""
    if args.files:
        return [(f, f) for f in args.files]
    out, seen = [], set()
    for name, p in policy_files() + mapped_files():
        try:
            st = os.stat(p)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            out.append((name, p))
    return out


def describe(r):
    """One line for hugeld-thp's record R."""
    name = shown(r["file"])
    if "error" in r:
        return "%s: %s" % (name, shown(r["error"]))
    if r["ranges"] == 0:
        return "%s: no 2 MiB range the thp backing maps from the file" % (
            name)
    parts = ["%d on 2 MiB folios" % r["huge"]]
    done = [x for x in (
        "%d repaired" % r["repaired"] if r["repaired"] else "",
        "%d collapsed" % r["collapsed"] if r["collapsed"] else "") if x]
    if done:
        parts[0] += " (%s)" % ", ".join(done)
    if r["small"]:
        parts.append("%d in small folios" % r["small"])
    if r["held"]:
        parts.append("%d in small folios another process maps" % r["held"])
    if r["not_cached"]:
        parts.append("%d not cached (read as 2 MiB folios on first use)"
                     % r["not_cached"])
    if r["failed"]:
        parts.append("%d read again in small folios" % r["failed"])
    line = "%s: %s of the thp backing's 2 MiB ranges: %s" % (
        name, r["ranges"], ", ".join(parts))
    if r["why"]:
        line += " (%s)" % shown(r["why"])
    return line


def cmd_thp(args):
    if args.thp_cmd is None:
        raise Error("thp: give a command: status or repair (try --help)")
    if os.geteuid() != 0:
        raise Error("thp %s: needs root (the page cache is asked with "
                    "mincore, which tells only root and a file's owner or "
                    "writer what it holds)" % args.thp_cmd)
    repair = args.thp_cmd == "repair"
    files = targets(args)
    if not files and not args.files and not args.quiet:
        print("hugeld: no object to look at: none given, none the policy "
              "file selects for the thp backing, none mapped with it now")
    res = survey(files, repair)
    if args.json:
        json.dump({"files": res}, sys.stdout, indent=1)
        print()
    else:
        for r in res:
            if args.quiet and "error" not in r and not (
                    r["repaired"] or r["collapsed"] or r["failed"]):
                continue
            print(describe(r))
    failed = [r for r in res if "error" in r]
    for r in failed:
        if args.json:
            warn("%s: %s" % (r["file"], r["error"]))
    return 1 if failed and args.files else 0

