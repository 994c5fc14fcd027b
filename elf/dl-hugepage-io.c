/* hugeld: the input and output primitives of ld.so's hugeld files.
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

/* What every other file of ld.so's hugeld code reads and reports with:
   reading an object's file until a range is in, the reader the pure
   readers are given, reading a small kernel file, the names of the
   errors the system calls give (ld.so has no strerror), which limit
   of the process an ENOMEM comes from, and whether an error was a
   security policy's refusal.  No state.  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

int
_dl_hugepage_madvise (void *addr, size_t len, int advice)
{
  int r = INTERNAL_SYSCALL_CALL (madvise, addr, len, advice);
  if (INTERNAL_SYSCALL_ERROR_P (r))
    {
      __set_errno (INTERNAL_SYSCALL_ERRNO (r));
      return -1;
    }
  return 0;
}

/* Read from FD at OFFSET until LEN bytes are in or the file ends.
   Returns the number of bytes read, or -1 (errno set).  */
ssize_t
_dl_hugepage_pread_full (int fd, void *buf, size_t len, off64_t offset)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t n = __pread64_nocancel (fd, (char *) buf + done, len - done,
				      offset + done);
      if (n < 0)
	{
	  if (errno == EINTR)
	    continue;
	  return -1;
	}
      if (n == 0)
	break;
      done += n;
    }
  return done;
}

/* /proc/self/pagemap is read, not the pages: comparing them would
   fault in every page of the text.  */
bool
_dl_hugepage_pages_from_file (ElfW(Addr) addr, size_t len)
{
  int fd = __open64_nocancel ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  /* Bit 63: present; 62: swapped; 61: a file page (or shared).  */
  const uint64_t present = 1ULL << 63, swapped = 1ULL << 62,
    file = 1ULL << 61;
  uint64_t e[512];
  size_t page = GLRO(dl_pagesize);
  size_t first = addr / page, n = (addr + len + page - 1) / page - first;
  bool clean = true;
  for (size_t done = 0; clean && done < n; )
    {
      size_t want = n - done < 512 ? n - done : 512;
      ssize_t got = _dl_hugepage_pread_full (fd, e, want * sizeof e[0],
					     (first + done) * sizeof e[0]);
      if (got != (ssize_t) (want * sizeof e[0]))
	clean = false;
      for (size_t i = 0; clean && i < want; ++i)
	clean = ((e[i] & swapped) == 0
		 && ((e[i] & present) == 0 || (e[i] & file) != 0));
      done += want;
    }
  __close_nocancel (fd);
  return clean;
}


static void
hp_readahead (int fd, uint64_t offset, uint64_t len)
{
  if (len != 0)
    (void) INTERNAL_SYSCALL_CALL (readahead, fd,
				  __ALIGNMENT_ARG SYSCALL_LL64 (offset), len);
}

/* Whether glibc's _dl_map_segments zeroes the end of the last file
   page of PT_LOAD header PH (a zero fill that starts inside a page):
   its memset is then the first touch of the byte at *OFFSET.  */
static bool
hp_zero_fill_byte (const ElfW(Phdr) *ph, uint64_t *offset)
{
  if (ph->p_type != PT_LOAD || ph->p_memsz <= ph->p_filesz
      || ph->p_filesz == 0
      || HP_ALIGN_REM (ph->p_offset + ph->p_filesz, GLRO(dl_pagesize)) == 0)
    return false;
  *offset = ph->p_offset + ph->p_filesz - 1;
  return true;
}

void
_dl_hugepage_readahead (int fd, const ElfW(Phdr) *phdr, size_t phnum)
{
  /* An object without a segment of 2 MiB has no huge page zone to be
     quick for (where `libs *' selects every object, most are such),
     and the calls would be work for each of its starts.  */
  bool big = false;
  for (size_t i = 0; i < phnum; ++i)
    big |= phdr[i].p_type == PT_LOAD && phdr[i].p_memsz >= HP_HUGEPAGE_SIZE;
  if (!big)
    return;
  for (size_t i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_GNU_RELRO)
      hp_readahead (fd, phdr[i].p_offset, phdr[i].p_filesz);
  uint64_t off;
  for (size_t i = 0; i < phnum; ++i)
    if (hp_zero_fill_byte (&phdr[i], &off))
      hp_readahead (fd, off, 1);
  hp_readahead (fd, 0, HP_HUGEPAGE_SIZE);
}

void
_dl_hugepage_read_zero_fill_pages (int fd, const ElfW(Phdr) *phdr,
				   size_t phnum)
{
  uint64_t off;
  char c;
  for (size_t i = 0; i < phnum; ++i)
    if (hp_zero_fill_byte (&phdr[i], &off))
      (void) __pread64_nocancel (fd, &c, 1, off);
}

