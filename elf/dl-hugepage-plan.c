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

/* The planner turns program headers, page sizes and settings into a
   list of huge page zones.  It is a pure function: it makes no system
   call and keeps no state, so it is unit-tested and fuzzed outside
   glibc (tests/unit, tests/fuzz) and ld.so uses the very same code.

   The rules it implements:

   - Every page of the object has one kind: text, rodata, relro, data
     or bss.  RELRO is the range ld.so will mprotect read-only after
     relocation, rounded exactly as _dl_protect_relro rounds it.
   - A run is a maximal range of one segment whose pages share a kind
     (data and bss are merged when both are selected: they have the
     same protection for the whole life of the process).  Only whole
     huge pages inside a run go on huge pages; heads and tails stay on
     ordinary pages.  So no huge page ever mixes two final
     protections, and every boundary the loader later mprotects or
     munmaps (segment ends, the RELRO range, the object's extent) is
     either outside a zone or a multiple of the huge page size.
   - A run that starts (ends) where its segment starts (ends) may grow
     into the unused gap before (after) the segment, up to the
     neighbouring segment's pages: objects linked with 2 MiB
     max-page-size are then covered completely.  Never before the first
     or after the last segment (the zone would stick out of
     [l_map_start, l_map_end) and dlclose's munmap would fail), never
     for RELRO runs (the RELRO mprotect must cover the zone exactly),
     never when the gaps are not the object's own (programs the kernel
     mapped: it leaves the gaps unmapped),
     never across the RELRO boundaries, and not for read-only segments
     of objects with text relocations (ld.so mprotects their exact
     page range).
   - Writable and executable segments are never touched.
   - For position-independent objects the load bias is chosen (modulo
     the huge page size, and respecting the largest p_align) to
     maximise the bytes on huge pages, text counted twice.  With
     HP_PHASE_FREE the first executable segment's addresses are made
     congruent to its file offsets (what page-cache huge pages need)
     where that costs nothing; with HP_PHASE_ALWAYS, always.  */

#include "dl-hugepage-plan.h"

struct hp_load
{
  uint64_t vaddr, memsz, filesz, offset;
  uint64_t ps, pe;		/* Page-rounded extent.  */
  uint32_t flags;
};

struct hp_run
{
  uint64_t start, end;		/* Pages of one kind in one segment.  */
  uint64_t lo, hi;		/* How far a zone may extend.  */
  unsigned int kind;
  int load;
  int reason;			/* Non-zero: never on huge pages.  */
};

static void
hp_add_small (struct hp_plan *plan, uint64_t start, uint64_t end,
	      unsigned int kind, int load, int reason)
{
  if (end <= start
      || plan->nsmall >= sizeof plan->small / sizeof plan->small[0])
    return;
  struct hp_range *r = &plan->small[plan->nsmall++];
  r->start = start;
  r->end = end;
  r->kind = kind;
  r->load = load;
  r->reason = reason;
}

/* The huge page aligned part [*A, *B) of RUN under bias B.  Returns
   false if there is none.  The zone may grow into the gaps the run is
   allowed to (lo, hi), but only while at least half of it is the run's
   own memory: a 4 KiB header segment does not get a 2 MiB page.  */
static bool
hp_zone_of (const struct hp_run *run, uint64_t bias, uint64_t huge,
	    uint64_t *a, uint64_t *b)
{
  uint64_t start = HP_ALIGN_UP (run->start + bias, huge) - bias;
  uint64_t end = HP_ALIGN_DOWN (run->end + bias, huge) - bias;
  uint64_t xstart = start, xend = end;
  uint64_t down = HP_ALIGN_DOWN (run->start + bias, huge) - bias;
  if (down >= run->lo && down <= run->start)
    xstart = down;
  uint64_t up = HP_ALIGN_UP (run->end + bias, huge) - bias;
  if (up <= run->hi && up >= run->end)
    xend = up;
  if (xend > xstart && (xstart != start || xend != end))
    {
      uint64_t own_end = xend < run->end ? xend : run->end;
      uint64_t own_start = xstart > run->start ? xstart : run->start;
      uint64_t own = own_end > own_start ? own_end - own_start : 0;
      if (own * 2 >= xend - xstart)
	{
	  start = xstart;
	  end = xend;
	}
    }
  if (end <= start || start < run->lo || end > run->hi)
    return false;
  *a = start;
  *b = end;
  return true;
}

