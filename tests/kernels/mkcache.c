/* hugeld check-kernels: make the shared cache entry of one library in
   the guest, which has no Python and so no `hugeld cache add': the same
   names and zones (the loader's own pure code: planner and cache
   names), the same layout (HP_CACHE_DIR/<inode>/<version>/<zone>,
   root's, 0755 directories and 0444 files) on a hugetlbfs already
   mounted at /dev/hugepages.  Objects with text relocations are not
   expected here.  Prints the number of huge pages it filled.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dl-hugepage-cache.h"

static void
die (const char *what)
{
  fprintf (stderr, "mkcache: %s: %s\n", what, strerror (errno));
  exit (1);
}

static long int
read_fd (void *fd, void *buf, size_t len, uint64_t offset)
{
  return pread (*(int *) fd, buf, len, offset);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: mkcache LIB\n");
      return 2;
    }
  int fd = open (argv[1], O_RDONLY);
  ElfW(Ehdr) eh;
  static ElfW(Phdr) ph[64];
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    die (argv[1]);
  if (pread (fd, &eh, sizeof eh, 0) != sizeof eh || eh.e_phnum > 64
      || pread (fd, ph, eh.e_phnum * sizeof ph[0], eh.e_phoff)
	 != (ssize_t) (eh.e_phnum * sizeof ph[0]))
    die ("reading the ELF headers");

  struct hp_identity id;
  HP_IDENTITY_SET_STAT (&id, &st);
  _dl_hugepage_read_build_id (&id, ph, eh.e_phnum, read_fd, &fd);

  struct hp_settings s;
  static struct hp_plan plan;
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, eh.e_type, false, false,
			 0, false, HP_PHASE_FREE);
  _dl_hugepage_plan (ph, eh.e_phnum, &s, &plan);
  if (plan.error != HP_E_NONE)
    {
      fprintf (stderr, "mkcache: %s\n", _dl_hugepage_error_name (plan.error));
      return 1;
    }

  char path[1024], name[HP_CACHE_NAME_MAX];
  mkdir (HP_CACHE_DIR, 0755);
  _dl_hugepage_cache_inode_name (&id, name);
  snprintf (path, sizeof path, "%s/%s", HP_CACHE_DIR, name);
  if (mkdir (path, 0755) != 0 && errno != EEXIST)
    die (path);
  _dl_hugepage_cache_version_name (&id, name);
  strcat (path, "/");
  strcat (path, name);
  if (mkdir (path, 0755) != 0 && errno != EEXIST)
    die (path);
  size_t dirlen = strlen (path);
  /* The device it was made on (without it ld.so compares the bytes
     first, which needs a kernel that can move hugetlb mappings).  */
  path[dirlen] = '/';
  _dl_hugepage_cache_device_name (&id, path + dirlen + 1);
  int dfd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0444);
  if (dfd < 0)
    die (path);
  close (dfd);
  unsigned long pages = 0;
  for (size_t i = 0; i < plan.nzones; ++i)
    {
      const struct hp_zone *z = &plan.zones[i];
      if (!_dl_hugepage_zone_shareable (z, false))
	continue;
      path[dirlen] = '/';
      _dl_hugepage_cache_zone_name (z, plan.bias, path + dirlen + 1);
      size_t len = z->end - z->start;
      int zfd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0444);
      if (zfd < 0 || ftruncate (zfd, len) != 0)
	die (path);
      char *p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, zfd, 0);
      if (p == MAP_FAILED)
	die ("mmap");
      if (pread (fd, p + (z->copy_start - z->start), z->copy_len, z->fileoff)
	  < (ssize_t) z->copy_need)
	die ("pread");
      munmap (p, len);
      close (zfd);
      pages += len / HP_HUGEPAGE_SIZE;
    }
  printf ("%lu\n", pages);
  return 0;
}
