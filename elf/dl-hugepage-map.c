/* hugeld: the system calls that put planned zones on huge pages.
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

/* The mapping side of hugeld, for the load state the hooks
   (dl-hugepage.c) hand down: apply a plan zone by zone, trying the
   backings in order (dl-hugepage-back.c has the shared cache,
   dl-hugepage-private.c the private copy and dl-hugepage-thp.c
   transparent huge pages), move a zone's new pages into place, and map
   a zone again from the file if a move failed.  If the object did not
   land where it was planned for, it is planned again
   (dl-hugepage-select.c) for where it is: mapping depends on
   deciding, never the other way round.

   Nothing is ever left unmapped.  mremap replaces the old pages in one
   step, but a kernel may unmap the destination before it fails: Linux
   before 5.16 cannot move hugetlb mappings at all and does exactly
   that (mremap_to unmaps the target, then refuses the hugetlb VMA with
   EINVAL).  So ld.so first finds out, once, whether the running kernel
   can move a hugetlb mapping, with a mapping of its own that reserves
   nothing; where it cannot, objects simply stay on ordinary pages.  If
   the final mremap fails anyway and the destination is no longer
   mapped, the zone is mapped again from the file exactly as the stock
   loader mapped it; only if even that fails does the load fail, as it
   would for any failed mmap.  */

#include <errno.h>
#include <libintl.h>
#include <string.h>
#include <sys/mman.h>
#include <ldsodefs.h>
#include <sysdep.h>
#include <dl-hugepage.h>
#include "dl-hugepage-int.h"
#include "dl-hugepage-arch.h"

#ifndef MAP_FIXED_NOREPLACE
# define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Whether the running kernel can move a hugetlb mapping with mremap:
   0 not known yet, 1 yes, -1 no (hp_move_errno says why).  */
static int hp_can_move;
static int hp_move_errno;
static const char *hp_move_what;
/* ... and whether that was a security policy refusing the probe's
   MAP_HUGETLB mapping (hp_hugetlb_denied).  */
static bool hp_move_denied;

/* Whether the running kernel can move a hugetlb mapping with
   mremap (MREMAP_FIXED), found out once with a 2 MiB mapping that
   reserves and touches nothing (MAP_NORESERVE), moved into an address
   range of ld.so's own.  Linux before 5.16 unmaps the target range and
   then fails with EINVAL; here the target is ours, so nothing is lost.
   A kernel that refuses for another reason (a seccomp filter, no huge
   page support) counts as unable, too.  */
static bool
hp_probe_move (void)
{
  bool ok = false;
  hp_move_errno = 0;

  void *src = __mmap (NULL, HP_HUGEPAGE_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB
		      | MAP_NORESERVE | HP_MAP_HUGE_2MB, -1, 0);
  if (src == MAP_FAILED)
    {
      hp_move_errno = errno;
      hp_move_what = HP_STEP_MMAP_HUGETLB;
      hp_move_denied = hp_hugetlb_denied (hp_move_errno);
      return false;
    }
  hp_move_what = "moving a huge page mapping (mremap; Linux 5.16 or later)";
  char *area = __mmap (NULL, 2 * HP_HUGEPAGE_SIZE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      hp_move_errno = errno;
      __munmap (src, HP_HUGEPAGE_SIZE);
      return false;
    }
  void *dst = (void *) HP_ALIGN_UP ((uintptr_t) area, HP_HUGEPAGE_SIZE);
  if (__mremap (src, HP_HUGEPAGE_SIZE, HP_HUGEPAGE_SIZE,
		MREMAP_MAYMOVE | MREMAP_FIXED, dst) == MAP_FAILED)
    {
      hp_move_errno = errno;
      __munmap (src, HP_HUGEPAGE_SIZE);
    }
  else
    ok = true;
  /* The moved mapping lies entirely inside AREA.  */
  __munmap (area, 2 * HP_HUGEPAGE_SIZE);
  return ok;
}

bool
_dl_hugepage_kernel_can_move (int *err, const char **what, bool *denied)
{
  bool can = hp_can_move > 0;
  if (hp_can_move == 0)
    {
      can = hp_probe_move ();
      /* Out of memory, or over a limit of the process (ENOMEM), says
	 nothing of the kernel: asked again next time.  */
      if (can || hp_move_errno != ENOMEM)
	hp_can_move = can ? 1 : -1;
    }
  *err = hp_move_errno;
  *what = hp_move_what;
  *denied = hp_move_denied;
  return can;
}

/* Whether this process may make memory it wrote executable:
   0 not known yet, 1 yes, -1 no (hp_wx_errno says why).  */
