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

"""The files the policy file's `cache' lines declare.

The globs are expanded by hugeld-conf --expand with ld.so's own matcher
(elf/dl-hugepage-match.c); what is left here is opening what they name,
as root's tools must: only regular files, through trusted links."""

import errno
import os

from .common import Error
from .openfile import NotOpened, open_regular


def expand_cache(conf, refused=None):
    """The files the `cache' lines of CONF (hugeld-conf's document, read
    with expand=True) declare: ([{"path", "real", "line", "pattern", "id"}], [the cache
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
        if "paths" not in c:
            raise Error("the policy file was read without --expand")
        for p in c["paths"]:
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
