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

"""The command line: which command runs, its options parsed, help and
errors.  The commands are their modules' declarations (registry): this
builds the one parser the command that runs needs (argparse, through
its public interface only), and imports no other command's module."""

import argparse
import sys

from . import registry
from .common import DEFAULT_LDSO, EscapedStream, Error, UsageError, VERSION, shown, terminal_width, wrap
from .planner import backing_names, default_setting, setting_words

INTRO = """\
hugeld: run programs with their code on 2 MiB huge pages (hugeld's ld.so),
plan the huge page pool, show what is on huge pages, keep perf working.
"""

OUTRO = """\
'hugeld COMMAND --help' for each.  PATTERNS is a colon-separated list of
shell globs matched against object file names (or paths, with a /) and
DT_SONAME, like LD_HUGEPAGE_LIBS; LIST a comma list of %s
(default %s).  --backing LIST: a comma list of %s, the order in which
the loader tries them for each zone, as LD_HUGEPAGE_BACKING (default
%s).

environment: HUGELD_LDSO (the loader, default %s), HUGELD_PLAN (the
planning helper).  See hugeld(1).
"""

# Where a command's summary starts in the list of commands.
SUMMARY_COLUMN = 17


def command_lines(cmds, width=79):
    """The list of commands CMDS (registry.Command) in a help: each
    synopsis line, then its summary (beside a short synopsis)."""
    out = []
    for c in cmds:
        syn = list(c.synopsis)
        summary = wrap(c.summary, width, " " * SUMMARY_COLUMN)
        if len(syn) == 1 and len(syn[0]) + 3 <= SUMMARY_COLUMN:
            summary[0] = ("  " + syn[0]).ljust(SUMMARY_COLUMN) \
                + summary[0].lstrip()
            syn = []
        for s in syn:
            out += wrap(s, width, "      ", "  ")
        out += summary
    return out


def help_text():
    """The top-level help: the commands, and ld.so's defaults as the
    helper gives them (or a description where it is missing: --help
    still works)."""
    try:
        segs, backing = (default_setting("segments"),
                         default_setting("backing"))
    except Error:
        segs = backing = "ld.so's"
    return INTRO + "\ncommands:\n" + "\n".join(
        command_lines(registry.commands())) + "\n\n" + OUTRO % (
            registry.ld_said(lambda: setting_words("segments"),
                             "the segment kinds"), segs,
            registry.ld_said(lambda: ", ".join(backing_names()),
                             "the backings"), backing, DEFAULT_LDSO)


def subcommands_help(cmd, prog):
    """The help of CMD, a command with subcommands (PROG: its name on
    the command line)."""
    width = max(terminal_width() - 2, 11)
    out = ["usage: hugeld " + cmd.synopsis[0]] + [
        "       hugeld " + s for s in cmd.synopsis[1:]] + [""]
    out += wrap(registry.facts(cmd.description), width)
    out += ["", "commands:"] + command_lines(cmd.subcommands, width)
    if cmd.epilog:
        out += [""] + wrap(registry.facts(cmd.epilog), width)
    return "\n".join(out) + "\n"


def formatter(prog):
    """argparse's formatter for PROG, at the terminal's width (found
    without shutil, whose import argparse's own search costs)."""
    return argparse.HelpFormatter(prog, width=max(terminal_width() - 2, 11))


class Parser(argparse.ArgumentParser):
    """A command's parser: its errors are UsageErrors (one line)."""

    def error(self, message):
        raise UsageError("%s: %s" % (self.prog, message))


def _escaped(text):
    """TEXT for argparse, which %-formats help and usage strings."""
    return None if text is None else text.replace("%", "%%")


