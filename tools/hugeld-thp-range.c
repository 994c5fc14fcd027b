/* hugeld-thp: what the page cache holds under the thp zones of a file,
   and its repair.
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

/* Per 2 MiB range of the zones ld.so's thp backing maps (planned with
   the loader's own planner), what the page cache holds:

     huge        one 2 MiB folio: every process that maps the range at
                 a congruent address maps it with one PMD;
     small       smaller folios (another process read the file first):
                 mapped with 4 KiB pages, by everyone, until repaired;
     not cached  nothing: the first process that touches it under
                 MADV_HUGEPAGE reads it as a 2 MiB folio.

   The repair makes a "small" range "huge":

     - MADV_COLLAPSE of our own mapping of it, where the kernel
       collapses file text (Linux 7.2 and later; kernels built with
       CONFIG_READ_ONLY_THP_FOR_FS); that also replaces the small
       folios other processes map;
     - elsewhere, if no other process maps a page of it (pagemap's
       exclusive bit on every cached page, which this process maps
       for the check): its folios are dropped (POSIX_FADV_DONTNEED
       drops only what nobody maps) and the range read again, by one
       fault of a MADV_HUGEPAGE | MADV_RANDOM mapping: one 2 MiB folio
       where the file system makes them.

   What it never does: read a range that is mostly holes (they would
   become memory: SEEK_DATA, SEEK_HOLE), make more new folios than the
   run's budget, or die of SIGBUS when the file is cut under it (every
   touch of the mapping is guarded; a cut file's range is "changed").
   Each range left in small folios is counted under its reason
   (enum thp_left).

   Whether a page is cached is asked with mincore, which answers only
   a caller who may write the file or owns it (root: CAP_FOWNER); to
   anyone else it says "not cached", so that nothing is repaired.  */

#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dl-hugepage-plan.h"
#include "dl-hugepage-settings.h"
#include "hugeld-thp.h"

#ifndef MADV_COLLAPSE
# define MADV_COLLAPSE 25
#endif

/* /proc/self/pagemap: bit 63 present, bit 56 the page is mapped by
   this process only.  */
#define PM_PRESENT (1ULL << 63)
#define PM_EXCLUSIVE (1ULL << 56)

/* The kernel refused MADV_COLLAPSE for file text (EINVAL): not asked
   again.  */
static bool no_collapse;

size_t
thp_ranges (const struct object *o, struct thp_range *r, size_t max)
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
      if ((plan.bias + z->copy_start - z->fileoff) % THP_HUGE != 0)
	continue;
      uint64_t start = z->start, end = z->end;
      uint64_t cs = z->copy_start, ce = z->copy_start + z->copy_len;
      if ((start < cs || end > ce) && !z->file_whole)
	{
	  start = (plan.bias + cs + THP_HUGE - 1) / THP_HUGE * THP_HUGE
		  - plan.bias;
	  end = (plan.bias + ce) / THP_HUGE * THP_HUGE - plan.bias;
	}
      for (uint64_t a = start; a + THP_HUGE <= end && n < max;
	   a += THP_HUGE)
	{
	  uint64_t off = z->fileoff + (a - z->copy_start);
	  if (off % THP_HUGE == 0 && off + THP_HUGE <= o->file_size)
	    r[n++].off = off;
	}
    }
  return n;
}

/* SIGBUS while touching our mapping of the file: it was cut under us.
   The handler returns to the touch's sigsetjmp; SA_NODEFER leaves the
   signal unblocked, so the jump needs to restore no mask.  */
static sigjmp_buf bus_jump;
static volatile sig_atomic_t bus_armed;

