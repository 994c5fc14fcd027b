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
   [--environ FILE|- [--glibc-tunables NAMES]] [--exe PATH] [--secure]
   [--cache CACHE] [--ldso-view] [--run NAME [--cwd DIR] [--kernel]] FILE
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
   else 1.

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

#include "dl-hugepage-settings.h"
#include "hugeld-check.h"
#include "hugeld-json.h"
#include "hugeld-open.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"

/* Where glibc 2.44 and later keep the system-wide tunables.  */
#define LD_SO_CACHE "/etc/ld.so.cache"

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
  const char *exe;		/* --exe: its real path, or NULL.  */
};

/* --pid PID: the files are read as process PID's ld.so read them,
   inside its root (its mount namespace and chroot: hugeld-open.h), and
   their owners seen as it sees them; PROC_ROOT is -1 where that root
   is ours.  */
static int proc_pid;
static int proc_root = -1;

static long int
run_readlink (void *ctx, const char *path, char *buf, size_t size)
{
  (void) ctx;
  if (proc_root >= 0)
    return hugeld_readlink_in_root (proc_root, path, buf, size);
  return readlink (path, buf, size);
}

/* FILE opened for reading, as the process of --pid, or we, see it:
   with its stat in *ST (its owner as that process sees it), or -1 with
   why in WHY and errno set.  */
