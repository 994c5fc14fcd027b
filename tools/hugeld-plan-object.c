/* hugeld-plan: one object as JSON, with its plan.
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

/* The part of hugeld-plan's output about one object: whether
   LD_HUGEPAGE_LIBS selects it and why, the settings ld.so plans it
   with, its plan (zones, ranges left on 4 KiB pages, the backing each
   zone ends with) and, on request, its page layout and cache entry.
   The planning is the loader's own (elf/dl-hugepage-plan.c).  */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl-hugepage-plan.h"
#include "dl-hugepage-cache.h"
#include "dl-hugepage-conf.h"
#include "hugeld-plan.h"
#include "hugeld-json.h"

/* Member KEY: the protection PROT as "rwx", a dash for each bit
   unset.  */
static void
print_prot (struct json *j, const char *key, int prot)
{
  char s[4] = { (prot & PF_R) ? 'r' : '-', (prot & PF_W) ? 'w' : '-',
		(prot & PF_X) ? 'x' : '-', '\0' };
  json_kstr (j, key, s);
}

/* Member KEY: the name of backing B, or null for ordinary pages.  */
static void
print_backing (struct json *j, const char *key, int b)
{
  json_kstr (j, key, b == 0 ? NULL : _dl_hugepage_backing_name (b));
}

/* The elements of "zones": the zones of PLAN (made without error) of an
   object with text relocations if TEXTREL, under OPT.  Each zone has
   the backing ld.so ends up with for it where the shared cache holds
   the zone and where it does not ("backing_cached",
   "backing_uncached"): which of the two applies is for the caller to
   find out.  */
static void
print_zones (struct json *j, const struct hp_plan *plan, bool textrel,
	     const struct options *opt)
{
  /* Which backings work here (a pool is assumed large enough), and the
     one that works only where the cache holds the zone.  */
  unsigned int available = ((1u << HP_B_PRIVATE)
			    | (opt->thp ? 1u << HP_B_THP : 0));
  unsigned int cached = 1u << HP_B_SHARED;
  /* Where each zone comes in the order ld.so gives a short pool's
     pages (text first).  */
  unsigned char order[HP_MAX_RUNS], rank[HP_MAX_RUNS];
  _dl_hugepage_zone_order (plan, order);
  for (size_t i = 0; i < plan->nzones; ++i)
    rank[order[i]] = i;
  for (size_t i = 0; i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      json_object (j);
      json_kstr (j, "kind", _dl_hugepage_kind_name (z->kind));
      json_kuint (j, "start", z->start);
      json_kuint (j, "end", z->end);
      json_kuint (j, "pages", (z->end - z->start) / PLAN_HUGEPAGESIZE);
      json_kint (j, "order", rank[i]);
      json_kint (j, "load", z->load);
      print_prot (j, "prot", z->prot);
      print_backing (j, "backing_cached",
		     _dl_hugepage_expected_backing (opt->order, opt->norder,
						    z, textrel,
						    available | cached));
      print_backing (j, "backing_uncached",
		     _dl_hugepage_expected_backing (opt->order, opt->norder,
						    z, textrel, available));
      json_end (j);
    }
}

/* The members of PLAN of an object with text relocations if TEXTREL,
   under OPT: its error, bias and size, its zones (print_zones) and the
   ranges it leaves on small pages.  */
static void
print_plan (struct json *j, const struct hp_plan *plan, bool textrel,
	    const struct options *opt)
{
  bool ok = plan->error == HP_E_NONE;
  json_kstr (j, "error", ok ? NULL : _dl_hugepage_error_name (plan->error));
  json_kuint (j, "bias", plan->bias);
  json_kuint (j, "modulus", plan->modulus);
  json_kuint (j, "huge_bytes", ok ? plan->huge_bytes : 0);
  json_kuint (j, "huge_pages", ok ? plan->huge_bytes / PLAN_HUGEPAGESIZE : 0);
  json_key (j, "zones");
  json_array (j);
  if (ok)
    print_zones (j, plan, textrel, opt);
  json_end (j);
  json_key (j, "small");
  json_array (j);
  for (size_t i = 0; ok && i < plan->nsmall; ++i)
    {
      const struct hp_range *r = &plan->small[i];
      json_object (j);
      json_kstr (j, "kind", _dl_hugepage_kind_name (r->kind));
      json_kuint (j, "start", r->start);
      json_kuint (j, "end", r->end);
      json_kint (j, "load", r->load);
      json_kstr (j, "reason", _dl_hugepage_reason_name (r->reason));
      json_end (j);
    }
  json_end (j);
}

/* The page-rounded extent [*PS, *PE) of the PT_LOAD segment numbered
   LOAD as the planner numbers them (struct hp_zone's load): among the
   PT_LOAD headers with memory.  */
