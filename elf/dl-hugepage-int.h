/* hugeld: what ld.so's hugeld files share.
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

/* Internal to ld.so: shared by dl-hugepage.c (settings, selection,
   planning, reports) and dl-hugepage-map.c (the system calls that put
   the planned zones on huge pages).  */

#ifndef _DL_HUGEPAGE_INT_H
#define _DL_HUGEPAGE_INT_H 1

#include <ldsodefs.h>
#include <sys/mman.h>
#include <dl-hugepage.h>

/* The state of the object being loaded, from _dl_hugepage_prepare to
   _dl_hugepage_apply.  Objects are mapped with the load lock held (the
   main program before any other thread exists), so one serves.  */
struct hp_load_state
{
  struct hp_plan plan;
  /* The plan for the object being loaded, or NULL.  */
  const struct hp_plan *current;
  const char *objname;
  const ElfW(Phdr) *phdr;
  size_t phnum;
  int type;			/* e_type.  */
  bool kernel;			/* Mapped by the kernel (PT_INTERP).  */
  bool textrel;
};

/* The one load state.  */
extern struct hp_load_state _dl_hugepage_load attribute_hidden;

/* Set once by _dl_hugepage_init: LD_HUGEPAGE_LIBS is set, the mode is
   normal and some kind of segment is selected.  */
extern bool _dl_hugepage_active attribute_hidden;

static inline bool
hp_debug (void)
{
  return __glibc_unlikely (GLRO(dl_debug_mask) & DL_DEBUG_HUGEPAGES);
}

/* The mmap protection of segment flags PFLAGS.  */
static inline int
hp_prot (int pflags)
{
  return (((pflags & PF_R) ? PROT_READ : 0)
	  | ((pflags & PF_W) ? PROT_WRITE : 0)
	  | ((pflags & PF_X) ? PROT_EXEC : 0));
}

/* Read from FD at OFFSET until LEN bytes are in or the file ends.
   Returns the number of bytes read, or -1 (errno set).  */
ssize_t _dl_hugepage_pread_full (int fd, void *buf, size_t len,
				 off64_t offset) attribute_hidden;

/* ld.so has no strerror: the name of ERR (EINVAL, ...).  */
const char *_dl_hugepage_errno_name (int err) attribute_hidden;

/* Plan the object described by _dl_hugepage_load into its plan (with
   the load bias BIAS if HAVE_BIAS).  */
void _dl_hugepage_plan_load (bool have_bias, ElfW(Addr) bias)
  attribute_hidden;

/* Match PATH (or ALIAS) against LD_HUGEPAGE_LIBS and plan it; see
   dl-hugepage.c.  */
bool _dl_hugepage_select_and_plan (const char *path, const char *alias,
				   int fd, bool have_bias, ElfW(Addr) bias)
  attribute_hidden;

#endif /* dl-hugepage-int.h */
