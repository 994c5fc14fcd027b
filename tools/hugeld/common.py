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

"""Constants, errors, argument checks and settings shared by the subcommands."""

import os
import re
import sys
import unicodedata


VERSION = "@VERSION@"
# Replaced at build time by tools/Makefile; the fallbacks are for running
# the package straight from a checkout (python3 tools/hugeld).
_LDSO = "@LDSO@"
DEFAULT_LDSO = _LDSO if not _LDSO.startswith("@") else "/opt/hugeld/ld.so"
if VERSION.startswith("@"):
    VERSION = "0.1"

HUGE = 2 * 1024 * 1024          # The huge page size hugeld uses.
PAGE = os.sysconf("SC_PAGESIZE")
SYSFS_HUGE = "/sys/kernel/mm/hugepages/hugepages-2048kB"
SYSFS_NODES = "/sys/devices/system/node"
NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"
DEBUG_DIR = "/usr/lib/debug"
# The thp repair's budget per run, in MiB of new 2 MiB folios (hugeld
# thp repair --budget; hugeld-thp --budget); its unit's MemoryMax= is
# above it.
THP_BUDGET_MIB = 512
# pool auto (cache sync --reserve-pool): the pages the declared entries
# hold, plus this share and this many pages for what processes still
# copy (relro, data, objects not in the cache) and for new versions made
# before old ones go.
AUTO_MARGIN_PERCENT = 10
AUTO_EXTRA = 8
# ld.so's paths (the policy file, the shared cache) are the helper's:
# planner.conf_file (), cache_dir (), mount_dir (), synced_name ().


class Error(Exception):
    """A failure reported as one line, exit status 1."""


def warn(msg):
    # One line: a path in it may hold a newline.
    print("hugeld: warning: " + shown(msg), file=sys.stderr)


def which(prog, path=None):
    """The file a shell runs for PROG (no slash in it), searched in PATH
    (default: the environment's): the first executable regular file,
    or None."""
    for d in (path if path is not None
              else os.environ.get("PATH", os.defpath)).split(os.pathsep):
        p = os.path.join(d or ".", prog)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def mib(pages):
    n = pages * HUGE / (1 << 20)
    return "%d MiB" % n if n == int(n) else "%.1f MiB" % n


def plural(n, word, words=None):
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def positive_int(s):
    """S, an option's value, as a number of at least 1; ValueError with
    why if it is not one."""
    try:
        v = int(s, 0)
    except ValueError:
        raise ValueError("not a number: %r" % s)
    if v < 1:
        raise ValueError("must be at least 1: %r" % s)
    return v


def pid_arg(s):
    """S, an argument, as a process ID; ValueError with why if it is not
    one."""
    if not s.isdigit() or int(s) < 1:
        raise ValueError("not a process ID: %r" % s)
    return int(s)


def wrap(text, width, indent="", first=None):
    """The lines of TEXT (its words) filled to WIDTH columns, each after
    INDENT, the first after FIRST (default INDENT): what textwrap.fill
    does, without its import at every start."""
    lines, line = [], indent if first is None else first
    for w in text.split():
        if line.strip() and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = indent
        line += (" " if line.strip() else "") + w
    return lines + ([line] if line.strip() else [])


def terminal_width():
    """The width of the terminal help is printed for: $COLUMNS, else the
    terminal's, else 80 (found without shutil, whose import every
    start paid for)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        try:
            return os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            return 80


def ldso_arg(args):
    """hugeld's loader for a command: its --ldso, else $HUGELD_LDSO,
    else the installed one."""
    return getattr(args, "ldso", None) or os.environ.get("HUGELD_LDSO") \
        or DEFAULT_LDSO


def ldso_path(args):
    """ldso_arg (ARGS), which must be an executable file."""
    p = ldso_arg(args)
    if not os.path.isfile(p) or not os.access(p, os.X_OK):
        raise Error("hugeld's loader %s is not installed (make install, or "
                    "--ldso PATH)" % p)
    return p


def program_dir():
    """The directory the hugeld program lives in: the installed zipapp's
    (bin/), the build's (build/tools/), or the package's in a checkout
    (tools/hugeld/, run as `python3 tools/hugeld')."""
    main = sys.modules.get("__main__")
    p = os.path.realpath(getattr(main, "__file__", None) or sys.argv[0])
    # Inside a zipapp, __main__.__file__ is ZIPFILE/__main__.py.
    while p != "/" and not os.path.isdir(p):
        p = os.path.dirname(p)
    return p


def table(rows, right=(), indent=""):
    """The lines of ROWS (tuples of strings, the first one the heading)
    as a table: columns padded to their widest cell and separated by
    two spaces, the columns whose indexes are in RIGHT aligned right,
    the others left; each line starts with INDENT and has no trailing
    blanks."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [(indent + "  ".join(c.rjust(widths[i]) if i in right
                                else c.ljust(widths[i])
                                for i, c in enumerate(row))).rstrip()
            for row in rows]


# What another process controls (its environment, its command name, the
# names of the files it maps and of the files those name) reaches root's
# terminal only through shown(): a newline would forge a line of the
# report, a carriage return or an escape sequence overwrite one, clear
# the screen or retitle the window.  The categories escaped: control
# characters (C0, DEL, C1), format characters (the bidirectional
# overrides that reorder what a line shows), line and paragraph
# separators, and surrogates (a byte that was not UTF-8, kept by
# surrogateescape: it cannot be written as text at all).
_ESCAPED = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(c):
    if c in _NAMED:
        return _NAMED[c]
    n = ord(c)
    if 0xdc80 <= n <= 0xdcff:
        # A byte surrogateescape kept: the byte itself.
        return "\\x%02x" % (n - 0xdc00)
    if n < 0x100:
        return "\\x%02x" % n
    return "\\u%04x" % n if n < 0x10000 else "\\U%08x" % n


def shown(s, keep=""):
    """S (a str; anything else as str()) as it may be shown on a
    terminal: each character of the categories above, but those in
    KEEP, written as \\n, \\r, \\t, \\xNN (a byte that was not UTF-8
    too), \\uNNNN; everything else as it is."""
    s = s if isinstance(s, str) else str(s)
    if s.isascii() and s.isprintable():
        return s
    return "".join(_escape(c) if c not in keep
                   and unicodedata.category(c) in _ESCAPED else c
                   for c in s)


class EscapedStream(object):
    """A text stream (sys.stdout, sys.stderr) that passes everything
    written to it through shown(), newlines kept: the last guard of the
    terminal, under the values each command escapes itself (a newline
    in a value is one only they can tell from the line's end).  JSON
    output is unchanged by it: json.dump writes ASCII, with every
    control character escaped already."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, s):
        return self._stream.write(shown(s, keep="\n"))

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def shlex_quote(s):
    if re.match(r"^[A-Za-z0-9_@%+=:,./-]+$", s):
        return s
    return "'" + s.replace("'", "'\"'\"'") + "'"


class UsageError(Exception):
    """A usage error: one line, exit status 2."""
