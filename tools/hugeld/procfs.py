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

"""Running processes: /proc/PID/smaps, maps, environ and their objects."""

import errno
import os

from .common import Error, HUGE, PAGE
from .elf import Elf
from .openfile import NotOpened, open_regular
from .planner import cache_dir


class Mapping(object):
    __slots__ = ("start", "end", "perms", "offset", "dev", "inode", "path",
                 "kps", "hugetlb", "shared_hugetlb", "rss", "deleted",
                 "anon_thp", "file_thp", "advised")

    def __init__(self, line):
        f = line.split(None, 5)
        a, b = f[0].split("-")
        self.start, self.end = int(a, 16), int(b, 16)
        self.perms = f[1]
        self.offset = int(f[2], 16)
        mj, mn = f[3].split(":")
        self.dev = (int(mj, 16), int(mn, 16))
        self.inode = int(f[4])
        path = f[5].rstrip("\n") if len(f) > 5 else ""
        self.deleted = path.endswith(" (deleted)")
        self.path = path[:-10] if self.deleted else path
        self.kps = 4
        self.hugetlb = 0
        self.shared_hugetlb = 0
        self.rss = 0
        self.anon_thp = 0       # AnonHugePages, bytes.
        self.file_thp = 0       # FilePmdMapped: page-cache huge pages.
        self.advised = False    # VmFlags hg: MADV_HUGEPAGE.

    @property
    def huge(self):
        return self.kps > PAGE // 1024

    @property
    def cached(self):
        """Mapped from a file of the shared cache (LD_HUGEPAGE_BACKING
        shared): the same huge pages in every process, not the pool's
        per process."""
        return self.huge and self.path.startswith(cache_dir() + "/")

    def backing(self):
        """How the loader backed this mapping of an object: shared,
        private, or thp (a mapping with transparent huge pages)."""
        if self.huge:
            if self.cached:
                return "shared"
            if self.path.startswith("/anon_hugepage") or not self.path:
                return "private"
            return "hugetlbfs file"
        if self.inode == 0:
            return "thp (anonymous, %d kB)" % (self.anon_thp // 1024)
        return "thp (page cache, %d kB)" % (self.file_thp // 1024)


def proc_error(pid, e, what):
    if isinstance(e, (FileNotFoundError, ProcessLookupError)) or \
            e.errno in (errno.ENOENT, errno.ESRCH):
        return Error("process %d does not exist (or has exited)" % pid)
    if e.errno in (errno.EACCES, errno.EPERM):
        return Error("cannot read /proc/%d/%s: permission denied%s" % (
            pid, what, "" if os.geteuid() == 0
            else " (another user's process: run as root)"))
    return Error("cannot read /proc/%d/%s: %s" % (pid, what, e.strerror))


# PF_KTHREAD in the flags of /proc/PID/stat (include/linux/sched.h).
PF_KTHREAD = 0x00200000


def kernel_thread(pid):
    """Whether PID is a kernel thread (kthreadd, kworker/...): it has no
    memory of its own, so nothing of it is on huge pages.  False where
    /proc/PID/stat cannot be read (read_smaps then says why)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return bool(int(fields[6]) & PF_KTHREAD)
    except (OSError, ValueError, IndexError):
        return False


def read_smaps(pid):
    maps = []
    try:
        # A mapped file's name is any bytes but a newline (shown as
        # \012): kept as they are (surrogateescape), shown escaped; a
        # carriage return in it ends no line.
        with open("/proc/%d/smaps" % pid, encoding="utf-8",
                  errors="surrogateescape", newline="\n") as f:
            cur = None
            for line in f:
                k = line.split(None, 1)[0] if line.strip() else ""
                if "-" in k and not k.endswith(":"):
                    cur = Mapping(line)
                    maps.append(cur)
                elif cur is None:
                    continue
                elif k == "KernelPageSize:":
                    cur.kps = int(line.split()[1])
                elif k in ("Private_Hugetlb:", "Shared_Hugetlb:"):
                    cur.hugetlb += int(line.split()[1]) * 1024
                    if k == "Shared_Hugetlb:":
                        # Mapped by another process too (fork).
                        cur.shared_hugetlb += int(line.split()[1]) * 1024
                elif k == "Rss:":
                    cur.rss = int(line.split()[1]) * 1024
                elif k == "AnonHugePages:":
                    cur.anon_thp = int(line.split()[1]) * 1024
                elif k == "FilePmdMapped:":
                    cur.file_thp = int(line.split()[1]) * 1024
                elif k == "VmFlags:":
                    cur.advised = "hg" in line.split()[1:]
    except OSError as e:
        raise proc_error(pid, e, "smaps")
    if not maps and not os.path.exists("/proc/%d/exe" % pid):
        # A zombie has no memory.
        try:
            os.readlink("/proc/%d/exe" % pid)
        except OSError:
            raise Error("process %d does not exist (or has exited)" % pid)
    return maps


class ProcObject(object):
    def __init__(self, path, maps):
        self.path = path
        self.maps = maps
        self.elf = None
        self.bias = None
        self.extent = None
        self.huge = []
        self.thp = []           # Mappings with transparent huge pages.
        self.advised = False    # Executable mappings MADV_HUGEPAGE.


def open_mapped_elf(pid, m, cache):
    """The ELF file behind mapping M of process PID, or None.  What is
    read of it is read from the descriptor opened here, never again by
    a path: the path a mapping shows is the process's to choose (in its
    own mount namespace, or replaced after it was mapped: deleted, with
    a FIFO or a link to a device put at its name).  Tried in order:
    /proc/PID/map_files (the mapped file itself; root only), the path in
    the process's root, the path in ours; each opened by the command's
    opening rule (openfile: the type looked at without opening, and
    only a regular file opened, O_NONBLOCK), and taken only if the file
    opened has the mapping's device and inode."""
    key = (m.dev, m.inode)
    if key in cache:
        return cache[key]
    cands = ["/proc/%d/map_files/%x-%x" % (pid, m.start, m.end)]
    if not m.deleted:
        cands.append("/proc/%d/root%s" % (pid, m.path))
        cands.append(m.path)
    elf = None
    for c in cands:
        try:
            o = open_regular(c, trusted_links=False)
        except NotOpened:
            continue
        if o.st.st_ino != m.inode or (os.major(o.st.st_dev),
                                      os.minor(o.st.st_dev)) != m.dev:
            o.close()
            continue
        try:
            elf = Elf(c, display=m.path, opened=o)
        except Error:
            pass
        break
    cache[key] = elf
    return elf


def load_bias(elf, maps):
    """The load bias of ELF mapped as MAPS: what most of its file-backed
    mappings agree on."""
    votes = {}
    for m in maps:
        if m.perms.startswith("---"):
            continue        # ld.so's gaps keep the first segment's file.
        for p in elf.loads:
            o0 = p.offset & -PAGE
            o1 = (p.offset + p.filesz + PAGE - 1) & -PAGE
            if o0 <= m.offset < o1 and m.offset + (m.end - m.start) <= o1:
                b = m.start - ((p.vaddr & -PAGE) + (m.offset - o0))
                votes[b] = votes.get(b, 0) + (m.end - m.start)
                break
    if not votes:
        return None
    return max(votes.items(), key=lambda kv: kv[1])[0]


def text_coverage(ms):
    """How the executable file mappings MS of an object are mapped, in
    bytes: {"size", "pmd" (on the page cache's 2 MiB folios), "small"
    (on 4 KiB pages: the page cache held small folios, or the kernel
    could not map them huge), "unmapped" (not faulted in),
    "incongruent" (at an address not congruent to its file offset
    modulo 2 MiB, where no page-cache huge page can ever be mapped:
    counted in none of the others)}."""
    x = [m for m in ms if "x" in m.perms and not m.huge]
    off = [m for m in x if (m.start - m.offset) % HUGE]
    x = [m for m in x if not (m.start - m.offset) % HUGE]
    size = sum(m.end - m.start for m in x)
    pmd = sum(m.file_thp for m in x)
    rss = sum(m.rss for m in x)
    return {"size": size, "pmd": pmd, "small": max(rss - pmd, 0),
            "unmapped": max(size - rss, 0),
            "incongruent": sum(m.end - m.start for m in off)}


def process_objects(pid, maps, cache):
    """The ELF objects of the process and their huge page ranges."""
    groups = {}
    order = []
    for m in maps:
        if m.huge or m.inode == 0 or not m.path.startswith("/") \
                or m.path.startswith("/anon_hugepage"):
            continue
        key = (m.dev, m.inode, m.path)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(m)
    objs = []
    for key in order:
        ms = groups[key]
        elf = open_mapped_elf(pid, ms[0], cache)
        if elf is None or not elf.loads:
            continue
        o = ProcObject(key[2], ms)
        o.elf = elf
        o.bias = load_bias(elf, ms)
        if o.bias is None:
            continue
        lo, hi = elf.extent()
        o.extent = (o.bias + lo, o.bias + hi)
        o.thp = [m for m in ms if m.file_thp > 0]
        o.advised = any(m.advised for m in ms if "x" in m.perms)
        o.text = text_coverage(ms)
        objs.append(o)
    others = []
    for m in maps:
        if not m.huge:
            # An anonymous copy with transparent huge pages (thp
            # backing of a writable zone) inside an object is its.
            if m.inode == 0 and m.anon_thp > 0:
                for o in objs:
                    if o.extent[0] <= m.start and m.end <= o.extent[1]:
                        o.thp.append(m)
                        break
            continue
        owner = None
        for o in objs:
            if o.extent[0] <= m.start and m.end <= o.extent[1]:
                owner = o
                break
        if owner is None:
            others.append(m)
        else:
            owner.huge.append(m)
    return objs, others


def environ_bytes(pid):
    """The bytes of /proc/PID/environ: the environment process PID was
    started with, as its memory holds it now (glibc before 2.39 writes
    a NUL into GLIBC_TUNABLES after each value of a tunable it knows:
    hugeld-conf --environ puts it back together as ld.so saw it), or
    None if it cannot be read."""
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return f.read()
    except OSError:
        return None


def ldso_command_program(pid):
    """The program a `ld.so [OPTIONS] PROGRAM' process runs."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    takes = (b"--library-path", b"--glibc-hwcaps-prepend",
             b"--glibc-hwcaps-mask", b"--inhibit-rpath", b"--audit",
             b"--preload", b"--argv0")
    i = 1
    while i < len(argv) and argv[i].startswith(b"--"):
        i += 2 if argv[i] in takes else 1
    if i < len(argv) and argv[i]:
        return argv[i].decode("utf-8", "surrogateescape")
    return None


AT_SECURE = 23
AT_EXECFN = 31


def auxv(pid, key):
    """The value of KEY in process PID's auxiliary vector, or None."""
    try:
        with open("/proc/%d/auxv" % pid, "rb") as f:
            data = f.read()
    except OSError:
        return None
    for i in range(0, len(data) - 15, 16):
        if int.from_bytes(data[i:i + 8], "little") == key:
            return int.from_bytes(data[i + 8:i + 16], "little")
    return None


def at_secure(pid):
    """Whether process PID is AT_SECURE (set-user-ID, set-group-ID, file
    capabilities): ld.so then takes no LD_HUGEPAGE_* variable nor
    GLIBC_TUNABLES.  False if it cannot be read."""
    return bool(auxv(pid, AT_SECURE))


def execfn(pid):
    """The name process PID was started by (AT_EXECFN: the path given to
    execve, as ld.so sees it), read from its memory; None if that cannot
    be read (another user's process, not root)."""
    try:
        addr = auxv(pid, AT_EXECFN)
        if not addr:
            return None
        # The string is near the top of the stack: read page by page,
        # never past the end of the mapping.
        name = b""
        with open("/proc/%d/mem" % pid, "rb", buffering=0) as f:
            while b"\0" not in name and len(name) < 4096:
                f.seek(addr + len(name))
                part = f.read(PAGE - (addr + len(name)) % PAGE)
                if not part:
                    break
                name += part
        name = name.split(b"\0", 1)[0]
    except (OSError, ValueError, OverflowError):
        return None
    return name.decode("utf-8", "surrogateescape") or None


def process_cwd(pid):
    try:
        return os.readlink("/proc/%d/cwd" % pid)
    except OSError:
        return None


def command_of(pid):
    """Process PID's command name (any bytes the process chose, kept by
    surrogateescape: shown escaped), or ?."""
    try:
        with open("/proc/%d/comm" % pid, "rb") as f:
            return f.read().rstrip(b"\n").decode("utf-8", "surrogateescape")
    except OSError:
        return "?"
