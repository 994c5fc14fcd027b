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
`cache' line's glob, the source an entry records, a mapped object; and
the directories root's commands write a file in (replace_file: status
-o, enable's drop-in, perf-map), where another user may own a directory
on the way.

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
requires the same answers.  open_dir (the same walk, for a directory to
write in) has no C twin: only the command writes files."""

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


def _to_root(chain):
    """CHAIN (the directories reached: [(name, descriptor, stat)]) back
    to / alone."""
    while chain:
        os.close(chain.pop()[1])
    fd = os.open("/", DIR_FLAGS)
    chain.append(("", fd, os.fstat(fd)))


def _here(chain):
    """The path of the directory CHAIN has reached."""
    return "/".join(c[0] for c in chain) or "/"


def _follow(chain, pfd, pst, name, todo, links):
    """Follow the symbolic link NAME (its O_PATH descriptor PFD, its stat
    PST) in the directory CHAIN reached: its target's components pushed
    onto TODO (the walk back at / for an absolute one); the links
    followed so far, this one counted.  Only a link of root's (or of
    ours) is followed."""
    me = os.geteuid()
    if pst.st_uid not in (0, me):
        raise NotOpened(
            "not followed: the symbolic link %s is owned by %s (uid %d), "
            "not by root%s" % (os.path.join(_here(chain), name),
                               user_name(pst.st_uid), pst.st_uid,
                               " or you" if me != 0 else ""))
    links += 1
    if links > MAX_LINKS:
        raise NotOpened(os.strerror(_errno.ELOOP), _errno.ELOOP)
    target = os.readlink("", dir_fd=pfd)
    if not target:
        raise NotOpened(os.strerror(_errno.ENOENT), _errno.ENOENT)
    if target.startswith("/"):
        _to_root(chain)
    more = target.split("/")
    more.reverse()
    todo.extend(more)
    return links


def _opened(chain, pfd, pst, name):
    """The regular file NAME (its O_PATH descriptor PFD, its stat PST)
    in the directory CHAIN reached, opened for reading: an Opened, with
    the directories on its way."""
    if not stat.S_ISREG(pst.st_mode):
        raise NotOpened("not a regular file (%s)" % file_kind(pst.st_mode))
    fd, st = _reopen(pfd, pst, name, chain[-1][1], os.O_NOFOLLOW)
    dirs = [("/".join(c[0] for c in chain[:i + 1]) or "/", chain[i][2])
            for i in range(len(chain))]
    return Opened(fd, st, os.path.join(_here(chain), name), dirs)


def _open_strict(path, directory=False):
    """PATH, walked from / one component at a time (the opening rule):
    the regular file it names, opened for reading (an Opened); with
    DIRECTORY, the directory it names instead, as (its O_PATH
    descriptor, its stat, its real path): every component, the last one
    too, must then be a directory."""
    if not path.startswith("/"):
        path = os.getcwd().rstrip("/") + "/" + path
    # The directories reached, from /: [(name, descriptor, stat)].
    chain = []
    try:
        _to_root(chain)
        todo = path.split("/")
        todo.reverse()
        links = 0
        while True:
            while todo and todo[-1] == "":
                todo.pop()
            if not todo:
                if directory:
                    # The directory reached: its descriptor is the
                    # caller's now.
                    name, fd, st = chain.pop()
                    return fd, st, os.path.join(_here(chain), name) or "/"
                # "/", or a path that ends with a slash.
                raise NotOpened("not a regular file (a directory)")
            name = todo.pop()
            # With DIRECTORY no component is the last one: each must be
            # a directory, and the walk ends where the path does.
            last = not todo and not directory
            if name == "." and not last:
                continue
            if name == ".." and not last:
                # Never a link: up from the directory reached.
                if len(chain) > 1:
                    os.close(chain.pop()[1])
                continue
            try:
                pfd = os.open(name, PATH_FLAGS, dir_fd=chain[-1][1])
            except OSError as e:
                raise NotOpened(e.strerror, e.errno)
            keep = False
            try:
                pst = os.fstat(pfd)
                if stat.S_ISLNK(pst.st_mode):
                    links = _follow(chain, pfd, pst, name, todo, links)
                    continue
                if last:
                    return _opened(chain, pfd, pst, name)
                if not stat.S_ISDIR(pst.st_mode):
                    raise NotOpened(os.strerror(_errno.ENOTDIR),
                                    _errno.ENOTDIR)
                chain.append((name, pfd, pst))
                keep = True
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


class OpenedDir(object):
    """A directory open_dir opened: fd (O_PATH, a descriptor for the *at
    calls), st (its fstat) and real (its path without links, `.' or
    `..')."""

    def __init__(self, fd, st, real):
        self.fd, self.st, self.real = fd, st, real

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def dir_distrust(st, real, sticky=False, me=None):
    """Why a directory with stat ST (at REAL) is not one to write in for
    the user ME (default: the effective one), or None: it must be owned
    by root or by ME, and writable by nobody else (no group or other
    write bit; with ACLs the group bits are the mask, which bounds every
    named user and group, so this covers them too); with STICKY, a
    sticky directory (/tmp) owned by root or ME will do."""
    me = os.geteuid() if me is None else me
    if st.st_uid not in (0, me):
        return "its directory %s is owned by %s (uid %d), not by root%s" % (
            real, user_name(st.st_uid), st.st_uid,
            " or you" if me != 0 else "")
    mode = stat.S_IMODE(st.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH) \
            and not (sticky and mode & stat.S_ISVTX):
        return "its directory %s is writable by %s (mode %04o)" % (
            real, "others" if mode & stat.S_IWOTH else "its group", mode)
    return None


def open_dir(path, sticky=False):
    """The directory PATH, opened O_PATH for writing in it with the *at
    calls (an OpenedDir, to close), or NotOpened with why in one line.

    PATH is walked by the opening rule (_open_strict): one component at
    a time with O_PATH | O_NOFOLLOW, each a directory, a symbolic link
    followed only if root (or the caller) owns it.  The directory
    reached must be owned by root (or the caller) and writable by nobody
    else (dir_distrust); or, only where the caller asks with STICKY (a
    file that must be in /tmp: perf's /tmp/perf-PID.map), a sticky
    directory, in which a name is another user's only if they made it.

    Why that is enough where an ancestor belongs to another account (root
    writing /var/lib/prometheus/node-exporter/FILE, /var/lib/prometheus
    being the prometheus user's): that account can rename or move what
    is in its own directory, so it decides which directory the walk
    reaches, but every link on the way must be root's, and the directory
    reached must be root's and writable by root alone.  The most it can
    do is move such a directory that already sits in its own tree (it
    cannot move one in from elsewhere: that needs write access to where
    it is), or rename it after it was opened: the write then lands in
    that same root-owned directory, under the name asked for, never in
    a directory of its choosing (/etc/apt/apt.conf.d is not in its
    tree) nor through a link of its own.  Everything is then done
    relative to the descriptor, so nothing it swaps after the walk
    changes where the file goes."""
    if path == "":
        raise NotOpened(os.strerror(_errno.ENOENT), _errno.ENOENT)
    fd, st, real = _open_strict(path, directory=True)
    why = dir_distrust(st, real, sticky)
    if why:
        os.close(fd)
        raise NotOpened(why)
    return OpenedDir(fd, st, real)


TEMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
              | os.O_CLOEXEC)


def _unlink_temp(dfd, tmp, made):
    """Remove the temporary file TMP of directory DFD: ours for sure if
    MADE (its open returned); otherwise its open may have been
    interrupted after it made the file (an interrupt raised as the call
    returns), and it is removed only if it is an empty regular file of
    ours (its random name is nobody else's to guess)."""
    try:
        if not made:
            st = os.stat(tmp, dir_fd=dfd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() \
                    or st.st_size != 0:
                return
        os.unlink(tmp, dir_fd=dfd)
    except OSError:
        pass


def _replace_in(dfd, name, data, sync):
    """Write the bytes DATA as NAME in the directory DFD: a new file,
    made with O_EXCL | O_NOFOLLOW under a random name, written, mode
    0644, on the disk first with SYNC, renamed over NAME.  The temporary
    file is removed whatever goes wrong (an OSError, an interrupt, any
    other exception); OSError is passed on."""
    fd = tmp = None
    made = False
    prefix = "." + os.fsdecode(os.fsencode(name)[:200]) + "."
    try:
        for _ in range(100):
            tmp = prefix + os.urandom(6).hex()
            try:
                fd = os.open(tmp, TEMP_FLAGS, 0o600, dir_fd=dfd)
                made = True
                break
            except FileExistsError:
                tmp = None
            except OSError:
                tmp = None
                raise
        else:
            raise FileExistsError(_errno.EEXIST, "no free temporary name")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, 0o644)
        if sync:
            os.fsync(fd)
        os.close(fd)
        fd = None
        os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        tmp = None
        if sync:
            # The rename, on the disk too.
            d = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC,
                        dir_fd=dfd)
            try:
                os.fsync(d)
            finally:
                os.close(d)
    finally:
        if tmp is not None:
            _unlink_temp(dfd, tmp, made or fd is not None)
        if fd is not None:
            os.close(fd)


def replace_file(path, text, sync=False, sticky=False):
    """Write TEXT (a str, written as UTF-8, or bytes) to PATH by renaming
    a complete file (mode 0644) over it, so that a reader never sees
    half of it; with SYNC, on the disk first.  PATH's directory is
    opened by open_dir (STICKY: a sticky directory will do) and the file
    made and renamed in it through that descriptor only, never through
    a link.  One clear Error if it cannot be done (PATH is then
    unchanged and no temporary file is left, whatever the exception)."""
    d, name = os.path.split(path)
    if name in ("", ".", ".."):
        raise Error("cannot write %s: not a file name" % path)
    try:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise Error("cannot write %s: the text holds %r, which is not "
                    "UTF-8 (at %d)" % (path, e.object[e.start:e.end],
                                       e.start))
    try:
        od = open_dir(d or ".", sticky=sticky)
    except NotOpened as e:
        raise Error("cannot write %s: %s" % (path, e))
    try:
        _replace_in(od.fd, name, data, sync)
    except OSError as e:
        raise Error("cannot write %s: %s" % (path, e.strerror or e))
    finally:
        od.close()


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