static int
open_seen (const char *file, bool strict_links, struct stat *st, char *why)
{
  if (proc_root >= 0)
    {
      int fd = hugeld_open_in_root (proc_root, file, st, why);
      if (fd >= 0)
	st->st_uid = hugeld_uid_in (proc_pid, st->st_uid);
      return fd;
    }
  int fd = hugeld_open_regular (file, strict_links, st, why);
  if (fd >= 0 && proc_pid > 0)
    st->st_uid = hugeld_uid_in (proc_pid, st->st_uid);
  return fd;
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

/* What /proc/self/exe would name for the program: its real path, as
   --exe gives it, or as the file system has it.  */
static const char *
run_exe (void *ctx, char *buf, size_t size)
{
  const struct run *r = ctx;
  if (r->exe != NULL)
    return strlen (r->exe) < size ? strcpy (buf, r->exe) : NULL;
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
  if (proc_root < 0 && lstat (path, &st) != 0 && errno == ENOENT)
    return;
  int fd = open_seen (path, true, &st, cf->openwhy);
  if (fd < 0 && proc_root >= 0 && errno == ENOENT)
    {
      cf->openwhy[0] = '\0';
      return;
    }
  cf->exists = true;
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
   "ignored by ld.so: " and the first reason (distrust, else, with
   ALL_LINES, the first bad line and how many others there are; ld.so
   itself checks only the lines that apply to a program, which
   _dl_hugepage_conf_resolve says).  */
static const char *
conf_unused_why (const struct conf_file *cf, bool all_lines, char *buf,
		 size_t size)
{
  if (!cf->exists)
    return "no such file";
  if (cf->openwhy[0] != '\0')
    return cf->openwhy;
  if (cf->distrust != NULL)
    snprintf (buf, size, "ignored by ld.so: %s", cf->distrust);
  else if (all_lines && cf->sum.error_line != 0)
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

/* Say MSG on stderr and exit with STATUS.  */
static void __attribute__ ((noreturn))
refuse (int status, const char *msg)
{
  fprintf (stderr, "hugeld-conf: %s\n", msg);
  exit (status);
}

/* A file read whole into memory: ld.so.cache, or an environment.  */
struct blob
{
  char *buf;
  size_t len;
};

/* Read all of FD into *B (NUL-terminated after LEN bytes); exits on
   lack of memory or a read error, naming WHAT.  */
static void
read_blob (int fd, const char *what, struct blob *b)
{
  size_t cap = 1 << 16;
  b->buf = malloc (cap + 1);
  b->len = 0;
  ssize_t n;
  while (b->buf != NULL && (n = read (fd, b->buf + b->len, cap - b->len)) != 0)
    {
      if (n < 0)
	{
	  if (errno == EINTR)
	    continue;
	  char msg[HP_PATH_MAX + 64];
	  snprintf (msg, sizeof msg, "%s: %s", what, strerror (errno));
	  refuse (1, msg);
	}
      b->len += n;
      if (b->len == cap)
	b->buf = realloc (b->buf, (cap *= 2) + 1);
    }
  if (b->buf == NULL)
    refuse (1, "out of memory");
  b->buf[b->len] = '\0';
}

/* The system-wide tunables of ld.so.cache as ld.so 2.44 finds them
   (_dl_hugepage_tunconf_locate, _dl_hugepage_tunconf_strings): the
   cache CACHE read into *B, and the section into the sources S.
   Returns whether the cache could be read; *SECTION says whether it
   has a tunables section glibc would use.  A missing cache is none.  */
static bool
read_system_tunables (const char *cache, struct blob *b,
		      struct hp_sources *s, bool *section, char *why)
{
  *section = false;
  b->buf = NULL;
  b->len = 0;
  struct stat st;
  if (proc_root < 0 && lstat (cache, &st) != 0 && errno == ENOENT)
    return true;
  int fd = open_seen (cache, false, &st, why);
  if (fd < 0)
    return proc_root >= 0 && errno == ENOENT;
  read_blob (fd, cache, b);
  close (fd);
  const void *sec;
  size_t size;
  bool valid;
  if (_dl_hugepage_tunconf_locate (b->buf, b->len, &sec, &size, &valid)
      && valid)
    {
      *section = true;
      /* An exact copy of the section: a read past it is a bug.  */
      void *copy = malloc (size);
      if (copy == NULL)
	refuse (1, "out of memory");
      memcpy (copy, sec, size);
      s->tunconf = copy;
      s->tunconf_size = size;
      s->tunconf_data = b->buf;
      _dl_hugepage_tunconf_strings (b->buf, sec, &s->tunconf_start,
				    &s->tunconf_end);
    }
  return true;
}

/* An environment as the process whose it is has it: the NUL-separated
   strings of *B (a /proc/PID/environ), into a NULL-terminated array
   (malloc'ed).  KNOWN (a comma list, or NULL) names the tunables of a
   glibc before 2.39, which ends the value of each one it knows with a
   NUL, in place, where GLIBC_TUNABLES had a `:' (its parse_tunables):
   a string that follows such a value and starts with a tunable's name
   (one with a dot) is put back after it with its colon, as ld.so,
   which reads glibc's copy of the string, sees it.  A variable of its
   own that follows a GLIBC_TUNABLES whose last entry is one of those
   tunables reads the same: it is taken as part of the string.  */
static char **
split_environ (struct blob *b, const char *known)
{
  size_t n = 0;
  for (size_t i = 0; i < b->len; ++i)
    n += b->buf[i] == '\0';
  char **env = calloc (n + 2, sizeof *env);
  if (env == NULL)
    refuse (1, "out of memory");
  size_t k = 0;
  bool tunables = false;
  for (size_t i = 0; i < b->len; )
    {
      char *s = b->buf + i;
      size_t len = strlen (s);
      i += len + 1;
      if (len == 0)
	{
	  tunables = false;
	  continue;
	}
      if (tunables && known != NULL && k > 0)
	{
	  char *prev = env[k - 1];
	  /* The last entry of what is glued so far: NAME=VALUE.  */
	  char *last = strrchr (prev, ':');
	  last = last != NULL ? last + 1 : strchr (prev, '=') + 1;
	  size_t nlen = strcspn (last, "=");
	  size_t slen = strcspn (s, "=:");
	  bool known_name = false;
	  for (const char *p = known; *p != '\0' && last[nlen] == '='; )
	    {
	      size_t l = strcspn (p, ",");
	      known_name |= l == nlen && memcmp (p, last, l) == 0;
	      p += l + (p[l] == ',');
	    }
	  if (known_name && memchr (s, '.', slen) != NULL)
	    {
	      /* The strings lie one after the other: the NUL between
		 them was the colon.  */
	      s[-1] = ':';
	      continue;
	    }
	}
      env[k++] = s;
      tunables = strncmp (s, "GLIBC_TUNABLES=", 15) == 0;
    }
  env[k] = NULL;
  return env;
}

/* --effective: the request.  */
struct effective_request
{
  const char *option[HP_NSETTINGS];	/* --libs, --segments, --backing.  */
  const char *program;		/* --run NAME, or NULL.  */
  const char *environ_file;	/* --environ FILE ("-": stdin), or NULL:
				   ours.  */
  const char *known;		/* --glibc-tunables NAMES, or NULL.  */
  const char *cache;		/* --cache CACHE.  */
  const char *exe;		/* --exe PATH, or NULL.  */
  bool secure;			/* --secure.  */
  bool ldso_view;		/* --ldso-view: never refuse.  */
};

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
    refuse (1, "out of memory");
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
    refuse (1, "out of memory");
  return buf;
}

/* Print the member T of --effective's document.  */
static void
print_effective_setting (const struct effective_doc *d, int t)
{
  const struct hp_effective *e = d->e;
  char label[HP_PATH_MAX + 256];
  char *given = effective_given (d, t), *value = effective_value (d, t);
  printf ("%s\"%s\": {\"value\": ", t > 0 ? ",\n " : "",
	  _dl_hugepage_setting_name (t));
  json_cstring (given);
  printf (", \"source\": ");
  json_string (effective_label (d, t, label, sizeof label));
  printf (", \"from\": \"%s\", \"effective\": ", effective_from (d, t));
  json_cstring (value);
  printf (", \"bad\": %s, \"locked\": %s, \"variable_ignored\": %s}",
	  e->bad[t] ? "true" : "false", e->locked[t] ? "true" : "false",
	  e->variable_ignored[t] ? "true" : "false");
  free (given);
  free (value);
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
      refuse (3, msg);
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
      refuse (1, msg);
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
	  refuse (1, msg);
	}
      free (value);
    }
}

