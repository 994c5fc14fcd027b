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

"""hugeld perf-map: names for functions in huge-page text."""

import sys

from ..common import DEBUG_DIR, pid_arg, plural, shown
from ..perfmap import write_perf_map
from ..registry import Command, append, argument, value


def cmd_perf_map(args):
    cache = {}
    report, path = write_perf_map(args.pid, args.output, args.debug_dir,
                                  cache)
    if args.output == "-":
        return 0
    n = sum(r["symbols"] for r in report)
    if path is None:
        print("process %d has no code on huge pages: nothing written"
              % args.pid, file=sys.stderr)
        return 0
    print("%s: %s for %s" % (path, plural(n, "function"), ", ".join(
        "%s (%d, from %s%s)" % (
            shown(r["path"]), r["symbols"], shown(r["source"]),
            "; %d KiB of code no symbol names, named by the object and "
            "address" % (r["unnamed"] // 1024) if r["unnamed"] else "")
        for r in report) or "nothing"), file=sys.stderr)
    return 0


COMMAND = Command(
    name="perf-map", rank=60,
    synopsis=("perf-map PID [-o FILE] [--debug-dir DIR]",),
    summary="write /tmp/perf-PID.map so perf names huge-page code",
    description="perf shows huge page mappings (/anon_hugepage) as "
    "anonymous memory and looks up their symbols in /tmp/perf-PID.map. "
    "Write that file: `START SIZE name' (hex) for each function of "
    "each object whose code is on huge pages, from its .symtab, else "
    "a debug file found by build ID (or .gnu_debuglink) under the "
    "debug directory, else .dynsym.  Lines others wrote about other "
    "memory (JIT compilers) are kept.  Run it while the process is "
    "alive; perf report reads the file later.",
    epilog="example: perf record -e cpu-clock -p PID -- sleep 5; "
    "hugeld perf-map PID; perf report",
    options=(
        argument("pid", "PID", help="the process", convert=pid_arg),
        value("-o", "--output", metavar="FILE",
              help="write FILE instead (- for stdout)"),
        append("--debug-dir", metavar="DIR",
               help="where separate debug files are (default %s); may be "
               "repeated" % DEBUG_DIR)),
    run=cmd_perf_map)
