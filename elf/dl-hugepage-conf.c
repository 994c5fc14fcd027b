/* hugeld: parse the policy file, /etc/hugeld.conf.
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

/* The file format is described in dl-hugepage-conf.h.  Everything here
   works on bytes in memory with explicit bounds (the file need not end
   in a newline or be text at all), uses no recursion and no memory
   beyond a word-sized buffer on the stack.  */

#include <string.h>
#include "dl-hugepage-conf.h"
#include "dl-hugepage-plan.h"

static bool
hp_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

bool
_dl_hugepage_conf_word (const char **p, const char *end, const char **word,
			size_t *len)
{
  const char *s = *p;
  while (s < end && hp_blank (*s))
    ++s;
  if (s == end)
    {
      *p = s;
      return false;
    }
  const char *e = s;
  while (e < end && !hp_blank (*e))
    ++e;
  *word = s;
  *len = e - s;
  *p = e;
  return true;
}

static bool
hp_word_is (const char *word, size_t len, const char *name)
{
  return strlen (name) == len && memcmp (word, name, len) == 0;
}

/* Copy WORD (LEN bytes) with a NUL into BUF of HP_CONF_MAX_WORD bytes:
   false if it does not fit.  */
static bool
hp_word_copy (char *buf, const char *word, size_t len)
{
  if (len >= HP_CONF_MAX_WORD)
    return false;
  memcpy (buf, word, len);
  buf[len] = '\0';
  return true;
}

/* Why the pattern list WORD (LEN bytes) is not one, or NULL.  */
static const char *
hp_pattern_error (const char *word, size_t len)
{
  char buf[HP_CONF_MAX_WORD];
  if (!hp_word_copy (buf, word, len))
    return "pattern longer than " HP_STR (HP_CONF_MAX_WORD_LEN) " bytes";
  const char *pat;
  size_t patlen;
  return _dl_hugepage_pattern_problem (buf, &pat, &patlen);
}

/* The number of words in [P, END).  */
static size_t
hp_count_words (const char *p, const char *end)
{
  size_t n = 0;
  const char *w;
  size_t len;
  while (_dl_hugepage_conf_word (&p, end, &w, &len))
    ++n;
  return n;
}

/* The value of the decimal digits at S (checked before).  */
static long int
strtol_digits (const char *s)
{
  long int n = 0;
  while (*s >= '0' && *s <= '9')
    n = n * 10 + (*s++ - '0');
  return n;
}

/* Whether [P, END) is exactly one word that fits in BUF (of
   HP_CONF_MAX_WORD bytes), copied there with a NUL.  */
static bool
hp_one_word (const char *p, const char *end, char *buf)
{
  const char *w;
  size_t len;
  return (hp_count_words (p, end) == 1
	  && _dl_hugepage_conf_word (&p, end, &w, &len)
	  && hp_word_copy (buf, w, len));
}

/* Why LINE, whose key is set, may not stand where reader R is, or
   NULL.  Sets *ONCE to the key's bit if it may be given once per scope
   only, else to 0.  */
static const char *
hp_check_scope (const struct hp_conf_reader *r,
		const struct hp_conf_line *line, unsigned int *once)
{
  *once = 0;
  if (line->key == HP_CONF_SEGMENTS || line->key == HP_CONF_BACKING
      || line->key == HP_CONF_POOL)
    *once = 1U << line->key;
  if ((line->key == HP_CONF_CACHE || line->key == HP_CONF_POOL)
      && r->in_block)
    return "cache and pool are global: put them before the first "
	   "program line";
  if (*once != 0 && (r->seen & *once) != 0)
    return "given twice in the same scope";
  return NULL;
}

/* Why the pool size WORD (LEN bytes) is not one, or NULL.  */
static const char *
hp_pool_error (const char *w, size_t len)
{
  if (hp_word_is (w, len, "auto"))
    return NULL;
  long int n = 0;
  for (size_t i = 0; i < len; ++i)
    if (w[i] < '0' || w[i] > '9')
      return "pool needs a number of huge pages or auto";
    else if ((n = n * 10 + (w[i] - '0')) > HP_CONF_MAX_POOL)
      return "pool larger than " HP_STR (HP_CONF_MAX_POOL) " huge pages";
  return NULL;
}

