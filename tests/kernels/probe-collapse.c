/* hugeld check-kernels probe: what MADV_COLLAPSE does with the text of
   a file whose page cache the caller prepared (warm or cold).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: probe-collapse FILE

   Linked statically.  It maps FILE read-only at a 2 MiB-aligned
   address (so that every address is congruent to its file offset
   modulo 2 MiB, as hugeld's thp backing places a zone), marks the
   whole mapping MADV_HUGEPAGE (as ld.so does before anything faults),
   then asks MADV_COLLAPSE for the whole 2 MiB pages of the executable
   PT_LOAD at once, as ld.so does for a zone, and then once more for
   each of them alone, to see which fail and why.  After each pass it
   reads every page of the range and then FilePmdMapped of its mapping
   from /proc/self/smaps.
   For the record only (bench/results/kernels-7x.md): the loader's
   report says only "done", "not supported here" (EINVAL) or
   "failed".

   Prints one line on stdout, e.g.
     MADV_COLLAPSE of 10 pages: whole zone: EAGAIN, FilePmdMapped 18432 kB;
       each page: 10 ok, FilePmdMapped 20480 kB
   and exits 0, or 2 if it cannot tell.  */

#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
# define MADV_COLLAPSE 25
#endif
#define HUGE_SIZE (2ul << 20)

static const char *
errname (int e)
{
  switch (e)
    {
    case 0: return "ok";
    case EINVAL: return "EINVAL";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EBUSY: return "EBUSY";
    case EFAULT: return "EFAULT";
    case EPERM: return "EPERM";
    default: return strerror (e);
    }
}

/* FilePmdMapped (kB) of the mapping that starts at START, after
   touching every page of [LO, HI) in it (a collapsed range is mapped
   with a PMD at the next fault).  */
static long
pmd_mapped (uintptr_t start, const volatile char *lo, const volatile char *hi)
{
  for (; lo < hi; lo += 4096)
    (void) *lo;

  FILE *f = fopen ("/proc/self/smaps", "re");
  char line[512];
  long kb = -1;

  int in = 0;

  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long s, e;
      long v;
      if (sscanf (line, "%lx-%lx ", &s, &e) == 2 && strchr (line, '-') < strchr (line, ' '))
	in = s == start;
      else if (in && sscanf (line, "FilePmdMapped: %ld kB", &v) == 1)
	kb = v;
    }
  fclose (f);
  return kb;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      puts ("cannot probe: usage: probe-collapse FILE");
      return 2;
    }
  int fd = open (argv[1], O_RDONLY | O_CLOEXEC);
  struct stat st;
  Elf64_Ehdr eh;
  if (fd < 0 || fstat (fd, &st) != 0
      || pread (fd, &eh, sizeof eh, 0) != sizeof eh
      || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_phentsize != sizeof (Elf64_Phdr) || eh.e_phnum > 64)
    {
      printf ("cannot probe: %s: %m\n", argv[1]);
      return 2;
    }
  Elf64_Phdr ph[64];
  if (pread (fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff)
      != (ssize_t) (eh.e_phnum * sizeof *ph))
    {
      printf ("cannot probe: %s: program headers: %m\n", argv[1]);
      return 2;
    }
  uint64_t lo = 0, hi = 0;
  for (int i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X))
      {
	lo = (ph[i].p_offset + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	hi = (ph[i].p_offset + ph[i].p_filesz) & ~(HUGE_SIZE - 1);
	break;
      }
  if (hi <= lo)
    {
      printf ("cannot probe: %s: no whole 2 MiB page of text\n", argv[1]);
      return 2;
    }
  size_t len = st.st_size;
  char *area = mmap (NULL, len + HUGE_SIZE, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED)
    {
      printf ("cannot probe: mmap: %m\n");
      return 2;
    }
  char *base = (char *) (((uintptr_t) area + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
  if (mmap (base, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0)
      == MAP_FAILED)
    {
      printf ("cannot probe: mmap %s: %m\n", argv[1]);
      return 2;
    }
  if (madvise (base, len, MADV_HUGEPAGE) != 0)
    {
      printf ("cannot probe: MADV_HUGEPAGE: %m\n");
      return 2;
    }
  int n = (hi - lo) / HUGE_SIZE;
  int e = madvise (base + lo, hi - lo, MADV_COLLAPSE) == 0 ? 0 : errno;
  long kb1 = pmd_mapped ((uintptr_t) base, base + lo, base + hi);
  int count[5] = { 0 };		/* ok, EINVAL, EAGAIN, ENOMEM, other */
  int other = 0;
  for (int i = 0; i < n; i++)
    {
      int r = madvise (base + lo + i * HUGE_SIZE, HUGE_SIZE, MADV_COLLAPSE)
	      == 0 ? 0 : errno;
      int k = r == 0 ? 0 : r == EINVAL ? 1 : r == EAGAIN ? 2
	      : r == ENOMEM ? 3 : 4;
      if (k == 4)
	other = r;
      count[k]++;
    }
  long kb2 = pmd_mapped ((uintptr_t) base, base + lo, base + hi);
  printf ("MADV_COLLAPSE of %d pages: whole zone: %s, FilePmdMapped %ld kB;"
	  " each page:", n, errname (e), kb1);
  static const char *const names[] = { "ok", "EINVAL", "EAGAIN", "ENOMEM" };
  for (int k = 0; k < 4; k++)
    if (count[k] > 0)
      printf (" %d %s", count[k], names[k]);
  if (count[4] > 0)
    printf (" %d %s", count[4], errname (other));
  printf (", FilePmdMapped %ld kB\n", kb2);
  return 0;
}