def add(p, o, helping):
    """Add the registry.Option O to the parser P (HELPING: its help is
    printed, with ld.so's facts)."""
    text = registry.facts(o.help) if helping else o.help
    kw = {"help": argparse.SUPPRESS if o.hidden else _escaped(text)}
    if o.kind == "argument":
        kw.update(metavar=o.metavar, nargs=o.count)
        p.add_argument(o.flags[0], **kw)
        return
    kw["dest"] = o.flags[-1].lstrip("-").replace("-", "_")
    if o.kind == "flag":
        kw["action"] = "store_true"
    else:
        kw.update(metavar=o.metavar, default=o.default)
        if o.kind == "append":
            kw["action"] = "append"
        elif o.kind == "optional":
            kw.update(nargs="?", const=o.const)
    p.add_argument(*o.flags, **kw)


def command_options(cmd, helping):
    """CMD's Options and a note for its help: without the settings'
    where the helper is missing and only help is asked for."""
    try:
        return registry.options(cmd), ""
    except Error as e:
        if not helping:
            raise
        return [o for o in cmd.options
                if isinstance(o, registry.Option)], \
            "  (The settings options are not listed: %s.)" % e


def convert(args, opts, prog):
    """Each value of ARGS that an Option of OPTS converts, converted: a
    UsageError that names the option if it cannot be."""
    for o in opts:
        dest = o.flags[0] if o.kind == "argument" \
            else o.flags[-1].lstrip("-").replace("-", "_")
        v = getattr(args, dest, None)
        if o.convert is None or not isinstance(v, str):
            continue
        try:
            setattr(args, dest, o.convert(v))
        except ValueError as e:
            raise UsageError("%s: %s: %s" % (
                prog, o.metavar if o.kind == "argument" else o.flags[-1], e))


def parse(cmd, words, prog):
    """The arguments of CMD (a registry.Command without subcommands) on
    the command line WORDS (after its name; PROG: its name there)."""
    helping = any(w in ("-h", "--help") for w in words)
    opts, note = command_options(cmd, helping)
    words, rest = registry.split_rest(cmd, words, opts)
    helping = any(w in ("-h", "--help") for w in words)
    p = Parser(prog=prog, usage=_escaped("hugeld " + cmd.synopsis[0]),
               description=((registry.facts(cmd.description) or "") + note
                            if helping else None),
               epilog=registry.facts(cmd.epilog) if helping else None,
               formatter_class=formatter)
    for o in opts:
        add(p, o, helping)
    args = p.parse_args(words)
    convert(args, opts, prog)
    args.rest = rest
    return args


def run(argv):
    """Run the command ARGV names: its exit status."""
    name = argv[0]
    if name not in registry.names():
        raise UsageError("hugeld: unknown command '%s' (%s)" % (
            name, ", ".join(c for c in registry.names())))
    cmd, prog, words = registry.load(name), "hugeld " + name, argv[1:]
    if cmd.subcommands:
        subs = {c.name: c for c in cmd.subcommands}
        if words and words[0] in ("-h", "--help"):
            sys.stdout.write(subcommands_help(cmd, prog))
            return 0
        if not words or words[0].startswith("-"):
            return cmd.run(None)
        if words[0] not in subs:
            raise UsageError("%s: unknown command '%s' (%s)" % (
                prog, words[0], ", ".join(subs)))
        sub = subs[words[0]]
        args = parse(sub, words[1:], "%s %s" % (prog, sub.name))
        args.subcommand = sub.name
        return sub.run(args) or 0
    args = parse(cmd, words, prog)
    args.subcommand = None
    return cmd.run(args) or 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    # Nothing another process controls reaches the terminal raw: each
    # command escapes the values it shows (common.shown), and these
    # streams escape whatever control character is left.
    for name in ("stdout", "stderr"):
        f = getattr(sys, name)
        if f is not None and not isinstance(f, EscapedStream):
            setattr(sys, name, EscapedStream(f))
    try:
        # The options before the command: -h, --help, --version.
        lead = []
        while argv and argv[0].startswith("-"):
            lead.append(argv.pop(0))
        for a in lead:
            if a not in ("-h", "--help", "--version"):
                raise UsageError("hugeld: unrecognized arguments: %s" % a)
        if "--version" in lead:
            print("hugeld %s" % VERSION)
            return 0
        if lead or not argv:
            sys.stdout.write(help_text())
            return 0 if lead else 2
        return run(argv)
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
