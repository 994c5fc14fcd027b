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

"""Making one entry of the shared cache: its zones filled on hugetlbfs
from the file (or taken from an entry of the same bytes), checked, and
published by rename(2) of the complete directory (see commands/cache.py
for the subcommands and entry.py for the cache's layout)."""

import errno
import fcntl
import mmap
import os

from ..common import Error, HUGE, plural
from ..openfile import NotOpened, hidden_by, open_regular
from ..planner import cache_dir, mount_dir
from ..pool import pool_info
from . import entry, mount
from .entry import TMP
from .mount import open_dir

CHUNK = 8 << 20


def same_file(st, ident):
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns) == (ident["dev"], ident["ino"], ident["size"],
                                ident["mtime_ns"], ident["ctime_ns"])


def kinds_text(by):
    return ", ".join("%s %d" % kv for kv in by.items())


def notext_text(c):
    """What `cache add' says of an entry whose text is left out (C, the
    helper's cache member)."""
    return ("%s (it holds %s); its text gets the next backing, private "
            "or thp" % (c["notext"]["why"], c["notext"]["found"]))


class PoolTooSmall(Exception):
    pass


class NotFitted(Error):
    """An entry the pool (or the hugetlbfs's size=) has no room for:
    the machine's sizing, not a fault of the file or of the cache."""


def fill_zone(dirfd, z, src, name):
    """Make the file of zone Z in directory DIRFD: Z's size of huge pages,
    the bytes from SRC (the object's descriptor) where the zone has
    them, zeros elsewhere; read-only for everybody."""
    size = z["size"]
    if size <= 0 or size % HUGE or z["copy_offset"] + z["copy_len"] > size:
        raise Error("%s: the helper planned a bad zone %s" % (name,
                                                              z["name"]))
    fd = os.open(z["name"], os.O_RDWR | os.O_CREAT | os.O_EXCL |
                 os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dirfd)
    try:
        # Take the pages now: a page missing later would be a SIGBUS.
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.ENOMEM):
                raise PoolTooSmall()
            raise Error("%s: fallocate on hugetlbfs: %s" % (name,
                                                            e.strerror))
        m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED,
                      prot=mmap.PROT_READ | mmap.PROT_WRITE)
        try:
            done = 0
            view = memoryview(m)
            try:
                while done < z["copy_len"]:
                    a = z["copy_offset"] + done
                    part = view[a:a + min(CHUNK, z["copy_len"] - done)]
                    try:
                        n = os.preadv(src, [part], z["fileoff"] + done)
                    finally:
                        part.release()
                    if n <= 0:
                        break
                    done += n
            finally:
                view.release()
        finally:
            m.close()
        if done < z["copy_need"]:
            raise Error("%s: not cached: shorter than its program headers "
                        "say" % name)
        os.fchmod(fd, 0o444)
    finally:
        os.close(fd)


def open_inode_dir(top, name, what):
    """The inode directory NAME (made if need be) with a shared lock
    held, so that prune cannot remove it while an entry is made in it."""
    for _ in range(10):
        try:
            os.mkdir(name, 0o755, dir_fd=top)
        except FileExistsError:
            pass
        try:
            fd = open_dir(top, name)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise Error("%s: not cached: %s/%s: %s" % (
                what, cache_dir(), name, e.strerror if e.errno != errno.ELOOP
                else "a symbolic link (remove it: hugeld cache prune)"))
        st = os.fstat(fd)
        if st.st_uid == 0:
            os.fchmod(fd, 0o755)
        why = mount.untrusted(os.fstat(fd), True)
        if why:
            os.close(fd)
            raise Error("%s: not cached: %s/%s is %s (remove it: hugeld "
                        "cache prune)" % (what, cache_dir(), name, why))
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            now = os.stat(name, dir_fd=top, follow_symlinks=False)
            if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)
    raise Error("%s: not cached: %s/%s keeps being removed" % (
        what, cache_dir(), name))


def same_bytes(fd, c, src):
    """Whether the zone files of the entry directory FD hold what the
    file open as SRC has where ld.so would map it."""
    for z in c["zones"]:
        zfd = os.open(z["name"], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                      os.O_CLOEXEC, dir_fd=fd)
        try:
            m = mmap.mmap(zfd, z["size"], flags=mmap.MAP_SHARED,
                          prot=mmap.PROT_READ)
        finally:
            os.close(zfd)
        try:
            done = 0
            while done < z["copy_len"]:
                n = min(CHUNK, z["copy_len"] - done)
                a = z["copy_offset"] + done
                if os.pread(src, n, z["fileoff"] + done) != m[a:a + n]:
                    return False
                done += n
            # Outside the file's bytes the zone is zero, as ld.so
            # checks (hp_entry_matches in elf/dl-hugepage-back.c).
            for a, b in ((0, z["copy_offset"]),
                         (z["copy_offset"] + z["copy_len"], z["size"])):
                for s in range(a, b, CHUNK):
                    if m[s:min(b, s + CHUNK)].count(0) != min(b, s + CHUNK) - s:
                        return False
        finally:
            m.close()
    return True


