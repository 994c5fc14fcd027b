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
   not; the settings ld.so plans with, the order a short pool is spent
   in, a zone cut in two, and the words of LD_HUGEPAGE_SEGMENTS.  The
   planner makes no system call and keeps no state, so the test builds
   its source in and needs nothing of the machine: no pool, no /proc.
   Every plan is also checked against the rules any plan must keep
   (here, and in tst-hugepage-plan-check.h): zones on whole huge pages
   at the planned bias, inside their own segment's pages, never
   writable and executable, copying only what the file holds, and
   every way of cutting a zone in two as sound.

   The planner's one test: glibc's framework builds it (elf/Makefile),
   and so does the hugeld tree's `make unit', with a copy of the
   framework's macros (tests/unit/support/check.h) and the sanitizers.  */

#include <array_length.h>
#include <string.h>
#include <support/check.h>

#include "dl-hugepage-plan.c"
#include "dl-hugepage-kinds.c"

#include "tst-hugepage-phdr.h"
#include "tst-hugepage-plan-check.h"

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
  const char *v = plan_violation (ph, n, s, &plan);
  if (v != NULL)
    FAIL ("invariant: %s", v);
  v = plan_parts_violation (ph, n, s, &plan);
  if (v != NULL)
    FAIL ("invariant: %s", v);
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

/* A large library (the shape of the generated big-code library),
   linked with ALIGN: 24 MiB of text from 0x1000, 8 MiB of rodata, then
   RELRO (4 MiB and a bit), 8 MiB of data and 16 MiB of bss.  */
static ElfW(Phdr) big[6];
static void
make_big (uint64_t align)
{
  big[0] = load (0, 0x800, 0x800, 0, PF_R, align);
  big[1] = load (0x1000, 24 * M, 24 * M, 0x1000, PF_R | PF_X, align);
  big[2] = load (0x1801000, 8 * M, 8 * M, 0x1801000, PF_R, align);
  big[3] = load (0x2002e10, 4 * M + 0x11f0 + 8 * M,
		 4 * M + 0x11f0 + 24 * M, 0x2001e10, PF_R | PF_W, align);
  big[4] = relro (0x2002e10, 4 * M + 0x11f0);
  big[5].p_type = PT_DYNAMIC;
}

/* The default kinds: the bias puts the text on whole huge pages, all
   of it, and the rodata; of RELRO what covers a whole page; nothing
   writable.  */
static void
test_big_default (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE ((0x1000 + plan.bias) % H, 0);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 24 * M);
  TEST_COMPARE (bytes_of (HP_KIND_RODATA), 8 * M);
  /* RELRO [0x2002000, 0x2404000) + bias 0x1ff000: one whole page.  */
  TEST_COMPARE (bytes_of (HP_KIND_RELRO), 2 * M);
  TEST_COMPARE (bytes_of (HP_KIND_DATA | HP_KIND_BSS), 0);
  /* The text copies all of its pages, from their own offsets.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == HP_KIND_TEXT)
      {
	TEST_COMPARE (plan.zones[i].copy_len,
		      plan.zones[i].end - plan.zones[i].start);
	TEST_COMPARE (plan.zones[i].fileoff, plan.zones[i].copy_start);
      }
}

/* Every kind: data and bss are one zone that copies only the file's
   bytes; the rest of it is zero fill.  */
static void
test_big_all (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (_dl_hugepage_parse_kinds ("all"));
  TEST_COMPARE (s.kinds, HP_KIND_ALL);
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 24 * M);
  /* Data and bss merge into one run: 24 MiB from RELRO end
     (0x2404000) to 0x3c04000, with bias 0x1ff000 -> [0x2603000,
     0x3e03000) = interior [0x2800000, 0x3e00000) = 11 pages.  */
  TEST_COMPARE (bytes_of (HP_KIND_DATA | HP_KIND_BSS), 22 * M);
  bool merged = false;
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == (HP_KIND_DATA | HP_KIND_BSS))
      {
	merged = true;
	/* Copies only up to the last file byte; the rest stays zero.  */
	TEST_VERIFY (plan.zones[i].copy_start + plan.zones[i].copy_len
		     <= big[3].p_vaddr + big[3].p_filesz);
      }
  TEST_VERIFY (merged);
}

