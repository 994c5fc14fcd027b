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

"""hugeld disable: the drop-in hugeld enable wrote, removed."""

import os

from ..common import Error
from ..registry import Command, argument
from ..systemd import MARK, dropin_path, systemctl, unit_name


def cmd_disable(args):
    unit = unit_name(args.unit)
    d, dropin = dropin_path(unit)
    if os.geteuid() != 0:
        raise Error("disable needs root: it removes %s" % dropin)
    try:
        with open(dropin) as f:
            mine = f.readline().rstrip("\n") == MARK
    except FileNotFoundError:
        raise Error("%s: hugeld is not enabled for it (no %s)"
                    % (unit, dropin))
    except OSError as e:
        raise Error("cannot read %s: %s" % (dropin, e.strerror))
    if not mine:
        raise Error("%s was not written by hugeld enable: left alone"
                    % dropin)
    try:
        os.unlink(dropin)
    except OSError as e:
        raise Error("cannot remove %s: %s" % (dropin, e.strerror))
    try:
        os.rmdir(d)
    except OSError:
        pass
    systemctl("daemon-reload")
    print("%s: %s removed; systemctl restart %s starts it without hugeld"
          % (unit, dropin, unit))
    return 0


COMMAND = Command(
    name="disable", rank=51,
    synopsis=("disable UNIT",),
    summary="the service back on the system's loader (hugeld enable's "
    "drop-in removed)",
    description="Remove the drop-in hugeld enable wrote for UNIT and "
    "reload systemd (root).  Restart the unit to apply it.",
    options=(argument("unit", "UNIT"),),
    run=cmd_disable)
