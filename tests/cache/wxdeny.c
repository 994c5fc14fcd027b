/* Test helper: run a program under a write-execute policy, as systemd
   runs a unit with MemoryDenyWriteExecute=yes.

     wxdeny seccomp PROG ARGS...   systemd's own refusal: a seccomp
				   filter that fails with EPERM every
				   mprotect and pkey_mprotect asking for
				   PROT_EXEC and every mmap asking for
				   PROT_WRITE and PROT_EXEC together
     wxdeny mdwe PROG ARGS...      the kernel's: prctl PR_SET_MDWE with
				   PR_MDWE_REFUSE_EXEC_GAIN (Linux 6.3);
				   exits 77 where the kernel lacks it

   Both are inherited across execve, so PROG (and the loader that runs
   it) starts under the policy.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_SET_MDWE
# define PR_SET_MDWE 65
# define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

#define ARG2 (offsetof (struct seccomp_data, args[2]))

static int
deny_seccomp (void)
{
  struct sock_filter f[] =
    {
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 3, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 2, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 4, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* mprotect, pkey_mprotect: PROT_EXEC refused.  */
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG2),
      BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 4, 3),
      /* mmap: PROT_WRITE | PROT_EXEC refused.  */
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG2),
      BPF_STMT (BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, PROT_WRITE | PROT_EXEC, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
  struct sock_fprog prog = { .len = sizeof f / sizeof f[0], .filter = f };
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
      || syscall (__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    {
      perror ("wxdeny: seccomp");
      return 1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: wxdeny seccomp|mdwe PROG [ARGS...]\n");
      return 2;
    }
  if (strcmp (argv[1], "seccomp") == 0)
    {
      if (deny_seccomp () != 0)
	return 1;
    }
  else if (strcmp (argv[1], "mdwe") == 0)
    {
      if (prctl (PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0)
	{
	  fprintf (stderr, "wxdeny: prctl PR_SET_MDWE: %s\n",
		   strerror (errno));
	  return errno == EINVAL ? 77 : 1;
	}
    }
  else
    {
      fprintf (stderr, "wxdeny: unknown policy %s\n", argv[1]);
      return 2;
    }
  /* The policy holds: this must now fail.  */
  void *p = mmap (NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED || mprotect (p, 4096, PROT_READ | PROT_EXEC) == 0)
    {
      fprintf (stderr, "wxdeny: the %s policy does not hold\n", argv[1]);
      return 1;
    }
  munmap (p, 4096);
  execv (argv[2], argv + 2);
  perror ("wxdeny: execv");
  return 127;
}
