/* Test helper for t-cache: dlopen LIB, print what its value () returns,
   read every page of LIB's mappings (so that what backs them is
   faulted in and shows in /proc/PID/smaps), say "ready", and stay
   until the file named by $HOLD_UNTIL exists (or, without it, until
   standard input closes).  With FORKS > 0, first fork that many
   children that run value () and exit; their exit statuses decide the
   exit status.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: hold LIB [FORKS]\n");
      return 2;
    }
  /* HOLD_LOOP=N: first dlopen, call and dlclose it N times.  */
  int loops = getenv ("HOLD_LOOP") != NULL ? atoi (getenv ("HOLD_LOOP")) : 0;
  for (int i = 0; i < loops; ++i)
    {
      void *l = dlopen (argv[1], RTLD_NOW);
      int (*v) (void) = l != NULL ? (int (*) (void)) dlsym (l, "value") : NULL;
      if (v == NULL || v () <= 0 || dlclose (l) != 0)
	{
	  fprintf (stderr, "hold: loop %d: %s\n", i, dlerror ());
	  return 1;
	}
    }
  if (loops > 0)
    printf ("%d loops ok\n", loops);
  void *h = dlopen (argv[1], RTLD_NOW);
  if (h == NULL)
    {
      fprintf (stderr, "hold: %s\n", dlerror ());
      return 1;
    }
  int (*value) (void) = (int (*) (void)) dlsym (h, "value");
  if (value == NULL)
    {
      fprintf (stderr, "hold: no value () in %s\n", argv[1]);
      return 1;
    }
  printf ("value %d\n", value ());

  int forks = argc > 2 ? atoi (argv[2]) : 0;
  for (int i = 0; i < forks; ++i)
    {
      pid_t pid = fork ();
      if (pid == 0)
	_exit (value () > 0 ? 0 : 1);
      int status;
      if (pid < 0 || waitpid (pid, &status, 0) != pid
	  || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
	{
	  printf ("child %d died\n", i);
	  return 1;
	}
    }
  if (forks > 0)
    printf ("%d children ok\n", forks);

  const char *name = strrchr (argv[1], '/');
  name = name != NULL ? name + 1 : argv[1];
  FILE *maps = fopen ("/proc/self/maps", "r");
  char line[4096];
  unsigned long sum = 0;
  while (maps != NULL && fgets (line, sizeof line, maps) != NULL)
    {
      unsigned long a, b;
      char perms[8];
      /* The library's own mappings, and the cache files its zones
	 come from.  */
      if (sscanf (line, "%lx-%lx %7s", &a, &b, perms) == 3
	  && perms[0] == 'r'
	  && (strstr (line, name) != NULL || strstr (line, "/hugeld/")))
	for (unsigned long p = a; p < b; p += 4096)
	  sum += *(volatile unsigned char *) p;
    }
  if (maps != NULL)
    fclose (maps);
  printf ("ready %lu\n", sum & 1);
  fflush (stdout);
  const char *until = getenv ("HOLD_UNTIL");
  char c;
  if (until != NULL)
    while (access (until, F_OK) != 0)
      usleep (20000);
  else
    while (read (0, &c, 1) > 0)
      ;
  return 0;
}
