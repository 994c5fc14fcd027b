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

"""hugeld gdb: gdb with the right symbols for a process or core."""

import os
import struct
import sys

from ..common import Error, HUGE, UsageError, ldso_arg, pid_arg, plural, shlex_quote, warn, which
from ..elf import Elf, PT_NOTE
from ..planner import parse_backing, plan_each, setting_variable
from ..pool import apply_pool, pool_info, read_int
from ..procfs import load_bias, process_objects, read_smaps
from ..registry import Command, argument, flag, settings, value
from ..report.collect import process_status
from ..report.diagnose import shared_code
from ..settings import checked_backing


class CoreMapping(object):
    """A file-backed mapping from a core file's NT_FILE note."""
    __slots__ = ("start", "end", "offset", "path", "perms")

    def __init__(self, start, end, offset, path):
        self.start, self.end, self.offset, self.path = start, end, offset, path
        self.perms = "r--p"


def core_notes(path):
    """NT_FILE mappings and NT_AUXV of the ELF core file PATH."""
    core = Elf(path)
    if core.type != 4:
        raise Error("%s is not a core file (ELF type %d)" % (path, core.type))
    files, auxv = [], {}
    for p in core.phdrs:
        if p.type != PT_NOTE:
            continue
        data = core.read(p.offset, p.filesz)
        i = 0
        while i + 12 <= len(data):
            namesz, descsz, ntype = struct.unpack_from("<III", data, i)
            d0 = i + 12 + ((namesz + 3) & ~3)
            desc = data[d0:d0 + descsz]
            i = d0 + ((descsz + 3) & ~3)
            if ntype == 0x46494c45 and len(desc) >= 16:        # NT_FILE
                count, psz = struct.unpack_from("<QQ", desc, 0)
                names = desc[16 + 24 * count:].split(b"\0")
                for k in range(min(count, len(names))):
                    s0, e0, o0 = struct.unpack_from("<QQQ", desc, 16 + 24 * k)
                    files.append(CoreMapping(s0, e0, o0 * psz, names[k].decode(
                        "utf-8", "surrogateescape")))
            elif ntype == 6:                                    # NT_AUXV
                for k in range(len(desc) // 16):
                    t, v = struct.unpack_from("<QQ", desc, 16 * k)
                    auxv.setdefault(t, v)
    core.close()
    return files, auxv


def gdb_argv_core(core, program, gdb_args, ldso):
    files, auxv = core_notes(core)
    groups = {}
    order = []
    for m in files:
        if m.path.startswith("/anon_hugepage") or not m.path.startswith("/"):
            continue
        if m.path not in groups:
            groups[m.path] = []
            order.append(m.path)
        groups[m.path].append(m)
    entry = auxv.get(9)                                        # AT_ENTRY
    exe = None
    loader = None
    progs = []
    elfs = []
    for path in order:
        try:
            elfs.append((path, Elf(path)))
        except Error:
            continue
    # DT_SONAME, as the helper reads it: ld.so's is ld-linux*, a library
    # has one, a program (the one ld.so ran) has a PT_INTERP and none.
    plans = plan_each([], [(p, p) for p, _ in elfs])
    for (path, elf), x in zip(elfs, plans):
        ms = groups[path]
        if any(m.start <= (entry or 0) < m.end for m in ms):
            exe = path
        soname = (x or {}).get("soname") or ""
        if soname.startswith("ld-linux"):
            loader = path
        elif elf.interp and not soname:
            progs.append((path, elf))
        else:
            elf.close()
    if exe is None:
        raise Error("%s: cannot tell which program it is of (no NT_FILE or "
                    "AT_ENTRY note)" % core)
    argv = ["gdb"]
    if exe != loader:
        # Started directly: gdb knows everything already.
        return argv + [program or exe, core] + gdb_args
    # `ld.so PROGRAM': gdb takes ld.so for the program and never loads
    # the real program's symbols; add them at the address it has.
    if program:
        sel = [(p, e) for p, e in progs
               if p == os.path.realpath(program)]
        if not sel:
            raise Error("%s is not mapped in %s" % (program, core))
    else:
        sel = progs
        if len(sel) != 1:
            raise Error("%s: cannot tell which program ld.so ran; give it "
                        "with --program" % core)
    path, elf = sel[0]
    bias = load_bias(elf, groups[path])
    if bias is None:
        raise Error("%s: cannot find where %s is mapped" % (core, path))
    return argv + [exe, core, "-ex", "set confirm off", "-ex",
                   "add-symbol-file %s -o %#x" % (path, bias), "-ex",
                   "set confirm on"] + gdb_args


def warn_shared_text(p):
    """Warn if process P (a records.Process) has code from the shared
    cache: a software breakpoint there needs a spare huge page."""
    objs = shared_code(p)
    if objs:
        warn("process %d runs code of %s from the shared cache: a software "
             "breakpoint there (break, next, finish) needs a spare huge page "
             "for the process's own copy of that 2 MiB page, and without "
             "one gdb cannot insert it; use hbreak (no copy), or --grow-pool"
             % (p.pid, ", ".join(objs)))


def gdb_argv_start(gdb_args, args):
    """gdb GDB-ARGS, which start the program: LD_HUGEPAGE_BACKING for it
    (--backing, else the environment's, else private,thp, so that
    breakpoints need no spare pool page)."""
    argv = ["gdb"]
    var = setting_variable("backing")
    backing = checked_backing(args.backing, os.environ)
    if backing is None:
        backing = "private,thp"
        print("hugeld: note: %s=%s for the program: a "
              "software breakpoint in code that the loader maps from the "
              "shared cache needs a spare huge page for a copy of that "
              "2 MiB page; in a private copy it needs none"
              % (var, backing), file=sys.stderr)
    elif "shared" in parse_backing(backing):
        warn("%s=%s: a software breakpoint in code from "
             "the shared cache needs a spare huge page (gdb cannot insert "
             "it without one); use hbreak there" % (var, backing))
    if backing != os.environ.get(var):
        # For the program only, not for gdb itself.
        argv += ["-iex", "set environment %s=%s" % (var, backing)]
    return argv + gdb_args


def gdb_argv_pid(pid, gdb_args, ldso):
    p = process_status(pid, {}, ldso, detail=False)
    warn_shared_text(p)
    argv = ["gdb", "-p", str(pid)]
    if not p.ldso_command or not p.program:
        return argv + gdb_args
    maps = read_smaps(pid)
    objs, _ = process_objects(pid, maps, {})
    want = os.path.realpath(p.program)
    for o in objs:
        if o.path == want:
            return argv + ["-ex", "set confirm off", "-ex",
                           "add-symbol-file %s -o %#x" % (o.path, o.bias),
                           "-ex", "set confirm on"] + gdb_args
    warn("%s is not mapped in process %d; its symbols are not added"
         % (p.program, pid))
    return argv + gdb_args


OVERCOMMIT = "/proc/sys/vm/nr_overcommit_hugepages"


def shared_text_pages(pid):
    """The huge pages of text that a software breakpoint in process PID
    would need a copy of: those it shares with a process it forked or
    was forked from (Shared_Hugetlb of its executable hugetlb
    mappings), and all of its code from the shared cache (the cache's
    pages, mapped copy-on-write: elf/dl-hugepage-back.c).  A copy can
    only come from the pool."""
    return sum((m.end - m.start) if m.cached else m.shared_hugetlb
               for m in read_smaps(pid)
               if m.kps * 1024 == HUGE and "x" in m.perms) // HUGE


def spare_pages():
    """Huge pages a copy-on-write fault could get now: the pool's free,
    unreserved pages, plus the surplus pages overcommit still allows."""
    p = pool_info()
    if p is None:
        return 0
    try:
        over = max(0, read_int(OVERCOMMIT) - p["surplus"])
    except (OSError, ValueError, IndexError):
        over = 0
    return p["available"] + over


def check_breakpoint_pages(pid, grow):
    """Before gdb attaches to PID: if it shares huge-page text with a
    parent or children (fork) or the shared cache, and the pool cannot
    copy each such page,
    warn (a breakpoint there would cost the children that page: SIGBUS),
    or with GROW (--grow-pool) make the pool large enough first."""
    shared = shared_text_pages(pid)
    spare = spare_pages()
    if shared <= spare:
        return
    short = shared - spare
    if not grow:
        warn("process %d shares %s of text with a forked parent or child "
             "or the shared cache, and the pool has %d spare: a breakpoint "
             "there needs a spare huge page for its own copy of the 2 MiB "
             "page; without one, a parent keeps the page and its children "
             "die of SIGBUS, and a breakpoint set in a child or in cached "
             "code is not inserted.  Use hbreak (no copy), or --grow-pool "
             "(root) to reserve %d more"
             % (pid, plural(shared, "huge page"), spare, short))
        return
    p = pool_info()
    plans = apply_pool(p["available"] + short, None)
    for a in plans:
        if a["old"] != a["new"]:
            print("hugeld: grew the huge page pool from %d to %d pages so "
                  "that breakpoints in the %s of text process %d shares can "
                  "be copied; when done: echo %d > /proc/sys/vm/nr_hugepages"
                  % (a["old"], a["new"], plural(shared, "huge page"), pid,
                     a["old"]), file=sys.stderr)


def cmd_gdb(args):
    ldso = ldso_arg(args)
    gdb_args = list(args.rest)
    start = args.pid is None and args.core is None
    if args.pid is not None and args.core is not None:
        raise UsageError("hugeld gdb: give a PID or --core CORE")
    if start and not gdb_args:
        raise UsageError("hugeld gdb: give a PID, --core CORE, or -- "
                         "GDB-ARGS that start a program")
    if args.backing is not None and not start:
        raise UsageError("hugeld gdb: --backing goes with starting a "
                         "program (-- GDB-ARGS)")
    if args.grow_pool and args.pid is None:
        raise UsageError("hugeld gdb: --grow-pool goes with a PID")
    if start:
        if args.program:
            raise UsageError("hugeld gdb: --program goes with --core")
        argv = gdb_argv_start(gdb_args, args)
    elif args.core is not None:
        argv = gdb_argv_core(args.core, args.program, gdb_args, ldso)
    else:
        if args.program:
            raise UsageError("hugeld gdb: --program goes with --core")
        if args.grow_pool and os.geteuid() != 0:
            raise Error("--grow-pool needs root: it writes "
                        "/proc/sys/vm/nr_hugepages")
        argv = gdb_argv_pid(args.pid, gdb_args, ldso)
    gdb = which("gdb")
    if gdb is None:
        raise Error("gdb is not installed")
    if args.pid is not None:
        check_breakpoint_pages(args.pid, args.grow_pool)
    if args.print_command:
        print(" ".join(shlex_quote(a) for a in argv))
        return 0
    sys.stdout.flush()
    try:
        os.execv(gdb, argv)
    except OSError as e:
        raise Error("cannot run %s: %s" % (gdb, e.strerror))


COMMAND = Command(
    name="gdb", rank=70,
    synopsis=("gdb PID|--core CORE [--grow-pool] [--program PROG] "
              "[-- GDB-ARGS...]",
              "gdb [--backing BACKINGS] -- GDB-ARGS..."),
    summary="gdb on a process (or core) that hugeld run started, with the "
    "program's own symbols; warns when a breakpoint would need spare huge "
    "pages (--grow-pool reserves them); gdb [--backing LIST] -- GDB-ARGS "
    "starts a program",
    description="Run gdb on a process or a core file of a program that "
    "hugeld's ld.so runs as a command (as hugeld run does).  gdb then "
    "takes ld.so for the program and never loads the real program's "
    "symbols (with any loader: the main program's frames show as ??); "
    "this adds them at the address the program is mapped at.  For a "
    "program started directly it just runs gdb.  Huge page libraries "
    "need nothing: gdb reads their symbols from their files.  If the "
    "process shares huge-page text with a forked parent or child and the "
    "pool has too few spare pages to copy it, it warns first: a "
    "breakpoint there would cost the children that page (SIGBUS); if "
    "it maps code from the shared cache, where software breakpoints "
    "cannot be written, it says so.  Without PID or --core it runs "
    "gdb GDB-ARGS (which start the program, e.g. --args PROG ARGS) "
    "with LD_HUGEPAGE_BACKING=private,thp for the program unless it "
    "is set.",
    epilog="example: hugeld gdb 1234 -- -batch -ex bt; "
    "hugeld gdb --core core.1234 -- -batch -ex bt",
    options=(
        argument("pid", "PID", help="the process to attach to", count="?",
                 convert=pid_arg),
        value("--core", metavar="CORE", help="a core file instead"),
        value("--program", metavar="PROG", help="with --core: the program "
              "ld.so ran (default: the one mapped in the core)"),
        flag("--print-command", help="print the gdb command instead of "
             "running it"),
        flag("--grow-pool", help="first grow the huge page pool (root) so "
             "that a breakpoint in each huge page of text the process "
             "shares with a forked parent or child can be copied"),
        settings(names=("backing",), helps={
            "backing": "without PID or --core: {variable} for the program "
            "gdb starts (default: ${variable}, else private,thp: software "
            "breakpoints cannot be written into code from the shared "
            "cache)"})),
    rest="--", run=cmd_gdb)
