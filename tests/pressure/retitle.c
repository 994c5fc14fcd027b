/* hugeld test tool: a program that sets its process title the way
   PostgreSQL and nginx do, by writing over the environment block, and
   only then dlopens a library.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: retitle LIBRARY
   Prints "huge: yes" if some of LIBRARY's mappings are on 2 MiB pages
   after the dlopen, "huge: no" otherwise.  */

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: retitle LIBRARY\n");
      return 2;
    }
  /* Overwrite every environment string in place: the block now holds
     the process title (here: 'x's).  */
  for (char **e = environ; *e != NULL; ++e)
    memset (*e, 'x', strlen (*e));

  void *h = dlopen (argv[1], RTLD_NOW);
  if (h == NULL)
    {
      fprintf (stderr, "retitle: %s\n", dlerror ());
      return 1;
    }
  FILE *f = fopen ("/proc/self/smaps", "r");
  if (f == NULL)
    return 1;
  char line[512];
  int huge = 0;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "KernelPageSize:", 15) == 0
	&& strtoul (line + 15, NULL, 10) == 2048)
      huge = 1;
  fclose (f);
  printf ("huge: %s\n", huge ? "yes" : "no");
  return 0;
}
