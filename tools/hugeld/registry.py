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

"""The commands, as pip has them: each module of hugeld/commands is one
command and declares it, COMMAND = Command (...): its name (the
module's, with - for _), synopsis, summary, options, run function and
subcommands.  Nothing else names a command: the dispatcher (cli.py)
finds them here (names () lists the modules without importing them,
load () imports the one that runs), the top-level help is made of their
synopses and summaries, and tests/unit/test_hugeld_registry.py checks
the man page's synopsis and the bash completion against them.  A new
command is a new module, and nothing else.

The settings options (--libs, --segments, --backing) are written in no
command: settings () stands for them in a command's options, and
options () makes them from ld.so's table of its settings, which the
helper gives (hugeld-plan --settings: their names, variables and
words).  ld.so's other facts in a help text ({cache_dir}, ...) are
asked of the helper only when the help is printed (facts ())."""

import collections
import importlib
import os
import re

from .common import DEFAULT_LDSO, Error
from .planner import backing_names, cache_dir, conf_file, mount_dir, setting_table, setting_words


def _record(name, fields, **defaults):
    names = fields.split()
    return collections.namedtuple(name, names, defaults=[
        defaults.get(n) for n in names])


Command = _record("Command", "name synopsis summary description epilog "
                  "options run subcommands rest rank", options=(),
                  subcommands=(), rank=100)
Command.__doc__ = """A command (or a subcommand of one, in its
subcommands):

  name         what the command line calls it ("perf-map")
  synopsis     its lines of hugeld(1)'s SYNOPSIS, without "hugeld "
               (a subcommand: its usage line)
  summary      what it does, in a sentence, for the top-level help
  description, epilog
               its --help text ({NAME}: facts ())
  options      its Options (flag (), value (), ..., settings ()), in
               the order of its --help
  run          the function that runs it, given the parsed arguments
               (args.rest: what rest took; args.subcommand: the
               subcommand's name); for a command with subcommands, what
               runs without one
  subcommands  Commands
  rest         None; "--": the words after `--' are args.rest (gdb's
               own arguments); "program": from the first word that is
               not an option (or after `--') on, they are (run's
               program and its arguments)
  rank         its place in the top-level help (then by name)"""

Option = _record("Option", "flags kind metavar help count const convert "
                 "default hidden")
Option.__doc__ = """An option or argument of a command: flags ("--json",
"-o"; an argument: its name), kind (flag, value, append, optional: a
value given as --opt=VALUE, else const; argument), metavar, help,
count (an argument's: None for one, "?", "+" or "*"), convert (a
function of the string that raises ValueError with why), default,
hidden (left out of --help: for tests and scripts)."""

Settings = _record("Settings", "names helps")
Settings.__doc__ = """The settings options of a command: those of the
settings NAMES (None: all of them), each with its help from HELPS
({setting: text with {variable} and {words}}), else the generic one."""


def flag(*flags, help=None):
    return Option(flags=flags, kind="flag", help=help)


def value(*flags, metavar, help=None, convert=None, default=None,
          hidden=False):
    return Option(flags=flags, kind="value", metavar=metavar, help=help,
                  convert=convert, default=default, hidden=hidden)


def append(*flags, metavar, help=None):
    return Option(flags=flags, kind="append", metavar=metavar, help=help)


def optional(*flags, metavar, const, help=None):
    return Option(flags=flags, kind="optional", metavar=metavar,
                  const=const, help=help)


def argument(name, metavar, help=None, count=None, convert=None):
    return Option(flags=(name,), kind="argument", metavar=metavar,
                  help=help, count=count, convert=convert)


def settings(names=None, helps=None):
    return Settings(names=names, helps=helps or {})


def loader_options():
    """--ldso and --direct: which loader, and how the program meets it
    (run and plan)."""
    return (value("--ldso", metavar="PATH",
                  help="hugeld's loader (default: $HUGELD_LDSO or %s)"
                  % DEFAULT_LDSO),
            flag("--direct", help="the program is started directly: its "
                 "PT_INTERP is hugeld's loader (default: run it with the "
                 "loader as a command)"))


