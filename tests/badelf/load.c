/* hugeld test: dlopen each file named on the command line and print
   what happened, one line each, in a form that must not depend on the
   loader (hugeld or stock) or the load address.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; ++i)
    {
      void *h = dlopen (argv[i], RTLD_NOW | RTLD_LOCAL);
      const char *base = strrchr (argv[i], '/');
      base = base ? base + 1 : argv[i];
      if (h == NULL)
	{
	  /* The message names the file: keep only what follows it.  */
	  const char *e = dlerror ();
	  const char *tail = strstr (e, base);
	  printf ("%s: error: %s\n", base, tail != NULL ? tail : e);
	  continue;
	}
      int (*fn) (int) = (int (*) (int)) dlsym (h, "badelf_fn");
      printf ("%s: loaded, badelf_fn(1) = %d\n", base, fn != NULL ? fn (1) : -1);
      dlclose (h);
    }
  return 0;
}
