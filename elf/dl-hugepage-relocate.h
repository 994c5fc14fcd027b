/* hugeld: moving the main program the kernel mapped.  Pure interface.
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

#ifndef _DL_HUGEPAGE_RELOCATE_H
#define _DL_HUGEPAGE_RELOCATE_H 1

/* Defined in dl-hugepage-relocate.c; pure.  The kernel places a
   position-independent program at a random 4 KiB-aligned address, so
   its text is congruent to the 2 MiB pages of its shared cache entry,
   or to its file offsets (the thp backing), about once in 512 starts.
   ld.so moves such a program, before anything has run or been
   relocated, to an address its zones fit (dl-hugepage-move.c makes
   the system calls); these functions decide what moves where, and
   read what the kernel says of the process's memory map.  */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dl-hugepage-plan.h"

/* A range of pages the kernel mapped for a PT_LOAD segment, in
   unrelocated addresses: the segment's file pages (FILE true), or the
   anonymous pages of its zero fill after them (the kernel maps them
   apart).  Each lies within one of the kernel's mappings, which is
   what mremap can move.  */
struct hp_move_range
{
  uint64_t start, end;
  bool file;
  int prot;			/* PF_R/PF_W/PF_X of the segment.  */
};

/* At most two ranges per segment.  */
#define HP_MAX_MOVE_RANGES (2 * HP_MAX_LOADS)

/* The ranges to move for the program headers PHDR[0..PHNUM), in
   address order, into R; *LO and *HI get the page-aligned extent of
   all of them.  Returns their number, or 0 where the program cannot be
   moved this way: no PT_LOAD, more than HP_MAX_LOADS, segments not in
   order or sharing a page, a segment whose file bytes do not fill its
   first page's offset (PAGESIZE, a power of two).  */
size_t _dl_hugepage_move_ranges (const ElfW(Phdr) *phdr, size_t phnum,
				 uint64_t pagesize, struct hp_move_range *r,
				 uint64_t *lo, uint64_t *hi);

/* The load bias in a reservation at RESERVED of HI - LO + MODULUS
   bytes (LO, HI from _dl_hugepage_move_ranges) that is congruent to
   BIAS modulo MODULUS (a power of two), so that [bias + LO, bias + HI)
   lies inside the reservation.  */
uint64_t _dl_hugepage_move_bias (uint64_t reserved, uint64_t lo,
				 uint64_t bias, uint64_t modulus);

/* What /proc/self/stat says of the memory map, in the order of struct
   prctl_mm_map (PR_SET_MM_MAP), which is how the kernel is told of the
   move: the fields it reads back for /proc/PID/stat, core dumps and
   the auxiliary vector of /proc/PID/auxv.  */
enum
{
  HP_MM_START_CODE, HP_MM_END_CODE, HP_MM_START_DATA, HP_MM_END_DATA,
  HP_MM_START_BRK, HP_MM_BRK, HP_MM_START_STACK, HP_MM_ARG_START,
  HP_MM_ARG_END, HP_MM_ENV_START, HP_MM_ENV_END, HP_MM_N
};

/* Read the fields above from the text BUF[0..LEN) of /proc/self/stat
   into V (HP_MM_BRK, which it does not show, is left 0): false if the
   text does not hold them all.  The command name, field 2, may hold
   any byte but NUL, spaces and parentheses included: the fields are
   counted from its last ')'.  */
bool _dl_hugepage_parse_stat_mm (const char *buf, size_t len,
				 uint64_t v[HP_MM_N]);

/* Shift by DELTA the fields of V that lie within [FROM, TO] (the
   program's old extent): the code and data bounds the kernel set from
   its segments.  */
void _dl_hugepage_shift_mm (uint64_t v[HP_MM_N], uint64_t from, uint64_t to,
			    uint64_t delta);

#endif /* dl-hugepage-relocate.h */
