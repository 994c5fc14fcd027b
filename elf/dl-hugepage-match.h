/* hugeld: the LD_HUGEPAGE_LIBS patterns, and the names they are matched
   against.  Pure interface.
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

#ifndef _DL_HUGEPAGE_MATCH_H
#define _DL_HUGEPAGE_MATCH_H 1

/* Defined in dl-hugepage-match.c; pure.  */

#include <stdbool.h>
#include <stddef.h>

/* Match NAME against one shell glob pattern of length PATLEN: `*', `?',
   `[...]' with ranges and `!'/`^' negation, `\' escapes.  Like fnmatch
   with no flags: `*' also matches `/'.  */
bool _dl_hugepage_glob (const char *pat, size_t patlen, const char *name);

/* Match NAME against the colon-separated list PATTERNS.  A pattern
   containing `/' is matched against PATH, any other against NAME (the
   last path component).  Returns the first matching pattern and sets
   *LEN to its length, or NULL.  */
const char *_dl_hugepage_match_list (const char *patterns, const char *path,
				     const char *name, size_t *len);

/* Patterns that the matcher accepts but that are almost certainly
   mistakes: an empty list or pattern, an unclosed `[' (which then
   matches itself), a trailing lone backslash, a newline.  Returns a
   description of the first one, with the pattern in *PAT, *PATLEN, or
   NULL.  ld.so does not refuse these; the hugeld command does.  */
const char *_dl_hugepage_pattern_problem (const char *patterns,
					  const char **pat, size_t *patlen);

/* The last path component of PATH.  */
const char *_dl_hugepage_basename (const char *path);

/* Write into OUT (SIZE bytes) the path that TARGET names when it is
   read from the symbolic link at LINK, or (LINK NULL) that TARGET names
   by itself: TARGET if it is absolute, else LINK's directory and
   TARGET.  `.', empty components and `D/..' are removed lexically.
   False if it does not fit.  */
bool _dl_hugepage_link_path (const char *link, const char *target,
			     char *out, size_t size);

/* Whether LD_HUGEPAGE_LIBS (PATTERNS) selects an object, in ld.so's
   order: the path it was opened by (patterns with `/') or its last
   component, then its DT_SONAME (SONAME, or NULL/empty), then the name
   a kernel-mapped program was run by (ALIAS, or NULL).  Returns the
   matching pattern (length in *LEN) and sets *HOW to what matched, or
   returns NULL.  */
const char *_dl_hugepage_select (const char *patterns, const char *path,
				 const char *soname, const char *alias,
				 size_t *len, const char **how);

#endif /* dl-hugepage-match.h */
