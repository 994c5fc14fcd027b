/* hugeld: map selected objects onto huge pages.
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

/* The system-call side of hugeld.  dl-hugepage-plan.c decides which
   ranges go on huge pages; this file reads the settings, selects
   objects, reports under LD_DEBUG=hugepages, and does the mapping:

   1. _dl_hugepage_prepare: before _dl_map_segments, match the object's
      name and plan its zones.
   2. _dl_hugepage_placement: for ET_DYN objects, tell glibc's
      _dl_map_segment where to place the object modulo 2 MiB, so that
      the load bias is the one the plan chose.
   3. _dl_map_segments maps everything the ordinary way (file mappings,
      zero fill, holes), exactly as without hugeld.
   4. _dl_hugepage_apply: for each zone, build a MAP_PRIVATE|MAP_HUGETLB
      copy aside, make every huge page of it present (so that a page the
      pool or a hugetlb cgroup cannot give is an error now, not a
      SIGBUS later), fill it with pread straight from the file (one copy
      of the bytes), give it the segment's protection, and mremap it
      over the ordinary pages.

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
   would for any failed mmap.

   MAP_PRIVATE hugetlb mappings reserve their pages at mmap time, so a
   successful mmap cannot lead to a later SIGBUS for want of pool pages
   (only a copy-on-write after fork can need more, which is why
   writable kinds are opt-in).  Reservations do not cover hugetlb
   cgroup fault limits or memory policies, hence the population step.  */

#include <errno.h>
#include <libintl.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include <dl-hugepage.h>
#include "dl-hugepage-int.h"

const char *_dl_hugepage_libs attribute_relro;
const char *_dl_hugepage_segments attribute_relro;
const char *_dl_hugepage_backing attribute_relro;
unsigned char _dl_hugepage_backings[HP_NBACKINGS] attribute_relro =
  HP_BACKINGS_DEFAULT;
int _dl_hugepage_nbackings attribute_relro = HP_NBACKINGS;

/* DL_DEBUG_HUGEPAGES (dl-hugepage.h) must be a bit of its own in the
   release being built.  */
_Static_assert ((DL_DEBUG_HUGEPAGES
		 & (DL_DEBUG_LIBS | DL_DEBUG_IMPCALLS | DL_DEBUG_BINDINGS
		    | DL_DEBUG_SYMBOLS | DL_DEBUG_VERSIONS | DL_DEBUG_RELOC
		    | DL_DEBUG_FILES | DL_DEBUG_STATISTICS | DL_DEBUG_UNUSED
		    | DL_DEBUG_SCOPES | DL_DEBUG_HELP
#ifdef DL_DEBUG_TLS
		    | DL_DEBUG_TLS
#endif
#ifdef DL_DEBUG_SECURITY
		    | DL_DEBUG_SECURITY
#endif
		    )) == 0, "DL_DEBUG_HUGEPAGES is taken");

/* Set once by _dl_hugepage_init.  */
bool _dl_hugepage_active attribute_relro;
static unsigned int hp_kinds attribute_relro = HP_KIND_DEFAULT;

/* The object being loaded (dl-hugepage-int.h).  */
struct hp_load_state _dl_hugepage_load;

/* A copy of S in ld.so's memory, or NULL.  */
static const char *
hp_strdup (const char *s)
{
  size_t len = strlen (s) + 1;
  char *copy = malloc (len);
  if (copy != NULL)
    memcpy (copy, s, len);
  return copy;
}

/* Where the settings came from, for the reports: a variable (line 0)
   or a line of the policy file.  */
static unsigned int hp_libs_line;
static unsigned int hp_segments_line;
static unsigned int hp_backing_line;

/* " (/etc/hugeld.conf line N)" for a setting from line LINE of the
   policy file, else "" (BUF has room for it).  */
static const char *
hp_from (unsigned int line, char *buf, size_t size)
{
  if (line == 0)
    return "";
  char digits[12];
  int d = 0;
  do
    digits[d++] = '0' + line % 10;
  while ((line /= 10) != 0);
  static const char pre[] = " (" HP_CONF_FILE " line ";
  size_t pos = sizeof pre - 1;
  if (pos + d + 2 > size)
    return "";
  memcpy (buf, pre, pos);
  while (d > 0)
    buf[pos++] = digits[--d];
  buf[pos++] = ')';
  buf[pos] = '\0';
  return buf;
}

/* Take LD_HUGEPAGE_SEGMENTS and LD_HUGEPAGE_BACKING from the variables
   where they are set, else from the policy file's settings CONF (if
   not NULL).  */
