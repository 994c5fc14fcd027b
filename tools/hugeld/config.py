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
import subprocess
import sys

from .common import Error, UsageError, helper_path, plural
from .planner import default_setting

CONF_FILE = "/etc/hugeld.conf"      # ld.so's HP_CONF_FILE.


def conf_helper():
    plan = helper_path()
    return os.path.join(os.path.dirname(plan), "hugeld-conf")


def read_conf(path=CONF_FILE, program=None, cwd=None, expand=False):
    """What the file at PATH says (hugeld-conf's JSON) for PROGRAM (the
    name a program is run by, relative to CWD, default ours; None: the
    global settings), or None if there is no such file.  The names the
    program is known by are ld.so's (hugeld-conf --run: its
    "program_names").  With EXPAND, each cache item has the "paths" its
    glob names, found with ld.so's matcher."""
    if not os.path.lexists(path):
        return None
    args = [conf_helper()]
    if program:
        args += ["--run", program] + (["--cwd", cwd] if cwd else [])
    if expand:
        args.append("--expand")
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


def file_policy(program, path=CONF_FILE, cwd=None):
    """What ld.so takes from the policy file at PATH for a program run
    by the name PROGRAM (None: the global settings): {"file", "conf":
    hugeld-conf's document or None, "why": why it gives nothing (no
    file, ignored by ld.so) or None, "libs", "segments", "backing": the
    values it gives or None, "where": {setting or "program": "FILE line
    N"}, "lines": {pattern: its line}}."""
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


def nothing_from(pol, program):
    """Why the policy POL selects nothing for PROGRAM, or None if it
    does."""
    if pol is None:
        return None
    if pol["why"]:
        return "%s: %s" % (pol["file"], pol["why"])
    if pol["libs"] is None:
        return "%s has no libs line for %s" % (pol["file"], program)
    if pol["libs"] == "":
        return "%s selects nothing for %s (libs none, %s)" % (
            pol["file"], program, pol["where"]["libs"].split(" ", 1)[1])
    return None


def object_line(o, conf_file):
    """What `config check' says of an object of the plan."""
    if not o["selected"]:
        return "%s: not selected" % o["path"]
    how = '%s: selected by pattern "%s" (%s%s)' % (
        o["path"], o["pattern"], o["matched_by"], ", %s line %d" % (
            conf_file, o["conf_line"]) if o.get("conf_line") else "")
    if o["error"]:
        return "%s: stays on ordinary pages: %s" % (how, o["error"])
    by, shared, pending = {}, 0, 0
    for z in o.get("zones") or []:
        if z.get("backing") is not None:
            by[z["kind"]] = by.get(z["kind"], 0) + z["pages"]
        if z.get("backing") == "shared":
            shared += z["pages"]
            pending += z["pages"] if z.get("cache_pending") else 0
    n = sum(by.values())
    if not n:
        return "%s: no huge page (no part of it fills a whole 2 MiB " \
            "page; hugeld plan -v says why)" % how
    return "%s: %s (%s)%s" % (how, plural(n, "huge page"), ", ".join(
        "%s %d" % kv for kv in by.items()), "; %d from the shared cache%s"
        % (shared, " (declared, not there yet: hugeld cache sync)"
           if pending else "") if shared else "")


def cmd_config(args):
    from .elf import resolve_program
    from .pathglob import expand_cache
    if args.config_cmd != "check":
        raise UsageError("hugeld config: give a command: check")
    path = args.file
    prog = resolve_program(args.program) if args.program else None
    c = read_conf(path, prog, expand=True)
    if c is None:
        print("%s: no such file: ld.so selects nothing without "
              "variables" % path)
        return 1
    problems = conf_problems(c)
    refused = []
    files, empty = expand_cache(c, refused) if not problems else ([], [])
    res = dict(c,
               cache_files=[{k: f[k] for k in ("path", "real", "line")}
                            for f in files],
               cache_refused=[{k: r[k] for k in ("path", "line", "why")}
                              for r in refused], selection=None)
    out = []
    for p in problems:
        out.append(p)
    if problems:
        out.append("%s: ld.so ignores the whole file" % path)
    else:
        out.append("%s: ld.so uses it (%s; owned by root, writable by "
                   "nobody else)" % (path, plural(c["rules"], "rule")))
    if prog and not problems:
        out.append("")
        if c["program"]:
            out.append("%s: the program block at line %d applies (program "
                       "%s)" % (prog, c["program"]["line"],
                                " ".join(c["program"]["patterns"])))
        else:
            out.append("%s: no program block applies: the global settings"
                       % prog)
    # The settings of a file ld.so ignores would mislead.
    for k, var, dflt in () if problems else (
            ("libs", "LD_HUGEPAGE_LIBS", "nothing selected"),
                         ("segments", "LD_HUGEPAGE_SEGMENTS",
                          "ld.so's default, " + default_setting("segments")),
                         ("backing", "LD_HUGEPAGE_BACKING",
                          "ld.so's default, " + default_setting("backing"))):
        v = c[k]
        if v is None:
            out.append("  %-9s (%s)" % (k, dflt))
        else:
            lines = v.get("lines") or [v["line"]]
            out.append("  %-9s %s  (line%s %s; %s overrides it)" % (
                k, v["value"] or "none: nothing selected",
                "s" if len(lines) > 1 else "",
                ", ".join(str(x) for x in lines), var))
    for x in () if problems else c["cache"]:
        n = len([f for f in files if f["line"] == x["line"]
                 and f["pattern"] == x["pattern"]])
        bad = [r for r in refused if r["line"] == x["line"]
               and r["pattern"] == x["pattern"]]
        out.append("cache %s (line %d): %s" % (
            x["pattern"], x["line"], plural(n, "file") if n
            else "no regular file" if bad
            else "no such file" if x in empty else "no other file"))
        for r in bad:
            out.append("  %s: not cached: %s" % (r["path"], r["why"]))
    if c["pool"] and not problems:
        out.append("pool %s (line %d)" % (c["pool"]["value"],
                                          c["pool"]["line"]))
    if prog and not problems and c["libs"] and c["libs"]["value"]:
        out.append("")
        out.append("what ld.so would put on huge pages for %s (run as "
                   "hugeld run runs it; hugeld plan for the pool):"
                   % prog)
        try:
            res["selection"] = select(args, prog, path)
        except Error as e:
            # The check of the file stands; the plan needs the loader.
            out.append("  (cannot plan it: %s)" % e)
        for o in res["selection"] or []:
            out.append("  " + object_line(o, path))
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        print("\n".join(out))
    return 0 if not problems else 1


def select(args, prog, path):
    """The objects of the plan of PROG under the file at PATH alone (the
    variables of this shell are not the file's)."""
    from .cli import build_parser
    from .plan import make_plan
    for v in ("LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS",
              "LD_HUGEPAGE_BACKING"):
        os.environ.pop(v, None)
    pargs = build_parser().parse_args(["plan", prog])
    pargs.conf_file = path
    result, _ = make_plan(pargs)
    return [{k: o.get(k) for k in ("path", "role", "selected", "pattern",
                                   "matched_by", "conf_line", "error",
                                   "zones", "huge_pages")}
            for o in result["objects"]]
