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

"""The command line: options, help and dispatch."""

import argparse
import importlib
import os
import re
import sys

from .common import AUTO_EXTRA, AUTO_MARGIN_PERCENT, DEBUG_DIR, DEFAULT_LDSO, EscapedStream, Error, THP_BUDGET_MIB, UsageError, VERSION, pid_arg, positive_int, shown
from .planner import backing_names, cache_dir, conf_file, default_setting, mount_dir, setting_words

# argparse's own words ("usage:", "options:", its errors) stay as
# written, in English like the rest of hugeld's texts: no catalogue of
# them is installed, and looking for one (gettext's search of the locale
# directories for each language of the environment) took 4-6 ms of
# every start, for the five words a parser is made with.  These are
# argparse's own stand-ins for when gettext cannot be imported.
argparse._ = str
argparse.ngettext = lambda singular, plural, n: singular if n == 1 else plural

# Each command's function, by the name its parser gives as `func': the
# module that defines it, loaded when the command runs.  A start loads
# the modules of its own command only (each pulls in json, threading,
# the ELF reader and more; all of them together took a third of every
# start, --version included).  tests/unit/test_hugeld_cli.py checks
# that each entry names a function and that importing this module loads
# none of them.
COMMANDS = {
    "run": ("hugeld.commands.run", "cmd_run"),
    "plan": ("hugeld.commands.plan", "cmd_plan"),
    "status": ("hugeld.commands.status", "cmd_status"),
    "check": ("hugeld.commands.check", "cmd_check"),
    "enable": ("hugeld.commands.enable", "cmd_enable"),
    "disable": ("hugeld.commands.disable", "cmd_disable"),
    "perf-map": ("hugeld.commands.perf_map", "cmd_perf_map"),
    "gdb": ("hugeld.commands.gdb", "cmd_gdb"),
    "cache": ("hugeld.commands.cache", "cmd_cache"),
    "config": ("hugeld.commands.config", "cmd_config"),
    "thp": ("hugeld.commands.thp", "cmd_thp"),
}


def command_function(name):
    """The function that runs command NAME (a key of COMMANDS)."""
    module, function = COMMANDS[name]
    return getattr(importlib.import_module(module), function)

# ld.so's facts in the help texts, asked of the helper only when a help
# text is printed (a command that prints none starts no helper): each
# {NAME} of a help text is replaced by LD_FACTS[NAME] (), or, where the
# helper is missing, by the second member.
LD_FACTS = {
    "backings": (lambda: ", ".join(backing_names()), "ld.so's backings"),
    "cache_dir": (lambda: cache_dir(), "ld.so's cache directory"),
    "mount_dir": (lambda: mount_dir(), "ld.so's cache mount"),
    "conf_file": (lambda: conf_file(), "the one ld.so reads"),
    "segment_words": (lambda: setting_words("segments"),
                      "ld.so's segment kinds"),
}


def ld_facts(text):
    """TEXT with each {NAME} of LD_FACTS replaced by what ld.so says."""
    def one(m):
        what, otherwise = LD_FACTS[m.group(1)]
        return ld_said(what, otherwise)
    return re.sub(r"\{(%s)\}" % "|".join(LD_FACTS), one, text)


class Formatter(argparse.HelpFormatter):
    """argparse's formatter, with the width of the terminal found without
    shutil: argparse imports it for every formatter it makes, and
    add_argument makes one for each option (checking its metavar), so
    that every start paid for the import."""

    def __init__(self, prog, indent_increment=2, max_help_position=24,
                 width=None):
        if width is None:
            try:
                width = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                try:
                    width = os.get_terminal_size(sys.__stdout__.fileno()
                                                 ).columns
                except (AttributeError, ValueError, OSError):
                    width = 80
            width = max(width - 2, 11)
        super().__init__(prog, indent_increment, max_help_position, width)

    # ld.so's facts (LD_FACTS) go into a text before it is wrapped.
    def _format_text(self, text):
        return super()._format_text(ld_facts(text))

    def _expand_help(self, action):
        return ld_facts(super()._expand_help(action))


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        # The commands this parser has, from argparse's own list (quoted
        # or not, as Python versions differ).
        m = re.match(r"argument (?:cmd|cache_cmd|config_cmd|thp_cmd|COMMAND): "
                     r"invalid choice: '(.*?)' \(choose from (.*)\)$",
                     message)
        if m:
            message = "unknown command '%s' (%s)" % (m.group(1), ", ".join(
                x.strip(" '") for x in m.group(2).split(",")))
        message = re.sub(r"^argument ([^:]*): ", r"\1: ", message)
        raise UsageError("%s: %s" % (self.prog, message))


