/* Test helper for t-pressure: dlopen LIB under a resource limit that
   leaves room for the object's ordinary mapping but not for a copy of
   its zones on huge pages.

     limits as LIB     RLIMIT_AS: the address space in use now (VmSize)
		       plus LIB's extent plus 8 MiB
     limits data LIB   RLIMIT_DATA: the data in use now (VmData) plus
		       LIB's writable segments plus 8 MiB
     limits none LIB   no limit

   Prints "loaded" or dlerror's message.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The value of the "KEY:" line of /proc/self/status, in bytes.  */
static unsigned long
status_kb (const char *key)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  unsigned long v = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, key, strlen (key)) == 0)
      v = strtoul (line + strlen (key), NULL, 10) * 1024;
  if (f != NULL)
    fclose (f);
  return v;
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: limits as|data|none LIB\n");
      return 2;
    }
  int fd = open (argv[2], O_RDONLY);
  Elf64_Ehdr eh;
  Elf64_Phdr ph[64];
  if (fd < 0 || pread (fd, &eh, sizeof eh, 0) != sizeof eh
      || eh.e_phnum > 64
      || pread (fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff)
	 != (ssize_t) (eh.e_phnum * sizeof *ph))
    {
      fprintf (stderr, "limits: cannot read %s\n", argv[2]);
      return 2;
    }
  close (fd);
  unsigned long lo = -1UL, hi = 0, data = 0;
  for (int i = 0; i < eh.e_phnum; ++i)
    if (ph[i].p_type == PT_LOAD)
      {
	if (ph[i].p_vaddr < lo)
	  lo = ph[i].p_vaddr;
	if (ph[i].p_vaddr + ph[i].p_memsz > hi)
	  hi = ph[i].p_vaddr + ph[i].p_memsz;
	if (ph[i].p_flags & PF_W)
	  data += ph[i].p_memsz + 4096;
      }
  unsigned long slack = 8UL << 20;
  int which = -1;
  rlim_t lim = 0;
  if (strcmp (argv[1], "as") == 0)
    which = RLIMIT_AS, lim = status_kb ("VmSize:") + (hi - lo) + slack;
  else if (strcmp (argv[1], "data") == 0)
    which = RLIMIT_DATA, lim = status_kb ("VmData:") + data + slack;
  if (which >= 0)
    {
      struct rlimit rl = { lim, lim };
      if (setrlimit (which, &rl) != 0)
	{
	  perror ("limits: setrlimit");
	  return 2;
	}
    }
  void *h = dlopen (argv[2], RTLD_NOW);
  if (h == NULL)
    {
      printf ("%s\n", dlerror ());
      return 1;
    }
  printf ("loaded\n");
  return 0;
}
