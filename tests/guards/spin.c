/* Test program for t-coredump and make check-boot: print "value N"
   (libhpspin's value ()), say "spinning", then spin for ever in
   libhpspin's spin (), on a whole 2 MiB page of its text: the test
   kills it there (SIGSEGV, for a core dump) or attaches to it.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>

int value (void);
void spin (void);

int
main (void)
{
  printf ("value %d\nspinning\n", value ());
  fflush (stdout);
  spin ();
  return 0;
}
