/* atexit-smaps OUT PROG [ARG...]: run PROG and, when it exits, copy
   its /proc/PID/smaps (what it had mapped at its last moment) to OUT;
   exit as PROG did (its status, or 128 + the signal that killed it).
   Copyright (C) 2026 The hugeld authors.
   This file is part of hugeld, a patch set for the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* For tests/t-programs.sh: the share of a short-lived program's code
   that was on 2 MiB pages, read from the kernel (smaps), not from
   ld.so's report.  Only PTRACE_O_TRACEEXIT is asked for: the program
   runs as it would (no breakpoint, no single step); its children are
   not traced; every signal it receives is handed back to it (a
   SIGTRAP of its own too: only ptrace's events are not signals).  An
   exec keeps the trace, so OUT describes the last program the process
   ran.  */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static void
copy_smaps (pid_t pid, const char *out)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/smaps", (int) pid);
  int in = open (path, O_RDONLY | O_CLOEXEC);
  int to = open (out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (in < 0 || to < 0)
    {
      fprintf (stderr, "atexit-smaps: %s: %m\n", in < 0 ? path : out);
      return;
    }
  char buf[65536];
  ssize_t n;
  while ((n = read (in, buf, sizeof buf)) > 0)
    if (write (to, buf, n) != n)
      break;
  close (in);
  close (to);
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: atexit-smaps OUT PROG [ARG...]\n");
      return 2;
    }
  pid_t pid = fork ();
  if (pid < 0)
    return 127;
  if (pid == 0)
    {
      if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) != 0)
	_exit (127);
      execvp (argv[2], argv + 2);
      fprintf (stderr, "atexit-smaps: %s: %m\n", argv[2]);
      _exit (127);
    }
  int st;
  /* The stop at the first exec.  */
  if (waitpid (pid, &st, 0) != pid || !WIFSTOPPED (st))
    return WIFEXITED (st) ? WEXITSTATUS (st) : 127;
  ptrace (PTRACE_SETOPTIONS, pid, NULL,
	  (void *) (long) (PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC
			   | PTRACE_O_EXITKILL));
  ptrace (PTRACE_CONT, pid, NULL, NULL);
  for (;;)
    {
      if (waitpid (pid, &st, 0) != pid)
	{
	  if (errno == EINTR)
	    continue;
	  return 127;
	}
      if (WIFEXITED (st))
	return WEXITSTATUS (st);
      if (WIFSIGNALED (st))
	return 128 + WTERMSIG (st);
      int sig = WSTOPSIG (st);
      int event = st >> 16;
      if (event == PTRACE_EVENT_EXIT)
	{
	  copy_smaps (pid, argv[1]);
	  sig = 0;
	}
      else if (event != 0)
	/* PTRACE_EVENT_EXEC: not a signal of the program's.  */
	sig = 0;
      ptrace (PTRACE_CONT, pid, NULL, (void *) (long) sig);
    }
}
