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

"""hugeld status: what of a running process (or of every one, --all) is
on huge pages, and why: collected by report.collect and report.node,
formatted by report.text, report.document (--json) or
report.prometheus (--prometheus)."""

import io
import sys

from .. import helpers
from ..cache.upkeep import cache_summary
from ..common import EscapedStream, UsageError, ldso_arg, pid_arg
from ..openfile import replace_file
from ..pool import pool_info
from ..procfs import command_of, kernel_thread
from ..registry import Command, argument, flag, value
from ..report import document, prometheus, text
from ..report.collect import process_status_within
from ..report.node import node_status
from ..report.records import KernelThread, Report


def cmd_status(args):
    if getattr(args, "prometheus", False) and not args.all:
        raise UsageError("hugeld status: --prometheus goes with --all")
    if getattr(args, "output", None):
        # Everything the command prints, into the file, or nothing;
        # escaped as on a terminal (what each value's own escaping left,
        # and a byte that is not UTF-8, cannot reach the file raw).
        out, buf = sys.stdout, io.StringIO()
        sys.stdout = EscapedStream(buf)
        try:
            status = status_command(args)
            got = buf.getvalue()
        finally:
            sys.stdout = out
        replace_file(args.output, got)
        return status
    return status_command(args)


def collect(args):
    """What status reports for ARGS: a records.Node (--all), Report or
    KernelThread."""
    ldso = ldso_arg(args)
    cache = {}
    if args.all and args.pid is not None:
        raise UsageError("hugeld status: give a PID or --all, not both")
    if not args.all and args.pid is None:
        raise UsageError("hugeld status: give a PID or --all")
    # Each process's objects are planned by the helper: a missing one
    # is an error here, not a process left out of --all.
    helpers.path(helpers.PLAN)
    if args.all:
        return node_status(cache, ldso)
    if kernel_thread(args.pid):
        # Not an error: it exists, and has nothing on huge pages.
        return KernelThread(pid=args.pid, command=command_of(args.pid),
                            kernel_thread=True, pages=0, objects=[])
    p = process_status_within(args.pid, cache, ldso)
    return Report(process=p, pool=pool_info(), cache=cache_summary())


def status_command(args):
    r = collect(args)
    if getattr(args, "prometheus", False):
        sys.stdout.write(prometheus.text(r))
    elif args.json:
        document.write(r)
    elif isinstance(r, Report):
        text.write(text.process_lines(r), sys.stdout)
    elif isinstance(r, KernelThread):
        text.write(text.kernel_thread_lines(r), sys.stdout)
    else:
        text.write(text.node_lines(r), sys.stdout)
    return 0


COMMAND = Command(
    name="status", rank=30,
    synopsis=("status PID|--all [--json|--prometheus] [-o FILE]",),
    summary="what of a process is on huge pages, and the pool; --all: "
    "every process and the node (cache, sharing, pool)",
    description="Show which objects and ranges of a running process "
    "are on huge pages (from /proc/PID/smaps and maps: hugetlb "
    "mappings inside an object's address range are its), how each is "
    "backed (shared: the hugeld cache; private; thp), the pages they "
    "use, the settings in its environment, and the pool "
    "(HugePages_Total, Free, Rsvd, Surp).  --all: every process with "
    "huge pages (root sees all); shared pages are counted once.",
    options=(
        argument("pid", "PID", help="the process", count="?",
                 convert=pid_arg),
        flag("--all", help="all processes that have huge pages of any "
             "kind, and the node: pool, shared cache, what sharing saves"),
        flag("--json", help="print JSON"),
        flag("--prometheus", help="with --all: the Prometheus text format, "
             "for node_exporter's textfile collector"),
        value("-o", "--output", metavar="FILE",
              help="write FILE (replaced atomically, in a directory only "
              "root or you can write) instead of standard output"),
        value("--ldso", metavar="PATH", hidden=True)),
    run=cmd_status)
