# Unit tests of the hugeld command's registry of commands
# (tools/hugeld/registry.py), stdlib unittest: each command module
# declares its command; the dispatcher, the help, the man page's
# synopsis and the bash completion agree with the declarations; a new
# command is a new module and nothing else.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh (make check):
#   python3 -m unittest discover -s tests/unit -p 'test_*.py'

import json
import os
import re
import shutil
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import common, helpers, registry, spawn  # noqa: E402

PKG = os.path.join(TOP, "tools", "hugeld")
MAN = os.path.join(TOP, "tools", "hugeld.1")
COMPLETION = os.path.join(TOP, "tools", "hugeld.bash-completion")
# Options the man page names that are not hugeld's own (ld.so's, the
# link editor's, gdb's, the hugeld-plan and hugeld-conf helpers').
FOREIGN = {"--argv0", "--list", "--dynamic-linker", "--args", "--cache",
           "--effective"}

# What a package's registry declares, as JSON: run in a python of its
# own, with the package's directory first on its path.
DESCRIBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from hugeld import registry
def longs(c):
    return sorted(f for o in registry.options(c) if not o.hidden
                  and o.kind != "argument" for f in o.flags
                  if f.startswith("--"))
out = []
for c in registry.commands():
    opts = set(longs(c))
    for s in c.subcommands:
        opts |= set(longs(s))
    out.append({"name": c.name, "synopsis": list(c.synopsis),
                "subcommands": [s.name for s in c.subcommands],
                "options": sorted(opts)})
