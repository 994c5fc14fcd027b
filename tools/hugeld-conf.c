/* hugeld-conf: what the policy file says, as ld.so reads it.
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

/* The hugeld command's view of /etc/hugeld.conf, made with ld.so's own
   parser (elf/dl-hugepage-conf.c) and the same trust rule as
   elf/dl-hugepage-policy.c, so that `hugeld config check' and `cache
   sync' read the file exactly as the loader does.

   Usage: hugeld-conf [--run NAME [--cwd DIR] [--kernel] | --program
                       NAME...] [--secure] [--expand] FILE
   Prints one JSON document:
     {"file", "program_names": [...],
      "trusted", "untrusted_why", "errors": [{"line", "message"}],
      "applies", "rules", "program": {"line", "patterns"} or null,
      "libs": {"value", "patterns": [{"pattern", "line"}], "lines"}
      or null, "segments": {"value", "line"}
      or null, "backing": {"value", "line"} or null,
      "cache": [{"line", "pattern"[, "paths"]}],
      "pool": {"line", "value"} or null}
   where libs, segments, backing and program are what the file gives
   the program known by the NAMEs (ld.so uses the name it is run by,
   that name made absolute, and its real path; for an AT_SECURE
   program only its real path, and --secure then gives what ld.so
   gives it; none: the global settings).  With --run the NAMEs are
   those ld.so derives (_dl_hugepage_program_names) for a program run
   as NAME from the directory DIR (default ours): by `ld.so NAME', or
   with --kernel by the kernel.  With --expand each cache item has the
   "paths" its glob names, in the order ld.so's matcher
   (_dl_hugepage_glob) finds them in each directory, sorted.  Every bad
   line is listed, not only the first.  Exit status 0 if the file
   could be read, else 1 with one line on stderr.

   hugeld-conf --effective [--libs V] [--segments V] [--backing V]
   [--run NAME [--cwd DIR]] FILE prints the settings a program run as
   NAME gets, with ld.so's precedence (_dl_hugepage_effective): an
   option, else the LD_HUGEPAGE_* variable of the environment (set,
   even empty, it keeps the file's value away), else what FILE gives
   it (if ld.so would use FILE), else ld.so's default:
     {"libs", "segments", "backing": {"value", "source", "from"},
      "policy": {"file", "why", "program", "patterns": [{"pattern",
      "line"}]}}
   where "from" is option, variable, file or default, "source" says
   which ("--libs", "LD_HUGEPAGE_LIBS", "FILE line N" or "FILE lines
   N, M", "default"), "value" is null for ld.so's default, and
   "policy" says why FILE gives nothing ("why": "no such file",
   "ignored by ld.so: ...") and which block and lines it used.  A
   setting the hugeld command refuses (nothing selected, a bad pattern,
   an unknown segment kind or backing) prints one line on stderr and
   nothing on stdout: exit status 3 if nothing is selected, else 1.

   hugeld-conf --system-tunables [--program PATH] [--secure] CACHE
   prints the glibc.elf.hugepage.* tunables that ld.so (glibc 2.44 and
   later) takes from the system-wide tunables in CACHE
   (/etc/ld.so.cache, compiled by ldconfig from /etc/tunables.conf), for
   the program whose /proc/self/exe is PATH (without it, only entries
   without a [proc:] filter apply), AT_SECURE with --secure; decided by
   ld.so's own code (_dl_hugepage_tunconf_find):
     {"cache", "section": true if CACHE has a tunables section,
      "valid": false if ld.so ignores it as malformed, "program",
      "secure", "tunables": {"libs", "segments", "backing": {"value",
      "locked"} or null}}
   Exit status 0, or 1 with one line on stderr if CACHE cannot be read.

   hugeld-conf --check FILE prints nothing if ld.so would use FILE;
   else one line on stderr for each reason it would not (distrust, each
   bad line, as FILE:LINE: message) and exit status 1.  For the boot
   unit: a bad file is reported without starting Python.  */

#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl-hugepage-conf.h"
#include "dl-hugepage-plan.h"
#include "hugeld-check.h"
#include "hugeld-json.h"
#include "hugeld-open.h"

static void
json_cstring (const char *s)
{
  if (s == NULL)
    fputs ("null", stdout);
  else
    json_string (s);
}

/* Print the member NAME of a setting the file gives on line LINE, as
   {"value": VALUE, "line": LINE}, or null where LINE is 0 (the file
   does not set it).  */
static void
print_setting (const char *name, unsigned int line, const char *value)
{
  printf (", \"%s\": ", name);
  if (line == 0)
    {
      fputs ("null", stdout);
      return;
    }
  printf ("{\"value\": ");
  json_cstring (value);
  printf (", \"line\": %u}", line);
}

/* --run NAME --cwd DIR: the program's name and where it is run.  */
struct run
{
  const char *name;
  const char *cwd;
};

static long int
run_readlink (void *ctx, const char *path, char *buf, size_t size)
{
  (void) ctx;
  return readlink (path, buf, size);
}

static long int
run_getcwd (void *ctx, char *buf, size_t size)
{
  const struct run *r = ctx;
  if (r->cwd != NULL)
    {
      size_t len = strlen (r->cwd) + 1;
      if (len > size)
	return -1;
      memcpy (buf, r->cwd, len);
      return len;
    }
  return getcwd (buf, size) != NULL ? (long int) strlen (buf) + 1 : -1;
}

