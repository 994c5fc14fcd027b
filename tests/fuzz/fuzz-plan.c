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
   ld.so.cache's tunables; with bit 6 too, resolve mode: every source
   of the settings at once, into the resolver).  Any
   invariant violation aborts.
   tests/fuzz/make-corpus.py writes the seed corpus.  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dl-hugepage-cache.h"
#include "dl-hugepage-cgroup.h"
#include "dl-hugepage-dynamic.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"
#include "dl-hugepage-place.h"
#include "dl-hugepage-settings.h"
#include "tst-hugepage-plan-check.h"

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
      /* Exactly the room the header promises.  */
      size_t maxspans = HP_CONF_MAX_SPANS (size);
      struct hp_conf_span *spans = malloc (maxspans * sizeof *spans);
      if (libs == NULL || libs2 == NULL || spans == NULL)
	abort ();
      bool secure = k == 1;
      _dl_hugepage_conf_resolve (text, size, nm, nn, secure, &s, libs, spans);
      _dl_hugepage_conf_resolve (text, size, nm, nn, secure, &s2, libs2,
				 NULL);
      s2.spans = s.spans;
      s2.nspans = s.nspans;
      if (s.libslen > size || strlen (libs) != s.libslen
	  || strcmp (libs, libs2) != 0 || memcmp (&s, &s2, sizeof s) != 0
	  || s.nspans > maxspans || (s.libslen > 0) != (s.nspans > 0)
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
      /* Every byte of a pattern has its line, which is a libs line of
	 the scope used; the spans in order and covering the list.  */
      for (size_t off = 0; off < s.libslen; ++off)
	{
	  unsigned int line = _dl_hugepage_conf_span_line (s.spans, s.nspans,
							   off);
	  if ((libs[off] != ':' && line == 0)
	      || (line != 0 && (line < s.libs_line || line > nlines)))
	    abort ();
	}
      for (size_t i = 0; i < s.nspans; ++i)
	if (s.spans[i].start >= s.spans[i].end
	    || (i > 0 && (s.spans[i].line <= s.spans[i - 1].line
			  || s.spans[i].start != s.spans[i - 1].end + 1)))
	  abort ();
      free (spans);
      free (libs);
      free (libs2);
    }
}

/* DATA as a policy file: at the start of a line a byte picks a
   keyword, after it each byte picks a piece of an argument (or, one
   time in eight, is itself), so that most inputs get past the first
   line.  The text, in a buffer of exactly its size (*N bytes), so
   that a read past it is seen.  */
static char *
build_conf (const uint8_t *data, size_t size, size_t *np)
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
  char *exact = malloc (n ? n : 1);
  if (exact == NULL)
    abort ();
  memcpy (exact, text, n);
  free (text);
  *np = n;
  return exact;
}

static void
fuzz_conf (const uint8_t *data, size_t size)
{
  size_t n;
  char *exact = build_conf (data, size, &n);
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
  struct hp_tunconf_value v[HP_NSETTINGS], w[HP_NSETTINGS];
  bool need = false;
  bool ok = _dl_hugepage_tunconf_find (sec, size, data, start, end, NULL,
				       false, v, &need);
  for (int t = 0; t < HP_NSETTINGS; ++t)
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
    for (int t = 0; t < HP_NSETTINGS; ++t)
      if (v[t].value != w[t].value || v[t].locked != w[t].locked)
	abort ();
}

/* DATA as entries of ld.so.cache's tunables section with plausible
   flags, whose offsets point near the starts of a string table of
   fixed strings, so that most inputs reach the filters and the order:
   the section (*SEC, *SSIZE bytes) and the table (returned, *N bytes,
   its strings from offset 8), each in a buffer of its exact size.  */
static char *
build_tunconf (const uint8_t *data, size_t size, unsigned char **secp,
	       size_t *ssizep, size_t *np)
{
  static const char *const strings[] =
    {
      "glibc.elf.hugepage.libs", "glibc.elf.hugepage.segments",
      "glibc.elf.hugepage.backing", "glibc.malloc.perturb", "libbig.so",
      "all", "myprog", "/usr/bin/myprog", "glibc.elf.hugepage.", "",
    };
  enum { NSTR = sizeof strings / sizeof strings[0] };
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
  *secp = sec;
  *ssizep = ssize;
  *np = n;
  return exact;
}

