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

/* Run with LD_HUGEPAGE_LIBS=tst-hugepage-mod.so (see elf/Makefile).
   Needs a few free 2 MiB pages in the pool; unsupported without.  */

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <support/check.h>
#include <support/support.h>
#include <support/xdlfcn.h>
#include <support/xstdio.h>

#define HUGE (2UL * 1024 * 1024)

static long
meminfo (const char *key)
{
  FILE *f = xfopen ("/proc/meminfo", "r");
  char *line = NULL;
  size_t n = 0;
  long val = -1;
  size_t klen = strlen (key);
  while (xgetline (&line, &n, f) > 0)
    if (strncmp (line, key, klen) == 0 && line[klen] == ':')
      val = strtol (line + klen + 1, NULL, 10);
  free (line);
  xfclose (f);
  return val;
}

/* The KernelPageSize (in kB) of the mapping that contains ADDR, 0 if
   none does.  Also fails the test if any mapping is writable and
   executable.  */
static long
page_size_kb (uintptr_t addr)
{
  FILE *f = xfopen ("/proc/self/smaps", "r");
  char *line = NULL;
  size_t n = 0;
  bool inside = false;
  long kb = 0;
  while (xgetline (&line, &n, f) > 0)
    {
      unsigned long start, end;
      char perms[5];
      if (sscanf (line, "%lx-%lx %4s", &start, &end, perms) == 3)
	{
	  inside = start <= addr && addr < end;
	  if (perms[1] == 'w' && perms[2] == 'x')
	    FAIL ("writable and executable mapping: %s", line);
	}
      else if (inside && strncmp (line, "KernelPageSize:", 15) == 0)
	kb = strtol (line + 15, NULL, 10);
    }
  free (line);
  xfclose (f);
  return kb;
}

static int
do_test (void)
{
  if (meminfo ("HugePages_Free") < 4)
    FAIL_UNSUPPORTED ("needs 4 free huge pages "
		      "(echo 4 > /proc/sys/vm/nr_hugepages)");
  long free_before = meminfo ("HugePages_Free");

  for (int round = 0; round < 20; ++round)
    {
      void *h = xdlopen ("tst-hugepage-mod.so", RTLD_NOW);
      int (*fn) (int) = xdlsym (h, "hugepage_mod_fn");
      uintptr_t fill = (uintptr_t) xdlsym (h, "hugepage_mod_fill");
      TEST_COMPARE (fn (1), 43);

      /* The first whole 2 MiB page inside the fill.  */
      uintptr_t inner = (fill + HUGE - 1) & -HUGE;
      TEST_VERIFY (inner + HUGE <= fill + 0x600000);
      TEST_COMPARE (page_size_kb (inner), 2048);
      TEST_COMPARE (*(unsigned char *) inner, 0xc3);
      TEST_VERIFY (meminfo ("HugePages_Free") <= free_before - 2);

      xdlclose (h);
      /* Everything went back: the range is unmapped, and the pool is
	 as full as before.  */
      TEST_COMPARE (page_size_kb (inner), 0);
      TEST_COMPARE (meminfo ("HugePages_Free"), free_before);
    }
  return 0;
}

#include <support/test-driver.c>