print(json.dumps(out))
"""


def python(code, *args):
    """Run CODE in a python of its own (-I) with ARGS: its Completed."""
    return spawn.run([sys.executable, "-I", "-c", code] + list(args))


def describe(top):
    """What the registry of the package in TOP (the directory above
    hugeld/) declares: [{"name", "synopsis", "subcommands",
    "options"}]."""
    r = python(DESCRIBE, top)
    if r.returncode != 0:
        raise AssertionError(r.stderr.decode())
    return json.loads(r.stdout)


def hugeld(top, *argv):
    """`hugeld ARGV' run from the package in TOP: its Completed."""
    return python("import sys; sys.path.insert(0, sys.argv[1]); "
                  "from hugeld.cli import main; sys.exit(main(sys.argv[2:]))",
                  top, *argv)


def roff_text(lines):
    """The plain text of roff LINES (the macros hugeld.1's SYNOPSIS
    uses): one string for each line between .br."""
    out, cur = [], []
    for line in lines:
        if line.startswith((".br", ".SH")):
            if cur:
                out.append(" ".join(cur))
            cur = []
            continue
        m = re.match(r"\.(B|I|RB|BR|IR|RI|BI|IB)\s+(.*)", line)
        if m:
            words = [w.strip('"') for w in
                     re.findall(r'"[^"]*"|\S+', m.group(2))]
            # Two fonts alternate with no space between; one joins words.
            cur.append(("" if len(m.group(1)) == 2 else " ").join(words))
        elif not line.startswith("."):
            cur.append(line)
    if cur:
        out.append(" ".join(cur))
    return [re.sub(r"\s+", " ", re.sub(r"\\f[BIRP]", "", t)
                   .replace("\\-", "-").replace("\\~", " ")).strip()
            for t in out]


def man_synopsis(text):
    """The SYNOPSIS lines of the man page TEXT, without "hugeld "."""
    lines = text.split("\n")
    got = roff_text(lines[lines.index(".SH SYNOPSIS") + 1:
                          lines.index(".SH DESCRIPTION")])
    return [line[len("hugeld "):] for line in got]


def synopsis_problems(cmds, text):
    """What the man page TEXT's SYNOPSIS says otherwise than the
    commands CMDS (describe ()) declare: a line each."""
    man = man_synopsis(text)
    out = ["hugeld.1's SYNOPSIS has no line \"hugeld %s\" (command %s)"
           % (s, c["name"]) for c in cmds for s in c["synopsis"]
           if s not in man]
    names = {c["name"] for c in cmds}
    out += ["hugeld.1's SYNOPSIS names command %s, which is not declared"
            % line.split()[0] for line in man if line.split()[0] not in names]
    return out


def completion_arms(text):
    """{command: the words its arm of the completion TEXT offers
    (compgen -W, opts=)}, and "" for the words offered before a
    command."""
    top = re.search(r'if \[\[ -z \$cmd \]\]; then\s+COMPREPLY=\(\$\(compgen '
                    r'-W "([^"]*)"', text)
    out = {"": set(top.group(1).split())}
    body = text[text.index("case $cmd in"):]
    body = body[:body.index("\n  esac")]
    arms = list(re.finditer(r"^    ([a-z-]+)\)$", body, re.M))
    for m, nxt in zip(arms, arms[1:] + [None]):
        arm = body[m.end():nxt.start() if nxt else len(body)]
        # What the arm offers, not the options it merely skips over.
        out[m.group(1)] = set(" ".join(
            a + " " + b for a, b in re.findall(
                r'opts="([^"]*)"|compgen -W "([^"]*)"', arm)).split())
    return out


def completion_problems(cmds, text):
    """What the completion TEXT offers otherwise than the commands CMDS
    (describe ()) declare: a line each."""
    arms = completion_arms(text)
    out = []
    want = {c["name"] for c in cmds} | {"--help", "--version"}
    if arms[""] != want:
        out.append("the completion offers commands %s, the registry "
                   "declares %s" % (sorted(arms[""]), sorted(want)))
    for c in cmds:
        if c["name"] not in arms:
            out.append("the completion has no arm for command %s" % c["name"])
            continue
        offered = arms[c["name"]] - {"--"}
        opts = {w for w in offered if w.startswith("-")}
        if opts != set(c["options"]) | {"--help"}:
            out.append("the completion of %s offers %s, the registry "
                       "declares %s" % (c["name"], sorted(opts),
                                        sorted(c["options"])))
        for s in c["subcommands"]:
            if s not in offered:
                out.append("the completion of %s does not offer %s"
                           % (c["name"], s))
    return out


def helper():
    try:
        return helpers.path(helpers.PLAN)
    except common.Error:
        return None


class Declarations(unittest.TestCase):
    """Each module of hugeld/commands declares its command."""

    def test_every_module_declares_its_command(self):
        for name in registry.names():
            cmd = registry.load(name)
            self.assertEqual(cmd.name, name)
            self.assertTrue(callable(cmd.run), name)
            self.assertTrue(cmd.synopsis and cmd.summary and cmd.description,
                            name)
            for s in cmd.subcommands:
                self.assertTrue(callable(s.run), (name, s.name))
                self.assertTrue(s.synopsis[0].startswith(name + " " + s.name),
                                (name, s.name))

    def test_a_start_loads_only_its_command(self):
        # --version, an unknown command and a command's own help load no
        # other command's module (each pulls in json, threading, the ELF
        # reader and more).
        code = ("import sys, io; sys.path.insert(0, %r); "
                "from hugeld import cli; sys.stdout = io.StringIO()\n"
                "try:\n    cli.main(%%r)\nexcept SystemExit:\n    pass\n"
                "sys.stdout = sys.__stdout__; "
                "print(' '.join(m for m in sys.modules "
                "if m.startswith('hugeld.commands.')))"
                % os.path.join(TOP, "tools"))
        for argv, want in ((["--version"], set()), (["frobnicate"], set()),
                           (["check", "--help"], {"hugeld.commands.check"}),
                           (["cache", "--help"], {"hugeld.commands.cache"})):
            r = python(code % (argv,))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(set(r.stdout.decode().split()), want, argv)


class RunCommandLine(unittest.TestCase):
    """`run' finds where the program starts from its declared options."""

    def split(self, words):
        cmd = registry.load("run")
        return registry.split_rest(cmd, words, registry.options(cmd))

    def test_program_starts_after_the_options(self):
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        for words, want in (
                (["--libs", "x", "--debug", "prog", "-v"],
                 (["--libs", "x", "--debug"], ["prog", "-v"])),
                (["--debug=f", "--segments", "all", "prog", "--libs"],
                 (["--debug=f", "--segments", "all"], ["prog", "--libs"])),
                (["--libs=x", "--perf-map", "prog"],
                 (["--libs=x", "--perf-map"], ["prog"])),
                (["--libs", "x", "--", "prog", "a"],
                 (["--libs", "x"], ["prog", "a"])),
                (["--no-pool-check"], (["--no-pool-check"], []))):
            self.assertEqual(self.split(words), want, words)

    def test_value_options_are_the_declared_ones(self):
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        cmd = registry.load("run")
        self.assertEqual(registry.takes_value(registry.options(cmd)),
                         {"--libs", "--segments", "--backing", "--ldso",
                          "--debug-dir", "--perf-map-output"})

    def test_settings_options_are_the_helpers(self):
        # --libs, --segments, --backing: one for each setting of ld.so's
        # table, by its name.
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        from_table = ["--" + t["name"] for t in
                      helpers.document(helpers.PLAN, ["--settings"])
                      ["settings"]["table"]]
        for name in ("run", "plan", "enable"):
            got = [o.flags[0] for o in registry.options(registry.load(name))
                   if o.flags[0] in from_table]
            self.assertEqual(got, from_table, name)


