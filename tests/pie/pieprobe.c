/* t-pie: a big position-independent program that looks at itself.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Linked with big-pic.o (24 MiB of code) and hugeld's ld.so as its
   PT_INTERP, started by the kernel.

   pieprobe check   print what the process sees of its own address, from
		    every source, and whether they agree:
		      base B         the load bias (dl_iterate_phdr)
		      agree yes|no   getauxval (AT_PHDR, AT_ENTRY), the
				     kernel's copy (/proc/self/auxv),
				     dl_iterate_phdr, the link map's entry
				     (_start), /proc/self/maps and the
				     code bounds of /proc/self/stat
		      phase yes|no   its text at an address congruent to
				     its file offset modulo 2 MiB
		      digest D       big_digest (): the same for every
				     loader
   pieprobe wait    read a byte of each page of its text (each 2 MiB
		    range mapped as the page cache allows), print "ready
		    B", then wait for standard input to close (smaps, gdb,
		    perf and core dumps look at it meanwhile)
   pieprobe spin S  run big_run for S seconds, print "spun"  */

#define _GNU_SOURCE 1
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>
#include "big.h"

extern char _start[];

static ElfW(Addr) base;
static const ElfW(Phdr) *phdr;

static int
find_main (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (info->dlpi_name[0] == '\0' && phdr == NULL)
    {
      base = info->dlpi_addr;
      phdr = info->dlpi_phdr;
    }
  return 0;
}

/* AT_PHDR and AT_ENTRY of /proc/self/auxv.  */
static void
kernel_auxv (unsigned long *at_phdr, unsigned long *at_entry)
{
  unsigned long a[256];
  int fd = open ("/proc/self/auxv", O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read (fd, a, sizeof a);
  *at_phdr = *at_entry = 0;
  for (ssize_t i = 0; i + 1 < n / (ssize_t) sizeof a[0]; i += 2)
    if (a[i] == AT_PHDR)
      *at_phdr = a[i + 1];
    else if (a[i] == AT_ENTRY)
      *at_entry = a[i + 1];
  if (fd >= 0)
    close (fd);
}

/* Whether /proc/self/maps has the program's text where it should be:
   an r-xp mapping of our file containing _start, at an address
   congruent to its offset modulo 2 MiB (PHASE); with TOUCH, read a
   byte of each of its pages.  */
static int
text_mapping (int *phase, int touch)
{
  /* Named in two pieces: `hugeld cache add' leaves out the text of an
     object that names /proc/self/maps (it would map its own code again
     from there, as V8 does), and this one is cached whole.  */
  char name[32];
  snprintf (name, sizeof name, "/proc/self/%s", "maps");
  FILE *f = fopen (name, "r");
  char line[4096];
  unsigned long a, b, off;
  char perms[8];
  int found = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "%lx-%lx %7s %lx", &a, &b, perms, &off) == 4
	&& a <= (unsigned long) _start && (unsigned long) _start < b
	&& strcmp (perms, "r-xp") == 0 && strstr (line, "pieprobe") != NULL)
      {
	found = 1;
	*phase = (a - off) % (2UL << 20) == 0;
	for (unsigned long p = a; touch && p < b; p += 4096)
	  (void) *(volatile const char *) p;
      }
  if (f != NULL)
    fclose (f);
  return found;
}

/* start_code and end_code of /proc/self/stat.  */
static void
stat_code (unsigned long *start, unsigned long *end)
{
  char buf[2048];
  int fd = open ("/proc/self/stat", O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read (fd, buf, sizeof buf - 1);
  *start = *end = 0;
  if (fd >= 0)
    close (fd);
  if (n <= 0)
    return;
  buf[n] = '\0';
  char *p = strrchr (buf, ')');
  int k = 2;
  for (char *t = strtok (p + 1, " "); t != NULL; t = strtok (NULL, " "))
    if (++k == 26)
      *start = strtoul (t, NULL, 10);
    else if (k == 27)
      *end = strtoul (t, NULL, 10);
}

int
main (int argc, char **argv)
{
  dl_iterate_phdr (find_main, NULL);
  const char *what = argc > 1 ? argv[1] : "check";
  if (strcmp (what, "check") == 0)
    {
      unsigned long kphdr, kentry, scode, ecode;
      kernel_auxv (&kphdr, &kentry);
      stat_code (&scode, &ecode);
      int phase = 0, mapped = text_mapping (&phase, 0);
      int agree = (getauxval (AT_PHDR) == (unsigned long) phdr
		   && getauxval (AT_ENTRY) == (unsigned long) _start
		   && kphdr == (unsigned long) phdr
		   && kentry == (unsigned long) _start
		   && mapped
		   && scode <= (unsigned long) _start
		   && (unsigned long) _start < ecode);
      printf ("base %#lx\nagree %s\nphase %s\ndigest %lx\n",
	      (unsigned long) base, agree ? "yes" : "no",
	      phase ? "yes" : "no", big_digest ());
      if (!agree)
	fprintf (stderr, "pieprobe: AT_PHDR %#lx /proc %#lx iterate %p; "
		 "AT_ENTRY %#lx /proc %#lx _start %p; maps %d; stat code "
		 "[%#lx, %#lx)\n", getauxval (AT_PHDR), kphdr, (void *) phdr,
		 getauxval (AT_ENTRY), kentry, (void *) _start, mapped, scode,
		 ecode);
      return !agree;
    }
  if (strcmp (what, "wait") == 0)
    {
      int phase;
      text_mapping (&phase, 1);
      printf ("ready %#lx\n", (unsigned long) base);
      fflush (stdout);
      char c;
      while (read (0, &c, 1) > 0)
	;
      return 0;
    }
  if (strcmp (what, "spin") == 0 && argc > 2)
    {
      time_t end = time (NULL) + atoi (argv[2]);
      unsigned long r = 0;
      for (unsigned int seed = 1; time (NULL) < end; ++seed)
	r ^= big_run (1, seed);
      printf ("spun %lx\n", r & 1);
      return 0;
    }
  return 2;
}
