/* hugeld: match object names against LD_HUGEPAGE_LIBS.
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

/* A small shell-glob matcher.  ld.so cannot use fnmatch (it would drag
   locale and malloc machinery into the dynamic linker), so this one
   handles the byte-wise subset that names of files need: `*', `?',
   bracket expressions with ranges and `!' or `^' negation, and `\'
   escapes.  Pure, iterative (no recursion, so no stack growth on
   hostile input) and O(len(pattern) * len(name)).  */

#include <string.h>
#include "dl-hugepage-match.h"

/* Match the bracket expression starting after `[' at P (bounded by
   END) against byte C.  Returns the position after `]' and sets
   *MATCHED, or NULL if the bracket is not closed (then `[' is an
   ordinary character, as in fnmatch).  */
static const char *
hp_bracket (const char *p, const char *end, unsigned char c, bool *matched)
{
  bool negate = false;
  if (p < end && (*p == '!' || *p == '^'))
    {
      negate = true;
      ++p;
    }
  bool found = false;
  bool first = true;
  while (p < end && (*p != ']' || first))
    {
      first = false;
      unsigned char lo = *p++;
      if (lo == '\\' && p < end)
	lo = *p++;
      unsigned char hi = lo;
      if (p + 1 < end && *p == '-' && p[1] != ']')
	{
	  ++p;
	  hi = *p++;
	  if (hi == '\\' && p < end)
	    hi = *p++;
	}
      if (lo <= c && c <= hi)
	found = true;
    }
  if (p >= end)
    return NULL;
  *matched = found != negate;
  return p + 1;
}

bool
_dl_hugepage_glob (const char *pat, size_t patlen, const char *name)
{
  const char *p = pat, *pend = pat + patlen;
  const char *n = name;
  /* Where to resume after the last `*': the pattern after it and the
     name position it has swallowed up to.  */
  const char *star_p = NULL, *star_n = NULL;

  for (;;)
    {
      if (p < pend)
	{
	  char pc = *p;
	  if (pc == '*')
	    {
	      while (p < pend && *p == '*')
		++p;
	      star_p = p;
	      star_n = n;
	      continue;
	    }
	  if (*n != '\0')
	    {
	      if (pc == '?')
		{
		  ++p;
		  ++n;
		  continue;
		}
	      if (pc == '[')
		{
		  bool matched = false;
		  const char *after = hp_bracket (p + 1, pend,
						  (unsigned char) *n,
						  &matched);
		  if (after != NULL)
		    {
		      if (matched)
			{
			  p = after;
			  ++n;
			  continue;
			}
		      goto mismatch;
		    }
		  /* Unclosed `[': a literal.  */
		}
	      if (pc == '\\' && p + 1 < pend)
		{
		  if (p[1] == *n)
		    {
		      p += 2;
		      ++n;
		      continue;
		    }
		  goto mismatch;
		}
	      if (pc == *n)
		{
		  ++p;
		  ++n;
		  continue;
		}
	    }
	}
      else if (*n == '\0')
	return true;

    mismatch:
      /* Let the last `*' swallow one more byte and retry.  */
      if (star_p == NULL || *star_n == '\0')
	return false;
      ++star_n;
      p = star_p;
      n = star_n;
    }
}

const char *
_dl_hugepage_match_list (const char *patterns, const char *path,
			 const char *name, size_t *len)
{
  const char *p = patterns;
  while (*p != '\0')
    {
      size_t l = 0;
      bool slash = false;
      while (p[l] != '\0' && p[l] != ':')
	{
	  if (p[l] == '/')
	    slash = true;
	  ++l;
	}
      if (l > 0)
	{
	  const char *subject = slash ? path : name;
	  if (subject != NULL && _dl_hugepage_glob (p, l, subject))
	    {
	      *len = l;
	      return p;
	    }
	}
      p += l;
      if (*p == ':')
	++p;
    }
  return NULL;
}

const char *
_dl_hugepage_basename (const char *path)
{
  const char *base = path;
  for (const char *p = path; *p != '\0'; ++p)
    if (*p == '/')
      base = p + 1;
  return base;
}

