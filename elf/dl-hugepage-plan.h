/* hugeld: plan which parts of an ELF object go on huge pages.
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

#ifndef _DL_HUGEPAGE_PLAN_H
#define _DL_HUGEPAGE_PLAN_H 1

/* This header and dl-hugepage-plan.c are pure: no system calls, no
   global state, no glibc internals.  They build inside ld.so and, for
   the unit tests and the fuzzer, as ordinary user code.  */

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The decimal digits of a limit defined as a plain number, for the
   messages that name it: "at most " HP_STR (HP_MAX_PHNUM).  */
#define HP_STR(x) HP_STR_1 (x)
#define HP_STR_1(x) #x

/* The one alignment family of hugeld's code, pure and in ld.so alike.
   A is a power of two.  */
#define HP_ALIGN_DOWN(x, a) ((x) & -(__typeof__ (x)) (a))
#define HP_ALIGN_UP(x, a) HP_ALIGN_DOWN ((x) + (a) - 1, (a))
/* X modulo A: how far X lies past HP_ALIGN_DOWN (X, A).  */
#define HP_ALIGN_REM(x, a) ((x) & ((__typeof__ (x)) (a) - 1))
/* Whether X is a power of two (a possible alignment).  */
#define HP_POW2(x) ((x) != 0 && ((x) & ((x) - 1)) == 0)

/* The kinds of memory a selected object is made of.  A page has exactly
   one kind; LD_HUGEPAGE_SEGMENTS selects a set of kinds.  */
#define HP_KIND_TEXT	(1U << 0)	/* Executable segment.  */
#define HP_KIND_RODATA	(1U << 1)	/* Other read-only segment.  */
#define HP_KIND_RELRO	(1U << 2)	/* Read-only after relocation.  */
#define HP_KIND_DATA	(1U << 3)	/* Writable, from the file.  */
#define HP_KIND_BSS	(1U << 4)	/* Writable, zero-fill.  */
#define HP_KIND_ALL	((1U << 5) - 1)
/* The kinds' words in LD_HUGEPAGE_SEGMENTS and the reports, in the
   order of their bits: X (ID, NAME) for HP_KIND_ID.  The word
   HP_KIND_ALL_WORD stands for all of them.  */
#define HP_KIND_TABLE(X) \
  X (TEXT, text) X (RODATA, rodata) X (RELRO, relro) X (DATA, data) \
  X (BSS, bss)
#define HP_KIND_ALL_WORD "all"
/* Memory that is never written after start-up: fork never needs a
   copy-on-write huge page for it.  */
#define HP_KIND_DEFAULT	(HP_KIND_TEXT | HP_KIND_RODATA | HP_KIND_RELRO)

/* The huge page size hugeld uses (x86-64's PMD size), and the
   ordinary page size the tool assumes (ld.so uses GLRO(dl_pagesize)).  */
/* Addresses and offsets above this are refused; keeps every sum in the
   pure code free of overflow.  */
#define HP_ADDR_LIMIT		((uint64_t) 1 << 62)

#define HP_HUGEPAGE_SIZE	((uint64_t) 2 * 1024 * 1024)
#define HP_PAGE_SIZE		((uint64_t) 4096)

/* Limits that keep the plan a fixed-size object (ld.so has no malloc
   worth using here).  Objects with more PT_LOAD segments are left on
   ordinary pages.  */
#define HP_MAX_LOADS	12
/* Each segment is cut at most in three by RELRO, each piece at most in
   two (data, bss).  */
#define HP_MAX_RUNS	(6 * HP_MAX_LOADS)

/* The most program headers an object may have to be planned.  ld.so
   keeps that many in its own buffer where glibc keeps no table in
   memory (2.44), and hugeld-plan in its struct object; linkers write
   a dozen or so.  */
#define HP_MAX_PHNUM	256
/* The most entries of a dynamic section ld.so looks at, and the size
   of the buffer its DT_SONAME is read into (a longer name, probably
   cut, is ignored).  */
#define HP_MAX_DYN	1024
#define HP_SONAME_MAX	256

/* Why a range stays on ordinary pages, one table: X (ID, WORDS) for
   HP_R_ID, numbered from 1 in the table's order (HP_R_NONE, 0, is no
   reason), and WORDS, what the report and the hugeld command say
   (_dl_hugepage_reason_name):

   NOT_SELECTED	its kind is not in the segments setting;
   PARTIAL	a head or tail that does not fill a huge page;
   WRITE_EXEC	writable and executable: never touched;
   SHORT_FILE	the file ends before the segment's bytes.  */
