# Unit tests of the hugeld command (tools/hugeld), stdlib unittest.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh (make check):
#   python3 -m unittest discover -s tests/unit -p 'test_*.py'

import argparse
import os
import re
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import cachedir, cli, common, config, elf, pathglob, plan, planner, pool, status  # noqa: E402

MAN = os.path.join(TOP, "tools", "hugeld.1")
COMPLETION = os.path.join(TOP, "tools", "hugeld.bash-completion")
# Options the man page names that are not hugeld's own (ld.so's, the
# link editor's, gdb's, the hugeld-plan helper's).
FOREIGN = {"--argv0", "--list", "--dynamic-linker", "--args", "--cache"}


def parser_options():
    """{subcommand: set of its long options} from the argparse parser."""
    p = cli.build_parser()
    subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    def longs(actions):
        # Options hidden from --help (internal ones) are not documented.
        return {o for a in actions if a.help != argparse.SUPPRESS
                for o in a.option_strings if o.startswith("--")}
    out = {"": longs(p._actions)}
    for name, sp in subs[0].choices.items():
        out[name] = longs(sp._actions)
        # A command with commands of its own (cache): all their options.
        for a in sp._actions:
            if isinstance(a, argparse._SubParsersAction):
                for csp in a.choices.values():
                    out[name] |= longs(csp._actions)
    return out


def man_options():
    with open(MAN) as f:
        text = f.read().replace("\\-", "-")
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def completion_options():
    """{subcommand: set of long options} from the completion's case arms."""
    with open(COMPLETION) as f:
        text = f.read()
    out = {}
    top = re.search(r'compgen -W "run plan status perf-map gdb cache ([^"]*)"', text)
    out[""] = set(re.findall(r"--[a-z][a-z0-9-]*", top.group(1)))
    body = text[text.index("case $cmd in"):]
    body = body[:body.index("\n  esac")]
    arms = list(re.finditer(r"^    ([a-z-]+)\)$", body, re.M))
    for m, nxt in zip(arms, arms[1:] + [None]):
        arm = body[m.end():nxt.start() if nxt else len(body)]
        # What the arm offers (compgen -W / opts=), not the options it
        # merely skips over.
        offered = " ".join(a + b for a, b in
                           re.findall(r'opts="([^"]*)"|compgen -W "([^"]*)"', arm))
        out[m.group(1)] = set(re.findall(r"--[a-z][a-z0-9-]*", offered))
    return out


class OptionsAgree(unittest.TestCase):
    """argparse, the man page and the bash completion list the same
    options."""

    def test_every_option_is_in_the_man_page(self):
        man = man_options()
        for cmd, opts in parser_options().items():
            for o in opts - {"--help"}:
                self.assertIn(o, man, "%s %s is not in hugeld.1" % (cmd or "hugeld", o))

    def test_the_man_page_names_no_other_option(self):
        known = set().union(*parser_options().values())
        self.assertEqual(man_options() - known - FOREIGN, set())

    def test_completion_matches_each_subcommand(self):
        comp = completion_options()
        for cmd, opts in parser_options().items():
            self.assertIn(cmd, comp, "no completion for %s" % cmd)
            # The completion offers the options of the command it completes
            # (words used only as value-taking options are fine too).
            self.assertEqual(comp[cmd] - {"--"}, opts,
                             "completion of %s" % (cmd or "hugeld"))