/* hugeld-conf --effective: print the settings REQ's program runs with
   under the file CF, the environment (ours, or REQ's), ld.so.cache's
   tunables and the options, decided by ld.so's own resolver; or
   refuse them (exit status 3: nothing selected; 1: a bad value) unless
   REQ asks for ld.so's view.  NAMES[0..NNAMES) are the program's names
   for the file's blocks.  Returns 0.  */
static int
print_effective (const struct effective_request *req,
		 const struct conf_file *cf, const char *const *names,
		 size_t nnames)
{
  extern char **environ;
  struct hp_sources s;
  memset (&s, 0, sizeof s);
  s.secure = req->secure;
  struct blob envblob = { NULL, 0 };
  char **env = environ;
  if (req->environ_file != NULL)
    {
      int fd = strcmp (req->environ_file, "-") == 0 ? 0
	       : open (req->environ_file, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
	{
	  char msg[HP_PATH_MAX + 64];
	  snprintf (msg, sizeof msg, "%s: %s", req->environ_file,
		    strerror (errno));
	  refuse (1, msg);
	}
      read_blob (fd, req->environ_file, &envblob);
      if (fd != 0)
	close (fd);
      env = split_environ (&envblob, req->known);
    }
  s.environ = env;
  _dl_hugepage_environ_variables (env, s.variable);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (req->option[t] != NULL)
      s.variable[t] = req->option[t];

  struct blob cache;
  bool section;
  char cachewhy[HUGELD_OPEN_WHY_MAX];
  cachewhy[0] = '\0';
  bool cache_read = read_system_tunables (req->cache, &cache, &s, &section,
					  cachewhy);

  char whybuf[HUGELD_OPEN_WHY_MAX + 256];
  const char *unused = conf_unused_why (cf, false, whybuf, sizeof whybuf);
  char *libs = malloc (2 * cf->len + 2);
  if (libs == NULL)
    refuse (1, "out of memory");
  struct hp_effective e;
  unsigned int need;
  while ((need = _dl_hugepage_resolve (&s, &e)) != 0)
    if ((need & HP_NEED_PATH) != 0)
      {
	s.have_path = true;
	s.path = req->exe;
      }
    else
      {
	s.have_conf = true;
	if (unused == NULL)
	  {
	    s.conf = cf->buf;
	    s.conf_len = cf->len;
	    s.names = names;
	    s.nnames = nnames;
	    s.conf_libs = libs;
	  }
      }
  /* A line that applies to the program does not parse.  */
  if (unused == NULL && e.conf_error_line != 0)
    {
      snprintf (whybuf, sizeof whybuf, "ignored by ld.so: line %u: %s",
		e.conf_error_line, e.conf_error);
      unused = whybuf;
    }

  /* The patterns of the file's libs, each with its line.  */
  struct libs_pattern *pats = NULL;
  size_t npats = 0;
  unsigned int lines[64];
  size_t nlines = 0;
  struct hp_conf_settings cs;
  if (unused == NULL)
    {
      _dl_hugepage_conf_resolve (cf->buf, cf->len, names, nnames, s.secure,
				 &cs, libs);
      npats = libs_patterns (cf->buf, cf->len, &cs, libs, &pats);
      nlines = libs_lines (&cs, pats, npats, lines,
			   sizeof lines / sizeof lines[0]);
    }
  char libs_source[HP_PATH_MAX + 256];
  lines_source (cf->path, lines, nlines, libs_source, sizeof libs_source);
  const struct effective_doc d = { req, &e, cf->path, libs_source };
  if (!req->ldso_view)
    check_effective (&d, cf, unused);

  printf ("{");
  for (int t = 0; t < HP_NSETTINGS; ++t)
    print_effective_setting (&d, t);
  printf (",\n \"secure\": %s,\n \"system_tunables\": {\"cache\": ",
	  s.secure ? "true" : "false");
  json_string (req->cache);
  printf (", \"read\": %s, \"why\": ", cache_read ? "true" : "false");
  json_cstring (cache_read ? NULL : cachewhy);
  printf (", \"section\": %s, \"valid\": %s, \"program\": ",
	  section ? "true" : "false", e.tunconf_bad ? "false" : "true");
  json_cstring (s.have_path ? s.path : NULL);
  printf ("},\n \"policy\": {\"file\": ");
  json_string (cf->path);
  printf (", \"why\": ");
  json_cstring (unused);
  printf (", \"used\": %s, \"cache_declared\": %s, \"program\": ",
	  e.conf_used ? "true" : "false",
	  unused == NULL && cf->sum.has_cache ? "true" : "false");
  if (unused == NULL && cs.block_line != 0)
    printf ("\"%s line %u\"", cf->path, cs.block_line);
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
  free ((void *) s.tunconf);
  free (cache.buf);
  if (env != environ)
    free (env);
  free (envblob.buf);
  return 0;
}

/* hugeld-conf --system-tunables: print what CACHE's system-wide
   tunables give the program PATH (NULL: none named).  */
static int
print_system_tunables (const char *cache, const char *path, bool secure)
{
  struct hp_sources s;
  memset (&s, 0, sizeof s);
  struct blob b;
  bool section;
  char why[HUGELD_OPEN_WHY_MAX];
  if (!read_system_tunables (cache, &b, &s, &section, why))
    {
      fprintf (stderr, "hugeld-conf: %s: %s\n", cache, why);
      return 1;
    }
  if (b.buf == NULL)
    {
      fprintf (stderr, "hugeld-conf: %s: %s\n", cache, strerror (ENOENT));
      return 1;
    }
  struct hp_tunconf_value v[HP_NSETTINGS];
  bool valid = true;
  if (s.tunconf != NULL)
    valid = _dl_hugepage_tunconf_find (s.tunconf, s.tunconf_size,
				       s.tunconf_data, s.tunconf_start,
				       s.tunconf_end, path, secure, v, NULL);
  else
    for (int t = 0; t < HP_NSETTINGS; ++t)
      v[t] = (struct hp_tunconf_value) { NULL, 0, false };
  printf ("{\"cache\": ");
  json_string (cache);
  printf (", \"section\": %s, \"valid\": %s, \"program\": ",
	  section ? "true" : "false", valid ? "true" : "false");
  json_cstring (path);
  printf (", \"secure\": %s, \"tunables\": {", secure ? "true" : "false");
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      printf ("%s\"%s\": ", t > 0 ? ", " : "", _dl_hugepage_setting_name (t));
      if (v[t].value == NULL || !valid)
	printf ("null");
      else
	{
	  printf ("{\"value\": ");
	  json_strn (v[t].value, v[t].len);
	  printf (", \"locked\": %s}", v[t].locked ? "true" : "false");
	}
    }
  printf ("}}\n");
  free ((void *) s.tunconf);
  free (b.buf);
  return 0;
}

