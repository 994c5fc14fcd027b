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

"""Opening the files that root's commands read on other users' say: a
`cache' line's glob, the source an entry records, a mapped object.

A plain open(2) blocks for ever on a FIFO with no writer (or on a
terminal line that waits for carrier), and opening some devices acts.
So the type is looked at on an O_PATH descriptor, which opens nothing,
and only a regular file is then opened, with O_NONBLOCK and O_NOCTTY
all the same, and checked again on the descriptor it is read from.
With TRUSTED_LINKS the path is walked one component at a time and a
symbolic link is followed only if root (or the caller) owns it:
another user's link must not choose what root caches.  The helpers'
tools/hugeld-open.c is the same rule in C (for the helpers, which
need no real path); a change to one is a change to both:
tests/unit/test_hugeld_openrule.py runs both on one table of cases and
requires the same answers."""

import errno as _errno
import os
import pwd
import stat

from .common import Error

READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
MAX_LINKS = 40          # The kernel's MAXSYMLINKS.


def file_kind(mode):
    """What a file of MODE that is not a regular file is."""
    for test, what in ((stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory"),
                       (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return what
    return "of an unknown type"


def user_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return "nobody known"


class Opened(object):
    """A file open_regular opened: fd (read-only), st (its fstat), and,
    with trusted links, real (its path without links, `.' or `..') and
    dirs ([(path, stat)] of the directories of real, from /)."""

    def __init__(self, fd, st, real=None, dirs=None):
        self.fd, self.st, self.real, self.dirs = fd, st, real, dirs or []

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class NotOpened(Error):
    """Why open_regular did not open a file (the path not in it); errno
    is the OSError's, if it was one."""

    def __init__(self, why, errno=None):
        Error.__init__(self, why)
        self.errno = errno


def _reopen(pfd, pst, name, dirfd, extra):
    """The regular file with stat PST, open for reading: through its
    O_PATH descriptor PFD (/proc/self/fd), else (no /proc) as NAME in
    DIRFD with EXTRA flags; checked to be that file."""
    try:
        try:
            fd = os.open("/proc/self/fd/%d" % pfd, READ_FLAGS)
        except FileNotFoundError:
            fd = os.open(name, READ_FLAGS | extra, dir_fd=dirfd)
    except OSError as e:
        raise NotOpened(e.strerror, e.errno)
    st = os.fstat(fd)
    why = None
    if not stat.S_ISREG(st.st_mode):
        why = "not a regular file (%s)" % file_kind(st.st_mode)
    elif (st.st_dev, st.st_ino) != (pst.st_dev, pst.st_ino):
        why = "it changed while it was opened; try again"
    if why:
        os.close(fd)
        raise NotOpened(why)
    return fd, st


def _open_loose(path):
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError as e:
        raise NotOpened(e.strerror, e.errno)
    try:
        pst = os.fstat(pfd)
        if not stat.S_ISREG(pst.st_mode):
            raise NotOpened("not a regular file (%s)" % file_kind(pst.st_mode))
        return Opened(*_reopen(pfd, pst, path, None, 0))
    finally:
        os.close(pfd)


def _open_strict(path):
    me = os.geteuid()
    if not path.startswith("/"):
        path = os.getcwd().rstrip("/") + "/" + path
    # The directories reached, from /: [(name, descriptor, stat)].
    chain = []

    def to_root():
        while chain:
            os.close(chain.pop()[1])
        fd = os.open("/", DIR_FLAGS)
        chain.append(("", fd, os.fstat(fd)))

    def here():
        return "/".join(c[0] for c in chain) or "/"

    try:
        to_root()
        todo = path.split("/")
        todo.reverse()
        links = 0
        while True:
            while todo and todo[-1] == "":
                todo.pop()
            if not todo:
                # "/", or a path that ends with a slash.
                raise NotOpened("not a regular file (a directory)")
            name = todo.pop()
            last = not todo
            if name == "." and not last:
                continue
            if name == ".." and not last:
                # Never a link: up from the directory reached.
                if len(chain) > 1:
                    os.close(chain.pop()[1])
                continue
            dirfd = chain[-1][1]
            try:
                pfd = os.open(name, PATH_FLAGS, dir_fd=dirfd)
            except OSError as e:
                raise NotOpened(e.strerror, e.errno)
            keep = False
            try:
                pst = os.fstat(pfd)
                if stat.S_ISLNK(pst.st_mode):
                    if pst.st_uid not in (0, me):
                        raise NotOpened(
                            "not followed: the symbolic link %s is owned by "
                            "%s (uid %d), not by root%s" % (
                                os.path.join(here(), name),
                                user_name(pst.st_uid), pst.st_uid,
                                " or you" if me != 0 else ""))
                    links += 1
                    if links > MAX_LINKS:
                        raise NotOpened(os.strerror(_errno.ELOOP),
                                        _errno.ELOOP)
                    target = os.readlink("", dir_fd=pfd)
                    if not target:
                        raise NotOpened(os.strerror(_errno.ENOENT),
                                        _errno.ENOENT)
                    if target.startswith("/"):
                        to_root()
                    more = target.split("/")
                    more.reverse()
                    todo.extend(more)
                    continue
                if not last:
                    if not stat.S_ISDIR(pst.st_mode):
                        raise NotOpened(os.strerror(_errno.ENOTDIR),
                                        _errno.ENOTDIR)
                    chain.append((name, pfd, pst))
                    keep = True
                    continue
                if not stat.S_ISREG(pst.st_mode):
                    raise NotOpened("not a regular file (%s)"
                                    % file_kind(pst.st_mode))
                fd, st = _reopen(pfd, pst, name, dirfd, os.O_NOFOLLOW)
                real = os.path.join(here(), name)
                dirs = []
                for i in range(len(chain)):
                    dirs.append(("/".join(c[0] for c in chain[:i + 1])
                                 or "/", chain[i][2]))
                return Opened(fd, st, real, dirs)
            finally:
                if not keep:
                    os.close(pfd)
    finally:
        for c in chain:
            os.close(c[1])


def open_regular(path, trusted_links=True):
    """PATH opened for reading (an Opened, to close), if it is a regular
    file; else NotOpened with why, in one line without PATH.  With
    TRUSTED_LINKS, through no symbolic link that another user than root
    (and the caller) owns, and with its real path and directories.
    Never blocks, and never opens anything but a regular file."""
    if path == "":
        raise NotOpened(os.strerror(_errno.ENOENT), _errno.ENOENT)
    return _open_strict(path) if trusted_links else _open_loose(path)


def hidden_by(o):
    """Why other users could not read the file O (an Opened with
    trusted links) through its real path: a directory of it that they
    cannot search, or the file itself not readable by them; or None."""
    for d, st in o.dirs:
        if not st.st_mode & stat.S_IXOTH:
            return "its directory %s is not searchable by others (mode " \
                "%04o)" % (d, stat.S_IMODE(st.st_mode))
    if not o.st.st_mode & stat.S_IROTH:
        return "not readable by others (mode %04o)" % stat.S_IMODE(
            o.st.st_mode)
    return None
