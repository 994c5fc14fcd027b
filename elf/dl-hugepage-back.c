/* hugeld: the shared and thp backings.
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

/* Two of the three backings of LD_HUGEPAGE_BACKING (the private copy
   is in dl-hugepage-map.c):

   shared: a read-only zone is mapped MAP_SHARED from a file of the
   hugetlbfs cache (dl-hugepage-cache.h), which `hugeld cache add'
   filled.  Every process maps the same huge pages, no pool page is
   taken and nothing is copied: start-up costs a few opens and an mmap.
   An entry is used only if it was made from exactly this file (inode,
   size, mtime, ctime and build ID are in its name, the device in a
   file next to its zones) or holds exactly its bytes (compared when
   the device differs, as for a file seen through overlayfs: see
   dl-hugepage-cache.h), and only if
   ld.so can trust it: every directory and file on the way is owned by
   root and writable by nobody else, none is a symbolic link, and the
   zone file is on a hugetlbfs of 2 MiB pages and has the zone's size.
   All checks are made on the open descriptors, so nothing can be
   swapped in between.  The zone file is opened read-only, so the
   mapping can never be made writable.

   thp: nothing is taken from the pool.  A read-only zone stays mapped
   from the object's file, at an address congruent to its file offset
   modulo 2 MiB (the planner chose the bias for that), and ld.so asks
   the kernel to use page-cache huge pages for it (MADV_HUGEPAGE, then
   MADV_COLLAPSE where the kernel can collapse file pages).  Whether it
   does depends on the kernel, the file system and what the page cache
   holds already; only /proc/PID/smaps (FilePmdMapped) can tell.  A
   writable zone becomes an anonymous private copy marked
   MADV_HUGEPAGE, built aside and moved into place like the private
   copy (moving ordinary memory works on every kernel).  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

#ifndef MADV_COLLAPSE
# define MADV_COLLAPSE 25
#endif
#define HP_HUGETLBFS_MAGIC 0x958458f6

static int
hp_openat (int dirfd, const char *name, int flags)
{
  int r = INTERNAL_SYSCALL_CALL (openat, dirfd, name,
				 flags | O_RDONLY | O_NOFOLLOW | O_NONBLOCK
				 | O_NOCTTY | O_CLOEXEC, 0);
  if (INTERNAL_SYSCALL_ERROR_P (r))
    {
      __set_errno (INTERNAL_SYSCALL_ERRNO (r));
      return -1;
    }
  return r;
}

static int
hp_madvise (void *addr, size_t len, int advice)
{
  int r = INTERNAL_SYSCALL_CALL (madvise, addr, len, advice);
  if (INTERNAL_SYSCALL_ERROR_P (r))
    {
      __set_errno (INTERNAL_SYSCALL_ERRNO (r));
      return -1;
    }
  return 0;
}

/* Why FD (a directory if DIR) cannot be trusted, or NULL: anything
   not owned by root or writable by group or others could hold bytes
   another user wrote.  */
static const char *
hp_untrusted (int fd, bool dir, struct __stat64_t64 *st)
{
  if (__fstat64_time64 (fd, st) != 0)
    return "not trusted: fstat failed";
  if (dir ? !S_ISDIR (st->st_mode) : !S_ISREG (st->st_mode))
    return dir ? "not trusted: not a directory" : "not trusted: not a file";
  if (st->st_uid != 0)
    return "not trusted: not owned by root";
  if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "not trusted: writable by group or others";
  return NULL;
}

static long int
hp_read_fd (void *fd, void *buf, size_t len, uint64_t offset)
{
  return _dl_hugepage_pread_full (*(int *) fd, buf, len, offset);
}

/* The identity of the object open as FD: its inode's, and the build ID
   from its PT_NOTE segments.  */
static bool
hp_identity (int fd, struct hp_identity *id)
{
  struct __stat64_t64 st;
  if (__fstat64_time64 (fd, &st) != 0)
    return false;
  HP_IDENTITY_SET_STAT (id, &st);
  _dl_hugepage_read_build_id (id, _dl_hugepage_load.phdr,
			      _dl_hugepage_load.phnum, hp_read_fd, &fd);
  return true;
}

/* Open the directory NAME in DIRFD and check it; on failure set C's
   reason.  */
static int
hp_open_dir (struct hp_object_state *c, int dirfd, const char *name,
	     const char *missing)
{
  int fd = hp_openat (dirfd, name, O_DIRECTORY);
  if (fd < 0)
    {
      c->err = errno;
      c->why = "opening the cache";
      if (errno == ENOENT)
	{
	  c->err = 0;
	  c->why = missing;
	}
      else if (errno == ELOOP || errno == ENOTDIR)
	{
	  c->err = 0;
	  c->why = "not trusted: a symbolic link or not a directory";
	}
      return -1;
    }
  struct __stat64_t64 st;
  c->why = hp_untrusted (fd, true, &st);
  if (c->why != NULL)
    {
      __close_nocancel (fd);
      return -1;
    }
  return fd;
}