class Agreement(unittest.TestCase):
    """The man page and the bash completion say what the registry
    declares."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not helper():
            raise unittest.SkipTest("hugeld-plan not built (make -C tools)")
        cls.cmds = describe(os.path.join(TOP, "tools"))
        with open(MAN) as f:
            cls.man = f.read()
        with open(COMPLETION) as f:
            cls.completion = f.read()

    def test_the_synopsis_is_the_registrys(self):
        self.assertEqual(synopsis_problems(self.cmds, self.man), [])

    def test_the_completion_is_the_registrys(self):
        self.assertEqual(completion_problems(self.cmds, self.completion), [])

    def test_every_option_is_in_the_man_page(self):
        man = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*",
                             self.man.replace("\\-", "-")))
        known = {"--help", "--version"}
        for c in self.cmds:
            known |= set(c["options"])
            for o in c["options"]:
                self.assertIn(o, man, "hugeld %s %s is not in hugeld.1"
                              % (c["name"], o))
        self.assertEqual(man - known - FOREIGN, set(),
                         "hugeld.1 names options no command has")

    def test_the_completion_lists_ld_sos_words(self):
        s = helpers.document(helpers.PLAN, ["--settings"])["settings"]
        for fn, want in (("_hugeld_segments", s["kinds"] + ["all"]),
                         ("_hugeld_backing", s["backings"])):
            body = self.completion[self.completion.index(fn + " ()"):]
            got = re.search(r'compgen -P "\$prefix" -W "([^"]*)"', body)
            self.assertEqual(got.group(1).split(), want, fn)


class NewCommand(unittest.TestCase):
    """A new command is one new module: dispatched, in the help, and
    named by the checks of the man page and the completion until they
    have it too.  In a copy of the package, removed with it."""

    MODULE = '''"""hugeld hello-world: a command of the test's."""

from ..registry import Command, flag


def cmd_hello(args):
    print("hello, world%s" % ("!" if args.loud else ""))


COMMAND = Command(
    name="hello-world", synopsis=("hello-world [--loud]",),
    summary="say hello", description="Say hello to the world.",
    options=(flag("--loud", help="with an exclamation mark"),),
    run=cmd_hello)
'''

    def test_a_new_module_is_a_new_command(self):
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(PKG, os.path.join(d, "hugeld"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            with open(os.path.join(d, "hugeld", "commands",
                                   "hello_world.py"), "w") as f:
                f.write(self.MODULE)
            r = hugeld(d, "hello-world", "--loud")
            self.assertEqual((r.returncode, r.stdout), (0, b"hello, world!\n"),
                             r.stderr)
            r = hugeld(d, "--help")
            self.assertIn(b"  hello-world [--loud]", r.stdout)
            self.assertIn(b"say hello", r.stdout)
            r = hugeld(d, "hello-world", "--help")
            self.assertIn(b"usage: hugeld hello-world [--loud]", r.stdout)
            self.assertIn(b"--loud", r.stdout)
            r = hugeld(d, "hello-world", "--quiet")
            self.assertEqual(r.returncode, 2)
            cmds = describe(d)
            self.assertIn("hello-world", [c["name"] for c in cmds])
            with open(MAN) as f:
                self.assertIn("hugeld.1's SYNOPSIS has no line \"hugeld "
                              "hello-world [--loud]\" (command hello-world)",
                              synopsis_problems(cmds, f.read()))
            with open(COMPLETION) as f:
                got = completion_problems(cmds, f.read())
            self.assertIn("the completion has no arm for command "
                          "hello-world", got)
            self.assertTrue(any("the completion offers commands" in p
                                for p in got), got)
        self.assertNotIn("hello-world", registry.names())


if __name__ == "__main__":
    unittest.main()