#define HP_REASON_TABLE(X)						\
  X (NOT_SELECTED, "its kind is not in the segments setting")		\
  X (PARTIAL, "does not fill a whole huge page")			\
  X (WRITE_EXEC, "writable and executable segment")			\
  X (SHORT_FILE, "the file ends before the segment's bytes")

enum hp_reason
{
  HP_R_NONE = 0,
#define HP_REASON_ENUM(id, words) HP_R_##id,
  HP_REASON_TABLE (HP_REASON_ENUM)
#undef HP_REASON_ENUM
};

/* Why the whole object stays on ordinary pages, one table: X (ID,
   WORDS) for HP_E_ID, numbered from 1 in the table's order (HP_E_NONE,
   0, is no error), and WORDS, what the report and the hugeld command
   say (_dl_hugepage_error_name):

   BAD_SETTINGS		page sizes that are not powers of two etc.;
   NO_LOADS		no PT_LOAD with memory;
   TOO_MANY_LOADS	more than HP_MAX_LOADS;
   BAD_HEADERS		unsorted, overlapping or inconsistent;
   TOO_MANY_HEADERS	more than HP_MAX_PHNUM.  */
#define HP_ERROR_TABLE(X)						\
  X (BAD_SETTINGS, "unsupported page sizes")				\
  X (NO_LOADS, "no loadable segments")					\
  X (TOO_MANY_LOADS, "too many loadable segments")			\
  X (BAD_HEADERS, "program headers that ld.so will reject")		\
  X (TOO_MANY_HEADERS,							\
     "more than " HP_STR (HP_MAX_PHNUM) " program headers")

enum hp_error
{
  HP_E_NONE = 0,
#define HP_ERROR_ENUM(id, words) HP_E_##id,
  HP_ERROR_TABLE (HP_ERROR_ENUM)
#undef HP_ERROR_ENUM
};

struct hp_settings
{
  uint64_t pagesize;		/* Ordinary page size (4096).  */
  uint64_t hugepagesize;	/* Huge page size (2 MiB).  */
  unsigned int kinds;		/* HP_KIND_* selected.  */
  /* The load bias is fixed (ET_EXEC, or mapped by the kernel): use
     BIAS instead of choosing one.  */
  bool fixed_bias;
  uint64_t bias;
  /* The object has text relocations: ld.so will mprotect each
     read-only segment's pages, so no huge page may stick out of
     them.  */
  bool textrel;
  /* The gaps between segments are not reserved for the object (the
     kernel mapped it): zones never grow into them.  */
  bool no_gaps;
  /* The size of the object's file, or HP_ADDR_LIMIT if not known
     (_dl_hugepage_settings sets that).  A segment whose bytes the file
     does not hold whole stays on ordinary pages, as the stock loader
     maps it (a page past the end is SIGBUS only where touched), and
     no zone maps the file past its end.  */
  uint64_t file_size;
  /* Where the bias is not fixed and text is selected: when to put
     the first executable segment at an address congruent to its file
     offset modulo the huge page size (its file phase), so that the
     kernel can map its page cache with huge pages (the thp backing).
     enum hp_phase.  */
  int phase;
};

enum hp_phase
{
  HP_PHASE_NONE = 0,	/* Never: the bias that gives the most pages.  */
  HP_PHASE_FREE,	/* Where it gives as many pages as the best.  */
  HP_PHASE_ALWAYS,	/* Always; costs up to one huge page per run.  */
};

/* A range of the object, in unrelocated virtual addresses.  */
struct hp_range
{
  uint64_t start, end;
  unsigned int kind;		/* One HP_KIND_* (or several for merged
				   data+bss).  */
  int load;			/* Index among the PT_LOAD headers.  */
  int reason;			/* enum hp_reason, for small ranges.  */
};

/* A range that goes on huge pages: START + bias and END + bias are
   multiples of the huge page size.  */
struct hp_zone
{
  uint64_t start, end;
  unsigned int kind;
  int load;			/* Index among the PT_LOAD headers.  */
  int prot;			/* PF_R/PF_W/PF_X of the segment.  */
  /* Bytes [copy_start, copy_start + copy_len) come from the file at
     FILEOFF; the rest of the zone is zero.  COPY_NEED <= COPY_LEN bytes
     must be in the file (the remainder is the tail of the last file
     page, which may lie past the end of the file).  */
  uint64_t copy_start, copy_len, copy_need, fileoff;
  /* The file may be mapped across the whole zone at the offsets
     congruent to its addresses (FILEOFF + address - COPY_START), as
     the thp backing maps it instead of copying: where the zone reaches
     into the gaps around its segment, the file holds there no byte of
     another segment and lies within the extent the segments show the
     file has, and the segment has no zero fill.  True for a zone
     inside its segment's file pages.  */
  bool file_whole;
};

