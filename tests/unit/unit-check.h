/* hugeld: what the unit test files share.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H 1

#include <stdio.h>

/* Counted by CHECK; test-plan.c's main prints them.  */
extern int failures, checks;

#define CHECK(cond, ...)						\
  do									\
    {									\
      ++checks;								\
      if (!(cond))							\
	{								\
	  ++failures;							\
	  printf ("FAIL: %s:%d: %s: ", __func__, __LINE__, #cond);	\
	  printf (__VA_ARGS__);						\
	  printf ("\n");						\
	}								\
    }									\
  while (0)

/* The matcher's tests (test-match.c).  */
void test_match (void);

#endif /* unit-check.h */
