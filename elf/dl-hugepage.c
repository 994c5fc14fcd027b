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

   1. _dl_hugepage_init (dl_main, once): the settings, from all their
      sources, decided by the one resolver (dl-hugepage-settings.c).
   2. _dl_hugepage_prepare (before _dl_map_segments): decide whether the
      object is selected and plan its zones (dl-hugepage-select.c, with
      the pure planner of dl-hugepage-plan.c).
   3. _dl_hugepage_placement: for ET_DYN objects, tell glibc's
      _dl_map_segment where to place the object modulo 2 MiB, so that
      the load bias is the one the plan chose.
   4. _dl_map_segments maps everything the ordinary way (file mappings,
      zero fill, holes), exactly as without hugeld (hugeld has read the
      pages the zero fill writes, so that it reads no more than them).
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
#include "dl-hugepage-arch.h"

/* glibc 2.44 and later apply system-wide tunables, which ldconfig
   compiles from /etc/tunables.conf into ld.so.cache; hugeld reads its
   own names there too (hp_gather_system_tunables).  The feature and
   its header, elf/tunconf.h, came together, so the header's presence
   is the test: a release without it builds hugeld without the code,
   and no patch of the series has to be kept per release for it.  */
#if defined SHARED && defined USE_LDCONFIG && __has_include ("tunconf.h")
# define HP_SYSTEM_TUNABLES 1
# include <dl-cache.h>
# include "tunconf.h"
#else
# define HP_SYSTEM_TUNABLES 0
#endif

/* The LD_HUGEPAGE_* variables, as rtld.c's process_envvars found
   them; _dl_hugepage_init then sets _dl_hugepage_libs to the patterns
   the process uses.  The settings are written by _dl_hugepage_init
   and, if it left the policy file for later, once more by
   _dl_hugepage_settle, which may run in a dlopen (under the load lock)
   after start-up: they are not in RELRO, as dl-cache.c's view of
   ld.so.cache, read when first needed, is not.  */
const char *_dl_hugepage_libs;
const char *_dl_hugepage_segments attribute_relro;
const char *_dl_hugepage_backing attribute_relro;
unsigned char _dl_hugepage_backings[HP_NBACKINGS] = HP_BACKINGS_DEFAULT;
int _dl_hugepage_nbackings = HP_NBACKINGS;

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

/* Set by _dl_hugepage_init (and _dl_hugepage_settle, see above).  */
bool _dl_hugepage_active;
unsigned int _dl_hugepage_kinds = HP_KIND_DEFAULT;

/* The settings (bit 1 << HP_SET_*) that wait for the policy file, or
   0.  A program the kernel started (the common case with hugeld as
   the system loader) reads the file only when it loads the first
   object whose program headers may fill a huge page: most programs (a
   shell, /bin/true, anything whose objects are all smaller) never do,
   and pay nothing for the file, as dl-cache.c reads ld.so.cache only
   when a library is first looked up there.  _dl_hugepage_settle reads
   it.  */
static unsigned int hp_pending;

/* The object being loaded, from _dl_hugepage_prepare to
   _dl_hugepage_apply: the one load state.  */
static struct hp_load_state hp_load;

struct hp_buffers *
_dl_hugepage_buffers (void)
{
  /* From ld.so's malloc (before libc's is in place, the minimal one,
     whose next blocks, the policy file's among them, then come from
     the same mapping), never freed: only the pages written are
     faulted in.  */
  static struct hp_buffers *buffers;
  if (buffers == NULL)
    buffers = malloc (sizeof *buffers);
  return buffers;
}

/* The line of the policy file the libs came from, or 0 (a variable or
   a tunable), for the reports of the objects selected.  */
unsigned int _dl_hugepage_libs_line;

extern char **_environ attribute_hidden;

