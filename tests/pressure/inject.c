/* hugeld test tool: make the loader's system calls fail the way old or
   unlucky kernels make them fail, to test that it never leaves a hole.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: inject MODE PROGRAM [ARGS...]

   Runs PROGRAM under ptrace (its main thread only; children and other
   threads run untouched) and rewrites its system calls:

   hole		Every mremap with MREMAP_FIXED except the first (the
		loader's one-time probe, which must see a kernel that
		can move hugetlb mappings) unmaps its destination and
		then fails with EINVAL: what Linux before 5.16 does
		with a hugetlb mapping, and what any kernel may do if a
		move fails after the target was unmapped.
   hole-nomap	As hole, and every mmap with MAP_FIXED_NOREPLACE fails
		with ENOMEM: the ordinary pages cannot be mapped again
		either, so the load must fail cleanly.
   oldkernel	Every mremap with MREMAP_FIXED, the probe included,
		unmaps its destination and fails with EINVAL: Linux 5.10
		as far as hugeld can tell.

   On stderr: "inject: N mremap calls turned into holes, M mmap calls
   failed".  The exit status is PROGRAM's (128 + signal if it was
   killed).  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
# define MAP_FIXED_NOREPLACE 0x100000
#endif

int
main (int argc, char **argv)
{
  if (argc < 3
      || (strcmp (argv[1], "hole") != 0 && strcmp (argv[1], "hole-nomap") != 0
	  && strcmp (argv[1], "oldkernel") != 0))
    {
      fprintf (stderr,
	       "usage: inject hole|hole-nomap|oldkernel PROGRAM [ARGS...]\n");
      return 2;
    }
  bool nomap = strcmp (argv[1], "hole-nomap") == 0;
  /* How many moves to let through: the probe's, or none.  */
  unsigned int spared = strcmp (argv[1], "oldkernel") == 0 ? 0 : 1;

  pid_t pid = fork ();
  if (pid < 0)
    {
      perror ("inject: fork");
      return 2;
    }
  if (pid == 0)
    {
      ptrace (PTRACE_TRACEME, 0, NULL, NULL);
      raise (SIGSTOP);
      execvp (argv[2], argv + 2);
      perror ("inject: exec");
      _exit (127);
    }

  int status;
  if (waitpid (pid, &status, 0) != pid || !WIFSTOPPED (status))
    {
      fprintf (stderr, "inject: child did not stop\n");
      return 2;
    }
  ptrace (PTRACE_SETOPTIONS, pid, NULL,
	  (void *) (long) (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC
			   | PTRACE_O_EXITKILL));

  unsigned int mremaps = 0, holes = 0, failed_mmaps = 0;
  bool in_syscall = false;
  /* What to return when the current system call exits (0: leave it).  */
  long fake_return = 0;
  int sig = 0;
  for (;;)
    {
      if (ptrace (PTRACE_SYSCALL, pid, NULL, (void *) (long) sig) != 0)
	break;
      sig = 0;
      if (waitpid (pid, &status, 0) != pid)
	break;
      if (WIFEXITED (status) || WIFSIGNALED (status))
	break;
      if (!WIFSTOPPED (status))
	continue;
      if (WSTOPSIG (status) != (SIGTRAP | 0x80))
	{
	  /* An event stop (exec) is swallowed, a signal delivered.  */
	  if (status >> 16 == 0)
	    sig = WSTOPSIG (status);
	  continue;
	}

      struct user_regs_struct regs;
      if (ptrace (PTRACE_GETREGS, pid, NULL, &regs) != 0)
	break;
      if (!in_syscall)
	{
	  in_syscall = true;
	  fake_return = 0;
	  if (regs.orig_rax == SYS_mremap && (regs.r10 & MREMAP_FIXED)
	      && mremaps++ >= spared)
	    {
	      /* munmap (new_address, new_size) instead.  */
	      regs.orig_rax = SYS_munmap;
	      regs.rdi = regs.r8;
	      regs.rsi = regs.rdx;
	      ptrace (PTRACE_SETREGS, pid, NULL, &regs);
	      fake_return = -EINVAL;
	      ++holes;
	    }
	  else if (nomap && regs.orig_rax == SYS_mmap
		   && (regs.r10 & MAP_FIXED_NOREPLACE))
	    {
	      /* Skip the call.  */
	      regs.orig_rax = -1;
	      ptrace (PTRACE_SETREGS, pid, NULL, &regs);
	      fake_return = -ENOMEM;
	      ++failed_mmaps;
	    }
	}
      else
	{
	  in_syscall = false;
	  if (fake_return != 0)
	    {
	      regs.rax = fake_return;
	      ptrace (PTRACE_SETREGS, pid, NULL, &regs);
	    }
	}
    }

  fprintf (stderr, "inject: %u mremap calls turned into holes, %u mmap "
	   "calls failed\n", holes, failed_mmaps);
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    {
      fprintf (stderr, "inject: program killed by signal %d\n",
	       WTERMSIG (status));
      return 128 + WTERMSIG (status);
    }
  return 2;
}
