/* Start a program N times, one after the other, and print the mean
   time from posix_spawn to its exit in microseconds: the start-up cost
   of a program that does nothing, such as /bin/true.
     spawn N PROG [ARGS...]
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: spawn N PROG [ARGS...]\n");
      return 2;
    }
  long n = atol (argv[1]);
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; ++i)
    {
      pid_t pid;
      int status;
      if (posix_spawn (&pid, argv[2], NULL, NULL, argv + 2, environ) != 0
	  || waitpid (pid, &status, 0) != pid
	  || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
	{
	  fprintf (stderr, "spawn: %s failed\n", argv[2]);
	  return 1;
	}
    }
  clock_gettime (CLOCK_MONOTONIC, &t1);
  printf ("%.2f\n", ((t1.tv_sec - t0.tv_sec) * 1e6
		     + (t1.tv_nsec - t0.tv_nsec) / 1e3) / n);
  return 0;
}
