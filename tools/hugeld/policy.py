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

"""The policy file, /etc/hugeld.conf, as ld.so reads it: the hugeld-conf
helper is built from ld.so's own parser (elf/dl-hugepage-conf.c) and
applies the same trust rule, so the command never disagrees with the
loader."""

import json
import os

from . import helpers, spawn
from .common import Error, which
from .planner import conf_file


def _conf_json(p):
    """The JSON document the helper printed, or an Error with why it
    failed."""
    if p.returncode != 0:
        raise Error(helpers.failure(helpers.CONF, p))
    return helpers.parse(p)


def environ_data(environ):
    """ENVIRONMENT (a mapping of str) as the NUL-separated strings
    /proc/PID/environ has: what hugeld-conf --environ - reads."""
    return b"".join(os.fsencode("%s=%s" % kv) + b"\0"
                    for kv in environ.items())


def effective(cmd, options, environ, program, path=None, exe=None,
              process=None):
    """hugeld-conf --effective's document: the settings a program gets
    from every source, decided by ld.so's own resolver
    (_dl_hugepage_resolve): OPTIONS ({setting: the option's value or
    None}), else the environment ENVIRON (a mapping, given to the
    helper on its standard input), else the system-wide tunables of ld.so.cache, else the
    policy file at PATH (default ld.so's), else the default.  PROGRAM
    is the name the program is run by (a path, or None), for the file's
    program blocks; EXE what /proc/self/exe names for the process
    (None: PROGRAM's real path), for the [proc:] lines of
    /etc/tunables.conf and the blocks.

    PROCESS, for another process (hugeld status), is a mapping with its
    "environ" (the bytes of /proc/PID/environ, given to the helper on
    its standard input: no argument-length limit), "glibc_tunables"
    (the names glibc ends in place in that environment, or None),
    "secure" (AT_SECURE), "exe" (/proc/PID/exe), "cwd", "kernel"
    (whether the kernel ran PROGRAM) and "pid": the helper reads the
    policy file and ld.so.cache inside that process's root (its mount
    namespace and chroot, links resolved there), judges their owners
    as it sees them, never refuses, and says what ld.so took.  Otherwise an Error of one line if the
    settings are unusable: "CMD: nothing selected: ...", or what is
    wrong with which setting."""
    path = path or conf_file()
    args = ["--effective"]
    for k in ("libs", "segments", "backing"):
        if options.get(k) is not None:
            if "\0" in options[k]:
                raise Error("--%s: contains a NUL byte" % k)
            args += ["--" + k, options[k]]
    args += ["--environ", "-"]
    proc = process or {"exe": exe}
    if process is None:
        data = environ_data(environ)
    else:
        args.append("--ldso-view")
        data = process["environ"]
        if process.get("glibc_tunables"):
            args += ["--glibc-tunables", ",".join(process["glibc_tunables"])]
        if process.get("secure"):
            args.append("--secure")
        if process.get("pid"):
            args += ["--pid", str(process["pid"])]
    if proc.get("exe"):
        args += ["--exe", proc["exe"]]
    if program:
        args += ["--run", program]
        if proc.get("cwd"):
            args += ["--cwd", proc["cwd"]]
        if proc.get("kernel"):
            args.append("--kernel")
    p = helpers.run(helpers.CONF, args + [path], data=data)
    if p.returncode == 3:
        # Nothing selected, said of the command.
        raise Error("%s: %s" % (cmd, helpers.failure(helpers.CONF, p)))
    return _conf_json(p)


def read_conf(path=None, program=None, cwd=None, expand=False):
    """What the file at PATH (default ld.so's) says (hugeld-conf's JSON)
    for PROGRAM (the name a program is run by, relative to CWD, default
    ours; None: the global settings), or None if there is no such file.  The names the
    program is known by are ld.so's (hugeld-conf --run: its
    "program_names").  With EXPAND, each cache item has the "paths" its
    glob names, found with ld.so's matcher."""
    path = path or conf_file()
    if not os.path.lexists(path):
        return None
    args = []
    if program:
        args += ["--run", program] + (["--cwd", cwd] if cwd else [])
    if expand:
        args.append("--expand")
    return _conf_json(helpers.run(helpers.CONF, args + [path]))


def conf_problems(c):
    """One line for each reason ld.so ignores the file C, or a part of
    it: its distrust, and each bad line with what it costs (the
    helper's words: the whole file, the file for the programs of a
    block, or for a cache or pool line nothing to ld.so)."""
    out = []
    if not c["trusted"]:
        out.append("%s: ignored by ld.so: %s" % (c["file"],
                                                 c["untrusted_why"]))
    for e in c["errors"]:
        out.append("%s:%d: %s (%s)" % (c["file"], e["line"], e["message"],
                                       e["cost"]))
    return out


def conf_void(c):
    """Whether ld.so ignores the whole file C for every program: it does
    not trust it, or a global line does not parse."""
    return not c["trusted"] or any(
        e["block"] is None and not e["cache"] for e in c["errors"])


# glibc 2.44's system-wide tunables: ldconfig compiles TUNABLES_CONF
# into LD_SO_CACHE, where ld.so reads them.
LD_SO_CACHE = "/etc/ld.so.cache"
TUNABLES_CONF = "/etc/tunables.conf"


def system_tunables(program=None, secure=False, cache=LD_SO_CACHE):
    """hugeld-conf --system-tunables's document: the glibc.elf.hugepage.*
    tunables ld.so takes from the system-wide tunables in CACHE for the
    program whose /proc/self/exe is PROGRAM (None: only the lines
    without a [proc:] filter), AT_SECURE if SECURE, decided by ld.so's
    own code (elf/dl-hugepage-tunconf.c).  None if CACHE cannot be
    read."""
    args = ["--system-tunables"]
    if program:
        args += ["--program", program]
    if secure:
        args.append("--secure")
    p = helpers.run(helpers.CONF, args + [cache])
    if p.returncode != 0:
        return None
    return _conf_json(p)


def tunconf_supported(doc):
    """Whether this glibc has system-wide tunables (2.44 and later): the
    cache has their section (DOC, system_tunables's document), or
    ldconfig takes a tunables file (-t TUNCONF)."""
    if doc is not None and doc["section"]:
        return True
    ldconfig = which("ldconfig") or which("ldconfig", "/sbin:/usr/sbin")
    if ldconfig is None:
        return False
    try:
        p = spawn.run([ldconfig, "--help"], stderr=spawn.STDOUT,
                      timeout=10)
    except (OSError, spawn.TimedOut):
        return False
    return b"TUNCONF" in p.stdout
