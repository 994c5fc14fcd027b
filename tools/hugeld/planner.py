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

"""The loader's planner: the hugeld-plan helper (plans, checks of a
setting, ld.so's defaults) and ld.so --list."""

import json
import os
import re

from . import helpers, spawn
from .common import Error


def run_helper(args_list, pass_fds=()):
    """hugeld-plan's JSON document for ARGS_LIST; PASS_FDS: descriptors
    the helper inherits (files named to it as /proc/self/fd/N)."""
    return helpers.document(helpers.PLAN, args_list, pass_fds=pass_fds)


def plan_each(args_list, items):
    """hugeld-plan's object for each (NAME, FILE) of ITEMS (FILE planned
    as if opened as NAME; FILE a path, or an open descriptor, which the
    helper reads as /proc/self/fd/N: what the caller opened, not what a
    path names now) under ARGS_LIST: one run of the helper for all; if
    that fails (a file that cannot be read any more, or that the helper
    refuses), one run per object, and None for those that fail."""
    helpers.path(helpers.PLAN)  # Missing: an error, not a None each.
    if not items:
        return []

    def arg(f):
        return "/proc/self/fd/%d" % f if isinstance(f, int) else f
    fds = tuple(sorted({f for _, f in items if isinstance(f, int)}))
    try:
        return run_helper(args_list + [a for name, f in items
                                       for a in ("--name", name, arg(f))],
                          fds)["objects"]
    except Error:
        pass
    out = []
    for name, f in items:
        try:
            out.append(run_helper(args_list + ["--name", name, arg(f)],
                                  fds if isinstance(f, int) else ())
                       ["objects"][0])
        except Error:
            out.append(None)
    return out


def helper_objects(args_list, files):
    """(hugeld-plan's object, None), or (None, why it failed), for each
    of FILES under ARGS_LIST: one run of the helper for all; if that
    fails, one run per file, for each one's error."""
    helpers.path(helpers.PLAN)
    paths = [os.path.abspath(f) for f in files]
    if not paths:
        return []
    try:
        return [(o, None) for o in run_helper(args_list + paths)["objects"]]
    except Error:
        pass
    out = []
    for p in paths:
        try:
            out.append((run_helper(args_list + [p])["objects"][0], None))
        except Error as e:
            msg = str(e)
            out.append((None, msg[len(p) + 2:] if msg.startswith(p + ": ")
                        else msg))
    return out


# How long `ld.so --list' may take: it opens the libraries a program
# names as ld.so does, with a plain open(2), and one of them may be a
# FIFO in a directory of its RUNPATH that another user can write.
LIST_TIME_LIMIT = 60


def ldso_list(ldso, path):
    """The objects ld.so loads for PATH, from the loader's own
    `ld.so --list': [(name, path or None)]."""
    try:
        p = helpers.run(helpers.LDSO, ["--list", path], program=ldso,
                        timeout=LIST_TIME_LIMIT)
    except spawn.TimedOut:
        raise Error("%s --list %s: no answer in %d s (a library it opens "
                    "blocks: a FIFO?)" % (ldso, path, LIST_TIME_LIMIT))
    out = p.stdout.decode("utf-8", "surrogateescape")
    if p.returncode != 0 and "=>" not in out:
        err = (p.stderr.decode("utf-8", "replace").strip() or out.strip()) \
            .splitlines()
        raise Error("%s --list %s failed: %s" % (
            ldso, path, re.sub(r"^\S+: ", "", err[0]) if err
            else "status %d" % p.returncode))
    objs = []
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"^(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
        if m:
            objs.append((m.group(1), None if m.group(2) == "not found"
                         else m.group(2)))
            continue
        m = re.match(r"^(\S.*?) \(0x[0-9a-f]+\)$", line)
        if m:
            objs.append((m.group(1), m.group(1) if "/" in m.group(1)
                         else None))
    return objs


