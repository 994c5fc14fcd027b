/* hugeld: its settings in the system-wide tunables of ld.so.cache.
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

/* Pure code (see dl-hugepage-settings.h): no system calls, no state.

   glibc 2.44 reads system-wide tunables from /etc/tunables.conf, which
   ldconfig compiles into an extension section of /etc/ld.so.cache
   (elf/tunconf.c); ld.so applies them in __tunables_init
   (elf/dl-tunables.c).  ldconfig keeps a name it does not know, and
   ld.so skips it, so glibc.elf.hugepage.* lines reach the cache and
   hugeld reads them here with the rules __tunables_init applies to its
   own: the entries in order, each passing the secure flags and the
   [proc:NAME] filter replacing what an earlier one set, and setting
   whether it is locked (nonoverridable).

   The section is root's (only root writes /etc/ld.so.cache), but it is
   still read as untrusted bytes: every field is read with memcpy (no
   alignment is assumed), every count and offset is checked against
   the sizes the caller gives, and a string must end inside the string
   table.  A section that breaks any of that gives none of hugeld's
   tunables.

   ld.so finds the section with glibc's own _dl_load_cache_tunables;
   the hugeld command, which reads the file itself, with
   _dl_hugepage_tunconf_locate, which follows the same rules.  Both
   find the string table with _dl_hugepage_tunconf_strings.  */

#include <string.h>
#include "dl-hugepage-settings.h"

/* The 32-bit field at byte OFF of P.  */
static uint32_t
hp_u32 (const unsigned char *p, size_t off)
{
  uint32_t v;
  memcpy (&v, p + off, sizeof v);
  return v;
}

/* The string at offset OFF of DATA, which must start in the string
   table [START, END) and end there, or NULL.  */
static const char *
hp_tunconf_string (const char *data, size_t start, size_t end, uint32_t off)
{
  if (off < start || off >= end
      || memchr (data + off, '\0', end - off) == NULL)
    return NULL;
  return data + off;
}

bool
_dl_hugepage_tunconf_locate (const void *cache, size_t size,
			     const void **section, size_t *section_size,
			     bool *section_valid)
{
  const unsigned char *buf = cache;
  *section = NULL;
  *section_size = 0;
  *section_valid = false;
  if (size < HP_CACHE_HEADER_SIZE
      || memcmp (buf, HP_CACHE_MAGIC, sizeof HP_CACHE_MAGIC - 1) != 0)
    return false;
  uint64_t nlibs = hp_u32 (buf, HP_CACHE_NLIBS);
  uint64_t start = HP_CACHE_HEADER_SIZE + nlibs * HP_CACHE_ENTRY_SIZE;
  uint64_t ext = hp_u32 (buf, HP_CACHE_EXTENSION_OFFSET);
  /* cache_extension_load: the extension directory is 4-byte aligned,
     lies after the libraries and inside the file.  */
  if (start >= size || ext == 0 || ext % 4 != 0 || ext + 8 > size
      || hp_u32 (buf, ext) != HP_CACHE_EXTENSION_MAGIC)
    return false;
  uint64_t count = hp_u32 (buf, ext + 4);
  if (ext + 8 + count * 16 > size)
    return false;
  bool found = false;
  for (uint64_t i = 0; i < count; ++i)
    {
      const unsigned char *e = buf + ext + 8 + i * 16;
      uint64_t off = hp_u32 (e, 8), len = hp_u32 (e, 12);
      /* An extension outside the file: ld.so ignores them all.  */
      if (off + len > size)
	{
	  *section = NULL;
	  *section_size = 0;
	  *section_valid = false;
	  return false;
	}
      if (hp_u32 (e, 0) != HP_CACHE_EXTENSION_TUNABLES)
	continue;
      /* cache_extension_verify: not empty, 8-byte aligned and sized;
	 the last tunables extension is the one that counts.  */
      found = true;
      *section_valid = len != 0 && off % 8 == 0 && len % 8 == 0;
      *section = *section_valid ? buf + off : NULL;
      *section_size = *section_valid ? len : 0;
    }
  return found;
}

void
_dl_hugepage_tunconf_strings (const void *cache, const void *section,
			      size_t *start, size_t *end)
{
  const unsigned char *buf = cache;
  const unsigned char *sec = section;
  size_t s = (HP_CACHE_HEADER_SIZE
	      + (size_t) hp_u32 (buf, HP_CACHE_NLIBS) * HP_CACHE_ENTRY_SIZE);
  size_t e = s + hp_u32 (buf, HP_CACHE_LEN_STRINGS);
  if (sec < buf)
    e = s;
  else if (e > (size_t) (sec - buf))
    e = sec - buf;
  if (e < s)
    e = s;
  *start = s;
  *end = e;
}

