/* hugeld: read the policy file, /etc/hugeld.conf, in ld.so.
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

/* The file gives every process the settings that no LD_HUGEPAGE_*
   variable gives it (dl-hugepage-conf.h describes it).  This file only
   reads it and decides whether to trust it; the parsing is pure code
   in dl-hugepage-conf.c.

   Trust: the file is used only if it is a regular file owned by root
   and writable by nobody else, so that it says what the administrator
   wrote.  It then applies to set-user-ID and other AT_SECURE programs
   too (the variables never do): like /etc/ld.so.preload and
   /etc/ld.so.cache it is the system's configuration, not the caller's,
   and it can only move an object between page sizes.

   Cost: one open (O_PATH) that fails with ENOENT where there is no
   file; else that open, fstat, an open through /proc/self/fd, read and
   two closes, and, only if the file has `program' blocks, a readlink
   of the program's name (and getcwd if the name is relative).  The
   file is parsed in memory without any allocation beyond its own
   bytes and the joined pattern list: each line's first word, and only
   the lines that apply to the program in full (the global ones, the
   program lines up to the block that applies, that block's).  */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <_itoa.h>
#include <ldsodefs.h>
#include <not-cancel.h>
#include <sysdep.h>
#include "dl-hugepage-int.h"

/* What the file said, kept for the reports of dl-hugepage.c.  */
struct hp_policy _dl_hugepage_policy_file;

/* Open the policy file for reading without ever opening anything but
   the regular file that is checked: -1 if there is none to use
   (reported under LD_DEBUG=hugepages), else the descriptor, with its
   size in *SIZE.

   Where the name is a regular file (no symbolic link), only who may
   write its directory can change what it names, and that is root's
   /etc (whoever writes it writes /etc/ld.so.preload, which every
   program runs): it is opened at once, without following a link that
   may have been put there since, and not waiting for a FIFO.

   Symbolic links are followed: only root can put one at HP_CONF_FILE,
   but it may lead into a directory another user controls, who can
   swap what it leads to at any moment.  So that path is resolved once,
   with O_PATH: that opens nothing (a FIFO would block the open, and
   every program with it; a device may act on being opened).  The
   checks are made on that descriptor, and the file is then opened for
   reading through /proc/self/fd, which names the inode just checked,
   never what the path leads to by then (an open through /proc costs a
   new process about 20 us: only links pay it).  Without /proc such a
   file is not read at all.  */
static int
hp_policy_open (off64_t *size)
{
  const char *why = NULL;
  int err = 0;
  bool denied = false;
  int fd = -1;
  struct __stat64_t64 st;
  int pfd = -1;
  int r = __fstatat64_time64 (AT_FDCWD, HP_CONF_FILE, &st,
			      AT_SYMLINK_NOFOLLOW);
  if (r != 0 && errno == ENOENT)
    {
      /* No file: the one system call of most starts.  */
      err = ENOENT;
      goto report;
    }
  if (r == 0 && S_ISREG (st.st_mode))
    {
      fd = __open64_nocancel (HP_CONF_FILE, O_RDONLY | O_NONBLOCK | O_NOCTTY
			      | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0 && __fstat64_time64 (fd, &st) == 0)
	{
	  why = _dl_hugepage_conf_distrust (S_ISREG (st.st_mode), st.st_uid,
					    st.st_mode, st.st_size);
	  *size = st.st_size;
	  if (why != NULL)
	    {
	      __close_nocancel (fd);
	      fd = -1;
	    }
	  goto report;
	}
      /* Swapped for a link or gone meanwhile: as a link is read.  */
      if (fd >= 0)
	__close_nocancel (fd);
      fd = -1;
    }
  pfd = __open64_nocancel (HP_CONF_FILE, O_PATH | O_CLOEXEC);
  if (pfd < 0)
    {
      err = errno;
      why = err == ENOENT ? NULL : "open failed";
      denied = _dl_hugepage_denied (err, AT_FDCWD, HP_CONF_FILE);
    }
  else if (__fstat64_time64 (pfd, &st) != 0)
    {
      err = errno;
      why = "fstat failed";
    }
  else
    why = _dl_hugepage_conf_distrust (S_ISREG (st.st_mode), st.st_uid,
				      st.st_mode, st.st_size);
  if (pfd >= 0 && why == NULL)
    {
      /* "/proc/self/fd/" and the descriptor's digits.  */
      char digits[12];
      char name[32] = "/proc/self/fd/";
      digits[sizeof digits - 1] = '\0';
      __stpcpy (name + strlen (name),
		_itoa (pfd, &digits[sizeof digits - 1], 10, 0));
      fd = __open64_nocancel (name, O_RDONLY | O_NONBLOCK | O_NOCTTY
			      | O_CLOEXEC);
      if (fd < 0)
	{
	  err = errno;
	  denied = _dl_hugepage_denied (err, AT_FDCWD, name);
	  why = (denied ? "cannot be opened again through /proc/self/fd"
		 : "cannot be opened again through /proc/self/fd "
		   "(is /proc mounted?)");
	}
      *size = st.st_size;
    }
  if (pfd >= 0)
    __close_nocancel (pfd);
 report:
  if (hp_debug ())
    {
      if (pfd < 0 && err == ENOENT)
	_dl_debug_printf ("hugepages: %s: none\n", HP_CONF_FILE);
      else if (why != NULL && err != 0)
	_dl_debug_printf ("hugepages: %s ignored: %s: %s%s\n", HP_CONF_FILE,
			  why, _dl_hugepage_errno_name (err),
			  denied ? HP_DENIED : "");
      else if (why != NULL)
	_dl_debug_printf ("hugepages: %s ignored: %s\n", HP_CONF_FILE, why);
    }
  return fd;
}

