/* hugeld: the planner, a pure function of the program headers.
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

/* _dl_hugepage_plan on hand-made program headers: which ranges of an
   object go on 2 MiB pages, for which load bias, and why the rest does
   not.  The planner makes no system call and keeps no state, so the
   test builds its source in (as the hugeld tree's unit tests and fuzzer
   do) and needs nothing of the machine: no pool, no /proc.  Every plan
   is also checked against the rules any plan must keep: zones on whole
   huge pages at the planned bias, inside their own segment's pages,
   never writable and executable, copying only what the file holds.  */

#include <array_length.h>
#include <string.h>
#include <support/check.h>

#include "dl-hugepage-plan.c"
#include "dl-hugepage-kinds.c"

#include "tst-hugepage-phdr.h"

static struct hp_plan plan;

/* The PT_LOAD header the planner numbers INDEX.  */
static const ElfW(Phdr) *
nth_load (const ElfW(Phdr) *ph, size_t n, int index)
{
  for (size_t i = 0; i < n; ++i)
    if (ph[i].p_type == PT_LOAD && ph[i].p_memsz > 0 && index-- == 0)
      return &ph[i];
  return NULL;
}

/* Plan PH[0..N) with S into PLAN and check the rules every plan
   keeps.  */
static void
run (const ElfW(Phdr) *ph, size_t n, const struct hp_settings *s)
{
  memset (&plan, 0xa5, sizeof plan);
  _dl_hugepage_plan (ph, n, s, &plan);
  if (plan.error != HP_E_NONE)
    return;
  TEST_VERIFY (plan.nzones <= HP_MAX_RUNS);
  uint64_t sum = 0;
  for (size_t i = 0; i < plan.nzones; ++i)
    {
      const struct hp_zone *z = &plan.zones[i];
      const ElfW(Phdr) *seg = nth_load (ph, n, z->load);
      TEST_VERIFY_EXIT (seg != NULL);
      /* Whole huge pages at the planned bias.  */
      TEST_VERIFY (z->start < z->end);
      TEST_COMPARE ((z->start + plan.bias) % H, 0);
      TEST_COMPARE ((z->end + plan.bias) % H, 0);
      /* Only kinds that were asked for, never writable and
	 executable.  */
      TEST_COMPARE (z->kind & ~s->kinds, 0);
      TEST_VERIFY ((z->prot & (PF_W | PF_X)) != (PF_W | PF_X));
      /* The copy lies in the zone and in the segment's file bytes.  */
      if (z->copy_len > 0)
	{
	  TEST_VERIFY (z->copy_start >= z->start);
	  TEST_VERIFY (z->copy_start + z->copy_len <= z->end);
	  TEST_VERIFY (z->copy_start >= seg->p_vaddr);
	  TEST_VERIFY (z->copy_start + z->copy_need
		       <= seg->p_vaddr + seg->p_filesz);
	  TEST_COMPARE (z->fileoff,
			seg->p_offset + (z->copy_start - seg->p_vaddr));
	}
      /* Zones do not overlap and come in address order.  */
      if (i > 0)
	TEST_VERIFY (plan.zones[i - 1].end <= z->start);
      sum += z->end - z->start;
    }
  TEST_COMPARE (sum, plan.huge_bytes);
}

/* The bytes of the zones of kind KIND (any of its bits).  */
static uint64_t
bytes_of (unsigned int kind)
{
  uint64_t b = 0;
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind & kind)
      b += plan.zones[i].end - plan.zones[i].start;
  return b;
}

/* Whether a range left on ordinary pages says REASON.  */
static bool
said (int reason)
{
  for (size_t i = 0; i < plan.nsmall; ++i)
    if (plan.small[i].reason == reason)
      return true;
  return false;
}

/* An object the size of libc: no segment holds a whole huge page, so
   there is nothing to plan, and each segment says why.  */
static void
test_small (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 0x28000, 0x28000, 0, PF_R, 0x1000),
    load (0x28000, 0x155000, 0x155000, 0x28000, PF_R | PF_X, 0x1000),
    load (0x17d000, 0x56000, 0x56000, 0x17d000, PF_R, 0x1000),
    load (0x1d4f10, 0x5150, 0x12a60, 0x1d3f10, PF_R | PF_W, 0x1000),
    relro (0x1d4f10, 0x30f0),
  };
  struct hp_settings s = settings (HP_KIND_ALL);
  run (ph, array_length (ph), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (plan.nzones, 0);
  TEST_VERIFY (plan.nsmall >= 4);
}

