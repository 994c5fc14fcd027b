/* hugeld: glibc's <support/check.h>, for the tests built outside glibc.
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

/* The part of glibc's test framework that hugeld's C tests use, with
   its meaning and its messages, so that a test is written once for
   both: elf/tst-hugepage-plan.c is built by glibc's framework (patch
   0010) and, with -Itests/unit (this file as <support/check.h>, and
   <support/test-driver.c> beside it), by `make unit'.  The unit tests
   of the other pure files use it too (tests/unit/unit-check.h).

   One addition to glibc's: every check is counted (support_checks),
   and the driver ends with "N passed, M failed".  */

#ifndef SUPPORT_CHECK_H
#define SUPPORT_CHECK_H 1

#include <stddef.h>

/* The checks made, and those that failed (support/test-driver.c).  */
extern int support_checks;
extern int support_failures;

/* Record a test failure, print the failure message to standard output
   and pass the result of 1 through.  */
#define FAIL(...) \
  (++support_checks, \
   support_print_failure_impl (__FILE__, __LINE__, __VA_ARGS__))

/* Record a test failure, print the failure message and terminate with
   exit status 1.  */
#define FAIL_EXIT1(...) \
  support_exit_failure_impl (1, __FILE__, __LINE__, __VA_ARGS__)

/* Record a test failure (but continue executing) if EXPR evaluates to
   false.  */
#define TEST_VERIFY(expr)					\
  ({								\
    ++support_checks;						\
    if (expr)							\
      ;								\
    else							\
      support_test_verify_impl (__FILE__, __LINE__, #expr);	\
  })

/* Record a test failure and exit if EXPR evaluates to false.  */
#define TEST_VERIFY_EXIT(expr)					\
  ({								\
    ++support_checks;						\
    if (expr)							\
      ;								\
    else							\
      support_test_verify_exit_impl				\
	(1, __FILE__, __LINE__, #expr);				\
  })

/* Compare the two integers LEFT and RIGHT and report failure if they
   are different numbers.  As glibc's, but compared without a
   comparison of signed and unsigned, which -Wextra refuses: the same
   bits as unsigned long long and the same sign are the same number.  */
#define TEST_COMPARE(left, right)					\
  ({									\
    /* + applies the integer promotions, for bitfield support.  */	\
    typedef __typeof__ (+ (left)) __left_type;				\
    typedef __typeof__ (+ (right)) __right_type;			\
    __left_type __left_value = (left);					\
    __right_type __right_value = (right);				\
    int __left_is_positive = __left_value > 0;				\
    int __right_is_positive = __right_value > 0;			\
    /* Prevent use with floating-point types.  */			\
    _Static_assert ((__left_type) 1.0 == (__left_type) 1.5,		\
		    "left value has floating-point type");		\
    _Static_assert ((__right_type) 1.0 == (__right_type) 1.5,		\
		    "right value has floating-point type");		\
    /* Prevent accidental use with larger-than-long long types.  */	\
    _Static_assert (sizeof (__left_value) <= sizeof (long long),	\
		    "left value fits into long long");			\
    _Static_assert (sizeof (__right_value) <= sizeof (long long),	\
		    "right value fits into long long");			\
    ++support_checks;							\
    if ((unsigned long long) __left_value				\
	!= (unsigned long long) __right_value				\
	|| __left_is_positive != __right_is_positive)			\
      support_test_compare_failure					\
	(__FILE__, __LINE__,						\
	 #left, __left_value, __left_is_positive, sizeof (__left_type),	\
	 #right, __right_value, __right_is_positive,			\
	 sizeof (__right_type));					\
  })

/* Compare the strings LEFT and RIGHT and report a test failure if
   they are different.  Also report failure if one of the arguments is
   a null pointer and the other is not.  */
#define TEST_COMPARE_STRING(left, right)			\
  (++support_checks,						\
   support_test_compare_string (left, right, __FILE__, __LINE__,	\
				#left, #right))

int support_print_failure_impl (const char *file, int line,
				const char *format, ...)
  __attribute__ ((nonnull (1), format (printf, 3, 4)));
void support_exit_failure_impl (int exit_status,
				const char *file, int line,
				const char *format, ...)
  __attribute__ ((noreturn, nonnull (2), format (printf, 4, 5)));
void support_test_verify_impl (const char *file, int line,
			       const char *expr);
void support_test_verify_exit_impl (int status, const char *file, int line,
				    const char *expr)
  __attribute__ ((noreturn));
void support_test_compare_failure (const char *file, int line,
				   const char *left_expr,
				   long long left_value,
				   int left_positive,
				   int left_size,
				   const char *right_expr,
				   long long right_value,
				   int right_positive,
				   int right_size);
void support_test_compare_string (const char *left, const char *right,
				  const char *file, int line,
				  const char *left_expr,
				  const char *right_expr);

/* Record a test failure.  */
void support_record_failure (void);

#endif /* support/check.h */