static void
hp_cache_open (struct hp_object_state *c, int fd)
{
  c->looked = true;
  c->dirfd = -1;
  c->err = 0;
  c->verify = false;
  struct hp_identity id;
  if (!hp_identity (fd, &id))
    {
      c->err = errno;
      c->why = "fstat of the object";
      return;
    }
  char name[HP_CACHE_NAME_MAX];
  int top = hp_open_dir (c, AT_FDCWD, HP_CACHE_DIR,
			 "no cache (" HP_CACHE_DIR " does not exist)");
  if (top < 0)
    return;
  _dl_hugepage_cache_inode_name (&id, name);
  int ino = hp_open_dir (c, top, name, "no cache entry for this file");
  __close_nocancel (top);
  if (ino < 0)
    return;
  _dl_hugepage_cache_version_name (&id, name);
  c->dirfd = hp_open_dir (c, ino, name,
			  "stale cache entry (the file changed after "
			  "`hugeld cache add')");
  __close_nocancel (ino);
  if (c->dirfd < 0)
    return;

  /* The inode number and times say nothing across file systems
     (dl-hugepage-cache.h): unless the entry was made on this file's
     device, its bytes are compared before they are used.  */
  _dl_hugepage_cache_device_name (&id, name);
  int dev = hp_openat (c->dirfd, name, 0);
  struct __stat64_t64 st;
  c->verify = dev < 0 || hp_untrusted (dev, false, &st) != NULL;
  if (dev >= 0)
    __close_nocancel (dev);
}

void
_dl_hugepage_cache_done (struct hp_object_state *c)
{
  if (c->looked && c->dirfd >= 0)
    __close_nocancel (c->dirfd);
  c->dirfd = -1;
  c->looked = false;
  c->verify = false;
  c->thp_advised = false;
}

/* Open the file of zone Z (for bias BIAS) in the version directory and
   check it.  Returns the descriptor, or -1 with *ERR and *WHAT set.  */
static int
hp_open_zone (int dirfd, const struct hp_zone *z, uint64_t bias, int *err,
	      const char **what)
{
  char name[HP_CACHE_NAME_MAX];
  _dl_hugepage_cache_zone_name (z, bias, name);
  int zfd = hp_openat (dirfd, name, 0);
  if (zfd < 0)
    {
      *err = errno == ENOENT || errno == ELOOP ? 0 : errno;
      *what = (errno == ENOENT
	       ? "no cache entry for this zone (made for other segments or "
		 "another placement)"
	       : errno == ELOOP ? "not trusted: a symbolic link"
	       : "opening the zone's cache file");
      return -1;
    }
  struct __stat64_t64 st;
  struct statfs sfs;
  *what = hp_untrusted (zfd, false, &st);
  if (*what == NULL && (uint64_t) st.st_size != z->end - z->start)
    *what = "cache file of the wrong size";
  if (*what == NULL
      && (INTERNAL_SYSCALL_CALL (fstatfs, zfd, &sfs) != 0
	  || sfs.f_type != HP_HUGETLBFS_MAGIC
	  || sfs.f_bsize != HP_HUGEPAGE_SIZE))
    *what = "not trusted: not on a hugetlbfs of 2 MiB pages";
  if (*what != NULL)
    {
      *err = 0;
      __close_nocancel (zfd);
      return -1;
    }
  return zfd;
}

bool
_dl_hugepage_cache_has_zone (struct hp_object_state *c,
			     const struct hp_plan *plan, int fd)
{
  if (!c->looked)
    hp_cache_open (c, fd);
  if (c->dirfd < 0)
    return false;
  for (size_t i = 0; i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      int err;
      const char *what;
      if (!_dl_hugepage_zone_shareable (z, _dl_hugepage_load.textrel))
	continue;
      int zfd = hp_open_zone (c->dirfd, z, plan->bias, &err, &what);
      if (zfd >= 0)
	{
	  __close_nocancel (zfd);
	  return true;
	}
    }
  return false;
}