/* What /proc/self/exe would name for the program: its real path.  */
static const char *
run_exe (void *ctx, char *buf, size_t size)
{
  const struct run *r = ctx;
  char path[2 * HP_PATH_MAX + 2];
  if (r->name[0] != '/' && r->cwd != NULL)
    snprintf (path, sizeof path, "%s/%s", r->cwd, r->name);
  else
    snprintf (path, sizeof path, "%s", r->name);
  char real[PATH_MAX];
  if (realpath (path, real) == NULL || strlen (real) >= size)
    return NULL;
  return strcpy (buf, real);
}

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

/* Print, as JSON strings after the first (FIRST), the existing paths
   under DIR that the components [P, END) of an absolute glob name:
   each component matched by ld.so's matcher on its own (a `*' stays
   within it), a wildcard matching a leading `.' only where the
   component starts with one, as in the shell; every component but the
   last must be a directory.  */
static void
expand (const char *dir, const char *p, const char *end, bool *first)
{
  while (p < end && *p == '/')
    ++p;
  if (p == end)
    return;
  const char *c = p;
  while (p < end && *p != '/')
    ++p;
  size_t clen = p - c;
  bool last = true;
  for (const char *q = p; q < end; ++q)
    if (*q != '/')
      last = false;

  char **names = NULL;
  size_t n = 0;
  if (!has_magic (c, clen))
    {
      names = malloc (sizeof *names);
      names[n++] = strndup (c, clen);
    }
  else
    {
      DIR *d = opendir (dir[0] != '\0' ? dir : "/");
      struct dirent *e;
      while (d != NULL && (e = readdir (d)) != NULL)
	if ((e->d_name[0] != '.' || c[0] == '.')
	    && strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0
	    && _dl_hugepage_glob (c, clen, e->d_name))
	  {
	    names = realloc (names, (n + 1) * sizeof *names);
	    names[n++] = strdup (e->d_name);
	  }
      if (d != NULL)
	closedir (d);
      qsort (names, n, sizeof *names, compare_names);
    }
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
	    expand (path, p, end, first);
	  else
	    {
	      printf ("%s", *first ? "" : ", ");
	      json_string (path);
	      *first = false;
	    }
	}
      free (names[i]);
    }
  free (names);
}

/* The patterns of the libs list the file gives a program, each with
   the line it came from.  */
struct libs_pattern
{
  const char *pattern;		/* In the joined list.  */
  size_t len;
  unsigned int line;		/* 0 if not found.  */
};

/* The patterns of the joined list LIBS (S->libslen bytes) that the
   checked file BUF (LEN bytes) gives with S, each with the line it
   came from, found as ld.so's LD_DEBUG report finds it, into *PATS
   (malloc'ed; NULL if there are none): how many.  Exits on lack of
   memory.  */
static size_t
libs_patterns (const char *buf, size_t len, const struct hp_conf_settings *s,
	       const char *libs, struct libs_pattern **pats)
{
  *pats = NULL;
  size_t n = 0;
  for (size_t off = 0; off < s->libslen; )
    {
      size_t end = off;
      while (end < s->libslen && libs[end] != ':')
	++end;
      struct libs_pattern *p = realloc (*pats, (n + 1) * sizeof **pats);
      if (p == NULL)
	{
	  fputs ("hugeld-conf: out of memory\n", stderr);
	  exit (1);
	}
      *pats = p;
      p[n].pattern = libs + off;
      p[n].len = end - off;
      p[n++].line = _dl_hugepage_conf_libs_line (buf, len, s->block_line,
						 off);
      off = end + 1;
    }
  return n;
}

/* The lines the libs list of S came from, in order, from the N
   patterns PATS, into LINES (room for MAX): those of the patterns,
   each once, or the first libs line if the list selects nothing (libs
   none).  Returns how many.  */
static size_t
libs_lines (const struct hp_conf_settings *s, const struct libs_pattern *pats,
	    size_t n, unsigned int *lines, size_t max)
{
  size_t nlines = 0;
  for (size_t i = 0; i < n; ++i)
    if (pats[i].line != 0
	&& (nlines == 0 || lines[nlines - 1] != pats[i].line)
	&& nlines < max)
      lines[nlines++] = pats[i].line;
  if (nlines == 0 && max > 0)
    lines[nlines++] = s->libs_line;
  return nlines;
}

/* "FILE line N" or "FILE lines N, M" for the N LINES, into BUF (SIZE
   bytes).  Returns BUF.  */
static char *
lines_source (const char *file, const unsigned int *lines, size_t n,
	      char *buf, size_t size)
{
  size_t used = snprintf (buf, size, "%s line%s ", file, n > 1 ? "s" : "");
  for (size_t i = 0; i < n && used < size; ++i)
    used += snprintf (buf + used, size - used, "%s%u", i > 0 ? ", " : "",
		      lines[i]);
  return buf;
}

