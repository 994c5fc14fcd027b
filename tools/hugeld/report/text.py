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

"""The text renderer: status's report for a person, of one process
(records.Report) or of the node (records.Node).  Every string a process
controls (its command name, the paths it maps, its settings' values) is
passed through shown()."""

import os

from ..common import HUGE, mib, plural, shown, table
from ..pool import pool_line
from .diagnose import no_huge_pages_reason, short_text


def display_name(p):
    """The name of process P (records.Process), as it may be shown."""
    return shown(p.name())


def coverage_line(t):
    """What an object's records.Text says, for a person: why its text is
    or is not on the page cache's huge pages."""
    parts = []
    if t.size:
        parts.append("%d kB: %d kB on 2 MiB page-cache folios, %d kB on "
                     "4 KiB pages (the partial 2 MiB at each end of the "
                     "text, and small folios: another process read the "
                     "file first and the repair has not run since, or "
                     "still maps them, or the file system makes no large "
                     "folios: hugeld thp status FILE), %d kB not mapped "
                     "(not run yet)"
                     % (t.size // 1024, t.pmd // 1024,
                        t.small // 1024, t.unmapped // 1024))
    if t.incongruent:
        parts.append("%d kB at addresses not congruent to their file "
                     "offsets modulo 2 MiB (no page-cache huge page can map "
                     "them)" % (t.incongruent // 1024))
    return "; ".join(parts)


def cache_summary_lines(c):
    """The lines of `hugeld status' for the shared cache's summary C."""
    if c is not None and c.get("error"):
        return ["shared cache: %s" % shown(c["error"])]
    if c is None or not c["entries"]:
        return []
    out = ["shared cache: %s, %s%s" % (
        plural(c["entries"], "entry", "entries"),
        plural(c["pages"], "huge page"),
        "; %d stale holding %s (run hugeld cache sync)"
        % (c["stale"], plural(c["stale_pages"], "page"))
        if c["stale"] else ", all current")]
    # The files of entries that are not opened (not regular files, or
    # behind another user's symbolic link).
    return out + ["  stale entry: %s" % shown(u) for u in c["unopened"]]


def header_lines(p):
    """The first lines of process P's report: its pages, program,
    hugetlb cgroup, loader, settings and guards."""
    how = []
    if p.shared_pages:
        how.append("%d shared (the hugeld cache), %d private" % (
            p.shared_pages, p.pages - p.shared_pages))
    if p.thp_kb:
        how.append("thp %d kB" % p.thp_kb)
    for kb, n in sorted((p.small_pages or {}).items(), reverse=True):
        how.append("%s of %d KiB (%d KiB)" % (plural(n, "huge page"), kb,
                                              n * kb))
    out = ["process %d (%s): %s (%s) in %s%s%s" % (
        p.pid, display_name(p), plural(p.pages, "huge page"), mib(p.pages),
        plural(len(p.objects), "object"),
        ", %s of other memory" % plural(len(p.other_ranges), "range")
        if p.other_ranges else "", "".join("; " + h for h in how))]
    if p.program:
        out.append("  program: %s" % shown(p.program))
    if p.hugetlb_cgroup_none:
        out.append("  hugetlb cgroup: %s is %d: no huge page from the pool "
                   "for this process" % (shown(p.hugetlb_cgroup_none["file"]),
                                         p.hugetlb_cgroup_none["value"]))
    if p.loader:
        out.append("  loader: %s%s%s" % (
            shown(p.loader), " (hugeld)" if p.hugeld else " (not hugeld)",
            ", run as a command" if p.ldso_command else ""))
        if p.loader.endswith(".so.2.distrib"):
            # hugeld-system-loader's copy of the distribution's loader:
            # in place only while a dpkg run changed glibc's packages.
            out.append("  note: started while a dpkg run had the "
                       "distribution's loader in place (a libc6 upgrade or "
                       "reinstall); it runs without hugeld until it is "
                       "restarted")
    out.append("  settings: %s" % shown(p.settings_line))
    g = p.guards
    if g and g["words"]:
        out.append("  guards: %s" % shown("; ".join(g["words"])))
    return out


def range_lines(p):
    """The table of process P's huge page ranges (none: no line)."""
    rows = [("OBJECT", "KIND", "ADDRESSES", "IN THE OBJECT", "BACKING",
             "PAGES")]
    for o in p.objects:
        for i, r in enumerate(o.ranges):
            thp = r.backing.startswith("thp")
            rows.append((shown(o.path) if i == 0 else "", r.kind,
                         "%x-%x" % (r.start, r.end),
                         "[%#x, %#x)" % (r.object_start, r.object_end),
                         r.backing, str(r.pages_in_use)
                         + ("" if r.pages_in_use == r.pages
                            else "/%d" % r.pages)
                         + ("" if r.kernel_page_kb == HUGE // 1024 or thp
                            else " (%d kB pages)" % r.kernel_page_kb)))
    for r in p.other_ranges:
        rows.append(("(not an object: %s)" % (shown(r.path) or "anonymous"),
                     r.perms, "%x-%x" % (r.start, r.end), "", "",
                     str(r.pages_in_use)))
    if len(rows) == 1:
        return []
    return [""] + table(rows, right={5}, indent="  ")


def thp_lines(p):
    """What the page cache's huge pages do for process P's text."""
    out = []
    for o in p.objects:
        if any(r.backing.startswith("thp (page cache") for r in o.ranges) \
                or (o.thp_advised and p.hugeld):
            if not (o.text.size or o.text.incongruent):
                continue
            out.append("  %s: text %s" % (shown(o.path),
                                          coverage_line(o.text)))
    if out and p.hugeld:
        out.append("  (thp: ld.so marks the text MADV_HUGEPAGE and the "
                   "kernel maps a 2 MiB range with one huge page when the "
                   "program first runs it, where the page cache holds it "
                   "in one 2 MiB folio or not at all)")
    return out


def note_lines(p, pool):
    """The notes of process P's report: which line of the policy file
    selected an object, the shared cache's timing, and why a selected
    object has no huge page or not all its text (POOL: the pool now)."""
    pol, g, out = p.policy, p.guards, []
    for o in p.objects:
        x = o.selected_by
        if pol is not None and x and x.conf_line:
            out.append('  %s: selected by pattern "%s" (%s, %s line %d)' % (
                shown(o.path), shown(x.pattern), x.matched_by,
                shown(pol["file"]), x.conf_line))
    for x in p.cache_unused:
        out.append("  note: %s: its cache entry was current when the "
                   "process started, but the process does not map it (%s): "
                   "ld.so could not use it, and LD_DEBUG=hugepages says "
                   "why; %s" % (
                       shown(x.path), ", ".join(x.backings) or
                       "ordinary pages", "the guards /proc shows: "
                       + shown("; ".join(g["words"])) if g and g["words"]
                       else "/proc shows no guard"))
    for x in p.private_cached_since_start:
        out.append("  note: %s: a private copy (%s) of what the shared cache "
                   "serves now: its entry was made after this process "
                   "started; a restart maps the cache's pages and frees "
                   "these" % (shown(x.path), plural(x.pages, "pool page")))
    for x in p.selected_without_huge_pages:
        out.append("  note: %s is selected by \"%s\" (%s%s) but has no huge "
                   "pages:" % (shown(x.path), shown(x.pattern), x.matched_by,
                               ", %s line %d" % (shown(pol["file"]),
                                                 x.conf_line)
                               if pol and x.conf_line else ""))
        out += why_lines(no_huge_pages_reason(p, pool, x),
                         x.text if p.hugeld else None)
    # Objects with huge pages of some kind, but not all their text.
    for x in short_text(p):
        out.append("  note: %s: text on %d of its %s:" % (
            shown(x.path), x.huge, plural(x.whole, "huge page")))
        out += why_lines(no_huge_pages_reason(p, pool, x, x.whole), x.text)
    return out


def why_lines(reasons, text):
    """The lines under a note: the REASONS, and the TEXT's coverage (a
    records.Text, or None) where there is any."""
    out = ["        " + line for line in reasons]
    if text is not None and (text.size or text.incongruent):
        out.append("        text %s" % coverage_line(text))
    return out


def process_lines(r):
    """The report of one process (records.Report R), for a person."""
    p = r.process
    return header_lines(p) + range_lines(p) + thp_lines(p) \
        + note_lines(p, r.pool) \
        + ["", "pool (2 MiB): %s" % pool_line(r.pool)] \
        + cache_summary_lines(r.cache)


def kernel_thread_lines(k):
    """The report of a kernel thread (records.KernelThread K)."""
    return ["process %d (%s): a kernel thread: no memory of its own, "
            "nothing on huge pages" % (k.pid, k.command)]


def process_row(p):
    """Process P's row of status --all's table."""
    objs = ", ".join("%s (%s)" % (
        shown(os.path.basename(o.path)), ", ".join(x for x in (
            "%d" % o.pages if o.pages else "",
            "%d shared" % o.shared_pages if o.shared_pages else "",
            "thp %d MiB" % (o.thp_kb // 1024) if o.thp_kb else "")
            if x) or "0") for o in p.objects)
    if p.other_ranges:
        objs += (", " if objs else "") + "other memory (%d)" % sum(
            r.pages_in_use for r in p.other_ranges)
    return (str(p.pid), str(p.pages), mib(p.pages).replace(" MiB", ""),
            str(p.thp_kb // 1024), display_name(p), objs)


def node_totals(n):
    """The totals of status --all (records.Node N): pages, the processes
    left out, the pool and the policy file."""
    nthp = len([p for p in n.processes if p.thp_kb])
    out = ["%s in %s%s%s" % (
        plural(n.pages, "huge page"),
        plural(len(n.processes), "process", "processes"),
        " (%d of them shared from the hugeld cache, counted once)"
        % n.shared_pages if n.shared_pages else "",
        "; %d MiB on page-cache huge pages in %s" % (
            n.thp_kb // 1024, plural(nthp, "process", "processes"))
        if nthp else "")]
    for f in n.failed:
        pre = "process %d: " % f.pid
        out.append("(not counted: process %d (%s): %s)" % (
            f.pid, shown(f.command), shown(f.error[len(pre):]
                                           if f.error.startswith(pre)
                                           else f.error)))
    if n.unreadable:
        out.append("(%s not readable%s)" % (
            plural(n.unreadable, "process", "processes"),
            ": run as root to see them" if os.geteuid() != 0 else ""))
    out.append("pool (2 MiB): %s" % pool_line(n.pool))
    if n.policy.state == "ignored":
        out.append("policy file: %s: %s: ld.so ignores it, and selects "
                   "nothing it would have (hugeld config check)"
                   % (shown(n.policy.file), shown(n.policy.why)))
    elif n.policy.state == "partly":
        out.append("policy file: %s: %s (hugeld config check)"
                   % (shown(n.policy.file), shown(n.policy.why)))
    return out


def sharing_lines(n):
    """What the shared cache holds and saves (records.Node N)."""
    s = n.node
    out = ["  %s: %s, mapped by %s%s" % (
        e.file or e.path, plural(e.pages, "huge page"),
        plural(e.processes, "process", "processes"),
        "" if e.state == "current" else " (%s)" % e.state)
        for e in s.entries]
    if s.entries:
        out.append("sharing saves %s (%s) against a private copy in each "
                   "process%s" % (plural(s.saved_pages, "huge page"),
                                  mib(s.saved_pages),
                                  "; %s held for no process" % plural(
                                      s.idle_pages, "page")
                                  if s.idle_pages else ""))
    pool = n.pool
    if pool is not None and pool["in_use"] > n.pages and not n.unreadable:
        idle = n.cache_pages - n.shared_pages
        out.append("(%d pages in use elsewhere: %sshared memory, hugetlbfs "
                   "files or reservations)" % (
                       pool["in_use"] - n.pages, "%d held by the hugeld "
                       "cache and mapped by no process (hugeld cache "
                       "list), " % idle if idle > 0 else ""))
    return out


def node_lines(n):
    """The report of status --all (records.Node N), for a person."""
    rows = [("PID", "PAGES", "MiB", "THP MiB", "COMMAND",
             "OBJECTS ON HUGE PAGES")] + [process_row(p) for p in n.processes]
    out = table(rows, right={0, 1, 2, 3}) + [""] if len(rows) > 1 else []
    return out + node_totals(n) + cache_summary_lines(n.cache) \
        + sharing_lines(n)


def write(lines, out):
    """Print LINES on OUT."""
    for line in lines:
        print(line, file=out)
