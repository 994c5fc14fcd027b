/* hugeld: the page cache under a thp zone.
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

/* Mapping a read-only thp zone (dl-hugepage-thp.c) 2 MiB at a time
   with the page cache's huge pages where the kernel cannot collapse
   file pages: finding out, with as few system calls as one fault,
   what the page cache holds for each 2 MiB; repairing a range it holds
   in small folios when no other process maps them; and leaving what
   it lacks to be read on first use.  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

/* /proc/self/pagemap: bit 63 present, bit 61 a file page, bit 56 a
   page no other process maps (Linux 4.2; all three are shown to every
   user, the page frame numbers only to CAP_SYS_ADMIN).  */
#define HP_PM_PRESENT (1ULL << 63)
#define HP_PM_FILE (1ULL << 61)
#define HP_PM_EXCLUSIVE (1ULL << 56)
#define HP_CHUNK_PAGES (HP_HUGEPAGE_SIZE / 4096)

/* The pagemap entries of the chunk at ADDR into PM (all 0 if PMFD is
   -1 or the read fails: nothing known to be mapped).  */
static void
hp_pagemap (int pmfd, uintptr_t addr, uint64_t pm[HP_CHUNK_PAGES])
{
  if (pmfd < 0
      || _dl_hugepage_pread_full (pmfd, pm, HP_CHUNK_PAGES * 8,
				  (addr / 4096) * 8)
	 != HP_CHUNK_PAGES * 8)
    memset (pm, 0, HP_CHUNK_PAGES * 8);
}

/* What a touch of a chunk found (hp_touch).  */
enum hp_touched
{
  HP_TOUCH_GONE = -1,		/* Past the end of the file now: not
				   touched.  */
  HP_TOUCH_SMALL = 0,		/* Small folios, or not known.  */
  HP_TOUCH_HUGE = 1		/* Mapped with a huge page.  */
};

/* Why a fill stopped at a chunk past the file's end.  */
#define HP_TOUCH_GONE_WHY \
  "a range past the end of the file at the moment it was touched (the " \
  "file was cut while it was loaded): it and the rest left as they were"

/* Fault the chunk at ADDR in with one read and tell whether it came
   in with a huge page: its middle page is mapped too (fault-around
   maps at most 64 KiB of small folios, by default).  Without pagemap,
   whether it did is not known: HP_TOUCH_SMALL.

   The read is the kernel's, not ld.so's: one byte is written from
   ADDR into the pipe PIPEFD, and read back.  Whoever may write the
   file can cut it at any moment, also between two instructions of
   ld.so, and a load from a page past the file's end at that moment
   kills the process with SIGBUS, where the stock loader, which reads
   nothing of a read-only segment at load, goes on.  The kernel's copy
   from the mapping takes the same fault as a load (page-cache huge
   pages and readahead included), but a page past the end of the file
   as it is at the moment of the copy makes the write fail with EFAULT:
   HP_TOUCH_GONE, and the program, if it ever runs that code, meets the
   file as the stock loader would have left it.  Checking the size
   first (fstat before each touch) would leave the time between the
   check and the load; MADV_POPULATE_READ would do as well as the pipe,
   but only from Linux 5.14.  pipe2, write and read are in every
   seccomp filter hugeld is tested under (t-seccomp).  */
static enum hp_touched
hp_touch (int pmfd, const int pipefd[2], uintptr_t addr)
{
  long int r = INTERNAL_SYSCALL_CALL (write, pipefd[1], addr, 1);
  if (INTERNAL_SYSCALL_ERROR_P (r) || r != 1)
    return HP_TOUCH_GONE;
  char c;
  INTERNAL_SYSCALL_CALL (read, pipefd[0], &c, 1);
  uint64_t e;
  return (pmfd >= 0
	  && _dl_hugepage_pread_full (pmfd, &e, 8,
				      (addr / 4096 + HP_CHUNK_PAGES / 2) * 8)
	     == 8
	  && (e & HP_PM_PRESENT) != 0) ? HP_TOUCH_HUGE : HP_TOUCH_SMALL;
}

/* How many pages of the chunk at A this process maps (*MAPPED), and
   how many of those another process maps too (*SHARED: a holder that
   exists).  False if some page mapped here is not the file's
   (breakpoints, uprobes: never to be unmapped).  */
static bool
hp_chunk_mapped (int pmfd, uintptr_t a, size_t *mapped, size_t *shared)
{
  static uint64_t pm[HP_CHUNK_PAGES];
  hp_pagemap (pmfd, a, pm);
  *mapped = 0;
  *shared = 0;
  for (size_t i = 0; i < HP_CHUNK_PAGES; ++i)
    if ((pm[i] & HP_PM_PRESENT) != 0)
      {
	if ((pm[i] & HP_PM_FILE) == 0)
	  return false;
	++*mapped;
	if ((pm[i] & HP_PM_EXCLUSIVE) == 0)
	  ++*shared;
      }
  return true;
}