/* Only bss: nothing else, and nothing copied.  */
static void
test_only_bss (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_BSS);
  run (big, array_length (big), &s);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT | HP_KIND_RODATA | HP_KIND_RELRO
			  | HP_KIND_DATA), 0);
  TEST_VERIFY (bytes_of (HP_KIND_BSS) >= 14 * M);
  for (size_t i = 0; i < plan.nzones; ++i)
    TEST_COMPARE (plan.zones[i].copy_len, 0);
}

/* Linked with -z max-page-size=0x200000: everything 2 MiB aligned in
   vaddr; segments are covered completely, including the padding after
   each segment up to the next one.  */
static void
test_aligned_2m (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 0x1000, 0x1000, 0, PF_R, H),
    load (0x200000, 0x1234567, 0x1234567, 0x200000, PF_R | PF_X, H),
    load (0x1600000, 0x7f0000, 0x7f0000, 0x1600000, PF_R, H),
    load (0x1ffde10, 0x4021f0, 0x2402000, 0x1dfde10, PF_R | PF_W, H),
    relro (0x1ffde10, 0x4021f0),
  };
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (ph, array_length (ph), &s);
  TEST_COMPARE (plan.bias, 0);
  TEST_COMPARE (plan.modulus, H);
  /* Text [0x200000, 0x1435000) grows to 0x1600000 (next segment).  */
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 0x1400000);
  /* Rodata [0x1600000, 0x1df0000) grows to 0x1e00000 (next segment
     starts at 0x1ffd000, so 0x1e00000 is free).  */
  TEST_COMPARE (bytes_of (HP_KIND_RODATA), 0x800000);
  /* RELRO [0x1ffd000, 0x2400000): [0x2000000, 0x2400000).  */
  TEST_COMPARE (bytes_of (HP_KIND_RELRO), 0x400000);
  /* The extension zeroes the gap; nothing is copied past the file.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == HP_KIND_TEXT)
      TEST_COMPARE (plan.zones[i].copy_len, 0x1235000);
  /* The file after the text up to 0x1600000 is padding (the next
     segment starts there in the file too): the thp backing may map it;
     after rodata, up to 0x1e00000, the file holds the RW segment's
     bytes (from 0x1dfde10): it may not.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    {
      if (plan.zones[i].kind == HP_KIND_TEXT)
	TEST_VERIFY (plan.zones[i].file_whole);
      if (plan.zones[i].kind == HP_KIND_RODATA)
	TEST_VERIFY (!plan.zones[i].file_whole);
    }

  /* Kernel-mapped: the gaps are not ours.  */
  s.no_gaps = true;
  run (ph, array_length (ph), &s);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 0x1200000);
  TEST_COMPARE (bytes_of (HP_KIND_RODATA), 0x600000);
  s.no_gaps = false;
  run (ph, array_length (ph), &s);

  /* A 4 KiB header segment never gets a 2 MiB page of its own.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    TEST_VERIFY (plan.zones[i].load != 0);

  /* With text relocations the read-only segments keep their pages.  */
  s.textrel = true;
  run (ph, array_length (ph), &s);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 0x1200000);
}