/* Read the policy file into a buffer of ld.so's: its size, 0 if there
   is nothing to use (reported under LD_DEBUG=hugepages).  */
static size_t
hp_policy_read (char **bufp)
{
  off64_t size;
  int fd = hp_policy_open (&size);
  if (fd < 0 || size == 0)
    {
      if (fd >= 0)
	__close_nocancel (fd);
      return 0;
    }
  const char *why = NULL;
  /* A file replaced by rename(2) keeps its bytes for this open; one
     rewritten in place may not, and then it has to parse like any
     other.  */
  char *buf = malloc (size);
  ssize_t n = 0;
  if (buf == NULL)
    why = "out of memory";
  else
    {
      n = __pread64_nocancel (fd, buf, size, 0);
      if (n < 0)
	why = "read failed";
      else if (n != size)
	why = "shorter than its size (changed while it was read)";
    }
  __close_nocancel (fd);
  if (why != NULL)
    {
      if (hp_debug ())
	_dl_debug_printf ("hugepages: %s ignored: %s\n", HP_CONF_FILE, why);
      free (buf);
      return 0;
    }
  *bufp = buf;
  return n;
}

/* The real path of the program the kernel executed, from
   /proc/self/exe, into BUF: BUF, or NULL without /proc.  */
static const char *
hp_policy_exe (void *ctx, char *buf, size_t size)
{
  ssize_t len = __readlink ("/proc/self/exe", buf, size - 1);
  if (len <= 0 || buf[0] != '/')
    return NULL;
  buf[len] = '\0';
  return buf;
}

static long int
hp_policy_readlink (void *ctx, const char *path, char *buf, size_t size)
{
  return __readlink (path, buf, size);
}

static long int
hp_policy_getcwd (void *ctx, char *buf, size_t size)
{
  return INTERNAL_SYSCALL_CALL (getcwd, buf, size);
}

/* The room first offered for the program's names: four buffers of
   this size fit in what is left of ld.so's last data page (its
   minimal malloc), where most names do; longer ones get hugeld's
   buffers, which take pages of their own.  */
#define HP_POLICY_NAME_ROOM 128

/* The name the kernel executed (AT_EXECFN), or NULL.  */
static const char *
hp_policy_execfn (void)
{
  for (ElfW(auxv_t) *av = GLRO(dl_auxv);
       av != NULL && av->a_type != AT_NULL; ++av)
    if (av->a_type == AT_EXECFN)
      return (const char *) av->a_un.a_val;
  return NULL;
}

