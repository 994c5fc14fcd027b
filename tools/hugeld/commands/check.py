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

from .. import helpers, spawn
from ..common import Error, ldso_arg, plural, shown
from ..pool import pool_info
from ..procfs import command_of, kernel_thread
from .status import no_huge_pages_reason, process_status_within


def unit_pid(unit):
    """The main process of the systemd unit UNIT, or an error."""
    try:
        p = spawn.run(["systemctl", "show", "--property=MainPID", "--value",
                       "--", unit], timeout=30)
    except (OSError, spawn.TimedOut) as e:
        raise Error("cannot ask systemctl about %s: %s" % (
            unit, getattr(e, "strerror", None) or "timed out"))
    out = p.stdout.decode("utf-8", "replace").strip()
    if p.returncode != 0 or not out.isdigit():
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Error("%s: %s" % (unit, msg[0] if msg else "no such unit"))
    if int(out) == 0:
        raise Error("%s: not running (no main process)" % unit)
    return int(out)


def failures(st):
    """The selected objects of process status ST whose whole 2 MiB pages
    of text are not all on huge pages, each with why: [(object, line)]."""
    out = []
    without = {x["path"]: x for x in st["selected_without_huge_pages"]}
    for x in st["selected"]:
        if x["huge"] >= x["whole"]:
            continue
        why = "text on %d of its %s" % (x["huge"],
                                        plural(x["whole"], "huge page"))
        if x["path"] in without:
            why += ": " + no_huge_pages_reason(st, without[x["path"]])[0]
        elif x["huge"] == 0:
            # Huge pages of other kinds, none of text.
            why += ": " + no_huge_pages_reason(
                st, dict(x, planned_pages=x["whole"]))[0]
        else:
            p = st.get("pool")
            why += ": the rest stayed on ordinary pages (the pool had too " \
                "few pages when it was loaded%s; LD_DEBUG=hugepages says)" % (
                    ", and has %d free now" % max(p["available"], 0)
                    if p else "")
        out.append((x["path"], why))
    return out


def cmd_check(args):
    target = args.target
    if target.isdigit():
        pid = int(target)
        name = None
    else:
        pid = unit_pid(target)
        name = target
    if kernel_thread(pid):
        raise Error("process %d (%s) is a kernel thread: nothing to check"
                    % (pid, command_of(pid)))
    helpers.path(helpers.PLAN)
    ldso = ldso_arg(args)
    st = process_status_within(pid, {}, ldso)
    st["pool"] = pool_info()
    who = "%s%d (%s)" % (name + ": process " if name else "process ", pid,
                         shown(st["command"]))
    if not st["selected"]:
        print("hugeld check: %s: no object is selected (%s)" % (
            who, "its loader is not hugeld" if not st["hugeld"]
            else "the settings select none of its objects"),
            file=sys.stderr)
        return 1
    bad = failures(st)
    if bad:
        path, why = bad[0]
        print("hugeld check: %s: %s: %s%s" % (
            who, shown(path), shown(why), " (and %s)" % plural(len(bad) - 1, "other object")
            if len(bad) > 1 else ""), file=sys.stderr)
        return 1
    if not args.quiet:
        n = sum(x["whole"] for x in st["selected"])
        print("%s: the text of %s on huge pages (%s)" % (
            who, plural(len(st["selected"]), "selected object"),
            plural(n, "page")))
    return 0