static int hp_wx_ok;
static int hp_wx_errno;

/* The private copy writes the code into anonymous memory and then
   makes it executable: exactly what a write-execute policy refuses.
   systemd's MemoryDenyWriteExecute= (a seccomp filter: EPERM for any
   mprotect with PROT_EXEC), prctl PR_SET_MDWE (Linux 6.3: EACCES) and
   SELinux's execmem (EACCES) are such policies.  Found out once, with
   one ordinary page, before a zone takes or fills any huge page: under
   such a policy the text stays where the file put it, at no cost but
   these three system calls.  */
static bool
hp_probe_wx (void)
{
  size_t pg = GLRO(dl_pagesize);
  void *p = __mmap (NULL, pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    {
      /* Nothing learnt: let the zone's own mprotect decide.  */
      hp_wx_errno = errno;
      return true;
    }
  bool ok = __mprotect (p, pg, PROT_READ | PROT_EXEC) == 0;
  if (!ok)
    hp_wx_errno = errno;
  __munmap (p, pg);
  return ok;
}

bool
_dl_hugepage_may_exec_copy (int *err, const char **what)
{
  if (hp_wx_ok == 0)
    hp_wx_ok = hp_probe_wx () ? 1 : -1;
  if (hp_wx_ok > 0)
    return true;
  *err = hp_wx_errno;
  *what = HP_WX_REFUSED;
  return false;
}

/* Whether every page of [ADDR, ADDR + LEN) is mapped: msync fails
   with ENOMEM on a range with a hole, and MS_ASYNC does nothing else.  */
bool
_dl_hugepage_mapped (void *addr, size_t len)
{
  return INTERNAL_SYSCALL_CALL (msync, addr, len, MS_ASYNC) == 0;
}

/* The PT_LOAD header of LS's object that the planner calls segment
   INDEX (it counts only segments with memory).  */
static const ElfW(Phdr) *
hp_load_phdr (const struct hp_load_state *ls, int index)
{
  const ElfW(Phdr) *phdr = ls->phdr;
  int n = 0;
  for (size_t i = 0; i < ls->phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_memsz != 0 && n++ == index)
      return &phdr[i];
  return NULL;
}

/* Map [START, END) (absolute, page-aligned) as fresh memory of
   protection PROT: from FD at OFFSET, or anonymous if FD is -1.  Never
   replaces a mapping: a range that is already wholly mapped was never
   unmapped and is left alone.  Returns 0 or an errno value.  */
static int
hp_restore_piece (ElfW(Addr) start, ElfW(Addr) end, int prot, int fd,
		  off64_t offset)
{
  if (end <= start)
    return 0;
  size_t len = end - start;
  if (_dl_hugepage_mapped ((void *) start, len))
    return 0;
  int flags = MAP_PRIVATE | MAP_FIXED_NOREPLACE;
  if (fd == -1)
    flags |= MAP_ANONYMOUS;
  void *p = __mmap ((void *) start, len, prot, flags, fd,
		    fd == -1 ? 0 : offset);
  if (p == MAP_FAILED)
    return errno;
  if (p != (void *) start)
    {
      /* A kernel before 4.17 took MAP_FIXED_NOREPLACE as a hint.  */
      __munmap (p, len);
      return EEXIST;
    }
  return 0;
}

/* Map zone Z of the object with load bias L_ADDR again exactly as the
   stock loader (or the kernel) had mapped it: the segment's file pages
   from FD, the zero fill after its last file byte, and inaccessible
   pages where the zone covers a gap between segments.  Parts that are
   still mapped are kept.  Returns 0 or an errno value.  */
static int
hp_restore_zone (const struct hp_load_state *ls, const struct hp_zone *z,
		 ElfW(Addr) l_addr, int fd)
{
  const ElfW(Phdr) *ph = hp_load_phdr (ls, z->load);
  if (ph == NULL)
    return EINVAL;
  size_t pg = GLRO(dl_pagesize);
  ElfW(Addr) zs = l_addr + z->start, ze = l_addr + z->end;
  ElfW(Addr) seg = l_addr + HP_ALIGN_DOWN (ph->p_vaddr, pg);
  ElfW(Addr) dataend = l_addr + ph->p_vaddr + ph->p_filesz;
  ElfW(Addr) fileend = HP_ALIGN_UP (dataend, pg);
  ElfW(Addr) allocend = HP_ALIGN_UP (l_addr + ph->p_vaddr + ph->p_memsz,
				     pg);
  int prot = hp_map_prot (ls, ph->p_flags);
#define HP_CLAMP(x) ((x) < zs ? zs : (x) > ze ? ze : (x))
  ElfW(Addr) a = HP_CLAMP (seg), b = HP_CLAMP (fileend),
    c = HP_CLAMP (allocend);
#undef HP_CLAMP
  int err = hp_restore_piece (zs, a, PROT_NONE, -1, 0);
  if (err == 0)
    err = hp_restore_piece (a, b, prot, fd,
			    HP_ALIGN_DOWN (ph->p_offset, pg) + (a - seg));
  if (err == 0)
    err = hp_restore_piece (b, c, prot, -1, 0);
  if (err == 0)
    err = hp_restore_piece (c, ze, PROT_NONE, -1, 0);
  /* The bytes of the last file page after the segment's data are
     zero, as _dl_map_segments (and the kernel) make them.  */
  if (err == 0 && ph->p_memsz > ph->p_filesz
      && HP_ALIGN_REM (dataend, pg) != 0 && dataend > zs && dataend < ze)
    {
      ElfW(Addr) page = HP_ALIGN_DOWN (dataend, pg);
      if ((prot & PROT_WRITE) == 0
	  && __mprotect ((void *) page, pg, prot | PROT_WRITE) != 0)
	return errno;
      memset ((void *) dataend, '\0', fileend - dataend);
      if ((prot & PROT_WRITE) == 0
	  && __mprotect ((void *) page, pg, prot) != 0)
	return errno;
    }
  return err;
}

enum hp_outcome
_dl_hugepage_unhole (const struct hp_load_state *ls, const struct hp_zone *z,
		     ElfW(Addr) l_addr, int fd, int *err)
{
  if (_dl_hugepage_mapped ((void *) (l_addr + z->start), z->end - z->start))
    return HP_FALLBACK;
  int rerr = hp_restore_zone (ls, z, l_addr, fd);
  if (rerr != 0)
    {
      *err = rerr;
      return HP_LOST;
    }
  return HP_RESTORED;
}

enum hp_outcome
_dl_hugepage_move_zone (const struct hp_load_state *ls, void *tmp,
			const struct hp_zone *z, ElfW(Addr) l_addr, int fd,
			int *err, const char **what)
{
  size_t len = z->end - z->start;
  if (__mremap (tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		(void *) (l_addr + z->start)) != MAP_FAILED)
    return HP_DONE;
  /* The kernel may have unmapped the destination before it failed.  */
  *what = "mremap";
  *err = errno;
  __munmap (tmp, len);
  return _dl_hugepage_unhole (ls, z, l_addr, fd, err);
}

/* Give TMP, the filled copy (LEN bytes) of a zone of LS's object with
   segment flags PFLAGS, its protection; code is first made coherent
   with the instruction cache (dl-hugepage-arch.h).  mprotect's
   result.  */
static int
hp_protect_copy (const struct hp_load_state *ls, void *tmp, size_t len,
		 int pflags)
{
  int prot = hp_map_prot (ls, pflags);
  if ((prot & PROT_EXEC) != 0)
    hp_arch_sync_icache (tmp, len);
  return __mprotect (tmp, len, prot);
}

enum hp_outcome
_dl_hugepage_fill_and_move (const struct hp_load_state *ls, void *tmp,
			    const struct hp_zone *z, ElfW(Addr) l_addr, int fd,
			    bool verify, int *err, const char **what)
{
  size_t len = z->end - z->start;
  char *copy = (char *) tmp + (z->copy_start - z->start);
  ssize_t n = (z->copy_len == 0 ? 0
	       : _dl_hugepage_pread_full (fd, copy, z->copy_len, z->fileoff));
  if (n < 0)
    {
      *what = HP_STEP_PREAD;
      *err = errno;
    }
  else if ((size_t) n < z->copy_need)
    {
      *what = HP_STEP_PREAD " (file shorter than its program headers)";
      *err = EIO;
    }
  /* The copy is filled with pread, never from the object's mapping: a
     file cut while it is loaded gives a short read here, where a read
     of the mapping past its new end would kill ld.so with SIGBUS.
     Only VERIFY reads the mapping, where a page of it is not the
     file's (_dl_hugepage_pages_from_file): that object is the
     kernel-mapped main program, the executable the kernel runs, which
     it lets nobody write or cut (ETXTBSY).  */
  else if (verify && z->copy_need > 0
	   && !_dl_hugepage_pages_from_file (l_addr + z->copy_start,
					     z->copy_need)
	   && memcmp (copy, (void *) (l_addr + z->copy_start),
		      z->copy_need) != 0)
    {
      *what = "compare (the mapped code differs from the file: "
	      "debugger breakpoints or uprobes)";
      *err = EBUSY;
    }
  else if (hp_protect_copy (ls, tmp, len, z->prot) != 0)
    {
      /* Code whose probe passed (hp_probe_wx: ordinary anonymous
	 memory may become executable) and whose huge pages may not:
	 a security module's rule on the huge page memory's file
	 (SELinux checks execmod on its hugetlbfs_t file, AppArmor its
	 `m' permission).  */
      *err = errno;
      bool exec = (hp_prot (z->prot) & PROT_EXEC) != 0;
      *what = (!exec || *err == ENOMEM ? "mprotect"
	       : hp_wx_ok > 0 && _dl_hugepage_denied (*err, -1, NULL)
	       ? "mprotect PROT_EXEC of the copy (" HP_DENIED_WORDS
		 ": a rule on huge page memory)"
	       : HP_WX_REFUSED);
    }
  else
    return _dl_hugepage_move_zone (ls, tmp, z, l_addr, fd, err, what);
  __munmap (tmp, len);
  return HP_FALLBACK;
}

/* Report what backing B did with zone Z (N huge pages) of the object
   with load bias L_ADDR.  */
static void
hp_report_zone (const struct hp_load_state *ls, const struct hp_zone *z,
		ElfW(Addr) l_addr, int b, enum hp_outcome o, const char *what,
		int err, size_t n)
{
  if (!hp_debug ())
    return;
  const char *obj = ls->objname;
  const char *kind = _dl_hugepage_kind_name (z->kind);
  const char *bname = _dl_hugepage_backing_name (b);
  bool plain = (_dl_hugepage_backing_flags (b) & HP_BF_PLAIN) != 0;
  unsigned long int s = z->start, e = z->end;
  unsigned long int at = l_addr + z->start;
  switch (o)
    {
    case HP_DONE:
      /* A plain backing (the private copy) has the original report;
	 other backings say which they are.  */
      _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx) at 0x%lx on %lu "
			"huge pages%s%s%s\n", obj, kind, s, e, at,
			(unsigned long int) n, plain ? "" : " (",
			plain ? "" : bname, plain ? "" : ")");
      return;
    case HP_THP:
      _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx) at 0x%lx: thp: "
			"%s\n", obj, kind, s, e, at, what);
      return;
    case HP_LOST:
      _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx): %s failed and the "
			"ordinary pages could not be mapped again (errno %d)\n",
			obj, kind, s, e, what, err);
      return;
    default:
      break;
    }
  const char *again = o == HP_RESTORED ? " (mapped again from the file)" : "";
  /* An ENOMEM that a limit of the process explains says so.  */
  const char *ename = (err == ENOMEM && ls->enomem != NULL ? ls->enomem
		       : _dl_hugepage_errno_name (err));
  const char *denied = ls->denied && err != 0 ? HP_DENIED : "";
  if (plain && err != 0)
    _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx) fallback to ordinary "
		      "pages%s: %s failed: %s (errno %d)%s\n", obj, kind, s, e,
		      again, what, ename, err, denied);
  else if (err == 0)
    _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx): %s: %s%s\n", obj,
		      kind, s, e, bname, what, again);
  else
    _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx): %s: %s failed: %s "
		      "(errno %d)%s%s\n", obj, kind, s, e, bname, what,
		      ename, err, denied, again);
}

