/* hugeld check-arm64: the BTI test, and what page sizes code is on.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   bti [lib|main|lib-tail|main-tail]: call P_lp, then P_nolp,
   indirectly (bti.h), of libbti.so (lib) or of this program (main:
   only where it is built with its own start code, bti-main); the
   -tail ones call P_tail_lp and P_tail_nolp.  Before the calls it writes on
   stderr where P_nolp is: its mapping's KernelPageSize and whether its
   VmFlags have "bt" (PROT_BTI), from /proc/self/smaps.  Where glibc
   gives the object's code PROT_BTI, the second call is killed by
   SIGILL: the stock loader and hugeld must agree, and under hugeld the
   code must be on huge pages for the test to mean anything (the guest
   checks the KernelPageSize).

   bti sizes NAME: for the loaded object whose path ends in NAME, the
   bytes of its executable segments on each page size
   (KernelPageSize of the mappings over them in /proc/self/smaps: the
   mappings hugeld makes are anonymous or hugetlbfs files, so the
   segments' addresses, from dl_iterate_phdr, are what counts), as
   "sizes NAME: TOTAL KiB: N KiB on P kB pages, ...".  */
#define _GNU_SOURCE 1
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int lib_lp (void), lib_nolp (void);
extern int lib_tail_lp (void), lib_tail_nolp (void);
#ifdef BTI_MAIN
# include "bti.h"
extern int main_lp (void), main_nolp (void);
extern int main_tail_lp (void), main_tail_nolp (void);
BTI_CODE (main);
#endif

static void
where (const char *what, void *fn)
{
  FILE *f = fopen ("/proc/self/smaps", "r");
  char line[512], hit[512] = "";
  unsigned long s, e, a = (unsigned long) fn;
  int in = 0;
  long kps = -1;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      /* A mapping's first line; no field's name is hex digits, a '-'
	 and hex digits.  */
      if (sscanf (line, "%lx-%lx ", &s, &e) == 2)
	in = a >= s && a < e;
      else if (in && sscanf (line, "KernelPageSize: %ld kB", &kps) == 1)
	;
      else if (in && strncmp (line, "VmFlags:", 8) == 0)
	{
	  snprintf (hit, sizeof hit, "%s", line + 8);
	  hit[strcspn (hit, "\n")] = '\0';
	}
    }
  if (f != NULL)
    fclose (f);
  fprintf (stderr, "info: %s at %p: KernelPageSize %ld kB, PROT_BTI %s, "
	   "VmFlags%s\n", what, fn, kps,
	   strstr (hit, " bt") != NULL ? "yes" : "no", hit);
}

/* The executable segments of the object sizes_name names.  */
static const char *sizes_name;
static unsigned long seg[16][2];
static int nseg;

static int
find_segments (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  size_t n = strlen (info->dlpi_name), m = strlen (sizes_name);
  if (n < m || strcmp (info->dlpi_name + n - m, sizes_name) != 0)
    return 0;
  for (int i = 0; i < info->dlpi_phnum && nseg < 16; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD
	&& (info->dlpi_phdr[i].p_flags & PF_X) != 0)
      {
	unsigned long s = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	seg[nseg][0] = s & -4096UL;
	seg[nseg][1] = (s + info->dlpi_phdr[i].p_memsz + 4095) & -4096UL;
	++nseg;
      }
  return 1;
}

static int
sizes (const char *name)
{
  sizes_name = name;
  /* The main program's dlpi_name is empty: "main" is /proc/self/exe's
     segments.  */
  dl_iterate_phdr (find_segments, NULL);
  if (nseg == 0)
    {
      fprintf (stderr, "sizes: no loaded object %s\n", name);
      return 1;
    }
  FILE *f = fopen ("/proc/self/smaps", "r");
  char line[512];
  unsigned long s = 0, e = 0, total = 0, bytes[8] = { 0 };
  long kps[8];
  int nk = 0;
  unsigned long cur = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      unsigned long a, b;
      long k;
      if (sscanf (line, "%lx-%lx ", &a, &b) == 2)
	{
	  s = a, e = b, cur = 0;
	  for (int i = 0; i < nseg; ++i)
	    {
	      unsigned long lo = s > seg[i][0] ? s : seg[i][0];
	      unsigned long hi = e < seg[i][1] ? e : seg[i][1];
	      if (hi > lo)
		cur += hi - lo;
	    }
	}
      else if (cur != 0 && sscanf (line, "KernelPageSize: %ld kB", &k) == 1)
	{
	  int i;
	  for (i = 0; i < nk && kps[i] != k; ++i)
	    ;
	  if (i == nk && nk < 8)
	    kps[nk++] = k;
	  if (i < 8)
	    bytes[i] += cur;
	  total += cur;
	  cur = 0;
	}
    }
  if (f != NULL)
    fclose (f);
  printf ("sizes %s: %lu KiB:", name, total / 1024);
  for (int i = 0; i < nk; ++i)
    printf ("%s %lu KiB on %ld kB pages", i ? "," : "", bytes[i] / 1024,
	    kps[i]);
  printf ("\n");
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 2 && strcmp (argv[1], "sizes") == 0)
    return sizes (argv[2]);
  int (*volatile lp) (void) = lib_lp;
  int (*volatile nolp) (void) = lib_nolp;
  (void) argc;
  (void) argv;
  if (argc > 1 && strcmp (argv[1], "lib-tail") == 0)
    {
      lp = lib_tail_lp;
      nolp = lib_tail_nolp;
    }
#ifdef BTI_MAIN
  if (argc > 1 && strcmp (argv[1], "main") == 0)
    {
      lp = main_lp;
      nolp = main_nolp;
    }
  if (argc > 1 && strcmp (argv[1], "main-tail") == 0)
    {
      lp = main_tail_lp;
      nolp = main_tail_nolp;
    }
#endif
  where ("nolp", (void *) nolp);
  printf ("landing pad: %d\n", lp ());
  fflush (stdout);
  printf ("no landing pad: %d\n", nolp ());
  return 0;
}