/* p_align larger than the huge page size: the bias stays 0 modulo it.  */
static void
test_big_palign (void)
{
  make_big (8 * M);
  for (int i = 0; i < 4; ++i)
    big[i].p_align = 8 * M;
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.modulus, 8 * M);
  TEST_COMPARE (plan.bias, 0);
  /* Text [0x1000, 0x1801000) with bias 0: [0x200000, 0x1800000).  */
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 22 * M);

  /* p_align of 64 KiB: the bias is a multiple of it.  */
  make_big (64 * K);
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.bias % (64 * K), 0);

  /* ld.so takes the largest p_align of every PT_LOAD, empty ones
     included (dl-load.c records it before anything else): so must the
     planner.  */
  ElfW(Phdr) empty_align[] = {
    load (0, 0, 0, 0, PF_R, 8 * M),
    load (0x1000, 12 * M, 12 * M, 0x1000, PF_R | PF_X, 0x1000),
  };
  run (empty_align, array_length (empty_align), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (plan.modulus, 8 * M);
  TEST_COMPARE (plan.bias, 0);
}

/* ET_EXEC: fixed at its link address.  */
static void
test_fixed (void)
{
  ElfW(Phdr) ph[] = {
    load (0x400000, 0x800, 0x800, 0, PF_R, 0x1000),
    load (0x401000, 10 * M, 10 * M, 0x1000, PF_R | PF_X, 0x1000),
    load (0xe01000, 4 * M, 4 * M, 0xa01000, PF_R, 0x1000),
  };
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  s.fixed_bias = true;
  s.bias = 0;
  run (ph, array_length (ph), &s);
  TEST_COMPARE (plan.bias, 0);
  /* [0x401000, 0xe01000) -> [0x600000, 0xe00000).  */
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 8 * M);
  TEST_COMPARE (bytes_of (HP_KIND_RODATA), 2 * M);
  /* The text's head is reported as partial.  */
  bool found = false;
  for (size_t i = 0; i < plan.nsmall; ++i)
    if (plan.small[i].kind == HP_KIND_TEXT && plan.small[i].start == 0x401000
	&& plan.small[i].end == 0x600000
	&& plan.small[i].reason == HP_R_PARTIAL)
      found = true;
  TEST_VERIFY (found);

  /* A fixed bias that is not aligned is kept, zones follow it.  */
  s.bias = 0x3000;
  run (ph, array_length (ph), &s);
  TEST_COMPARE (plan.bias, 0x3000);
}

/* A fixed bias that puts the text off the huge page grid by 4 KiB
   (as the kernel may place a program): the text keeps every whole huge
   page inside it, and the ends stay ordinary.  */
static void
test_fixed_bias (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_TEXT);
  s.fixed_bias = true;
  s.bias = 0x400000;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (plan.bias, 0x400000);
  /* Text [0x401000, 0x1c01000): huge pages [0x600000, 0x1c00000).  */
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 22 * M);
}

/* A writable and executable segment is left alone, and says why.  */
static void
test_write_exec (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 8 * M, 8 * M, 0, PF_R | PF_W | PF_X, 0x1000),
  };
  struct hp_settings s = settings (HP_KIND_ALL);
  run (ph, array_length (ph), &s);
  TEST_COMPARE (plan.nzones, 0);
  TEST_COMPARE (plan.nsmall, 1);
  TEST_COMPARE (plan.small[0].reason, HP_R_WRITE_EXEC);
}

/* A file shorter than its program headers say (cut while being
   written): the segment the cut falls in, and every later one, stay
   as the stock loader maps them, and a range says why; those before
   it are planned as for the whole file, and no zone maps the file past
   its end.  */
