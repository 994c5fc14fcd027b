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

"""The plan of a program and the libraries it loads, as `hugeld plan'
prints it and `run' and `config check' use it: the objects (from the
loader's own `ld.so --list', plus those it dlopens) planned by
hugeld-plan under the settings, each zone's backing (the shared cache's
entries, present or declared), and the pages each backing takes and
the pool N processes need."""

import collections
import os

from .common import Error, HUGE, ldso_path, plural, shown
from .elf import Elf, check_program, interp_is_hugeld_loader, resolve_program
from .pathglob import expand_cache
from .planner import backing_names, default_setting, ldso_list, run_helper, unmatched_patterns
from .policy import read_conf

# What a plan is of, besides the settings: the program (or library), the
# loader (None: $HUGELD_LDSO or the installed one), whether it is
# started directly, the libraries it dlopens, the processes at once.
PlanOptions = collections.namedtuple(
    "PlanOptions", "program ldso direct dlopen copies")


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
