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

"""hugeld plan: the huge pages a program would take, and the pool."""

import json
import os
import sys

from ..common import Error, NR_HUGEPAGES, SYSFS_HUGE, SYSFS_NODES, UsageError, ldso_arg, mib, plural, positive_int, shown, table, warn
from ..planner import kinds, setting_variable, summarize
from ..plans import PlanOptions, make_plan, spend_pool, unmatched_messages
from ..pool import apply_pool, pool_info, pool_line
from ..registry import Command, append, argument, flag, loader_options, settings, value
from ..settings import options_of, program_path, resolve


def _apply_target(args):
    """The pool (pool_info) and, with --node, the NUMA nodes --apply
    reserves on (None: anywhere); errors for what --apply cannot do."""
    if args.apply and os.geteuid() != 0:
        raise Error("--apply needs root: it writes %s" % (
            NR_HUGEPAGES if args.node is None else SYSFS_NODES +
            "/nodeN/hugepages/hugepages-2048kB/nr_hugepages"))
    if args.node is not None and not args.apply:
        raise UsageError("hugeld plan: --node only goes with --apply")
    pool = pool_info()
    if args.apply and pool is None:
        raise Error("this kernel has no 2 MiB huge pages (no %s)"
                    % SYSFS_HUGE)
    if args.node is None:
        return pool, None
    have = [n["node"] for n in pool["nodes"]]
    try:
        nodes = sorted(set(int(x) for x in args.node.split(",")))
    except ValueError:
        raise Error("--node: not a list of node numbers: %r" % args.node)
    for n in nodes:
        if n not in have:
            raise Error("--node: no NUMA node %d (this machine has %s)"
                        % (n, ", ".join(map(str, have)) or "none"))
    return pool, nodes

def cmd_plan(args):
    pool, nodes = _apply_target(args)
    settings = resolve("plan", options_of(args), os.environ,
                       program_path(args.program),
                       exe=None if args.direct
                       else os.path.realpath(ldso_arg(args)))
    result = make_plan(PlanOptions(args.program, args.ldso, args.direct,
                                   args.dlopen, args.copies), settings, pool)
    need = result["pages_to_reserve"]
    applied = None
    if args.apply:
        applied = apply_pool(need, nodes)
        result["applied"] = applied
        result["pool"] = pool_info()
    p = result["pool"]
    if p is not None and result["pages_per_process"] > p["available"]:
        result["short_pool"] = spend_pool(result["objects"],
                                          p["available"])
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return 0
    print_plan(result, args.verbose)
    if applied is not None:
        for a in applied:
            where = "node %d" % a["node"] if a["node"] is not None \
                else "pool"
            if a["old"] == a["new"]:
                print("applied: %s already has %d available huge pages "
                      "(nr_hugepages %d): nothing to do"
                      % (where, a["available"], a["old"]))
            else:
                print("applied: %s nr_hugepages %d -> %d"
                      % (where, a["old"], a["new"]))
    return 0

def print_plan(r, verbose):
    """The plan R (plans.make_plan) for a person; VERBOSE (-v): every
    object, and every range of the selected ones."""
    print_settings(r)
    print_objects(r, verbose)
    if verbose:
        print_ranges(r)
    print_totals(r)
    print_pool(r)


def print_settings(r):
    """What the plan R is of: the program, how it is started, its
    settings and where they come from, the patterns that select
    nothing."""
    how = {"direct": "started directly, hugeld as its PT_INTERP",
           "library": "a shared library, as ld.so loads it",
           "ldso-command": "run by hugeld's ld.so, as hugeld run does"}
    print("hugeld plan: %s (%s)" % (shown(r["program"]), how[r["mode"]]))
    st = r["settings"]
    tunable = any(str(v).startswith("glibc.elf.hugepage.")
                  for v in st.get("sources", {}).values())
    if not st.get("from_file") and not tunable:
        print("  ".join("%s=%s" % (setting_variable(k), shown(st[k]))
                        for k in ("libs", "segments", "backing")))
    else:
        # No variable gives these: ld.so takes them from the file or
        # GLIBC_TUNABLES.
        print("settings: " + "; ".join(
            "%s %s (%s)" % (k, shown(st[k]), shown(st["sources"][k]))
            for k in ("libs", "segments", "backing")))
        if "program" in st["from_file"]:
            print("(the program block at %s)" % st["from_file"]["program"])
    if r.get("conf_ignored"):
        print("(%s; hugeld config check lists every bad line)"
              % shown(r["conf_ignored"]))
    sys.stdout.flush()
    for msg in unmatched_messages(r):
        warn(shown(msg))
    print()


