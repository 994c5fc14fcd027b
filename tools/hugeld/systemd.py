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

"""systemd, for the commands that work on a unit: its main process
(hugeld check UNIT), and the drop-in of hugeld enable and disable, which
put one systemd service on hugeld's loader without making hugeld the
system's loader.

enable writes a drop-in, /etc/systemd/system/UNIT.d/hugeld.conf, that
sets the LD_HUGEPAGE_* variables and bind-mounts hugeld's loader over
the system's loader in the service's own mount namespace
(BindReadOnlyPaths=): every program the service runs is loaded by
hugeld's ld.so, as with hugeld as the system loader, and nothing
outside it is.  The unit's own command is not rewritten: a shell that
execs the program (Debian's mariadb.service does), ExecStartPre= and
package upgrades of the unit all keep working; the process is the
program itself (ps, pidof, systemctl and /proc/PID/exe see it; the
kernel maps it and ld.so moves its zones, docs/backings.md); and it
starts whatever the pool holds: what does not fit stays on ordinary
pages (hugeld run, which refuses an empty pool, is for a person at a
terminal).  disable removes the drop-in."""

import os
import unicodedata

from . import spawn
from .common import Error, UsageError, program_dir, shown
from .elf import check_program
from .planner import default_setting, parse_backing

DROPIN_DIR = "/etc/systemd/system"
DROPIN_NAME = "hugeld.conf"
MARK = "# Written by hugeld enable (hugeld(1)); hugeld disable removes it."
# Where systemd looks for a command given without a path (systemd.service(5)).
SYSTEMD_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
                "/sbin", "/bin")
# The ABI's loader path, where a program's PT_INTERP does not say:
# x86-64's or AArch64's.
ABI_LOADER = ("/lib/ld-linux-aarch64.so.1" if os.uname().machine == "aarch64"
              else "/lib64/ld-linux-x86-64.so.2")
# The repair before the service starts (ExecStartPre=): coreutils'
# timeout, and its limit, within systemd's default start timeout (90 s).
TIMEOUT = "/usr/bin/timeout"
PREPARE_TIME_LIMIT = 30
# Programs whose name says nothing of what they run: --libs is needed.
SHELLS = ("sh", "bash", "dash", "env", "nice", "ionice", "chrt", "taskset",
          "numactl", "setpriv", "runuser")


def dropin_path(unit):
    """(the drop-in directory of UNIT, the drop-in file hugeld writes)."""
    d = os.path.join(DROPIN_DIR, unit + ".d")
    return d, os.path.join(d, DROPIN_NAME)


def unit_name(unit):
    if "/" in unit or unit.startswith("-") or not unit:
        raise UsageError("hugeld: not a unit name: %r" % unit)
    return unit if "." in unit else unit + ".service"


def systemctl(*args, timeout=60):
    try:
        p = spawn.run(("systemctl",) + args, timeout=timeout)
    except (OSError, spawn.TimedOut) as e:
        raise Error("cannot run systemctl %s: %s" % (
            args[0], getattr(e, "strerror", None) or "timed out"))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Error("systemctl %s: %s" % (" ".join(args),
                                          msg[0] if msg else "failed"))
    return p.stdout.decode("utf-8", "surrogateescape")


