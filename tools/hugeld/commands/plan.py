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

import collections
import json
import os
import sys

from ..common import Error, HUGE, NR_HUGEPAGES, SYSFS_HUGE, SYSFS_NODES, UsageError, ldso_arg, ldso_path, mib, plural, shown, table, warn
from ..elf import Elf, check_program, interp_is_hugeld_loader, resolve_program
from ..pathglob import expand_cache
from ..planner import backing_names, default_setting, kinds, ldso_list, run_helper, setting_variable, summarize, unmatched_patterns
from ..policy import read_conf
from ..pool import apply_pool, pool_info, pool_line
from ..settings import options_of, program_path, resolve

# What a plan is of, besides the settings: the program (or library), the
# loader (None: $HUGELD_LDSO or the installed one), whether it is
# started directly, the libraries it dlopens, the processes at once.
PlanOptions = collections.namedtuple(
    "PlanOptions", "program ldso direct dlopen copies")


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


def _identity(p):
    """(device, inode) of P, or P itself where it cannot be stat'ed."""
    return file_id(p) or p


def _is_loader(name, p, interp, ldso):
    """Whether the object NAME, found at P, is the loader itself."""
    if interp and name == interp:
        return True
    if not os.path.basename(p).startswith("ld-linux") and \
            not os.path.basename(name).startswith("ld-linux"):
        try:
            return os.path.samefile(p, ldso)
        except OSError:
            return False
    return True


def _library_paths(dlopen, ldso, path, interp):
    """The libraries ld.so loads for PATH (as `ld.so --list' finds
    them), then those the program dlopens (--dlopen) and what they need
    that is not loaded yet: (paths, the dlopened ones, [(path, why it
    is not planned)])."""
    listed = ldso_list(ldso, path)
    missing = [n for n, p in listed if p is None and n not in
               ("linux-vdso.so.1", "linux-gate.so.1")]
    if missing:
        raise Error("%s: %s not found (the program would not start)"
                    % (path, missing[0]))
    libpaths, skipped, dlopened = [], [], []
    seen = {_identity(path)}
    for name, p in listed:
        if p is None:
            continue
        if _is_loader(name, p, interp, ldso):
            skipped.append((p, "the loader itself (never moved)"))
            seen.add(_identity(p))
            continue
        if _identity(p) not in seen:
            seen.add(_identity(p))
            libpaths.append(p)
    for d in dlopen or []:
        if not os.path.isfile(d):
            raise Error("--dlopen %s: no such file" % d)
        Elf(d).close()
        if _identity(d) in seen:
            skipped.append((d, "--dlopen: already loaded"))
            continue
        seen.add(_identity(d))
        libpaths.append(d)
        dlopened.append(d)
        for name, p in ldso_list(ldso, d):
            if p is None and name not in ("linux-vdso.so.1",
                                          "linux-gate.so.1"):
                raise Error("--dlopen %s: %s not found" % (d, name))
            if p is None or _is_loader(name, p, interp, ldso) \
                    or _identity(p) in seen:
                continue
            seen.add(_identity(p))
            libpaths.append(p)
    return libpaths, dlopened, skipped


def _plan_objects(common, path, libpaths, kernel, direct):
    """The helper's plans under the options COMMON: (the program at PATH
    as ld.so run as a command maps it, as the kernel maps it if KERNEL
    (else None), the libraries LIBPATHS, the helper's documents of the
    objects as they are loaded (with the kernel's program if DIRECT))."""
    doc_libs = run_helper(common + libpaths) if libpaths else {}
    res_libs = doc_libs.get("objects", [])
    # The main program: as `hugeld run' runs it (ld.so command), or as
    # the kernel maps it (--direct, or for the note).
    doc_main = run_helper(common + [path])
    res_main = doc_main["objects"][0]
    res_kernel = doc_kernel = None
    if kernel:
        doc_kernel = run_helper(common + ["--kernel", "--alias", path,
                                          "--name", os.path.realpath(path),
                                          path])
        res_kernel = doc_kernel["objects"][0]
    docs = [doc_libs, doc_kernel if direct else doc_main]
    return res_main, res_kernel, res_libs, docs