static void
test_short_file (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  /* Cut 1 MiB into the rodata segment (file 0x1801000..0x2001000).  */
  s.file_size = 0x1801000 + M;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 24 * M);
  TEST_COMPARE (bytes_of (HP_KIND_RODATA | HP_KIND_RELRO), 0);
  TEST_VERIFY (said (HP_R_SHORT_FILE));
  /* Cut inside the text (file 0x1000..0x1801000): nothing of it.  */
  s.file_size = 0x1000 + 3 * M;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.nzones, 0);
  /* Exactly as long as the headers say: as for an unknown size.  */
  s.file_size = 0x2001e10 + 4 * M + 0x11f0 + 8 * M;
  run (big, array_length (big), &s);
  uint64_t whole = plan.huge_bytes;
  s.file_size = HP_ADDR_LIMIT;
  run (big, array_length (big), &s);
  TEST_COMPARE (plan.huge_bytes, whole);
  /* Cut right after the text: the text is planned, but the padding
     after it (0x1435000 to 0x1600000) is no longer in the file, so the
     thp backing may not map the file there.  */
  ElfW(Phdr) ph[] = {
    load (0, 0x1000, 0x1000, 0, PF_R, H),
    load (0x200000, 0x1234567, 0x1234567, 0x200000, PF_R | PF_X, H),
    load (0x1600000, 0x7f0000, 0x7f0000, 0x1600000, PF_R, H),
  };
  s.file_size = 0x1434567;
  run (ph, array_length (ph), &s);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 0x1400000);
  for (size_t i = 0; i < plan.nzones; ++i)
    TEST_VERIFY (plan.zones[i].kind != HP_KIND_TEXT
		 || !plan.zones[i].file_whole);
  s.file_size = HP_ADDR_LIMIT;
  run (ph, array_length (ph), &s);
  for (size_t i = 0; i < plan.nzones; ++i)
    TEST_VERIFY (plan.zones[i].kind != HP_KIND_TEXT
		 || plan.zones[i].file_whole);
  TEST_COMPARE_STRING (_dl_hugepage_reason_name (HP_R_SHORT_FILE),
		       "the file ends before the segment's bytes");
}

/* Program headers ld.so would reject (or that make no sense), or more
   than the planner plans for, give no plan.  */
static void
test_bad_headers (void)
{
  struct hp_settings s = settings (HP_KIND_ALL);
  ElfW(Phdr) overlap[] = {
    load (0, 8 * M, 8 * M, 0, PF_R | PF_X, 0x1000),
    load (4 * M, 8 * M, 8 * M, 4 * M, PF_R, 0x1000),
  };
  run (overlap, array_length (overlap), &s);
  TEST_COMPARE (plan.error, HP_E_BAD_HEADERS);

  ElfW(Phdr) unsorted[] = {
    load (16 * M, 8 * M, 8 * M, 0, PF_R, 0x1000),
    load (0, 8 * M, 8 * M, 8 * M, PF_R | PF_X, 0x1000),
  };
  run (unsorted, array_length (unsorted), &s);
  TEST_COMPARE (plan.error, HP_E_BAD_HEADERS);

  ElfW(Phdr) unaligned[] = {
    load (0x1000, 8 * M, 8 * M, 0x1800, PF_R | PF_X, 0x1000),
  };
  run (unaligned, array_length (unaligned), &s);
  TEST_COMPARE (plan.error, HP_E_BAD_HEADERS);

  ElfW(Phdr) filesz[] = {
    load (0, 9 * M, 8 * M, 0, PF_R | PF_X, 0x1000),
  };
  run (filesz, array_length (filesz), &s);
  TEST_COMPARE (plan.error, HP_E_BAD_HEADERS);

  ElfW(Phdr) huge_addr[] = {
    load (~(uint64_t) 0 - 0x1fff, 8 * M, 8 * M, 0, PF_R | PF_X, 0x1000),
  };
  run (huge_addr, array_length (huge_addr), &s);
  TEST_COMPARE (plan.error, HP_E_BAD_HEADERS);

  ElfW(Phdr) none[] = { relro (0, 4096) };
  run (none, array_length (none), &s);
  TEST_COMPARE (plan.error, HP_E_NO_LOADS);

  /* Zero-size segments are ignored, odd p_align too.  */
  ElfW(Phdr) odd[] = {
    load (0, 0, 0, 0, PF_R, 0x1000),
    load (0x1000, 8 * M, 8 * M, 0x1000, PF_R | PF_X, 12345),
  };
  run (odd, array_length (odd), &s);
  TEST_COMPARE (plan.error, HP_E_NONE);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 8 * M);

  /* A RELRO outside any segment changes nothing.  */
  ElfW(Phdr) far_relro[] = {
    load (0x1000, 8 * M, 8 * M, 0x1000, PF_R | PF_X, 0x1000),
    relro (64 * M, 4 * M),
  };
  run (far_relro, array_length (far_relro), &s);
  TEST_COMPARE (bytes_of (HP_KIND_TEXT), 8 * M);

  /* More headers than ld.so keeps: refused without looking at them.  */
  run (far_relro, HP_MAX_PHNUM + 1, &s);
  TEST_COMPARE (plan.error, HP_E_TOO_MANY_HEADERS);

  /* More PT_LOAD headers than a plan holds.  */
  static ElfW(Phdr) many[HP_MAX_LOADS + 1];
  for (size_t i = 0; i < array_length (many); ++i)
    many[i] = load (i * 4 * M, 4 * M, 4 * M, i * 4 * M, PF_R, H);
  struct hp_settings d = settings (HP_KIND_DEFAULT);
  run (many, array_length (many), &d);
  TEST_VERIFY (plan.error != HP_E_NONE);
  TEST_COMPARE (plan.nzones, 0);

  struct hp_settings bad = settings (HP_KIND_ALL);
  bad.hugepagesize = 3 * M;
  run (far_relro, array_length (far_relro), &bad);
  TEST_COMPARE (plan.error, HP_E_BAD_SETTINGS);
}

