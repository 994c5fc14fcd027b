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

"""Reading ELF files: program headers, symbols, build IDs and debug links."""

import os
import re
import struct

from .common import Error, PAGE, which
from .openfile import NotOpened, open_regular


PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_NOTE = 1, 2, 3, 4

# The most program headers this reader reads of any ELF file (core
# files have one per mapping).  Not ld.so's limit for planning an
# object: what ld.so plans, hugeld-plan says with ld.so's own code and
# limits (hugeld-plan --settings: "program_headers").
# The machine of the objects the loader runs: this machine's (e_machine,
# name); x86-64 (62) or AArch64 (183).
NATIVE_MACHINE = {"aarch64": (183, "aarch64")}.get(os.uname().machine,
                                                  (62, "x86-64"))
READ_MAX_PHNUM = 1024
SHT_SYMTAB, SHT_DYNSYM = 2, 11
STT_FUNC, STT_GNU_IFUNC = 2, 10
ET_EXEC, ET_DYN = 2, 3


class Phdr(object):
    __slots__ = ("type", "flags", "offset", "vaddr", "filesz", "memsz",
                 "align")

    def __init__(self, t, flags, offset, vaddr, filesz, memsz, align):
        self.type, self.flags, self.offset = t, flags, offset
        self.vaddr, self.filesz, self.memsz, self.align = \
            vaddr, filesz, memsz, align


