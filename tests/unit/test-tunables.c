/* hugeld: unit tests for glibc.elf.hugepage.* in GLIBC_TUNABLES.  Built
   into test-plan.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <string.h>
#include "dl-hugepage-plan.h"
#include "unit-check.h"

/* Whether S gives tunable T the value WANT (NULL: not given).  */
static int
gives (const char *s, int t, const char *want)
{
  const char *v[HP_NTUNABLES];
  size_t l[HP_NTUNABLES];
  if (!_dl_hugepage_tunables_find (s, v, l))
    return 0;
  if (want == NULL)
    return v[t] == NULL;
  char buf[256];
  if (v[t] == NULL || l[t] >= sizeof buf)
    return 0;
  _dl_hugepage_tunable_value (t, v[t], l[t], buf);
  return strcmp (buf, want) == 0;
}

void
test_tunables (void)
{
  CHECK (gives ("glibc.elf.hugepage.libs=libbig.so", HP_TUN_LIBS,
		"libbig.so"), "one");
  CHECK (gives ("glibc.malloc.perturb=85:glibc.elf.hugepage.segments=all",
		HP_TUN_SEGMENTS, "all"), "after glibc's own");
  CHECK (gives ("glibc.elf.hugepage.libs=a*.so,libb.so:glibc.x.y=1",
		HP_TUN_LIBS, "a*.so:libb.so"),
	 "libs: commas become the variable's colons");
  CHECK (gives ("glibc.elf.hugepage.backing=a,b", HP_TUN_BACKING, "a,b"),
	 "backing keeps its commas");
  CHECK (gives ("glibc.elf.hugepage.libs=x:glibc.elf.hugepage.libs=y",
		HP_TUN_LIBS, "y"), "the last one wins");
  CHECK (gives ("glibc.elf.hugepage.libs=", HP_TUN_LIBS, ""),
	 "empty: given, empty (hugeld off, as LD_HUGEPAGE_LIBS=)");
  CHECK (gives ("glibc.elf.hugepage.libs=x::", HP_TUN_LIBS, "x"),
	 "empty entries skipped");
  CHECK (gives ("glibc.malloc.perturb=85", HP_TUN_LIBS, NULL), "not given");
  CHECK (gives ("", HP_TUN_BACKING, NULL), "empty string");
  CHECK (gives ("glibc.elf.hugepage.libsx=a", HP_TUN_LIBS, NULL)
	 && gives ("glibc.elf.hugepage.lib=a", HP_TUN_LIBS, NULL)
	 && gives ("glibc.elf.hugepage.=a", HP_TUN_LIBS, NULL)
	 && gives ("xglibc.elf.hugepage.libs=a", HP_TUN_LIBS, NULL)
	 && gives ("glibc.elf.HUGEPAGE.libs=a", HP_TUN_LIBS, NULL),
	 "only the exact names");

  /* What glibc 2.41 and later reject as a whole: none of ours either.  */
  const char *v[HP_NTUNABLES];
  size_t l[HP_NTUNABLES];
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

  CHECK (strcmp (_dl_hugepage_tunable_name (HP_TUN_BACKING), "backing") == 0
	 && strcmp (_dl_hugepage_tunable_name (HP_NTUNABLES), "?") == 0,
	 "names");
}
