/* hugeld: its settings, one table, and the one resolver.  Pure interface.
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

/* A process's settings come from five places: the LD_HUGEPAGE_*
   variables, GLIBC_TUNABLES, the system-wide tunables of ld.so.cache
   (/etc/tunables.conf, glibc 2.44 and later), the policy file
   /etc/hugeld.conf, and the defaults.  Which wins is decided in one
   place, _dl_hugepage_resolve, a pure function of all of them: ld.so
   gathers its own (dl-hugepage.c), the hugeld-conf helper those of
   another process (its environment, its program, its AT_SECURE), and
   both ask the same function.

   Like the rest of the planner this is pure code: no system calls, no
   global state (dl-hugepage-plan.h).  */

#ifndef _DL_HUGEPAGE_SETTINGS_H
#define _DL_HUGEPAGE_SETTINGS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dl-hugepage-conf.h"

/* The settings, one line each, in the style of glibc's
   dl-tunables.list:

     X (ID, NAME, VARIABLE, PARSER, DEFAULT, SECURITY)

   ID		HP_SET_ID, the setting's number.
   NAME		its word: the tunable glibc.elf.hugepage.NAME (in
		GLIBC_TUNABLES and /etc/tunables.conf), the policy file's
		keyword, the hugeld command's option --NAME and the member
		of the helpers' JSON documents.
   VARIABLE	its environment variable.  (glibc's rtld.c reads it in
		process_envvars, and unsecvars.h lists it: both are hooks
		of the patch series.)
   PARSER	how its value is read into struct hp_effective: patterns
		(a list of globs, as is), kinds (HP_KIND_TABLE's words) or
		backings (HP_BACKING_TABLE's words).
   DEFAULT	its value where nothing gives one: the members of struct
		hp_effective it sets.
   SECURITY	what an AT_SECURE process (set-user-ID, set-group-ID,
		file capabilities) takes of it, as glibc's tunables'
		security_level: HP_SECURE_ERASE, neither the variable
		(which unsecvars.h erases from its environment) nor
		GLIBC_TUNABLES; /etc/tunables.conf only where its line's
		flags admit such processes, and the policy file only from
		the block that names the program (dl-hugepage-conf.h).

   Adding a setting is a line here, its PARSER if it is a new kind of
   value, and its field in struct hp_effective; the names, the
   variable, the messages' word lists, the resolver and what the
   hugeld command learns (hugeld-plan --settings) follow from it.  */
#define HP_SETTING_TABLE(X)						\
  X (LIBS, libs, "LD_HUGEPAGE_LIBS", patterns,				\
     (.libs = NULL), HP_SECURE_ERASE)					\
  X (SEGMENTS, segments, "LD_HUGEPAGE_SEGMENTS", kinds,			\
     (.kinds = HP_KIND_DEFAULT), HP_SECURE_ERASE)			\
  X (BACKING, backing, "LD_HUGEPAGE_BACKING", backings,		\
     (.backings = HP_BACKINGS_DEFAULT, .nbackings = HP_NBACKINGS),	\
     HP_SECURE_ERASE)

/* SECURITY: taken from every source in AT_SECURE processes too.  */
#define HP_SECURE_NONE	0
/* SECURITY: see above.  */
#define HP_SECURE_ERASE	1

enum hp_setting
{
#define HP_SETTING_ENUM(id, name, var, parser, dflt, sec) HP_SET_##id,
  HP_SETTING_TABLE (HP_SETTING_ENUM)
#undef HP_SETTING_ENUM
  HP_NSETTINGS
};

/* The tunables' names are this and the setting's NAME.  */
#define HP_TUNABLE_NAMESPACE "glibc.elf.hugepage."
/* The longest tunable name, "glibc.elf.hugepage.segments", with its
   NUL (checked in dl-hugepage-settings.c).  */
#define HP_TUNABLE_NAME_MAX 32

/* Setting T's NAME, VARIABLE and tunable, or "?" for anything else.  */
const char *_dl_hugepage_setting_name (int t);
const char *_dl_hugepage_setting_variable (int t);
const char *_dl_hugepage_setting_tunable (int t);
/* Setting T's SECURITY.  */
int _dl_hugepage_setting_security (int t);

/* The words of LD_HUGEPAGE_SEGMENTS and LD_HUGEPAGE_BACKING as the
   messages list them, made from HP_KIND_TABLE and HP_BACKING_TABLE:
   "use a comma list of " HP_SEGMENTS_WORDS.  */
#define HP_KIND_LISTED(id, name) #name ", "
#define HP_SEGMENTS_WORDS \
  HP_KIND_TABLE (HP_KIND_LISTED) "or " HP_KIND_ALL_WORD