HELP = """\
hugeld: run programs with their code on 2 MiB huge pages (hugeld's ld.so),
plan the huge page pool, show what is on huge pages, keep perf working.

commands:
  run [--libs PATTERNS] [--segments LIST] [--backing LIST] -- PROG ARGS...
                 run PROG through hugeld's ld.so with the settings applied
  plan PROG [--libs PATTERNS] [--segments LIST] [--copies N] [--apply]
                 the huge pages PROG and its libraries take (the loader's
                 own planner) and the nr_hugepages N processes need
  status PID|--all [--json|--prometheus]
                 what of a process is on huge pages, and the pool; --all:
                 every process and the node (cache, sharing, pool)
  check PID|UNIT exit 0 if the selected text of a process (or a unit's
                 main process) is on huge pages, else say why, exit 1
  enable UNIT [--libs PATTERNS] | disable UNIT
                 one systemd service on hugeld's loader (a drop-in)
  perf-map PID   write /tmp/perf-PID.map so perf names huge-page code
  gdb PID|--core CORE [-- GDB-ARGS...]
                 gdb on a process (or core) that hugeld run started, with
                 the program's own symbols; warns when a breakpoint would
                 need spare huge pages (--grow-pool reserves them);
                 gdb [--backing LIST] -- GDB-ARGS starts a program
  cache add FILE... | list [--json] | prune | remove FILE... | clear
  cache sync [--reserve-pool] [--dry-run]
                 the shared cache on hugetlbfs (root): read-only zones
                 every process maps from the same huge pages; sync makes
                 it what /etc/hugeld.conf declares
  config check [--program PROG]
                 is /etc/hugeld.conf used by ld.so, and what it selects
  thp status|repair [FILE...] [--json]
                 what the page cache holds under the thp backing's
                 zones, and making small folios 2 MiB ones (root)

'hugeld COMMAND --help' for each.  PATTERNS is a colon-separated list of
shell globs matched against object file names (or paths, with a /) and
DT_SONAME, like LD_HUGEPAGE_LIBS; LIST a comma list of %s
(default %s).  --backing LIST: a comma list of %s, the order in which
the loader tries them for each zone, as LD_HUGEPAGE_BACKING (default
%s).

environment: HUGELD_LDSO (the loader, default %s), HUGELD_PLAN (the
planning helper).  See hugeld(1).
"""


def ld_said(what, otherwise):
    """WHAT () (a question to the helper about ld.so: its paths, its
    backings) for a help text, or OTHERWISE where the helper is missing:
    --help still works."""
    try:
        return what()
    except Error:
        return otherwise


def help_text():
    """HELP with ld.so's defaults, as the helper gives them (or a
    description where it is missing: --help still works)."""
    try:
        segs, backing = (default_setting("segments"),
                         default_setting("backing"))
    except Error:
        segs = backing = "ld.so's"
    return HELP % (ld_said(lambda: setting_words("segments"),
                           "the segment kinds"), segs,
                   ld_said(lambda: ", ".join(backing_names()),
                           "the backings"), backing, DEFAULT_LDSO)