#if HP_SYSTEM_TUNABLES
/* The cache's layout is the one dl-hugepage-tunconf.c reads.  */
_Static_assert (TUNCONF_SIGNATURE == HP_TUNCONF_SIGNATURE
		&& TUNCONF_VERSION == HP_TUNCONF_VERSION
		&& TUNCONF_FLAG_OVERRIDABLE == HP_TUNCONF_OVERRIDE_MASK
		&& TUNCONF_OVERRIDE_DENY == HP_TUNCONF_OVERRIDE_DENY
		&& TUNCONF_EXCLUDE_SECURE == HP_TUNCONF_EXCLUDE_SECURE
		&& TUNCONF_EXCLUDE_UNSECURE == HP_TUNCONF_EXCLUDE_UNSECURE
		&& TUNCONF_FLAG_FILTER == HP_TUNCONF_FILTER_MASK
		&& TUNCONF_FILTER_PERPROC == HP_TUNCONF_FILTER_PERPROC
		&& (sizeof (struct tunable_header_cached)
		    == HP_TUNCONF_HEADER_SIZE)
		&& (sizeof (struct tunable_entry_cached)
		    == HP_TUNCONF_ENTRY_SIZE)
		&& (offsetof (struct tunable_entry_cached, flags)
		    == HP_TUNCONF_ENTRY_FLAGS)
		&& (offsetof (struct tunable_entry_cached, name_offset)
		    == HP_TUNCONF_ENTRY_NAME)
		&& (offsetof (struct tunable_entry_cached, value_offset)
		    == HP_TUNCONF_ENTRY_VALUE)
		&& (offsetof (struct tunable_entry_cached, flag_offset)
		    == HP_TUNCONF_ENTRY_FILTER),
		"ld.so.cache's tunables section is not the one hugeld reads");
_Static_assert (sizeof (struct cache_file_new) == HP_CACHE_HEADER_SIZE
		&& (offsetof (struct cache_file_new, nlibs)
		    == HP_CACHE_NLIBS)
		&& (offsetof (struct cache_file_new, len_strings)
		    == HP_CACHE_LEN_STRINGS)
		&& (offsetof (struct cache_file_new, extension_offset)
		    == HP_CACHE_EXTENSION_OFFSET)
		&& sizeof (struct file_entry_new) == HP_CACHE_ENTRY_SIZE
		&& cache_extension_magic == HP_CACHE_EXTENSION_MAGIC
		&& (cache_extension_tag_tunables
		    == HP_CACHE_EXTENSION_TUNABLES),
		"ld.so.cache is not laid out as the hugeld command reads it");

/* The system-wide tunables (/etc/tunables.conf, compiled by ldconfig
   into ld.so.cache) into S: the section glibc found
   (__tunables_init has loaded the cache, which stays mapped until
   dl_main is done; this costs a stat) and its string table.  glibc
   keeps hugeld's names there but skips them, as it does not know
   them; the resolver reads them with __tunables_init's rules
   (dl-hugepage-tunconf.c).  */
static void
hp_gather_system_tunables (struct hp_sources *s)
{
  const char *data;
  const struct tunable_header_cached *thc = _dl_load_cache_tunables (&data);
  if (thc == NULL)
    return;
  s->tunconf = thc;
  s->tunconf_size = TUNCONF_SIZE (thc);
  s->tunconf_data = data;
  _dl_hugepage_tunconf_strings (data, thc, &s->tunconf_start,
				&s->tunconf_end);
}
#endif /* HP_SYSTEM_TUNABLES */

/* The program as __tunables_init names it for the [proc:] filters of
   the system-wide tunables: the target of /proc/self/exe (for
   `ld.so PROG', ld.so itself), else argv[0], but not for an AT_SECURE
   process.  In hugeld's buffers.  Asked for only where such a filter
   is among hugeld's lines (glibc, too, reads it only then).  */
static const char *
hp_program_path (void)
{
  struct hp_buffers *b = _dl_hugepage_buffers ();
  ssize_t n = (b == NULL ? -1
	       : __readlink ("/proc/self/exe", b->exe, HP_PATH_MAX - 1));
  if (n > 0 && n < HP_PATH_MAX - 1)
    {
      b->exe[n] = '\0';
      return b->exe;
    }
  if (!__libc_enable_secure && _dl_argv != NULL)
    return _dl_argv[0];
  return NULL;
}

/* The settings' sources for this process, gathered as
   _dl_hugepage_resolve asks for them, and what it makes of them, into
   *E.  PROGRAM is what dl_main passed _dl_hugepage_init.  */