class RunCommandLine(unittest.TestCase):
    """`run' finds where the program starts from its own parser."""

    def test_value_options_are_the_parsers(self):
        run = cli.subcommand(cli.build_parser(), "run")
        self.assertEqual(cli.value_options(run),
                         {"--libs", "--segments", "--backing", "--ldso",
                          "--debug-dir", "--perf-map-output"})

    def test_program_starts_after_the_options(self):
        top = cli.build_parser()
        for argv, want in (
                (["run", "--libs", "x", "--debug", "prog", "-v"],
                 ["run", "--libs", "x", "--debug", "--", "prog", "-v"]),
                (["run", "--debug=f", "--segments", "all", "prog", "--libs"],
                 ["run", "--debug=f", "--segments", "all", "--", "prog",
                  "--libs"]),
                (["run", "--libs=x", "--perf-map", "prog"],
                 ["run", "--libs=x", "--perf-map", "--", "prog"]),
                (["run", "--libs", "x", "--", "prog", "a"],
                 ["run", "--libs", "x", "--", "prog", "a"]),
                (["run", "--no-pool-check"], ["run", "--no-pool-check"])):
            self.assertEqual(cli.run_argv(top, argv), want, argv)
        args = top.parse_args(cli.run_argv(top, ["run", "--libs", "x",
                                                 "prog", "--libs", "y"]))
        self.assertEqual((args.libs, args.command),
                         ("x", ["--", "prog", "--libs", "y"]))

    def test_a_new_option_needs_one_edit(self):
        top = cli.build_parser()
        cli.subcommand(top, "run").add_argument("--new-option", metavar="V")
        self.assertEqual(cli.run_argv(top, ["run", "--new-option", "v", "prog"]),
                         ["run", "--new-option", "v", "--", "prog"])


