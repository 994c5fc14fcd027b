/* hugeld: unit tests for glibc.elf.hugepage.* in GLIBC_TUNABLES.  Built
   into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <string.h>
#include "dl-hugepage-settings.h"
#include "unit-check.h"

/* Whether S gives tunable T the value WANT (NULL: not given).  */
static int
gives (const char *s, int t, const char *want)
{
  const char *v[HP_NSETTINGS];
  size_t l[HP_NSETTINGS];
  if (!_dl_hugepage_tunables_find (s, v, l))
    return 0;
  if (want == NULL)
    return v[t] == NULL;
  return v[t] != NULL && l[t] == strlen (want)
	 && memcmp (v[t], want, l[t]) == 0;
}

void
test_tunables (void)
{
  CHECK (gives ("glibc.elf.hugepage.libs=libbig.so", HP_SET_LIBS,
		"libbig.so"), "one");
  CHECK (gives ("glibc.malloc.perturb=85:glibc.elf.hugepage.segments=all",
		HP_SET_SEGMENTS, "all"), "after glibc's own");
  CHECK (gives ("glibc.elf.hugepage.libs=a*.so,libb.so:glibc.x.y=1",
		HP_SET_LIBS, "a*.so,libb.so"),
	 "libs: as given, with its commas");
  CHECK (gives ("glibc.elf.hugepage.backing=a,b", HP_SET_BACKING, "a,b"),
	 "backing keeps its commas");
  CHECK (gives ("glibc.elf.hugepage.libs=x:glibc.elf.hugepage.libs=y",
		HP_SET_LIBS, "y"), "the last one wins");
  CHECK (gives ("glibc.elf.hugepage.libs=", HP_SET_LIBS, ""),
	 "empty: given, empty (hugeld off, as LD_HUGEPAGE_LIBS=)");
  CHECK (gives ("glibc.elf.hugepage.libs=x::", HP_SET_LIBS, "x"),
	 "empty entries skipped");
  CHECK (gives ("glibc.malloc.perturb=85", HP_SET_LIBS, NULL), "not given");
  CHECK (gives ("", HP_SET_BACKING, NULL), "empty string");
  CHECK (gives ("glibc.elf.hugepage.libsx=a", HP_SET_LIBS, NULL)
	 && gives ("glibc.elf.hugepage.lib=a", HP_SET_LIBS, NULL)
	 && gives ("glibc.elf.hugepage.=a", HP_SET_LIBS, NULL)
	 && gives ("xglibc.elf.hugepage.libs=a", HP_SET_LIBS, NULL)
	 && gives ("glibc.elf.HUGEPAGE.libs=a", HP_SET_LIBS, NULL),
	 "only the exact names");

  /* What glibc 2.41 and later reject as a whole: none of ours either.  */
  const char *v[HP_NSETTINGS];
  size_t l[HP_NSETTINGS];
  static const char *const bad[] =
    {
      "glibc.elf.hugepage.libs=libbig.so:libother.so",
      "glibc.elf.hugepage.libs=a=b",
      "=x:glibc.elf.hugepage.libs=a",
      "glibc.elf.hugepage.libs",
    };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    CHECK (!_dl_hugepage_tunables_find (bad[i], v, l), "rejected: %s",
	   bad[i]);

  CHECK (_dl_hugepage_tunable_of ("glibc.elf.hugepage.backing", 26)
	 == HP_SET_BACKING
	 && _dl_hugepage_tunable_of ("glibc.elf.hugepage.backing", 25) == -1,
	 "names");
}
