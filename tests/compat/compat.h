/* hugeld test: helpers shared by the compatibility test programs.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Every program of tests/t-compat.sh writes what it observed about the
   behaviour of the objects it uses on stdout: the same for every loader,
   so the test compares it with the stock loader's.  What it observed
   about page sizes goes to stderr, one line per address:

     page: WHAT: 2048 kB
     NOT HUGE: WHAT: 4 kB		(only with -H)

   With -H (compat_want_huge) an address that is not on a 2 MiB page is
   an error: the program then exits with status 3.  A wrong behaviour
   is status 1.  The header is included by C and C++ programs and by
   the audit module, so it only has static functions.  */

#ifndef COMPAT_H
#define COMPAT_H 1

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPAT_HUGE_KB 2048L

/* Set by -H: page size checks are errors.  */
static bool compat_want_huge __attribute__ ((unused));
/* Status bits: 1 = wrong behaviour, 2 = not on huge pages.  */
static int compat_status __attribute__ ((unused));

/* Record a wrong behaviour: print it on stdout (so that the output
   differs from the expected one too) and on stderr.  */
static inline void
compat_bad (const char *what)
{
  printf ("WRONG: %s\n", what);
  fprintf (stderr, "WRONG: %s\n", what);
  compat_status |= 1;
}

/* Print "NAME: yes" or "NAME: no" on stdout; "no" is wrong.  */
static inline bool
compat_expect (const char *name, bool ok)
{
  printf ("%s: %s\n", name, ok ? "yes" : "no");
  if (!ok)
    {
      fprintf (stderr, "WRONG: %s\n", name);
      compat_status |= 1;
    }
  return ok;
}

/* The mapping of /proc/self/smaps that contains ADDR: its range,
   permissions ("r-xp") and KernelPageSize in kB.  Returns false if no
   mapping contains ADDR.  */
static inline bool
compat_mapping_of (const void *addr, unsigned long *start,
		   unsigned long *end, char perms[5], long *kernel_kb)
{
  FILE *f = fopen ("/proc/self/smaps", "r");
  if (f == NULL)
    return false;
  char line[4096];
  bool inside = false, found = false;
  unsigned long a = (unsigned long) (uintptr_t) addr;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long s, e;
      char p[5];
      long kb;
      if (sscanf (line, "%lx-%lx %4s", &s, &e, p) == 3)
	{
	  /* A mapping header: "start-end perms offset dev inode path".  */
	  inside = s <= a && a < e;
	  if (inside)
	    {
	      if (start != NULL)
		*start = s;
	      if (end != NULL)
		*end = e;
	      if (perms != NULL)
		memcpy (perms, p, 5);
	    }
	}
      else if (inside && sscanf (line, "KernelPageSize: %ld kB", &kb) == 1)
	{
	  if (kernel_kb != NULL)
	    *kernel_kb = kb;
	  found = true;
	  break;
	}
    }
  fclose (f);
  return found;
}

/* KernelPageSize in kB of the mapping that holds ADDR, -1 if none.  */
static inline long
compat_page_kb (const void *addr)
{
  long kb = -1;
  if (!compat_mapping_of (addr, NULL, NULL, NULL, &kb))
    return -1;
  return kb;
}

/* Report the page size of ADDR on stderr; with -H it must be 2 MiB.
   Returns true if it is.  */
static inline bool
compat_check_huge (const char *what, const void *addr)
{
  long kb = compat_page_kb (addr);
  bool huge = kb == COMPAT_HUGE_KB;
  if (huge || !compat_want_huge)
    fprintf (stderr, "page: %s: %ld kB\n", what, kb);
  else
    {
      fprintf (stderr, "NOT HUGE: %s: %ld kB (address %p)\n", what, kb,
	       addr);
      compat_status |= 2;
    }
  return huge;
}

/* The number of mappings in /proc/self/maps that are writable and
   executable; each is printed on stderr.  */
static inline int
compat_count_wx (void)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  if (f == NULL)
    return -1;
  char line[4096];
  int n = 0;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long s, e;
      char p[5];
      if (sscanf (line, "%lx-%lx %4s", &s, &e, p) == 3
	  && p[1] == 'w' && p[2] == 'x')
	{
	  fprintf (stderr, "writable and executable: %s", line);
	  ++n;
	}
    }
  fclose (f);
  return n;
}

/* The number of lines of /proc/self/maps that mention NAME.  */
static inline int
compat_maps_mentions (const char *name)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  if (f == NULL)
    return -1;
  char line[4096];
  int n = 0;
  while (fgets (line, sizeof line, f) != NULL)
    if (strstr (line, name) != NULL)
      ++n;
  fclose (f);
  return n;
}

/* The sum of Private_Hugetlb and Shared_Hugetlb over /proc/self/smaps,
   in kB: the huge pages this process has mapped.  */
static inline long
compat_hugetlb_kb (void)
{
  FILE *f = fopen ("/proc/self/smaps", "r");
  if (f == NULL)
    return -1;
  char line[4096];
  long total = 0, kb;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "Private_Hugetlb: %ld kB", &kb) == 1
	|| sscanf (line, "Shared_Hugetlb: %ld kB", &kb) == 1)
      total += kb;
  fclose (f);
  return total;
}

/* The value of KEY ("HugePages_Free") in /proc/meminfo, -1 if none.  */
static inline long
compat_meminfo (const char *key)
{
  FILE *f = fopen ("/proc/meminfo", "r");
  if (f == NULL)
    return -1;
  char line[256];
  long v = -1;
  size_t len = strlen (key);
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, key, len) == 0 && line[len] == ':')
      {
	v = strtol (line + len + 1, NULL, 10);
	break;
      }
  fclose (f);
  return v;
}

/* The last component of PATH.  */
static inline const char *
compat_basename (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* The exit status: 1 if anything behaved wrongly, else 3 if something
   that should be on huge pages was not (with -H), else 0.  */
static inline int
compat_exit_status (void)
{
  fflush (stdout);
  if (compat_status & 1)
    return 1;
  if (compat_status & 2)
    return 3;
  return 0;
}

#endif /* compat.h */
