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

"""The settings a command runs or plans a program with, or that a
running process got: libs, segments and backing, each with where it
comes from (an option, a variable, GLIBC_TUNABLES, /etc/tunables.conf,
a line of the policy file, ld.so's default).  Made once, by resolve ()
or of_process (), from explicit values (the options, the environment,
the program, the policy file): the hugeld-conf helper decides with
ld.so's own resolver (_dl_hugepage_resolve) and checks them; the
result is handed to the command as one value that nothing changes."""

import collections
import types

from .common import which
from .planner import parse_backing, setting_variable
from .policy import effective

NAMES = ("libs", "segments", "backing")


class Settings(collections.namedtuple(
        "Settings", "libs segments backing sources from_file policy origin "
        "effective bad locked ignored secure")):
    """The settings of one command or process.

    libs       the patterns (None: nothing selected; never empty)
    segments   LD_HUGEPAGE_SEGMENTS's value as given, or None for
               ld.so's default
    backing    LD_HUGEPAGE_BACKING's value as given, or None for
               ld.so's default
    sources    {setting: "--libs", "LD_HUGEPAGE_LIBS",
               "glibc.elf.hugepage.libs" (GLIBC_TUNABLES),
               "glibc.elf.hugepage.libs (/etc/tunables.conf)", "FILE
               line N" or "default"}: where each comes from
    from_file  {setting or "program": "FILE line N"} for the settings
               the policy file gives (and its program block, if it
               gives any)
    policy     the policy file as it was read for the program: {"file",
               "why": why it gives nothing (no file, ignored by ld.so)
               or None, "program": "FILE line N" of the block that
               applies or None, "lines": {pattern: the line it is on}}
    origin     {setting: "option", "variable", "tunable" (GLIBC_TUNABLES),
               "system" (/etc/tunables.conf), "file" or "default"}
    effective  {setting: the value in force, in ld.so's words} (libs:
               None where nothing is selected)
    bad        the settings given a value ld.so ignores (it warns and
               uses its default)
    locked     the settings a nonoverridable line of /etc/tunables.conf
               gives
    ignored    the settings whose variable that line overrides
    secure     the process is AT_SECURE

    The mappings are read-only (dict () of them for JSON)."""

    __slots__ = ()

    def tunables(self):
        """The settings whose value is a glibc.elf.hugepage.* tunable's,
        from GLIBC_TUNABLES or /etc/tunables.conf (ld.so reads them
        there itself)."""
        return [k for k in NAMES if self.origin[k] in ("tunable", "system")]

    def describe(self, values):
        """One line for the settings VALUES ({setting: value}) and
        where each comes from, when the policy file or a tunable gives
        one; else None."""
        if not self.from_file and not self.tunables():
            return None
        return "settings: " + "; ".join(
            "%s %s (%s)" % (k, values[k], self.sources[k]) for k in NAMES)

    def line(self):
        """The settings in force and where each comes from, in one line
        (hugeld status): "libs P (SOURCE); segments ...; backing ..."."""
        out = []
        for k in NAMES:
            v = self.effective[k]
            src = self.sources[k]
            if k == "libs" and v is None:
                v = "none"
                src = ("nothing gives libs" if self.origin[k] == "default"
                       else "%s: nothing selected" % src)
            elif k in self.bad:
                src = "%s=%s ignored: not a list ld.so reads; the default" \
                      % (src, getattr(self, k))
            elif self.origin[k] == "default":
                src = "ld.so's default"
            if k in self.locked:
                src += ", nonoverridable"
            if k in self.ignored:
                src += "; its variable is ignored"
            out.append("%s %s (%s)" % (k, v, src))
        line = "; ".join(out)
        if self.policy["program"] and self.from_file:
            line += "; the program block at %s" % self.policy["program"]
        if self.policy["why"] not in (None, "no such file") \
                and not self.from_file:
            line += "; %s: %s" % (self.policy["file"], self.policy["why"])
        return line


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
    var = setting_variable("backing")
    b = environ.get(var)
    if b:
        parse_backing(b, var)
        return b
    return None


def _of_document(d):
    """The Settings of hugeld-conf --effective's document D."""
    pol = d["policy"]
    lines = {}
    for x in pol["patterns"]:
        lines.setdefault(x["pattern"], x["line"] or None)
    where = {k: d[k]["source"] for k in NAMES if d[k]["from"] == "file"}
    if pol["program"] and where:
        where["program"] = pol["program"]
    ro = types.MappingProxyType
    return Settings(
        d["libs"]["effective"], d["segments"]["value"], d["backing"]["value"],
        ro({k: d[k]["source"] for k in NAMES}), ro(where),
        ro({"file": pol["file"], "why": pol["why"],
            "program": pol["program"], "lines": ro(lines),
            "cache_declared": pol.get("cache_declared", False)}),
        ro({k: d[k]["from"] for k in NAMES}),
        ro({k: d[k]["effective"] for k in NAMES}),
        frozenset(k for k in NAMES if d[k]["bad"]),
        frozenset(k for k in NAMES if d[k]["locked"]),
        frozenset(k for k in NAMES if d[k]["variable_ignored"]),
        d["secure"])


def resolve(cmd, options, environ, program, path=None, exe=None):
    """The Settings of the command CMD ("run", "plan"): OPTIONS
    ({setting: the option's value or None}), else what the environment
    ENVIRON, the system-wide tunables and the policy file at PATH
    (default ld.so's) give PROGRAM (a path, or None) as ld.so takes them
    (hugeld-conf --effective).  EXE is what /proc/self/exe will name
    for the process ([proc:] lines of /etc/tunables.conf): the loader,
    run as a command, or the program.  One clear error if a setting is
    unusable (libs first, then segments, then backing)."""
    return _of_document(effective(cmd, options, environ, program, path,
                                  exe=exe))


def of_process(process, program, path=None):
    """The Settings a running process got, as its ld.so took them from
    its environment, the system-wide tunables and the policy file at
    PATH (default ld.so's) as they read now: PROCESS is what
    policy.effective takes for it, PROGRAM the name ld.so matched its
    program by.  Nothing is refused: a value ld.so ignores is in
    Settings.bad, and libs None where nothing is selected."""
    return _of_document(effective("status", {}, {}, program, path,
                                  process=process))


def options_of(args):
    """{setting: value or None} of the parsed options ARGS (a command
    without one of them gives None for it)."""
    return {k: getattr(args, k, None) for k in NAMES}