/* Score of bias B: bytes on huge pages, text counted twice so that
   ties go to the layout that puts more code on huge pages.  */
static uint64_t
hp_score (const struct hp_run *runs, size_t nruns, uint64_t bias,
	  uint64_t huge)
{
  uint64_t score = 0;
  for (size_t i = 0; i < nruns; ++i)
    {
      uint64_t a, b;
      if (runs[i].reason == HP_R_NONE
	  && hp_zone_of (&runs[i], bias, huge, &a, &b))
	score += (b - a) * ((runs[i].kind & HP_KIND_TEXT) ? 2 : 1);
    }
  return score;
}

static void
hp_push_run (struct hp_run *runs, size_t *nruns, uint64_t start,
	     uint64_t end, unsigned int kind, int load)
{
  if (end <= start)
    return;
  struct hp_run *r = &runs[(*nruns)++];
  r->start = r->lo = start;
  r->end = r->hi = end;
  r->kind = kind;
  r->load = load;
  r->reason = HP_R_NONE;
}

/* The PT_LOAD segments with memory and the RELRO range of an object,
   as the planner reads them from its program headers.  */
struct hp_object
{
  struct hp_load loads[HP_MAX_LOADS];
  size_t nloads;
  uint64_t palign;		/* The largest power-of-two p_align.  */
  uint64_t relro_start, relro_end;	/* Page-rounded, or both 0.  */
  uint64_t file_end;		/* The file's size, page-rounded up.  */
};

/* Read PHDR[0..PHNUM) into *O, checking what ld.so itself will rely
   on (PG is the page size): an enum hp_error.  */
static int
hp_read_object (const ElfW(Phdr) *phdr, size_t phnum, uint64_t pg,
		struct hp_object *o)
{
  o->nloads = 0;
  o->palign = 0;
  o->relro_start = o->relro_end = 0;
  for (size_t i = 0; i < phnum; ++i)
    {
      const ElfW(Phdr) *ph = &phdr[i];
      if (ph->p_type == PT_GNU_RELRO)
	{
	  if (ph->p_vaddr >= HP_ADDR_LIMIT || ph->p_memsz >= HP_ADDR_LIMIT)
	    return HP_E_BAD_HEADERS;
	  o->relro_start = HP_ALIGN_DOWN (ph->p_vaddr, pg);
	  o->relro_end = HP_ALIGN_DOWN (ph->p_vaddr + ph->p_memsz, pg);
	  continue;
	}
      if (ph->p_type != PT_LOAD)
	continue;
      /* ld.so honours the p_align of every PT_LOAD, even an empty
	 one.  */
      if (HP_POW2 (ph->p_align) && ph->p_align > o->palign)
	o->palign = ph->p_align;
      if (ph->p_memsz == 0)
	continue;
      if (o->nloads == HP_MAX_LOADS)
	return HP_E_TOO_MANY_LOADS;
      if (ph->p_vaddr >= HP_ADDR_LIMIT || ph->p_memsz >= HP_ADDR_LIMIT
	  || ph->p_offset >= HP_ADDR_LIMIT
	  || ph->p_filesz > ph->p_memsz
	  || HP_ALIGN_REM (ph->p_vaddr - ph->p_offset, pg) != 0)
	return HP_E_BAD_HEADERS;
      struct hp_load *l = &o->loads[o->nloads];
      l->vaddr = ph->p_vaddr;
      l->memsz = ph->p_memsz;
      l->filesz = ph->p_filesz;
      l->offset = ph->p_offset;
      l->flags = ph->p_flags;
      l->ps = HP_ALIGN_DOWN (l->vaddr, pg);
      l->pe = HP_ALIGN_UP (l->vaddr + l->memsz, pg);
      if (o->nloads > 0 && l->ps < o->loads[o->nloads - 1].pe)
	return HP_E_BAD_HEADERS;
      ++o->nloads;
    }
  if (o->nloads == 0)
    return HP_E_NO_LOADS;
  if (o->relro_end <= o->relro_start)
    o->relro_start = o->relro_end = 0;
  return HP_E_NONE;
}

