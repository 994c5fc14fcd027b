/* hugeld-conf: the document of a policy file for a program.
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

/* What hugeld-conf FILE prints (hugeld-conf.c describes the document):
   the file's state, the settings it gives the program as
   _dl_hugepage_conf_resolve resolves them, and its cache and pool
   lines, with --expand the paths each cache glob names.  */

#define _GNU_SOURCE 1
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "hugeld-conf.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"

/* Whether a component of a glob has anything but plain characters.  */
static bool
has_magic (const char *s, size_t len)
{
  for (size_t i = 0; i < len; ++i)
    if (strchr ("*?[\\", s[i]) != NULL)
      return true;
  return false;
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in DIR that the glob component C (LEN bytes) matches, by
   ld.so's matcher (a wildcard matches a leading `.' only where C
   starts with one, as in the shell), sorted, into *NAMES (malloc'ed,
   each too): how many.  A component without wildcards is itself.  */
static size_t
component_names (const char *dir, const char *c, size_t len, char ***names)
{
  size_t n = 0;
  *names = NULL;
  if (!has_magic (c, len))
    {
      *names = malloc (sizeof **names);
      if (*names == NULL || ((*names)[n++] = strndup (c, len)) == NULL)
	conf_refuse (1, "out of memory");
      return n;
    }
  DIR *d = opendir (dir[0] != '\0' ? dir : "/");
  struct dirent *e;
  while (d != NULL && (e = readdir (d)) != NULL)
    if ((e->d_name[0] != '.' || c[0] == '.')
	&& strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0
	&& _dl_hugepage_glob (c, len, e->d_name))
      {
	char **more = realloc (*names, (n + 1) * sizeof **names);
	if (more == NULL || (more[n] = strdup (e->d_name)) == NULL)
	  conf_refuse (1, "out of memory");
	*names = more;
	++n;
      }
  if (d != NULL)
    closedir (d);
  qsort (*names, n, sizeof **names, compare_names);
  return n;
}

/* Write, as strings of J's array, the existing paths under DIR that
   the components [P, END) of an absolute glob name: each component
   matched on its own (a `*' stays within it); every component but the
   last must be a directory.  */
static void
expand (struct json *j, const char *dir, const char *p, const char *end)
{
  while (p < end && *p == '/')
    ++p;
  if (p == end)
    return;
  const char *c = p;
  while (p < end && *p != '/')
    ++p;
  bool last = true;
  for (const char *q = p; q < end; ++q)
    if (*q != '/')
      last = false;

  char **names;
  size_t n = component_names (dir, c, p - c, &names);
  for (size_t i = 0; i < n; ++i)
    {
      char path[HP_PATH_MAX];
      struct stat st;
      if (snprintf (path, sizeof path, "%s/%s", dir, names[i])
	  < (int) sizeof path
	  && (last ? lstat (path, &st) == 0
	      : stat (path, &st) == 0 && S_ISDIR (st.st_mode)))
	{
	  if (!last)
	    expand (j, path, p, end);
	  else
	    json_str (j, path);
	}
      free (names[i]);
    }
  free (names);
}

/* The member NAME of a setting the file gives on line LINE: {"value":
   VALUE, "line": LINE}, or null where LINE is 0 (the file does not set
   it).  */
static void
print_setting (struct json *j, const char *name, unsigned int line,
	       const char *value)
{
  json_key (j, name);
  if (line == 0)
    {
      json_null (j);
      return;
    }
  json_object (j);
  json_kstr (j, "value", value);
  json_kuint (j, "line", line);
  json_end (j);
}

/* conf_bad_lines's callback for the "errors" member: ARG is the
   document.  */
static void
print_error (const struct conf_bad_line *bad, void *arg)
{
  struct json *j = arg;
  char cost[128];
  json_object (j);
  json_kuint (j, "line", bad->line);
  json_kstr (j, "message", bad->error);
  json_key (j, "block");
  if (bad->block != 0)
    json_uint (j, bad->block);
  else
    json_null (j);
  json_kbool (j, "cache", bad->cache);
  json_kstr (j, "cost", conf_bad_cost (bad, cost, sizeof cost));
  json_end (j);
}

/* The members "file", "program_names", "trusted", "untrusted_why",
   "errors" (every bad line, with what it costs), "applies" (ld.so uses
   the file for the program: it trusts it, and the lines that apply to
   the program parse, as R resolved them) and "rules".  */
static void
print_file_state (struct json *j, const struct conf_file *cf,
		  const char *const *names, size_t nnames,
		  const struct conf_resolved *r)
{
  json_kstr (j, "file", cf->path);
  json_key (j, "program_names");
  json_array (j);
  for (size_t i = 0; i < nnames; ++i)
    json_str (j, names[i]);
  json_end (j);
  json_kbool (j, "trusted", cf->distrust == NULL);
  json_kstr (j, "untrusted_why", cf->distrust);
  json_key (j, "errors");
  json_array (j);
  conf_bad_lines (cf, print_error, j);
  json_end (j);
  json_kbool (j, "applies",
	      cf->distrust == NULL && r->s.error_line == 0);
  json_kuint (j, "rules", cf->sum.rules);
}

