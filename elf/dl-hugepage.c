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

/* glibc 2.44 and later apply system-wide tunables, which ldconfig
   compiles from /etc/tunables.conf into ld.so.cache; hugeld reads its
   own names there too (hp_find_system_tunables).  The feature and its
   header, elf/tunconf.h, came together, so the header's presence is
   the test: a release without it builds hugeld without the code, and
   no patch of the series has to be kept per release for it.  */
#if defined SHARED && defined USE_LDCONFIG && __has_include ("tunconf.h")
# define HP_SYSTEM_TUNABLES 1
# include <dl-cache.h>
# include "tunconf.h"
#else
# define HP_SYSTEM_TUNABLES 0
#endif

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
   hp_from_tunables, and of those from /etc/tunables.conf in
   hp_from_system) or a line of the policy file.  */
unsigned int _dl_hugepage_libs_line;
static unsigned int hp_segments_line;
static unsigned int hp_backing_line;
static unsigned int hp_from_tunables;
static unsigned int hp_from_system;
/* The longest "glibc.elf.hugepage.segments", with its NUL.  */
#define HP_SETTING_NAME_MAX 32
/* The variables, in enum hp_tunable's order.  */
static const char *const hp_variable_names[HP_NTUNABLES] =
  { "LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS", "LD_HUGEPAGE_BACKING" };

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

/* Find glibc.elf.hugepage.libs, .segments and .backing in the
   system-wide tunables (/etc/tunables.conf, compiled by ldconfig into
   ld.so.cache): VALUE[T] and LEN[T] for each this process gets (the
   values point into the cache, which stays mapped until dl_main is
   done), the bit 1 << T in *LOCKED for those a nonoverridable line
   set.  Returns the bits of the tunables found.  The rules are
   __tunables_init's (dl-hugepage-tunconf.c): glibc keeps these
   entries in the cache but skips them, as it does not know the names.
   The program is named as __tunables_init names it for [proc:]
   filters: the target of /proc/self/exe (for `ld.so PROG', ld.so
   itself), else argv[0], but not for an AT_SECURE process.  Costs a
   stat of the cache (__tunables_init has loaded it) and, only if it
   has hugeld's names under a [proc:] filter, a readlink.  */
static unsigned int
hp_find_system_tunables (const char *value[HP_NTUNABLES],
			 size_t len[HP_NTUNABLES], unsigned int *locked)
{
  const char *data;
  const struct tunable_header_cached *thc = _dl_load_cache_tunables (&data);
  if (thc == NULL)
    return 0;
  /* The string table follows the libraries (_dl_load_cache_tunables
     checked that it starts inside the file) and ends before the
     extension sections: at the tunables section at the latest, which
     lies inside the file.  */
  const struct cache_file_new *cache = (const void *) data;
  const char *sec = (const char *) thc;
  size_t start = (const char *) &cache->libs[cache->nlibs] - data;
  size_t end = start + cache->len_strings;
  if (sec < data)
    end = start;
  else if (end > (size_t) (sec - data))
    end = sec - data;
  if (end < start)
    end = start;
  size_t size = TUNCONF_SIZE (thc);

  /* The program's path only if one of hugeld's entries has a [proc:]
     filter (glibc, too, reads it only then).  */
  struct hp_tunconf_value v[HP_NTUNABLES];
  bool need_path = false;
  bool ok = _dl_hugepage_tunconf_find (thc, size, data, start, end, NULL,
				       __libc_enable_secure, v, &need_path);
  if (ok && need_path)
    {
      char exe[HP_PATH_MAX];
      const char *path = NULL;
      ssize_t n = __readlink ("/proc/self/exe", exe, sizeof exe - 1);
      if (n > 0 && n < (ssize_t) sizeof exe - 1)
	{
	  exe[n] = '\0';
	  path = exe;
	}
      else if (!__libc_enable_secure && _dl_argv != NULL)
	path = _dl_argv[0];
      ok = _dl_hugepage_tunconf_find (thc, size, data, start, end, path,
				      __libc_enable_secure, v, NULL);
    }
  if (!ok)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: /etc/tunables.conf: the tunables "
			  "section of ld.so.cache is malformed: ignored\n");
      return 0;
    }
  unsigned int found = 0;
  for (int t = 0; t < HP_NTUNABLES; ++t)
    if (v[t].value != NULL)
      {
	value[t] = v[t].value;
	len[t] = v[t].len;
	found |= 1u << t;
	if (v[t].locked)
	  *locked |= 1u << t;
      }
  return found;
}
#endif /* HP_SYSTEM_TUNABLES */

/* Take each of hugeld's tunables where its variable is not set (a
   variable that is set, even empty, wins), and also where it is if a
   nonoverridable line of /etc/tunables.conf set the tunable, as glibc
   lets no GLIBC_TUNABLES entry nor environment alias change such a
   tunable.  The order, as glibc's: /etc/tunables.conf (glibc 2.44 and
   later), then GLIBC_TUNABLES, except for a locked tunable.  Neither
   GLIBC_TUNABLES nor the variables apply to AT_SECURE programs; the
   cache's entries do where their secure flags say so.  A value that
   cannot be copied is not taken.  */
