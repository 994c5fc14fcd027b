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

"""The Prometheus renderer: status --all (a records.Node) in the
Prometheus text format (version 0.0.4), for node_exporter's textfile
collector: gauges per object of each process (huge pages by backing),
per process, and per node (pool, cache entries and what sharing
saves).  hugeld(1) lists the metrics."""

from ..common import shown
from .records import is_2m


def label(v):
    """V as a label value of the Prometheus text format (0.0.4), whatever
    bytes a process or file name holds: what shown() escapes for a
    terminal (control characters, line separators, bidirectional
    overrides, a byte that is not UTF-8) is written as the text \\n,
    \\xNN, \\uNNNN, whose backslash the format then escapes as \\\\, as
    it does a double quote (\\"): the format knows no other escape in a
    label value.  The result is always UTF-8, and holds no control
    character."""
    return shown(str(v)).replace("\\", "\\\\").replace('"', '\\"')


def backing_label(b):
    """The backing label of a range's backing (ProcMapping.backing)."""
    if b.startswith("thp (page cache"):
        return "thp_file"
    if b.startswith("thp (anonymous"):
        return "thp_anon"
    return {"hugetlbfs file": "hugetlbfs"}.get(b, b)


def metric(name, help_text, samples):
    """The lines of gauge NAME: its HELP and TYPE, and a line for each
    (labels, value) of SAMPLES, labels a sequence of (name, value)."""
    out = ["# HELP %s %s" % (name, help_text), "# TYPE %s gauge" % name]
    for labels, value in samples:
        out.append("%s%s %d" % (name, "{%s}" % ",".join(
            '%s="%s"' % (k, label(v)) for k, v in labels)
            if labels else "", value))
    return out


def process_samples(n):
    """(per object and backing, per process and kind, per backing on the
    node) samples of status --all's records.Node N."""
    objs, procs, by = [], [], {}
    for p in n.processes:
        # Raw: label () escapes what the text format needs.
        who = (("pid", p.pid), ("command", p.name()))
        for o in p.objects:
            pages = {}
            for r in o.ranges:
                if not is_2m(r):
                    # Counted in 2 MiB pages: arm64's 64 KiB pages are
                    # in status's own report.
                    continue
                b = backing_label(r.backing)
                pages[b] = pages.get(b, 0) + r.pages_in_use
            for b, k in sorted(pages.items()):
                objs.append((who + (("object", o.path), ("backing", b)), k))
                if b != "shared":
                    by[b] = by.get(b, 0) + k
        other = sum(r.pages_in_use for r in p.other_ranges if is_2m(r))
        if other:
            by["other"] = by.get("other", 0) + other
        procs.append((who + (("kind", "hugetlb"),), p.pages))
        procs.append((who + (("kind", "thp"),), p.thp_kb // 2048))
    by["shared"] = n.shared_pages
    return objs, procs, sorted(((("backing", b),), k) for b, k in by.items())


def process_metrics(n):
    """The pool's, the objects', the processes' and the node's huge
    pages (records.Node N)."""
    pool = n.pool or {}
    objs, procs, by = process_samples(n)
    return metric(
        "hugeld_pool_pages", "The 2 MiB huge page pool: HugePages_Total, "
        "Free, Rsvd, Surp and the pages available (free, not reserved).",
        [((("state", k),), pool[k]) for k in
         ("total", "free", "reserved", "surplus", "available") if k in pool]) \
        + metric("hugeld_object_huge_pages", "2 MiB pages of an ELF object "
                 "in a process, by backing: private and shared (the hugeld "
                 "cache) hugetlb pages, thp_file (page-cache huge pages), "
                 "thp_anon.", objs) \
        + metric("hugeld_process_huge_pages", "2 MiB pages of a process: "
                 "hugetlb (the shared cache's included) and thp (page-cache "
                 "and anonymous huge pages inside its objects).", procs) \
        + metric("hugeld_huge_pages", "2 MiB pages on the node by backing, "
                 "the shared cache's counted once; other: hugetlb memory "
                 "outside any object.", by) \
        + metric("hugeld_processes", "Processes with huge pages, by kind.",
                 [((("kind", "hugetlb"),),
                   len([p for p in n.processes if p.pages])),
                  ((("kind", "thp"),),
                   len([p for p in n.processes if p.thp_kb]))]) \
        + metric("hugeld_unreadable_processes", "Processes whose memory "
                 "could not be read (not root).", [((), n.unreadable)])


def node_metrics(n):
    """The policy file's state and the shared cache's (records.Node N)."""
    cache = n.cache or {}
    entries = n.node.entries
    return metric(
        "hugeld_policy_file", "The policy file: 1 for its state now "
        "(absent; used; ignored: a global line that does not parse, or not "
        "root's alone, turns hugeld off where it would select; partly: a "
        "line of a program's block does not parse, and those programs get "
        "nothing).",
        [((("state", st),), int(n.policy is not None
                                and n.policy.state == st))
         for st in ("absent", "used", "ignored", "partly")]) \
        + metric("hugeld_cache_entries", "Entries of the shared cache, by "
                 "state (stale: ld.so uses it no more, hugeld cache sync "
                 "removes it).",
                 [((("state", "current"),), cache.get("entries", 0)
                   - cache.get("stale", 0)),
                  ((("state", "stale"),), cache.get("stale", 0))]) \
        + metric("hugeld_cache_pages", "2 MiB pages the shared cache holds.",
                 [((), cache.get("pages", 0))]) \
        + metric("hugeld_cache_entry_pages", "2 MiB pages of one entry of "
                 "the shared cache.",
                 [((("file", e.file or e.path),), e.pages) for e in entries]) \
        + metric("hugeld_cache_entry_processes", "Processes mapping one "
                 "entry of the shared cache.",
                 [((("file", e.file or e.path),), e.processes)
                  for e in entries]) \
        + metric("hugeld_cache_saved_pages", "2 MiB pages the shared cache "
                 "saves: the private copies the processes beyond the first "
                 "that map a zone would hold.", [((), n.node.saved_pages)])


def text(n):
    """status --all (records.Node N) in the Prometheus text format."""
    return "\n".join(process_metrics(n) + node_metrics(n)) + "\n"
