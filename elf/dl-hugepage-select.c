/* hugeld: decide which objects go on huge pages, and plan them.
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

/* The deciding side of ld.so's hugeld code, for the object in the load
   state the hooks (dl-hugepage.c) hand down: read what the object's
   dynamic section says, match its names against LD_HUGEPAGE_LIBS
   (dl-hugepage-match.c), choose how relocatable objects are placed for
   the backings (once per process), and plan its zones with the pure
   planner (dl-hugepage-plan.c); for the main program the kernel mapped,
   also find its file and make sure it is the one in memory.  Reports
   each decision under LD_DEBUG=hugepages.  Maps nothing, and calls
   nothing of the mapping side (dl-hugepage-map.c), which calls this
   file to plan an object again for the address it landed at
   (_dl_hugepage_plan_load): one depends on the other, not both
   ways.  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

/* Report under LD_DEBUG=hugepages why PLAN of LS's object leaves it,
   or parts of it, on ordinary pages.  */
static void
hp_report_plan (const struct hp_load_state *ls, const struct hp_plan *plan)
{
  if (plan->error != HP_E_NONE)
    {
      _dl_debug_printf ("hugepages: %s: ordinary pages: %s\n",
			ls->objname,
			_dl_hugepage_error_name (plan->error));
      return;
    }
  for (size_t i = 0; i < plan->nsmall; ++i)
    {
      const struct hp_range *r = &plan->small[i];
      _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx) on ordinary pages:"
			" %s\n", ls->objname,
			_dl_hugepage_kind_name (r->kind),
			(unsigned long int) r->start,
			(unsigned long int) r->end,
			_dl_hugepage_reason_name (r->reason));
    }
}

/* How relocatable objects are placed (enum hp_phase), decided at the
   first one: by the backings, and for thp after shared or private, by
   whether the process can have pool pages at all (hp_pool_state).  */
static int hp_phase;

/* Decide hp_phase, once.  */
static void
hp_decide_phase (void)
{
  const unsigned char *order = _dl_hugepage_backings;
  int n = _dl_hugepage_nbackings;
  /* Read the pool's size only if the answer depends on it.  */
  int pool = HP_POOL_SOME;
  hp_phase = _dl_hugepage_phase_mode (order, n, false);
  if (hp_phase != _dl_hugepage_phase_mode (order, n, true))
    {
      pool = _dl_hugepage_pool_state ();
      hp_phase = _dl_hugepage_phase_mode (order, n, pool != HP_POOL_SOME);
    }
  if (hp_debug ())
    _dl_debug_printf ("hugepages: placement: %s%s%s\n",
		      hp_phase == HP_PHASE_ALWAYS
		      ? "text at its file phase, for thp"
		      " (costs up to one huge page per zone)"
		      : "the most huge pages (text at its file phase"
		      " where that costs none)",
		      pool == HP_POOL_NONE ? "; no huge page pool"
		      : pool == HP_POOL_CGROUP_NONE
		      ? "; the hugetlb cgroup allows no huge page" : "",
		      hp_phase == HP_PHASE_ALWAYS
		      && _dl_hugepage_cache_placement (order, n)
		      ? "; objects with a shared cache entry are placed for it"
		      : "");
}

bool
_dl_hugepage_plan_load (struct hp_load_state *ls, int fd, bool have_bias,
			ElfW(Addr) bias)
{
  if (ls->plan == NULL)
    {
      struct hp_buffers *b = _dl_hugepage_buffers ();
      if (b == NULL)
	{
	  if (hp_debug ())
	    _dl_debug_printf ("hugepages: %s: ordinary pages: no memory for "
			      "its plan: %s (errno %d)\n", ls->objname,
			      _dl_hugepage_errno_name (errno), errno);
	  return false;
	}
      ls->plan = &b->plan;
    }
  struct hp_settings s;
  /* What the file holds now: a file shorter than its program headers
     say (damaged, or cut while being written) loads as the stock
     loader loads it (dl-hugepage-plan.h, file_size).  */
  uint64_t file_size = HP_ADDR_LIMIT;
  struct __stat64_t64 st;
  if (fd >= 0 && __fstat64_time64 (fd, &st) == 0 && st.st_size >= 0)
    file_size = st.st_size;
  if (hp_phase == HP_PHASE_NONE && !have_bias)
    hp_decide_phase ();
  /* Where the placement is for thp only because no pool page can be
     had, a cache entry still gives every huge page it holds: plan for
     it (that is what entries are made for) if the object has one.  */
  /* -1: an address ld.so did not choose for it (the kernel's, or
     where it ended up when the planned one could not be had).  */
  ls->phase = have_bias ? -1 : hp_phase;
  ls->placed_for_cache = false;
  if (!have_bias && hp_phase == HP_PHASE_ALWAYS
      && _dl_hugepage_cache_placement (_dl_hugepage_backings,
				       _dl_hugepage_nbackings))
    {
      _dl_hugepage_settings (&s, GLRO(dl_pagesize), _dl_hugepage_kinds,
			     ls->type, ls->kernel, false, 0, ls->textrel,
			     HP_PHASE_FREE);
      s.file_size = file_size;
      _dl_hugepage_plan (ls->phdr, ls->phnum, &s, ls->plan);
      if (ls->plan->error == HP_E_NONE
	  && _dl_hugepage_cache_has_zone (ls, ls->plan, fd))
	{
	  if (hp_debug ())
	    _dl_debug_printf ("hugepages: %s: placed for its shared cache "
			      "entry\n", ls->objname);
	  ls->placed_for_cache = true;
	  return true;
	}
    }
  _dl_hugepage_settings (&s, GLRO(dl_pagesize), _dl_hugepage_kinds, ls->type,
			 ls->kernel, have_bias, bias, ls->textrel, hp_phase);
  s.file_size = file_size;
  _dl_hugepage_plan (ls->phdr, ls->phnum, &s, ls->plan);
  return true;
}

