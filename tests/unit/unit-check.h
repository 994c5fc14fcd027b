/* hugeld: what the unit test files share.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H 1

#include <stdio.h>
#include <support/check.h>

/* The unit tests' check with a message: TEST_VERIFY of glibc's test
   framework (<support/check.h>, tests/unit/support/check.h here), and
   on failure also what FMT says.  Counted and reported by the same
   harness.  */
#define CHECK(cond, fmt, ...)						\
  ({									\
    ++support_checks;							\
    if (cond)								\
      ;									\
    else								\
      support_print_failure_impl (__FILE__, __LINE__,			\
				  "not true: %s: " fmt, #cond,		\
				  ##__VA_ARGS__);			\
  })

/* The tests of the pure files other than the planner's
   (elf/tst-hugepage-plan.c, a program of its own), which test-unit.c's
   do_test runs.  */
void test_match (void);
void test_dynamic (void);
void test_cache (void);
void test_conf (void);
void test_tunables (void);
void test_tunconf (void);
void test_settings_resolve (void);
void test_relocate (void);

#endif /* unit-check.h */
