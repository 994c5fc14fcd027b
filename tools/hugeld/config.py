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
loader.  `hugeld config check' is here too."""

import json
import os
import shutil
import subprocess

from .common import Error, helper_path
from .pathglob import program_names

CONF_FILE = "/etc/hugeld.conf"      # ld.so's HP_CONF_FILE.


def conf_helper():
    plan = helper_path()
    return os.path.join(os.path.dirname(plan), "hugeld-conf")


def read_conf(path=CONF_FILE, program=None, cwd=None):
    """What the file at PATH says (hugeld-conf's JSON) for PROGRAM (the
    name a program is run by, relative to CWD, default ours; None: the
    global settings), or None if there is no such file."""
    if not os.path.lexists(path):
        return None
    args = [conf_helper()]
    # At most three: the name, made absolute, and after its links.
    for n in program_names(program, cwd)[:3] if program else []:
        args += ["--program", n]
    try:
        p = subprocess.run(args + [path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    except OSError as e:
        raise Error("cannot run %s: %s" % (args[0], e.strerror))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip()
        raise Error(msg.replace("hugeld-conf: ", "") or
                    "%s failed" % args[0])
    return json.loads(p.stdout.decode("utf-8", "surrogateescape"))


def conf_problems(c):
    """One line for each reason ld.so ignores the file C."""
    out = []
    if not c["trusted"]:
        out.append("%s: ignored by ld.so: %s" % (c["file"],
                                                 c["untrusted_why"]))
    for e in c["errors"]:
        out.append("%s:%d: %s" % (c["file"], e["line"], e["message"]))
    return out


def file_settings(program, path=CONF_FILE):
    """(LIBS, SEGMENTS, BACKING, where) that ld.so takes from the file for
    PROGRAM: each a value or None, WHERE a dict of setting -> "FILE line
    N"; all None if the file does not apply."""
    try:
        c = read_conf(path, program)
    except Error:
        c = None
    if c is None or not c["applies"]:
        return None, None, None, {}
    where = {}
    vals = []
    for k in ("libs", "segments", "backing"):
        v = c[k]
        if v is None:
            vals.append(None)
            continue
        vals.append(v["value"])
        lines = v.get("lines") or [v.get("line")]
        where[k] = "%s line %s" % (path, ",".join(str(x) for x in lines))
    if c["program"]:
        where["program"] = "%s line %d" % (path, c["program"]["line"])
    return vals[0], vals[1], vals[2], where


def cmd_config(args):
    if args.config_cmd != "check":
        raise Error("give a command: check")
    path = args.file
    args.program_path = None
    if args.program is not None:
        args.program_path = shutil.which(args.program) \
            if "/" not in args.program else args.program
        if args.program_path is None:
            raise Error("%s: no such program in PATH" % args.program)
    c = read_conf(path, args.program_path)
    if c is None:
        print("%s: no such file: ld.so selects nothing without "
              "variables" % path)
        return 1
    if args.json:
        print(json.dumps(c, indent=1))
        return 0 if c["applies"] else 1
    problems = conf_problems(c)
    for p in problems:
        print(p)
    if problems:
        print("%s: ld.so ignores the whole file" % path)
    else:
        print("%s: ld.so uses it (%d rules)" % (path, c["rules"]))
    if c["cache"]:
        print("cache: %s" % " ".join(x["pattern"] for x in c["cache"]))
    if c["pool"]:
        print("pool: %s (line %d)" % (c["pool"]["value"], c["pool"]["line"]))
    if args.program is None:
        return 0 if not problems else 1
    print()
    who = args.program_path
    if c["program"]:
        print("%s: the program block at line %d applies (%s)"
              % (who, c["program"]["line"],
                 " ".join(c["program"]["patterns"])))
    else:
        print("%s: no program block applies: the global settings" % who)
    for k, var in (("libs", "LD_HUGEPAGE_LIBS"),
                   ("segments", "LD_HUGEPAGE_SEGMENTS"),
                   ("backing", "LD_HUGEPAGE_BACKING")):
        v = c[k]
        if v is None:
            print("  %-9s not set (default)" % k)
        else:
            lines = v.get("lines") or [v["line"]]
            print("  %-9s %s  (line %s; %s overrides it)" % (
                k, v["value"] or "(none)",
                ",".join(str(x) for x in lines), var))
    if problems:
        return 1
    if c["libs"] is None or not c["libs"]["value"]:
        print("%s: nothing selected" % who)
        return 0
    # What it selects: the plan, as `hugeld plan' makes it from the file
    # (the variables of this shell left out: they are not the file's).
    from .cli import build_parser
    from .plan import cmd_plan
    print()
    for v in ("LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS",
              "LD_HUGEPAGE_BACKING"):
        os.environ.pop(v, None)
    pargs = build_parser().parse_args(["plan", args.program])
    pargs.conf_file = path
    return cmd_plan(pargs)