def print_objects(r, verbose):
    """The table of the plan R's objects: the pages of each kind."""
    names = kinds()
    rows = [("OBJECT", "SELECTED BY") + names + ("PAGES",)]
    unselected = 0
    for o in r["objects"]:
        name = shown(o["path"])
        if o.get("role") == "dlopen":
            name += " (dlopen)"
        if not o["selected"]:
            # The program is always shown; other objects with -v.
            if verbose or o.get("role") == "program":
                rows.append((name, "-") + ("",) * len(names) + ("-",))
            else:
                unselected += 1
            continue
        by = summarize(o)
        cells = []
        for k in names:
            cells.append(str(by[k]) if by.get(k) else "-")
        if by.get("data+bss"):
            cells[names.index("data")] = "%d(+bss)" % by["data+bss"]
        sel = '"%s" (%s)' % (shown(o["pattern"]), o["matched_by"])
        if o.get("conf_line"):
            sel = '"%s" (%s, %s line %d)' % (shown(o["pattern"]),
                                             o["matched_by"],
                                             shown(r["conf_file"]),
                                             o["conf_line"])
        if o["error"]:
            sel += ": " + shown(o["error"])
        rows.append((name, sel) + tuple(cells) + (pages_cell(o),))
    for line in table(rows, right=range(2, len(rows[0]))):
        print(line)
    if unselected:
        print("(and %s not selected; -v lists them)"
              % plural(unselected, "other object"))
    for s in r["skipped"]:
        print("(%s: %s)" % (shown(s["path"]), shown(s["why"])))


