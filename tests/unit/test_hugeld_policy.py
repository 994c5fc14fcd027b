# Unit tests of the hugeld command's side of /etc/hugeld.conf: the
# program names and globs hugeld-conf finds, the helper's document, where each
# setting comes from, and what plan, sync and status make of the file.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh with test_hugeld_cli.py (make check).

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import common, helpers, openfile, pathglob, policy, procfs, settings  # noqa: E402
from hugeld import plans  # noqa: E402
from hugeld.cache import sync  # noqa: E402
from hugeld.commands import plan  # noqa: E402


def helper():
    """The hugeld-plan helper (hugeld-conf is next to it), or None."""
    try:
        return helpers.path(helpers.PLAN)
    except common.Error:
        return None


class PolicyPaths(unittest.TestCase):
    """The policy file's program names and cache globs: hugeld-conf
    finds them with ld.so's own code (tests/unit/test-conf.c and
    test-match.c have its cases); the tool only asks."""

    def conf(self, d, text):
        path = os.path.join(d, "hugeld.conf")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_program_names(self):
        # As ld.so: the name, made absolute, and where its links lead,
        # each link read lexically; a linked directory is not resolved.
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "real", "bin"))
            prog = os.path.join(d, "real", "bin", "prog-1")
            open(prog, "w").close()
            os.symlink("bin/prog-1", os.path.join(d, "real", "prog"))
            os.symlink("real/prog", os.path.join(d, "a"))
            os.symlink("real", os.path.join(d, "dir"))
            f = self.conf(d, "libs x\n")

            def names(name, cwd=None):
                return policy.read_conf(f, name, cwd)["program_names"]
            self.assertEqual(names(os.path.join(d, "a")),
                             [os.path.join(d, "a"), prog])
            self.assertEqual(names("a", cwd=d),
                             ["a", os.path.join(d, "a"), prog])
            self.assertEqual(names("./a", cwd=d + "/"),
                             ["./a", os.path.join(d, "a"), prog])
            via_dir = os.path.join(d, "dir", "bin", "prog-1")
            self.assertEqual(names(via_dir), [via_dir])
            self.assertEqual(names(prog), [prog])
            self.assertEqual(policy.read_conf(f)["program_names"], [])

    def test_expand_cache(self):
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
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
            f = self.conf(d, "cache %s/lib*.so*\ncache %s/libB.so.2 %s/nothing*\n"
                          "cache %s/libdir.so\ncache %s/*/sub/lib?.so.[0-9]\n"
                          "cache %s/.lib*\n" % (L, L, L, L, d, L))
            conf = policy.read_conf(f, expand=True)
            self.assertEqual([c["paths"] for c in conf["cache"]],
                             [[L + "/libA.so", L + "/libA.so.1", L + "/libB.so.2",
                               L + "/libdir.so", L + "/libhard.so"],
                              [L + "/libB.so.2"], [], [L + "/libdir.so"],
                              [L + "/sub/libD.so.1"], [L + "/.libC.so"]])
            conf["cache"] = conf["cache"][:4]
            files, empty = pathglob.expand_cache(conf)
            # A link, a hard link and a second pattern name no file twice.
            self.assertEqual([(f["path"], f["real"], f["line"]) for f in files],
                             [(L + "/libA.so", L + "/libA.so.1", 1),
                              (L + "/libB.so.2", L + "/libB.so.2", 1)])
            self.assertEqual([c["pattern"] for c in empty],
                             [L + "/nothing*", L + "/libdir.so"])
            with self.assertRaisesRegex(common.Error, "--expand"):
                pathglob.expand_cache(policy.read_conf(f))


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

    def test_pattern_lines(self):
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        f = self.write("libs a:b  # first\nsegments text\n"
                       "program x\n  libs c\n  libs none\n  libs d:e f\n")

        def lines(c):
            return [(x["pattern"], x["line"]) for x in c["libs"]["patterns"]]
        c = policy.read_conf(f, "/usr/bin/x")
        self.assertEqual(lines(c), [("c", 4), ("d", 6), ("e", 6), ("f", 6)])
        self.assertEqual(c["libs"]["lines"], [4, 6])
        c = policy.read_conf(f, "/usr/bin/y")
        self.assertEqual(lines(c), [("a", 1), ("b", 1)])
        f = self.write("program x\n  libs none\n")
        c = policy.read_conf(f, "/usr/bin/x")
        self.assertEqual(lines(c), [])
        self.assertEqual(c["libs"]["lines"], [2])

    def test_file_settings(self):
        if not helper():
            self.skipTest("hugeld-plan not built (make -C tools)")
        f = self.write("libs libA.so\nlibs libB.so*\nsegments text\n"
                       "program /no/such/prog other\n  libs none\n"
                       "program /usr/bin/prog-*\n  backing private\n")
        none = dict.fromkeys(settings.NAMES)
        if os.geteuid() != 0:
            # Not root's: ld.so ignores it, and says why.
            with self.assertRaisesRegex(common.Error,
                                        "ignored by ld.so: not owned by root"):
                settings.resolve("plan", none, {}, "/usr/bin/x", f)
            self.skipTest("the rest needs a file of root's")
        s = settings.resolve("plan", none, {}, "/usr/bin/x", f)
        self.assertEqual((s.policy["why"], s.libs, s.segments, s.backing),
                         (None, "libA.so:libB.so*", "text", None))
        self.assertEqual(dict(s.policy["lines"]), {"libA.so": 1, "libB.so*": 2})
        self.assertEqual(s.sources["libs"], "%s lines 1, 2" % f)
        # Why nothing is selected: said by hugeld-conf --effective.
        with self.assertRaises(common.Error) as cm:
            settings.resolve("plan", none, {}, "other", f)
        self.assertEqual(str(cm.exception), "plan: nothing selected: give --libs "
                         "PATTERNS (or set LD_HUGEPAGE_LIBS, or select it in %s); "
                         "%s selects nothing for other (libs none, line 5)" % (f, f))
        s = settings.resolve("plan", none, {}, "/usr/bin/prog-2", f)
        self.assertEqual((s.libs, s.segments, s.backing),
                         ("libA.so:libB.so*", "text", "private"))
        self.assertEqual(dict(s.from_file), {
            "libs": "%s lines 1, 2" % f, "segments": "%s line 3" % f,
            "backing": "%s line 7" % f, "program": "%s line 6" % f})
        self.assertEqual(dict(s.policy["lines"]), {"libA.so": 1, "libB.so*": 2})
        bad = self.write("libs a\nlibz b\nsegments\n")
        with self.assertRaises(common.Error) as cm:
            settings.resolve("plan", none, {}, None, bad)
        # ld.so checks the lines that apply: the first bad one is named.
        self.assertIn("ignored by ld.so: line 2: unknown keyword "
                      "(use libs, segments, backing, cache, pool or program)",
                      str(cm.exception))
        # A bad line in another program's block is that program's only;
        # in the block that applies it voids the file for the program.
        other = self.write("libs a\nprogram /no/such/prog\n  libz b\n")
        s = settings.resolve("plan", none, {}, "/bin/true", other)
        self.assertEqual(s.effective["libs"], "a")
        mine = self.write("libs a\nprogram /bin/true\n  libz b\n")
        with self.assertRaises(common.Error) as cm:
            settings.resolve("plan", none, {}, "/bin/true", mine)
        self.assertIn("ignored by ld.so: line 3: unknown keyword",
                      str(cm.exception))
        with self.assertRaisesRegex(common.Error, "nothing selected.*\\)$"):
            settings.resolve("plan", none, {}, None, f + ".none")

    def test_settings_come_from_options_variables_then_the_file(self):
        # One setting at a time, as ld.so: a variable that is set (even
        # empty, for segments and backing) keeps the file's away.
        if not helper() or os.geteuid() != 0:
            self.skipTest("needs hugeld-plan and a file of root's")
        f = self.write("libs libA.so\nsegments text\nbacking private\n")

        def run(argv, env):
            # The options as `hugeld plan /bin/true ARGV' gives them, the
            # variables ENV alone: nothing of this process's environment.
            opts = dict.fromkeys(settings.NAMES)
            for opt, value in zip(argv[0::2], argv[1::2]):
                opts[opt[2:]] = value
            s = settings.resolve("plan", opts, env, "/bin/true", f)
            return s.libs, s.segments, s.backing, s.sources

        libs, segs, back, src = run([], {})
        self.assertEqual((libs, segs, back), ("libA.so", "text", "private"))
        self.assertEqual(src["libs"], "%s line 1" % f)
        libs, segs, back, src = run(["--libs", "x"], {"LD_HUGEPAGE_SEGMENTS": ""})
        self.assertEqual((libs, segs, back), ("x", "", "private"))
        self.assertEqual((src["libs"], src["segments"]),
                         ("--libs", "LD_HUGEPAGE_SEGMENTS"))
        libs, segs, back, src = run([], {"LD_HUGEPAGE_LIBS": "y", "LD_HUGEPAGE_BACKING": "thp"})
        self.assertEqual((libs, segs, back), ("y", "text", "thp"))
        with self.assertRaisesRegex(common.Error, "^plan: nothing selected: "
                                    r"[^;]*\)$"):
            run([], {"LD_HUGEPAGE_LIBS": ""})
        # The checks, in order: libs, then segments, then backing; each
        # names where the bad value came from.
        for argv, env, msg in (
                (["--libs", "a::b"], {"LD_HUGEPAGE_SEGMENTS": "txt"},
                 '--libs: "a::b": empty pattern'),
                ([], {"LD_HUGEPAGE_LIBS": "[x"}, "LD_HUGEPAGE_LIBS: pattern"),
                (["--segments", ","], {"LD_HUGEPAGE_BACKING": "huge"},
                 '--segments: "," selects nothing'),
                ([], {"LD_HUGEPAGE_BACKING": "shared,huge"},
                 'LD_HUGEPAGE_BACKING: unknown backing in "shared,huge"')):
            with self.assertRaises(common.Error, msg=msg) as cm:
                run(argv, env)
            self.assertTrue(str(cm.exception).startswith(msg), str(cm.exception))


