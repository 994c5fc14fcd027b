/* hugeld: fuzz target for the planner and the name matcher.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Builds as a libFuzzer target (clang -fsanitize=fuzzer) or, with
   driver.c, as a plain program that runs random inputs and the seed
   corpus (gcc).  Input layout: one flags byte (bit 0 fixed bias, 1
   textrel, 2 64 KiB pages, 3 no_gaps, 4 nudge the headers towards
   plausible ones, 5 and 6 the phase mode, 7 glob mode), one kinds byte, eight
   bytes of fixed bias, then the rest as program headers (plan) or as a
   NUL-split pattern and name (glob mode, which also feeds the same
   bytes to LD_HUGEPAGE_BACKING's parser, the build ID finder, the
   cgroup readers, the policy file parser and the reader of
   ld.so.cache's tunables).  Any
   invariant violation aborts.
   tests/fuzz/make-corpus.py writes the seed corpus.  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dl-hugepage-cache.h"
#include "dl-hugepage-conf.h"
#include "plan-check.h"

static struct hp_plan plan;
/* How many inputs gave a plan with zones (the driver reports it: a
   fuzzer that never reaches them tests nothing).  */
long fuzz_plans_with_zones;
/* How many inputs made a policy file that parses and selects.  */
long fuzz_confs_selecting;

static void
fuzz_plan (const uint8_t *data, size_t size)
{
  if (size < 10)
    return;
  unsigned char flags = data[0];
  struct hp_settings s;
  memset (&s, 0, sizeof s);
  s.pagesize = 4096;
  s.hugepagesize = 2 * 1024 * 1024;
  unsigned char kinds_byte = data[1];
  s.kinds = kinds_byte & HP_KIND_ALL;
  s.fixed_bias = data[0] & 1;
  s.textrel = (data[0] >> 1) & 1;
  s.no_gaps = (data[0] >> 3) & 1;
  s.phase = (data[0] >> 5) & 3;	/* 3: an unknown mode, as NONE.  */
  if (data[0] & 4)
    s.pagesize = 64 * 1024;
  memcpy (&s.bias, data + 2, 8);
  if (!s.fixed_bias)
    s.bias = 0;
  uint64_t cut;
  memcpy (&cut, data + 2, 8);
  data += 10;
  size -= 10;

  /* Program headers: the raw bytes, or (flag bit 4) nudged towards
     plausible ones, so that random inputs reach the interesting
     paths.  */
  ElfW(Phdr) ph[24];
  size_t n = size / sizeof (ElfW(Phdr));
  if (n > 24)
    n = 24;
  memcpy (ph, data, n * sizeof (ElfW(Phdr)));
  if ((flags & 0x10) != 0 && n > 0)
    {
      uint64_t at = 0;
      for (size_t i = 0; i < n; ++i)
	{
	  if (ph[i].p_type & 1)
	    ph[i].p_type = PT_LOAD;
	  else if (ph[i].p_type & 2)
	    ph[i].p_type = PT_GNU_RELRO;
	  ph[i].p_memsz &= 0x3ffffff;
	  ph[i].p_filesz &= 0x3ffffff;
	  ph[i].p_vaddr = at + (ph[i].p_vaddr & 0x3fffff);
	  ph[i].p_offset = ph[i].p_vaddr & 0xfffff;
	  at = ph[i].p_vaddr + ph[i].p_memsz;
	}
    }
  /* A file shorter than its headers say (bits 6 and 7 of the kinds byte):
     cut somewhere before the end of the last segment's bytes.  */
  s.file_size = HP_ADDR_LIMIT;
  if ((kinds_byte & 0xc0) == 0xc0)
    {
      uint64_t end = 0;
      for (size_t i = 0; i < n; ++i)
	if (ph[i].p_type == PT_LOAD && ph[i].p_offset < HP_ADDR_LIMIT
	    && ph[i].p_filesz < HP_ADDR_LIMIT
	    && ph[i].p_offset + ph[i].p_filesz > end)
	  end = ph[i].p_offset + ph[i].p_filesz;
      s.file_size = end != 0 ? cut % end : 0;
    }
  _dl_hugepage_plan (ph, n, &s, &plan);
  if (plan.nzones > 0)
    ++fuzz_plans_with_zones;
  const char *v = plan_violation (ph, n, &s, &plan);
  if (v == NULL)
    v = plan_parts_violation (ph, n, &s, &plan);
  if (v != NULL)
    {
      fprintf (stderr, "plan invariant broken: %s\n", v);
      abort ();
    }
}

