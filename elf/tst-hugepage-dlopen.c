/* hugeld: dlopen puts a selected module's text on huge pages.
   Copyright (C) 2026 The hugeld authors.
   This file is part of hugeld, a patch set for the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* Run with LD_HUGEPAGE_LIBS=tst-hugepage-mod.so (see elf/Makefile;
   tst-hugepage-tunable runs it with the tunable instead): the private
   backing.  With at least 4 free pages in the pool the module's text is
   on 2 MiB pages of the process's own, which dlclose gives back, 20
   times over; with an empty pool it falls back to ordinary pages and
   runs.  With 1 to 3 free pages (some zones fit, some do not), or if
   other processes take the pool's pages while it runs, the test is
   unsupported.  */

#include "tst-hugepage.h"

static int
do_test (void)
{
  long free_before = pool_free ();
  if (free_before > 0 && free_before < 4)
    FAIL_UNSUPPORTED ("needs 4 free huge pages, or none "
		      "(echo 4 > /proc/sys/vm/nr_hugepages)");
  long own_before = private_hugetlb_kb ();

  for (int round = 0; round < 20; ++round)
    {
      struct module m = module_open ();
      struct mapping at = mapping_of (m.inner);
      if (free_before == 0)
	{
	  /* No pool: ordinary pages, as the stock loader maps them.  */
	  TEST_COMPARE (at.kernel_page_kb, 4);
	  TEST_COMPARE (private_hugetlb_kb (), own_before);
	}
      else
	{
	  if (at.kernel_page_kb != 2048 && meminfo ("HugePages_Free") < 4)
	    FAIL_UNSUPPORTED ("the pool ran short: other processes took "
			      "its pages");
	  TEST_COMPARE (at.kernel_page_kb, 2048);
	  TEST_VERIFY (private_hugetlb_kb () >= own_before + 2 * 2048);
	}
      xdlclose (m.handle);
      /* Everything went back: the range is unmapped, and the process
	 has the huge pages it had before.  */
      TEST_COMPARE (mapping_of (m.inner).kernel_page_kb, 0);
      TEST_COMPARE (private_hugetlb_kb (), own_before);
    }
  printf ("%s\n", free_before == 0 ? "no pool: ordinary pages"
	  : "text on 2 MiB pages from the pool");
  return 0;
}

#include <support/test-driver.c>