/* Append to RUNS[*NRUNS] the runs of one kind of the piece [S, E) of
   segment I of O, which lies wholly inside or outside RELRO.  */
static void
hp_piece_runs (const struct hp_object *o, size_t i, uint64_t s, uint64_t e,
	       const struct hp_settings *settings, struct hp_run *runs,
	       size_t *nruns)
{
  const struct hp_load *l = &o->loads[i];
  bool w = (l->flags & PF_W) != 0;
  bool x = (l->flags & PF_X) != 0;
  if (x && w)
    {
      hp_push_run (runs, nruns, s, e, HP_KIND_TEXT, i);
      runs[*nruns - 1].reason = HP_R_WRITE_EXEC;
    }
  else if (x)
    hp_push_run (runs, nruns, s, e, HP_KIND_TEXT, i);
  else if (!w)
    hp_push_run (runs, nruns, s, e, HP_KIND_RODATA, i);
  else if (s >= o->relro_start && e <= o->relro_end)
    hp_push_run (runs, nruns, s, e, HP_KIND_RELRO, i);
  else
    {
      /* The page holding the last file byte is data.  */
      uint64_t d = HP_ALIGN_UP (l->vaddr + l->filesz, settings->pagesize);
      if (d < s)
	d = s;
      if (d > e)
	d = e;
      unsigned int both = HP_KIND_DATA | HP_KIND_BSS;
      if ((settings->kinds & both) == both)
	hp_push_run (runs, nruns, s, e,
		     d > s ? (d < e ? both : HP_KIND_DATA) : HP_KIND_BSS, i);
      else
	{
	  hp_push_run (runs, nruns, s, d, HP_KIND_DATA, i);
	  hp_push_run (runs, nruns, d, e, HP_KIND_BSS, i);
	}
    }
}

/* Append to RUNS[*NRUNS] the runs of one kind of segment I of O: its
   pages cut at the RELRO boundaries, each piece split by kind.  */
static void
hp_segment_runs (const struct hp_object *o, size_t i,
		 const struct hp_settings *settings, struct hp_run *runs,
		 size_t *nruns)
{
  const struct hp_load *l = &o->loads[i];
  uint64_t cuts[4] = { l->ps, l->pe, l->pe, l->pe };
  size_t ncuts = 1;
  if (o->relro_start > l->ps && o->relro_start < l->pe)
    cuts[ncuts++] = o->relro_start;
  if (o->relro_end > l->ps && o->relro_end < l->pe)
    cuts[ncuts++] = o->relro_end;
  cuts[ncuts++] = l->pe;
  for (size_t c = 0; c + 1 < ncuts; ++c)
    hp_piece_runs (o, i, cuts[c], cuts[c + 1], settings, runs, nruns);
}

/* Let the first and last of RUNS[FIRST..NRUNS), the runs of segment I
   of O, grow into the gaps next to the segment, where that is safe.  */
