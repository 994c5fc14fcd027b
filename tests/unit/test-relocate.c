/* hugeld: unit tests for moving the kernel-mapped main program
   (dl-hugepage-relocate.c).  Built into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>
#include <string.h>
#include "dl-hugepage-relocate.h"
#include "unit-check.h"

#define P 0x1000UL
#define H (2UL << 20)

static ElfW(Phdr)
load (uint64_t off, uint64_t vaddr, uint64_t filesz, uint64_t memsz,
      int flags)
{
  ElfW(Phdr) ph = { .p_type = PT_LOAD, .p_offset = off, .p_vaddr = vaddr,
		    .p_filesz = filesz, .p_memsz = memsz, .p_flags = flags,
		    .p_align = P };
  return ph;
}

static void
test_ranges (void)
{
  /* A PIE as ld -z separate-code lays it out: R, RX, R, RW with bss.  */
  ElfW(Phdr) ph[] =
    {
      { .p_type = PT_PHDR, .p_offset = 64, .p_vaddr = 64, .p_filesz = 0x2d8,
	.p_memsz = 0x2d8 },
      load (0, 0, 0x5f0, 0x5f0, PF_R),
      load (0x1000, 0x1000, 0x3e5000, 0x3e5000, PF_R | PF_X),
      load (0x3e6000, 0x3e6000, 0x1000, 0x1000, PF_R),
      load (0x3e7de8, 0x3e8de8, 0x268, 0x3000, PF_R | PF_W),
    };
  struct hp_move_range r[HP_MAX_MOVE_RANGES];
  uint64_t lo = 1, hi = 0;
  size_t n = _dl_hugepage_move_ranges (ph, 5, P, r, &lo, &hi);
  CHECK (n == 5, "ranges: %zu", n);
  CHECK (lo == 0 && hi == 0x3ec000, "extent [%#lx, %#lx)",
	 (unsigned long) lo, (unsigned long) hi);
  CHECK (r[1].start == 0x1000 && r[1].end == 0x3e6000 && r[1].file
	 && r[1].prot == (PF_R | PF_X), "text");
  CHECK (r[3].start == 0x3e8000 && r[3].end == 0x3ea000 && r[3].file,
	 "data's file pages");
  CHECK (r[4].start == 0x3ea000 && r[4].end == 0x3ec000 && !r[4].file,
	 "bss after them, anonymous");

  /* Segments sharing a page (an old layout): not moved.  */
  ElfW(Phdr) shared[] =
    {
      load (0, 0, 0x1800, 0x1800, PF_R | PF_X),
      load (0x1800, 0x1800, 0x100, 0x200, PF_R | PF_W),
    };
  CHECK (_dl_hugepage_move_ranges (shared, 2, P, r, &lo, &hi) == 0,
	 "shared page");
  /* Out of order.  */
  ElfW(Phdr) unsorted[] =
    {
      load (0x10000, 0x10000, 0x1000, 0x1000, PF_R),
      load (0, 0, 0x1000, 0x1000, PF_R | PF_X),
    };
  CHECK (_dl_hugepage_move_ranges (unsorted, 2, P, r, &lo, &hi) == 0,
	 "unsorted");
  /* A segment whose offset and address disagree within a page.  */
  ElfW(Phdr) skew[] = { load (0x10, 0x20, 0x100, 0x100, PF_R) };
  CHECK (_dl_hugepage_move_ranges (skew, 1, P, r, &lo, &hi) == 0, "skew");
  /* Only bss.  */
  ElfW(Phdr) bss[] =
    {
      load (0, 0, 0x1000, 0x1000, PF_R | PF_X),
      load (0x1000, 0x2000, 0, 0x5000, PF_R | PF_W),
    };
  n = _dl_hugepage_move_ranges (bss, 2, P, r, &lo, &hi);
  CHECK (n == 2 && r[1].start == 0x2000 && r[1].end == 0x7000 && !r[1].file,
	 "bss only: %zu", n);
  /* None at all, and too many.  */
  CHECK (_dl_hugepage_move_ranges (ph, 1, P, r, &lo, &hi) == 0, "no load");
  ElfW(Phdr) many[HP_MAX_LOADS + 1];
  for (size_t i = 0; i <= HP_MAX_LOADS; ++i)
    many[i] = load (i * P, i * P, P, P, PF_R);
  CHECK (_dl_hugepage_move_ranges (many, HP_MAX_LOADS + 1, P, r, &lo, &hi)
	 == 0, "too many");
}