#define HP_BACKING_LISTED(id, name, flags) #name ", "
#define HP_BACKING_WORDS \
  HP_BACKING_TABLE (HP_BACKING_LISTED) "in the order to try"

/* The words setting T's value is made of, for a message ("text,
   rodata, relro, data, bss, or all"), or NULL if it is not a list of
   words (libs).  */
const char *_dl_hugepage_setting_words (int t);

/* Where a setting of a process comes from.  */
enum hp_source
{
  HP_SOURCE_DEFAULT,		/* Nothing gives it: the default.  */
  HP_SOURCE_VARIABLE,		/* Its LD_HUGEPAGE_* variable.  */
  HP_SOURCE_TUNABLES,		/* Its tunable in GLIBC_TUNABLES.  */
  HP_SOURCE_SYSTEM,		/* Its tunable in /etc/tunables.conf,
				   through ld.so.cache.  */
  HP_SOURCE_FILE		/* A line of the policy file.  */
};

/* Everything a process's settings are made of, as ld.so sees it at
   start-up.  What is not known yet is asked for by the resolver
   (HP_NEED_*), so that ld.so only looks for what can still change the
   answer.  */
struct hp_sources
{
  /* The process is AT_SECURE.  */
  bool secure;
  /* The LD_HUGEPAGE_* variables, as glibc's process_envvars takes them
     (the last string of each name), NULL where one is not set.  */
  const char *variable[HP_NSETTINGS];
  /* The environment, a NULL-terminated array of NAME=VALUE strings in
     their order, or NULL: its GLIBC_TUNABLES strings are read.  */
  char *const *environ;
  /* The tunables section of ld.so.cache (NULL: none) of TUNCONF_SIZE
     bytes, with the cache's strings in TUNCONF_DATA at the offsets
     [TUNCONF_START, TUNCONF_END) (_dl_hugepage_tunconf_strings).  */
  const void *tunconf;
  size_t tunconf_size;
  const char *tunconf_data;
  size_t tunconf_start, tunconf_end;
  /* HAVE_PATH: PATH is the program as glibc names it for the [proc:]
     filters of those tunables (the target of /proc/self/exe, else
     argv[0] unless AT_SECURE), or NULL if it has none.  */
  bool have_path;
  const char *path;
  /* HAVE_CONF: CONF is the policy file (CONF_LEN bytes) if ld.so uses
     it (trusted, and _dl_hugepage_conf_check found no bad line), else
     NULL; NAMES[0..NNAMES) are the program's names for its blocks
     (_dl_hugepage_program_names), and CONF_LIBS has room for
     2 * CONF_LEN + 2 bytes, where its patterns are joined, and
     CONF_SPANS for HP_CONF_MAX_SPANS (CONF_LEN), where the lines they
     come from are noted.  */
  bool have_conf;
  const char *conf;
  size_t conf_len;
  const char *const *names;
  size_t nnames;
  char *conf_libs;
  struct hp_conf_span *conf_spans;
};

/* What _dl_hugepage_resolve asks for before it can answer.  */
#define HP_NEED_PATH	1	/* A line of ld.so.cache that applies has
				   a [proc:] filter: HAVE_PATH, PATH.  */
#define HP_NEED_CONF	2	/* A setting is left to the policy file:
				   HAVE_CONF and the file.  */

/* The settings a process runs with, each with where it comes from.  */
struct hp_effective
{
  /* LIBS: the patterns (LIBS_LEN bytes, separated by `,' where
     LIBS_COMMAS, a tunable's spelling, else by `:'; a policy file's
     list ends with a NUL), or NULL: nothing is selected (given empty,
     the policy file's `libs none', or nothing gives it).  */
  const char *libs;
  size_t libs_len;
  bool libs_commas;
  /* SEGMENTS: the HP_KIND_* selected.  */
  unsigned int kinds;
  /* BACKING: the backings to try, in order.  */
  unsigned char backings[HP_NBACKINGS];
  int nbackings;

  /* For each setting: the source whose value was taken (an empty or
     bad value too), HP_SOURCE_DEFAULT if none gives one ...  */
  enum hp_source source[HP_NSETTINGS];
  /* ... its text (GIVEN_LEN bytes, for a tunable not NUL-terminated;
     NULL for the policy file and the default) ...  */
  const char *given[HP_NSETTINGS];
  size_t given_len[HP_NSETTINGS];
  /* ... the policy file's line (for libs, the first libs line) ...  */
  unsigned int line[HP_NSETTINGS];
  /* ... whether it does not parse and the default is used instead
     (ld.so warns) ...  */
  bool bad[HP_NSETTINGS];
  /* ... whether a nonoverridable line of /etc/tunables.conf gave it,
     and whether a variable that is set was ignored for that.  */
  bool locked[HP_NSETTINGS];
  bool variable_ignored[HP_NSETTINGS];

