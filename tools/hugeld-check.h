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

/* What the hugeld command refuses in a setting (hugeld-plan --check-*,
   hugeld-conf --effective), parsed with the loader's own code.  ld.so
   warns about, or does not notice, what these refuse; the command
   says so before it runs anything.  Each returns NULL for a sound
   value, else the message (in MSG, SIZE bytes).  */

#ifndef HUGELD_CHECK_H
#define HUGELD_CHECK_H 1

#include <stddef.h>
#include "dl-hugepage-cache.h"

/* The size of a message buffer that holds any of them.  */
#define HUGELD_CHECK_MSG_MAX 512

/* LD_HUGEPAGE_LIBS PATTERNS: an empty list or pattern, an unclosed
   bracket, a lone backslash (_dl_hugepage_pattern_problem).  */
const char *hugeld_check_libs (const char *patterns, char *msg,
			       size_t size);

/* LD_HUGEPAGE_SEGMENTS LIST: empty, an unknown kind, or none
   selected.  */
const char *hugeld_check_segments (const char *list, char *msg,
				   size_t size);

/* LD_HUGEPAGE_BACKING LIST: empty, an unknown backing, or none
   selected.  Sets ORDER[0..*N) to the backings, in order.  */
const char *hugeld_check_backing (const char *list,
				  unsigned char order[HP_NBACKINGS], int *n,
				  char *msg, size_t size);

#endif /* hugeld-check.h */
