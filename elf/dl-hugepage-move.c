/* hugeld: the main program the kernel mapped, moved where its zones fit.
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

/* The kernel places a position-independent program (ET_DYN) at a
   random 4 KiB-aligned address.  Its text is then congruent to the
   2 MiB pages of its shared cache entry, or to its own file offsets
   (what the thp backing needs), about once in 512 starts: the rest
   copy it privately or leave it on 4 KiB pages.  Where the backings
   would serve it at the address ld.so would choose itself (for
   `ld.so PROG'), ld.so moves it there before anything else happens:
   called from dl_main before rtld_setup_main_map, only ld.so has run,
   nothing of the program is relocated, and nothing outside ld.so
   knows its address but what the kernel keeps.

   How: a reservation at the new address, each of the kernel's
   mappings of the program moved into it with mremap (the same pages,
   the same file mapping: /proc/self/maps, map_files, core dumps and
   guards still name the file; the reservation's PROT_NONE pages stay
   in the gaps, as glibc leaves them between the segments of an object
   it maps), then what names the old address: the on-stack auxiliary
   vector (AT_PHDR, AT_ENTRY: getauxval), the kernel's copy of it and
   its code and data bounds (prctl PR_SET_MM_MAP, which any process may
   use on itself without changing /proc/self/exe: /proc/PID/auxv, the
   auxiliary vector of a core dump, VmExe), the link map's program
   headers and entry, and the entry point ld.so jumps to.  A moved
   executable mapping is announced to perf by an mprotect that changes
   its protection and one that changes it back (mremap tells perf
   nothing).  Any failure moves everything back as it was: the program
   runs where the kernel put it, as before.

   Not moved: a program a debugger traces from its start (TracerPid):
   it has read the addresses from the kernel's auxiliary vector, and
   its breakpoints would be lost.  A debugger that attaches later
   reads the new ones.  What the kernel placed elsewhere stays: the
   brk heap (which no longer follows the program) and the stack.

   ASLR: the new address is one mmap gives, as for a library ld.so
   loads: the kernel's mmap randomness (28 bits on x86-64 by default),
   of which the 2 MiB phase leaves 19, as for every object hugeld
   places; the kernel's own base for a PIE has 28 bits at 4 KiB
   granularity.  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"
#include "dl-hugepage-relocate.h"

#ifndef PR_SET_MM
# define PR_SET_MM 35
#endif
#ifndef PR_SET_MM_MAP
# define PR_SET_MM_MAP 14
#endif

/* struct prctl_mm_map of <linux/prctl.h>, which the kernel checks by
   its size.  */
struct hp_prctl_mm_map
{
  uint64_t field[HP_MM_N];
  uint64_t *auxv;
  uint32_t auxv_size;
  uint32_t exe_fd;
};
_Static_assert (sizeof (struct hp_prctl_mm_map) == 104,
		"struct prctl_mm_map");

/* Whether a tracer is attached to this process (/proc/self/status's
   TracerPid); true if that cannot be read.  */
static bool
hp_traced (void)
{
  char buf[2048];
  ssize_t n = _dl_hugepage_read_file ("/proc/self/status", buf,
				      sizeof buf - 1);
  if (n <= 0)
    return true;
  buf[n] = '\0';
  static const char key[] = "\nTracerPid:";
  for (ssize_t i = 0; i + (ssize_t) sizeof key - 1 <= n; ++i)
    if (memcmp (buf + i, key, sizeof key - 1) == 0)
      {
	const char *t = buf + i + sizeof key - 1;
	while (*t == ' ' || *t == '\t')
	  ++t;
	return !(t[0] == '0' && (t[1] == '\n' || t[1] == '\0'));
      }
  return true;
}

/* The kernel's idea of the memory map, moved by DELTA where it names
   the program's old extent [FROM, TO], with the auxiliary vector AUXV
   (AT_NULL-terminated, as ld.so sees it on the stack).  0, or an
   errno value.  */