static void
hp_resolve (const char *program, struct hp_effective *e)
{
  /* Neither the variables nor GLIBC_TUNABLES apply to AT_SECURE
     programs (the policy file, root's own, does, and so do the
     system-wide tunables, root's too, where their flags say so); the
     resolver knows.  glibc 2.40 and later do not even parse the
     variables for such programs; 2.36 does.  */
  struct hp_sources s =
    {
      .secure = __libc_enable_secure,
      .variable = { _dl_hugepage_libs, _dl_hugepage_segments,
		    _dl_hugepage_backing },
      .environ = _environ,
    };
  _Static_assert (HP_SET_LIBS == 0 && HP_SET_SEGMENTS == 1
		  && HP_SET_BACKING == 2 && HP_NSETTINGS == 3,
		  "rtld.c's three variables are the table's settings");
#if HP_SYSTEM_TUNABLES
  hp_gather_system_tunables (&s);
#endif
  unsigned int need;
  while ((need = _dl_hugepage_resolve (&s, e)) != 0)
    if ((need & HP_NEED_PATH) != 0)
      {
	s.have_path = true;
	s.path = hp_program_path ();
      }
    else
      {
	s.have_conf = true;
	/* LD_DEBUG=hugepages reports the file at start-up, and a program
	   ld.so was asked to run has its names at hand (it is named
	   after them, _dl_hugepage_name_process).  */
	if (program == NULL && !hp_debug () && _dl_hugepage_policy_defer ())
	  {
	    hp_pending = e->conf_wanted;
	    s.conf = NULL;
	  }
	else if (!_dl_hugepage_policy_load (program, &s))
	  s.conf = NULL;
      }
}

/* What became of the policy file that E says was consulted: its
   program block and cache for the reports and the shared cache, or the
   line that made ld.so ignore it.  */
static void
hp_conf_outcome (const struct hp_effective *e)
{
  if (e->conf_used)
    _dl_hugepage_policy_report (e->conf_block, e->conf_cache,
				e->conf_nspans);
  else if (e->conf_error_line != 0)
    _dl_hugepage_policy_ignored (e->conf_error_line, e->conf_error);
}

/* Whether the settings E's libs, segments and backing make hugeld act:
   with HP_PENDING, whether the policy file may still make it act.  */
static bool
hp_may_act (const struct hp_effective *e)
{
  bool wait_libs = (hp_pending & (1U << HP_SET_LIBS)) != 0;
  bool wait_kinds = (hp_pending & (1U << HP_SET_SEGMENTS)) != 0;
  bool wait_backing = (hp_pending & (1U << HP_SET_BACKING)) != 0;
  return ((e->libs != NULL || wait_libs)
	  && (e->kinds != 0 || wait_kinds)
	  && (e->nbackings > 0 || wait_backing));
}

/* The name setting T was given by, for a warning or the report: its
   variable, or its tunable.  */
static const char *
hp_given_by (const struct hp_effective *e, int t)
{
  return (e->source[t] == HP_SOURCE_VARIABLE
	  ? _dl_hugepage_setting_variable (t)
	  : _dl_hugepage_setting_tunable (t));
}

/* " (GLIBC_TUNABLES)", " (/etc/tunables.conf)", or "" for the
   setting T of E.  */
static const char *
hp_tunable_from (const struct hp_effective *e, int t)
{
  switch (e->source[t])
    {
    case HP_SOURCE_TUNABLES:
      return " (GLIBC_TUNABLES)";
    case HP_SOURCE_SYSTEM:
      return " (/etc/tunables.conf)";
    default:
      return "";
    }
}

/* Say, under LD_DEBUG=hugepages, what E's sources gave besides the
   settings: a malformed tunables section, variables a locked line
   overrode.  */
static void
hp_report_sources (const struct hp_effective *e)
{
  if (e->tunconf_bad)
    _dl_debug_printf ("hugepages: /etc/tunables.conf: the tunables "
		      "section of ld.so.cache is malformed: ignored\n");
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (e->variable_ignored[t])
      _dl_debug_printf ("hugepages: %s ignored: %s is nonoverridable in "
			"/etc/tunables.conf\n",
			_dl_hugepage_setting_variable (t),
			_dl_hugepage_setting_tunable (t));
}

