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

#include <array_length.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statfs.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

ssize_t
_dl_hugepage_read_file (const char *name, void *buf, size_t size)
{
  int fd = __open64_nocancel (name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  ssize_t n = __read_nocancel (fd, buf, size);
  int err = errno;
  __close_nocancel (fd);
  return n < 0 ? -err : n;
}

/* The number in the sysfs or procfs file NAME: 0 or more, -1 if there
   is no such file, -2 if it cannot be read.  */
static long int
hp_pool_number (const char *name)
{
  char buf[32];
  ssize_t n = _dl_hugepage_read_file (name, buf, sizeof buf);
  if (n == -ENOENT)
    return -1;
  if (n <= 0 || buf[0] < '0' || buf[0] > '9')
    return -2;
  long int v = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i)
    v = v * 10 + (buf[i] - '0');
  return v;
}

/* The longest cgroup directory name looked at.  */
#define HP_CGROUP_DIR_MAX 512

/* Whether one of the limit files FILES (each starting with a slash) of
   the cgroup directory DIR[0..LEN), in a buffer of HP_CGROUP_DIR_MAX
   bytes, allows no 2 MiB page.  */
static bool
hp_cgroup_dir_none (char *dir, size_t len, const char *const files[2])
{
  for (int i = 0; i < 2; ++i)
    {
      size_t flen = strlen (files[i]);
      if (len + flen >= HP_CGROUP_DIR_MAX)
	return false;
      memcpy (dir + len, files[i], flen + 1);
      char buf[32];
      ssize_t n = _dl_hugepage_read_file (dir, buf, sizeof buf);
      if (n > 0 && _dl_hugepage_cgroup_limit_none (buf, n))
	return true;
    }
  return false;
}

/* Whether the process's hugetlb cgroup, or one above it (the limit
   that counts is the smallest), allows no 2 MiB page: a Kubernetes pod
   that asked for none has hugetlb.2MB.max = 0.  The cgroup is looked
   for by the path /proc/self/cgroup gives under /sys/fs/cgroup (the
   unified hierarchy), /sys/fs/cgroup/unified (the same, where systemd
   mounts it beside version 1 hierarchies) and /sys/fs/cgroup/hugetlb
   (version 1), each only if a cgroup file system is mounted there.  In
   a container without a cgroup namespace that path is the host's;
   directories that do not exist are skipped.  False where nothing can
   be read.  */
static bool
hp_cgroup_allows_none (void)
{
  static const char *const files[2][2] =
    {
      { "/hugetlb.2MB.max", "/hugetlb.2MB.rsvd.max" },
      { "/hugetlb.2MB.limit_in_bytes", "/hugetlb.2MB.rsvd.limit_in_bytes" },
    };
  /* Each root, its file system type, and whether the version 1 path
     goes under it.  */
#define HP_CGROUP_MAGIC 0x27e0eb
#define HP_CGROUP2_MAGIC 0x63677270
  static const struct { char name[24]; unsigned int magic; bool v1; }
    roots[] =
    {
      { "/sys/fs/cgroup", HP_CGROUP2_MAGIC, false },
      { "/sys/fs/cgroup/unified", HP_CGROUP2_MAGIC, false },
      { "/sys/fs/cgroup/hugetlb", HP_CGROUP_MAGIC, true },
    };
  char paths[2][HP_CGROUP_DIR_MAX];
  size_t plens[2] = { 0, 0 };
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
	  if (path != NULL && plens[v1] == 0 && plen < HP_CGROUP_DIR_MAX)
	    {
	      memcpy (paths[v1], path, plen);
	      plens[v1] = plen;
	    }
	}
      off += whole;
    }
  __close_nocancel (fd);
  for (size_t r = 0; r < array_length (roots); ++r)
    {
      size_t rlen = strlen (roots[r].name);
      size_t plen = plens[roots[r].v1];
      struct statfs sfs;
      if (plen == 0 || rlen + plen >= HP_CGROUP_DIR_MAX
	  || INTERNAL_SYSCALL_CALL (statfs, roots[r].name, &sfs) != 0
	  || sfs.f_type != roots[r].magic)
	continue;
      char dir[HP_CGROUP_DIR_MAX];
      memcpy (dir, roots[r].name, rlen);
      memcpy (dir + rlen, paths[roots[r].v1], plen);
      size_t len = rlen + plen;
      /* The cgroup, then each one above it up to the root.  */
      while (true)
	{
	  while (len > rlen && dir[len - 1] == '/')
	    --len;
	  if (hp_cgroup_dir_none (dir, len, files[roots[r].v1]))
	    return true;
	  if (len == rlen)
	    break;
	  while (len > rlen && dir[len - 1] != '/')
	    --len;
	}
    }
  return false;
}

int
_dl_hugepage_pool_state (void)
{
  /* sysfs names the 2 MiB pool; /proc/sys/vm the default size's (2 MiB
     unless the kernel was booted with another default_hugepagesz),
     where sysfs is not mounted (a chroot).  Where neither can be read,
     assume a pool.  */
#define HP_POOL "/sys/kernel/mm/hugepages/hugepages-2048kB/"
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
#undef HP_POOL
  return hp_cgroup_allows_none () ? HP_POOL_CGROUP_NONE : HP_POOL_SOME;
}
