/* hugeld: map selected objects onto huge pages.  Internal interface.
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

#ifndef _DL_HUGEPAGE_H
#define _DL_HUGEPAGE_H 1

/* LD_DEBUG=hugepages: which objects and ranges go on huge pages.  The
   bit is defined here, not in ldsodefs.h, so that one value serves
   every supported release: it must be free in all of them (2.43 took
   bit 11 for "tls" and bit 12 for "security"); dl-hugepage.c checks
   that it is none of the categories the release being built has.  */
#define DL_DEBUG_HUGEPAGES (1 << 13)

/* Only ld.so has this feature; the static libc.a, which also contains
   dl-load.c for static dlopen, does not.  All hooks in glibc's own
   files are inside #ifdef SHARED.  No state lives in struct link_map
   or the rtld_global structures: libc.so.6 reads those by offset.  */
#ifdef SHARED

# include <link.h>
# include <stdbool.h>

/* Settings from LD_HUGEPAGE_LIBS, LD_HUGEPAGE_SEGMENTS and
   LD_HUGEPAGE_BACKING, recorded by process_envvars (NULL if not set).
   _dl_hugepage_init ignores them if the program is AT_SECURE: glibc
   2.40 and later never parse them then, 2.36 does.  */
extern const char *_dl_hugepage_libs attribute_hidden;
extern const char *_dl_hugepage_segments attribute_hidden;
extern const char *_dl_hugepage_backing attribute_hidden;

/* Called by dl_main once it knows its mode (after the ld.so command
   line has been read).  The feature is active only in normal mode:
   never for --list, --verify, --help or ldd.  PROGRAM is the program
   ld.so was asked to run (`ld.so PROGRAM'), or NULL if the kernel ran
   the program with ld.so as its interpreter.  Reads the policy file,
   /etc/hugeld.conf, for the settings no variable gives.  */
void _dl_hugepage_init (bool normal_mode, const char *program)
  attribute_hidden;

/* Before mapping the object at REALNAME (open as FD, PHNUM program
   headers at file offset PHOFF): decide whether it is selected and
   plan its huge page zones.  PHDR is the program header table in
   memory, which must stay there until _dl_hugepage_apply, or NULL if
   the caller does not keep it (glibc 2.44 reads it in batches): then
   it is read from FD.  The plan is kept in ld.so's memory, under the
   load lock, for the next two calls.  Does nothing unless
   LD_HUGEPAGE_LIBS is set.  */
void _dl_hugepage_prepare (const char *realname, int fd, int type,
			   const ElfW(Phdr) *phdr, size_t phnum,
			   ElfW(Off) phoff)
  attribute_hidden;

/* For an ET_DYN object with a plan, whose first segment starts at
   MAPSTART: set *MAPALIGN and *MAPPHASE so that _dl_map_segment maps
   it at an address that is *MAPPHASE modulo *MAPALIGN, which makes the
   load bias the planned one, and return true.  Without a plan, leave
   them as they are (the segments' alignment, and 0) and return
   false.  */
bool _dl_hugepage_placement (ElfW(Addr) mapstart, ElfW(Addr) *mapalign,
			     ElfW(Addr) *mapphase) attribute_hidden;

/* After L has been mapped the ordinary way: replace the planned zones
   with huge page copies.  Each zone is built aside and moved into
   place; whatever fails leaves that zone mapped as it was.  Returns
   NULL, or (only if a zone could be neither moved nor mapped again
   from the file) an error message: the load must then fail.  */
const char *_dl_hugepage_apply (struct link_map *l, int fd)
  attribute_hidden;

/* The main program, when the kernel mapped it (ld.so is its
   PT_INTERP), before rtld_setup_main_map: decide whether it is
   selected and plan it; a position-independent one is moved where its
   zones fit, if the backings need an address the kernel did not give
   it (then MAIN_MAP's program headers and entry, *USER_ENTRY and the
   auxiliary vector name the new one).  */
void _dl_hugepage_place_main (struct link_map *main_map,
			      ElfW(Addr) *user_entry) attribute_hidden;

/* Then, after rtld_setup_main_map: put its planned zones on huge pages
   in place, before anything reads its dynamic section or relocates
   it.  */
void _dl_hugepage_map_main (struct link_map *main_map) attribute_hidden;

/* Called by AArch64's _dl_bti_protect (sysdeps/aarch64/dl-bti.c) for
   MAP, opened as FD (-1: the kernel mapped it): whether hugeld gave
   MAP's code PROT_BTI already, with that same function, before it put
   it on huge pages, so that mapping it again from the file would only
   undo them (elf/dl-hugepage-arch.h).  Once per object.  */
bool _dl_hugepage_bti_protected (struct link_map *map, int fd)
  attribute_hidden;

#endif /* SHARED */
#endif /* dl-hugepage.h */
