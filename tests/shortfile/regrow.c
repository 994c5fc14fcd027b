/* Test helper for t-shortfile: cut FILE in place to CUT bytes and grow
   it back to its bytes, again and again, with PAUSE microseconds whole
   in between (default 0), until SIGTERM; then print how many times.
   The file keeps its inode: every process that maps it sees it
   shorter, then whole, then shorter.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void
on_term (int sig)
{
  stop = 1;
}

int
main (int argc, char **argv)
{
  if (argc != 3 && argc != 4)
    {
      fprintf (stderr, "usage: regrow FILE CUT [PAUSE]\n");
      return 2;
    }
  int fd = open (argv[1], O_RDWR);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      perror (argv[1]);
      return 2;
    }
  off_t cut = atoll (argv[2]);
  useconds_t pause = argc > 3 ? atol (argv[3]) : 0;
  size_t rest = st.st_size - cut;
  char *tail = malloc (rest);
  if (cut <= 0 || cut >= st.st_size || tail == NULL
      || pread (fd, tail, rest, cut) != (ssize_t) rest)
    {
      fprintf (stderr, "regrow: cannot read %s after %lld\n", argv[1],
	       (long long) cut);
      return 2;
    }
  signal (SIGTERM, on_term);
  printf ("ready\n");
  fflush (stdout);
  unsigned long n = 0;
  while (!stop)
    {
      if (ftruncate (fd, cut) != 0
	  || pwrite (fd, tail, rest, cut) != (ssize_t) rest)
	{
	  perror ("regrow");
	  return 1;
	}
      ++n;
      if (pause != 0)
	usleep (pause);
    }
  printf ("%lu cuts\n", n);
  return 0;
}
