# Unit tests of the hugeld command (tools/hugeld), stdlib unittest.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh (make check):
#   python3 -m unittest discover -s tests/unit -p 'test_*.py'

import io
import os
import re
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import common, elf, helpers, planner, pool  # noqa: E402
from hugeld.cache import entry, mount  # noqa: E402
from hugeld.commands import thp  # noqa: E402
from hugeld.report import collect  # noqa: E402

MAN = os.path.join(TOP, "tools", "hugeld.1")


class Helpers(unittest.TestCase):

    def test_shown(self):
        # What another process controls reaches the terminal escaped
        # (issue 43): no line forged, none overwritten, no sequence run.
        for raw, want in (
                ("/usr/lib/libc.so.6", "/usr/lib/libc.so.6"),
                ("\x1b[1A\x1b[2K\r  loader: x (hugeld)\nforged",
                 "\\x1b[1A\\x1b[2K\\r  loader: x (hugeld)\\nforged"),
                ("a\tb\x7f\x00", "a\\tb\\x7f\\x00"),
                ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
                ("\u009b2J", "\\x9b2J"),                  # C1 CSI
                ("x\u202eevil", "x\\u202eevil"),          # RTL override
                ("a\u2028b", "a\\u2028b"),                # line separator
                (b"lib\xff.so".decode("utf-8", "surrogateescape"),
                 "lib\\xff.so")):
            self.assertEqual(common.shown(raw), want, msg=repr(raw))
        self.assertEqual(common.shown("a\nb\x1b", keep="\n"), "a\nb\\x1b")
        self.assertEqual(common.shown(None), "None")

    def test_thp_lines_escaped(self):
        # hugeld thp's lines name files a process mapped: escaped.
        bad = "/tmp/x\x1b[2K\rlib.so"
        r = {"file": bad, "ranges": 2, "huge": 1, "repaired": 0,
             "collapsed": 0, "small": 1, "held": 1, "not_cached": 0,
             "failed": 0, "why": "a\x1b]0;t\x07"}
        reasons = {"held": "another\x1b[1m process"}
        for line in (thp.describe(r, reasons),
                     thp.describe({"file": bad, "error": "x\ny"}, reasons),
                     thp.describe(dict(r, ranges=0), reasons),
                     thp.describe(dict(r, pid=3), reasons)):
            self.assertFalse(re.search(r"[\x00-\x1f\x7f]", line), line)
            self.assertIn("\\x1b[2K\\r", line)

    def test_escaped_stream(self):
        # The guard under the commands: every control character but a
        # newline escaped; JSON, which is ASCII already, unchanged.
        buf = io.StringIO()
        out = common.EscapedStream(buf)
        print("a\x1b[2Jb\rc", file=out)
        print('{"x": "\\u001b"}', file=out)
        self.assertEqual(buf.getvalue(), 'a\\x1b[2Jb\\rc\n{"x": "\\u001b"}\n')

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
            return helpers.path(helpers.PLAN)
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
        self.assertEqual(collect.kind_in(plan, 0, 8 * M), "rodata")
        self.assertEqual(collect.kind_in(plan, 0x1000000, 0x1200000), "rodata")
        self.assertEqual(collect.kind_in(plan, 0x1200000, 0x1800000), "text")
        self.assertEqual(collect.kind_in(plan, 0x2a00000, 0x2c00000), "data+bss")
        self.assertEqual(collect.kind_in(plan, 0x1800000, 0x1a00000), "?")
        self.assertEqual(collect.kind_in(None, 0, M), "?")
        self.assertEqual(collect.kind_in({"layout": []}, 0, M), "?")

    def test_parse_backing(self):
        # LD_HUGEPAGE_BACKING as ld.so reads it, parsed by the helper
        # (the C cases are in tests/unit/test-cache.c): the list comes
        # back, and what ld.so would ignore is refused.
        self.assertEqual(planner.parse_backing("thp,,private,thp"),
                         ["thp", "private"])
        for bad, why in (("shared,huge", "unknown backing"), (",", "selects nothing"),
                         ("", "empty list")):
            with self.assertRaisesRegex(common.Error, why, msg=bad):
                planner.parse_backing(bad)

    def test_defaults_are_the_loaders(self):
        self.assertEqual(planner.default_setting("segments"), "text,rodata,relro")
        self.assertEqual(planner.default_setting("backing"), "shared,private,thp")

    def test_paths_and_backings_are_the_loaders(self):
        # What ld.so has compiled in (elf/dl-hugepage-conf.h,
        # dl-hugepage-cache.h and dl-hugepage-place.h), as hugeld-plan
        # --settings says it.
        defines = {}
        for h in ("dl-hugepage-conf.h", "dl-hugepage-cache.h",
                  "dl-hugepage-place.h"):
            with open(os.path.join(TOP, "elf", h)) as f:
                defines.update(re.findall(r'^#define (HP_\w+) "([^"]*)"$',
                                          f.read(), re.M))
        self.assertEqual(planner.conf_file(), defines["HP_CONF_FILE"])
        self.assertEqual(planner.cache_dir(), defines["HP_CACHE_DIR"])
        self.assertEqual(planner.synced_name(), defines["HP_CACHE_SYNCED"])
        self.assertEqual(planner.mount_dir(),
                         os.path.dirname(defines["HP_CACHE_DIR"]))
        self.assertEqual(planner.backing_names(), ("shared", "private", "thp"))

    def test_pool_line(self):
        p = {"total": 20, "free": 10, "reserved": 2, "surplus": 0,
             "in_use": 10, "available": 8, "nodes": []}
        line = pool.pool_line(p)
        self.assertTrue(line.startswith("HugePages_Total 20, Free 10"), line)

    def test_cgroup_none(self):
        # ld.so's walk, run by the helper (tests/unit/test-cache.c has
        # its cases): this process's cgroup, then one that is not there.
        cg = pool.hugetlb_cgroup_none()
        self.assertTrue(cg is None or set(cg) == {"file", "value"}, cg)
        self.assertIsNone(pool.hugetlb_cgroup_none(999999999))


