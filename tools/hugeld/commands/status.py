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

"""hugeld status: what of a running process is on huge pages."""

import io
import json
import os
import re
import sys
import threading
import time

from ..cache.entry import scan
from ..cache.mount import open_cache
from ..cache.entry import mapped_entries
from ..cache.upkeep import cache_summary, scan_states
from .. import helpers
from ..common import Error, EscapedStream, HUGE, UsageError, ldso_arg, mib, plural, shown, table
from ..elf import is_hugeld_loader
from ..guards import process_guards
from ..openfile import replace_file
from ..planner import cache_dir, check_patterns, conf_file, default_setting, glibc_tunables_in_place, parse_backing, plan_each, synced_name
from ..policy import read_conf
from ..pool import hugetlb_cgroup_none, pool_info, pool_line
from ..procfs import at_secure, command_of, environ_bytes, execfn, kernel_thread, ldso_command_program, process_cwd, process_objects, read_smaps
from ..settings import of_process


def process_status(pid, cache, ldso, detail=True):
    maps = read_smaps(pid)
    objs, others = process_objects(pid, maps, cache)
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
    except OSError:
        exe = None
    st = {"pid": pid, "command": command_of(pid), "exe": exe}
    # The objects' layouts (and DT_SONAMEs), before the settings are
    # known: the loader first.
    plans = plan_objects(objs, None, False)
    # The dynamic loader: by its DT_SONAME, as the helper reads it.  Not
    # by the kernel's AT_BASE or the program's PT_INTERP: run as a
    # command (hugeld run) ld.so is the program itself, AT_BASE is 0
    # and the program's PT_INTERP names the system's loader.  Nor by its
    # path: hugeld's is /opt/hugeld/ld.so, a build's elf/ld.so.
    # Whether it is hugeld's: from the file read through the mapping
    # (procfs.open_mapped_elf), never from the path the process shows,
    # which is its to choose (and may name another file here: hugeld
    # enable mounts hugeld's loader over the system's in the service's
    # namespace only).
    loader = loader_elf = None
    for o, x in zip(objs, plans):
        if x is not None and (x["soname"] or "").startswith("ld-linux"):
            loader, loader_elf = o.path, o.elf
            break
    st["loader"] = loader
    st["hugeld"] = loader_elf is not None \
        and is_hugeld_loader(loader_elf, ldso)
    st["hugetlb_cgroup_none"] = hugetlb_cgroup_none(pid)
    st["seccomp_filter"] = seccomp_filter(pid)
    st["guards"] = process_guards(pid, cache_dir()) if detail else None
    st["ldso_command"] = bool(exe and loader) and exe == loader
    st["program"] = exe
    if st["ldso_command"]:
        st["program"] = ldso_command_program(pid) or exe
    # The settings, as the process's ld.so took them from its
    # environment, the system-wide tunables and the policy file (as
    # they read now).
    settings = process_settings(pid, st, ldso)
    st["settings"] = None if settings is None else settings_document(settings)
    st["settings_line"] = ("environment not readable" if settings is None
                           else settings.line())
    if settings is not None and ((detail and settings.libs)
                                 or settings.segments is not None):
        plans = plan_objects(objs, settings, detail)
    st["policy"] = None
    if settings is not None and settings.origin["libs"] == "file":
        st["policy"] = dict(settings.policy, lines=dict(
            settings.policy["lines"]))
    lines = (st["policy"] or {}).get("lines") or {}
    st["backings"] = process_backings(settings)
    st["thp_mode"] = thp_mode()
    st["cache_not_synced"] = cache_not_synced(st["policy"])
    olist = []
    total = 0
    shared = {}
    thp_kb = 0
    for o, x in zip(objs, plans):
        # An object whose text the thp backing marked MADV_HUGEPAGE is
        # listed even before the kernel maps any of it huge.
        if not o.huge and not o.thp and not (o.advised and st["hugeld"]):
            continue
        ranges = []
        for m in sorted(o.huge + o.thp, key=lambda m: m.start):
            pages = (m.end - m.start) // (m.kps * 1024) \
                if m.kps * 1024 == HUGE else (m.end - m.start) // HUGE
            used = m.hugetlb // HUGE
            if not m.huge:
                used = (m.anon_thp + m.file_thp) // HUGE
                thp_kb += (m.anon_thp + m.file_thp) // 1024
            else:
                total += used
            if m.cached:
                # The cache file's pages, whoever maps them.
                shared[m.path] = max(shared.get(m.path, 0), pages)
            ranges.append({
                "kind": kind_in(x, m.start - o.bias, m.end - o.bias),
                "start": m.start, "end": m.end,
                "object_start": m.start - o.bias, "object_end": m.end - o.bias,
                "perms": m.perms, "kernel_page_kb": m.kps,
                "backing": m.backing(), "file": m.path if m.cached else None,
                "pages": pages, "pages_in_use": used})
        if x is not None and x["selected"] and x.get("pattern"):
            sel = {"pattern": x["pattern"], "matched_by": x["matched_by"],
                   "conf_line": lines.get(x["pattern"])}
        else:
            sel = None
        olist.append({"path": o.path, "bias": o.bias, "selected_by": sel,
                      "text": o.text, "thp_advised": o.advised,
                      "thp_kb": sum(m.anon_thp + m.file_thp
                                    for m in o.thp) // 1024,
                      "pages": sum(r["pages_in_use"] for r in ranges
                                   if not r["backing"].startswith("thp")),
                      "shared_pages": sum(r["pages_in_use"] for r in ranges
                                          if r["backing"] == "shared"),
                      "ranges": ranges})
    oth = []
    for m in others:
        used = m.hugetlb // HUGE
        total += used
        oth.append({"start": m.start, "end": m.end, "perms": m.perms,
                    "path": m.path, "kernel_page_kb": m.kps,
                    "pages_in_use": used})
    st["objects"] = olist
    st["other_ranges"] = oth
    st["pages"] = total
    st["shared_pages"] = sum(o["shared_pages"] for o in olist)
    # The cache files mapped, with their pages: counted once in totals.
    st["shared_files"] = shared
    st["thp_kb"] = thp_kb
    # Objects that LD_HUGEPAGE_LIBS selects but that have no huge page
    # (pool empty when they were loaded, not loaded by hugeld, ...).
    # Under another loader, page-cache huge pages are the kernel's own
    # doing (a file mapping it aligned, a page cache that already held
    # 2 MiB folios), not the selection's: the object is still listed.
    st["selected_without_huge_pages"] = [
        {"path": o.path, "pattern": x["pattern"],
         "matched_by": x["matched_by"], "planned_pages": x["huge_pages"],
         "thp": bool(o.thp), "text": o.text,
         "kernel_mapped": o.path == exe and not st["ldso_command"],
         "conf_line": lines.get(x["pattern"])}
        for o, x in zip(objs, plans)
        if x is not None and x["selected"] and not o.huge
        and (not (o.thp or o.advised) or not st["hugeld"])
        and o.path != loader]
    # Every selected object with its whole 2 MiB pages of text and those
    # of them on huge pages (hugeld check).
    st["selected"] = [dict(text_pages(o, x), path=o.path,
                           pattern=x["pattern"], matched_by=x["matched_by"],
                           planned_pages=x["huge_pages"], thp=bool(o.thp),
                           text=o.text, conf_line=lines.get(x["pattern"]),
                           kernel_mapped=o.path == exe
                           and not st["ldso_command"])
                      for o, x in zip(objs, plans)
                      if x is not None and x["selected"] and o.path != loader]
    # The cache serves an object now, but its entry was put in place
    # after the process started (a service that started before the boot
    # unit filled the cache, or that its postinst restarted before the
    # trigger's sync): the process has no huge page for it, or a private
    # copy that holds pool pages; a restart gives it the cache's pages.
    started = process_started(pid)
    private = [o for o in olist if o["shared_pages"] == 0 and any(
        r["backing"] == "private" for r in o["ranges"])]
    order = st["backings"]
    made = cache_entries_made() \
        if st["selected_without_huge_pages"] or private \
        or (detail and "shared" in order) else {}
    # By the file the process maps (its device and inode), not by the
    # path it shows.
    ids = {o.path: o.elf.dev_ino for o in objs}

    def since_start(path):
        t = made.get(ids.get(path))
        return bool(t and started and t > started)
    for x in st["selected_without_huge_pages"]:
        x["cached_since_start"] = since_start(x["path"])
    st["private_cached_since_start"] = [
        {"path": o["path"], "pages": o["pages"]}
        for o in private if since_start(o["path"])]
    # The shared cache had a current entry for a selected object when
    # the process started, the process's backings list shared, and yet
    # it maps nothing of it from the cache: ld.so tried the entry and
    # could not use it (a guard refused the open or the mapping, the
    # entry was made for another placement, ...; LD_DEBUG=hugepages
    # says which).  Named with the guards /proc shows.
    got = {o["path"]: o for o in olist}

    def before_start(path):
        t = made.get(ids.get(path))
        return bool(t and started and t <= started)
    st["cache_unused"] = []
    if detail and "shared" in order:
        for o, x in zip(objs, plans):
            if x is None or not x["selected"] or not x["huge_pages"] \
                    or o.path == loader or not before_start(o.path):
                continue
            g = got.get(o.path)
            if g is not None and g["shared_pages"]:
                continue
            backings = sorted({r["backing"] for r in g["ranges"]}) \
                if g is not None else []
            st["cache_unused"].append({"path": o.path,
                                       "backings": backings})
    return st


