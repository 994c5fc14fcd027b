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

/* Pure code (see dl-hugepage-plan.h): no system calls, no state.

   The drop-in loader runs beside the distribution's libc.so.6, which
   asks ld.so for its own tunables by the numbers it was built with.
   Registering three more in elf/dl-tunables.list would renumber
   them (glibc 2.36 numbers tunables in hash order, 2.40 and later
   by name), so hugeld reads its three names from the GLIBC_TUNABLES
   string itself and glibc's tunable list stays exactly as built:
   glibc ignores a name it does not know.  */

#include <string.h>
#include "dl-hugepage-plan.h"

/* The names after HP_TUNABLE_NAMESPACE, in enum hp_tunable's order.  */
static const char *const hp_tunable_names[HP_NTUNABLES] =
  { "libs", "segments", "backing" };

const char *
_dl_hugepage_tunable_name (int t)
{
  return t >= 0 && t < HP_NTUNABLES ? hp_tunable_names[t] : "?";
}

/* Which of hugeld's tunables NAME[0..LEN) is, or -1.  */
static int
hp_tunable_of (const char *name, size_t len)
{
  size_t ns = sizeof HP_TUNABLE_NAMESPACE - 1;
  if (len <= ns || memcmp (name, HP_TUNABLE_NAMESPACE, ns) != 0)
    return -1;
  for (int t = 0; t < HP_NTUNABLES; ++t)
    {
      size_t n = strlen (hp_tunable_names[t]);
      if (len - ns == n && memcmp (name + ns, hp_tunable_names[t], n) == 0)
	return t;
    }
  return -1;
}

bool
_dl_hugepage_tunables_find (const char *s, const char *value[HP_NTUNABLES],
			    size_t len[HP_NTUNABLES])
{
  const char *found[HP_NTUNABLES] = { NULL };
  size_t flen[HP_NTUNABLES] = { 0 };
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
	  int t = hp_tunable_of (s, eq - s);
	  if (t >= 0)
	    {
	      found[t] = eq + 1;
	      flen[t] = end - eq - 1;
	    }
	}
      s = *end == ':' ? end + 1 : end;
    }
  for (int t = 0; t < HP_NTUNABLES; ++t)
    {
      value[t] = found[t];
      len[t] = flen[t];
    }
  return true;
}

void
_dl_hugepage_tunable_value (int t, const char *value, size_t len, char *buf)
{
  for (size_t i = 0; i < len; ++i)
    buf[i] = t == HP_TUN_LIBS && value[i] == ',' ? ':' : value[i];
  buf[len] = '\0';
}