/* AT_EXECFN's string, copied by _dl_hugepage_policy_defer: the program
   may have written over the original (a process title) by the time
   the file is read.  */
static const char *hp_policy_deferred_name;

bool
_dl_hugepage_policy_defer (void)
{
  /* A set-user-ID program's name is /proc/self/exe, which it may no
     longer read once it has changed its credentials; a relative name
     is resolved against the working directory, which it may have
     changed.  Both are looked up now.  */
  const char *name = hp_policy_execfn ();
  if (__libc_enable_secure || name == NULL || name[0] != '/')
    return false;
  size_t len = strlen (name) + 1;
  char *copy = malloc (len);
  if (copy == NULL)
    return false;
  hp_policy_deferred_name = memcpy (copy, name, len);
  return true;
}

/* The names a `program' line is matched against
   (_dl_hugepage_program_names) into NAMES, for the program ld.so was
   asked to run (PROGRAM), or else the one the kernel executed
   (AT_EXECFN, as _dl_hugepage_policy_defer kept it): how many.  A few readlink calls, only for processes of
   a file with blocks.  Without memory for them (said with
   LD_DEBUG=hugepages), none, and no block applies: the file's global
   lines do.  */
static size_t
hp_policy_program_names (const char *program, const char *names[3])
{
  const char *name = program;
  if (name == NULL)
    name = (hp_policy_deferred_name != NULL ? hp_policy_deferred_name
	    : hp_policy_execfn ());
  static const struct hp_names_io io =
    { hp_policy_readlink, hp_policy_getcwd, hp_policy_exe, NULL };
  char *small = malloc (4 * HP_POLICY_NAME_ROOM);
  size_t n = (small == NULL ? (size_t) -1
	      : _dl_hugepage_program_names (name, program == NULL,
					    __libc_enable_secure, &io, names,
					    small, HP_POLICY_NAME_ROOM));
  if (n != (size_t) -1)
    return n;
  struct hp_buffers *b = _dl_hugepage_buffers ();
  if (b != NULL)
    return _dl_hugepage_program_names (name, program == NULL,
				       __libc_enable_secure, &io, names,
				       b->policy_paths, HP_PATH_MAX);
  if (hp_debug ())
    _dl_debug_printf ("hugepages: %s: no memory for the program's "
		      "names: no program block applies: %s (errno %d)\n",
		      HP_CONF_FILE, _dl_hugepage_errno_name (errno), errno);
  return 0;
}

/* The program's names for the file's blocks, kept for the report (in
   hugeld's buffers).  */
static const char *hp_policy_names[3];
static size_t hp_policy_nnames;
static bool hp_policy_has_programs;

/* Whether the LEN bytes at BUF hold the word `program' anywhere (a
   comment, a path too: then the names are looked up for nothing).  */
static bool
hp_mentions_program (const char *buf, size_t len)
{
  static const char word[] = "program";
  for (const char *p = buf, *end = buf + len;
       (p = memchr (p, 'p', end - p)) != NULL; ++p)
    if ((size_t) (end - p) >= sizeof word - 1
	&& memcmp (p, word, sizeof word - 1) == 0)
      return true;
  return false;
}

bool
_dl_hugepage_policy_load (const char *program, struct hp_sources *s)
{
  struct hp_policy *pf = &_dl_hugepage_policy_file;
  char *buf = NULL;
  size_t len = hp_policy_read (&buf);
  if (len == 0)
    return false;

  /* Only what applies to the program is read and checked, as it is
     resolved (_dl_hugepage_conf_resolve): a bad line in another
     program's block costs this one nothing.  The program's names are
     needed only for blocks: looked up where the file has the word.  */
  hp_policy_has_programs = hp_mentions_program (buf, len);
  if (hp_policy_has_programs)
    hp_policy_nnames = hp_policy_program_names (program, hp_policy_names);
  /* The spans first: they are aligned.  Where each selected pattern
     came from is for LD_DEBUG=hugepages's report only: without it, no
     room is taken for them (the resolver records none).  */
  size_t nspans = hp_debug () ? HP_CONF_MAX_SPANS (len) : 0;
  struct hp_conf_span *spans = malloc (nspans * sizeof *spans + len + 2);
  if (spans == NULL)
    {
      free (buf);
      return false;
    }
  char *libs = (char *) (spans + nspans);
  if (nspans == 0)
    spans = NULL;
  pf->buf = buf;
  pf->len = len;
  pf->libs = libs;
  pf->spans = spans;
  s->conf = buf;
  s->conf_len = len;
  s->names = hp_policy_names;
  s->nnames = hp_policy_nnames;
  s->conf_libs = libs;
  s->conf_spans = spans;
  if (hp_debug ())
    {
      struct hp_conf_summary sum;
      _dl_hugepage_conf_outline (buf, len, &sum);
      _dl_debug_printf ("hugepages: %s: %u rules\n", HP_CONF_FILE,
			sum.rules);
    }
  return true;
}