class Helpers(unittest.TestCase):

    def test_mib_and_plural(self):
        self.assertEqual(common.plural(1, "page"), "1 page")
        self.assertEqual(common.plural(2, "page"), "2 pages")
        self.assertEqual(common.plural(3, "process", "processes"), "3 processes")
        self.assertEqual(common.mib(16), "32 MiB")

    def test_check_patterns(self):
        # Asked of the hugeld-plan helper: the loader's own grammar.
        if not self.helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        for good in ("libbig.so", "lib*.so*:mysqld", "/usr/lib/*/libLLVM-14.so*",
                     "[a-c]?x", "[]x]"):
            self.assertEqual(planner.check_patterns(good), good)
        for bad, why in (("", "empty pattern list"), ("a::b", "empty pattern"),
                         ("ok:lib[abc", "not closed"), ("x\\", "lone backslash"),
                         ("a\0b", "NUL")):
            with self.assertRaisesRegex(common.Error, why, msg=bad):
                planner.check_patterns(bad)

    def test_check_segments(self):
        if not self.helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        planner.check_segments("text,rodata")
        planner.check_segments("all")
        self.assertIsNone(planner.check_segments(None))
        for bad, why in (("txt", "unknown segment kind"), (",", "selects nothing"),
                         ("", "empty list")):
            with self.assertRaisesRegex(common.Error, why, msg=bad):
                planner.check_segments(bad)

    @staticmethod
    def helper():
        try:
            return common.helper_path()
        except common.Error:
            return None

    def test_table(self):
        rows = [("NAME", "KIND", "N"), ("libbig.so", "text", "11"),
                ("", "rodata", "4"), ("x", "", "")]
        self.assertEqual(common.table(rows, right={2}), [
            "NAME       KIND     N",
            "libbig.so  text    11",
            "           rodata   4",
            "x"])
        # An indent; right-aligned columns first; empty trailing cells
        # leave no blanks, and an all-empty row leaves an empty line.
        self.assertEqual(common.table([("PID", "CMD"), ("7", "sh"),
                                       ("1234", "python3"), ("", "")],
                                      right=range(1), indent="  "), [
            "   PID  CMD",
            "     7  sh",
            "  1234  python3",
            ""])

    def test_layout(self):
        # hugeld-plan --layout: every page of the PT_LOAD segments has
        # one kind, its zone's (without the gaps zones grow into) or its
        # small range's.
        if not self.helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        exe = os.path.realpath(sys.executable)
        for segs in ("text,rodata,relro", "all"):
            o = planner.run_helper(["--layout", "--segments", segs, exe])["objects"][0]
            e = elf.Elf(exe)
            pages = [(p.vaddr & -common.PAGE,
                      (p.vaddr + p.memsz + common.PAGE - 1) & -common.PAGE)
                     for p in e.loads]
            e.close()
            lay = o["layout"]
            self.assertEqual([(r["start"], r["end"]) for r in lay],
                             sorted((r["start"], r["end"]) for r in lay))
            for a, b in pages:
                inside = [r for r in lay if a <= r["start"] < b]
                self.assertTrue(inside, hex(a))
                self.assertEqual(inside[0]["start"], a)
                self.assertEqual(inside[-1]["end"], b)
                for r, s in zip(inside, inside[1:]):
                    self.assertEqual(r["end"], s["start"])
            self.assertEqual(sum(r["end"] - r["start"] for r in lay),
                             sum(b - a for a, b in pages))
            for z in o["zones"] + o["small"]:
                over = [r for r in lay if r["start"] < z["end"] and z["start"] < r["end"]]
                self.assertEqual({r["kind"] for r in over}, {z["kind"]}, z)

    def test_plan_each(self):
        # One run of the helper for all; a file it refuses is None, and
        # the others are still planned (with their DT_SONAME).
        if not self.helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        exe = os.path.realpath(sys.executable)
        good = planner.plan_each([], [("/x/prog", exe)])
        self.assertEqual((good[0]["file"], good[0]["path"]), (exe, "/x/prog"))
        got = planner.plan_each(["--layout"], [("a", exe), ("b", MAN), ("c", exe)])
        self.assertEqual([x is None for x in got], [False, True, False])
        self.assertIn("layout", got[2])
        self.assertEqual(planner.plan_each([], []), [])
        libs = [p for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6")
                if os.path.exists(p)]
        if libs:
            self.assertEqual(planner.plan_each([], [(libs[0], libs[0])])[0]["soname"],
                             "libc.so.6")

    def test_kind_in(self):
        # The kind of a process's huge page mapping: the layout range
        # holding most of it, also when it reaches into a gap.
        plan = {"layout": [
            {"kind": "rodata", "start": 0, "end": 0x1006000, "load": 0},
            {"kind": "text", "start": 0x1200000, "end": 0x16c5000, "load": 1},
            {"kind": "data+bss", "start": 0x2400000, "end": 0x2e01000, "load": 2}]}
        M = 0x200000
        self.assertEqual(status.kind_in(plan, 0, 8 * M), "rodata")
        self.assertEqual(status.kind_in(plan, 0x1000000, 0x1200000), "rodata")
        self.assertEqual(status.kind_in(plan, 0x1200000, 0x1800000), "text")
        self.assertEqual(status.kind_in(plan, 0x2a00000, 0x2c00000), "data+bss")
        self.assertEqual(status.kind_in(plan, 0x1800000, 0x1a00000), "?")
        self.assertEqual(status.kind_in(None, 0, M), "?")
        self.assertEqual(status.kind_in({"layout": []}, 0, M), "?")

    def test_parse_backing(self):
        # LD_HUGEPAGE_BACKING as ld.so reads it: empty elements skipped,
        # a backing named twice counts once; unknown names refused.
        self.assertEqual(planner.parse_backing("shared,private,thp"),
                         ["shared", "private", "thp"])
        self.assertEqual(planner.parse_backing("thp,,private,thp"),
                         ["thp", "private"])
        for bad, why in (("shared,huge", "unknown backing"), (",", "selects nothing"),
                         ("", "empty list"), ("Private", "unknown backing")):
            with self.assertRaisesRegex(common.Error, why, msg=bad):
                planner.parse_backing(bad)

    def test_pick_backing(self):
        # What plan counts for a zone: the first backing of the order
        # that works for it.
        pick = plan.pick_backing
        self.assertEqual(pick(["shared", "private", "thp"], True, True), "shared")
        self.assertEqual(pick(["shared", "private", "thp"], False, True), "private")
        self.assertEqual(pick(["private", "shared"], True, True), "private")
        self.assertEqual(pick(["shared", "thp"], False, True), "thp")
        self.assertEqual(pick(["shared", "thp"], False, False), None)
        self.assertEqual(pick(["thp", "shared"], True, False), "shared")

    def test_pool_line(self):
        p = {"total": 20, "free": 10, "reserved": 2, "surplus": 0,
             "in_use": 10, "available": 8, "nodes": []}
        line = pool.pool_line(p)
        self.assertTrue(line.startswith("HugePages_Total 20, Free 10"), line)

    def test_cgroup_paths(self):
        """The same cases as tests/unit/test-cache.c's test_cgroup, for
        ld.so's reader."""
        cp = pool.cgroup_paths
        self.assertEqual(cp("0::/kubepods.slice/p.slice/c.scope\n"),
                         ("/kubepods.slice/p.slice/c.scope", None))
        self.assertEqual(cp("0::/\n"), ("/", None))
        self.assertEqual(cp("12:hugetlb:/a/b\n11:cpu,cpuacct:/x\n"
                            "1:name=systemd:/user.slice\n"
                            "0::/user.slice/u:1\n"),
                         ("/user.slice/u:1", "/a/b"))
        self.assertEqual(cp("3:cpu,hugetlb,pids:/c\n"), (None, "/c"))
        self.assertEqual(cp("3:hugetlbx:/c\n4:xhugetlb:/d\n"), (None, None))
        self.assertEqual(cp("10::/x\n0:a:/y\n:::\n\n0::\n0::rel\n"),
                         (None, None))


