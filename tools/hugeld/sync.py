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

"""hugeld cache sync: make the shared cache what /etc/hugeld.conf
declares.  Run at boot (the cache lives in memory), after every package
change under the library directories (dpkg trigger), or by hand.

Safe to repeat (a second run changes nothing) and to run twice at once
(an exclusive flock on SYNC_LOCK: the second waits, then finds nothing
to do).  Processes that map an entry it replaces or removes keep their
pages until they exit: removing an entry only unlinks its files.  A
file that ld.so would ignore (untrusted, a bad line) changes nothing."""

import fcntl
import glob
import os
import stat
import sys

from . import cachedir
from .cache import add_one, need_root, remove_all, say_error
from .cachedir import CACHE_DIR
from .common import Error, HUGE, mib, plural
from .config import conf_problems, read_conf
from .planner import helper_objects, plan_each
from .pool import apply_pool, pool_info

SYNC_LOCK = "/run/hugeld-sync.lock"

# pool auto: the pages the declared entries hold, plus this share and
# this many pages for what processes still copy (relro, data, objects
# not in the cache) and for new versions made before old ones go.
AUTO_MARGIN = 0.10
AUTO_EXTRA = 8


def declared_files(conf):
    """The files the cache lines of CONF name: {real path: pattern}, and
    the patterns that named no file."""
    files, empty = {}, []
    for c in conf["cache"]:
        pat = c["pattern"]
        hits = sorted(glob.glob(pat)) if glob.has_magic(pat) else [pat]
        found = False
        for h in hits:
            real = os.path.realpath(h)
            try:
                st = os.stat(real)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                files.setdefault(real, pat)
                found = True
        if not found:
            empty.append(pat)
    return files, empty


def entry_pages(o):
    return sum(z["size"] for z in o["cache"]["zones"]) // HUGE


def reserve(conf, need_now, total_declared, dry_run):
    """Grow the pool (never shrink it) for `pool N' or `pool auto'."""
    p = pool_info()
    if p is None:
        raise Error("this kernel has no 2 MiB huge pages")
    want = conf["pool"]["value"] if conf["pool"] else "auto"
    if want == "auto":
        target = total_declared + int(total_declared * AUTO_MARGIN) \
            + AUTO_EXTRA
        what = "auto: %s declared + margin" % plural(total_declared,
                                                     "page")
    else:
        target = want
        what = "pool %d (line %d)" % (want, conf["pool"]["line"])
    grow = max(target - p["total"], need_now - p["available"], 0)
    if grow == 0:
        print("pool: %d huge pages, enough (%s)" % (p["total"], what))
        return
    if dry_run:
        print("pool: would grow from %d to %d huge pages (%s)"
              % (p["total"], p["total"] + grow, what))
        return
    apply_pool(p["available"] + grow, None)
    print("pool: grown from %d to %d huge pages (%s)"
          % (p["total"], pool_info()["total"], what))


def sync(conf, reserve_pool, dry_run):
    files, empty = declared_files(conf)
    for pat in empty:
        say_error("warning: cache %s: no such file" % pat)
    plans = dict(zip(sorted(files), helper_objects(["--cache"],
                                                   sorted(files))))
    top = cachedir.open_cache(create=not dry_run)
    entries = []
    if top is not None:
        entries = cachedir.states(cachedir.scan(top)[0], plan_each)
    try:
        # What is there and current, by source.
        current = {e.source for e in entries
                   if e.state == cachedir.CURRENT and e.source in files}
        todo = [f for f in sorted(files) if f not in current]
        for f in todo:
            if plans[f][0] is None:
                say_error("%s: not cached: %s" % (f, plans[f][1]))
        todo = [f for f in todo if plans[f][0] is not None]
        if reserve_pool:
            total = sum(entry_pages(plans[f][0]) for f in files
                        if plans[f][0] is not None)
            reserve(conf, sum(entry_pages(plans[f][0]) for f in todo),
                    total, dry_run)
        failed = False
        for f in todo:
            if dry_run:
                print("would add %s: %s" % (f, plural(
                    entry_pages(plans[f][0]), "huge page")))
                continue
            try:
                print(add_one(top, f, plans[f][0]))
            except Error as e:
                say_error(str(e))
                failed = True
            sys.stdout.flush()

        # Then what is not current or not declared any more.
        if top is not None:
            entries, emptydirs = cachedir.scan(top)
            entries = cachedir.states(entries, plan_each)
        else:
            emptydirs = []
        pick = [("%s (%s)" % (e.source if e.source and not e.tmp
                              else e.path,
                              e.state if e.state not in cachedir.KEEP
                              else "not declared"), e)
                for e in entries
                if not (e.state == cachedir.BUSY)
                and (e.state not in cachedir.KEEP or e.source not in files)]
        if dry_run:
            for what, e in pick:
                print("would remove %s: %s" % (what, plural(e.pages,
                                                             "huge page")))
        elif pick:
            if remove_all(top, pick, emptydirs) != 0:
                failed = True
        elif top is not None:
            for i in emptydirs:
                cachedir.remove_empty_inode(top, i)
        if not todo and not pick:
            held = sum(e.pages for e in entries)
            print("nothing to do: %s current, %s (%s)" % (
                plural(len(current), "declared entry", "declared entries"),
                plural(held, "huge page"), mib(held)))
        return 1 if failed else 0
    finally:
        if top is not None:
            os.close(top)


def cache_sync(args):
    need_root("sync")
    conf = read_conf(args.file)
    if conf is None:
        raise Error("%s: no such file: nothing is declared" % args.file)
    problems = conf_problems(conf)
    if problems:
        for p in problems:
            say_error(p)
        raise Error("%s: ld.so would ignore it; the cache is left as it "
                    "is (hugeld config check)" % args.file)
    os.makedirs(os.path.dirname(SYNC_LOCK), exist_ok=True)
    fd = os.open(SYNC_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC |
                 os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return sync(conf, args.reserve_pool, args.dry_run)
    finally:
        os.close(fd)