def make_plan(opts, settings, pool):
    """The plan `hugeld plan' prints for OPTS (PlanOptions) under
    SETTINGS (settings.Settings), POOL the pool now (pool_info)."""
    libs, segs = settings.libs, settings.segments
    backing = settings.backing or default_setting("backing")
    ldso = ldso_path(opts)
    path = resolve_program(opts.program)
    elf = check_program(path)
    interp = elf.interp
    elf.close()
    # PT_INTERP names a path: opened by the opening rule (a FIFO or a
    # device there is never opened), and judged by what was opened.
    direct_ok, why = interp_is_hugeld_loader(interp, ldso)
    if opts.direct and not direct_ok:
        raise Error("--direct: %s's interpreter is %s, not hugeld's loader%s"
                    % (shown(path), shown(interp or "none"),
                       " (%s)" % shown(why) if why else ""))

    libpaths, dlopened, skipped = _library_paths(opts.dlopen, ldso, path,
                                                 interp)
    # Placed as ld.so places them for these backings on a machine with
    # a pool (what the plan sizes); thp first places text for thp.
    common = ["--libs", libs, "--cache", "--backing", backing] + (
        ["--segments", segs] if segs else [])
    res_main, res_kernel, res_libs, docs = _plan_objects(
        common, path, libpaths, direct_ok, opts.direct)
    library = not interp and res_main["soname"] is not None
    main = res_kernel if opts.direct else res_main
    main["role"] = "program"
    objects = [main] + res_libs
    for o in res_libs:
        o["role"] = "dlopen" if o["file"] in dlopened else "library"
    # Which line of the policy file selected each object, where its libs
    # are the file's.
    conf = None
    if "libs" in settings.from_file:
        conf = settings.policy
        for o in objects:
            if o["selected"]:
                o["conf_line"] = conf["lines"].get(o["pattern"])

    cache_conf = settings.policy["file"]
    by = place_zones(objects, declared_in_conf(cache_conf))
    result = _result(opts, settings, path, ldso, libs, segs, backing,
                     objects, by)
    result.update({
        "unmatched_patterns": [{"pattern": p, "close": c} for p, c in
                               unmatched_patterns(docs, objects)],
        "mode": "direct" if opts.direct else "library" if library
        else "ldso-command",
        "conf_file": conf["file"] if conf else None,
        "skipped": [{"path": p, "why": w} for p, w in skipped],
        "cache_conf": cache_conf,
        "pool": pool,
    })
    if res_kernel is not None and "bias_range" in res_kernel \
            and res_kernel["selected"]:
        result["direct_start"] = res_kernel["bias_range"]
    elif res_kernel is not None and res_kernel["selected"]:
        result["direct_start"] = {"min_pages": res_kernel["huge_pages"],
                                  "max_pages": res_kernel["huge_pages"]}
    return result


def _result(opts, settings, path, ldso, libs, segs, backing, objects, by):
    """The counts of the plan of OBJECTS, whose zones place_zones gave
    the pages of each backing BY."""
    per_process = by["private"]
    need = per_process * opts.copies
    # A debugger's software breakpoint in huge-page text of a process
    # with forked children needs a spare huge page for the copy-on-write
    # copy of the page it is in (tests/t-debugger.sh): at most one per
    # text page, for each process being debugged.
    text_pages = sum(z["pages"] for o in objects if o["selected"]
                     for z in o.get("zones") or [] if z["kind"] == "text"
                     and z["backing"] == "private")
    shared_text = sum(z["pages"] for o in objects if o["selected"]
                      for z in o.get("zones") or [] if z["kind"] == "text"
                      and z["backing"] == "shared")
    return {
        "program": path,
        "ldso": ldso,
        "settings": {"libs": libs,
                     "segments": segs or default_setting("segments"),
                     "backing": backing,
                     "from_file": dict(settings.from_file),
                     "sources": dict(settings.sources)},
        # A policy file that is there but that ld.so ignores.
        "conf_ignored": None if settings.policy["why"] in (
            None, "no such file") else "%s: %s" % (
                settings.policy["file"], settings.policy["why"]),
        "objects": objects,
        "pages_per_process": per_process,
        "copies": opts.copies,
        "pages_needed": need,
        "pages_in_cache": by["shared"],
        "pages_declared": by["declared"],
        # What the pool must still have available: the private copies,
        # and the declared cache entries `cache sync' has not made yet.
        "pages_to_reserve": need + by["declared"],
        "pages_thp": by["thp"],
        "pages_ordinary": by[None],
        "debugger_spare_pages": text_pages,
        "shared_text_pages": shared_text,
    }