/* A policy file as the command sees it.  */
struct conf_file
{
  const char *path;
  bool exists;			/* False: nothing else is set.  */
  char openwhy[HUGELD_OPEN_WHY_MAX];	/* Not "": it cannot be opened.  */
  const char *distrust;		/* Why ld.so would not use it, or NULL.  */
  char *buf;			/* What it holds (malloc'ed).  */
  size_t len;
  struct hp_conf_summary sum;	/* _dl_hugepage_conf_check's.  */
};

/* Read the file PATH into *CF, as ld.so's hp_policy_open and the
   trust rule of dl-hugepage-policy.c would see it: only a regular file
   is opened (a FIFO would block root's tools), through no other user's
   symbolic link (hugeld-open.c).  A file that is not there, or cannot
   be opened, is not an error (CF says so); exits on lack of
   memory.  */
static void
read_conf_file (const char *path, struct conf_file *cf)
{
  memset (cf, 0, sizeof *cf);
  cf->path = path;
  struct stat st;
  if (lstat (path, &st) != 0 && errno == ENOENT)
    return;
  cf->exists = true;
  int fd = hugeld_open_regular (path, true, &st, cf->openwhy);
  if (fd < 0)
    return;
  cf->distrust = _dl_hugepage_conf_distrust (S_ISREG (st.st_mode),
					     st.st_uid, st.st_mode,
					     st.st_size);
  size_t cap = st.st_size + 1;
  char *buf = malloc (cap);
  size_t len = 0;
  ssize_t n;
  while (buf != NULL && (n = read (fd, buf + len, cap - len)) > 0)
    {
      len += n;
      if (len == cap)
	buf = realloc (buf, cap *= 2);
    }
  close (fd);
  if (buf == NULL)
    {
      fputs ("hugeld-conf: out of memory\n", stderr);
      exit (1);
    }
  /* It may have grown since the fstat.  */
  if (cf->distrust == NULL)
    cf->distrust = _dl_hugepage_conf_distrust (true, st.st_uid, st.st_mode,
					       len);
  cf->buf = buf;
  cf->len = len;
  _dl_hugepage_conf_check (buf, len, &cf->sum);
}

/* Why ld.so takes nothing from the file CF, into BUF (SIZE bytes), or
   NULL if it uses it: "no such file", why it cannot be opened, or
   "ignored by ld.so: " and the first reason (distrust, else the first
   bad line and how many others there are).  */
static const char *
conf_unused_why (const struct conf_file *cf, char *buf, size_t size)
{
  if (!cf->exists)
    return "no such file";
  if (cf->openwhy[0] != '\0')
    return cf->openwhy;
  if (cf->distrust != NULL)
    snprintf (buf, size, "ignored by ld.so: %s", cf->distrust);
  else if (cf->sum.error_line != 0)
    {
      struct hp_conf_reader r;
      struct hp_conf_line line;
      unsigned int others = 0;
      _dl_hugepage_conf_start (&r, cf->buf, cf->len);
      while (_dl_hugepage_conf_next (&r, &line))
	if (line.key == HP_CONF_BAD)
	  ++others;
      --others;
      int n = snprintf (buf, size, "ignored by ld.so: line %u: %s",
			cf->sum.error_line, cf->sum.error);
      if (others > 0 && n >= 0 && (size_t) n < size)
	snprintf (buf + n, size - n, " (and %u other bad line%s)", others,
		  others > 1 ? "s" : "");
    }
  else
    return NULL;
  return buf;
}

/* --effective: the options given, the settings' variables.  */
struct effective_request
{
  const char *option[3];	/* --libs, --segments, --backing, or NULL.  */
  const char *program;		/* --run NAME, or NULL.  */
  const char *tunables;		/* --tunables TEXT: GLIBC_TUNABLES's value
				   to read instead of the environment's
				   (another process's, read by hugeld
				   status), or NULL.  */
  bool tunable[3];		/* Set by print_effective: the value is
				   its glibc.elf.hugepage.* tunable's.  */
};

/* The names of the three settings, their options and variables.  */
static const char *const setting_name[3] = { "libs", "segments", "backing" };
static const char *const setting_var[3] =
  { "LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS", "LD_HUGEPAGE_BACKING" };

/* The name the setting K of REQ was given by: its option, its tunable
   or its variable.  */
static const char *
setting_label (const struct effective_request *req, int k, char *buf,
	       size_t size)
{
  if (req->option[k] != NULL)
    snprintf (buf, size, "--%s", setting_name[k]);
  else if (req->tunable[k])
    snprintf (buf, size, "%s%s", HP_TUNABLE_NAMESPACE,
	      _dl_hugepage_tunable_name (k));
  else
    snprintf (buf, size, "%s", setting_var[k]);
  return buf;
}

/* Say MSG on stderr and exit with STATUS.  */
static void __attribute__ ((noreturn))
refuse (int status, const char *msg)
{
  fprintf (stderr, "hugeld-conf: %s\n", msg);
  exit (status);
}

/* Where the setting K (0 libs, 1 segments, 2 backing) comes from, by
   its SOURCE: "option", "variable", "file" or "default".  */
static const char *
effective_from (const struct effective_request *req,
		enum hp_setting_source source, int k)
{
  switch (source)
    {
    case HP_SOURCE_VARIABLE:
      return (req->option[k] != NULL ? "option"
	      : req->tunable[k] ? "tunable" : "variable");
    case HP_SOURCE_FILE:
      return "file";
    default:
      return "default";
    }
}

