/* hugeld: the rules every plan keeps, checked.
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
   hugeld tree's `make unit') and by the hugeld tree's fuzzer
   (tests/fuzz/fuzz-plan.c), which include dl-hugepage-plan.h first.
   The rules are stated again here, apart from the planner's code.  */

#ifndef _TST_HUGEPAGE_PLAN_CHECK_H
#define _TST_HUGEPAGE_PLAN_CHECK_H 1

#include <stdio.h>
#include <string.h>
#include "dl-hugepage-plan.h"

#define PC_DOWN(x, a) ((x) & -(uint64_t) (a))
#define PC_UP(x, a) PC_DOWN ((x) + (a) - 1, (a))

/* Returns NULL if PLAN is sound for PHDR/SETTINGS, else a description
   of the first broken rule.  */
static const char *
plan_violation (const ElfW(Phdr) *phdr, size_t phnum,
		const struct hp_settings *s, const struct hp_plan *p)
{
  static char buf[256];
  uint64_t pg = s->pagesize, h = s->hugepagesize;
  if (p->error != HP_E_NONE)
    return p->nzones == 0 ? NULL : "zones despite an error";

  /* Gather loads as the planner should see them.  */
  const ElfW(Phdr) *loads[64];
  size_t n = 0;
  uint64_t palign = 0, rs = 0, re = 0;
  for (size_t i = 0; i < phnum; ++i)
    {
      if (phdr[i].p_type == PT_GNU_RELRO)
	{
	  rs = PC_DOWN (phdr[i].p_vaddr, pg);
	  re = PC_DOWN (phdr[i].p_vaddr + phdr[i].p_memsz, pg);
	}
      if (phdr[i].p_type != PT_LOAD || phdr[i].p_memsz == 0)
	continue;
      if (n < 64)
	loads[n++] = &phdr[i];
      if (phdr[i].p_align && !(phdr[i].p_align & (phdr[i].p_align - 1))
	  && phdr[i].p_align > palign)
	palign = phdr[i].p_align;
    }
  if (re <= rs)
    rs = re = 0;
  uint64_t q = palign > pg ? palign : pg;
  if (s->fixed_bias)
    {
      if (p->bias != s->bias)
	return "fixed bias not kept";
    }
  else if (p->bias % q != 0 || p->bias >= p->modulus)
    return "bias not a multiple of p_align/page size, or too large";

  uint64_t huge = 0;
  for (size_t z = 0; z < p->nzones; ++z)
    {
      const struct hp_zone *zn = &p->zones[z];
      uint64_t a = zn->start, b = zn->end;
      snprintf (buf, sizeof buf, "zone %zu [%#lx,%#lx) ", z,
		(unsigned long) a, (unsigned long) b);
      size_t bl = strlen (buf);
#define BAD(msg)						\
      do							\
	{							\
	  snprintf (buf + bl, sizeof buf - bl, "%s", msg);	\
	  return buf;						\
	}							\
      while (0)
      if (b <= a)
	BAD ("empty");
      if (((a + p->bias) & (h - 1)) != 0 || ((b + p->bias) & (h - 1)) != 0)
	BAD ("not huge page aligned");
      if (z > 0 && a < p->zones[z - 1].end)
	BAD ("overlaps or unsorted");
      if (zn->load < 0 || (size_t) zn->load >= n)
	BAD ("bad load index");
      const ElfW(Phdr) *l = loads[zn->load];
      uint64_t ps = PC_DOWN (l->p_vaddr, pg);
      uint64_t pe = PC_UP (l->p_vaddr + l->p_memsz, pg);
      if ((l->p_flags & PF_W) && (l->p_flags & PF_X))
	BAD ("writable+executable segment on huge pages");
      if ((zn->kind & s->kinds) != zn->kind)
	BAD ("kind not selected");
      /* Inside the object's extent.  */
      if (a < PC_DOWN (loads[0]->p_vaddr, pg)
	  || b > PC_UP (loads[n - 1]->p_vaddr + loads[n - 1]->p_memsz, pg))
	BAD ("outside [l_map_start, l_map_end)");
      /* Overlaps no other segment's pages.  */
      for (size_t j = 0; j < n; ++j)
	{
	  if ((int) j == zn->load)
	    continue;
	  uint64_t js = PC_DOWN (loads[j]->p_vaddr, pg);
	  uint64_t je = PC_UP (loads[j]->p_vaddr + loads[j]->p_memsz, pg);
	  if (a < je && js < b)
	    BAD ("covers another segment");
	}
      /* Never straddles the RELRO mprotect boundaries.  */
      if ((a < rs && rs < b) || (a < re && re < b))
	BAD ("straddles a RELRO boundary");
      if (zn->kind == HP_KIND_RELRO && (a < rs || b > re))
	BAD ("relro zone outside RELRO");
      if ((l->p_flags & PF_W) && !(a >= rs && b <= re)
	  && (zn->kind & HP_KIND_RELRO))
	BAD ("relro kind outside RELRO");
      if ((l->p_flags & PF_W) && zn->kind != HP_KIND_RELRO
	  && a < re && rs < b)
	BAD ("writable non-relro zone inside RELRO");
      /* Text relocations: stay inside the segment's pages.  */
      if (s->textrel && !(l->p_flags & PF_W) && (a < ps || b > pe))
	BAD ("textrel object zone outside its segment");
      if (s->no_gaps && (a < ps || b > pe))
	BAD ("zone grows into a gap that is not reserved");
      /* RELRO zones and zones inside a segment never extend.  */
      if (zn->kind == HP_KIND_RELRO && (a < ps || b > pe))
	BAD ("relro zone extends beyond segment");
      /* Data/bss split: a page is data if it holds file bytes.  */
      uint64_t d = PC_UP (l->p_vaddr + l->p_filesz, pg);
      if (zn->kind == HP_KIND_DATA && b > d && d < pe)
	BAD ("data zone covers bss pages");
      if (zn->kind == HP_KIND_BSS && a < d && d > ps)
	BAD ("bss zone covers data pages");
      /* Nothing of a segment the file does not hold whole.  */
      if (l->p_offset + l->p_filesz > s->file_size)
	BAD ("zone in a segment past the end of the file");
      /* Copy description.  */
      if (zn->copy_len > 0)
	{
	  if (zn->copy_start < a || zn->copy_start + zn->copy_len > b)
	    BAD ("copy outside zone");
	  if (zn->copy_start < ps)
	    BAD ("copy before segment");
	  if (zn->fileoff - PC_DOWN (l->p_offset, pg) != zn->copy_start - ps)
	    BAD ("file offset inconsistent");
	  if (zn->copy_start + zn->copy_len
	      > PC_UP (l->p_vaddr + l->p_filesz, pg))
	    BAD ("copies past the file part");
	  if (l->p_memsz > l->p_filesz
	      && zn->copy_start + zn->copy_len > l->p_vaddr + l->p_filesz)
	    BAD ("copies over zero fill");
	}
      if (zn->copy_need > zn->copy_len)
	BAD ("copy_need > copy_len");
      /* A zone the thp backing may map from the file whole: what the
	 file holds at its addresses outside the segment's pages is no
	 other segment's, is in the file, and is at a file offset.  */
      if (zn->file_whole && (a < ps || b > pe))
	{
	  uint64_t delta = ps - PC_DOWN (l->p_offset, pg);
	  uint64_t known = 0;
	  for (size_t j = 0; j < n; ++j)
	    if (loads[j]->p_offset + loads[j]->p_filesz > known)
	      known = loads[j]->p_offset + loads[j]->p_filesz;
	  /* The file offset at A, A - DELTA, must not be below 0: DELTA
	     wraps where the segment's offset is above its address.  */
	  if (PC_DOWN (l->p_offset, pg) + a < ps)
	    BAD ("file_whole before the file's start");
	  if (b > pe && b - delta > known)
	    BAD ("file_whole past the file's known end");
	  if (b > pe && s->file_size < HP_ADDR_LIMIT
	      && b - delta > PC_UP (s->file_size, pg))
	    BAD ("file_whole past the end of the file");
	  if (b > pe && l->p_memsz != l->p_filesz)
	    BAD ("file_whole over zero fill");
	  for (size_t j = 0; j < n; ++j)
	    {
	      uint64_t fs = loads[j]->p_offset;
	      uint64_t fe = fs + loads[j]->p_filesz;
	      if ((int) j == zn->load || fe == fs)
		continue;
	      if ((a < ps && a - delta < fe && fs < ps - delta)
		  || (b > pe && pe - delta < fe && fs < b - delta))
		BAD ("file_whole over another segment's file bytes");
	    }
	}
      huge += b - a;
#undef BAD
    }
  if (huge != p->huge_bytes)
    return "huge_bytes does not add up";
  return NULL;
}

