/* hugeld: the shared backing.
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

/* The shared backing of LD_HUGEPAGE_BACKING (the private copy is in
   dl-hugepage-map.c, thp in dl-hugepage-thp.c): a read-only zone is
   mapped from a file of the hugetlbfs cache (HP_CACHE_MAP_FLAGS)
   (dl-hugepage-cache.h), which `hugeld cache add' filled.  Every
   process maps the same huge pages, no pool page is taken and nothing
   is copied: start-up costs a few opens and an mmap.
   An entry is used only if it was made from exactly this file (inode,
   size, mtime, ctime and build ID are in its name, the device in a
   file next to its zones) or holds exactly its bytes (compared when
   the device differs, as for a file seen through overlayfs: see
   dl-hugepage-cache.h), and only if ld.so can trust it: every
   directory and file on the way is owned by root and writable by
   nobody else, none is a symbolic link, and the zone file is on a
   hugetlbfs of 2 MiB pages and has the zone's size.  All checks are
   made on the open descriptors, so nothing can be swapped in between.
   The zone file is opened read-only, so the mapping can never be made
   writable.  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

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

/* Why FD (a directory if DIR) cannot be trusted, or NULL: anything
   not owned by root or writable by group or others could hold bytes
   another user wrote.  */
static const char *
hp_untrusted (int fd, bool dir, struct __stat64_t64 *st)
{
  if (__fstat64_time64 (fd, st) != 0)
    return "not trusted: fstat failed";
  return _dl_hugepage_cache_distrust (dir, st->st_mode, st->st_uid);
}

/* The identity of LS's object, open as FD: its inode's, and the build
   ID from its PT_NOTE segments.  */