/* Print the member K of --effective's document: {"value", "source",
   "from"}: VALUE (NULL: null), the option, variable or FILE_SOURCE it
   came from.  */
static void
print_effective_setting (const struct effective_request *req, int k,
			 enum hp_setting_source source, const char *value,
			 const char *file_source)
{
  const char *from = effective_from (req, source, k);
  printf ("%s\"%s\": {\"value\": ", k > 0 ? ", " : "", setting_name[k]);
  json_cstring (value);
  printf (", \"source\": ");
  if (source == HP_SOURCE_FILE)
    json_string (file_source);
  else if (source == HP_SOURCE_VARIABLE)
    {
      char label[64];
      json_string (setting_label (req, k, label, sizeof label));
    }
  else
    printf ("\"default\"");
  printf (", \"from\": \"%s\"}", from);
}

/* hugeld-conf --effective: print the settings REQ's program runs with
   under the file CF and this process's environment, or refuse them
   (exit status 3: nothing selected; 1: a bad value).  NAMES[0..NNAMES)
   are the program's names for the file's blocks.  Returns 0.  */
static int
print_effective (const struct effective_request *request,
		 const struct conf_file *cf, const char *const *names,
		 size_t nnames)
{
  /* As ld.so: the option, else the variable (set, even empty), else
     its tunable in GLIBC_TUNABLES.  */
  struct effective_request r = *request;
  const struct effective_request *req = &r;
  const char *tunables = (req->tunables != NULL ? req->tunables
			  : getenv ("GLIBC_TUNABLES"));
  const char *tv[HP_NTUNABLES];
  size_t tl[HP_NTUNABLES];
  bool have_tunables = (tunables != NULL
			&& _dl_hugepage_tunables_find (tunables, tv, tl));
  const char *value[3];
  char *tvalue[3] = { NULL, NULL, NULL };
  for (int k = 0; k < 3; ++k)
    {
      value[k] = req->option[k] != NULL ? req->option[k]
		 : getenv (setting_var[k]);
      if (value[k] == NULL && have_tunables && tv[k] != NULL)
	{
	  tvalue[k] = malloc (tl[k] + 1);
	  if (tvalue[k] == NULL)
	    refuse (1, "out of memory");
	  _dl_hugepage_tunable_value (k, tv[k], tl[k], tvalue[k]);
	  value[k] = tvalue[k];
	  r.tunable[k] = true;
	}
    }
  const struct hp_variables vars = { value[0], value[1], value[2] };

  char whybuf[HUGELD_OPEN_WHY_MAX + 256];
  const char *unused = conf_unused_why (cf, whybuf, sizeof whybuf);
  struct hp_conf_settings s;
  char *libs = NULL;
  struct libs_pattern *pats = NULL;
  size_t npats = 0;
  unsigned int lines[64];
  size_t nlines = 0;
  if (unused == NULL)
    {
      libs = malloc (2 * cf->len + 2);
      if (libs == NULL)
	refuse (1, "out of memory");
      _dl_hugepage_conf_resolve (cf->buf, cf->len, names, nnames, false, &s,
				 libs);
      npats = libs_patterns (cf->buf, cf->len, &s, libs, &pats);
      nlines = libs_lines (&s, pats, npats, lines,
			   sizeof lines / sizeof lines[0]);
    }
  struct hp_effective e;
  _dl_hugepage_effective (&vars, unused == NULL ? &s : NULL, libs, &e);

  char libs_source[HP_PATH_MAX + 256];
  lines_source (cf->path, lines, nlines, libs_source, sizeof libs_source);
  char msg[HP_PATH_MAX * 2 + HUGELD_CHECK_MSG_MAX];
  if (e.libs == NULL)
    {
      /* Why the file gives nothing, where it was asked.  */
      char why[HP_PATH_MAX * 2 + HUGELD_OPEN_WHY_MAX + 256];
      why[0] = '\0';
      const char *prog = req->program != NULL ? req->program : "the program";
      if (e.libs_source == HP_SOURCE_VARIABLE)
	;
      else if (unused != NULL && strcmp (unused, "no such file") != 0)
	snprintf (why, sizeof why, "; %s: %s", cf->path, unused);
      else if (e.libs_source == HP_SOURCE_FILE)
	snprintf (why, sizeof why, "; %s selects nothing for %s (libs none, "
		  "%s)", cf->path, prog, libs_source + strlen (cf->path) + 1);
      else if (unused == NULL)
	snprintf (why, sizeof why, "; %s has no libs line for %s", cf->path,
		  prog);
      snprintf (msg, sizeof msg, "nothing selected: give --libs PATTERNS (or "
		"set LD_HUGEPAGE_LIBS, or select it in %s)%s", cf->path, why);
      refuse (3, msg);
    }

  /* The checks, libs first, then segments, then backing.  */
  char check[HUGELD_CHECK_MSG_MAX];
  char label[sizeof libs_source + 16];
  if (e.libs_source == HP_SOURCE_FILE)
    snprintf (label, sizeof label, "libs (%s)", libs_source);
  else
    setting_label (req, 0, label, sizeof label);
  if (hugeld_check_libs (e.libs, check, sizeof check) != NULL)
    {
      snprintf (msg, sizeof msg, "%s: %s", label, check);
      refuse (1, msg);
    }
  unsigned char order[HP_NBACKINGS];
  int norder;
  for (int k = 1; k < 3; ++k)
    if (value[k] != NULL && value[k][0] != '\0'
	&& (k == 1 ? hugeld_check_segments (value[k], check, sizeof check)
	    : hugeld_check_backing (value[k], order, &norder, check,
				    sizeof check)) != NULL)
      {
	char name[64];
	snprintf (msg, sizeof msg, "%s: %s",
		  setting_label (req, k, name, sizeof name), check);
	refuse (1, msg);
      }

  char list[HP_LIST_STRING_MAX], source[HP_PATH_MAX + 32];
  printf ("{");
  print_effective_setting (req, 0, e.libs_source, e.libs, libs_source);
  snprintf (source, sizeof source, "%s line %u", cf->path, e.segments_line);
  print_effective_setting (req, 1, e.segments_source,
			   e.segments_source == HP_SOURCE_VARIABLE ? value[1]
			   : e.segments_source == HP_SOURCE_FILE
			   ? _dl_hugepage_kinds_string (e.kinds, ',', list,
							sizeof list)
			   : NULL, source);
  snprintf (source, sizeof source, "%s line %u", cf->path, e.backing_line);
  print_effective_setting (req, 2, e.backing_source,
			   e.backing_source == HP_SOURCE_VARIABLE ? value[2]
			   : e.backing_source == HP_SOURCE_FILE
			   ? _dl_hugepage_backings_string (e.backings,
							   e.nbackings, list,
							   sizeof list)
			   : NULL, source);
  printf (",\n \"policy\": {\"file\": ");
  json_string (cf->path);
  printf (", \"why\": ");
  json_cstring (unused);
  printf (", \"program\": ");
  if (unused == NULL && s.block_line != 0)
    printf ("\"%s line %u\"", cf->path, s.block_line);
  else
    printf ("null");
  printf (", \"patterns\": [");
  for (size_t i = 0; i < npats; ++i)
    {
      printf ("%s{\"pattern\": ", i > 0 ? ", " : "");
      json_strn (pats[i].pattern, pats[i].len);
      printf (", \"line\": %u}", pats[i].line);
    }
  printf ("]}}\n");
  free (pats);
  free (libs);
  for (int k = 0; k < 3; ++k)
    free (tvalue[k]);
  return 0;
}

