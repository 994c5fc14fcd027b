/* hugeld: whether a process's hugetlb cgroup allows it any 2 MiB page.
   Pure interface.
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

#ifndef _DL_HUGEPAGE_CGROUP_H
#define _DL_HUGEPAGE_CGROUP_H 1

/* Defined in dl-hugepage-cgroup.c; pure: the files are read through
   the caller's functions (ld.so's in dl-hugepage-pool.c, the unit
   tests' own).  A pod that requested no huge pages has a limit of 0:
   ld.so then takes no private copy and falls back at once.  */

#include <stdbool.h>
#include <stddef.h>

/* The path of the process's cgroup in the text of /proc/self/cgroup,
   TEXT[0..LEN): with V1 false in the unified hierarchy (the line
   "0::PATH"), with V1 true in the version 1 hierarchy that has the
   hugetlb controller (a line "ID:LIST:PATH" with hugetlb in the comma
   list LIST).  Returns the path's first byte and sets *PATHLEN, or
   returns NULL if there is no such line, or it is cut off (it must end
   in a newline within LEN), or the path does not start with '/'.  */
const char *_dl_hugepage_cgroup_path (const char *text, size_t len,
				      bool v1, size_t *pathlen);

/* Whether TEXT[0..LEN), the contents of a hugetlb cgroup limit file
   (hugetlb.2MB.max or .rsvd.max: "max" or a number of bytes;
   version 1's limit_in_bytes: a number of bytes), allows no 2 MiB
   page: a number below HP_HUGEPAGE_SIZE.  False for anything else.  */
bool _dl_hugepage_cgroup_limit_none (const char *text, size_t len);

/* The longest cgroup directory name looked at, with its NUL.  */
#define HP_CGROUP_DIR_MAX 512

/* How _dl_hugepage_cgroup_none reads: READ_FILE reads up to SIZE bytes
   of the file NAME into BUF (the number read, or minus the error
   number); FS_TYPE gives statfs's f_type of the directory NAME, or 0.
   CTX is the caller's.  */
struct hp_cgroup_io
{
  long int (*read_file) (void *ctx, const char *name, char *buf,
			 size_t size);
  unsigned long int (*fs_type) (void *ctx, const char *name);
  void *ctx;
};

/* Whether the hugetlb cgroup of a process, or one above it (the limit
   that counts is the smallest), allows no 2 MiB page: a Kubernetes pod
   that asked for none has hugetlb.2MB.max = 0.  PATHS are its cgroup's
   paths, [0] in the unified hierarchy and [1] in version 1's hugetlb
   one (_dl_hugepage_cgroup_path; NULL where there is none).  The
   cgroup is looked for under /sys/fs/cgroup (the unified hierarchy),
   /sys/fs/cgroup/unified (the same, where systemd mounts it beside
   version 1 hierarchies) and /sys/fs/cgroup/hugetlb (version 1), each
   only if a cgroup file system of that version is mounted there.  In
   a container without a cgroup namespace that path is the host's;
   directories that do not exist are skipped.  If so, the limit file
   that allows none is written into FILE; false where nothing can be
   read.  */
bool _dl_hugepage_cgroup_none (const char *const paths[2],
			       const struct hp_cgroup_io *io,
			       char file[HP_CGROUP_DIR_MAX]);

#endif /* dl-hugepage-cgroup.h */