static int
hp_tell_kernel (ElfW(auxv_t) *auxv, uint64_t from, uint64_t to,
		uint64_t delta)
{
  char buf[1024];
  ssize_t n = _dl_hugepage_read_file ("/proc/self/stat", buf, sizeof buf);
  struct hp_prctl_mm_map map;
  if (n <= 0 || !_dl_hugepage_parse_stat_mm (buf, n, map.field))
    return n < 0 ? errno : EINVAL;
  /* /proc/self/stat does not show it: brk (0) returns it.  */
  map.field[HP_MM_BRK] = INTERNAL_SYSCALL_CALL (brk, 0);
  _dl_hugepage_shift_mm (map.field, from, to, delta);
  size_t len = 0;
  while (auxv[len].a_type != AT_NULL)
    ++len;
  map.auxv = (uint64_t *) auxv;
  map.auxv_size = (len + 1) * sizeof (ElfW(auxv_t));
  map.exe_fd = -1;
  int r = INTERNAL_SYSCALL_CALL (prctl, PR_SET_MM, PR_SET_MM_MAP,
				 (unsigned long int) &map, sizeof map, 0);
  return INTERNAL_SYSCALL_ERROR_P (r) ? INTERNAL_SYSCALL_ERRNO (r) : 0;
}

/* Move the N ranges R from bias FROM to bias TO; the first DONE moved
   back where a move fails.  The number moved.  */
static size_t
hp_move_ranges (const struct hp_move_range *r, size_t n, ElfW(Addr) from,
		ElfW(Addr) to)
{
  size_t i;
  for (i = 0; i < n; ++i)
    {
      size_t len = r[i].end - r[i].start;
      if (__mremap ((void *) (from + r[i].start), len, len,
		    MREMAP_MAYMOVE | MREMAP_FIXED, (void *) (to + r[i].start))
	  == MAP_FAILED)
	break;
    }
  return i;
}

/* Put auxiliary vector AUXV's AT_PHDR and AT_ENTRY DELTA further.  */
static void
hp_shift_auxv (ElfW(auxv_t) *auxv, ElfW(Addr) delta)
{
  for (ElfW(auxv_t) *av = auxv; av->a_type != AT_NULL; ++av)
    if (av->a_type == AT_PHDR || av->a_type == AT_ENTRY)
      av->a_un.a_val += delta;
}

/* Tell perf of the executable mappings now at bias AT: a change of
   protection is reported as a new mapping (PERF_RECORD_MMAP2, with the
   file), and the change back restores it.  */
static void
hp_announce (const struct hp_move_range *r, size_t n, ElfW(Addr) at)
{
  for (size_t i = 0; i < n; ++i)
    if (r[i].file && (r[i].prot & PF_X) != 0)
      {
	void *a = (void *) (at + r[i].start);
	size_t len = r[i].end - r[i].start;
	int prot = (((r[i].prot & PF_R) ? PROT_READ : 0)
		    | ((r[i].prot & PF_W) ? PROT_WRITE : 0) | PROT_EXEC);
	if (__mprotect (a, len, PROT_READ) == 0)
	  __mprotect (a, len, prot);
      }
}