/* Why the words [P, END) are not the arguments of a line with key KEY,
   or NULL.  */
static const char *
hp_check_words (enum hp_conf_key key, const char *p, const char *end)
{
  size_t nwords = hp_count_words (p, end);
  const char *w;
  size_t len;
  const char *error = NULL;
  char buf[HP_CONF_MAX_WORD];
  unsigned char order[HP_NBACKINGS];
  switch (key)
    {
    case HP_CONF_LIBS:
      if (nwords == 0)
	return "libs needs patterns (or none)";
      while (error == NULL && _dl_hugepage_conf_word (&p, end, &w, &len))
	if (hp_word_is (w, len, "none"))
	  {
	    if (nwords != 1)
	      error = "libs none cannot have other patterns";
	  }
	else
	  error = hp_pattern_error (w, len);
      return error;

    case HP_CONF_SEGMENTS:
      if (!hp_one_word (p, end, buf) || _dl_hugepage_parse_kinds (buf) < 0)
	return "segments needs one comma list of text, rodata, relro, "
	       "data, bss or all";
      return NULL;

    case HP_CONF_BACKING:
      if (!hp_one_word (p, end, buf)
	  || _dl_hugepage_parse_backing (buf, order) <= 0)
	return "backing needs one comma list of shared, private or thp";
      return NULL;

    case HP_CONF_CACHE:
      if (nwords == 0)
	return "cache needs absolute paths or globs";
      while (error == NULL && _dl_hugepage_conf_word (&p, end, &w, &len))
	error = w[0] != '/' ? "cache paths must be absolute"
		: hp_pattern_error (w, len);
      return error;

    case HP_CONF_POOL:
      if (nwords != 1 || !_dl_hugepage_conf_word (&p, end, &w, &len))
	return "pool needs a number of huge pages or auto";
      return hp_pool_error (w, len);

    case HP_CONF_PROGRAM:
      if (nwords == 0)
	return "program needs the path or name of a program";
      while (error == NULL && _dl_hugepage_conf_word (&p, end, &w, &len))
	error = hp_pattern_error (w, len);
      return error;

    default:
      return NULL;
    }
}

/* Put the value of LINE, a segments, backing or pool line whose
   arguments are sound, into its kinds, backings or pool.  */
static void
hp_extract_value (struct hp_conf_line *line)
{
  char buf[HP_CONF_MAX_WORD];
  if ((line->key != HP_CONF_SEGMENTS && line->key != HP_CONF_BACKING
       && line->key != HP_CONF_POOL)
      || !hp_one_word (line->args, line->args + line->argslen, buf))
    return;
  if (line->key == HP_CONF_SEGMENTS)
    line->kinds = _dl_hugepage_parse_kinds (buf);
  else if (line->key == HP_CONF_BACKING)
    line->nbackings = _dl_hugepage_parse_backing (buf, line->backings);
  else if (hp_word_is (buf, strlen (buf), "auto"))
    line->pool = -1;
  else
    line->pool = strtol_digits (buf);
}

/* The arguments of LINE, whose key is set: checked (unless R's file is
   known to parse), then their value extracted.  A line that is wrong
   gets key HP_CONF_BAD and an error.  */
static void
hp_read_args (struct hp_conf_reader *r, struct hp_conf_line *line)
{
  if (!r->checked)
    {
      unsigned int once;
      const char *error = hp_check_scope (r, line, &once);
      if (error == NULL)
	error = hp_check_words (line->key, line->args,
				line->args + line->argslen);
      if (error != NULL)
	{
	  line->key = HP_CONF_BAD;
	  line->error = error;
	  return;
	}
      r->seen |= once;
    }
  hp_extract_value (line);
}

