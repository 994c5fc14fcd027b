/* hugeld: the shared backing serves the cache's entry or falls back.
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
   LD_HUGEPAGE_BACKING=shared (see elf/Makefile).  Where the shared
   cache has an entry for the module (root made it with `hugeld cache
   add'), the text is mapped from it, on 2 MiB pages; where it has none,
   the text is on ordinary pages from the module's file.  Either way the
   process takes no page of the pool of its own (the cache's pages are
   shared).  The output says which.  */

#include "tst-hugepage.h"
#include "dl-hugepage-cache.h"

static int
do_test (void)
{
  pool_free ();
  long own_before = private_hugetlb_kb ();
  struct module m = module_open ();
  struct mapping at = mapping_of (m.inner);
  if (strncmp (at.path, HP_CACHE_DIR "/", sizeof HP_CACHE_DIR) == 0)
    {
      TEST_COMPARE (at.kernel_page_kb, 2048);
      printf ("served from the shared cache: %s\n", at.path);
    }
  else
    {
      TEST_VERIFY (strstr (at.path, "tst-hugepage-mod.so") != NULL);
      TEST_COMPARE (at.kernel_page_kb, 4);
      printf ("no cache entry: ordinary pages\n");
    }
  TEST_COMPARE (private_hugetlb_kb (), own_before);
  xdlclose (m.handle);
  TEST_COMPARE (mapping_of (m.inner).kernel_page_kb, 0);
  return 0;
}

#include <support/test-driver.c>