# The help of a setting's option, where a command gives none: by
# whether ld.so's table gives the setting a list of words.
PATTERNS_HELP = ("colon-separated globs selecting objects, as {variable} "
                 "(default: ${variable})")
LIST_HELP = ("comma list of {words}, as {variable} (default: ${variable} "
             "or ld.so's default)")


def setting_options(s):
    """The Options the Settings S stands for, from ld.so's table (an
    Error where the helper is missing)."""
    out = []
    for t in setting_table():
        if s.names is not None and t["name"] not in s.names:
            continue
        text = s.helps.get(t["name"]) or (
            LIST_HELP if t["words"] else PATTERNS_HELP)
        out.append(value("--" + t["name"],
                         metavar="LIST" if t["words"] else "PATTERNS",
                         help=text.format(variable=t["variable"],
                                          words=t["words"])))
    return out


def options(cmd):
    """The Options of CMD, its settings made from ld.so's table (an
    Error where the helper is missing)."""
    out = []
    for o in cmd.options:
        out += setting_options(o) if isinstance(o, Settings) else [o]
    return out


def takes_value(opts):
    """The flags of OPTS that take the next word as their value."""
    return {f for o in opts if o.kind in ("value", "append")
            for f in o.flags}


def split_rest(cmd, words, opts):
    """(the words CMD's parser takes, args.rest) of WORDS, its options
    OPTS (see Command.rest)."""
    if cmd.rest == "--":
        if "--" in words:
            i = words.index("--")
            return words[:i], words[i + 1:]
        return words, []
    if cmd.rest != "program":
        return words, []
    takes, i = takes_value(opts), 0
    while i < len(words) and words[i] != "--" and words[i].startswith("-"):
        i += 2 if words[i] in takes else 1
    if i < len(words) and words[i] == "--":
        return words[:i], words[i + 1:]
    return words[:i], words[i:]


# ld.so's facts in the help texts, asked of the helper only when a help
# text is printed (a command that prints none starts no helper): each
# {NAME} of a help text is replaced by FACTS[NAME] (), or, where the
# helper is missing, by the second member.
FACTS = {
    "backings": (lambda: ", ".join(backing_names()), "ld.so's backings"),
    "cache_dir": (cache_dir, "ld.so's cache directory"),
    "mount_dir": (mount_dir, "ld.so's cache mount"),
    "conf_file": (conf_file, "the one ld.so reads"),
    "segment_words": (lambda: setting_words("segments"),
                      "ld.so's segment kinds"),
}


def ld_said(what, otherwise):
    """WHAT () (a question to the helper about ld.so), or OTHERWISE where
    the helper is missing: help still works."""
    try:
        return what()
    except Error:
        return otherwise


def facts(text):
    """TEXT with each {NAME} of FACTS replaced by what ld.so says."""
    if not text:
        return text
    return re.sub(r"\{(%s)\}" % "|".join(FACTS),
                  lambda m: ld_said(*FACTS[m.group(1)]), text)


def _module_names():
    """The modules of the commands package, each a command: its .py
    files (compiled or not), but __init__.py."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "commands")
    return sorted(f[:-3] for f in os.listdir(here)
                  if f.endswith(".py") and not f.startswith("_"))


def names():
    """The commands' names, from their modules' (without importing
    them)."""
    return [m.replace("_", "-") for m in _module_names()]


def load(name):
    """The Command NAME (a name of names ()), its module imported: the
    only one a start imports."""
    mod = importlib.import_module(".commands." + name.replace("-", "_"),
                                  __package__)
    cmd = getattr(mod, "COMMAND", None)
    if not isinstance(cmd, Command) or cmd.name != name:
        raise Error("hugeld/commands/%s.py declares no command %s"
                    % (name.replace("-", "_"), name))
    return cmd


def commands():
    """Every Command, in the order of the top-level help (each module
    imported)."""
    return sorted((load(n) for n in names()), key=lambda c: (c.rank,
                                                              c.name))