/* RELRO that ends inside a huge page range: the data after it does not
   share a huge page with it.  */
static void
test_relro_split (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 0x1000, 0x1000, 0, PF_R, 0x1000),
    load (0x200000, 12 * M, 12 * M, 0x200000, PF_R | PF_W, 0x1000),
    relro (0x200000, 5 * M + 0x800),
  };
  struct hp_settings s = settings (HP_KIND_ALL);
  s.fixed_bias = true;
  run (ph, array_length (ph), &s);
  /* RELRO [0x200000, 0x700000): 2 pages [0x200000, 0x600000).  Data
     [0x700000, 0xe00000): [0x800000, 0xe00000).  */
  TEST_COMPARE (bytes_of (HP_KIND_RELRO), 4 * M);
  TEST_COMPARE (bytes_of (HP_KIND_DATA), 6 * M);
}

/* The settings ld.so plans an object with, and the words of the
   reasons and errors.  */
static void
test_settings (void)
{
  struct hp_settings s;
  /* A library or PIE that ld.so maps: bias chosen, gaps its own.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_DYN, false, false, 0,
			 false, HP_PHASE_FREE);
  TEST_VERIFY (!s.fixed_bias);
  TEST_VERIFY (!s.no_gaps);
  TEST_COMPARE (s.hugepagesize, HP_HUGEPAGE_SIZE);
  TEST_COMPARE (s.pagesize, 4096);
  TEST_COMPARE (s.kinds, HP_KIND_DEFAULT);
  /* The same, where the reservation failed: the bias is where it is.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_ALL, ET_DYN, false, true,
			 0x7f0000123000, true, HP_PHASE_FREE);
  TEST_VERIFY (s.fixed_bias);
  TEST_COMPARE (s.bias, 0x7f0000123000);
  TEST_VERIFY (!s.no_gaps);
  TEST_VERIFY (s.textrel);
  /* `ld.so ./prog' with a non-PIE program: at its link address, and
     ld.so reserves nothing between its segments.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_EXEC, false, false, 0,
			 false, HP_PHASE_FREE);
  TEST_VERIFY (s.fixed_bias);
  TEST_COMPARE (s.bias, 0);
  TEST_VERIFY (s.no_gaps);
  /* Mapped by the kernel: its bias, its gaps unmapped.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_DYN, true, true,
			 0x555555554000, false, HP_PHASE_FREE);
  TEST_VERIFY (s.fixed_bias);
  TEST_COMPARE (s.bias, 0x555555554000);
  TEST_VERIFY (s.no_gaps);

  TEST_COMPARE_STRING (_dl_hugepage_reason_name (HP_R_PARTIAL),
		       "does not fill a whole huge page");
  TEST_COMPARE_STRING (_dl_hugepage_error_name (HP_E_NO_LOADS),
		       "no loadable segments");
  TEST_COMPARE_STRING (_dl_hugepage_reason_name (12345), "?");
}

/* The bytes of PLAN's text zones.  */
static uint64_t
text_bytes (const struct hp_plan *p)
{
  uint64_t text = 0;
  for (size_t i = 0; i < p->nzones; ++i)
    if (p->zones[i].kind == HP_KIND_TEXT)
      text += p->zones[i].end - p->zones[i].start;
  return text;
}

/* The first executable segment's addresses are congruent to its file
   offsets modulo 2 MiB, so page-cache huge pages can map it: always
   with HP_PHASE_ALWAYS, only where it costs nothing with
   HP_PHASE_FREE.  */
static void
test_file_phase (void)
{
  /* Text 1 MiB further into the file than into memory: at its file
     phase it loses a huge page.  */
  ElfW(Phdr) ph[] = {
    load (0, 0x800, 0x800, 0, PF_R, 0x1000),
    load (0x2000, 24 * M, 24 * M, 0x101000, PF_R | PF_X, 0x1000),
    load (0x1803000, 8 * M, 8 * M, 0x1902000, PF_R, 0x1000),
  };
  struct hp_settings s;
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_DYN, false, false, 0,
			 false, HP_PHASE_ALWAYS);
  TEST_COMPARE (s.phase, HP_PHASE_ALWAYS);
  run (ph, array_length (ph), &s);
  TEST_COMPARE ((0x2000 + plan.bias - 0x101000) & (H - 1), 0);
  TEST_COMPARE (text_bytes (&plan), 22 * M);
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == HP_KIND_TEXT)
      TEST_COMPARE ((plan.zones[i].copy_start + plan.bias
		     - plan.zones[i].fileoff) & (H - 1), 0);

  /* HP_PHASE_FREE: here the phase costs a page, so the best bias.  */
  s.phase = HP_PHASE_FREE;
  _dl_hugepage_plan (ph, array_length (ph), &s, &plan);
  TEST_COMPARE (text_bytes (&plan), 24 * M);

  /* Text one page further into memory than into the file, text
     only: the best biases are 0x1fd000 to 0x1ff000 (the zone grows
     into the gaps), and the phase, 0x1ff000, is one of them.  */
  ElfW(Phdr) ph2[] = {
    load (0, 0x800, 0x800, 0, PF_R, 0x1000),
    load (0x2000, 24 * M, 24 * M, 0x1000, PF_R | PF_X, 0x1000),
    load (0x1803000, 8 * M, 8 * M, 0x1802000, PF_R, 0x1000),
  };
  s.kinds = HP_KIND_TEXT;
  run (ph2, array_length (ph2), &s);
  TEST_COMPARE (plan.bias, 0x1ff000);
  TEST_COMPARE (text_bytes (&plan), 24 * M);
  s.phase = HP_PHASE_NONE;
  _dl_hugepage_plan (ph2, array_length (ph2), &s, &plan);
  TEST_COMPARE (plan.bias, 0x1fd000);
  TEST_COMPARE (text_bytes (&plan), 24 * M);

  /* Without text selected, the bias is the best one for the rest.  */
  s.phase = HP_PHASE_ALWAYS;
  s.kinds = HP_KIND_RODATA;
  _dl_hugepage_plan (ph, array_length (ph), &s, &plan);
  TEST_COMPARE ((0x1803000 + plan.bias) & (H - 1), 0);

  /* A fixed bias stays fixed.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_DYN, true, true,
			 0x555555554000, false, HP_PHASE_ALWAYS);
  TEST_COMPARE (s.phase, HP_PHASE_NONE);
  _dl_hugepage_plan (ph, array_length (ph), &s, &plan);
  TEST_COMPARE (plan.bias, 0x555555554000);
}

/* The shape of tests/fixtures' libbigbody.so: rodata before a 71 MiB
   text, then RELRO.  A short pool goes to text first (the order), and
   what does not fit whole is split at a huge page.  */