class PolicyCounts(unittest.TestCase):
    """What plan, sync and status make of the policy file."""

    M = 0x200000

    def test_auto_pool(self):
        # pool auto: the declared pages, 10% more (rounded up) and 8.
        self.assertEqual([sync.auto_pool(n) for n in (0, 1, 5, 48, 100)],
                         [0, 10, 14, 61, 118])

    def test_auto_cap(self):
        # At most a quarter of MemTotal: 8 GiB, 1024 pages of 2 MiB.
        import tempfile
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("MemFree:  1 kB\nMemTotal:       8388608 kB\n")
            f.flush()
            self.assertEqual(sync.auto_cap(f.name), 1024)
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("MemTotal: lots\n")
            f.flush()
            self.assertIsNone(sync.auto_cap(f.name))
        self.assertIsNone(sync.auto_cap("/nonexistent/meminfo"))

    def obj(self, path):
        M = self.M
        return {"selected": True, "file": path, "bias": 0,
                "cache": {"bias": 0, "dir": "/nonexistent", "inode": "i1",
                          "version": "v1", "why_not": None,
                          "zones": [{"kind": "text", "start": 0, "end": 4 * M,
                                     "name": "text-0", "size": 4 * M,
                                     "present": False}]},
                "zones": [{"kind": "text", "start": 0, "end": 4 * M, "pages": 4,
                           "backing_cached": "shared",
                           "backing_uncached": "private"},
                          {"kind": "relro", "start": 6 * M, "end": 7 * M,
                           "pages": 1, "backing_cached": "private",
                           "backing_uncached": "private"}]}

    def test_declared_zones_count_once(self):
        # A file the policy file declares for the cache: its read-only
        # zones are the cache's (held once), the rest per process.
        exe = os.path.realpath(sys.executable)
        o = self.obj(exe)
        by = plans.place_zones([o], {plans.file_id(exe)})
        self.assertEqual((by["shared"], by["private"], by["declared"]), (4, 1, 4))
        self.assertEqual([(z["backing"], z.get("cache_pending")) for z in o["zones"]],
                         [("shared", True), ("private", None)])
        # Not declared, no entry: everything private.
        by = plans.place_zones([self.obj(exe)], set())
        self.assertEqual((by["shared"], by["private"], by["declared"]), (0, 5, 0))
        # The helper says the entry is there (present): shared, not
        # declared.
        o = self.obj(exe)
        o["cache"]["zones"][0]["present"] = True
        by = plans.place_zones([o], set())
        self.assertEqual((by["shared"], by["private"], by["declared"]), (4, 1, 0))
        # private first (the helper says private even where cached): the
        # cache is not used.
        o = self.obj(exe)
        o["zones"][0]["backing_cached"] = "private"
        by = plans.place_zones([o], {plans.file_id(exe)})
        self.assertEqual((by["shared"], by["private"]), (0, 5))

    def test_pool_line_counts_the_cache_once(self):
        import io
        import contextlib
        r = {"program": "/bin/x", "mode": "ldso-command",
             "settings": {"libs": "x", "segments": "text,rodata,relro",
                          "backing": "shared,private,thp", "from_file": {}},
             "objects": [], "skipped": [], "pages_per_process": 1,
             "copies": 4, "pages_needed": 4, "pages_in_cache": 15,
             "pages_declared": 11, "pages_thp": 0, "pages_ordinary": 0,
             "cache_conf": "/etc/hugeld.conf", "pages_to_reserve": 15,
             "pool": None}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            plan.print_plan(r, False)
        self.assertIn("pool for 4 processes: nr_hugepages >= 19 (38 MiB): 1 per "
                      "process x 4, plus the shared cache's 15 once, not per "
                      "process (4 in it already; 11 declared in /etc/hugeld.conf, "
                      "which hugeld cache sync adds)\n", out.getvalue())

    def test_settings_line(self):
        # What status says of a process's settings, from its Settings.
        ro = dict

        def make(**kw):
            d = dict(libs="libA.so", segments=None, backing=None,
                     sources=ro(libs="/etc/hugeld.conf line 8",
                                segments="default", backing="default"),
                     from_file=ro(libs="/etc/hugeld.conf line 8",
                                  program="/etc/hugeld.conf line 7"),
                     policy=ro(file="/etc/hugeld.conf", why=None,
                               program="/etc/hugeld.conf line 7", lines={}),
                     origin=ro(libs="file", segments="default",
                               backing="default"),
                     effective=ro(libs="libA.so",
                                  segments="text,rodata,relro",
                                  backing="shared,private,thp"),
                     bad=frozenset(), locked=frozenset(),
                     ignored=frozenset(), secure=False)
            d.update(kw)
            return settings.Settings(**d)
        self.assertEqual(make().line(),
                         "libs libA.so (/etc/hugeld.conf line 8); segments "
                         "text,rodata,relro (ld.so's default); backing "
                         "shared,private,thp (ld.so's default); the program "
                         "block at /etc/hugeld.conf line 7")
        s = make(libs=None, segments="txt", from_file={},
                 sources=ro(libs="default", segments="GLIBC_TUNABLES",
                            backing="glibc.elf.hugepage.backing "
                            "(/etc/tunables.conf)"),
                 origin=ro(libs="default", segments="tunable",
                           backing="system"),
                 effective=ro(libs=None, segments="text,rodata,relro",
                              backing="thp"),
                 bad=frozenset(["segments"]), locked=frozenset(["backing"]),
                 ignored=frozenset(["backing"]),
                 policy=ro(file="/etc/hugeld.conf", program=None, lines={},
                           why="ignored by ld.so: not owned by root"))
        self.assertEqual(s.line(),
                         "libs none (nothing gives libs); segments "
                         "text,rodata,relro (GLIBC_TUNABLES=txt ignored: not "
                         "a list ld.so reads; the default); backing thp "
                         "(glibc.elf.hugepage.backing (/etc/tunables.conf), "
                         "nonoverridable; its variable is ignored); "
                         "/etc/hugeld.conf: ignored by ld.so: not owned by "
                         "root")

    def test_execfn(self):
        # The name the kernel ran this process by, from its own memory.
        name = procfs.execfn(os.getpid())
        self.assertTrue(name and os.path.basename(name).startswith("python"), name)


