# The rule for opening a file that other users may name, stdlib unittest.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh (make check), as root (it makes FIFOs,
# device nodes and other users' links; skipped otherwise):
#   python3 -m unittest discover -s tests/unit -p 'test_*.py'
#
# The rule is written twice: in C for the helpers (hugeld_open_regular
# in tools/hugeld-open.c, run here as `hugeld-plan [--strict-links]
# FILE', which is how the helpers' callers reach it) and in Python for
# the command (open_regular in tools/hugeld/openfile.py, which hands
# back the descriptor, the real path and its directories that the
# cache needs; a helper process cannot hand those back).  Both run on
# one table of cases, with strict links and without, as root and as
# nobody (the other user being daemon), and must give the same answer:
# opened, or refused in the same words; and the answer must be the
# table's.

import errno
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(TOP, "tools")
sys.path.insert(0, TOOLS)

from hugeld.common import Error  # noqa: E402
from hugeld.helpers import PLAN, path as helper_path  # noqa: E402

# The command's interpreter (tools/Makefile's PYTHON), which every
# user can run.
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) \
    else sys.executable

# open_regular on each [path, strict] read from stdin as JSON: null
# (opened) or why not.  A process of its own, to run as another user.
DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from hugeld.openfile import NotOpened, open_regular
out = []
for path, strict in json.load(sys.stdin):
    try:
        open_regular(path, trusted_links=strict).close()
        out.append(None)
    except NotOpened as e:
        out.append(str(e))
