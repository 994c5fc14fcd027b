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
   collapse file pages).  Whether it does depends on the kernel, the
   file system and what the page cache holds already; only
   /proc/PID/smaps (FilePmdMapped) can tell.  A writable zone becomes
   an anonymous private copy marked MADV_HUGEPAGE, built aside and
   moved into place like the private copy (moving ordinary memory works
   on every kernel).  */

#include <errno.h>
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
  ssize_t n = _dl_hugepage_read_file ("/sys/kernel/mm/"
				      "transparent_hugepage/enabled",
				      buf, sizeof buf);
  /* "always madvise [never]": the choice is in brackets.  */
  int r = n > 0 ? 1 : -1;
  for (ssize_t i = 0; i + 7 <= n; ++i)
    if (memcmp (buf + i, "[never]", 7) == 0)
      r = -1;
  return r;
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
hp_thp_copy (const struct hp_zone *z, ElfW(Addr) l_addr, int fd, int *err,
	     const char **what)
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
  char *tmp = (char *) ALIGN_UP ((uintptr_t) area, HP_HUGEPAGE_SIZE);
  if (tmp > area)
    __munmap (area, tmp - area);
  if (area + HP_HUGEPAGE_SIZE > tmp)
    __munmap (tmp + len, area + HP_HUGEPAGE_SIZE - tmp);
  if (hp_madvise (tmp, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = "madvise MADV_HUGEPAGE";
      goto fail;
    }
  if (z->copy_len > 0)
    {
      ssize_t n = _dl_hugepage_pread_full (fd, tmp + (z->copy_start
						      - z->start),
					   z->copy_len, z->fileoff);
      if (n < 0 || (size_t) n < z->copy_need)
	{
	  *err = n < 0 ? errno : EIO;
	  *what = "pread";
	  goto fail;
	}
    }
  if (__mprotect (tmp, len, hp_prot (z->prot)) != 0)
    {
      *err = errno;
      *what = "mprotect";
      goto fail;
    }
  enum hp_outcome o = _dl_hugepage_move_zone (tmp, z, l_addr, fd, err, what);
  if (o != HP_DONE)
    return o;
  *what = "anonymous copy, MADV_HUGEPAGE";
  return HP_THP;

 fail:
  __munmap (tmp, len);
  return HP_FALLBACK;
}

/* Mark every file page of the object with load bias L_ADDR
   MADV_HUGEPAGE, not only its huge page zones, before anything faults
   them in: the kernel's read-around for a fault anywhere else in the
   file (relocation, constructors; read_ahead_kb may be megabytes)
   would otherwise fill the page cache with small folios, also where
   the zones are, and those can never be mapped with huge pages.  With
   the mark, every fault reads whole aligned huge folios.  Best effort:
   a zone already on hugetlb pages refuses the advice, and only the
   zone's own madvise must succeed.  */
static void
hp_advise_object (ElfW(Addr) l_addr)
{
  const ElfW(Phdr) *phdr = _dl_hugepage_load.phdr;
  size_t pg = GLRO(dl_pagesize);
  for (size_t i = 0; i < _dl_hugepage_load.phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_filesz != 0)
      {
	ElfW(Addr) s = ALIGN_DOWN (l_addr + phdr[i].p_vaddr, pg);
	ElfW(Addr) e = ALIGN_UP (l_addr + phdr[i].p_vaddr + phdr[i].p_filesz,
				 pg);
	hp_madvise ((void *) s, e - s, MADV_HUGEPAGE);
      }
}

enum hp_outcome
_dl_hugepage_thp_zone (struct hp_object_state *st, const struct hp_zone *z,
		       ElfW(Addr) l_addr, int fd, int *err, const char **what)
{
  *err = 0;
  if (!hp_thp_enabled ())
    {
      *what = "transparent huge pages are disabled "
	      "(/sys/kernel/mm/transparent_hugepage/enabled)";
      return HP_FALLBACK;
    }
  if ((z->prot & PF_W) != 0)
    return hp_thp_copy (z, l_addr, fd, err, what);

  /* The page cache's huge pages can only be mapped where the address
     is congruent to the file offset modulo their size.  */
  if (z->copy_len == 0
      || ((l_addr + z->copy_start - z->fileoff) & (HP_HUGEPAGE_SIZE - 1))
	 != 0)
    {
      *what = "the zone's address is not congruent to its file offset "
	      "modulo 2 MiB (placed for the most huge pages: list thp "
	      "first to place it for thp)";
      return HP_FALLBACK;
    }
  void *dst = (void *) (l_addr + z->start);
  size_t len = z->end - z->start;
  if (!st->thp_advised)
    {
      st->thp_advised = true;
      hp_advise_object (l_addr);
    }
  if (hp_madvise (dst, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = "madvise MADV_HUGEPAGE";
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
    }
  return HP_THP;
}
