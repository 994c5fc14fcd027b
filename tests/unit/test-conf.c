/* hugeld: unit tests for the policy file parser (dl-hugepage-conf.c).
   Built into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "dl-hugepage-conf.h"
#include "dl-hugepage-plan.h"
#include "dl-hugepage-match.h"
#include "unit-check.h"

/* The first bad line of TEXT (0 if none), its error in *WHY.  */
static unsigned int
bad_line (const char *text, const char **why)
{
  struct hp_conf_summary sum;
  _dl_hugepage_conf_check (text, strlen (text), &sum);
  *why = sum.error;
  return sum.error_line;
}

/* Where the libs patterns of the last resolve came from.  */
static struct hp_conf_span spans[64];

/* Resolve TEXT for the program NAME (or none) into *S and LIBS.  */
static void
resolve (const char *text, const char *name, struct hp_conf_settings *s,
	 char *libs)
{
  const char *names[1] = { name };
  if (HP_CONF_MAX_SPANS (strlen (text)) > 64)
    abort ();
  _dl_hugepage_conf_resolve (text, strlen (text), names, name != NULL, false,
			     s, libs, spans);
}

/* The line the byte at OFFSET of the libs of S came from.  */
static unsigned int
line_of (const struct hp_conf_settings *s, size_t offset)
{
  return _dl_hugepage_conf_span_line (s->spans, s->nspans, offset);
}

static void
test_errors (void)
{
  static const struct
  {
    const char *text;
    unsigned int line;
  } t[] =
    {
      { "", 0 },
      { "# only a comment\n\n   \t\n", 0 },
      { "libs a\nbogus x\n", 2 },
      { "libs\n", 1 },
      { "libs none a\n", 1 },
      { "libs lib[abc\n", 1 },
      { "libs a::b\n", 1 },
      { "libs a\\\n", 1 },
      { "segments txt\n", 1 },
      { "segments text data\n", 1 },
      { "segments\n", 1 },
      { "segments text\nsegments data\n", 2 },
      { "backing huge\n", 1 },
      { "backing ,\n", 1 },
      { "backing shared\nbacking thp\n", 2 },
      { "cache lib.so\n", 1 },
      { "cache\n", 1 },
      { "pool -1\n", 1 },
      { "pool 12k\n", 1 },
      { "pool 99999999999999999999\n", 1 },
      { "pool 1048577\n", 1 },
      { "pool 1\npool 2\n", 2 },
      { "program\n", 1 },
      { "program a\ncache /x\n", 2 },
      { "program a\npool 4\n", 2 },
      { "libs a\x01\n", 1 },
      { "# comment \x7f\n", 1 },
      { "LIBS a\n", 1 },
      { "libsa\n", 1 },
      /* Once per scope: a block may set what the global scope set.  */
      { "segments text\nprogram a\nsegments data\nprogram b\n"
	"segments all\n", 0 },
      { "pool auto\npool 3\n", 2 },
    };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
    {
      const char *why;
      unsigned int line = bad_line (t[i].text, &why);
      CHECK (line == t[i].line, "error line of case %zu: %u, want %u (%s)",
	     i, line, t[i].line, why != NULL ? why : "no error");
      CHECK ((line == 0) == (why == NULL), "error text of case %zu", i);
    }

  /* A NUL byte inside the given length.  */
  static const char nul[] = "libs a\nlibs b\0c\n";
  struct hp_conf_summary sum;
  _dl_hugepage_conf_check (nul, sizeof nul - 1, &sum);
  CHECK (sum.error_line == 2, "NUL byte: line %u", sum.error_line);
}

