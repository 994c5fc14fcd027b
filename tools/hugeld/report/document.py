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

"""The JSON renderer: status --json's document of a record, field for
field what status printed before its records were typed (each record's
fields are the document's members, in its order), and its printing."""

import json
import sys

from .records import Report


def document(r):
    """The JSON document of R: a record (a named tuple) as an object of
    its fields, a Report as its process's with "pool" and "cache" last,
    lists, tuples and mappings member by member, anything else as it
    is."""
    if isinstance(r, Report):
        return dict(document(r.process), pool=r.pool,
                    cache=document(r.cache))
    if isinstance(r, tuple) and hasattr(r, "_asdict"):
        return {k: document(v) for k, v in r._asdict().items()}
    if isinstance(r, (list, tuple)):
        return [document(v) for v in r]
    if isinstance(r, dict):
        return {k: document(v) for k, v in r.items()}
    return r


def write(r, out=None):
    """Print R's document (document ()) on OUT (default standard
    output), as status --json always did."""
    out = out or sys.stdout
    json.dump(document(r), out, indent=1)
    out.write("\n")
