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

"""hugeld cache: the shared cache of read-only zones on hugetlbfs that
ld.so maps MAP_SHARED (LD_HUGEPAGE_BACKING=shared).

An entry is published by rename(2) of a complete directory, so ld.so
(and `cache list') never sees a half-filled one; two adds of the same
file at once both build one, and the second to finish finds the first's
and drops its own.  Only root adds: ld.so trusts nothing another user
could have written (cachemount.py, elf/dl-hugepage-back.c)."""

import json
import os
import sys

from . import cachedir, cachemount
from .cachebuild import add_one, kinds_text
from .cachemount import CACHE_DIR
from .common import Error, UsageError, mib, plural, table
from .planner import helper_objects


def need_root(what):
    if os.geteuid() != 0:
        raise Error("cache %s needs root: ld.so trusts only a cache that "
                    "root made" % what)


def say_error(msg):
    print("hugeld: %s" % msg, file=sys.stderr)


def cache_add(args):
    need_root("add")
    top = cachemount.open_cache(create=True)
    failed = False
    try:
        for name, (o, err) in zip(args.files, helper_objects(
                cachedir.PLAN_ARGS, args.files)):
            try:
                if o is None:
                    raise Error("%s: not cached: %s" % (name, err))
                print(add_one(top, name, o))
            except Error as e:
                say_error(str(e))
                failed = True
            sys.stdout.flush()
    finally:
        os.close(top)
    return 1 if failed else 0


def scan_states():
    """(descriptor of the cache directory, entries with their state,
    empty inode directories), or None if there is no cache."""
    top = cachemount.open_cache()
    if top is None:
        return None
    try:
        entries, empty = cachedir.scan(top)
    except OSError as e:
        os.close(top)
        raise Error("cannot read %s: %s" % (CACHE_DIR, e.strerror))
    return top, cachedir.states(entries, helper_objects), empty


def summarize_entries(entries):
    """{"entries", "pages", "stale", "stale_pages"} of ENTRIES (with
    their states): stale are those ld.so does not use any more (file
    changed or gone, untrusted, left over by a crash), which only hold
    pages until cache sync (or prune) removes them."""
    stale = [e for e in entries if e.state not in cachedir.KEEP]
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


def cache_list(args):
    got = scan_states()
    if got is None:
        if args.json:
            print(json.dumps({"dir": CACHE_DIR, "entries": [], "pages": 0}))
        else:
            print("no cache at %s" % CACHE_DIR)
        return 0
    top, entries, _ = got
    os.close(top)
    total = sum(e.pages for e in entries)
    sm = summarize_entries(entries)
    if args.json:
        json.dump({"dir": CACHE_DIR, "pages": total, "stale": sm["stale"],
                   "stale_pages": sm["stale_pages"], "entries": [
            {"path": e.path, "source": e.source, "state": e.state,
             "stale": e.state not in cachedir.KEEP,
             "pages": e.pages, "zones": e.kinds()} for e in entries]},
                  sys.stdout, indent=1)
        print()
        return 0
    rows = [("SOURCE", "STATE", "PAGES", "ZONES")]
    for e in entries:
        rows.append((e.source if e.source and not e.tmp else "(%s)" % e.path,
                     e.state, str(e.pages), kinds_text(e.kinds())))
    if len(rows) > 1:
        for line in table(rows, right={2}):
            print(line)
        print()
    print("%s (%s) held by the cache, out of the pool until removed"
          % (plural(total, "huge page"), mib(total)))
    if sm["stale"]:
        print("%s, ld.so no longer uses: %s; hugeld cache sync (or prune) "
              "frees them" % (plural(sm["stale"], "stale entry",
                                     "stale entries"),
                              plural(sm["stale_pages"], "huge page")))
    return 0


def report_removed(removed, users):
    """Print what was removed ([(what, Entry)]) and the pages freed."""
    total = sum(e.pages for _, e in removed)
    still = sum(e.pages for _, e in removed if users.get(e.path))
    for what, e in removed:
        n = users.get(e.path, 0)
        print("removed %s: %s%s" % (what, plural(e.pages, "huge page"),
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
    users = cachedir.mapped_entries()
    done = []
    for what, e in pick:
        try:
            cachedir.remove_entry(top, e)
            done.append((what, e))
        except OSError as x:
            say_error("cannot remove %s: %s" % (e.path, x.strerror))
    for i in sorted(set(empty) | {e.inode for _, e in done if e.inode}):
        cachedir.remove_empty_inode(top, i)
    if done or not pick:
        report_removed(done, users)
    return 0 if len(done) == len(pick) else 1


def cache_prune(args):
    need_root("prune")
    got = scan_states()
    if got is None:
        print("no cache at %s" % CACHE_DIR)
        return 0
    top, entries, empty = got
    try:
        pick = [("%s (%s)" % (e.source if e.source and not e.tmp
                              else e.path, e.state), e)
                for e in entries if e.state not in cachedir.KEEP]
        if not pick:
            for i in empty:
                cachedir.remove_empty_inode(top, i)
            print("nothing to remove: %s" % (
                "every entry is current" if entries else "the cache is empty"))
            return 0
        return remove_all(top, pick, empty)
    finally:
        os.close(top)


def cache_remove(args):
    need_root("remove")
    top = cachemount.open_cache()
    if top is None:
        raise Error("no cache at %s" % CACHE_DIR)
    try:
        entries, empty = cachedir.scan(top)
        plans = helper_objects(["--cache"], args.files)
        pick, missing = [], []
        for name, (o, _) in zip(args.files, plans):
            real = os.path.realpath(name)
            inode = o["cache"]["inode"] if o is not None else None
            mine = [e for e in entries if (inode and e.inode == inode)
                    or (e.source == real and not e.tmp)]
            if not mine:
                missing.append(name)
            for e in mine:
                entries.remove(e)
                pick.append(("%s (%s)" % (name, e.name if e.tmp
                                          else "entry %s" % e.name[:16]), e))
        rc = remove_all(top, pick, empty)
    finally:
        os.close(top)
    for name in missing:
        say_error("%s: not in the cache" % name)
    return 1 if missing else rc


def cache_clear(args):
    need_root("clear")
    top = cachemount.open_cache()
    if top is None:
        print("no cache at %s" % CACHE_DIR)
        return 0
    try:
        entries, empty = cachedir.scan(top)
        users = cachedir.mapped_entries()
        failed = False
        for name in os.listdir(top):
            try:
                cachedir.remove_name(top, name)
            except OSError as x:
                say_error("cannot remove %s/%s: %s" % (CACHE_DIR, name,
                                                      x.strerror))
                failed = True
    finally:
        os.close(top)
    total = sum(e.pages for e in entries)
    still = sum(e.pages for e in entries if users.get(e.path))
    print("removed %s: %s (%s) freed" % (
        plural(len([e for e in entries if not e.tmp]), "entry", "entries"),
        plural(total, "huge page"), mib(total)))
    if still:
        print("(%s of them return to the pool only when the processes that "
              "map them exit)" % plural(still, "page"))
    return 1 if failed else 0


def cache_sync(args):
    from .sync import cache_sync as sync
    return sync(args)


COMMANDS = {"add": cache_add, "list": cache_list, "prune": cache_prune,
            "remove": cache_remove, "clear": cache_clear, "sync": cache_sync}


def cmd_cache(args):
    if args.cache_cmd is None:
        raise UsageError("hugeld cache: give a command: add, list, prune, "
                         "remove, clear, sync")
    return COMMANDS[args.cache_cmd](args)
