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

import json
import os
import re
import sys
import time

from ..cache.entry import scan
from ..cache.mount import open_cache
from ..cache.upkeep import cache_summary
from ..common import DEFAULT_LDSO, Error, HUGE, UsageError, helper_path, mib, plural, table
from ..elf import is_hugeld_loader
from ..planner import check_patterns, check_segments, conf_file, default_setting, plan_each
from ..policy import file_policy, given_settings
from ..pool import hugetlb_cgroup_none, pool_info, pool_line
from ..procfs import command_of, execfn, ldso_command_program, process_cwd, process_objects, read_environ, read_smaps
from ..settings import VARS


def process_status(pid, cache, ldso, detail=True):
    maps = read_smaps(pid)
    objs, others = process_objects(pid, maps, cache)
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
    except OSError:
        exe = None
    st = {"pid": pid, "command": command_of(pid), "exe": exe}
    env = read_environ(pid)
    settings = None if env is None else process_settings(env)
    plans = plan_objects(objs, settings, detail)
    # The dynamic loader: by its DT_SONAME, as the helper reads it.  Not
    # by the kernel's AT_BASE or the program's PT_INTERP: run as a
    # command (hugeld run) ld.so is the program itself, AT_BASE is 0
    # and the program's PT_INTERP names the system's loader.  Nor by its
    # path: hugeld's is /opt/hugeld/ld.so, a build's elf/ld.so.
    loader = None
    for o, x in zip(objs, plans):
        if x is not None and (x["soname"] or "").startswith("ld-linux"):
            loader = o.path
            break
    st["loader"] = loader
    st["hugeld"] = bool(loader) and is_hugeld_loader(loader, ldso)
    st["hugetlb_cgroup_none"] = hugetlb_cgroup_none(pid)
    st["seccomp_filter"] = seccomp_filter(pid)
    st["ldso_command"] = bool(exe and loader) and exe == loader
    st["program"] = exe
    if st["ldso_command"]:
        st["program"] = ldso_command_program(pid) or exe
    st["settings"] = settings
    # No LD_HUGEPAGE_LIBS: hugeld's ld.so took what the policy file gave
    # the program (as the file reads now), setting by setting.
    st["policy"] = None
    if detail and st["hugeld"] and settings is not None \
            and settings["libs"] is None:
        pol = process_policy(pid, st)
        st["policy"] = pol
        if pol["libs"]:
            fs = {"libs": pol["libs"]}
            for k, var in (("segments", "LD_HUGEPAGE_SEGMENTS"),
                           ("backing", "LD_HUGEPAGE_BACKING")):
                fs[k] = env[var] if var in env else pol[k]
            plans = plan_objects(objs, fs, detail)
    lines = (st["policy"] or {}).get("lines") or {}
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
         "conf_line": lines.get(x["pattern"])}
        for o, x in zip(objs, plans)
        if x is not None and x["selected"] and not o.huge
        and (not (o.thp or o.advised) or not st["hugeld"])
        and o.path != loader]
    # The cache serves an object now, but its entry was put in place
    # after the process started (a service that started before the boot
    # unit filled the cache, or that its postinst restarted before the
    # trigger's sync): the process has no huge page for it, or a private
    # copy that holds pool pages; a restart gives it the cache's pages.
    started = process_started(pid)
    private = [o for o in olist if o["shared_pages"] == 0 and any(
        r["backing"] == "private" for r in o["ranges"])]
    made = cache_entries_made() \
        if st["selected_without_huge_pages"] or private else {}

    def since_start(path):
        t = made.get(os.path.realpath(path))
        return bool(t and started and t > started)
    for x in st["selected_without_huge_pages"]:
        x["cached_since_start"] = since_start(x["path"])
    st["private_cached_since_start"] = [
        {"path": o["path"], "pages": o["pages"]}
        for o in private if since_start(o["path"])]
    return st


