/* hugeld-conf --effective: the settings a program runs with.
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

/* hugeld-conf --effective [--libs V] [--segments V] [--backing V]
   [--environ FILE|- [--glibc-tunables NAMES]] [--exe PATH] [--secure]
   [--cache CACHE] [--ldso-view] [--run NAME [--cwd DIR] [--kernel]]
   [--pid PID] FILE
   prints the settings a program run as NAME gets, decided by ld.so's
   own resolver (_dl_hugepage_resolve) over the sources gathered here
   as ld.so gathers them: the options (as its LD_HUGEPAGE_* variables),
   the environment (ours, or with --environ the NUL-separated strings of
   FILE, "-" for standard input: another process's, as /proc/PID/environ
   has it; --glibc-tunables names the tunables that process's glibc,
   before 2.39, ended with a NUL in place in GLIBC_TUNABLES, so that its
   pieces are put back as ld.so saw them), the system-wide tunables of
   CACHE (default /etc/ld.so.cache) for the program whose
   /proc/self/exe is PATH (default: NAME's real path), AT_SECURE with
   --secure, and FILE (if ld.so would use it) for the program's names:
     {"libs", "segments", "backing": {"value", "source", "from",
      "effective", "bad", "locked", "variable_ignored"},
      "secure", "system_tunables": {"cache", "read", "why", "section",
      "valid", "program"},
      "policy": {"file", "why", "used", "cache_declared", "program",
      "patterns": [{"pattern", "line"}]}}
   where "from" is option, variable, tunable (GLIBC_TUNABLES), system
   (/etc/tunables.conf), file or default, "source" says which ("--libs",
   "LD_HUGEPAGE_LIBS", "glibc.elf.hugepage.libs", the same with
   " (/etc/tunables.conf)", "FILE line N" or "FILE lines N, M",
   "default"), "value" is the text that source gave (a tunable's libs
   with colons; null for the default), "effective" the value in force
   in ld.so's words (libs null: nothing selected), "bad" says ld.so
   ignores the value given (and warns), "locked" that a nonoverridable
   line gave it and "variable_ignored" that its variable lost to that
   line; "cache_declared" that ld.so uses FILE and it has cache lines
   (until a cache sync in this boot ld.so makes no private copy);
   "policy" says why FILE gives nothing ("why": "no such file",
   "ignored by ld.so: ...") and which block and lines it used.  Unless
   --ldso-view, a setting the hugeld command refuses (nothing selected,
   a bad pattern, an unknown segment kind or backing) prints one line on
   stderr and nothing on stdout: exit status 3 if nothing is selected,
   else 1.  With --pid the files are read as process PID's ld.so read
   them (hugeld-conf-file.c).  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugeld-conf.h"
#include "hugeld-check.h"
#include "dl-hugepage-kinds.h"

/* What the --effective document says of each setting.  */
struct effective_doc
{
  const struct effective_request *req;
  const struct hp_effective *e;
  const char *conf_file;
  const char *libs_source;	/* "FILE line N" or "FILE lines N, M".  */
};

/* Where setting T comes from, by its source: "option", "variable",
   "tunable" (GLIBC_TUNABLES), "system" (/etc/tunables.conf), "file" or
   "default".  */
static const char *
effective_from (const struct effective_doc *d, int t)
{
  switch (d->e->source[t])
    {
    case HP_SOURCE_VARIABLE:
      return d->req->option[t] != NULL ? "option" : "variable";
    case HP_SOURCE_TUNABLES:
      return "tunable";
    case HP_SOURCE_SYSTEM:
      return "system";
    case HP_SOURCE_FILE:
      return "file";
    default:
      return "default";
    }
}

/* The name setting T was given by, into BUF (SIZE bytes): its option,
   its variable, its tunable (with " (/etc/tunables.conf)" from there),
   "FILE line N" or "default".  */
