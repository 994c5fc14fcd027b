/* hugeld-thp: which files the thp repair touches.
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

/* The repair runs as root over what any process maps.  Whatever it
   reads into the page cache is charged to its own cgroup, so it reads
   only what ld.so's thp backing could have mapped for everyone: a
   regular file that root owns and nobody else may write (the shared
   cache's rule, _dl_hugepage_cache_distrust), on a disk file system
   that libraries live on.  Not on tmpfs or shmem (a repair would turn
   the holes of a sparse file into unreclaimable memory), not on FUSE
   or a network file system (a read that never answers), not on
   anything else.  A file's type is asked of its descriptor (fstatfs);
   before any descriptor is opened, the scan asks the mount table
   (thp_fs_name_ok), since opening or statting a FUSE file already
   waits for its server.  */

#include <string.h>
#include <sys/vfs.h>

#include "dl-hugepage-cache.h"
#include "hugeld-thp.h"

/* The disk file systems, by name and by statfs magic.  */
static const struct
{
  const char *name;
  unsigned long int magic;
} disk_fs[] =
  {
    { "ext4", 0xef53 },
    { "ext3", 0xef53 },
    { "ext2", 0xef53 },
    { "xfs", 0x58465342 },
    { "btrfs", 0x9123683e },
    { "f2fs", 0xf2f52010 },
    { "bcachefs", 0xca451a4e },
    { "erofs", 0xe0f5e1e2 },
    { "squashfs", 0x73717368 },
    /* Its files are mapped from the layers' own files (their device in
       /proc/PID/maps, their type in fstatfs of /proc/PID/map_files),
       so only a named file is opened through an overlay.  */
    { "overlay", 0x794c7630 },
  };

bool
thp_fs_name_ok (const char *type)
{
  for (size_t i = 0; i < sizeof disk_fs / sizeof disk_fs[0]; ++i)
    if (strcmp (type, disk_fs[i].name) == 0)
      return true;
  return false;
}

const char *
thp_distrust (int fd, const struct stat *st)
{
  const char *why = _dl_hugepage_cache_distrust (false, st->st_mode,
						 st->st_uid);
  if (why != NULL)
    return why;
  struct statfs sfs;
  if (fstatfs (fd, &sfs) != 0)
    return "not trusted: fstatfs failed";
  for (size_t i = 0; i < sizeof disk_fs / sizeof disk_fs[0]; ++i)
    if ((unsigned long int) sfs.f_type == disk_fs[i].magic)
      return NULL;
  return "not trusted: not on a disk file system that libraries live on "
	 "(tmpfs, FUSE, a network file system...)";
}
