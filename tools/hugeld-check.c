/* hugeld's helpers: the checks of the LD_HUGEPAGE_* settings.
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

#include <stdio.h>
#include "dl-hugepage-settings.h"
#include "hugeld-check.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"

const char *
hugeld_check_libs (const char *patterns, char *msg, size_t size)
{
  const char *pat;
  size_t len;
  const char *why = _dl_hugepage_pattern_problem (patterns, &pat, &len);
  if (why == NULL)
    return NULL;
  if (len > 0)
    snprintf (msg, size, "pattern \"%.*s\": %s", (int) len, pat, why);
  else
    snprintf (msg, size, "\"%s\": %s", patterns, why);
  return msg;
}

const char *
hugeld_check_segments (const char *list, char *msg, size_t size)
{
  int kinds = _dl_hugepage_parse_kinds (list);
  if (list[0] == '\0')
    snprintf (msg, size, "empty list");
  else if (kinds < 0)
    snprintf (msg, size, "unknown segment kind in \"%s\": use a comma list "
	      "of %s", list, _dl_hugepage_setting_words (HP_SET_SEGMENTS));
  else if (kinds == 0)
    snprintf (msg, size, "\"%s\" selects nothing", list);
  else
    return NULL;
  return msg;
}

const char *
hugeld_check_backing (const char *list, unsigned char order[HP_NBACKINGS],
		      int *n, char *msg, size_t size)
{
  *n = _dl_hugepage_parse_backing (list, order);
  if (*n < 0)
    snprintf (msg, size, "unknown backing in \"%s\": use a comma list of "
	      "%s", list, _dl_hugepage_setting_words (HP_SET_BACKING));
  else if (*n == 0)
    snprintf (msg, size, list[0] == '\0' ? "empty list"
	      : "\"%s\" selects nothing", list);
  else
    return NULL;
  return msg;
}