static bool
hp_identity (const struct hp_load_state *ls, int fd, struct hp_identity *id)
{
  struct __stat64_t64 st;
  if (__fstat64_time64 (fd, &st) != 0)
    return false;
  HP_IDENTITY_SET_STAT (id, &st);
  _dl_hugepage_read_build_id (id, ls->phdr, ls->phnum, _dl_hugepage_read_fd,
			      &fd);
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
      c->denied = _dl_hugepage_denied (c->err, dirfd, name);
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

/* Look up the cache entry of LS's object, open as FD, into its
   object state.  */
static void
hp_cache_open (struct hp_load_state *ls, int fd)
{
  struct hp_object_state *c = &ls->object;
  c->looked = true;
  c->dirfd = -1;
  c->err = 0;
  c->denied = false;
  c->verify = false;
  struct hp_identity id;
  if (!hp_identity (ls, fd, &id))
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
_dl_hugepage_cache_close (struct hp_object_state *c)
{
  if (c->looked && c->dirfd >= 0)
    __close_nocancel (c->dirfd);
  c->dirfd = -1;
  c->looked = false;
  c->verify = false;
}

/* How a zone file is mapped: copy-on-write, with no reservation.
   Nothing in the process writes to it (text and read-only data), so
   every process maps the cache's own pages and none is copied, as
   with MAP_SHARED.  But a debugger's software breakpoint (a ptrace
   write, which the kernel lets through a read-only private mapping)
   then gets a copy of that one huge page for this process from the
   pool, where a MAP_SHARED mapping of the read-only file refuses it:
   gdb's breakpoints in cached code would never be inserted, silently
   in a shared object.  MAP_NORESERVE: a private hugetlb mapping would
   otherwise reserve its whole size in the pool at mmap, which is what
   the cache exists to avoid; a copy that finds no free page fails the
   write that wanted it (gdb says it cannot insert the breakpoint), and
   the process never takes another's page.  */
#define HP_CACHE_MAP_FLAGS (MAP_PRIVATE | MAP_NORESERVE)

/* Open the file of zone Z (for bias BIAS) in the version directory and
   check it.  Returns the descriptor, or -1 with *ERR and *WHAT set
   (and *DENIED if a security policy refused the open).  */
static int
hp_open_zone (int dirfd, const struct hp_zone *z, uint64_t bias, int *err,
	      const char **what, bool *denied)
{
  char name[HP_CACHE_NAME_MAX];
  _dl_hugepage_cache_zone_name (z, bias, name);
  int zfd = hp_openat (dirfd, name, 0);
  if (zfd < 0)
    {
      *denied = _dl_hugepage_denied (errno, dirfd, name);
      *err = errno == ENOENT || errno == ELOOP ? 0 : errno;
      *what = (errno == ENOENT
	       ? "no cache entry for this zone (made for other segments or "
		 "another placement)"
	       : errno == ELOOP ? "not trusted: a symbolic link"
	       : "opening the zone's cache file");
      /* Text an entry leaves out on purpose: say so.  */
      if (*err == 0 && z->kind == HP_KIND_TEXT && errno == ENOENT)
	{
	  int m = hp_openat (dirfd, HP_CACHE_NOTEXT, 0);
	  if (m >= 0)
	    {
	      *what = HP_CACHE_NOTEXT_WHY;
	      __close_nocancel (m);
	    }
	}
      return -1;
    }
  struct __stat64_t64 st;
  struct statfs sfs;
  if (__fstat64_time64 (zfd, &st) != 0)
    *what = "not trusted: fstat failed";
  else
    {
      if (INTERNAL_SYSCALL_CALL (fstatfs, zfd, &sfs) != 0)
	sfs.f_type = 0;
      *what = _dl_hugepage_cache_zone_distrust (st.st_mode, st.st_uid,
						st.st_size,
						z->end - z->start,
						sfs.f_type, sfs.f_bsize);
    }
  if (*what != NULL)
    {
      *err = 0;
      __close_nocancel (zfd);
      return -1;
    }
  return zfd;
}

bool
_dl_hugepage_cache_has_zone (struct hp_load_state *ls,
			     const struct hp_plan *plan, int fd)
{
  struct hp_object_state *c = &ls->object;
  if (!c->looked)
    hp_cache_open (ls, fd);
  if (c->dirfd < 0)
    return false;
  for (size_t i = 0; i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      int err;
      const char *what;
      bool denied;
      if (!_dl_hugepage_zone_shareable (z, ls->textrel))
	continue;
      int zfd = hp_open_zone (c->dirfd, z, plan->bias, &err, &what,
			      &denied);
      if (zfd >= 0)
	{
	  __close_nocancel (zfd);
	  return true;
	}
    }
  return false;
}

/* Whether the LEN bytes at E are the bytes of FD from OFF on, and
   zeros where the file ends before them (as a mapping shows the rest
   of the file's last page); false if the file is shorter than NEED
   bytes from OFF.  Read with pread, never through the object's
   mapping: whoever may write the file can cut it while it is loaded,
   and a read of the mapping past the file's new end would kill ld.so
   with SIGBUS, where a pread is only short.  */
static bool
hp_file_matches (const char *e, size_t len, size_t need, int fd, off64_t off)
{
  char small[4096];
  size_t size = 1 << 20;
  char *buf = __mmap (NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED)
    {
      buf = small;
      size = sizeof small;
    }
  bool same = true;
  size_t done = 0;
  while (same && done < len)
    {
      size_t n = len - done < size ? len - done : size;
      ssize_t got = _dl_hugepage_pread_full (fd, buf, n, off + done);
      if (got < 0 || ((size_t) got < n && done + got < need))
	same = false;
      else
	{
	  same = memcmp (e + done, buf, got) == 0;
	  for (size_t i = got; same && i < n; ++i)
	    same = e[done + i] == 0;
	}
      done += n;
    }
  if (buf != small)
    __munmap (buf, size);
  return same;
}

/* Whether ERR, the error of mapping the zone file ZFD (open for
   reading) shared, read and execute, is a security policy's refusal:
   EACCES (AppArmor's `m' permission, SELinux's execute) or EPERM on a
   file system not mounted noexec (the other reason for it).  */
static bool
hp_mmap_denied (int err, int zfd)
{
  struct statfs sfs;
  if (err == EPERM && INTERNAL_SYSCALL_CALL (fstatfs, zfd, &sfs) == 0
      && (sfs.f_flags & ST_NOEXEC) != 0)
    return false;
  return _dl_hugepage_denied (err, zfd, NULL);
}

/* Whether the cache entry of zone Z mapped at ENTRY holds what the
   object (load bias L_ADDR, open as FD) shows.  With MAPPED (the
   kernel-mapped main program, which a debugger may have changed
   before ld.so runs): the segment's bytes as its mapping shows them
   (compared only where a page of it is not the file's:
   _dl_hugepage_pages_from_file); that file is the executable the kernel runs,
   which it lets nobody write or cut (ETXTBSY), so its mapping is read
   as it is.  With ALL
   (an entry made on another device, none of whose bytes may be taken
   on trust): the file's bytes (hp_file_matches: a library may be cut
   while it is loaded), the rest of its last file page too, which is
   mapped with the segment's protection though it lies past p_filesz,
   and zeros in the parts of the zone the file does not fill.  */
static bool
hp_entry_matches (const void *entry, const struct hp_zone *z,
		  ElfW(Addr) l_addr, int fd, bool mapped, bool all)
{
  const char *e = entry;
  size_t head = z->copy_start - z->start;
  if (mapped
      && !_dl_hugepage_pages_from_file (l_addr + z->copy_start, z->copy_need)
      && memcmp (e + head, (void *) (l_addr + z->copy_start),
		 z->copy_need) != 0)
    return false;
  if (!all)
    return true;
  if (!hp_file_matches (e + head, z->copy_len, z->copy_need, fd,
			z->fileoff))
    return false;
  size_t len = z->end - z->start;
  for (size_t i = 0; i < head; ++i)
    if (e[i] != 0)
      return false;
  for (size_t i = head + z->copy_len; i < len; ++i)
    if (e[i] != 0)
      return false;
  return true;
}

/* The shared backing (hp_zone_fn): put zone Z on the shared cache's
   pages, looking the entry up into LS->object first.  HP_FALLBACK with
   *ERR 0 means there is no usable entry and *WHAT says why.  */
enum hp_outcome
_dl_hugepage_shared_zone (struct hp_load_state *ls, const struct hp_zone *z,
			  uint64_t bias, ElfW(Addr) l_addr, int fd, bool verify,
			  int *err, const char **what)
{
  struct hp_object_state *c = &ls->object;
  if (!c->looked)
    hp_cache_open (ls, fd);
  if (c->dirfd < 0)
    {
      *err = c->err;
      *what = c->why;
      ls->denied = c->denied;
      return HP_FALLBACK;
    }
  int zfd = hp_open_zone (c->dirfd, z, bias, err, what, &ls->denied);
  if (zfd < 0)
    return HP_FALLBACK;

  size_t len = z->end - z->start;
  void *dst = (void *) (l_addr + z->start);
  int prot = hp_map_prot (ls, z->prot);
  int moverr;
  const char *movewhat;
  bool movedenied;
  enum hp_outcome o = HP_FALLBACK;
  if (_dl_hugepage_kernel_can_move (&moverr, &movewhat, &movedenied))
    {
      /* Map it aside (hugetlbfs places it on a huge page boundary) and
	 move it over the ordinary pages in one step.  */
      void *tmp = __mmap (NULL, len, prot, HP_CACHE_MAP_FLAGS, zfd, 0);
      if (tmp == MAP_FAILED)
	{
	  *err = errno;
	  *what = HP_STEP_MMAP_CACHE;
	  /* The cache's pages are taken already: not the pool.  */
	  if (*err == ENOMEM && hp_debug ())
	    {
	      ls->enomem = _dl_hugepage_enomem_why (len, false);
	      if (ls->enomem == NULL)
		ls->enomem = "ENOMEM, out of memory";
	    }
	  ls->denied = hp_mmap_denied (*err, zfd);
	}
      else if ((verify || c->verify)
	       && !hp_entry_matches (tmp, z, l_addr, fd, verify, c->verify))
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
	o = _dl_hugepage_move_zone (ls, tmp, z, l_addr, fd, err, what);
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
      void *p = __mmap (dst, len, prot, HP_CACHE_MAP_FLAGS | MAP_FIXED,
			zfd, 0);
      if (p == dst)
	o = HP_DONE;
      else
	{
	  *err = errno;
	  *what = HP_STEP_MMAP_CACHE;
	  ls->denied = hp_mmap_denied (*err, zfd);
	  o = _dl_hugepage_unhole (ls, z, l_addr, fd, err);
	}
    }
  __close_nocancel (zfd);
  return o;
}
