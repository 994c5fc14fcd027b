/* hugeld: its settings in GLIBC_TUNABLES.
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

/* Pure code (see dl-hugepage-settings.h): no system calls, no
   state.  The names are the settings' (HP_SETTING_TABLE).  */

#include <string.h>
#include "dl-hugepage-settings.h"

int
_dl_hugepage_tunable_of (const char *name, size_t len)
{
  size_t ns = sizeof HP_TUNABLE_NAMESPACE - 1;
  if (len <= ns || memcmp (name, HP_TUNABLE_NAMESPACE, ns) != 0)
    return -1;
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      const char *n = _dl_hugepage_setting_name (t);
      size_t nlen = strlen (n);
      if (len - ns == nlen && memcmp (name + ns, n, nlen) == 0)
	return t;
    }
  return -1;
}

bool
_dl_hugepage_tunables_find (const char *s, const char *value[HP_NSETTINGS],
			    size_t len[HP_NSETTINGS])
{
  const char *found[HP_NSETTINGS] = { NULL };
  size_t flen[HP_NSETTINGS] = { 0 };
  while (*s != '\0')
    {
      const char *end = s;
      while (*end != '\0' && *end != ':')
	++end;
      const char *eq = memchr (s, '=', end - s);
      /* glibc 2.41 and later ignore the whole string for an entry
	 without a value or with a second '=' in it; hugeld does so in
	 every release.  An empty entry (two colons) is skipped.  */
      if (end > s
	  && (eq == NULL || eq == s
	      || memchr (eq + 1, '=', end - eq - 1) != NULL))
	return false;
      if (end > s)
	{
	  int t = _dl_hugepage_tunable_of (s, eq - s);
	  if (t >= 0)
	    {
	      found[t] = eq + 1;
	      flen[t] = end - eq - 1;
	    }
	}
      s = *end == ':' ? end + 1 : end;
    }
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      value[t] = found[t];
      len[t] = flen[t];
    }
  return true;
}