size_t
_dl_hugepage_program_names (const char *name, bool by_kernel, bool secure,
			    const struct hp_names_io *io,
			    const char *names[3], char buf[3][HP_PATH_MAX])
{
  size_t n = 0;
  if (secure)
    {
      if (io->exe (io->ctx, buf[0], HP_PATH_MAX) != NULL)
	names[n++] = buf[0];
      return n;
    }
  if (name == NULL)
    return 0;
  names[n++] = name;

  /* Made absolute and normal.  */
  char cwd[HP_PATH_MAX];
  const char *dir = NULL;
  if (name[0] != '/')
    {
      long int len = io->getcwd (io->ctx, cwd, sizeof cwd);
      if (len <= 1 || cwd[0] != '/')
	return n;
      /* A directory's path ends in no slash: "cwd/" is a link in it.  */
      size_t l = strlen (cwd);
      if (l + 2 > sizeof cwd)
	return n;
      cwd[l] = '/';
      cwd[l + 1] = '\0';
      dir = cwd;
    }
  if (!_dl_hugepage_link_path (dir, name, buf[0], HP_PATH_MAX))
    return n;
  const char *cur = buf[0];
  if (strcmp (cur, name) != 0)
    names[n++] = cur;

  if (by_kernel)
    {
      if (io->exe (io->ctx, buf[1], HP_PATH_MAX) != NULL
	  && strcmp (buf[1], cur) != 0)
	names[n++] = buf[1];
      return n;
    }

  /* Symbolic links, alternating between BUF[1] and BUF[2].  */
  char target[HP_PATH_MAX];
  int which = 1;
  for (int links = 0; links < 8; ++links)
    {
      long int len = io->readlink (io->ctx, cur, target, sizeof target - 1);
      if (len <= 0)
	break;
      target[len] = '\0';
      if (!_dl_hugepage_link_path (cur, target, buf[which], HP_PATH_MAX))
	break;
      cur = buf[which];
      which = 3 - which;
    }
  /* A name that is already there (no link followed) is not repeated.  */
  if (strcmp (cur, names[n - 1]) != 0)
    names[n++] = cur;
  return n;
}

void
_dl_hugepage_conf_start (struct hp_conf_reader *r, const char *buf,
			 size_t len)
{
  r->pos = buf;
  r->end = buf + len;
  r->lineno = 0;
  r->in_block = false;
  r->seen = 0;
  r->checked = false;
}

/* Start reading a file that _dl_hugepage_conf_check found without
   error: the arguments are not checked again.  */
static void
hp_conf_start_checked (struct hp_conf_reader *r, const char *buf,
		       size_t len)
{
  _dl_hugepage_conf_start (r, buf, len);
  r->checked = true;
}

bool
_dl_hugepage_conf_next (struct hp_conf_reader *r, struct hp_conf_line *line)
{
  if (r->pos >= r->end)
    return false;
  const char *start = r->pos;
  const char *nl = memchr (start, '\n', r->end - start);
  if (nl == NULL)
    nl = r->end;
  r->pos = nl < r->end ? nl + 1 : nl;

  memset (line, 0, sizeof *line);
  line->lineno = ++r->lineno;
  line->key = HP_CONF_BLANK;
  line->in_block = r->in_block;

  /* The words end at a `#' that starts a word.  Control characters
     (a NUL byte, most likely) mean this is not a text file.  */
  const char *end = nl;
  for (const char *p = start; p < nl; ++p)
    {
      unsigned char c = *p;
      if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
	{
	  line->key = HP_CONF_BAD;
	  line->error = "control character or NUL byte (not a text file?)";
	  return true;
	}
      if (c == '#' && end == nl && (p == start || hp_blank (p[-1])))
	end = p;
    }

  const char *p = start;
  const char *w;
  size_t len;
  if (!_dl_hugepage_conf_word (&p, end, &w, &len))
    return true;

  static const struct
  {
    const char name[9];
    enum hp_conf_key key;
  } keys[] =
    {
      { "libs", HP_CONF_LIBS },
      { "segments", HP_CONF_SEGMENTS },
      { "backing", HP_CONF_BACKING },
      { "cache", HP_CONF_CACHE },
      { "pool", HP_CONF_POOL },
      { "program", HP_CONF_PROGRAM },
    };
  line->key = HP_CONF_BAD;
  line->error = "unknown keyword (use libs, segments, backing, cache, "
		"pool or program)";
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
    if (hp_word_is (w, len, keys[i].name))
      {
	line->key = keys[i].key;
	line->error = NULL;
      }
  if (line->key == HP_CONF_BAD)
    return true;

  while (p < end && hp_blank (*p))
    ++p;
  while (end > p && hp_blank (end[-1]))
    --end;
  line->args = p;
  line->argslen = end - p;
  hp_read_args (r, line);
  if (line->key == HP_CONF_PROGRAM)
    {
      r->in_block = true;
      r->seen = 0;
    }
  return true;
}