def _add_common(p):
    """The options of the commands that run or plan a program: the
    settings, the loader and how the program is started."""
    p.add_argument("--libs", metavar="PATTERNS",
                   help="colon-separated globs selecting objects, as "
                   "LD_HUGEPAGE_LIBS (default: $LD_HUGEPAGE_LIBS)")
    p.add_argument("--segments", metavar="LIST",
                   help="comma list of %s, as LD_HUGEPAGE_SEGMENTS "
                   "(default: $LD_HUGEPAGE_SEGMENTS or ld.so's default)"
                   % "{segment_words}")
    p.add_argument("--backing", metavar="LIST",
                   help="comma list of %s: how the "
                   "loader tries to back each zone, in order, as "
                   "LD_HUGEPAGE_BACKING (default: $LD_HUGEPAGE_BACKING "
                   "or ld.so's default)" % "{backings}")
    p.add_argument("--ldso", metavar="PATH",
                   help="hugeld's loader (default: $HUGELD_LDSO or %s)"
                   % DEFAULT_LDSO)
    p.add_argument("--direct", action="store_true",
                   help="the program is started directly: its "
                   "PT_INTERP is hugeld's loader (default: run it "
                   "with the loader as a command)")


def _add_run(sub):
    """hugeld run: a program through hugeld's ld.so."""
    p = sub.add_parser(
        "run", prog="hugeld run",
        usage="hugeld run [OPTIONS] [--] PROG [ARGS...]",
        description="Run PROG (searched in PATH) through hugeld's ld.so "
        "with LD_HUGEPAGE_LIBS, LD_HUGEPAGE_SEGMENTS and LD_HUGEPAGE_BACKING "
        "set, as `ld.so --argv0 PROG PATH ARGS'.  Without --perf-map hugeld "
        "is replaced by the program (same PID, its exit status).  Refuses "
        "to run when the pool has no free huge page and the backings "
        "include private (the loader would silently use ordinary pages), "
        "unless --no-pool-check.",
        epilog="example: hugeld run --libs 'libLLVM*.so*' -- clang -c x.c")
    _add_common(p)
    p.add_argument("--debug", nargs="?", const="-", metavar="FILE",
                   help="LD_DEBUG=hugepages: the loader's report on stderr, "
                   "or, written --debug=FILE, in FILE.PID")
    p.add_argument("--perf-map", action="store_true",
                   help="stay as the parent and keep /tmp/perf-PID.map "
                   "(PID: the program's) written while its huge page "
                   "mappings change, so that perf can name the functions "
                   "in them")
    p.add_argument("--perf-map-output", metavar="FILE",
                   help=argparse.SUPPRESS)
    p.add_argument("--debug-dir", action="append", metavar="DIR",
                   help="with --perf-map: where to look for separate debug "
                   "files (default %s)" % DEBUG_DIR)
    p.add_argument("--no-pool-check", action="store_true",
                   help="run even if no huge page is free")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help=argparse.SUPPRESS)
    p.set_defaults(func="run")


def _add_plan(sub):
    """hugeld plan: what a program would put on huge pages."""
    p = sub.add_parser(
        "plan", prog="hugeld plan", usage="hugeld plan PROG [OPTIONS]",
        description="Show how hugeld's ld.so would place PROG and the "
        "libraries it loads (from the loader's own `ld.so --list') on "
        "2 MiB pages: per object the pages of each kind, the total, and "
        "the pool N processes need (each process has its own copy, "
        "except of zones in the shared cache, held once, and of zones "
        "left to transparent huge pages).  "
        "The plan is made by hugeld-plan, built from the loader's own "
        "planner and matcher.",
        epilog="example: hugeld plan /usr/bin/gdb --libs 'libpython3*' "
        "--copies 4 --apply")
    p.add_argument("program", metavar="PROG",
                   help="the program (searched in PATH if it has no slash), "
                   "or a shared library")
    _add_common(p)
    p.add_argument("--copies", type=positive_int, default=1, metavar="N",
                   help="processes that will run at the same time "
                   "(default 1)")
    p.add_argument("--dlopen", action="append", metavar="FILE",
                   help="also plan FILE, a library the program dlopens "
                   "(as the path it passes to dlopen)")
    p.add_argument("--apply", action="store_true",
                   help="grow nr_hugepages so that the pages needed are "
                   "available (root; never shrinks the pool; all or "
                   "nothing)")
    p.add_argument("--node", metavar="N[,N...]",
                   help="with --apply: reserve the pages needed on each of "
                   "these NUMA nodes instead of anywhere")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every range: on huge pages, or on ordinary "
                   "pages and why")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func="plan")