def mark_file(fd, name):
    """An empty file NAME, read-only, in the entry directory FD."""
    try:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                         os.O_NOFOLLOW | os.O_CLOEXEC, 0o444, dir_fd=fd))
    except FileExistsError:
        pass


def mark_device(fd, c):
    """Record in the entry directory FD the device of the file C was
    planned from: ld.so serves the entry without comparing only to
    files on that device (elf/dl-hugepage-cache.h)."""
    mark_file(fd, c["device"])


def entry_match(inodefd, c, src):
    """What the version directory of C holds for the file open as SRC:
    None (no complete, trusted entry), "same" (made from this file, or
    holding its bytes), or "other" (another file's, on another file
    system, with the same inode number, times and build ID).  An entry
    whose bytes are compared equal gets this file's device recorded."""
    try:
        fd = open_dir(inodefd, c["version"])
    except OSError:
        return None
    try:
        if mount.untrusted(os.fstat(fd), True):
            return None
        for z in c["zones"]:
            try:
                st = os.stat(z["name"], dir_fd=fd, follow_symlinks=False)
            except OSError:
                return None
            if mount.untrusted(st, False) or st.st_size != z["size"]:
                return None
        # An entry with other zones (one with text that is now left
        # out) is not this file's: it is replaced.
        e = entry.read_entry(inodefd, c["inode"], c["version"],
                             os.fstat(fd))
        if not entry.same_zones(e.zones, e.notext, c):
            return None
        if not c["overlay"] and c["device"] in os.listdir(fd):
            return "same"
        if not same_bytes(fd, c, src):
            return "other"
        if not c["overlay"]:
            mark_device(fd, c)
        return "same"
    finally:
        os.close(fd)


def collision(name, inodefd, c):
    return Error("%s: not cached: %s/%s/%s was made from another file (%s) "
                 "with the same inode number, size, times and build ID, on "
                 "another file system; ld.so serves it only to that file "
                 "(remove it first: hugeld cache remove)" % (
                     name, cache_dir(), c["inode"], c["version"],
                     version_source(inodefd, c["version"]) or "unknown"))


def add_one(top, name, o):
    """Cache the object NAME, which the helper planned as O.  Returns
    the line to print."""
    c = o["cache"]
    if c["why_not"]:
        raise Error("%s: not cached: %s" % (name, c["why_not"]))
    try:
        f = open_regular(name)
    except NotOpened as e:
        raise Error("%s: not cached: %s" % (name, e))
    src, st = f.fd, f.st
    try:
        # Everybody can read the cache (ld.so runs as every user), the
        # bytes and the path under source/: only what everybody can
        # read anyway goes there, through its real path.
        hidden = hidden_by(f)
        if hidden:
            raise Error("%s: not cached: %s, and everybody could read its "
                        "cache entry" % (name, hidden))
        if not same_file(st, c["identity"]):
            raise Error("%s: not cached: it changed while it was planned; "
                        "try again" % name)
        inodefd = open_inode_dir(top, c["inode"], name)
        done = False
        try:
            line = build(inodefd, name, src, c)
            done = True
            served = served_text(o)
            return line + ("; " + served if served else "")
        finally:
            os.close(inodefd)
            if not done:
                # Nothing left behind: not even the directory we made.
                entry.remove_empty_inode(top, c["inode"])
    finally:
        f.close()


def version_source(inodefd, version):
    """The path entry VERSION of directory INODEFD was made from, or
    None."""
    try:
        fd = open_dir(inodefd, version)
    except OSError:
        return None
    try:
        return entry.read_source(fd)
    finally:
        os.close(fd)


def served_text(o):
    """What an entry of the program O serves when the kernel starts it,
    or "" for a library."""
    if not o.get("interp"):
        return ""
    if o["type"] == "DYN":
        return ("a position-independent program: started by the kernel "
                "(hugeld its PT_INTERP, or the system's loader), ld.so moves "
                "it where this entry fits before it runs, but under a "
                "debugger that traces it from its start")
    return "its addresses are fixed: every start maps this entry"


