/* hugeld: the private backing.
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

/* The private backing of LD_HUGEPAGE_BACKING: a copy of the zone in
   huge pages of the pool, one per process.  Build a
   MAP_PRIVATE|MAP_HUGETLB copy of the zone aside, make every huge page
   of it present (so that a page the pool or a hugetlb cgroup cannot
   give is an error now, not a SIGBUS later), fill it with pread
   straight from the file (one copy of the bytes), give it the
   segment's protection, and mremap it over the ordinary pages
   (_dl_hugepage_fill_and_move, dl-hugepage-map.c, which also says what
   is done if the move fails).

   MAP_PRIVATE hugetlb mappings reserve their pages at mmap time, so a
   successful mmap cannot lead to a later SIGBUS for want of pool pages
   (only a copy-on-write after fork can need more, which is why
   writable kinds are opt-in).  Reservations do not cover hugetlb
   cgroup fault limits or memory policies, hence the population step.
   A reservation that fails may still leave room for part of the zone:
   _dl_hugepage_private_room finds out how much.  */

#include <errno.h>
#include <sys/mman.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include "dl-hugepage-int.h"

/* Make every huge page of [ADDR, ADDR + LEN) present now, allocated and
   charged to the pool and to the hugetlb cgroup, by letting the kernel
   write one byte into each (from FD, at offset 0), then clearing that
   byte.  A page that cannot be had is then an error of this read
   (EFAULT), where a store by the program would have been killed by
   SIGBUS: a hugetlb cgroup's hugetlb.2MB.max, a memory policy bound to
   a node without pages.  Works on every kernel, unlike
   MADV_POPULATE_WRITE (Linux 5.14).  Returns 0 or an errno value.  */
static int
hp_populate (char *addr, size_t len, int fd)
{
  for (size_t off = 0; off < len; off += HP_HUGEPAGE_SIZE)
    {
      ssize_t n;
      do
	n = __pread64_nocancel (fd, addr + off, 1, 0);
      while (n < 0 && errno == EINTR);
      if (n != 1)
	return n < 0 ? errno : EIO;
      addr[off] = 0;
    }
  return 0;
}

/* The private backing (hp_zone_fn): put zone Z on a private copy in
   huge pages of the pool, filled from FD, where the pool may be used
   now (_dl_hugepage_private_allowed).  BIAS is not used: the copy is
   made from the file wherever the object is.  */
enum hp_outcome
_dl_hugepage_private_zone (struct hp_load_state *ls, const struct hp_zone *z,
			   uint64_t bias, ElfW(Addr) l_addr, int fd,
			   bool verify, int *err, const char **what)
{
  size_t len = z->end - z->start;
  if (!_dl_hugepage_private_allowed (what))
    return HP_FALLBACK;
  bool denied;
  if (!_dl_hugepage_kernel_can_move (err, what, &denied))
    {
      /* The probe maps a huge page and twice that of ordinary
	 memory.  */
      if (*err == ENOMEM && hp_debug ())
	ls->enomem = _dl_hugepage_enomem_why (2 * HP_HUGEPAGE_SIZE, true);
      /* The probe's MAP_HUGETLB mapping is the first this process asks
	 for: a security policy refuses it there.  */
      ls->denied = denied;
      return HP_FALLBACK;
    }
  if ((hp_prot (z->prot) & PROT_EXEC) != 0
      && !_dl_hugepage_may_exec_copy (err, what))
    return HP_FALLBACK;

  void *tmp = __mmap (NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB
		      | HP_MAP_HUGE_2MB, -1, 0);
  if (tmp == MAP_FAILED)
    {
      *what = HP_STEP_MMAP_HUGETLB;
      *err = errno;
      ls->denied = hp_hugetlb_denied (*err);
      if (*err != ENOMEM)
	return HP_FALLBACK;
      /* The kernel checks the process's limits before the pool (a
	 private hugetlb mapping counts as data).  An ENOMEM one of them
	 explains is no shortage of the pool: nothing smaller is tried,
	 whose probe would measure the limit and be reported as the
	 pool's room.  */
      ls->enomem = _dl_hugepage_enomem_why (len, true);
      if (ls->enomem != NULL)
	return HP_FALLBACK;
      /* The reservation failed: the pool (or the hugetlb cgroup's
	 reservation limit) may still have room for part of the zone.  */
      return HP_SHORT;
    }
  if (HP_ALIGN_REM ((uintptr_t) tmp, HP_HUGEPAGE_SIZE) != 0)
    {
      *what = HP_STEP_MMAP_HUGETLB " alignment";
      *err = EINVAL;
    }
  else if ((*err = hp_populate (tmp, len, fd)) != 0)
    *what = "populating the huge pages";
  else
    return _dl_hugepage_fill_and_move (ls, tmp, z, l_addr, fd, verify, err,
				       what);
  __munmap (tmp, len);
  return HP_FALLBACK;
}

/* Whether a private hugetlb mapping of N huge pages can be made now:
   it reserves them, and is unmapped at once (nothing is touched).  */
static bool
hp_pool_fits (size_t n)
{
  size_t len = n * HP_HUGEPAGE_SIZE;
  void *p = __mmap (NULL, len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB
		    | HP_MAP_HUGE_2MB, -1, 0);
  if (p == MAP_FAILED)
    return false;
  __munmap (p, len);
  return true;
}

/* How many huge pages, fewer than N, the pool can reserve for this
   process now, a reservation of N having just failed: the most, found
   by trying.  What the pool reports free and unreserved is the first
   guess, and usually the answer (two tries); the hugetlb cgroup's
   reservation limit can make it less, surplus pages
   (nr_overcommit_hugepages) more, and the rest is a binary search.  */
size_t
_dl_hugepage_private_room (size_t n)
{
  /* LO pages fit, HI do not.  */
  size_t lo = 0, hi = n;
  long int guess = _dl_hugepage_pool_unreserved ();
  if (guess > 0 && (size_t) guess < hi)
    {
      if (hp_pool_fits (guess))
	{
	  lo = guess;
	  if (lo + 1 < hi && !hp_pool_fits (lo + 1))
	    return lo;
	}
      else
	hi = guess;
    }
  while (hi - lo > 1)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (hp_pool_fits (mid))
	lo = mid;
      else
	hi = mid;
    }
  return lo;
}