struct hp_plan
{
  int error;			/* enum hp_error.  */
  uint64_t modulus;		/* The bias is chosen modulo this.  */
  uint64_t bias;		/* l_addr must be == bias (mod modulus).  */
  uint64_t huge_bytes;		/* Sum of the zones' sizes.  */
  size_t nzones;
  struct hp_zone zones[HP_MAX_RUNS];
  size_t nsmall;
  struct hp_range small[2 * HP_MAX_RUNS];
};

/* The settings ld.so plans an object with, in *S.  TYPE is its e_type;
   KERNEL says the kernel mapped it (a program whose PT_INTERP is ld.so:
   the kernel chose its bias and left the gaps between its segments
   unmapped).  HAVE_BIAS says its load bias is already BIAS (the
   kernel's, or where an ET_DYN object ended up); otherwise ld.so
   chooses it for ET_DYN objects, and ET_EXEC objects have bias 0 and,
   mapped by ld.so, no reserved gaps either.  PHASE (enum hp_phase) is
   used where ld.so chooses the bias.  */
void _dl_hugepage_settings (struct hp_settings *s, uint64_t pagesize,
			    unsigned int kinds, int type, bool kernel,
			    bool have_bias, uint64_t bias, bool textrel,
			    int phase);

/* Why a range stays on ordinary pages (enum hp_reason), and why a whole
   object does (enum hp_error), as the report and the tool print it: the
   WORDS of HP_REASON_TABLE and HP_ERROR_TABLE, or "?".  */
const char *_dl_hugepage_reason_name (int reason);
const char *_dl_hugepage_error_name (int error);

/* Fill *PLAN for the program headers PHDR[0..PHNUM) under *SETTINGS.
   Never fails: a plan with error != HP_E_NONE or nzones == 0 means
   "map the object the ordinary way".  */
void _dl_hugepage_plan (const ElfW(Phdr) *phdr, size_t phnum,
			const struct hp_settings *settings,
			struct hp_plan *plan);

/* Whether the program headers PHDR[0..PHNUM) can give a zone at all:
   a PT_LOAD segment of at least HUGEPAGESIZE bytes of memory.  Most
   objects (libc, a shell, /bin/true) have none: ld.so then reads
   nothing more of them and asks nothing of the pool.  */
bool _dl_hugepage_may_have_zone (const ElfW(Phdr) *phdr, size_t phnum,
				 uint64_t hugepagesize);

/* The order in which ld.so puts PLAN's zones on huge pages, for a pool
   that may not hold them all: text first (what the instruction TLB
   needs), then rodata, relro, data and bss (data+bss with data), zones
   of one kind in address order.  ORDER[0..PLAN->nzones) receives the
   zones' indices.  */
void _dl_hugepage_zone_order (const struct hp_plan *plan,
			      unsigned char order[HP_MAX_RUNS]);

/* The first LEN bytes of zone Z (LEN a multiple of the huge page size,
   less than its size) in *HEAD and the rest in *TAIL, each a zone of
   its own: the same kind, segment and protection, and the file bytes
   of Z that fall in it (copy_start, copy_len, copy_need and fileoff
   cut to its range).  What the pool has room for goes on huge pages as
   HEAD; TAIL is left to the next backing.  */
void _dl_hugepage_zone_split (const struct hp_zone *z, uint64_t len,
			      struct hp_zone *head, struct hp_zone *tail);

/* arm64 with 4 KiB pages (HP_CONT_BASE): the huge page size below
   2 MiB, sixteen contiguous PTEs (HP_ARCH_CONT_SIZE,
   dl-hugepage-cont.c).  */
#define HP_CONT_BASE 4096
#define HP_CONT_SIZE ((uint64_t) 64 * 1024)

/* *S, an object's settings, made into those of its text's 64 KiB
   pieces (HP_CONT_SIZE) at the load bias BIAS it has.  */
void _dl_hugepage_cont_settings (struct hp_settings *s, uint64_t bias);

/* The parts of zone Z that none of the NCOVERED zones COVERED (in
   address order; zones of a larger page size already on huge pages)
   overlaps, into OUT (room for MAX: NCOVERED + 1 is always enough), in
   address order, each cut from Z as _dl_hugepage_zone_split cuts (its
   own file bytes); how many.  A covered zone's edges must fall on Z's
   page boundaries (a larger page size's do).  How the ends of an
   object's text go on arm64's 64 KiB pages around its 2 MiB ones.  */
size_t _dl_hugepage_zone_pieces (const struct hp_zone *z,
				 const struct hp_zone *covered,
				 size_t ncovered, struct hp_zone *out,
				 size_t max);

#endif /* dl-hugepage-plan.h */