static void
test_short_pool_order (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 0xd6b018, 0xd6b018, 0, PF_R, 0x1000),
    load (0xd6c000, 0x4701fd1, 0x4701fd1, 0xd6c000, PF_R | PF_X, 0x1000),
    load (0x546e000, 4, 4, 0x546e000, PF_R, 0x1000),
    load (0x546fff0, 0x324018, 0x324020, 0x546eff0, PF_R | PF_W, 0x1000),
    relro (0x546fff0, 0x324010),
  };
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (ph, array_length (ph), &s);
  TEST_COMPARE (plan.nzones, 3);
  if (plan.nzones != 3)
    return;
  TEST_COMPARE (plan.zones[0].kind, HP_KIND_RODATA);
  TEST_COMPARE (plan.zones[0].end - plan.zones[0].start, 6 * H);
  TEST_COMPARE (plan.zones[1].kind, HP_KIND_TEXT);
  TEST_COMPARE (plan.zones[1].end - plan.zones[1].start, 35 * H);
  TEST_COMPARE (plan.zones[2].kind, HP_KIND_RELRO);
  TEST_COMPARE (plan.zones[2].end - plan.zones[2].start, H);
  unsigned char order[HP_MAX_RUNS];
  _dl_hugepage_zone_order (&plan, order);
  TEST_COMPARE (order[0], 1);
  TEST_COMPARE (order[1], 0);
  TEST_COMPARE (order[2], 2);

  /* 20 pages of text: its first 20, from the file at their offsets.  */
  struct hp_zone head, tail;
  const struct hp_zone *t = &plan.zones[1];
  _dl_hugepage_zone_split (t, 20 * H, &head, &tail);
  TEST_COMPARE (head.start, t->start);
  TEST_COMPARE (head.end, t->start + 20 * H);
  TEST_COMPARE (tail.start, head.end);
  TEST_COMPARE (tail.end, t->end);
  /* The head copies its pages, the tail the rest.  */
  TEST_COMPARE (head.copy_start, head.start);
  TEST_COMPARE (head.copy_len, 20 * H);
  TEST_COMPARE (head.fileoff, t->fileoff);
  TEST_COMPARE (tail.copy_start, tail.start);
  TEST_COMPARE (tail.copy_len, 15 * H);
  TEST_COMPARE (tail.fileoff, t->fileoff + 20 * H);
  /* Both parts keep the kind, the segment and the protection.  */
  TEST_COMPARE (head.kind, HP_KIND_TEXT);
  TEST_COMPARE (tail.prot, t->prot);
  TEST_COMPARE (tail.load, t->load);

  /* A zone that starts in the gap before its segment: the head's copy
     starts where the segment's file pages do.  */
  struct hp_zone g = *t;
  g.copy_start = g.start + 0x1000;
  g.copy_len = g.end - g.copy_start;
  g.copy_need = g.copy_len - 0x800;
  _dl_hugepage_zone_split (&g, H, &head, &tail);
  TEST_COMPARE (head.copy_start, g.copy_start);
  TEST_COMPARE (head.copy_len, H - 0x1000);
  TEST_COMPARE (head.copy_need, H - 0x1000);
  TEST_COMPARE (tail.copy_start, g.start + H);
  TEST_COMPARE (tail.copy_len, g.end - tail.start);
  TEST_COMPARE (tail.copy_need, tail.copy_len - 0x800);
  TEST_COMPARE (tail.fileoff, g.fileoff + H - 0x1000);
}