/* A large library linked with 4 KiB alignment: 24 MiB of text from
   0x1000, 8 MiB of rodata, then RELRO, data and bss.  */
static ElfW(Phdr) big[6];
static void
make_big (void)
{
  big[0] = load (0, 0x800, 0x800, 0, PF_R, 0x1000);
  big[1] = load (0x1000, 24 * M, 24 * M, 0x1000, PF_R | PF_X, 0x1000);
  big[2] = load (0x1801000, 8 * M, 8 * M, 0x1801000, PF_R, 0x1000);
  big[3] = load (0x2002e10, 4 * M + 0x11f0 + 8 * M,
		 4 * M + 0x11f0 + 24 * M, 0x2001e10, PF_R | PF_W, 0x1000);
  big[4] = relro (0x2002e10, 4 * M + 0x11f0);
  big[5].p_type = PT_DYNAMIC;
}

/* The default kinds: the bias puts the text on whole huge pages, all
   of it, and the rodata; of RELRO what covers a whole page; nothing
   writable.  */
static void
test_big_default (void)
{
  make_big ();
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE ((0x1000 + plan.bias) % H, 0);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 24 * M);
  TEST_COMPARE (bytes_of (HP_KIND_RODATA), 8 * M);
  TEST_COMPARE (bytes_of (HP_KIND_RELRO), 2 * M);
  TEST_COMPARE (bytes_of (HP_KIND_DATA | HP_KIND_BSS), 0);
}

/* Every kind: data and bss are one zone that copies only the file's
   bytes; the rest of it is zero fill.  */
static void
test_big_all (void)
{
  make_big ();
  struct hp_settings s = settings (_dl_hugepage_parse_kinds ("all"));
  TEST_COMPARE (s.kinds, HP_KIND_ALL);
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 24 * M);
  TEST_COMPARE (bytes_of (HP_KIND_DATA | HP_KIND_BSS), 22 * M);
  bool merged = false;
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == (HP_KIND_DATA | HP_KIND_BSS))
      merged = true;
  TEST_VERIFY (merged);
}

/* A fixed bias that puts the text off the huge page grid by 4 KiB
   (as the kernel may place a program): the text keeps every whole huge
   page inside it, and the ends stay ordinary.  */
static void
test_fixed_bias (void)
{
  make_big ();
  struct hp_settings s = settings (HP_KIND_TEXT);
  s.fixed_bias = true;
  s.bias = 0x400000;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (plan.bias, 0x400000);
  /* Text [0x401000, 0x1c01000): huge pages [0x600000, 0x1c00000).  */
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 22 * M);
}

/* A file shorter than its program headers say (cut while being
   written): the segment the cut falls in, and every later one, stay
   as the stock loader maps them, and a range says why.  */
static void
test_short_file (void)
{
  make_big ();
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  s.file_size = 0x1801000 + M;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 24 * M);
  TEST_COMPARE (bytes_of (HP_KIND_RODATA | HP_KIND_RELRO), 0);
  TEST_VERIFY (said (HP_R_SHORT_FILE));

  s.file_size = 0x1000 + 3 * M;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.nzones, 0);
}

/* Program headers the planner refuses: more than it plans for.  */
static void
test_refused (void)
{
  static ElfW(Phdr) many[HP_MAX_LOADS + 1];
  for (size_t i = 0; i < array_length (many); ++i)
    many[i] = load (i * 4 * M, 4 * M, 4 * M, i * 4 * M, PF_R, H);
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (many, array_length (many), &s);
  TEST_VERIFY (plan.error != HP_E_NONE);
  TEST_COMPARE (plan.nzones, 0);
}

/* The words of LD_HUGEPAGE_SEGMENTS.  */
static void
test_kinds (void)
{
  TEST_COMPARE (_dl_hugepage_parse_kinds ("text,rodata"),
		HP_KIND_TEXT | HP_KIND_RODATA);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("bss"), HP_KIND_BSS);
  TEST_VERIFY (_dl_hugepage_parse_kinds ("text,stack") < 0);
}

static int
do_test (void)
{
  test_small ();
  test_big_default ();
  test_big_all ();
  test_fixed_bias ();
  test_short_file ();
  test_refused ();
  test_kinds ();
  return 0;
}

#include <support/test-driver.c>