/* Warn about the settings E says are given but do not parse: ld.so
   uses its default instead; and about patterns of libs given by a
   variable or a tunable (LIBS, NUL-terminated, with colons; NULL if
   they come from the policy file, which refuses such lines) that ld.so
   uses but that are almost certainly mistakes (an unclosed `['
   matches itself).  */
static void
hp_warn_ignored (const struct hp_effective *e, const char *libs)
{
  const char *pat;
  size_t patlen;
  const char *why = (libs != NULL
		     ? _dl_hugepage_pattern_problem (libs, &pat, &patlen)
		     : NULL);
  /* An empty pattern (a colon too many) selects nothing and harms
     nothing.  */
  if (why != NULL && patlen > 0)
    _dl_error_printf ("%s: warning: %s=%.*s: %s (in \"%.*s\")\n",
		      RTLD_PROGNAME, hp_given_by (e, HP_SET_LIBS),
		      (int) e->given_len[HP_SET_LIBS], e->given[HP_SET_LIBS],
		      why, (int) patlen, pat);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (e->bad[t])
      _dl_error_printf ("%s: warning: %s=%.*s ignored: use a comma list "
			"of %s\n", RTLD_PROGNAME, hp_given_by (e, t),
			(int) e->given_len[t], e->given[t],
			_dl_hugepage_setting_words (t));
}

/* Report the settings under LD_DEBUG=hugepages, each with where it
   came from.  */
