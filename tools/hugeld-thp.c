/* hugeld-thp: what the page cache holds under the thp zones of objects,
   and its repair between starts.
   Copyright (C) 2026 The hugeld authors.
   This file is part of hugeld, a patch set for the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* hugeld-thp [--repair] FILE...

   For each FILE (a regular file, opened as hugeld-plan opens objects),
   the read-only zones ld.so's thp backing maps from the file, planned
   with the loader's own planner (elf/dl-hugepage-plan.c) as ld.so
   plans an object whose text it places at its file phase, and, per
   2 MiB range of them, what the page cache holds:

     huge        one 2 MiB folio: every process that maps the range at
                 a congruent address maps it with one PMD;
     small       smaller folios (another process read the file first:
                 cat, a backup, a process the stock loader started):
                 mapped with 4 KiB pages, by everyone, until repaired;
     not cached  nothing: the first process that touches it under
                 MADV_HUGEPAGE reads it as a 2 MiB folio.

   ld.so itself does none of this (elf/dl-hugepage-thp.c): a repair
   costs the start that makes it, and cannot drop what another process
   maps.  With --repair, each "small" range is made "huge":

     - MADV_COLLAPSE of our own mapping of it, where the kernel
       collapses file text (Linux 7.2 and later; kernels built with
       CONFIG_READ_ONLY_THP_FOR_FS); that also replaces the small
       folios other processes map;
     - elsewhere, if no other process maps a page of it (pagemap's
       exclusive bit on every cached page, which this process maps
       for the check): its folios are dropped (POSIX_FADV_DONTNEED
       drops only what nobody maps) and the range read again, by one
       fault of a MADV_HUGEPAGE | MADV_RANDOM mapping: one 2 MiB folio
       where the file system makes them.  A range another process maps
       is "held" and left alone, as is every range of a file whose
       first range came back in small folios (the kernel or the file
       system makes none here).

   Whether a page is cached is asked with mincore, which answers only
   a caller who may write the file or owns it (root: CAP_FOWNER); to
   anyone else it says "not cached", so that nothing is repaired.  The
   output is one JSON document:

     {"files": [{"file": F, "ranges": N, "huge": N, "small": N,
                 "held": N, "not_cached": N, "repaired": N,
                 "collapsed": N, "failed": N, "why": null or "..."}]}

   (the counts after the repair; "why" says what stopped it).  Exit
   status 0, or 1 with one line on stderr if a FILE cannot be read as
   an object (nothing is printed then).  */

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hugeld-json.h"
#include "hugeld-open.h"
#include "hugeld-plan.h"

#ifndef MADV_COLLAPSE
# define MADV_COLLAPSE 25
#endif

const char *progname = "hugeld-thp";

#define HUGE_SIZE PLAN_HUGEPAGESIZE
#define SMALL_PAGE PLAN_PAGESIZE
#define CHUNK_PAGES (HUGE_SIZE / SMALL_PAGE)

/* /proc/self/pagemap: bit 63 present, bit 56 the page is mapped by
   this process only.  */
#define PM_PRESENT (1ULL << 63)
#define PM_EXCLUSIVE (1ULL << 56)

/* The kernel refused MADV_COLLAPSE for file text (EINVAL): not asked
   again.  */
static bool no_collapse;

struct counts
{
  size_t ranges, huge, small, held, not_cached, repaired, collapsed, failed;
  const char *why;
};

/* A file range of 2 MiB, at a 2 MiB aligned offset.  */
struct range
{
  uint64_t off;
};

/* The 2 MiB file ranges ld.so maps with the thp backing for object O
   into R (at most MAX), in file order; their number.  */
static size_t
thp_ranges (const struct object *o, struct range *r, size_t max)
{
  struct hp_settings s;
  _dl_hugepage_settings (&s, PLAN_PAGESIZE, HP_KIND_TEXT | HP_KIND_RODATA,
			 o->type, false, false, 0, o->textrel,
			 HP_PHASE_ALWAYS);
  s.file_size = o->file_size;
  static struct hp_plan plan;
  _dl_hugepage_plan (o->phdr, o->phnum, &s, &plan);
  if (plan.error != HP_E_NONE)
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < plan.nzones; ++i)
    {
      const struct hp_zone *z = &plan.zones[i];
      if ((z->prot & PF_W) != 0 || z->copy_len == 0)
	continue;
      /* As ld.so (dl-hugepage-thp.c): the zone must be at its file
	 phase, and it maps the file across the whole zone only where
	 the planner allows it, else the whole 2 MiB of the segment's
	 file pages.  */
      if ((plan.bias + z->copy_start - z->fileoff) % HUGE_SIZE != 0)
	continue;
      uint64_t start = z->start, end = z->end;
      uint64_t cs = z->copy_start, ce = z->copy_start + z->copy_len;
      if ((start < cs || end > ce) && !z->file_whole)
	{
	  start = (plan.bias + cs + HUGE_SIZE - 1) / HUGE_SIZE * HUGE_SIZE
		  - plan.bias;
	  end = (plan.bias + ce) / HUGE_SIZE * HUGE_SIZE - plan.bias;
	}
      for (uint64_t a = start; a + HUGE_SIZE <= end && n < max;
	   a += HUGE_SIZE)
	{
	  uint64_t off = z->fileoff + (a - z->copy_start);
	  if (off % HUGE_SIZE == 0 && off + HUGE_SIZE <= o->file_size)
	    r[n++].off = off;
	}
    }
  return n;
}

