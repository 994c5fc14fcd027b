/* The floor for putting a file's bytes on huge pages: reserve the huge
   pages (mmap MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB), pread the bytes
   into them, mprotect to r-x.  Prints the median of ITERS runs in us.
     floor FILE OFFSET LENGTH ITERS  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: floor FILE OFFSET LENGTH ITERS\n");
      return 2;
    }
  int fd = open (argv[1], O_RDONLY);
  if (fd < 0)
    { perror (argv[1]); return 1; }
  off_t off = strtoull (argv[2], 0, 0);
  size_t len = strtoull (argv[3], 0, 0);
  int iters = atoi (argv[4]);
  size_t maplen = (len + (2u << 20) - 1) & ~(size_t) ((2u << 20) - 1);
  double *t = calloc (iters, sizeof *t);
  for (int i = 0; i < iters; i++)
    {
      double t0 = now ();
      char *p = mmap (0, maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
      if (p == MAP_FAILED)
	{ perror ("mmap MAP_HUGETLB"); return 1; }
      size_t done = 0;
      while (done < len)
	{
	  ssize_t n = pread (fd, p + done, len - done, off + done);
	  if (n <= 0)
	    { perror ("pread"); return 1; }
	  done += n;
	}
      if (mprotect (p, maplen, PROT_READ | PROT_EXEC) != 0)
	{ perror ("mprotect"); return 1; }
      t[i] = now () - t0;
      munmap (p, maplen);
    }
  qsort (t, iters, sizeof *t, cmp);
  printf ("{\"median_us\": %.1f, \"min_us\": %.1f, \"iters\": %d, \"bytes\": %zu}\n",
	  t[iters / 2], t[0], iters, len);
  return 0;
}
