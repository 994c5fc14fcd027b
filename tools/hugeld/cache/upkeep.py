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

"""What the cache commands (cache, cache sync) and status share: the
root check, the entries with their states, and removing them."""

import os
import sys

from ..common import Error, mib, plural, shown
from ..planner import cache_dir, helper_objects
from . import entry, mount


def need_root(what):
    if os.geteuid() != 0:
        raise Error("cache %s needs root: ld.so trusts only a cache that "
                    "root made" % what)


def say_error(msg):
    # One line: a path in it may hold a newline.
    print("hugeld: %s" % shown(msg), file=sys.stderr)


def scan_states():
    """(descriptor of the cache directory, entries with their state,
    empty inode directories), or None if there is no cache."""
    top = mount.open_cache()
    if top is None:
        return None
    try:
        entries, empty = entry.scan(top)
    except OSError as e:
        os.close(top)
        raise Error("cannot read %s: %s" % (cache_dir(), e.strerror))
    return top, entry.states(entries, helper_objects), empty


def summarize_entries(entries):
    """{"entries", "pages", "stale", "stale_pages"} of ENTRIES (with
    their states): stale are those ld.so does not use any more (file
    changed or gone, untrusted, left over by a crash), which only hold
    pages until cache sync (or prune) removes them."""
    stale = [e for e in entries if e.state not in entry.KEEP]
    return {"entries": len([e for e in entries if not e.tmp]),
            "pages": sum(e.pages for e in entries), "stale": len(stale),
            "stale_pages": sum(e.pages for e in stale),
            "unopened": ["%s: %s" % (e.source, e.state[len("missing: "):])
                         for e in stale if e.state.startswith("missing: ")
                         and e.state not in ("missing: file gone",
                                             "missing: no source recorded")]}


def cache_summary():
    """summarize_entries of the shared cache, or None if there is none;
    {"error": why} if it cannot be read."""
    try:
        got = scan_states()
    except Error as e:
        return {"error": str(e)}
    if got is None:
        return None
    os.close(got[0])
    return summarize_entries(got[1])


def report_removed(removed, users):
    """Print what was removed ([(what, Entry)]) and the pages freed."""
    total = sum(e.pages for _, e in removed)
    still = sum(e.pages for _, e in removed if users.get(e.path))
    for what, e in removed:
        n = users.get(e.path, 0)
        print("removed %s: %s%s" % (shown(what),
                                    plural(e.pages, "huge page"),
                                    ", still mapped by %s" % plural(
                                        n, "process", "processes")
                                    if n else ""))
    print("freed %s (%s)" % (plural(total, "huge page"), mib(total)))
    if still:
        print("(%s of them return to the pool only when the processes that "
              "map them exit)" % plural(still, "page"))


def remove_all(top, pick, empty):
    """Remove the entries PICK [(what, Entry)] and the inode directories
    that are left empty; report."""
    users = entry.mapped_entries()
    done = []
    for what, e in pick:
        try:
            entry.remove_entry(top, e)
            done.append((what, e))
        except OSError as x:
            say_error("cannot remove %s: %s" % (e.path, x.strerror))
    for i in sorted(set(empty) | {e.inode for _, e in done if e.inode}):
        entry.remove_empty_inode(top, i)
    if done or not pick:
        report_removed(done, users)
    return 0 if len(done) == len(pick) else 1