bool
_dl_hugepage_select_and_plan (struct hp_load_state *ls, const char *path,
			      const char *alias, int fd, bool have_bias,
			      ElfW(Addr) bias)
{
  const ElfW(Phdr) *phdr = ls->phdr;
  size_t phnum = ls->phnum;
  ls->objname = path[0] != '\0' ? path : "<main program>";
  bool textrel;
  char soname[HP_SONAME_MAX];
  size_t patlen = 0;
  const char *matched_by;
  /* The file name first, as _dl_hugepage_select tries it: an object it
     selects needs no DT_SONAME, whose string is a read of its own, a
     wait for the disk in a cold start.  */
  const char *pat = _dl_hugepage_select (_dl_hugepage_libs, path, NULL,
					 NULL, &patlen, &matched_by);
  if (pat != NULL)
    {
      _dl_hugepage_readahead (fd, phdr, phnum);
      _dl_hugepage_read_dynamic (phdr, phnum, _dl_hugepage_read_fd, &fd,
				 &textrel, NULL);
    }
  else
    {
      _dl_hugepage_read_dynamic (phdr, phnum, _dl_hugepage_read_fd, &fd,
				 &textrel, soname);
      pat = _dl_hugepage_select (_dl_hugepage_libs, path, soname, alias,
				 &patlen, &matched_by);
      if (pat == NULL)
	{
	  if (hp_debug ())
	    _dl_debug_printf ("hugepages: %s: not selected\n",
			      ls->objname);
	  return false;
	}
      _dl_hugepage_readahead (fd, phdr, phnum);
    }
  if (hp_debug ())
    {
      char from[64];
      unsigned int line = (_dl_hugepage_libs_line == 0 ? 0
			   : _dl_hugepage_policy_libs_line (pat));
      _dl_debug_printf ("hugepages: %s: selected by pattern \"%.*s\" "
			"(%s)%s%s\n", ls->objname,
			(int) patlen, pat, matched_by,
			_dl_hugepage_policy_from (line, from, sizeof from),
			textrel ? ", has text relocations" : "");
    }

  ls->textrel = textrel;
  if (!_dl_hugepage_plan_load (ls, fd, have_bias, bias))
    {
      _dl_hugepage_object_done (&ls->object);
      return false;
    }
  if (hp_debug ())
    hp_report_plan (ls, ls->plan);
  if (ls->plan->error != HP_E_NONE
      || ls->plan->nzones == 0)
    {
      if (hp_debug () && ls->plan->error == HP_E_NONE)
	_dl_debug_printf ("hugepages: %s: nothing fills a whole huge page\n",
			  ls->objname);
      _dl_hugepage_object_done (&ls->object);
      return false;
    }
  ls->current = ls->plan;
  return true;
}

/* Whether LD_HUGEPAGE_LIBS can select the main program at all, by its
   real path PATH or the name it was run by, EXECFN (or NULL): programs
   have no DT_SONAME, so this needs nothing opened.  */
static bool
hp_main_matches (const char *path, const char *execfn)
{
  size_t patlen;
  return (_dl_hugepage_match_list (_dl_hugepage_libs, path,
				   _dl_hugepage_basename (path), &patlen)
	  != NULL
	  || (execfn != NULL
	      && _dl_hugepage_match_list (_dl_hugepage_libs, execfn,
					  _dl_hugepage_basename (execfn),
					  &patlen) != NULL));
}

/* Whether the file open as FD is the one the kernel mapped: its
   program headers must be PHDR[0..PHNUM), the ones in memory.  Sets
   *TYPE to its e_type.  */