static void
hp_allow_gaps (const struct hp_object *o, size_t i,
	       const struct hp_settings *settings, struct hp_run *runs,
	       size_t first, size_t nruns)
{
  const struct hp_load *l = &o->loads[i];
  bool w = (l->flags & PF_W) != 0;
  for (size_t r = first; r < nruns; ++r)
    {
      struct hp_run *run = &runs[r];
      if (run->kind == HP_KIND_RELRO || (settings->textrel && !w)
	  || settings->no_gaps)
	continue;
      if (run->start == l->ps && i > 0)
	{
	  run->lo = o->loads[i - 1].pe;
	  if (o->relro_end > run->lo && o->relro_end <= run->start)
	    run->lo = o->relro_end;
	  if (o->relro_start > run->lo && o->relro_start <= run->start)
	    run->lo = o->relro_start;
	}
      if (run->end == l->pe && i + 1 < o->nloads)
	{
	  run->hi = o->loads[i + 1].ps;
	  if (o->relro_start < run->hi && o->relro_start >= run->end)
	    run->hi = o->relro_start;
	  if (o->relro_end < run->hi && o->relro_end >= run->end)
	    run->hi = o->relro_end;
	}
    }
}

/* Fill RUNS (*NRUNS) with the runs of every segment of O, marking
   those of kinds not asked for.  */
static void
hp_make_runs (const struct hp_object *o, const struct hp_settings *settings,
	      struct hp_run *runs, size_t *nruns)
{
  *nruns = 0;
  for (size_t i = 0; i < o->nloads; ++i)
    {
      size_t first = *nruns;
      hp_segment_runs (o, i, settings, runs, nruns);
      hp_allow_gaps (o, i, settings, runs, first, *nruns);
    }
  for (size_t r = 0; r < *nruns; ++r)
    {
      const struct hp_load *l = &o->loads[runs[r].load];
      if (runs[r].reason != HP_R_NONE)
	continue;
      if (l->offset + l->filesz > settings->file_size)
	runs[r].reason = HP_R_SHORT_FILE;
      else if ((runs[r].kind & settings->kinds) != runs[r].kind)
	runs[r].reason = HP_R_NOT_SELECTED;
    }
}

/* The bias that puts the first executable segment of O at its file
   phase modulo HUGE, if there is one and the bias granularity Q allows
   it: true with *PHASE set.  */
static bool
hp_text_phase (const struct hp_object *o, uint64_t q, uint64_t huge,
	       uint64_t *phase)
{
  for (size_t i = 0; i < o->nloads; ++i)
    if ((o->loads[i].flags & (PF_X | PF_W)) == PF_X)
      {
	*phase = HP_ALIGN_REM (o->loads[i].offset - o->loads[i].vaddr, huge);
	return HP_ALIGN_REM (*phase, q) == 0;
      }
  return false;
}

/* The bias, a multiple of Q modulo HUGE, that puts the most bytes of
   RUNS[0..NRUNS) on huge pages (text counted twice), the lowest of
   equals.  Only the biases that align a run's edge or a gap's can
   change the score, so only those are tried.  Sets *BEST to its
   score.  */
static uint64_t
hp_best_bias (const struct hp_run *runs, size_t nruns, uint64_t q,
	      uint64_t huge, uint64_t *best)
{
  uint64_t bias = 0;
  *best = hp_score (runs, nruns, 0, huge);
  for (size_t r = 0; r < nruns; ++r)
    {
      if (runs[r].reason != HP_R_NONE)
	continue;
      uint64_t xs[4] = { runs[r].start, runs[r].end, runs[r].lo,
			 runs[r].hi };
      for (int k = 0; k < 8; ++k)
	{
	  uint64_t c = HP_ALIGN_REM (huge - HP_ALIGN_REM (xs[k / 2], huge),
				     huge);
	  c = (k & 1) ? HP_ALIGN_REM (HP_ALIGN_UP (c, q), huge)
		: HP_ALIGN_DOWN (c, q);
	  uint64_t s = hp_score (runs, nruns, c, huge);
	  if (s > *best || (s == *best && c < bias))
	    {
	      *best = s;
	      bias = c;
	    }
	}
    }
  return bias;
}

