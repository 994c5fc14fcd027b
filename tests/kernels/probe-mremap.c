/* hugeld check-kernels probe: can this kernel move a hugetlb mapping
   with mremap (MREMAP_MAYMOVE | MREMAP_FIXED)?
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Linked statically: it runs in the guest before (and independently
   of) any dynamic loader.  It maps one 2 MiB MAP_HUGETLB page
   (MAP_NORESERVE, so that it needs no reservation; it is written only
   if the pool has a free page), reserves a 4 MiB PROT_NONE anonymous
   area, and moves the huge page to the 2 MiB-aligned address inside
   that area.  Linux before 5.16 (5.10 for instance) refuses: it unmaps
   the destination and returns EINVAL.

   Prints one line on stdout:
     mremap(MREMAP_FIXED) of a hugetlb mapping: supported
     mremap(MREMAP_FIXED) of a hugetlb mapping: unsupported (EINVAL)
     cannot probe: <why>
   and exits 0 (supported), 1 (unsupported) or 2 (cannot tell).  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_SIZE (2ul << 20)
#define WHAT "mremap(MREMAP_FIXED) of a hugetlb mapping"

/* HugePages_Free from /proc/meminfo, or -1.  */
static long
free_huge_pages (void)
{
  FILE *f = fopen ("/proc/meminfo", "re");
  char line[256];
  long n = -1;

  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "HugePages_Free: %ld", &n) == 1)
      break;
  fclose (f);
  return n;
}

/* KernelPageSize (kB) of the mapping that contains ADDR, or 0.  */
static unsigned long
kernel_page_kb (uintptr_t addr)
{
  FILE *f = fopen ("/proc/self/smaps", "re");
  char line[512];
  unsigned long start, end, kb, found = 0;
  int in = 0;

  if (f == NULL)
    return 0;
  while (fgets (line, sizeof line, f) != NULL)
    {
      if (sscanf (line, "%lx-%lx ", &start, &end) == 2
	  && strchr (line, '-') < strchr (line, ' '))
	in = addr >= start && addr < end;
      else if (in && sscanf (line, "KernelPageSize: %lu kB", &kb) == 1)
	{
	  found = kb;
	  break;
	}
    }
  fclose (f);
  return found;
}

int
main (void)
{
  int touch = free_huge_pages () > 0;
  char *h, *area, *dst;
  void *r;

  h = mmap (NULL, HUGE_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
  if (h == MAP_FAILED)
    {
      printf ("cannot probe: mmap MAP_HUGETLB: %s (%s)\n",
	      strerrorname_np (errno), strerror (errno));
      return 2;
    }
  if (touch)
    memset (h, 0x5a, 4096);

  area = mmap (NULL, 2 * HUGE_SIZE, PROT_NONE,
	       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED)
    {
      printf ("cannot probe: mmap of 4 MiB: %s\n", strerror (errno));
      return 2;
    }
  dst = (char *) (((uintptr_t) area + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));

  r = mremap (h, HUGE_SIZE, HUGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
  if (r == MAP_FAILED)
    {
      int e = errno;
      printf (WHAT ": unsupported (%s)\n", strerrorname_np (e));
      return 1;
    }
  if (r != dst)
    {
      printf (WHAT ": unsupported (moved to %p, not %p)\n", r, (void *) dst);
      return 1;
    }
  if (touch && (dst[0] != 0x5a || dst[4095] != 0x5a))
    {
      printf (WHAT ": unsupported (contents lost in the move)\n");
      return 1;
    }
  if (kernel_page_kb ((uintptr_t) dst) != HUGE_SIZE >> 10)
    {
      printf (WHAT ": unsupported (destination has KernelPageSize %lu kB)\n",
	      kernel_page_kb ((uintptr_t) dst));
      return 1;
    }
  printf (WHAT ": supported\n");
  return 0;
}
