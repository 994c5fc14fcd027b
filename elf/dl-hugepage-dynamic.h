/* hugeld: what is read of an object's dynamic section before it is mapped.
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

#ifndef _DL_HUGEPAGE_DYNAMIC_H
#define _DL_HUGEPAGE_DYNAMIC_H 1

/* Defined in dl-hugepage-dynamic.c; pure, like the planner: ld.so and
   hugeld-plan read the dynamic section with the same code.  */

#include "dl-hugepage-plan.h"

/* What ld.so reads of an object's dynamic section before mapping it.  */
struct hp_dynamic
{
  bool textrel;			/* DT_TEXTREL, or DF_TEXTREL in DT_FLAGS.  */
  bool have_soname;
  uint64_t strtab;		/* DT_STRTAB (unrelocated address).  */
  uint64_t soname;		/* DT_SONAME (offset into the strings).  */
};

/* Fold the dynamic entries DYN[0..N) into *INFO (zeroed before the
   first call).  Returns false once DT_NULL was seen: the caller reads
   the section in chunks and stops there.  */
bool _dl_hugepage_scan_dynamic (const ElfW(Dyn) *dyn, size_t n,
				struct hp_dynamic *info);

/* Reads LEN bytes at OFFSET of a file into BUF (fewer only at its
   end): the number read, or -1.  CTX is the caller's.  */
typedef long int hp_read_fn (void *ctx, void *buf, size_t len,
			     uint64_t offset);

/* What ld.so reads of an object's dynamic section before mapping it,
   through READER, given its program headers PHDR[0..PHNUM): sets
   *TEXTREL and SONAME (empty if there is none, or if it does not fit
   in HP_SONAME_MAX bytes; not read if SONAME is NULL: the string is a
   read of its own elsewhere in the file), and returns whether it has
   a PT_DYNAMIC.
   At most HP_MAX_DYN entries are looked at.  ld.so and hugeld-plan
   both read it with this function.  */
bool _dl_hugepage_read_dynamic (const ElfW(Phdr) *phdr, size_t phnum,
				hp_read_fn *reader, void *ctx, bool *textrel,
				char soname[HP_SONAME_MAX]);

/* The file offset of the unrelocated address VADDR through the PT_LOAD
   headers PHDR[0..PHNUM), or -1 if no segment has it in the file.  */
int64_t _dl_hugepage_vaddr_to_offset (const ElfW(Phdr) *phdr, size_t phnum,
				      uint64_t vaddr);

#endif /* dl-hugepage-dynamic.h */