static bool
hp_main_is_mapped_file (int fd, const ElfW(Phdr) *phdr, size_t phnum,
			int *type)
{
  ElfW(Ehdr) ehdr;
  if (_dl_hugepage_pread_full (fd, &ehdr, sizeof ehdr, 0)
      != (ssize_t) sizeof ehdr
      || ehdr.e_phnum != phnum
      || ehdr.e_phentsize != sizeof (ElfW(Phdr)))
    return false;
  ElfW(Phdr) buf[16];
  for (size_t done = 0; done < phnum; )
    {
      size_t n = phnum - done < 16 ? phnum - done : 16;
      if (_dl_hugepage_pread_full (fd, buf, n * sizeof (ElfW(Phdr)),
				   ehdr.e_phoff + done * sizeof (ElfW(Phdr)))
	  != (ssize_t) (n * sizeof (ElfW(Phdr)))
	  || memcmp (buf, phdr + done, n * sizeof (ElfW(Phdr))) != 0)
	return false;
      done += n;
    }
  *type = ehdr.e_type;
  return true;
}

int
_dl_hugepage_select_main (struct hp_load_state *ls,
			  const struct link_map *main_map, ElfW(Addr) bias)
{
  /* A program too small for a huge page (a shell, /bin/true) costs
     nothing more (with LD_DEBUG=hugepages it is planned all the same,
     for the report).  */
  if (!hp_debug ()
      && !_dl_hugepage_may_have_zone (main_map->l_phdr, main_map->l_phnum,
				      HP_HUGEPAGE_SIZE))
    return -1;
  if (!_dl_hugepage_settle ())
    return -1;

  /* The program's file: /proc/self/exe is the inode the kernel
     executed, even if the path was since replaced.  The load state
     keeps pointing at the name until the zones are applied.  */
  struct hp_buffers *b = _dl_hugepage_buffers ();
  if (b == NULL)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: <main program>: ordinary pages: no "
			  "memory for its path: %s (errno %d)\n",
			  _dl_hugepage_errno_name (errno), errno);
      return -1;
    }
  char *path = b->main_path;
  ssize_t len = __readlink ("/proc/self/exe", path, HP_PATH_MAX - 1);
  if (len <= 0)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: <main program>: ordinary pages: "
			  "cannot read /proc/self/exe: %s (errno %d)\n",
			  _dl_hugepage_errno_name (errno), errno);
      return -1;
    }
  path[len] = '\0';
  ls->objname = path;

  /* The name it was run by (a symlink such as python3 -> python3.11
     counts too), but never for an AT_SECURE program: its caller chose
     that name (see _dl_hugepage_program_names).  */
  const char *execfn = NULL;
  if (!__libc_enable_secure)
    for (ElfW(auxv_t) *av = GLRO(dl_auxv);
	 av != NULL && av->a_type != AT_NULL; ++av)
      if (av->a_type == AT_EXECFN)
	execfn = (const char *) av->a_un.a_val;

  /* Most programs are not selected: tell without opening anything.  */
  if (!hp_main_matches (path, execfn))
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s: not selected\n", path);
      return -1;
    }

  int fd = __open64_nocancel ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int err = errno;
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s: ordinary pages: cannot open "
			  "/proc/self/exe: %s (errno %d)%s\n", path,
			  _dl_hugepage_errno_name (err), err,
			  _dl_hugepage_denied (err, AT_FDCWD, "/proc/self/exe")
			  ? HP_DENIED : "");
      return -1;
    }
  int type;
  if (!hp_main_is_mapped_file (fd, main_map->l_phdr, main_map->l_phnum,
			       &type))
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s: ordinary pages: /proc/self/exe "
			  "does not match the program in memory\n", path);
      __close_nocancel (fd);
      return -1;
    }

  ls->current = NULL;
  _dl_hugepage_object_done (&ls->object);
  ls->phdr = main_map->l_phdr;
  ls->phnum = main_map->l_phnum;
  ls->type = type;
  ls->kernel = true;
  if (!_dl_hugepage_select_and_plan (ls, path, execfn, fd, true, bias))
    {
      __close_nocancel (fd);
      return -1;
    }
  return fd;
}

void
_dl_hugepage_name_process (const char *program)
{
  /* The kernel keeps TASK_COMM_LEN (16) bytes with the NUL, and cuts
     what is longer, as exec does.  */
  char name[16];
  const char *base = _dl_hugepage_basename (program);
  size_t len = 0;
  while (len < sizeof name - 1 && base[len] != '\0')
    {
      name[len] = base[len];
      ++len;
    }
  if (len == 0)
    return;
  name[len] = '\0';
  int r = INTERNAL_SYSCALL_CALL (prctl, PR_SET_NAME, (unsigned long int) name,
				 0, 0, 0);
  if (INTERNAL_SYSCALL_ERROR_P (r) && hp_debug ())
    _dl_debug_printf ("hugepages: naming the process %s: prctl failed "
		      "(errno %d)\n", name, -r);
}