def _add_status(sub):
    """hugeld status: what a process has on huge pages."""
    p = sub.add_parser(
        "status", prog="hugeld status",
        usage="hugeld status PID|--all [--json|--prometheus] [-o FILE]",
        description="Show which objects and ranges of a running process "
        "are on huge pages (from /proc/PID/smaps and maps: hugetlb "
        "mappings inside an object's address range are its), how each is "
        "backed (shared: the hugeld cache; private; thp), the pages they "
        "use, the settings in its environment, and the pool "
        "(HugePages_Total, Free, Rsvd, Surp).  --all: every process with "
        "huge pages (root sees all); shared pages are counted once.")
    p.add_argument("pid", nargs="?", type=pid_arg, metavar="PID",
                   help="the process")
    p.add_argument("--all", action="store_true",
                   help="all processes that have huge pages of any kind, "
                   "and the node: pool, shared cache, what sharing saves")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--prometheus", action="store_true",
                   help="with --all: the Prometheus text format, for "
                   "node_exporter's textfile collector")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write FILE (replaced atomically, in a directory "
                   "only root or you can write) instead of standard output")
    p.add_argument("--ldso", metavar="PATH", help=argparse.SUPPRESS)
    p.set_defaults(func="status")


def _add_check(sub):
    """hugeld check: is a process's selected text on huge pages?"""
    p = sub.add_parser(
        "check", prog="hugeld check", usage="hugeld check PID|UNIT [-q]",
        description="Exit 0 if the whole 2 MiB pages of text of every "
        "object that process PID (or the main process of the systemd "
        "unit UNIT) selects are on huge pages (hugetlb, or the page "
        "cache's huge pages); otherwise print one line naming the object "
        "and why, and exit 1.  For monitors and health checks.")
    p.add_argument("target", metavar="PID|UNIT",
                   help="a process ID, or a systemd unit")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print nothing when the check passes")
    p.set_defaults(func="check")


def _add_service(sub):
    """hugeld enable and disable: a systemd service on hugeld's loader."""
    p = sub.add_parser(
        "enable", prog="hugeld enable",
        usage="hugeld enable UNIT [--libs PATTERNS] [--segments LIST] "
        "[--backing LIST] [--ldso PATH]",
        description="Put one systemd service on hugeld's loader without "
        "making hugeld the system's loader (root): write the drop-in "
        "/etc/systemd/system/UNIT.d/hugeld.conf, which sets the "
        "LD_HUGEPAGE_* variables and mounts hugeld's loader over the "
        "system's in the service's own mount namespace "
        "(BindReadOnlyPaths=), and reload systemd.  The unit's command is "
        "left as it is; its process is the program (ps, pidof, systemctl), "
        "and it starts whatever the pool holds.  Where the backing lists "
        "thp (the default does) and the program is known, the drop-in "
        "also runs hugeld thp repair --program PROGRAM as root before the "
        "service starts (ExecStartPre=, at most 30 s, its failure "
        "ignored): the service maps its selected text from 2 MiB folios "
        "whatever the page cache held.  Restart the unit to apply it.",
        epilog="example: hugeld enable mariadb --libs 'mariadbd:libcrypto*'")
    p.add_argument("unit", metavar="UNIT", help="the unit (.service if "
                   "no suffix)")
    p.add_argument("--libs", metavar="PATTERNS",
                   help="LD_HUGEPAGE_LIBS (default: the file name of the "
                   "program ExecStart= runs; needed where that is a shell)")
    p.add_argument("--segments", metavar="LIST",
                   help="LD_HUGEPAGE_SEGMENTS (default: ld.so's)")
    p.add_argument("--backing", metavar="LIST",
                   help="LD_HUGEPAGE_BACKING (default: ld.so's)")
    p.add_argument("--ldso", metavar="PATH",
                   help="hugeld's loader (default: $HUGELD_LDSO or %s)"
                   % DEFAULT_LDSO)
    p.set_defaults(func="enable")
    p = sub.add_parser(
        "disable", prog="hugeld disable", usage="hugeld disable UNIT",
        description="Remove the drop-in hugeld enable wrote for UNIT and "
        "reload systemd (root).  Restart the unit to apply it.")
    p.add_argument("unit", metavar="UNIT")
    p.set_defaults(func="disable")


