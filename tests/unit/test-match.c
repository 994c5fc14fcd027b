/* hugeld: unit tests for the name matcher and the hugeld command's
   pattern check (LD_HUGEPAGE_SEGMENTS's words are tested with the
   planner, in elf/tst-hugepage-plan.c).  Built into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdbool.h>
#include <string.h>
#include "dl-hugepage-plan.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"
#include "dl-hugepage-place.h"
#include "unit-check.h"

static void
test_glob (void)
{
  struct { const char *pat, *name; bool want; } t[] = {
    { "*", "libc.so.6", true },
    { "*", "", true },
    { "", "", true },
    { "", "a", false },
    { "libcrypto.so*", "libcrypto.so.3", true },
    { "libcrypto.so*", "libcrypto.so", true },
    { "libcrypto.so*", "libssl.so.3", false },
    { "lib?.so", "libm.so", true },
    { "lib?.so", "libmm.so", false },
    { "lib[a-c].so", "libb.so", true },
    { "lib[a-c].so", "libd.so", false },
    { "lib[!a-c].so", "libd.so", true },
    { "lib[^a-c].so", "liba.so", false },
    { "lib[]x].so", "lib].so", true },
    { "lib[x", "lib[x", true },
    { "lib\\*", "lib*", true },
    { "lib\\*", "libx", false },
    { "*.so.*", "libLLVM-14.so.1", true },
    { "*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
    { "mysqld", "mysqld", true },
    { "mysqld", "mysqld-debug", false },
    { "*/lib/*", "/usr/lib/x86_64-linux-gnu/libc.so.6", true },
    { "**", "x", true },
    { "a*", "a", true },
    { "*b", "ab", true },
    { "*b", "abc", false },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
    CHECK (_dl_hugepage_glob (t[i].pat, strlen (t[i].pat), t[i].name)
	   == t[i].want, "glob(\"%s\", \"%s\")", t[i].pat, t[i].name);

  size_t len = 0;
  const char *p = _dl_hugepage_match_list ("mysqld:libcrypto.so*",
					   "/usr/lib/libcrypto.so.3",
					   "libcrypto.so.3", &len);
  CHECK (p != NULL && len == 13 && strncmp (p, "libcrypto.so*", len) == 0,
	 "list second");
  p = _dl_hugepage_match_list ("::mysqld::", "/x/mysqld", "mysqld", &len);
  CHECK (p != NULL && len == 6, "empty elements");
  p = _dl_hugepage_match_list ("/usr/lib/*", "/usr/lib/libz.so.1",
			       "libz.so.1", &len);
  CHECK (p != NULL, "path pattern");
  p = _dl_hugepage_match_list ("/usr/lib/*", "/lib/libz.so.1", "libz.so.1",
			       &len);
  CHECK (p == NULL, "path pattern mismatch");
  p = _dl_hugepage_match_list ("libz*", "/usr/lib/libz.so.1", "libz.so.1",
			       &len);
  CHECK (p != NULL, "name pattern ignores directories");
  p = _dl_hugepage_match_list ("lib*", "/usr/lib/x", "x", &len);
  CHECK (p == NULL, "name pattern matches only the name");
  p = _dl_hugepage_match_list ("", "/a/b", "b", &len);
  CHECK (p == NULL, "empty list");

  /* ld.so's order: file name, then DT_SONAME, then the name run by.  */
  const char *how = NULL;
  p = _dl_hugepage_select ("libz*", "/lib/libz.so.1", "libq.so", NULL, &len,
			   &how);
  CHECK (p != NULL && strcmp (how, "file name") == 0, "select by name");
  p = _dl_hugepage_select ("libq*", "/lib/libz.so.1", "libq.so", NULL, &len,
			   &how);
  CHECK (p != NULL && strcmp (how, "DT_SONAME") == 0, "select by soname");
  p = _dl_hugepage_select ("py", "/usr/bin/python3.11", "", "/usr/bin/py",
			   &len, &how);
  CHECK (p != NULL && strcmp (how, "name it was run by") == 0,
	 "select by alias");
  p = _dl_hugepage_select ("x*", "/a/b", NULL, NULL, &len, &how);
  CHECK (p == NULL, "select nothing");
  CHECK (strcmp (_dl_hugepage_basename ("/a/b/c.so"), "c.so") == 0
	 && strcmp (_dl_hugepage_basename ("c"), "c") == 0, "basename");
}

/* How ld.so comes to map an object decides its bias and its gaps: the
   rule ld.so and hugeld-plan share.  */


/* The hugeld command's check of LD_HUGEPAGE_LIBS, on the matcher's own
   grammar.  */
static void
test_pattern_problem (void)
{
  const char *pat;
  size_t len;
  CHECK (_dl_hugepage_pattern_problem ("libbig.so:lib*.so*:[a-c]?x:\\[x",
				       &pat, &len) == NULL, "good list");
  CHECK (_dl_hugepage_pattern_problem ("[]x]:[!]]", &pat, &len) == NULL,
	 "] first in a bracket");
  const char *why = _dl_hugepage_pattern_problem ("", &pat, &len);
  CHECK (why != NULL && strstr (why, "empty pattern list") != NULL, "empty");
  why = _dl_hugepage_pattern_problem ("a::b", &pat, &len);
  CHECK (why != NULL && strstr (why, "two colons") != NULL && len == 0,
	 "empty pattern");
  why = _dl_hugepage_pattern_problem ("ok:lib[abc", &pat, &len);
  CHECK (why != NULL && strstr (why, "not closed") != NULL
	 && len == 7 && strncmp (pat, "lib[abc", len) == 0, "open bracket");
  why = _dl_hugepage_pattern_problem ("x\\", &pat, &len);
  CHECK (why != NULL && strstr (why, "lone backslash") != NULL, "backslash");
  why = _dl_hugepage_pattern_problem ("a\nb", &pat, &len);
  CHECK (why != NULL && strstr (why, "newline") != NULL, "newline");
}

void
test_match (void)
{
  test_pattern_problem ();
  test_glob ();
}