/* Map FD's range at OFF read-only at A (2 MiB aligned, inside our own
   reservation), MADV_HUGEPAGE and MADV_RANDOM: a fault where the page
   cache holds nothing reads exactly that 2 MiB, as one folio where the
   kernel makes them.  Mapping it again replaces what this process
   mapped there, page table included.  */
static bool
map_range (char *a, int fd, uint64_t off)
{
  if (mmap (a, HUGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, off)
      == MAP_FAILED)
    return false;
  madvise (a, HUGE_SIZE, MADV_HUGEPAGE);
  madvise (a, HUGE_SIZE, MADV_RANDOM);
  return true;
}

/* How many pages of the range at A are in the page cache (VEC gets
   mincore's answer per page); -1 if mincore failed.  */
static int
cached (char *a, unsigned char vec[CHUNK_PAGES])
{
  if (mincore (a, HUGE_SIZE, vec) != 0)
    return -1;
  int n = 0;
  for (size_t i = 0; i < CHUNK_PAGES; ++i)
    n += vec[i] & 1;
  return n;
}

/* Whether the page at A is mapped in this process.  */
static bool
present (int pmfd, char *a)
{
  uint64_t e;
  return (pmfd >= 0
	  && pread (pmfd, &e, 8, (uintptr_t) a / SMALL_PAGE * 8) == 8
	  && (e & PM_PRESENT) != 0);
}

/* Touch the range at A and tell whether it is mapped with one huge
   page: its middle page is then mapped too (a fault maps at most 64
   KiB of small folios around itself, by default).  */
static bool
touch_huge (int pmfd, char *a)
{
  (void) *(volatile const char *) a;
  return present (pmfd, a + HUGE_SIZE / 2);
}

/* The range at OFF, just read again by touch_huge's fault, carries the
   kernel's readahead mark (the fault of a MADV_HUGEPAGE mapping reads
   the 2 MiB folio with the mark on it, for the next window: after a
   repair of libLLVM-14, 48 of its 48 2 MiB folios had it, by
   /proc/kpageflags).  The next process that maps such a folio finds
   the mark: fault-around skips it, so that process takes a whole fault
   for it and starts a readahead from there, on its own critical path
   (the first clang-14 after a repair of libclang-cpp read 4 more 2 MiB
   ranges of it that way).  A read of one byte of the folio here clears
   the mark, and whatever readahead it starts runs now, in the
   repair.  */
static void
clear_readahead_mark (int fd, uint64_t off)
{
  char c;
  (void) pread (fd, &c, 1, off);
}

/* Whether another process maps a page of the range at A: every page
   the page cache holds (VEC) is mapped here first, then pagemap says
   whether this process is the only one that maps it.  */
static bool
held (int pmfd, char *a, const unsigned char vec[CHUNK_PAGES])
{
  for (size_t i = 0; i < CHUNK_PAGES; ++i)
    if ((vec[i] & 1) != 0 && !present (pmfd, a + i * SMALL_PAGE))
      (void) *(volatile const char *) (a + i * SMALL_PAGE);
  static uint64_t pm[CHUNK_PAGES];
  if (pmfd < 0
      || pread (pmfd, pm, sizeof pm, (uintptr_t) a / SMALL_PAGE * 8)
	 != sizeof pm)
    return true;
  for (size_t i = 0; i < CHUNK_PAGES; ++i)
    if ((pm[i] & PM_PRESENT) != 0 && (pm[i] & PM_EXCLUSIVE) == 0)
      return true;
  return false;
}

