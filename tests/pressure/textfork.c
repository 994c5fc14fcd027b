/* hugeld test tool: a parent and its children all running the big-code
   library's text, for debugger tests.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: textfork NCHILDREN SECONDS
   Forks NCHILDREN children; every process calls big_run for SECONDS
   seconds, or until the parent gets SIGUSR1, which it passes on to its
   children (a test ends the run so once it has seen what it checks,
   however long a debugger took to attach).  Prints "ready PID CHILD..."
   once all run, then one line per child ("child PID: ok" or "child PID:
   killed by signal N") and exits 0 if every child finished normally.  A
   child that gets SIGBUS first says where itself: "child PID: SIGBUS at
   ADDR, si_code N" (see on_sigbus).  */

#define _GNU_SOURCE 1
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "big.h"

/* Append the decimal or hexadecimal digits of V to *P (async-signal-safe).  */
static void
put_num (char **p, unsigned long v, unsigned int base)
{
  char d[32];
  int n = 0;
  do
    d[n++] = "0123456789abcdef"[v % base];
  while ((v /= base) != 0);
  while (n > 0)
    *(*p)++ = d[--n];
}

static void
put_str (char **p, const char *s)
{
  while (*s != '\0')
    *(*p)++ = *s++;
}

/* A child's SIGBUS handler: one line on stdout with the fault's address
   and si_code, so that a test can tell a huge page the kernel took away
   from the child (a fault in the text, BUS_ADRERR) from any other
   SIGBUS by the process's own report, not by the kernel's log (which it
   rate-limits).  Installed with SA_RESETHAND: the fault, taken again on
   return, kills the child with SIGBUS as before.  */
static void
on_sigbus (int sig, siginfo_t *si, void *ctx)
{
  char buf[96], *p = buf;
  (void) sig;
  (void) ctx;
  put_str (&p, "child ");
  put_num (&p, (unsigned long) getpid (), 10);
  put_str (&p, ": SIGBUS at 0x");
  put_num (&p, (unsigned long) si->si_addr, 16);
  put_str (&p, ", si_code ");
  if (si->si_code < 0)
    put_str (&p, "-");
  put_num (&p, (unsigned long) (si->si_code < 0 ? -si->si_code : si->si_code), 10);
  put_str (&p, "\n");
  ssize_t r = write (STDOUT_FILENO, buf, p - buf);
  (void) r;
}

/* Set by SIGUSR1: end the work now.  */
static volatile sig_atomic_t stop;

static void
on_sigusr1 (int sig)
{
  (void) sig;
  stop = 1;
}

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
  while (!stop
	 && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
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
  struct sigaction su = { .sa_handler = on_sigusr1 };
  sigemptyset (&su.sa_mask);
  sigaction (SIGUSR1, &su, NULL);
  for (int i = 0; i < n; ++i)
    {
      pids[i] = fork ();
      if (pids[i] < 0)
	return 2;
      if (pids[i] == 0)
	{
	  struct sigaction sa = { .sa_sigaction = on_sigbus,
				  .sa_flags = SA_SIGINFO | SA_RESETHAND };
	  sigemptyset (&sa.sa_mask);
	  sigaction (SIGBUS, &sa, NULL);
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
  if (stop)
    for (int i = 0; i < n; ++i)
      kill (pids[i], SIGUSR1);
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
