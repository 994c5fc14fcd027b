/* hugeld: backings and the names of shared cache entries.
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

/* Pure code (see dl-hugepage-cache.h): no system calls, no state.  */

#include <sys/stat.h>
#include "dl-hugepage-cache.h"
#include "dl-hugepage-num.h"

/* HP_BACKING_TABLE's names and flags, indexed by HP_B_* - 1.  */
#define HP_BACKING_NAME(id, name, flags) #name,
static const char hp_backing_names[][HP_WORD_MAX] =
  { HP_BACKING_TABLE (HP_BACKING_NAME) };
#define HP_BACKING_FLAGS(id, name, flags) flags,
static const unsigned char hp_backing_flag_table[] =
  { HP_BACKING_TABLE (HP_BACKING_FLAGS) };

int
_dl_hugepage_parse_backing (const char *s, unsigned char order[HP_NBACKINGS])
{
  const char *end = s;
  while (*end != '\0')
    ++end;
  return _dl_hugepage_parse_backing_n (s, end - s, order);
}

int
_dl_hugepage_parse_backing_n (const char *s, size_t len,
			      unsigned char order[HP_NBACKINGS])
{
  const char *end = s + len;
  int n = 0;
  int i;
  while ((i = _dl_hugepage_list_next (&s, end, hp_backing_names,
				      HP_NBACKINGS)) != -2)
    {
      if (i < 0)
	return -1;
      int k = 0;
      while (k < n && order[k] != i + 1)
	++k;
      if (k == n)
	order[n++] = i + 1;
    }
  return n;
}

const char *
_dl_hugepage_backing_name (int backing)
{
  if (backing < 1 || backing > HP_NBACKINGS)
    return "?";
  return hp_backing_names[backing - 1];
}

unsigned int
_dl_hugepage_backing_flags (int b)
{
  if (b < 1 || b > HP_NBACKINGS)
    return 0;
  return hp_backing_flag_table[b - 1];
}

char *
_dl_hugepage_backings_string (const unsigned char *order, int n, char *buf,
			      size_t size)
{
  if (size > 0)
    buf[0] = '\0';
  for (int k = 0; k < n; ++k)
    if (!_dl_hugepage_list_append (buf, size, ',',
				   _dl_hugepage_backing_name (order[k])))
      break;
  return buf;
}

bool
_dl_hugepage_backing_tried (int b, const struct hp_zone *z, bool textrel)
{
  return ((_dl_hugepage_backing_flags (b) & HP_BF_SHAREABLE) == 0
	  || _dl_hugepage_zone_shareable (z, textrel));
}

int
_dl_hugepage_expected_backing (const unsigned char *order, int n,
			       const struct hp_zone *z, bool textrel,
			       unsigned int available)
{
  for (int k = 0; k < n; ++k)
    {
      int b = order[k];
      if (_dl_hugepage_backing_tried (b, z, textrel)
	  && (available & (1u << b)) != 0)
	return b;
    }
  return 0;
}

bool
_dl_hugepage_thp_enabled_text (const char *text, size_t len)
{
  static const char never[] = "[never]";
  size_t nlen = sizeof never - 1;
  for (size_t i = 0; i + nlen <= len; ++i)
    if (__builtin_memcmp (text + i, never, nlen) == 0)
      return false;
  return len > 0;
}

int
_dl_hugepage_phase_mode (const unsigned char *order, int n, bool no_pool)
{
  for (int k = 0; k < n; ++k)
    if ((_dl_hugepage_backing_flags (order[k]) & HP_BF_FILE_PHASE) != 0)
      return k == 0 || no_pool ? HP_PHASE_ALWAYS : HP_PHASE_FREE;
  return HP_PHASE_FREE;
}

bool
_dl_hugepage_cache_placement (const unsigned char *order, int n)
{
  for (int k = 0; k < n; ++k)
    {
      unsigned int f = _dl_hugepage_backing_flags (order[k]);
      if ((f & HP_BF_CACHED) != 0)
	return true;
      if ((f & HP_BF_FILE_PHASE) != 0)
	return false;
    }
  return false;
}

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

/* The note type and owner of a GNU build ID.  */
#define HP_NT_GNU_BUILD_ID 3

bool
_dl_hugepage_find_build_id (const void *notes, size_t len,
			    struct hp_identity *id)
{
  const unsigned char *p = notes;
  size_t off = 0;
  /* Each note: namesz, descsz, type (4 bytes each), the name and the
     descriptor, each padded to 4 bytes.  */
  while (len - off >= 12)
    {
      uint32_t namesz, descsz, type;
      __builtin_memcpy (&namesz, p + off, 4);
      __builtin_memcpy (&descsz, p + off + 4, 4);
      __builtin_memcpy (&type, p + off + 8, 4);
      off += 12;
      uint64_t name_pad = HP_ALIGN_UP ((uint64_t) namesz, 4);
      uint64_t desc_pad = HP_ALIGN_UP ((uint64_t) descsz, 4);
      if (name_pad > len - off || desc_pad > len - off - name_pad)
	return false;
      if (type == HP_NT_GNU_BUILD_ID && namesz == 4
	  && p[off] == 'G' && p[off + 1] == 'N' && p[off + 2] == 'U'
	  && p[off + 3] == '\0')
	{
	  if (descsz == 0 || descsz > HP_BUILD_ID_MAX)
	    return false;
	  __builtin_memcpy (id->build_id, p + off + name_pad, descsz);
	  id->build_id_len = descsz;
	  return true;
	}
      off += name_pad + desc_pad;
    }
  return false;
}

