/* hugeld test: a program with big text, for gdb.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: compat-bigmain [-H]

   Linked between the two filler blocks of fill.c, with hugeld's loader
   as its program interpreter: the kernel maps it, and when it is
   selected the loader moves its text onto huge pages before anything
   else runs.  A debugger may have put breakpoints into that text by
   then (gdb inserts breakpoints in the program when it starts it).
   stdout: the result of a call; stderr: page sizes (2 MiB with -H).  */

#include "compat.h"

__attribute__ ((noinline)) int
compat_main_target (int x)
{
  return x * 2 + 1;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "-H") == 0)
    compat_want_huge = true;
  int r = compat_main_target (20);
  printf ("compat_main_target (20) = %d\n", r);
  if (r != 41)
    compat_bad ("compat_main_target");
  compat_check_huge ("program code (compat_main_target)",
		     (const void *) compat_main_target);
  return compat_exit_status ();
}
