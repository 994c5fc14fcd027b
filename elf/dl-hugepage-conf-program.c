/* hugeld: the policy file applied to one program.
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

/* The policy file (dl-hugepage-conf.h) for one program: the names it
   is known by, whether a `program' line names it, and the libraries
   its lines give it.  The file has been checked
   (_dl_hugepage_conf_check) before any of this reads it.  Last, what
   the process runs with: the file's settings and the LD_HUGEPAGE_*
   variables, in ld.so's order.  */

#include <string.h>
#include "dl-hugepage-conf.h"
#include "dl-hugepage-plan.h"
#include "dl-hugepage-match.h"

/* The work area of _dl_hugepage_program_names: four buffers of SIZE
   bytes at BUF (slot 0 the name made absolute, 1 and 2 the paths links
   lead to, 3 a link's target or the working directory), and whether
   some path did not fit.  */
struct hp_names_work
{
  const struct hp_names_io *io;
  char *buf;
  size_t size;
  bool short_of_room;
};

static inline char *
hp_slot (struct hp_names_work *w, int i)
{
  return w->buf + i * w->size;
}

/* Whether the LEN bytes a readlink into a buffer of W->size - 1 gave
   may have been cut: said in W.  */
static bool
hp_cut (struct hp_names_work *w, long int len)
{
  if ((size_t) len + 1 < w->size)
    return false;
  w->short_of_room = true;
  return true;
}

/* The relative NAME made absolute against the working directory, into
   slot 0.  */
static bool
hp_absolute_name (struct hp_names_work *w, const char *name)
{
  char *cwd = hp_slot (w, 3);
  long int len = w->io->getcwd (w->io->ctx, cwd, w->size);
  /* Too small a buffer fails as any error does.  */
  if (len <= 1 || cwd[0] != '/')
    {
      w->short_of_room = true;
      return false;
    }
  /* A directory's path ends in no slash: "cwd/" is a link in it.  */
  size_t l = strlen (cwd);
  if (l + 2 > w->size)
    {
      w->short_of_room = true;
      return false;
    }
  cwd[l] = '/';
  cwd[l + 1] = '\0';
  if (_dl_hugepage_link_path (cwd, name, hp_slot (w, 0), w->size))
    return true;
  w->short_of_room = true;
  return false;
}

/* The file CUR (slot 0) names once its symbolic links are followed,
   alternating between slots 1 and 2; CUR if it is none.  */
static const char *
hp_follow_links (struct hp_names_work *w, const char *cur)
{
  char *target = hp_slot (w, 3);
  int which = 1;
  for (int links = 0; links < 8; ++links)
    {
      long int len = w->io->readlink (w->io->ctx, cur, target, w->size - 1);
      if (len <= 0 || hp_cut (w, len))
	break;
      target[len] = '\0';
      if (!_dl_hugepage_link_path (cur, target, hp_slot (w, which), w->size))
	{
	  w->short_of_room = true;
	  break;
	}
      cur = hp_slot (w, which);
      which = 3 - which;
    }
  return cur;
}

/* The real path of the absolute, normal path CUR (slot 0): the
   symbolic links of each of its components followed from the first
   (those of the kernel's limit, 40, in all; `..' in a link's target
   is resolved lexically against the real directory it is in),
   alternating between slots 1 and 2.  NULL if there are too many or a
   path does not fit.  A component that is no link, or cannot be read,
   is taken as it is; after a link, the walk goes on after what the new
   path shares with the link's directory, real already.  */
