/* hugeld: whether a process's hugetlb cgroup allows it any 2 MiB page.
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

/* Pure code (see dl-hugepage-cgroup.h): no system calls, no state.  */

#include "dl-hugepage-cgroup.h"
#include "dl-hugepage-num.h"
#include "dl-hugepage-plan.h"

/* Whether the comma list LIST[0..LEN) has the element WORD.  */
static bool
hp_list_has (const char *list, size_t len, const char *word)
{
  size_t i = 0;
  while (i <= len)
    {
      size_t k = 0;
      while (i + k < len && list[i + k] != ',' && word[k] != '\0'
	     && word[k] == list[i + k])
	++k;
      if (word[k] == '\0' && (i + k == len || list[i + k] == ','))
	return true;
      while (i < len && list[i] != ',')
	++i;
      ++i;
    }
  return false;
}

const char *
_dl_hugepage_cgroup_path (const char *text, size_t len, bool v1,
			  size_t *pathlen)
{
  size_t line = 0;
  while (line < len)
    {
      /* ID:LIST:PATH; the path may itself contain colons.  */
      size_t c1 = len, c2 = len, end = line;
      for (; end < len && text[end] != '\n'; ++end)
	if (text[end] == ':' && c2 == len)
	  {
	    if (c1 == len)
	      c1 = end;
	    else
	      c2 = end;
	  }
      if (end == len)
	return NULL;
      if (c2 + 1 < end && text[c2 + 1] == '/')
	{
	  bool id0 = c1 == line + 1 && text[line] == '0';
	  bool match = (v1
			? !id0 && hp_list_has (text + c1 + 1, c2 - c1 - 1,
					       "hugetlb")
			: id0 && c2 == c1 + 1);
	  if (match)
	    {
	      *pathlen = end - (c2 + 1);
	      return text + c2 + 1;
	    }
	}
      line = end + 1;
    }
  return NULL;
}

bool
_dl_hugepage_cgroup_limit_none (const char *text, size_t len)
{
  /* A number, then nothing or a newline.  */
  size_t n = hp_digits (text, len);
  return (n > 0 && (n == len || text[n] == '\n')
	  && hp_decimal (text, n) < HP_HUGEPAGE_SIZE);
}

/* Whether one of the limit files FILES (each starting with a slash) of
   the cgroup directory DIR[0..LEN), in a buffer of HP_CGROUP_DIR_MAX
   bytes, allows no 2 MiB page: then DIR names that file.  */
static bool
hp_cgroup_dir_none (char *dir, size_t len, const char *const files[2],
		    const struct hp_cgroup_io *io)
{
  for (int i = 0; i < 2; ++i)
    {
      size_t flen = 0;
      while (files[i][flen] != '\0')
	++flen;
      if (len + flen >= HP_CGROUP_DIR_MAX)
	return false;
      __builtin_memcpy (dir + len, files[i], flen + 1);
      char buf[32];
      long int n = io->read_file (io->ctx, dir, buf, sizeof buf);
      if (n > 0 && _dl_hugepage_cgroup_limit_none (buf, n))
	return true;
    }
  return false;
}

bool
_dl_hugepage_cgroup_none (const char *const paths[2],
			  const struct hp_cgroup_io *io,
			  char file[HP_CGROUP_DIR_MAX])
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
  for (size_t r = 0; r < sizeof roots / sizeof roots[0]; ++r)
    {
      const char *path = paths[roots[r].v1];
      if (path == NULL)
	continue;
      size_t rlen = 0, plen = 0;
      while (roots[r].name[rlen] != '\0')
	++rlen;
      while (path[plen] != '\0')
	++plen;
      if (rlen + plen >= HP_CGROUP_DIR_MAX
	  || io->fs_type (io->ctx, roots[r].name) != roots[r].magic)
	continue;
      __builtin_memcpy (file, roots[r].name, rlen);
      __builtin_memcpy (file + rlen, path, plen);
      size_t len = rlen + plen;
      /* The cgroup, then each one above it up to the root.  */
      while (true)
	{
	  while (len > rlen && file[len - 1] == '/')
	    --len;
	  if (hp_cgroup_dir_none (file, len, files[roots[r].v1], io))
	    return true;
	  if (len == rlen)
	    break;
	  while (len > rlen && file[len - 1] != '/')
	    --len;
	}
    }
  return false;
}