/* The tunables section of ld.so.cache, as ld.so 2.44 finds it
   (_dl_load_cache_tunables, cache_extension_load): the cache in BUF
   (SIZE bytes), new format at its start.  */
struct cache_tunables
{
  bool section;			/* The cache has a tunables section.  */
  const void *base;		/* Its bytes, or NULL.  */
  size_t size;
  size_t str_start, str_end;	/* The string table, clamped as ld.so
				   clamps it (dl-hugepage.c).  */
};

static uint32_t
cache_u32 (const unsigned char *buf, size_t off)
{
  uint32_t v;
  memcpy (&v, buf + off, sizeof v);
  return v;
}

/* The layout of glibc's sysdeps/generic/dl-cache.h.  */
#define CACHE_MAGIC_NEW "glibc-ld.so.cache1.1"
#define CACHE_HEADER_NEW 48	/* struct cache_file_new.  */
#define CACHE_ENTRY_NEW 24	/* struct file_entry_new.  */
#define CACHE_EXT_MAGIC ((uint32_t) -358342284)
#define CACHE_EXT_TUNABLES 2	/* cache_extension_tag_tunables.  */

static void
find_cache_tunables (const unsigned char *buf, size_t size,
		     struct cache_tunables *ct)
{
  memset (ct, 0, sizeof *ct);
  if (size < CACHE_HEADER_NEW
      || memcmp (buf, CACHE_MAGIC_NEW, sizeof CACHE_MAGIC_NEW - 1) != 0)
    return;
  uint64_t nlibs = cache_u32 (buf, 20);
  uint64_t start = CACHE_HEADER_NEW + nlibs * CACHE_ENTRY_NEW;
  uint64_t ext = cache_u32 (buf, 32);
  if (start >= size || ext == 0 || ext % 4 != 0 || ext + 8 > size
      || cache_u32 (buf, ext) != CACHE_EXT_MAGIC)
    return;
  uint64_t count = cache_u32 (buf, ext + 4);
  if (ext + 8 + count * 16 > size)
    return;
  for (uint64_t i = 0; i < count; ++i)
    {
      const unsigned char *e = buf + ext + 8 + i * 16;
      uint64_t off = cache_u32 (e, 8), len = cache_u32 (e, 12);
      if (off + len > size)
	return;			/* ld.so ignores the whole cache.  */
      if (cache_u32 (e, 0) != CACHE_EXT_TUNABLES)
	continue;
      /* cache_extension_verify: not empty, 8-byte aligned and sized.  */
      if (len == 0 || off % 8 != 0 || len % 8 != 0)
	{
	  ct->base = NULL;
	  ct->section = false;
	  continue;
	}
      ct->section = true;
      ct->base = buf + off;
      ct->size = len;
    }
  if (ct->base == NULL)
    return;
  uint64_t end = start + cache_u32 (buf, 24);
  if (end > size)
    end = size;
  uint64_t sec = (const unsigned char *) ct->base - buf;
  if (end > sec)
    end = sec;
  if (end < start)
    end = start;
  ct->str_start = start;
  ct->str_end = end;
}

