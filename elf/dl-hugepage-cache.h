/* hugeld: backings and the names of shared cache entries.
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

/* The backings of LD_HUGEPAGE_BACKING, one table: for each backing,
   in the order ld.so tries them where no setting names one,
   X (ID, NAME, FLAGS).  HP_B_ID is its number (from 1; 0 means
   ordinary pages), NAME its word in the settings and the report, and
   _dl_hugepage_NAME_zone (dl-hugepage-int.h: hp_zone_fn) the function
   that puts a zone on it.  FLAGS (HP_BF_*) say what ld.so does
   differently for it:

   HP_BF_SHAREABLE  tried only for a zone _dl_hugepage_zone_shareable
		    allows (written memory is never shared); its pages
		    are counted as shared in the report.
   HP_BF_CACHED     its pages are a shared cache entry's, made for the
		    object at HP_PHASE_FREE: listed before any
		    HP_BF_FILE_PHASE backing, the object is placed for it
		    (_dl_hugepage_cache_placement).
   HP_BF_FILE_PHASE it wants relocatable text at its file phase
		    (_dl_hugepage_phase_mode).
   HP_BF_PLAIN      the report of a zone it placed is the original
		    report's words, with no "(NAME)"; a failure with an
		    errno is reported as a fallback to ordinary pages.

   Adding a backing is a line here, its zone function in a file of its
   own, and its test (docs/backings.md lists the places).  */
#define HP_BACKING_TABLE(X)					\
  X (SHARED, shared, HP_BF_SHAREABLE | HP_BF_CACHED)		\
  X (PRIVATE, private, HP_BF_PLAIN)				\
  X (THP, thp, HP_BF_FILE_PHASE)

#define HP_BF_SHAREABLE		0x1
#define HP_BF_CACHED		0x2
#define HP_BF_FILE_PHASE	0x4
#define HP_BF_PLAIN		0x8

enum hp_backing
{
#define HP_BACKING_ENUM(id, name, flags) HP_B_##id,
  HP_B_NONE = 0,
  HP_BACKING_TABLE (HP_BACKING_ENUM)
  HP_B_END
#undef HP_BACKING_ENUM
};
#define HP_NBACKINGS (HP_B_END - 1)

/* The backings ld.so tries where no setting names them, in the
   table's order: an initializer for an array of HP_NBACKINGS.  */
#define HP_BACKING_ID(id, name, flags) HP_B_##id,
#define HP_BACKINGS_DEFAULT { HP_BACKING_TABLE (HP_BACKING_ID) }

/* The HP_BF_* flags of backing B (0 for anything else).  */
unsigned int _dl_hugepage_backing_flags (int b);

/* Parse LD_HUGEPAGE_BACKING, a comma list of HP_BACKING_TABLE's words,
   into ORDER.  Returns the number of backings (a backing named twice
   counts once), or -1 if an element is not one of these (the caller
   then keeps HP_BACKINGS_DEFAULT).  */
int _dl_hugepage_parse_backing (const char *s,
				unsigned char order[HP_NBACKINGS]);
/* The same for the LEN bytes at S.  */
int _dl_hugepage_parse_backing_n (const char *s, size_t len,
				  unsigned char order[HP_NBACKINGS]);

/* The NAME of backing B in HP_BACKING_TABLE ("shared"), or "?".  */
const char *_dl_hugepage_backing_name (int backing);

/* The backings ORDER[0..N) as a comma list ("shared,private,thp"),
   written into BUF (SIZE bytes; HP_LIST_STRING_MAX hold any list).
   Returns BUF.  */
char *_dl_hugepage_backings_string (const unsigned char *order, int n,
				    char *buf, size_t size);

/* Whether backing B is tried at all for zone Z of an object with text
   relocations if TEXTREL: the shared backing only for a zone
   _dl_hugepage_zone_shareable allows (written memory is never
   shared).  */
bool _dl_hugepage_backing_tried (int b, const struct hp_zone *z,
				 bool textrel);

/* The backing ld.so ends up with for zone Z (of an object with text
   relocations if TEXTREL) trying ORDER[0..N) as its loop does, where
   the backings whose bit (1 << HP_B_*) is set in AVAILABLE work (the
   shared backing: the cache holds the zone; thp: the kernel gives
   transparent huge pages; private: a pool large enough): HP_B_*, or 0
   for ordinary pages.  ld.so finds out by trying; `hugeld plan'
   predicts with this.  */
