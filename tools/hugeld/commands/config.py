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

"""`hugeld config check': the policy file as ld.so reads it (policy.py),
and what it selects for a program."""

import json
import os
import stat
import sys

from ..common import Error, UsageError, ldso_arg, plural, shown
from ..elf import resolve_program
from ..pathglob import expand_cache
from ..planner import conf_file, default_setting, setting_variable
from ..plans import PlanOptions, make_plan, unmatched_messages
from ..policy import (LD_SO_CACHE, TUNABLES_CONF, conf_problems, conf_void,
                      read_conf, system_tunables, tunconf_supported)
from ..pool import pool_info
from ..registry import Command, flag, value
from ..settings import NAMES, program_path, resolve


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


def tunables_check(prog):
    """What `config check' says of glibc 2.44's system-wide tunables
    (/etc/tunables.conf, compiled by ldconfig into /etc/ld.so.cache)
    for PROG (a path, or None): (lines, document); nothing where this
    glibc has no such tunables."""
    secure = False
    real = None
    if prog:
        real = os.path.realpath(prog)
        try:
            secure = bool(os.stat(real).st_mode
                          & (stat.S_ISUID | stat.S_ISGID))
        except OSError:
            pass
    doc = system_tunables(real, secure)
    # Nothing to say where glibc has no such tunables, or none are set.
    if not tunconf_supported(doc):
        return [], None
    if (doc is None or not doc["section"]) \
            and not os.path.exists(TUNABLES_CONF):
        return [], doc
    out = []
    try:
        if os.stat(TUNABLES_CONF).st_mtime > os.stat(LD_SO_CACHE).st_mtime:
            out.append("warning: %s is newer than %s: ld.so reads the "
                       "tunables ldconfig compiled last (run ldconfig)"
                       % (TUNABLES_CONF, LD_SO_CACHE))
    except OSError:
        pass
    if doc is None:
        return out, None
    src = "%s (compiled into %s)" % (TUNABLES_CONF, LD_SO_CACHE)
    who = "%s%s" % (prog, " (AT_SECURE)" if secure else "") if prog \
        else "a program no [proc:] line names"
    found = [(k, v) for k, v in doc["tunables"].items() if v]
    if not doc["valid"]:
        out.append("%s: its tunables section is malformed: ld.so takes "
                   "none of hugeld's tunables from it" % LD_SO_CACHE)
    elif not found:
        out.append("%s: no glibc.elf.hugepage.* tunable for %s"
                   % (src, who))
    else:
        out.append("%s, for %s:" % (src, who))
        for k, v in found:
            var = setting_variable(k)
            out.append("  glibc.elf.hugepage.%s=%s  (%s; it overrides the "
                       "policy file)" % (k, v["value"],
                       "nonoverridable: GLIBC_TUNABLES and %s cannot "
                       "change it" % var if v["locked"] else
                       "GLIBC_TUNABLES and %s override it" % var))
    return out, doc


def no_command(args):
    raise UsageError("hugeld config: give a command: check")


def no_file(args, path, tun_lines, tun_doc):
    """config check of PATH, which does not exist: exit status 1."""
    if args.json:
        json.dump({"file": path, "exists": False, "used": False,
                   "why": "no such file", "system_tunables": tun_doc},
                  sys.stdout, indent=1)
        print()
    else:
        for line in tun_lines:
            print(shown(line))
        print("%s: no such file: ld.so selects nothing without "
              "variables%s" % (path, " or tunables" if tun_lines else ""),
              file=sys.stderr)
    return 1


def settings_lines(c):
    """What the file C (read_conf) gives each setting, and which line."""
    out = []
    for k in NAMES:
        v = c[k]
        if v is None:
            out.append("  %-9s (%s)" % (k, "nothing selected" if k == "libs"
                                        else "ld.so's default, "
                                        + default_setting(k)))
            continue
        lines = v.get("lines") or [v["line"]]
        out.append("  %-9s %s  (line%s %s; %s overrides it)" % (
            k, v["value"] or "none: nothing selected",
            "s" if len(lines) > 1 else "",
            ", ".join(str(x) for x in lines), setting_variable(k)))
    return out


def cache_lines(c, files, refused, empty):
    """What each cache line of the file C names: FILES, REFUSED and the
    items that name no file (EMPTY), as expand_cache found them; and
    its pool line."""
    out = []
    for x in c["cache"]:
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
    if c["pool"]:
        out.append("pool %s (line %d)" % (c["pool"]["value"],
                                          c["pool"]["line"]))
    return out


def used_lines(c, path, prog, files, refused, empty):
    """What config check says of the file C at PATH, which ld.so uses,
    for PROG (or None)."""
    out = ["%s: ld.so uses it (%s; owned by root, writable by nobody "
           "else)" % (path, plural(c["rules"], "rule"))]
    if prog:
        out.append("")
        if c["program"]:
            out.append("%s: the program block at line %d applies (program "
                       "%s)" % (prog, c["program"]["line"],
                                " ".join(c["program"]["patterns"])))
        else:
            out.append("%s: no program block applies: the global settings"
                       % prog)
    return out + settings_lines(c) + cache_lines(c, files, refused, empty)


