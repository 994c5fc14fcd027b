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

"""hugeld check: a health check, for a monitor or a unit's
ExecStartPost=: is the text of every object a process selects on huge
pages?"""

import sys

from .. import helpers
from ..common import Error, ldso_arg, plural, shown
from ..pool import pool_info
from ..procfs import command_of, kernel_thread
from ..registry import Command, argument, flag
from ..report.collect import process_status_within
from ..report.diagnose import failures, nothing_selected
from ..systemd import main_pid


def cmd_check(args):
    target = args.target
    if target.isdigit():
        pid = int(target)
        name = None
    else:
        pid = main_pid(target)
        name = target
    if kernel_thread(pid):
        raise Error("process %d (%s) is a kernel thread: nothing to check"
                    % (pid, command_of(pid)))
    helpers.path(helpers.PLAN)
    ldso = ldso_arg(args)
    p = process_status_within(pid, {}, ldso)
    pool = pool_info()
    who = "%s%d (%s)" % (name + ": process " if name else "process ", pid,
                         shown(p.command))
    if not p.selected:
        print("hugeld check: %s: no object is selected (%s)" % (
            who, nothing_selected(p)), file=sys.stderr)
        return 1
    bad = failures(p, pool)
    if bad:
        path, why = bad[0]
        print("hugeld check: %s: %s: %s%s" % (
            who, shown(path), shown(why), " (and %s)" % plural(
                len(bad) - 1, "other object") if len(bad) > 1 else ""),
            file=sys.stderr)
        return 1
    if not args.quiet:
        n = sum(x.whole for x in p.selected)
        print("%s: the text of %s on huge pages (%s)" % (
            who, plural(len(p.selected), "selected object"),
            plural(n, "page")))
    return 0


COMMAND = Command(
    name="check", rank=40,
    synopsis=("check PID|UNIT [-q]",),
    summary="exit 0 if the selected text of a process (or a unit's main "
    "process) is on huge pages, else say why, exit 1",
    description="Exit 0 if the whole 2 MiB pages of text of every "
    "object that process PID (or the main process of the systemd "
    "unit UNIT) selects are on huge pages (hugetlb, or the page "
    "cache's huge pages); otherwise print one line naming the object "
    "and why, and exit 1.  For monitors and health checks.",
    options=(
        argument("target", "PID|UNIT",
                 help="a process ID, or a systemd unit"),
        flag("-q", "--quiet", help="print nothing when the check passes")),
    run=cmd_check)
