/* hugeld: an ld.so.cache's tunables section made for unit tests.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef TUNCONF_BUILD_H
#define TUNCONF_BUILD_H 1

#include <stdint.h>
#include <string.h>
#include "dl-hugepage-settings.h"

/* ldconfig's flags for a line without prefixes (overridable,
   nonsecure), and for `-', `@', `*' and [proc:NAME].  */
#define DEFAULT HP_TUNCONF_EXCLUDE_SECURE
#define DENY HP_TUNCONF_OVERRIDE_DENY
#define ONLYSECURE HP_TUNCONF_EXCLUDE_UNSECURE
#define ANYSECURE 0
#define PROC HP_TUNCONF_FILTER_PERPROC

/* A cache as ldconfig lays it out: a header (here 48 bytes of it), the
   string table, then the tunables section, which is kept apart so that
   the sanitizer sees a read past its exact size.  */
struct cache
{
  char data[2048];
  size_t start, end;
  unsigned char sec[HP_TUNCONF_HEADER_SIZE + 16 * HP_TUNCONF_ENTRY_SIZE];
  uint32_t count;
};

static inline void
init (struct cache *c)
{
  memset (c, 0, sizeof *c);
  memcpy (c->data, "glibc-ld.so.cache1.1", 20);
  c->start = c->end = 48;
}

static inline uint32_t
str (struct cache *c, const char *s)
{
  uint32_t off = c->end;
  size_t n = strlen (s) + 1;
  memcpy (c->data + c->end, s, n);
  c->end += n;
  return off;
}

static inline void
put32 (unsigned char *p, uint32_t v)
{
  memcpy (p, &v, 4);
}

static inline void
add (struct cache *c, uint32_t flags, const char *name, const char *value,
     const char *filter)
{
  unsigned char *e = c->sec + HP_TUNCONF_HEADER_SIZE
		     + c->count * HP_TUNCONF_ENTRY_SIZE;
  if (filter != NULL)
    flags |= PROC;
  put32 (e + HP_TUNCONF_ENTRY_FLAGS, flags);
  put32 (e + 4, (uint32_t) -1);
  put32 (e + HP_TUNCONF_ENTRY_NAME, str (c, name));
  put32 (e + HP_TUNCONF_ENTRY_VALUE, str (c, value));
  put32 (e + HP_TUNCONF_ENTRY_FILTER, filter != NULL ? str (c, filter) : 0);
  ++c->count;
}

static inline size_t
seal (struct cache *c)
{
  put32 (c->sec, HP_TUNCONF_SIGNATURE);
  put32 (c->sec + 4, HP_TUNCONF_VERSION);
  put32 (c->sec + 8, c->count);
  return HP_TUNCONF_HEADER_SIZE + c->count * HP_TUNCONF_ENTRY_SIZE;
}

#endif /* tunconf-build.h */
