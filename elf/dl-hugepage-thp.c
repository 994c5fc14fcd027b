/* hugeld: the thp backing.
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

/* The thp backing of LD_HUGEPAGE_BACKING: nothing is taken from the
   pool.  A read-only zone stays mapped from the object's file, at an
   address congruent to its file offset modulo 2 MiB (the planner chose
   the bias for that), and ld.so asks the kernel to use page-cache huge
   pages for it (MADV_HUGEPAGE, then MADV_COLLAPSE where the kernel can
   collapse file pages).  Where it cannot collapse, ld.so maps the
   zone 2 MiB at a time itself, repairing what the page cache holds in
   small folios when no other process maps them (hp_thp_fill), and
   reports how many 2 MiB ranges came up huge.  A writable zone becomes
   an anonymous private copy marked MADV_HUGEPAGE, built aside and
   moved into place like the private copy (moving ordinary memory works
   on every kernel).  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

#ifndef MADV_COLLAPSE
# define MADV_COLLAPSE 25
#endif

static int
hp_madvise (void *addr, size_t len, int advice)
{
  int r = INTERNAL_SYSCALL_CALL (madvise, addr, len, advice);
  if (INTERNAL_SYSCALL_ERROR_P (r))
    {
      __set_errno (INTERNAL_SYSCALL_ERRNO (r));
      return -1;
    }
  return 0;
}

/* Whether transparent huge pages are enabled at all: 1 yes, -1 no
   (/sys/kernel/mm/transparent_hugepage/enabled says [never], or the
   kernel has none), 0 not known yet.  */
static int hp_thp;
/* MADV_COLLAPSE failed with EINVAL: the kernel cannot collapse file
   pages; do not ask again.  */
static bool hp_no_collapse;

#ifdef HAVE_THP
/* glibc 2.44 and later: ld.so reads the THP mode itself for
   glibc.elf.thp.  Use what it found, or its reader; never set
   GL(dl_thp_mode), which would turn on glibc.elf.thp's madvise.  */
# include <hugepages.h>

static int
hp_thp_mode (void)
{
  enum thp_mode_t m = GL(dl_thp_mode);
  if (m == thp_mode_unknown)
    m = __get_thp_mode ();
  return m == thp_mode_always || m == thp_mode_madvise ? 1 : -1;
}
#else
static int
hp_thp_mode (void)
{
  char buf[64];
  ssize_t n = _dl_hugepage_read_file (HP_THP_ENABLED_FILE, buf, sizeof buf);
  return n > 0 && _dl_hugepage_thp_enabled_text (buf, n) ? 1 : -1;
}
#endif

static bool
hp_thp_enabled (void)
{
  if (hp_thp == 0)
    hp_thp = hp_thp_mode ();
  return hp_thp > 0;
}

/* An anonymous copy of writable zone Z, MADV_HUGEPAGE, moved over the
   ordinary pages.  */
