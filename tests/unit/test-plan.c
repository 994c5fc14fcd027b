/* hugeld: unit tests for the planner, with hand-made program headers
   (the matcher's are in test-match.c).  Built and run outside glibc.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dl-hugepage-plan.h"
#include "dl-hugepage-dynamic.h"
#include "dl-hugepage-kinds.h"
#include "tst-hugepage-phdr.h"
#include "plan-check.h"
#include "unit-check.h"

int failures, checks;

static struct hp_plan plan;

static void
run (const ElfW(Phdr) *ph, size_t n, const struct hp_settings *s)
{
  memset (&plan, 0xa5, sizeof plan);
  _dl_hugepage_plan (ph, n, s, &plan);
  const char *v = plan_violation (ph, n, s, &plan);
  CHECK (v == NULL, "invariant: %s", v);
  v = plan_parts_violation (ph, n, s, &plan);
  CHECK (v == NULL, "invariant: %s", v);
}

static uint64_t
bytes_of (unsigned int kind)
{
  uint64_t b = 0;
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind & kind)
      b += plan.zones[i].end - plan.zones[i].start;
  return b;
}

/* A libc-sized object: no segment has a whole huge page.  */
static void
test_small_object (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 0x28000, 0x28000, 0, PF_R, 0x1000),
    load (0x28000, 0x155000, 0x155000, 0x28000, PF_R | PF_X, 0x1000),
    load (0x17d000, 0x56000, 0x56000, 0x17d000, PF_R, 0x1000),
    load (0x1d4f10, 0x5150, 0x12a60, 0x1d3f10, PF_R | PF_W, 0x1000),
    relro (0x1d4f10, 0x30f0),
  };
  struct hp_settings s = settings (HP_KIND_ALL);
  run (ph, 5, &s);
  CHECK (plan.error == HP_E_NONE, "error %d", plan.error);
  CHECK (plan.nzones == 0, "%zu zones", plan.nzones);
  CHECK (plan.nsmall >= 4, "%zu small", plan.nsmall);
}

/* The shape of the generated big-code library: 24 MiB text starting at
   0x1000, 8 MiB rodata, then RELRO, data, bss.  */
static ElfW(Phdr) big[6];
static void
make_big (uint64_t align)
{
  big[0] = load (0, 0x800, 0x800, 0, PF_R, align);
  big[1] = load (0x1000, 24 * M, 24 * M, 0x1000, PF_R | PF_X, align);
  big[2] = load (0x1801000, 8 * M, 8 * M, 0x1801000, PF_R, align);
  /* RW: RELRO 4 MiB + a bit, data 8 MiB, bss 16 MiB.  */
  big[3] = load (0x2002e10, 4 * M + 0x11f0 + 8 * M, 4 * M + 0x11f0 + 24 * M,
		 0x2001e10, PF_R | PF_W, align);
  big[4] = relro (0x2002e10, 4 * M + 0x11f0);
  big[5].p_type = PT_DYNAMIC;
}

static void
test_big_default (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (big, 6, &s);
  CHECK (plan.error == HP_E_NONE, "error %d", plan.error);
  /* The bias puts text on 2 MiB: all 24 MiB of it.  */
  CHECK (((0x1000 + plan.bias) & (H - 1)) == 0, "bias %#lx",
	 (unsigned long) plan.bias);
  CHECK (bytes_of (HP_KIND_TEXT) == 24 * M, "text %lu",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
  CHECK (bytes_of (HP_KIND_RODATA) == 8 * M, "rodata %lu",
	 (unsigned long) bytes_of (HP_KIND_RODATA));
  /* RELRO [0x2002000, 0x2404000) + bias 0x1ff000: one whole page.  */
  CHECK (bytes_of (HP_KIND_RELRO) == 2 * M, "relro %lu",
	 (unsigned long) bytes_of (HP_KIND_RELRO));
  CHECK (bytes_of (HP_KIND_DATA | HP_KIND_BSS) == 0, "data/bss selected");
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == HP_KIND_TEXT)
      {
	CHECK (plan.zones[i].copy_len == plan.zones[i].end
	       - plan.zones[i].start, "text copies all");
	CHECK (plan.zones[i].fileoff == plan.zones[i].copy_start, "offset");
      }
}