static bool
load_pages (const struct object *o, int load, uint64_t *ps, uint64_t *pe)
{
  int n = 0;
  for (size_t i = 0; i < o->nphdr; ++i)
    {
      const ElfW(Phdr) *ph = &o->phdr[i];
      if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
	continue;
      if (n++ == load)
	{
	  *ps = HP_ALIGN_DOWN (ph->p_vaddr, PLAN_PAGESIZE);
	  *pe = HP_ALIGN_UP (ph->p_vaddr + ph->p_memsz, PLAN_PAGESIZE);
	  return true;
	}
    }
  return false;
}

static int
range_compare (const void *a, const void *b)
{
  const struct hp_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The ranges of O's PT_LOAD segments that PLAN puts on huge pages (its
   zones without the gaps between segments they may grow into) and
   those it leaves on small pages, into R, sorted by address: their
   number.  None if the plan failed.  */
static size_t
layout_ranges (const struct object *o, const struct hp_plan *plan,
	       struct hp_range *r)
{
  size_t n = 0;
  for (size_t i = 0; plan->error == HP_E_NONE && i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      uint64_t ps, pe;
      if (!load_pages (o, z->load, &ps, &pe))
	continue;
      r[n].start = z->start > ps ? z->start : ps;
      r[n].end = z->end < pe ? z->end : pe;
      r[n].kind = z->kind;
      r[n].load = z->load;
      r[n].reason = HP_R_NONE;
      if (r[n].end > r[n].start)
	++n;
    }
  for (size_t i = 0; plan->error == HP_E_NONE && i < plan->nsmall; ++i)
    r[n++] = plan->small[i];
  qsort (r, n, sizeof r[0], range_compare);
  return n;
}

/* The member "layout": the kind of every page of O's PT_LOAD segments,
   from PLAN (layout_ranges), as maximal ranges of one kind in one
   segment.  It does not depend on the bias, so it also names the kind
   of huge page mappings a process has at another one.  Empty if the
   plan failed.  */
static void
print_layout (struct json *j, const struct object *o,
	      const struct hp_plan *plan)
{
  static struct hp_range r[HP_MAX_RUNS + 2 * HP_MAX_RUNS];
  size_t n = layout_ranges (o, plan, r);
  json_key (j, "layout");
  json_array (j);
  for (size_t i = 0; i < n;)
    {
      uint64_t end = r[i].end;
      size_t k = i + 1;
      while (k < n && r[k].start == end && r[k].kind == r[i].kind
	     && r[k].load == r[i].load)
	end = r[k++].end;
      json_object (j);
      json_kstr (j, "kind", _dl_hugepage_kind_name (r[i].kind));
      json_kuint (j, "start", r[i].start);
      json_kuint (j, "end", end);
      json_kint (j, "load", r[i].load);
      json_end (j);
      i = k;
    }
  json_end (j);
}

/* The settings ld.so would use for O (hp_plan_load).  */
static struct hp_settings
settings_for (const struct object *o, const struct options *opt)
{
  struct hp_settings s;
  _dl_hugepage_settings (&s, PLAN_PAGESIZE, opt->kinds, o->type, opt->kernel,
			 opt->kernel && opt->have_bias, opt->bias, o->textrel,
			 opt->phase);
  s.file_size = o->file_size;
  return s;
}

/* The largest power-of-two p_align of the PT_LOAD headers, at least a
   page: the kernel places a PIE at a multiple of it.  */
static uint64_t
load_alignment (const struct object *o)
{
  uint64_t a = PLAN_PAGESIZE;
  for (size_t i = 0; i < o->nphdr; ++i)
    {
      uint64_t al = o->phdr[i].p_align;
      if (o->phdr[i].p_type == PT_LOAD && HP_POW2 (al) && al > a)
	a = al;
    }
  return a;
}

/* The members of O that say what it is and whether OPT's
   LD_HUGEPAGE_LIBS selects it, and by which pattern.  */
static void
print_selection (struct json *j, const struct object *o,
		 const struct options *opt)
{
  /* Selection, in ld.so's order: the path it opened (patterns with
     `/') or its last component, then DT_SONAME, then the name a
     kernel-mapped program was run by.  */
  const char *pat = NULL, *matched_by = NULL;
  size_t patlen = 0;
  if (opt->libs != NULL && opt->kinds != 0)
    pat = _dl_hugepage_select (opt->libs, o->path, o->soname,
			       opt->kernel ? opt->alias : NULL, &patlen,
			       &matched_by);
  json_kstr (j, "file", o->file);
  json_kstr (j, "path", o->path);
  json_kstr (j, "type", o->type == ET_DYN ? "DYN" : "EXEC");
  json_kstr (j, "soname", o->soname[0] != '\0' ? o->soname : NULL);
  json_kstr (j, "interp", o->interp[0] != '\0' ? o->interp : NULL);
  json_kbool (j, "dynamic", o->dynamic);
  json_kbool (j, "textrel", o->textrel);
  json_kstr (j, "mode", opt->kernel ? "kernel" : "ldso");
  json_kbool (j, "selected", pat != NULL);
  if (pat != NULL)
    json_kstrn (j, "pattern", pat, patlen);
  else
    json_knull (j, "pattern");
  json_kstr (j, "matched_by", pat != NULL ? matched_by : NULL);
}

