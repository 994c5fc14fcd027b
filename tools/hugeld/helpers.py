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

"""The programs the command asks about ld.so: its C helpers
(hugeld-plan, hugeld-conf, hugeld-thp, built from ld.so's own code)
and hugeld's ld.so itself.  Where each is (path), the environment it
runs with (environment: one policy per helper, in HELPERS) and the one
way to run one (run, and document for the helpers' JSON): written once
here, for every question the other modules ask.

The environment: the command's own, without the settings variables
(LD_HUGEPAGE_*): hugeld-plan takes them as its defaults and ld.so,
asked a question, would apply them to itself; a setting the helpers
are to use is given as an option, and an environment they are to judge
(hugeld-conf --effective) as data on their standard input.  ld.so,
asked to list a program's objects, runs without its debugging and
tracing variables too, which would change what it prints."""

import collections
import json
import os

from . import spawn
from .common import Error, program_dir

PLAN = "hugeld-plan"
CONF = "hugeld-conf"
THP = "hugeld-thp"
LDSO = "ld.so"

# What every helper's environment leaves out: variables with this
# prefix (the settings).
SETTINGS_PREFIX = "LD_HUGEPAGE_"

# Each helper: the variable that may name its file (None: the caller
# names it, as for ld.so), and the variables its environment leaves out
# besides the settings.
Helper = collections.namedtuple("Helper", "variable without")

HELPERS = {
    PLAN: Helper("HUGELD_PLAN", ()),
    CONF: Helper("HUGELD_CONF", ()),
    THP: Helper("HUGELD_THP", ()),
    LDSO: Helper(None, ("LD_DEBUG", "LD_DEBUG_OUTPUT",
                        "LD_TRACE_LOADED_OBJECTS")),
}


def environment(name):
    """The environment the helper NAME runs with: this process's,
    without the settings and the helper's own exceptions (a new dict:
    the command's own environment is never changed)."""
    without = HELPERS[name].without
    return {k: v for k, v in os.environ.items()
            if not k.startswith(SETTINGS_PREFIX) and k not in without}


def _executable(p):
    return bool(p) and os.path.isfile(p) and os.access(p, os.X_OK)


def path(name):
    """The file of the helper NAME: $VARIABLE (HUGELD_PLAN, ...), else
    the one beside the command (installed, or in a build), else the one
    beside $HUGELD_PLAN (a test may name only that one)."""
    variable = HELPERS[name].variable
    here = program_dir()
    plan = os.environ.get(HELPERS[PLAN].variable)
    cands = [os.environ.get(variable),
             os.path.join(here, name),
             os.path.join(here, "..", "libexec", name),
             os.path.join(here, "..", "build", "tools", name),
             os.path.join(here, "..", "..", "build", "tools", name),
             os.path.join(os.path.dirname(plan), name) if plan else None]
    for c in cands:
        if _executable(c):
            return c
    raise Error("the %s helper is missing (make -C tools; or set %s)"
                % (name, variable))


def run(name, args, program=None, data=None, pass_fds=(), timeout=None,
        stderr=spawn.PIPE):
    """Run the helper NAME (or PROGRAM, for ld.so: its path) with ARGS,
    in its environment, DATA (bytes) on its standard input, the
    descriptors PASS_FDS open in it: its spawn.Completed.  An Error if
    it cannot be started; spawn.TimedOut (it has been killed) if
    TIMEOUT seconds pass first."""
    exe = program or path(name)
    try:
        return spawn.run([exe] + list(args), env=environment(name),
                         data=data, pass_fds=pass_fds, timeout=timeout,
                         stderr=stderr)
    except OSError as e:
        raise Error("cannot run %s: %s" % (exe, e.strerror))


def failure(name, p):
    """Why the helper NAME failed, from its spawn.Completed P: the first
    line it printed on standard error, without its name, else its exit
    status."""
    lines = (p.stderr or b"").decode("utf-8", "replace").strip().splitlines()
    if lines:
        msg = lines[0]
        return msg[len(name) + 2:] if msg.startswith(name + ": ") else msg
    return "%s failed (status %d)" % (p.args[0], p.returncode)


def document(name, args, data=None, pass_fds=()):
    """The JSON document the helper NAME prints for ARGS; an Error with
    why (failure) if it fails."""
    p = run(name, args, data=data, pass_fds=pass_fds)
    if p.returncode != 0:
        raise Error(failure(name, p))
    return parse(p)


def parse(p):
    """The JSON document a helper printed (its spawn.Completed P)."""
    try:
        return json.loads(p.stdout.decode("utf-8", "surrogateescape"))
    except ValueError as e:
        raise Error("%s printed bad JSON: %s" % (p.args[0], e))
