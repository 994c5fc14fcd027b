/* hugeld: the ends of an object's code on contiguous-PTE huge pages.
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

/* With 4 KiB pages, AArch64's Linux offers hugetlb pages of 64 KiB
   (sixteen contiguous PTEs, one TLB entry), each size with its own pool
   (/sys/kernel/mm/hugepages/hugepages-64kB, MAP_HUGE_64KB).  After the
   2 MiB zones of an object are applied, the part of its text that no
   2 MiB page can cover (the partial 2 MiB at each end of the
   segment) goes on 64 KiB pages where it fills whole ones: the same
   planner, with a huge page size of 64 KiB and the load bias the object
   has, gives the 64 KiB zones of its text, and what the 2 MiB plan
   already covers is cut out of them.  Each piece is a private copy
   from the 64 KiB pool (_dl_hugepage_fill_and_move: pread, the
   instruction cache made coherent, PROT_BTI kept, one mremap), tried
   only where the private backing is in LD_HUGEPAGE_BACKING; anything
   that fails leaves the piece on the ordinary pages it had.

   A 2 MiB zone of text that no backing put on huge pages (the 2 MiB
   pool had no room for it, or for its end) is not cut out: it goes on
   64 KiB pages too, the next size (with the thp backing after the
   private one, thp's advice takes it first).

   Not yet: rodata, relro and the writable kinds; the shared cache and
   thp for 64 KiB pages; objects with no whole 2 MiB page (their text
   could fill 64 KiB ones).  */

#include <array_length.h>
#include <errno.h>
#include <libintl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ldsodefs.h>
#include <dl-hugepage.h>
#include "dl-hugepage-int.h"
#include "dl-hugepage-arch.h"

#ifdef HP_ARCH_CONT_SIZE

#ifndef MAP_HUGE_SHIFT
# define MAP_HUGE_SHIFT 26
#endif

void
_dl_hugepage_cont_reset (void)
{
  struct hp_buffers *b = _dl_hugepage_buffers ();
  if (b != NULL)
    b->ncont_left = 0;
}

void
_dl_hugepage_cont_left (const struct hp_zone *z)
{
  struct hp_buffers *b = _dl_hugepage_buffers ();
  if (z->kind != HP_KIND_TEXT || b == NULL
      || b->ncont_left == array_length (b->cont_left))
    return;
  b->cont_left[b->ncont_left++] = (struct hp_range)
    { .start = z->start, .end = z->end, .kind = z->kind, .load = z->load };
}

/* The part of the 2 MiB zone B that is on huge pages: B less what
   _dl_hugepage_cont_left noted in it (all of it, or its end).  */
static struct hp_zone
hp_cont_covered (const struct hp_zone *b)
{
  struct hp_zone c = *b;
  const struct hp_buffers *hb = _dl_hugepage_buffers ();
  for (size_t i = 0; hb != NULL && i < hb->ncont_left; ++i)
    {
      const struct hp_range *r = &hb->cont_left[i];
      if (r->start >= c.start && r->start < c.end)
	c.end = r->start;
    }
  return c;
}

/* Put piece P (a 64 KiB zone) of LS's object, at load bias L_ADDR and
   open as FD, on a private copy in 64 KiB pages.  */
static enum hp_outcome
hp_cont_private (struct hp_load_state *ls, const struct hp_zone *p,
		 ElfW(Addr) l_addr, int fd, bool verify, int *err,
		 const char **what)
{
  *err = 0;
  bool denied = false;
  if (!_dl_hugepage_private_allowed (what)
      || !_dl_hugepage_kernel_can_move (err, what, &denied)
      || !_dl_hugepage_may_exec_copy (err, what))
    {
      /* The probe's MAP_HUGETLB mapping, refused by a security policy
	 (as for the 2 MiB copy: dl-hugepage-private.c).  */
      ls->denied = denied;
      return HP_FALLBACK;
    }
  size_t len = p->end - p->start;
  void *tmp = __mmap (NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB
		      | (HP_ARCH_CONT_SHIFT << MAP_HUGE_SHIFT), -1, 0);
  if (tmp == MAP_FAILED)
    {
      *err = errno;
      *what = "mmap MAP_HUGETLB of " HP_ARCH_CONT_NAME " pages";
      return HP_FALLBACK;
    }
  return _dl_hugepage_fill_and_move (ls, tmp, p, l_addr, fd, verify, err,
				     what);
}

