/* hugeld: the words of the settings' lists (segments, backing).
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

#ifndef _DL_HUGEPAGE_KINDS_H
#define _DL_HUGEPAGE_KINDS_H 1

/* Defined in dl-hugepage-kinds.c; pure.  The kinds themselves
   (HP_KIND_*) are the planner's, in dl-hugepage-plan.h.  */

#include "dl-hugepage-plan.h"

/* The longest word of a setting's comma list, with its NUL.  */
#define HP_WORD_MAX 8

/* The next element of the comma list at *S, which ends at END
   (empty elements skipped), and move past it: its index among the N
   words NAMES, -1 if it is none of them, -2 at the end of the list.  */
int _dl_hugepage_list_next (const char **s, const char *end,
			    const char (*names)[HP_WORD_MAX], int n);

/* Parse LD_HUGEPAGE_SEGMENTS, S (LEN bytes; the first form up to its
   NUL): a comma list of HP_KIND_TABLE's words and HP_KIND_ALL_WORD.
   Returns the HP_KIND_* mask, or -1 if an element is not one of these
   (the caller then keeps the default).  */
int _dl_hugepage_parse_kinds (const char *s);
int _dl_hugepage_parse_kinds_n (const char *s, size_t len);

/* Name of a single HP_KIND_* bit ("text", ...), or "data+bss".  */
const char *_dl_hugepage_kind_name (unsigned int kind);

/* A buffer this large holds any list of names below, with its NUL.  */
#define HP_LIST_STRING_MAX 32

/* Append to the list in BUF (SIZE bytes, NUL-terminated) the word NAME,
   after SEP unless the list is empty.  False, with BUF unchanged, if it
   does not fit.  */
bool _dl_hugepage_list_append (char *buf, size_t size, char sep,
			       const char *name);

/* The names of the kinds in KINDS, in the order of their bits
   ("text,rodata,relro" with SEP ','), written into BUF (SIZE bytes);
   empty for none.  Returns BUF.  */
char *_dl_hugepage_kinds_string (unsigned int kinds, char sep, char *buf,
				 size_t size);

#endif /* dl-hugepage-kinds.h */
