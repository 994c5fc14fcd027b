/* Test helper for t-trust-tool: a process for root's `hugeld status'
   to look at.  Maps one huge page of the pool (MAP_HUGETLB, touched:
   HugetlbPages is not 0, so that status --all looks at it), prints
   "ready" and stays until standard input closes.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int
main (void)
{
  char *p = mmap (NULL, 2 << 20, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
  if (p == MAP_FAILED)
    {
      perror ("hugehold: mmap MAP_HUGETLB");
      return 1;
    }
  p[0] = 1;
  printf ("ready\n");
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