static void
hp_take_tunables (void)
{
  const char *value[HP_NTUNABLES] = { NULL };
  size_t len[HP_NTUNABLES] = { 0 };
  unsigned int locked = 0, system = 0;
#if HP_SYSTEM_TUNABLES
  system = hp_find_system_tunables (value, len, &locked);
#endif
  if (!__libc_enable_secure)
    {
      const char *env[HP_NTUNABLES] = { NULL };
      size_t envlen[HP_NTUNABLES] = { 0 };
      hp_find_tunables (env, envlen);
      for (int t = 0; t < HP_NTUNABLES; ++t)
	if (env[t] != NULL && (locked & (1u << t)) == 0)
	  {
	    value[t] = env[t];
	    len[t] = envlen[t];
	    system &= ~(1u << t);
	  }
    }
  const char **setting[HP_NTUNABLES] =
    { &_dl_hugepage_libs, &_dl_hugepage_segments, &_dl_hugepage_backing };
  for (int t = 0; t < HP_NTUNABLES; ++t)
    {
      if (value[t] == NULL
	  || (*setting[t] != NULL && (locked & (1u << t)) == 0))
	continue;
      if (*setting[t] != NULL && hp_debug ())
	_dl_debug_printf ("hugepages: %s ignored: %s%s is nonoverridable "
			  "in /etc/tunables.conf\n", hp_variable_names[t],
			  HP_TUNABLE_NAMESPACE, _dl_hugepage_tunable_name (t));
      char *copy = malloc (len[t] + 1);
      if (copy == NULL)
	continue;
      _dl_hugepage_tunable_value (t, value[t], len[t], copy);
      *setting[t] = copy;
      hp_from_tunables |= 1u << t;
      hp_from_system |= system & (1u << t);
    }
}

/* The name the setting T's value was given by, for a warning or the
   report: its variable, or its tunable (HP_TUNABLE_NAMESPACE, then
   _dl_hugepage_tunable_name, written into BUF).  */
static const char *
hp_setting_name (int t, char buf[HP_SETTING_NAME_MAX])
{
  if ((hp_from_tunables & (1u << t)) == 0)
    return hp_variable_names[t];
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

/* " (GLIBC_TUNABLES)" or " (/etc/tunables.conf)" if setting T came
   from a tunable, else "".  */
static const char *
hp_tunable_from (int t)
{
  if ((hp_from_system & (1u << t)) != 0)
    return " (/etc/tunables.conf)";
  return (hp_from_tunables & (1u << t)) != 0 ? " (GLIBC_TUNABLES)" : "";
}

/* Report the settings under LD_DEBUG=hugepages, each with where it
   came from.  */
static void
hp_report_settings (void)
{
  char from[64], name[HP_SETTING_NAME_MAX];
  if (_dl_hugepage_libs_line == 0)
    _dl_debug_printf ("hugepages: %s=%s%s\n",
		      hp_setting_name (HP_TUN_LIBS, name),
		      _dl_hugepage_libs,
		      (hp_from_system & (1u << HP_TUN_LIBS)) != 0
		      ? hp_tunable_from (HP_TUN_LIBS) : "");
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
  /* Neither the variables nor GLIBC_TUNABLES apply to AT_SECURE
     programs (the policy file, root's own, does, and so do the
     system-wide tunables, root's too, where their flags say so).
     glibc 2.40 and later do not even parse the variables for such
     programs; 2.36 does, so they are dropped here.  Each tunable
     stands in for its variable where that is not set.  */
  if (__libc_enable_secure)
    _dl_hugepage_libs = _dl_hugepage_segments = _dl_hugepage_backing = NULL;
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

/* Read, with one pread of a byte, the file page of each of PHDR's
   PT_LOAD segments whose end glibc's _dl_map_segments zeroes (the last
   file page of a segment with a zero fill): its memset is the first
   touch of that page, and a fault in a file mapping that is not marked
   MADV_HUGEPAGE yet reads the device's readahead window around it (8
   MiB on many disks) in small folios, which can reach into the zones
   before the segment, where the thp backing wants 2 MiB folios.  A
   pread of one page that nothing near it was read before reads that
   page alone.  Past the end of a cut file it reads nothing.  */
static void
hp_read_zero_fill_pages (int fd, const ElfW(Phdr) *phdr, size_t phnum)
{
  for (size_t i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_memsz > phdr[i].p_filesz
	&& phdr[i].p_filesz != 0
	&& HP_ALIGN_REM (phdr[i].p_offset + phdr[i].p_filesz,
			 GLRO(dl_pagesize)) != 0)
      {
	char c;
	(void) __pread64_nocancel (fd, &c, 1,
				   phdr[i].p_offset + phdr[i].p_filesz - 1);
      }
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
  if (hp_load.current != NULL)
    hp_read_zero_fill_pages (fd, phdr, phnum);
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
