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

"""The typed records of `hugeld status': what the collector (collect,
node) returns and the renderers format.  Each is a named tuple with a
documented field for each member of status --json's document, in its
order (document.document () turns a record into that document); every
field has a default (None), so that a test makes the records it needs
with the fields it needs.  Mappings that other modules make (the
settings' document, the guards, the pool, the cache's summary) stay as
they are, dicts."""

import collections
import os

from ..common import HUGE


def _record(name, fields):
    """A named tuple type NAME of FIELDS (a space-separated string),
    each None by default."""
    names = fields.split()
    return collections.namedtuple(name, names, defaults=(None,) * len(names))


Text = _record("Text", "size pmd small unmapped incongruent")
Text.__doc__ = """How an object's executable file mappings are mapped, in
bytes (procfs.text_coverage): size, pmd (on the page cache's 2 MiB
folios), small (on 4 KiB pages), unmapped (not faulted in), incongruent
(at an address not congruent to its file offset modulo 2 MiB: counted
in none of the others)."""

Range = _record("Range", "kind start end object_start object_end perms "
                "kernel_page_kb backing file pages pages_in_use")
Range.__doc__ = """One huge page mapping of an object (what the kernel
gave): kind (its plan's kind of most of it, or ?), start and end (the
process's addresses), object_start and object_end (the object's own,
unrelocated), perms, kernel_page_kb (KernelPageSize), backing (shared,
private, hugetlbfs file, thp (page cache, N kB), thp (anonymous, N
kB)), file (the cache file it maps, or None), pages (the huge pages of
its kernel_page_kb it spans: 2 MiB, or 64 KiB on arm64) and
pages_in_use (those it holds)."""

def is_2m(r):
    """Whether range R (Range or OtherRange) counts in 2 MiB pages: the
    pool's size, and thp's; not hugetlb pages smaller than 2 MiB
    (arm64's 64 KiB ones), which are counted apart."""
    return r.kernel_page_kb is None or r.kernel_page_kb >= HUGE // 1024 \
        or (getattr(r, "backing", None) or "").startswith("thp")


OtherRange = _record("OtherRange", "start end perms path kernel_page_kb "
                     "pages_in_use")
OtherRange.__doc__ = """A hugetlb mapping outside every object (shared
memory, a hugetlbfs file, a program's own MAP_HUGETLB)."""

Selection = _record("Selection", "pattern matched_by conf_line")
Selection.__doc__ = """What selected an object (what the settings
asked): the pattern, what it matched (file name, DT_SONAME, path,
program name) and its line in the policy file (None: not the file's)."""

Object = _record("Object", "path bias selected_by text thp_advised thp_kb "
                 "pages shared_pages ranges small_pages")
Object.__doc__ = """An ELF object of the process with huge pages of some
kind (or whose text hugeld's ld.so marked MADV_HUGEPAGE): its path, load
bias, selected_by (a Selection, or None), text (a Text), thp_advised,
thp_kb (transparent huge pages in its mappings), pages (2 MiB hugetlb
pages it holds), shared_pages (of them, from the shared cache), ranges
(Range) and small_pages ({kB: pages} of the smaller hugetlb sizes it
holds: arm64's 64 KiB pages)."""

Unserved = _record("Unserved", "path pattern matched_by planned_pages thp "
                   "text kernel_mapped conf_line cached_since_start")
Unserved.__doc__ = """An object the settings select that has no huge page
(hugetlb; under hugeld's loader, no page-cache huge page either):
path, pattern, matched_by, planned_pages (its plan's), thp (the kernel
mapped some of it huge anyway), text (a Text), kernel_mapped (the
program the kernel mapped), conf_line, cached_since_start (the shared
cache has an entry for it now, made after the process started)."""

Selected = _record("Selected", "whole huge path pattern matched_by "
                   "planned_pages thp text conf_line kernel_mapped")
Selected.__doc__ = """An object the settings select: whole (the whole
2 MiB pages of its text), huge (how many of them are on huge pages:
hugetlb, or page-cache PMDs), and the rest as Unserved."""

