/* hugeld: decimal numbers through glibc's own routine.  Pure interface.
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


/* The pure files read the decimal numbers of the policy file and of
   the cgroup and pool files through glibc's own _dl_strtoul
   (elf/dl-misc.c): in ld.so the one declared in <ldsodefs.h>, outside
   glibc (the unit tests, the fuzzer, the command's helpers) the C
   library's strtoull with base 0, which reads the same forms.  Both
   read a leading 0 as octal and 0x as hexadecimal, where these files
   hold plain decimal digits: hp_decimal gives them a run of digits
   without its leading zeros.  (ld.so writes numbers with _itoa,
   elf/dl-minimal.c.)  */

#ifndef _DL_HUGEPAGE_NUM_H
#define _DL_HUGEPAGE_NUM_H 1

#include <stddef.h>
#include <stdint.h>

#ifdef _LIBC
# include <ldsodefs.h>
#else
# include <stdlib.h>
# define _dl_strtoul(s, endptr) ((uint64_t) strtoull ((s), (endptr), 0))
#endif

/* The number of decimal digits at the start of [S, S + LEN).  */
static inline size_t
hp_digits (const char *s, size_t len)
{
  size_t n = 0;
  while (n < len && s[n] >= '0' && s[n] <= '9')
    ++n;
  return n;
}

/* The value of the N decimal digits at S (0 if N is 0), or
   UINT64_MAX if it does not fit (_dl_strtoul saturates).  */
static inline uint64_t
hp_decimal (const char *s, size_t n)
{
  while (n > 1 && *s == '0')
    {
      ++s;
      --n;
    }
  char buf[24];
  if (n >= sizeof buf)
    return UINT64_MAX;
  __builtin_memcpy (buf, s, n);
  buf[n] = '\0';
  return _dl_strtoul (buf, NULL);
}

#endif /* dl-hugepage-num.h */
