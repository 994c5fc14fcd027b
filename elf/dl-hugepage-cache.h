/* hugeld: the names of shared cache entries, and whom ld.so trusts there.
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

#ifndef _DL_HUGEPAGE_CACHE_H
#define _DL_HUGEPAGE_CACHE_H 1

/* Pure, like dl-hugepage-plan.h: ld.so and the hugeld-plan helper
   (which names the entries `hugeld cache add' makes) use the same
   code, so the two can never disagree on a name.

   The shared cache lives on hugetlbfs:

     HP_CACHE_DIR/<inode>/<version>/<zone>

   <inode> names the file by its inode number ("i<ino>"); <version> by
   its size, mtime, ctime and GNU build ID (or "none"); <zone> is one file
   per read-only huge page zone, named by its kind, the load bias
   modulo the huge page size the zone was laid out for, and its
   unrelocated start and end.  A zone file holds exactly the bytes of
   the zone as ld.so would map them.  Next to the zones, "source/"
   holds the path of the file the entry was made from as a chain of
   directories ending in an empty file (hugetlbfs has no symbolic
   links); only the hugeld command reads it.

   Which file an entry serves (the rule, and why it is sound):
   - The name holds what names one state of one inode on one file
     system: the inode number and the ctime in nanoseconds (the kernel
     sets ctime to the current time on every change of the inode, and
     no system call sets it otherwise), with the size, mtime and build
     ID as a cheap check.  All of these are what a file system reports,
     and a file system image (ext4, squashfs, erofs, FUSE, a USB stick)
     reports whatever its author wrote: across file systems they prove
     nothing.
   - So the device the entry was made from is part of the key, in an
     empty file of the version directory named by it ("dev-<dev>").
     A device number names one mounted file system, and no image can
     choose it.  Bind mounts keep it, so they share the entry.
   - To any other file ld.so serves the entry only after comparing the
     bytes: it maps the entry's zone aside and moves it into place only
     if it equals what is mapped from the file
     (_dl_hugepage_shared_zone's VERIFY).  That is how a file seen
     through overlayfs is served: it has the overlay mount's device
     (every container's mount has its own) but the layer file's inode
     number and times, so every container, and the layer's own file,
     finds the one entry, and uses it if the bytes are the same.  An
     entry made through overlayfs records no device, so it is always
     compared.  A copy-up is a new inode and finds no entry; a file
     that differs is never served.
   - What is left: a device number is reused after an unmount.  A file
     system mounted later on the same number with a file of the same
     inode number, ctime nanoseconds, size, mtime and build ID as an
     entry made from the unmounted one would be served that entry
     without a compare.  Only root makes entries, `hugeld cache sync'
     and `prune' drop those whose source is gone, and hugetlbfs
     forgets them all at reboot.  */

#include "dl-hugepage-dynamic.h"
#include "dl-hugepage-plan.h"

#define HP_CACHE_DIR "/dev/hugepages/hugeld"

/* An empty file, owned by root, that `hugeld cache sync' leaves in
   HP_CACHE_DIR once it has made the cache what the policy file
   declares: the cache of this boot is filled.  Until then, where the
   policy file declares a cache, the pool is the cache's and no process
   takes a private copy (_dl_hugepage_private_allowed).  */
#define HP_CACHE_SYNCED ".synced"

/* An empty file in an entry's version directory, next to its zones:
   the entry holds no text zone because the object looks at its own
   mappings.  /proc/PID/maps names the cache's zone file for whatever
   the cache serves, and a program that maps its own code again from
   the file it finds there, at the 4 KiB offset it needs (V8 at
   startup, for its embedded builtins), fails on hugetlbfs, which maps
   only at 2 MiB offsets: V8 then aborts.  `hugeld cache add' finds
   such objects by what they load (one of the names of /proc/self/maps
   in their bytes: tools/hugeld-plan-cache.c), caches only their
   read-only data, and leaves this file, so that ld.so can say why the
   text is not served (the private and thp backings name no hugetlbfs
   file: they serve it instead).  */
#define HP_CACHE_NOTEXT "no-text"
#define HP_CACHE_NOTEXT_WHY \
  "text not cached: the object looks at its own mappings in /proc, " \
  "and code mapped from the cache could not be mapped again from the " \
  "file named there"

/* A build ID longer than this is not looked at (the object then has
   none, for the cache).  */
#define HP_BUILD_ID_MAX 64