def text_pages(o, x):
    """{"whole": the whole 2 MiB pages of the text of object O (mapped by
    the process) at its load bias, by the kinds its plan X gives its
    pages; "huge": how many of them are on huge pages: in a hugetlb
    mapping, or, up to what the text's file mappings have on the page
    cache's PMDs, on those}."""
    blocks = []
    for r in x.get("layout") or []:
        if r["kind"] != "text":
            continue
        a = (o.bias + r["start"] + HUGE - 1) // HUGE * HUGE
        b = (o.bias + r["end"]) // HUGE * HUGE
        blocks += range(a, b, HUGE)
    hugetlb = [k for k in blocks
               if any(m.start <= k and k + HUGE <= m.end for m in o.huge)]
    pmd = sum(m.file_thp for m in o.maps if "x" in m.perms and not m.huge)
    return {"whole": len(blocks),
            "huge": min(len(blocks), len(hugetlb) + pmd // HUGE)}


# The backing lists already asked of the helper (status --all asks for
# every process; a node has a handful of lists).
_BACKINGS = {}


def process_backings(settings):
    """The backings ld.so tries for a process with SETTINGS (its
    Settings, or None: not known, ld.so's default): in force, as ld.so's
    resolver gave them (a list ld.so ignores is the default)."""
    value = settings.effective["backing"] if settings is not None \
        else default_setting("backing")
    if value not in _BACKINGS:
        try:
            _BACKINGS[value] = parse_backing(value)
        except Error:
            _BACKINGS[value] = parse_backing(default_setting("backing"))
    return _BACKINGS[value]


def thp_mode():
    """The kernel's transparent huge page mode (always, madvise, never),
    or None where it cannot be read."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            m = re.search(r"\[(\w+)\]", f.read())
    except OSError:
        return None
    return m.group(1) if m else None


def kernel_moves_hugetlb():
    """Whether the running kernel can move hugetlb mappings (mremap,
    Linux 5.16), which the private copy needs; judged by its release,
    as a hint only (ld.so tries it)."""
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return m is None or (int(m.group(1)), int(m.group(2))) >= (5, 16)


def cache_not_synced(policy):
    """Whether ld.so keeps the pool for the shared cache now: the policy
    file POLICY declares a cache and no sync has left its mark in this
    boot, so that no process takes a private copy."""
    if not policy or not policy.get("cache_declared"):
        return False
    return not os.path.exists(os.path.join(cache_dir(), synced_name()))


def no_huge_pages_reason(st, x):
    """Why the selected object X of process status ST has no huge page,
    from what can be seen of the process and the machine now: lines of
    text, each a fact (or a condition saying what it depends on), never
    a guess.  The order is the order in which ld.so would have stopped
    at them."""
    order = st.get("backings") or []
    pool = st.get("pool")
    n = plural(x["planned_pages"], "page")
    t = x["text"]
    if x["planned_pages"] == 0:
        return ["none of its parts fills a whole 2 MiB page (hugeld plan "
                "-v tells why)"]
    if not st["hugeld"]:
        return ["its plan has %s, but this process's loader is not hugeld "
                "and ignores the selection%s" % (
                    n, "; its page-cache huge pages are the kernel's own"
                    if x["thp"] else "")]
    if any(u["path"] == x["path"] for u in st.get("cache_unused", [])):
        return ["its plan has %s, and the shared cache's entry was current "
                "when it started: see the note above" % n]
    if x.get("cached_since_start"):
        return ["its plan has %s, and the shared cache serves it now, but "
                "its entry was made after this process started: a restart "
                "maps the cache's pages" % n]
    # What kept the pool's pages from it (where a backing takes them),
    # then what kept thp, the backing after it, from serving it.
    out, thp_why = [], []
    pool_backing = "private" in order
    if "thp" in order and t.get("incongruent") and not t["size"]:
        thp_why.append("its text is at an address not congruent to its file "
                   "offset modulo 2 MiB, where no page-cache huge page can "
                   "map it (thp): %s" % (
                       "the kernel chose the program's address (started "
                       "directly): run it as ld.so PROG (hugeld run) for "
                       "ld.so to place it" if x.get("kernel_mapped") else
                       "placed for the most huge pages: list thp first in "
                       "LD_HUGEPAGE_BACKING to place it for thp"))
    elif "thp" in order and st.get("thp_mode") == "never":
        thp_why.append("transparent huge pages are off (/sys/kernel/mm/"
                       "transparent_hugepage/enabled is never)")
    if not pool_backing:
        out = thp_why
        if not out:
            out.append("its plan has %s, but LD_HUGEPAGE_BACKING %s takes "
                       "nothing from the pool%s" % (
                           n, ",".join(order),
                           "" if "shared" not in order
                           else " and the shared cache has no entry for it"))
        return out
    if st["hugetlb_cgroup_none"]:
        out.append("its plan has %s, but its hugetlb cgroup allows no huge "
                   "page" % n)
    elif st.get("cache_not_synced"):
        out.append("its plan has %s, but the policy file declares a shared "
                   "cache and no hugeld cache sync has run in this boot: "
                   "until then ld.so keeps the pool for the cache and makes "
                   "no private copy" % n)
    elif not kernel_moves_hugetlb():
        out.append("its plan has %s, but this kernel (%s) cannot move huge "
                   "page mappings (Linux 5.16 or later): no private copy"
                   % (n, os.uname().release))
    elif pool is not None and pool["available"] < x["planned_pages"]:
        out.append("its plan has %s, and the pool has %s free now: if it "
                   "had none when the object was loaded, ld.so got no page "
                   "(a short pool goes to text first)" % (
                       n, plural(max(pool["available"], 0), "page")))
    elif st["seccomp_filter"]:
        out.append("its plan has %s; the process runs under a seccomp "
                   "filter: if it refuses to make written memory executable "
                   "(systemd's MemoryDenyWriteExecute= does), no private "
                   "copy of code is made and only the shared cache serves "
                   "text" % n)
    else:
        out.append("its plan has %s, and the pool has room for them now: "
                   "LD_DEBUG=hugepages (hugeld run --debug) says what "
                   "ld.so met when it loaded the object" % n)
    return out + ["then thp: " + w for w in thp_why]


def process_started(pid):
    """When process PID started (seconds since the epoch), or None."""
    try:
        # The command name in it is any bytes the process chose.
        with open("/proc/%d/stat" % pid, errors="surrogateescape") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            up = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return time.time() - up + ticks / os.sysconf("SC_CLK_TCK")


def cache_entries_made():
    """{(device, inode) of the file: when its entry was put in place}
    for the entries of the shared cache that ld.so would use ({} without
    a cache)."""
    try:
        top = open_cache()
    except Exception:
        return {}
    if top is None:
        return {}
    try:
        made = {}
        for e in scan(top)[0]:
            if e.source and not e.tmp and e.why is None:
                try:
                    st = os.stat(e.source)
                except OSError:
                    continue
                made[(st.st_dev, st.st_ino)] = e.made
        return made
    except OSError:
        return {}
    finally:
        os.close(top)


def plan_objects(objs, settings, select):
    """The loader's plan of each of OBJS as the process maps them (None
    for those that cannot be read any more), with its layout, under the
    process's SETTINGS (or None: the defaults): its segments decide
    whether data and bss are one kind, and with SELECT, its libs which
    objects are selected (by the path they are mapped from, or
    DT_SONAME, with the loader's matcher).  Patterns that are almost
    certainly mistakes are left out."""
    args = ["--layout"]
    if settings and select and settings.libs:
        try:
            args += ["--libs", check_patterns(settings.libs)]
        except Error:
            pass
    if settings:
        args += ["--segments", settings.effective["segments"]]
    # The files read through the descriptors open_mapped_elf opened.
    return plan_each(args, [(o.path, o.elf.fileno()) for o in objs])


def kind_in(plan, lo, hi):
    """The kind the loader's PLAN of an object gives the pages of
    [LO, HI) (unrelocated): the kind of the layout range that holds most
    of it (a zone may reach into the gap next to its segment), or ?."""
    kind, most = "?", 0
    for r in plan["layout"] if plan is not None else []:
        n = min(hi, r["end"]) - max(lo, r["start"])
        if n > most:
            kind, most = r["kind"], n
    return kind


def cache_pages():
    """The huge pages the shared cache holds (0 if there is none or it
    cannot be read)."""
    try:
        top = open_cache()
    except Exception:
        return 0
    if top is None:
        return 0
    try:
        return sum(e.pages for e in scan(top)[0])
    except OSError:
        return 0
    finally:
        os.close(top)


def process_settings(pid, st, ldso):
    """The Settings process PID (process_status's ST so far) got from its
    ld.so, decided by ld.so's own resolver over what ld.so read at its
    start: its environment (all of it, on the helper's standard input),
    AT_SECURE, the program by the name ld.so matched (the file `ld.so
    PROG' was given, relative to the process's directory, else the name
    the kernel ran it by), /proc/PID/exe, and the policy file and
    ld.so.cache of its own root (a container's image has its own).
    None if its environment cannot be read."""
    env = environ_bytes(pid)
    if env is None:
        return None
    name = st["program"] if st["ldso_command"] else None
    kernel = name is None
    name = name or execfn(pid) or st["exe"]
    return of_process({"environ": env, "secure": at_secure(pid),
                       "glibc_tunables": glibc_tunables_in_place(ldso),
                       "exe": st["exe"], "cwd": process_cwd(pid),
                       "kernel": kernel, "pid": pid}, name, conf_file())


def settings_document(s):
    """The Settings S as JSON: {"libs", "segments", "backing": the values
    in force (libs None: nothing selected), "given": each as its source
    gave it (None: the default), "sources", "origin",
    "bad", "locked", "ignored", "secure", "policy"}."""
    return {"libs": s.effective["libs"],
            "segments": s.effective["segments"],
            "backing": s.effective["backing"],
            "given": {"libs": s.libs, "segments": s.segments,
                      "backing": s.backing},
            "sources": dict(s.sources), "origin": dict(s.origin),
            "bad": sorted(s.bad), "locked": sorted(s.locked),
            "ignored": sorted(s.ignored), "secure": s.secure,
            "policy": {"file": s.policy["file"], "why": s.policy["why"],
                       "program": s.policy["program"]}}


def print_cache_summary(c):
    """The line of `hugeld status' for the shared cache's summary C."""
    if c is not None and c.get("error"):
        print("shared cache: %s" % shown(c["error"]))
        return
    if c is None or not c["entries"]:
        return
    print("shared cache: %s, %s%s" % (
        plural(c["entries"], "entry", "entries"),
        plural(c["pages"], "huge page"),
        "; %d stale holding %s (run hugeld cache sync)"
        % (c["stale"], plural(c["stale_pages"], "page"))
        if c["stale"] else ", all current"))
    # The files of entries that are not opened (not regular files, or
    # behind another user's symbolic link).
    for u in c["unopened"]:
        print("  stale entry: %s" % shown(u))


def cmd_status(args):
    if getattr(args, "prometheus", False) and not args.all:
        raise UsageError("hugeld status: --prometheus goes with --all")
    if getattr(args, "output", None):
        # Everything the command prints, into the file, or nothing;
        # escaped as on a terminal (what each value's own escaping left,
        # and a byte that is not UTF-8, cannot reach the file raw).
        out, buf = sys.stdout, io.StringIO()
        sys.stdout = EscapedStream(buf)
        try:
            status = status_command(args)
            text = buf.getvalue()
        finally:
            sys.stdout = out
        replace_file(args.output, text)
        return status
    return status_command(args)


def status_command(args):
    ldso = ldso_arg(args)
    cache = {}
    if args.all and args.pid is not None:
        raise UsageError("hugeld status: give a PID or --all, not both")
    if not args.all and args.pid is None:
        raise UsageError("hugeld status: give a PID or --all")
    # Each process's objects are planned by the helper: a missing one
    # is an error here, not a process left out of --all.
    helpers.path(helpers.PLAN)
    if args.all:
        return status_all(args, cache, ldso)
    if kernel_thread(args.pid):
        # Not an error: it exists, and has nothing on huge pages.
        st = {"pid": args.pid, "command": command_of(args.pid),
              "kernel_thread": True, "pages": 0, "objects": []}
        if args.json:
            json.dump(st, sys.stdout, indent=1)
            print()
        else:
            print("process %d (%s): a kernel thread: no memory of its own, "
                  "nothing on huge pages" % (args.pid, st["command"]))
        return 0
    st = process_status_within(args.pid, cache, ldso)
    st["pool"] = pool_info()
    st["cache"] = cache_summary()
    if args.json:
        json.dump(st, sys.stdout, indent=1)
        print()
        return 0
    print_status(st)
    print_cache_summary(st["cache"])
    return 0


def process_name(st):
    """The process's name, as the process chose it (raw)."""
    if st["ldso_command"] and st["program"]:
        return "%s via ld.so" % os.path.basename(st["program"])
    return st["command"]


def display_name(st):
    """The process's name, as it may be shown (escaped)."""
    return shown(process_name(st))


def coverage_line(t):
    """What text_coverage found, for a person: why an object's text is
    or is not on the page cache's huge pages."""
    parts = []
    if t["size"]:
        parts.append("%d kB: %d kB on 2 MiB page-cache folios, %d kB on "
                     "4 KiB pages (the partial 2 MiB at each end of the "
                     "text, and small folios: another process read the "
                     "file first and the repair has not run since, or "
                     "still maps them, or the file system makes no large "
                     "folios: hugeld thp status FILE), %d kB not mapped "
                     "(not run yet)"
                     % (t["size"] // 1024, t["pmd"] // 1024,
                        t["small"] // 1024, t["unmapped"] // 1024))
    if t.get("incongruent"):
        parts.append("%d kB at addresses not congruent to their file "
                     "offsets modulo 2 MiB (no page-cache huge page can map "
                     "them)" % (t["incongruent"] // 1024))
    return "; ".join(parts)


def print_status(st):
    """The report of process_status ST, for a person: every string the
    process controls (its command name, the paths it maps, its
    settings' values) passed through shown()."""
    nobj = len(st["objects"])
    how = []
    if st["shared_pages"]:
        how.append("%d shared (the hugeld cache), %d private" % (
            st["shared_pages"], st["pages"] - st["shared_pages"]))
    if st["thp_kb"]:
        how.append("thp %d kB" % st["thp_kb"])
    print("process %d (%s): %s (%s) in %s%s%s" % (
        st["pid"], display_name(st), plural(st["pages"], "huge page"),
        mib(st["pages"]), plural(nobj, "object"),
        ", %s of other memory" % plural(len(st["other_ranges"]), "range")
        if st["other_ranges"] else "", "".join("; " + h for h in how)))
    if st["program"]:
        print("  program: %s" % shown(st["program"]))
    if st["hugetlb_cgroup_none"]:
        print("  hugetlb cgroup: %s is %d: no huge page from the pool for "
              "this process" % (shown(st["hugetlb_cgroup_none"]["file"]),
                                st["hugetlb_cgroup_none"]["value"]))
    if st["loader"]:
        print("  loader: %s%s%s" % (
            shown(st["loader"]), " (hugeld)" if st["hugeld"] else " (not hugeld)",
            ", run as a command" if st["ldso_command"] else ""))
        if st["loader"].endswith(".so.2.distrib"):
            # hugeld-system-loader's copy of the distribution's loader:
            # in place only while a dpkg run changed glibc's packages.
            print("  note: started while a dpkg run had the distribution's "
                  "loader in place (a libc6 upgrade or reinstall); it runs "
                  "without hugeld until it is restarted")
    print("  settings: %s" % shown(st["settings_line"]))
    g = st.get("guards")
    if g and g["words"]:
        print("  guards: %s" % shown("; ".join(g["words"])))
    rows = [("OBJECT", "KIND", "ADDRESSES", "IN THE OBJECT", "BACKING",
             "PAGES")]
    for o in st["objects"]:
        first = True
        for r in o["ranges"]:
            thp = r["backing"].startswith("thp")
            rows.append((shown(o["path"]) if first else "", r["kind"],
                         "%x-%x" % (r["start"], r["end"]),
                         "[%#x, %#x)" % (r["object_start"], r["object_end"]),
                         r["backing"], str(r["pages_in_use"])
                         + ("" if r["pages_in_use"] == r["pages"]
                            else "/%d" % r["pages"])
                         + ("" if r["kernel_page_kb"] == HUGE // 1024 or thp
                            else " (%d kB pages)" % r["kernel_page_kb"])))
            first = False
    for r in st["other_ranges"]:
        rows.append(("(not an object: %s)" % (shown(r["path"])
                                               or "anonymous"),
                     r["perms"], "%x-%x" % (r["start"], r["end"]), "", "",
                     str(r["pages_in_use"])))
    if len(rows) > 1:
        print()
        for line in table(rows, right={5}, indent="  "):
            print(line)
    thp = False
    for o in st["objects"]:
        if any(r["backing"].startswith("thp (page cache") for r in o["ranges"]) \
                or (o["thp_advised"] and st["hugeld"]):
            if not (o["text"]["size"] or o["text"].get("incongruent")):
                continue
            print("  %s: text %s" % (shown(o["path"]),
                                     coverage_line(o["text"])))
            thp = True
    if thp and st["hugeld"]:
        print("  (thp: ld.so marks the text MADV_HUGEPAGE and the kernel maps "
              "a 2 MiB range with one huge page when the program first runs "
              "it, where the page cache holds it in one 2 MiB folio or not at "
              "all)")
    pol = st.get("policy")
    for o in st["objects"]:
        x = o["selected_by"]
        if pol is not None and x and x["conf_line"]:
            print('  %s: selected by pattern "%s" (%s, %s line %d)' % (
                shown(o["path"]), shown(x["pattern"]), x["matched_by"],
                shown(pol["file"]),
                x["conf_line"]))
    for x in st.get("cache_unused", []):
        print("  note: %s: its cache entry was current when the process "
              "started, but the process does not map it (%s): ld.so could "
              "not use it, and LD_DEBUG=hugepages says why; %s" % (
                  shown(x["path"]), ", ".join(x["backings"]) or "ordinary pages",
                  "the guards /proc shows: " + shown("; ".join(g["words"]))
                  if g and g["words"] else "/proc shows no guard"))
    for x in st.get("private_cached_since_start", []):
        print("  note: %s: a private copy (%s) of what the shared cache "
              "serves now: its entry was made after this process "
              "started; a restart maps the cache's pages and frees these"
              % (shown(x["path"]), plural(x["pages"], "pool page")))
    for x in st["selected_without_huge_pages"]:
        print("  note: %s is selected by \"%s\" (%s%s) but has no huge "
              "pages:" % (shown(x["path"]), shown(x["pattern"]),
                          x["matched_by"],
                          ", %s line %d" % (shown(pol["file"]),
                                            x["conf_line"])
                          if pol and x["conf_line"] else ""))
        for line in no_huge_pages_reason(st, x):
            print("        " + line)
        if st["hugeld"] and (x["text"]["size"] or
                             x["text"].get("incongruent")):
            print("        text %s" % coverage_line(x["text"]))
    # Objects with huge pages of some kind, but not all their text.
    without = {x["path"] for x in st["selected_without_huge_pages"]}
    for x in st.get("selected", []):
        if x["path"] in without or x["huge"] >= x["whole"] \
                or not st["hugeld"]:
            continue
        print("  note: %s: text on %d of its %s:" % (
            shown(x["path"]), x["huge"], plural(x["whole"], "huge page")))
        for line in no_huge_pages_reason(st, dict(x, planned_pages=x["whole"])):
            print("        " + line)
        if x["text"]["size"] or x["text"].get("incongruent"):
            print("        text %s" % coverage_line(x["text"]))
    print()
    print("pool (2 MiB): %s" % pool_line(st["pool"]))


def seccomp_filter(pid):
    """Whether process PID runs under a seccomp filter (Seccomp: 2 in
    /proc/PID/status), as every systemd unit with MemoryDenyWriteExecute=
    does.  A filter does not say what it refuses; prctl PR_SET_MDWE,
    the kernel's own write-execute policy, shows nowhere in /proc."""
    try:
        with open("/proc/%d/status" % pid, errors="surrogateescape") as f:
            for line in f:
                if line.startswith("Seccomp:"):
                    return line.split()[1] == "2"
    except OSError:
        pass
    return False


# How long status waits for one process: its /proc files, its objects
# and their plans.  Reading another process's memory (its environment,
# its command line) waits for that process's memory map, which the
# process (or the kernel on its behalf: a fault on a file system that
# does not answer) can keep busy for ever.
PROCESS_TIME_LIMIT = 10


def within(pid, work, limit=PROCESS_TIME_LIMIT):
    """WORK () about process PID, or Error if it takes more than LIMIT
    seconds.  The work runs in a thread of its own: a read that waits in
    the kernel cannot be cancelled, so a thread that does not answer is
    left behind (a daemon: the command exits without it).  What it
    shares with the next ones (a cache's open files) is read with
    pread, safe in two threads at once."""
    box = {}

    def run():
        try:
            box["r"] = work()
        except BaseException as e:
            box["exc"] = e
    t = threading.Thread(target=run, name="status %d" % pid, daemon=True)
    t.start()
    t.join(limit)
    if t.is_alive():
        raise Error("process %d: no answer in %d s (reading its /proc "
                    "files waits: its memory is held busy)" % (pid, limit))
    if "exc" in box:
        raise box["exc"]
    return box["r"]


def process_status_within(pid, cache, ldso, detail=True,
                          limit=PROCESS_TIME_LIMIT):
    """process_status, or Error if it takes more than LIMIT seconds."""
    return within(pid, lambda: process_status(pid, cache, ldso, detail),
                  limit)


def huge_kinds(pid):
    """Whether process PID may have huge pages: (hugetlb kB, page-cache
    PMD kB) from /proc/PID/status and smaps_rollup, cheap first looks;
    None if they cannot be read (another user's process)."""
    try:
        with open("/proc/%d/status" % pid, errors="surrogateescape") as f:
            txt = f.read()
    except OSError:
        return None
    m = re.search(r"^HugetlbPages:\s+(\d+) kB", txt, re.M)
    hugetlb = int(m.group(1)) if m else 0
    if hugetlb:
        # Listed whatever else it has: smaps_rollup, which walks the
        # whole address space, is not read.
        return hugetlb, 0
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            txt = f.read()
    except OSError:
        return None
    m = re.search(r"^FilePmdMapped:\s+(\d+) kB", txt, re.M)
    return hugetlb, int(m.group(1)) if m else 0


def collect_all(cache, ldso):
    """Every process with huge pages of any kind (hugetlb: private,
    shared from the cache, other memory; page-cache huge pages mapped
    with PMDs), its status without the per-object details; how many
    could not be read, and those that did not answer in time."""
    procs = []
    # Processes that could not be read: a line each, never left out in
    # silence.
    failed = []
    unreadable = 0
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        pid = int(d)
        if kernel_thread(pid):
            continue
        # smaps_rollup waits for the process's memory map, as the rest.
        try:
            kinds = within(pid, lambda: huge_kinds(pid))
        except Error as e:
            failed.append({"pid": pid, "command": command_of(pid),
                           "error": str(e)})
            continue
        if kinds is None:
            if os.path.exists("/proc/%d" % pid):
                unreadable += 1
            continue
        if kinds == (0, 0):
            continue
        try:
            st = process_status_within(pid, cache, ldso, detail=False)
        except Error as e:
            if "permission denied" in str(e):
                unreadable += 1
            elif "does not exist" not in str(e):
                failed.append({"pid": pid, "command": command_of(pid),
                               "error": str(e)})
            continue
        if st["pages"] > 0 or st["thp_kb"] > 0 or st["objects"] \
                or st["other_ranges"]:
            procs.append(st)
    procs.sort(key=lambda s: s["pid"])
    return procs, unreadable, failed


def node_summary(procs):
    """What the shared cache holds and saves on this node: per entry its
    file, pages and the processes mapping it, and the pages sharing
    saves (each process beyond the first would hold its own copy of the
    zones it maps)."""
    zones = {}
    for s in procs:
        for f, n in s["shared_files"].items():
            z = zones.setdefault(f, {"pages": n, "processes": 0})
            z["pages"] = max(z["pages"], n)
            z["processes"] += 1
    saved = sum(z["pages"] * (z["processes"] - 1) for z in zones.values())
    entries = []
    try:
        got = scan_states()
    except Error:
        got = None
    if got is not None:
        os.close(got[0])
        users = mapped_entries()
        for e in got[1]:
            if e.tmp:
                continue
            entries.append({"file": e.source, "path": e.path,
                            "state": e.state, "pages": e.pages,
                            "processes": users.get(e.path, 0)})
    return {"entries": entries, "saved_pages": saved,
            "idle_pages": sum(e["pages"] for e in entries
                              if not e["processes"])}


def policy_state(path=None):
    """The policy file (PATH, default ld.so's) as ld.so finds it now:
    {"file", "state": absent, used or ignored, "why"}: a file ld.so
    ignores turns hugeld off everywhere it would have selected
    something, and an operator looks here, not at each program."""
    path = path or conf_file()
    try:
        c = read_conf(path)
    except Error as e:
        return {"file": path, "state": "ignored", "why": str(e)}
    if c is None:
        return {"file": path, "state": "absent", "why": None}
    why = None
    if not c["trusted"]:
        why = c["untrusted_why"]
    elif c["errors"]:
        why = "line %d: %s" % (c["errors"][0]["line"],
                               c["errors"][0]["message"])
    return {"file": path, "why": why,
            "state": "ignored" if why else "used"}


def status_all(args, cache, ldso):
    procs, unreadable, failed = collect_all(cache, ldso)
    pool = pool_info()
    # Pages of the shared cache are the same in every process that maps
    # them (and do not come from the pool per process): counted once.
    shared = {}
    for s in procs:
        for f, n in s["shared_files"].items():
            shared[f] = max(shared.get(f, 0), n)
    total = sum(s["pages"] - s["shared_pages"] for s in procs) \
        + sum(shared.values())
    res = {"processes": procs, "pages": total, "pool": pool,
           "shared_pages": sum(shared.values()), "cache_pages": cache_pages(),
           "thp_kb": sum(s["thp_kb"] for s in procs),
           "unreadable": unreadable, "failed": failed,
           "cache": cache_summary(),
           "node": node_summary(procs), "policy": policy_state()}
    if getattr(args, "prometheus", False):
        sys.stdout.write(prometheus_text(res))
        return 0
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return 0
    rows = [("PID", "PAGES", "MiB", "THP MiB", "COMMAND",
             "OBJECTS ON HUGE PAGES")]
    for s in procs:
        objs = ", ".join("%s (%s)" % (
            shown(os.path.basename(o["path"])), ", ".join(x for x in (
                "%d" % o["pages"] if o["pages"] else "",
                "%d shared" % o["shared_pages"] if o["shared_pages"] else "",
                "thp %d MiB" % (o["thp_kb"] // 1024) if o["thp_kb"] else "")
                if x) or "0")
                         for o in s["objects"])
        if s["other_ranges"]:
            objs += (", " if objs else "") + "other memory (%d)" % sum(
                r["pages_in_use"] for r in s["other_ranges"])
        rows.append((str(s["pid"]), str(s["pages"]),
                     mib(s["pages"]).replace(" MiB", ""),
                     str(s["thp_kb"] // 1024), display_name(s), objs))
    if len(rows) > 1:
        for line in table(rows, right={0, 1, 2, 3}):
            print(line)
        print()
    nthp = len([s for s in procs if s["thp_kb"]])
    print("%s in %s%s%s" % (plural(total, "huge page"),
                            plural(len(procs), "process", "processes"),
                            " (%d of them shared from the hugeld cache, "
                            "counted once)" % res["shared_pages"]
                            if res["shared_pages"] else "",
                            "; %d MiB on page-cache huge pages in %s" % (
                                res["thp_kb"] // 1024,
                                plural(nthp, "process", "processes"))
                            if nthp else ""))
    for f in failed:
        msg = f["error"]
        pre = "process %d: " % f["pid"]
        print("(not counted: process %d (%s): %s)" % (
            f["pid"], shown(f["command"]),
            shown(msg[len(pre):] if msg.startswith(pre) else msg)))
    if unreadable:
        print("(%s not readable%s)" % (
            plural(unreadable, "process", "processes"),
            ": run as root to see them" if os.geteuid() != 0 else ""))
    print("pool (2 MiB): %s" % pool_line(pool))
    if res["policy"]["state"] == "ignored":
        print("policy file: %s: %s: ld.so ignores it, and selects nothing "
              "it would have (hugeld config check)"
              % (shown(res["policy"]["file"]), shown(res["policy"]["why"])))
    print_cache_summary(res["cache"])
    node = res["node"]
    for e in node["entries"]:
        print("  %s: %s, mapped by %s%s" % (
            e["file"] or e["path"], plural(e["pages"], "huge page"),
            plural(e["processes"], "process", "processes"),
            "" if e["state"] == "current" else " (%s)" % e["state"]))
    if node["entries"]:
        print("sharing saves %s (%s) against a private copy in each "
              "process%s" % (plural(node["saved_pages"], "huge page"),
                             mib(node["saved_pages"]),
                             "; %s held for no process" % plural(
                                 node["idle_pages"], "page")
                             if node["idle_pages"] else ""))
    if pool is not None and pool["in_use"] > total and not unreadable:
        idle = res["cache_pages"] - res["shared_pages"]
        print("(%d pages in use elsewhere: %sshared memory, hugetlbfs files "
              "or reservations)" % (
                  pool["in_use"] - total, "%d held by the hugeld cache and "
                  "mapped by no process (hugeld cache list), " % idle
                  if idle > 0 else ""))
    return 0


def prom_label(v):
    """V as a label value of the Prometheus text format (0.0.4), whatever
    bytes a process or file name holds: what shown() escapes for a
    terminal (control characters, line separators, bidirectional
    overrides, a byte that is not UTF-8) is written as the text \\n,
    \\xNN, \\uNNNN, whose backslash the format then escapes as \\\\, as
    it does a double quote (\\"): the format knows no other escape in a
    label value.  The result is always UTF-8, and holds no control
    character."""
    return shown(str(v)).replace("\\", "\\\\").replace('"', '\\"')


def prom_backing(b):
    """The backing label of a range's backing (ProcMapping.backing)."""
    if b.startswith("thp (page cache"):
        return "thp_file"
    if b.startswith("thp (anonymous"):
        return "thp_anon"
    return {"hugetlbfs file": "hugetlbfs"}.get(b, b)


def prometheus_text(res):
    """status --all RES in the Prometheus text format (version 0.0.4),
    for node_exporter's textfile collector: gauges per object of each
    process (huge pages by backing), per process, and per node (pool,
    cache entries and what sharing saves)."""
    out = []

    def metric(name, help_text, samples):
        out.append("# HELP %s %s" % (name, help_text))
        out.append("# TYPE %s gauge" % name)
        for labels, value in samples:
            out.append("%s%s %d" % (name, "{%s}" % ",".join(
                '%s="%s"' % (k, prom_label(v)) for k, v in labels)
                if labels else "", value))

    pool = res["pool"] or {}
    metric("hugeld_pool_pages", "The 2 MiB huge page pool: "
           "HugePages_Total, Free, Rsvd, Surp and the pages available "
           "(free, not reserved).",
           [((("state", k),), pool[k]) for k in
            ("total", "free", "reserved", "surplus", "available")
            if k in pool])
    objs, procs = [], []
    by = {}
    for s in res["processes"]:
        # Raw: prom_label escapes what the text format needs.
        who = (("pid", s["pid"]), ("command", process_name(s)))
        for o in s["objects"]:
            pages = {}
            for r in o["ranges"]:
                b = prom_backing(r["backing"])
                pages[b] = pages.get(b, 0) + r["pages_in_use"]
            for b, n in sorted(pages.items()):
                objs.append((who + (("object", o["path"]), ("backing", b)),
                             n))
                if b != "shared":
                    by[b] = by.get(b, 0) + n
        other = sum(r["pages_in_use"] for r in s["other_ranges"])
        if other:
            by["other"] = by.get("other", 0) + other
        procs.append((who + (("kind", "hugetlb"),), s["pages"]))
        procs.append((who + (("kind", "thp"),), s["thp_kb"] // 2048))
    by["shared"] = res["shared_pages"]
    metric("hugeld_object_huge_pages", "2 MiB pages of an ELF object in a "
           "process, by backing: private and shared (the hugeld cache) "
           "hugetlb pages, thp_file (page-cache huge pages), thp_anon.",
           objs)
    metric("hugeld_process_huge_pages", "2 MiB pages of a process: hugetlb "
           "(the shared cache's included) and thp (page-cache and "
           "anonymous huge pages inside its objects).", procs)
    metric("hugeld_huge_pages", "2 MiB pages on the node by backing, the "
           "shared cache's counted once; other: hugetlb memory outside any "
           "object.", sorted(((("backing", b),), n) for b, n in by.items()))
    metric("hugeld_processes", "Processes with huge pages, by kind.",
           [((("kind", "hugetlb"),), len([s for s in res["processes"]
                                          if s["pages"]])),
            ((("kind", "thp"),), len([s for s in res["processes"]
                                      if s["thp_kb"]]))])
    metric("hugeld_unreadable_processes", "Processes whose memory could not "
           "be read (not root).", [((), res["unreadable"])])
    pol = res.get("policy") or {}
    metric("hugeld_policy_file", "The policy file: 1 for its state now "
           "(absent; used; ignored: a line that does not parse, or not "
           "root's alone, turns hugeld off where it would select).",
           [((("state", st),), int(pol.get("state") == st))
            for st in ("absent", "used", "ignored")])
    node = res["node"]
    cache = res["cache"] or {}
    metric("hugeld_cache_entries", "Entries of the shared cache, by state "
           "(stale: ld.so uses it no more, hugeld cache sync removes it).",
           [((("state", "current"),), cache.get("entries", 0)
             - cache.get("stale", 0)),
            ((("state", "stale"),), cache.get("stale", 0))])
    metric("hugeld_cache_pages", "2 MiB pages the shared cache holds.",
           [((), cache.get("pages", 0))])
    metric("hugeld_cache_entry_pages", "2 MiB pages of one entry of the "
           "shared cache.", [((("file", e["file"] or e["path"]),),
                              e["pages"]) for e in node["entries"]])
    metric("hugeld_cache_entry_processes", "Processes mapping one entry of "
           "the shared cache.", [((("file", e["file"] or e["path"]),),
                                  e["processes"]) for e in node["entries"]])
    metric("hugeld_cache_saved_pages", "2 MiB pages the shared cache saves: "
           "the private copies the processes beyond the first that map a "
           "zone would hold.", [((), node["saved_pages"])])
    return "\n".join(out) + "\n"