/* Look at (and with REPAIR, repair) the ranges R[0..N) of FD into *C.  */
static void
survey (int fd, const struct range *r, size_t n, bool repair,
	struct counts *c)
{
  c->ranges = n;
  if (n == 0)
    return;
  /* One reservation, 2 MiB aligned, where each range is mapped in
     turn.  */
  char *area = mmap (NULL, 2 * HUGE_SIZE, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      c->why = "mmap of an address range failed";
      return;
    }
  char *a = (char *) (((uintptr_t) area + HUGE_SIZE - 1)
		      & ~(uintptr_t) (HUGE_SIZE - 1));
  int pmfd = open ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pmfd < 0)
    c->why = "/proc/self/pagemap unreadable";
  /* A range read again came in small folios: repair no more.  */
  bool stop = false;
  static unsigned char vec[CHUNK_PAGES];
  for (size_t i = 0; i < n; ++i)
    {
      if (!map_range (a, fd, r[i].off))
	{
	  c->why = "mmap of the file failed";
	  c->failed += n - i;
	  break;
	}
      int k = cached (a, vec);
      if (k < 0)
	{
	  c->why = "mincore failed";
	  c->failed += n - i;
	  break;
	}
      if (k == 0)
	{
	  ++c->not_cached;
	  continue;
	}
      if (k == (int) CHUNK_PAGES && touch_huge (pmfd, a))
	{
	  ++c->huge;
	  continue;
	}
      if (!repair || stop || pmfd < 0)
	{
	  ++c->small;
	  continue;
	}
      if (!no_collapse)
	{
	  int e = madvise (a, HUGE_SIZE, MADV_COLLAPSE) == 0 ? 0 : errno;
	  if (e == EAGAIN)
	    e = madvise (a, HUGE_SIZE, MADV_COLLAPSE) == 0 ? 0 : errno;
	  if (e == 0 && touch_huge (pmfd, a))
	    {
	      ++c->collapsed;
	      ++c->huge;
	      continue;
	    }
	  if (e == EINVAL)
	    no_collapse = true;
	}
      if (held (pmfd, a, vec))
	{
	  ++c->held;
	  continue;
	}
      /* Unmap our own pages of it (and their page table), drop what
	 nobody maps, and see that nothing is left.  */
      if (!map_range (a, fd, r[i].off))
	{
	  c->why = "mmap of the file failed";
	  c->failed += n - i;
	  break;
	}
      posix_fadvise (fd, r[i].off, HUGE_SIZE, POSIX_FADV_DONTNEED);
      if (cached (a, vec) != 0)
	{
	  ++c->held;
	  continue;
	}
      if (touch_huge (pmfd, a))
	{
	  clear_readahead_mark (fd, r[i].off);
	  ++c->repaired;
	  ++c->huge;
	  continue;
	}
      ++c->failed;
      if (c->huge == 0)
	{
	  stop = true;
	  c->why = "a range read again came in small folios: the kernel "
		   "or the file system makes no 2 MiB page-cache folios here";
	}
    }
  if (pmfd >= 0)
    close (pmfd);
  munmap (area, 2 * HUGE_SIZE);
}

static void
usage (FILE *out)
{
  fprintf (out, "\
usage: %s [--repair] [--strict-links] FILE...\n\
\n\
What the page cache holds under the read-only zones that hugeld's thp\n\
backing maps from each FILE, per 2 MiB range (huge, small, not cached),\n\
as one JSON document.  With --repair, ranges in small folios are made\n\
2 MiB folios: MADV_COLLAPSE where the kernel has it for file text, else\n\
dropped and read again where no other process maps them.  Needs root\n\
(or to own the files): the page cache is asked with mincore.\n\
\n\
  --repair            repair what is in small folios\n\
  --strict-links      follow only the symbolic links that root (or the\n\
                      caller) owns in the paths of the FILEs\n\
  --help              this text\n", progname);
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "repair", no_argument, NULL, 'r' },
    { "strict-links", no_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  bool repair = false;
  int c;
  while ((c = getopt_long (argc, argv, "", longopts, NULL)) != -1)
    switch (c)
      {
      case 'r':
	repair = true;
	break;
      case 's':
	strict_links = true;
	break;
      case 'h':
	usage (stdout);
	return 0;
      default:
	usage (stderr);
	return 2;
      }
  if (optind >= argc)
    {
      fprintf (stderr, "%s: no file given (try --help)\n", progname);
      return 2;
    }
  size_t nfiles = argc - optind;
  struct object *objs = calloc (nfiles, sizeof *objs);
  if (objs == NULL)
    die ("out of memory");
  /* Every object is read before anything is printed or repaired.  */
  for (size_t i = 0; i < nfiles; ++i)
    read_object (argv[optind + i], &objs[i]);

  static struct range r[HP_MAX_RUNS * 8192];
  printf ("{\"files\": [");
  for (size_t i = 0; i < nfiles; ++i)
    {
      struct counts cnt = { 0 };
      struct stat st;
      char why[HUGELD_OPEN_WHY_MAX];
      int fd = hugeld_open_regular (objs[i].file, strict_links, &st, why);
      if (fd < 0)
	cnt.why = "cannot be opened again";
      else if ((uint64_t) st.st_size != objs[i].file_size)
	cnt.why = "changed while it was read";
      else
	survey (fd, r, thp_ranges (&objs[i], r, sizeof r / sizeof r[0]),
		repair, &cnt);
      if (fd >= 0)
	close (fd);
      printf ("%s\n {\"file\": ", i == 0 ? "" : ",");
      json_string (objs[i].file);
      printf (", \"ranges\": %zu, \"huge\": %zu, \"small\": %zu, "
	      "\"held\": %zu, \"not_cached\": %zu, \"repaired\": %zu, "
	      "\"collapsed\": %zu, \"failed\": %zu, \"why\": ",
	      cnt.ranges, cnt.huge, cnt.small, cnt.held, cnt.not_cached,
	      cnt.repaired, cnt.collapsed, cnt.failed);
      if (cnt.why != NULL)
	json_string (cnt.why);
      else
	printf ("null");
      printf ("}");
    }
  printf ("\n]}\n");
  return ferror (stdout) || fflush (stdout) != 0;
}
