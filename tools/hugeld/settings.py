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

"""The settings a command runs or plans a program with: libs, segments
and backing, each with where it comes from (an option, a variable, a
line of the policy file, ld.so's default).  Made once, by resolve (),
from explicit values (the options, the variables, the program, the
policy file), in ld.so's order: option, else variable, else the file;
then handed to the command as one value that nothing changes."""

import collections
import shutil
import types

from .common import CONF_FILE, Error
from .planner import check_patterns, check_segments, parse_backing
from .policy import file_policy, nothing_from

NAMES = ("libs", "segments", "backing")
VARS = {"libs": "LD_HUGEPAGE_LIBS", "segments": "LD_HUGEPAGE_SEGMENTS",
        "backing": "LD_HUGEPAGE_BACKING"}


class Settings(collections.namedtuple(
        "Settings", "libs segments backing sources from_file policy")):
    """The settings of one command, checked.

    libs       the patterns (never empty)
    segments   LD_HUGEPAGE_SEGMENTS's value, or None/"" for ld.so's default
    backing    LD_HUGEPAGE_BACKING's value, or None for ld.so's default
    sources    {setting: "--libs", "LD_HUGEPAGE_LIBS", "FILE line N" or
               "default"}: where each of the three comes from
    from_file  {setting or "program": "FILE line N"} for the settings
               the policy file gives (and its program block, if it
               gives any)
    policy     policy.file_policy for the program (read, not changed)

    sources and from_file are read-only mappings (dict () of them for
    JSON)."""

    __slots__ = ()

    def describe(self, values):
        """One line for the settings VALUES ({setting: value}) and
        where each comes from, when the policy file gives one; else
        None."""
        if not self.from_file:
            return None
        return "settings: " + "; ".join(
            "%s %s (%s)" % (k, values[k], self.sources[k]) for k in NAMES)


def program_path(prog):
    """PROG, the program a command is about (for the policy file's
    program blocks), as a path if PATH has it; None stays None."""
    if prog and "/" not in prog:
        prog = shutil.which(prog) or prog
    return prog


def checked_backing(option, environ):
    """LD_HUGEPAGE_BACKING for a command: OPTION (--backing, or the
    policy file's), else ENVIRON's if set and not empty, checked; None
    if neither gives one (ld.so's default)."""
    if option is not None:
        parse_backing(option, "--backing")
        return option
    b = environ.get("LD_HUGEPAGE_BACKING")
    if b:
        parse_backing(b, "LD_HUGEPAGE_BACKING")
        return b
    return None


def resolve(cmd, options, environ, program, conf_file=CONF_FILE):
    """The Settings of the command CMD ("run", "plan"): OPTIONS
    ({setting: the option's value or None}), else the variables of
    ENVIRON, else what the policy file at CONF_FILE gives PROGRAM (a
    path, or None), as ld.so takes them: a variable that is set, even
    empty, keeps the file's value away.  One clear error if a setting
    is unusable (libs first, then segments, then backing)."""
    pol = file_policy(program, conf_file)
    values, where = dict(options), {}
    for k in NAMES:
        if pol[k] is None or options[k] is not None or VARS[k] in environ:
            continue
        values[k] = pol[k]
        where[k] = pol["where"][k]
    if "program" in pol["where"] and where:
        where["program"] = pol["where"]["program"]

    libs = values["libs"] if values["libs"] is not None \
        else environ.get("LD_HUGEPAGE_LIBS")
    if libs is None or libs == "":
        why = None
        if "libs" in where or libs is None:
            why = nothing_from(pol, program)
        raise Error("%s: nothing selected: give --libs PATTERNS (or set "
                    "LD_HUGEPAGE_LIBS, or select it in %s)%s" % (
                        cmd, pol["file"],
                        "; " + why if why and not why.endswith(
                            ": no such file") else ""))
    check_patterns(libs, "libs (%s)" % where["libs"] if "libs" in where
                   else "--libs" if values["libs"] is not None
                   else "LD_HUGEPAGE_LIBS")
    segs = values["segments"] if values["segments"] is not None \
        else environ.get("LD_HUGEPAGE_SEGMENTS")
    if segs:
        check_segments(segs, "--segments" if values["segments"] is not None
                       else "LD_HUGEPAGE_SEGMENTS")
    backing = checked_backing(values["backing"], environ)

    sources = {}
    for k in NAMES:
        if k in where:
            sources[k] = where[k]
        elif values[k] is not None:
            sources[k] = "--" + k
        elif environ.get(VARS[k]):
            sources[k] = VARS[k]
        else:
            sources[k] = "default"
    return Settings(libs, segs, backing, types.MappingProxyType(sources),
                    types.MappingProxyType(where), pol)


def options_of(args):
    """{setting: value or None} of the parsed options ARGS (a command
    without one of them gives None for it)."""
    return {k: getattr(args, k, None) for k in NAMES}
