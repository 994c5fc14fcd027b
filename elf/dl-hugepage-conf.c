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
#include "dl-hugepage-settings.h"
#include "dl-hugepage-num.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"

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

bool
_dl_hugepage_conf_word_is (const char *word, size_t len, const char *name)
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
  if (_dl_hugepage_conf_word_is (w, len, "auto"))
    return NULL;
  if (len == 0 || hp_digits (w, len) != len)
    return "pool needs a number of huge pages or auto";
  if (hp_decimal (w, len) > HP_CONF_MAX_POOL)
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
	if (_dl_hugepage_conf_word_is (w, len, "none"))
	  {
	    if (nwords != 1)
	      error = "libs none cannot have other patterns";
	  }
	else
	  error = hp_pattern_error (w, len);
      return error;

    case HP_CONF_SEGMENTS:
      if (!hp_one_word (p, end, buf) || _dl_hugepage_parse_kinds (buf) < 0)
	return "segments needs one comma list of " HP_SEGMENTS_WORDS;
      return NULL;

    case HP_CONF_BACKING:
      if (!hp_one_word (p, end, buf)
	  || _dl_hugepage_parse_backing (buf, order) <= 0)
	return "backing needs one comma list of " HP_BACKING_WORDS;
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
  else if (_dl_hugepage_conf_word_is (buf, strlen (buf), "auto"))
    line->pool = -1;
  else
    {
      /* Checked to be at most HP_CONF_MAX_POOL; never -1 (auto).  */
      uint64_t v = hp_decimal (buf, hp_digits (buf, strlen (buf)));
      line->pool = v < HP_CONF_MAX_POOL ? v : HP_CONF_MAX_POOL;
    }
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

void
_dl_hugepage_conf_start_checked (struct hp_conf_reader *r, const char *buf,
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
    if (_dl_hugepage_conf_word_is (w, len, keys[i].name))
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
