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
could have written (cache/mount.py, elf/dl-hugepage-back.c)."""

import json
import os
import sys

from ..cache import entry, mount
from ..cache.build import add_one, kinds_text
from ..cache.sync import cache_sync
from ..cache.upkeep import (need_root, remove_all, say_error, scan_states,
                            summarize_entries)
from ..common import AUTO_EXTRA, AUTO_MARGIN_PERCENT, Error, UsageError, mib, plural, shown, table
from ..planner import cache_dir, helper_objects
from ..registry import Command, argument, flag, value


def cache_add(args):
    need_root("add")
    objs = helper_objects(entry.PLAN_ARGS, args.files)
    if all(o is None for o, _ in objs):
        # Nothing to add: not even the mount is made.
        for name, (o, err) in zip(args.files, objs):
            say_error("%s: not cached: %s" % (name, err))
        return 1
    top = mount.open_cache(create=True)
    failed = False
    try:
        for name, (o, err) in zip(args.files, objs):
            try:
                if o is None:
                    raise Error("%s: not cached: %s" % (name, err))
                print(shown(add_one(top, name, o)))
            except Error as e:
                say_error(str(e))
                failed = True
            sys.stdout.flush()
    finally:
        os.close(top)
    return 1 if failed else 0


def cache_list(args):
    got = scan_states()
    if got is None:
        if args.json:
            print(json.dumps({"dir": cache_dir(), "entries": [], "pages": 0}))
        else:
            print("no cache at %s" % cache_dir())
        return 0
    top, entries, _ = got
    os.close(top)
    total = sum(e.pages for e in entries)
    sm = summarize_entries(entries)
    if args.json:
        json.dump({"dir": cache_dir(), "pages": total, "stale": sm["stale"],
                   "stale_pages": sm["stale_pages"], "entries": [
            {"path": e.path, "source": e.source, "state": e.state,
             "stale": e.state not in entry.KEEP,
             "pages": e.pages, "zones": e.kinds()} for e in entries]},
                  sys.stdout, indent=1)
        print()
        return 0
    rows = [("SOURCE", "STATE", "PAGES", "ZONES")]
    for e in entries:
        rows.append((shown(e.source if e.source and not e.tmp
                           else "(%s)" % e.path),
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


def cache_prune(args):
    need_root("prune")
    got = scan_states()
    if got is None:
        print("no cache at %s" % cache_dir())
        return 0
    top, entries, empty = got
    try:
        pick = [("%s (%s)" % (e.source if e.source and not e.tmp
                              else e.path, e.state), e)
                for e in entries if e.state not in entry.KEEP]
        if not pick:
            for i in empty:
                entry.remove_empty_inode(top, i)
            print("nothing to remove: %s" % (
                "every entry is current" if entries else "the cache is empty"))
            return 0
        return remove_all(top, pick, empty)
    finally:
        os.close(top)


def cache_remove(args):
    need_root("remove")
    top = mount.open_cache()
    if top is None:
        raise Error("no cache at %s" % cache_dir())
    try:
        entries, empty = entry.scan(top)
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
        # A file that is not in the cache is an error, and an error
        # changes nothing: the others are not removed either.
        rc = remove_all(top, pick, empty) if not missing else 1
    finally:
        os.close(top)
    for name in missing:
        say_error("%s: not in the cache%s" % (
            name, "; nothing removed" if len(args.files) > 1 else ""))
    return 1 if missing else rc


def cache_clear(args):
    need_root("clear")
    top = mount.open_cache()
    if top is None:
        print("no cache at %s" % cache_dir())
        return 0
    try:
        entries, empty = entry.scan(top)
        users = entry.mapped_entries()
        failed = False
        for name in os.listdir(top):
            try:
                entry.remove_name(top, name)
            except OSError as x:
                say_error("cannot remove %s/%s: %s" % (cache_dir(), name,
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


def no_command(args):
    raise UsageError("hugeld cache: give a command: add, list, prune, "
                     "remove, clear, sync")


COMMAND = Command(
    name="cache", rank=80,
    synopsis=("cache add FILE... | list [--json] | prune | remove FILE... | "
              "clear",
              "cache sync [--file FILE] [--reserve-pool] [--dry-run]"),
    summary="the shared cache on hugetlbfs (root): read-only zones every "
    "process maps from the same huge pages; sync makes it what "
    "/etc/hugeld.conf declares",
    description="The shared cache ({cache_dir} on a hugetlbfs of 2 MiB "
    "pages): the read-only zones (text, rodata) of objects, which "
    "ld.so maps MAP_SHARED when LD_HUGEPAGE_BACKING tries shared: "
    "every process maps the same huge pages, none is copied per "
    "process.  The pages an entry holds are out of the pool until "
    "it is removed.  Root only, except list.",
    epilog="example: hugeld cache add /usr/lib/x86_64-linux-gnu/"
    "libLLVM-14.so.1; hugeld cache list",
    run=no_command, subcommands=(
        Command(name="add", synopsis=("cache add FILE...",),
                summary="put FILEs' read-only zones into the cache",
                description="Put the read-only huge page zones of each FILE "
                "(as ld.so plans them) into the cache, mounting a hugetlbfs "
                "on {mount_dir} first if none is mounted there.  FILE must "
                "be readable by everybody.  Older entries of the same file "
                "are removed.",
                options=(argument("files", "FILE", count="+"),),
                run=cache_add),
        Command(name="list", synopsis=("cache list [--json]",),
                summary="the entries, their states and pages",
                description="Each entry: the file it was made from, its "
                "state (current; stale: file changed; missing: file gone; "
                "orphan .tmp; untrusted), the huge pages it holds and its "
                "zones.",
                options=(flag("--json", help="print JSON"),), run=cache_list),
        Command(name="prune", synopsis=("cache prune",),
                summary="remove every entry that is not current",
                description="Remove every entry that is not current (stale, "
                "missing, untrusted, left over by a crash).",
                run=cache_prune),
        Command(name="remove", synopsis=("cache remove FILE...",),
                summary="remove FILEs' entries",
                description="Remove the entries of each FILE.",
                options=(argument("files", "FILE", count="+"),),
                run=cache_remove),
        Command(name="clear", synopsis=("cache clear",),
                summary="remove every entry",
                description="Remove every entry ({cache_dir} stays, and so "
                "does the mount).", run=cache_clear),
        Command(name="sync", synopsis=("cache sync [--file FILE] "
                                       "[--reserve-pool] [--dry-run]",),
                summary="make the cache what the policy file declares",
                description="Make the cache what the policy file's cache "
                "lines declare: add missing entries, replace stale ones (a "
                "file changed or replaced), remove entries whose files are "
                "gone or no longer declared.  Idempotent; two syncs at once "
                "take turns; processes that map a replaced entry keep its "
                "pages until they exit.  Changes nothing if ld.so would "
                "ignore the file.  Run at boot and after package changes by "
                "the Debian package's unit and trigger.",
                options=(
                    value("--file", metavar="FILE",
                          help="the policy file (default {conf_file})"),
                    flag("--reserve-pool", help="first grow nr_hugepages "
                         "(never shrink it) to the file's `pool N', or for "
                         "`pool auto' to the declared entries' pages plus "
                         "%d%% and %d pages" % (AUTO_MARGIN_PERCENT,
                                                AUTO_EXTRA)),
                    flag("--dry-run", help="say what would change, change "
                         "nothing")),
                run=cache_sync)))