  /* The tunables section of ld.so.cache is malformed: ignored.  */
  bool tunconf_bad;
  /* The settings (bit 1 << HP_SET_*) that only the policy file may
     give: no other source gives them, and libs is not given empty.  */
  unsigned int conf_wanted;
  /* The policy file was consulted, and the program block that applied
     (0: none).  */
  bool conf_used;
  unsigned int conf_block;
  /* How many of the sources' CONF_SPANS say where the libs came from.  */
  size_t conf_nspans;
  /* A line of the policy file that applies to the program does not
     parse: the file gives it nothing (CONF_USED is false).  */
  unsigned int conf_error_line;
  const char *conf_error;
  /* The file declares a shared cache (when it is used).  */
  bool conf_cache;
};

/* The settings of a process with the sources S, into *E, each with
   where it comes from.  Returns 0, or the HP_NEED_* bits of what S
   lacks that can change the answer (*E is then not complete: gather
   them and call again).

   The rules, setting by setting (all of them ld.so's):
   - the variable if it is set (even empty), else its tunable in
     GLIBC_TUNABLES (every GLIBC_TUNABLES string, in order: the last
     value of a name wins; a string with an entry glibc 2.41 and later
     reject gives none), else its tunable in /etc/tunables.conf, else
     the policy file, else the default;
   - a nonoverridable line of /etc/tunables.conf wins over the
     variable and GLIBC_TUNABLES too;
   - in an AT_SECURE process, a setting whose SECURITY is
     HP_SECURE_ERASE takes neither the variable nor GLIBC_TUNABLES;
   - libs given empty selects nothing, and then the policy file is not
     read at all; nor is it where every setting is given otherwise;
   - segments or backing given empty is the default; a value that does
     not parse is the default too, and BAD says so.  */
unsigned int _dl_hugepage_resolve (const struct hp_sources *s,
				   struct hp_effective *e);

/* The policy file's part of _dl_hugepage_resolve, on its own: the
   settings of E->conf_wanted that S's file (CONF, NULL if none, and the
   names) gives, into *E, which holds what the other sources gave.
   ld.so calls it when it reads the file later than the other sources
   (_dl_hugepage_settle).  */
void _dl_hugepage_resolve_conf (const struct hp_sources *s,
				struct hp_effective *e);

/* Write E's libs into BUF (E->LIBS_LEN + 1 bytes) as LD_HUGEPAGE_LIBS
   spells them (a tunable's `,' become `:'), with a NUL.  */
void _dl_hugepage_libs_copy (const struct hp_effective *e, char *buf);

/* The LD_HUGEPAGE_* variables of the environment ENVIRON (a
   NULL-terminated array), as glibc's process_envvars takes them: for
   each, the value of the last string of its name, or NULL.  */
void _dl_hugepage_environ_variables (char *const *environ,
				     const char *variable[HP_NSETTINGS]);

/* hugeld's tunables in GLIBC_TUNABLES (dl-hugepage-tunables.c):
   glibc.elf.hugepage.libs, .segments and .backing, with the meaning of
   their variables.  GLIBC_TUNABLES separates its entries with `:', so
   the libs tunable separates its patterns with `,'.

   The drop-in loader runs beside the distribution's libc.so.6, which
   asks ld.so for its own tunables by the numbers it was built with:
   registering three more would renumber them, so hugeld reads its
   names from the string itself and glibc's list stays as built.  */

/* Which of hugeld's tunables NAME[0..LEN) is, or -1.  */
int _dl_hugepage_tunable_of (const char *name, size_t len);

/* Find hugeld's tunables in S, a GLIBC_TUNABLES value
   ("NAME=VALUE:NAME=VALUE..."): for each, VALUE[T] points at its value
   in S and LEN[T] is its length (the last entry of a name wins), or
   VALUE[T] is NULL where S does not name it.  Returns false, and sets
   nothing, if S has an entry glibc 2.41 and later reject, which makes
   them ignore the whole string (a name without `=', or a second `='
   in a value): hugeld then takes none of its tunables either, in
   every release.  Other names are glibc's and are not looked at.  */
bool _dl_hugepage_tunables_find (const char *s,
				 const char *value[HP_NSETTINGS],
				 size_t len[HP_NSETTINGS]);

/* hugeld's tunables in the system-wide tunables of ld.so.cache
   (dl-hugepage-tunconf.c): the extension section that glibc 2.44's
   ldconfig compiles from /etc/tunables.conf.  glibc's
   sysdeps/generic/dl-cache.h and elf/tunconf.h have the layout;
   dl-hugepage.c checks that it is this one.  All numbers are in the
   host's byte order, as ldconfig writes them.  */
