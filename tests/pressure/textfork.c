/* hugeld test tool: a parent and its children all running the big-code
   library's text, for debugger tests.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: textfork NCHILDREN SECONDS
   Forks NCHILDREN children; every process calls big_run for SECONDS
   seconds.  Prints "ready PID CHILD..." once all run, then one line per
   child ("child PID: ok" or "child PID: killed by signal N") and exits
   0 if every child finished normally.  */

#define _GNU_SOURCE 1
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "big.h"

static void
work (double seconds)
{
  struct timespec t0, t;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  unsigned int seed = 1;
  do
    {
      big_run (1, seed++);
      clock_gettime (CLOCK_MONOTONIC, &t);
    }
  while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: textfork NCHILDREN SECONDS\n");
      return 2;
    }
  int n = atoi (argv[1]);
  double seconds = atof (argv[2]);
  pid_t pids[64];
  if (n < 0 || n > 64)
    return 2;
  for (int i = 0; i < n; ++i)
    {
      pids[i] = fork ();
      if (pids[i] < 0)
	return 2;
      if (pids[i] == 0)
	{
	  work (seconds);
	  _exit (0);
	}
    }
  printf ("ready %d", (int) getpid ());
  for (int i = 0; i < n; ++i)
    printf (" %d", (int) pids[i]);
  printf ("\n");
  fflush (stdout);
  work (seconds);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    {
      int status;
      waitpid (pids[i], &status, 0);
      if (WIFSIGNALED (status))
	{
	  printf ("child %d: killed by signal %d\n", (int) pids[i],
		  WTERMSIG (status));
	  bad = 1;
	}
      else
	printf ("child %d: ok\n", (int) pids[i]);
    }
  return bad;
}