def spend_pool(objects, available):
    """What one process started now gets of a pool with AVAILABLE free,
    unreserved pages, as ld.so spends it: objects in load order, the
    zones of each in the order the helper gives (ld.so's own
    _dl_hugepage_zone_order: text first), each private zone as many
    whole huge pages as are left.  A list of {"path", "kind", "pages",
    "got"} for the private zones, in that order."""
    spent = []
    left = max(0, available)
    for o in objects:
        if not o["selected"] or o.get("error"):
            continue
        for z in sorted(o.get("zones") or [], key=lambda z: z["order"]):
            if z.get("backing") != "private":
                continue
            got = min(z["pages"], left)
            left -= got
            spent.append({"path": o["path"], "kind": z["kind"],
                          "pages": z["pages"], "got": got})
    return spent


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


def declared_in_conf(path):
    """The files the policy file at PATH declares for the shared cache
    (what `hugeld cache sync' will hold), as (device, inode), if ld.so
    uses the file."""
    try:
        c = read_conf(path, expand=True)
    except Error:
        return set()
    if c is None or not c["applies"]:
        return set()
    return {f["id"] for f in expand_cache(c)[0]}


def file_id(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def place_zones(objects, declared=frozenset()):
    """Set the "backing" of each zone of the selected OBJECTS (their plans
    made with --cache), and return the pages of each backing.  The
    helper says which backing ld.so ends up with for a zone where the
    shared cache holds it and where it does not, and which of the two
    holds now (the zones of its "cache" member that are "present": the
    entry ld.so would open is there and trusted).  The zones of objects
    in DECLARED (the files the policy file declares for the cache)
    count as cached even before `cache sync' made them; "declared" in
    the result says how many pages that is."""
    by = dict.fromkeys(backing_names() + (None, "declared"), 0)
    for o in objects:
        if not o["selected"]:
            continue
        zones = o.get("zones") or []
        c = o.get("cache") or {}
        present = coming = set()
        if any(z["backing_cached"] == "shared" for z in zones):
            present = {z["name"] for z in c.get("zones") or []
                       if z["present"]}
            if file_id(o["file"]) in declared:
                coming = {z["name"] for z in c.get("zones") or []} - present
                present = present | coming
        names = {}
        if "bias" in o and c.get("bias", -1) % HUGE == o["bias"] % HUGE:
            names = {(z["kind"], z["start"], z["end"]): z["name"]
                     for z in c.get("zones") or []}
        for z in zones:
            name = names.get((z["kind"], z["start"], z["end"]))
            z["backing"] = z["backing_cached"] if name in present \
                else z["backing_uncached"]
            by[z["backing"]] += z["pages"]
            if z["backing"] == "shared" and name in coming:
                by["declared"] += z["pages"]
                z["cache_pending"] = True
    return by


def unmatched_messages(r):
    """The warnings for the patterns of the plan R that select none of
    the objects the program loads (and --dlopen adds).  The policy
    file's patterns serve every program: they are named only when none
    of them selects anything."""
    n = len(r["objects"])
    unmatched = r.get("unmatched_patterns") or []
    if "libs" in r["settings"]["from_file"]:
        if any(o["selected"] for o in r["objects"]):
            return []
    out = []
    for u in unmatched:
        out.append("pattern '%s' selects none of the %s %s loads%s%s" % (
            u["pattern"], plural(n, "object"), r["program"],
            " (did you mean %s?)" % " or ".join(u["close"])
            if u["close"] else "",
            "" if r.get("mode") == "library" else
            "; a library it dlopens later: --dlopen FILE"))
    return out


def print_plan(r, verbose):
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
        rows.append((name, sel) + tuple(cells) + (str(o["huge_pages"]),))
    for line in table(rows, right=range(2, len(rows[0]))):
        print(line)
    if unselected:
        print("(and %s not selected; -v lists them)"
              % plural(unselected, "other object"))
    for s in r["skipped"]:
        print("(%s: %s)" % (shown(s["path"]), shown(s["why"])))
    if verbose:
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
            if o["type"] == "DYN" and o["mode"] == "ldso":
                print("  load address = %#x modulo %#x" % (o["bias"],
                                                          o["modulus"]))
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
