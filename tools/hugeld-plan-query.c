/* hugeld-plan: what ld.so itself would say, asked one fact at a time.
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

/* The queries of hugeld-plan that are about ld.so and this machine, not
   about an object: whether the kernel gives transparent huge pages,
   the hugetlb cgroup limit that leaves a process no huge page, and
   whether ld.so trusts a file of the shared cache, each answered by
   ld.so's own code (elf/dl-hugepage-cache.c) so that the hugeld
   command never writes these rules again.  */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "dl-hugepage-cache.h"
#include "dl-hugepage-cgroup.h"
#include "hugeld-plan.h"
#include "hugeld-json.h"

/* Whether the kernel gives transparent huge pages, read as ld.so reads
   it.  */
bool
thp_enabled (void)
{
  char buf[64];
  int fd = open (HP_THP_ENABLED_FILE, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read (fd, buf, sizeof buf);
  close (fd);
  return n > 0 && _dl_hugepage_thp_enabled_text (buf, n);
}

static long int
cgroup_read (void *ctx, const char *name, char *buf, size_t size)
{
  (void) ctx;
  int fd = open (name, O_RDONLY | O_CLOEXEC);
  long int n = fd < 0 ? -1 : read_fd (&fd, buf, size, 0);
  int err = errno;
  if (fd >= 0)
    close (fd);
  return n < 0 ? -err : n;
}

static unsigned long int
cgroup_fs_type (void *ctx, const char *name)
{
  (void) ctx;
  struct statfs sfs;
  return statfs (name, &sfs) == 0 ? (unsigned long int) sfs.f_type : 0;
}

/* --cache-distrust dir|file:MODE:UID (MODE in octal, as st_mode):
   {"why": ...}, why ld.so would not trust such a directory or file of
   the shared cache (_dl_hugepage_cache_distrust), or null.  */
void
print_cache_distrust (struct json *j, const char *arg)
{
  char kind[8];
  unsigned int mode, uid;
  char end;
  if (sscanf (arg, "%7[a-z]:%o:%u%c", kind, &mode, &uid, &end) != 3
      || (strcmp (kind, "dir") != 0 && strcmp (kind, "file") != 0))
    die ("--cache-distrust takes dir|file:MODE:UID, not %s", arg);
  const char *why = _dl_hugepage_cache_distrust (strcmp (kind, "dir") == 0,
						 mode, uid);
  json_object (j);
  json_kstr (j, "why", why);
  json_end (j);
}

/* The limit file that lets process PID's hugetlb cgroup have no 2 MiB
   page, found with ld.so's own walk (_dl_hugepage_cgroup_none) from
   /proc/PID/cgroup, and its value: {"file", "value"}, or null.  */
void
print_cgroup_none (struct json *j, const char *pid)
{
  char name[64];
  snprintf (name, sizeof name, "/proc/%s/cgroup", pid);
  FILE *f = fopen (name, "re");
  char *text = NULL;
  size_t cap = 0;
  ssize_t len = f != NULL ? getdelim (&text, &cap, '\0', f) : -1;
  if (f != NULL)
    fclose (f);
  char paths[2][HP_CGROUP_DIR_MAX];
  const char *found[2] = { NULL, NULL };
  for (int v1 = 0; len > 0 && v1 < 2; ++v1)
    {
      size_t plen;
      const char *p = _dl_hugepage_cgroup_path (text, len, v1, &plen);
      if (p != NULL && plen < HP_CGROUP_DIR_MAX)
	{
	  memcpy (paths[v1], p, plen);
	  paths[v1][plen] = '\0';
	  found[v1] = paths[v1];
	}
    }
  free (text);
  struct hp_cgroup_io io = { cgroup_read, cgroup_fs_type, NULL };
  char file[HP_CGROUP_DIR_MAX];
  if (!_dl_hugepage_cgroup_none (found, &io, file))
    {
      json_null (j);
      return;
    }
  char buf[32];
  long int n = cgroup_read (NULL, file, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = '\0';
  json_object (j);
  json_kstr (j, "file", file);
  json_kuint (j, "value", strtoull (buf, NULL, 10));
  json_end (j);
}