def pages_cell(o):
    """The PAGES cell of object O: its 2 MiB pages, and on arm64 the
    64 KiB pages of its text's ends (the private backing)."""
    c = o.get("cont") or {}
    if not c.get("bytes"):
        return str(o["huge_pages"])
    return "%d (+%d of %d KiB)" % (o["huge_pages"],
                                  c["bytes"] // c["pagesize"],
                                  c["pagesize"] // 1024)


def print_ranges(r):
    """Every range of each selected object of the plan R: on huge pages,
    and how, or on ordinary pages, and why."""
    for o in r["objects"]:
        if not o["selected"]:
            continue
        print()
        print("%s:%s" % (shown(o["path"]), " text relocations,"
                         if o["textrel"] else ""))
        if o["error"]:
            print("  ordinary pages: %s" % shown(o["error"]))
            continue
        how = {"shared": " (shared: from the cache)",
               "private": "", "thp": " (thp: asked of the kernel)",
               None: " (no backing of LD_HUGEPAGE_BACKING: ordinary "
               "pages)"}
        items = [(z["start"], z["end"], z["kind"], "%s on huge pages%s" %
                  (plural(z["pages"], "page"), how[z["backing"]]))
                 for z in o["zones"]]
        items += [(s["start"], s["end"], s["kind"],
                   "ordinary pages: " + shown(s["reason"]))
                  for s in o["small"]]
        for a, b, k, what in sorted(items):
            print("  %-8s [%#x, %#x)  %s" % (k, a, b, what))
        c = o.get("cont") or {}
        for a, b in c.get("ranges", []):
            print("  %-8s [%#x, %#x)  %s on %d KiB pages with the private "
                  "backing (of the above)" % (
                      "text", a, b, plural((b - a) // c["pagesize"], "page"),
                      c["pagesize"] // 1024))
        if o["type"] == "DYN" and o["mode"] == "ldso":
            print("  load address = %#x modulo %#x" % (o["bias"],
                                                      o["modulus"]))


def print_totals(r):
    """The pages of the plan R per process and for the pool, and what a
    debugger needs."""
    n = r["pages_per_process"]
    cached = r["pages_in_cache"]
    other = [(cached, "in the shared cache (held once for all processes)"),
             (r["pages_thp"], "transparent huge pages asked of the kernel "
              "(not from the pool)"),
             (r["pages_ordinary"], "on ordinary pages (LD_HUGEPAGE_BACKING "
              "has no backing for them)")]
    print()
    if any(k for k, _ in other):
        print("per process: %s (%s) from the pool; %s" % (
            plural(n, "huge page"), mib(n), "; ".join(
                "%d %s" % (k, what) for k, what in other if k)))
    else:
        print("per process: %s (%s)" % (plural(n, "huge page"), mib(n)))
    ds = r.get("direct_start")
    if ds and r["mode"] != "direct":
        if ds["min_pages"] == ds["max_pages"]:
            print("note: started directly (its PT_INTERP is hugeld), the "
                  "program itself takes %s" % plural(ds["max_pages"],
                                                     "page"))
        else:
            print("note: started directly (its PT_INTERP is hugeld), the "
                  "kernel picks the program's address and it takes %d to "
                  "%d pages; --direct counts the most (ld.so moves it to "
                  "its own placement where a shared cache entry or thp "
                  "needs it)" % (ds["min_pages"], ds["max_pages"]))
    elif r["mode"] == "direct" and ds and ds["min_pages"] != ds["max_pages"]:
        print("note: the kernel picks the program's address: %d to %d "
              "pages; counted: %d (ld.so moves it to its own placement "
              "where a shared cache entry or thp needs it)" % (
                  ds["min_pages"], ds["max_pages"], ds["max_pages"]))
    total = r["pages_needed"] + cached
    declared = r.get("pages_declared", 0)
    how = ""
    if cached:
        # The shared cache's pages are the same for every process.
        held = [("%d in it already" % (cached - declared))
                if cached - declared else "",
                ("%d declared in %s, which hugeld cache sync adds"
                 % (declared, r["cache_conf"])) if declared else ""]
        how = ": %d per process x %d, plus the shared cache's %d once, " \
            "not per process (%s)" % (n, r["copies"], cached, "; ".join(
                h for h in held if h))
    print("pool for %s: nr_hugepages >= %d (%s)%s" % (
        plural(r["copies"], "process", "processes"), total, mib(total),
        how))
    if r.get("debugger_spare_pages"):
        print("debugger: a breakpoint in huge-page text of a process that "
              "has forked children needs 1 spare huge page per 2 MiB page "
              "it is in (at most %d per debugged process), else the "
              "children die of SIGBUS; hbreak needs none, hugeld gdb "
              "--grow-pool reserves them" % r["debugger_spare_pages"])
    if r.get("shared_text_pages"):
        print("debugger: software breakpoints cannot be written into the "
              "%s of text from the shared cache (read-only, MAP_SHARED): "
              "use hbreak there, or LD_HUGEPAGE_BACKING=private,thp (hugeld "
              "gdb sets it for programs it starts)"
              % plural(r["shared_text_pages"], "page"))


def print_pool(r):
    """The pool now against the plan R: enough, short, and what a
    process started now gets of it."""
    p = r["pool"]
    print("pool now: %s" % pool_line(p))
    if p is not None and "applied" not in r:
        want = r["pages_to_reserve"]
        if p["available"] >= want:
            print("enough: %d huge pages available" % p["available"])
        else:
            print("short by %d: run with --apply (as root) to reserve them"
                  % (want - p["available"]))
    if r.get("short_pool"):
        # ld.so gives a short pool to text first, and a zone that does
        # not fit whole the pages there are.
        got = sum(z["got"] for z in r["short_pool"])
        if not got:
            print("with the pool now, a process started now gets no huge "
                  "page from it")
            return
        print("with the pool now, a process started now gets %s of its "
              "%s (text first; the rest stays on ordinary pages):" % (
                  plural(got, "huge page"),
                  plural(r["pages_per_process"], "page")))
        for z in r["short_pool"]:
            print("  %-8s %3d of %3d  %s" % (z["kind"], z["got"],
                                             z["pages"], z["path"]))


COMMAND = Command(
    name="plan", rank=20,
    synopsis=("plan PROG [--libs PATTERNS] [--segments LIST] [--backing "
              "BACKINGS] [--copies N] [--apply [--node N[,N...]]] [-v] "
              "[--json]",),
    summary="the huge pages PROG and its libraries take (the loader's own "
    "planner) and the nr_hugepages N processes need",
    description="Show how hugeld's ld.so would place PROG and the "
    "libraries it loads (from the loader's own `ld.so --list') on "
    "2 MiB pages: per object the pages of each kind, the total, and "
    "the pool N processes need (each process has its own copy, "
    "except of zones in the shared cache, held once, and of zones "
    "left to transparent huge pages).  "
    "The plan is made by hugeld-plan, built from the loader's own "
    "planner and matcher.",
    epilog="example: hugeld plan /usr/bin/gdb --libs 'libpython3*' "
    "--copies 4 --apply",
    options=(
        argument("program", "PROG", help="the program (searched in PATH if "
                 "it has no slash), or a shared library"),
        settings(),
        *loader_options(),
        value("--copies", metavar="N", convert=positive_int, default=1,
              help="processes that will run at the same time (default 1)"),
        append("--dlopen", metavar="FILE",
               help="also plan FILE, a library the program dlopens (as the "
               "path it passes to dlopen)"),
        flag("--apply", help="grow nr_hugepages so that the pages needed "
             "are available (root; never shrinks the pool; all or "
             "nothing)"),
        value("--node", metavar="N[,N...]",
              help="with --apply: reserve the pages needed on each of these "
              "NUMA nodes instead of anywhere"),
        flag("-v", "--verbose", help="list every range: on huge pages, or "
             "on ordinary pages and why"),
        flag("--json", help="print JSON")),
    run=cmd_plan)