static void
test_global (void)
{
  static const char text[] =
    "# hugeld.conf\r\n"
    "libs libLLVM-14.so*:libclang-cpp.so*   # the compiler\n"
    "\tlibs  mysqld\t libcrypto.so* \r\n"
    "segments text,rodata\n"
    "backing shared,thp\n"
    "cache /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1\n"
    "pool auto";
  struct hp_conf_summary sum;
  _dl_hugepage_conf_check (text, strlen (text), &sum);
  CHECK (sum.error_line == 0, "global: error at %u: %s", sum.error_line,
	 sum.error);
  CHECK (sum.rules == 6, "global: %u rules", sum.rules);
  CHECK (!sum.has_programs, "global: no programs");

  struct hp_conf_settings s;
  char libs[2 * sizeof text];
  resolve (text, NULL, &s, libs);
  CHECK (strcmp (libs, "libLLVM-14.so*:libclang-cpp.so*:mysqld:libcrypto.so*")
	 == 0, "global: libs %s", libs);
  CHECK (s.libslen == strlen (libs), "global: libslen");
  CHECK (s.libs_line == 2, "global: libs line %u", s.libs_line);
  CHECK (s.segments_line == 4 && s.kinds == (HP_KIND_TEXT | HP_KIND_RODATA),
	 "global: segments");
  CHECK (s.backing_line == 5 && s.nbackings == 2
	 && s.backings[0] == HP_B_SHARED && s.backings[1] == HP_B_THP,
	 "global: backing");
  CHECK (s.block_line == 0, "global: no block");

  /* Which line each pattern came from.  */
  const char *p = strstr (libs, "libclang");
  CHECK (line_of (&s, p - libs) == 2, "global: line of libclang");
  p = strstr (libs, "libcrypto");
  CHECK (line_of (&s, p - libs) == 3, "global: line of libcrypto");
  CHECK (line_of (&s, 0) == 2, "global: line of the first pattern");
  CHECK (line_of (&s, strstr (libs, ":mysqld") - libs) == 0,
	 "global: a separator is no line's");
  CHECK (line_of (&s, 10000) == 0, "global: line past the end");
}

static void
test_programs (void)
{
  static const char text[] =
    "libs libLLVM-14.so*\n"
    "segments text\n"
    "program /usr/sbin/mariadbd mysqld\n"
    "  libs mariadbd:libcrypto.so*\n"
    "  segments text,data\n"
    "program /usr/sbin/mariadbd\n"
    "  libs never\n"
    "program clang-1[0-9]\n"
    "  backing private\n"
    "program /usr/bin/true\n"
    "  libs none\n";
  struct hp_conf_summary sum;
  _dl_hugepage_conf_check (text, strlen (text), &sum);
  CHECK (sum.error_line == 0 && sum.has_programs, "programs: check (%s)",
	 sum.error);
  struct hp_conf_settings s;
  char libs[2 * sizeof text];

  /* By full path; the first matching block wins.  */
  resolve (text, "/usr/sbin/mariadbd", &s, libs);
  CHECK (s.block_line == 3, "mariadbd: block %u", s.block_line);
  CHECK (strcmp (libs, "mariadbd:libcrypto.so*") == 0, "mariadbd: libs %s",
	 libs);
  CHECK (s.libs_line == 4, "mariadbd: libs line %u", s.libs_line);
  CHECK (s.segments_line == 5
	 && s.kinds == (HP_KIND_TEXT | HP_KIND_DATA), "mariadbd: segments");
  CHECK (s.backing_line == 0, "mariadbd: backing not set");
  CHECK (s.nspans == 1 && line_of (&s, 0) == 4
	 && line_of (&s, strlen (libs) - 1) == 4,
	 "mariadbd: line of its patterns (the block's, not the global)");

  /* By basename: a pattern without `/'.  */
  resolve (text, "/opt/mysql/bin/mysqld", &s, libs);
  CHECK (s.block_line == 3, "mysqld: block %u", s.block_line);
  resolve (text, "/usr/local/sbin/mariadbd", &s, libs);
  CHECK (s.block_line == 0, "other mariadbd: no block");
  CHECK (strcmp (libs, "libLLVM-14.so*") == 0, "other mariadbd: global libs");

  /* A block that sets only the backing keeps the global libs.  */
  resolve (text, "/usr/lib/llvm-14/bin/clang-14", &s, libs);
  CHECK (s.block_line == 8, "clang: block %u", s.block_line);
  CHECK (strcmp (libs, "libLLVM-14.so*") == 0 && s.libs_line == 1,
	 "clang: global libs %s", libs);
  CHECK (s.segments_line == 2 && s.kinds == HP_KIND_TEXT,
	 "clang: global segments");
  CHECK (s.backing_line == 9 && s.nbackings == 1
	 && s.backings[0] == HP_B_PRIVATE, "clang: backing");

  /* libs none: set, but selects nothing.  */
  resolve (text, "/usr/bin/true", &s, libs);
  CHECK (s.block_line == 10 && s.libs_line == 11 && s.libslen == 0
	 && libs[0] == '\0', "true: libs none");

  /* No names: only the global scope.  */
  resolve (text, NULL, &s, libs);
  CHECK (s.block_line == 0 && strcmp (libs, "libLLVM-14.so*") == 0,
	 "no program: global");

  /* Either name matches: the one it was run by or its real path.  */
  const char *names[2] = { "/usr/bin/clang-14",
			   "/usr/lib/llvm-14/bin/clang" };
  _dl_hugepage_conf_resolve (text, strlen (text), names, 2, false, &s, libs,
			     NULL);
  CHECK (s.block_line == 8, "two names: block %u", s.block_line);
  CHECK (_dl_hugepage_conf_program_matches ("/usr/lib/*", 10, names, 2),
	 "program matches by real path");
  CHECK (!_dl_hugepage_conf_program_matches ("clang-1", 7, names, 2),
	 "program: basename is whole");

  /* An AT_SECURE program: nothing from the global lines.  */
  const char *mdb[1] = { "/usr/sbin/mariadbd" };
  _dl_hugepage_conf_resolve (text, strlen (text), mdb, 1, true, &s, libs,
			     NULL);
  CHECK (s.block_line == 3 && strcmp (libs, "mariadbd:libcrypto.so*") == 0
	 && s.segments_line == 5 && s.backing_line == 0,
	 "secure: the block's own lines (%s)", libs);
  _dl_hugepage_conf_resolve (text, strlen (text), names, 2, true, &s, libs,
			     NULL);
  CHECK (s.block_line == 8 && s.libslen == 0 && libs[0] == '\0'
	 && s.segments_line == 0 && s.backing_line == 9,
	 "secure: a block without libs selects nothing (%s)", libs);
  const char *other[1] = { "/usr/bin/other" };
  _dl_hugepage_conf_resolve (text, strlen (text), other, 1, true, &s, libs,
			     NULL);
  CHECK (s.block_line == 0 && s.libslen == 0 && s.segments_line == 0
	 && s.backing_line == 0, "secure: no block, nothing (%s)", libs);
}