def exec_start(cat, dropin):
    """The ExecStart= command of a unit from `systemctl cat' CAT (its
    files in the order systemd reads them, each after a `# PATH' line),
    leaving out the drop-in DROPIN (hugeld's own): the one value after
    the last empty ExecStart=, or an error for none or several."""
    values = []
    path = None
    section = None
    lines = cat.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("# /"):
            path = line[2:].strip()
            section = None
            continue
        s = line.strip()
        while s.endswith("\\") and i < len(lines):
            s = s[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        if not s or s[0] in "#;":
            continue
        if s.startswith("["):
            section = s
            continue
        if path == dropin or section != "[Service]":
            continue
        k, eq, v = s.partition("=")
        if eq and k.strip() == "ExecStart":
            v = v.strip()
            if v:
                values.append(v)
            else:
                values = []
    if not values:
        raise Error("it has no ExecStart=")
    if len(values) > 1:
        raise Error("it has %d ExecStart= commands: give --libs" % len(values))
    return values[0]


def command_program(value):
    """The program an ExecStart= VALUE runs: its first word after the
    prefixes (-, @, :, +, !, |), searched in systemd's fixed directories
    if it has no slash."""
    n = 0
    while n < len(value) and value[n] in "-@:+!|":
        n += 1
    rest = value[n:]
    if not rest or rest[0] in "\"'" or "$" in rest.split(None, 1)[0] \
            or "%" in rest.split(None, 1)[0]:
        raise Error("its ExecStart= program is not a plain path: give --libs")
    prog = rest.split(None, 1)[0]
    if prog.startswith("/"):
        return prog
    for d in SYSTEMD_PATH:
        p = os.path.join(d, prog)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    raise Error("its ExecStart= program %s is not found" % prog)


def system_loader(program):
    """The file the kernel loads as the interpreter of PROGRAM (its
    PT_INTERP, links followed), or of the ABI's loader path where
    PROGRAM is not known: what the drop-in mounts hugeld's loader
    over."""
    interp = None
    if program:
        try:
            elf = check_program(program)
            interp = elf.interp
            elf.close()
        except Error:
            interp = None
    return os.path.realpath(interp or ABI_LOADER)


# What no value in a unit file may hold: systemd reads a carriage
# return, a newline (and a NUL) as the end of the line, so the rest of
# the value would be a directive of its own (ExecStartPre=...); the
# other control characters (C0 with the tab, DEL, C1) and the line and
# paragraph separators have no business there either; and a byte that is
# not UTF-8 (kept by surrogateescape) makes systemd ignore the line.
# Quoting and escaping cannot help: refused, nothing written.
_NOT_IN_UNIT = {"Cc": "a control character", "Zl": "a line separator",
                "Zp": "a paragraph separator",
                "Cs": "a byte that is not UTF-8"}


def unit_value(what, v):
    """V, a value WHAT (--libs, the loader path, ...) that enable writes
    into the drop-in, if a unit file can hold it as one value; else an
    Error that names the first character it cannot."""
    for c in v:
        kind = _NOT_IN_UNIT.get(unicodedata.category(c))
        if kind:
            raise Error("%s %s: holds %s, %s, which a unit file cannot "
                        "hold (systemd would read a line of its own); "
                        "nothing written" % (what, shown(v), shown(c), kind))
    return v


def unit_quote(s):
    """S as one word of a unit file: %% for %, quoted with \\ and \" escaped
    where it has anything but the plainest characters."""
    s = s.replace("%", "%%")
    if all(c.isalnum() or c in "/._-+:=,*?[]" for c in s):
        return s
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def dropin_text(ldso, loader, settings, prepare=None):
    """The drop-in that puts a service on LDSO (hugeld's loader, mounted
    over the system's LOADER in its namespace) with SETTINGS [(variable,
    value)]; PREPARE, the words of a command run before the service's
    own (ExecStartPre=, as root, its failure ignored), or None."""
    lines = [MARK, "[Service]"]
    for var, v in settings:
        unit_value(var, v)
        lines.append("Environment=%s" % unit_quote("%s=%s" % (var, v)))
    if prepare:
        for w in prepare:
            unit_value("the repair's command", w)
        lines.append("ExecStartPre=-+%s" % " ".join(unit_quote(w)
                                                    for w in prepare))
    unit_value("hugeld's loader", ldso)
    unit_value("the system's loader", loader)
    # A colon separates the source from the destination.
    if ":" in ldso or ":" in loader:
        raise Error("a loader path with a colon cannot be bind-mounted by "
                    "a unit file")
    lines.append("BindReadOnlyPaths=%s:%s" % (unit_quote(ldso),
                                              unit_quote(loader)))
    return "\n".join(lines) + "\n"


def libs_program(libs):
    """The first of the patterns LIBS that names a program in systemd's
    fixed directories (a plain name, as `mariadbd' in --libs
    'mariadbd:libcrypto.so*'), or None."""
    for pat in libs.replace(" ", ":").split(":"):
        if not pat or "/" in pat or any(c in pat for c in "*?[\\"):
            continue
        for d in SYSTEMD_PATH:
            p = os.path.join(d, pat)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    return None


def thp_prepare(program, libs, backing):
    """The command the drop-in runs before the service starts, when its
    backing lists thp (BACKING, or ld.so's default) and its program is
    known (PROGRAM, the unit's own; where that is a shell, the program
    LIBS names): hugeld thp repair --program, which makes the page cache
    under the thp zones of the objects the service will map 2 MiB
    folios (whatever an ordinary process read last: a backup, cat, a
    package's checksums), within a time limit (coreutils' timeout ends
    the whole process group); or None."""
    if program is None or os.path.basename(program) in SHELLS:
        program = libs_program(libs)
    if program is None or "thp" not in parse_backing(
            backing or default_setting("backing")):
        return None
    hugeld = os.path.join(program_dir(), "hugeld")
    if not os.path.isabs(hugeld) or not os.access(hugeld, os.X_OK):
        return None
    return [TIMEOUT, str(PREPARE_TIME_LIMIT), hugeld, "thp", "repair",
            "--quiet", "--program", program]


def main_pid(unit):
    """The main process of the systemd unit UNIT, or an error."""
    try:
        p = spawn.run(["systemctl", "show", "--property=MainPID", "--value",
                       "--", unit], timeout=30)
    except (OSError, spawn.TimedOut) as e:
        raise Error("cannot ask systemctl about %s: %s" % (
            unit, getattr(e, "strerror", None) or "timed out"))
    out = p.stdout.decode("utf-8", "replace").strip()
    if p.returncode != 0 or not out.isdigit():
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Error("%s: %s" % (unit, msg[0] if msg else "no such unit"))
    if int(out) == 0:
        raise Error("%s: not running (no main process)" % unit)
    return int(out)