/* Report what became of piece P.  */
static void
hp_cont_report (const struct hp_load_state *ls, const struct hp_zone *p,
		ElfW(Addr) l_addr, enum hp_outcome o, int err,
		const char *what)
{
  unsigned long int s = p->start, e = p->end;
  if (o == HP_DONE)
    _dl_debug_printf ("hugepages: %s: text [0x%lx, 0x%lx) at 0x%lx on %lu "
		      "huge pages of " HP_ARCH_CONT_NAME " (private)\n",
		      ls->objname, s, e, (unsigned long int) (l_addr + s),
		      (unsigned long int) ((e - s) / HP_ARCH_CONT_SIZE));
  else if (o == HP_LOST)
    _dl_debug_printf ("hugepages: %s: text [0x%lx, 0x%lx): %s failed and "
		      "the ordinary pages could not be mapped again "
		      "(errno %d)\n", ls->objname, s, e, what, err);
  else if (err == 0)
    _dl_debug_printf ("hugepages: %s: text [0x%lx, 0x%lx) on ordinary "
		      "pages, not " HP_ARCH_CONT_NAME " ones: %s\n",
		      ls->objname, s, e, what);
  else
    _dl_debug_printf ("hugepages: %s: text [0x%lx, 0x%lx) on ordinary "
		      "pages, not " HP_ARCH_CONT_NAME " ones%s: %s failed: "
		      "%s (errno %d)\n", ls->objname, s, e,
		      o == HP_RESTORED ? " (mapped again from the file)" : "",
		      what, _dl_hugepage_errno_name (err), err);
}

const char *
_dl_hugepage_cont_apply (struct hp_load_state *ls, const struct hp_plan *big,
			 struct link_map *l, int fd, bool verify)
{
  if (!_dl_hugepage_cont_wanted (_dl_hugepage_kinds, GLRO(dl_pagesize),
				 _dl_hugepage_backings,
				 _dl_hugepage_nbackings))
    return NULL;

  struct hp_settings s;
  _dl_hugepage_settings (&s, GLRO(dl_pagesize), HP_KIND_TEXT, ls->type,
			 ls->kernel, true, l->l_addr, ls->textrel,
			 HP_PHASE_NONE);
  _dl_hugepage_cont_settings (&s, l->l_addr);
  struct __stat64_t64 st;
  if (__fstat64_time64 (fd, &st) == 0 && st.st_size >= 0)
    s.file_size = st.st_size;
  /* The 64 KiB zones, in hugeld's buffers (allocated: the 2 MiB plan
     is there too).  */
  struct hp_plan *plan = &_dl_hugepage_buffers ()->cont_plan;
  _dl_hugepage_plan (ls->phdr, ls->phnum, &s, plan);
  if (plan->error != HP_E_NONE)
    return NULL;

  /* What of the 2 MiB zones is on huge pages, in address order.  */
  struct hp_buffers *hb = _dl_hugepage_buffers ();
  for (size_t j = 0; j < big->nzones; ++j)
    hb->cont_covered[j] = hp_cont_covered (&big->zones[j]);
  size_t pages = 0;
  for (size_t i = 0; i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      if (z->kind != HP_KIND_TEXT)
	continue;
      /* Z less the 2 MiB zones, piece by piece.  */
      size_t n = _dl_hugepage_zone_pieces (z, hb->cont_covered, big->nzones,
					   hb->cont_pieces,
					   array_length (hb->cont_pieces));
      for (size_t k = 0; k < n; ++k)
	{
	  const struct hp_zone *piece = &hb->cont_pieces[k];
	  int err;
	  const char *what = "";
	  enum hp_outcome o = hp_cont_private (ls, piece, l->l_addr, fd,
					       verify, &err, &what);
	  if (hp_debug ())
	    hp_cont_report (ls, piece, l->l_addr, o, err, what);
	  if (o == HP_LOST)
	    return N_("cannot map segment back after a failed move to "
		      "huge pages");
	  if (o == HP_DONE)
	    pages += (piece->end - piece->start) / HP_ARCH_CONT_SIZE;
	}
    }
  if (hp_debug () && pages != 0)
    _dl_debug_printf ("hugepages: %s: %lu huge pages of " HP_ARCH_CONT_NAME
		      " used\n", ls->objname, (unsigned long int) pages);
  return NULL;
}

#endif /* HP_ARCH_CONT_SIZE */