#define USAGE "usage: hugeld-conf [--run NAME [--cwd DIR] [--kernel] | " \
  "--program NAME...] [--secure] [--expand] FILE\n" \
  "       hugeld-conf --effective [--libs V] [--segments V] [--backing V] " \
  "[--environ FILE|- [--glibc-tunables NAMES]] [--exe PATH] [--secure] " \
  "[--cache CACHE] [--ldso-view] [--run NAME [--cwd DIR] [--kernel]] " \
  "[--pid PID] FILE\n" \
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
  int pid;			/* --pid PID, or 0.  */
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
      else if (strcmp (argv[i], "--environ") == 0 && i + 1 < argc)
	cmd->req.environ_file = argv[++i];
      else if (strcmp (argv[i], "--glibc-tunables") == 0 && i + 1 < argc)
	cmd->req.known = argv[++i];
      else if (strcmp (argv[i], "--cache") == 0 && i + 1 < argc)
	cmd->req.cache = argv[++i];
      else if (strcmp (argv[i], "--exe") == 0 && i + 1 < argc)
	cmd->run.exe = argv[++i];
      else if (strcmp (argv[i], "--ldso-view") == 0)
	cmd->req.ldso_view = true;
      else if (strcmp (argv[i], "--pid") == 0 && i + 1 < argc)
	{
	  char *end;
	  long int pid = strtol (argv[++i], &end, 10);
	  if (*end != '\0' || pid <= 0 || pid > INT32_MAX)
	    {
	      fprintf (stderr, "hugeld-conf: --pid: not a process ID: %s\n",
		       argv[i]);
	      return 2;
	    }
	  cmd->pid = pid;
	}
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
      || (cmd->req.known != NULL && cmd->req.environ_file == NULL)
      || (!cmd->effective && (req->option[0] != NULL
			      || req->option[1] != NULL
			      || req->option[2] != NULL
			      || req->environ_file != NULL
			      || req->cache != NULL || req->ldso_view
			      || cmd->run.exe != NULL)))
    {
      fputs (USAGE "\n", stderr);
      return 2;
    }
  cmd->file = argv[i];
  cmd->req.program = cmd->run.name;
  cmd->req.exe = cmd->run.exe;
  cmd->req.secure = cmd->secure;
  if (cmd->req.cache == NULL)
    cmd->req.cache = LD_SO_CACHE;
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
  if (cmd.pid > 0)
    {
      char why[HUGELD_OPEN_WHY_MAX];
      bool same;
      int root = hugeld_open_root (cmd.pid, &same, why);
      if (root < 0)
	refuse (1, why);
      proc_pid = cmd.pid;
      if (same)
	close (root);
      else
	proc_root = root;
    }
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