/* Choose the load bias of O modulo HUGE (a multiple of Q): fixed by
   SETTINGS, or the file phase of the first executable segment, always
   or where it costs nothing, or the one that puts the most bytes on
   huge pages.  */
static uint64_t
hp_choose_bias (const struct hp_object *o, const struct hp_run *runs,
		size_t nruns, const struct hp_settings *settings, uint64_t q,
		uint64_t huge)
{
  if (settings->fixed_bias)
    return settings->bias;
  uint64_t phase = 0;
  bool have_phase = (q < huge && settings->phase != HP_PHASE_NONE
		     && (settings->kinds & HP_KIND_TEXT) != 0
		     && hp_text_phase (o, q, huge, &phase));
  if (have_phase && settings->phase == HP_PHASE_ALWAYS)
    return phase;
  if (q >= huge)
    return 0;
  uint64_t best;
  uint64_t bias = hp_best_bias (runs, nruns, q, huge, &best);
  if (have_phase && hp_score (runs, nruns, phase, huge) == best)
    bias = phase;
  return bias;
}

/* Set what zone Z [A, B) of segment L copies from the file: what
   ld.so's ordinary mapping would hold, the file bytes from the
   segment's first page up to the end of the last file page, but only
   up to the last file byte if the segment has zero fill.  */
static void
hp_zone_copy (struct hp_zone *z, const struct hp_load *l, uint64_t pg)
{
  uint64_t mapstart = l->ps;
  uint64_t mapoff = HP_ALIGN_DOWN (l->offset, pg);
  uint64_t dataend = l->vaddr + l->filesz;
  uint64_t fileend = (l->memsz > l->filesz
		      ? dataend : HP_ALIGN_UP (dataend, pg));
  uint64_t cs = z->start > mapstart ? z->start : mapstart;
  uint64_t ce = z->end < fileend ? z->end : fileend;
  z->copy_start = cs;
  z->copy_len = ce > cs ? ce - cs : 0;
  z->copy_need = (ce > cs && dataend > cs
		  ? (dataend < ce ? dataend : ce) - cs : 0);
  z->fileoff = mapoff + (cs - mapstart);
}

/* Whether file bytes [A, B) belong to no segment of O but L, and lie
   before the end of the last segment's file bytes and within the
   file's last page.  */
static bool
hp_file_padding (const struct hp_object *o, const struct hp_load *l,
		 uint64_t a, uint64_t b)
{
  uint64_t known = 0;
  for (size_t j = 0; j < o->nloads; ++j)
    {
      const struct hp_load *m = &o->loads[j];
      if (m->offset + m->filesz > known)
	known = m->offset + m->filesz;
      if (m != l && m->filesz != 0 && a < m->offset + m->filesz
	  && m->offset < b)
	return false;
    }
  return b <= known && b <= o->file_end;
}

/* Set Z->file_whole for zone Z of segment L of O (see hp_zone): the
   parts of Z before and after L's pages are file padding.  */
static void
hp_zone_file_whole (struct hp_zone *z, const struct hp_object *o,
		    const struct hp_load *l, uint64_t pg)
{
  /* Address minus file offset, for L's pages.  */
  uint64_t delta = l->ps - HP_ALIGN_DOWN (l->offset, pg);
  bool ok = true;
  if (z->start < l->ps)
    ok = (z->start >= delta
	  && hp_file_padding (o, l, z->start - delta, l->ps - delta));
  if (ok && z->end > l->pe)
    ok = (l->memsz == l->filesz
	  && hp_file_padding (o, l, l->pe - delta, z->end - delta));
  z->file_whole = ok;
}

/* Put into PLAN the zones of RUNS[0..NRUNS) of O under PLAN->bias, and
   the ranges left on ordinary pages.  */
