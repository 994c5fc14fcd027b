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

"""The collector of status --all: every process with huge pages of any
kind (each a records.Process without the details), and the node: the
pool, the shared cache (what it holds, who maps it, what sharing
saves) and the policy file as ld.so finds it, as a records.Node."""

import os
import re

from ..cache.entry import mapped_entries, scan
from ..cache.mount import open_cache
from ..cache.upkeep import cache_summary, scan_states
from ..common import Error
from ..planner import conf_file
from ..policy import read_conf
from ..pool import pool_info
from ..procfs import command_of, kernel_thread
from .collect import process_status_within, within
from .records import EntryUse, Failed, Node, PolicyState, Sharing


def huge_kinds(pid):
    """Whether process PID may have huge pages: (hugetlb kB, page-cache
    PMD kB) from /proc/PID/status and smaps_rollup, cheap first looks;
    None if they cannot be read (another user's process)."""
    try:
        with open("/proc/%d/status" % pid, errors="surrogateescape") as f:
            txt = f.read()
    except OSError:
        return None
    m = re.search(r"^HugetlbPages:\s+(\d+) kB", txt, re.M)
    hugetlb = int(m.group(1)) if m else 0
    if hugetlb:
        # Listed whatever else it has: smaps_rollup, which walks the
        # whole address space, is not read.
        return hugetlb, 0
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            txt = f.read()
    except OSError:
        return None
    m = re.search(r"^FilePmdMapped:\s+(\d+) kB", txt, re.M)
    return hugetlb, int(m.group(1)) if m else 0


def one_process(pid, cache, ldso):
    """Process PID for status --all: its records.Process (None if it has
    nothing on huge pages), "unreadable" or a Failed."""
    # smaps_rollup waits for the process's memory map, as the rest.
    try:
        kinds = within(pid, lambda: huge_kinds(pid))
    except Error as e:
        return Failed(pid=pid, command=command_of(pid), error=str(e))
    if kinds is None:
        return "unreadable" if os.path.exists("/proc/%d" % pid) else None
    if kinds == (0, 0):
        return None
    try:
        p = process_status_within(pid, cache, ldso, detail=False)
    except Error as e:
        if "permission denied" in str(e):
            return "unreadable"
        if "does not exist" not in str(e):
            return Failed(pid=pid, command=command_of(pid), error=str(e))
        return None
    if p.pages > 0 or p.thp_kb > 0 or p.objects or p.other_ranges:
        return p
    return None


def collect_all(cache, ldso):
    """Every process with huge pages of any kind (hugetlb: private,
    shared from the cache, other memory; page-cache huge pages mapped
    with PMDs), its status without the per-object details; how many
    could not be read, and those that did not answer in time (a line
    each, never left out in silence)."""
    procs, failed, unreadable = [], [], 0
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me or kernel_thread(int(d)):
            continue
        got = one_process(int(d), cache, ldso)
        if got == "unreadable":
            unreadable += 1
        elif isinstance(got, Failed):
            failed.append(got)
        elif got is not None:
            procs.append(got)
    procs.sort(key=lambda p: p.pid)
    return procs, unreadable, failed


def sharing(procs):
    """What the shared cache holds and saves on this node: per entry its
    file, pages and the processes mapping it, and the pages sharing
    saves (each process beyond the first would hold its own copy of the
    zones it maps)."""
    zones = {}
    for p in procs:
        for f, n in p.shared_files.items():
            z = zones.setdefault(f, {"pages": n, "processes": 0})
            z["pages"] = max(z["pages"], n)
            z["processes"] += 1
    saved = sum(z["pages"] * (z["processes"] - 1) for z in zones.values())
    entries = []
    try:
        got = scan_states()
    except Error:
        got = None
    if got is not None:
        os.close(got[0])
        users = mapped_entries()
        entries = [EntryUse(file=e.source, path=e.path, state=e.state,
                            pages=e.pages, processes=users.get(e.path, 0))
                   for e in got[1] if not e.tmp]
    return Sharing(entries=entries, saved_pages=saved,
                   idle_pages=sum(e.pages for e in entries
                                  if not e.processes))


def policy_state(path=None):
    """The policy file (PATH, default ld.so's) as ld.so finds it now:
    absent, used, ignored (not trusted, or a global line does not
    parse), or partly (a line of a program's block does not parse: the
    file gives those programs nothing), and why: a file ld.so ignores
    turns hugeld off everywhere it would have selected something, and
    an operator looks here, not at each program."""
    path = path or conf_file()
    try:
        c = read_conf(path)
    except Error as e:
        return PolicyState(file=path, state="ignored", why=str(e))
    if c is None:
        return PolicyState(file=path, state="absent", why=None)
    if not c["trusted"]:
        return PolicyState(file=path, state="ignored",
                           why=c["untrusted_why"])
    # The first line that costs ld.so something (a cache or pool line is
    # hugeld cache sync's).
    bad = [e for e in c["errors"] if not e["cache"]]
    void = [e for e in bad if e["block"] is None]
    for e in void or bad:
        return PolicyState(file=path, state="ignored" if void else "partly",
                           why="line %d: %s (%s)" % (e["line"], e["message"],
                                                     e["cost"]))
    return PolicyState(file=path, state="used", why=None)


def cache_pages():
    """The huge pages the shared cache holds (0 if there is none or it
    cannot be read)."""
    try:
        top = open_cache()
    except Exception:
        return 0
    if top is None:
        return 0
    try:
        return sum(e.pages for e in scan(top)[0])
    except OSError:
        return 0
    finally:
        os.close(top)


def node_status(cache, ldso):
    """The records.Node of status --all."""
    procs, unreadable, failed = collect_all(cache, ldso)
    pool = pool_info()
    # Pages of the shared cache are the same in every process that maps
    # them (and do not come from the pool per process): counted once.
    shared = {}
    for p in procs:
        for f, n in p.shared_files.items():
            shared[f] = max(shared.get(f, 0), n)
    total = sum(p.pages - p.shared_pages for p in procs) \
        + sum(shared.values())
    return Node(processes=procs, pages=total, pool=pool,
                shared_pages=sum(shared.values()), cache_pages=cache_pages(),
                thp_kb=sum(p.thp_kb for p in procs), unreadable=unreadable,
                failed=failed, cache=cache_summary(), node=sharing(procs),
                policy=policy_state())