long int
_dl_hugepage_read_fd (void *fd, void *buf, size_t len, uint64_t offset)
{
  return _dl_hugepage_pread_full (*(int *) fd, buf, len, offset);
}

/* ld.so has no strerror.  The errors these system calls give, one
   table: X (E, MORE) for the error E, named by its macro's name and
   MORE, what it means here if that needs saying.  Any other is
   "error".  */
#define HP_ERRNO_TABLE(X)						\
  X (ENOMEM, ", huge page pool empty or too small")			\
  X (EINVAL, ", not supported here")					\
  X (ENOSYS, "")							\
  X (EPERM, "")								\
  X (EACCES, "")							\
  X (EFAULT, "")							\
  X (EIO, "")								\
  X (EAGAIN, "")							\
  X (EBUSY, "")								\
  X (EEXIST, ", something else is mapped there")			\
  X (ENOSPC, "")

const char *
_dl_hugepage_errno_name (int err)
{
  switch (err)
    {
#define HP_ERRNO_CASE(e, more) case e: return #e more;
      HP_ERRNO_TABLE (HP_ERRNO_CASE)
#undef HP_ERRNO_CASE
    default:
      return "error";
    }
}

/* Whether the soft limit on the line of /proc/self/limits that starts
   with NAME is set (not "unlimited").  */
static bool
hp_limit_set (const char *name)
{
  char buf[4096];
  ssize_t n = _dl_hugepage_read_file ("/proc/self/limits", buf,
				      sizeof buf - 1);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  size_t len = strlen (name);
  for (char *p = buf; p != NULL; p = strchr (p, '\n'))
    {
      if (*p == '\n')
	++p;
      if (strncmp (p, name, len) != 0)
	continue;
      p += len;
      while (*p == ' ')
	++p;
      return *p >= '0' && *p <= '9';
    }
  return false;
}

/* An ENOMEM from mmap is the pool's, or a limit's: the kernel checks
   the process's address-space limit (RLIMIT_AS: every mapping counts)
   and its data limit (RLIMIT_DATA: private writable mappings) before
   it asks the pool.  Mapping the same size of ordinary memory that
   reserves nothing (MAP_NORESERVE) tells which: if that fails too,
   the limit does.  */
const char *
_dl_hugepage_enomem_why (size_t len, bool data)
{
  void *p = __mmap (NULL, len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    {
      if (errno != ENOMEM)
	return NULL;
      return (hp_limit_set ("Max address space")
	      ? "ENOMEM, over RLIMIT_AS, the process's address-space limit "
		"(ulimit -v)"
	      : "ENOMEM, no room in the address space (vm.max_map_count "
		"mappings?)");
    }
  __munmap (p, len);
  if (!data)
    return NULL;
  p = __mmap (NULL, len, PROT_READ | PROT_WRITE,
	      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return (errno == ENOMEM && hp_limit_set ("Max data size")
	    ? "ENOMEM, over RLIMIT_DATA, the process's data limit "
	      "(ulimit -d)"
	    : NULL);
  __munmap (p, len);
  return NULL;
}

/* A refusal by a security policy looks like the file's own modes
   refusing (EACCES, or EPERM from systemd's RestrictFileSystems=): the
   modes are asked again with faccessat.  Landlock and the path-based
   security modules (AppArmor, TOMOYO, a BPF program on the file_open
   hook) decide at open and mmap, not there, so a file the modes let
   this process read and whose open failed with one of these was
   refused by such a policy.  SELinux also answers faccessat: its
   refusals are reported with the error alone.  */
bool
_dl_hugepage_denied (int err, int dirfd, const char *name)
{
  if (err != EACCES && err != EPERM)
    return false;
  if (name == NULL)
    return true;
  int r = INTERNAL_SYSCALL_CALL (faccessat, dirfd, name, R_OK);
  return !INTERNAL_SYSCALL_ERROR_P (r);
}

ssize_t
_dl_hugepage_read_file (const char *name, void *buf, size_t size)
{
  int fd = __open64_nocancel (name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  /* To the end or SIZE bytes: a read of a /proc file returns at most
     a page.  */
  size_t n = 0;
  ssize_t r = 0;
  while (n < size
	 && (r = __read_nocancel (fd, (char *) buf + n, size - n)) > 0)
    n += r;
  int err = errno;
  __close_nocancel (fd);
  return n == 0 && r < 0 ? -err : (ssize_t) n;
}
