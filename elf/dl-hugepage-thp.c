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
   pages for it (MADV_HUGEPAGE) and does nothing more: the kernel reads
   such a mapping in 2 MiB folios when the program first touches it,
   with its own readahead, and maps a 2 MiB folio the page cache holds
   with one fault.  What the page cache holds in small folios (another
   process read the file first) stays so for this process: dropping
   and reading it again would cost the start the user waits for, and
   cannot drop what another process maps.  `hugeld thp repair' makes
   such ranges whole between starts.  A writable zone becomes
   an anonymous private copy marked MADV_HUGEPAGE, built aside and
   moved into place like the private copy (moving ordinary memory works
   on every kernel).  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <_itoa.h>
#include <ldsodefs.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

/* Whether transparent huge pages are enabled at all: 1 yes, -1 no
   (/sys/kernel/mm/transparent_hugepage/enabled says [never], or the
   kernel has none), 0 not known yet.  */
static int hp_thp;
/* The file could not be read because a security policy refused it
   (Landlock without /sys, an AppArmor profile): THP is then asked for
   all the same (madvise needs no file, and where THP is off it does
   nothing), and the report says so.  */
static bool hp_thp_denied;

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
  if (m == thp_mode_always || m == thp_mode_madvise)
    return 1;
  /* glibc's reader says nothing of why it found no mode.  */
  char buf[64];
  ssize_t n = _dl_hugepage_read_file (HP_THP_ENABLED_FILE, buf, sizeof buf);
  hp_thp_denied = n < 0 && _dl_hugepage_denied (-n, AT_FDCWD,
						HP_THP_ENABLED_FILE);
  return hp_thp_denied ? 1 : -1;
}
#else
static int
hp_thp_mode (void)
{
  char buf[64];
  ssize_t n = _dl_hugepage_read_file (HP_THP_ENABLED_FILE, buf, sizeof buf);
  hp_thp_denied = n < 0 && _dl_hugepage_denied (-n, AT_FDCWD,
						HP_THP_ENABLED_FILE);
  return (hp_thp_denied
	  || (n > 0 && _dl_hugepage_thp_enabled_text (buf, n))) ? 1 : -1;
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
hp_thp_copy (struct hp_load_state *ls, const struct hp_zone *z,
	     ElfW(Addr) l_addr, int fd, int *err, const char **what)
{
  size_t len = z->end - z->start;
  char *area = __mmap (NULL, len + HP_HUGEPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      *err = errno;
      *what = "mmap";
      /* No pool here: a limit of the process, or no memory.  */
      if (*err == ENOMEM && hp_debug ())
	{
	  ls->enomem = _dl_hugepage_enomem_why (len + HP_HUGEPAGE_SIZE, true);
	  if (ls->enomem == NULL)
	    ls->enomem = "ENOMEM, out of memory";
	}
      return HP_FALLBACK;
    }
  char *tmp = (char *) HP_ALIGN_UP ((uintptr_t) area, HP_HUGEPAGE_SIZE);
  if (tmp > area)
    __munmap (area, tmp - area);
  if (area + HP_HUGEPAGE_SIZE > tmp)
    __munmap (tmp + len, area + HP_HUGEPAGE_SIZE - tmp);
  if (_dl_hugepage_madvise (tmp, len, MADV_HUGEPAGE) != 0)
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

/* Mark every file page of the object with load bias L_ADDR
   MADV_HUGEPAGE, not only its huge page zones, before anything faults
   them in: the kernel's read-around for a fault anywhere else in the
   file (relocation, constructors; read_ahead_kb may be megabytes)
   would otherwise fill the page cache with small folios, also where
   the zones are, and those are never mapped with huge pages.  With the
   mark, a fault where the page cache holds nothing reads whole aligned
   2 MiB folios (Linux 5.18 and later: the 2 MiB around the fault and
   the next, then the device's readahead).  Best effort: a zone already
   on hugetlb pages refuses the advice, and only the zone's own
   madvise must succeed.  */
static void
hp_advise_object (const struct hp_load_state *ls, ElfW(Addr) l_addr)
{
  const ElfW(Phdr) *phdr = ls->phdr;
  size_t pg = GLRO(dl_pagesize);
  for (size_t i = 0; i < ls->phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_filesz != 0)
      {
	ElfW(Addr) s = HP_ALIGN_DOWN (l_addr + phdr[i].p_vaddr, pg);
	ElfW(Addr) e = HP_ALIGN_UP (l_addr + phdr[i].p_vaddr
				    + phdr[i].p_filesz, pg);
	_dl_hugepage_madvise ((void *) s, e - s, MADV_HUGEPAGE);
      }
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
      if (__mmap ((void *) (l_addr + s), e - s, hp_map_prot (ls, z->prot),
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
  char *d = _itoa (v, &digits[sizeof digits], 10, 0);
  p = __mempcpy (p, d, &digits[sizeof digits] - d);
  return __stpcpy (p, text);
}

/* Why a read-only zone of LS's object is not where page-cache huge
   pages can map it (its address not congruent to its file offset
   modulo 2 MiB): who chose the address, and what would change it.  */
static const char *
hp_not_congruent (const struct hp_load_state *ls)
{
#define HP_NC "the zone's address is not congruent to its file offset " \
	      "modulo 2 MiB "
  if (ls->kernel)
    return HP_NC "(the kernel chose the program's address and ld.so did "
	   "not move it, as it says above; run as `ld.so PROG', as hugeld "
	   "run does, ld.so places it)";
  if (ls->type != ET_DYN)
    return HP_NC "(its addresses are fixed: linked with "
	   "-z max-page-size=0x200000 they would be)";
  if (ls->phase < 0)
    return HP_NC "(ld.so could not have the address it planned for the "
	   "object)";
  if (ls->placed_for_cache)
    return HP_NC "(placed for its shared cache entry, which has not this "
	   "zone)";
  if (ls->phase != HP_PHASE_ALWAYS)
    return HP_NC "(placed for the most huge pages: list thp first in "
	   "LD_HUGEPAGE_BACKING to place it for thp)";
  return HP_NC "(its segments' alignment keeps it from being placed "
	 "there)";
