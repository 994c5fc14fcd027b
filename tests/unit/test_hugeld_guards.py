# Unit tests of what hugeld status reads of a process's guards
# (tools/hugeld/guards.py): RestrictFileSystems= values, the unit of a
# cgroup, AppArmor labels, on files made here (the live guards are
# checked by tests/t-guards.sh and make check-boot).
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh (make check).

import os
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import guards  # noqa: E402


class RestrictFileSystems(unittest.TestCase):
    def test_allow_and_deny_lists(self):
        # An allow list keeps out what it does not name; a deny list
        # (~) what it names; nothing set keeps out nothing.
        self.assertTrue(guards.denies_hugetlbfs("ext4 tmpfs proc sysfs"))
        self.assertTrue(guards.denies_hugetlbfs(
            "@basic-api @common-block @temporary"))
        self.assertFalse(guards.denies_hugetlbfs("ext4 hugetlbfs tmpfs"))
        self.assertTrue(guards.denies_hugetlbfs("~hugetlbfs"))
        self.assertTrue(guards.denies_hugetlbfs("~ext4 hugetlbfs"))
        self.assertFalse(guards.denies_hugetlbfs("~ext4 tmpfs"))
        self.assertFalse(guards.denies_hugetlbfs(""))
        self.assertFalse(guards.denies_hugetlbfs(None))


class ProcFiles(unittest.TestCase):
    """The /proc files, replaced by files of this test's."""

    def setUp(self):
        self.d = tempfile.TemporaryDirectory()
        self.files = {}
        real = open

        def fake_open(path, *a, **k):
            if path in self.files:
                return real(self.files[path], *a, **k)
            if str(path).startswith("/proc/4242/"):
                raise FileNotFoundError(path)
            return real(path, *a, **k)
        self.patch = mock.patch("builtins.open", fake_open)
        self.patch.start()

    def tearDown(self):
        self.patch.stop()
        self.d.cleanup()

    def put(self, path, text):
        name = os.path.join(self.d.name, str(len(self.files)))
        with open(name, "w") as f:
            f.write(text)
        self.files[path] = name

    def test_unit_of_cgroup(self):
        self.put("/proc/4242/cgroup", "0::/system.slice/hpaa.service\n")
        self.assertEqual(guards.systemd_unit(4242), "hpaa.service")
        self.put("/proc/4242/cgroup",
                 "0::/user.slice/user-0.slice/session-3.scope\n")
        self.assertEqual(guards.systemd_unit(4242), "session-3.scope")
        self.put("/proc/4242/cgroup", "0::/\n")
        self.assertIsNone(guards.systemd_unit(4242))

    def test_apparmor_label(self):
        self.put("/proc/4242/attr/apparmor/current", "hpaa (enforce)\n")
        self.assertEqual(guards.apparmor_label(4242, ["apparmor"]),
                         "hpaa (enforce)")
        self.put("/proc/4242/attr/apparmor/current", "unconfined\n")
        self.assertIsNone(guards.apparmor_label(4242, ["apparmor"]))

    def test_status_fields(self):
        self.put("/proc/4242/status",
                 "Name:\tx\nNoNewPrivs:\t1\nSeccomp:\t2\n")
        self.assertEqual(guards.status_fields(4242),
                         {"NoNewPrivs": 1, "Seccomp": 2})


if __name__ == "__main__":
    unittest.main()
