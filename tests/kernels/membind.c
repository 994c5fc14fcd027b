/* hugeld check-kernels: run a program with its memory bound to one NUMA
   node, as `numactl --membind=NODE' does (numactl is not in the guest).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: membind NODE PROGRAM [ARGS...]  */

#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND 2

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: membind NODE PROGRAM [ARGS...]\n");
      return 2;
    }
  unsigned long node = strtoul (argv[1], NULL, 10);
  if (node >= 8 * sizeof (unsigned long))
    {
      fprintf (stderr, "membind: node %lu out of range\n", node);
      return 2;
    }
  unsigned long mask = 1UL << node;
  if (syscall (SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof mask) != 0)
    {
      perror ("membind: set_mempolicy");
      return 2;
    }
  execv (argv[2], argv + 2);
  perror ("membind: exec");
  return 127;
}
