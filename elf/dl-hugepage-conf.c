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

/* What each byte is to the reader: a blank, a byte a text line may not
   hold (a control character but tab and carriage return, which are
   blanks, or DEL), the comment sign; 0 for the others.  One table: the
   reader looks at every byte of the file, at every start of every
   program.  */
#define HP_C_BLANK 1
#define HP_C_BAD 2
#define HP_C_HASH 4
static const unsigned char hp_class[256] =
  {
    [0x00 ... 0x08] = HP_C_BAD, ['\t'] = HP_C_BLANK,
    [0x0a ... 0x0c] = HP_C_BAD, ['\r'] = HP_C_BLANK,
    [0x0e ... 0x1f] = HP_C_BAD, [' '] = HP_C_BLANK, ['#'] = HP_C_HASH,
    [0x7f] = HP_C_BAD,
  };

static bool
hp_blank (char c)
{
  return hp_class[(unsigned char) c] == HP_C_BLANK;
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

/* Whether [P, END), blanks trimmed at both ends (as a line's arguments
   are), is exactly one word that fits in BUF (of HP_CONF_MAX_WORD
   bytes), copied there with a NUL.  */
static bool
hp_one_word (const char *p, const char *end, char *buf)
{
  const char *w;
  size_t len;
  return (_dl_hugepage_conf_word (&p, end, &w, &len) && p == end
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

/* Why the words of a libs, cache or program line LINE are not its
   arguments, or NULL: each word once, in one pass.  */
static const char *
hp_check_list (const struct hp_conf_line *line)
{
  const char *p = line->args, *end = line->args + line->argslen;
  const char *w;
  size_t len;
  size_t nwords = 0;
  bool none = false;
  while (_dl_hugepage_conf_word (&p, end, &w, &len))
    {
      ++nwords;
      const char *error;
      if (line->key == HP_CONF_LIBS && _dl_hugepage_conf_word_is (w, len,
								"none"))
	{
	  none = true;
	  continue;
	}
      if (line->key == HP_CONF_CACHE && w[0] != '/')
	return "cache paths must be absolute";
      error = hp_pattern_error (w, len);
      if (error != NULL)
	return error;
    }
  if (nwords == 0)
    return (line->key == HP_CONF_LIBS ? "libs needs patterns (or none)"
	    : line->key == HP_CONF_CACHE ? "cache needs absolute paths or globs"
	    : "program needs the path or name of a program");
  if (none && nwords != 1)
    return "libs none cannot have other patterns";
  return NULL;
}

/* The value of LINE, a segments, backing or pool line, into its kinds,
   backings or pool: false if its arguments are not one (then LINE is
   left as it was).  */
static bool
hp_line_value (struct hp_conf_line *line)
{
  char buf[HP_CONF_MAX_WORD];
  if (!hp_one_word (line->args, line->args + line->argslen, buf))
    return false;
  size_t len = strlen (buf);
  switch (line->key)
    {
    case HP_CONF_SEGMENTS:
      {
	int kinds = _dl_hugepage_parse_kinds (buf);
	if (kinds < 0)
	  return false;
	line->kinds = kinds;
	return true;
      }
    case HP_CONF_BACKING:
      {
	int n = _dl_hugepage_parse_backing (buf, line->backings);
	if (n <= 0)
	  return false;
	line->nbackings = n;
	return true;
      }
    case HP_CONF_POOL:
      if (hp_pool_error (buf, len) != NULL)
	return false;
      if (_dl_hugepage_conf_word_is (buf, len, "auto"))
	line->pool = -1;
      else
	{
	  /* At most HP_CONF_MAX_POOL; never -1 (auto).  */
	  uint64_t v = hp_decimal (buf, len);
	  line->pool = v < HP_CONF_MAX_POOL ? v : HP_CONF_MAX_POOL;
	}
      return true;
    default:
      return false;
    }
}

/* Why the arguments of LINE, whose key is set, are not sound, or NULL;
   a segments, backing or pool line's value is set on the way.  */
static const char *
hp_check_args (struct hp_conf_line *line)
{
  switch (line->key)
    {
    case HP_CONF_LIBS:
    case HP_CONF_CACHE:
    case HP_CONF_PROGRAM:
      return hp_check_list (line);
    case HP_CONF_SEGMENTS:
      return hp_line_value (line) ? NULL
	: "segments needs one comma list of " HP_SEGMENTS_WORDS;
    case HP_CONF_BACKING:
      return hp_line_value (line) ? NULL
	: "backing needs one comma list of " HP_BACKING_WORDS;
    case HP_CONF_POOL:
      {
	char buf[HP_CONF_MAX_WORD];
	if (!hp_one_word (line->args, line->args + line->argslen, buf))
	  return "pool needs a number of huge pages or auto";
	const char *error = hp_pool_error (buf, strlen (buf));
	if (error == NULL)
	  hp_line_value (line);
	return error;
      }
    default:
      return NULL;
    }
}

void
_dl_hugepage_conf_value (struct hp_conf_line *line)
{
  if (!line->valued)
    hp_line_value (line);
  line->valued = true;
}

/* The arguments of LINE, whose key is set: checked, with their value,
   unless R's file is known to parse (then the value is extracted when
   asked for: _dl_hugepage_conf_value).  A line that is wrong gets key
   HP_CONF_BAD and an error.  */
static void
hp_read_args (struct hp_conf_reader *r, struct hp_conf_line *line)
{
  if (r->checked)
    return;
  unsigned int once;
  const char *error = hp_check_scope (r, line, &once);
  if (error == NULL)
    error = hp_check_args (line);
  if (error != NULL)
    {
      line->key = HP_CONF_BAD;
      line->error = error;
      return;
    }
  line->valued = true;
  r->seen |= once;
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
  r->lazy = false;
}

void
_dl_hugepage_conf_start_checked (struct hp_conf_reader *r, const char *buf,
				 size_t len)
{
  _dl_hugepage_conf_start (r, buf, len);
  r->checked = true;
}

/* The key of the keyword WORD (LEN bytes), or HP_CONF_BAD.  */
static enum hp_conf_key
hp_keyword (const char *w, size_t len)
{
  switch (len)
    {
    case 4:
      if (memcmp (w, "libs", 4) == 0)
	return HP_CONF_LIBS;
      if (memcmp (w, "pool", 4) == 0)
	return HP_CONF_POOL;
      break;
    case 5:
      if (memcmp (w, "cache", 5) == 0)
	return HP_CONF_CACHE;
      break;
    case 7:
      if (memcmp (w, "backing", 7) == 0)
	return HP_CONF_BACKING;
      if (memcmp (w, "program", 7) == 0)
	return HP_CONF_PROGRAM;
      break;
    case 8:
      if (memcmp (w, "segments", 8) == 0)
	return HP_CONF_SEGMENTS;
      break;
    }
  return HP_CONF_BAD;
}

/* Read the line [START, NL) into LINE (its number and scope set): its
   key, arguments and, unless R's file is known to parse, their check
   and value.  */
static void
hp_scan_line (struct hp_conf_reader *r, struct hp_conf_line *line,
	      const char *start, const char *nl)
{
  /* The words end at a `#' that starts a word.  Control characters
     (a NUL byte, most likely) mean this is not a text file, in a
     comment too (a file known to parse has none).  */
  const char *end = nl, *p = start;
  bool after_blank = true;
  for (; p < nl; ++p)
    {
      unsigned char k = hp_class[(unsigned char) *p];
      if (k == 0)
	after_blank = false;
      else if (k == HP_C_BLANK)
	after_blank = true;
      else if (k == HP_C_BAD)
	goto bad_byte;
      else if (after_blank)
	{
	  end = p;
	  break;
	}
      else
	after_blank = false;
    }
  if (!r->checked)
    for (; p < nl; ++p)
      if (hp_class[(unsigned char) *p] == HP_C_BAD)
	goto bad_byte;

  p = start;
  const char *w;
  size_t len;
  if (!_dl_hugepage_conf_word (&p, end, &w, &len))
    {
      line->key = HP_CONF_BLANK;
      return;
    }
  line->key = hp_keyword (w, len);
  if (line->key == HP_CONF_BAD)
    {
      line->error = "unknown keyword (use libs, segments, backing, cache, "
		    "pool or program)";
      return;
    }

  while (p < end && hp_blank (*p))
    ++p;
  while (end > p && hp_blank (end[-1]))
    --end;
  line->args = p;
  line->argslen = end - p;
  hp_read_args (r, line);
  return;

 bad_byte:
  line->key = HP_CONF_BAD;
  line->error = "control character or NUL byte (not a text file?)";
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

  line->lineno = ++r->lineno;
  line->key = HP_CONF_BLANK;
  line->in_block = r->in_block;
  line->args = NULL;
  line->argslen = 0;
  line->error = NULL;
  line->kinds = 0;
  line->nbackings = 0;
  line->pool = 0;
  line->valued = line->pending = false;

  if (r->lazy)
    {
      /* The key from the first word, nothing more.  */
      const char *p = start, *w;
      while (p < nl && hp_blank (*p))
	++p;
      if (p == nl || *p == '#')
	return true;
      w = p;
      while (p < nl && !hp_blank (*p))
	++p;
      line->key = hp_keyword (w, p - w);
      line->pending = true;
      line->text = start;
      line->text_end = nl;
    }
  else
    hp_scan_line (r, line, start, nl);
  if (line->key == HP_CONF_PROGRAM)
    {
      r->in_block = true;
      r->seen = 0;
    }
  return true;
}

void
_dl_hugepage_conf_skip_block (struct hp_conf_reader *r)
{
  /* The first word as _dl_hugepage_conf_next's lazy reader finds it:
     after blanks, up to a blank or the line's end.  */
  while (r->pos < r->end)
    {
      const char *p = r->pos;
      while (p < r->end && hp_blank (*p))
	++p;
      if (r->end - p >= 7 && memcmp (p, "program", 7) == 0
	  && (r->end - p == 7 || hp_blank (p[7]) || p[7] == '\n'))
	return;
      const char *nl = memchr (p, '\n', r->end - p);
      r->pos = nl != NULL ? nl + 1 : r->end;
      ++r->lineno;
    }
}

void
_dl_hugepage_conf_start_lazy (struct hp_conf_reader *r, const char *buf,
			      size_t len)
{
  _dl_hugepage_conf_start (r, buf, len);
  r->lazy = true;
}

void
_dl_hugepage_conf_args (struct hp_conf_reader *r, struct hp_conf_line *line)
{
  (void) r;
  if (!line->pending)
    return;
  /* After the keyword (the first word), up to a `#' that starts a word
     (found with memchr: a program line of a block that does not apply
     costs little more than its length), blanks trimmed.  Nothing is
     checked: the line is checked when it is used.  */
  const char *p = line->text, *end = line->text_end;
  while (p < end && hp_blank (*p))
    ++p;
  while (p < end && !hp_blank (*p))
    ++p;
  const char *stop = end;
  for (const char *q = p; (q = memchr (q, '#', end - q)) != NULL; ++q)
    if (hp_blank (q[-1]))
      {
	stop = q;
	break;
      }
  while (p < stop && hp_blank (*p))
    ++p;
  while (stop > p && hp_blank (stop[-1]))
    --stop;
  line->args = p;
  line->argslen = stop - p;
}

bool
_dl_hugepage_conf_use (struct hp_conf_reader *r, struct hp_conf_line *line)
{
  if (line->pending)
    {
      line->pending = false;
      r->lazy = false;
      hp_scan_line (r, line, line->text, line->text_end);
      r->lazy = true;
    }
  return line->key != HP_CONF_BAD;
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

void
_dl_hugepage_conf_outline (const char *buf, size_t len,
			   struct hp_conf_summary *sum)
{
  struct hp_conf_reader r;
  struct hp_conf_line line;
  memset (sum, 0, sizeof *sum);
  _dl_hugepage_conf_start_lazy (&r, buf, len);
  while (_dl_hugepage_conf_next (&r, &line))
    {
      if (line.key == HP_CONF_BLANK)
	continue;
      ++sum->rules;
      if (line.key == HP_CONF_PROGRAM)
	sum->has_programs = true;
      if (line.key == HP_CONF_CACHE && !line.in_block)
	sum->has_cache = true;
    }
}
