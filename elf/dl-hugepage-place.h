/* hugeld: the backings, and where objects are placed for them.
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

#ifndef _DL_HUGEPAGE_PLACE_H
#define _DL_HUGEPAGE_PLACE_H 1

/* Defined in dl-hugepage-place.c; pure.  Which backings there are
   (one table), in what order ld.so tries them, and what that order
   decides of an object's address: text at its file phase for thp, or
   the address a shared cache entry was made for.  */

#include <stdbool.h>
#include "dl-hugepage-plan.h"

/* The backings of LD_HUGEPAGE_BACKING, one table: for each backing,
   in the order ld.so tries them where no setting names one,
   X (ID, NAME, FLAGS).  HP_B_ID is its number (from 1; 0 means
   ordinary pages), NAME its word in the settings and the report, and
   _dl_hugepage_NAME_zone (dl-hugepage-int.h: hp_zone_fn) the function
   that puts a zone on it.  FLAGS (HP_BF_*) say what ld.so does
   differently for it:

   HP_BF_SHAREABLE  tried only for a zone _dl_hugepage_zone_shareable
		    allows (written memory is never shared); its pages
		    are counted as shared in the report.
   HP_BF_CACHED     its pages are a shared cache entry's, made for the
		    object at HP_PHASE_FREE: listed before any
		    HP_BF_FILE_PHASE backing, the object is placed for it
		    (_dl_hugepage_cache_placement).
   HP_BF_FILE_PHASE it wants relocatable text at its file phase
		    (_dl_hugepage_phase_mode).
   HP_BF_PLAIN      the report of a zone it placed is the original
		    report's words, with no "(NAME)"; a failure with an
		    errno is reported as a fallback to ordinary pages.

   Adding a backing is a line here, its zone function in a file of its
   own, and its test (docs/backings.md lists the places).  */
#define HP_BACKING_TABLE(X)					\
  X (SHARED, shared, HP_BF_SHAREABLE | HP_BF_CACHED)		\
  X (PRIVATE, private, HP_BF_PLAIN)				\
  X (THP, thp, HP_BF_FILE_PHASE)

#define HP_BF_SHAREABLE		0x1
#define HP_BF_CACHED		0x2
#define HP_BF_FILE_PHASE	0x4
#define HP_BF_PLAIN		0x8

enum hp_backing
{
#define HP_BACKING_ENUM(id, name, flags) HP_B_##id,
  HP_B_NONE = 0,
  HP_BACKING_TABLE (HP_BACKING_ENUM)
  HP_B_END
#undef HP_BACKING_ENUM
};
#define HP_NBACKINGS (HP_B_END - 1)

/* The backings ld.so tries where no setting names them, in the
   table's order: an initializer for an array of HP_NBACKINGS.  */
#define HP_BACKING_ID(id, name, flags) HP_B_##id,
#define HP_BACKINGS_DEFAULT { HP_BACKING_TABLE (HP_BACKING_ID) }

/* The HP_BF_* flags of backing B (0 for anything else).  */
unsigned int _dl_hugepage_backing_flags (int b);

/* Parse LD_HUGEPAGE_BACKING, a comma list of HP_BACKING_TABLE's words,
   into ORDER.  Returns the number of backings (a backing named twice
   counts once), or -1 if an element is not one of these (the caller
   then keeps HP_BACKINGS_DEFAULT).  */
int _dl_hugepage_parse_backing (const char *s,
				unsigned char order[HP_NBACKINGS]);
/* The same for the LEN bytes at S.  */
int _dl_hugepage_parse_backing_n (const char *s, size_t len,
				  unsigned char order[HP_NBACKINGS]);

/* The NAME of backing B in HP_BACKING_TABLE ("shared"), or "?".  */
const char *_dl_hugepage_backing_name (int backing);

/* The backings ORDER[0..N) as a comma list ("shared,private,thp"),
   written into BUF (SIZE bytes; HP_LIST_STRING_MAX hold any list).
   Returns BUF.  */
char *_dl_hugepage_backings_string (const unsigned char *order, int n,
				    char *buf, size_t size);

/* Whether backing B is tried at all for zone Z of an object with text
   relocations if TEXTREL: the shared backing only for a zone
   _dl_hugepage_zone_shareable allows (written memory is never
   shared).  */
bool _dl_hugepage_backing_tried (int b, const struct hp_zone *z,
				 bool textrel);

/* The backing ld.so ends up with for zone Z (of an object with text
   relocations if TEXTREL) trying ORDER[0..N) as its loop does, where
   the backings whose bit (1 << HP_B_*) is set in AVAILABLE work (the
   shared backing: the cache holds the zone; thp: the kernel gives
   transparent huge pages; private: a pool large enough): HP_B_*, or 0
   for ordinary pages.  ld.so finds out by trying; `hugeld plan'
   predicts with this.  */
int _dl_hugepage_expected_backing (const unsigned char *order, int n,
				   const struct hp_zone *z, bool textrel,
				   unsigned int available);

/* Where the kernel says whether transparent huge pages are enabled.  */
#define HP_THP_ENABLED_FILE "/sys/kernel/mm/transparent_hugepage/enabled"

/* Whether TEXT[0..LEN), the contents of HP_THP_ENABLED_FILE ("always
   madvise [never]": the mode in brackets), enables transparent huge
   pages: any mode but never.  False for nothing read.  */
bool _dl_hugepage_thp_enabled_text (const char *text, size_t len);

/* When ld.so puts a relocatable object's text at its file phase (enum
   hp_phase) for the backings ORDER[0..N-1]: always when an
   HP_BF_FILE_PHASE backing (thp) comes first, or when one is listed
   and the process can have no pool page
   (NO_POOL: no persistent or surplus pages configured, or a hugetlb
   cgroup that allows none), so that
   nothing else can give huge pages; otherwise only where that costs no
   huge page, so that the private and shared backings get the most.
   Shared cache entries are made for HP_PHASE_FREE.  */
int _dl_hugepage_phase_mode (const unsigned char *order, int n,
			     bool no_pool);

/* Whether an object whose 2 MiB zones ld.so applied gets its text's
   64 KiB pieces too (arm64 with 4 KiB pages: dl-hugepage-cont.c), with
   the kinds KINDS, the ordinary page size PAGESIZE and the backings
   ORDER[0..N): text selected, 4 KiB pages, the private backing in the
   order.  */
bool _dl_hugepage_cont_wanted (unsigned int kinds, uint64_t pagesize,
			       const unsigned char *order, int n);

/* Whether an object that has a shared cache entry is placed for it
   (HP_PHASE_FREE, what entries are made for) where
   _dl_hugepage_phase_mode gives HP_PHASE_ALWAYS because the process
   can have no pool page: the shared backing comes before thp in
   ORDER[0..N-1].  The cache's pages are already there and charged to
   whoever faulted them in, so a process with no pool page of its own
   (a Kubernetes pod that requested none) maps them all the same;
   placing the object for thp instead would make every entry miss.
   In terms of the table: an HP_BF_CACHED backing comes before any
   HP_BF_FILE_PHASE one.  */
bool _dl_hugepage_cache_placement (const unsigned char *order, int n);

#endif /* dl-hugepage-place.h */
