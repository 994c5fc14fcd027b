/* hugeld: unit tests for glibc.elf.hugepage.* in the system-wide
   tunables of ld.so.cache (/etc/tunables.conf, glibc 2.44).  Built into
   test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdlib.h>
#include <string.h>
#include "dl-hugepage-settings.h"
#include "unit-check.h"

#include "tunconf-build.h"

static struct hp_tunconf_value v[HP_NSETTINGS];

/* Find in C for PATH, SECURE; in an exact-size copy of the section.  */
static bool
find (struct cache *c, const char *path, bool secure, bool *need)
{
  size_t size = seal (c);
  unsigned char *copy = malloc (size);
  memcpy (copy, c->sec, size);
  bool ok = _dl_hugepage_tunconf_find (copy, size, c->data, c->start, c->end,
				       path, secure, v, need);
  free (copy);
  return ok;
}

static bool
is (int t, const char *want, bool locked)
{
  if (want == NULL)
    return v[t].value == NULL;
  return (v[t].value != NULL && strcmp (v[t].value, want) == 0
	  && v[t].len == strlen (want) && v[t].locked == locked);
}

static bool
none (void)
{
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (v[t].value != NULL)
      return false;
  return true;
}

#define LIBS "glibc.elf.hugepage.libs"
#define SEGMENTS "glibc.elf.hugepage.segments"
#define BACKING "glibc.elf.hugepage.backing"

