/* hugeld-conf: the policy file as ld.so, or another process's, sees it.
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

/* Reading the files (the policy file, ld.so.cache, an environment)
   with one reader, as we or the process of --pid see them; the bad
   lines of a policy file and what each costs (--check); the lines the
   libs patterns came from, as the resolver noted them.

   hugeld-conf --check FILE prints nothing if ld.so would use all of
   FILE; else one line on stderr for each reason it would not (distrust,
   each bad line as FILE:LINE: message, with what it costs) and exit
   status 1.  For the boot unit: a bad file is reported without
   starting Python.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugeld-conf.h"

/* --pid: the process, and its root where it is not ours (else -1).  */
static int proc_pid;
static int proc_root = -1;

void
conf_refuse (int status, const char *msg)
{
  fprintf (stderr, "hugeld-conf: %s\n", msg);
  exit (status);
}

void
conf_as_process (int pid)
{
  char why[HUGELD_OPEN_WHY_MAX];
  bool same;
  int root = hugeld_open_root (pid, &same, why);
  if (root < 0)
    conf_refuse (1, why);
  proc_pid = pid;
  if (same)
    close (root);
  else
    proc_root = root;
}

long int
conf_readlink (const char *path, char *buf, size_t size)
{
  if (proc_root >= 0)
    return hugeld_readlink_in_root (proc_root, path, buf, size);
  return readlink (path, buf, size);
}

int
conf_open_seen (const char *file, bool strict_links, struct stat *st,
		char *why)
{
  int fd;
  if (proc_root >= 0)
    {
      fd = hugeld_open_in_root (proc_root, file, st, why);
      if (fd < 0 && errno == ENOENT)
	why[0] = '\0';
    }
  else if (lstat (file, st) != 0 && errno == ENOENT)
    {
      why[0] = '\0';
      return -1;
    }
  else
    fd = hugeld_open_regular (file, strict_links, st, why);
  if (fd >= 0 && proc_pid > 0)
    st->st_uid = hugeld_uid_in (proc_pid, st->st_uid);
  return fd;
}

int
conf_read_whole (int fd, size_t hint, char **bufp, size_t *lenp)
{
  size_t cap = hint > 0 ? hint : 1 << 16;
  char *buf = malloc (cap + 1);
  size_t len = 0;
  while (buf != NULL)
    {
      ssize_t n = read (fd, buf + len, cap - len);
      if (n == 0)
	break;
      if (n < 0)
	{
	  if (errno == EINTR)
	    continue;
	  int err = errno;
	  free (buf);
	  *bufp = NULL;
	  return err;
	}
      len += n;
      if (len == cap)
	{
	  char *more = realloc (buf, (cap *= 2) + 1);
	  if (more == NULL)
	    free (buf);
	  buf = more;
	}
    }
  if (buf == NULL)
    {
      *bufp = NULL;
      return ENOMEM;
    }
  buf[len] = '\0';
  *bufp = buf;
  *lenp = len;
  return 0;
}

void
conf_read_file (const char *path, struct conf_file *cf)
{
  memset (cf, 0, sizeof *cf);
  cf->path = path;
  struct stat st;
  int fd = conf_open_seen (path, true, &st, cf->openwhy);
  if (fd < 0 && cf->openwhy[0] == '\0')
    return;
  cf->exists = true;
  if (fd < 0)
    return;
  cf->distrust = _dl_hugepage_conf_distrust (S_ISREG (st.st_mode),
					     st.st_uid, st.st_mode,
					     st.st_size);
  int err = conf_read_whole (fd, st.st_size + 1, &cf->buf, &cf->len);
  close (fd);
  if (err != 0)
    {
      char msg[HP_PATH_MAX + 64];
      snprintf (msg, sizeof msg, "%s: %s", path, strerror (err));
      conf_refuse (1, msg);
    }
  /* It may have grown since the fstat.  */
  if (cf->distrust == NULL)
    cf->distrust = _dl_hugepage_conf_distrust (true, st.st_uid, st.st_mode,
					       cf->len);
  _dl_hugepage_conf_check (cf->buf, cf->len, &cf->sum);
}

bool
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

const char *
conf_unused_why (const struct conf_file *cf, char *buf, size_t size)
{
  if (!cf->exists)
    return "no such file";
  if (cf->openwhy[0] != '\0')
    return cf->openwhy;
  if (cf->distrust == NULL)
    return NULL;
  snprintf (buf, size, "ignored by ld.so: %s", cf->distrust);
  return buf;
}