/* Whether the page cache may be asked about: 1 yes, -1 no, 0 not
   known yet.

   mincore is never used: since Linux 5.2 it answers a caller who may
   not write the file (every user but root, for what is in /usr/lib)
   without looking at the page cache, and systemd's @system-service
   set leaves it out, so that a unit with SystemCallFilter= and no
   SystemCallErrorNumber= is killed by SIGSYS.  cachestat (Linux 6.5)
   looks at the page cache itself, but it too refuses (EPERM) a caller
   who may not write the file, and no seccomp filter written before it
   (systemd 252's, say) allows it.  So it is asked only where the
   process has no seccomp filter (Seccomp: 0 in /proc/self/status; the
   call is not made at all under one), and only its answer is
   believed; everywhere else the fill asks nothing and finds out what
   it needs by faulting each range in (hp_touch): a cached range costs
   a fault, a range not cached is read at load.  */
static int hp_cachestat;
/* Why it may not, for the report.  */
static const char *hp_cachestat_why;

static bool
hp_cachestat_allowed (void)
{
  if (hp_cachestat == 0)
    {
      static char buf[4096];
      ssize_t n = _dl_hugepage_read_file ("/proc/self/status", buf,
					  sizeof buf - 1);
      hp_cachestat = -1;
      hp_cachestat_why = (n < 0 && _dl_hugepage_denied (-n, AT_FDCWD,
							"/proc/self/status")
			  ? "/proc/self/status unreadable" HP_DENIED
			  : "/proc/self/status unreadable");
      if (n > 0)
	{
	  buf[n] = '\0';
	  const char *key = "\nSeccomp:\t";
	  hp_cachestat_why = "the process has a seccomp filter";
	  for (char *p = buf; (p = strchr (p, '\n')) != NULL; ++p)
	    if (strncmp (p, key, strlen (key)) == 0)
	      {
		p += strlen (key);
		if (p[0] == '0' && p[1] == '\n')
		  hp_cachestat = 1;
		break;
	      }
	}
    }
  return hp_cachestat > 0;
}

#ifndef __NR_cachestat
# define __NR_cachestat 451
#endif

struct hp_cachestat_range
{
  uint64_t off, len;
};

struct hp_cachestat
{
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
    nr_recently_evicted;
};

/* How many of the LEN / 4096 pages of FD at OFF are in the page cache,
   or -1 if that cannot be asked (hp_cachestat_allowed) or the kernel
   does not answer: no cachestat (ENOSYS: never asked again), or not
   for this caller and file (EPERM); then *WHY says why.  */
static ssize_t
hp_cached (int fd, off64_t off, size_t len, const char **why)
{
  if (!hp_cachestat_allowed ())
    {
      *why = hp_cachestat_why;
      return -1;
    }
  struct hp_cachestat_range r = { off, len };
  struct hp_cachestat cs;
  long int ret = INTERNAL_SYSCALL_CALL (cachestat, fd, &r, &cs, 0);
  if (INTERNAL_SYSCALL_ERROR_P (ret))
    {
      if (INTERNAL_SYSCALL_ERRNO (ret) == ENOSYS)
	{
	  hp_cachestat = -1;
	  hp_cachestat_why = "the kernel has no cachestat";
	}
      *why = (hp_cachestat < 0 ? hp_cachestat_why
	      : "cachestat refused: a file this user may not write");
      return -1;
    }
  return cs.nr_cache;
}

/* Unmap what this process maps of the chunk at A (only clean file
   pages: hp_chunk_mapped) together with its page table, by mapping the
   file there again (MAP_FIXED replaces the mapping in one step), with
   PROT from FD at OFF, and advise it as the rest of the zone.
   MADV_DONTNEED would leave the page table, and a range that has one
   is never mapped with a huge page again in this process (Linux before
   6.15 frees no empty page table).  False if the mmap failed.  */
static bool
hp_chunk_remap (uintptr_t a, int prot, int fd, off64_t off, bool random)
{
  if (__mmap ((void *) a, HP_HUGEPAGE_SIZE, prot, MAP_PRIVATE | MAP_FIXED,
	      fd, off) == MAP_FAILED)
    return false;
  _dl_hugepage_madvise ((void *) a, HP_HUGEPAGE_SIZE, MADV_HUGEPAGE);
  if (random)
    _dl_hugepage_madvise ((void *) a, HP_HUGEPAGE_SIZE, MADV_RANDOM);
  return true;
}

/* Whether the kernel has mapped a page-cache huge page since boot
   (/proc/vmstat's thp_file_mapped is not 0): a sign that it makes 2
   MiB folios in the page cache at all.  With NUMA counters (Linux 6.1
   on two nodes, say) the line comes after the first 4 KiB, which is
   all one read of /proc/vmstat returns.  */
