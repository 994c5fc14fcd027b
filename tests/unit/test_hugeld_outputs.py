# Unit tests of what root's hugeld writes (issue 50): replace_file and
# the directory it writes in (openfile.open_dir), the Prometheus label
# values of names of any bytes, and the values enable puts in a unit
# file.  The attackers themselves (another user's directory, a swapped
# link, a process named with such bytes) are played in tests/t-outputs.sh.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh with the other test_*.py (make check).

import os
import shutil
import stat
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "outputs"))

from hugeld import common, openfile, systemd  # noqa: E402
from hugeld.report import prometheus  # noqa: E402
from hugeld.report.records import EntryUse, Node, Object, Process, Range, Sharing  # noqa: E402
import promcheck  # noqa: E402


class ReplaceFile(unittest.TestCase):
    """replace_file: the whole file or nothing, never a temporary file
    left, whatever goes wrong."""

    def setUp(self):
        self.d = tempfile.mkdtemp()
        os.chmod(self.d, 0o755)
        self.path = os.path.join(self.d, "f.prom")
        with open(self.path, "w") as f:
            f.write("old\n")

    def tearDown(self):
        shutil.rmtree(self.d)

    def left(self):
        return sorted(os.listdir(self.d))

    def test_writes(self):
        openfile.replace_file(self.path, "new \u00e9\n", sync=True)
        with open(self.path, "rb") as f:
            self.assertEqual(f.read(), "new \u00e9\n".encode())
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o644)
        self.assertEqual(self.left(), ["f.prom"])

    def test_not_utf8(self):
        # A byte surrogateescape kept: refused before anything is made.
        with self.assertRaises(common.Error) as e:
            openfile.replace_file(self.path, "x\udcff")
        self.assertIn("not UTF-8", str(e.exception))
        self.assertNotIn("\n", str(e.exception))
        self.assertEqual(self.left(), ["f.prom"])

    def check_failure(self, where, exc, raised):
        real = getattr(os, where)
        calls = []

        def fake(*a, **kw):
            # Only the calls replace_file makes in the directory.
            calls.append(a)
            raise exc
        with mock.patch.object(os, where, side_effect=fake):
            with self.assertRaises(raised):
                openfile.replace_file(self.path, "new\n")
        self.assertTrue(calls, where)
        self.assertEqual(self.left(), ["f.prom"], (where, exc))
        with open(self.path) as f:
            self.assertEqual(f.read(), "old\n")
        self.assertIs(getattr(os, where), real)

    def test_every_error_path(self):
        for where in ("write", "fchmod", "rename"):
            for exc, raised in ((OSError(28, "No space left on device"),
                                 common.Error),
                                (KeyboardInterrupt(), KeyboardInterrupt),
                                (MemoryError(), MemoryError),
                                (UnicodeEncodeError("utf-8", "x", 0, 1, "x"),
                                 UnicodeEncodeError)):
                self.check_failure(where, exc, raised)

    def test_fsync(self):
        with mock.patch.object(os, "fsync", side_effect=KeyboardInterrupt):
            with self.assertRaises(KeyboardInterrupt):
                openfile.replace_file(self.path, "new\n", sync=True)
        self.assertEqual(self.left(), ["f.prom"])

    def test_interrupted_open(self):
        # The interrupt raised as the open returns: the file was made,
        # and no descriptor came back.
        real = os.open

        def fake(name, flags, mode=0o777, *, dir_fd=None):
            if flags & os.O_CREAT:
                os.close(real(name, flags, mode, dir_fd=dir_fd))
                raise KeyboardInterrupt
            return real(name, flags, mode, dir_fd=dir_fd)
        with mock.patch.object(os, "open", side_effect=fake):
            with self.assertRaises(KeyboardInterrupt):
                openfile.replace_file(self.path, "new\n")
        self.assertEqual(self.left(), ["f.prom"])

    def test_error_is_one_line(self):
        with mock.patch.object(os, "rename",
                               side_effect=OSError(28, "No space left")):
            with self.assertRaises(common.Error) as e:
                openfile.replace_file(self.path, "new\n")
        self.assertEqual(str(e.exception),
                         "cannot write %s: No space left" % self.path)

    def test_not_a_file_name(self):
        for p in (self.d + "/", self.d + "/.", self.d + "/.."):
            with self.assertRaises(common.Error):
                openfile.replace_file(p, "x")

    def test_directory_rules(self):
        sub = os.path.join(self.d, "sub")
        os.mkdir(sub)
        for mode, sticky, ok in ((0o755, False, True), (0o775, False, False),
                                 (0o777, False, False), (0o1777, False, False),
                                 (0o1777, True, True), (0o777, True, False),
                                 (0o700, False, True)):
            os.chmod(sub, mode)
            p = os.path.join(sub, "x")
            try:
                openfile.replace_file(p, "x", sticky=sticky)
                got = True
            except common.Error as e:
                got = False
                self.assertIn("writable by", str(e))
            self.assertEqual(got, ok, (oct(mode), sticky))
            self.assertEqual(os.path.exists(p), ok, (oct(mode), sticky))
            if ok:
                os.unlink(p)

    def test_own_link_followed(self):
        # A link of the caller's (or root's) to a directory is followed.
        os.mkdir(os.path.join(self.d, "real"), 0o755)
        os.symlink("real", os.path.join(self.d, "link"))
        openfile.replace_file(os.path.join(self.d, "link", "x"), "x")
        self.assertTrue(os.path.isfile(os.path.join(self.d, "real", "x")))

    def test_others_link_and_directory(self):
        if os.geteuid() != 0:
            self.skipTest("needs root (another user's link and directory)")
        other = 65534
        os.mkdir(os.path.join(self.d, "real"), 0o755)
        os.symlink("real", os.path.join(self.d, "link"))
        os.lchown(os.path.join(self.d, "link"), other, other)
        with self.assertRaises(common.Error) as e:
            openfile.replace_file(os.path.join(self.d, "link", "x"), "x")
        self.assertIn("not followed: the symbolic link", str(e.exception))
        os.chown(os.path.join(self.d, "real"), other, other)
        with self.assertRaises(common.Error) as e:
            openfile.replace_file(os.path.join(self.d, "real", "x"), "x")
        self.assertIn("is owned by", str(e.exception))
        self.assertEqual(os.listdir(os.path.join(self.d, "real")), [])