/* The policy file parser, on TEXT (SIZE bytes, in a buffer of exactly
   that size): resolving a file that checks must give a joined list
   that fits, lines that exist, and the same answer twice.  */
static void
fuzz_conf_text (const char *text, size_t size)
{
  struct hp_conf_summary sum;
  _dl_hugepage_conf_check (text, size, &sum);
  unsigned int nlines = 1;
  for (size_t i = 0; i < size; ++i)
    nlines += text[i] == '\n';
  if (sum.error_line > nlines || (sum.error_line == 0) != (sum.error == NULL)
      || sum.rules > nlines)
    abort ();
  if (sum.error_line != 0)
    return;
  bool counted = false;
  static const char *const names[] =
    { "/usr/sbin/mariadbd", "/usr/bin/true", "a", "/a/b" };
  for (size_t k = 0; k <= 4; ++k)
    {
      const char *const *nm = names + (k < 4 ? k : 0);
      size_t nn = k < 4 ? 1 : 0;
      struct hp_conf_settings s, s2;
      char *libs = malloc (2 * size + 2), *libs2 = malloc (2 * size + 2);
      if (libs == NULL || libs2 == NULL)
	abort ();
      bool secure = k == 1;
      _dl_hugepage_conf_resolve (text, size, nm, nn, secure, &s, libs);
      _dl_hugepage_conf_resolve (text, size, nm, nn, secure, &s2, libs2);
      if (s.libslen > size || strlen (libs) != s.libslen
	  || strcmp (libs, libs2) != 0 || memcmp (&s, &s2, sizeof s) != 0
	  || s.libs_line > nlines || s.segments_line > nlines
	  || s.backing_line > nlines || s.block_line > nlines
	  || (s.libslen > 0 && s.libs_line == 0)
	  || s.nbackings > HP_NBACKINGS
	  || (secure && s.block_line == 0 && s.libslen != 0)
	  || (s.kinds & ~HP_KIND_ALL) != 0)
	abort ();
      if (s.libslen > 0 && !counted)
	{
	  ++fuzz_confs_selecting;
	  counted = true;
	}
      for (size_t off = 0; off < s.libslen; ++off)
	{
	  unsigned int line = _dl_hugepage_conf_libs_line (text, size,
							   s.block_line, off);
	  if (libs[off] != ':' && (line < s.libs_line || line > nlines))
	    abort ();
	}
      free (libs);
      free (libs2);
    }
}

/* DATA as a policy file: at the start of a line a byte picks a
   keyword, after it each byte picks a piece of an argument (or, one
   time in eight, is itself), so that most inputs get past the first
   line.  */
static void
fuzz_conf (const uint8_t *data, size_t size)
{
  static const char *const keys[] =
    { "libs ", "segments ", "backing ", "cache ", "pool ", "program ",
      "# ", "" };
  static const char *const pieces[] =
    {
      "\n", "\n", "\n", " ", "\t", " #", "*", "/", ":", "none", "auto",
      "12", "text,", "data", "all", "shared,", "thp", "private", "lib",
      "a", "/usr/sbin/mariadbd", "true", "[a-c]", "\\", "\r", "/usr/lib/",
    };
  const size_t npieces = sizeof pieces / sizeof pieces[0];
  char *text = malloc (size * 20 + 1);
  if (text == NULL)
    abort ();
  size_t n = 0;
  bool start = true;
  for (size_t i = 0; i < size; ++i)
    {
      const char *p;
      char raw[2] = { 0x20 + data[i] % 0x5f, '\0' };
      if (start)
	p = keys[data[i] % (sizeof keys / sizeof keys[0])];
      else if ((data[i] & 0xe0) == 0xe0)
	p = data[i] == 0xff ? "\x7f" : raw;
      else
	p = pieces[data[i] % npieces];
      size_t l = strlen (p);
      memcpy (text + n, p, l);
      n += l;
      start = l > 0 && p[l - 1] == '\n';
    }
  /* Exactly N bytes, so that a read past them is seen.  */
  char *exact = malloc (n ? n : 1);
  if (exact == NULL)
    abort ();
  memcpy (exact, text, n);
  free (text);
  fuzz_conf_text (exact, n);
  free (exact);
}

/* Check what _dl_hugepage_tunconf_find found in SEC (SIZE bytes) with
   the strings of DATA in [START, END): either nothing (malformed), or
   values that lie in the string table and end there, a lock only with
   a value, and the same validity whatever the program and AT_SECURE.  */
