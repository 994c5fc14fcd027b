/* hugeld: its settings, one table, and the one resolver.
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

/* Pure code (see dl-hugepage-settings.h): no system calls, no state.
   ld.so (dl-hugepage.c) and the hugeld-conf helper decide a process's
   settings here, each from the sources it gathered.  */

#include <string.h>
#include "dl-hugepage-settings.h"
#include "dl-hugepage-kinds.h"

/* The table's columns, indexed by HP_SET_*.  */
#define HP_SETTING_NAME(id, name, var, parser, dflt, sec) #name,
static const char *const hp_setting_names[HP_NSETTINGS] =
  { HP_SETTING_TABLE (HP_SETTING_NAME) };
#define HP_SETTING_VARIABLE(id, name, var, parser, dflt, sec) var,
static const char *const hp_setting_variables[HP_NSETTINGS] =
  { HP_SETTING_TABLE (HP_SETTING_VARIABLE) };
#define HP_SETTING_TUNABLE(id, name, var, parser, dflt, sec) \
  HP_TUNABLE_NAMESPACE #name,
static const char *const hp_setting_tunables[HP_NSETTINGS] =
  { HP_SETTING_TABLE (HP_SETTING_TUNABLE) };
#define HP_SETTING_SECURITY(id, name, var, parser, dflt, sec) sec,
static const unsigned char hp_setting_security[HP_NSETTINGS] =
  { HP_SETTING_TABLE (HP_SETTING_SECURITY) };
#define HP_SETTING_FITS(id, name, var, parser, dflt, sec) \
  && sizeof HP_TUNABLE_NAMESPACE #name <= HP_TUNABLE_NAME_MAX
_Static_assert (1 HP_SETTING_TABLE (HP_SETTING_FITS),
		"HP_TUNABLE_NAME_MAX holds every tunable's name");

/* The defaults: each setting's DEFAULT.  */
#define HP_UNPAREN(...) __VA_ARGS__
#define HP_SETTING_DEFAULT(id, name, var, parser, dflt, sec) HP_UNPAREN dflt,
static const struct hp_effective hp_defaults =
  { HP_SETTING_TABLE (HP_SETTING_DEFAULT) };

const char *
_dl_hugepage_setting_name (int t)
{
  return t >= 0 && t < HP_NSETTINGS ? hp_setting_names[t] : "?";
}

const char *
_dl_hugepage_setting_variable (int t)
{
  return t >= 0 && t < HP_NSETTINGS ? hp_setting_variables[t] : "?";
}

const char *
_dl_hugepage_setting_tunable (int t)
{
  return t >= 0 && t < HP_NSETTINGS ? hp_setting_tunables[t] : "?";
}

int
_dl_hugepage_setting_security (int t)
{
  return t >= 0 && t < HP_NSETTINGS ? hp_setting_security[t]
	 : HP_SECURE_ERASE;
}

/* The PARSERs: take VALUE (LEN bytes) as the value of setting T into
   *E.  False if it does not parse (E keeps the default).  An empty
   list is the default; empty patterns select nothing.  */

static bool
hp_parse_patterns (struct hp_effective *e, const char *value, size_t len,
		   bool commas)
{
  e->libs = len > 0 ? value : NULL;
  e->libs_len = len;
  e->libs_commas = commas;
  return true;
}

static bool
hp_parse_kinds (struct hp_effective *e, const char *value, size_t len,
		bool commas)
{
  (void) commas;
  if (len == 0)
    return true;
  int kinds = _dl_hugepage_parse_kinds_n (value, len);
  if (kinds < 0)
    return false;
  e->kinds = kinds;
  return true;
}

static bool
hp_parse_backings (struct hp_effective *e, const char *value, size_t len,
		   bool commas)
{
  (void) commas;
  if (len == 0)
    return true;
  unsigned char order[HP_NBACKINGS];
  int n = _dl_hugepage_parse_backing_n (value, len, order);
  if (n < 0)
    return false;
  memcpy (e->backings, order, n);
  e->nbackings = n;
  return true;
}