static void
hp_init_kinds_and_backing (const struct hp_conf_settings *conf)
{
  if (_dl_hugepage_segments != NULL && _dl_hugepage_segments[0] != '\0')
    {
      int kinds = _dl_hugepage_parse_kinds (_dl_hugepage_segments);
      if (kinds < 0)
	_dl_error_printf ("\
%s: warning: LD_HUGEPAGE_SEGMENTS=%s ignored: use a comma list of text, \
rodata, relro, data, bss or all\n", RTLD_PROGNAME, _dl_hugepage_segments);
      else
	hp_kinds = kinds;
    }
  else if (_dl_hugepage_segments == NULL && conf != NULL
	   && conf->segments_line != 0)
    {
      hp_kinds = conf->kinds;
      hp_segments_line = conf->segments_line;
    }

  if (_dl_hugepage_backing != NULL && _dl_hugepage_backing[0] != '\0')
    {
      unsigned char order[HP_NBACKINGS];
      int n = _dl_hugepage_parse_backing (_dl_hugepage_backing, order);
      if (n < 0)
	_dl_error_printf ("\
%s: warning: LD_HUGEPAGE_BACKING=%s ignored: use a comma list of shared, \
private or thp\n", RTLD_PROGNAME, _dl_hugepage_backing);
      else
	{
	  memcpy (_dl_hugepage_backings, order, n);
	  _dl_hugepage_nbackings = n;
	}
    }
  else if (_dl_hugepage_backing == NULL && conf != NULL
	   && conf->backing_line != 0)
    {
      memcpy (_dl_hugepage_backings, conf->backings, conf->nbackings);
      _dl_hugepage_nbackings = conf->nbackings;
      hp_backing_line = conf->backing_line;
    }
}

static void hp_init (bool normal_mode, const char *program);

/* The hooks leave errno as they found it: glibc reports some errors
   with whatever errno holds (`ld.so missing-program' must say "cannot
   open shared object file" without the ENOENT of hugeld's own lookups;
   glibc 2.43's tst-rtld-does-not-exist checks that).  */
void
_dl_hugepage_init (bool normal_mode, const char *program)
{
  int saved = errno;
  hp_init (normal_mode, program);
  __set_errno (saved);
}

static void
hp_init (bool normal_mode, const char *program)
{
  if (!normal_mode)
    return;
  /* The variables never apply to AT_SECURE programs (the policy file,
     root's own, does).  glibc 2.40 and later do not even parse them
     for such programs; 2.36 does, so they are dropped here.  */
  if (__libc_enable_secure)
    _dl_hugepage_libs = _dl_hugepage_segments = _dl_hugepage_backing = NULL;
  /* LD_HUGEPAGE_LIBS= (set, empty) turns hugeld off for the process:
     not even the policy file is read.  */
  if (_dl_hugepage_libs != NULL && _dl_hugepage_libs[0] == '\0')
    return;

  /* A variable that is set overrides the policy file's setting.  */
  struct hp_conf_settings conf;
  bool have_conf = false;
  if (_dl_hugepage_libs == NULL || _dl_hugepage_segments == NULL
      || _dl_hugepage_backing == NULL)
    have_conf = _dl_hugepage_policy_load (program, &conf);

  if (_dl_hugepage_libs == NULL)
    {
      if (!have_conf || conf.libslen == 0)
	{
	  if (hp_debug () && have_conf)
	    _dl_debug_printf ("hugepages: %s selects nothing for this "
			      "program\n", HP_CONF_FILE);
	  return;
	}
      _dl_hugepage_libs = _dl_hugepage_policy_file.libs;
      hp_libs_line = conf.libs_line;
    }
  else
    {
      /* The values point into the environment block, which programs
	 that set their process title (PostgreSQL, nginx) overwrite
	 later; later dlopens must still see what the program was
	 started with.  */
      _dl_hugepage_libs = hp_strdup (_dl_hugepage_libs);
      if (_dl_hugepage_libs == NULL)
	return;
    }
  hp_init_kinds_and_backing (have_conf ? &conf : NULL);

  _dl_hugepage_active = hp_kinds != 0 && _dl_hugepage_nbackings > 0;
  if (hp_debug ())
    {
      char from[64];
      if (hp_libs_line == 0)
	_dl_debug_printf ("hugepages: LD_HUGEPAGE_LIBS=%s\n",
			  _dl_hugepage_libs);
      else
	_dl_debug_printf ("hugepages: libs%s: %s\n",
			  hp_from (hp_libs_line, from, sizeof from),
			  _dl_hugepage_libs);
      char list[HP_LIST_STRING_MAX];
      _dl_debug_printf ("hugepages: segments: %s%s\n",
			hp_kinds == 0 ? "none"
			: _dl_hugepage_kinds_string (hp_kinds, ' ', list,
						     sizeof list),
			hp_from (hp_segments_line, from, sizeof from));
      _dl_hugepage_backings_string (_dl_hugepage_backings,
				    _dl_hugepage_nbackings, list,
				    sizeof list);
      _dl_debug_printf ("hugepages: backing: %s%s\n", list,
			hp_from (hp_backing_line, from, sizeof from));
    }
}

