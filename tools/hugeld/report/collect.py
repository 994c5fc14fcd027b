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

"""The collector of one process: what the kernel gave it (/proc/PID/
smaps and maps: hugetlb mappings inside an object's address range are
its), what its settings asked (decided by ld.so's resolver over what
its ld.so read: hugeld-conf --effective), and the plans of its objects
(hugeld-plan, reading the files it maps through descriptors), as a
records.Process.  Nothing here formats."""

import os
import re
import threading
import time

from ..cache.entry import scan
from ..cache.mount import open_cache
from ..common import Error, HUGE
from ..elf import is_hugeld_loader
from ..guards import process_guards
from ..planner import cache_dir, check_patterns, conf_file, default_setting, glibc_tunables_in_place, parse_backing, plan_each, synced_name
from ..pool import hugetlb_cgroup_none
from ..procfs import at_secure, command_of, environ_bytes, execfn, ldso_command_program, process_cwd, process_objects, read_smaps
from ..settings import of_process
from .records import CacheUnused, Object, OtherRange, PrivateCopy, Process, Range, Selected, Selection, Text, Unserved, is_2m

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


def process_status(pid, cache, ldso, detail=True):
    """The records.Process of process PID, hugeld's loader being LDSO
    (CACHE: the ELF files already opened, by device and inode).  Without
    DETAIL (status --all, gdb), the objects are planned without their
    selection unless a segments setting needs it, and the guards and the
    cache's timing are not looked at."""
    maps = read_smaps(pid)
    objs, others = process_objects(pid, maps, cache)
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
    except OSError:
        exe = None
    # The objects' layouts (and DT_SONAMEs), before the settings are
    # known: the loader first.
    plans = plan_objects(objs, None, False)
    loader, loader_elf = find_loader(objs, plans)
    ldso_command = bool(exe and loader) and exe == loader
    program = (ldso_command_program(pid) or exe) if ldso_command else exe
    # The settings, as the process's ld.so took them from its
    # environment, the system-wide tunables and the policy file (as
    # they read now).
    settings = process_settings(pid, exe, program, ldso_command, ldso)
    if settings is not None and ((detail and settings.libs)
                                 or settings.segments is not None):
        plans = plan_objects(objs, settings, detail)
    policy = None
    if settings is not None and settings.origin["libs"] == "file":
        policy = dict(settings.policy, lines=dict(settings.policy["lines"]))
    p = Process(
        pid=pid, command=command_of(pid), exe=exe, loader=loader,
        hugeld=loader_elf is not None and is_hugeld_loader(loader_elf, ldso),
        hugetlb_cgroup_none=hugetlb_cgroup_none(pid),
        seccomp_filter=seccomp_filter(pid),
        guards=process_guards(pid, cache_dir()) if detail else None,
        ldso_command=ldso_command, program=program,
        settings=None if settings is None else settings_document(settings),
        settings_line=("environment not readable" if settings is None
                       else settings.line()),
        policy=policy, backings=process_backings(settings),
        thp_mode=thp_mode(), cache_not_synced=cache_not_synced(policy))
    p = with_mappings(p, objs, others, plans)
    p = with_selection(p, objs, plans)
    return with_cache_timing(p, pid, objs, plans, detail)


def find_loader(objs, plans):
    """(path, Elf) of the dynamic loader among OBJS, or (None, None): by
    its DT_SONAME, as the helper reads it.  Not by the kernel's AT_BASE
    or the program's PT_INTERP: run as a command (hugeld run) ld.so is
    the program itself, AT_BASE is 0 and the program's PT_INTERP names
    the system's loader.  Nor by its path: hugeld's is
    /opt/hugeld/ld.so, a build's elf/ld.so.  Whether it is hugeld's:
    from the file read through the mapping (procfs.open_mapped_elf),
    never from the path the process shows, which is its to choose (and
    may name another file here: hugeld enable mounts hugeld's loader
    over the system's in the service's namespace only)."""
    for o, x in zip(objs, plans):
        if x is not None and (x["soname"] or "").startswith("ld-linux"):
            return o.path, o.elf
    return None, None


