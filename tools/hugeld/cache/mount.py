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

"""Finding and opening the shared cache as ld.so trusts it: the
hugetlbfs of 2 MiB pages on /dev/hugepages (mounted by root if need
be), the cache directory in it checked by ld.so's own rule
(_dl_hugepage_cache_distrust, asked of the helper), and the line that
says who made a directory ld.so ignores.  entry.py has the entries
in it."""

import errno
import fcntl
import os
import pwd
import re
import stat

from .. import spawn
from ..common import Error, HUGE
from ..planner import cache_dir, mount_dir, run_helper

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def mount_type(path, mountinfo="/proc/self/mountinfo"):
    """The type of the file system mounted at PATH (the topmost one), or
    None if nothing is mounted there."""
    fstype = None
    try:
        with open(mountinfo) as f:
            for line in f:
                a, _, b = line.partition(" - ")
                fields = a.split()
                if len(fields) >= 5 and re.sub(
                        r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)),
                        fields[4]) == path and b.split():
                    fstype = b.split()[0]
    except OSError as e:
        raise Error("cannot read %s: %s" % (mountinfo, e.strerror))
    return fstype


def fs_type(fd, mountinfo="/proc/self/mountinfo"):
    """(type, block size) of the file system FD is on: the type's name
    as /proc/self/mountinfo gives it for FD's device ("hugetlbfs"; None
    if it names none), the block size fstatvfs's (a hugetlbfs's is its
    page size).  What statfs(2) says by its f_type, read without ctypes
    (which every start of the command paid for) and without a copy of
    the kernel's magic numbers."""
    st = os.fstat(fd)
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    ftype = None
    with open(mountinfo) as f:
        for line in f:
            a, _, b = line.partition(" - ")
            fields = a.split()
            if len(fields) >= 3 and fields[2] == dev and b.split():
                ftype = b.split()[0]
                break
    return ftype, os.fstatvfs(fd).f_bsize


def check_hugetlbfs(fd, path):
    try:
        ftype, bsize = fs_type(fd)
    except OSError as e:
        raise Error("statfs %s: %s" % (path, e.strerror))
    if ftype != "hugetlbfs":
        raise Error("%s is not on a hugetlbfs" % path)
    if bsize != HUGE:
        raise Error("%s is a hugetlbfs of %d kB pages; ld.so's cache needs "
                    "2 MiB pages (mount -t hugetlbfs -o pagesize=2M none %s)"
                    % (path, bsize // 1024, mount_dir()))


_DISTRUST = {}


def untrusted(st, want_dir):
    """Why ld.so would not trust the file with stat ST, or None.  The
    rule is ld.so's (_dl_hugepage_cache_distrust), asked of the helper
    once per distinct (kind, mode, owner): a cache has a handful."""
    if stat.S_ISLNK(st.st_mode):
        # ld.so opens with O_NOFOLLOW: a link is never opened.
        return "a symbolic link"
    key = ("dir" if want_dir else "file", st.st_mode, st.st_uid)
    if key not in _DISTRUST:
        why = run_helper(["--cache-distrust", "%s:%o:%d" % key])["why"]
        _DISTRUST[key] = None if why is None else \
            why.replace("not trusted: ", "", 1)
    return _DISTRUST[key]


def open_dir(parent, name):
    """Descriptor of directory NAME in PARENT (a descriptor), never
    through a symbolic link."""
    return os.open(name, DIR_FLAGS, dir_fd=parent)


def open_mount(mount=True):
    """A descriptor of mount_dir (), a hugetlbfs of 2 MiB pages.  With
    MOUNT (root), mount one there if nothing is mounted (saying so);
    else None if there is none."""
    where = mount_dir()
    fs = mount_type(where)
    if fs is None and mount:
        os.makedirs(where, exist_ok=True)
        # Two `cache add' at once must not mount two file systems over
        # each other: one at a time, and look again once it is ours.
        lock = os.open(where, DIR_FLAGS)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if mount_type(where) is None:
                p = spawn.run(["mount", "-t", "hugetlbfs", "-o",
                               "pagesize=2M", "none", where],
                              stderr=spawn.STDOUT)
                if p.returncode != 0:
                    msg = p.stdout.decode("utf-8", "replace").strip()
                    raise Error("cannot mount a hugetlbfs on %s: %s" % (
                        where, msg.splitlines()[-1] if msg
                        else "mount failed"))
                print("mounted a hugetlbfs of 2 MiB pages on %s" % where)
        finally:
            os.close(lock)
        fs = mount_type(where)
    if fs is None:
        return None
    if fs != "hugetlbfs":
        raise Error("%s is a %s, not a hugetlbfs (ld.so looks for its cache "
                    "at %s)" % (where, fs, cache_dir()))
    try:
        fd = os.open(where, DIR_FLAGS)
    except OSError as e:
        raise Error("cannot open %s: %s" % (where, e.strerror))
    try:
        check_hugetlbfs(fd, where)
    except Error:
        os.close(fd)
        raise
    return fd


def open_cache(create=False):
    """A descriptor of cache_dir (), checked as ld.so checks it; with CREATE
    (root), the hugetlbfs mounted and the directory made if need be.
    None if there is no cache."""
    mnt = open_mount(mount=create)
    if mnt is None:
        return None
    name = os.path.basename(cache_dir())
    try:
        if create:
            try:
                os.mkdir(name, 0o755, dir_fd=mnt)
            except FileExistsError:
                pass
        mst = os.fstat(mnt)
        try:
            fd = open_dir(mnt, name)
        except FileNotFoundError:
            return None
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR):
                try:
                    st = os.stat(name, dir_fd=mnt, follow_symlinks=False)
                except OSError:
                    st = None
                raise Error(squatted(st, mst, "not a directory"))
            raise Error("cannot open %s: %s" % (cache_dir(), e.strerror))
    finally:
        os.close(mnt)
    st = os.fstat(fd)
    if create and st.st_uid == 0:
        os.fchmod(fd, 0o755)
        st = os.fstat(fd)
    why = untrusted(st, True)
    # Another user's directory (made first on a hugetlbfs others can
    # write) is never used, not even read: what is in it is theirs.
    if why is not None and (create or st.st_uid != 0):
        os.close(fd)
        raise Error(squatted(st, mst, why))
    return fd


def squatted(st, mst, why):
    """The line for a cache_dir () (with lstat ST, or None) that is WHY,
    on the mount with stat MST: who owns it, and the fix."""
    owner = ""
    if st is not None and st.st_uid != 0:
        try:
            user = pwd.getpwuid(st.st_uid).pw_name
        except KeyError:
            user = "nobody known"
        owner = " (owned by %s, uid %d)" % (user, st.st_uid)
    fix = "remove it: rm -rf %s" % cache_dir()
    if mst.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        fix += (", and mount the hugetlbfs with mode=0755 so that no other "
                "user can make it (mount -o remount,mode=0755 %s; it is "
                "mode %04o)" % (mount_dir(), stat.S_IMODE(mst.st_mode)))
    return "%s is %s%s: ld.so ignores it and hugeld does not use it; %s" % (
        cache_dir(), why, owner, fix)