class PolicyPaths(unittest.TestCase):
    """The policy file's globs and program names, as ld.so has them."""

    def test_conf_path_is_the_loaders(self):
        # tests/unit/test-conf.c's test_path cases.
        for link, target, want in (
                ("/usr/bin/clang-14", "../lib/llvm-14/bin/clang",
                 "/usr/lib/llvm-14/bin/clang"),
                ("/usr/bin/python3", "python3.11", "/usr/bin/python3.11"),
                ("/usr/bin/x", "/opt/y/./z//w", "/opt/y/z/w"),
                ("/a", "../../../b", "/b"),
                (None, "/work/./app/../bin/app", "/work/bin/app"),
                ("/", "x", "/x"), ("rel/link", "t", "rel/t"),
                ("rel/link", "../../t", "../t"), ("a/b/link", "../../t", "t"),
                (None, "../../x/../y", "../../y"), ("link", "t", "t"),
                (None, "/", "/"), (None, "/..", "/")):
            self.assertEqual(pathglob.conf_path(link, target), want,
                             (link, target))

    def test_glob_match(self):
        g = pathglob.glob_match
        for pat, name, want in (
                ("lib*.so*", "libc.so.6", True), ("a?c", "abc", True),
                ("a?c", "ac", False), ("[a-c]x", "bx", True),
                ("[!a-c]x", "bx", False), ("[^a]x", "bx", True),
                ("[]x]", "]", True), ("lib[abc", "lib[abc", True),
                ("x\\*", "x*", True), ("x\\*", "xy", False),
                ("*", "", True), ("a*", "b", False), ("*b*c", "abxbc", True),
                ("/usr/*/x", "/usr/a/b/x", True), ("[a\\]]", "]", True)):
            self.assertEqual(g(pat, name), want, (pat, name))

    def test_glob_match_agrees_with_the_loaders(self):
        # The loader's matcher, through the planning helper: a pattern
        # without a slash selects a file by the name it is opened as.
        if not Helpers.helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        exe = os.path.realpath(sys.executable)
        for pat in ("lib*.so*", "l?b[a-c].so", "[!x]*", "lib\\[a].so", "*a*b"):
            for name in ("libc.so.6", "liba.so", "lib[a].so", "xab", "ab"):
                o = planner.run_helper(["--libs", pat, "--name",
                                        "/d/" + name, exe])["objects"][0]
                self.assertEqual(o["selected"], pathglob.glob_match(pat, name),
                                 (pat, name))

    def test_program_names(self):
        # As ld.so: the name, made absolute, and where its links lead,
        # each link read lexically; a linked directory is not resolved.
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "real", "bin"))
            prog = os.path.join(d, "real", "bin", "prog-1")
            open(prog, "w").close()
            os.symlink("bin/prog-1", os.path.join(d, "real", "prog"))
            os.symlink("real/prog", os.path.join(d, "a"))
            os.symlink("real", os.path.join(d, "dir"))
            names = pathglob.program_names
            self.assertEqual(names(os.path.join(d, "a")),
                             [os.path.join(d, "a"), prog])
            self.assertEqual(names("a", cwd=d),
                             ["a", os.path.join(d, "a"), prog])
            self.assertEqual(names("./a", cwd=d + "/"),
                             ["./a", os.path.join(d, "a"), prog])
            via_dir = os.path.join(d, "dir", "bin", "prog-1")
            self.assertEqual(names(via_dir), [via_dir])
            self.assertEqual(names(prog), [prog])

    def test_expand_cache(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "lib", "sub"))
            for n in ("libA.so.1", "libB.so.2", ".libC.so", "sub/libD.so.1"):
                open(os.path.join(d, "lib", n), "w").close()
            os.symlink("libA.so.1", os.path.join(d, "lib", "libA.so"))
            os.link(os.path.join(d, "lib", "libB.so.2"),
                    os.path.join(d, "lib", "libhard.so"))
            os.mkdir(os.path.join(d, "lib", "libdir.so"))
            L = os.path.join(d, "lib")
            self.assertEqual(pathglob.expand(L + "/lib*.so*"),
                             [L + "/libA.so", L + "/libA.so.1", L + "/libB.so.2",
                              L + "/libdir.so", L + "/libhard.so"])
            self.assertEqual(pathglob.expand(d + "/*/sub/lib?.so.[0-9]"),
                             [L + "/sub/libD.so.1"])
            self.assertEqual(pathglob.expand(L + "/.lib*"), [L + "/.libC.so"])
            conf = {"cache": [
                {"line": 2, "pattern": L + "/lib*.so*"},
                {"line": 3, "pattern": L + "/libB.so.2"},
                {"line": 3, "pattern": L + "/nothing*"},
                {"line": 4, "pattern": L + "/libdir.so"}]}
            files, empty = pathglob.expand_cache(conf)
            # A link, a hard link and a second pattern name no file twice.
            self.assertEqual([(f["path"], f["real"], f["line"]) for f in files],
                             [(L + "/libA.so", L + "/libA.so.1", 2),
                              (L + "/libB.so.2", L + "/libB.so.2", 2)])
            self.assertEqual([c["pattern"] for c in empty],
                             [L + "/nothing*", L + "/libdir.so"])


