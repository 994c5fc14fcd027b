/* hugeld's tests: run a program with exactly the environment a file
   gives, repeated names and all (env(1) and Python keep one string per
   name; ld.so must be shown every one).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: execenv [-u UID:GID] ENVFILE PROG [ARG...]
   ENVFILE holds the NAME=VALUE strings, each ended by a NUL, in order.
   With -u, PROG runs as UID:GID (no supplementary groups).  */

#define _GNU_SOURCE 1
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int i = 1;
  unsigned int uid = 0, gid = 0;
  int as_user = 0;
  if (argc > 2 && strcmp (argv[1], "-u") == 0)
    {
      if (sscanf (argv[2], "%u:%u", &uid, &gid) != 2)
	return 127;
      as_user = 1;
      i = 3;
    }
  if (argc - i < 2)
    {
      fputs ("usage: execenv [-u UID:GID] ENVFILE PROG [ARG...]\n", stderr);
      return 127;
    }
  FILE *f = fopen (argv[i], "rb");
  if (f == NULL)
    {
      perror (argv[i]);
      return 127;
    }
  size_t cap = 1 << 20, len = 0, n;
  char *buf = malloc (cap);
  while (buf != NULL && (n = fread (buf + len, 1, cap - len, f)) > 0)
    if ((len += n) == cap)
      buf = realloc (buf, cap *= 2);
  fclose (f);
  if (buf == NULL)
    return 127;
  size_t count = 0;
  for (size_t k = 0; k < len; ++k)
    count += buf[k] == '\0';
  char **env = calloc (count + 1, sizeof *env);
  size_t e = 0;
  for (size_t k = 0; k < len; k += strlen (buf + k) + 1)
    env[e++] = buf + k;
  env[e] = NULL;
  if (as_user
      && (setgroups (0, NULL) != 0 || setresgid (gid, gid, gid) != 0
	  || setresuid (uid, uid, uid) != 0))
    {
      perror ("execenv: set user");
      return 127;
    }
  execve (argv[i + 1], argv + i + 1, env);
  perror (argv[i + 1]);
  return 127;
}
