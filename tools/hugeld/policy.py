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

"""The policy file, /etc/hugeld.conf, as ld.so reads it: the hugeld-conf
helper is built from ld.so's own parser (elf/dl-hugepage-conf.c) and
applies the same trust rule, so the command never disagrees with the
loader."""

import json
import os

from . import spawn
from .common import Error, helper_path, plural, which
from .planner import conf_file


def conf_helper():
    plan = helper_path()
    return os.path.join(os.path.dirname(plan), "hugeld-conf")


def _run_conf(args, env=None):
    """Run the hugeld-conf helper with ARGS (its path first) and ENV
    (None: ours); its spawn.Completed.  An Error if it cannot run."""
    try:
        return spawn.run(args, env=env)
    except OSError as e:
        raise Error("cannot run %s: %s" % (args[0], e.strerror))


def _conf_json(p):
    """The JSON document the helper printed."""
    return json.loads(p.stdout.decode("utf-8", "surrogateescape"))


def effective(cmd, options, environ, program, path=None):
    """hugeld-conf --effective's document: the settings the program
    PROGRAM (a path, or None) gets from OPTIONS ({setting: the option's
    value or None}), else the LD_HUGEPAGE_* variables of ENVIRON (a
    mapping: the helper runs with it as its environment), else the
    policy file at PATH (default ld.so's), decided by ld.so's own code.  An Error of one
    line if they are unusable: "CMD: nothing selected: ...", or what
    is wrong with which setting."""
    path = path or conf_file()
    args = [conf_helper(), "--effective"]
    for k in ("libs", "segments", "backing"):
        if options.get(k) is not None:
            if "\0" in options[k]:
                raise Error("--%s: contains a NUL byte" % k)
            args += ["--" + k, options[k]]
    if program:
        args += ["--run", program]
    p = _run_conf(args + [path], environ)
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().replace(
            "hugeld-conf: ", "", 1) or "%s failed" % args[0]
        # Status 3: nothing selected, said of the command.
        raise Error("%s: %s" % (cmd, msg) if p.returncode == 3 else msg)
    return _conf_json(p)


def given_settings(variables, tunables):
    """What another process's LD_HUGEPAGE_* VARIABLES ({name: value},
    only those it has) and its GLIBC_TUNABLES value TUNABLES (or None)
    give it, decided by ld.so's own code (hugeld-conf --effective
    --tunables, run with those variables alone, so nothing else of that
    process's environment reaches the helper): {setting: (value, name)}
    for each setting one of them gives, NAME the variable's or the
    tunable's.  {} where they select nothing or are unusable (the
    caller shows the variables as they are)."""
    args = [conf_helper(), "--effective"]
    if tunables is not None:
        args += ["--tunables", tunables]
    env = {k: v for k, v in variables.items()
           if k.startswith("LD_HUGEPAGE_")}
    p = _run_conf(args + [os.devnull], env)
    if p.returncode != 0:
        return {}
    d = _conf_json(p)
    return {k: (d[k]["value"], d[k]["source"])
            for k in ("libs", "segments", "backing")
            if d[k]["from"] in ("variable", "tunable")}


def read_conf(path=None, program=None, cwd=None, expand=False):
    """What the file at PATH (default ld.so's) says (hugeld-conf's JSON)
    for PROGRAM (the name a program is run by, relative to CWD, default
    ours; None: the global settings), or None if there is no such file.  The names the
    program is known by are ld.so's (hugeld-conf --run: its
    "program_names").  With EXPAND, each cache item has the "paths" its
    glob names, found with ld.so's matcher."""
    path = path or conf_file()
    if not os.path.lexists(path):
        return None
    args = [conf_helper()]
    if program:
        args += ["--run", program] + (["--cwd", cwd] if cwd else [])
    if expand:
        args.append("--expand")
    p = _run_conf(args + [path])
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip()
        raise Error(msg.replace("hugeld-conf: ", "") or
                    "%s failed" % args[0])
    return _conf_json(p)


