/* hugeld test: threads dlopen different copies of the big library at
   the same time; every copy must work, wherever its pages come from.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   dlthreads LIB... : one thread per library, each dlopens it, runs
   big_run (1, 7) and dlcloses it; prints one result line per library
   (in argument order).  */

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct job
{
  const char *path;
  unsigned long result;
  const char *error;
};

static pthread_barrier_t barrier;

static void *
worker (void *arg)
{
  struct job *j = arg;
  pthread_barrier_wait (&barrier);
  void *h = dlopen (j->path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    {
      j->error = dlerror ();
      return NULL;
    }
  unsigned long (*run) (unsigned int, unsigned int) = dlsym (h, "big_run");
  if (run == NULL)
    {
      j->error = "no big_run";
      return NULL;
    }
  j->result = run (1, 7);
  dlclose (h);
  return NULL;
}

int
main (int argc, char **argv)
{
  int n = argc - 1;
  struct job *jobs = calloc (n, sizeof *jobs);
  pthread_t *t = calloc (n, sizeof *t);
  pthread_barrier_init (&barrier, NULL, n);
  for (int i = 0; i < n; ++i)
    {
      jobs[i].path = argv[i + 1];
      pthread_create (&t[i], NULL, worker, &jobs[i]);
    }
  int bad = 0;
  for (int i = 0; i < n; ++i)
    {
      pthread_join (t[i], NULL);
      if (jobs[i].error != NULL)
	{
	  printf ("%d: error %s\n", i, jobs[i].error);
	  bad = 1;
	}
      else
	printf ("%d: %016lx\n", i, jobs[i].result);
    }
  return bad;
}