bool
_dl_hugepage_conf_program_matches (const char *word, size_t len,
				   const char *const *names, size_t nnames)
{
  bool slash = memchr (word, '/', len) != NULL;
  for (size_t i = 0; i < nnames; ++i)
    if (names[i] != NULL
	&& _dl_hugepage_glob (word, len,
			      slash ? names[i]
			      : _dl_hugepage_basename (names[i])))
      return true;
  return false;
}

const char *
_dl_hugepage_conf_distrust (bool regular, unsigned int uid, unsigned int mode,
			    unsigned long long int size)
{
  if (!regular)
    return "not a regular file";
  if (uid != 0)
    return "not owned by root";
  /* S_IWGRP | S_IWOTH.  */
  if ((mode & 022) != 0)
    return "writable by group or others";
  if (size > HP_CONF_MAX_SIZE)
    return "larger than " HP_STR (HP_CONF_MAX_KIB) " KiB";
  return NULL;
}

void
_dl_hugepage_conf_check (const char *buf, size_t len,
			 struct hp_conf_summary *sum)
{
  struct hp_conf_reader r;
  struct hp_conf_line line;
  memset (sum, 0, sizeof *sum);
  _dl_hugepage_conf_start (&r, buf, len);
  while (_dl_hugepage_conf_next (&r, &line))
    {
      if (line.key == HP_CONF_BLANK)
	continue;
      ++sum->rules;
      if (line.key == HP_CONF_BAD && sum->error_line == 0)
	{
	  sum->error_line = line.lineno;
	  sum->error = line.error;
	}
      if (line.key == HP_CONF_PROGRAM)
	sum->has_programs = true;
      if (line.key == HP_CONF_CACHE)
	sum->has_cache = true;
    }
}

/* Which scope a line of a checked file belongs to, for a program known
   by some names: whether the line counts, given the `program' line
   BLOCK that applies (0: none, the global scope only), and whether the
   global or the block's LIBS are used.  */
static bool
hp_line_used (const struct hp_conf_line *line, unsigned int block,
	      unsigned int *current_block)
{
  if (line->key == HP_CONF_PROGRAM)
    *current_block = line->lineno;
  if (!line->in_block)
    return true;
  return block != 0 && *current_block == block;
}

/* The line of the libs word that covers byte OFFSET of the list that
   the program gets (those of BLOCK if BLOCK_LIBS, else the global
   ones), joined as _dl_hugepage_conf_resolve joins it, or 0.  Sets
   *FIRST to the first such line.  */
static unsigned int
hp_walk_libs (const char *buf, size_t len, unsigned int block,
	      bool block_libs, size_t offset, unsigned int *first)
{
  struct hp_conf_reader r;
  struct hp_conf_line line;
  unsigned int current = 0, found = 0;
  size_t n = 0;
  *first = 0;
  hp_conf_start_checked (&r, buf, len);
  while (_dl_hugepage_conf_next (&r, &line))
    {
      bool used = hp_line_used (&line, block, &current);
      if (line.key != HP_CONF_LIBS || !used || line.in_block != block_libs)
	continue;
      if (*first == 0)
	*first = line.lineno;
      const char *p = line.args, *end = line.args + line.argslen;
      const char *w;
      size_t wlen;
      while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
	{
	  if (hp_word_is (w, wlen, "none"))
	    continue;
	  if (n > 0)
	    ++n;
	  if (offset >= n && offset < n + wlen)
	    found = line.lineno;
	  n += wlen;
	}
    }
  return found;
}