static void
test_bias (void)
{
  /* In a reservation of the extent plus the modulus, the bias has the
     wanted phase and the extent fits.  */
  uint64_t lo = 0x1000, hi = 0x3ec000;
  for (uint64_t res = 0x7f0000000000; res < 0x7f0000000000 + 3 * H;
       res += 0x7000)
    for (uint64_t want = 0; want < H; want += 0x3f000)
      {
	uint64_t b = _dl_hugepage_move_bias (res, lo, want, H);
	if ((b - want) % H != 0 || b + lo < res || b + hi > res + hi - lo + H)
	  {
	    CHECK (false, "bias %#lx for reservation %#lx, phase %#lx",
		   (unsigned long) b, (unsigned long) res,
		   (unsigned long) want);
	    return;
	  }
      }
  CHECK (true, "bias");
}

static void
test_stat (void)
{
  static const char stat[] =
    "2706 (a (b) c) R 2663 2663 1487 0 -1 4194304 129 0 0 0 0 0 0 0 20 0 1 "
    "0 135825 3133440 381 18446744073709551615 94394563211264 "
    "94394563231145 140726384453616 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 "
    "94394563247152 94394563248768 94395280453632 140726384458426 "
    "140726384458446 140726384458446 140726384459755 0\n";
  uint64_t v[HP_MM_N];
  CHECK (_dl_hugepage_parse_stat_mm (stat, sizeof stat - 1, v), "parse");
  CHECK (v[HP_MM_START_CODE] == 94394563211264UL
	 && v[HP_MM_END_CODE] == 94394563231145UL
	 && v[HP_MM_START_STACK] == 140726384453616UL
	 && v[HP_MM_START_DATA] == 94394563247152UL
	 && v[HP_MM_END_DATA] == 94394563248768UL
	 && v[HP_MM_START_BRK] == 94395280453632UL
	 && v[HP_MM_ARG_START] == 140726384458426UL
	 && v[HP_MM_ENV_END] == 140726384459755UL && v[HP_MM_BRK] == 0,
	 "fields");
  /* Cut anywhere before the field after env_end: refused, never read
     past the end.  */
  for (size_t len = 0; len < sizeof stat - 4; ++len)
    if (_dl_hugepage_parse_stat_mm (stat, len, v))
      {
	CHECK (false, "cut at %zu", len);
	break;
      }
  CHECK (!_dl_hugepage_parse_stat_mm ("1 (x", 4, v), "no parenthesis");
  /* A field that is not a number where one is read.  */
  static const char bad[] =
    "1 (x) R 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 x 1 1 0 0 0 0 0 0 0"
    " 0 0 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 0";
  CHECK (!_dl_hugepage_parse_stat_mm (bad, sizeof bad - 1, v), "letter");

  uint64_t m[HP_MM_N] = { 0 };
  m[HP_MM_START_CODE] = 0x555555556000;
  m[HP_MM_END_CODE] = 0x55555555a000;
  m[HP_MM_START_DATA] = 0x55555555c000;
  m[HP_MM_END_DATA] = 0x55555555d000;
  m[HP_MM_START_BRK] = 0x555555560000;
  _dl_hugepage_shift_mm (m, 0x555555554000, 0x555555560000, 0x1000000);
  CHECK (m[HP_MM_START_CODE] == 0x555556556000
	 && m[HP_MM_END_DATA] == 0x55555655d000
	 && m[HP_MM_START_BRK] == 0x555555560000, "shift");
}

/* _dl_hugepage_may_have_zone (dl-hugepage-plan.c): the early way out
   for objects too small for a huge page.  */
static void
test_may_have_zone (void)
{
  ElfW(Phdr) small[] =
    {
      load (0, 0, 0x1000, 0x1000, PF_R),
      load (0x1000, 0x1000, H - 0x1000, H - 0x1000, PF_R | PF_X),
      load (H, H + 0x1000, 0x100, 0x1000, PF_R | PF_W),
    };
  CHECK (!_dl_hugepage_may_have_zone (small, 3, H), "all under 2 MiB");
  ElfW(Phdr) bss[] = { load (0, 0, 0x1000, 2 * H, PF_R | PF_W) };
  CHECK (_dl_hugepage_may_have_zone (bss, 1, H), "a 4 MiB bss");
  ElfW(Phdr) text[] = { load (0, 0, H, H, PF_R | PF_X) };
  CHECK (_dl_hugepage_may_have_zone (text, 1, H), "2 MiB of text");
  ElfW(Phdr) other = { .p_type = PT_NOTE, .p_memsz = 4 * H };
  CHECK (!_dl_hugepage_may_have_zone (&other, 1, H), "not a PT_LOAD");
}

void
test_relocate (void)
{
  test_may_have_zone ();
  test_ranges ();
  test_bias ();
  test_stat ();
}