static void
hp_report_settings (const struct hp_effective *e)
{
  if (e->source[HP_SET_LIBS] != HP_SOURCE_FILE)
    _dl_debug_printf ("hugepages: %s=%s%s\n", hp_given_by (e, HP_SET_LIBS),
		      _dl_hugepage_libs,
		      e->source[HP_SET_LIBS] == HP_SOURCE_SYSTEM
		      ? hp_tunable_from (e, HP_SET_LIBS) : "");
  else
    _dl_debug_printf ("hugepages: libs (%s line %u): %s\n", HP_CONF_FILE,
		      e->line[HP_SET_LIBS], _dl_hugepage_libs);
  char kinds[HP_LIST_STRING_MAX], backings[HP_LIST_STRING_MAX];
  const char *words[HP_NSETTINGS] =
    {
      [HP_SET_SEGMENTS] = (_dl_hugepage_kinds == 0 ? "none"
			   : _dl_hugepage_kinds_string (_dl_hugepage_kinds,
							' ', kinds,
							sizeof kinds)),
      [HP_SET_BACKING] = _dl_hugepage_backings_string (_dl_hugepage_backings,
						       _dl_hugepage_nbackings,
						       backings,
						       sizeof backings),
    };
  for (int t = HP_SET_SEGMENTS; t < HP_NSETTINGS; ++t)
    {
      if (e->source[t] == HP_SOURCE_FILE)
	_dl_debug_printf ("hugepages: %s: %s (%s line %u)\n",
			  _dl_hugepage_setting_name (t), words[t],
			  HP_CONF_FILE, e->line[t]);
      else
	_dl_debug_printf ("hugepages: %s: %s%s\n",
			  _dl_hugepage_setting_name (t), words[t],
			  hp_tunable_from (e, t));
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
  struct hp_effective e;
  hp_resolve (program, &e);
  if (hp_debug ())
    hp_report_sources (&e);
  hp_conf_outcome (&e);
  if (!hp_may_act (&e))
    hp_pending = 0;
  if (e.libs == NULL && hp_pending == 0)
    {
      if (hp_debug () && e.conf_used)
	_dl_debug_printf ("hugepages: %s selects nothing for this "
			  "program\n", HP_CONF_FILE);
      return;
    }
  if (e.libs == NULL)
    /* Not the variable's value (an AT_SECURE process's, or one a
       locked tunable overrode): the file's, if any, comes later.  */
    _dl_hugepage_libs = NULL;
  else if (e.source[HP_SET_LIBS] == HP_SOURCE_FILE)
    {
      _dl_hugepage_libs = e.libs;
      _dl_hugepage_libs_line = e.line[HP_SET_LIBS];
    }
  else
    {
      /* The values point into the environment block, which programs
	 that set their process title (PostgreSQL, nginx) overwrite
	 later, or into ld.so.cache, which is unmapped after start-up;
	 later dlopens must still see what the program was started
	 with.  A tunable's commas become the variable's colons.  */
      char *copy = malloc (e.libs_len + 1);
      if (copy == NULL)
	return;
      _dl_hugepage_libs_copy (&e, copy);
      _dl_hugepage_libs = copy;
    }
  hp_warn_ignored (&e, e.source[HP_SET_LIBS] == HP_SOURCE_FILE
			   ? NULL : _dl_hugepage_libs);
  _dl_hugepage_kinds = e.kinds;
  memcpy (_dl_hugepage_backings, e.backings, e.nbackings);
  _dl_hugepage_nbackings = e.nbackings;

  /* While the file waits, provisionally: _dl_hugepage_settle says.  */
  _dl_hugepage_active = hp_may_act (&e);
  if (hp_debug ())
    hp_report_settings (&e);
  if (_dl_hugepage_active && program != NULL)
    _dl_hugepage_name_process (program);
}

/* Read the policy file that _dl_hugepage_init left for later, and
   complete the settings with what it gives.  */
static void
hp_settle (void)
{
  struct hp_effective e;
  memset (&e, 0, sizeof e);
  e.libs = _dl_hugepage_libs;
  e.libs_len = e.libs != NULL ? strlen (e.libs) : 0;
  e.kinds = _dl_hugepage_kinds;
  memcpy (e.backings, _dl_hugepage_backings, sizeof e.backings);
  e.nbackings = _dl_hugepage_nbackings;
  e.conf_wanted = hp_pending;
  hp_pending = 0;

  struct hp_sources s = { .secure = __libc_enable_secure, .have_conf = true };
  if (!_dl_hugepage_policy_load (NULL, &s))
    s.conf = NULL;
  _dl_hugepage_resolve_conf (&s, &e);
  hp_conf_outcome (&e);
  if (e.source[HP_SET_LIBS] == HP_SOURCE_FILE)
    {
      _dl_hugepage_libs = e.libs;
      _dl_hugepage_libs_line = e.line[HP_SET_LIBS];
    }
  _dl_hugepage_kinds = e.kinds;
  memcpy (_dl_hugepage_backings, e.backings, e.nbackings);
  _dl_hugepage_nbackings = e.nbackings;
  _dl_hugepage_active = (_dl_hugepage_libs != NULL && _dl_hugepage_kinds != 0
			 && _dl_hugepage_nbackings > 0);
}

bool
_dl_hugepage_settle (void)
{
  if (__glibc_likely (hp_pending == 0))
    return _dl_hugepage_active;
  int saved = errno;
  hp_settle ();
  __set_errno (saved);
  return _dl_hugepage_active;
}

#ifdef __aarch64__
struct link_map *_dl_hugepage_bti_map;
#endif

bool
_dl_hugepage_bti_protected (struct link_map *map, int fd)
{
#ifdef __aarch64__
  if (fd != -1 && map == _dl_hugepage_bti_map)
    {
      _dl_hugepage_bti_map = NULL;
      return true;
    }
#endif
  return false;
}

static void
hp_prepare (const char *realname, int fd, int type,
	    const ElfW(Phdr) *phdr, size_t phnum, ElfW(Off) phoff)
{
  hp_load.current = NULL;
#ifdef __aarch64__
  /* From a load that failed after _dl_hugepage_apply.  */
  _dl_hugepage_bti_map = NULL;
#endif
  if (__glibc_likely (!_dl_hugepage_active))
    return;
  /* What a load that failed before _dl_hugepage_apply looked up.  */
  _dl_hugepage_object_done (&hp_load.object);

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
      struct hp_buffers *b = _dl_hugepage_buffers ();
      ElfW(Phdr) *buf = b != NULL ? b->phdr : NULL;
      if (b == NULL
	  || (_dl_hugepage_pread_full (fd, buf, phnum * sizeof (ElfW(Phdr)),
				       phoff)
	      != (ssize_t) (phnum * sizeof (ElfW(Phdr)))))
	{
	  if (hp_debug ())
	    _dl_debug_printf ("hugepages: %s: ordinary pages: cannot read "
			      "its program headers\n", realname);
	  return;
	}
      phdr = buf;
    }
  /* An object too small for a huge page (libc, most of them): nothing
     more is read of it, nothing asked of the pool.  With
     LD_DEBUG=hugepages it is selected and planned all the same, so
     that the report says what it would take.  */
  if (!hp_debug ()
      && !_dl_hugepage_may_have_zone (phdr, phnum, HP_HUGEPAGE_SIZE))
    return;
  if (!_dl_hugepage_settle ())
    return;
  hp_load.phdr = phdr;
  hp_load.phnum = phnum;
  hp_load.type = type;
  hp_load.kernel = false;
  _dl_hugepage_select_and_plan (&hp_load, realname, NULL, fd, false, 0);
  if (hp_load.current != NULL)
    _dl_hugepage_read_zero_fill_pages (fd, phdr, phnum);
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
  const char *r = NULL;
  if (hp_load.current != NULL)
    {
      hp_arch_before_apply (&hp_load, l, fd);
      r = _dl_hugepage_apply_plan (&hp_load, l, fd, false);
      if (r == NULL)
	r = _dl_hugepage_cont_apply (&hp_load, hp_load.plan, l, fd, false);
    }
  __set_errno (saved);
  return r;
}