#undef HP_NC
}

/* The thp backing (hp_zone_fn): ask for transparent huge pages for
   zone Z, page-cache huge pages for a read-only zone (left mapped from
   the file), an anonymous copy marked MADV_HUGEPAGE for a writable
   one.  HP_THP means asked for, with *WHAT saying how.  BIAS and
   VERIFY are not used: read-only zones stay mapped from the file as
   they are, and the copy of a writable one is not compared, as
   before the backings were one table.  */
enum hp_outcome
_dl_hugepage_thp_zone (struct hp_load_state *ls, const struct hp_zone *z,
		       uint64_t bias, ElfW(Addr) l_addr, int fd, bool verify,
		       int *err, const char **what)
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
      *what = hp_not_congruent (ls);
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
  if (!ls->object.thp_advised)
    {
      ls->object.thp_advised = true;
      hp_advise_object (ls, l_addr);
    }
  if (_dl_hugepage_madvise (dst, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = HP_STEP_MADV_HUGEPAGE;
      return HP_FALLBACK;
    }
  /* Nothing is touched, dropped or asked here: no range is read at load
     and the process has no system call to make that a seccomp filter
     may refuse.  What the kernel gave shows in /proc/PID/smaps
     (FilePmdMapped), which hugeld status reads.  */
  /* The buffers are allocated: the plan being applied is in them.  */
  char *msg = _dl_hugepage_buffers ()->thp_msg;
  char *p = hp_put_count (__stpcpy (msg, "page-cache huge pages asked for "
					"(MADV_HUGEPAGE) for "),
			  len / HP_HUGEPAGE_SIZE,
			  " 2 MiB ranges: huge from first use, except where "
			  "the page cache holds small folios (hugeld thp "
			  "repair makes them whole)");
  if (edges != 0)
    p = hp_put_count (__stpcpy (p, "; "), edges,
		      " on ordinary pages where the file holds another "
		      "segment's bytes");
  if (hp_thp_denied)
    __stpcpy (p, "; " HP_THP_ENABLED_FILE " unreadable" HP_DENIED
	      ": asked for all the same");
  *what = msg;
  return HP_THP;
}
