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

"""The shared cache on hugetlbfs (elf/dl-hugepage-cache.h), once
mount.py has opened it: its entries and their state, and removing
them.

  /dev/hugepages/hugeld/<inode>/<version>/<zone>   what ld.so maps
  /dev/hugepages/hugeld/<inode>/<version>/source/PATH
                       the file it was made from: its absolute path as
                       directories, the last component an empty file
  /dev/hugepages/hugeld/<inode>/.tmp-*             being made (or left
                                                   by a crash)

(hugetlbfs has no symbolic links, extended attributes or write(2):
symlink fails with EINVAL, and a file with data takes a huge page.
Names and empty files cost nothing.)

The names come from the hugeld-plan helper (--cache), which uses the
loader's own naming code.  Everything is done relative to directory
descriptors opened without following symbolic links."""

import errno
import fcntl
import os
import re
import stat
import time

from ..common import Error, HUGE
from ..planner import cache_dir, kinds, notext_name, synced_name
from .mount import open_cache, open_dir, untrusted

SOURCE = "source"
# The empty files naming the devices an entry was made on are called
# DEVICE + hex (ld.so's _dl_hugepage_cache_device_name); the helper
# gives each object's name.
DEVICE = "dev-"
TMP = ".tmp-"
# A .tmp-* directory whose maker still runs and that changed this
# recently is taken as being made, even if it is not locked yet.
TMP_GRACE = 60

# The states of `hugeld cache list'; prune removes all but these.
CURRENT = "current"
BUSY = "being added"
KEEP = (CURRENT, BUSY)


def has_entries():
    """Whether there is a cache ld.so trusts, with an inode directory in
    it (for the hugeld command's own checks; ld.so checks every entry
    itself)."""
    try:
        fd = open_cache()
    except Error:
        return False
    if fd is None:
        return False
    try:
        return (untrusted(os.fstat(fd), True) is None
                and any(not n.startswith(".") for n in os.listdir(fd)))
    finally:
        os.close(fd)


def write_source(parent, path):
    """Record the absolute PATH in directory PARENT as SOURCE/PATH: a
    directory per component, the last one an empty file."""
    parts = path.strip("/").split("/")
    fd = None
    try:
        for p in [SOURCE] + parts[:-1]:
            os.mkdir(p, 0o755, dir_fd=parent if fd is None else fd)
            nfd = open_dir(parent if fd is None else fd, p)
            os.fchmod(nfd, 0o755)
            if fd is not None:
                os.close(fd)
            fd = nfd
        name = parts[-1]
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                    os.O_NOFOLLOW | os.O_CLOEXEC, 0o444, dir_fd=fd)
        os.fchmod(f, 0o444)
        os.close(f)
    finally:
        if fd is not None:
            os.close(fd)


def read_source(parent):
    """The path write_source recorded in directory PARENT, or None."""
    try:
        fd = open_dir(parent, SOURCE)
    except OSError:
        return None
    parts = []
    try:
        while len(parts) < 2048:
            names = os.listdir(fd)
            if len(names) != 1:
                return None
            st = os.stat(names[0], dir_fd=fd, follow_symlinks=False)
            parts.append(names[0])
            if stat.S_ISREG(st.st_mode):
                return "/" + "/".join(parts)
            if not stat.S_ISDIR(st.st_mode):
                return None
            nfd = open_dir(fd, names[0])
            os.close(fd)
            fd = nfd
        return None
    except OSError:
        return None
    finally:
        os.close(fd)


def tmp_pid(name):
    """The process ID at the end of a .tmp-* NAME, or None."""
    m = re.search(r"-([0-9]+)$", name)
    return int(m.group(1)) if m else None


def tmp_busy(parent, name, st):
    """Whether the .tmp-* directory NAME is being made now: its maker
    holds a lock on it, or still runs and has just made it."""
    try:
        fd = open_dir(parent, name)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            pass
    finally:
        os.close(fd)
    pid = tmp_pid(name)
    if pid is None or time.time() - st.st_mtime > TMP_GRACE:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