static const char *
effective_label (const struct effective_doc *d, int t, char *buf,
		 size_t size)
{
  switch (d->e->source[t])
    {
    case HP_SOURCE_VARIABLE:
      if (d->req->option[t] != NULL)
	snprintf (buf, size, "--%s", _dl_hugepage_setting_name (t));
      else
	snprintf (buf, size, "%s", _dl_hugepage_setting_variable (t));
      break;
    case HP_SOURCE_TUNABLES:
      snprintf (buf, size, "%s", _dl_hugepage_setting_tunable (t));
      break;
    case HP_SOURCE_SYSTEM:
      snprintf (buf, size, "%s (/etc/tunables.conf)",
		_dl_hugepage_setting_tunable (t));
      break;
    case HP_SOURCE_FILE:
      if (t == HP_SET_LIBS)
	snprintf (buf, size, "%s", d->libs_source);
      else
	snprintf (buf, size, "%s line %u", d->conf_file, d->e->line[t]);
      break;
    default:
      snprintf (buf, size, "default");
    }
  return buf;
}

/* Setting T's value as given, as its variable spells it (a tunable's
   libs with colons), or NULL for the default (or a file's `libs
   none').  Malloc'ed.  */
static char *
effective_given (const struct effective_doc *d, int t)
{
  const struct hp_effective *e = d->e;
  char list[HP_LIST_STRING_MAX];
  const char *v = NULL;
  size_t len = 0;
  if (e->given[t] != NULL)
    {
      v = e->given[t];
      len = e->given_len[t];
    }
  else if (e->source[t] != HP_SOURCE_FILE)
    return NULL;
  else if (t == HP_SET_LIBS)
    {
      if (e->libs == NULL)
	return NULL;
      v = e->libs;
      len = e->libs_len;
    }
  else
    {
      v = (t == HP_SET_SEGMENTS
	   ? _dl_hugepage_kinds_string (e->kinds, ',', list, sizeof list)
	   : _dl_hugepage_backings_string (e->backings, e->nbackings, list,
					   sizeof list));
      len = strlen (v);
    }
  char *buf = strndup (v, len);
  if (buf == NULL)
    conf_refuse (1, "out of memory");
  if (t == HP_SET_LIBS && e->source[t] != HP_SOURCE_VARIABLE)
    for (char *p = buf; *p != '\0'; ++p)
      if (*p == ',')
	*p = ':';
  return buf;
}

/* Setting T's value in force, in its words (libs: the patterns, or
   NULL for none).  Malloc'ed.  */
static char *
effective_value (const struct effective_doc *d, int t)
{
  const struct hp_effective *e = d->e;
  char list[HP_LIST_STRING_MAX];
  char *buf;
  switch (t)
    {
    case HP_SET_LIBS:
      if (e->libs == NULL)
	return NULL;
      buf = malloc (e->libs_len + 1);
      if (buf != NULL)
	_dl_hugepage_libs_copy (e, buf);
      break;
    case HP_SET_SEGMENTS:
      buf = strdup (_dl_hugepage_kinds_string (e->kinds, ',', list,
					       sizeof list));
      break;
    default:
      buf = strdup (_dl_hugepage_backings_string (e->backings, e->nbackings,
						  list, sizeof list));
    }
  if (buf == NULL)
    conf_refuse (1, "out of memory");
  return buf;
}

/* The command's checks of the settings E gives (the loader would warn
   about or not notice what they refuse): nothing selected (exit status
   3, saying why the file CF gives nothing), then a bad pattern, then a
   bad segments or backing value (1).  */
