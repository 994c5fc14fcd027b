/* hugeld: glibc's <support/test-driver.c>, for the tests built outside
   glibc.
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

/* Included at the end of a test that defines do_test, as glibc's
   tests include glibc's: main runs do_test, the implementation of
   support/check.h records what failed, and the program ends with
   "N passed, M failed" (the last line, which tests/t-unit.sh reports)
   and exit status 1 if anything failed.  No fork, no timeout: the
   tests built outside glibc run under the sanitizers, which report a
   crash themselves.  */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <support/check.h>

int support_checks;
int support_failures;

void
support_record_failure (void)
{
  ++support_failures;
}

int
support_print_failure_impl (const char *file, int line,
			    const char *format, ...)
{
  support_record_failure ();
  printf ("error: %s:%d: ", file, line);
  va_list ap;
  va_start (ap, format);
  vprintf (format, ap);
  va_end (ap);
  putchar ('\n');
  return 1;
}

void
support_exit_failure_impl (int status, const char *file, int line,
			   const char *format, ...)
{
  if (status != 0)
    support_record_failure ();
  printf ("error: %s:%d: ", file, line);
  va_list ap;
  va_start (ap, format);
  vprintf (format, ap);
  va_end (ap);
  putchar ('\n');
  exit (status);
}

void
support_test_verify_impl (const char *file, int line, const char *expr)
{
  support_record_failure ();
  printf ("error: %s:%d: not true: %s\n", file, line, expr);
}

void
support_test_verify_exit_impl (int status, const char *file, int line,
			       const char *expr)
{
  support_test_verify_impl (file, line, expr);
  exit (status);
}

/* One side of a failed TEST_COMPARE, as glibc prints it.  */
static void
support_compare_report (const char *which, const char *expr,
			long long value, int positive, int size)
{
  unsigned long long mask = (size >= (int) sizeof (long long) ? ~0ULL
			     : (1ULL << (size * 8)) - 1);
  if (positive)
    printf ("  %s: %llu (0x%llx); from: %s\n", which,
	    (unsigned long long) value,
	    (unsigned long long) value & mask, expr);
  else
    printf ("  %s: %lld (0x%llx); from: %s\n", which, value,
	    (unsigned long long) value & mask, expr);
}

void
support_test_compare_failure (const char *file, int line,
			      const char *left_expr, long long left_value,
			      int left_positive, int left_size,
			      const char *right_expr, long long right_value,
			      int right_positive, int right_size)
{
  support_record_failure ();
  if (left_size != right_size)
    printf ("error: %s:%d: numeric comparison failure (widths %d and %d)\n",
	    file, line, left_size * 8, right_size * 8);
  else
    printf ("error: %s:%d: numeric comparison failure\n", file, line);
  support_compare_report (" left", left_expr, left_value, left_positive,
			  left_size);
  support_compare_report ("right", right_expr, right_value, right_positive,
			  right_size);
}

void
support_test_compare_string (const char *left, const char *right,
			     const char *file, int line,
			     const char *left_expr, const char *right_expr)
{
  if (left == NULL && right == NULL)
    return;
  if (left != NULL && right != NULL && strcmp (left, right) == 0)
    return;
  support_record_failure ();
  printf ("error: %s:%d: string comparison failure\n", file, line);
  printf ("  left: %s%s%s; from: %s\n", left != NULL ? "\"" : "",
	  left != NULL ? left : "(null)", left != NULL ? "\"" : "",
	  left_expr);
  printf ("  right: %s%s%s; from: %s\n", right != NULL ? "\"" : "",
	  right != NULL ? right : "(null)", right != NULL ? "\"" : "",
	  right_expr);
}

static int do_test (void);

int
main (void)
{
  int status = do_test ();
  printf ("%d passed, %d failed\n", support_checks - support_failures,
	  support_failures);
  return status != 0 || support_failures != 0;
}