static void
test_words (void)
{
  const char *text = "  a\tbb  ccc ";
  const char *p = text, *end = text + strlen (text), *w;
  size_t len;
  CHECK (_dl_hugepage_conf_word (&p, end, &w, &len) && len == 1
	 && w[0] == 'a', "word 1");
  CHECK (_dl_hugepage_conf_word (&p, end, &w, &len) && len == 2, "word 2");
  CHECK (_dl_hugepage_conf_word (&p, end, &w, &len) && len == 3, "word 3");
  CHECK (!_dl_hugepage_conf_word (&p, end, &w, &len), "no word 4");

  /* Line numbers and arguments as the tools see them.  */
  static const char lines[] = "\n# c\ncache /a /b # two\npool 7";
  struct hp_conf_reader r;
  struct hp_conf_line line;
  _dl_hugepage_conf_start (&r, lines, strlen (lines));
  int n = 0;
  while (_dl_hugepage_conf_next (&r, &line))
    {
      ++n;
      if (line.lineno == 3)
	CHECK (line.key == HP_CONF_CACHE && line.argslen == 5
	       && memcmp (line.args, "/a /b", 5) == 0, "cache args");
      if (line.lineno == 4)
	CHECK (line.key == HP_CONF_POOL && line.pool == 7, "pool 7");
    }
  CHECK (n == 4, "%d lines", n);

  /* Pool sizes are decimal (glibc's _dl_strtoul reads a leading 0 as
     octal and 0x as hexadecimal; the policy file has neither).  */
  static const struct { const char *text; long int pool; } pools[] =
    {
      { "pool 010", 10 }, { "pool 0", 0 }, { "pool 0009", 9 },
      { "pool 000000000000000000000000000000042", 42 },
      { "pool 1048576", 1048576 }, { "pool auto", -1 },
    };
  for (size_t i = 0; i < sizeof pools / sizeof pools[0]; ++i)
    {
      _dl_hugepage_conf_start (&r, pools[i].text, strlen (pools[i].text));
      CHECK (_dl_hugepage_conf_next (&r, &line)
	     && line.key == HP_CONF_POOL && line.pool == pools[i].pool,
	     "%s: %ld", pools[i].text, line.pool);
    }
}