/* What makes a file the one a cache entry was made from.  */
struct hp_identity
{
  uint64_t dev, ino, size;
  uint64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
  size_t build_id_len;		/* 0: none.  */
  unsigned char build_id[HP_BUILD_ID_MAX];
};

/* Set the inode part of *ID from ST, a struct stat of any flavour.  */
#define HP_IDENTITY_SET_STAT(id, st)			\
  ((id)->dev = (st)->st_dev, (id)->ino = (st)->st_ino,	\
   (id)->size = (st)->st_size,				\
   (id)->mtime_sec = (st)->st_mtim.tv_sec,		\
   (id)->mtime_nsec = (st)->st_mtim.tv_nsec,		\
   (id)->ctime_sec = (st)->st_ctim.tv_sec,		\
   (id)->ctime_nsec = (st)->st_ctim.tv_nsec)

/* Find the NT_GNU_BUILD_ID note among the LEN bytes of note entries at
   NOTES (4-byte aligned, as in a PT_NOTE segment) and copy it into
   *ID.  Returns false (and leaves *ID alone) if there is none.  */
bool _dl_hugepage_find_build_id (const void *notes, size_t len,
				 struct hp_identity *id);

/* Set *ID's build ID from the first bytes of the PT_NOTE segments of
   PHDR[0..PHNUM), read with READER (none if there is none).  ld.so and
   the programs that make cache entries all use this, so that they
   name a file alike.  */
void _dl_hugepage_read_build_id (struct hp_identity *id,
				 const ElfW(Phdr) *phdr, size_t phnum,
				 hp_read_fn *reader, void *ctx);

/* Names are at most this long, with the terminating null byte.  */
#define HP_CACHE_NAME_MAX 256

/* The name of the directory of the file's inode ("i<ino>", hex; the
   device is in the version directory, see above).  */
void _dl_hugepage_cache_inode_name (const struct hp_identity *id,
				    char name[HP_CACHE_NAME_MAX]);

/* The name of the version directory
   ("<size>-<mtime>.<ns>-<ctime>.<ns>-<build id or none>", hex).  */
void _dl_hugepage_cache_version_name (const struct hp_identity *id,
				      char name[HP_CACHE_NAME_MAX]);

/* The name of the empty file in the version directory that says the
   entry was made from a file on ID's device ("dev-<dev>", hex).  */
void _dl_hugepage_cache_device_name (const struct hp_identity *id,
				     char name[HP_CACHE_NAME_MAX]);

/* The name of the file of zone Z for load bias BIAS
   ("<kind>-<bias mod huge page>-<start>-<end>", hex).  */
void _dl_hugepage_cache_zone_name (const struct hp_zone *z, uint64_t bias,
				   char name[HP_CACHE_NAME_MAX]);

/* Why ld.so does not trust a directory (WANT_DIR) or a file of the
   cache whose mode is MODE and owner UID, as fstat gives them, or NULL:
   everything it maps from the cache must be root's alone (the type
   wanted, owned by root, writable by neither group nor others), for
   the cache is read by every process and a file another user could
   write would decide which bytes they run.  The hugeld command asks
   the helper (hugeld-plan --cache-distrust) rather than repeat it.  */
const char *_dl_hugepage_cache_distrust (bool want_dir, unsigned int mode,
					 unsigned int uid);

/* statfs's f_type of hugetlbfs.  */
#define HP_HUGETLBFS_MAGIC 0x958458f6

/* Why ld.so does not map a zone of ZONE_SIZE bytes from a cache file
   whose fstat gives MODE, UID and SIZE and whose fstatfs gives F_TYPE
   and F_BSIZE (F_TYPE 0 where fstatfs failed), or NULL: the file must
   be trusted (_dl_hugepage_cache_distrust), exactly the zone's size,
   and on a hugetlbfs of 2 MiB pages, checked in that order.  ld.so's
   hp_open_zone and the helper's hugeld-plan --cache decide with
   this.  */
const char *_dl_hugepage_cache_zone_distrust (unsigned int mode,
					      unsigned int uid, uint64_t size,
					      uint64_t zone_size,
					      unsigned long int f_type,
					      unsigned long int f_bsize);

/* Whether zone Z of an object can come from the shared cache: read-only
   for the life of the process (text or rodata; RELRO is written by
   relocation), and the object has no text relocations.  */
bool _dl_hugepage_zone_shareable (const struct hp_zone *z, bool textrel);

#endif /* dl-hugepage-cache.h */