class Entry(object):
    """One version (or .tmp-*) directory of the cache."""

    def __init__(self, inode, name):
        self.inode = inode      # The inode directory's name (None: top).
        self.name = name
        self.source = None      # Where the `source' link points.
        self.zones = {}         # name: (size, bytes allocated)
        self.devices = set()    # The dev-* files: made on those devices.
        self.notext = False     # Its text left out (the no-text file).
        self.tmp = name.startswith(".")
        self.why = None         # Why ld.so would not trust it.
        self.busy = False
        self.state = None
        self.made = None        # When it was put in place (its mtime).

    @property
    def path(self):
        return "/".join(x for x in (cache_dir(), self.inode, self.name) if x)

    @property
    def pages(self):
        """The huge pages it holds."""
        return sum(b for s, b in self.zones.values()) // HUGE

    def kinds(self):
        by = {}
        for z, (size, _) in self.zones.items():
            k = z.split("-", 1)[0]
            by[k] = by.get(k, 0) + size // HUGE
        order = {k: i for i, k in enumerate(kinds())}
        return dict(sorted(by.items(), key=lambda kv: (
            order.get(kv[0], len(order)), kv[0])))


def read_entry(parent, inode, name, st):
    e = Entry(inode, name)
    e.made = st.st_mtime
    e.why = untrusted(st, True)
    if e.tmp:
        e.busy = stat.S_ISDIR(st.st_mode) and tmp_busy(parent, name, st)
    if not stat.S_ISDIR(st.st_mode):
        e.zones[name] = (st.st_size, st.st_blocks * 512)
        return e
    try:
        fd = open_dir(parent, name)
    except OSError as x:
        e.why = e.why or "cannot open: %s" % x.strerror
        return e
    try:
        e.source = read_source(fd)
        for z in os.listdir(fd):
            if z == SOURCE:
                continue
            if z.startswith(DEVICE):
                e.devices.add(z)
                continue
            if z == notext_name():
                e.notext = True
                continue
            try:
                zst = os.stat(z, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            e.zones[z] = (zst.st_size, zst.st_blocks * 512)
            if e.why is None and untrusted(zst, False):
                e.why = "%s is %s" % (z, untrusted(zst, False))
    finally:
        os.close(fd)
    return e


def mark_synced(top):
    """Leave synced_name () (ld.so's HP_CACHE_SYNCED) in the cache
    directory TOP: the cache of this boot has been made what the policy
    file declares."""
    fd = os.open(synced_name(), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW |
                 os.O_CLOEXEC, 0o644, dir_fd=top)
    os.close(fd)


def scan(top):
    """Every entry under the cache directory TOP (a descriptor), and the
    inode directories that hold none: ([Entry], [name])."""
    entries, empty = [], []
    synced = synced_name()
    for iname in sorted(os.listdir(top)):
        if iname == synced:
            continue
        try:
            st = os.stat(iname, dir_fd=top, follow_symlinks=False)
        except OSError:
            continue
        if iname.startswith(".") or not stat.S_ISDIR(st.st_mode):
            entries.append(read_entry(top, None, iname, st))
            continue
        try:
            fd = open_dir(top, iname)
        except OSError as x:
            e = Entry(iname, "")
            e.why = "cannot open: %s" % x.strerror
            entries.append(e)
            continue
        try:
            names = sorted(os.listdir(fd))
            why = untrusted(os.fstat(fd), True)
            for vname in names:
                try:
                    vst = os.stat(vname, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    continue
                e = read_entry(fd, iname, vname, vst)
                if why and not e.why:
                    e.why = "its directory is " + why
                entries.append(e)
            if not names:
                empty.append(iname)
        finally:
            os.close(fd)
    return entries, empty


def entry_state(e, plan, why=None):
    """The state of entry E, given the helper's object for the file it
    was made from (None: the helper could not read it, WHY not)."""
    if e.tmp:
        return BUSY if e.busy else "orphan .tmp"
    if not e.inode:
        return "not an entry"
    if e.why:
        return "untrusted: %s" % e.why
    if e.source is None:
        return "missing: no source recorded"
    if plan is None or "cache" not in plan:
        # Gone, or what is there now is not opened (hugeld-open.c: not
        # a regular file, through another user's symbolic link).
        return "missing: %s" % (why if why and not why.startswith(
            os.strerror(errno.ENOENT)) else "file gone")
    c = plan["cache"]
    if (c["inode"], c["version"]) != (e.inode, e.name):
        return "stale: file changed"
    if not c["overlay"] and c["device"] not in e.devices:
        return ("stale: made from a file on another file system, or by an "
                "older hugeld")
    if not same_zones(e.zones, e.notext, c):
        return "stale: zones differ (made by another hugeld)"
    return CURRENT


def same_zones(zones, notext, c):
    """Whether an entry's ZONES ({name: (size, ...)}) and its no-text
    file (NOTEXT) are what the helper plans for its file (C, the cache
    member): no zone missing, none of another size, none too many (an
    older hugeld cached text it now leaves out: ld.so would serve it)."""
    want = {z["name"]: z["size"] for z in c["zones"]}
    return ({n: v[0] for n, v in zones.items()} == want
            and notext == bool(c.get("notext")))


# How the helper plans a cache entry's file: never through another
# user's symbolic link (a user who can change a path that root caches
# must not point it elsewhere), and never opening a FIFO or a device.
PLAN_ARGS = ["--cache", "--strict-links"]


def states(entries, helper_objects):
    """Set the state of each of ENTRIES; HELPER_OBJECTS is
    planner.helper_objects (all sources are planned in one run of the
    helper).  The sources of entries ld.so does not trust are not
    looked at: anyone may have written them."""
    sources = sorted({e.source for e in entries
                      if e.source and not e.tmp and e.inode and not e.why})
    plans = dict(zip(sources, helper_objects(PLAN_ARGS, sources)))
    for e in entries:
        e.state = entry_state(e, *plans.get(e.source, (None, None)))
    return entries


def remove_name(parent, name):
    """Remove NAME (an entry, an inode directory, or a stray file) from
    directory PARENT: renamed to a .tmp-* name first, so that nothing is
    ever seen half removed (and a crash leaves what prune removes)."""
    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=parent)
        return
    if not name.startswith(TMP):
        aside = "%srm-%s-%d" % (TMP, name[:160], os.getpid())
        os.rename(name, aside, src_dir_fd=parent, dst_dir_fd=parent)
        name = aside
    rmtree_at(parent, name)


def rmtree_at(parent, name):
    """Remove the directory NAME of directory PARENT (a descriptor) and
    everything below it, never following a symbolic link: each level is
    walked through the descriptor of the one above (as shutil.rmtree
    with dir_fd does), so that a link put in a directory meanwhile is
    removed, not followed."""
    for _, dirs, files, fd in os.fwalk(name, topdown=False, dir_fd=parent):
        for f in files:
            os.unlink(f, dir_fd=fd)
        for d in dirs:
            st = os.stat(d, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(d, dir_fd=fd)
            else:
                os.unlink(d, dir_fd=fd)
    os.rmdir(name, dir_fd=parent)


def remove_entry(top, e):
    """Remove entry E found by scan (TOP: the cache directory)."""
    if not e.inode:
        remove_name(top, e.name)
        return
    fd = open_dir(top, e.inode)
    try:
        remove_name(fd, e.name)
    finally:
        os.close(fd)


def remove_empty_inode(top, name):
    """Remove inode directory NAME if it is empty and no `cache add'
    works in it (an add holds a shared lock on it, and looks again
    after it has it)."""
    try:
        fd = open_dir(top, name)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if not os.listdir(fd):
            os.rmdir(name, dir_fd=top)
    except OSError:
        pass
    finally:
        os.close(fd)


def mapped_entries():
    """{entry directory: number of processes} of the cache's zone files
    mapped by running processes (that root, or this user, can see)."""
    users = {}
    top = cache_dir() + "/"
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        seen = set()
        try:
            # A mapped file's name is any bytes but a newline.
            with open("/proc/%s/maps" % d, encoding="utf-8",
                      errors="surrogateescape", newline="\n") as f:
                for line in f:
                    i = line.find(top)
                    if i >= 0:
                        p = line[i:].rstrip("\n")
                        if p.endswith(" (deleted)"):
                            p = p[:-10]
                        seen.add(os.path.dirname(p))
        except OSError:
            continue
        for p in seen:
            users[p] = users.get(p, 0) + 1
    return users
