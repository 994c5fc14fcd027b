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

"""Paths and globs as ld.so sees them, for the policy file.

glob_match is elf/dl-hugepage-match.c's matcher (`*', `?', brackets
with ranges and `!' or `^', `\\' escapes; an unclosed `[' is a literal),
conf_path and program_names are the lexical path rule and the program
names of elf/dl-hugepage-conf.c and dl-hugepage-policy.c, and
expand_cache names the files a `cache' line declares, with that same
matcher applied to each component of the path.  tests/unit checks them
against the C code's own test cases."""

import errno
import os

from .openfile import NotOpened, open_regular


def _bracket(pat, i, c):
    """The bracket expression that starts after the `[' before PAT[I],
    against the character C: (the index after its `]', whether C
    matched), or None if it is not closed."""
    end = len(pat)
    negate = i < end and pat[i] in "!^"
    if negate:
        i += 1
    found = False
    first = True
    while i < end and (pat[i] != "]" or first):
        first = False
        lo = pat[i]
        i += 1
        if lo == "\\" and i < end:
            lo = pat[i]
            i += 1
        hi = lo
        if i + 1 < end and pat[i] == "-" and pat[i + 1] != "]":
            hi = pat[i + 1]
            i += 2
            if hi == "\\" and i < end:
                hi = pat[i]
                i += 1
        if lo <= c <= hi:
            found = True
    if i >= end:
        return None
    return i + 1, found != negate


def glob_match(pat, name):
    """Whether the whole of NAME matches the glob PAT (a `*' matches a
    `/' too, as in ld.so)."""
    p = n = 0
    star_p = star_n = None
    while True:
        if p < len(pat):
            pc = pat[p]
            if pc == "*":
                while p < len(pat) and pat[p] == "*":
                    p += 1
                star_p, star_n = p, n
                continue
            if n < len(name):
                if pc == "?":
                    p += 1
                    n += 1
                    continue
                b = _bracket(pat, p + 1, name[n]) if pc == "[" else None
                if b is not None:
                    if b[1]:
                        p = b[0]
                        n += 1
                        continue
                elif pc == "\\" and p + 1 < len(pat):
                    if pat[p + 1] == name[n]:
                        p += 2
                        n += 1
                        continue
                elif pc == name[n]:
                    p += 1
                    n += 1
                    continue
        elif n == len(name):
            return True
        # Let the last `*' swallow one more character and retry.
        if star_p is None or star_n >= len(name):
            return False
        star_n += 1
        p, n = star_p, star_n


def has_magic(s):
    return any(c in s for c in "*?[\\")


def unescape(s):
    """S without its `\\' escapes."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            i += 1
        out.append(s[i])
        i += 1
    return "".join(out)


def conf_path(link, target):
    """The path TARGET names when read from the symbolic link at LINK
    (None: by itself), lexically: `.', empty components and `D/..'
    removed (elf/dl-hugepage-match.c, _dl_hugepage_link_path)."""
    if target.startswith("/") or link is None:
        link = None
    absolute = (link if link is not None else target).startswith("/")
    comps = []
    for k, p in enumerate((link, target)):
        if p is None:
            continue
        if k == 0:
            # Of LINK, only its directory.
            p = p[:p.rfind("/") + 1]
        for c in p.split("/"):
            if c in ("", "."):
                continue
            if c == ".." and absolute and not comps:
                continue        # `..' of the root is the root.
            if c == ".." and comps and comps[-1] != "..":
                comps.pop()
                continue
            comps.append(c)
    return ("/" if absolute else "") + "/".join(comps) or "."


MAX_LINKS = 8


def program_names(name, cwd=None):
    """The names ld.so matches the patterns of `program' lines against
    for a main program run by NAME (elf/dl-hugepage-policy.c): NAME, NAME
    made absolute (against CWD, default ours), and what it names after
    following symbolic links (up to 8, each resolved lexically: only
    NAME's last component is looked at, never realpath)."""
    names = [name]
    cur = name
    if not name.startswith("/"):
        cwd = os.getcwd() if cwd is None else cwd
        if not cwd.startswith("/"):
            return names
        cur = conf_path(cwd.rstrip("/") + "/", name)
        names.append(cur)
    for _ in range(MAX_LINKS):
        try:
            target = os.readlink(cur)
        except OSError:
            break
        if not target:
            break
        cur = conf_path(cur, target)
    if cur != names[-1]:
        names.append(cur)
    return names


def expand(pattern):
    """The existing paths an absolute glob names, sorted; each
    component is matched on its own (a `*' stays within it), and a
    wildcard matches a leading `.' only if the component starts with
    one, as in the shell."""
    paths = ["/"]
    comps = [c for c in pattern.split("/") if c]
    for i, comp in enumerate(comps):
        last = i == len(comps) - 1
        nxt = []
        for d in paths:
            if not has_magic(comp):
                names = [unescape(comp)]
            else:
                try:
                    names = sorted(n for n in os.listdir(d)
                                   if (not n.startswith(".")
                                       or comp.startswith("."))
                                   and glob_match(comp, n))
                except OSError:
                    names = []
            for n in names:
                p = os.path.join(d, n)
                if os.path.isdir(p) if not last else os.path.lexists(p):
                    nxt.append(p)
        paths = nxt
    return paths if comps else []


def expand_cache(conf, refused=None):
    """The files the `cache' lines of CONF (hugeld-conf's document)
    declare: ([{"path", "real", "line", "pattern", "id"}], [the cache
    items that name no regular file]).  A path is followed through
    symbolic links to its file, only through those that root (or the
    caller) owns, and only a regular file is opened
    (openfile.open_regular); a file named twice (by two patterns, a
    link, a hard link) is there once, under the first path.  REFUSED,
    a list, gets {"path", "line", "pattern", "why"} for each path that
    names something else (a FIFO, a device, another user's link; not
    a directory, which globs often match, nor a dangling link)."""
    files, seen, empty = [], set(), []
    for c in conf.get("cache") or []:
        hits = 0
        for p in expand(c["pattern"]):
            if os.path.isdir(p):
                continue
            try:
                with open_regular(p) as o:
                    real, st = o.real, o.st
            except NotOpened as e:
                if refused is not None and e.errno not in (
                        errno.ENOENT, errno.ENOTDIR):
                    refused.append({"path": p, "line": c["line"],
                                    "pattern": c["pattern"], "why": str(e)})
                continue
            hits += 1
            fid = (st.st_dev, st.st_ino)
            if fid in seen:
                continue
            seen.add(fid)
            files.append({"path": p, "real": real, "line": c["line"],
                          "pattern": c["pattern"], "id": fid})
        if not hits:
            empty.append(c)
    return files, empty
