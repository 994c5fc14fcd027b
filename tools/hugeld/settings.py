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
policy file): the hugeld-conf helper decides with ld.so's own code
(_dl_hugepage_effective: option, else variable, else the file, else
the default) and checks them; the result is handed to the command as
one value that nothing changes."""

import collections
import types

from .common import which
from .planner import parse_backing
from .policy import effective

NAMES = ("libs", "segments", "backing")
# The variable of each setting (its tunable is glibc.elf.hugepage.NAME).
VARS = {"libs": "LD_HUGEPAGE_LIBS", "segments": "LD_HUGEPAGE_SEGMENTS",
        "backing": "LD_HUGEPAGE_BACKING"}


class Settings(collections.namedtuple(
        "Settings", "libs segments backing sources from_file policy")):
    """The settings of one command, checked.

    libs       the patterns (never empty)
    segments   LD_HUGEPAGE_SEGMENTS's value, or None for ld.so's default
    backing    LD_HUGEPAGE_BACKING's value, or None for ld.so's default
    sources    {setting: "--libs", "LD_HUGEPAGE_LIBS", "FILE line N" or
               "default"}: where each of the three comes from
    from_file  {setting or "program": "FILE line N"} for the settings
               the policy file gives (and its program block, if it
               gives any)
    policy     the policy file as it was read for the program: {"file",
               "why": why it gives nothing (no file, ignored by ld.so)
               or None, "program": "FILE line N" of the block that
               applies or None, "lines": {pattern: the line it is on}}

    sources, from_file and policy are read-only mappings (dict () of
    them for JSON)."""

    __slots__ = ()

    def tunables(self):
        """The settings whose value is their glibc.elf.hugepage.*
        tunable's in GLIBC_TUNABLES (ld.so reads it there itself)."""
        return [k for k in NAMES
                if self.sources[k].startswith("glibc.elf.hugepage.")]

    def describe(self, values):
        """One line for the settings VALUES ({setting: value}) and
        where each comes from, when the policy file or a tunable gives
        one; else None."""
        if not self.from_file and not self.tunables():
            return None
        return "settings: " + "; ".join(
            "%s %s (%s)" % (k, values[k], self.sources[k]) for k in NAMES)


def program_path(prog):
    """PROG, the program a command is about (for the policy file's
    program blocks), as a path if PATH has it; None stays None."""
    if prog and "/" not in prog:
        prog = which(prog) or prog
    return prog


def checked_backing(option, environ):
    """LD_HUGEPAGE_BACKING for a command: OPTION (--backing), else
    ENVIRON's if set and not empty, checked; None if neither gives one
    (ld.so's default)."""
    if option is not None:
        parse_backing(option, "--backing")
        return option
    b = environ.get("LD_HUGEPAGE_BACKING")
    if b:
        parse_backing(b, "LD_HUGEPAGE_BACKING")
        return b
    return None


def resolve(cmd, options, environ, program, path=None):
    """The Settings of the command CMD ("run", "plan"): OPTIONS
    ({setting: the option's value or None}), else the LD_HUGEPAGE_*
    variables of ENVIRON, else what the policy file at PATH (default
    ld.so's) gives PROGRAM (a path, or None), as ld.so takes them (hugeld-conf
    --effective).  One clear error if a setting is unusable (libs
    first, then segments, then backing)."""
    d = effective(cmd, options, environ, program, path)
    pol = d["policy"]
    lines = {}
    for x in pol["patterns"]:
        lines.setdefault(x["pattern"], x["line"] or None)
    where = {k: d[k]["source"] for k in NAMES if d[k]["from"] == "file"}
    if pol["program"] and where:
        where["program"] = pol["program"]
    return Settings(d["libs"]["value"], d["segments"]["value"],
                    d["backing"]["value"],
                    types.MappingProxyType({k: d[k]["source"] for k in NAMES}),
                    types.MappingProxyType(where),
                    types.MappingProxyType({
                        "file": pol["file"], "why": pol["why"],
                        "program": pol["program"],
                        "lines": types.MappingProxyType(lines)}))


def options_of(args):
    """{setting: value or None} of the parsed options ARGS (a command
    without one of them gives None for it)."""
    return {k: getattr(args, k, None) for k in NAMES}