static void
check_effective (const struct effective_doc *d, const struct conf_file *cf,
		 const char *unused)
{
  const struct hp_effective *e = d->e;
  char msg[HP_PATH_MAX * 2 + HUGELD_CHECK_MSG_MAX];
  if (e->libs == NULL)
    {
      /* Why the file gives nothing, where it was asked.  */
      char why[HP_PATH_MAX * 2 + HUGELD_OPEN_WHY_MAX + 256];
      why[0] = '\0';
      const char *prog = (d->req->program != NULL ? d->req->program
			  : "the program");
      if (e->source[HP_SET_LIBS] != HP_SOURCE_DEFAULT
	  && e->source[HP_SET_LIBS] != HP_SOURCE_FILE)
	;
      else if (unused != NULL && strcmp (unused, "no such file") != 0)
	snprintf (why, sizeof why, "; %s: %s", cf->path, unused);
      else if (e->source[HP_SET_LIBS] == HP_SOURCE_FILE)
	snprintf (why, sizeof why, "; %s selects nothing for %s (libs none, "
		  "%s)", cf->path, prog,
		  d->libs_source + strlen (cf->path) + 1);
      else if (unused == NULL)
	snprintf (why, sizeof why, "; %s has no libs line for %s", cf->path,
		  prog);
      snprintf (msg, sizeof msg, "nothing selected: give --libs PATTERNS (or "
		"set LD_HUGEPAGE_LIBS, or select it in %s)%s", cf->path, why);
      conf_refuse (3, msg);
    }
  char check[HUGELD_CHECK_MSG_MAX], label[HP_PATH_MAX + 512];
  char *value = effective_value (d, HP_SET_LIBS);
  if (hugeld_check_libs (value, check, sizeof check) != NULL)
    {
      if (e->source[HP_SET_LIBS] == HP_SOURCE_FILE)
	snprintf (label, sizeof label, "libs (%s)", d->libs_source);
      else
	effective_label (d, HP_SET_LIBS, label, sizeof label);
      snprintf (msg, sizeof msg, "%s: %s", label, check);
      conf_refuse (1, msg);
    }
  free (value);
  unsigned char order[HP_NBACKINGS];
  int norder;
  for (int t = HP_SET_SEGMENTS; t < HP_NSETTINGS; ++t)
    {
      if (e->given[t] == NULL || e->given_len[t] == 0)
	continue;
      value = effective_given (d, t);
      if ((t == HP_SET_SEGMENTS
	   ? hugeld_check_segments (value, check, sizeof check)
	   : hugeld_check_backing (value, order, &norder, check,
				   sizeof check)) != NULL)
	{
	  snprintf (msg, sizeof msg, "%s: %s",
		    effective_label (d, t, label, sizeof label), check);
	  conf_refuse (1, msg);
	}
      free (value);
    }
}

/* Write the member T of --effective's document.  */
static void
print_effective_setting (struct json *j, const struct effective_doc *d,
			 int t)
{
  const struct hp_effective *e = d->e;
  char label[HP_PATH_MAX + 256];
  char *given = effective_given (d, t), *value = effective_value (d, t);
  json_key (j, _dl_hugepage_setting_name (t));
  json_object (j);
  json_kstr (j, "value", given);
  json_kstr (j, "source", effective_label (d, t, label, sizeof label));
  json_kstr (j, "from", effective_from (d, t));
  json_kstr (j, "effective", value);
  json_kbool (j, "bad", e->bad[t]);
  json_kbool (j, "locked", e->locked[t]);
  json_kbool (j, "variable_ignored", e->variable_ignored[t]);
  json_end (j);
  free (given);
  free (value);
}

/* The environment of the program REQ is about: ours, or the one
   --environ gives, read into *ENVBLOB.  */
static char **
request_environ (const struct effective_request *req, struct blob *envblob)
{
  extern char **environ;
  envblob->buf = NULL;
  if (req->environ_file == NULL)
    return environ;
  int fd = strcmp (req->environ_file, "-") == 0 ? 0
	   : open (req->environ_file, O_RDONLY | O_CLOEXEC);
  int err = fd < 0 ? errno : conf_read_whole (fd, 0, &envblob->buf,
					      &envblob->len);
  if (fd > 0)
    close (fd);
  if (err != 0)
    {
      char msg[HP_PATH_MAX + 64];
      snprintf (msg, sizeof msg, "%s: %s", req->environ_file,
		strerror (err));
      conf_refuse (1, msg);
    }
  return conf_split_environ (envblob, req->known);
}

/* What --effective gathered and decided.  */
struct effective_state
{
  struct hp_sources s;
  struct hp_effective e;
  struct blob envblob, cache;
  bool cache_read, section;
  char cachewhy[HUGELD_OPEN_WHY_MAX];
  /* Why the policy file gives nothing, or NULL.  */
  const char *unused;
  char whybuf[HUGELD_OPEN_WHY_MAX + 256];
  /* The file resolved for the program, when it is used.  */
  struct conf_resolved r;
  struct libs_pattern *pats;
  size_t npats;
  char libs_source[HP_PATH_MAX + 256];
};

/* Gather the sources of REQ's program as ld.so does, asking the
   resolver what it needs, into *ST and decide its settings.  */