static void
fuzz_tunconf_check (const unsigned char *sec, size_t size, const char *data,
		    size_t start, size_t end, const char *path)
{
  struct hp_tunconf_value v[HP_NTUNABLES], w[HP_NTUNABLES];
  bool need = false;
  bool ok = _dl_hugepage_tunconf_find (sec, size, data, start, end, NULL,
				       false, v, &need);
  for (int t = 0; t < HP_NTUNABLES; ++t)
    {
      if (v[t].value == NULL)
	{
	  if (v[t].locked || v[t].len != 0)
	    abort ();
	  continue;
	}
      if (!ok || v[t].value < data + start || v[t].value >= data + end
	  || v[t].len >= (size_t) (data + end - v[t].value)
	  || v[t].value[v[t].len] != '\0' || strlen (v[t].value) != v[t].len)
	abort ();
    }
  if (_dl_hugepage_tunconf_find (sec, size, data, start, end, path, true, w,
				 NULL) != ok)
    abort ();
  if (_dl_hugepage_tunconf_find (sec, size, data, start, end, path, false, w,
				 NULL) != ok)
    abort ();
  /* Without a filter to ask it, the path changes nothing.  */
  if (ok && !need)
    for (int t = 0; t < HP_NTUNABLES; ++t)
      if (v[t].value != w[t].value || v[t].locked != w[t].locked)
	abort ();
}

/* DATA as ld.so.cache's tunables: raw (a section and a string table
   from the same bytes), and built: entries with plausible flags whose
   offsets point near the strings' starts, so that most inputs reach
   the filters and the order.  All in copies of their exact size.  */
static void
fuzz_tunconf (const uint8_t *data, size_t size)
{
  static const char *const strings[] =
    {
      "glibc.elf.hugepage.libs", "glibc.elf.hugepage.segments",
      "glibc.elf.hugepage.backing", "glibc.malloc.perturb", "libbig.so",
      "all", "myprog", "/usr/bin/myprog", "glibc.elf.hugepage.", "",
    };
  enum { NSTR = sizeof strings / sizeof strings[0] };
  size_t half = size / 2;
  char *raw = malloc (half ? half : 1);
  unsigned char *rsec = malloc (size - half ? size - half : 1);
  if (raw == NULL || rsec == NULL)
    abort ();
  memcpy (raw, data, half);
  memcpy (rsec, data + half, size - half);
  fuzz_tunconf_check (rsec, size - half, raw, size ? data[0] % 8 : 0, half,
		      "/usr/bin/myprog");
  free (raw);
  free (rsec);

  /* Built: a string table of the fixed strings, then entries.  */
  char table[512];
  uint32_t off[NSTR];
  size_t n = 8;
  memset (table, 'x', n);
  for (int i = 0; i < NSTR; ++i)
    {
      off[i] = n;
      memcpy (table + n, strings[i], strlen (strings[i]) + 1);
      n += strlen (strings[i]) + 1;
    }
  size_t count = size / 4 > 12 ? 12 : size / 4;
  size_t ssize = HP_TUNCONF_HEADER_SIZE + count * HP_TUNCONF_ENTRY_SIZE;
  unsigned char *sec = calloc (1, ssize);
  char *exact = malloc (n);
  if (sec == NULL || exact == NULL)
    abort ();
  memcpy (exact, table, n);
  uint32_t w32[4] = { HP_TUNCONF_SIGNATURE, HP_TUNCONF_VERSION, count, 0 };
  memcpy (sec, w32, sizeof w32);
  for (size_t i = 0; i < count; ++i)
    {
      const uint8_t *b = data + 4 * i;
      uint32_t e[8] = { 0 };
      e[0] = ((b[0] & 1 ? HP_TUNCONF_OVERRIDE_DENY : 0)
	      | (b[0] & 2 ? HP_TUNCONF_EXCLUDE_SECURE : 0)
	      | (b[0] & 4 ? HP_TUNCONF_EXCLUDE_UNSECURE : 0)
	      | (b[0] & 8 ? HP_TUNCONF_FILTER_PERPROC : 0)
	      | (b[0] & 0x10 ? 0x200 : 0));
      e[2] = off[b[1] % NSTR] + (b[0] & 0x20 ? b[3] % 3 : 0);
      e[3] = off[b[2] % NSTR];
      e[4] = (b[0] & 0x40) ? 0 : off[b[3] % NSTR];
      if ((b[0] & 0x80) && (b[2] & 0xc0) == 0xc0)
	e[3 + b[3] % 2] += b[1];	/* Now and then a wild offset.  */
      memcpy (sec + HP_TUNCONF_HEADER_SIZE + i * HP_TUNCONF_ENTRY_SIZE, e,
	      sizeof e);
    }
  static const char *const paths[] =
    { "/usr/bin/myprog", "/bin/myprog", "myprog", "/usr/bin/other" };
  fuzz_tunconf_check (sec, ssize, exact, 8, n,
		      paths[size ? data[size - 1] % 4 : 0]);
  /* The table one byte short: the last string no longer ends in it.  */
  fuzz_tunconf_check (sec, ssize, exact, 8, n - 1, "/usr/bin/myprog");
  free (sec);
  free (exact);
}