/* The rank _dl_hugepage_zone_order gives a zone of KIND: text, rodata,
   relro, data (and data+bss), bss.  */
static unsigned int
pc_rank (unsigned int kind)
{
  return ((kind & HP_KIND_TEXT) ? 0 : (kind & HP_KIND_RODATA) ? 1
	  : (kind & HP_KIND_RELRO) ? 2 : (kind & HP_KIND_DATA) ? 3 : 4);
}

/* Returns NULL if the order ld.so spends a short pool in and every way
   of cutting a zone of the sound plan P in two are sound, else a
   description of the first broken rule: the order is a permutation,
   text first, then rodata, relro, data, bss, one kind in address
   order; each part of a split zone, put in the plan in its place, makes
   a plan plan_violation accepts, and the two parts copy between them
   exactly what the zone copies.  */
static __attribute__ ((unused)) const char *
plan_parts_violation (const ElfW(Phdr) *phdr, size_t phnum,
		      const struct hp_settings *s, const struct hp_plan *p)
{
  static char buf[256];
  static struct hp_plan q;
  if (p->error != HP_E_NONE)
    return NULL;
  unsigned char order[HP_MAX_RUNS];
  bool seen[HP_MAX_RUNS] = { false };
  _dl_hugepage_zone_order (p, order);
  for (size_t i = 0; i < p->nzones; ++i)
    {
      if (order[i] >= p->nzones || seen[order[i]])
	return "zone order is not a permutation";
      seen[order[i]] = true;
      if (i == 0)
	continue;
      const struct hp_zone *x = &p->zones[order[i - 1]];
      const struct hp_zone *y = &p->zones[order[i]];
      if (pc_rank (x->kind) > pc_rank (y->kind))
	return "zone order: a kind before a kind it must follow";
      if (pc_rank (x->kind) == pc_rank (y->kind) && x->start > y->start)
	return "zone order: one kind not in address order";
    }
  if (p->nzones >= HP_MAX_RUNS)
    return NULL;
  for (size_t z = 0; z < p->nzones; ++z)
    {
      const struct hp_zone *zn = &p->zones[z];
      uint64_t h = s->hugepagesize;
      /* Every cut for small zones; the first, second and last pages
	 for large ones.  */
      uint64_t pages = (zn->end - zn->start) / h;
      for (uint64_t k = 1; k < pages; ++k)
	{
	  if (pages > 8 && k > 2 && k + 1 < pages)
	    continue;
	  struct hp_zone head, tail;
	  _dl_hugepage_zone_split (zn, k * h, &head, &tail);
	  snprintf (buf, sizeof buf, "zone %zu cut after %lu pages: ", z,
		    (unsigned long) k);
	  size_t bl = strlen (buf);
	  if (head.start != zn->start || head.end != zn->start + k * h
	      || tail.start != head.end || tail.end != zn->end)
	    {
	      snprintf (buf + bl, sizeof buf - bl, "parts do not tile it");
	      return buf;
	    }
	  if (head.copy_len + tail.copy_len != zn->copy_len
	      || head.copy_need + tail.copy_need != zn->copy_need)
	    {
	      snprintf (buf + bl, sizeof buf - bl, "copies do not add up");
	      return buf;
	    }
	  if (head.fileoff != zn->fileoff
	      || (tail.copy_len > 0 && head.copy_len > 0
		  && tail.copy_start != head.copy_start + head.copy_len)
	      || tail.fileoff != zn->fileoff + (tail.copy_start
						- zn->copy_start))
	    {
	      snprintf (buf + bl, sizeof buf - bl, "file offsets differ");
	      return buf;
	    }
	  q = *p;
	  memmove (&q.zones[z + 2], &q.zones[z + 1],
		   (p->nzones - z - 1) * sizeof q.zones[0]);
	  q.zones[z] = head;
	  q.zones[z + 1] = tail;
	  q.nzones = p->nzones + 1;
	  const char *v = plan_violation (phdr, phnum, s, &q);
	  if (v != NULL)
	    {
	      snprintf (buf + bl, sizeof buf - bl, "%s", v);
	      return buf;
	    }
	}
    }
  return NULL;
}

#endif /* tst-hugepage-plan-check.h */
