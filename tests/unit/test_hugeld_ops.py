# Unit tests of what the hugeld command tells an operator (issue 42):
# why a selected object has no huge page (status, check), the patterns
# that select nothing (run, plan, config check), the service drop-in
# (enable), and the Prometheus text of status --all.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh with the other test_*.py (make check).

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import common, helpers, planner, plans, systemd  # noqa: E402
from hugeld.report import diagnose, node, prometheus, records  # noqa: E402
from hugeld.report.records import EntryUse, Node, Object, Process, Range, Selected, Sharing, Text, Unserved  # noqa: E402

try:
    # Debian's python3-prometheus-client (scripts/deps.sh test).
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    text_string_to_metric_families = None


def text(size=0, incongruent=0):
    return Text(size=size, pmd=0, small=0, unmapped=size,
                incongruent=incongruent)


class Reasons(unittest.TestCase):
    """no_huge_pages_reason: one case per reason, each the first thing
    that holds in the order ld.so would have stopped at it; every line
    a fact or a condition, never the guess "pool empty when it was
    loaded?"."""

    POOL = {"available": 100, "free": 100}

    def st(self, **kw):
        st = dict(hugeld=True, backings=["shared", "private", "thp"],
                  thp_mode="madvise", hugetlb_cgroup_none=None,
                  cache_not_synced=False, seccomp_filter=False,
                  cache_unused=[], selected=[],
                  selected_without_huge_pages=[])
        st.update(kw)
        return Process(**st)

    def x(self, **kw):
        x = dict(path="/l/x.so", planned_pages=11, thp=False,
                 text=text(22 << 20), kernel_mapped=False,
                 cached_since_start=False)
        x.update(kw)
        return Unserved(**x)

    def reason(self, st, x, n=1, pool=POOL):
        lines = diagnose.no_huge_pages_reason(st, pool, x)
        self.assertEqual(len(lines), n, lines)
        for line in lines:
            self.assertNotIn("pool empty when it was loaded?", line)
        return "\n".join(lines)

    def test_no_whole_page(self):
        self.assertIn("none of its parts fills a whole 2 MiB page",
                      self.reason(self.st(), self.x(planned_pages=0)))

    def test_not_hugeld(self):
        self.assertIn("loader is not hugeld",
                      self.reason(self.st(hugeld=False), self.x()))

    def test_cached_since_start(self):
        self.assertIn("its entry was made after this process started",
                      self.reason(self.st(), self.x(cached_since_start=True)))

    def test_thp_kernel_placed(self):
        # The patchelf'd PIE with thp (issue 42): the kernel chose an
        # address off the file phase; neither the pool nor another
        # process has anything to do with it.
        r = self.reason(self.st(backings=["thp"]), self.x(
            text=text(0, 22 << 20), kernel_mapped=True))
        self.assertIn("not congruent to its file offset", r)
        self.assertIn("the kernel chose the program's address", r)
        self.assertNotIn("pool", r)

    def test_thp_placed_for_pages(self):
        # The pool's reason first, then thp's, the next backing.
        r = self.reason(self.st(backings=["private", "thp"]),
                        self.x(text=text(0, 22 << 20)), 2,
                        pool={"available": 100})
        self.assertIn("LD_DEBUG=hugepages", r.split("\n")[0])
        self.assertIn("then thp: its text is at an address not congruent",
                      r.split("\n")[1])
        self.assertIn("list thp first", r)

    def test_thp_off(self):
        self.assertIn("transparent huge pages are off", self.reason(
            self.st(backings=["thp"], thp_mode="never"), self.x()))

    def test_no_pool_backing(self):
        r = self.reason(self.st(backings=["shared", "thp"]), self.x())
        self.assertIn("takes nothing from the pool", r)
        self.assertIn("the shared cache has no entry for it", r)

    def test_cgroup(self):
        self.assertIn("hugetlb cgroup allows no huge page", self.reason(
            self.st(hugetlb_cgroup_none={"file": "f", "value": 0}),
            self.x()))

    def test_cache_not_synced(self):
        self.assertIn("no hugeld cache sync has run in this boot",
                      self.reason(self.st(cache_not_synced=True), self.x()))

    def test_pool_short_now(self):
        r = self.reason(self.st(), self.x(), pool={"available": 3})
        self.assertIn("the pool has 3 pages free now", r)
        self.assertIn("if it had none when the object was loaded", r)

    def test_seccomp(self):
        self.assertIn("if it refuses to make written memory executable",
                      self.reason(self.st(seccomp_filter=True), self.x()))

    def test_otherwise_the_report(self):
        self.assertIn("LD_DEBUG=hugepages", self.reason(self.st(), self.x()))

    def test_check_names_the_reason(self):
        sel = [Selected(path="/l/a.so", whole=11, huge=0),
               Selected(path="/l/b.so", whole=4, huge=4),
               Selected(path="/l/c.so", whole=35, huge=20)]
        st = self.st(selected=sel,
                     selected_without_huge_pages=[self.x(path="/l/a.so")])
        bad = diagnose.failures(st, self.POOL)
        self.assertEqual([p for p, _ in bad], ["/l/a.so", "/l/c.so"])
        self.assertIn("text on 0 of its 11 huge pages: its plan has 11 pages",
                      bad[0][1])
        self.assertIn("text on 20 of its 35 huge pages: the rest stayed on "
                      "ordinary pages", bad[1][1])