/* Read from FD at OFFSET until LEN bytes are in or the file ends.
   Returns the number of bytes read, or -1 (errno set).  */
ssize_t
_dl_hugepage_pread_full (int fd, void *buf, size_t len, off64_t offset)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t n = __pread64_nocancel (fd, (char *) buf + done, len - done,
				      offset + done);
      if (n < 0)
	{
	  if (errno == EINTR)
	    continue;
	  return -1;
	}
      if (n == 0)
	break;
      done += n;
    }
  return done;
}

long int
_dl_hugepage_read_fd (void *fd, void *buf, size_t len, uint64_t offset)
{
  return _dl_hugepage_pread_full (*(int *) fd, buf, len, offset);
}

/* ld.so has no strerror; name the errors these system calls give.  */
const char *
_dl_hugepage_errno_name (int err)
{
  switch (err)
    {
    case ENOMEM:
      return "ENOMEM, huge page pool empty or too small";
    case EINVAL:
      return "EINVAL, not supported here";
    case ENOSYS:
      return "ENOSYS";
    case EPERM:
      return "EPERM";
    case EACCES:
      return "EACCES";
    case EFAULT:
      return "EFAULT";
    case EIO:
      return "EIO";
    case EAGAIN:
      return "EAGAIN";
    case EBUSY:
      return "EBUSY";
    case EEXIST:
      return "EEXIST, something else is mapped there";
    case ENOSPC:
      return "ENOSPC";
    default:
      return "error";
    }
}