/* For a position-independent program the kernel maps, where it picks
   the base: the member "bias_range", planned with S at every bias it
   can pick (a multiple of the largest p_align) modulo the huge page
   size, into PLAN.  Returns the bias of the worst case, the most huge
   pages, which is the plan printed.  */
static uint64_t
print_bias_range (struct json *j, const struct object *o,
		  struct hp_settings *s, struct hp_plan *plan)
{
  uint64_t step = load_alignment (o);
  uint64_t lo = UINT64_MAX, hi = 0, lo_bias = 0, hi_bias = 0, n = 0;
  for (uint64_t b = 0; b < PLAN_HUGEPAGESIZE || b == 0; b += step)
    {
      s->bias = b;
      _dl_hugepage_plan (o->phdr, o->phnum, s, plan);
      uint64_t pages = (plan->error == HP_E_NONE
			? plan->huge_bytes / PLAN_HUGEPAGESIZE : 0);
      if (pages < lo)
	{
	  lo = pages;
	  lo_bias = b;
	}
      if (pages > hi)
	{
	  hi = pages;
	  hi_bias = b;
	}
      ++n;
      if (step >= PLAN_HUGEPAGESIZE)
	break;
    }
  json_key (j, "bias_range");
  json_object (j);
  json_kuint (j, "biases", n);
  json_kuint (j, "min_pages", lo);
  json_kuint (j, "min_bias", lo_bias);
  json_kuint (j, "max_pages", hi);
  json_kuint (j, "max_bias", hi_bias);
  json_end (j);
  return hi_bias;
}

#ifdef __aarch64__
/* The text of O that ld.so puts on 64 KiB pages around PLAN's 2 MiB
   zones (dl-hugepage-cont.c, the private backing), planned as it plans
   it, at PLAN's bias: "cont": its page size, bytes and ranges.  */
static void
print_cont (struct json *j, const struct object *o,
	    const struct hp_settings *big, const struct hp_plan *plan)
{
  struct hp_settings s = *big;
  _dl_hugepage_cont_settings (&s, plan->bias);
  static struct hp_plan cont;
  static struct hp_zone pieces[HP_MAX_RUNS + 1];
  _dl_hugepage_plan (o->phdr, o->phnum, &s, &cont);
  json_key (j, "cont");
  json_object (j);
  json_kuint (j, "pagesize", HP_CONT_SIZE);
  uint64_t bytes = 0;
  json_key (j, "ranges");
  json_array (j);
  for (size_t i = 0; cont.error == HP_E_NONE && i < cont.nzones; ++i)
    {
      if (cont.zones[i].kind != HP_KIND_TEXT)
	continue;
      size_t n = _dl_hugepage_zone_pieces (&cont.zones[i], plan->zones,
					   plan->nzones, pieces,
					   sizeof pieces / sizeof pieces[0]);
      for (size_t k = 0; k < n; ++k)
	{
	  json_array (j);
	  json_uint (j, pieces[k].start);
	  json_uint (j, pieces[k].end);
	  json_end (j);
	  bytes += pieces[k].end - pieces[k].start;
	}
    }
  json_end (j);
  json_kuint (j, "bytes", bytes);
  json_end (j);
}
#endif

void
print_object (struct json *j, const struct object *o,
	      const struct options *opt)
{
  json_object (j);
  print_selection (j, o, opt);
  /* The plan is made whether or not the object is selected, so that
     one can see what selecting it would take.  */
  struct hp_settings s = settings_for (o, opt);
  static struct hp_plan plan;
  if (opt->kernel && !opt->have_bias && o->type == ET_DYN)
    s.bias = print_bias_range (j, o, &s, &plan);
  _dl_hugepage_plan (o->phdr, o->phnum, &s, &plan);
  print_plan (j, &plan, o->textrel, opt);
#ifdef __aarch64__
  /* As ld.so: after an object's 2 MiB zones are applied (a plan with
     some), its text, with the private backing (dl-hugepage-cont.c).  */
  if (plan.error == HP_E_NONE && plan.nzones > 0
      && _dl_hugepage_cont_wanted (opt->kinds, PLAN_PAGESIZE, opt->order,
				   opt->norder))
    print_cont (j, o, &s, &plan);
#endif
  if (opt->layout)
    print_layout (j, o, &plan);
  if (opt->cache)
    print_cache (j, o, PLAN_PAGESIZE);
  json_end (j);
}