static void
fuzz_glob (const uint8_t *data, size_t size)
{
  char buf[512];
  if (size >= sizeof buf)
    size = sizeof buf - 1;
  memcpy (buf, data, size);
  buf[size] = '\0';
  size_t plen = strlen (buf);
  const char *name = plen < size ? buf + plen + 1 : "";
  (void) _dl_hugepage_glob (buf, plen, name);
  size_t len;
  const char *p = _dl_hugepage_match_list (buf, name, name, &len);
  if (p != NULL && (p < buf || p + len > buf + plen))
    abort ();
  (void) _dl_hugepage_parse_kinds (buf);
  /* As GLIBC_TUNABLES: each value found lies inside the string, after
     its name's '=', and has no ':'; the libs value copied has no ','.  */
  const char *tv[HP_NTUNABLES];
  size_t tl[HP_NTUNABLES];
  if (_dl_hugepage_tunables_find (buf, tv, tl))
    for (int t = 0; t < HP_NTUNABLES; ++t)
      {
	if (tv[t] == NULL)
	  continue;
	if (tv[t] <= buf || tv[t] + tl[t] > buf + plen || tv[t][-1] != '='
	    || memchr (tv[t], ':', tl[t]) != NULL)
	  abort ();
	char copy[sizeof buf];
	_dl_hugepage_tunable_value (t, tv[t], tl[t], copy);
	if (strlen (copy) > tl[t]
	    || (t == HP_TUN_LIBS && strchr (copy, ',') != NULL))
	  abort ();
      }
  unsigned char order[HP_NBACKINGS];
  int n = _dl_hugepage_parse_backing (buf, order);
  if (n > HP_NBACKINGS)
    abort ();
  /* The same bytes as notes: a build ID found must lie inside them and
     make a name that fits.  */
  struct hp_identity id = { 0 };
  uint32_t notes[128];
  memcpy (notes, data, size < sizeof notes ? size : sizeof notes);
  if (_dl_hugepage_find_build_id (notes, size < sizeof notes ? size
				  : sizeof notes, &id))
    {
      char name[HP_CACHE_NAME_MAX];
      if (id.build_id_len == 0 || id.build_id_len > HP_BUILD_ID_MAX)
	abort ();
      _dl_hugepage_cache_version_name (&id, name);
      if (strlen (name) >= HP_CACHE_NAME_MAX)
	abort ();
    }
  /* The same bytes as /proc/self/cgroup and as a limit file, in a copy
     of their exact size (so that the sanitizer sees any read past
     them): a path found lies inside and starts with a slash.  */
  char *text = malloc (size ? size : 1);
  if (text == NULL)
    abort ();
  memcpy (text, data, size);
  for (int v1 = 0; v1 < 2; ++v1)
    {
      p = _dl_hugepage_cgroup_path (text, size, v1, &len);
      if (p != NULL && (p < text || len == 0 || p + len > text + size
			|| *p != '/'))
	abort ();
    }
  (void) _dl_hugepage_cgroup_limit_none (text, size);
  /* And as a policy file, raw and built from its pieces.  */
  fuzz_conf_text (text, size);
  fuzz_conf (data, size);
  /* And as ld.so.cache's tunables section.  */
  fuzz_tunconf (data, size);
  /* Short files parse more often: a few of them from the same bytes.  */
  for (size_t off = 0, k = 0; off < size && k < 8; off += 12, ++k)
    fuzz_conf (data + off, size - off < 12 ? size - off : 12);
  free (text);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  if (data[0] & 0x80)
    fuzz_glob (data + 1, size - 1);
  else
    fuzz_plan (data, size);
  return 0;
}