def _add_perf_map(sub):
    """hugeld perf-map: /tmp/perf-PID.map for perf."""
    p = sub.add_parser(
        "perf-map", prog="hugeld perf-map",
        usage="hugeld perf-map PID [-o FILE] [--debug-dir DIR]",
        description="perf shows huge page mappings (/anon_hugepage) as "
        "anonymous memory and looks up their symbols in /tmp/perf-PID.map. "
        "Write that file: `START SIZE name' (hex) for each function of "
        "each object whose code is on huge pages, from its .symtab, else "
        "a debug file found by build ID (or .gnu_debuglink) under the "
        "debug directory, else .dynsym.  Lines others wrote about other "
        "memory (JIT compilers) are kept.  Run it while the process is "
        "alive; perf report reads the file later.",
        epilog="example: perf record -e cpu-clock -p PID -- sleep 5; "
        "hugeld perf-map PID; perf report")
    p.add_argument("pid", type=pid_arg, metavar="PID",
                   help="the process")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write FILE instead (- for stdout)")
    p.add_argument("--debug-dir", action="append", metavar="DIR",
                   help="where separate debug files are (default %s); "
                   "may be repeated" % DEBUG_DIR)
    p.set_defaults(func="perf-map")


def _add_gdb(sub):
    """hugeld gdb: gdb with the program's own symbols."""
    p = sub.add_parser(
        "gdb", prog="hugeld gdb",
        usage="hugeld gdb PID [--grow-pool] | --core CORE [--program PROG] "
        "[-- GDB-ARGS...] | [--backing LIST] -- GDB-ARGS...",
        description="Run gdb on a process or a core file of a program that "
        "hugeld's ld.so runs as a command (as hugeld run does).  gdb then "
        "takes ld.so for the program and never loads the real program's "
        "symbols (with any loader: the main program's frames show as ??); "
        "this adds them at the address the program is mapped at.  For a "
        "program started directly it just runs gdb.  Huge page libraries "
        "need nothing: gdb reads their symbols from their files.  If the "
        "process shares huge-page text with a forked parent or child and the "
        "pool has too few spare pages to copy it, it warns first: a "
        "breakpoint there would cost the children that page (SIGBUS); if "
        "it maps code from the shared cache, where software breakpoints "
        "cannot be written, it says so.  Without PID or --core it runs "
        "gdb GDB-ARGS (which start the program, e.g. --args PROG ARGS) "
        "with LD_HUGEPAGE_BACKING=private,thp for the program unless it "
        "is set.",
        epilog="example: hugeld gdb 1234 -- -batch -ex bt; "
        "hugeld gdb --core core.1234 -- -batch -ex bt")
    p.add_argument("pid", nargs="?", type=pid_arg, metavar="PID",
                   help="the process to attach to")
    p.add_argument("--core", metavar="CORE", help="a core file instead")
    p.add_argument("--program", metavar="PROG",
                   help="with --core: the program ld.so ran (default: the "
                   "one mapped in the core)")
    p.add_argument("--print-command", action="store_true",
                   help="print the gdb command instead of running it")
    p.add_argument("--grow-pool", action="store_true",
                   help="first grow the huge page pool (root) so that a "
                   "breakpoint in each huge page of text the process shares "
                   "with a forked parent or child can be copied")
    p.add_argument("--backing", metavar="LIST",
                   help="without PID or --core: LD_HUGEPAGE_BACKING for the "
                   "program gdb starts (default: $LD_HUGEPAGE_BACKING, else "
                   "private,thp: software breakpoints cannot be written "
                   "into code from the shared cache)")
    p.set_defaults(func="gdb")


