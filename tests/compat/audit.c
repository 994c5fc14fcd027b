/* hugeld test: an LD_AUDIT module, libcompataudit.so.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Prints on stderr, one line per event:

     audit: version			la_version
     audit: objopen NAME lmid=N		la_objopen (NAME without directory)
     audit: symbind NAME		la_symbind64, for compat_big_* symbols
     audit: self page: N kB		la_preinit: the page size of this
					module's own code

   and asks for symbol binding events from every object, so that the
   calls into libcompatbig.so go through ld.so's profiling trampoline.
   The module is itself big (between the filler blocks), so that it can
   be selected too.  */

#define _GNU_SOURCE 1
#include <link.h>

#include "compat.h"

unsigned int
la_version (unsigned int version)
{
  fprintf (stderr, "audit: version\n");
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int
la_objopen (struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
  (void) cookie;
  fprintf (stderr, "audit: objopen %s lmid=%ld\n",
	   map->l_name[0] != '\0' ? compat_basename (map->l_name) : "<main>",
	   (long) lmid);
  return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

uintptr_t
la_symbind64 (Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
	      uintptr_t *defcook, unsigned int *flags, const char *symname)
{
  (void) ndx;
  (void) refcook;
  (void) defcook;
  (void) flags;
  if (strncmp (symname, "compat_big_", 11) == 0)
    fprintf (stderr, "audit: symbind %s\n", symname);
  return sym->st_value;
}

void
la_preinit (uintptr_t *cookie)
{
  (void) cookie;
  fprintf (stderr, "audit: self page: %ld kB\n",
	   compat_page_kb ((const void *) la_preinit));
}