/* hugeld-conf --system-tunables: print what CACHE's system-wide
   tunables give the program PATH (NULL: none named).  */
static int
print_system_tunables (const char *cache, const char *path, bool secure)
{
  FILE *f = fopen (cache, "rb");
  if (f == NULL)
    {
      fprintf (stderr, "hugeld-conf: %s: %s\n", cache, strerror (errno));
      return 1;
    }
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc (cap);
  size_t got;
  while (buf != NULL && (got = fread (buf + n, 1, cap - n, f)) > 0)
    {
      n += got;
      if (n == cap)
	buf = realloc (buf, cap *= 2);
    }
  fclose (f);
  if (buf == NULL)
    refuse (1, "out of memory");
  struct cache_tunables ct;
  find_cache_tunables (buf, n, &ct);
  struct hp_tunconf_value v[HP_NTUNABLES];
  bool valid = true;
  if (ct.base != NULL)
    {
      /* An exact copy of the section: a read past it is a bug.  */
      void *sec = malloc (ct.size);
      if (sec == NULL)
	refuse (1, "out of memory");
      memcpy (sec, ct.base, ct.size);
      valid = _dl_hugepage_tunconf_find (sec, ct.size, (const char *) buf,
					 ct.str_start, ct.str_end, path,
					 secure, v, NULL);
      free (sec);
    }
  else
    for (int t = 0; t < HP_NTUNABLES; ++t)
      v[t] = (struct hp_tunconf_value) { NULL, 0, false };
  printf ("{\"cache\": ");
  json_string (cache);
  printf (", \"section\": %s, \"valid\": %s, \"program\": ",
	  ct.section ? "true" : "false", valid ? "true" : "false");
  json_cstring (path);
  printf (", \"secure\": %s, \"tunables\": {", secure ? "true" : "false");
  for (int t = 0; t < HP_NTUNABLES; ++t)
    {
      printf ("%s\"%s\": ", t > 0 ? ", " : "", _dl_hugepage_tunable_name (t));
      if (v[t].value == NULL)
	printf ("null");
      else
	{
	  printf ("{\"value\": ");
	  json_strn (v[t].value, v[t].len);
	  printf (", \"locked\": %s}", v[t].locked ? "true" : "false");
	}
    }
  printf ("}}\n");
  free (buf);
  return 0;
}

#define USAGE "usage: hugeld-conf [--run NAME [--cwd DIR] [--kernel] | " \
  "--program NAME...] [--secure] [--expand] FILE\n" \
  "       hugeld-conf --effective [--libs V] [--segments V] [--backing V] " \
  "[--tunables TEXT] [--run NAME [--cwd DIR]] FILE\n" \
  "       hugeld-conf --check FILE\n" \
  "       hugeld-conf --system-tunables [--program PATH] [--secure] CACHE"

/* The command line, parsed.  */
struct conf_command
{
  const char *file;		/* FILE.  */
  bool check;			/* --check.  */
  bool effective;		/* --effective.  */
  bool system_tunables;		/* --system-tunables.  */
  bool secure;			/* --secure.  */
  bool by_kernel;		/* --kernel.  */
  bool expand;			/* --expand.  */
  struct run run;		/* --run NAME --cwd DIR.  */
  const char *programs[3];	/* --program NAME...  */
  size_t nprograms;
  struct effective_request req;	/* --libs, --segments, --backing.  */
};

/* Parse ARGV (ARGC strings) into *CMD.  Returns -1 if the command is
   to run, else the exit status to end with: 0 after --help (the usage
   on stdout), 2 after a usage error (said on stderr).  */