/* Whether the [proc:NAME] filter FILTER (NULL if the entry has none
   although it asks for one) admits the program PATH (NULL if unknown):
   a NAME with a leading `/' is compared with the path, any other with
   its last component.  */
static bool
hp_tunconf_filter (const char *filter, const char *path)
{
  if (filter == NULL || path == NULL)
    return false;
  if (filter[0] == '/')
    return strcmp (filter, path) == 0;
  /* ld.so has no strrchr.  */
  const char *base = path;
  for (const char *p = path; *p != '\0'; ++p)
    if (*p == '/')
      base = p + 1;
  return strcmp (filter, base) == 0;
}

bool
_dl_hugepage_tunconf_find (const void *section, size_t size,
			   const char *data, size_t str_start,
			   size_t str_end, const char *path, bool secure,
			   struct hp_tunconf_value value[HP_NSETTINGS],
			   bool *need_path)
{
  const unsigned char *sec = section;
  for (int t = 0; t < HP_NSETTINGS; ++t)
    value[t] = (struct hp_tunconf_value) { NULL, 0, false };

  /* The header and the entries fill the section exactly, as
     _dl_load_cache_tunables requires.  */
  if (sec == NULL || size < HP_TUNCONF_HEADER_SIZE
      || hp_u32 (sec, 0) != HP_TUNCONF_SIGNATURE
      || hp_u32 (sec, 4) != HP_TUNCONF_VERSION)
    return false;
  uint32_t count = hp_u32 (sec, 8);
  if ((size - HP_TUNCONF_HEADER_SIZE) / HP_TUNCONF_ENTRY_SIZE != count
      || (size - HP_TUNCONF_HEADER_SIZE) % HP_TUNCONF_ENTRY_SIZE != 0)
    return false;
  if (count > 0 && (data == NULL || str_start > str_end))
    return false;

  /* Every entry's strings first: glibc refuses the whole section for
     an offset outside the string table, and so does hugeld, also for
     a string that does not end inside it.  */
  for (uint32_t i = 0; i < count; ++i)
    {
      const unsigned char *e = sec + HP_TUNCONF_HEADER_SIZE
			       + (size_t) i * HP_TUNCONF_ENTRY_SIZE;
      uint32_t flag_off = hp_u32 (e, HP_TUNCONF_ENTRY_FILTER);
      if (hp_tunconf_string (data, str_start, str_end,
			     hp_u32 (e, HP_TUNCONF_ENTRY_NAME)) == NULL
	  || hp_tunconf_string (data, str_start, str_end,
				hp_u32 (e, HP_TUNCONF_ENTRY_VALUE)) == NULL
	  || (flag_off != 0
	      && hp_tunconf_string (data, str_start, str_end,
				    flag_off) == NULL))
	return false;
    }

  for (uint32_t i = 0; i < count; ++i)
    {
      const unsigned char *e = sec + HP_TUNCONF_HEADER_SIZE
			       + (size_t) i * HP_TUNCONF_ENTRY_SIZE;
      uint32_t flags = hp_u32 (e, HP_TUNCONF_ENTRY_FLAGS);
      const char *name = data + hp_u32 (e, HP_TUNCONF_ENTRY_NAME);
      int t = _dl_hugepage_tunable_of (name, strlen (name));
      if (t < 0)
	continue;
      if ((flags & HP_TUNCONF_EXCLUDE_SECURE) != 0 && secure)
	continue;
      if ((flags & HP_TUNCONF_EXCLUDE_UNSECURE) != 0 && !secure)
	continue;
      switch (flags & HP_TUNCONF_FILTER_MASK)
	{
	case HP_TUNCONF_FILTER_NONE:
	  break;
	case HP_TUNCONF_FILTER_PERPROC:
	  {
	    /* An entry that asks for a filter and has none never
	       matches (glibc would compare the cache's first bytes).  */
	    uint32_t flag_off = hp_u32 (e, HP_TUNCONF_ENTRY_FILTER);
	    if (path == NULL && need_path != NULL)
	      *need_path = true;
	    if (!hp_tunconf_filter (flag_off != 0 ? data + flag_off : NULL,
				    path))
	      continue;
	    break;
	  }
	default:
	  /* A filter this release does not know.  */
	  continue;
	}
      /* The entry replaces what an earlier one set, lock included.  */
      const char *v = data + hp_u32 (e, HP_TUNCONF_ENTRY_VALUE);
      value[t].value = v;
      value[t].len = strlen (v);
      value[t].locked = ((flags & HP_TUNCONF_OVERRIDE_MASK)
			 == HP_TUNCONF_OVERRIDE_DENY);
    }
  return true;
}