class PolicyState(unittest.TestCase):
    """status --all says when ld.so ignores the policy file."""

    def test_states(self):
        try:
            helpers.path(helpers.PLAN)
        except common.Error:
            self.skipTest("hugeld-plan not built (make -C tools)")
        if os.geteuid() != 0:
            self.skipTest("ld.so trusts a file of root's only")
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "hugeld.conf")
            self.assertEqual(node.policy_state(f).state, "absent")
            with open(f, "w") as out:
                out.write("libs x\n")
            os.chmod(f, 0o644)
            self.assertEqual(node.policy_state(f).state, "used")
            with open(f, "w") as out:
                out.write("libs x\nthis is not a line\n")
            st = node.policy_state(f)
            self.assertEqual(st.state, "ignored")
            self.assertIn("line 2", st.why)


class Patterns(unittest.TestCase):
    """The patterns that select nothing, from the helper's counts."""

    def test_unmatched_with_hints(self):
        docs = [{"patterns": [{"pattern": "libLVM*", "objects": 0},
                              {"pattern": "libc.so*", "objects": 1}]},
                {"patterns": [{"pattern": "libLVM*", "objects": 0},
                              {"pattern": "libc.so*", "objects": 0}]}]
        objs = [{"path": "/usr/lib/libLLVM-14.so.1",
                 "soname": "libLLVM-14.so.1"},
                {"path": "/usr/lib/libc.so.6", "soname": "libc.so.6"}]
        self.assertEqual(planner.unmatched_patterns(docs, objs),
                         [("libLVM*", ["libLLVM-14.so.1"])])

    def test_file_patterns_only_when_nothing_selected(self):
        # The policy file's libs serve every program: one that selects
        # nothing here is no mistake, unless none selects anything.
        r = {"objects": [{"selected": True}], "program": "/bin/x",
             "unmatched_patterns": [{"pattern": "libz*", "close": []}],
             "settings": {"from_file": {"libs": "f line 1"}}}
        self.assertEqual(plans.unmatched_messages(r), [])
        r["objects"][0]["selected"] = False
        self.assertEqual(len(plans.unmatched_messages(r)), 1)
        r["settings"]["from_file"] = {}
        r["objects"][0]["selected"] = True
        self.assertIn("pattern 'libz*' selects none of the 1 object /bin/x "
                      "loads", plans.unmatched_messages(r)[0])

    def test_spend_pool(self):
        # ld.so's order: text first, then as many whole pages as are left.
        o = {"selected": True, "path": "/l/b.so", "zones": [
            {"kind": "rodata", "pages": 6, "order": 1, "backing": "private"},
            {"kind": "text", "pages": 35, "order": 0, "backing": "private"},
            {"kind": "relro", "pages": 1, "order": 2, "backing": "private"}]}
        got = [(z["kind"], z["got"]) for z in plans.spend_pool([o], 40)]
        self.assertEqual(got, [("text", 35), ("rodata", 5), ("relro", 0)])
        got = [(z["kind"], z["got"]) for z in plans.spend_pool([o], 20)]
        self.assertEqual(got, [("text", 20), ("rodata", 0), ("relro", 0)])


