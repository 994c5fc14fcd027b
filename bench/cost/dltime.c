/* Time dlopen (RTLD_NOW) + dlclose of LIB, ITERS times; with --touch also
   the time to read one byte of every 4 KiB page of its executable
   segments after dlopen (what the stock loader defers to page faults).
   Prints medians in us as JSON.
     dltime [--touch] LIB ITERS  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static const char *want;
static unsigned long sum;
static size_t touched;

static int touch (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size; (void) data;
  if (strstr (info->dlpi_name, want) == NULL)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
	continue;
      const volatile unsigned char *p
	= (const unsigned char *) (info->dlpi_addr + ph->p_vaddr);
      for (size_t o = 0; o < ph->p_memsz; o += 4096)
	sum += p[o];
      touched += ph->p_memsz;
    }
  return 1;
}

int main (int argc, char **argv)
{
  int do_touch = 0;
  if (argc > 1 && strcmp (argv[1], "--touch") == 0)
    { do_touch = 1; argv++; argc--; }
  if (argc != 3)
    {
      fprintf (stderr, "usage: dltime [--touch] LIB ITERS\n");
      return 2;
    }
  want = strrchr (argv[1], '/') ? strrchr (argv[1], '/') + 1 : argv[1];
  int iters = atoi (argv[2]);
  double *t = calloc (iters, sizeof *t), *tt = calloc (iters, sizeof *tt);
  for (int i = 0; i < iters; i++)
    {
      double t0 = now ();
      void *h = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
      if (h == NULL)
	{ fprintf (stderr, "dlopen: %s\n", dlerror ()); return 1; }
      double t1 = now ();
      if (do_touch)
	dl_iterate_phdr (touch, NULL);
      double t2 = now ();
      dlclose (h);
      t[i] = t1 - t0;
      tt[i] = t2 - t1;
    }
  qsort (t, iters, sizeof *t, cmp);
  qsort (tt, iters, sizeof *tt, cmp);
  printf ("{\"dlopen_median_us\": %.1f, \"touch_median_us\": %.1f, "
	  "\"iters\": %d, \"touched_bytes\": %zu}\n",
	  t[iters / 2], tt[iters / 2], iters, touched / (iters ? iters : 1));
  return sum == 42;
}
