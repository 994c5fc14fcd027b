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

"""/tmp/perf-PID.map: names for the functions in a process's huge-page
text, which perf shows as anonymous memory (hugeld perf-map, and
hugeld run --perf-map while the program runs)."""

import os
import stat
import sys

from .common import DEBUG_DIR, Error, shown
from .elf import Elf, SHT_DYNSYM, SHT_SYMTAB
from .openfile import replace_file
from .procfs import process_objects, read_smaps


def find_debug_file(elf, debug_dirs):
    bid = elf.build_id()
    if bid and len(bid) > 2:
        for d in debug_dirs:
            p = os.path.join(d, ".build-id", bid[:2], bid[2:] + ".debug")
            if os.path.isfile(p):
                try:
                    dbg = Elf(p)
                except Error:
                    continue
                if dbg.build_id() == bid:
                    return dbg
                dbg.close()
    link = elf.debuglink()
    if link:
        where = os.path.dirname(os.path.realpath(elf.name))
        for d in [where, os.path.join(where, ".debug")] + \
                [d + where for d in debug_dirs]:
            p = os.path.join(d, link)
            if os.path.isfile(p) and os.path.realpath(p) != \
                    os.path.realpath(elf.name):
                try:
                    dbg = Elf(p)
                except Error:
                    continue
                if dbg.has_symtab():
                    return dbg
                dbg.close()
    return None


def function_symbols(elf, debug_dirs, cache):
    """The functions of ELF, sorted, without aliases: from .symtab if it
    has one, else from a separate debug file (build ID or debuglink),
    else from .dynsym."""
    key = ("syms", elf.dev_ino)
    if key in cache:
        return cache[key]
    source = None
    syms = []
    if elf.has_symtab():
        syms, source = elf.functions(SHT_SYMTAB), ".symtab"
    else:
        dbg = find_debug_file(elf, debug_dirs)
        if dbg is not None and dbg.has_symtab():
            syms, source = dbg.functions(SHT_SYMTAB), dbg.path
            dbg.close()
        else:
            syms, source = elf.functions(SHT_DYNSYM), ".dynsym"
    # One name per address: global before weak before local.
    rank = {1: 0, 2: 1, 0: 2}
    best = {}
    for v, size, name, bind in syms:
        k = best.get(v)
        r = (rank.get(bind, 3), 0 if size else 1)
        if k is None or r < k[0]:
            best[v] = (r, size, name)
    addrs = sorted(best)
    out = []
    for i, v in enumerate(addrs):
        _, size, name = best[v]
        if size == 0 and i + 1 < len(addrs):
            size = min(addrs[i + 1] - v, 1 << 20)
        if size > 0:
            out.append((v, size, name))
    cache[key] = (out, source)
    return out, source


# Code no symbol covers (a stripped object: .dynsym names only what it
# exports) is named by the object and its address in it, in pieces of
# this many bytes: what perf shows for a file-backed object without
# symbols (its name, and the address addr2line and objdump take).
UNNAMED_CHUNK = 4096


def unnamed(code, named, bias, obj):
    """Entries (address, size, name) for the parts of the mappings CODE
    that no entry of NAMED covers: OBJ+0xADDRESS (the unrelocated
    address, BIAS off), in UNNAMED_CHUNK pieces."""
    out = []
    spans = sorted((a, a + size) for a, size, _ in named)
    for m in code:
        at, i = m.start, 0
        while at < m.end:
            while i < len(spans) and spans[i][1] <= at:
                i += 1
            if i < len(spans) and spans[i][0] <= at:
                at = spans[i][1]
                continue
            stop = min(m.end, spans[i][0] if i < len(spans) else m.end,
                       (at // UNNAMED_CHUNK + 1) * UNNAMED_CHUNK)
            out.append((at, stop - at, "%s+0x%x" % (obj, at - bias)))
            at = stop
    return out


def perf_map_entries(pid, debug_dirs, cache):
    maps = read_smaps(pid)
    objs, _ = process_objects(pid, maps, cache)
    entries = []
    report = []
    ranges = []
    for o in objs:
        code = [m for m in o.huge if "x" in m.perms]
        ranges += [(m.start, m.end) for m in o.huge]
        if not code:
            continue
        syms, source = function_symbols(o.elf, debug_dirs, cache)
        named = []
        for v, size, name in syms:
            a = v + o.bias
            for m in code:
                if a < m.end and a + size > m.start:
                    named.append((a, size, name))
                    break
        rest = unnamed(code, named, o.bias, os.path.basename(o.path))
        entries += named + rest
        report.append({"path": o.path, "symbols": len(named),
                       "source": source,
                       "unnamed": sum(size for _, size, _ in rest)})
    entries.sort()
    return entries, report, ranges


def write_perf_map(pid, output, debug_dirs, cache, quiet=False):
    entries, report, ranges = perf_map_entries(pid, debug_dirs or
                                               [DEBUG_DIR], cache)
    # A symbol's name is any bytes of the file's: one line each.
    lines = ["%x %x %s\n" % (a, size, shown(name))
             for a, size, name in entries]
    if output == "-":
        sys.stdout.write("".join(lines))
        return report, None
    path = output or "/tmp/perf-%d.map" % pid
    if not entries and not output:
        return report, None
    kept = []
    if not output:
        # /tmp is everybody's: never follow a link, keep what others
        # (JIT compilers) wrote about other memory of the process.
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise Error("%s: %s" % (path, e.strerror))
        if st is not None:
            if not stat.S_ISREG(st.st_mode):
                raise Error("%s exists and is not a regular file; not "
                            "touching it" % path)
            if st.st_uid not in (0, os.geteuid()):
                raise Error("%s belongs to user %d; not touching it"
                            % (path, st.st_uid))
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "r", errors="replace") as f:
                    for line in f:
                        try:
                            a = int(line.split(None, 1)[0], 16)
                        except (ValueError, IndexError):
                            kept.append(line)
                            continue
                        if not any(s <= a < e for s, e in ranges):
                            kept.append(line if line.endswith("\n")
                                        else line + "\n")
            except OSError as e:
                raise Error("%s: %s" % (path, e.strerror))
    # perf looks for the file in /tmp, which is sticky and everybody's:
    # only there is a directory others may write in good enough.
    replace_file(path, "".join(kept) + "".join(lines), sticky=not output)
    return report, path
