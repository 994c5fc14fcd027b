/* hugeld: the words of the settings' comma lists.
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

/* The segment kinds of LD_HUGEPAGE_SEGMENTS and the words of the
   settings' comma lists: reading a list word by word, and writing the
   names of a set of kinds back.  Pure code, built into ld.so and into
   the tools and tests outside glibc (dl-hugepage-plan.h).  */

#include "dl-hugepage-kinds.h"

int
_dl_hugepage_list_next (const char **s, const char *end,
			const char (*names)[HP_WORD_MAX], int n)
{
  const char *p = *s;
  while (p < end && *p == ',')
    ++p;
  if (p == end)
    {
      *s = p;
      return -2;
    }
  size_t len = 0;
  while (p + len < end && p[len] != ',')
    ++len;
  *s = p + len;
  for (int i = 0; i < n; ++i)
    {
      size_t j = 0;
      while (j < len && j < HP_WORD_MAX && names[i][j] == p[j])
	++j;
      if (j == len && j < HP_WORD_MAX && names[i][j] == '\0')
	return i;
    }
  return -1;
}

/* HP_KIND_TABLE's words, then HP_KIND_ALL_WORD, and their bits.  */
#define HP_KIND_NAME(id, name) #name,
static const char hp_kind_names[][HP_WORD_MAX] =
  { HP_KIND_TABLE (HP_KIND_NAME) HP_KIND_ALL_WORD };
#define HP_KIND_BIT(id, name) HP_KIND_##id,
static const unsigned int hp_kind_bits[] =
  { HP_KIND_TABLE (HP_KIND_BIT) HP_KIND_ALL };
#define HP_NKINDS (sizeof hp_kind_bits / sizeof hp_kind_bits[0] - 1)
/* The table's words are in the order of their bits, and cover them.  */
#define HP_KIND_COUNT(id, name) + 1
_Static_assert ((1U << (0 HP_KIND_TABLE (HP_KIND_COUNT))) - 1 == HP_KIND_ALL,
		"HP_KIND_TABLE has a word for each HP_KIND_* bit");

int
_dl_hugepage_parse_kinds_n (const char *s, size_t len)
{
  const char *end = s + len;
  unsigned int kinds = 0;
  int i;
  while ((i = _dl_hugepage_list_next (&s, end, hp_kind_names, HP_NKINDS + 1))
	 != -2)
    {
      if (i < 0)
	return -1;
      kinds |= hp_kind_bits[i];
    }
  return kinds;
}

int
_dl_hugepage_parse_kinds (const char *s)
{
  const char *end = s;
  while (*end != '\0')
    ++end;
  return _dl_hugepage_parse_kinds_n (s, end - s);
}

const char *
_dl_hugepage_kind_name (unsigned int kind)
{
  if (kind == (HP_KIND_DATA | HP_KIND_BSS))
    return "data+bss";
  for (size_t i = 0; i < HP_NKINDS; ++i)
    if (kind == hp_kind_bits[i])
      return hp_kind_names[i];
  return "?";
}

bool
_dl_hugepage_list_append (char *buf, size_t size, char sep,
			  const char *name)
{
  size_t pos = 0, len = 0;
  while (buf[pos] != '\0')
    ++pos;
  while (name[len] != '\0')
    ++len;
  if (pos + (pos > 0) + len >= size)
    return false;
  if (pos > 0)
    buf[pos++] = sep;
  for (size_t i = 0; i <= len; ++i)
    buf[pos + i] = name[i];
  return true;
}

char *
_dl_hugepage_kinds_string (unsigned int kinds, char sep, char *buf,
			   size_t size)
{
  if (size > 0)
    buf[0] = '\0';
  for (unsigned int k = HP_KIND_TEXT; k <= HP_KIND_BSS; k <<= 1)
    if ((kinds & k)
	&& !_dl_hugepage_list_append (buf, size, sep,
				      _dl_hugepage_kind_name (k)))
      break;
  return buf;
}