static enum hp_outcome
hp_thp_copy (const struct hp_load_state *ls, const struct hp_zone *z,
	     ElfW(Addr) l_addr, int fd, int *err, const char **what)
{
  size_t len = z->end - z->start;
  char *area = __mmap (NULL, len + HP_HUGEPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      *err = errno;
      *what = "mmap";
      return HP_FALLBACK;
    }
  char *tmp = (char *) HP_ALIGN_UP ((uintptr_t) area, HP_HUGEPAGE_SIZE);
  if (tmp > area)
    __munmap (area, tmp - area);
  if (area + HP_HUGEPAGE_SIZE > tmp)
    __munmap (tmp + len, area + HP_HUGEPAGE_SIZE - tmp);
  if (hp_madvise (tmp, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = HP_STEP_MADV_HUGEPAGE;
      __munmap (tmp, len);
      return HP_FALLBACK;
    }
  enum hp_outcome o = _dl_hugepage_fill_and_move (ls, tmp, z, l_addr, fd,
						  false, err, what);
  if (o != HP_DONE)
    return o;
  *what = "anonymous copy, MADV_HUGEPAGE";
  return HP_THP;
}

/* Give every file page of the object with load bias L_ADDR ADVICE, not
   only its huge page zones.  MADV_HUGEPAGE, before anything faults
   them in: the kernel's read-around for a fault anywhere else in the
   file (relocation, constructors; read_ahead_kb may be megabytes)
   would otherwise fill the page cache with small folios, also where
   the zones are, and those can never be mapped with huge pages.  With
   the mark, every fault reads whole aligned huge folios.  MADV_RANDOM,
   once a zone is known to read as 2 MiB folios and has chunks left to
   be read on first use: a fault elsewhere (a symbol lookup in the
   first segment, say) then reads its own 2 MiB and starts no
   readahead that would bring those chunks in small folios.  Best
   effort: a zone already on hugetlb pages refuses the advice, and
   only the zone's own madvise must succeed.  */
static void
hp_advise_object (const struct hp_load_state *ls, ElfW(Addr) l_addr,
		  int advice)
{
  const ElfW(Phdr) *phdr = ls->phdr;
  size_t pg = GLRO(dl_pagesize);
  for (size_t i = 0; i < ls->phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_filesz != 0)
      {
	ElfW(Addr) s = HP_ALIGN_DOWN (l_addr + phdr[i].p_vaddr, pg);
	ElfW(Addr) e = HP_ALIGN_UP (l_addr + phdr[i].p_vaddr
				    + phdr[i].p_filesz, pg);
	hp_madvise ((void *) s, e - s, advice);
      }
}

/* What became of the 2 MiB chunks of a read-only zone.  */
struct hp_thp_fill
{
  size_t pmd;			/* Mapped with a huge page.  */
  size_t repaired;		/* Dropped from the page cache (small folios
				   nobody mapped), then mapped huge or
				   left to LAZY.  */
  size_t lazy;			/* Not in the page cache: read as one
				   2 MiB folio when first touched.  */
  size_t held;			/* From the first chunk another process
				   maps in small folios on: left alone.  */
  size_t other;			/* The rest: small folios where the kernel
				   makes no 2 MiB ones, our own changed
				   pages (breakpoints, uprobes), or not
				   mapped yet.  */
};

static int
hp_mincore (void *addr, size_t len, unsigned char *vec)
{
  return INTERNAL_SYSCALL_ERROR_P (INTERNAL_SYSCALL_CALL (mincore, addr, len,
							  vec)) ? -1 : 0;
}

/* /proc/self/pagemap: bit 63 present, bit 61 a file page.  */
#define HP_PM_PRESENT (1ULL << 63)
#define HP_PM_FILE (1ULL << 61)
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

/* Fault the chunk at ADDR in with one read and tell whether it came
   in with a huge page: its middle page is mapped too (fault-around
   maps at most 64 KiB of small folios, by default).  Without pagemap,
   whether it did is not known: false.  */
static bool
hp_touch (int pmfd, uintptr_t addr)
{
  (void) *(volatile const char *) addr;
  uint64_t e;
  return (pmfd >= 0
	  && _dl_hugepage_pread_full (pmfd, &e, 8,
				      (addr / 4096 + HP_CHUNK_PAGES / 2) * 8)
	     == 8
	  && (e & HP_PM_PRESENT) != 0);
}

/* How many pages of the chunk at A this process maps (*MAPPED).
   False if some page mapped here is not the file's (breakpoints,
   uprobes: never to be unmapped).  */
static bool
hp_chunk_mapped (int pmfd, uintptr_t a, size_t *mapped)
{
  static uint64_t pm[HP_CHUNK_PAGES];
  hp_pagemap (pmfd, a, pm);
  *mapped = 0;
  for (size_t i = 0; i < HP_CHUNK_PAGES; ++i)
    if ((pm[i] & HP_PM_PRESENT) != 0)
      {
	if ((pm[i] & HP_PM_FILE) == 0)
	  return false;
	++*mapped;
      }
  return true;
}

/* How many of the LEN / 4096 pages at A are in the page cache, or -1
   if mincore fails.  It looks up each page: for a whole chunk that is
   512 lookups, so it is asked only where one fault does not tell.  */
static ssize_t
hp_resident (uintptr_t a, size_t len)
{
  unsigned char vec[HP_CHUNK_PAGES];
  if (hp_mincore ((void *) a, len, vec) != 0)
    return -1;
  ssize_t n = 0;
  for (size_t i = 0; i < len / 4096; ++i)
    n += vec[i] & 1;
  return n;
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
  hp_madvise ((void *) a, HP_HUGEPAGE_SIZE, MADV_HUGEPAGE);
  if (random)
    hp_madvise ((void *) a, HP_HUGEPAGE_SIZE, MADV_RANDOM);
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

/* Map the 2 MiB chunks of [DST, DST + LEN), the part of a read-only
   zone at file offset OFF of FD, with the page cache's huge pages, in
   order:

   - A chunk the page cache holds (its first page is cached: every
     process after the first) is faulted in with one read: where that
     is a 2 MiB folio, it is mapped huge, and nothing more is asked.
     This maps at load all of the zone that is cached, not only what
     the program touches; it costs a fault per 2 MiB.
   - A chunk not in the page cache is left to be read when the program
     first touches it: the zone is MADV_HUGEPAGE and stays MADV_RANDOM,
     so that fault reads exactly that chunk, as one 2 MiB folio.
     (Reading it at load would read all of the text from disk, also
     what the program never runs; and the readahead a fault starts
     otherwise is sized by the device's read_ahead_kb, and a window
     that is not a multiple of 2 MiB, 2560 KiB say, brings the next
     chunks in small folios.)  Only the first such chunk is read at
     load, to find out whether this file system makes 2 MiB folios at
     all; if it comes in small folios, nothing more is done and the
     zone's readahead is the stock loader's.
   - A chunk the page cache holds in small folios (another process read
     the file first, or ld.so read the ELF header) is repaired if the
     kernel is known to make 2 MiB page-cache folios (one came up here,
     or /proc/vmstat says one was mapped since boot): its folios are
     dropped (POSIX_FADV_DONTNEED drops only what no process maps) and
     read again in one folio: by ld.so for the first chunk that tells
     whether the file system makes 2 MiB folios, by the program's first
     touch for the others, so that a repair reads only what the program
     runs.  If any page is left, another process
     maps it: then nothing more of the object is dropped or touched,
     and the rest is the program's to fault in, as with the stock
     loader, so that hugeld maps no more small pages than it would
     have.  What ld.so mapped of such a chunk to find out is unmapped
     again, with its page table (hp_chunk_remap), and only where all it
     maps of the chunk is clean file pages (hp_chunk_mapped).  False if
     that failed: the zone may have a hole.  */
static bool
hp_thp_fill (uintptr_t dst, size_t len, int prot, int fd, off64_t off,
	     bool object_random, struct hp_thp_fill *n)
{
  bool ok = true;
  int pmfd = __open64_nocancel ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  size_t chunks = len / HP_HUGEPAGE_SIZE;
  /* Whether small folios may be dropped: 0 not known yet.  */
  int repair = 0;
  /* A chunk read anew here (or in an earlier zone of the object) came
     in one 2 MiB folio.  */
  bool reads_huge = object_random;
  bool random = hp_madvise ((void *) dst, len, MADV_RANDOM) == 0;
  for (size_t done = 0; done < len; done += HP_HUGEPAGE_SIZE)
    {
      uintptr_t a = dst + done;
      size_t mapped;
      if (!hp_chunk_mapped (pmfd, a, &mapped) || mapped == HP_CHUNK_PAGES)
	continue;
      if (mapped == 0 && hp_resident (a, 4096) == 1)
	{
	  /* Cached at its start: a 2 MiB folio, or small ones.  */
	  if (hp_touch (pmfd, a))
	    {
	      ++n->pmd;
	      repair = 1;
	      continue;
	    }
	  if (pmfd < 0)
	    break;
	}
      else
	{
	  ssize_t resident = hp_resident (a, HP_HUGEPAGE_SIZE);
	  if (resident < 0)
	    continue;
	  if (resident == 0)
	    {
	      if (reads_huge)
		{
		  ++n->lazy;
		  continue;
		}
	      if (hp_touch (pmfd, a))
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
	}
      /* Small folios.  */
      if (repair == 0)
	repair = hp_file_thp_seen () ? 1 : -1;
      if (repair < 0)
	{
	  hp_madvise ((void *) a, HP_HUGEPAGE_SIZE, MADV_DONTNEED);
	  continue;
	}
      if (!hp_chunk_remap (a, prot, fd, off + done, random))
	{
	  ok = false;
	  break;
	}
      INTERNAL_SYSCALL_CALL (fadvise64, fd, off + done, HP_HUGEPAGE_SIZE,
			     POSIX_FADV_DONTNEED);
      if (hp_resident (a, HP_HUGEPAGE_SIZE) != 0)
	{
	  n->held = (len - done) / HP_HUGEPAGE_SIZE;
	  break;
	}
      if (reads_huge)
	{
	  /* Dropped; read as one folio when first touched.  */
	  ++n->repaired;
	  ++n->lazy;
	  continue;
	}
      if (hp_touch (pmfd, a))
	{
	  ++n->pmd;
	  ++n->repaired;
	  reads_huge = true;
	}
      else if (n->pmd == 0)
	break;
    }
  n->other = chunks - n->pmd - n->lazy - n->held;
  /* MADV_RANDOM stays only where it makes every later read a 2 MiB
     folio; elsewhere the zone reads ahead as the stock loader's.  */
  if (random && ((!reads_huge && !object_random) || n->held != 0))
    hp_madvise ((void *) dst, len, MADV_NORMAL);
  if (pmfd >= 0)
    __close_nocancel (pmfd);
  return ok;
}

/* The file offset of address A (unrelocated) of zone Z, congruent to
   its place in the segment (the planner made it so; a part of the zone
   before the segment's file pages has an offset below FILEOFF).  */
static off64_t
hp_zone_offset (const struct hp_zone *z, uint64_t a)
{
  return z->fileoff + (a - z->copy_start);
}

/* Map the parts of read-only zone Z (load bias L_ADDR) that lie in the
   gaps before and after its segment's file pages from FD, at the
   offsets congruent to their addresses and with the zone's protection,
   so that the file mapping covers the zone's first and last 2 MiB
   whole.  The planner allows it only where the file holds no byte of
   another segment there (Z->file_whole): the bytes shown are the
   file's padding.  The gaps were inaccessible pages; if an mmap fails,
   whatever of them it unmapped is made inaccessible again, and if even
   that fails the load fails (HP_LOST).  */
static enum hp_outcome
hp_thp_gaps (const struct hp_load_state *ls, const struct hp_zone *z,
	     ElfW(Addr) l_addr, int fd, int *err, const char **what)
{
  uint64_t gaps[2][2] = { { z->start, z->copy_start },
			  { z->copy_start + z->copy_len, z->end } };
  for (int k = 0; k < 2; ++k)
    {
      uint64_t s = gaps[k][0], e = gaps[k][1];
      if (e <= s)
	continue;
      if (__mmap ((void *) (l_addr + s), e - s, hp_prot (z->prot),
		  MAP_PRIVATE | MAP_FIXED, fd, hp_zone_offset (z, s))
	  == MAP_FAILED)
	{
	  *err = errno;
	  *what = "mmap of the file over a gap next to the segment";
	  return (_dl_hugepage_unhole (ls, z, l_addr, fd, err) == HP_LOST
		  ? HP_LOST : HP_FALLBACK);
	}
    }
  return HP_DONE;
}

/* Append the decimal digits of V to P.  */
static char *
hp_put_count (char *p, size_t v, const char *text)
{
  char digits[24];
  int k = 0;
  do
    digits[k++] = '0' + v % 10;
  while ((v /= 10) != 0);
  while (k > 0)
    *p++ = digits[--k];
  return __stpcpy (p, text);
}

enum hp_outcome
_dl_hugepage_thp_zone (struct hp_load_state *ls, const struct hp_zone *z,
		       ElfW(Addr) l_addr, int fd, int *err, const char **what)
{
  *err = 0;
  if (!hp_thp_enabled ())
    {
      *what = "transparent huge pages are disabled (" HP_THP_ENABLED_FILE
	      ")";
      return HP_FALLBACK;
    }
  if ((z->prot & PF_W) != 0)
    return hp_thp_copy (ls, z, l_addr, fd, err, what);

  /* The page cache's huge pages can only be mapped where the address
     is congruent to the file offset modulo their size.  */
  if (z->copy_len == 0
      || HP_ALIGN_REM (l_addr + z->copy_start - z->fileoff,
		       HP_HUGEPAGE_SIZE) != 0)
    {
      *what = "the zone's address is not congruent to its file offset "
	      "modulo 2 MiB (placed for the most huge pages: list thp "
	      "first to place it for thp)";
      return HP_FALLBACK;
    }
  /* Where the zone reaches into the gaps around its segment, the file
     must be mapped there too; where the file holds another segment's
     bytes there, only the whole 2 MiB of the segment's file pages
     are.  */
  uint64_t start = z->start, end = z->end;
  uint64_t cs = z->copy_start, ce = z->copy_start + z->copy_len;
  if (start < cs || end > ce)
    {
      enum hp_outcome o = HP_FALLBACK;
      if (z->file_whole)
	o = hp_thp_gaps (ls, z, l_addr, fd, err, what);
      if (o == HP_LOST)
	return o;
      if (o != HP_DONE)
	{
	  start = HP_ALIGN_UP (l_addr + cs, HP_HUGEPAGE_SIZE) - l_addr;
	  end = HP_ALIGN_DOWN (l_addr + ce, HP_HUGEPAGE_SIZE) - l_addr;
	  if (end <= start)
	    {
	      if (*err == 0)
		*what = "the file holds another segment's bytes in the "
			"zone's 2 MiB next to the segment";
	      return HP_FALLBACK;
	    }
	}
    }
  size_t edges = (z->end - z->start - (end - start)) / HP_HUGEPAGE_SIZE;
  void *dst = (void *) (l_addr + start);
  size_t len = end - start;
  if (!ls->cache.thp_advised)
    {
      ls->cache.thp_advised = true;
      hp_advise_object (ls, l_addr, MADV_HUGEPAGE);
    }
  if (hp_madvise (dst, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = HP_STEP_MADV_HUGEPAGE;
      return HP_FALLBACK;
    }
  *what = "page-cache huge pages asked for (MADV_HUGEPAGE; MADV_COLLAPSE "
	  "not supported here)";
  if (!hp_no_collapse)
    {
      int r = hp_madvise (dst, len, MADV_COLLAPSE);
      /* EAGAIN is transient (a folio locked or being collapsed by
	 khugepaged at the same moment; seen on Linux 7.2 and 7.3 with a
	 warm page cache): ask once more.  */
      if (r != 0 && errno == EAGAIN)
	r = hp_madvise (dst, len, MADV_COLLAPSE);
      if (r == 0)
	*what = "page-cache huge pages asked for (MADV_HUGEPAGE, "
		"MADV_COLLAPSE done)";
      else if (errno == EINVAL)
	hp_no_collapse = true;
      else
	*what = "page-cache huge pages asked for (MADV_HUGEPAGE; "
		"MADV_COLLAPSE failed)";
      if (r == 0)
	return HP_THP;
    }
  if ((z->prot & PF_R) == 0)
    return HP_THP;

  struct hp_thp_fill n = { 0 };
  if (!hp_thp_fill ((uintptr_t) dst, len, hp_prot (z->prot), fd,
		    hp_zone_offset (z, start), ls->cache.thp_random, &n))
    {
      *err = errno;
      *what = "mmap of the file again over a 2 MiB range to repair";
      return (_dl_hugepage_unhole (ls, z, l_addr, fd, err) == HP_LOST
	      ? HP_LOST : HP_FALLBACK);
    }
  if (n.lazy != 0 && !ls->cache.thp_random)
    {
      ls->cache.thp_random = true;
      hp_advise_object (ls, l_addr, MADV_RANDOM);
    }
  /* What was asked for, then what came of it.  */
  static char msg[400];
  char *p = __stpcpy (__stpcpy (msg, *what), ": ");
  p = hp_put_count (p, n.pmd, " of ");
  p = hp_put_count (p, len / HP_HUGEPAGE_SIZE + edges,
		    " 2 MiB ranges mapped huge (");
  p = hp_put_count (p, n.repaired, " repaired from small folios, ");
  p = hp_put_count (p, n.lazy, " to be read as 2 MiB folios on first use, ");
  p = hp_put_count (p, n.held, " held in small folios by another process, ");
  p = hp_put_count (p, n.other, " left as they were");
  if (edges != 0)
    p = hp_put_count (__stpcpy (p, ", "), edges,
		      " where the file holds another segment's bytes");
  __stpcpy (p, ")");
  *what = msg;
  return HP_THP;
}