class Elf(object):
    """Just enough of an ELF64 little-endian reader."""

    def __init__(self, path, display=None, opened=None):
        """The ELF file at PATH (named DISPLAY in messages), or the one
        already OPENED there (an openfile.Opened, now this reader's)."""
        self.path = path
        self.name = display or path
        # Never a FIFO or a device: a process's mappings name them too.
        if opened is None:
            try:
                opened = open_regular(path, trusted_links=False)
            except NotOpened as e:
                raise Error("%s: %s" % (self.name, e))
        o = opened
        self.f = os.fdopen(o.fd, "rb")
        o.fd = None
        st = o.st
        self.dev_ino = (st.st_dev, st.st_ino)
        try:
            h = os.pread(self.f.fileno(), 64, 0)
        except OSError as e:
            self.f.close()
            raise Error("%s: %s" % (self.name, e.strerror))
        if len(h) < 4 or h[:4] != b"\x7fELF":
            raise Error("%s is not an ELF file%s" % (
                self.name, " (a script? run its interpreter: "
                "hugeld run -- INTERPRETER %s)" % self.name
                if h[:2] == b"#!" else ""))
        if len(h) < 64 or h[4] != 2 or h[5] != 1:
            raise Error("%s: not a 64-bit little-endian ELF file" % self.name)
        (self.type, self.machine, _, _, self.phoff, self.shoff, _, _,
         self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", h, 16)
        if self.machine != NATIVE_MACHINE[0]:
            raise Error("%s: ELF machine %d, not %s" %
                        (self.name, self.machine, NATIVE_MACHINE[1]))
        self.phdrs = []
        if self.phentsize == 56 and 0 < self.phnum < READ_MAX_PHNUM:
            data = self.read(self.phoff, 56 * self.phnum)
            for i in range(len(data) // 56):
                t, fl, off, va, _, fs, ms, al = struct.unpack_from(
                    "<IIQQQQQQ", data, 56 * i)
                self.phdrs.append(Phdr(t, fl, off, va, fs, ms, al))
        self.loads = [p for p in self.phdrs
                      if p.type == PT_LOAD and p.memsz > 0]
        self._sections = None

    def fileno(self):
        """The descriptor read from: /proc/self/fd/N is this file, for
        a helper (planner.run_helper's pass_fds)."""
        return self.f.fileno()

    def read(self, off, n):
        # pread: one reader may serve threads at once (status --all
        # goes on while a process that does not answer is still read).
        try:
            return os.pread(self.f.fileno(), n, off)
        except (OSError, OverflowError, ValueError):
            return b""

    def close(self):
        self.f.close()

    @property
    def interp(self):
        for p in self.phdrs:
            if p.type == PT_INTERP:
                return self.read(p.offset, p.filesz).split(b"\0")[0] \
                    .decode("utf-8", "surrogateescape")
        return None

    @property
    def dynamic(self):
        return any(p.type == PT_DYNAMIC for p in self.phdrs)

    def extent(self):
        if not self.loads:
            return (0, 0)
        return (min(p.vaddr for p in self.loads) & -PAGE,
                max((p.vaddr + p.memsz + PAGE - 1) & -PAGE
                    for p in self.loads))

    def sections(self):
        if self._sections is None:
            self._sections = []
            if self.shentsize == 64 and 0 < self.shnum < 65536 and self.shoff:
                data = self.read(self.shoff, 64 * self.shnum)
                for i in range(len(data) // 64):
                    self._sections.append(struct.unpack_from(
                        "<IIQQQQIIQQ", data, 64 * i))
            names = None
            if self.shstrndx < len(self._sections):
                s = self._sections[self.shstrndx]
                names = self.read(s[4], s[5])
            out = []
            for s in self._sections:
                nm = ""
                if names is not None and s[0] < len(names):
                    end = names.find(b"\0", s[0])
                    nm = names[s[0]:end if end >= 0 else None] \
                        .decode("utf-8", "replace")
                out.append({"name": nm, "type": s[1], "flags": s[2],
                            "addr": s[3], "offset": s[4], "size": s[5],
                            "link": s[6], "entsize": s[9]})
            self._sections = out
        return self._sections

    def has_symtab(self):
        return any(s["type"] == SHT_SYMTAB and s["size"] > 0
                   for s in self.sections())

    def functions(self, which):
        """(value, size, name, bind) of the defined functions of the
        SHT_SYMTAB or SHT_DYNSYM table."""
        secs = self.sections()
        out = []
        for s in secs:
            if s["type"] != which or s["size"] == 0:
                continue
            if s["link"] >= len(secs):
                continue
            link = secs[s["link"]]
            strs = self.read(link["offset"], link["size"])
            data = self.read(s["offset"], s["size"])
            for (name, info, _, shndx, value, size) in \
                    struct.iter_unpack("<IBBHQQ", data[:len(data) // 24 * 24]):
                if shndx == 0 or (info & 0xf) not in (STT_FUNC, STT_GNU_IFUNC):
                    continue
                end = strs.find(b"\0", name)
                if name == 0 or end < 0:
                    continue
                out.append((value, size, strs[name:end].decode(
                    "utf-8", "replace"), info >> 4))
        return out

    def build_id(self):
        for p in self.phdrs:
            if p.type != PT_NOTE:
                continue
            data = self.read(p.offset, min(p.filesz, 65536))
            i = 0
            while i + 12 <= len(data):
                namesz, descsz, ntype = struct.unpack_from("<III", data, i)
                name = data[i + 12:i + 12 + namesz]
                d0 = i + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and name.rstrip(b"\0") == b"GNU":
                    return data[d0:d0 + descsz].hex()
                i = d0 + ((descsz + 3) & ~3)
        for s in self.sections():
            if s["name"] == ".note.gnu.build-id":
                data = self.read(s["offset"], s["size"])
                if len(data) > 16:
                    namesz, descsz, _ = struct.unpack_from("<III", data, 0)
                    d0 = 12 + ((namesz + 3) & ~3)
                    return data[d0:d0 + descsz].hex()
        return None

    def debuglink(self):
        for s in self.sections():
            if s["name"] == ".gnu_debuglink":
                return self.read(s["offset"], s["size"]).split(b"\0")[0] \
                    .decode("utf-8", "surrogateescape")
        return None


def is_hugeld_loader(elf, ldso, _cache={}):
    """Is ELF (an open Elf) hugeld's ld.so: the installed one LDSO, or
    any build of it (its version string names hugeld)?  Decided from
    the file ELF opened, never from a path: a process names its loader
    by a path that is its to choose (a link to LDSO, a FIFO or a device
    put where its own copy was)."""
    try:
        st = os.stat(ldso)
        if (st.st_dev, st.st_ino) == elf.dev_ino:
            return True
    except OSError:
        pass
    if elf.dev_ino not in _cache:
        _cache[elf.dev_ino] = re.search(rb"GLIBC [^\0)]* hugeld [0-9]",
                                        elf.read(0, 8 << 20)) is not None
    return _cache[elf.dev_ino]


def interp_is_hugeld_loader(interp, ldso):
    """(whether the program interpreter INTERP, a path a program's
    PT_INTERP names, is hugeld's ld.so; why not, if it could not be
    read): opened by the opening rule, so a FIFO or a device there is
    never opened."""
    if not interp:
        return False, None
    try:
        elf = Elf(interp)
    except Error as e:
        return False, str(e)[len(interp) + 2:] \
            if str(e).startswith(interp + ": ") else str(e)
    try:
        return is_hugeld_loader(elf, ldso), None
    finally:
        elf.close()


def resolve_program(prog):
    """PROG as a shell would run it: searched in PATH if it has no
    slash."""
    if "/" in prog:
        path = prog
    else:
        path = which(prog)
        if path is None:
            raise Error("%s: command not found" % prog)
    if not os.path.exists(path):
        raise Error("%s: no such file" % path)
    if os.path.isdir(path):
        raise Error("%s: is a directory" % path)
    return path


def check_program(path):
    """The ELF program at PATH, which hugeld's loader can run."""
    elf = Elf(path)
    if elf.type not in (ET_EXEC, ET_DYN):
        raise Error("%s: not an executable (ELF type %d)" % (path, elf.type))
    if not elf.dynamic:
        raise Error("%s is statically linked: no dynamic loader is involved, "
                    "so hugeld cannot place it" % path)
    return elf