static bool
hp_file_thp_seen (void)
{
  static char buf[16384];
  ssize_t n = _dl_hugepage_read_file ("/proc/vmstat", buf, sizeof buf - 1);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  const char *key = "\nthp_file_mapped ";
  for (char *p = buf; (p = strchr (p, '\n')) != NULL; ++p)
    if (strncmp (p, key, strlen (key)) == 0)
      return p[strlen (key)] > '0' && p[strlen (key)] <= '9';
  return false;
}

/* hp_cached for the chunk at file offset OFF of the zone whose fill N
   records: once the page cache could not be asked about one chunk of
   the zone, it is not asked about the others (cachestat refuses every
   chunk of a file the caller may not write).  */
static ssize_t
hp_chunk_cached (int fd, off64_t off, struct hp_thp_fill *n)
{
  if (n->unasked != NULL)
    return -1;
  return hp_cached (fd, off, HP_HUGEPAGE_SIZE, &n->unasked);
}

/* Map the 2 MiB chunks of [DST, DST + LEN), the part of a read-only
   zone at file offset OFF of FD, with the page cache's huge pages, in
   order:

   - A chunk the page cache holds, or where that cannot be asked
     (hp_cached), is faulted in with one read: where that is a 2 MiB
     folio (or, not cached, is read as one), it is mapped huge, and
     nothing more is asked.  This maps at load all of the zone that is
     cached, not only what the program touches; it costs a fault per
     2 MiB.
   - A chunk known not to be in the page cache is left to be read when
     the program first touches it: the zone is MADV_HUGEPAGE and stays
     MADV_RANDOM, so that fault reads exactly that chunk, as one 2 MiB
     folio.  (Reading it at load would read all of the text from disk,
     also what the program never runs; and the readahead a fault starts
     otherwise is sized by the device's read_ahead_kb, and a window
     that is not a multiple of 2 MiB, 2560 KiB say, brings the next
     chunks in small folios.)  Only the first such chunk is read at
     load, to find out whether this file system makes 2 MiB folios at
     all; if it comes in small folios, nothing more is done and the
     zone's readahead is the stock loader's.  Where the page cache
     cannot be asked, every chunk is read at load instead.
   - A chunk the page cache holds in small folios (another process read
     the file first, or ld.so read the ELF header) is repaired if the
     kernel is known to make 2 MiB page-cache folios (one came up here,
     or /proc/vmstat says one was mapped since boot) and no other
     process maps a page of it that this one maps (pagemap's exclusive
     bit): its folios are dropped (POSIX_FADV_DONTNEED drops only what
     no process maps) and read again in one folio: by ld.so for the
     first chunk that tells whether the file system makes 2 MiB folios,
     by the program's first touch for the others where the page cache
     says the chunk is gone, so that a repair reads only what the
     program runs.  If a page is left, or seen mapped by another
     process, that process holds it: then nothing more of the object
     is dropped or touched, and the rest is the program's to fault in,
     as with the stock loader, so that hugeld maps no more small pages
     than it would have.  Where the page cache cannot be asked, a chunk
     read again in small folios may also be one another process keeps
     out of this one's sight: then no more chunks are dropped, and the
     report counts it with those left as they were, naming no holder.
     What ld.so mapped of such a chunk to find out is unmapped again,
     with its page table (hp_chunk_remap), and only where all it maps
     of the chunk is clean file pages (hp_chunk_mapped).

   - A chunk that is past the end of the file when it is touched (the
     file was cut while it was loaded) ends the fill: it and the rest
     are left as the stock loader left them (hp_touch; *N's stopped
     says so).

   Nothing is asked of the kernel that systemd's @system-service or
   Docker's default seccomp profile refuses: mmap, madvise, fadvise64,
   pread64 of /proc/self/pagemap, pipe2, write and read (hp_touch),
   and cachestat only without a filter.  False if a mmap failed: the
   zone may have a hole.  */