unsigned int
conf_bad_lines (const struct conf_file *cf,
		void (*fn) (const struct conf_bad_line *, void *), void *arg)
{
  /* Every line checked as the resolver checks the lines it uses (the
     lazy reader: a line's key and scope first, then the line), so
     that a line's scope is known even when it does not parse.  */
  struct hp_conf_reader r;
  struct hp_conf_line line;
  unsigned int block = 0, n = 0;
  _dl_hugepage_conf_start_lazy (&r, cf->buf, cf->len);
  while (_dl_hugepage_conf_next (&r, &line))
    {
      if (line.key == HP_CONF_BLANK)
	continue;
      if (line.key == HP_CONF_PROGRAM)
	block = line.lineno;
      bool cache = line.key == HP_CONF_CACHE || line.key == HP_CONF_POOL;
      if (_dl_hugepage_conf_use (&r, &line))
	continue;
      const struct conf_bad_line bad =
	{
	  .line = line.lineno,
	  .error = line.error,
	  .block = line.in_block || line.lineno == block ? block : 0,
	  .cache = cache
	};
      fn (&bad, arg);
      ++n;
    }
  return n;
}

const char *
conf_bad_cost (const struct conf_bad_line *bad, char *buf, size_t size)
{
  if (bad->cache)
    snprintf (buf, size, "ld.so skips it; hugeld cache sync refuses the "
	      "file");
  else if (bad->block != 0)
    snprintf (buf, size, "ld.so ignores the file for the programs of the "
	      "block at line %u", bad->block);
  else
    snprintf (buf, size, "ld.so ignores the whole file");
  return buf;
}

/* conf_bad_lines's callback for --check: ARG is the file's path.  */
static void
check_line (const struct conf_bad_line *bad, void *arg)
{
  char cost[128];
  fprintf (stderr, "hugeld: %s:%u: %s (%s)\n", (const char *) arg,
	   bad->line, bad->error, conf_bad_cost (bad, cost, sizeof cost));
}

int
conf_print_check (const struct conf_file *cf)
{
  if (cf->distrust != NULL)
    fprintf (stderr, "hugeld: %s: ld.so ignores it: %s\n", cf->path,
	     cf->distrust);
  unsigned int bad = conf_bad_lines (cf, check_line, (void *) cf->path);
  return cf->distrust == NULL && bad == 0 ? 0 : 1;
}

void
conf_resolve (const struct conf_file *cf, const char *const *names,
	      size_t nnames, bool secure, struct conf_resolved *r)
{
  r->libs = malloc (2 * cf->len + 2);
  r->spans = malloc (HP_CONF_MAX_SPANS (cf->len) * sizeof *r->spans);
  if (r->libs == NULL || r->spans == NULL)
    conf_refuse (1, "out of memory");
  _dl_hugepage_conf_resolve (cf->buf, cf->len, names, nnames, secure,
			     &r->s, r->libs, r->spans);
}

void
conf_resolved_free (struct conf_resolved *r)
{
  free (r->libs);
  free (r->spans);
}

size_t
conf_libs_patterns (const struct hp_conf_settings *s, const char *libs,
		    struct libs_pattern **pats)
{
  /* No more patterns than bytes.  */
  *pats = malloc ((s->libslen / 2 + 1) * sizeof **pats);
  if (*pats == NULL)
    conf_refuse (1, "out of memory");
  size_t n = 0;
  for (size_t off = 0; off < s->libslen; )
    {
      size_t end = off;
      while (end < s->libslen && libs[end] != ':')
	++end;
      (*pats)[n++] = (struct libs_pattern)
	{
	  .pattern = libs + off,
	  .len = end - off,
	  .line = _dl_hugepage_conf_span_line (s->spans, s->nspans, off)
	};
      off = end + 1;
    }
  return n;
}

size_t
conf_libs_lines (const struct hp_conf_settings *s,
		 const struct libs_pattern *pats, size_t n,
		 unsigned int *lines, size_t max)
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

char *
conf_lines_source (const char *file, const unsigned int *lines, size_t n,
		   char *buf, size_t size)
{
  size_t used = snprintf (buf, size, "%s line%s ", file, n > 1 ? "s" : "");
  for (size_t i = 0; i < n && used < size; ++i)
    used += snprintf (buf + used, size - used, "%s%u", i > 0 ? ", " : "",
		      lines[i]);
  return buf;
}