static void
hp_emit (const struct hp_object *o, const struct hp_run *runs, size_t nruns,
	 uint64_t pg, uint64_t huge, struct hp_plan *plan)
{
  for (size_t r = 0; r < nruns; ++r)
    {
      const struct hp_run *run = &runs[r];
      uint64_t a, b;
      if (run->reason != HP_R_NONE
	  || !hp_zone_of (run, plan->bias, huge, &a, &b))
	{
	  hp_add_small (plan, run->start, run->end, run->kind, run->load,
			run->reason != HP_R_NONE ? run->reason : HP_R_PARTIAL);
	  continue;
	}
      hp_add_small (plan, run->start, a, run->kind, run->load,
		    HP_R_PARTIAL);
      hp_add_small (plan, b, run->end, run->kind, run->load, HP_R_PARTIAL);

      const struct hp_load *l = &o->loads[run->load];
      struct hp_zone *z = &plan->zones[plan->nzones++];
      z->start = a;
      z->end = b;
      z->kind = run->kind;
      z->load = run->load;
      z->prot = l->flags & (PF_R | PF_W | PF_X);
      hp_zone_copy (z, l, pg);
      hp_zone_file_whole (z, o, l, pg);
      plan->huge_bytes += b - a;
    }
}

void
_dl_hugepage_plan (const ElfW(Phdr) *phdr, size_t phnum,
		   const struct hp_settings *settings, struct hp_plan *plan)
{
  plan->error = HP_E_NONE;
  plan->modulus = settings->hugepagesize;
  plan->bias = 0;
  plan->huge_bytes = 0;
  plan->nzones = 0;
  plan->nsmall = 0;

  uint64_t pg = settings->pagesize;
  uint64_t huge = settings->hugepagesize;
  if (!HP_POW2 (pg) || !HP_POW2 (huge) || huge <= pg
      || huge > ((uint64_t) 1 << 40))
    {
      plan->error = HP_E_BAD_SETTINGS;
      return;
    }
  if (phnum > HP_MAX_PHNUM)
    {
      plan->error = HP_E_TOO_MANY_HEADERS;
      return;
    }
  struct hp_object o;
  plan->error = hp_read_object (phdr, phnum, pg, &o);
  if (plan->error != HP_E_NONE)
    return;
  o.file_end = (settings->file_size >= HP_ADDR_LIMIT ? HP_ADDR_LIMIT
		: HP_ALIGN_UP (settings->file_size, pg));

  /* The bias is a multiple of Q, chosen modulo the huge page size (or
     fixed at 0 modulo p_align when that is larger).  */
  uint64_t q = o.palign > pg ? o.palign : pg;
  if (q > huge)
    plan->modulus = q;

  struct hp_run runs[HP_MAX_RUNS];
  size_t nruns;
  hp_make_runs (&o, settings, runs, &nruns);
  plan->bias = hp_choose_bias (&o, runs, nruns, settings, q, huge);
  hp_emit (&o, runs, nruns, pg, huge, plan);
}

/* The rank of a zone of KIND in _dl_hugepage_zone_order: its lowest
   kind bit (data+bss ranks as data).  */
static unsigned int
hp_kind_rank (unsigned int kind)
{
  unsigned int r = 0;
  while (r < 5 && (kind & (1U << r)) == 0)
    ++r;
  return r;
}

bool
_dl_hugepage_may_have_zone (const ElfW(Phdr) *phdr, size_t phnum,
			    uint64_t hugepagesize)
{
  for (size_t i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_memsz >= hugepagesize)
      return true;
  return false;
}

void
_dl_hugepage_zone_order (const struct hp_plan *plan,
			 unsigned char order[HP_MAX_RUNS])
{
  /* A stable insertion sort of at most HP_MAX_RUNS indices: the zones
     are in address order already.  */
  size_t n = plan->nzones <= HP_MAX_RUNS ? plan->nzones : HP_MAX_RUNS;
  for (size_t i = 0; i < n; ++i)
    {
      unsigned int r = hp_kind_rank (plan->zones[i].kind);
      size_t j = i;
      while (j > 0 && hp_kind_rank (plan->zones[order[j - 1]].kind) > r)
	{
	  order[j] = order[j - 1];
	  --j;
	}
      order[j] = i;
    }
}