static void
test_path (void)
{
  static const struct
  {
    const char *link, *target, *want;
  } t[] =
    {
      { "/usr/bin/clang-14", "../lib/llvm-14/bin/clang",
	"/usr/lib/llvm-14/bin/clang" },
      { "/usr/bin/python3", "python3.11", "/usr/bin/python3.11" },
      { "/usr/bin/x", "/opt/y/./z//w", "/opt/y/z/w" },
      { "/a", "../../../b", "/b" },
      { NULL, "/work/./app/../bin/app", "/work/bin/app" },
      { "/", "x", "/x" },
      { "rel/link", "t", "rel/t" },
      { "rel/link", "../../t", "../t" },
      { "a/b/link", "../../t", "t" },
      { NULL, "../../x/../y", "../../y" },
      { "link", "t", "t" },
      { NULL, "/", "/" },
      { NULL, "/..", "/" },
    };
  char out[64];
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
    {
      bool ok = _dl_hugepage_link_path (t[i].link, t[i].target, out,
					sizeof out);
      CHECK (ok && strcmp (out, t[i].want) == 0, "path %zu: %s, want %s",
	     i, ok ? out : "(does not fit)", t[i].want);
    }
  CHECK (!_dl_hugepage_link_path ("/usr/bin/x", "a-rather-long-name", out,
				  12), "path too long");
}

static void
test_distrust (void)
{
  CHECK (_dl_hugepage_conf_distrust (true, 0, 0100644, 100) == NULL,
	 "root's 644: trusted");
  CHECK (_dl_hugepage_conf_distrust (true, 0, 0100600, 100) == NULL,
	 "root's 600: trusted");
  CHECK (_dl_hugepage_conf_distrust (false, 0, 040755, 100) != NULL,
	 "directory");
  CHECK (_dl_hugepage_conf_distrust (true, 1000, 0100644, 100) != NULL,
	 "other owner");
  CHECK (_dl_hugepage_conf_distrust (true, 0, 0100664, 100) != NULL,
	 "group-writable");
  CHECK (_dl_hugepage_conf_distrust (true, 0, 0100646, 100) != NULL,
	 "other-writable");
  CHECK (_dl_hugepage_conf_distrust (true, 0, 0100644, HP_CONF_MAX_SIZE)
	 == NULL, "64 KiB");
  CHECK (_dl_hugepage_conf_distrust (true, 0, 0100644, HP_CONF_MAX_SIZE + 1)
	 != NULL, "over 64 KiB");
}

/* A file system in memory for _dl_hugepage_program_names: /usr/bin/py
   links to python3.11, /bin to usr/bin (a merged /usr), /home/bin to
   /usr/bin, /loop to itself; the current directory is /home/u.  CTX
   counts the calls.  */
static long int
fake_readlink (void *ctx, const char *path, char *buf, size_t size)
{
  static const char *const links[][2] =
    {
      { "/usr/bin/py", "python3.11" },
      { "/bin", "usr/bin" },
      { "/home/bin", "/usr/bin" },
      { "/loop", "/loop" },
    };
  if (ctx != NULL)
    ++*(int *) ctx;
  for (size_t i = 0; i < sizeof links / sizeof links[0]; ++i)
    if (strcmp (path, links[i][0]) == 0)
      {
	size_t len = strlen (links[i][1]);
	if (len > size)
	  return -1;
	memcpy (buf, links[i][1], len);
	return len;
      }
  return -1;
}

static long int
fake_getcwd (void *ctx, char *buf, size_t size)
{
  (void) ctx;
  if (size < 8)
    return -1;
  strcpy (buf, "/home/u");
  return 8;
}

static const char *
fake_exe (void *ctx, char *buf, size_t size)
{
  (void) ctx;
  static const char exe[] = "/usr/bin/python3.11";
  return sizeof exe <= size ? memcpy (buf, exe, sizeof exe) : NULL;
}