void
test_tunconf (void)
{
  struct cache c;
  bool need;

  /* A plain line; glibc's own and unknown names around it.  */
  init (&c);
  add (&c, DEFAULT | 1, "glibc.malloc.perturb", "85",
       NULL);
  add (&c, DEFAULT, LIBS, "libbig.so,libc.so*", NULL);
  add (&c, DEFAULT, "glibc.elf.hugepage.libsx", "x", NULL);
  add (&c, DEFAULT, "glibc.elf.hugepage.", "x", NULL);
  add (&c, DEFAULT, "glibc.elf.hugepage.segments.x", "x", NULL);
  add (&c, DEFAULT, "xglibc.elf.hugepage.backing", "x", NULL);
  need = false;
  CHECK (find (&c, NULL, false, &need) && is (HP_SET_LIBS, "libbig.so,libc.so*",
					       false)
	 && is (HP_SET_SEGMENTS, NULL, false) && is (HP_SET_BACKING, NULL, false)
	 && !need, "a plain line; only the exact names");

  /* The secure flags.  */
  CHECK (find (&c, NULL, true, NULL) && none (),
	 "default (nonsecure): not for AT_SECURE");
  init (&c);
  add (&c, ONLYSECURE, LIBS, "a", NULL);
  CHECK (find (&c, NULL, false, NULL) && none (), "onlysecure: not for others");
  CHECK (find (&c, NULL, true, NULL) && is (HP_SET_LIBS, "a", false),
	 "onlysecure: for AT_SECURE");
  init (&c);
  add (&c, ANYSECURE | DENY, SEGMENTS, "all", NULL);
  CHECK (find (&c, NULL, false, NULL) && is (HP_SET_SEGMENTS, "all", true)
	 && find (&c, NULL, true, NULL) && is (HP_SET_SEGMENTS, "all", true),
	 "anysecure, nonoverridable: for both, locked");

  /* [proc:NAME]: a name without `/' is the path's last component, one
     with `/' the whole path.  */
  init (&c);
  add (&c, DEFAULT, LIBS, "base", "myprog");
  add (&c, DEFAULT, BACKING, "private", "/usr/bin/myprog");
  need = false;
  CHECK (find (&c, NULL, false, &need) && none () && need,
	 "a filter and no path: nothing, path needed");
  CHECK (find (&c, "/usr/bin/myprog", false, NULL)
	 && is (HP_SET_LIBS, "base", false)
	 && is (HP_SET_BACKING, "private", false), "both filters match");
  CHECK (find (&c, "/usr/local/bin/myprog", false, NULL)
	 && is (HP_SET_LIBS, "base", false) && is (HP_SET_BACKING, NULL, false),
	 "another directory: the name matches, the path does not");
  CHECK (find (&c, "/usr/bin/myprog2", false, NULL) && none ()
	 && find (&c, "/usr/bin/my", false, NULL) && none ()
	 && find (&c, "myprog", false, NULL) && is (HP_SET_LIBS, "base", false)
	 && find (&c, "/usr/bin/", false, NULL) && none (),
	 "exact names only");
  need = false;
  CHECK (find (&c, NULL, true, &need) && none () && !need,
	 "AT_SECURE and nonsecure lines: no path needed");

  /* In order: the last entry that applies wins, with its lock; one
     that does not apply changes nothing.  */
  init (&c);
  add (&c, DEFAULT | DENY, LIBS, "locked", NULL);
  add (&c, DEFAULT, LIBS, "other", "otherprog");
  CHECK (find (&c, "/bin/myprog", false, NULL)
	 && is (HP_SET_LIBS, "locked", true), "a later filtered-out line");
  CHECK (find (&c, "/bin/otherprog", false, NULL)
	 && is (HP_SET_LIBS, "other", false),
	 "a later line that applies replaces the value and the lock");
  add (&c, ONLYSECURE | DENY, LIBS, "secure", NULL);
  CHECK (find (&c, "/bin/otherprog", false, NULL)
	 && is (HP_SET_LIBS, "other", false)
	 && find (&c, "/bin/otherprog", true, NULL)
	 && is (HP_SET_LIBS, "secure", true), "secure lines in order");

  /* A filter this release does not know, and a per-program filter
     without its string: never applied.  */
  init (&c);
  add (&c, DEFAULT | 0x200, LIBS, "a", NULL);
  add (&c, DEFAULT | PROC, SEGMENTS, "text", NULL);
  CHECK (find (&c, "/bin/x", false, NULL) && none (), "unknown filters");

  /* Empty sections.  */
  init (&c);
  CHECK (find (&c, "/bin/x", false, NULL) && none (), "no entries");
  CHECK (_dl_hugepage_tunconf_find (c.sec, HP_TUNCONF_HEADER_SIZE, NULL, 0, 0,
				    NULL, false, v, NULL) && none (),
	 "no entries, no string table");

  /* Malformed: nothing at all.  */
  init (&c);
  add (&c, DEFAULT, LIBS, "a", NULL);
  add (&c, DEFAULT, SEGMENTS, "all", NULL);
  size_t size = seal (&c);
  CHECK (_dl_hugepage_tunconf_find (c.sec, size, c.data, c.start, c.end,
				    NULL, false, v, NULL)
	 && is (HP_SET_LIBS, "a", false), "control");
  CHECK (!_dl_hugepage_tunconf_find (NULL, size, c.data, c.start, c.end,
				     NULL, false, v, NULL) && none (), "NULL");
  for (size_t s = 0; s < size; s += 4)
    CHECK (!_dl_hugepage_tunconf_find (c.sec, s, c.data, c.start, c.end,
				       NULL, false, v, NULL) && none (),
	   "cut to %zu bytes", s);
  CHECK (!_dl_hugepage_tunconf_find (c.sec, size + 8, c.data, c.start, c.end,
				     NULL, false, v, NULL), "8 bytes more");
  CHECK (!_dl_hugepage_tunconf_find (c.sec, size, c.data, c.end, c.start,
				     NULL, false, v, NULL), "string table reversed");
  /* The last string ("all") cut at its end: not terminated inside.  */
  CHECK (!_dl_hugepage_tunconf_find (c.sec, size, c.data, c.start, c.end - 1,
				     NULL, false, v, NULL) && none (),
	 "a string not ending in the table");
  CHECK (!_dl_hugepage_tunconf_find (c.sec, size, c.data, c.start + 1, c.end,
				     NULL, false, v, NULL),
	 "a name before the table");
  unsigned char bad[sizeof c.sec];
  static const struct { size_t off; uint32_t val; const char *what; } cases[] =
    {
      { 0, 0x7c3ba94e, "signature" },
      { 4, 0x02000000, "version" },
      { 8, 3, "count too big" },
      { 8, 1, "count too small" },
      { 8, 0x08000001, "count that wraps" },
      { HP_TUNCONF_HEADER_SIZE + HP_TUNCONF_ENTRY_NAME, 2000, "name offset" },
      { HP_TUNCONF_HEADER_SIZE + HP_TUNCONF_ENTRY_VALUE, (uint32_t) -1,
	"value offset" },
      { HP_TUNCONF_HEADER_SIZE + HP_TUNCONF_ENTRY_FILTER, 47,
	"filter offset" },
      { HP_TUNCONF_HEADER_SIZE + HP_TUNCONF_ENTRY_SIZE + HP_TUNCONF_ENTRY_VALUE,
	1000, "second entry's value in the table's slack" },
    };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
      memcpy (bad, c.sec, size);
      put32 (bad + cases[i].off, cases[i].val);
      CHECK (!_dl_hugepage_tunconf_find (bad, size, c.data, c.start, c.end,
					 NULL, false, v, NULL) && none (),
	     "malformed: %s", cases[i].what);
    }
}