static void
hp_report_plan (const struct hp_plan *plan)
{
  if (plan->error != HP_E_NONE)
    {
      _dl_debug_printf ("hugepages: %s: ordinary pages: %s\n",
			_dl_hugepage_load.objname,
			_dl_hugepage_error_name (plan->error));
      return;
    }
  for (size_t i = 0; i < plan->nsmall; ++i)
    {
      const struct hp_range *r = &plan->small[i];
      _dl_debug_printf ("hugepages: %s: %s [0x%lx, 0x%lx) on ordinary pages:"
			" %s\n", _dl_hugepage_load.objname,
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

void
_dl_hugepage_plan_load (int fd, bool have_bias, ElfW(Addr) bias)
{
  struct hp_settings s;
  struct hp_load_state *ls = &_dl_hugepage_load;
  if (hp_phase == HP_PHASE_NONE && !have_bias)
    hp_decide_phase ();
  /* Where the placement is for thp only because no pool page can be
     had, a cache entry still gives every huge page it holds: plan for
     it (that is what entries are made for) if the object has one.  */
  if (!have_bias && hp_phase == HP_PHASE_ALWAYS
      && _dl_hugepage_cache_placement (_dl_hugepage_backings,
				       _dl_hugepage_nbackings))
    {
      _dl_hugepage_settings (&s, GLRO(dl_pagesize), hp_kinds, ls->type,
			     ls->kernel, false, 0, ls->textrel,
			     HP_PHASE_FREE);
      _dl_hugepage_plan (ls->phdr, ls->phnum, &s, &ls->plan);
      if (ls->plan.error == HP_E_NONE
	  && _dl_hugepage_cache_has_zone (&ls->cache, &ls->plan, fd))
	{
	  if (hp_debug ())
	    _dl_debug_printf ("hugepages: %s: placed for its shared cache "
			      "entry\n", ls->objname);
	  return;
	}
    }
  _dl_hugepage_settings (&s, GLRO(dl_pagesize), hp_kinds, ls->type,
			 ls->kernel, have_bias, bias, ls->textrel, hp_phase);
  _dl_hugepage_plan (ls->phdr, ls->phnum, &s, &ls->plan);
}

/* Decide whether the object in FD at PATH (also known as ALIAS, if not
   NULL: the name a program was run by), whose program headers and type
   the caller put into _dl_hugepage_load, is selected, and if so plan
   it into _dl_hugepage_load.plan (with the load bias BIAS if
   HAVE_BIAS).  Sets _dl_hugepage_load.current and returns true if there
   is something to map.  */
bool
_dl_hugepage_select_and_plan (const char *path, const char *alias, int fd,
			      bool have_bias, ElfW(Addr) bias)
{
  const ElfW(Phdr) *phdr = _dl_hugepage_load.phdr;
  size_t phnum = _dl_hugepage_load.phnum;
  _dl_hugepage_load.objname = path[0] != '\0' ? path : "<main program>";
  bool textrel;
  char soname[HP_SONAME_MAX];
  _dl_hugepage_read_dynamic (phdr, phnum, _dl_hugepage_read_fd, &fd,
			     &textrel, soname);
  size_t patlen = 0;
  const char *matched_by;
  const char *pat = _dl_hugepage_select (_dl_hugepage_libs, path, soname,
					 alias, &patlen, &matched_by);
  if (pat == NULL)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s: not selected\n",
			  _dl_hugepage_load.objname);
      return false;
    }
  if (hp_debug ())
    {
      char from[64];
      unsigned int line = (hp_libs_line == 0 ? 0
			   : _dl_hugepage_policy_libs_line (pat));
      _dl_debug_printf ("hugepages: %s: selected by pattern \"%.*s\" "
			"(%s)%s%s\n", _dl_hugepage_load.objname,
			(int) patlen, pat, matched_by,
			hp_from (line, from, sizeof from),
			textrel ? ", has text relocations" : "");
    }

  _dl_hugepage_load.textrel = textrel;
  _dl_hugepage_plan_load (fd, have_bias, bias);
  if (hp_debug ())
    hp_report_plan (&_dl_hugepage_load.plan);
  if (_dl_hugepage_load.plan.error != HP_E_NONE
      || _dl_hugepage_load.plan.nzones == 0)
    {
      if (hp_debug () && _dl_hugepage_load.plan.error == HP_E_NONE)
	_dl_debug_printf ("hugepages: %s: nothing fills a whole huge page\n",
			  _dl_hugepage_load.objname);
      _dl_hugepage_cache_done (&_dl_hugepage_load.cache);
      return false;
    }
  _dl_hugepage_load.current = &_dl_hugepage_load.plan;
  return true;
}

static void
hp_prepare (const char *realname, int fd, int type,
	    const ElfW(Phdr) *phdr, size_t phnum, ElfW(Off) phoff)
{
  _dl_hugepage_load.current = NULL;
  if (__glibc_likely (!_dl_hugepage_active))
    return;
  /* What a load that failed before _dl_hugepage_apply looked up.  */
  _dl_hugepage_cache_done (&_dl_hugepage_load.cache);

  /* ld.so itself is never mapped here in the base namespace; in other
     namespaces it is a proxy.  Objects ld.so maps are ET_DYN or, for
     `ld.so ./program', ET_EXEC.  REALNAME is the path ld.so opened
     (l_name is empty for the main program).  */
  if (type != ET_DYN && type != ET_EXEC)
    return;
  /* The planner's limit, whether or not the caller keeps the table:
     hugeld-plan applies it too.  */
  if (phnum > HP_MAX_PHNUM)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s: ordinary pages: %s\n", realname,
			  _dl_hugepage_error_name (HP_E_TOO_MANY_HEADERS));
      return;
    }
  if (phdr == NULL)
    {
      /* The caller reads the table in batches and keeps none of it:
	 read it here, into ld.so's own buffer (the load lock is held).  */
      static ElfW(Phdr) buf[HP_MAX_PHNUM];
      if (_dl_hugepage_pread_full (fd, buf, phnum * sizeof (ElfW(Phdr)),
				   phoff)
	  != (ssize_t) (phnum * sizeof (ElfW(Phdr))))
	{
	  if (hp_debug ())
	    _dl_debug_printf ("hugepages: %s: ordinary pages: cannot read "
			      "its program headers\n", realname);
	  return;
	}
      phdr = buf;
    }
  _dl_hugepage_load.phdr = phdr;
  _dl_hugepage_load.phnum = phnum;
  _dl_hugepage_load.type = type;
  _dl_hugepage_load.kernel = false;
  _dl_hugepage_select_and_plan (realname, NULL, fd, false, 0);
}

void
_dl_hugepage_prepare (const char *realname, int fd, int type,
		      const ElfW(Phdr) *phdr, size_t phnum, ElfW(Off) phoff)
{
  int saved = errno;
  hp_prepare (realname, fd, type, phdr, phnum, phoff);
  __set_errno (saved);
}

bool
_dl_hugepage_placement (ElfW(Addr) mapstart, ElfW(Addr) *mapalign,
			ElfW(Addr) *mapphase)
{
  const struct hp_plan *plan = _dl_hugepage_load.current;
  if (plan == NULL)
    return false;
  /* The modulus is a power of two, at least the huge page size and the
     segments' own alignment, so the stock alignment still holds.  */
  *mapalign = plan->modulus;
  *mapphase = (plan->bias + mapstart) & (plan->modulus - 1);
  return true;
}

