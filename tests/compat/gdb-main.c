/* hugeld test: the program tests/t-compat.sh runs under gdb.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: compat-gdb [-H]

   Linked against libcompatbig.so with hugeld's loader as its program
   interpreter, so that gdb runs it through that loader.  The debugger
   puts a breakpoint on compat_big_inner (in the middle of the
   library's huge page text).  stdout: the results of the calls;
   stderr: page sizes, looked at after the calls (2 MiB with -H).  */

#include "compat.h"
#include "big.h"

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "-H") == 0)
    compat_want_huge = true;
  int r = compat_big_outer (20, NULL);
  printf ("compat_big_outer (20, NULL) = %d\n", r);
  if (r != 63)
    compat_bad ("compat_big_outer");
  r = compat_big_add (2, 3);
  printf ("compat_big_add (2, 3) = %d\n", r);
  if (r != 1005)
    compat_bad ("compat_big_add");
  compat_check_huge ("libcompatbig.so code (compat_big_inner)",
		     (const void *) compat_big_inner);
  return compat_exit_status ();
}
