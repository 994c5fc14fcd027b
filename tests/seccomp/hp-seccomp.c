/* hugeld test helper: run a program under a seccomp allow-list.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: hp-seccomp PROFILE ACTION -- PROGRAM [ARGS...]

   Installs a seccomp filter built with libseccomp that allows exactly
   the system calls PROFILE lists, as systemd's SystemCallFilter= and
   Docker's default profile do, sets no_new_privs and execs PROGRAM
   (searched in PATH).  Every other system call gets ACTION:

     kill    SCMP_ACT_KILL_PROCESS: the process dies of SIGSYS (what a
	     unit gets with SystemCallFilter= and no SystemCallErrorNumber=)
     errno   SCMP_ACT_ERRNO (EPERM)

   PROFILE has one system call name a line; '#' starts a comment, blank
   lines are ignored.  "NAME errno N" makes NAME fail with errno N
   instead of allowing it (Docker's profile answers clone3 with ENOSYS,
   so that glibc falls back to clone).  Names libseccomp does not know
   on this architecture (mmap2, socketcall, arm_fadvise64_64, ...) are
   skipped silently.  The filter covers the native architecture only;
   a system call of another one (x32, i386) kills the process.

   Exit status: PROGRAM's, or 2 for a usage or profile error, 3 if the
   filter cannot be installed, 127 if PROGRAM cannot be executed.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static void
usage (void)
{
  fprintf (stderr,
	   "usage: hp-seccomp PROFILE kill|errno -- PROGRAM [ARGS...]\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  if (argc < 5 || strcmp (argv[3], "--") != 0)
    usage ();
  const char *profile = argv[1];
  uint32_t def;
  if (strcmp (argv[2], "kill") == 0)
    def = SCMP_ACT_KILL_PROCESS;
  else if (strcmp (argv[2], "errno") == 0)
    def = SCMP_ACT_ERRNO (EPERM);
  else
    usage ();

  FILE *f = fopen (profile, "r");
  if (f == NULL)
    {
      fprintf (stderr, "hp-seccomp: %s: %s\n", profile, strerror (errno));
      return 2;
    }
  scmp_filter_ctx ctx = seccomp_init (def);
  if (ctx == NULL)
    {
      fprintf (stderr, "hp-seccomp: seccomp_init failed\n");
      return 3;
    }
  /* no_new_privs is set below, by hand, as systemd does for a unit
     that is not privileged; libseccomp need not set it again.  */
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);

  char line[256];
  unsigned int lineno = 0, allowed = 0;
  while (fgets (line, sizeof line, f) != NULL)
    {
      lineno++;
      char *hash = strchr (line, '#');
      if (hash != NULL)
	*hash = '\0';
      char name[128], word[16];
      int err = 0;
      int n = sscanf (line, "%127s %15s %d", name, word, &err);
      if (n <= 0)
	continue;
      if (n != 1 && (n != 3 || strcmp (word, "errno") != 0 || err <= 0))
	{
	  fprintf (stderr, "hp-seccomp: %s:%u: expected NAME or NAME errno N\n",
		   profile, lineno);
	  return 2;
	}
      int nr = seccomp_syscall_resolve_name (name);
      /* Unknown here, or a pseudo number for a call this architecture
	 does not have.  */
      if (nr == __NR_SCMP_ERROR || nr < 0)
	continue;
      int r = seccomp_rule_add (ctx, n == 1 ? SCMP_ACT_ALLOW
				: SCMP_ACT_ERRNO (err), nr, 0);
      if (r != 0)
	{
	  fprintf (stderr, "hp-seccomp: %s:%u: %s: %s\n", profile, lineno,
		   name, strerror (-r));
	  return 3;
	}
      allowed += n == 1;
    }
  fclose (f);
  if (allowed == 0)
    {
      fprintf (stderr, "hp-seccomp: %s: no system call allowed\n", profile);
      return 2;
    }

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    {
      perror ("hp-seccomp: PR_SET_NO_NEW_PRIVS");
      return 3;
    }
  int r = seccomp_load (ctx);
  if (r != 0)
    {
      fprintf (stderr, "hp-seccomp: seccomp_load: %s\n", strerror (-r));
      return 3;
    }
  seccomp_release (ctx);
  execvp (argv[4], argv + 4);
  /* execve was refused (an errno profile without it) or failed.  */
  fprintf (stderr, "hp-seccomp: %s: %s\n", argv[4], strerror (errno));
  return 127;
}