void
_dl_hugepage_policy_ignored (unsigned int line, const char *why)
{
  /* Nothing of the file applies: not its cache either.  */
  _dl_hugepage_policy_file.cache_declared = false;
  if (hp_debug ())
    _dl_debug_printf ("hugepages: %s ignored: line %u: %s\n", HP_CONF_FILE,
		      line, why);
}

void
_dl_hugepage_policy_report (unsigned int block, bool cache, size_t nspans)
{
  _dl_hugepage_policy_file.block_line = block;
  _dl_hugepage_policy_file.nspans = nspans;
  _dl_hugepage_policy_file.cache_declared = cache;
  if (!hp_debug ())
    return;
  if (block != 0)
    _dl_debug_printf ("hugepages: %s: the program block at line %u "
		      "applies to %s\n", HP_CONF_FILE, block,
		      hp_policy_names[hp_policy_nnames - 1]);
  else if (hp_policy_has_programs)
    _dl_debug_printf ("hugepages: %s: no program block applies to "
		      "%s\n", HP_CONF_FILE,
		      hp_policy_nnames > 0
		      ? hp_policy_names[hp_policy_nnames - 1] : "<unknown>");
}

/* Where the policy file declares a shared cache, the pool is reserved
   for it (pool auto sizes it so), and the boot unit fills the cache
   after PID 1 and the early services have started.  A private copy
   holds its pages for the life of its process: taken before the cache
   is filled, it keeps them from the cache (a pool that then cannot
   hold an entry fails the boot unit) and leaves that process with its
   own copy of an object the cache serves to everyone else.  So until
   `hugeld cache sync' has left HP_CACHE_SYNCED, no private copy is
   made; the object stays on ordinary pages (or thp, if listed), as
   without hugeld.  One stat while the cache is not synced yet, none
   after, and none without `cache' lines.  */
bool
_dl_hugepage_private_allowed (const char **what)
{
  static bool synced;
  if (!_dl_hugepage_policy_file.cache_declared || synced)
    return true;
  struct __stat64_t64 st;
  if (__stat64_time64 (HP_CACHE_DIR "/" HP_CACHE_SYNCED, &st) == 0
      && st.st_uid == 0)
    {
      synced = true;
      return true;
    }
  *what = "not used until the shared cache is filled (" HP_CONF_FILE
	  " declares one, and hugeld cache sync has not run since boot)";
  return false;
}

unsigned int
_dl_hugepage_policy_libs_line (const char *pat)
{
  const struct hp_policy *pf = &_dl_hugepage_policy_file;
  if (pf->libs == NULL || pat < pf->libs
      || pat >= pf->libs + strlen (pf->libs))
    return 0;
  return _dl_hugepage_conf_span_line (pf->spans, pf->nspans,
				      pat - pf->libs);
}

const char *
_dl_hugepage_policy_from (unsigned int line, char *buf, size_t size)
{
  if (line == 0)
    return "";
  char digits[12];
  char *d = _itoa (line, &digits[sizeof digits], 10, 0);
  size_t nd = &digits[sizeof digits] - d;
  static const char pre[] = " (" HP_CONF_FILE " line ";
  size_t pos = sizeof pre - 1;
  if (pos + nd + 2 > size)
    return "";
  memcpy (buf, pre, pos);
  memcpy (buf + pos, d, nd);
  pos += nd;
  buf[pos++] = ')';
  buf[pos] = '\0';
  return buf;
}