typedef bool hp_parse_fn (struct hp_effective *, const char *, size_t,
			  bool);
#define HP_SETTING_PARSER(id, name, var, parser, dflt, sec) \
  hp_parse_##parser,
static hp_parse_fn *const hp_setting_parsers[HP_NSETTINGS] =
  { HP_SETTING_TABLE (HP_SETTING_PARSER) };

#define HP_SETTING_KINDS_WORDS HP_SEGMENTS_WORDS
#define HP_SETTING_WORDS_patterns NULL
#define HP_SETTING_WORDS_kinds HP_SEGMENTS_WORDS
#define HP_SETTING_WORDS_backings HP_BACKING_WORDS
#define HP_SETTING_WORDS(id, name, var, parser, dflt, sec) \
  HP_SETTING_WORDS_##parser,
static const char *const hp_setting_words[HP_NSETTINGS] =
  { HP_SETTING_TABLE (HP_SETTING_WORDS) };

const char *
_dl_hugepage_setting_words (int t)
{
  return t >= 0 && t < HP_NSETTINGS ? hp_setting_words[t] : NULL;
}

/* "NAME=" at the start of S.  */
static bool
hp_has_name (const char *s, const char *name)
{
  size_t n = strlen (name);
  return strncmp (s, name, n) == 0 && s[n] == '=';
}

void
_dl_hugepage_environ_variables (char *const *environ,
				const char *variable[HP_NSETTINGS])
{
  for (int t = 0; t < HP_NSETTINGS; ++t)
    variable[t] = NULL;
  for (char *const *e = environ; e != NULL && *e != NULL; ++e)
    for (int t = 0; t < HP_NSETTINGS; ++t)
      if (hp_has_name (*e, hp_setting_variables[t]))
	variable[t] = *e + strlen (hp_setting_variables[t]) + 1;
}

/* The value each setting takes from a source, before it is parsed.  */
struct hp_pick
{
  const char *value;		/* NULL: none.  */
  size_t len;
  enum hp_source source;
};

/* The values of GLIBC_TUNABLES in ENVIRON, into PICK: every string, in
   order, as glibc reads them, the last value of a name winning.  */
static void
hp_pick_tunables (char *const *environ, struct hp_pick pick[HP_NSETTINGS])
{
  for (char *const *e = environ; e != NULL && *e != NULL; ++e)
    {
      const char *v[HP_NSETTINGS];
      size_t l[HP_NSETTINGS];
      if (!hp_has_name (*e, "GLIBC_TUNABLES")
	  || !_dl_hugepage_tunables_find (*e + sizeof "GLIBC_TUNABLES", v, l))
	continue;
      for (int t = 0; t < HP_NSETTINGS; ++t)
	if (v[t] != NULL)
	  pick[t] = (struct hp_pick) { v[t], l[t], HP_SOURCE_TUNABLES };
    }
}