/* DATA as ld.so.cache's tunables: raw (a section and a string table
   from the same bytes), and built: entries with plausible flags whose
   offsets point near the strings' starts, so that most inputs reach
   the filters and the order.  All in copies of their exact size.  */
static void
fuzz_tunconf (const uint8_t *data, size_t size)
{
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
  unsigned char *sec;
  size_t ssize, n;
  char *exact = build_tunconf (data, size, &sec, &ssize, &n);
  static const char *const paths[] =
    { "/usr/bin/myprog", "/bin/myprog", "myprog", "/usr/bin/other" };
  fuzz_tunconf_check (sec, ssize, exact, 8, n,
		      paths[size ? data[size - 1] % 4 : 0]);
  /* The table one byte short: the last string no longer ends in it.  */
  fuzz_tunconf_check (sec, ssize, exact, 8, n - 1, "/usr/bin/myprog");
  free (sec);
  free (exact);
}

/* How many inputs were resolved, and of those how many took a setting
   from each source (HP_SOURCE_*): a fuzzer that never reaches one
   tests nothing there.  */
long fuzz_resolved, fuzz_resolved_from[5];

/* Whether P lies in [BASE, BASE + LEN].  */
static bool
inside (const char *p, const char *base, size_t len)
{
  return base != NULL && p >= base && p <= base + len;
}

/* Resolve S into *E as ld.so does: gather what is asked, once each.  */
static void
resolve_all (struct hp_sources *s, struct hp_effective *e,
	     const char *path, bool have_conf)
{
  unsigned int need, asked = 0;
  while ((need = _dl_hugepage_resolve (s, e)) != 0)
    {
      /* Each input is asked for once, the path first.  */
      if ((need & asked) != 0 || (need & (need - 1)) != 0)
	abort ();
      asked |= need;
      if (need == HP_NEED_PATH)
	{
	  s->have_path = true;
	  s->path = path;
	}
      else
	{
	  s->have_conf = true;
	  if (!have_conf)
	    s->conf = NULL;
	}
    }
}

/* DATA as every source of the settings at once: the variables, a
   small environment with GLIBC_TUNABLES strings, ld.so.cache's
   tunables section and a policy file, AT_SECURE or not.  The answer
   must come from the sources by the rules of dl-hugepage-settings.h
   (checked here against a plain statement of them), lie in the
   inputs, and be the same when asked again.  */
