/* hugeld: the unit tests of the pure code, built and run outside
   glibc: the matcher, the dynamic section's reader, the backings and
   the cache's names, the policy file, the tunables, the settings'
   resolver and the relocation of a moved program.  The planner's test
   is elf/tst-hugepage-plan.c, a program of its own, which glibc's
   framework builds too.  Both use glibc's test harness
   (<support/check.h>, a do_test).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <support/check.h>
#include "unit-check.h"

static int
do_test (void)
{
  test_match ();
  test_dynamic ();
  test_cache ();
  test_conf ();
  test_tunables ();
  test_tunconf ();
  test_settings_resolve ();
  test_relocate ();
  return 0;
}

#include <support/test-driver.c>
