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

#include <inttypes.h>
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

static void
print_prot (int prot)
{
  printf ("\"%c%c%c\"", (prot & PF_R) ? 'r' : '-', (prot & PF_W) ? 'w' : '-',
	  (prot & PF_X) ? 'x' : '-');
}

/* The name of backing B for JSON, or null for ordinary pages.  */
static void
print_backing (int b)
{
  if (b == 0)
    printf ("null");
  else
    json_string (_dl_hugepage_backing_name (b));
}

/* PLAN of an object with text relocations if TEXTREL, under OPT.  Each
   zone has the backing ld.so ends up with for it where the shared
   cache holds the zone and where it does not ("backing_cached",
   "backing_uncached"): which of the two applies is for the caller to
   find out.  */
static void
print_plan (const struct hp_plan *plan, bool textrel,
	    const struct options *opt)
{
  /* Which backings work here (a pool is assumed large enough), and the
     one that works only where the cache holds the zone.  */
  unsigned int available = ((1u << HP_B_PRIVATE)
			    | (opt->thp ? 1u << HP_B_THP : 0));
  unsigned int cached = 1u << HP_B_SHARED;
  printf ("\"error\": ");
  if (plan->error != HP_E_NONE)
    json_string (_dl_hugepage_error_name (plan->error));
  else
    printf ("null");
  printf (", \"bias\": %" PRIu64 ", \"modulus\": %" PRIu64
	  ", \"huge_bytes\": %" PRIu64 ", \"huge_pages\": %" PRIu64
	  ",\n   \"zones\": [",
	  plan->bias, plan->modulus,
	  plan->error == HP_E_NONE ? plan->huge_bytes : 0,
	  plan->error == HP_E_NONE ? plan->huge_bytes / PLAN_HUGEPAGESIZE : 0);
  /* Where each zone comes in the order ld.so gives a short pool's
     pages (text first).  */
  unsigned char order[HP_MAX_RUNS], rank[HP_MAX_RUNS];
  if (plan->error == HP_E_NONE)
    {
      _dl_hugepage_zone_order (plan, order);
      for (size_t i = 0; i < plan->nzones; ++i)
	rank[order[i]] = i;
    }
  for (size_t i = 0; plan->error == HP_E_NONE && i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      printf ("%s\n    {\"kind\": \"%s\", \"start\": %" PRIu64
	      ", \"end\": %" PRIu64 ", \"pages\": %" PRIu64
	      ", \"order\": %d, \"load\": %d, \"prot\": ",
	      i > 0 ? "," : "", _dl_hugepage_kind_name (z->kind), z->start,
	      z->end, (z->end - z->start) / PLAN_HUGEPAGESIZE, rank[i],
	      z->load);
      print_prot (z->prot);
      printf (", \"backing_cached\": ");
      print_backing (_dl_hugepage_expected_backing (opt->order, opt->norder,
						    z, textrel,
						    available | cached));
      printf (", \"backing_uncached\": ");
      print_backing (_dl_hugepage_expected_backing (opt->order, opt->norder,
						    z, textrel, available));
      printf ("}");
    }
  printf ("],\n   \"small\": [");
  for (size_t i = 0; plan->error == HP_E_NONE && i < plan->nsmall; ++i)
    {
      const struct hp_range *r = &plan->small[i];
      printf ("%s\n    {\"kind\": \"%s\", \"start\": %" PRIu64
	      ", \"end\": %" PRIu64 ", \"load\": %d, \"reason\": ",
	      i > 0 ? "," : "", _dl_hugepage_kind_name (r->kind), r->start,
	      r->end, r->load);
      json_string (_dl_hugepage_reason_name (r->reason));
      printf ("}");
    }
  printf ("]");
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

/* The kind of every page of O's PT_LOAD segments, from PLAN: its zones
   without the gaps between segments they may grow into, and its small
   ranges, as maximal ranges of one kind in one segment.  It does not
   depend on the bias, so it also names the kind of huge page mappings
   a process has at another one.  Empty if the plan failed.  */
static void
print_layout (const struct object *o, const struct hp_plan *plan)
{
  static struct hp_range r[HP_MAX_RUNS + 2 * HP_MAX_RUNS];
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

  printf (",\n   \"layout\": [");
  bool first = true;
  for (size_t i = 0; i < n;)
    {
      uint64_t end = r[i].end;
      size_t j = i + 1;
      while (j < n && r[j].start == end && r[j].kind == r[i].kind
	     && r[j].load == r[i].load)
	end = r[j++].end;
      printf ("%s\n    {\"kind\": \"%s\", \"start\": %" PRIu64
	      ", \"end\": %" PRIu64 ", \"load\": %d}",
	      first ? "" : ",", _dl_hugepage_kind_name (r[i].kind),
	      r[i].start, end, r[i].load);
      first = false;
      i = j;
    }
  printf ("]");
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

void
print_object (const struct object *o, const struct options *opt, bool first)
{
  /* Selection, in ld.so's order: the path it opened (patterns with
     `/') or its last component, then DT_SONAME, then the name a
     kernel-mapped program was run by.  */
  const char *pat = NULL, *matched_by = NULL;
  size_t patlen = 0;
  if (opt->libs != NULL && opt->kinds != 0)
    {
      pat = _dl_hugepage_select (opt->libs, o->path, o->soname,
				 opt->kernel ? opt->alias : NULL, &patlen,
				 &matched_by);
      if (pat == NULL)
	matched_by = NULL;
    }

  printf ("%s\n  {\"file\": ", first ? "" : ",");
  json_string (o->file);
  printf (", \"path\": ");
  json_string (o->path);
  printf (", \"type\": \"%s\", \"soname\": ",
	  o->type == ET_DYN ? "DYN" : "EXEC");
  if (o->soname[0] != '\0')
    json_string (o->soname);
  else
    printf ("null");
  printf (", \"interp\": ");
  if (o->interp[0] != '\0')
    json_string (o->interp);
  else
    printf ("null");
  printf (", \"dynamic\": %s, \"textrel\": %s,\n   \"mode\": \"%s\", "
	  "\"selected\": %s, \"pattern\": ",
	  o->dynamic ? "true" : "false", o->textrel ? "true" : "false",
	  opt->kernel ? "kernel" : "ldso", pat != NULL ? "true" : "false");
  if (pat != NULL)
    {
      json_strn (pat, patlen);
      printf (", \"matched_by\": ");
      json_string (matched_by);
    }
  else
    printf ("null, \"matched_by\": null");
  printf (",\n   ");

  /* The plan is made whether or not the object is selected, so that
     one can see what selecting it would take.  */
  struct hp_settings s = settings_for (o, opt);
  static struct hp_plan plan;
  if (opt->kernel && !opt->have_bias && o->type == ET_DYN)
    {
      /* The kernel picks the base: try every bias it can pick (a
	 multiple of the largest p_align) modulo the huge page size.  */
      uint64_t step = load_alignment (o);
      uint64_t lo = UINT64_MAX, hi = 0, lo_bias = 0, hi_bias = 0, n = 0;
      for (uint64_t b = 0; b < PLAN_HUGEPAGESIZE || b == 0; b += step)
	{
	  s.bias = b;
	  _dl_hugepage_plan (o->phdr, o->phnum, &s, &plan);
	  uint64_t pages = (plan.error == HP_E_NONE
			    ? plan.huge_bytes / PLAN_HUGEPAGESIZE : 0);
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
      printf ("\"bias_range\": {\"biases\": %" PRIu64 ", \"min_pages\": %"
	      PRIu64 ", \"min_bias\": %" PRIu64 ", \"max_pages\": %" PRIu64
	      ", \"max_bias\": %" PRIu64 "},\n   ",
	      n, lo, lo_bias, hi, hi_bias);
      /* The plan printed is the worst case: the most pages.  */
      s.bias = hi_bias;
    }
  _dl_hugepage_plan (o->phdr, o->phnum, &s, &plan);
  print_plan (&plan, o->textrel, opt);
  if (opt->layout)
    print_layout (o, &plan);
  if (opt->cache)
    print_cache (o, PLAN_PAGESIZE);
  printf ("}");
}
