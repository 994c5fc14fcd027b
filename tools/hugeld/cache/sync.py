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
import os
import sys

from ..common import AUTO_EXTRA, AUTO_MARGIN_PERCENT, Error, HUGE, mib, plural, shown, warn
from ..pathglob import expand_cache
from ..planner import conf_file, helper_objects
from ..policy import conf_problems, read_conf
from ..pool import apply_pool, pool_info
from . import entry, mount
from .build import NotFitted, add_one, notext_text
from .upkeep import need_root, remove_all

SYNC_LOCK = "/run/hugeld-sync.lock"

# pool auto (its margin: AUTO_MARGIN_PERCENT and AUTO_EXTRA, in
# hugeld.common): at most a quarter of the memory (MemTotal).  Reserved huge
# pages are taken from everything else's memory and stay taken, used
# or not, and what `auto' counts is decided by globs over directories
# that packages (and anyone who can write there) fill: one glob that
# matches more than was meant, or one file whose program headers claim
# gigabytes of text, must not reserve the machine's memory at boot,
# before anything else runs.  A quarter leaves the rest of the system
# three quarters on any machine, and is far more than real libraries
# need (a distribution's largest ones together are a few hundred MiB).
# `pool N' is the administrator's own number and is not capped.
AUTO_CAP_DIVISOR = 4
MEMINFO = "/proc/meminfo"