/* The names a program block is matched against.  */
static void
test_program_names (void)
{
  const struct hp_names_io io = { fake_readlink, fake_getcwd, fake_exe,
				  NULL };
  const char *names[3];
  static char buf[4 * HP_PATH_MAX];
  size_t n = _dl_hugepage_program_names ("/usr/bin/py", false, false, &io,
					 names, buf, HP_PATH_MAX);
  CHECK (n == 2 && strcmp (names[1], "/usr/bin/python3.11") == 0,
	 "ld.so command: the link followed (%zu)", n);
  n = _dl_hugepage_program_names ("/usr/bin/x", false, false, &io, names,
				  buf, HP_PATH_MAX);
  CHECK (n == 1 && strcmp (names[0], "/usr/bin/x") == 0,
	 "no link: the name once (%zu)", n);
  n = _dl_hugepage_program_names ("../bin/./py", true, false, &io, names,
				  buf, HP_PATH_MAX);
  CHECK (n == 3 && strcmp (names[1], "/home/bin/py") == 0
	 && strcmp (names[2], "/usr/bin/python3.11") == 0,
	 "run by the kernel: relative, made absolute, and the executable");
  CHECK (strcmp (buf, "/home/bin/py") == 0,
	 "the made-absolute name kept while the real path is walked");
  n = _dl_hugepage_program_names ("/bin/true", true, false, &io, names,
				  buf, HP_PATH_MAX);
  CHECK (n == 2 && strcmp (names[0], "/bin/true") == 0
	 && strcmp (names[1], "/usr/bin/true") == 0,
	 "run by the kernel: a linked directory resolved (%zu: %s)", n,
	 n == 2 ? names[1] : "");
  n = _dl_hugepage_program_names ("/bin/true", false, false, &io, names,
				  buf, HP_PATH_MAX);
  CHECK (n == 1, "ld.so command: only the last component's links (%zu)",
	 n);
  int calls = 0;
  const struct hp_names_io counted = { fake_readlink, fake_getcwd,
				       fake_exe, &calls };
  n = _dl_hugepage_program_names ("/loop/x", true, false, &counted, names,
				  buf, HP_PATH_MAX);
  CHECK (n == 1 && calls == 41,
	 "a link loop: given up after 40 links (%zu names, %d calls)", n,
	 calls);
  calls = 0;
  n = _dl_hugepage_program_names ("/usr/bin/py", true, false, &counted,
				  names, buf, HP_PATH_MAX);
  CHECK (n == 2 && strcmp (names[1], "/usr/bin/python3.11") == 0
	 && calls == 4,
	 "a link to a name in its own directory: /usr and /usr/bin read "
	 "once (%zu names, %d calls)", n, calls);
  calls = 0;
  n = _dl_hugepage_program_names ("/home/bin/py", true, false, &counted,
				  names, buf, HP_PATH_MAX);
  CHECK (n == 2 && strcmp (names[1], "/usr/bin/python3.11") == 0
	 && calls == 6,
	 "an absolute link, then a relative one (%zu names, %d calls)", n,
	 calls);
  n = _dl_hugepage_program_names ("/usr/bin/py", true, true, &io, names,
				  buf, HP_PATH_MAX);
  CHECK (n == 1 && strcmp (names[0], "/usr/bin/python3.11") == 0,
	 "AT_SECURE: only what the kernel executed");
  CHECK (_dl_hugepage_program_names (NULL, true, false, &io, names, buf,
					     HP_PATH_MAX) == 0, "no name");

  /* A small buffer first (ld.so's): the same names where they fit,
     (size_t) -1 where one may not, never a name cut short.  */
  static char small[4 * 16];
  n = _dl_hugepage_program_names ("../bin/./py", true, false, &io, names,
				  small, 32 / 2);
  CHECK (n == (size_t) -1, "small room: /usr/bin/python3.11 does not fit "
	 "16 bytes (%zu)", n);
  static char room[4 * 32];
  n = _dl_hugepage_program_names ("../bin/./py", true, false, &io, names,
				  room, 32);
  CHECK (n == 3 && strcmp (names[2], "/usr/bin/python3.11") == 0,
	 "32 bytes of room: the names as with HP_PATH_MAX (%zu)", n);
  n = _dl_hugepage_program_names ("/usr/bin/py", true, true, &io, names,
				  small, 16);
  CHECK (n == (size_t) -1, "AT_SECURE, small room: asks for more (%zu)",
	 n);
  n = _dl_hugepage_program_names ("/bin/true", true, false, &io, names,
				  small, 16);
  CHECK (n == 2 && strcmp (names[1], "/usr/bin/true") == 0,
	 "16 bytes: /usr/bin/true fits (%zu)", n);
  n = _dl_hugepage_program_names ("/usr/bin/py", false, false, &io, names,
				  small, 16);
  CHECK (n == (size_t) -1, "ld.so command, small room: the link's target "
	 "does not fit (%zu)", n);
}

void
test_conf (void)
{
  test_program_names ();
  test_distrust ();
  test_path ();
  test_errors ();
  test_global ();
  test_programs ();
  test_words ();
}