static int
parse_command (int argc, char **argv, struct conf_command *cmd)
{
  memset (cmd, 0, sizeof *cmd);
  int i = 1;
  for (; i < argc; ++i)
    {
      if (strcmp (argv[i], "--run") == 0 && i + 1 < argc)
	cmd->run.name = argv[++i];
      else if (strcmp (argv[i], "--cwd") == 0 && i + 1 < argc)
	cmd->run.cwd = argv[++i];
      else if (strcmp (argv[i], "--kernel") == 0)
	cmd->by_kernel = true;
      else if (strcmp (argv[i], "--expand") == 0)
	cmd->expand = true;
      else if (strcmp (argv[i], "--program") == 0 && i + 1 < argc)
	{
	  if (cmd->nprograms == 3)
	    {
	      fputs ("hugeld-conf: at most three --program names\n", stderr);
	      return 2;
	    }
	  cmd->programs[cmd->nprograms++] = argv[++i];
	}
      else if (strcmp (argv[i], "--secure") == 0)
	cmd->secure = true;
      else if (strcmp (argv[i], "--check") == 0)
	cmd->check = true;
      else if (strcmp (argv[i], "--effective") == 0)
	cmd->effective = true;
      else if (strcmp (argv[i], "--system-tunables") == 0)
	cmd->system_tunables = true;
      else if (strcmp (argv[i], "--libs") == 0 && i + 1 < argc)
	cmd->req.option[0] = argv[++i];
      else if (strcmp (argv[i], "--segments") == 0 && i + 1 < argc)
	cmd->req.option[1] = argv[++i];
      else if (strcmp (argv[i], "--backing") == 0 && i + 1 < argc)
	cmd->req.option[2] = argv[++i];
      else if (strcmp (argv[i], "--tunables") == 0 && i + 1 < argc)
	cmd->req.tunables = argv[++i];
      else if (strcmp (argv[i], "--help") == 0)
	{
	  puts (USAGE);
	  return 0;
	}
      else
	break;
    }
  const struct effective_request *req = &cmd->req;
  if (i != argc - 1 || (cmd->run.name != NULL && cmd->nprograms > 0)
      || (cmd->system_tunables
	  && (cmd->effective || cmd->check || cmd->expand
	      || cmd->run.name != NULL || cmd->nprograms > 1))
      || ((cmd->run.cwd != NULL || cmd->by_kernel) && cmd->run.name == NULL)
      || (!cmd->effective && (req->option[0] != NULL
			      || req->option[1] != NULL
			      || req->option[2] != NULL
			      || req->tunables != NULL)))
    {
      fputs (USAGE "\n", stderr);
      return 2;
    }
  cmd->file = argv[i];
  cmd->req.program = cmd->run.name;
  return -1;
}

/* The names of the program CMD is about, into NAMES (pointing into the
   command line and BUF): those --program gives, or for --run those
   ld.so derives (_dl_hugepage_program_names), looking at the file
   system as ld.so would from --cwd.  Returns how many.  */
static size_t
read_program_names (const struct conf_command *cmd, const char *names[3],
		    char buf[3][HP_PATH_MAX])
{
  if (cmd->run.name == NULL)
    {
      memcpy (names, cmd->programs, cmd->nprograms * sizeof *names);
      return cmd->nprograms;
    }
  const struct hp_names_io io = { run_readlink, run_getcwd, run_exe,
				  (void *) &cmd->run };
  return _dl_hugepage_program_names (cmd->run.name, cmd->by_kernel,
				     cmd->secure, &io, names, buf);
}

/* Whether the file CF could be read: if not, say why on stderr and
   return false.  */
static bool
conf_readable (const struct conf_file *cf)
{
  if (!cf->exists)
    fprintf (stderr, "hugeld-conf: %s: %s\n", cf->path, strerror (ENOENT));
  else if (cf->openwhy[0] != '\0')
    fprintf (stderr, "hugeld-conf: %s: %s\n", cf->path, cf->openwhy);
  else
    return true;
  return false;
}

/* --check: say on stderr each reason ld.so would not use the file CF
   (distrust, each bad line as FILE:LINE: message), nothing if it
   would.  Returns the exit status: 0 if it would, else 1.  */
static int
print_check (const struct conf_file *cf)
{
  if (cf->distrust != NULL)
    fprintf (stderr, "hugeld: %s: ld.so ignores it: %s\n", cf->path,
	     cf->distrust);
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    if (line.key == HP_CONF_BAD)
      fprintf (stderr, "hugeld: %s:%u: %s (ld.so ignores the whole file)\n",
	       cf->path, line.lineno, line.error);
  return cf->distrust == NULL && cf->sum.error_line == 0 ? 0 : 1;
}

/* The document's "file", "program_names", "trusted", "untrusted_why",
   "errors" (every bad line), "applies" and "rules" members of the file
   CF for the program known by NAMES[0..NNAMES), after its opening
   brace.  */