void
_dl_hugepage_read_build_id (struct hp_identity *id, const ElfW(Phdr) *phdr,
			    size_t phnum, hp_read_fn *reader, void *ctx)
{
  id->build_id_len = 0;
  for (size_t i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_NOTE)
      {
	uint32_t buf[128];
	size_t want = phdr[i].p_filesz < sizeof buf ? phdr[i].p_filesz
		      : sizeof buf;
	long int n = reader (ctx, buf, want, phdr[i].p_offset);
	if (n > 0 && _dl_hugepage_find_build_id (buf, n, id))
	  break;
      }
}

/* Append the lower-case hexadecimal digits of V (no leading zeros) to
   NAME at *POS; never past the end of NAME.  */
static void
hp_put_hex (char *name, size_t *pos, uint64_t v)
{
  char digits[16];
  int n = 0;
  do
    {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    }
  while (v != 0);
  while (n > 0 && *pos + 1 < HP_CACHE_NAME_MAX)
    name[(*pos)++] = digits[--n];
  name[*pos] = '\0';
}

static void
hp_put_str (char *name, size_t *pos, const char *s)
{
  while (*s != '\0' && *pos + 1 < HP_CACHE_NAME_MAX)
    name[(*pos)++] = *s++;
  name[*pos] = '\0';
}

void
_dl_hugepage_cache_inode_name (const struct hp_identity *id,
			       char name[HP_CACHE_NAME_MAX])
{
  size_t pos = 0;
  hp_put_str (name, &pos, "i");
  hp_put_hex (name, &pos, id->ino);
}

void
_dl_hugepage_cache_device_name (const struct hp_identity *id,
				char name[HP_CACHE_NAME_MAX])
{
  size_t pos = 0;
  hp_put_str (name, &pos, "dev-");
  hp_put_hex (name, &pos, id->dev);
}

void
_dl_hugepage_cache_version_name (const struct hp_identity *id,
				 char name[HP_CACHE_NAME_MAX])
{
  size_t pos = 0;
  hp_put_hex (name, &pos, id->size);
  hp_put_str (name, &pos, "-");
  hp_put_hex (name, &pos, id->mtime_sec);
  hp_put_str (name, &pos, ".");
  hp_put_hex (name, &pos, id->mtime_nsec);
  hp_put_str (name, &pos, "-");
  hp_put_hex (name, &pos, id->ctime_sec);
  hp_put_str (name, &pos, ".");
  hp_put_hex (name, &pos, id->ctime_nsec);
  hp_put_str (name, &pos, "-");
  if (id->build_id_len == 0)
    hp_put_str (name, &pos, "none");
  for (size_t i = 0; i < id->build_id_len && i < HP_BUILD_ID_MAX; ++i)
    {
      char byte[3] = { "0123456789abcdef"[id->build_id[i] >> 4],
		       "0123456789abcdef"[id->build_id[i] & 15], '\0' };
      hp_put_str (name, &pos, byte);
    }
}

void
_dl_hugepage_cache_zone_name (const struct hp_zone *z, uint64_t bias,
			      char name[HP_CACHE_NAME_MAX])
{
  size_t pos = 0;
  hp_put_str (name, &pos, _dl_hugepage_kind_name (z->kind));
  hp_put_str (name, &pos, "-");
  hp_put_hex (name, &pos, HP_ALIGN_REM (bias, HP_HUGEPAGE_SIZE));
  hp_put_str (name, &pos, "-");
  hp_put_hex (name, &pos, z->start);
  hp_put_str (name, &pos, "-");
  hp_put_hex (name, &pos, z->end);
}

bool
_dl_hugepage_zone_shareable (const struct hp_zone *z, bool textrel)
{
  return (!textrel && (z->prot & PF_W) == 0
	  && (z->kind == HP_KIND_TEXT || z->kind == HP_KIND_RODATA));
}

const char *
_dl_hugepage_cache_distrust (bool want_dir, unsigned int mode,
			     unsigned int uid)
{
  if (want_dir ? !S_ISDIR (mode) : !S_ISREG (mode))
    return want_dir ? "not trusted: not a directory"
		    : "not trusted: not a regular file";
  if (uid != 0)
    return "not trusted: not owned by root";
  if ((mode & (S_IWGRP | S_IWOTH)) != 0)
    return "not trusted: writable by group or others";
  return NULL;
}

const char *
_dl_hugepage_cache_zone_distrust (unsigned int mode, unsigned int uid,
				  uint64_t size, uint64_t zone_size,
				  unsigned long int f_type,
				  unsigned long int f_bsize)
{
  const char *why = _dl_hugepage_cache_distrust (false, mode, uid);
  if (why == NULL && size != zone_size)
    why = "cache file of the wrong size";
  if (why == NULL
      && (f_type != HP_HUGETLBFS_MAGIC || f_bsize != HP_HUGEPAGE_SIZE))
    why = "not trusted: not on a hugetlbfs of 2 MiB pages";
  return why;
}
