/* hugeld: which huge pages the machine and the process can have.
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

/* What the placement of objects depends on besides the settings: does
   the machine have a huge page pool at all, and does the process's
   hugetlb cgroup allow it any page?  Read once per process, and only
   where the answer changes the placement (dl-hugepage.c).  */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/statfs.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"
#include "dl-hugepage-num.h"

/* The number in the sysfs or procfs file NAME: 0 or more, -1 if there
   is no such file, -2 if it cannot be read.  */
static long int
hp_pool_number (const char *name)
{
  char buf[32];
  ssize_t n = _dl_hugepage_read_file (name, buf, sizeof buf);
  if (n == -ENOENT)
    return -1;
  size_t digits = n > 0 ? hp_digits (buf, n) : 0;
  if (digits == 0)
    return -2;
  uint64_t v = hp_decimal (buf, digits);
  return v < LONG_MAX ? v : LONG_MAX;
}

static long int
hp_cgroup_read (void *ctx, const char *name, char *buf, size_t size)
{
  return _dl_hugepage_read_file (name, buf, size);
}

static unsigned long int
hp_cgroup_fs_type (void *ctx, const char *name)
{
  struct statfs sfs;
  if (INTERNAL_SYSCALL_CALL (statfs, name, &sfs) != 0)
    return 0;
  return sfs.f_type;
}

/* Whether the process's hugetlb cgroup allows no 2 MiB page
   (_dl_hugepage_cgroup_none), its paths read from /proc/self/cgroup.  */
static bool
hp_cgroup_allows_none (void)
{
  char paths[2][HP_CGROUP_DIR_MAX];
  const char *found[2] = { NULL, NULL };
  int fd = __open64_nocancel ("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  /* Whole lines at a time: a version 1 system has one per hierarchy.  */
  char text[512];
  off64_t off = 0;
  ssize_t n;
  while ((n = __pread64_nocancel (fd, text, sizeof text, off)) > 0)
    {
      size_t whole = n;
      while (whole > 0 && text[whole - 1] != '\n')
	--whole;
      if (whole == 0)
	break;
      for (int v1 = 0; v1 < 2; ++v1)
	{
	  size_t plen;
	  const char *path = _dl_hugepage_cgroup_path (text, whole, v1,
						       &plen);
	  if (path != NULL && found[v1] == NULL && plen < HP_CGROUP_DIR_MAX)
	    {
	      memcpy (paths[v1], path, plen);
	      paths[v1][plen] = '\0';
	      found[v1] = paths[v1];
	    }
	}
      off += whole;
    }
  __close_nocancel (fd);
  struct hp_cgroup_io io = { hp_cgroup_read, hp_cgroup_fs_type, NULL };
  char file[HP_CGROUP_DIR_MAX];
  return _dl_hugepage_cgroup_none (found, &io, file);
}

/* sysfs names the 2 MiB pool; /proc/sys/vm the default size's (2 MiB
   unless the kernel was booted with another default_hugepagesz), where
   sysfs is not mounted (a chroot).  */
#define HP_POOL "/sys/kernel/mm/hugepages/hugepages-2048kB/"

int
_dl_hugepage_pool_state (void)
{
  /* Where neither can be read, assume a pool.  */
  long int persistent = hp_pool_number (HP_POOL "nr_hugepages");
  long int surplus = persistent < 0 ? -2
		     : hp_pool_number (HP_POOL "nr_overcommit_hugepages");
  if (persistent == -1)
    {
      persistent = hp_pool_number ("/proc/sys/vm/nr_hugepages");
      surplus = hp_pool_number ("/proc/sys/vm/nr_overcommit_hugepages");
    }
  if (persistent == 0 && surplus == 0)
    return HP_POOL_NONE;
  return hp_cgroup_allows_none () ? HP_POOL_CGROUP_NONE : HP_POOL_SOME;
}

long int
_dl_hugepage_pool_unreserved (void)
{
  long int free = hp_pool_number (HP_POOL "free_hugepages");
  long int resv = free < 0 ? -1 : hp_pool_number (HP_POOL "resv_hugepages");
  if (free < 0 || resv < 0)
    return -1;
  return free > resv ? free - resv : 0;
}
