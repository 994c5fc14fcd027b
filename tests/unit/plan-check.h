/* hugeld: invariants every plan must satisfy (shared by the unit tests
   and the fuzzers).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef PLAN_CHECK_H
#define PLAN_CHECK_H

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
#define BAD(msg) do { snprintf (buf + bl, sizeof buf - bl, "%s", msg); return buf; } while (0)
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
	  if (zn->copy_start + zn->copy_len > PC_UP (l->p_vaddr + l->p_filesz, pg))
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

#endif