static const char *
hp_real_path (struct hp_names_work *w, const char *cur)
{
  char *target = hp_slot (w, 3);
  int which = 1;
  int links = 0;
  size_t start = 1, keep = 1;
  for (;;)
    {
      const char *slash = strchr (cur + start, '/');
      size_t end = slash != NULL ? (size_t) (slash - cur) : strlen (cur);
      /* CUR's first END bytes, the component and those before it (all
	 real already), NUL-terminated in place for the call: CUR is
	 slot 0 (a name already given out, put back below) or the last
	 one this made.  */
      char *p = (char *) cur;
      char c = p[end];
      p[end] = '\0';
      long int len = w->io->readlink (w->io->ctx, p, target, w->size - 1);
      bool joined = false;
      if (len > 0)
	{
	  /* The link's target, then the rest of CUR.  */
	  size_t rest = strlen (cur + end + (c != '\0'));
	  if (++links > 40)
	    {
	      p[end] = c;
	      return NULL;
	    }
	  if (hp_cut (w, len) || (size_t) len + 1 + rest >= w->size)
	    {
	      w->short_of_room = true;
	      p[end] = c;
	      return NULL;
	    }
	  target[len] = '\0';
	  if (c != '\0')
	    {
	      target[len] = '/';
	      memcpy (target + len + 1, cur + end + 1, rest + 1);
	    }
	  joined = _dl_hugepage_link_path (p, target, hp_slot (w, which),
					   w->size);
	  w->short_of_room |= !joined;
	  if (joined)
	    {
	      /* The link's directory: P's first DIR bytes.  */
	      const char *np = hp_slot (w, which);
	      size_t dir = end;
	      while (dir > 0 && p[dir - 1] != '/')
		--dir;
	      keep = 1;
	      for (size_t i = 0; i < dir && np[i] == p[i]; ++i)
		if (p[i] == '/')
		  keep = i + 1;
	    }
	}
      p[end] = c;
      if (len > 0)
	{
	  if (!joined)
	    return NULL;
	  /* The target's own components are not known to be real.  */
	  cur = hp_slot (w, which);
	  which = 3 - which;
	  start = keep;
	}
      else if (c == '\0')
	return cur;
      else
	start = end + 1;
    }
}

/* The names into NAMES, as _dl_hugepage_program_names says, with W.  */
static size_t
hp_program_names (struct hp_names_work *w, const char *name, bool by_kernel,
		  bool secure, const char *names[3])
{
  size_t n = 0;
  if (secure)
    {
      /* Too small a buffer fails as any error does.  */
      if (w->io->exe (w->io->ctx, hp_slot (w, 0), w->size) != NULL)
	names[n++] = hp_slot (w, 0);
      else
	w->short_of_room = true;
      return n;
    }
  if (name == NULL)
    return 0;
  names[n++] = name;

  /* Made absolute and normal.  */
  if (name[0] == '/')
    {
      if (!_dl_hugepage_link_path (NULL, name, hp_slot (w, 0), w->size))
	{
	  w->short_of_room = true;
	  return n;
	}
    }
  else if (!hp_absolute_name (w, name))
    return n;
  const char *cur = hp_slot (w, 0);
  if (strcmp (cur, name) != 0)
    names[n++] = cur;

  /* What the kernel executed: the file at the real path of the name it
     was given (not /proc/self/exe, whose first use costs a process
     about 15 us; the program itself chose the name).  */
  cur = by_kernel ? hp_real_path (w, cur) : hp_follow_links (w, cur);
  if (cur == NULL)
    return n;
  /* A name that is already there (no link followed) is not repeated.  */
  if (strcmp (cur, names[n - 1]) != 0)
    names[n++] = cur;
  return n;
}

