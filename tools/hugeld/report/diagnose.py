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

"""Why: what status, check and gdb say of a process's records (collect)
beyond what the kernel gave.  Each reason is a fact of the process or
the machine as it can be seen now, or a condition saying what it
depends on, never a guess; the order is the order in which ld.so would
have stopped at them."""

import os
import re

from ..common import plural
from .records import Unserved


def kernel_moves_hugetlb():
    """Whether the running kernel can move hugetlb mappings (mremap,
    Linux 5.16), which the private copy needs; judged by its release,
    as a hint only (ld.so tries it)."""
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return m is None or (int(m.group(1)), int(m.group(2))) >= (5, 16)


def _thp_reasons(p, x, order):
    """What kept thp, where LD_HUGEPAGE_BACKING lists it (ORDER), from
    serving object X of process P."""
    t = x.text
    if "thp" in order and t.incongruent and not t.size:
        return ["its text is at an address not congruent to its file "
                "offset modulo 2 MiB, where no page-cache huge page can "
                "map it (thp): %s" % (
                    "the kernel chose the program's address (started "
                    "directly): run it as ld.so PROG (hugeld run) for "
                    "ld.so to place it" if x.kernel_mapped else
                    "placed for the most huge pages: list thp first in "
                    "LD_HUGEPAGE_BACKING to place it for thp")]
    if "thp" in order and p.thp_mode == "never":
        return ["transparent huge pages are off (/sys/kernel/mm/"
                "transparent_hugepage/enabled is never)"]
    return []


def _pool_reason(p, pool, n, planned):
    """What kept the pool's pages (N of them, PLANNED) from process P,
    POOL the pool now."""
    if p.hugetlb_cgroup_none:
        return ("its plan has %s, but its hugetlb cgroup allows no huge "
                "page" % n)
    if p.cache_not_synced:
        return ("its plan has %s, but the policy file declares a shared "
                "cache and no hugeld cache sync has run in this boot: "
                "until then ld.so keeps the pool for the cache and makes "
                "no private copy" % n)
    if not kernel_moves_hugetlb():
        return ("its plan has %s, but this kernel (%s) cannot move huge "
                "page mappings (Linux 5.16 or later): no private copy"
                % (n, os.uname().release))
    if pool is not None and pool["available"] < planned:
        return ("its plan has %s, and the pool has %s free now: if it had "
                "none when the object was loaded, ld.so got no page (a "
                "short pool goes to text first)" % (
                    n, plural(max(pool["available"], 0), "page")))
    if p.seccomp_filter:
        return ("its plan has %s; the process runs under a seccomp filter: "
                "if it refuses to make written memory executable "
                "(systemd's MemoryDenyWriteExecute= does), no private copy "
                "of code is made and only the shared cache serves text" % n)
    return ("its plan has %s, and the pool has room for them now: "
            "LD_DEBUG=hugepages (hugeld run --debug) says what ld.so met "
            "when it loaded the object" % n)


def no_huge_pages_reason(p, pool, x, planned=None):
    """Why object X (Unserved, or Selected) of process P (a
    records.Process) has no huge page, or of PLANNED of them (default
    its plan's) none of its text, POOL the pool now: lines of text."""
    order = p.backings or []
    planned = x.planned_pages if planned is None else planned
    n = plural(planned, "page")
    if planned == 0:
        return ["none of its parts fills a whole 2 MiB page (hugeld plan "
                "-v tells why)"]
    if not p.hugeld:
        return ["its plan has %s, but this process's loader is not hugeld "
                "and ignores the selection%s" % (
                    n, "; its page-cache huge pages are the kernel's own"
                    if x.thp else "")]
    if any(u.path == x.path for u in p.cache_unused or ()):
        return ["its plan has %s, and the shared cache's entry was current "
                "when it started: see the note above" % n]
    if isinstance(x, Unserved) and x.cached_since_start:
        return ["its plan has %s, and the shared cache serves it now, but "
                "its entry was made after this process started: a restart "
                "maps the cache's pages" % n]
    # What kept the pool's pages from it (where a backing takes them),
    # then what kept thp, the backing after it, from serving it.
    thp_why = _thp_reasons(p, x, order)
    if "private" not in order:
        return thp_why or [
            "its plan has %s, but LD_HUGEPAGE_BACKING %s takes nothing from "
            "the pool%s" % (n, ",".join(order),
                            "" if "shared" not in order
                            else " and the shared cache has no entry for it")]
    return [_pool_reason(p, pool, n, planned)] + \
        ["then thp: " + w for w in thp_why]


def short_text(p):
    """The selected objects of process P with huge pages of some kind
    but not all their text (Selected, those without any excepted)."""
    without = {x.path for x in p.selected_without_huge_pages}
    return [x for x in p.selected
            if x.path not in without and x.huge < x.whole and p.hugeld]


def failures(p, pool):
    """The selected objects of process P whose whole 2 MiB pages of text
    are not all on huge pages, each with why (POOL: the pool now):
    [(path, line)]: hugeld check."""
    out = []
    without = {x.path: x for x in p.selected_without_huge_pages}
    for x in p.selected:
        if x.huge >= x.whole:
            continue
        why = "text on %d of its %s" % (x.huge, plural(x.whole, "huge page"))
        if x.path in without:
            why += ": " + no_huge_pages_reason(p, pool, without[x.path])[0]
        elif x.huge == 0:
            # Huge pages of other kinds, none of text.
            why += ": " + no_huge_pages_reason(p, pool, x, x.whole)[0]
        else:
            why += ": the rest stayed on ordinary pages (the pool had too " \
                "few pages when it was loaded%s; LD_DEBUG=hugepages says)" % (
                    ", and has %d free now" % max(pool["available"], 0)
                    if pool else "")
        out.append((x.path, why))
    return out


def nothing_selected(p):
    """Why process P has no selected object (hugeld check)."""
    return "its loader is not hugeld" if not p.hugeld \
        else "the settings select none of its objects"


def shared_code(p):
    """The file names of the objects of process P that run code from the
    shared cache: a software breakpoint there needs a spare huge page
    for the process's own copy of that 2 MiB page (hugeld gdb)."""
    return [os.path.basename(o.path) for o in p.objects
            if any(r.backing == "shared" and "x" in r.perms
                   for r in o.ranges)]