const char *
_dl_hugepage_select (const char *patterns, const char *path,
		     const char *soname, const char *alias, size_t *len,
		     const char **how)
{
  const char *pat = _dl_hugepage_match_list (patterns, path,
					     _dl_hugepage_basename (path),
					     len);
  *how = "file name";
  if (pat == NULL && soname != NULL && soname[0] != '\0')
    {
      pat = _dl_hugepage_match_list (patterns, path, soname, len);
      *how = "DT_SONAME";
    }
  if (pat == NULL && alias != NULL)
    {
      pat = _dl_hugepage_match_list (patterns, alias,
				     _dl_hugepage_basename (alias), len);
      *how = "name it was run by";
    }
  return pat;
}

const char *
_dl_hugepage_pattern_problem (const char *patterns, const char **pat,
			      size_t *patlen)
{
  *pat = patterns;
  *patlen = 0;
  if (patterns == NULL || *patterns == '\0')
    return "empty pattern list";
  const char *p = patterns;
  for (;;)
    {
      const char *end = p;
      while (*end != '\0' && *end != ':')
	++end;
      *pat = p;
      *patlen = end - p;
      if (end == p)
	return "empty pattern (two colons in a row, or a colon at an end)";
      for (const char *q = p; q < end; ++q)
	{
	  if (*q == '\n')
	    return "pattern contains a newline";
	  if (*q == '\\')
	    {
	      if (q + 1 == end)
		return "pattern ends with a lone backslash";
	      ++q;
	    }
	  else if (*q == '[')
	    {
	      bool matched;
	      const char *after = hp_bracket (q + 1, end, 0, &matched);
	      if (after == NULL)
		return "pattern has a '[' that is not closed (write \\[ for "
		       "a literal one)";
	      q = after - 1;
	    }
	}
      if (*end == '\0')
	return NULL;
      p = end + 1;
    }
}

bool
_dl_hugepage_link_path (const char *link, const char *target, char *out,
			size_t size)
{
  size_t n = 0;
  /* The directory of LINK, then TARGET, component by component: each
     one is appended to OUT, `..' removes the last one.  */
  const char *parts[2] = { link, target };
  if (target[0] == '/' || link == NULL)
    parts[0] = NULL;
  bool absolute = (parts[0] != NULL ? parts[0] : target)[0] == '/';
  if (absolute)
    {
      if (size < 2)
	return false;
      out[n++] = '/';
    }
  for (int k = 0; k < 2; ++k)
    {
      const char *p = parts[k];
      if (p == NULL)
	continue;
      /* Of LINK, only its directory.  */
      const char *end = p + strlen (p);
      if (k == 0)
	while (end > p && end[-1] != '/')
	  --end;
      while (p < end)
	{
	  const char *c = p;
	  while (c < end && *c != '/')
	    ++c;
	  size_t len = c - p;
	  /* Where the last component starts.  */
	  size_t last = n;
	  while (last > 0 && out[last - 1] != '/')
	    --last;
	  bool dotdot = len == 2 && p[0] == '.' && p[1] == '.';
	  if (len == 0 || (len == 1 && p[0] == '.'))
	    ;
	  else if (dotdot && absolute && n == 1)
	    /* `..' of the root is the root.  */
	    ;
	  else if (dotdot && n > last
		   && !(n - last == 2 && out[last] == '.'
			&& out[last + 1] == '.'))
	    /* Drop the last component and its slash.  */
	    n = last > 1 ? last - 1 : last;
	  else
	    {
	      if (n > 0 && out[n - 1] != '/')
		{
		  if (n + 1 >= size)
		    return false;
		  out[n++] = '/';
		}
	      if (n + len >= size)
		return false;
	      memcpy (out + n, p, len);
	      n += len;
	    }
	  p = c + (c < end);
	}
    }
  if (n == 0)
    {
      if (size < 2)
	return false;
      out[n++] = '.';
    }
  out[n] = '\0';
  return true;
}
