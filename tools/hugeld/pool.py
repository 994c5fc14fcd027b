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

"""The huge page pool: reading it and growing it (plan --apply)."""

import os
import re

from .common import Error, HUGE, SYSFS_HUGE, SYSFS_NODES
from .planner import run_helper


def read_int(path):
    with open(path) as f:
        return int(f.read().split()[0])


def pool_info():
    """The 2 MiB pool (HugePages_Total/Free/Rsvd/Surp for 2 MiB pages),
    overall and per NUMA node, or None without hugetlb support."""
    if not os.path.isdir(SYSFS_HUGE):
        return None
    try:
        p = {"page_size": HUGE,
             "total": read_int(SYSFS_HUGE + "/nr_hugepages"),
             "free": read_int(SYSFS_HUGE + "/free_hugepages"),
             "reserved": read_int(SYSFS_HUGE + "/resv_hugepages"),
             "surplus": read_int(SYSFS_HUGE + "/surplus_hugepages")}
    except (OSError, ValueError, IndexError):
        return None
    p["in_use"] = p["total"] - p["free"]
    p["available"] = p["free"] - p["reserved"]
    nodes = []
    try:
        names = sorted((n for n in os.listdir(SYSFS_NODES)
                        if re.match(r"node[0-9]+$", n)),
                       key=lambda n: int(n[4:]))
    except OSError:
        names = []
    for n in names:
        d = os.path.join(SYSFS_NODES, n, "hugepages/hugepages-2048kB")
        try:
            nodes.append({"node": int(n[4:]),
                          "total": read_int(d + "/nr_hugepages"),
                          "free": read_int(d + "/free_hugepages"),
                          "surplus": read_int(d + "/surplus_hugepages")})
        except (OSError, ValueError, IndexError):
            pass
    p["nodes"] = nodes
    return p


def hugetlb_cgroup_none(pid="self"):
    """The limit file (and its value) that lets process PID's hugetlb
    cgroup, or one above it, have no 2 MiB page, as ld.so finds it (the
    helper walks the cgroups with ld.so's own code); None if there is
    none or it cannot be read."""
    try:
        return run_helper(["--cgroup-none", str(pid)])
    except Error:
        return None


def pool_line(p):
    if p is None:
        return "no 2 MiB huge page support in this kernel"
    s = ("HugePages_Total %d, Free %d, Rsvd %d, Surp %d: %d in use, "
         "%d available" % (p["total"], p["free"], p["reserved"],
                            p["surplus"], p["in_use"], p["available"]))
    if len(p["nodes"]) > 1:
        s += "; " + ", ".join("node%d %d/%d free" % (n["node"], n["free"],
                                                     n["total"])
                              for n in p["nodes"])
    return s


def write_sysfs(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


def apply_pool(need, nodes):
    """Make NEED huge pages available (in the whole pool, or on each of
    NODES) by growing nr_hugepages; never shrinks it.  All or nothing:
    if the kernel cannot find the pages, the old sizes are put back."""
    pool = pool_info()
    plans = []
    if nodes is None:
        avail = pool["available"]
        old = pool["total"]
        new = old + max(0, need - avail)
        plans.append({"node": None, "file": SYSFS_HUGE + "/nr_hugepages",
                      "old": old, "new": new, "available": avail})
    else:
        for n in nodes:
            info = [x for x in pool["nodes"] if x["node"] == n][0]
            # Reservations are not counted per node; take them off the
            # free pages of every node, to be safe.
            avail = info["free"] - pool["reserved"]
            old = info["total"]
            new = old + max(0, need - avail)
            plans.append({"node": n, "file": os.path.join(
                SYSFS_NODES, "node%d" % n,
                "hugepages/hugepages-2048kB/nr_hugepages"),
                "old": old, "new": new, "available": avail})
    done = []
    try:
        for p in plans:
            if p["new"] == p["old"]:
                continue
            done.append(p)
            try:
                write_sysfs(p["file"], p["new"])
                got = read_int(p["file"])
            except OSError as e:
                raise Error("cannot write %s: %s" % (p["file"], e.strerror))
            if got < p["new"]:
                raise Error("the kernel found only %d of the %d huge pages "
                            "asked for%s (memory too fragmented or too "
                            "small); the pool is left as it was" % (
                                got, p["new"], "" if p["node"] is None
                                else " on node %d" % p["node"]))
    except Error:
        for p in reversed(done):
            try:
                write_sysfs(p["file"], p["old"])
            except OSError:
                pass
        raise
    return plans