class Service(unittest.TestCase):
    """hugeld enable: the drop-in that puts a unit on hugeld's loader."""

    CAT = """# /lib/systemd/system/mariadb.service
[Unit]
Description=MariaDB
[Service]
Type=notify
ExecStartPre=/usr/bin/install -m 755 -o mysql -g root -d /var/run/mysqld
ExecStart=/usr/sbin/mariadbd $MYSQLD_OPTS \\
  $_WSREP_NEW_CLUSTER $_WSREP_START_POSITION
ExecStartPost=/bin/sh -c "true"

# /etc/systemd/system/mariadb.systemd.d/hugeld.conf
[Service]
ExecStart=
ExecStart=/opt/hugeld/ld.so --argv0 /usr/sbin/mariadbd x
"""

    def test_exec_start_without_our_dropin(self):
        v = systemd.exec_start(
            self.CAT, "/etc/systemd/system/mariadb.systemd.d/hugeld.conf")
        self.assertEqual(v, "/usr/sbin/mariadbd $MYSQLD_OPTS "
                         "$_WSREP_NEW_CLUSTER $_WSREP_START_POSITION")

    def test_exec_start_reset_by_another_dropin(self):
        cat = self.CAT.replace("hugeld.conf", "local.conf")
        self.assertEqual(systemd.exec_start(cat, "/nowhere"),
                         "/opt/hugeld/ld.so --argv0 /usr/sbin/mariadbd x")

    def test_exec_start_refusals(self):
        with self.assertRaises(common.Error):
            systemd.exec_start("[Service]\nExecStart=/a\nExecStart=/b\n", "")
        with self.assertRaises(common.Error):
            systemd.exec_start("[Service]\nType=oneshot\n", "")
        with self.assertRaises(common.Error):
            systemd.command_program('"/usr/bin/a" x')

    def test_command_program(self):
        self.assertEqual(systemd.command_program("-@/usr/bin/a a0 x"),
                         "/usr/bin/a")
        self.assertEqual(systemd.command_program("sh -c 'exec x'"),
                         [p for p in ("/usr/bin/sh", "/bin/sh")
                          if os.path.exists(p)][0])

    def test_system_loader(self):
        # What the kernel loads for /bin/sh: the real file, links followed.
        got = systemd.system_loader("/bin/sh")
        self.assertFalse(os.path.islink(got))
        self.assertEqual(got, os.path.realpath(systemd.ABI_LOADER))

    def test_dropin(self):
        text = systemd.dropin_text(
            "/opt/hugeld/ld.so", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            [("LD_HUGEPAGE_LIBS", "true:libc.so*"),
             ("LD_HUGEPAGE_BACKING", "private,thp")])
        self.assertEqual(text.split("\n"), [
            systemd.MARK, "[Service]",
            "Environment=LD_HUGEPAGE_LIBS=true:libc.so*",
            "Environment=LD_HUGEPAGE_BACKING=private,thp",
            "BindReadOnlyPaths=/opt/hugeld/ld.so:"
            "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", ""])
        with self.assertRaises(common.Error):
            systemd.dropin_text("/a:b/ld.so", "/l", [])

    def test_quote(self):
        self.assertEqual(systemd.unit_quote("a b%"), '"a b%%"')
        self.assertEqual(systemd.unit_quote('x"\\'), '"x\\"\\\\"')


class Prometheus(unittest.TestCase):
    """status --all --prometheus: the text format, read back by the
    Prometheus client's own parser.  A newline in a name is the text \\n
    there, as on a terminal (test_hugeld_outputs.py has every byte)."""

    RES = Node(
        pool={"total": 64, "free": 10, "reserved": 2, "surplus": 0,
              "available": 8},
        processes=[Process(
            pid=42, command='a"b\\c\nd', ldso_command=False,
            program=None, pages=20, thp_kb=4096,
            objects=[Object(path="/l/libx.so", ranges=[
                Range(backing="private", pages_in_use=9),
                Range(backing="shared", pages_in_use=11),
                Range(backing="thp (page cache, 4096 kB)",
                      pages_in_use=2)])],
            other_ranges=[])],
        shared_pages=11, unreadable=0,
        cache={"entries": 1, "stale": 0, "pages": 11},
        node=Sharing(entries=[EntryUse(file="/l/libx.so", path="/c/i1/v",
                                       state="current", pages=11,
                                       processes=3)],
                     saved_pages=22, idle_pages=0),
        policy=records.PolicyState(file="/etc/hugeld.conf", state="used"))

    def test_parses(self):
        if text_string_to_metric_families is None:
            self.skipTest("no prometheus_client (python3-prometheus-client)")
        got = {}
        for fam in text_string_to_metric_families(
                prometheus.text(self.RES)):
            self.assertEqual(fam.type, "gauge")
            for s in fam.samples:
                got[(s.name, tuple(sorted(s.labels.items())))] = s.value
        key = ("hugeld_object_huge_pages", (
            ("backing", "private"), ("command", 'a"b\\c\\nd'),
            ("object", "/l/libx.so"), ("pid", "42")))
        self.assertEqual(got[key], 9)
        self.assertEqual(got[("hugeld_object_huge_pages", (
            ("backing", "thp_file"), ("command", 'a"b\\c\\nd'),
            ("object", "/l/libx.so"), ("pid", "42")))], 2)
        self.assertEqual(got[("hugeld_pool_pages",
                              (("state", "available"),))], 8)
        self.assertEqual(got[("hugeld_huge_pages",
                              (("backing", "shared"),))], 11)
        self.assertEqual(got[("hugeld_cache_saved_pages", ())], 22)
        self.assertEqual(got[("hugeld_cache_entry_processes",
                              (("file", "/l/libx.so"),))], 3)
        self.assertEqual(got[("hugeld_process_huge_pages", (
            ("command", 'a"b\\c\\nd'), ("kind", "thp"), ("pid", "42")))], 2)


if __name__ == "__main__":
    unittest.main()
