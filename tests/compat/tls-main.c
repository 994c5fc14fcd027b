/* hugeld test: TLS of a library on huge pages, in the main thread and
   in new threads.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: compat-tls [-H] [LIBRARY]

   Built twice: linked against libcompattls.so (its TLS is in the
   static TLS block, which each thread's creation initialises from the
   image), and with -DCOMPAT_TLS_DLOPEN, dlopening LIBRARY (dynamic
   TLS, initialised on a thread's first access).  Either way the image
   is the library's .tdata as the loader mapped it.

   stdout: the values each thread saw.  stderr: the page sizes of the
   image's middle and of the library's code; with -H they must be
   2 MiB.  Exit status as in compat.h.  */

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

#include "compat.h"
#include "tls.h"

#define NTHREADS 4

#ifdef COMPAT_TLS_DLOPEN
static int (*p_check_initial) (void);
static void (*p_set) (int);
static int (*p_get_sum) (void);
# define compat_tls_check_initial p_check_initial
# define compat_tls_set p_set
# define compat_tls_get_sum p_get_sum
#endif

static pthread_barrier_t barrier;

struct thread_result
{
  int initial;			/* compat_tls_check_initial () at start.  */
  int sum;			/* compat_tls_get_sum () after the barrier.  */
};

static void *
thread_main (void *arg)
{
  int id = (int) (intptr_t) arg;
  struct thread_result *r = malloc (sizeof *r);
  r->initial = compat_tls_check_initial ();
  compat_tls_set (id * 10);
  /* Everyone has written its own copy before anyone reads back.  */
  pthread_barrier_wait (&barrier);
  r->sum = compat_tls_get_sum ();
  return r;
}

/* The address of the library's TLS image, from its PT_TLS header.  */
struct image_search
{
  const char *name;
  const char *image;
  size_t memsz, filesz;
  size_t modid;
};

static int
find_image (struct dl_phdr_info *info, size_t size, void *data)
{
  struct image_search *s = data;
  (void) size;
  if (strcmp (compat_basename (info->dlpi_name), s->name) != 0)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS)
      {
	s->image = (const char *) (info->dlpi_addr
				   + info->dlpi_phdr[i].p_vaddr);
	s->memsz = info->dlpi_phdr[i].p_memsz;
	s->filesz = info->dlpi_phdr[i].p_filesz;
	s->modid = info->dlpi_tls_modid;
      }
  return 1;
}

int
main (int argc, char **argv)
{
  int a = 1;
  if (a < argc && strcmp (argv[a], "-H") == 0)
    {
      compat_want_huge = true;
      ++a;
    }
#ifdef COMPAT_TLS_DLOPEN
  if (a >= argc)
    {
      fprintf (stderr, "usage: %s [-H] LIBRARY\n", argv[0]);
      return 2;
    }
  void *h = dlopen (argv[a], RTLD_NOW);
  if (h == NULL)
    {
      printf ("dlopen: %s\n", dlerror ());
      return 1;
    }
  p_check_initial = (int (*) (void)) dlsym (h, "compat_tls_check_initial");
  p_set = (void (*) (int)) dlsym (h, "compat_tls_set");
  p_get_sum = (int (*) (void)) dlsym (h, "compat_tls_get_sum");
  if (p_check_initial == NULL || p_set == NULL || p_get_sum == NULL)
    {
      printf ("dlsym: %s\n", dlerror ());
      return 1;
    }
  printf ("TLS of the dlopened library (dynamic TLS)\n");
#else
  printf ("TLS of the linked library (static TLS)\n");
#endif

  struct image_search s = { .name = "libcompattls.so" };
  dl_iterate_phdr (find_image, &s);
  if (!compat_expect ("PT_TLS found", s.image != NULL))
    return compat_exit_status ();
  printf ("PT_TLS: filesz %#zx memsz %#zx, module id > 0: %s\n",
	  s.filesz, s.memsz, s.modid > 0 ? "yes" : "no");
  compat_check_huge ("TLS image (.tdata, middle of the block)",
		     s.image + COMPAT_TLS_MID_OFFSET);
  compat_check_huge ("code (compat_tls_check_initial)",
		     (const void *) compat_tls_check_initial);

  int initial = compat_tls_check_initial ();
  printf ("main thread: initial values (0 = right): %d\n", initial);
  if (initial != 0)
    compat_bad ("main thread: TLS initial values");
  compat_tls_set (1000);
  printf ("main thread: after setting 1000: sum %d\n", compat_tls_get_sum ());

  pthread_attr_t attr;
  pthread_attr_init (&attr);
  /* Room for the 4 MiB static TLS block besides the stack.  */
  pthread_attr_setstacksize (&attr, 32 << 20);
  pthread_barrier_init (&barrier, NULL, NTHREADS);
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; ++i)
    {
      int err = pthread_create (&t[i], &attr, thread_main,
				(void *) (intptr_t) (i + 1));
      if (err != 0)
	{
	  printf ("pthread_create: %s\n", strerror (err));
	  return 1;
	}
    }
  for (int i = 0; i < NTHREADS; ++i)
    {
      void *ret;
      pthread_join (t[i], &ret);
      struct thread_result *r = ret;
      printf ("thread %d: initial values (0 = right): %d, own sum %d\n",
	      i + 1, r->initial, r->sum);
      if (r->initial != 0)
	compat_bad ("thread: TLS initial values");
      if (r->sum != 5 * (i + 1) * 10)
	compat_bad ("thread: TLS values are not its own");
      free (r);
    }
  int sum = compat_tls_get_sum ();
  printf ("main thread: sum after the threads: %d\n", sum);
  if (sum != 5000)
    compat_bad ("main thread: TLS changed by other threads");
  return compat_exit_status ();
}