enum hp_outcome
_dl_hugepage_shared_zone (struct hp_object_state *c, const struct hp_zone *z,
			  uint64_t bias, ElfW(Addr) l_addr, int fd, bool verify,
			  int *err, const char **what)
{
  if (!c->looked)
    hp_cache_open (c, fd);
  if (c->dirfd < 0)
    {
      *err = c->err;
      *what = c->why;
      return HP_FALLBACK;
    }
  int zfd = hp_open_zone (c->dirfd, z, bias, err, what);
  if (zfd < 0)
    return HP_FALLBACK;

  size_t len = z->end - z->start;
  void *dst = (void *) (l_addr + z->start);
  int prot = hp_prot (z->prot);
  int moverr;
  const char *movewhat;
  enum hp_outcome o = HP_FALLBACK;
  if (_dl_hugepage_kernel_can_move (&moverr, &movewhat))
    {
      /* Map it aside (hugetlbfs places it on a huge page boundary) and
	 move it over the ordinary pages in one step.  */
      void *tmp = __mmap (NULL, len, prot, MAP_SHARED, zfd, 0);
      if (tmp == MAP_FAILED)
	{
	  *err = errno;
	  *what = "mmap of the cache file";
	}
      else if ((verify || c->verify)
	       && memcmp ((char *) tmp + (z->copy_start - z->start),
			  (void *) (l_addr + z->copy_start), z->copy_need) != 0)
	{
	  *err = c->verify ? 0 : EBUSY;
	  *what = (c->verify
		   ? "the file's bytes differ from the cache entry's (made "
		     "on another file system from a file with the same "
		     "inode number and times)"
		   : "compare (the mapped code differs from the cached code: "
		     "debugger breakpoints or uprobes)");
	  __munmap (tmp, len);
	}
      else
	o = _dl_hugepage_move_zone (tmp, z, l_addr, fd, err, what);
    }
  else if (verify || c->verify)
    {
      *err = 0;
      *what = (c->verify
	       ? "the entry was made on another file system and the kernel "
		 "cannot move huge page mappings, which comparing it needs"
	       : "the kernel cannot move huge page mappings, and the "
		 "program's code must be compared first");
    }
  else
    {
      /* The kernel cannot move hugetlb mappings: map the cache file
	 straight over the ordinary pages.  A failed mmap MAP_FIXED may
	 have unmapped them.  */
      void *p = __mmap (dst, len, prot, MAP_SHARED | MAP_FIXED, zfd, 0);
      if (p == dst)
	o = HP_DONE;
      else
	{
	  *err = errno;
	  *what = "mmap of the cache file";
	  o = _dl_hugepage_unhole (z, l_addr, fd, err);
	}
    }
  __close_nocancel (zfd);
  return o;
}

/* Whether transparent huge pages are enabled at all: 1 yes, -1 no
   (/sys/kernel/mm/transparent_hugepage/enabled says [never], or the
   kernel has none), 0 not known yet.  */
static int hp_thp;
/* MADV_COLLAPSE failed with EINVAL: the kernel cannot collapse file
   pages; do not ask again.  */
static bool hp_no_collapse;

#ifdef HAVE_THP
/* glibc 2.44 and later: ld.so reads the THP mode itself for
   glibc.elf.thp.  Use what it found, or its reader; never set
   GL(dl_thp_mode), which would turn on glibc.elf.thp's madvise.  */
# include <hugepages.h>

static int
hp_thp_mode (void)
{
  enum thp_mode_t m = GL(dl_thp_mode);
  if (m == thp_mode_unknown)
    m = __get_thp_mode ();
  return m == thp_mode_always || m == thp_mode_madvise ? 1 : -1;
}
#else
static int
hp_thp_mode (void)
{
  char buf[64];
  ssize_t n = _dl_hugepage_read_file ("/sys/kernel/mm/"
				      "transparent_hugepage/enabled",
				      buf, sizeof buf);
  /* "always madvise [never]": the choice is in brackets.  */
  int r = n > 0 ? 1 : -1;
  for (ssize_t i = 0; i + 7 <= n; ++i)
    if (memcmp (buf + i, "[never]", 7) == 0)
      r = -1;
  return r;
}
#endif

static bool
hp_thp_enabled (void)
{
  if (hp_thp == 0)
    hp_thp = hp_thp_mode ();
  return hp_thp > 0;
}

/* An anonymous copy of writable zone Z, MADV_HUGEPAGE, moved over the
   ordinary pages.  */