static void
effective_resolve (const struct effective_request *req,
		   const struct conf_file *cf, const char *const *names,
		   size_t nnames, struct effective_state *st)
{
  struct hp_sources *s = &st->s;
  s->secure = req->secure;
  s->environ = request_environ (req, &st->envblob);
  _dl_hugepage_environ_variables (s->environ, s->variable);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (req->option[t] != NULL)
      s->variable[t] = req->option[t];
  st->cache_read = conf_read_system_tunables (req->cache, &st->cache, s,
					      &st->section, st->cachewhy);
  st->unused = conf_unused_why (cf, st->whybuf, sizeof st->whybuf);
  if (st->unused == NULL)
    conf_resolve (cf, names, nnames, s->secure, &st->r);
  unsigned int need;
  while ((need = _dl_hugepage_resolve (s, &st->e)) != 0)
    if ((need & HP_NEED_PATH) != 0)
      {
	s->have_path = true;
	s->path = req->exe;
      }
    else
      {
	s->have_conf = true;
	if (st->unused == NULL)
	  {
	    s->conf = cf->buf;
	    s->conf_len = cf->len;
	    s->names = names;
	    s->nnames = nnames;
	    s->conf_libs = st->r.libs;
	    s->conf_spans = st->r.spans;
	  }
      }
  /* A line that applies to the program does not parse.  */
  if (st->unused == NULL && st->e.conf_error_line != 0)
    {
      snprintf (st->whybuf, sizeof st->whybuf,
		"ignored by ld.so: line %u: %s", st->e.conf_error_line,
		st->e.conf_error);
      st->unused = st->whybuf;
    }
  /* The patterns of the file's libs, each with its line.  */
  unsigned int lines[64];
  size_t nlines = 0;
  if (st->unused == NULL)
    {
      st->npats = conf_libs_patterns (&st->r.s, st->r.libs, &st->pats);
      nlines = conf_libs_lines (&st->r.s, st->pats, st->npats, lines,
				sizeof lines / sizeof lines[0]);
    }
  conf_lines_source (cf->path, lines, nlines, st->libs_source,
		     sizeof st->libs_source);
}

/* The members "secure" and "system_tunables" of the document.  */
static void
print_system_state (struct json *j, const struct effective_request *req,
		    const struct effective_state *st)
{
  json_kbool (j, "secure", st->s.secure);
  json_key (j, "system_tunables");
  json_object (j);
  json_kstr (j, "cache", req->cache);
  json_kbool (j, "read", st->cache_read);
  json_kstr (j, "why", st->cache_read ? NULL : st->cachewhy);
  json_kbool (j, "section", st->section);
  json_kbool (j, "valid", !st->e.tunconf_bad);
  json_kstr (j, "program", st->s.have_path ? st->s.path : NULL);
  json_end (j);
}

/* The member "policy" of the document.  */
static void
print_policy (struct json *j, const struct conf_file *cf,
	      const struct effective_state *st)
{
  json_key (j, "policy");
  json_object (j);
  json_kstr (j, "file", cf->path);
  json_kstr (j, "why", st->unused);
  json_kbool (j, "used", st->e.conf_used);
  json_kbool (j, "cache_declared",
	      st->unused == NULL && cf->sum.has_cache);
  json_key (j, "program");
  if (st->unused == NULL && st->r.s.block_line != 0)
    {
      char block[HP_PATH_MAX + 32];
      snprintf (block, sizeof block, "%s line %u", cf->path,
		st->r.s.block_line);
      json_str (j, block);
    }
  else
    json_null (j);
  json_key (j, "patterns");
  json_array (j);
  for (size_t i = 0; i < st->npats; ++i)
    {
      json_object (j);
      json_kstrn (j, "pattern", st->pats[i].pattern, st->pats[i].len);
      json_kuint (j, "line", st->pats[i].line);
      json_end (j);
    }
  json_end (j);
  json_end (j);
}

int
conf_print_effective (const struct effective_request *req,
		      const struct conf_file *cf, const char *const *names,
		      size_t nnames)
{
  extern char **environ;
  struct effective_state *st = calloc (1, sizeof *st);
  if (st == NULL)
    conf_refuse (1, "out of memory");
  effective_resolve (req, cf, names, nnames, st);
  const struct effective_doc d = { req, &st->e, cf->path, st->libs_source };
  if (!req->ldso_view)
    check_effective (&d, cf, st->unused);

  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    print_effective_setting (&j, &d, t);
  print_system_state (&j, req, st);
  print_policy (&j, cf, st);
  json_end (&j);

  free (st->pats);
  conf_resolved_free (&st->r);
  free ((void *) st->s.tunconf);
  free (st->cache.buf);
  if (st->s.environ != environ)
    free ((void *) st->s.environ);
  free (st->envblob.buf);
  free (st);
  return 0;
}