#define HP_CACHE_MAGIC			"glibc-ld.so.cache1.1"
#define HP_CACHE_HEADER_SIZE		48	/* struct cache_file_new.  */
#define HP_CACHE_NLIBS			20	/* Its nlibs ...  */
#define HP_CACHE_LEN_STRINGS		24	/* ... len_strings ...  */
#define HP_CACHE_EXTENSION_OFFSET	32	/* ... extension_offset.  */
#define HP_CACHE_ENTRY_SIZE		24	/* struct file_entry_new.  */
#define HP_CACHE_EXTENSION_MAGIC	((uint32_t) -358342284)
#define HP_CACHE_EXTENSION_TUNABLES	2	/* Its tag.  */
#define HP_TUNCONF_SIGNATURE		0x7c3ba94fU
#define HP_TUNCONF_VERSION		0x01000000U
#define HP_TUNCONF_HEADER_SIZE		16	/* signature, version, count, -.  */
#define HP_TUNCONF_ENTRY_SIZE		32
/* Offsets of an entry's fields (the strings' are from the start of the
   cache's new-format header, as for its libraries).  */
#define HP_TUNCONF_ENTRY_FLAGS		0
#define HP_TUNCONF_ENTRY_NAME		8
#define HP_TUNCONF_ENTRY_VALUE		12
#define HP_TUNCONF_ENTRY_FILTER		16
/* An entry's flags.  */
#define HP_TUNCONF_OVERRIDE_MASK	0x0000000cU
#define HP_TUNCONF_OVERRIDE_DENY	0x00000004U	/* nonoverridable, `-'.  */
#define HP_TUNCONF_EXCLUDE_SECURE	0x00000010U	/* not for AT_SECURE.  */
#define HP_TUNCONF_EXCLUDE_UNSECURE	0x00000020U	/* only for AT_SECURE.  */
#define HP_TUNCONF_FILTER_MASK		0x0000ff00U
#define HP_TUNCONF_FILTER_NONE		0x00000000U
#define HP_TUNCONF_FILTER_PERPROC	0x00000100U	/* [proc:NAME].  */

/* Where the tunables section of the ld.so.cache CACHE (SIZE bytes, the
   new format at its start) is, as glibc 2.44's ld.so finds it
   (_dl_load_cache_tunables): false if it has none, else true with
   *SECTION and *SECTION_SIZE set, and *SECTION_VALID false if glibc
   would not use it (misaligned or empty).  ld.so asks glibc's own
   function; the hugeld command, which reads the file, asks this one.  */
bool _dl_hugepage_tunconf_locate (const void *cache, size_t size,
				  const void **section, size_t *section_size,
				  bool *section_valid);

/* The string table of the ld.so.cache at CACHE whose tunables section
   is SECTION, as [*START, *END) offsets from CACHE: after the
   libraries' entries, LEN_STRINGS long, clamped to end before the
   section (which lies inside the file) and never before it starts.
   ld.so and the hugeld command both clamp it with this.  */
void _dl_hugepage_tunconf_strings (const void *cache, const void *section,
				   size_t *start, size_t *end);

/* A tunable's value from the cache: VALUE[0..LEN), NUL-terminated,
   inside the cache (NULL: not set for this process), and whether the
   line that set it was nonoverridable: then neither GLIBC_TUNABLES nor
   the variable can change it.  */
struct hp_tunconf_value
{
  const char *value;
  size_t len;
  bool locked;
};

/* Find hugeld's tunables in SECTION (SIZE bytes), the tunables section
   of ld.so.cache, for the program PATH (glibc's name for it, or NULL if
   it is not known: then no [proc:] entry applies), in an AT_SECURE
   process or not (SECURE), as glibc 2.44's __tunables_init applies the
   cache's entries to its own tunables: in order, an entry applies if
   its secure flags admit the process (the default, nonsecure, excludes
   AT_SECURE processes) and its [proc:NAME] filter, if any, names the
   program (a NAME starting with `/' is compared with PATH, any other
   with PATH's last component); it replaces the value and the lock that
   an earlier one set.  The strings lie in DATA, at offsets in the
   string table [STR_START, STR_END).  Sets VALUE[T] for each tunable;
   returns false, and sets none, if the section is malformed: a bad
   header or size, or a string offset outside the string table or a
   string that does not end inside it.  If PATH is NULL and NEED_PATH
   is not, sets *NEED_PATH when an entry of hugeld's that the secure
   flags admit has a [proc:] filter (the caller then finds the path
   and asks again; *NEED_PATH is never cleared).  */
bool _dl_hugepage_tunconf_find (const void *section, size_t size,
				const char *data, size_t str_start,
				size_t str_end, const char *path,
				bool secure,
				struct hp_tunconf_value value[HP_NSETTINGS],
				bool *need_path);

#endif /* dl-hugepage-settings.h */
