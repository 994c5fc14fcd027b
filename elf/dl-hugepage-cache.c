/* hugeld: the names of shared cache entries, and whom ld.so trusts there.
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
#include "dl-hugepage-kinds.h"

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