def build(inodefd, name, src, c):
    """Make the entry C (the helper's "cache" member of the file SRC, a
    descriptor, opened as NAME) in the inode directory INODEFD: filled
    in a .tmp-* directory, checked, published by rename.  The line that
    says what was done; an Error (NotFitted: the pool is too small)."""
    by = {}
    for z in c["zones"]:
        by[z["kind"]] = by.get(z["kind"], 0) + z["size"] // HUGE
    where = "%s/%s/%s" % (cache_dir(), c["inode"], c["version"])
    match = entry_match(inodefd, c, src)
    if match == "same":
        return "%s: already cached%s" % (
            name, "; " + notext_text(c) if c.get("notext") else "")
    if match == "other":
        raise collision(name, inodefd, c)
    tmp = "%s%s-%d" % (TMP, c["version"], os.getpid())
    try:
        os.mkdir(tmp, 0o700, dir_fd=inodefd)
    except OSError as e:
        raise Error("%s: not cached: cannot make %s/%s/%s: %s" % (
            name, cache_dir(), c["inode"], tmp, e.strerror))
    published = False
    tfd = open_dir(inodefd, tmp)
    try:
        fill(inodefd, tfd, tmp, name, src, c, sum(by.values()))
        published = publish(inodefd, tmp, name, src, c, where)
        if not published:
            # Another `cache add' of the same file was faster.
            return "%s: already cached" % name
    except OSError as e:
        raise Error("%s: not cached: %s" % (name, e.strerror or e))
    finally:
        if not published:
            try:
                entry.remove_name(inodefd, tmp)
            except OSError:
                pass
        os.close(tfd)
    line = "cached %s: %s (%s) in %s" % (
        name, plural(sum(by.values()), "huge page"), kinds_text(by), where)
    if c.get("notext"):
        line += "; " + notext_text(c)
    old = remove_older(inodefd, name, c)
    if old:
        line += "; %s removed" % plural(old, "stale entry", "stale entries")
    return line


def fill(inodefd, tfd, tmp, name, src, c, pages):
    """Fill the .tmp-* directory TMP (TFD, in INODEFD) with the zones of
    the entry C (PAGES in all) from SRC, its marks and its source."""
    # Prune leaves a locked .tmp-* alone.
    fcntl.flock(tfd, fcntl.LOCK_EX)
    os.fchmod(tfd, 0o700)
    try:
        for z in c["zones"]:
            fill_zone(tfd, z, src, name)
        if not c["overlay"]:
            mark_device(tfd, c)
        if c.get("notext"):
            mark_file(tfd, c["notext"]["marker"])
    except PoolTooSmall:
        entry.remove_name(inodefd, tmp)
        p = pool_info() or {"free": 0, "total": 0}
        raise NotFitted("%s: not cached: the huge page pool is too small: "
                        "the entry needs %s, HugePages_Free is %d (grow "
                        "nr_hugepages, or `hugeld cache prune')" % (
                            name, plural(pages, "huge page"), p["free"])
                        if p["free"] < pages else
                        "%s: not cached: no space on the hugetlbfs at %s "
                        "(its size= limit?) for %s" % (
                            name, mount_dir(), plural(pages, "huge page")))
    entry.write_source(tfd, os.path.realpath(name))
    if not same_file(os.fstat(src), c["identity"]):
        raise Error("%s: not cached: it changed while it was copied; "
                    "try again" % name)
    os.fchmod(tfd, 0o755)


def publish(inodefd, tmp, name, src, c, where):
    """Rename the filled TMP (in INODEFD) to the entry's name
    (WHERE): whether it was published (False: another `cache add' of
    the same file published one first)."""
    match = entry_match(inodefd, c, src)
    if match is None:
        # An incomplete or untrusted one (another hugeld's): away.
        try:
            entry.remove_name(inodefd, c["version"])
        except FileNotFoundError:
            pass
    elif match == "other":
        raise collision(name, inodefd, c)
    try:
        os.rename(tmp, c["version"], src_dir_fd=inodefd, dst_dir_fd=inodefd)
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise Error("%s: not cached: rename into %s: %s" % (
                name, where, e.strerror))
        return False
    return True


def remove_older(inodefd, name, c):
    """Remove the older versions of NAME's entry C in INODEFD (of no use
    any more): how many.  Entries are named by inode number without the
    device (so that every mount of a file shares one), so the directory
    can also hold another file system's file of the same number: only
    versions made from this path are this file's."""
    old = [v for v in os.listdir(inodefd)
           if v != c["version"] and not v.startswith(".")
           and version_source(inodefd, v) == os.path.realpath(name)]
    for v in old:
        try:
            entry.remove_name(inodefd, v)
        except OSError:
            pass
    return len(old)