class OpenRule(unittest.TestCase):
    """openfile.open_regular, the rule for what root's hugeld opens
    (tests/t-trust-tool.sh plays the attacker)."""

    def test_open_regular(self):
        import errno
        import stat
        import tempfile
        opened, NotOpened = openfile.open_regular, openfile.NotOpened
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o755)
            lib = os.path.join(d, "lib")
            os.mkdir(lib)
            os.chmod(lib, 0o755)
            f = os.path.join(lib, "libA.so.1")
            with open(f, "w") as out:
                out.write("x")
            os.chmod(f, 0o644)
            os.symlink("libA.so.1", os.path.join(lib, "libA.so"))
            os.mkdir(os.path.join(d, "sub"))
            os.symlink("../lib/./libA.so", os.path.join(d, "sub", "up.so"))
            os.symlink(lib, os.path.join(d, "alias"))
            os.mkfifo(os.path.join(d, "fifo"))
            os.symlink("/dev/null", os.path.join(d, "null"))
            os.symlink("loop", os.path.join(d, "loop"))
            real = os.path.realpath(f)
            for p in ("sub/up.so", "alias/libA.so", "alias/../lib/libA.so.1",
                      "sub/../sub/./up.so"):
                with opened(os.path.join(d, p)) as o:
                    self.assertEqual((o.real, o.dirs[-1][0], o.st.st_size),
                                     (real, os.path.dirname(real), 1))
                    self.assertEqual(os.read(o.fd, 10), b"x")
            for p, why in (
                    ("fifo", "not a regular file (a FIFO)"),
                    ("null", "not a regular file (a character device)"),
                    ("lib", "not a regular file (a directory)"),
                    ("loop", os.strerror(errno.ELOOP)),
                    ("nothing", os.strerror(errno.ENOENT)),
                    ("alias/libA.so.1/x", os.strerror(errno.ENOTDIR))):
                for trusted in (True, False):
                    with self.assertRaises(NotOpened) as cm:
                        opened(os.path.join(d, p), trusted)
                    self.assertEqual(str(cm.exception), why)
            # Others could not read it through its path.
            with opened(f) as o:
                searchable = all(st.st_mode & stat.S_IXOTH
                                 for _, st in o.dirs)
            if searchable:
                os.chmod(f, 0o600)
                with opened(f) as o:
                    self.assertEqual(openfile.hidden_by(o), "not readable by "
                                     "others (mode 0600)")
                os.chmod(f, 0o644)
                os.chmod(lib, 0o711)
                with opened(os.path.join(d, "sub/up.so")) as o:
                    self.assertIsNone(openfile.hidden_by(o))
                os.chmod(lib, 0o700)
                with opened(os.path.join(d, "sub/up.so")) as o:
                    self.assertEqual(openfile.hidden_by(o), "its directory %s "
                                     "is not searchable by others (mode "
                                     "0700)" % os.path.dirname(real))
                os.chmod(lib, 0o755)
            # Another user's link: not followed, unless it is ours.
            if os.geteuid() == 0:
                os.lchown(os.path.join(d, "alias"), 1, -1)
                with self.assertRaises(NotOpened) as cm:
                    opened(os.path.join(d, "alias/libA.so"))
                self.assertRegex(str(cm.exception), r"^not followed: the "
                                 r"symbolic link .*/alias is owned by \S+ "
                                 r"\(uid 1\), not by root$")
                with opened(os.path.join(d, "alias/libA.so"), False) as o:
                    self.assertEqual(o.st.st_size, 1)


if __name__ == "__main__":
    unittest.main()
