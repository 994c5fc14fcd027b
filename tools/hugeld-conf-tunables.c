/* hugeld-conf: ld.so.cache's system-wide tunables, and another
   process's environment.
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

/* hugeld-conf --system-tunables [--program PATH] [--secure] CACHE
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
   The same reading gives --effective its system tunables.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugeld-conf.h"

/* ld.so 2.44 finds the section with _dl_hugepage_tunconf_locate and
   its strings with _dl_hugepage_tunconf_strings.  */
bool
conf_read_system_tunables (const char *cache, struct blob *b,
			   struct hp_sources *s, bool *section, char *why)
{
  *section = false;
  b->buf = NULL;
  b->len = 0;
  struct stat st;
  int fd = conf_open_seen (cache, false, &st, why);
  if (fd < 0)
    return why[0] == '\0';
  int err = conf_read_whole (fd, st.st_size + 1, &b->buf, &b->len);
  close (fd);
  if (err != 0)
    {
      snprintf (why, HUGELD_OPEN_WHY_MAX, "%s", strerror (err));
      return false;
    }
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
	conf_refuse (1, "out of memory");
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
char **
conf_split_environ (struct blob *b, const char *known)
{
  size_t n = 0;
  for (size_t i = 0; i < b->len; ++i)
    n += b->buf[i] == '\0';
  char **env = calloc (n + 2, sizeof *env);
  if (env == NULL)
    conf_refuse (1, "out of memory");
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

int
conf_print_system_tunables (const char *cache, const char *path, bool secure)
{
  struct hp_sources s;
  memset (&s, 0, sizeof s);
  struct blob b;
  bool section;
  char why[HUGELD_OPEN_WHY_MAX];
  if (!conf_read_system_tunables (cache, &b, &s, &section, why))
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
  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  json_kstr (&j, "cache", cache);
  json_kbool (&j, "section", section);
  json_kbool (&j, "valid", valid);
  json_kstr (&j, "program", path);
  json_kbool (&j, "secure", secure);
  json_key (&j, "tunables");
  json_object (&j);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      json_key (&j, _dl_hugepage_setting_name (t));
      if (v[t].value == NULL || !valid)
	{
	  json_null (&j);
	  continue;
	}
      json_object (&j);
      json_kstrn (&j, "value", v[t].value, v[t].len);
      json_kbool (&j, "locked", v[t].locked);
      json_end (&j);
    }
  json_end (&j);
  json_end (&j);
  free ((void *) s.tunconf);
  free (b.buf);
  return 0;
}

