# Unit tests of hugeld status's counting by page size (issue 51): on
# arm64 a hugetlb mapping may be of 64 KiB pages (the ends of an
# object's text, dl-hugepage-cont.c); its pages are counted in its own
# size, apart from the 2 MiB pages that the pool, the totals and the
# metrics count.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh with the other test_*.py (make check).

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))

from hugeld import procfs  # noqa: E402
from hugeld.report import collect, prometheus, text  # noqa: E402
from hugeld.report.records import Node, Process  # noqa: E402

BASE = 0x7f0000000000


def mapping(start, end, kb, held):
    """A private hugetlb mapping of text [BASE + START, BASE + END) on
    pages of KB kB, HELD bytes of them in use."""
    m = procfs.Mapping("%x-%x r-xp 00000000 00:0f 1234 /anon_hugepage "
                       "(deleted)\n" % (BASE + start, BASE + end))
    m.kps = kb
    m.hugetlb = held
    return m


class PageSizes(unittest.TestCase):

    def process(self):
        o = procfs.ProcObject("/usr/lib/libbig.so", [])
        o.bias = BASE
        o.text = {"size": 0}
        # Two 2 MiB pages and, after them, 24 pages of 64 KiB.
        o.huge = [mapping(0, 0x400000, 2048, 0x400000),
                  mapping(0x400000, 0x580000, 64, 24 * 0x10000)]
        p = Process(pid=42, command="big", hugeld=True)
        return collect.with_mappings(p, [o], [], [None])

    def test_counted_by_size(self):
        p = self.process()
        r = p.objects[0].ranges
        self.assertEqual([(x.kernel_page_kb, x.pages, x.pages_in_use)
                          for x in r], [(2048, 2, 2), (64, 24, 24)])
        # The 2 MiB pages alone where the pool's are counted.
        self.assertEqual(p.objects[0].pages, 2)
        self.assertEqual(p.pages, 2)
        self.assertEqual(p.small_pages, {64: 24})

    def test_report_and_metrics(self):
        p = self.process()
        head = text.header_lines(p)[0]
        self.assertIn("2 huge pages (4 MiB)", head)
        self.assertIn("24 huge pages of 64 KiB (1536 KiB)", head)
        objs, procs, by = prometheus.process_samples(Node(processes=[p]))
        self.assertEqual([k for _, k in objs], [2])
        self.assertEqual(dict(by)[(("backing", "private"),)], 2)


if __name__ == "__main__":
    unittest.main()