def process_started(pid):
    """When process PID started (seconds since the epoch), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            up = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return time.time() - up + ticks / os.sysconf("SC_CLK_TCK")


def cache_entries_made():
    """{real path of the file: when its entry was put in place} for the
    entries of the shared cache that ld.so would use ({} without a
    cache)."""
    try:
        top = open_cache()
    except Exception:
        return {}
    if top is None:
        return {}
    try:
        return {os.path.realpath(e.source): e.made for e in scan(top)[0]
                if e.source and not e.tmp and e.why is None}
    except OSError:
        return {}
    finally:
        os.close(top)


def plan_objects(objs, settings, select):
    """The loader's plan of each of OBJS as the process maps them (None
    for those that cannot be read any more), with its layout, under the
    process's SETTINGS: its LD_HUGEPAGE_SEGMENTS decides whether data
    and bss are one kind, and with SELECT, its LD_HUGEPAGE_LIBS which
    objects are selected (by the path they are mapped from, or
    DT_SONAME, with the loader's matcher).  Settings the loader would
    ignore (or that are almost certainly mistakes) are left out."""
    args = ["--layout"]
    if settings and select and settings["libs"]:
        try:
            args += ["--libs", check_patterns(settings["libs"])]
        except Error:
            pass
    if settings and settings.get("segments"):
        try:
            args += ["--segments", check_segments(settings["segments"])]
        except Error:
            pass
    return plan_each(args, [(o.path, o.elf.path) for o in objs])


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


def process_settings(env):
    """The settings a process's environment ENV gives it: each
    LD_HUGEPAGE_* variable, else its glibc.elf.hugepage.* tunable in
    GLIBC_TUNABLES, as ld.so took them (None where neither gives one),
    and under "names" the variable's or the tunable's name."""
    variables = {VARS[k]: env[VARS[k]] for k in VARS if VARS[k] in env}
    s = {k: env.get(VARS[k]) for k in VARS}
    s["names"] = dict(VARS)
    if "GLIBC_TUNABLES" in env:
        for k, (value, name) in given_settings(
                variables, env["GLIBC_TUNABLES"]).items():
            s[k] = value
            s["names"][k] = name
    return s


def process_policy(pid, st):
    """policy.file_policy for the program of process PID, by the name
    ld.so matched: the file `ld.so PROG' was given (relative to the
    process's directory), else the name the kernel ran it by; without
    the helper's whole document."""
    name = st["program"] if st["ldso_command"] else None
    name = name or execfn(pid) or st["exe"]
    pol = file_policy(name, conf_file(), process_cwd(pid))
    c = pol.pop("conf")
    pol["name"] = name
    pol["block_line"] = c["program"]["line"] if c and c["program"] else None
    return pol


def settings_line(st):
    """The process's settings and where they come from."""
    s, pol = st["settings"], st.get("policy")
    if s is None:
        return "environment not readable"
    if pol is not None and pol["libs"] is not None:
        src = []
        for k, var in (("libs", "LD_HUGEPAGE_LIBS"),
                       ("segments", "LD_HUGEPAGE_SEGMENTS"),
                       ("backing", "LD_HUGEPAGE_BACKING")):
            if s[k] is not None:
                src.append("%s=%s" % (var, s[k]))
            elif pol[k] is not None:
                src.append("%s %s (%s)" % (k, pol[k] or "none",
                                           pol["where"][k]))
            else:
                src.append("%s (default: %s)" % (
                    k, default_setting(k) if k != "libs" else ""))
        return "no LD_HUGEPAGE_LIBS: from %s as it reads now%s: %s" % (
            pol["file"], ", the program block at line %d" % pol["block_line"]
            if pol["block_line"] else "", "; ".join(src))
    why = ""
    if s["libs"] is None and pol is not None \
            and pol["why"] not in (None, "no such file"):
        why = "; %s: %s" % (pol["file"], pol["why"])
    if s["libs"] is not None or s["segments"] is not None \
            or s["backing"] is not None:
        names = s.get("names", VARS)
        return "%s=%s %s=%s %s=%s%s" % (
                names["libs"],
                s["libs"] if s["libs"] is not None else "(unset)",
                names["segments"],
                s["segments"] if s["segments"] is not None
                else "(default: %s)" % default_setting("segments"),
                names["backing"],
                s["backing"] if s["backing"] else
                "(default: %s)" % default_setting("backing"), why)
    return "LD_HUGEPAGE_LIBS not set" + why


def print_cache_summary(c):
    """The line of `hugeld status' for the shared cache's summary C."""
    if c is not None and c.get("error"):
        print("shared cache: %s" % c["error"])
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
        print("  stale entry: %s" % u)


def cmd_status(args):
    ldso = getattr(args, "ldso", None) or os.environ.get("HUGELD_LDSO") \
        or DEFAULT_LDSO
    cache = {}
    if args.all and args.pid is not None:
        raise UsageError("hugeld status: give a PID or --all, not both")
    if not args.all and args.pid is None:
        raise UsageError("hugeld status: give a PID or --all")
    # Each process's objects are planned by the helper: a missing one
    # is an error here, not a process left out of --all.
    helper_path()
    if args.all:
        return status_all(args, cache, ldso)
    st = process_status(args.pid, cache, ldso)
    st["pool"] = pool_info()
    st["cache"] = cache_summary()
    if args.json:
        json.dump(st, sys.stdout, indent=1)
        print()
        return 0
    print_status(st)
    print_cache_summary(st["cache"])
    return 0


def display_name(st):
    if st["ldso_command"] and st["program"]:
        return "%s via ld.so" % os.path.basename(st["program"])
    return st["command"]


def coverage_line(t):
    """What text_coverage found, for a person: why an object's text is
    or is not on the page cache's huge pages."""
    return ("%d kB: %d kB on 2 MiB page-cache folios, %d kB on 4 KiB pages "
            "(the partial 2 MiB at each end of the text, and small "
            "folios: another process read the file first and the repair "
            "has not run since, or still maps them, or the file system "
            "makes no large folios: hugeld thp status FILE), %d kB not "
            "mapped (not run yet)"
            % (t["size"] // 1024, t["pmd"] // 1024, t["small"] // 1024,
               t["unmapped"] // 1024))


def print_status(st):
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
        print("  program: %s" % st["program"])
    if st["hugetlb_cgroup_none"]:
        print("  hugetlb cgroup: %s is %d: no huge page from the pool for "
              "this process" % (st["hugetlb_cgroup_none"]["file"],
                                st["hugetlb_cgroup_none"]["value"]))
    if st["loader"]:
        print("  loader: %s%s%s" % (
            st["loader"], " (hugeld)" if st["hugeld"] else " (not hugeld)",
            ", run as a command" if st["ldso_command"] else ""))
        if st["loader"].endswith(".so.2.distrib"):
            # hugeld-system-loader's copy of the distribution's loader:
            # in place only while a dpkg run changed glibc's packages.
            print("  note: started while a dpkg run had the distribution's "
                  "loader in place (a libc6 upgrade or reinstall); it runs "
                  "without hugeld until it is restarted")
    print("  settings: %s" % settings_line(st))
    rows = [("OBJECT", "KIND", "ADDRESSES", "IN THE OBJECT", "BACKING",
             "PAGES")]
    for o in st["objects"]:
        first = True
        for r in o["ranges"]:
            thp = r["backing"].startswith("thp")
            rows.append((o["path"] if first else "", r["kind"],
                         "%x-%x" % (r["start"], r["end"]),
                         "[%#x, %#x)" % (r["object_start"], r["object_end"]),
                         r["backing"], str(r["pages_in_use"])
                         + ("" if r["pages_in_use"] == r["pages"]
                            else "/%d" % r["pages"])
                         + ("" if r["kernel_page_kb"] == HUGE // 1024 or thp
                            else " (%d kB pages)" % r["kernel_page_kb"])))
            first = False
    for r in st["other_ranges"]:
        rows.append(("(not an object: %s)" % (r["path"] or "anonymous"),
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
            print("  %s: text %s" % (o["path"], coverage_line(o["text"])))
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
                o["path"], x["pattern"], x["matched_by"], pol["file"],
                x["conf_line"]))
    for x in st.get("private_cached_since_start", []):
        print("  note: %s: a private copy (%s) of what the shared cache "
              "serves now: its entry was made after this process "
              "started; a restart maps the cache's pages and frees these"
              % (x["path"], plural(x["pages"], "pool page")))
    for x in st["selected_without_huge_pages"]:
        print("  note: %s is selected by \"%s\" (%s%s) but has no huge "
              "pages:" % (x["path"], x["pattern"], x["matched_by"],
                          ", %s line %d" % (pol["file"], x["conf_line"])
                          if pol and x["conf_line"] else ""))
        if x["planned_pages"] == 0:
            print("        none of its parts fills a whole 2 MiB page "
                  "(hugeld plan -v tells why)")
        elif not st["hugeld"]:
            print("        its plan has %s, but this process's loader is "
                  "not hugeld and ignores the selection%s"
                  % (plural(x["planned_pages"], "page"),
                     "; its page-cache huge pages are the kernel's own"
                     if x["thp"] else ""))
        elif st["hugetlb_cgroup_none"]:
            print("        its plan has %s, but its hugetlb cgroup allows no "
                  "huge page" % plural(x["planned_pages"], "page"))
        elif x["cached_since_start"]:
            print("        its plan has %s, and the shared cache serves it "
                  "now, but its entry was made after this process started: "
                  "a restart maps the cache's pages"
                  % plural(x["planned_pages"], "page"))
        elif st.get("pool") and st["pool"]["available"] < x["planned_pages"]:
            print("        its plan has %s, but the pool has %s free now "
                  "(too small when it was loaded, most likely: ENOMEM; "
                  "LD_DEBUG=hugepages tells)"
                  % (plural(x["planned_pages"], "page"),
                     plural(max(st["pool"]["available"], 0), "page")))
        elif st["seccomp_filter"]:
            print("        its plan has %s, but the process runs under a "
                  "seccomp filter, which may refuse private copies of code "
                  "(systemd's MemoryDenyWriteExecute= does): only the shared "
                  "cache can serve it; LD_DEBUG=hugepages tells"
                  % plural(x["planned_pages"], "page"))
        else:
            print("        its plan has %s (pool empty when it was loaded? "
                  "LD_DEBUG=hugepages tells)"
                  % plural(x["planned_pages"], "page"))
        if st["hugeld"] and x["text"]["size"]:
            print("        text %s" % coverage_line(x["text"]))
    print()
    print("pool (2 MiB): %s" % pool_line(st["pool"]))


def seccomp_filter(pid):
    """Whether process PID runs under a seccomp filter (Seccomp: 2 in
    /proc/PID/status), as every systemd unit with MemoryDenyWriteExecute=
    does.  A filter does not say what it refuses; prctl PR_SET_MDWE,
    the kernel's own write-execute policy, shows nowhere in /proc."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Seccomp:"):
                    return line.split()[1] == "2"
    except OSError:
        pass
    return False


def status_all(args, cache, ldso):
    procs = []
    unreadable = 0
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        pid = int(d)
        # Cheap first look: HugetlbPages in status.
        try:
            with open("/proc/%d/status" % pid) as f:
                txt = f.read()
        except OSError:
            continue
        m = re.search(r"^HugetlbPages:\s+(\d+) kB", txt, re.M)
        if m is not None and int(m.group(1)) == 0:
            continue
        try:
            st = process_status(pid, cache, ldso, detail=False)
        except Error as e:
            if "permission denied" in str(e):
                unreadable += 1
            continue
        if st["pages"] > 0 or st["objects"] or st["other_ranges"]:
            procs.append(st)
    procs.sort(key=lambda s: s["pid"])
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
           "unreadable": unreadable, "cache": cache_summary()}
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return 0
    rows = [("PID", "PAGES", "MiB", "COMMAND", "OBJECTS ON HUGE PAGES")]
    for s in procs:
        objs = ", ".join("%s (%d%s)" % (
            os.path.basename(o["path"]), o["pages"], ", %d shared" %
            o["shared_pages"] if o["shared_pages"] else "")
                         for o in s["objects"])
        if s["other_ranges"]:
            objs += (", " if objs else "") + "other memory (%d)" % sum(
                r["pages_in_use"] for r in s["other_ranges"])
        rows.append((str(s["pid"]), str(s["pages"]),
                     mib(s["pages"]).replace(" MiB", ""), display_name(s),
                     objs))
    if len(rows) > 1:
        for line in table(rows, right={0, 1, 2}):
            print(line)
        print()
    print("%s in %s%s" % (plural(total, "huge page"),
                          plural(len(procs), "process", "processes"),
                          " (%d of them shared from the hugeld cache, counted "
                          "once)" % res["shared_pages"]
                          if res["shared_pages"] else ""))
    if unreadable:
        print("(%s not readable: run as root to see them)" %
              plural(unreadable, "process", "processes"))
    print("pool (2 MiB): %s" % pool_line(pool))
    print_cache_summary(res["cache"])
    if pool is not None and pool["in_use"] > total and not unreadable:
        idle = res["cache_pages"] - res["shared_pages"]
        print("(%d pages in use elsewhere: %sshared memory, hugetlbfs files "
              "or reservations)" % (
                  pool["in_use"] - total, "%d held by the hugeld cache and "
                  "mapped by no process (hugeld cache list), " % idle
                  if idle > 0 else ""))
    return 0