/* The zone functions of HP_BACKING_TABLE, indexed by HP_B_* - 1.  */
#define HP_BACKING_ZONE_FN(id, name, flags) _dl_hugepage_##name##_zone,
static hp_zone_fn *const hp_zone_fns[HP_NBACKINGS] =
  { HP_BACKING_TABLE (HP_BACKING_ZONE_FN) };
#undef HP_BACKING_ZONE_FN

const char *
_dl_hugepage_apply_plan (struct hp_load_state *ls, struct link_map *l,
			 int fd, bool verify)
{
  const struct hp_plan *plan = ls->current;
  ls->current = NULL;
  if (plan == NULL)
    return NULL;

  /* The larger reservation in _dl_map_segment may have failed, leaving
     the object where the kernel put it: plan again for that bias.  */
  if (HP_ALIGN_REM (l->l_addr - plan->bias, plan->modulus) != 0)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s: load address 0x%lx is not the "
			  "planned one; planning again\n",
			  ls->objname, (unsigned long int) l->l_addr);
      _dl_hugepage_plan_load (ls, fd, true, l->l_addr);
      plan = ls->plan;
      if (plan->error != HP_E_NONE)
	return NULL;
    }

  size_t pages = 0, failed = 0, shared = 0, thp = 0;
  _dl_hugepage_cont_reset ();
  /* Text first: a pool too small for every zone goes where it helps
     most (_dl_hugepage_zone_order).  */
  unsigned char order[HP_MAX_RUNS];
  _dl_hugepage_zone_order (plan, order);
  for (size_t i = 0; i < plan->nzones; ++i)
    {
      /* The zone, or what is left of it after a backing put its first
	 pages on huge pages.  */
      struct hp_zone part = plan->zones[order[i]];
      const struct hp_zone *z = &part;
      size_t n = (z->end - z->start) / HP_HUGEPAGE_SIZE;
      enum hp_outcome o = HP_FALLBACK;
      int got = 0;
      bool tried = false, cut = false;
      for (int k = 0; k < _dl_hugepage_nbackings; ++k)
	{
	  int b = _dl_hugepage_backings[k];
	  const char *what = NULL;
	  int err = 0;
	  if (!_dl_hugepage_backing_tried (b, z, ls->textrel))
	    continue;
	  ls->enomem = NULL;
	  ls->denied = false;
	  tried = true;
	  o = hp_zone_fns[b - 1] (ls, z, plan->bias, l->l_addr, fd, verify,
				  &err, &what);
	  size_t room = (o == HP_SHORT && n > 1
			 ? _dl_hugepage_private_room (n) : 0);
	  if (room == 0)
	    {
	      if (o == HP_SHORT)
		o = HP_FALLBACK;
	      hp_report_zone (ls, z, l->l_addr, b, o, what, err, n);
	    }
	  else
	    {
	      /* As many whole huge pages as the pool has, from the
		 zone's start; the rest goes on to the next backing.  */
	      struct hp_zone head, tail;
	      _dl_hugepage_zone_split (z, room * HP_HUGEPAGE_SIZE, &head,
				       &tail);
	      if (hp_debug ())
		_dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx): %s: "
				  "the pool has room for %lu of its %lu "
				  "huge pages: [0x%lx, 0x%lx) on them, the "
				  "rest to the next backing\n", ls->objname,
				  _dl_hugepage_kind_name (z->kind),
				  (unsigned long int) z->start,
				  (unsigned long int) z->end,
				  _dl_hugepage_backing_name (b),
				  (unsigned long int) room,
				  (unsigned long int) n,
				  (unsigned long int) head.start,
				  (unsigned long int) head.end);
	      what = NULL;
	      err = 0;
	      ls->enomem = NULL;
	      o = hp_zone_fns[b - 1] (ls, &head, plan->bias, l->l_addr, fd,
				      verify, &err, &what);
	      if (o == HP_SHORT)
		o = HP_FALLBACK;
	      hp_report_zone (ls, &head, l->l_addr, b, o, what, err, room);
	      if (o == HP_DONE)
		{
		  pages += room;
		  if ((_dl_hugepage_backing_flags (b) & HP_BF_SHAREABLE) != 0)
		    shared += room;
		  part = tail;
		  n -= room;
		  o = HP_FALLBACK;
		  tried = false;
		  cut = true;
		  continue;
		}
	    }
	  if (o == HP_LOST)
	    {
	      _dl_hugepage_object_done (&ls->object);
	      return N_("cannot map segment back after a failed move to "
			"huge pages");
	    }
	  if (o == HP_DONE || o == HP_THP)
	    {
	      got = b;
	      break;
	    }
	}
      if (cut && !tried && hp_debug ())
	_dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx) on ordinary "
			  "pages: the pool had no room for it, and no "
			  "backing follows\n", ls->objname,
			  _dl_hugepage_kind_name (z->kind),
			  (unsigned long int) z->start,
			  (unsigned long int) z->end);
      if (o == HP_DONE)
	{
	  pages += n;
	  if ((_dl_hugepage_backing_flags (got) & HP_BF_SHAREABLE) != 0)
	    shared += n;
	}
      else
	{
	  failed += n;
	  if (o == HP_THP)
	    thp += n;
	  else
	    _dl_hugepage_cont_left (z);
	}
    }
  _dl_hugepage_object_done (&ls->object);
  if (hp_debug ())
    _dl_debug_printf ("hugepages: %s: %lu huge pages used, %lu not "
		      "available (%lu shared; thp asked for %lu)\n",
		      ls->objname, (unsigned long int) pages,
		      (unsigned long int) failed, (unsigned long int) shared,
		      (unsigned long int) thp);
  return NULL;
}
