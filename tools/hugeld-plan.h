/* hugeld-plan: what its files share.
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

#ifndef HUGELD_PLAN_H
#define HUGELD_PLAN_H 1

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "dl-hugepage-plan.h"
#include "dl-hugepage-cache.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"
#include "dl-hugepage-place.h"
#include "hugeld-json.h"

/* An object as hugeld-plan-elf.c reads it: what ld.so's hooks see.  */
struct object
{
  const char *file;		/* What was read.  */
  const char *path;		/* What is matched.  */
  int type;			/* e_type.  */
  /* Its program headers: PHNUM in the file, of which NPHDR are read:
     all of them, or none if there are more than HP_MAX_PHNUM (the
     planner, given PHNUM, then refuses the object as ld.so does).  */
  ElfW(Phdr) phdr[HP_MAX_PHNUM];
  size_t phnum;
  size_t nphdr;
  bool textrel;
  char soname[HP_SONAME_MAX];
  char interp[4096];
  bool dynamic;			/* Has PT_DYNAMIC.  */
  uint64_t file_size;		/* st_size when it was read.  */
};

/* What ld.so uses on x86_64 (GLRO(dl_pagesize), and the planner's
   huge page size).  */
#define PLAN_PAGESIZE HP_PAGE_SIZE
#define PLAN_HUGEPAGESIZE HP_HUGEPAGE_SIZE

/* The command line of hugeld-plan, parsed.  */
struct options
{
  const char *libs;		/* LD_HUGEPAGE_LIBS, or NULL.  */
  const char *segments;		/* LD_HUGEPAGE_SEGMENTS, or NULL.  */
  unsigned int kinds;
  bool kernel;			/* Main program mapped by the kernel.  */
  bool have_bias;
  uint64_t bias;
  const char *alias;		/* Name the program was run by.  */
  const char *name;		/* Match as this path.  */
  bool layout;			/* Print each object's layout.  */
  bool cache;			/* Print each object's cache entry.  */
  const char *backing;		/* LD_HUGEPAGE_BACKING, or NULL.  */
  bool no_pool;			/* Plan as on a machine without a pool.  */
  int phase;			/* enum hp_phase, from these two.  */
  unsigned char order[HP_NBACKINGS];	/* The backings, parsed.  */
  int norder;
  bool thp;			/* The kernel gives transparent huge
				   pages.  */
};

/* Write object O as the next element of the "objects" list in J
   (hugeld-plan-object.c).  */
void print_object (struct json *j, const struct object *o,
		   const struct options *opt);

/* The program's name, for messages.  */
extern const char *progname;

/* Print "PROGNAME: MESSAGE" on stderr and exit with status 1.  */
void die (const char *fmt, ...)
  __attribute__ ((noreturn, format (printf, 1, 2)));

/* --strict-links: follow only the symbolic links that root (or the
   caller) owns in the paths of the FILEs (hugeld-open.h).  */
extern bool strict_links;

/* FILE opened for reading by hugeld_open_regular (a regular file only,
   never blocking), its stat in *ST; dies with one line if it cannot
   be.  */
int open_object (const char *file, struct stat *st);

/* Read the ELF object FILE into O as ld.so would see it: its type,
   program headers, PT_INTERP, DT_SONAME and text relocations.  Dies
   with one line if it cannot be read or is not an object this loader
   loads.  */
void read_object (const char *file, struct object *o);

/* Read the ELF object open as FD (FILE, FILE_SIZE bytes: for the
   record) into O as read_object does; NULL, or why it is not an
   object this loader loads (one line, without FILE).  */
const char *object_from_fd (int fd, const char *file, uint64_t file_size,
			    struct object *o);

/* The hp_read_fn of the loader's pure readers: pread from the
   descriptor *(int *) FD until LEN bytes are in or the file ends.  */
long int read_fd (void *fd, void *buf, size_t len, uint64_t offset);

/* With --cache: write O's member "cache": {...} in J, the names of its
   shared cache entry and the zones `hugeld cache add' fills
   (hugeld-plan-cache.c).  */
void print_cache (struct json *j, const struct object *o,
		  uint64_t pagesize);

/* Whether the kernel gives transparent huge pages, read as ld.so reads
   it (hugeld-plan-query.c).  */
bool thp_enabled (void);

/* --cgroup-none PID: the limit file that lets process PID's hugetlb
   cgroup have no 2 MiB page, found with ld.so's own walk, and its
   value: {"file", "value"}, or null, as the document of J
   (hugeld-plan-query.c).  */
void print_cgroup_none (struct json *j, const char *pid);

/* --cache-distrust dir|file:MODE:UID: {"why": ...}, why ld.so would not
   trust such a directory or file of the shared cache, or null, as the
   document of J (hugeld-plan-query.c).  */
void print_cache_distrust (struct json *j, const char *arg);

#endif /* hugeld-plan.h */