static void
test_big_all (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_ALL);
  run (big, 6, &s);
  CHECK (bytes_of (HP_KIND_TEXT) == 24 * M, "text");
  /* Data and bss merge into one run: 24 MiB from RELRO end
     (0x2404000) to 0x3c04000, with bias 0x1ff000 -> [0x2603000,
     0x3e03000) = interior [0x2800000, 0x3e00000) = 11 pages.  */
  CHECK (bytes_of (HP_KIND_DATA | HP_KIND_BSS) == 22 * M, "data+bss %lu",
	 (unsigned long) bytes_of (HP_KIND_DATA | HP_KIND_BSS));
  int merged = 0;
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == (HP_KIND_DATA | HP_KIND_BSS))
      {
	merged = 1;
	/* Copies only up to the last file byte; the rest stays zero.  */
	CHECK (plan.zones[i].copy_start + plan.zones[i].copy_len
	       <= big[3].p_vaddr + big[3].p_filesz, "copy stops at dataend");
      }
  CHECK (merged, "data+bss merged");
}

static void
test_only_bss (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_BSS);
  run (big, 6, &s);
  CHECK (bytes_of (HP_KIND_TEXT | HP_KIND_RODATA | HP_KIND_RELRO
		   | HP_KIND_DATA) == 0, "only bss");
  CHECK (bytes_of (HP_KIND_BSS) >= 14 * M, "bss %lu",
	 (unsigned long) bytes_of (HP_KIND_BSS));
  for (size_t i = 0; i < plan.nzones; ++i)
    CHECK (plan.zones[i].copy_len == 0, "bss copies nothing");
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
  run (ph, 5, &s);
  CHECK (plan.bias == 0, "bias %#lx", (unsigned long) plan.bias);
  CHECK (plan.modulus == H, "modulus");
  /* Text [0x200000, 0x1435000) grows to 0x1600000 (next segment).  */
  CHECK (bytes_of (HP_KIND_TEXT) == 0x1400000, "text %#lx",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
  /* Rodata [0x1600000, 0x1df0000) grows to 0x1e00000 (next segment
     starts at 0x1ffd000, so 0x1e00000 is free).  */
  CHECK (bytes_of (HP_KIND_RODATA) == 0x800000, "rodata %#lx",
	 (unsigned long) bytes_of (HP_KIND_RODATA));
  /* RELRO [0x1ffd000, 0x2400000): [0x2000000, 0x2400000).  */
  CHECK (bytes_of (HP_KIND_RELRO) == 0x400000, "relro %#lx",
	 (unsigned long) bytes_of (HP_KIND_RELRO));
  /* The extension zeroes the gap; nothing is copied past the file.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    if (plan.zones[i].kind == HP_KIND_TEXT)
      CHECK (plan.zones[i].copy_len == 0x1235000, "text copy %#lx",
	     (unsigned long) plan.zones[i].copy_len);
  /* The file after the text up to 0x1600000 is padding (the next
     segment starts there in the file too): the thp backing may map it;
     after rodata, up to 0x1e00000, the file holds the RW segment's
     bytes (from 0x1dfde10): it may not.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    {
      if (plan.zones[i].kind == HP_KIND_TEXT)
	CHECK (plan.zones[i].file_whole, "text tail is file padding");
      if (plan.zones[i].kind == HP_KIND_RODATA)
	CHECK (!plan.zones[i].file_whole, "rodata tail holds RW bytes");
    }

  /* Kernel-mapped: the gaps are not ours.  */
  s.no_gaps = true;
  run (ph, 5, &s);
  CHECK (bytes_of (HP_KIND_TEXT) == 0x1200000, "no_gaps text %#lx",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
  CHECK (bytes_of (HP_KIND_RODATA) == 0x600000, "no_gaps rodata %#lx",
	 (unsigned long) bytes_of (HP_KIND_RODATA));
  s.no_gaps = false;
  run (ph, 5, &s);

  /* A 4 KiB header segment never gets a 2 MiB page of its own.  */
  for (size_t i = 0; i < plan.nzones; ++i)
    CHECK (plan.zones[i].load != 0, "header segment on a huge page");

  /* With text relocations the read-only segments keep their pages.  */
  s.textrel = true;
  run (ph, 5, &s);
  CHECK (bytes_of (HP_KIND_TEXT) == 0x1200000, "textrel text %#lx",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
}

/* p_align larger than the huge page size: the bias stays 0 modulo it.  */
static void
test_big_palign (void)
{
  make_big (8 * M);
  for (int i = 0; i < 4; ++i)
    big[i].p_align = 8 * M;
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  run (big, 6, &s);
  CHECK (plan.modulus == 8 * M, "modulus %#lx", (unsigned long) plan.modulus);
  CHECK (plan.bias == 0, "bias %#lx", (unsigned long) plan.bias);
  /* Text [0x1000, 0x1801000) with bias 0: [0x200000, 0x1800000).  */
  CHECK (bytes_of (HP_KIND_TEXT) == 22 * M, "text %lu",
	 (unsigned long) bytes_of (HP_KIND_TEXT));

  /* p_align of 64 KiB: the bias is a multiple of it.  */
  make_big (64 * K);
  run (big, 6, &s);
  CHECK (plan.bias % (64 * K) == 0, "bias %#lx", (unsigned long) plan.bias);

  /* ld.so takes the largest p_align of every PT_LOAD, empty ones
     included (dl-load.c records it before anything else): so must the
     planner.  */
  ElfW(Phdr) empty_align[] = {
    load (0, 0, 0, 0, PF_R, 8 * M),
    load (0x1000, 12 * M, 12 * M, 0x1000, PF_R | PF_X, 0x1000),
  };
  run (empty_align, 2, &s);
  CHECK (plan.error == HP_E_NONE && plan.modulus == 8 * M
	 && plan.bias == 0, "empty PT_LOAD p_align: modulus %#lx bias %#lx",
	 (unsigned long) plan.modulus, (unsigned long) plan.bias);
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
  run (ph, 3, &s);
  CHECK (plan.bias == 0, "bias");
  /* [0x401000, 0xe01000) -> [0x600000, 0xe00000).  */
  CHECK (bytes_of (HP_KIND_TEXT) == 8 * M, "text %lu",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
  CHECK (bytes_of (HP_KIND_RODATA) == 2 * M, "rodata %lu",
	 (unsigned long) bytes_of (HP_KIND_RODATA));
  int found = 0;
  for (size_t i = 0; i < plan.nsmall; ++i)
    if (plan.small[i].kind == HP_KIND_TEXT && plan.small[i].start == 0x401000
	&& plan.small[i].end == 0x600000
	&& plan.small[i].reason == HP_R_PARTIAL)
      found = 1;
  CHECK (found, "text head reported as partial");

  /* A fixed bias that is not aligned is kept, zones follow it.  */
  s.bias = 0x3000;
  run (ph, 3, &s);
  CHECK (plan.bias == 0x3000, "bias kept");
}

/* A file shorter than its program headers say: the segment it cuts,
   and every later one, stays as the stock loader maps it; those before
   it are planned as for the whole file, and no zone maps the file past
   its end.  */
static void
test_short_file (void)
{
  make_big (0x1000);
  struct hp_settings s = settings (HP_KIND_DEFAULT);
  /* Cut 1 MiB into the rodata segment (file 0x1801000..0x2001000).  */
  s.file_size = 0x1801000 + M;
  run (big, 6, &s);
  CHECK (plan.error == HP_E_NONE, "error %d", plan.error);
  CHECK (bytes_of (HP_KIND_TEXT) == 24 * M, "text %lu",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
  CHECK (bytes_of (HP_KIND_RODATA | HP_KIND_RELRO) == 0,
	 "a cut segment or a later one planned");
  bool said = false;
  for (size_t i = 0; i < plan.nsmall; ++i)
    said |= plan.small[i].reason == HP_R_SHORT_FILE;
  CHECK (said, "no range says the file is short");
  /* Cut inside the text (file 0x1000..0x1801000): nothing of it.  */
  s.file_size = 0x1000 + 3 * M;
  run (big, 6, &s);
  CHECK (plan.nzones == 0, "%zu zones in a file cut in its text",
	 plan.nzones);
  /* Exactly as long as the headers say: as for an unknown size.  */
  s.file_size = 0x2001e10 + 4 * M + 0x11f0 + 8 * M;
  run (big, 6, &s);
  uint64_t whole = plan.huge_bytes;
  s.file_size = HP_ADDR_LIMIT;
  run (big, 6, &s);
  CHECK (plan.huge_bytes == whole, "%lu bytes with the size, %lu without",
	 (unsigned long) whole, (unsigned long) plan.huge_bytes);
  /* Cut right after the text: the text is planned, but the padding
     after it (0x1435000 to 0x1600000) is no longer in the file, so the
     thp backing may not map the file there.  */
  ElfW(Phdr) ph[] = {
    load (0, 0x1000, 0x1000, 0, PF_R, H),
    load (0x200000, 0x1234567, 0x1234567, 0x200000, PF_R | PF_X, H),
    load (0x1600000, 0x7f0000, 0x7f0000, 0x1600000, PF_R, H),
  };
  s.file_size = 0x1434567;
  run (ph, 3, &s);
  CHECK (bytes_of (HP_KIND_TEXT) == 0x1400000, "cut text %#lx",
	 (unsigned long) bytes_of (HP_KIND_TEXT));
  for (size_t i = 0; i < plan.nzones; ++i)
    CHECK (plan.zones[i].kind != HP_KIND_TEXT || !plan.zones[i].file_whole,
	   "the file mapped past its end");
  s.file_size = HP_ADDR_LIMIT;
  run (ph, 3, &s);
  for (size_t i = 0; i < plan.nzones; ++i)
    CHECK (plan.zones[i].kind != HP_KIND_TEXT || plan.zones[i].file_whole,
	   "uncut text tail is file padding");
  CHECK (strcmp (_dl_hugepage_reason_name (HP_R_SHORT_FILE),
		 "the file ends before the segment's bytes") == 0,
	 "reason name");
}

static void
test_write_exec (void)
{
  ElfW(Phdr) ph[] = {
    load (0, 8 * M, 8 * M, 0, PF_R | PF_W | PF_X, 0x1000),
  };
  struct hp_settings s = settings (HP_KIND_ALL);
  run (ph, 1, &s);
  CHECK (plan.nzones == 0, "rwx segment left alone");
  CHECK (plan.nsmall == 1 && plan.small[0].reason == HP_R_WRITE_EXEC,
	 "reason");
}

/* Headers ld.so would reject (or that make no sense) give no plan.  */
static void
test_bad_headers (void)
{
  struct hp_settings s = settings (HP_KIND_ALL);
  ElfW(Phdr) overlap[] = {
    load (0, 8 * M, 8 * M, 0, PF_R | PF_X, 0x1000),
    load (4 * M, 8 * M, 8 * M, 4 * M, PF_R, 0x1000),
  };
  run (overlap, 2, &s);
  CHECK (plan.error == HP_E_BAD_HEADERS, "overlap: %d", plan.error);

  ElfW(Phdr) unsorted[] = {
    load (16 * M, 8 * M, 8 * M, 0, PF_R, 0x1000),
    load (0, 8 * M, 8 * M, 8 * M, PF_R | PF_X, 0x1000),
  };
  run (unsorted, 2, &s);
  CHECK (plan.error == HP_E_BAD_HEADERS, "unsorted: %d", plan.error);

  ElfW(Phdr) unaligned[] = {
    load (0x1000, 8 * M, 8 * M, 0x1800, PF_R | PF_X, 0x1000),
  };
  run (unaligned, 1, &s);
  CHECK (plan.error == HP_E_BAD_HEADERS, "offset/vaddr: %d", plan.error);

  ElfW(Phdr) filesz[] = {
    load (0, 9 * M, 8 * M, 0, PF_R | PF_X, 0x1000),
  };
  run (filesz, 1, &s);
  CHECK (plan.error == HP_E_BAD_HEADERS, "filesz > memsz: %d", plan.error);

  ElfW(Phdr) huge_addr[] = {
    load (~(uint64_t) 0 - 0x1fff, 8 * M, 8 * M, 0, PF_R | PF_X, 0x1000),
  };
  run (huge_addr, 1, &s);
  CHECK (plan.error == HP_E_BAD_HEADERS, "wrapping: %d", plan.error);

  ElfW(Phdr) none[] = { relro (0, 4096) };
  run (none, 1, &s);
  CHECK (plan.error == HP_E_NO_LOADS, "no loads: %d", plan.error);

  /* Zero-size segments are ignored, odd p_align too.  */
  ElfW(Phdr) odd[] = {
    load (0, 0, 0, 0, PF_R, 0x1000),
    load (0x1000, 8 * M, 8 * M, 0x1000, PF_R | PF_X, 12345),
  };
  run (odd, 2, &s);
  CHECK (plan.error == HP_E_NONE && bytes_of (HP_KIND_TEXT) == 8 * M,
	 "odd: %d %lu", plan.error, (unsigned long) bytes_of (HP_KIND_TEXT));

  /* A RELRO outside any segment changes nothing.  */
  ElfW(Phdr) far_relro[] = {
    load (0x1000, 8 * M, 8 * M, 0x1000, PF_R | PF_X, 0x1000),
    relro (64 * M, 4 * M),
  };
  run (far_relro, 2, &s);
  CHECK (bytes_of (HP_KIND_TEXT) == 8 * M, "far relro");

  /* More headers than ld.so keeps: refused without looking at them.  */
  run (far_relro, HP_MAX_PHNUM + 1, &s);
  CHECK (plan.error == HP_E_TOO_MANY_HEADERS, "phnum: %d", plan.error);

  struct hp_settings bad = settings (HP_KIND_ALL);
  bad.hugepagesize = 3 * M;
  run (far_relro, 2, &bad);
  CHECK (plan.error == HP_E_BAD_SETTINGS, "settings: %d", plan.error);
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
  run (ph, 3, &s);
  /* RELRO [0x200000, 0x700000): 2 pages [0x200000, 0x600000).  Data
     [0x700000, 0xe00000): [0x800000, 0xe00000).  */
  CHECK (bytes_of (HP_KIND_RELRO) == 4 * M, "relro %lu",
	 (unsigned long) bytes_of (HP_KIND_RELRO));
  CHECK (bytes_of (HP_KIND_DATA) == 6 * M, "data %lu",
	 (unsigned long) bytes_of (HP_KIND_DATA));
}

static void
test_dynamic (void)
{
  ElfW(Dyn) d[] = {
    { .d_tag = DT_STRTAB, .d_un.d_ptr = 0x4000 },
    { .d_tag = DT_SONAME, .d_un.d_val = 0x10 },
    { .d_tag = DT_FLAGS, .d_un.d_val = DF_TEXTREL },
    { .d_tag = DT_NULL },
    { .d_tag = DT_TEXTREL },
  };
  struct hp_dynamic info = { 0 };
  CHECK (_dl_hugepage_scan_dynamic (d, 2, &info), "no DT_NULL yet");
  CHECK (!info.textrel && info.have_soname && info.strtab == 0x4000
	 && info.soname == 0x10, "strtab/soname");
  CHECK (!_dl_hugepage_scan_dynamic (d + 2, 3, &info), "stops at DT_NULL");
  CHECK (info.textrel, "DF_TEXTREL");
  struct hp_dynamic t = { 0 };
  _dl_hugepage_scan_dynamic (d + 4, 1, &t);
  CHECK (t.textrel && !t.have_soname, "DT_TEXTREL");

  ElfW(Phdr) ph[] = {
    load (0, 0x1000, 0x1000, 0, PF_R, 0x1000),
    load (0x3e10, 0x200, 0x400, 0x2e10, PF_R | PF_W, 0x1000),
  };
  CHECK (_dl_hugepage_vaddr_to_offset (ph, 2, 0x10) == 0x10, "first");
  CHECK (_dl_hugepage_vaddr_to_offset (ph, 2, 0x3f00) == 0x2f00, "second");
  CHECK (_dl_hugepage_vaddr_to_offset (ph, 2, 0x4100) == -1, "bss");
  CHECK (_dl_hugepage_vaddr_to_offset (ph, 2, 0x2000) == -1, "gap");
}


static void
test_settings (void)
{
  struct hp_settings s;
  /* A library or PIE that ld.so maps: bias chosen, gaps its own.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_DYN, false, false, 0,
			 false, HP_PHASE_FREE);
  CHECK (!s.fixed_bias && !s.no_gaps && s.hugepagesize == HP_HUGEPAGE_SIZE
	 && s.pagesize == 4096 && s.kinds == HP_KIND_DEFAULT,
	 "ET_DYN by ld.so");
  /* The same, where the reservation failed: the bias is where it is.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_ALL, ET_DYN, false, true,
			 0x7f0000123000, true, HP_PHASE_FREE);
  CHECK (s.fixed_bias && s.bias == 0x7f0000123000 && !s.no_gaps
	 && s.textrel, "ET_DYN at a given bias");
  /* `ld.so ./prog' with a non-PIE program: at its link address, and
     ld.so reserves nothing between its segments.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_EXEC, false, false, 0,
			 false, HP_PHASE_FREE);
  CHECK (s.fixed_bias && s.bias == 0 && s.no_gaps, "ET_EXEC by ld.so");
  /* Mapped by the kernel: its bias, its gaps unmapped.  */
  _dl_hugepage_settings (&s, 4096, HP_KIND_DEFAULT, ET_DYN, true, true,
			 0x555555554000, false, HP_PHASE_FREE);
  CHECK (s.fixed_bias && s.bias == 0x555555554000 && s.no_gaps,
	 "PIE by the kernel");
  CHECK (strcmp (_dl_hugepage_reason_name (HP_R_PARTIAL),
		 "does not fill a whole huge page") == 0
	 && strcmp (_dl_hugepage_error_name (HP_E_NO_LOADS),
		    "no loadable segments") == 0
	 && strcmp (_dl_hugepage_reason_name (12345), "?") == 0,
	 "reason and error names");
}

/* A file in memory for _dl_hugepage_read_dynamic.  */
struct mem_file
{
  const unsigned char *bytes;
  size_t size;
};

static int mem_reads;

static long int
mem_read (void *ctx, void *buf, size_t len, uint64_t offset)
{
  const struct mem_file *f = ctx;
  ++mem_reads;
  if (offset >= f->size)
    return 0;
  if (len > f->size - offset)
    len = f->size - offset;
  memcpy (buf, f->bytes + offset, len);
  return len;
}

/* The dynamic section read as ld.so and hugeld-plan read it.  */
static void
test_read_dynamic (void)
{
  static unsigned char file[0x3000];
  ElfW(Phdr) ph[] = {
    load (0, sizeof file, sizeof file, 0, PF_R, 0x1000),
    { .p_type = PT_DYNAMIC, .p_offset = 0x1000, .p_vaddr = 0x1000,
      .p_filesz = 4 * sizeof (ElfW(Dyn)) },
  };
  ElfW(Dyn) d[] = {
    { .d_tag = DT_STRTAB, .d_un.d_ptr = 0x2000 },
    { .d_tag = DT_SONAME, .d_un.d_val = 0x10 },
    { .d_tag = DT_TEXTREL },
    { .d_tag = DT_NULL },
  };
  memcpy (file + 0x1000, d, sizeof d);
  strcpy ((char *) file + 0x2010, "libx.so.1");
  struct mem_file f = { file, sizeof file };
  bool textrel;
  char soname[HP_SONAME_MAX];
  CHECK (_dl_hugepage_read_dynamic (ph, 2, mem_read, &f, &textrel, soname)
	 && textrel && strcmp (soname, "libx.so.1") == 0,
	 "soname %s, textrel %d", soname, textrel);

  /* No buffer for the name (ld.so selected the object by its file
     name): the section is read, the strings are not.  */
  mem_reads = 0;
  CHECK (_dl_hugepage_read_dynamic (ph, 2, mem_read, &f, &textrel, NULL)
	 && textrel && mem_reads == 1, "without the name: %d reads",
	 mem_reads);

  /* A name that fills the buffer was probably cut: none.  */
  memset (file + 0x2010, 'a', HP_SONAME_MAX);
  CHECK (_dl_hugepage_read_dynamic (ph, 2, mem_read, &f, &textrel, soname)
	 && soname[0] == '\0', "long soname ignored");

  /* A section cut by the end of the file, and no PT_DYNAMIC.  */
  f.size = 0x1000 + sizeof (ElfW(Dyn)) + 3;
  CHECK (_dl_hugepage_read_dynamic (ph, 2, mem_read, &f, &textrel, soname)
	 && !textrel && soname[0] == '\0', "cut section");
  CHECK (!_dl_hugepage_read_dynamic (ph, 1, mem_read, &f, &textrel, soname)
	 && !textrel && soname[0] == '\0', "no PT_DYNAMIC");
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
  run (ph, 5, &s);
  CHECK (plan.nzones == 3, "%zu zones", plan.nzones);
  if (plan.nzones != 3)
    return;
  CHECK (plan.zones[0].kind == HP_KIND_RODATA
	 && plan.zones[0].end - plan.zones[0].start == 6 * H, "rodata 6");
  CHECK (plan.zones[1].kind == HP_KIND_TEXT
	 && plan.zones[1].end - plan.zones[1].start == 35 * H, "text 35");
  CHECK (plan.zones[2].kind == HP_KIND_RELRO
	 && plan.zones[2].end - plan.zones[2].start == H, "relro 1");
  unsigned char order[HP_MAX_RUNS];
  _dl_hugepage_zone_order (&plan, order);
  CHECK (order[0] == 1 && order[1] == 0 && order[2] == 2,
	 "order text, rodata, relro: %d %d %d", order[0], order[1], order[2]);

  /* 20 pages of text: its first 20, from the file at their offsets.  */
  struct hp_zone head, tail;
  const struct hp_zone *t = &plan.zones[1];
  _dl_hugepage_zone_split (t, 20 * H, &head, &tail);
  CHECK (head.start == t->start && head.end == t->start + 20 * H
	 && tail.start == head.end && tail.end == t->end, "split at 20");
  CHECK (head.copy_start == head.start && head.copy_len == 20 * H
	 && head.fileoff == t->fileoff, "head copies its pages");
  CHECK (tail.copy_start == tail.start && tail.copy_len == 15 * H
	 && tail.fileoff == t->fileoff + 20 * H, "tail copies the rest");
  CHECK (head.kind == HP_KIND_TEXT && tail.prot == t->prot
	 && tail.load == t->load, "parts keep kind, segment, protection");

  /* A zone that starts in the gap before its segment: the head's copy
     starts where the segment's file pages do.  */
  struct hp_zone g = *t;
  g.copy_start = g.start + 0x1000;
  g.copy_len = g.end - g.copy_start;
  g.copy_need = g.copy_len - 0x800;
  _dl_hugepage_zone_split (&g, H, &head, &tail);
  CHECK (head.copy_start == g.copy_start && head.copy_len == H - 0x1000
	 && head.copy_need == H - 0x1000, "gap head");
  CHECK (tail.copy_start == g.start + H && tail.copy_len == g.end - tail.start
	 && tail.copy_need == tail.copy_len - 0x800
	 && tail.fileoff == g.fileoff + H - 0x1000, "gap tail");
}

void test_cache (void);
void test_conf (void);
void test_tunables (void);
void test_tunconf (void);
void test_settings_resolve (void);
void test_relocate (void);

int
main (void)
{
  test_match ();
  test_settings ();
  test_small_object ();
  test_big_default ();
  test_big_all ();
  test_only_bss ();
  test_aligned_2m ();
  test_big_palign ();
  test_fixed ();
  test_write_exec ();
  test_short_file ();
  test_bad_headers ();
  test_relro_split ();
  test_short_pool_order ();
  test_dynamic ();
  test_read_dynamic ();
  test_cache ();
  test_conf ();
  test_tunables ();
  test_tunconf ();
  test_settings_resolve ();
  test_relocate ();
  printf ("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
