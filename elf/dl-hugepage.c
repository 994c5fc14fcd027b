/* hugeld: map selected objects onto huge pages: the hooks.
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

/* The functions glibc calls (dl-hugepage.h), the settings they read,
   and the one load state they hand down.  In the order of a load:

   1. _dl_hugepage_init (dl_main, once): the settings, from the
      LD_HUGEPAGE_* variables or the policy file (dl-hugepage-policy.c).
   2. _dl_hugepage_prepare (before _dl_map_segments): decide whether the
      object is selected and plan its zones (dl-hugepage-select.c, with
      the pure planner of dl-hugepage-plan.c).
   3. _dl_hugepage_placement: for ET_DYN objects, tell glibc's
      _dl_map_segment where to place the object modulo 2 MiB, so that
      the load bias is the one the plan chose.
   4. _dl_map_segments maps everything the ordinary way (file mappings,
      zero fill, holes), exactly as without hugeld.
   5. _dl_hugepage_apply: put each zone on huge pages with the first
      backing that works (dl-hugepage-map.c for the private copy and the
      moves, dl-hugepage-back.c for the shared cache, dl-hugepage-thp.c
      for transparent huge pages); whatever fails leaves the zone, or
      maps it again, as the stock loader had it.
   _dl_hugepage_map_main does 2 and 5 for a main program the kernel
   mapped.

   Objects are mapped with the load lock held (the main program before
   any other thread exists), so one load state serves: it lives here,
   and the functions below these take it as a parameter, as glibc hands
   its loadcmds[] to _dl_map_segments.  */

#include <errno.h>
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
unsigned int _dl_hugepage_kinds attribute_relro = HP_KIND_DEFAULT;

/* The object being loaded, from _dl_hugepage_prepare to
   _dl_hugepage_apply: the one load state.  */
static struct hp_load_state hp_load;

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

/* Where the settings came from, for the reports: a variable or a
   tunable (line 0; the tunables' bits 1 << HP_TUN_* in
   hp_from_tunables) or a line of the policy file.  */
unsigned int _dl_hugepage_libs_line;
static unsigned int hp_segments_line;
static unsigned int hp_backing_line;
static unsigned int hp_from_tunables;
/* The longest "glibc.elf.hugepage.segments", with its NUL.  */
#define HP_SETTING_NAME_MAX 32

extern char **_environ attribute_hidden;

/* Find glibc.elf.hugepage.libs, .segments and .backing in the
   environment's GLIBC_TUNABLES: VALUE[T] and LEN[T] for each (NULL if
   not given).  Every GLIBC_TUNABLES in the environment is read, in
   order, as glibc reads them: the last value of a name wins.  glibc
   does not know these names (registering them would renumber the
   tunables the distribution's libc.so.6 asks for), so they are read
   here.  */
static void
hp_find_tunables (const char *value[HP_NTUNABLES], size_t len[HP_NTUNABLES])
{
  for (char **e = _environ; e != NULL && *e != NULL; ++e)
    {
      static const char var[] = "GLIBC_TUNABLES=";
      const char *v[HP_NTUNABLES];
      size_t l[HP_NTUNABLES];
      if (strncmp (*e, var, sizeof var - 1) != 0
	  || !_dl_hugepage_tunables_find (*e + sizeof var - 1, v, l))
	continue;
      for (int t = 0; t < HP_NTUNABLES; ++t)
	if (v[t] != NULL)
	  {
	    value[t] = v[t];
	    len[t] = l[t];
	  }
    }
}

/* Take each of hugeld's tunables where its variable is not set (a
   variable that is set, even empty, wins).  A value that cannot be
   copied is not taken.  */
static void
hp_take_tunables (void)
{
  const char *value[HP_NTUNABLES] = { NULL };
  size_t len[HP_NTUNABLES] = { 0 };
  hp_find_tunables (value, len);
  const char **setting[HP_NTUNABLES] =
    { &_dl_hugepage_libs, &_dl_hugepage_segments, &_dl_hugepage_backing };
  for (int t = 0; t < HP_NTUNABLES; ++t)
    {
      if (value[t] == NULL || *setting[t] != NULL)
	continue;
      char *copy = malloc (len[t] + 1);
      if (copy == NULL)
	continue;
      _dl_hugepage_tunable_value (t, value[t], len[t], copy);
      *setting[t] = copy;
      hp_from_tunables |= 1u << t;
    }
}