def likeness(a, b):
    """How alike strings A and B are, from 0 to 1: one less their edit
    distance over the longer one's length."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1,
                           prev[j - 1] + (ca != cb)))
        prev = cur
    return 1 - prev[-1] / max(len(a), len(b), 1)


def unmatched_patterns(docs, objects):
    """The patterns of --libs that select none of the objects the
    helper's documents DOCS planned (their "patterns" counts, as
    ld.so's matcher gives them), each with the names of OBJECTS
    (hugeld-plan objects) it comes closest to: [(pattern, [names])].
    The names are a hint for a mistyped pattern, nothing more."""
    counts = {}
    for d in docs:
        for p in d.get("patterns") or []:
            counts[p["pattern"]] = counts.get(p["pattern"], 0) + \
                p["objects"]
    names = []
    for o in objects:
        for n in (os.path.basename(o["path"]), o.get("soname")):
            if n and n not in names:
                names.append(n)
    out = []
    for pat, n in counts.items():
        if n:
            continue
        # The pattern's text up to its first wildcard, against as much
        # of each name.
        lit = re.split(r"[*?\[\\]", os.path.basename(pat))[0]
        scored = sorted(((likeness(lit, name[:len(lit) + 2]), name)
                         for name in names), key=lambda x: -x[0])
        out.append((pat, [name for r, name in scored[:3]
                          if lit and r >= 0.6]))
    return out


_GLIBC = {}


def glibc_tunables_in_place(ldso):
    """The tunables that the glibc of the loader LDSO ends with a NUL,
    in place, in a process's GLIBC_TUNABLES where a `:' followed their
    value (glibc before 2.39: its parse_tunables; what
    /proc/PID/environ then shows), from `LDSO --list-tunables'; None
    for a glibc that leaves the string as it is (2.39 and later: its
    `--version'), or a loader that does not say.  Asked once per
    loader."""
    if ldso not in _GLIBC:
        _GLIBC[ldso] = None
        try:
            v = helpers.run(helpers.LDSO, ["--version"], program=ldso,
                            timeout=10)
            m = re.search(rb"release version (\d+)\.(\d+)", v.stdout)
            if m and (int(m.group(1)), int(m.group(2))) < (2, 39):
                t = helpers.run(helpers.LDSO, ["--list-tunables"],
                                program=ldso, timeout=10)
                _GLIBC[ldso] = [
                    line.split(b":")[0].decode("ascii", "replace")
                    for line in t.stdout.splitlines()
                    if line.startswith(b"glibc.") and b":" in line]
        except (Error, spawn.TimedOut):
            pass
    return _GLIBC[ldso]


def summarize(o):
    by = {}
    for z in o.get("zones", []):
        for k in z["kind"].split("+"):
            by[k] = by.get(k, 0) + (z["pages"] if "+" not in z["kind"]
                                    else 0)
        if "+" in z["kind"]:
            by[z["kind"]] = by.get(z["kind"], 0) + z["pages"]
    return by


def helper_check(flag, value, what):
    """Ask hugeld-plan whether VALUE is a sound setting (FLAG is
    --check-libs, --check-segments or --check-backing): the grammar is
    the loader's own (elf/dl-hugepage-match.c, dl-hugepage-kinds.c,
    dl-hugepage-place.c), not a copy.  Returns what the helper printed
    (for --check-backing, the backings as a JSON list)."""
    if "\0" in value:
        raise Error("%s: contains a NUL byte" % what)
    p = helpers.run(helpers.PLAN, [flag, value])
    if p.returncode != 0:
        raise Error("%s: %s" % (what, helpers.failure(helpers.PLAN, p)
                                if p.stderr.strip() else "refused"))
    return p.stdout.decode("utf-8", "replace")


def check_patterns(s, opt="--libs"):
    """Refuse pattern lists the loader would accept but that are almost
    certainly mistakes: empty patterns, unclosed brackets, a trailing
    backslash."""
    helper_check("--check-libs", s or "", opt)
    return s or ""


def check_segments(s, opt="--segments"):
    if s is None:
        return None
    helper_check("--check-segments", s, opt)
    return s


_SETTINGS = []


def ld_settings():
    """What the helper says of ld.so itself (hugeld-plan --settings):
    {"defaults": {"segments", "backing"}, "backings": [...], "kinds":
    [...], "table": [...] (setting_table), "paths": {"conf_file",
    "cache_dir", "cache_synced", "cache_notext"}, "limits": {...},
    "thp_enabled"}; asked once per run of the command, when first
    needed (so that --help works without the helper)."""
    if not _SETTINGS:
        _SETTINGS.append(run_helper(["--settings"])["settings"])
    return _SETTINGS[0]


def setting_table():
    """hugeld's settings, as ld.so's table has them (hugeld-plan
    --settings): [{"name", "variable", "tunable", "words": what its
    messages list, or None}]."""
    return ld_settings()["table"]


def setting_variable(name):
    """The environment variable of the setting NAME ("libs")."""
    for t in setting_table():
        if t["name"] == name:
            return t["variable"]
    raise Error("hugeld-plan --settings has no setting %s" % name)


def setting_words(name):
    """The words of the setting NAME's list, as ld.so's messages list
    them ("text, rodata, relro, data, bss, or all")."""
    for t in setting_table():
        if t["name"] == name:
            return t["words"]
    raise Error("hugeld-plan --settings has no setting %s" % name)


def default_setting(name):
    """ld.so's value of "segments" or "backing" where nothing sets it."""
    return ld_settings()["defaults"][name]


def conf_file():
    """The policy file ld.so reads (its HP_CONF_FILE)."""
    return ld_settings()["paths"]["conf_file"]


def cache_dir():
    """The shared cache's directory (ld.so's HP_CACHE_DIR)."""
    return ld_settings()["paths"]["cache_dir"]


def mount_dir():
    """Where the hugetlbfs of the shared cache is mounted: the cache
    directory's parent."""
    return os.path.dirname(cache_dir())


def synced_name():
    """The file a sync leaves in the cache directory (ld.so's
    HP_CACHE_SYNCED)."""
    return ld_settings()["paths"]["cache_synced"]


def notext_name():
    """The empty file in a cache entry that says its text was left out
    (ld.so's HP_CACHE_NOTEXT)."""
    return ld_settings()["paths"]["cache_notext"]


def kinds():
    """The kinds of segments ld.so knows, in its order ("text",
    "rodata", "relro", "data", "bss"): hugeld-plan --settings."""
    return tuple(ld_settings()["kinds"])


def backing_names():
    """The backings ld.so knows, in the order of its enum hp_backing:
    ("shared", "private", "thp")."""
    return tuple(ld_settings()["backings"])


def parse_backing(s, what="--backing"):
    """The backings LD_HUGEPAGE_BACKING S names, in order, as ld.so reads
    it (the helper parses it with elf/dl-hugepage-place.c); an error for
    a list ld.so would ignore or that leaves it nothing to try."""
    try:
        return json.loads(helper_check("--check-backing", s, what))
    except ValueError as e:
        raise Error("%s: the helper printed bad JSON: %s" % (what, e))