def object_ranges(o, x):
    """The Range of each huge page mapping of object O (procfs), its
    plan X giving the kinds."""
    out = []
    for m in sorted(o.huge + o.thp, key=lambda m: m.start):
        size = count_size(m) if m.huge else HUGE
        used = m.hugetlb // size if m.huge \
            else (m.anon_thp + m.file_thp) // HUGE
        out.append(Range(
            kind=kind_in(x, m.start - o.bias, m.end - o.bias),
            start=m.start, end=m.end, object_start=m.start - o.bias,
            object_end=m.end - o.bias, perms=m.perms,
            kernel_page_kb=m.kps, backing=m.backing(),
            file=m.path if m.cached else None,
            pages=(m.end - m.start) // size,
            pages_in_use=used))
    return out


def count_size(m):
    """The size hugetlb mapping M's pages are counted in: its own below
    2 MiB (arm64's 64 KiB), else 2 MiB (the page cache's and thp's are
    counted in 2 MiB too)."""
    return min(m.kps * 1024 if m.kps else HUGE, HUGE)


def small_pages(ranges):
    """{kB: pages in use} of RANGES' hugetlb pages smaller than 2 MiB."""
    out = {}
    for r in ranges:
        if not is_2m(r):
            out[r.kernel_page_kb] = out.get(r.kernel_page_kb, 0) \
                + r.pages_in_use
    return out


def selection(x, lines):
    """The Selection of an object by its plan X (None: not selected),
    LINES the policy file's {pattern: line}."""
    if x is not None and x["selected"] and x.get("pattern"):
        return Selection(pattern=x["pattern"], matched_by=x["matched_by"],
                         conf_line=lines.get(x["pattern"]))
    return None


