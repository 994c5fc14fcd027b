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

"""hugeld enable: one systemd service on hugeld's loader (a drop-in;
systemd.py has how it is written)."""

import os

from ..common import DEFAULT_LDSO, Error, ldso_arg
from ..openfile import replace_file
from ..planner import check_patterns, check_segments, parse_backing, setting_variable
from ..registry import Command, argument, settings, value
from ..systemd import PREPARE_TIME_LIMIT, SHELLS, command_program, dropin_path, dropin_text, exec_start, system_loader, systemctl, thp_prepare, unit_name, unit_value


def cmd_enable(args):
    unit = unit_value("the unit name", unit_name(args.unit))
    d, dropin = dropin_path(unit)
    if os.geteuid() != 0:
        raise Error("enable needs root: it writes %s" % dropin)
    # Every value the drop-in holds is checked before anything is
    # written: the settings, hugeld's loader and the unit's own loader.
    ldso = unit_value("hugeld's loader", ldso_arg(args))
    if not os.path.isabs(ldso) or not os.path.isfile(ldso) \
            or not os.access(ldso, os.X_OK):
        raise Error("hugeld's loader %s is not installed (make install, or "
                    "--ldso PATH)" % ldso)
    program = None
    try:
        program = command_program(exec_start(systemctl("cat", "--", unit),
                                             dropin))
    except Error as e:
        if args.libs is None:
            raise Error("%s: %s" % (unit, e))
    libs = args.libs
    if libs is None:
        if os.path.basename(program) in SHELLS:
            raise Error("%s: its ExecStart= runs %s, which runs the program: "
                        "give --libs" % (unit, program))
        # The program itself, by its file name.
        libs = os.path.basename(program)
    unit_value("--libs" if args.libs is not None else
               "the program's name (the default --libs)", libs)
    if args.segments:
        unit_value("--segments", args.segments)
    if args.backing:
        unit_value("--backing", args.backing)
    settings = [(setting_variable("libs"), check_patterns(libs))]
    if args.segments:
        settings.append((setting_variable("segments"),
                         check_segments(args.segments)))
    if args.backing:
        parse_backing(args.backing)
        settings.append((setting_variable("backing"), args.backing))
    loader = unit_value("the system's loader (the program's PT_INTERP)",
                        system_loader(program))
    prepare = thp_prepare(program, libs, args.backing)
    text = dropin_text(ldso, loader, settings, prepare)
    try:
        os.makedirs(d, 0o755, exist_ok=True)
    except OSError as e:
        raise Error("cannot write %s: %s" % (dropin, e.strerror))
    replace_file(dropin, text, sync=True)
    systemctl("daemon-reload")
    print("%s: %s written: its programs are loaded by %s (in place of %s, "
          "in its mount namespace) with %s" % (
              unit, dropin, ldso, loader,
              " ".join("%s=%s" % kv for kv in settings)))
    if prepare:
        print("%s: before it starts, hugeld thp repair --program %s makes "
              "the page cache under its thp zones 2 MiB folios (at most %d "
              "s; a failure does not stop the service)" % (
                  unit, prepare[-1], PREPARE_TIME_LIMIT))
    print("systemctl restart %s applies it; hugeld check %s tells whether "
          "its text is on huge pages" % (unit, unit))
    return 0


COMMAND = Command(
    name="enable", rank=50,
    synopsis=("enable UNIT [--libs PATTERNS] [--segments LIST] [--backing "
              "BACKINGS] [--ldso PATH]",),
    summary="one systemd service on hugeld's loader (a drop-in)",
    description="Put one systemd service on hugeld's loader without "
    "making hugeld the system's loader (root): write the drop-in "
    "/etc/systemd/system/UNIT.d/hugeld.conf, which sets the "
    "LD_HUGEPAGE_* variables and mounts hugeld's loader over the "
    "system's in the service's own mount namespace "
    "(BindReadOnlyPaths=), and reload systemd.  The unit's command is "
    "left as it is; its process is the program (ps, pidof, systemctl), "
    "and it starts whatever the pool holds.  Where the backing lists "
    "thp (the default does) and the program is known, the drop-in "
    "also runs hugeld thp repair --program PROGRAM as root before the "
    "service starts (ExecStartPre=, at most 30 s, its failure "
    "ignored): the service maps its selected text from 2 MiB folios "
    "whatever the page cache held.  Restart the unit to apply it.",
    epilog="example: hugeld enable mariadb --libs 'mariadbd:libcrypto*'",
    options=(
        argument("unit", "UNIT", help="the unit (.service if no suffix)"),
        settings(helps={
            "libs": "{variable} (default: the file name of the program "
            "ExecStart= runs; needed where that is a shell)",
            "segments": "{variable} (default: ld.so's)",
            "backing": "{variable} (default: ld.so's)"}),
        value("--ldso", metavar="PATH",
              help="hugeld's loader (default: $HUGELD_LDSO or %s)"
              % DEFAULT_LDSO)),
    run=cmd_enable)