/* The name the setting T's value was given by, for a warning or the
   report: its variable, or its tunable (HP_TUNABLE_NAMESPACE, then
   _dl_hugepage_tunable_name, written into BUF).  */
static const char *
hp_setting_name (int t, char buf[HP_SETTING_NAME_MAX])
{
  static const char *const vars[HP_NTUNABLES] =
    { "LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS", "LD_HUGEPAGE_BACKING" };
  if ((hp_from_tunables & (1u << t)) == 0)
    return vars[t];
  __stpcpy (__stpcpy (buf, HP_TUNABLE_NAMESPACE),
	    _dl_hugepage_tunable_name (t));
  return buf;
}

/* Warn about the variables (or tunables) E says are set but do not
   parse: ld.so uses its default instead.  */
static void
hp_warn_ignored (const struct hp_effective *e)
{
  char name[HP_SETTING_NAME_MAX];
  if (e->segments_bad)
    _dl_error_printf ("\
%s: warning: %s=%s ignored: use a comma list of text, rodata, relro, \
data, bss or all\n", RTLD_PROGNAME, hp_setting_name (HP_TUN_SEGMENTS, name),
		      _dl_hugepage_segments);
  if (e->backing_bad)
    _dl_error_printf ("\
%s: warning: %s=%s ignored: use a comma list of shared, private or thp\n",
		      RTLD_PROGNAME, hp_setting_name (HP_TUN_BACKING, name),
		      _dl_hugepage_backing);
}

/* " (GLIBC_TUNABLES)" if setting T came from a tunable, else "".  */
static const char *
hp_tunable_from (int t)
{
  return (hp_from_tunables & (1u << t)) != 0 ? " (GLIBC_TUNABLES)" : "";
}

/* Report the settings under LD_DEBUG=hugepages, each with where it
   came from.  */
static void
hp_report_settings (void)
{
  char from[64], name[HP_SETTING_NAME_MAX];
  if (_dl_hugepage_libs_line == 0)
    _dl_debug_printf ("hugepages: %s=%s\n",
		      hp_setting_name (HP_TUN_LIBS, name),
		      _dl_hugepage_libs);
  else
    _dl_debug_printf ("hugepages: libs%s: %s\n",
		      _dl_hugepage_policy_from (_dl_hugepage_libs_line, from,
						sizeof from),
		      _dl_hugepage_libs);
  char list[HP_LIST_STRING_MAX];
  _dl_debug_printf ("hugepages: segments: %s%s%s\n",
		    _dl_hugepage_kinds == 0 ? "none"
		    : _dl_hugepage_kinds_string (_dl_hugepage_kinds, ' ', list,
						 sizeof list),
		    _dl_hugepage_policy_from (hp_segments_line, from,
					      sizeof from),
		    hp_tunable_from (HP_TUN_SEGMENTS));
  _dl_hugepage_backings_string (_dl_hugepage_backings,
				_dl_hugepage_nbackings, list, sizeof list);
  _dl_debug_printf ("hugepages: backing: %s%s%s\n", list,
		    _dl_hugepage_policy_from (hp_backing_line, from,
					      sizeof from),
		    hp_tunable_from (HP_TUN_BACKING));
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
  /* Neither the variables nor the tunables apply to AT_SECURE
     programs (the policy file, root's own, does).  glibc 2.40 and
     later do not even parse the variables for such programs; 2.36
     does, so they are dropped here.  Otherwise each tunable stands in
     for its variable where that is not set.  */
  if (__libc_enable_secure)
    _dl_hugepage_libs = _dl_hugepage_segments = _dl_hugepage_backing = NULL;
  else
    hp_take_tunables ();
  /* A variable (or tunable) that is set overrides the policy file's
     setting, and LD_HUGEPAGE_LIBS= (set, empty) turns hugeld off for
     the process: not even the policy file is read
     (_dl_hugepage_effective).  */
  const struct hp_variables vars =
    { _dl_hugepage_libs, _dl_hugepage_segments, _dl_hugepage_backing };
  struct hp_conf_settings conf;
  bool have_conf = (_dl_hugepage_conf_wanted (&vars)
		    && _dl_hugepage_policy_load (program, &conf));
  struct hp_effective e;
  _dl_hugepage_effective (&vars, have_conf ? &conf : NULL,
			  _dl_hugepage_policy_file.libs, &e);
  if (e.libs == NULL)
    {
      if (hp_debug () && have_conf)
	_dl_debug_printf ("hugepages: %s selects nothing for this "
			  "program\n", HP_CONF_FILE);
      return;
    }
  if (e.libs_source == HP_SOURCE_FILE)
    {
      _dl_hugepage_libs = e.libs;
      _dl_hugepage_libs_line = e.libs_line;
    }
  else
    {
      /* The values point into the environment block, which programs
	 that set their process title (PostgreSQL, nginx) overwrite
	 later; later dlopens must still see what the program was
	 started with.  */
      _dl_hugepage_libs = hp_strdup (e.libs);
      if (_dl_hugepage_libs == NULL)
	return;
    }
  hp_warn_ignored (&e);
  _dl_hugepage_kinds = e.kinds;
  hp_segments_line = e.segments_line;
  memcpy (_dl_hugepage_backings, e.backings, e.nbackings);
  _dl_hugepage_nbackings = e.nbackings;
  hp_backing_line = e.backing_line;

  _dl_hugepage_active = (_dl_hugepage_kinds != 0
			 && _dl_hugepage_nbackings > 0);
  if (hp_debug ())
    hp_report_settings ();
}

