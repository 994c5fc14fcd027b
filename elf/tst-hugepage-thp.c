/* hugeld: the thp backing takes no page of the pool.
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

/* Run with LD_HUGEPAGE_LIBS=tst-hugepage-mod.so and
   LD_HUGEPAGE_BACKING=thp (see elf/Makefile).  The module's text stays
   mapped from its file (the page cache gives it huge pages where the
   kernel and the file system can; that is not checked here), the
   module runs, no mapping is writable and executable, and the process
   takes no huge page of the pool, whether it has pages or not.  */

#include "tst-hugepage.h"

static int
do_test (void)
{
  pool_free ();
  long own_before = private_hugetlb_kb ();
  for (int round = 0; round < 5; ++round)
    {
      struct module m = module_open ();
      struct mapping at = mapping_of (m.inner);
      TEST_VERIFY (strstr (at.path, "tst-hugepage-mod.so") != NULL);
      TEST_COMPARE (at.kernel_page_kb, 4);
      TEST_COMPARE (private_hugetlb_kb (), own_before);
      if (round == 0)
	printf ("text mapped from the file; %ld kB of it on PMDs\n",
		at.file_pmd_kb);
      xdlclose (m.handle);
    }
  return 0;
}

#include <support/test-driver.c>
