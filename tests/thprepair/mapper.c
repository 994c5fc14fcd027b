/* t-thprepair: map a file as the thp backing would, as an attacker.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: mapper FILE [sparse|all|none]

   Maps FILE whole, read and execute, at a 2 MiB aligned address (so
   at an address congruent to its file offset modulo 2 MiB: the shape
   the thp repair looks for), marks it MADV_HUGEPAGE, reads one byte of
   each 2 MiB (sparse), every page (all) or nothing (none), prints
   "ready", and stays until its standard input closes.  For each line
   it reads there, it reads every page of the mapping again and prints
   "pmd N": the kB of it mapped with PMDs (FilePmdMapped, smaps).
   Also linked statically for check-kernels' guests.  */

#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HUGE (2UL << 20)

int
main (int argc, char **argv)
{
  if (argc < 2)
    return 2;
  int fd = open (argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      perror (argv[1]);
      return 1;
    }
  size_t len = (st.st_size + HUGE - 1) & -HUGE;
  char *area = mmap (NULL, len + HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
  char *a = (char *) (((uintptr_t) area + HUGE - 1) & -HUGE);
  if (area == MAP_FAILED
      || mmap (a, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
	       fd, 0) == MAP_FAILED)
    {
      perror ("mmap");
      return 1;
    }
  madvise (a, st.st_size, MADV_HUGEPAGE);
  const char *mode = argc > 2 ? argv[2] : "sparse";
  unsigned long sum = 0;
  size_t step = strcmp (mode, "all") == 0 ? 4096 : HUGE;
  if (strcmp (mode, "none") != 0)
    for (size_t off = 0; off < (size_t) st.st_size; off += step)
      sum += *(volatile unsigned char *) (a + off);
  printf ("ready %lu\n", sum & 1);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    if (c == '\n')
      {
	for (size_t off = 0; off < (size_t) st.st_size; off += 4096)
	  sum += *(volatile unsigned char *) (a + off);
	FILE *f = fopen ("/proc/self/smaps", "r");
	char line[512];
	unsigned long start, pmd = 0, kb;
	int ours = 0;
	while (f != NULL && fgets (line, sizeof line, f) != NULL)
	  if (sscanf (line, "%lx-", &start) == 1 && strchr (line, ' ') != NULL
	      && line[0] != ' ' && strstr (line, "kB") == NULL)
	    ours = start >= (unsigned long) a
		   && start < (unsigned long) a + st.st_size;
	  else if (ours && sscanf (line, "FilePmdMapped: %lu kB", &kb) == 1)
	    pmd += kb;
	if (f != NULL)
	  fclose (f);
	printf ("pmd %lu\n", pmd);
	fflush (stdout);
      }
  return 0;
}
