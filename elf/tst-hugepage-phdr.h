/* hugeld: hand-made program headers for the planner's tests.
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

/* Used by elf/tst-hugepage-plan.c (in glibc's framework and in the
   hugeld tree's `make unit') and by the hugeld tree's unit test of the
   dynamic section's reader (tests/unit/test-dynamic.c), which include
   dl-hugepage-plan.h first.  Inline, so that a test need not use them
   all.  */

#ifndef _TST_HUGEPAGE_PHDR_H
#define _TST_HUGEPAGE_PHDR_H 1

#define K 1024UL
#define M (1024UL * 1024UL)
#define H (2 * M)

/* A PT_LOAD header.  */
static inline ElfW(Phdr)
load (uint64_t vaddr, uint64_t filesz, uint64_t memsz, uint64_t off,
      uint32_t flags, uint64_t align)
{
  ElfW(Phdr) p = { 0 };
  p.p_type = PT_LOAD;
  p.p_vaddr = p.p_paddr = vaddr;
  p.p_filesz = filesz;
  p.p_memsz = memsz;
  p.p_offset = off;
  p.p_flags = flags;
  p.p_align = align;
  return p;
}

/* A PT_GNU_RELRO header.  */
static inline ElfW(Phdr)
relro (uint64_t vaddr, uint64_t memsz)
{
  ElfW(Phdr) p = { 0 };
  p.p_type = PT_GNU_RELRO;
  p.p_vaddr = vaddr;
  p.p_memsz = p.p_filesz = memsz;
  p.p_align = 1;
  return p;
}

/* The settings for 4 KiB pages, 2 MiB huge pages and KINDS, the file's
   size unknown.  */
static inline struct hp_settings
settings (unsigned int kinds)
{
  struct hp_settings s = { .pagesize = 4 * K, .hugepagesize = H,
			   .kinds = kinds, .file_size = HP_ADDR_LIMIT };
  return s;
}

#endif /* tst-hugepage-phdr.h */