static void
on_bus (int sig)
{
  if (bus_armed)
    siglongjmp (bus_jump, 1);
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
catch_bus (void)
{
  static bool done;
  if (done)
    return;
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_bus;
  sa.sa_flags = SA_NODEFER;
  sigaction (SIGBUS, &sa, NULL);
  done = true;
}

/* Map FD's range at OFF read-only at A (2 MiB aligned, inside our own
   reservation), MADV_HUGEPAGE and MADV_RANDOM: a fault where the page
   cache holds nothing reads exactly that 2 MiB, as one folio where the
   kernel makes them.  Mapping it again replaces what this process
   mapped there, page table included.  */
static bool
map_range (char *a, int fd, uint64_t off)
{
  if (mmap (a, THP_HUGE, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, off)
      == MAP_FAILED)
    return false;
  madvise (a, THP_HUGE, MADV_HUGEPAGE);
  madvise (a, THP_HUGE, MADV_RANDOM);
  return true;
}

/* How many pages of the range at A are in the page cache (VEC gets
   mincore's answer per page); -1 if mincore failed.  */
static int
cached (char *a, unsigned char vec[THP_CHUNK_PAGES])
{
  if (mincore (a, THP_HUGE, vec) != 0)
    return -1;
  int n = 0;
  for (size_t i = 0; i < THP_CHUNK_PAGES; ++i)
    n += vec[i] & 1;
  return n;
}

/* Whether the page at A is mapped in this process.  */
static bool
present (int pmfd, char *a)
{
  uint64_t e;
  return (pmfd >= 0
	  && pread (pmfd, &e, 8, (uintptr_t) a / THP_PAGE * 8) == 8
	  && (e & PM_PRESENT) != 0);
}

/* Read the byte at A; false if that raised SIGBUS (the file is shorter
   than the mapping now).  */
static bool
touch (const char *a)
{
  if (sigsetjmp (bus_jump, 0) != 0)
    {
      bus_armed = 0;
      return false;
    }
  bus_armed = 1;
  (void) *(volatile const char *) a;
  bus_armed = 0;
  return true;
}

/* Touch the range at A and tell whether it is mapped with one huge
   page: its middle page is then mapped too (a fault maps at most 64
   KiB of small folios around itself, by default).  -1 if the touch
   raised SIGBUS.  */
static int
touch_huge (int pmfd, char *a)
{
  if (!touch (a))
    return -1;
  return present (pmfd, a + THP_HUGE / 2);
}

/* The range at A, just made one 2 MiB folio: read a byte of each of
   its pages.  A fault that reads the range from the disk leaves the
   folio's memory as the device wrote it; on a virtual machine whose
   host hands memory back lazily (a balloon, free page reporting), the
   first process to read it afterwards paid for the host's faults, on
   its start-up path (about 70 ms for clang's 150 MiB of libraries).
   One pass here takes them in the repair.  */
static void
warm (const char *a)
{
  for (size_t i = 0; i < THP_HUGE; i += THP_PAGE)
    if (!touch (a + i))
      return;
}

/* The range at OFF, just read again by touch_huge's fault, carries the
   kernel's readahead mark (the fault of a MADV_HUGEPAGE mapping reads
   the 2 MiB folio with the mark on it, for the next window).  The next
   process that maps such a folio finds the mark: fault-around skips
   it, so that process takes a whole fault for it and starts a
   readahead from there, on its own critical path.  A read of one byte
   of the folio here clears the mark, and whatever readahead it starts
   runs now, in the repair.  */
static void
clear_readahead_mark (int fd, uint64_t off)
{
  char c;
  (void) pread (fd, &c, 1, off);
}

/* Whether another process maps a page of the range at A: every page
   the page cache holds (VEC) is mapped here first, then pagemap says
   whether this process is the only one that maps it.  -1 if a touch
   raised SIGBUS.  */
static int
held (int pmfd, char *a, const unsigned char vec[THP_CHUNK_PAGES])
{
  for (size_t i = 0; i < THP_CHUNK_PAGES; ++i)
    if ((vec[i] & 1) != 0 && !present (pmfd, a + i * THP_PAGE)
	&& !touch (a + i * THP_PAGE))
      return -1;
  static uint64_t pm[THP_CHUNK_PAGES];
  if (pmfd < 0
      || pread (pmfd, pm, sizeof pm, (uintptr_t) a / THP_PAGE * 8)
	 != sizeof pm)
    return 1;
  for (size_t i = 0; i < THP_CHUNK_PAGES; ++i)
    if ((pm[i] & PM_PRESENT) != 0 && (pm[i] & PM_EXCLUSIVE) == 0)
      return 1;
  return 0;
}

/* Whether FD's range at OFF holds data enough to be read: at least
   half of it outside holes (SEEK_DATA and SEEK_HOLE; the end of the
   file counts as a hole).  A library linked with a 2 MiB page size can
   have a hole where the linker padded its text to the next segment; a
   sparse file (/var/log/lastlog, or one a user grew) is almost all
   holes, which a read would turn into memory.  */
static bool
mostly_data (int fd, uint64_t off)
{
  uint64_t end = off + THP_HUGE, pos = off, data = 0;
  while (pos < end)
    {
      off_t d = lseek (fd, pos, SEEK_DATA);
      if (d < 0 || (uint64_t) d >= end)
	break;
      off_t h = lseek (fd, d, SEEK_HOLE);
      uint64_t stop = h < 0 || (uint64_t) h > end ? end : (uint64_t) h;
      if (stop <= (uint64_t) d)
	break;
      data += stop - d;
      pos = stop;
    }
  return data >= THP_HUGE / 2;
}

/* Repair the range at OFF, mapped at A, whose page cache holds small
   folios (VEC): what happened to it, counted in *C.  False if the
   range came back in small folios and no range of the file is huge:
   the kernel or the file system makes no 2 MiB folios here, and the
   rest of the file is left as it is.  */
static bool
repair_range (int fd, int pmfd, char *a, uint64_t off,
	      unsigned char vec[THP_CHUNK_PAGES], struct thp_run *run,
	      struct thp_counts *c)
{
  if (!mostly_data (fd, off))
    {
      ++c->left[THP_LEFT_hole];
      return true;
    }
  if (run->budget < THP_HUGE)
    {
      ++c->left[THP_LEFT_budget];
      return true;
    }
  if (!no_collapse)
    {
      int e = madvise (a, THP_HUGE, MADV_COLLAPSE) == 0 ? 0 : errno;
      if (e == EAGAIN)
	e = madvise (a, THP_HUGE, MADV_COLLAPSE) == 0 ? 0 : errno;
      if (e == 0)
	{
	  int h = touch_huge (pmfd, a);
	  if (h < 0)
	    {
	      ++c->left[THP_LEFT_changed];
	      return true;
	    }
	  if (h > 0)
	    {
	      run->budget -= THP_HUGE;
	      c->read += THP_HUGE;
	      warm (a);
	      ++c->collapsed;
	      ++c->huge;
	      return true;
	    }
	}
      if (e == EINVAL)
	no_collapse = true;
    }
  int h = held (pmfd, a, vec);
  if (h != 0)
    {
      ++c->left[h < 0 ? THP_LEFT_changed : THP_LEFT_held];
      return true;
    }
  /* Unmap our own pages of it (and their page table), drop what
     nobody maps, and see that nothing is left.  */
  if (!map_range (a, fd, off))
    {
      ++c->left[THP_LEFT_changed];
      return true;
    }
  posix_fadvise (fd, off, THP_HUGE, POSIX_FADV_DONTNEED);
  if (cached (a, vec) != 0)
    {
      ++c->left[THP_LEFT_kept];
      return true;
    }
  /* The file may have been cut or punched since the first look.  */
  if (!mostly_data (fd, off))
    {
      ++c->left[THP_LEFT_changed];
      return true;
    }
  run->budget -= THP_HUGE;
  c->read += THP_HUGE;
  h = touch_huge (pmfd, a);
  if (h < 0)
    {
      ++c->left[THP_LEFT_changed];
      return true;
    }
  if (h > 0)
    {
      clear_readahead_mark (fd, off);
      warm (a);
      ++c->repaired;
      ++c->huge;
      return true;
    }
  ++c->left[THP_LEFT_failed];
  if (c->huge > 0)
    return true;
  c->why = "a range read again came in small folios: the kernel "
	   "or the file system makes no 2 MiB page-cache folios here";
  return false;
}

void
thp_survey (int fd, const struct thp_range *r, size_t n,
	    struct thp_run *run, struct thp_counts *c)
{
  c->ranges = n;
  if (n == 0)
    return;
  catch_bus ();
  /* One reservation, 2 MiB aligned, where each range is mapped in
     turn.  */
  char *area = mmap (NULL, 2 * THP_HUGE, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      c->why = "mmap of an address range failed";
      return;
    }
  char *a = (char *) (((uintptr_t) area + THP_HUGE - 1)
		      & ~(uintptr_t) (THP_HUGE - 1));
  int pmfd = open ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pmfd < 0)
    c->why = "/proc/self/pagemap unreadable";
  static unsigned char vec[THP_CHUNK_PAGES];
  bool stop = false;
  for (size_t i = 0; i < n; ++i)
    {
      if (!map_range (a, fd, r[i].off))
	{
	  c->why = "mmap of the file failed";
	  c->left[THP_LEFT_changed] += n - i;
	  break;
	}
      int k = cached (a, vec);
      if (k < 0)
	{
	  c->why = "mincore failed";
	  c->left[THP_LEFT_changed] += n - i;
	  break;
	}
      if (k == 0)
	{
	  ++c->not_cached;
	  continue;
	}
      if (k == (int) THP_CHUNK_PAGES)
	{
	  int h = touch_huge (pmfd, a);
	  if (h < 0)
	    {
	      ++c->left[THP_LEFT_changed];
	      continue;
	    }
	  if (h > 0)
	    {
	      ++c->huge;
	      continue;
	    }
	}
      if (!run->repair || stop || pmfd < 0)
	{
	  ++c->small;
	  continue;
	}
      stop = !repair_range (fd, pmfd, a, r[i].off, vec, run, c);
    }
  if (pmfd >= 0)
    close (pmfd);
  munmap (area, 2 * THP_HUGE);
}