def with_mappings(p, objs, others, plans):
    """P with what the kernel gave: its objects with huge pages of any
    kind (or, under hugeld's loader, text marked MADV_HUGEPAGE: listed
    even before the kernel maps any of it huge), other hugetlb memory,
    and the totals."""
    lines = (p.policy or {}).get("lines") or {}
    olist, shared = [], {}
    for o, x in zip(objs, plans):
        if not o.huge and not o.thp and not (o.advised and p.hugeld):
            continue
        ranges = object_ranges(o, x)
        for m in o.huge:
            if m.cached:
                # The cache file's pages, whoever maps them.
                shared[m.path] = max(shared.get(m.path, 0),
                                     (m.end - m.start) // HUGE)
        olist.append(Object(
            path=o.path, bias=o.bias, selected_by=selection(x, lines),
            text=Text(**o.text), thp_advised=o.advised,
            thp_kb=sum(m.anon_thp + m.file_thp for m in o.thp) // 1024,
            pages=sum(r.pages_in_use for r in ranges
                      if not r.backing.startswith("thp") and is_2m(r)),
            shared_pages=sum(r.pages_in_use for r in ranges
                             if r.backing == "shared" and is_2m(r)),
            ranges=ranges, small_pages=small_pages(ranges)))
    oth = [OtherRange(start=m.start, end=m.end, perms=m.perms, path=m.path,
                      kernel_page_kb=m.kps,
                      pages_in_use=m.hugetlb // count_size(m))
           for m in others]
    small = small_pages(oth)
    for o in olist:
        for k, n in o.small_pages.items():
            small[k] = small.get(k, 0) + n
    return p._replace(
        objects=olist, other_ranges=oth, small_pages=small,
        pages=sum(o.pages for o in olist)
        + sum(r.pages_in_use for r in oth if is_2m(r)),
        shared_pages=sum(o.shared_pages for o in olist),
        # The cache files mapped, with their pages: counted once in
        # totals.
        shared_files=shared,
        thp_kb=sum(o.thp_kb for o in olist))


def with_selection(p, objs, plans):
    """P with what its settings asked: every selected object with its
    whole 2 MiB pages of text and those of them on huge pages (hugeld
    check), and those with no huge page (pool empty when they were
    loaded, not loaded by hugeld, ...).  Under another loader,
    page-cache huge pages are the kernel's own doing (a file mapping it
    aligned, a page cache that already held 2 MiB folios), not the
    selection's: the object is still listed."""
    lines = (p.policy or {}).get("lines") or {}
    unserved, selected = [], []
    for o, x in zip(objs, plans):
        if x is None or not x["selected"] or o.path == p.loader:
            continue
        kernel = o.path == p.exe and not p.ldso_command
        common = dict(path=o.path, pattern=x["pattern"],
                      matched_by=x["matched_by"],
                      planned_pages=x["huge_pages"], thp=bool(o.thp),
                      text=Text(**o.text), conf_line=lines.get(x["pattern"]),
                      kernel_mapped=kernel)
        if not o.huge and (not (o.thp or o.advised) or not p.hugeld):
            unserved.append(Unserved(cached_since_start=False, **common))
        whole, huge = text_pages(o, x)
        selected.append(Selected(whole=whole, huge=huge, **common))
    return p._replace(selected_without_huge_pages=unserved,
                      selected=selected)


def with_cache_timing(p, pid, objs, plans, detail):
    """P with what the shared cache's timing explains.  The cache serves
    an object now, but its entry was put in place after the process
    started (a service that started before the boot unit filled the
    cache, or that its postinst restarted before the trigger's sync):
    the process has no huge page for it, or a private copy that holds
    pool pages; a restart gives it the cache's pages.  Or the cache had
    a current entry for a selected object when the process started, the
    process's backings list shared, and yet it maps nothing of it from
    the cache: ld.so tried the entry and could not use it (a guard
    refused the open or the mapping, the entry was made for another
    placement, ...; LD_DEBUG=hugepages says which)."""
    private = [o for o in p.objects if o.shared_pages == 0 and any(
        r.backing == "private" for r in o.ranges)]
    made = cache_entries_made() \
        if p.selected_without_huge_pages or private \
        or (detail and "shared" in p.backings) else {}
    started = process_started(pid)
    # By the file the process maps (its device and inode), not by the
    # path it shows.
    ids = {o.path: o.elf.dev_ino for o in objs}

    def when(path):
        return made.get(ids.get(path)) if started else None
    unserved = [x._replace(cached_since_start=bool(
        when(x.path) and when(x.path) > started))
        for x in p.selected_without_huge_pages]
    copies = [PrivateCopy(path=o.path, pages=o.pages) for o in private
              if when(o.path) and when(o.path) > started]
    unused = []
    got = {o.path: o for o in p.objects}
    for o, x in zip(objs, plans) if detail and "shared" in p.backings \
            else ():
        if x is None or not x["selected"] or not x["huge_pages"] \
                or o.path == p.loader or not when(o.path) \
                or when(o.path) > started:
            continue
        g = got.get(o.path)
        if g is not None and g.shared_pages:
            continue
        unused.append(CacheUnused(path=o.path, backings=sorted(
            {r.backing for r in g.ranges}) if g is not None else []))
    return p._replace(selected_without_huge_pages=unserved,
                      private_cached_since_start=copies,
                      cache_unused=unused)


def text_pages(o, x):
    """(the whole 2 MiB pages of the text of object O (mapped by the
    process) at its load bias, by the kinds its plan X gives its pages;
    how many of them are on huge pages: in a hugetlb mapping, or, up to
    what the text's file mappings have on the page cache's PMDs, on
    those)."""
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
    return len(blocks), min(len(blocks), len(hugetlb) + pmd // HUGE)


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


def process_settings(pid, exe, program, ldso_command, ldso):
    """The Settings process PID got from its ld.so, decided by ld.so's
    own resolver over what ld.so read at its start: its environment
    (all of it, on the helper's standard input), AT_SECURE, the program
    by the name ld.so matched (PROGRAM, the file `ld.so PROG' was given
    (LDSO_COMMAND), relative to the process's directory, else the name
    the kernel ran it by), EXE (/proc/PID/exe), and the policy file and
    ld.so.cache of its own root (a container's image has its own).  None
    if its environment cannot be read."""
    env = environ_bytes(pid)
    if env is None:
        return None
    name = program if ldso_command else None
    kernel = name is None
    name = name or execfn(pid) or exe
    return of_process({"environ": env, "secure": at_secure(pid),
                       "glibc_tunables": glibc_tunables_in_place(ldso),
                       "exe": exe, "cwd": process_cwd(pid),
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


def cache_not_synced(policy):
    """Whether ld.so keeps the pool for the shared cache now: the policy
    file POLICY declares a cache and no sync has left its mark in this
    boot, so that no process takes a private copy."""
    if not policy or not policy.get("cache_declared"):
        return False
    return not os.path.exists(os.path.join(cache_dir(), synced_name()))


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
