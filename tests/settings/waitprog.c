/* hugeld's tests: a program for tests/settings/differential.py, started
   by the kernel with hugeld's ld.so as its PT_INTERP.  Without an
   argument it ends at once (ld.so's report is what counts); with one
   it says "waiting" on stderr and waits to be killed, for hugeld
   status to look at.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  (void) argv;
  if (argc > 1)
    {
      fputs ("waiting\n", stderr);
      fflush (stderr);
      for (;;)
	pause ();
    }
  return 0;
}