def auto_cap(meminfo=MEMINFO):
    """The most huge pages `pool auto' reserves: a quarter of MemTotal
    (None if it cannot be read)."""
    try:
        with open(meminfo) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k == "MemTotal":
                    return (int(v.split()[0]) * 1024 // AUTO_CAP_DIVISOR
                            // HUGE)
    except (OSError, ValueError, IndexError):
        pass
    return None


def auto_pool(pages):
    """The pool `pool auto' asks for, for declared entries of PAGES:
    PAGES plus AUTO_MARGIN_PERCENT (rounded up) plus AUTO_EXTRA, or 0
    if nothing is declared."""
    if pages <= 0:
        return 0
    return pages + -(-pages * AUTO_MARGIN_PERCENT // 100) + AUTO_EXTRA


def entry_pages(o):
    return sum(z["size"] for z in o["cache"]["zones"]) // HUGE


def declared(conf):
    """The declared files that can be cached, [(file, helper's object)]
    (pathglob.expand_cache's files), after a warning for each cache
    item that names no file and each file that cannot have an entry
    (not an ELF object, no read-only zone that fills a huge page): sync
    cannot change those, so they do not make it fail."""
    refused = []
    files, empty = expand_cache(conf, refused)
    for r in refused:
        warn("%s (%s:%d): not cached: %s" % (r["path"], conf["file"],
                                             r["line"], r["why"]))
    refused_lines = {(r["line"], r["pattern"]) for r in refused}
    for c in empty:
        if (c["line"], c["pattern"]) not in refused_lines:
            warn("%s:%d: cache %s: no such file" % (conf["file"], c["line"],
                                                    c["pattern"]))
    out = []
    for f, (o, err) in zip(files, helper_objects(
            entry.PLAN_ARGS, [f["real"] for f in files])):
        why = err if o is None else o["cache"]["why_not"]
        if why:
            warn("%s (%s:%d): nothing to cache: %s" % (
                f["path"], conf["file"], f["line"], why))
        else:
            out.append((f, o))
    return out


def reserve(conf, need_now, total_declared, dry_run):
    """Grow the pool (never shrink it) to `pool N', or for `pool auto'
    (or no pool line) to what the declared entries need plus the
    margin, and at least so that the entries to add fit."""
    p = pool_info()
    if p is None:
        raise Error("this kernel has no 2 MiB huge pages")
    want = conf["pool"]["value"] if conf["pool"] else "auto"
    if want == "auto":
        target = auto_pool(total_declared)
        grow = max(target - p["total"], need_now - p["available"], 0)
        what = "pool auto: %s declared + %d%% + %d" % (
            plural(total_declared, "page"), AUTO_MARGIN_PERCENT,
            AUTO_EXTRA) \
            if total_declared else "pool auto: nothing declared"
        cap = auto_cap()
        if cap is not None and grow and p["total"] + grow > cap:
            print("pool auto: capped at %s (%s, a quarter of MemTotal); "
                  "it would be %d; give `pool N' in %s to reserve more"
                  % (plural(cap, "huge page"), mib(cap), p["total"] + grow,
                     conf["file"]))
            grow = max(cap - p["total"], 0)
            what += ", capped at %d" % cap
    else:
        target = want
        grow = max(target - p["total"], 0)
        what = "pool %d, line %d" % (want, conf["pool"]["line"])
    if grow == 0:
        if need_now > p["available"]:
            print("pool: nr_hugepages %d (%s): %d free, the entries to add "
                  "need %d; what does not fit is not cached" % (
                      p["total"], what, p["available"], need_now))
        else:
            print("pool: nr_hugepages %d, %s (%s)" % (
                p["total"], "not grown" if "capped" in what else "enough",
                what))
        return
    if dry_run:
        print("pool: would grow nr_hugepages from %d to %d (%s)"
              % (p["total"], p["total"] + grow, what))
        return
    apply_pool(p["available"] + grow, None)
    print("pool: nr_hugepages %d -> %d (%s)"
          % (p["total"], pool_info()["total"], what))


def scan_cache(top):
    if top is None:
        return [], []
    entries, empty = entry.scan(top)
    return entry.states(entries, helper_objects), empty


def sync(conf, reserve_pool, dry_run):
    want = declared(conf)
    keep = {(o["cache"]["inode"], o["cache"]["version"]) for _, o in want}
    top = mount.open_cache()
    try:
        entries, emptydirs = scan_cache(top)
        have = {(e.inode, e.name) for e in entries
                if e.state == entry.CURRENT}
        add = [(f, o) for f, o in want
               if (o["cache"]["inode"], o["cache"]["version"]) not in have]
        # Everything else goes, except what a `cache add' is making now.
        gone = [e for e in entries if e.state != entry.BUSY
                and not (e.state == entry.CURRENT
                         and (e.inode, e.name) in keep)]
        pick = [("%s (%s)" % (e.source if e.source and not e.tmp
                              else e.path, e.state
                              if e.state != entry.CURRENT
                              else "not declared in %s" % conf["file"]), e)
                for e in gone]
        if reserve_pool:
            reserve(conf, sum(entry_pages(o) for _, o in add),
                    sum(entry_pages(o) for _, o in want), dry_run)
        if dry_run:
            for what, e in pick:
                print("would remove %s: %s" % (shown(what), plural(
                    e.pages, "huge page")))
            for f, o in add:
                print("would cache %s: %s%s" % (shown(f["path"]), plural(
                    entry_pages(o), "huge page"),
                    "; " + notext_text(o["cache"])
                    if o["cache"].get("notext") else ""))
            print("dry run: %d to add, %d to remove, %d current" % (
                len(add), len(pick), len(want) - len(add)))
            return 0
        failed = False
        # Removals first: a stale entry's pages (if no process maps it
        # any more) make room for its file's new one.
        if pick:
            failed = remove_all(top, pick, emptydirs) != 0
        elif top is not None:
            for i in emptydirs:
                entry.remove_empty_inode(top, i)
        # The marker needs the directory even when nothing is declared.
        if top is None:
            top = mount.open_cache(create=True)
        added = short = errors = 0
        for f, o in add:
            try:
                print(shown(add_one(top, f["path"], o)))
                added += 1
            except NotFitted as e:
                # The pool the administrator sized: said, not a failure.
                print("hugeld: %s" % shown(e), file=sys.stderr)
                short += 1
            except Error as e:
                print("hugeld: %s" % shown(e), file=sys.stderr)
                errors += 1
        # The cache of this boot is filled: from now on ld.so makes
        # private copies again (_dl_hugepage_private_allowed).
        entry.mark_synced(top)
        held = sum(entry_pages(o) for _, o in want)
        if not add and not pick:
            print("nothing to do: %s current, %s (%s)" % (
                plural(len(want), "declared entry", "declared entries"),
                plural(held, "huge page"), mib(held)))
        else:
            print("synced: %d added, %s%s%d removed%s; %s declared, "
                  "%s (%s)" % (
                      added,
                      "%d not cached for want of pool pages, " % short
                      if short else "",
                      "%d failed, " % errors if errors else "",
                      len(pick), ", with errors" if failed else "",
                      plural(len(want), "entry", "entries"),
                      plural(held, "huge page"), mib(held)))
        return 1 if failed or errors else 0
    finally:
        if top is not None:
            os.close(top)


def cache_sync(args):
    if not args.dry_run:
        need_root("sync")
    path = args.file or conf_file()
    conf = read_conf(path, expand=True)
    if conf is None:
        raise Error("%s: no such file: nothing is declared" % path)
    problems = conf_problems(conf)
    if problems:
        for p in problems:
            print("hugeld: %s" % shown(p), file=sys.stderr)
        raise Error("%s: ld.so would ignore it; the cache is left as it "
                    "is (hugeld config check)" % path)
    # One line at a time, in order with standard error: under systemd
    # both go to the journal through one stream.
    sys.stdout.reconfigure(line_buffering=True)
    if args.dry_run:
        return sync(conf, args.reserve_pool, True)
    os.makedirs(os.path.dirname(SYNC_LOCK), exist_ok=True)
    fd = os.open(SYNC_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC |
                 os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return sync(conf, args.reserve_pool, False)
    finally:
        os.close(fd)