static enum hp_outcome
hp_thp_copy (const struct hp_zone *z, ElfW(Addr) l_addr, int fd, int *err,
	     const char **what)
{
  size_t len = z->end - z->start;
  char *area = __mmap (NULL, len + HP_HUGEPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    {
      *err = errno;
      *what = "mmap";
      return HP_FALLBACK;
    }
  char *tmp = (char *) ALIGN_UP ((uintptr_t) area, HP_HUGEPAGE_SIZE);
  if (tmp > area)
    __munmap (area, tmp - area);
  if (area + HP_HUGEPAGE_SIZE > tmp)
    __munmap (tmp + len, area + HP_HUGEPAGE_SIZE - tmp);
  if (hp_madvise (tmp, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = "madvise MADV_HUGEPAGE";
      goto fail;
    }
  if (z->copy_len > 0)
    {
      ssize_t n = _dl_hugepage_pread_full (fd, tmp + (z->copy_start
						      - z->start),
					   z->copy_len, z->fileoff);
      if (n < 0 || (size_t) n < z->copy_need)
	{
	  *err = n < 0 ? errno : EIO;
	  *what = "pread";
	  goto fail;
	}
    }
  if (__mprotect (tmp, len, hp_prot (z->prot)) != 0)
    {
      *err = errno;
      *what = "mprotect";
      goto fail;
    }
  enum hp_outcome o = _dl_hugepage_move_zone (tmp, z, l_addr, fd, err, what);
  if (o != HP_DONE)
    return o;
  *what = "anonymous copy, MADV_HUGEPAGE";
  return HP_THP;

 fail:
  __munmap (tmp, len);
  return HP_FALLBACK;
}

/* Mark every file page of the object with load bias L_ADDR
   MADV_HUGEPAGE, not only its huge page zones, before anything faults
   them in: the kernel's read-around for a fault anywhere else in the
   file (relocation, constructors; read_ahead_kb may be megabytes)
   would otherwise fill the page cache with small folios, also where
   the zones are, and those can never be mapped with huge pages.  With
   the mark, every fault reads whole aligned huge folios.  Best effort:
   a zone already on hugetlb pages refuses the advice, and only the
   zone's own madvise must succeed.  */
static void
hp_advise_object (ElfW(Addr) l_addr)
{
  const ElfW(Phdr) *phdr = _dl_hugepage_load.phdr;
  size_t pg = GLRO(dl_pagesize);
  for (size_t i = 0; i < _dl_hugepage_load.phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_filesz != 0)
      {
	ElfW(Addr) s = ALIGN_DOWN (l_addr + phdr[i].p_vaddr, pg);
	ElfW(Addr) e = ALIGN_UP (l_addr + phdr[i].p_vaddr + phdr[i].p_filesz,
				 pg);
	hp_madvise ((void *) s, e - s, MADV_HUGEPAGE);
      }
}

enum hp_outcome
_dl_hugepage_thp_zone (struct hp_object_state *st, const struct hp_zone *z,
		       ElfW(Addr) l_addr, int fd, int *err, const char **what)
{
  *err = 0;
  if (!hp_thp_enabled ())
    {
      *what = "transparent huge pages are disabled "
	      "(/sys/kernel/mm/transparent_hugepage/enabled)";
      return HP_FALLBACK;
    }
  if ((z->prot & PF_W) != 0)
    return hp_thp_copy (z, l_addr, fd, err, what);

  /* The page cache's huge pages can only be mapped where the address
     is congruent to the file offset modulo their size.  */
  if (z->copy_len == 0
      || ((l_addr + z->copy_start - z->fileoff) & (HP_HUGEPAGE_SIZE - 1))
	 != 0)
    {
      *what = "the zone's address is not congruent to its file offset "
	      "modulo 2 MiB (placed for the most huge pages: list thp "
	      "first to place it for thp)";
      return HP_FALLBACK;
    }
  void *dst = (void *) (l_addr + z->start);
  size_t len = z->end - z->start;
  if (!st->thp_advised)
    {
      st->thp_advised = true;
      hp_advise_object (l_addr);
    }
  if (hp_madvise (dst, len, MADV_HUGEPAGE) != 0)
    {
      *err = errno;
      *what = "madvise MADV_HUGEPAGE";
      return HP_FALLBACK;
    }
  *what = "page-cache huge pages asked for (MADV_HUGEPAGE; MADV_COLLAPSE "
	  "not supported here)";
  if (!hp_no_collapse)
    {
      int r = hp_madvise (dst, len, MADV_COLLAPSE);
      /* EAGAIN is transient (a folio locked or being collapsed by
	 khugepaged at the same moment; seen on Linux 7.2 and 7.3 with a
	 warm page cache): ask once more.  */
      if (r != 0 && errno == EAGAIN)
	r = hp_madvise (dst, len, MADV_COLLAPSE);
      if (r == 0)
	*what = "page-cache huge pages asked for (MADV_HUGEPAGE, "
		"MADV_COLLAPSE done)";
      else if (errno == EINVAL)
	hp_no_collapse = true;
      else
	*what = "page-cache huge pages asked for (MADV_HUGEPAGE; "
		"MADV_COLLAPSE failed)";
    }
  return HP_THP;
}