unsigned int
_dl_hugepage_resolve (const struct hp_sources *s, struct hp_effective *e)
{
  *e = hp_defaults;
  struct hp_pick pick[HP_NSETTINGS];
  for (int t = 0; t < HP_NSETTINGS; ++t)
    pick[t] = (struct hp_pick) { NULL, 0, HP_SOURCE_DEFAULT };

  /* The order, lowest first: /etc/tunables.conf, GLIBC_TUNABLES, the
     variables; a locked line of the first beats the other two.  */
  if (s->tunconf != NULL)
    {
      struct hp_tunconf_value v[HP_NSETTINGS];
      bool need = false;
      if (!_dl_hugepage_tunconf_find (s->tunconf, s->tunconf_size,
				      s->tunconf_data, s->tunconf_start,
				      s->tunconf_end,
				      s->have_path ? s->path : NULL,
				      s->secure, v,
				      s->have_path ? NULL : &need))
	e->tunconf_bad = true;
      else if (need)
	return HP_NEED_PATH;
      else
	for (int t = 0; t < HP_NSETTINGS; ++t)
	  if (v[t].value != NULL)
	    {
	      pick[t] = (struct hp_pick) { v[t].value, v[t].len,
					   HP_SOURCE_SYSTEM };
	      e->locked[t] = v[t].locked;
	    }
    }
  struct hp_pick env[HP_NSETTINGS];
  for (int t = 0; t < HP_NSETTINGS; ++t)
    env[t] = (struct hp_pick) { NULL, 0, HP_SOURCE_DEFAULT };
  hp_pick_tunables (s->environ, env);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      if (s->variable[t] != NULL)
	env[t] = (struct hp_pick) { s->variable[t], strlen (s->variable[t]),
				    HP_SOURCE_VARIABLE };
      if (env[t].value == NULL
	  || (s->secure && hp_setting_security[t] == HP_SECURE_ERASE))
	continue;
      if (!e->locked[t])
	pick[t] = env[t];
      else if (env[t].source == HP_SOURCE_VARIABLE)
	e->variable_ignored[t] = true;
    }

  /* The policy file, for the settings nothing above gives, unless
     libs is given empty: that turns hugeld off for the process.  */
  bool off = pick[HP_SET_LIBS].value != NULL && pick[HP_SET_LIBS].len == 0;
  e->conf_wanted = 0;
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (!off && pick[t].value == NULL)
      e->conf_wanted |= 1U << t;
  if (e->conf_wanted != 0 && !s->have_conf)
    return HP_NEED_CONF;

  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (pick[t].value != NULL)
      {
	e->source[t] = pick[t].source;
	e->given[t] = pick[t].value;
	e->given_len[t] = pick[t].len;
	e->bad[t] = !hp_setting_parsers[t] (e, pick[t].value, pick[t].len,
					    pick[t].source
					    != HP_SOURCE_VARIABLE);
      }
  if (e->conf_wanted != 0)
    _dl_hugepage_resolve_conf (s, e);
  return 0;
}

void
_dl_hugepage_resolve_conf (const struct hp_sources *s, struct hp_effective *e)
{
  e->conf_used = s->conf != NULL;
  struct hp_conf_settings conf;
  if (e->conf_used)
    {
      _dl_hugepage_conf_resolve (s->conf, s->conf_len, s->names, s->nnames,
				 s->secure, &conf, s->conf_libs, s->conf_spans);
      e->conf_block = conf.block_line;
      e->conf_nspans = conf.nspans;
      e->conf_cache = conf.has_cache;
      if (conf.error_line != 0)
	{
	  e->conf_used = false;
	  e->conf_error_line = conf.error_line;
	  e->conf_error = conf.error;
	}
    }
  if (!e->conf_used)
    return;

  /* The file's values have been parsed and checked.  */
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      if ((e->conf_wanted & (1U << t)) == 0)
	continue;
      switch (t)
	{
	case HP_SET_LIBS:
	  /* `libs none' selects nothing, from its line.  */
	  if (conf.libs_line == 0)
	    continue;
	  e->line[t] = conf.libs_line;
	  e->libs = conf.libslen > 0 ? s->conf_libs : NULL;
	  e->libs_len = conf.libslen;
	  e->libs_commas = false;
	  break;
	case HP_SET_SEGMENTS:
	  if (conf.segments_line == 0)
	    continue;
	  e->line[t] = conf.segments_line;
	  e->kinds = conf.kinds;
	  break;
	case HP_SET_BACKING:
	  if (conf.backing_line == 0)
	    continue;
	  e->line[t] = conf.backing_line;
	  memcpy (e->backings, conf.backings, conf.nbackings);
	  e->nbackings = conf.nbackings;
	  break;
	}
      e->source[t] = HP_SOURCE_FILE;
    }
}

void
_dl_hugepage_libs_copy (const struct hp_effective *e, char *buf)
{
  for (size_t i = 0; i < e->libs_len; ++i)
    buf[i] = e->libs_commas && e->libs[i] == ',' ? ':' : e->libs[i];
  buf[e->libs_len] = '\0';
}