class OpenDir(unittest.TestCase):
    """open_dir: the walk of open_regular, every component a directory."""

    def test_paths(self):
        with openfile.open_dir("/") as d:
            self.assertEqual(d.real, "/")
        d = tempfile.mkdtemp()
        try:
            os.chmod(d, 0o755)
            os.mkdir(os.path.join(d, "a"), 0o755)
            for p in (d, d + "/", d + "/a/..", d + "//a/./"):
                with openfile.open_dir(p) as o:
                    self.assertTrue(stat.S_ISDIR(o.st.st_mode))
            with open(os.path.join(d, "f"), "w"):
                pass
            for p, why in ((d + "/f", os.strerror(20)),
                           (d + "/none", os.strerror(2))):
                with self.assertRaises(openfile.NotOpened) as e:
                    openfile.open_dir(p)
                self.assertEqual(str(e.exception), why)
        finally:
            shutil.rmtree(d)


class PrometheusLabels(unittest.TestCase):
    """Label values of names of any bytes: always UTF-8, no control
    character, only the format's own escapes, and the value a reader
    gets back is the name as hugeld shows it on a terminal."""

    def names(self):
        for b in range(256):
            yield bytes([b]).decode("utf-8", "surrogateescape")
        yield b"\xff\xfe\r\n\x1b[2J\xc2\x85".decode("utf-8", "surrogateescape")
        yield '\\x41"\\\\\n'
        for c in "\u2028\u2029\u202e\u200f\ufeff\U0001f600\u00e9":
            yield "a" + c + "b"

    def test_every_byte(self):
        for name in self.names():
            v = prometheus.label(name)
            v.encode("utf-8")
            got, end = promcheck.label_value(v + '"', 0)
            self.assertEqual(end, len(v) + 1)
            self.assertEqual(got, common.shown(name), repr(name))
            for c in got:
                self.assertGreaterEqual(ord(c), 0x20, repr(name))

    def test_whole_text(self):
        procs = []
        for i, name in enumerate(self.names()):
            procs.append(Process(
                pid=i + 1, command=name, ldso_command=False, program=None,
                pages=1, thp_kb=0, other_ranges=[], objects=[Object(
                    path="/l/" + name, ranges=[
                        Range(backing="private", pages_in_use=1)])]))
        res = Node(pool=None, processes=procs, shared_pages=0,
                   unreadable=0, cache=None, node=Sharing(
                       entries=[EntryUse(file="/l/\udcff\n", path="/c",
                                         state="current", pages=1,
                                         processes=0)],
                       saved_pages=0, idle_pages=0))
        samples = promcheck.check(prometheus.text(res).encode("utf-8"))
        got = {s[1]["pid"]: s[1]["command"] for s in samples
               if s[0] == "hugeld_process_huge_pages"}
        for i, name in enumerate(self.names()):
            self.assertEqual(got[str(i + 1)], common.shown(name))


class UnitValues(unittest.TestCase):
    """enable: what a unit file cannot hold is refused, whichever value
    holds it; everything else is quoted."""

    BAD = ["\t", "\r", "\n", "\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9b",
           "\u2028", "\u2029", "\udcff", "\udc80"]

    def test_refused(self):
        for c in self.BAD:
            with self.assertRaises(common.Error) as e:
                systemd.unit_value("--libs", "a" + c + "ExecStartPre=/x")
            self.assertNotIn("\n", str(e.exception))
            self.assertIn("which a unit file cannot hold", str(e.exception))
            for args in (("/opt/ld" + c, "/l", []),
                         ("/opt/ld", "/l" + c, []),
                         ("/opt/ld", "/l", [("LD_HUGEPAGE_LIBS", "x" + c)])):
                with self.assertRaises(common.Error):
                    systemd.dropin_text(*args)

    def test_kept(self):
        for v in ('lib%d "q" it\'s a\\b c.so*', "caf\u00e9", "\U0001f600"):
            self.assertEqual(systemd.unit_value("--libs", v), v)
        text = systemd.dropin_text("/opt/my ld %n.so", "/l",
                                   [("LD_HUGEPAGE_LIBS", 'a%b "c"\\')])
        self.assertEqual(text.split("\n")[2:4], [
            'Environment="LD_HUGEPAGE_LIBS=a%%b \\"c\\"\\\\"',
            'BindReadOnlyPaths="/opt/my ld %%n.so":/l'])


if __name__ == "__main__":
    unittest.main()