bool
_dl_hugepage_thp_fill (uintptr_t dst, size_t len, int prot, int fd,
		       off64_t off, bool object_random, struct hp_thp_fill *n)
{
  bool ok = true;
  size_t chunks = len / HP_HUGEPAGE_SIZE;
  int pipefd[2];
  long int pr = INTERNAL_SYSCALL_CALL (pipe2, pipefd,
				       O_CLOEXEC | O_NONBLOCK);
  if (INTERNAL_SYSCALL_ERROR_P (pr))
    {
      /* Nothing can be touched safely: leave it all as it is.  */
      n->stopped = "no pipe for touching it (pipe2 failed)";
      n->other = chunks;
      return true;
    }
  int pmfd = __open64_nocancel ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pmfd < 0)
    {
      n->pagemap_err = errno;
      n->pagemap_denied = _dl_hugepage_denied (errno, AT_FDCWD,
					       "/proc/self/pagemap");
    }
  /* Whether small folios may be dropped: 0 not known yet.  */
  int repair = 0;
  /* A chunk dropped and read again came back in small folios, and the
     page cache cannot say why: drop no more.  */
  bool repair_failed = false;
  /* A chunk read anew here (or in an earlier zone of the object) came
     in one 2 MiB folio.  */
  bool reads_huge = object_random;
  bool random = _dl_hugepage_madvise ((void *) dst, len, MADV_RANDOM) == 0;
  for (size_t done = 0; done < len; done += HP_HUGEPAGE_SIZE)
    {
      uintptr_t a = dst + done;
      off64_t coff = off + done;
      size_t mapped, shared;
      if (!hp_chunk_mapped (pmfd, a, &mapped, &shared)
	  || mapped == HP_CHUNK_PAGES)
	continue;
      if (mapped == 0)
	{
	  if (hp_chunk_cached (fd, coff, n) == 0)
	    {
	      if (reads_huge)
		{
		  ++n->lazy;
		  continue;
		}
	      enum hp_touched t = hp_touch (pmfd, pipefd, a);
	      if (t == HP_TOUCH_GONE)
		{
		  n->stopped = HP_TOUCH_GONE_WHY;
		  break;
		}
	      if (t == HP_TOUCH_HUGE)
		{
		  ++n->pmd;
		  repair = 1;
		  reads_huge = true;
		  continue;
		}
	      /* Read anew in small folios, or not known: stop, unless a
		 2 MiB folio came up before (then this one just could not
		 be had now, in a fragmented memory).  */
	      if (pmfd < 0 || n->pmd == 0)
		break;
	      continue;
	    }
	  /* Cached, or not known: a 2 MiB folio, small ones, or read
	     now.  */
	  enum hp_touched t = hp_touch (pmfd, pipefd, a);
	  if (t == HP_TOUCH_GONE)
	    {
	      n->stopped = HP_TOUCH_GONE_WHY;
	      break;
	    }
	  if (t == HP_TOUCH_HUGE)
	    {
	      ++n->pmd;
	      repair = 1;
	      continue;
	    }
	  if (pmfd < 0 || !hp_chunk_mapped (pmfd, a, &mapped, &shared))
	    break;
	}
      /* Small folios.  */
      if (shared != 0)
	{
	  n->held = (len - done) / HP_HUGEPAGE_SIZE;
	  break;
	}
      if (repair == 0)
	repair = hp_file_thp_seen () ? 1 : -1;
      if (repair < 0 || repair_failed)
	{
	  _dl_hugepage_madvise ((void *) a, HP_HUGEPAGE_SIZE, MADV_DONTNEED);
	  /* No 2 MiB page-cache folio was ever mapped here: none of the
	     rest is one either.  */
	  if (repair < 0)
	    break;
	  continue;
	}
      if (!hp_chunk_remap (a, prot, fd, coff, random))
	{
	  ok = false;
	  break;
	}
      INTERNAL_SYSCALL_CALL (fadvise64, fd, coff, HP_HUGEPAGE_SIZE,
			     POSIX_FADV_DONTNEED);
      ssize_t left = hp_chunk_cached (fd, coff, n);
      if (left > 0)
	{
	  n->held = (len - done) / HP_HUGEPAGE_SIZE;
	  break;
	}
      if (left == 0 && reads_huge)
	{
	  /* Dropped; read as one folio when first touched.  */
	  ++n->repaired;
	  ++n->lazy;
	  continue;
	}
      enum hp_touched t = hp_touch (pmfd, pipefd, a);
      if (t == HP_TOUCH_GONE)
	{
	  n->stopped = HP_TOUCH_GONE_WHY;
	  break;
	}
      if (t == HP_TOUCH_HUGE)
	{
	  ++n->pmd;
	  ++n->repaired;
	  reads_huge = true;
	  continue;
	}
      if (hp_chunk_mapped (pmfd, a, &mapped, &shared) && shared != 0)
	{
	  n->held = (len - done) / HP_HUGEPAGE_SIZE;
	  break;
	}
      if (n->pmd == 0)
	break;
      repair_failed = true;
    }
  n->other = chunks - n->pmd - n->lazy - n->held;
  /* MADV_RANDOM stays only where it makes every later read a 2 MiB
     folio; elsewhere the zone reads ahead as the stock loader's.  */
  if (random && ((!reads_huge && !object_random) || n->held != 0))
    _dl_hugepage_madvise ((void *) dst, len, MADV_NORMAL);
  if (pmfd >= 0)
    __close_nocancel (pmfd);
  __close_nocancel (pipefd[0]);
  __close_nocancel (pipefd[1]);
  return ok;
}
