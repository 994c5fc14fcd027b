/* hugeld check-arm64: the BTI test.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   bti [lib|main]: call P_lp, then P_nolp, indirectly (bti.h), of
   libbti.so (lib) or of this program (main: only where it is built
   with its own start code, bti-main).  Before the calls it writes on
   stderr where P_nolp is: its mapping's KernelPageSize and whether its
   VmFlags have "bt" (PROT_BTI), from /proc/self/smaps.  Where glibc
   gives the object's code PROT_BTI, the second call is killed by
   SIGILL: the stock loader and hugeld must agree, and under hugeld the
   code must be on huge pages for the test to mean anything (the guest
   checks the KernelPageSize).  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int lib_lp (void), lib_nolp (void);
#ifdef BTI_MAIN
# include "bti.h"
extern int main_lp (void), main_nolp (void);
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

int
main (int argc, char **argv)
{
  int (*volatile lp) (void) = lib_lp;
  int (*volatile nolp) (void) = lib_nolp;
  (void) argc;
  (void) argv;
#ifdef BTI_MAIN
  if (argc > 1 && strcmp (argv[1], "main") == 0)
    {
      lp = main_lp;
      nolp = main_nolp;
    }
#endif
  where ("nolp", (void *) nolp);
  printf ("landing pad: %d\n", lp ());
  fflush (stdout);
  printf ("no landing pad: %d\n", nolp ());
  return 0;
}