def conf_problems(c):
    """One line for each reason ld.so ignores the file C."""
    out = []
    if not c["trusted"]:
        out.append("%s: ignored by ld.so: %s" % (c["file"],
                                                 c["untrusted_why"]))
    for e in c["errors"]:
        out.append("%s:%d: %s" % (c["file"], e["line"], e["message"]))
    return out


def pattern_lines(c):
    """[(pattern, line)] for the libs that the file's document C gives,
    in order, with the lines hugeld-conf found them on (as ld.so's
    report does)."""
    libs = c.get("libs")
    if not libs:
        return []
    return [(x["pattern"], x["line"] or None) for x in libs["patterns"]]


def first_problem(c):
    """Why ld.so ignores the file of document C, in a few words."""
    if not c["trusted"]:
        return c["untrusted_why"]
    e = c["errors"][0]
    more = len(c["errors"]) - 1
    return "line %d: %s%s" % (e["line"], e["message"], "" if not more
                              else " (and %s)" % plural(more, "other bad line"))


def file_policy(program, path=None, cwd=None):
    """What ld.so takes from the policy file at PATH (default ld.so's)
    for a program run by the name PROGRAM (None: the global settings):
    {"file", "conf": hugeld-conf's document or None, "why": why it
    gives nothing (no file, ignored by ld.so) or None, "libs",
    "segments", "backing": the values it gives or None, "where":
    {setting or "program": "FILE line N"}, "lines": {pattern: its
    line}}."""
    path = path or conf_file()
    pol = {"file": path, "conf": None, "why": None, "libs": None,
           "segments": None, "backing": None, "where": {}, "lines": {}}
    try:
        c = read_conf(path, program, cwd)
    except Error as e:
        pol["why"] = str(e)
        return pol
    if c is None:
        pol["why"] = "no such file"
        return pol
    pol["conf"] = c
    if not c["applies"]:
        pol["why"] = "ignored by ld.so: %s" % first_problem(c)
        return pol
    for k in ("libs", "segments", "backing"):
        v = c[k]
        if v is not None:
            pol[k] = v["value"]
            pol["where"][k] = "%s line%s %s" % (
                path, "s" if len(v.get("lines", ())) > 1 else "",
                ", ".join(str(x) for x in v.get("lines") or [v["line"]]))
    if c["program"]:
        pol["where"]["program"] = "%s line %d" % (path, c["program"]["line"])
    for x, n in pattern_lines(c):
        pol["lines"].setdefault(x, n)
    return pol


# glibc 2.44's system-wide tunables: ldconfig compiles TUNABLES_CONF
# into LD_SO_CACHE, where ld.so reads them.
LD_SO_CACHE = "/etc/ld.so.cache"
TUNABLES_CONF = "/etc/tunables.conf"


def system_tunables(program=None, secure=False, cache=LD_SO_CACHE):
    """hugeld-conf --system-tunables's document: the glibc.elf.hugepage.*
    tunables ld.so takes from the system-wide tunables in CACHE for the
    program whose /proc/self/exe is PROGRAM (None: only the lines
    without a [proc:] filter), AT_SECURE if SECURE, decided by ld.so's
    own code (elf/dl-hugepage-tunconf.c).  None if CACHE cannot be
    read."""
    args = [conf_helper(), "--system-tunables"]
    if program:
        args += ["--program", program]
    if secure:
        args.append("--secure")
    p = _run_conf(args + [cache])
    if p.returncode != 0:
        return None
    return _conf_json(p)


def tunconf_supported(doc):
    """Whether this glibc has system-wide tunables (2.44 and later): the
    cache has their section (DOC, system_tunables's document), or
    ldconfig takes a tunables file (-t TUNCONF)."""
    if doc is not None and doc["section"]:
        return True
    ldconfig = which("ldconfig") or which("ldconfig", "/sbin:/usr/sbin")
    if ldconfig is None:
        return False
    try:
        p = spawn.run([ldconfig, "--help"], stderr=spawn.STDOUT,
                      timeout=10)
    except (OSError, spawn.TimedOut):
        return False
    return b"TUNCONF" in p.stdout