def _add_cache(sub):
    """hugeld cache and its commands: the shared cache."""
    p = sub.add_parser(
        "cache", prog="hugeld cache",
        usage="hugeld cache add FILE... | list [--json] | prune | "
        "remove FILE... | clear | sync [--reserve-pool]",
        description="The shared cache (%s on a hugetlbfs of 2 MiB "
        "pages): the read-only zones (text, rodata) of objects, which "
        "ld.so maps MAP_SHARED when LD_HUGEPAGE_BACKING tries shared: "
        "every process maps the same huge pages, none is copied per "
        "process.  The pages an entry holds are out of the pool until "
        "it is removed.  Root only, except list."
        % "{cache_dir}",
        epilog="example: hugeld cache add /usr/lib/x86_64-linux-gnu/"
        "libLLVM-14.so.1; hugeld cache list")
    csub = p.add_subparsers(dest="cache_cmd", parser_class=Parser,
                            metavar="COMMAND")
    c = csub.add_parser(
        "add", prog="hugeld cache add", usage="hugeld cache add FILE...",
        description="Put the read-only huge page zones of each FILE (as "
        "ld.so plans them) into the cache, mounting a hugetlbfs on "
        "%s first if none is mounted there.  FILE must be readable by "
        "everybody.  Older entries of the same file are removed."
        % "{mount_dir}")
    c.add_argument("files", nargs="+", metavar="FILE")
    c = csub.add_parser(
        "list", prog="hugeld cache list", usage="hugeld cache list [--json]",
        description="Each entry: the file it was made from, its state "
        "(current; stale: file changed; missing: file gone; orphan .tmp; "
        "untrusted), the huge pages it holds and its zones.")
    c.add_argument("--json", action="store_true", help="print JSON")
    csub.add_parser(
        "prune", prog="hugeld cache prune", usage="hugeld cache prune",
        description="Remove every entry that is not current (stale, "
        "missing, untrusted, left over by a crash).")
    c = csub.add_parser(
        "remove", prog="hugeld cache remove",
        usage="hugeld cache remove FILE...",
        description="Remove the entries of each FILE.")
    c.add_argument("files", nargs="+", metavar="FILE")
    csub.add_parser(
        "clear", prog="hugeld cache clear", usage="hugeld cache clear",
        description="Remove every entry (%s stays, and so does the "
        "mount)." % "{cache_dir}")
    c = csub.add_parser(
        "sync", prog="hugeld cache sync",
        usage="hugeld cache sync [--file FILE] [--reserve-pool] [--dry-run]",
        description="Make the cache what the policy file's cache lines "
        "declare: add missing entries, replace stale ones (a file changed "
        "or replaced), remove entries whose files are gone or no longer "
        "declared.  Idempotent; two syncs at once take turns; processes "
        "that map a replaced entry keep its pages until they exit.  "
        "Changes nothing if ld.so would ignore the file.  Run at boot and "
        "after package changes by the Debian package's unit and trigger.")
    c.add_argument("--file", metavar="FILE",
                   help="the policy file (default %s)"
                   % "{conf_file}")
    c.add_argument("--reserve-pool", action="store_true",
                   help="first grow nr_hugepages (never shrink it) to the "
                   "file's `pool N', or for `pool auto' to the declared "
                   "entries' pages plus %d%% and %d pages"
                   % (AUTO_MARGIN_PERCENT, AUTO_EXTRA))
    c.add_argument("--dry-run", action="store_true",
                   help="say what would change, change nothing")
    p.set_defaults(func="cache")