/* Append the patterns of the libs line LINE to the list of *N bytes at
   LIBS.  */
static void
hp_append_libs (const struct hp_conf_line *line, char *libs, size_t *n)
{
  const char *p = line->args, *end = line->args + line->argslen;
  const char *w;
  size_t wlen;
  while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
    {
      if (hp_word_is (w, wlen, "none"))
	continue;
      if (*n > 0)
	libs[(*n)++] = ':';
      memcpy (libs + *n, w, wlen);
      *n += wlen;
    }
}

void
_dl_hugepage_conf_resolve (const char *buf, size_t len,
			   const char *const *names, size_t nnames,
			   bool secure, struct hp_conf_settings *s,
			   char *libs)
{
  /* One pass: the global settings into *S and LIBS, those of the first
     matching block into B and BLIBS (after the global list in LIBS,
     which has room for both); the block's replace the global ones.  */
  struct hp_conf_settings b;
  memset (s, 0, sizeof *s);
  memset (&b, 0, sizeof b);
  char *blibs = libs + len + 1;
  size_t n = 0, bn = 0;
  /* 0: before the first block; 1: in the matching block; 2: in
     another block before it; 3: after it.  */
  int state = 0;
  struct hp_conf_reader r;
  struct hp_conf_line line;
  hp_conf_start_checked (&r, buf, len);
  while (_dl_hugepage_conf_next (&r, &line))
    {
      if (line.key == HP_CONF_PROGRAM)
	{
	  if (state == 1)
	    state = 3;
	  else if (state != 3)
	    {
	      state = 2;
	      const char *p = line.args, *end = line.args + line.argslen;
	      const char *w;
	      size_t wlen;
	      while (state == 2 && _dl_hugepage_conf_word (&p, end, &w, &wlen))
		if (_dl_hugepage_conf_program_matches (w, wlen, names, nnames))
		  {
		    state = 1;
		    s->block_line = line.lineno;
		  }
	    }
	  continue;
	}
      struct hp_conf_settings *to;
      if (!line.in_block)
	{
	  if (secure)
	    continue;
	  to = s;
	}
      else if (state == 1)
	to = &b;
      else
	continue;
      switch (line.key)
	{
	case HP_CONF_LIBS:
	  if (to->libs_line == 0)
	    to->libs_line = line.lineno;
	  hp_append_libs (&line, to == s ? libs : blibs, to == s ? &n : &bn);
	  break;
	case HP_CONF_SEGMENTS:
	  to->segments_line = line.lineno;
	  to->kinds = line.kinds;
	  break;
	case HP_CONF_BACKING:
	  to->backing_line = line.lineno;
	  memcpy (to->backings, line.backings, sizeof to->backings);
	  to->nbackings = line.nbackings;
	  break;
	default:
	  break;
	}
    }
  if (b.libs_line != 0)
    {
      s->libs_line = b.libs_line;
      memmove (libs, blibs, bn);
      n = bn;
    }
  libs[n] = '\0';
  s->libslen = n;
  if (b.segments_line != 0)
    {
      s->segments_line = b.segments_line;
      s->kinds = b.kinds;
    }
  if (b.backing_line != 0)
    {
      s->backing_line = b.backing_line;
      memcpy (s->backings, b.backings, sizeof s->backings);
      s->nbackings = b.nbackings;
    }
}

unsigned int
_dl_hugepage_conf_libs_line (const char *buf, size_t len,
			     unsigned int block, size_t offset)
{
  /* Whether the block has libs lines of its own.  */
  unsigned int first;
  hp_walk_libs (buf, len, block, true, 0, &first);
  return hp_walk_libs (buf, len, block, block != 0 && first != 0, offset,
		       &first);
}
