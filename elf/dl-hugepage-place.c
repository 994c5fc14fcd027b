/* hugeld: the backings, and where objects are placed for them.
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

/* Pure code (see dl-hugepage-place.h): no system calls, no state.  */

#include "dl-hugepage-place.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-cache.h"

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
_dl_hugepage_cont_wanted (unsigned int kinds, uint64_t pagesize,
			  const unsigned char *order, int n)
{
  bool private = false;
  for (int k = 0; k < n; ++k)
    private |= order[k] == HP_B_PRIVATE;
  return private && (kinds & HP_KIND_TEXT) != 0 && pagesize == HP_CONT_BASE;
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