PrivateCopy = _record("PrivateCopy", "path pages")
PrivateCopy.__doc__ = """An object with a private copy (pages from the
pool) of what the shared cache serves now, from an entry made after the
process started: a restart maps the cache's pages."""

CacheUnused = _record("CacheUnused", "path backings")
CacheUnused.__doc__ = """A selected object whose cache entry was current
when the process started, which maps none of it (backings: what it got
instead)."""

_Process = _record(
    "Process", "pid command exe loader hugeld hugetlb_cgroup_none "
    "seccomp_filter guards ldso_command program settings settings_line "
    "policy backings thp_mode cache_not_synced objects other_ranges pages "
    "shared_pages shared_files thp_kb selected_without_huge_pages "
    "selected private_cached_since_start cache_unused small_pages")


class Process(_Process):
    """One process (status PID; an element of status --all):

    pid, command (its comm, raw), exe (/proc/PID/exe), loader (the
    object whose DT_SONAME is ld-linux*), hugeld (that loader is
    hugeld's, by the file it maps), hugetlb_cgroup_none ({"file",
    "value"}: a limit that allows no huge page, or None),
    seccomp_filter, guards (guards.process_guards, or None without the
    details), ldso_command (run as `ld.so PROG'), program (the program
    it runs), settings (settings_document: libs, segments, backing and
    where each comes from; None: the environment cannot be read),
    settings_line (the same for a person), policy (the policy file's
    view, where libs are the file's, or None), backings (the order ld.so
    tries), thp_mode, cache_not_synced (the file declares a cache and no
    sync has run in this boot);

    what the kernel gave: objects (Object), other_ranges (OtherRange),
    pages (2 MiB hugetlb pages: of objects and other memory),
    shared_pages (of them, the shared cache's), shared_files ({cache
    file: its pages}), thp_kb, small_pages ({kB: pages} of the smaller
    hugetlb sizes: arm64's 64 KiB pages);

    what the settings asked: selected_without_huge_pages (Unserved),
    selected (Selected); and the shared cache's timing:
    private_cached_since_start (PrivateCopy), cache_unused
    (CacheUnused)."""

    __slots__ = ()

    def name(self):
        """The process's name, as the process chose it (raw): its
        program's file name for `ld.so PROG'."""
        if self.ldso_command and self.program:
            return "%s via ld.so" % os.path.basename(self.program)
        return self.command


KernelThread = _record("KernelThread", "pid command kernel_thread pages "
                       "objects")
KernelThread.__doc__ = """A kernel thread (status PID of one): no memory
of its own."""

Report = _record("Report", "process pool cache")
Report.__doc__ = """status PID: the Process, the pool (pool.pool_info)
and the shared cache's summary (upkeep.cache_summary); its document is
the process's with "pool" and "cache" last."""

Failed = _record("Failed", "pid command error")
Failed.__doc__ = """A process status --all could not read (not counted),
and why."""

EntryUse = _record("EntryUse", "file path state pages processes")
EntryUse.__doc__ = """An entry of the shared cache: the file it was made
from, its path, state, pages and the processes that map it."""

Sharing = _record("Sharing", "entries saved_pages idle_pages")
Sharing.__doc__ = """What the shared cache holds and saves on the node:
entries (EntryUse), saved_pages (the private copies the processes
beyond the first that map a zone would hold), idle_pages (held for no
process)."""

PolicyState = _record("PolicyState", "file state why")
PolicyState.__doc__ = """The policy file as ld.so finds it now: state
absent, used, ignored (for every program) or partly (for the programs
of a block whose line does not parse), and why."""

Node = _record("Node", "processes pages pool shared_pages cache_pages "
               "thp_kb unreadable failed cache node policy")
Node.__doc__ = """status --all: processes (Process, without the details),
pages (hugetlb pages, the shared cache's counted once), pool,
shared_pages, cache_pages (what the cache holds), thp_kb, unreadable
(how many processes could not be read), failed (Failed), cache (its
summary), node (Sharing), policy (PolicyState)."""