json.dump(out, sys.stdout)
"""

# The answer, as a class: "open"; the kind of a file that is not
# regular; "link" (another user's symbolic link, not followed); or the
# errno's name.
KINDS = {"a FIFO": "fifo", "a character device": "chr", "a socket": "sock",
         "a directory": "dir", "a block device": "blk"}
ERRNOS = {os.strerror(e): name for e, name in errno.errorcode.items()}


def answer_class(why):
    if why is None:
        return "open"
    if why.startswith("not a regular file (") and why.endswith(")"):
        return KINDS.get(why[len("not a regular file ("):-1], why)
    if why.startswith("not followed: the symbolic link "):
        return "link"
    return ERRNOS.get(why, why)


def protected_symlinks():
    try:
        with open("/proc/sys/fs/protected_symlinks") as f:
            return int(f.read()) != 0
    except (OSError, ValueError):
        return False


def cases(t):
    """(what, path, expected) where expected is the class for strict
    links as root, as nobody, then for followed links as root, as
    nobody.  Paths are absolute in T, but for the relative ones (run
    in T)."""
    # The kernel's own rule for links in a sticky world-writable
    # directory (fs.protected_symlinks), for the followed links.
    p = "EACCES" if protected_symlinks() else "open"
    all4 = lambda c: (c, c, c, c)  # noqa: E731
    return [
        ("root's regular file", t + "/lib.so", all4("open")),
        ("another user's regular file", t + "/daemon.so", all4("open")),
        ("a FIFO", t + "/fifo", all4("fifo")),
        ("a character device node", t + "/null", all4("chr")),
        ("a socket", t + "/sock", all4("sock")),
        ("a directory", t + "/dir", all4("dir")),
        ("a directory, with a slash", t + "/dir/", all4("dir")),
        ("a missing file", t + "/missing", all4("ENOENT")),
        ("a file in a missing directory", t + "/nodir/lib.so",
         all4("ENOENT")),
        ("a regular file as a directory", t + "/lib.so/x", all4("ENOTDIR")),
        ("the empty path", "", all4("ENOENT")),
        ("a link loop", t + "/loop1", all4("ELOOP")),
        ("root's link to root's file", t + "/rootlink", all4("open")),
        ("root's relative link to root's file", t + "/rootrel",
         all4("open")),
        ("root's link to a device", t + "/devlink", all4("chr")),
        ("another user's link, in a sticky world-writable directory",
         t + "/sticky/daemon-link", ("link", "link", p, p)),
        ("nobody's link, in a sticky world-writable directory",
         t + "/sticky/nobody-link", ("link", "open", p, "open")),
        ("another user's link, in that user's directory",
         t + "/daemondir/link", ("link", "link", "open", "open")),
        ("another user's link, by a relative path", "daemondir/link",
         ("link", "link", "open", "open")),
        ("another user's link, by a path with ..",
         "dir/../daemondir/link", ("link", "link", "open", "open")),
        ("root's link to another user's link", t + "/viaroot",
         ("link", "link", "open", "open")),
        ("another user's link in the middle of the path",
         t + "/daemondir/dirlink/lib.so", ("link", "link", "open", "open")),
        ("root's link into another user's 0700 directory",
         t + "/tosecret", ("open", "EACCES", "open", "EACCES")),
        ("a file in another user's 0700 directory",
         t + "/secret/lib.so", ("open", "EACCES", "open", "EACCES")),
    ]


@unittest.skipUnless(os.geteuid() == 0, "needs root (device nodes, other "
                     "users' links)")
class OpenRuleInCAndPython(unittest.TestCase):
    """C's hugeld_open_regular and Python's open_regular agree."""

    @classmethod
    def setUpClass(cls):
        try:
            cls.plan = helper_path(PLAN)
        except Error as e:
            raise unittest.SkipTest(str(e))
        cls.other = pwd.getpwnam("daemon")
        cls.nobody = pwd.getpwnam("nobody")
        cls.t = t = tempfile.mkdtemp(prefix="hugeld-openrule.")
        cls.sockets = []
        try:
            cls.make_tree(t)
        except BaseException:
            shutil.rmtree(t)
            raise

    @classmethod
    def make_tree(cls, t):
        os.chmod(t, 0o755)
        other, nobody = cls.other, cls.nobody
        elf = os.path.realpath("/bin/true")
        # A real ELF file: the helper reads its program headers after
        # opening it.
        shutil.copy(elf, t + "/lib.so")
        shutil.copy(elf, t + "/daemon.so")
        os.chown(t + "/daemon.so", other.pw_uid, other.pw_gid)
        os.mkfifo(t + "/fifo", 0o666)
        os.mknod(t + "/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        s = socket.socket(socket.AF_UNIX)
        s.bind(t + "/sock")
        cls.sockets.append(s)
        os.mkdir(t + "/dir", 0o755)
        os.symlink("loop2", t + "/loop1")
        os.symlink("loop1", t + "/loop2")
        os.symlink(t + "/lib.so", t + "/rootlink")
        os.symlink("dir/../lib.so", t + "/rootrel")
        os.symlink("/dev/null", t + "/devlink")
        os.mkdir(t + "/sticky")
        os.chmod(t + "/sticky", 0o1777)
        for name, user in (("daemon-link", other), ("nobody-link", nobody)):
            os.symlink(t + "/lib.so", t + "/sticky/" + name)
            os.lchown(t + "/sticky/" + name, user.pw_uid, user.pw_gid)
        os.mkdir(t + "/daemondir", 0o755)
        os.symlink(t + "/lib.so", t + "/daemondir/link")
        os.symlink(t + "/dir", t + "/daemondir/dirlink")
        shutil.copy(elf, t + "/dir/lib.so")
        for f in ("", "/link", "/dirlink"):
            os.lchown(t + "/daemondir" + f, other.pw_uid, other.pw_gid)
        os.symlink("daemondir/link", t + "/viaroot")
        os.mkdir(t + "/secret", 0o700)
        shutil.copy(elf, t + "/secret/lib.so")
        os.chmod(t + "/secret/lib.so", 0o644)
        for f in ("", "/lib.so"):
            os.chown(t + "/secret" + f, other.pw_uid, other.pw_gid)
        os.symlink(t + "/secret/lib.so", t + "/tosecret")

    @classmethod
    def tearDownClass(cls):
        for s in cls.sockets:
            s.close()
        shutil.rmtree(cls.t)

    def as_user(self, user):
        if user is None:
            return {}
        return {"user": user.pw_uid, "group": user.pw_gid,
                "extra_groups": []}

    def python_answers(self, todo, user):
        r = subprocess.run([PYTHON, "-c", DRIVER, TOOLS],
                           input=json.dumps(todo), capture_output=True,
                           text=True, cwd=self.t, timeout=60,
                           **self.as_user(user))
        if r.returncode != 0:
            if user is not None and "PermissionError" in r.stderr:
                self.skipTest("%s cannot read %s" % (user.pw_name, TOOLS))
            self.fail("openfile.py's driver: %s" % r.stderr.strip())
        return json.loads(r.stdout)

    def c_answer(self, path, strict, user):
        """hugeld-plan's answer: None (opened, and planned) or why not,
        from its message `hugeld-plan: PATH: WHY'."""
        argv = [self.plan] + (["--strict-links"] if strict else []) + [path]
        r = subprocess.run(argv, capture_output=True, text=True,
                           cwd=self.t, timeout=20, **self.as_user(user))
        if r.returncode == 0:
            return None
        head = "hugeld-plan: %s: " % path
        lines = r.stderr.splitlines()
        if r.returncode != 1 or len(lines) != 1 \
           or not lines[0].startswith(head):
            self.fail("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                           r.stderr.strip()))
        return lines[0][len(head):]

    def check(self, user):
        table = cases(self.t)
        col = 0 if user is None else 1
        for strict, off in ((True, 0), (False, 2)):
            todo = [[path, strict] for _, path, _ in table]
            py = self.python_answers(todo, user)
            for (what, path, want), py_why in zip(table, py):
                with self.subTest(what=what, strict_links=strict):
                    c_why = self.c_answer(path, strict, user)
                    self.assertEqual(
                        py_why, c_why, "%s (%s): Python and C answer "
                        "differently" % (what, path or '""'))
                    self.assertEqual(answer_class(c_why), want[off + col],
                                     "%s (%s): %s" % (what, path or '""',
                                                      c_why or "opened"))

    def test_as_root(self):
        """The open rule, C and Python: the same answers, as root."""
        self.check(None)

    def test_as_nobody(self):
        """The open rule, C and Python: the same answers, as nobody."""
        self.check(self.nobody)


if __name__ == "__main__":
    unittest.main()
