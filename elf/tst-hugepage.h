/* hugeld: what the tst-hugepage-* tests read of the process.
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

#ifndef TST_HUGEPAGE_H
#define TST_HUGEPAGE_H 1

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <support/check.h>
#include <support/support.h>
#include <support/xdlfcn.h>
#include <support/xstdio.h>

#define HUGE (2UL * 1024 * 1024)

/* The value of KEY in /proc/meminfo, or -1 if it has none (a kernel
   without hugetlb pages).  */
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

/* The mapping that contains an address, as /proc/self/smaps says.  */
struct mapping
{
  long kernel_page_kb;		/* 0 if no mapping contains it.  */
  long file_pmd_kb;		/* FilePmdMapped.  */
  char path[256];		/* The file mapped, or "".  */
};

/* The mapping that contains ADDR.  Also fails the test if any mapping
   is writable and executable.  */
static struct mapping
mapping_of (uintptr_t addr)
{
  struct mapping m = { 0 };
  FILE *f = xfopen ("/proc/self/smaps", "r");
  char *line = NULL;
  size_t n = 0;
  bool inside = false;
  while (xgetline (&line, &n, f) > 0)
    {
      unsigned long start, end;
      char perms[5];
      int pos = 0;
      if (sscanf (line, "%lx-%lx %4s %*s %*s %*s%n", &start, &end, perms,
		  &pos) == 3)
	{
	  inside = start <= addr && addr < end;
	  if (perms[1] == 'w' && perms[2] == 'x')
	    FAIL ("writable and executable mapping: %s", line);
	  if (inside)
	    {
	      const char *p = line + pos;
	      while (*p == ' ')
		++p;
	      snprintf (m.path, sizeof m.path, "%s", p);
	      m.path[strcspn (m.path, "\n")] = '\0';
	    }
	}
      else if (inside && strncmp (line, "KernelPageSize:", 15) == 0)
	m.kernel_page_kb = strtol (line + 15, NULL, 10);
      else if (inside && strncmp (line, "FilePmdMapped:", 14) == 0)
	m.file_pmd_kb = strtol (line + 14, NULL, 10);
    }
  free (line);
  xfclose (f);
  return m;
}

/* The huge pages this process took from the pool for itself, in kB:
   the hugetlb memory of its anonymous hugetlb mappings
   (/anon_hugepage; the private copies), as /proc/self/smaps counts it.
   The shared cache's files are not counted: their pages exist before
   the process maps them.  The tests count their own pages, not the
   pool's free ones: glibc's harness runs tests in parallel, and other
   processes take and give back pool pages at any time.  */
static long
private_hugetlb_kb (void)
{
  FILE *f = xfopen ("/proc/self/smaps", "r");
  char *line = NULL;
  size_t n = 0;
  long kb = 0;
  bool anon = false;
  while (xgetline (&line, &n, f) > 0)
    {
      unsigned long start, end;
      if (sscanf (line, "%lx-%lx ", &start, &end) == 2)
	anon = strstr (line, " /anon_hugepage") != NULL;
      else if (anon && strncmp (line, "Private_Hugetlb:", 16) == 0)
	kb += strtol (line + 16, NULL, 10);
      else if (anon && strncmp (line, "Shared_Hugetlb:", 15) == 0)
	kb += strtol (line + 15, NULL, 10);
    }
  free (line);
  xfclose (f);
  return kb;
}

/* tst-hugepage-mod.so, loaded: its function and the first whole 2 MiB
   page inside its 6 MiB of text.  */
struct module
{
  void *handle;
  uintptr_t inner;
};

static struct module
module_open (void)
{
  struct module m;
  m.handle = xdlopen ("tst-hugepage-mod.so", RTLD_NOW);
  int (*fn) (int) = xdlsym (m.handle, "hugepage_mod_fn");
  uintptr_t fill = (uintptr_t) xdlsym (m.handle, "hugepage_mod_fill");
  TEST_COMPARE (fn (1), 43);
  m.inner = (fill + HUGE - 1) & -HUGE;
  TEST_VERIFY (m.inner + HUGE <= fill + 0x600000);
  TEST_COMPARE (*(unsigned char *) m.inner, 0xc3);
  return m;
}

/* The pool's free pages; UNSUPPORTED where the kernel has no hugetlb
   pages at all.  */
static long
pool_free (void)
{
  support_need_proc ("reads /proc/meminfo and /proc/self/smaps");
  long free = meminfo ("HugePages_Free");
  if (free < 0)
    FAIL_UNSUPPORTED ("the kernel has no hugetlb pages");
  return free;
}

#endif /* tst-hugepage.h */