class PolicyFile(unittest.TestCase):
    """The policy file through hugeld-conf: which line gave what."""

    def write(self, text):
        import tempfile
        f = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        f.write(text)
        f.close()
        os.chmod(f.name, 0o644)
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_libs_patterns(self):
        lp = config.libs_patterns
        self.assertEqual(lp("libs a:b c # x d"), ["a", "b", "c"])
        self.assertEqual(lp("  libs\tnone  "), [])
        self.assertEqual(lp("libs a#b"), ["a#b"])
        self.assertIsNone(lp("segments text"))

    def test_pattern_lines(self):
        f = self.write("libs a:b  # first\nsegments text\n"
                       "program x\n  libs c\n  libs none\n  libs d:e f\n")
        c = {"file": f, "libs": {"value": "c:d:e:f", "lines": [4, 6]}}
        self.assertEqual(config.pattern_lines(c),
                         [("c", 4), ("d", 6), ("e", 6), ("f", 6)])
        c = {"file": f, "libs": {"value": "a:b", "lines": [1]}}
        self.assertEqual(config.pattern_lines(c), [("a", 1), ("b", 1)])
        # The file changed since hugeld-conf read it: no line is known.
        c = {"file": f, "libs": {"value": "a:x", "lines": [1, 4]}}
        self.assertEqual(config.pattern_lines(c), [("a", None), ("x", None)])
        self.assertEqual(config.pattern_lines({"file": f, "libs": None}), [])

    def test_file_policy(self):
        if not Helpers.helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        f = self.write("libs libA.so\nlibs libB.so*\nsegments text\n"
                       "program /no/such/prog other\n  libs none\n"
                       "program /usr/bin/prog-*\n  backing private\n")
        pol = config.file_policy("/usr/bin/x", f)
        if os.geteuid() != 0:
            # Not root's: ld.so ignores it, and says why.
            self.assertIsNone(pol["libs"])
            self.assertIn("ignored by ld.so: not owned by root", pol["why"])
            self.skipTest("the rest needs a file of root's")
        self.assertEqual((pol["why"], pol["libs"], pol["segments"],
                          pol["backing"]), (None, "libA.so:libB.so*", "text", None))
        self.assertEqual(pol["lines"], {"libA.so": 1, "libB.so*": 2})
        self.assertEqual(pol["where"]["libs"], "%s lines 1, 2" % f)
        other = config.file_policy("other", f)
        self.assertEqual((other["libs"], other["where"]["program"]),
                         ("", "%s line 4" % f))
        self.assertEqual(config.nothing_from(other, "other"),
                         "%s selects nothing for other (libs none, line 5)" % f)
        blk = config.file_policy("/usr/bin/prog-2", f)
        self.assertEqual((blk["libs"], blk["backing"]), ("libA.so:libB.so*", "private"))
        self.assertIsNone(config.nothing_from(blk, "/usr/bin/prog-2"))
        bad = config.file_policy(None, self.write("libs a\nlibz b\nsegments\n"))
        self.assertEqual(bad["why"], "ignored by ld.so: line 2: unknown keyword "
                         "(use libs, segments, backing, cache, pool or program) "
                         "(and 1 other bad line)")
        self.assertEqual(config.file_policy(None, f + ".none")["why"], "no such file")

    def test_settings_come_from_options_variables_then_the_file(self):
        # One setting at a time, as ld.so: a variable that is set (even
        # empty, for segments and backing) keeps the file's away.
        if not Helpers.helper() or os.geteuid() != 0:
            self.skipTest("needs hugeld-plan and a file of root's")
        f = self.write("libs libA.so\nsegments text\nbacking private\n")
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))

        def run(argv, env):
            for v in ("LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS",
                      "LD_HUGEPAGE_BACKING"):
                os.environ.pop(v, None)
            os.environ.update(env)
            args = cli.build_parser().parse_args(["plan", "/bin/true"] + argv)
            args.conf_file = f
            libs, segs = planner.settings(args, "plan")
            return libs, segs, planner.backing_setting(args), planner.sources(args)

        libs, segs, back, src = run([], {})
        self.assertEqual((libs, segs, back), ("libA.so", "text", "private"))
        self.assertEqual(src["libs"], "%s line 1" % f)
        libs, segs, back, src = run(["--libs", "x"], {"LD_HUGEPAGE_SEGMENTS": ""})
        self.assertEqual((libs, segs, back), ("x", "", "private"))
        self.assertEqual((src["libs"], src["segments"]), ("--libs", "default"))
        libs, segs, back, src = run([], {"LD_HUGEPAGE_LIBS": "y", "LD_HUGEPAGE_BACKING": "thp"})
        self.assertEqual((libs, segs, back), ("y", "text", "thp"))
        with self.assertRaisesRegex(common.Error, "nothing selected"):
            run([], {"LD_HUGEPAGE_LIBS": ""})


