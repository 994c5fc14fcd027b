/* hugeld: moving the main program the kernel mapped.  Pure.
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

#include "dl-hugepage-relocate.h"
#include "dl-hugepage-num.h"

size_t
_dl_hugepage_move_ranges (const ElfW(Phdr) *phdr, size_t phnum,
			  uint64_t pagesize, struct hp_move_range *r,
			  uint64_t *lo, uint64_t *hi)
{
  size_t n = 0, loads = 0;
  uint64_t end = 0;
  for (size_t i = 0; i < phnum; ++i)
    {
      const ElfW(Phdr) *ph = &phdr[i];
      if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
	continue;
      if (++loads > HP_MAX_LOADS
	  || ph->p_vaddr >= HP_ADDR_LIMIT || ph->p_memsz >= HP_ADDR_LIMIT
	  || ph->p_filesz > ph->p_memsz
	  || (ph->p_vaddr - ph->p_offset) % pagesize != 0)
	return 0;
      uint64_t start = ph->p_vaddr & -pagesize;
      uint64_t fend = (ph->p_vaddr + ph->p_filesz + pagesize - 1) & -pagesize;
      uint64_t mend = (ph->p_vaddr + ph->p_memsz + pagesize - 1) & -pagesize;
      /* In order, no page shared with the segment before.  */
      if (start < end)
	return 0;
      if (ph->p_filesz == 0)
	fend = start;
      int prot = ph->p_flags & (PF_R | PF_W | PF_X);
      if (fend > start)
	r[n++] = (struct hp_move_range) { start, fend, true, prot };
      if (mend > fend)
	r[n++] = (struct hp_move_range) { fend, mend, false, prot };
      if (loads == 1)
	*lo = start;
      end = mend;
      *hi = mend;
    }
  return n;
}

uint64_t
_dl_hugepage_move_bias (uint64_t reserved, uint64_t lo, uint64_t bias,
			uint64_t modulus)
{
  uint64_t at = reserved - lo;
  return at + ((bias - at) & (modulus - 1));
}

bool
_dl_hugepage_parse_stat_mm (const char *buf, size_t len, uint64_t v[HP_MM_N])
{
  /* The fields after the command name, numbered as proc(5) does: the
     state is field 3.  */
  static const unsigned char field[HP_MM_N] =
    {
      [HP_MM_START_CODE] = 26, [HP_MM_END_CODE] = 27,
      [HP_MM_START_STACK] = 28, [HP_MM_START_DATA] = 45,
      [HP_MM_END_DATA] = 46, [HP_MM_START_BRK] = 47,
      [HP_MM_ARG_START] = 48, [HP_MM_ARG_END] = 49,
      [HP_MM_ENV_START] = 50, [HP_MM_ENV_END] = 51,
    };
  size_t p = len;
  while (p > 0 && buf[p - 1] != ')')
    --p;
  if (p == 0)
    return false;
  uint64_t got[52] = { 0 };
  /* Fields 3 to 51, each ended by a space (env_end, 51, is followed by
     the exit code): a text cut inside one is refused.  */
  for (unsigned int k = 3; k < 52; ++k)
    {
      if (p >= len || buf[p] != ' ')
	return false;
      ++p;
      size_t n = hp_digits (buf + p, len - p);
      if (k >= 26)
	{
	  if (n == 0)
	    return false;
	  got[k] = hp_decimal (buf + p, n);
	}
      /* Skip the field, whatever it is (the state is a letter).  */
      while (p < len && buf[p] != ' ' && buf[p] != '\n')
	++p;
    }
  if (p >= len || buf[p] != ' ')
    return false;
  for (int i = 0; i < HP_MM_N; ++i)
    v[i] = field[i] != 0 ? got[field[i]] : 0;
  return true;
}

void
_dl_hugepage_shift_mm (uint64_t v[HP_MM_N], uint64_t from, uint64_t to,
		       uint64_t delta)
{
  static const int moved[] =
    { HP_MM_START_CODE, HP_MM_END_CODE, HP_MM_START_DATA, HP_MM_END_DATA };
  for (size_t i = 0; i < sizeof moved / sizeof moved[0]; ++i)
    if (v[moved[i]] >= from && v[moved[i]] <= to)
      v[moved[i]] += delta;
}