/* The main program when the kernel mapped it (ld.so is its
   PT_INTERP), open from /proc/self/exe between _dl_hugepage_place_main
   and _dl_hugepage_map_main, or -1.  */
static int hp_main_fd = -1;

/* Called by dl_main right before rtld_setup_main_map, which computes
   the load bias from PT_PHDR as this does: select and plan the program,
   and move it where its zones fit if it is position-independent and
   the kernel put it elsewhere (dl-hugepage-move.c).  */
static void
hp_place_main (struct link_map *main_map, ElfW(Addr) *user_entry)
{
  if (__glibc_likely (!_dl_hugepage_active))
    return;
  ElfW(Addr) bias = 0;
  const ElfW(Phdr) *ph = main_map->l_phdr;
  bool pie_bias = false;
  for (size_t i = 0; i < main_map->l_phnum; ++i)
    if (ph[i].p_type == PT_PHDR)
      {
	bias = (ElfW(Addr)) ph - ph[i].p_vaddr;
	pie_bias = true;
      }
  int fd = _dl_hugepage_select_main (&hp_load, main_map, bias);
  if (fd < 0)
    return;
  if (hp_load.type == ET_DYN && pie_bias)
    _dl_hugepage_move_main (&hp_load, main_map, user_entry, bias, fd);
  hp_main_fd = fd;
}

void
_dl_hugepage_place_main (struct link_map *main_map, ElfW(Addr) *user_entry)
{
  int saved = errno;
  hp_place_main (main_map, user_entry);
  __set_errno (saved);
}

/* Called by dl_main right after rtld_setup_main_map: before the
   program's dynamic section is processed, before any audit module,
   preload or dependency is loaded and before relocation, so only ld.so
   runs and nothing has written to the program's memory.  Addresses stay
   where the kernel (or _dl_hugepage_place_main) put the program; only
   the backing of the planned zones changes.  The bytes are compared
   with the file's before they are used: a debugger's breakpoints or a
   uprobe may already be in the text.  */
static void
hp_map_main (struct link_map *main_map)
{
  int fd = hp_main_fd;
  if (fd < 0)
    return;
  hp_main_fd = -1;
  if (hp_load.current != NULL)
    {
      hp_arch_before_apply (&hp_load, main_map, -1);
      const char *err = _dl_hugepage_apply_plan (&hp_load, main_map, fd,
						 true);
      if (err == NULL)
	err = _dl_hugepage_cont_apply (&hp_load, hp_load.plan, main_map, fd,
				       true);
      if (err != NULL)
	_dl_fatal_printf ("%s: %s: %s\n", RTLD_PROGNAME, hp_load.objname,
			  err);
    }
  __close_nocancel (fd);
}

void
_dl_hugepage_map_main (struct link_map *main_map)
{
  int saved = errno;
  hp_map_main (main_map);
  __set_errno (saved);
}