int _dl_hugepage_expected_backing (const unsigned char *order, int n,
				   const struct hp_zone *z, bool textrel,
				   unsigned int available);

/* Where the kernel says whether transparent huge pages are enabled.  */
#define HP_THP_ENABLED_FILE "/sys/kernel/mm/transparent_hugepage/enabled"

/* Whether TEXT[0..LEN), the contents of HP_THP_ENABLED_FILE ("always
   madvise [never]": the mode in brackets), enables transparent huge
   pages: any mode but never.  False for nothing read.  */
bool _dl_hugepage_thp_enabled_text (const char *text, size_t len);

/* When ld.so puts a relocatable object's text at its file phase (enum
   hp_phase) for the backings ORDER[0..N-1]: always when an
   HP_BF_FILE_PHASE backing (thp) comes first, or when one is listed and the process can have no pool page
   (NO_POOL: no persistent or surplus pages configured, or a hugetlb
   cgroup that allows none), so that
   nothing else can give huge pages; otherwise only where that costs no
   huge page, so that the private and shared backings get the most.
   Shared cache entries are made for HP_PHASE_FREE.  */
int _dl_hugepage_phase_mode (const unsigned char *order, int n,
			     bool no_pool);

/* Whether an object that has a shared cache entry is placed for it
   (HP_PHASE_FREE, what entries are made for) where
   _dl_hugepage_phase_mode gives HP_PHASE_ALWAYS because the process
   can have no pool page: the shared backing comes before thp in
   ORDER[0..N-1].  The cache's pages are already there and charged to
   whoever faulted them in, so a process with no pool page of its own
   (a Kubernetes pod that requested none) maps them all the same;
   placing the object for thp instead would make every entry miss.
   In terms of the table: an HP_BF_CACHED backing comes before any
   HP_BF_FILE_PHASE one.  */
bool _dl_hugepage_cache_placement (const unsigned char *order, int n);

/* The path of the process's cgroup in the text of /proc/self/cgroup,
   TEXT[0..LEN): with V1 false in the unified hierarchy (the line
   "0::PATH"), with V1 true in the version 1 hierarchy that has the
   hugetlb controller (a line "ID:LIST:PATH" with hugetlb in the comma
   list LIST).  Returns the path's first byte and sets *PATHLEN, or
   returns NULL if there is no such line, or it is cut off (it must end
   in a newline within LEN), or the path does not start with '/'.  */
const char *_dl_hugepage_cgroup_path (const char *text, size_t len,
				      bool v1, size_t *pathlen);

/* Whether TEXT[0..LEN), the contents of a hugetlb cgroup limit file
   (hugetlb.2MB.max or .rsvd.max: "max" or a number of bytes;
   version 1's limit_in_bytes: a number of bytes), allows no 2 MiB
   page: a number below HP_HUGEPAGE_SIZE.  False for anything else.  */
bool _dl_hugepage_cgroup_limit_none (const char *text, size_t len);

/* The longest cgroup directory name looked at, with its NUL.  */
#define HP_CGROUP_DIR_MAX 512

/* How _dl_hugepage_cgroup_none reads: READ_FILE reads up to SIZE bytes
   of the file NAME into BUF (the number read, or minus the error
   number); FS_TYPE gives statfs's f_type of the directory NAME, or 0.
   CTX is the caller's.  */
struct hp_cgroup_io
{
  long int (*read_file) (void *ctx, const char *name, char *buf,
			 size_t size);
  unsigned long int (*fs_type) (void *ctx, const char *name);
  void *ctx;
};

/* Whether the hugetlb cgroup of a process, or one above it (the limit
   that counts is the smallest), allows no 2 MiB page: a Kubernetes pod
   that asked for none has hugetlb.2MB.max = 0.  PATHS are its cgroup's
   paths, [0] in the unified hierarchy and [1] in version 1's hugetlb
   one (_dl_hugepage_cgroup_path; NULL where there is none).  The
   cgroup is looked for under /sys/fs/cgroup (the unified hierarchy),
   /sys/fs/cgroup/unified (the same, where systemd mounts it beside
   version 1 hierarchies) and /sys/fs/cgroup/hugetlb (version 1), each
   only if a cgroup file system of that version is mounted there.  In
   a container without a cgroup namespace that path is the host's;
   directories that do not exist are skipped.  If so, the limit file
   that allows none is written into FILE; false where nothing can be
   read.  */
bool _dl_hugepage_cgroup_none (const char *const paths[2],
			       const struct hp_cgroup_io *io,
			       char file[HP_CGROUP_DIR_MAX]);

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