class CacheStates(unittest.TestCase):
    """`hugeld cache list': the state of an entry from what scan found
    and the helper's plan of its source file."""

    INODE, VERSION = "fe00-54298a", "2bed548-6b0476fb.4dd9639-6b047872.17550aac-512a"
    ZONES = [{"name": "text-0-200000-1600000", "size": 20 << 20},
             {"name": "rodata-0-1800000-1e00000", "size": 6 << 20}]

    def entry(self, name=None, source="/lib/libbig.so", zones=None, why=None,
              inode=INODE):
        e = entry.Entry(inode, name or self.VERSION)
        e.source = source
        for z in self.ZONES if zones is None else zones:
            e.zones[z["name"]] = (z["size"], z["size"])
        e.why = why
        e.devices = {"dev-fe00"}
        return e

    def plan(self, inode=INODE, version=VERSION, zones=None, device="dev-fe00",
             overlay=False):
        return {"cache": {"inode": inode, "version": version,
                          "device": device, "overlay": overlay,
                          "zones": self.ZONES if zones is None else zones}}

    def test_states(self):
        state = entry.entry_state
        self.assertEqual(state(self.entry(), self.plan()), "current")
        self.assertEqual(state(self.entry(), self.plan(version="2bed548-1")),
                         "stale: file changed")
        # Another file now at the source path (an upgrade renamed a new
        # one over it): another inode.
        self.assertEqual(state(self.entry(), self.plan(inode="fe00-1")),
                         "stale: file changed")
        self.assertEqual(state(self.entry(zones=self.ZONES[:1]), self.plan()),
                         "stale: zones differ (made by another hugeld)")
        # The same identity on another file system: not this file's
        # entry, unless ld.so compares (overlayfs).
        self.assertEqual(state(self.entry(), self.plan(device="dev-701")),
                         "stale: made from a file on another file system, "
                         "or by an older hugeld")
        self.assertEqual(state(self.entry(),
                               self.plan(device="dev-2a", overlay=True)),
                         "current")
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
        self.assertEqual(entry.KEEP, ("current", "being added"))

    def test_entry_pages_and_kinds(self):
        e = self.entry()
        e.zones["text-0-2000000-2400000"] = (4 << 20, 2 << 20)   # Half allocated.
        self.assertEqual(e.pages, 14)
        self.assertEqual(list(e.kinds().items()), [("text", 12), ("rodata", 3)])
        self.assertEqual(e.path, "%s/%s/%s" % (planner.cache_dir(), self.INODE,
                                               self.VERSION))
        self.assertEqual(entry.tmp_pid(".tmp-x-y-4242"), 4242)
        self.assertIsNone(entry.tmp_pid(".tmp-x-y"))

    def test_mount_type(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".mountinfo") as f:
            f.write("22 1 0:21 / /proc rw - proc proc rw\n"
                    "42 24 0:39 / /dev/hugepages rw,relatime - hugetlbfs none rw,pagesize=2M\n"
                    "43 24 0:40 / /dev/hugepages rw - tmpfs none rw\n"
                    "44 24 0:41 / /mnt/with\\040space rw - hugetlbfs none rw\n")
            f.flush()
            self.assertEqual(mount.mount_type("/dev/hugepages", f.name), "tmpfs")
            self.assertEqual(mount.mount_type("/mnt/with space", f.name), "hugetlbfs")
            self.assertIsNone(mount.mount_type("/dev/shm", f.name))

    def test_source_round_trip(self):
        # The source path is kept as directories (hugetlbfs has no
        # symbolic links): any directory will do for the test.
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
            try:
                p = "/usr/lib/x86_64-linux-gnu/lib with space.so.1"
                entry.write_source(fd, p)
                self.assertEqual(entry.read_source(fd), p)
                os.mkdir(os.path.join(d, "source", "usr", "other"))
                self.assertIsNone(entry.read_source(fd))
            finally:
                os.close(fd)


if __name__ == "__main__":
    unittest.main()


class CacheZones(unittest.TestCase):
    """An entry is current only if it holds exactly the zones the helper
    plans: one with text that the helper now leaves out (made by an
    older hugeld: ld.so would serve it, and a program that maps its own
    code again would die) is stale, so that sync and prune replace it."""

    PLAN = {"zones": [{"name": "rodata-0-400000-a00000", "size": 6 << 20}],
            "notext": {"marker": "no-text"}}

    def test_same(self):
        self.assertTrue(entry.same_zones(
            {"rodata-0-400000-a00000": (6 << 20, 0)}, True, self.PLAN))

    def test_text_too_many(self):
        self.assertFalse(entry.same_zones(
            {"rodata-0-400000-a00000": (6 << 20, 0),
             "text-0-c00000-2400000": (24 << 20, 0)}, False, self.PLAN))

    def test_marker_missing(self):
        self.assertFalse(entry.same_zones(
            {"rodata-0-400000-a00000": (6 << 20, 0)}, False, self.PLAN))

    def test_size_differs(self):
        self.assertFalse(entry.same_zones(
            {"rodata-0-400000-a00000": (4 << 20, 0)}, True, self.PLAN))

    def test_no_marker_wanted(self):
        plan = dict(self.PLAN, notext=None)
        self.assertTrue(entry.same_zones(
            {"rodata-0-400000-a00000": (6 << 20, 0)}, False, plan))
