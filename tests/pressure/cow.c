/* hugeld test: what fork + copy-on-write does when the huge page pool
   has no page for the copy.  Run with .bss on huge pages.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   cow 1: the child writes to a huge page it shares with the parent.
   cow 2: the parent writes first, then the child touches the page.
   cow 3 N: a fork storm: N children each write to the same huge page and stay
   alive until all have written; prints how many ended well and how many
   by which signal.
   Prints how the child(ren) ended and that the parent is alive.  */

#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static char bss[8 << 20];

int
main (int argc, char **argv)
{
  if (argc < 2)
    return 2;
  int mode = atoi (argv[1]);
  memset (bss, 1, sizeof bss);
  if (mode == 3)
    {
      int n = argc > 2 ? atoi (argv[2]) : 20;
      int go[2];
      if (pipe (go) != 0)
	return 2;
      pid_t kids[256];
      for (int i = 0; i < n && i < 256; ++i)
	{
	  kids[i] = fork ();
	  if (kids[i] < 0)
	    return 2;
	  if (kids[i] == 0)
	    {
	      close (go[1]);
	      bss[4 << 20] = 7;
	      char c;
	      /* Stay alive (holding the copy) until the parent lets go.  */
	      if (read (go[0], &c, 1) < 0)
		_exit (4);
	      _exit (bss[4 << 20] == 7 ? 0 : 3);
	    }
	}
      close (go[0]);
      usleep (300000);
      close (go[1]);
      int ok = 0, bus = 0, other = 0;
      for (int i = 0; i < n && i < 256; ++i)
	{
	  int st;
	  waitpid (kids[i], &st, 0);
	  if (WIFEXITED (st) && WEXITSTATUS (st) == 0)
	    ++ok;
	  else if (WIFSIGNALED (st) && WTERMSIG (st) == SIGBUS)
	    ++bus;
	  else
	    ++other;
	}
      printf ("children: %d ok, %d SIGBUS, %d other\n", ok, bus, other);
      printf ("parent: alive, %s\n",
	      bss[0] == 1 && bss[1 << 20] == 1 ? "memory intact"
	      : "MEMORY WRONG");
      return 0;
    }
  int p[2];
  if (pipe (p) != 0)
    return 2;
  pid_t pid = fork ();
  if (pid < 0)
    return 2;
  if (pid == 0)
    {
      if (mode == 2)
	{
	  char c;
	  if (read (p[0], &c, 1) != 1)
	    _exit (4);
	}
      volatile char x = bss[4 << 20];
      bss[4 << 20] = 5;
      _exit (x == 1 && bss[4 << 20] == 5 ? 0 : 3);
    }
  if (mode == 2)
    {
      bss[4 << 20] = 3;
      if (write (p[1], "x", 1) != 1)
	return 2;
    }
  int st;
  waitpid (pid, &st, 0);
  if (WIFSIGNALED (st))
    printf ("child: signal %s\n", sigabbrev_np (WTERMSIG (st)));
  else
    printf ("child: exit %d\n", WEXITSTATUS (st));
  bss[4 << 20] = 4;
  printf ("parent: alive, %s\n",
	  bss[4 << 20] == 4 && bss[0] == 1 ? "memory intact" : "MEMORY WRONG");
  return 0;
}
