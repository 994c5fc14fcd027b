/* hugeld: unit tests for what is read of an object's dynamic section
   before it is mapped (dl-hugepage-dynamic.c).  Built into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <string.h>
#include "dl-hugepage-plan.h"
#include "dl-hugepage-dynamic.h"
#include "tst-hugepage-phdr.h"
#include "unit-check.h"

/* The entries of a dynamic section ld.so looks at, and a virtual
   address as a file offset.  */
static void
test_scan_dynamic (void)
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

void
test_dynamic (void)
{
  test_scan_dynamic ();
  test_read_dynamic ();
}