def _add_config(sub):
    """hugeld config check: the policy file."""
    p = sub.add_parser(
        "config", prog="hugeld config",
        usage="hugeld config check [--file FILE] [--program PROG] [--json]",
        description="Check the policy file as ld.so reads it (trust: a "
        "regular file of root's that nobody else can write; every line "
        "that does not parse, any of which makes ld.so ignore the whole "
        "file), and with --program what it gives that program: the block "
        "that applies, libs, segments and backing with their lines, and "
        "the plan of what would go on huge pages.  Exit status 0 if ld.so "
        "uses the file, 1 if not.  See hugeld.conf(5).")
    csub = p.add_subparsers(dest="config_cmd", parser_class=Parser,
                            metavar="COMMAND")
    c = csub.add_parser(
        "check", prog="hugeld config check",
        usage="hugeld config check [--file FILE] [--program PROG] [--json]",
        description="Validate the policy file; with --program, what it "
        "selects for PROG.")
    c.add_argument("--file", metavar="FILE",
                   help="the policy file (default %s)"
                   % "{conf_file}")
    c.add_argument("--program", metavar="PROG",
                   help="a program (searched in PATH if it has no slash)")
    c.add_argument("--json", action="store_true",
                   help="print the parsed file as JSON")
    p.set_defaults(func="config")


def _add_thp(sub):
    """hugeld thp status|repair: the page cache under the thp zones."""
    p = sub.add_parser(
        "thp", prog="hugeld thp",
        usage="hugeld thp status|repair [FILE...] [--json] [--quiet]",
        description="The thp backing (LD_HUGEPAGE_BACKING=thp) maps an "
        "object's read-only zones from its file and marks them "
        "MADV_HUGEPAGE; the kernel maps a 2 MiB range with one huge page "
        "where the page cache holds it in one 2 MiB folio, or reads it "
        "as one where it holds nothing, but where another process read "
        "the file first (cat, a backup, a program the stock loader "
        "started) it holds small folios, and every process maps them "
        "with 4 KiB pages.  ld.so leaves them so: repairing them would "
        "cost the start the user waits for.  status shows, per object, "
        "its 2 MiB ranges on 2 MiB folios, in small folios (and whether "
        "another process maps them) and not cached; repair makes the "
        "small ones 2 MiB folios: MADV_COLLAPSE where the kernel "
        "collapses file text, else dropped and read again where no "
        "process maps them (a range another process maps is left "
        "alone).  Objects: the FILEs, else those the system-wide "
        "tunables and the policy file's global lines select for the thp "
        "backing among the dynamic linker's libraries (ldconfig -p) and "
        "those running processes map with it.  Root only.  hugeld-thp-repair.timer runs repair every "
        "minute.",
        epilog="example: hugeld thp repair /usr/lib/x86_64-linux-gnu/"
        "libLLVM-14.so.1")
    csub = p.add_subparsers(dest="thp_cmd", parser_class=Parser,
                            metavar="COMMAND")
    for name, what in (("status", "show what the page cache holds"),
                       ("repair", "make small folios 2 MiB ones")):
        c = csub.add_parser(
            name, prog="hugeld thp " + name,
            usage="hugeld thp %s [FILE... | --program PROG] [--json] "
            "[--quiet]%s" % (name, " [--budget MIB]" if name == "repair"
                             else ""),
            description=what.capitalize() + " under the thp backing's "
            "2 MiB ranges of each FILE (default: the objects the policy "
            "file selects for thp and those processes map with it).")
        c.add_argument("files", nargs="*", metavar="FILE")
        c.add_argument("--program", metavar="PROG",
                       help="the objects PROG loads (itself and its "
                       "libraries, by ld.so --list) that its settings "
                       "(this environment, the policy file) select for "
                       "the thp backing: what a unit's ExecStartPre= "
                       "(hugeld enable) repairs before the service maps "
                       "them")
        c.add_argument("--json", action="store_true", help="print JSON")
        c.add_argument("--quiet", action="store_true",
                       help="print only objects where something was "
                       "repaired or failed")
        if name == "repair":
            c.add_argument("--budget", type=positive_int, metavar="MIB",
                           default=None,
                           help="make at most MIB MiB of new 2 MiB folios "
                           "in this run (default %d; the rest is left "
                           "for the next run)" % THP_BUDGET_MIB)
    p.set_defaults(func="thp", thp_cmd=None)