/* The member "program": the `program' line of the file CF whose block
   S applies, {"line", "patterns"}, or null.  */
static void
print_program_block (struct json *j, const struct conf_file *cf,
		     const struct hp_conf_settings *s)
{
  json_key (j, "program");
  if (s->block_line == 0)
    {
      json_null (j);
      return;
    }
  json_object (j);
  json_kuint (j, "line", s->block_line);
  json_key (j, "patterns");
  json_array (j);
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    if (line.lineno == s->block_line)
      {
	const char *p = line.args, *end = line.args + line.argslen, *w;
	size_t wlen;
	while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
	  json_strn (j, w, wlen);
	break;
      }
  json_end (j);
  json_end (j);
}

/* The member "libs": the joined list that R gives, {"value",
   "patterns": [{"pattern", "line"}], "lines"}, or null if the file
   gives none.  */
static void
print_libs (struct json *j, const struct conf_resolved *r)
{
  json_key (j, "libs");
  if (r->s.libs_line == 0)
    {
      json_null (j);
      return;
    }
  struct libs_pattern *pats;
  size_t npats = conf_libs_patterns (&r->s, r->libs, &pats);
  json_object (j);
  json_kstrn (j, "value", r->libs, r->s.libslen);
  json_key (j, "patterns");
  json_array (j);
  for (size_t i = 0; i < npats; ++i)
    {
      json_object (j);
      json_kstrn (j, "pattern", pats[i].pattern, pats[i].len);
      json_kuint (j, "line", pats[i].line);
      json_end (j);
    }
  json_end (j);
  /* The libs lines used (one if they select nothing: libs none).  */
  unsigned int lines[64];
  size_t nlines = conf_libs_lines (&r->s, pats, npats, lines,
				   sizeof lines / sizeof lines[0]);
  json_key (j, "lines");
  json_array (j);
  for (size_t i = 0; i < nlines; ++i)
    json_uint (j, lines[i]);
  json_end (j);
  json_end (j);
  free (pats);
}

/* The words of the cache line LINE, each {"line", "pattern"[,
   "paths"]} (with EXPAND the paths its glob names).  */
static void
print_cache_line (struct json *j, const struct hp_conf_line *line,
		  bool expand_globs)
{
  const char *p = line->args, *end = line->args + line->argslen, *w;
  size_t wlen;
  while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
    {
      json_object (j);
      json_kuint (j, "line", line->lineno);
      json_kstrn (j, "pattern", w, wlen);
      if (expand_globs)
	{
	  json_key (j, "paths");
	  json_array (j);
	  expand (j, "", w, w + wlen);
	  json_end (j);
	}
      json_end (j);
    }
}

/* The members "cache": the global cache lines of the file CF, and
   "pool": its pool line {"line", "value"} or null.  */
static void
print_cache_and_pool (struct json *j, const struct conf_file *cf,
		      bool expand_globs)
{
  long int pool_pages = 0;
  unsigned int pool_line = 0;
  json_key (j, "cache");
  json_array (j);
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    if (line.key == HP_CONF_CACHE)
      print_cache_line (j, &line, expand_globs);
    else if (line.key == HP_CONF_POOL)
      {
	pool_pages = line.pool;
	pool_line = line.lineno;
      }
  json_end (j);
  json_key (j, "pool");
  if (pool_line == 0)
    {
      json_null (j);
      return;
    }
  json_object (j);
  json_kuint (j, "line", pool_line);
  if (pool_pages < 0)
    json_kstr (j, "value", "auto");
  else
    json_kint (j, "value", pool_pages);
  json_end (j);
}

int
conf_print_document (const struct conf_file *cf, const char *const *names,
		     size_t nnames, bool secure, bool expand_globs)
{
  struct conf_resolved r;
  conf_resolve (cf, names, nnames, secure, &r);
  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  print_file_state (&j, cf, names, nnames, &r);
  print_program_block (&j, cf, &r.s);
  print_libs (&j, &r);
  char kinds[HP_LIST_STRING_MAX], order[HP_LIST_STRING_MAX];
  print_setting (&j, "segments", r.s.segments_line,
		 _dl_hugepage_kinds_string (r.s.kinds, ',', kinds,
					    sizeof kinds));
  print_setting (&j, "backing", r.s.backing_line,
		 _dl_hugepage_backings_string (r.s.backings, r.s.nbackings,
					       order, sizeof order));
  print_cache_and_pool (&j, cf, expand_globs);
  json_end (&j);
  conf_resolved_free (&r);
  return 0;
}