static void
hp_prepare (const char *realname, int fd, int type,
	    const ElfW(Phdr) *phdr, size_t phnum, ElfW(Off) phoff)
{
  hp_load.current = NULL;
  if (__glibc_likely (!_dl_hugepage_active))
    return;
  /* What a load that failed before _dl_hugepage_apply looked up.  */
  _dl_hugepage_cache_done (&hp_load.cache);

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
  hp_load.phdr = phdr;
  hp_load.phnum = phnum;
  hp_load.type = type;
  hp_load.kernel = false;
  _dl_hugepage_select_and_plan (&hp_load, realname, NULL, fd, false, 0);
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
  const struct hp_plan *plan = hp_load.current;
  if (plan == NULL)
    return false;
  /* The modulus is a power of two, at least the huge page size and the
     segments' own alignment, so the stock alignment still holds.  */
  *mapalign = plan->modulus;
  *mapphase = HP_ALIGN_REM (plan->bias + mapstart, plan->modulus);
  return true;
}

const char *
_dl_hugepage_apply (struct link_map *l, int fd)
{
  /* ld.so has just mapped the object: nobody else has written to it
     (gdb inserts breakpoints only after the next r_debug event).
     errno is left as it was (see _dl_hugepage_init).  */
  int saved = errno;
  const char *r = _dl_hugepage_apply_plan (&hp_load, l, fd, false);
  __set_errno (saved);
  return r;
}

/* The main program when the kernel mapped it (ld.so is its PT_INTERP).
   Called by dl_main right after rtld_setup_main_map: before the
   program's dynamic section is processed, before any audit module,
   preload or dependency is loaded and before relocation, so only ld.so
   runs and nothing has written to the program's memory.  Addresses stay
   what the kernel chose; only the backing of the planned zones
   changes.  The bytes are compared with the file's before they are
   used: a debugger's breakpoints or a uprobe may already be in the
   text.  */
static void
hp_map_main (struct link_map *main_map)
{
  if (__glibc_likely (!_dl_hugepage_active))
    return;
  int fd = _dl_hugepage_select_main (&hp_load, main_map);
  if (fd < 0)
    return;
  const char *err = _dl_hugepage_apply_plan (&hp_load, main_map, fd, true);
  if (err != NULL)
    _dl_fatal_printf ("%s: %s: %s\n", RTLD_PROGNAME, hp_load.objname, err);
  __close_nocancel (fd);
}

void
_dl_hugepage_map_main (struct link_map *main_map)
{
  int saved = errno;
  hp_map_main (main_map);
  __set_errno (saved);
}