# Each command and the function that adds its parser (enable and
# disable share one), in the order of the help.
ADDERS = (("run", _add_run), ("plan", _add_plan), ("status", _add_status),
          ("check", _add_check), ("enable", _add_service),
          ("disable", _add_service), ("perf-map", _add_perf_map),
          ("gdb", _add_gdb), ("cache", _add_cache), ("config", _add_config),
          ("thp", _add_thp))


def build_parser(command=None, bare=False):
    """The command line's parser: with COMMAND (a command's name), only
    that command's subparser, which is all that parsing its command line
    needs (each start builds no more than it uses); else all of them,
    or with BARE, each as a name only: enough for --version, --help and
    an unknown command's error, which list the names (all of them took
    12 ms, a fifth of such a start)."""
    top = Parser(prog="hugeld", add_help=False, usage=argparse.SUPPRESS)
    top.add_argument("-h", "--help", action="store_true")
    top.add_argument("--version", action="store_true")
    sub = top.add_subparsers(dest="cmd", parser_class=Parser)
    added = []
    for name, add in ADDERS:
        if command in dict(ADDERS) and name != command:
            continue
        if bare:
            sub.add_parser(name)
        elif add not in added:
            add(sub)
            added.append(add)
    return top


def command_of(argv):
    """The command ARGV names: its first word that is not one of the
    options before it (-h, --help, --version: none takes a value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def subcommand(top, name):
    """The parser of subcommand NAME of TOP (build_parser ())."""
    for a in top._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices[name]
    raise KeyError(name)


def value_options(parser):
    """The options of PARSER that take the next argument as their value:
    not flags (nargs 0) nor optional values (nargs '?', given as
    --opt=VALUE)."""
    return {o for a in parser._actions if a.option_strings
            and a.nargs not in (0, "?", "*")
            for o in a.option_strings}


def run_argv(top, argv):
    """ARGV (a `run' command line) with `--' before the program if it
    has none: `run' takes everything after its own options, including
    options of the program, as the command to run."""
    i = 1
    takes = value_options(subcommand(top, "run"))
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if not a.startswith("-"):
            break
        if a in takes:
            i += 1
        i += 1
    if i < len(argv) and argv[i] != "--":
        argv = argv[:i] + ["--"] + argv[i:]
    return argv


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # Nothing another process controls reaches the terminal raw: each
    # command escapes the values it shows (common.shown), and these
    # streams escape whatever control character is left.
    for name in ("stdout", "stderr"):
        f = getattr(sys, name)
        if f is not None and not isinstance(f, EscapedStream):
            setattr(sys, name, EscapedStream(f))
    command = command_of(argv)
    top = build_parser(command, bare=command not in COMMANDS)
    try:
        if argv and argv[0] == "run":
            argv = run_argv(top, argv)
        # `gdb' passes everything after `--' to gdb.
        gdb_args = []
        if argv and argv[0] == "gdb" and "--" in argv:
            i = argv.index("--")
            argv, gdb_args = argv[:i], argv[i + 1:]
        args = top.parse_args(argv)
        args.gdb_args = gdb_args
        if args.version:
            print("hugeld %s" % VERSION)
            return 0
        if args.help or args.cmd is None:
            sys.stdout.write(help_text())
            return 0 if args.help else 2
        if getattr(args, "debug_dir", None) is None:
            args.debug_dir = [DEBUG_DIR]
        return command_function(args.func)(args) or 0
    except UsageError as e:
        msg = shown(e)
        if not msg.startswith("hugeld"):
            msg = "hugeld " + msg
        print("%s (try --help)" % msg, file=sys.stderr)
        return 2
    except Error as e:
        # One line: a path in it may hold a newline.
        print("hugeld: %s" % shown(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = None
        except Exception:
            pass
        return 1