/* The part [A, B) of zone Z into *P, with the file bytes of Z that lie
   in it.  Its copy starts at the first of them, or, where it has none,
   past its end (COPY_LEN 0); either way at the file offset that
   address has in Z.  */
static void
hp_zone_cut (const struct hp_zone *z, uint64_t a, uint64_t b,
	     struct hp_zone *p)
{
  uint64_t ce = z->copy_start + z->copy_len;
  uint64_t ne = z->copy_start + z->copy_need;
  uint64_t cs = z->copy_start > a ? z->copy_start : a;
  uint64_t e = ce < b ? ce : b;
  uint64_t n = ne < b ? ne : b;
  *p = *z;
  p->start = a;
  p->end = b;
  p->copy_start = cs;
  p->copy_len = e > cs ? e - cs : 0;
  p->copy_need = n > cs ? n - cs : 0;
  p->fileoff = z->fileoff + (cs - z->copy_start);
}

void
_dl_hugepage_zone_split (const struct hp_zone *z, uint64_t len,
			 struct hp_zone *head, struct hp_zone *tail)
{
  uint64_t cut = z->start + len;
  hp_zone_cut (z, z->start, cut, head);
  hp_zone_cut (z, cut, z->end, tail);
}

void
_dl_hugepage_cont_settings (struct hp_settings *s, uint64_t bias)
{
  s->kinds = HP_KIND_TEXT;
  s->hugepagesize = HP_CONT_SIZE;
  s->fixed_bias = true;
  s->bias = bias;
  s->phase = HP_PHASE_NONE;
}

size_t
_dl_hugepage_zone_pieces (const struct hp_zone *z,
			  const struct hp_zone *covered, size_t ncovered,
			  struct hp_zone *out, size_t max)
{
  size_t n = 0;
  uint64_t at = z->start;
  for (size_t j = 0; j <= ncovered && at < z->end; ++j)
    {
      uint64_t ps = at, pe = z->end;
      if (j < ncovered)
	{
	  const struct hp_zone *b = &covered[j];
	  if (b->end <= b->start || b->end <= at || b->start >= z->end)
	    continue;
	  pe = b->start > at ? b->start : at;
	  at = b->end;
	}
      else
	at = z->end;
      if (pe <= ps || n == max)
	continue;
      hp_zone_cut (z, ps, pe, &out[n++]);
    }
  return n;
}

void
_dl_hugepage_settings (struct hp_settings *s, uint64_t pagesize,
		       unsigned int kinds, int type, bool kernel,
		       bool have_bias, uint64_t bias, bool textrel, int phase)
{
  s->pagesize = pagesize;
  s->hugepagesize = HP_HUGEPAGE_SIZE;
  s->kinds = kinds;
  s->fixed_bias = kernel || type != ET_DYN || have_bias;
  s->bias = have_bias ? bias : 0;
  s->textrel = textrel;
  s->no_gaps = kernel || type != ET_DYN;
  s->phase = s->fixed_bias ? HP_PHASE_NONE : phase;
  s->file_size = HP_ADDR_LIMIT;
}

/* The names are switches made from the tables: ld.so gets no table of
   pointers to relocate.  */

const char *
_dl_hugepage_reason_name (int reason)
{
  switch (reason)
    {
#define HP_REASON_CASE(id, words) case HP_R_##id: return words;
      HP_REASON_TABLE (HP_REASON_CASE)
#undef HP_REASON_CASE
    default:
      return "?";
    }
}

const char *
_dl_hugepage_error_name (int error)
{
  switch (error)
    {
#define HP_ERROR_CASE(id, words) case HP_E_##id: return words;
      HP_ERROR_TABLE (HP_ERROR_CASE)
#undef HP_ERROR_CASE
    default:
      return "?";
    }
}