def selection_lines(res, prog, path):
    """What ld.so would put on huge pages for PROG under the file at
    PATH: the lines, and the warnings (RES gets its "selection" and
    "warnings")."""
    out = ["", "what ld.so would put on huge pages for %s (run as hugeld "
           "run runs it; hugeld plan for the pool):" % prog]
    warnings = []
    try:
        res["selection"], warnings = select(prog, path)
    except Error as e:
        # The check of the file stands; the plan needs the loader.
        out.append("  (cannot plan it: %s)" % e)
    for o in res["selection"] or []:
        out.append("  " + object_line(o, path))
    res["warnings"] = warnings
    return out, ["hugeld: warning: " + w for w in warnings]


def cmd_config(args):
    path = args.file or conf_file()
    prog = resolve_program(args.program) if args.program else None
    tun_lines, tun_doc = tunables_check(prog)
    c = read_conf(path, prog, expand=True)
    if c is None:
        return no_file(args, path, tun_lines, tun_doc)
    problems = conf_problems(c)
    refused = []
    files, empty = expand_cache(c, refused) if not problems else ([], [])
    res = dict(c, exists=True, used=not problems,
               cache_files=[{k: f[k] for k in ("path", "real", "line")}
                            for f in files],
               cache_refused=[{k: r[k] for k in ("path", "line", "why")}
                              for r in refused], selection=None,
               system_tunables=tun_doc)
    out = list(tun_lines)
    # The lines that make ld.so ignore the file are errors: on stderr;
    # and the settings of a file ld.so ignores would mislead.
    errors = list(problems)
    if conf_void(c):
        errors.append("%s: ld.so ignores the whole file" % path)
    if not problems:
        out += used_lines(c, path, prog, files, refused, empty)
    if prog and not problems and c["libs"] and c["libs"]["value"]:
        more, warnings = selection_lines(res, prog, path)
        out += more
        errors += warnings
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        # One line each: a path in them may hold a newline.
        if out:
            print("\n".join(shown(line) for line in out))
        sys.stdout.flush()
    for e in errors:
        print(shown(e), file=sys.stderr)
    return 0 if not problems else 1


def select(prog, path):
    """The objects of the plan of PROG under the file at PATH alone (the
    variables of this shell are not the file's): what `hugeld plan PROG'
    prints with no option and no LD_HUGEPAGE_* variable."""
    pool = pool_info()
    settings = resolve("plan", {k: None for k in NAMES}, {},
                       program_path(prog), path,
                       exe=os.path.realpath(ldso_arg(None)))
    result = make_plan(PlanOptions(prog, None, False, None, 1), settings,
                       pool)
    # The file serves every program: a pattern that selects nothing here
    # is said only when none selects anything.
    warnings = unmatched_messages(result)
    need = result["pages_to_reserve"]
    if pool is not None and need > pool["available"]:
        warnings.append("the pool has %d of the %d huge pages %s takes from "
                        "it: %d short (hugeld plan %s --apply reserves them; "
                        "a pool line and hugeld cache sync --reserve-pool, "
                        "at boot)" % (max(0, pool["available"]), need, prog,
                                      need - max(0, pool["available"]), prog))
    return [{k: o.get(k) for k in ("path", "role", "selected", "pattern",
                                   "matched_by", "conf_line", "error",
                                   "zones", "huge_pages")}
            for o in result["objects"]], warnings


SYNOPSIS = "config check [--file FILE] [--program PROG] [--json]"

COMMAND = Command(
    name="config", rank=90, synopsis=(SYNOPSIS,),
    summary="is /etc/hugeld.conf used by ld.so, and what it selects",
    description="Check the policy file as ld.so reads it (trust: a "
    "regular file of root's that nobody else can write; every line "
    "that does not parse, any of which makes ld.so ignore the whole "
    "file), and with --program what it gives that program: the block "
    "that applies, libs, segments and backing with their lines, and "
    "the plan of what would go on huge pages.  Exit status 0 if ld.so "
    "uses the file, 1 if not.  See hugeld.conf(5).",
    run=no_command, subcommands=(
        Command(name="check", synopsis=(SYNOPSIS,),
                summary="validate the policy file; with --program, what it "
                "selects for PROG",
                description="Validate the policy file; with --program, what "
                "it selects for PROG.",
                options=(
                    value("--file", metavar="FILE",
                          help="the policy file (default {conf_file})"),
                    value("--program", metavar="PROG", help="a program "
                          "(searched in PATH if it has no slash)"),
                    flag("--json", help="print the parsed file as JSON")),
                run=cmd_config),))