static void
fuzz_resolve (const uint8_t *data, size_t size)
{
  if (size < 12)
    return;
  static const char *const values[] =
    {
      "", "libbig.so", "a*,b", "text", "all", "txt", ",", "thp",
      "private,shared", "shared,x", "a:b", "none", "text,,bss", "*",
    };
  enum { NV = sizeof values / sizeof values[0] };
  static const char *const entries[] =
    {
      "glibc.elf.hugepage.libs=", "glibc.elf.hugepage.segments=",
      "glibc.elf.hugepage.backing=", "glibc.malloc.perturb=1",
      "glibc.elf.hugepage.libs=", "glibc.elf.hugepage.segments=",
      "glibc.elf.hugepage.backing=", "x", "a=b=c", "",
      "glibc.elf.hugepage.libsx=1",
    };
  enum { NE = sizeof entries / sizeof entries[0] };
  unsigned char flags = data[0];
  struct hp_sources src;
  memset (&src, 0, sizeof src);
  src.secure = flags & 1;
  for (int t = 0; t < HP_NSETTINGS; ++t)
    src.variable[t] = ((data[1 + t] & 0xc0) != 0 ? NULL
		       : values[data[1 + t] % NV]);

  /* Up to four environment strings, each of up to four entries.  */
  char envbuf[4][256];
  char *env[6] = { NULL };
  size_t nenv = 0;
  if ((flags & 0x10) == 0)
    {
      env[nenv++] = (char *) "PATH=/usr/bin";
      for (int i = 0; i < 4 && (data[4 + i] & 0x80) == 0; ++i)
	{
	  char *p = envbuf[i];
	  p += sprintf (p, "%s", (data[4 + i] & 0x40)
			? "GLIBC_TUNABLES=" : "GLIBC_TUNABLESX=");
	  for (int j = 0; j < (data[4 + i] & 3) + 1; ++j)
	    {
	      uint8_t b = data[(8 + i * 4 + j) % size];
	      const char *en = entries[b % NE];
	      p += sprintf (p, "%s%s%s", j > 0 ? ":" : "", en,
			    en[0] != '\0' && en[strlen (en) - 1] == '='
			    ? values[(b >> 3) % NV] : "");
	    }
	  env[nenv++] = envbuf[i];
	}
      src.environ = env;
    }

  /* The rest: half the system-wide tunables, half the policy file.  */
  const uint8_t *rest = data + 12;
  size_t nrest = size - 12, half = nrest / 2;
  unsigned char *sec = NULL;
  size_t ssize = 0, tn = 0;
  char *table = NULL;
  if (flags & 4)
    {
      table = build_tunconf (rest, half, &sec, &ssize, &tn);
      src.tunconf = sec;
      src.tunconf_size = ssize;
      src.tunconf_data = table;
      src.tunconf_start = 8;
      src.tunconf_end = tn;
    }
  /* Short files parse more often; half the time a file that does.  */
  static const char *const files[] =
    {
      "libs a*\nsegments text\n", "backing thp\nprogram myprog\nlibs none\n",
      "libs x\nprogram /usr/bin/myprog\nsegments all\nbacking private\n",
      "segments rodata\n",
    };
  size_t cn = 0;
  char *conf;
  if (flags & 0x20)
    {
      const char *f = files[(flags >> 6) % 4];
      cn = strlen (f);
      conf = malloc (cn);
      if (conf == NULL)
	abort ();
      memcpy (conf, f, cn);
    }
  else
    conf = build_conf (rest + half, nrest - half < 10 ? nrest - half : 10,
		       &cn);
  struct hp_conf_summary sum;
  _dl_hugepage_conf_check (conf, cn, &sum);
  bool have_conf = (flags & 2) && sum.error_line == 0;
  char *conf_libs = malloc (2 * cn + 2);
  if (conf_libs == NULL)
    abort ();
  static const char *const names[] = { "myprog", "/usr/bin/myprog" };
  if (have_conf)
    {
      src.conf = conf;
      src.conf_len = cn;
      src.names = names;
      src.nnames = 2;
      src.conf_libs = conf_libs;
    }
  const char *path = (flags & 8) ? "/usr/bin/myprog" : NULL;

  struct hp_sources again = src;
  struct hp_effective e, e2;
  resolve_all (&src, &e, path, have_conf);
  resolve_all (&again, &e2, path, have_conf);
  if (memcmp (&e, &e2, sizeof e) != 0)
    abort ();

  /* The rules, stated plainly: each source's value for each setting.  */
  struct hp_tunconf_value sys[HP_NSETTINGS];
  bool sys_ok = (src.tunconf != NULL
		 && _dl_hugepage_tunconf_find (sec, ssize, table, 8, tn, path,
					       src.secure, sys, NULL));
  if ((src.tunconf != NULL && !sys_ok) != e.tunconf_bad)
    abort ();
  const char *envv[HP_NSETTINGS] = { NULL };
  for (size_t i = 0; i < nenv; ++i)
    {
      const char *v[HP_NSETTINGS];
      size_t l[HP_NSETTINGS];
      if (strncmp (env[i], "GLIBC_TUNABLES=", 15) == 0
	  && _dl_hugepage_tunables_find (env[i] + 15, v, l))
	for (int t = 0; t < HP_NSETTINGS; ++t)
	  if (v[t] != NULL)
	    envv[t] = v[t];
    }
  enum hp_source want[HP_NSETTINGS];
  bool off = false, wanted = false;
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      bool locked = sys_ok && sys[t].value != NULL && sys[t].locked;
      bool env_ok = !src.secure;
      want[t] = (locked ? HP_SOURCE_SYSTEM
		 : env_ok && src.variable[t] != NULL ? HP_SOURCE_VARIABLE
		 : env_ok && envv[t] != NULL ? HP_SOURCE_TUNABLES
		 : sys_ok && sys[t].value != NULL ? HP_SOURCE_SYSTEM
		 : HP_SOURCE_DEFAULT);
      if (e.locked[t] != locked
	  || e.variable_ignored[t] != (locked && env_ok
				       && src.variable[t] != NULL))
	abort ();
      wanted |= want[t] == HP_SOURCE_DEFAULT;
    }
  off = want[HP_SET_LIBS] != HP_SOURCE_DEFAULT && e.given_len[HP_SET_LIBS] == 0;
  if (e.conf_used != (have_conf && wanted && !off))
    abort ();
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      if (want[t] == HP_SOURCE_DEFAULT && e.source[t] == HP_SOURCE_FILE)
	{
	  if (!e.conf_used || e.line[t] == 0 || e.line[t] > sum.rules + cn)
	    abort ();
	  continue;
	}
      if (e.source[t] != want[t] || e.line[t] != 0)
	abort ();
      if (want[t] == HP_SOURCE_DEFAULT)
	{
	  if (e.given[t] != NULL || e.bad[t])
	    abort ();
	  continue;
	}
      /* The value lies in the source it came from.  */
      const char *g = e.given[t];
      bool in = (want[t] == HP_SOURCE_VARIABLE ? g == src.variable[t]
		 : want[t] == HP_SOURCE_SYSTEM ? inside (g, table, tn)
		 : false);
      for (size_t i = 0; i < nenv && !in; ++i)
	in = inside (g, env[i], strlen (env[i]))
	     && g + e.given_len[t] <= env[i] + strlen (env[i]);
      if (!in || memchr (g, '\0', e.given_len[t]) != NULL)
	abort ();
      ++fuzz_resolved_from[want[t]];
    }
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (e.source[t] == HP_SOURCE_FILE)
      ++fuzz_resolved_from[HP_SOURCE_FILE];

  /* The values.  */
  if (e.nbackings < 0 || e.nbackings > HP_NBACKINGS
      || (e.kinds & ~HP_KIND_ALL) != 0)
    abort ();
  if ((e.bad[HP_SET_SEGMENTS] && e.kinds != HP_KIND_DEFAULT)
      || (e.bad[HP_SET_BACKING] && e.nbackings != HP_NBACKINGS)
      || e.bad[HP_SET_LIBS])
    abort ();
  if (e.libs != NULL)
    {
      char *copy = malloc (e.libs_len + 1);
      if (copy == NULL || e.libs_len == 0)
	abort ();
      _dl_hugepage_libs_copy (&e, copy);
      if (strlen (copy) != e.libs_len
	  || (e.libs_commas && strchr (copy, ',') != NULL)
	  || (e.source[HP_SET_LIBS] == HP_SOURCE_FILE
	      && (e.libs != conf_libs || strcmp (copy, conf_libs) != 0)))
	abort ();
      free (copy);
    }
  else if (want[HP_SET_LIBS] != HP_SOURCE_DEFAULT
	   && e.given_len[HP_SET_LIBS] != 0)
    abort ();
  ++fuzz_resolved;
  free (sec);
  free (table);
  free (conf);
  free (conf_libs);
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
     its name's '=', and has no ':'.  */
  const char *tv[HP_NSETTINGS];
  size_t tl[HP_NSETTINGS];
  if (_dl_hugepage_tunables_find (buf, tv, tl))
    for (int t = 0; t < HP_NSETTINGS; ++t)
      {
	if (tv[t] == NULL)
	  continue;
	if (tv[t] <= buf || tv[t] + tl[t] > buf + plen || tv[t][-1] != '='
	    || memchr (tv[t], ':', tl[t]) != NULL)
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
  if ((data[0] & 0xc0) == 0xc0)
    fuzz_resolve (data + 1, size - 1);
  else if (data[0] & 0x80)
    fuzz_glob (data + 1, size - 1);
  else
    fuzz_plan (data, size);
  return 0;
}