static void
print_file_state (const struct conf_file *cf, const char *const *names,
		  size_t nnames)
{
  printf ("\"file\": ");
  json_cstring (cf->path);
  printf (", \"program_names\": [");
  for (size_t j = 0; j < nnames; ++j)
    {
      printf ("%s", j > 0 ? ", " : "");
      json_string (names[j]);
    }
  printf ("], \"trusted\": %s, \"untrusted_why\": ",
	  cf->distrust == NULL ? "true" : "false");
  json_cstring (cf->distrust);
  printf (", \"errors\": [");
  struct hp_conf_reader r;
  struct hp_conf_line line;
  int k = 0;
  _dl_hugepage_conf_start (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    if (line.key == HP_CONF_BAD)
      {
	printf ("%s{\"line\": %u, \"message\": ", k++ ? ", " : "",
		line.lineno);
	json_cstring (line.error);
	putchar ('}');
      }
  printf ("], \"applies\": %s, \"rules\": %u",
	  cf->distrust == NULL && cf->sum.error_line == 0 ? "true" : "false",
	  cf->sum.rules);
}

/* The document's ", \"program\": ..." member: the `program' line of the
   file CF whose block S applies, {"line", "patterns"}, or null.  */
static void
print_program_block (const struct conf_file *cf,
		     const struct hp_conf_settings *s)
{
  printf (", \"program\": ");
  if (s->block_line == 0)
    {
      fputs ("null", stdout);
      return;
    }
  printf ("{\"line\": %u, \"patterns\": [", s->block_line);
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    if (line.lineno == s->block_line)
      {
	const char *p = line.args, *end = line.args + line.argslen, *w;
	size_t wlen;
	int k = 0;
	while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
	  {
	    printf ("%s", k++ ? ", " : "");
	    json_strn (w, wlen);
	  }
      }
  printf ("]}");
}

/* The document's ", \"libs\": ..." member: the joined list LIBS that
   the file CF gives with S, {"value", "patterns": [{"pattern",
   "line"}], "lines"}, or null if it gives none.  */
static void
print_libs (const struct conf_file *cf, const struct hp_conf_settings *s,
	    const char *libs)
{
  printf (", \"libs\": ");
  if (s->libs_line == 0)
    {
      fputs ("null", stdout);
      return;
    }
  struct libs_pattern *pats;
  size_t npats = libs_patterns (cf->buf, cf->len, s, libs, &pats);
  printf ("{\"value\": ");
  json_strn (libs, s->libslen);
  printf (", \"patterns\": [");
  for (size_t i = 0; i < npats; ++i)
    {
      printf ("%s{\"pattern\": ", i > 0 ? ", " : "");
      json_strn (pats[i].pattern, pats[i].len);
      printf (", \"line\": %u}", pats[i].line);
    }
  /* The libs lines used (one if they select nothing: libs none).  */
  unsigned int lines[64];
  size_t nlines = libs_lines (s, pats, npats, lines,
			      sizeof lines / sizeof lines[0]);
  printf ("], \"lines\": [");
  for (size_t i = 0; i < nlines; ++i)
    printf ("%s%u", i ? ", " : "", lines[i]);
  printf ("]}");
  free (pats);
}

/* The document's ", \"cache\": [...], \"pool\": ..." members: the
   global cache lines of the file CF, each word {"line", "pattern"[,
   "paths"]} (with EXPAND the paths its glob names), and its pool line
   {"line", "value"} or null.  */
static void
print_cache_and_pool (const struct conf_file *cf, bool expand_globs)
{
  printf (", \"cache\": [");
  int k = 0;
  long int pool_pages = 0;
  unsigned int pool_line = 0;
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    if (line.key == HP_CONF_CACHE)
      {
	const char *p = line.args, *end = line.args + line.argslen, *w;
	size_t wlen;
	while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
	  {
	    printf ("%s{\"line\": %u, \"pattern\": ", k++ ? ", " : "",
		    line.lineno);
	    json_strn (w, wlen);
	    if (expand_globs)
	      {
		bool first = true;
		printf (", \"paths\": [");
		expand ("", w, w + wlen, &first);
		putchar (']');
	      }
	    putchar ('}');
	  }
      }
    else if (line.key == HP_CONF_POOL)
      {
	pool_pages = line.pool;
	pool_line = line.lineno;
      }
  printf ("], \"pool\": ");
  if (pool_line == 0)
    fputs ("null", stdout);
  else if (pool_pages < 0)
    printf ("{\"line\": %u, \"value\": \"auto\"}", pool_line);
  else
    printf ("{\"line\": %u, \"value\": %ld}", pool_line, pool_pages);
}

/* Print the document of the file CF for the program known by
   NAMES[0..NNAMES) (SECURE: an AT_SECURE one), with EXPAND the paths
   of its cache globs (see the top of this file).  The settings are
   shown as the file would give them, even if it does not apply.
   Returns the exit status (1 if out of memory).  */
static int
print_document (const struct conf_file *cf, const char *const *names,
		size_t nnames, bool secure, bool expand_globs)
{
  char *libs = malloc (2 * cf->len + 2);
  if (libs == NULL)
    return 1;
  struct hp_conf_settings s;
  _dl_hugepage_conf_resolve (cf->buf, cf->len, names, nnames, secure, &s,
			     libs);
  printf ("{");
  print_file_state (cf, names, nnames);
  print_program_block (cf, &s);
  print_libs (cf, &s, libs);
  char kinds[HP_LIST_STRING_MAX], order[HP_LIST_STRING_MAX];
  print_setting ("segments", s.segments_line,
		 _dl_hugepage_kinds_string (s.kinds, ',', kinds,
					    sizeof kinds));
  print_setting ("backing", s.backing_line,
		 _dl_hugepage_backings_string (s.backings, s.nbackings, order,
					       sizeof order));
  print_cache_and_pool (cf, expand_globs);
  printf ("}\n");
  free (libs);
  return 0;
}

int
main (int argc, char **argv)
{
  struct conf_command cmd;
  int status = parse_command (argc, argv, &cmd);
  if (status >= 0)
    return status;
  if (cmd.system_tunables)
    return print_system_tunables (cmd.file, cmd.nprograms > 0
				  ? cmd.programs[0] : NULL, cmd.secure);
  const char *names[3];
  static char namebuf[3][HP_PATH_MAX];
  size_t nnames = read_program_names (&cmd, names, namebuf);
  struct conf_file cf;
  read_conf_file (cmd.file, &cf);
  if (cmd.effective)
    status = print_effective (&cmd.req, &cf, names, nnames);
  else if (!conf_readable (&cf))
    status = 1;
  else if (cmd.check)
    status = print_check (&cf);
  else
    status = print_document (&cf, names, nnames, cmd.secure, cmd.expand);
  free (cf.buf);
  return status;
}