size_t
_dl_hugepage_program_names (const char *name, bool by_kernel, bool secure,
			    const struct hp_names_io *io,
			    const char *names[3], char *buf, size_t size)
{
  struct hp_names_work w = { io, buf, size, false };
  size_t n = hp_program_names (&w, name, by_kernel, secure, names);
  return w.short_of_room && size < HP_PATH_MAX ? (size_t) -1 : n;
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

/* Append the patterns of the libs line LINE to the list of *N bytes at
   LIBS, and where they are in it to the spans of TO (if SPANS is not
   NULL: TO's are at SPANS + FIRST).  */
static void
hp_append_libs (const struct hp_conf_line *line, char *libs, size_t *n,
		struct hp_conf_settings *to, struct hp_conf_span *spans,
		size_t first)
{
  size_t n0 = *n;
  const char *p = line->args, *end = line->args + line->argslen;
  const char *w;
  size_t wlen;
  while (_dl_hugepage_conf_word (&p, end, &w, &wlen))
    {
      if (_dl_hugepage_conf_word_is (w, wlen, "none"))
	continue;
      if (*n > 0)
	libs[(*n)++] = ':';
      memcpy (libs + *n, w, wlen);
      *n += wlen;
    }
  if (spans != NULL && *n != n0)
    spans[first + to->nspans++] = (struct hp_conf_span)
      {
	.line = line->lineno,
	.start = n0 > 0 ? n0 + 1 : 0,
	.end = *n
      };
}

unsigned int
_dl_hugepage_conf_span_line (const struct hp_conf_span *spans, size_t n,
			     size_t offset)
{
  for (size_t i = 0; i < n; ++i)
    if (offset >= spans[i].start && offset < spans[i].end)
      return spans[i].line;
  return 0;
}

void
_dl_hugepage_conf_resolve (const char *buf, size_t len,
			   const char *const *names, size_t nnames,
			   bool secure, struct hp_conf_settings *s,
			   char *libs, struct hp_conf_span *spans)
{
  /* One pass: the global settings into *S and LIBS, those of the first
     matching block into B and BLIBS (after the global list in LIBS,
     complete by then: global lines come before any block; LIBS has
     room for both, as both together are shorter than the lines they
     come from); the block's replace the global ones.
     The global lines come first: the block's spans follow the global
     ones in SPANS.  */
  struct hp_conf_settings b;
  memset (s, 0, sizeof *s);
  memset (&b, 0, sizeof b);
  char *blibs = NULL;
  size_t n = 0, bn = 0;
  /* 0: before the first block; 1: in the matching block; 2: in
     another block before it.  */
  int state = 0;
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start_lazy (&r, buf, len);
  while (_dl_hugepage_conf_next (&r, &line))
    {
      if (line.key == HP_CONF_BLANK)
	continue;
      /* Only the lines that apply to the program are checked.  The
	 block that applies ends at the next program line: nothing after
	 it does (global lines come first).  cache and pool lines are for
	 `hugeld cache sync', which checks them: ld.so only notes that the
	 file declares a cache.  */
      if (line.key == HP_CONF_PROGRAM && state == 1)
	break;
      if (line.key == HP_CONF_CACHE || line.key == HP_CONF_POOL)
	{
	  s->has_cache |= line.key == HP_CONF_CACHE && !line.in_block;
	  continue;
	}
      if (line.key == HP_CONF_PROGRAM)
	{
	  /* Its words are matched as they are (the matcher takes any
	     bytes); the line is checked only if it applies.  */
	  _dl_hugepage_conf_args (&r, &line);
	  state = 2;
	  const char *p = line.args, *end = line.args + line.argslen;
	  const char *w;
	  size_t wlen;
	  while (state == 2 && _dl_hugepage_conf_word (&p, end, &w, &wlen))
	    if (_dl_hugepage_conf_program_matches (w, wlen, names, nnames))
	      {
		state = 1;
		s->block_line = line.lineno;
		blibs = libs + n + 1;
	      }
	  if (state == 2)
	    {
	      /* Nothing of a block that does not apply is read.  */
	      _dl_hugepage_conf_skip_block (&r);
	      continue;
	    }
	}
      else if (!(line.in_block ? state == 1 : !secure))
	continue;
      if (!_dl_hugepage_conf_use (&r, &line))
	{
	  memset (s, 0, sizeof *s);
	  s->error_line = line.lineno;
	  s->error = line.error;
	  libs[0] = '\0';
	  return;
	}
      if (line.key == HP_CONF_PROGRAM)
	continue;
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
	  hp_append_libs (&line, to == s ? libs : blibs, to == s ? &n : &bn,
			  to, spans, to == s ? 0 : s->nspans);
	  break;
	case HP_CONF_SEGMENTS:
	  _dl_hugepage_conf_value (&line);
	  to->segments_line = line.lineno;
	  to->kinds = line.kinds;
	  break;
	case HP_CONF_BACKING:
	  _dl_hugepage_conf_value (&line);
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
      if (spans != NULL)
	memmove (spans, spans + s->nspans, b.nspans * sizeof *spans);
      s->nspans = b.nspans;
      memmove (libs, blibs, bn);
      n = bn;
    }
  libs[n] = '\0';
  s->libslen = n;
  s->spans = spans;
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

