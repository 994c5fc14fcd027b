/* hugeld: print the first bytes of a fresh malloc block, which
   GLIBC_TUNABLES=glibc.malloc.perturb=N fills with N ^ 0xff: whether
   libc.so.6's own tunables act.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>
#include <stdlib.h>

int
main (void)
{
  unsigned char *p = malloc (64);
  if (p == NULL)
    return 1;
  for (int i = 0; i < 32; ++i)
    printf ("%02x", p[i]);
  printf ("\n");
  return 0;
}