/* A zone less the zones of a larger size on huge pages
   (_dl_hugepage_zone_pieces): the 64 KiB pieces around arm64's 2 MiB
   pages, each with its own file bytes.  */
static void
test_zone_pieces (void)
{
  const uint64_t k64 = 0x10000;
  struct hp_zone z =
    {
      .start = 0x3f0000, .end = 0xa60000, .kind = HP_KIND_TEXT,
      .copy_start = 0x3f0000, .copy_len = 0x670000 - 0x800,
      .copy_need = 0x670000 - 0x800, .fileoff = 0x3e0000,
    };
  struct hp_zone big[3] =
    {
      { .start = 0x400000, .end = 0x600000 },
      /* Not on huge pages (the pool had no room): empty.  */
      { .start = 0x600000, .end = 0x600000 },
      { .start = 0x800000, .end = 0x800000 + H },
    };
  struct hp_zone out[4];
  size_t n = _dl_hugepage_zone_pieces (&z, big, 3, out, 4);
  TEST_COMPARE (n, 3);
  if (n != 3)
    return;
  TEST_COMPARE (out[0].start, 0x3f0000);
  TEST_COMPARE (out[0].end, 0x400000);
  TEST_COMPARE (out[1].start, 0x600000);
  TEST_COMPARE (out[1].end, 0x800000);
  TEST_COMPARE (out[2].start, 0x800000 + H);
  TEST_COMPARE (out[2].end, z.end);
  /* Each copies its own bytes, at their file offsets; the last one
     stops where the file does.  */
  TEST_COMPARE (out[1].fileoff, z.fileoff + (0x600000 - z.start));
  TEST_COMPARE (out[1].copy_len, 0x200000);
  TEST_COMPARE (out[2].copy_len, z.end - out[2].start - 0x800);
  TEST_COMPARE ((out[0].end - out[0].start) / k64, 1);
  /* Nothing covered: the zone whole; all of it covered: nothing; no
     room: as many as fit.  */
  TEST_COMPARE (_dl_hugepage_zone_pieces (&z, NULL, 0, out, 4), 1);
  TEST_COMPARE (out[0].start, z.start);
  TEST_COMPARE (out[0].end, z.end);
  struct hp_zone all = { .start = 0, .end = 0x1000000 };
  TEST_COMPARE (_dl_hugepage_zone_pieces (&z, &all, 1, out, 4), 0);
  TEST_COMPARE (_dl_hugepage_zone_pieces (&z, big, 3, out, 1), 1);
}