bool
_dl_hugepage_move_main (struct hp_load_state *ls, struct link_map *main_map,
			ElfW(Addr) *user_entry, ElfW(Addr) kbias, int fd)
{
  /* Where ld.so would place it, were it mapping it: planned as an
     object whose gaps it reserves (the reservation below keeps
     them).  */
  ls->kernel = false;
  if (!_dl_hugepage_plan_load (ls, fd, false, 0))
    {
      ls->kernel = true;
      ls->current = NULL;
      return false;
    }
  const struct hp_plan *want = ls->plan;
  const char *why = NULL;
  int err = 0;
  /* What needs that address: a shared cache entry made for it, or the
     thp backing, if it is the one that will serve the text.  */
  bool for_cache = ls->placed_for_cache;
  for (int i = 0; !for_cache && i < _dl_hugepage_nbackings; ++i)
    if (_dl_hugepage_backings[i] == HP_B_SHARED)
      for_cache = (want->error == HP_E_NONE && want->nzones > 0
		   && _dl_hugepage_cache_has_zone (ls, want, fd));
  if (want->error != HP_E_NONE || want->nzones == 0)
    why = "no zone at any address";
  else if (!for_cache && ls->phase != HP_PHASE_ALWAYS)
    /* Private copies need no particular address.  */
    why = NULL;
  else if (HP_ALIGN_REM (kbias - want->bias, want->modulus) == 0)
    why = NULL;
  else
    {
      struct hp_move_range r[HP_MAX_MOVE_RANGES];
      uint64_t lo = 0, hi = 0;
      size_t n = _dl_hugepage_move_ranges (ls->phdr, ls->phnum,
					   GLRO(dl_pagesize), r, &lo, &hi);
      ElfW(auxv_t) *auxv = GLRO(dl_auxv);
      void *res = MAP_FAILED;
      size_t reslen = hi - lo + want->modulus;
      if (n == 0)
	why = "its segments are not laid out as ld.so can move them";
      else if (hp_traced ())
	why = "a debugger traces it (it knows the kernel's address)";
      else if ((res = __mmap (NULL, reslen, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			      -1, 0)) == MAP_FAILED)
	{
	  err = errno;
	  why = "mmap of a reservation failed";
	}
      else
	{
	  ElfW(Addr) nbias
	    = _dl_hugepage_move_bias ((ElfW(Addr)) res, lo, want->bias,
				      want->modulus);
	  size_t moved = hp_move_ranges (r, n, kbias, nbias);
	  if (moved < n)
	    {
	      err = errno;
	      why = "mremap of its mappings failed";
	    }
	  else
	    {
	      ElfW(Addr) delta = nbias - kbias;
	      hp_shift_auxv (auxv, delta);
	      err = hp_tell_kernel (auxv, kbias + lo, kbias + hi, delta);
	      if (err != 0)
		{
		  why = "prctl PR_SET_MM_MAP failed (the kernel would name "
			"the old address in /proc/PID/auxv)";
		  hp_shift_auxv (auxv, -delta);
		}
	    }
	  if (why != NULL)
	    {
	      /* Back where the kernel put it.  */
	      hp_move_ranges (r, moved, nbias, kbias);
	      __munmap (res, reslen);
	    }
	  else
	    {
	      ElfW(Addr) delta = nbias - kbias;
	      /* What the reservation held beyond the program.  */
	      if (nbias + lo > (ElfW(Addr)) res)
		__munmap (res, nbias + lo - (ElfW(Addr)) res);
	      if ((ElfW(Addr)) res + reslen > nbias + hi)
		__munmap ((void *) (nbias + hi),
			  (ElfW(Addr)) res + reslen - (nbias + hi));
	      main_map->l_phdr = (const ElfW(Phdr) *)
		((ElfW(Addr)) main_map->l_phdr + delta);
	      main_map->l_entry += delta;
	      *user_entry += delta;
	      ls->phdr = main_map->l_phdr;
	      hp_announce (r, n, nbias);
	      if (hp_debug ())
		_dl_debug_printf ("hugepages: %s: moved from 0x%lx to 0x%lx, "
				  "where %s\n", ls->objname,
				  (unsigned long int) kbias,
				  (unsigned long int) nbias,
				  for_cache
				  ? "its shared cache entry fits"
				  : "its text is at its file phase, for thp");
	      /* Planned again at that address, as the kernel mapped it
		 (compared before it is used: dl-hugepage.c).  */
	      _dl_hugepage_plan_load (ls, fd, true, nbias);
	      ls->current = ls->plan;
	      return true;
	    }
	}
    }
  if (why != NULL && hp_debug ())
    {
      if (err != 0)
	_dl_debug_printf ("hugepages: %s: not moved from the kernel's address "
			  "0x%lx: %s: %s (errno %d)\n", ls->objname,
			  (unsigned long int) kbias, why,
			  _dl_hugepage_errno_name (err), err);
      else
	_dl_debug_printf ("hugepages: %s: not moved from the kernel's address "
			  "0x%lx: %s\n", ls->objname,
			  (unsigned long int) kbias, why);
    }
  /* Where the kernel put it, as before.  */
  ls->kernel = true;
  _dl_hugepage_plan_load (ls, fd, true, kbias);
  ls->current = (ls->plan->error == HP_E_NONE && ls->plan->nzones > 0
		 ? ls->plan : NULL);
  return false;
}