class CacheStates(unittest.TestCase):
    """`hugeld cache list': the state of an entry from what scan found
    and the helper's plan of its source file."""

    INODE, VERSION = "fe00-54298a", "2bed548-6b0476fb.4dd9639-6b047872.17550aac-512a"
    ZONES = [{"name": "text-0-200000-1600000", "size": 20 << 20},
             {"name": "rodata-0-1800000-1e00000", "size": 6 << 20}]

    def entry(self, name=None, source="/lib/libbig.so", zones=None, why=None,
              inode=INODE):
        e = cachedir.Entry(inode, name or self.VERSION)
        e.source = source
        for z in self.ZONES if zones is None else zones:
            e.zones[z["name"]] = (z["size"], z["size"])
        e.why = why
        return e

    def plan(self, inode=INODE, version=VERSION, zones=None):
        return {"cache": {"inode": inode, "version": version,
                          "zones": self.ZONES if zones is None else zones}}

    def test_states(self):
        state = cachedir.entry_state
        self.assertEqual(state(self.entry(), self.plan()), "current")
        self.assertEqual(state(self.entry(), self.plan(version="2bed548-1")),
                         "stale: file changed")
        # Another file now at the source path (an upgrade renamed a new
        # one over it): another inode.
        self.assertEqual(state(self.entry(), self.plan(inode="fe00-1")),
                         "stale: file changed")
        self.assertEqual(state(self.entry(zones=self.ZONES[:1]), self.plan()),
                         "stale: zones differ (made by another hugeld)")
        self.assertEqual(state(self.entry(), None), "missing: file gone")
        self.assertEqual(state(self.entry(source=None), self.plan()),
                         "missing: no source recorded")
        self.assertEqual(state(self.entry(why="not owned by root"), self.plan()),
                         "untrusted: not owned by root")
        tmp = self.entry(name=".tmp-%s-123" % self.VERSION)
        self.assertEqual(state(tmp, None), "orphan .tmp")
        tmp.busy = True
        self.assertEqual(state(tmp, None), "being added")
        self.assertEqual(state(self.entry(name="junk", inode=None), None),
                         "not an entry")
        # Prune keeps only these.
        self.assertEqual(cachedir.KEEP, ("current", "being added"))

    def test_entry_pages_and_kinds(self):
        e = self.entry()
        e.zones["text-0-2000000-2400000"] = (4 << 20, 2 << 20)   # Half allocated.
        self.assertEqual(e.pages, 14)
        self.assertEqual(list(e.kinds().items()), [("text", 12), ("rodata", 3)])
        self.assertEqual(e.path, "%s/%s/%s" % (cachedir.CACHE_DIR, self.INODE,
                                               self.VERSION))
        self.assertEqual(cachedir.tmp_pid(".tmp-x-y-4242"), 4242)
        self.assertIsNone(cachedir.tmp_pid(".tmp-x-y"))

    def test_mount_type(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".mountinfo") as f:
            f.write("22 1 0:21 / /proc rw - proc proc rw\n"
                    "42 24 0:39 / /dev/hugepages rw,relatime - hugetlbfs none rw,pagesize=2M\n"
                    "43 24 0:40 / /dev/hugepages rw - tmpfs none rw\n"
                    "44 24 0:41 / /mnt/with\\040space rw - hugetlbfs none rw\n")
            f.flush()
            self.assertEqual(cachedir.mount_type("/dev/hugepages", f.name), "tmpfs")
            self.assertEqual(cachedir.mount_type("/mnt/with space", f.name), "hugetlbfs")
            self.assertIsNone(cachedir.mount_type("/dev/shm", f.name))

    def test_source_round_trip(self):
        # The source path is kept as directories (hugetlbfs has no
        # symbolic links): any directory will do for the test.
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
            try:
                p = "/usr/lib/x86_64-linux-gnu/lib with space.so.1"
                cachedir.write_source(fd, p)
                self.assertEqual(cachedir.read_source(fd), p)
                os.mkdir(os.path.join(d, "source", "usr", "other"))
                self.assertIsNone(cachedir.read_source(fd))
            finally:
                os.close(fd)


if __name__ == "__main__":
    unittest.main()