/* The words of LD_HUGEPAGE_SEGMENTS.  */
static void
test_kinds (void)
{
  TEST_COMPARE (_dl_hugepage_parse_kinds ("text"), HP_KIND_TEXT);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("text,rodata"),
		HP_KIND_TEXT | HP_KIND_RODATA);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("text,rodata,relro"),
		HP_KIND_DEFAULT);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("all"), HP_KIND_ALL);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("bss"), HP_KIND_BSS);
  /* Empty elements are skipped, a trailing comma too.  */
  TEST_COMPARE (_dl_hugepage_parse_kinds ("data,,bss,"),
		HP_KIND_DATA | HP_KIND_BSS);
  TEST_COMPARE (_dl_hugepage_parse_kinds (""), 0);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("text,"), HP_KIND_TEXT);
  /* A word that is none of them, longer, shorter or in capitals.  */
  TEST_VERIFY (_dl_hugepage_parse_kinds ("text,stack") < 0);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("txt"), -1);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("texts"), -1);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("tex"), -1);
  TEST_COMPARE (_dl_hugepage_parse_kinds ("TEXT"), -1);
}

static int
do_test (void)
{
  test_settings ();
  test_small ();
  test_big_default ();
  test_big_all ();
  test_only_bss ();
  test_aligned_2m ();
  test_big_palign ();
  test_fixed ();
  test_fixed_bias ();
  test_write_exec ();
  test_short_file ();
  test_bad_headers ();
  test_relro_split ();
  test_file_phase ();
  test_short_pool_order ();
  test_zone_pieces ();
  test_kinds ();
  return 0;
}

#include <support/test-driver.c>
