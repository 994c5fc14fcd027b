/* hugeld's helpers: opening the files they read.
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

/* root runs the helpers on paths that other users may control: a
   `cache' line's glob, the source recorded in a cache entry, a
   library in a user's directory.  A plain open (2) of such a path
   blocks for ever on a FIFO with no writer (or on a terminal line
   waiting for carrier), and opening some devices acts (a watchdog
   starts, a tape rewinds).  So the type is looked at on an O_PATH
   descriptor, which opens nothing, and only a regular file is then
   opened, O_NONBLOCK and O_NOCTTY all the same, and checked again on
   the descriptor read from.  With strict links (the cache's files and
   the policy file) the path is walked a component at a time and a
   symbolic link that neither root nor the caller owns is not
   followed: another user's link must not choose what root caches.
   tools/hugeld/openfile.py is the same rule for the command, which
   needs the descriptor, the real path and its directories; a change
   to one is a change to both: tests/unit/test_hugeld_openrule.py runs
   both on one table of cases (through hugeld-plan) and requires the
   same answers.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugeld-open.h"

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
#define PATH_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
/* The kernel's own limit (MAXSYMLINKS).  */
#define MAX_LINKS 40

static void
say (char *why, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (why, HUGELD_OPEN_WHY_MAX, fmt, ap);
  va_end (ap);
}

/* What a file of MODE is, for "not a regular file (...)".  */
static const char *
file_kind (mode_t mode)
{
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISLNK (mode))
    return "a symbolic link";
  return "of an unknown type";
}

/* Open for reading the regular file with stat *PST: through PFD, its
   O_PATH descriptor, by /proc/self/fd, else (no /proc) as NAME in
   DIRFD with EXTRA flags; checked to be that file.  */
static int
reopen (int pfd, int dirfd, const char *name, int extra,
	const struct stat *pst, struct stat *st, char *why)
{
  char proc[64];
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", pfd);
  int fd = open (proc, READ_FLAGS);
  if (fd < 0 && errno == ENOENT)
    fd = openat (dirfd, name, READ_FLAGS | extra);
  if (fd < 0)
    {
      say (why, "%s", strerror (errno));
      return -1;
    }
  if (fstat (fd, st) != 0)
    {
      say (why, "%s", strerror (errno));
      close (fd);
      return -1;
    }
  if (!S_ISREG (st->st_mode))
    {
      say (why, "not a regular file (%s)", file_kind (st->st_mode));
      close (fd);
      return -1;
    }
  if (st->st_dev != pst->st_dev || st->st_ino != pst->st_ino)
    {
      say (why, "it changed while it was opened; try again");
      close (fd);
      return -1;
    }
  return fd;
}

/* Following every link, as open (2) does.  */
static int
open_loose (const char *file, struct stat *st, char *why)
{
  int pfd = open (file, O_PATH | O_CLOEXEC);
  struct stat pst;
  if (pfd < 0 || fstat (pfd, &pst) != 0)
    {
      say (why, "%s", strerror (errno));
      if (pfd >= 0)
	close (pfd);
      return -1;
    }
  int fd = -1;
  if (!S_ISREG (pst.st_mode))
    say (why, "not a regular file (%s)", file_kind (pst.st_mode));
  else
    fd = reopen (pfd, AT_FDCWD, file, 0, &pst, st, why);
  close (pfd);
  return fd;
}

/* A component at a time, following only root's links and the
   caller's.  CUR is the directory reached so far, for messages.  */
static int
open_strict (const char *file, struct stat *st, char *why)
{
  uid_t me = geteuid ();
  int dirfd = open (file[0] == '/' ? "/" : ".", DIR_FLAGS);
  char *rest = strdup (file);
  char *cur = malloc (PATH_MAX);
  int links = 0, fd = -1;
  if (dirfd < 0 || rest == NULL || cur == NULL)
    {
      say (why, "%s", strerror (errno));
      goto out;
    }
  if (file[0] == '/' || getcwd (cur, PATH_MAX) == NULL)
    cur[0] = '\0';
  if (strcmp (cur, "/") == 0)
    cur[0] = '\0';

  const char *p = rest;
  while (true)
    {
      while (*p == '/')
	++p;
      if (*p == '\0')
	{
	  /* "/", or a path that ends with a slash.  */
	  say (why, "not a regular file (a directory)");
	  goto out;
	}
      const char *q = strchrnul (p, '/');
      char name[NAME_MAX + 1];
      if ((size_t) (q - p) > NAME_MAX)
	{
	  say (why, "%s", strerror (ENAMETOOLONG));
	  goto out;
	}
      memcpy (name, p, q - p);
      name[q - p] = '\0';
      bool last = *q == '\0';
      p = q;
      if (strcmp (name, ".") == 0 && !last)
	continue;
      if (strcmp (name, "..") == 0 && !last)
	{
	  /* Never a link: the kernel goes up from the directory
	     reached, as the path would.  */
	  int up = openat (dirfd, "..", DIR_FLAGS);
	  if (up < 0)
	    {
	      say (why, "%s", strerror (errno));
	      goto out;
	    }
	  close (dirfd);
	  dirfd = up;
	  char *slash = strrchr (cur, '/');
	  if (slash != NULL)
	    *slash = '\0';
	  continue;
	}

      int pfd = openat (dirfd, name, PATH_FLAGS);
      struct stat pst;
      if (pfd < 0 || fstat (pfd, &pst) != 0)
	{
	  say (why, "%s", strerror (errno));
	  if (pfd >= 0)
	    close (pfd);
	  goto out;
	}
      if (S_ISLNK (pst.st_mode))
	{
	  if (pst.st_uid != 0 && pst.st_uid != me)
	    {
	      struct passwd *pw = getpwuid (pst.st_uid);
	      say (why, "not followed: the symbolic link %s/%s is owned by "
		   "%s (uid %u), not by root%s", cur, name,
		   pw != NULL ? pw->pw_name : "nobody known",
		   (unsigned int) pst.st_uid, me != 0 ? " or you" : "");
	      close (pfd);
	      goto out;
	    }
	  char *target = malloc (PATH_MAX + 1);
	  ssize_t n = -1;
	  if (++links > MAX_LINKS)
	    errno = ELOOP;
	  else if (target != NULL)
	    n = readlinkat (pfd, "", target, PATH_MAX);
	  close (pfd);
	  if (n <= 0)
	    {
	      say (why, "%s", strerror (n == 0 ? ENOENT : errno));
	      free (target);
	      goto out;
	    }
	  target[n] = '\0';
	  /* What is left: the link's target, then the rest of the path
	     after the link.  */
	  char *next;
	  if (asprintf (&next, "%s%s", target, p) < 0)
	    {
	      say (why, "%s", strerror (ENOMEM));
	      free (target);
	      goto out;
	    }
	  if (target[0] == '/')
	    {
	      int root = open ("/", DIR_FLAGS);
	      if (root < 0)
		{
		  say (why, "%s", strerror (errno));
		  free (target);
		  free (next);
		  goto out;
		}
	      close (dirfd);
	      dirfd = root;
	      cur[0] = '\0';
	    }
	  free (target);
	  free (rest);
	  rest = next;
	  p = rest;
	  continue;
	}
      if (!last)
	{
	  if (!S_ISDIR (pst.st_mode))
	    {
	      say (why, "%s", strerror (ENOTDIR));
	      close (pfd);
	      goto out;
	    }
	  close (dirfd);
	  dirfd = pfd;
	  size_t len = strlen (cur);
	  snprintf (cur + len, PATH_MAX - len, "/%s", name);
	  continue;
	}
      if (!S_ISREG (pst.st_mode))
	say (why, "not a regular file (%s)", file_kind (pst.st_mode));
      else
	fd = reopen (pfd, dirfd, name, O_NOFOLLOW, &pst, st, why);
      close (pfd);
      goto out;
    }

 out:
  if (dirfd >= 0)
    close (dirfd);
  free (rest);
  free (cur);
  return fd;
}

int
hugeld_open_regular (const char *file, bool strict_links, struct stat *st,
		     char why[HUGELD_OPEN_WHY_MAX])
{
  why[0] = '\0';
  if (file[0] == '\0')
    {
      say (why, "%s", strerror (ENOENT));
      return -1;
    }
  return strict_links ? open_strict (file, st, why)
		      : open_loose (file, st, why);
}

/* Another process's view of the file system: its root directory, which
   holds its mount namespace and its chroot.  */

int
hugeld_open_root (int pid, bool *same, char why[HUGELD_OPEN_WHY_MAX])
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/root", pid);
  int fd = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat rst, ost;
  if (fd < 0 || fstat (fd, &rst) != 0 || stat ("/", &ost) != 0)
    {
      say (why, "%s: %s", path, strerror (errno));
      if (fd >= 0)
	close (fd);
      return -1;
    }
  /* The same root directory in another mount namespace can have other
     files mounted over ours.  */
  char ns[64], ours[64];
  snprintf (path, sizeof path, "/proc/%d/ns/mnt", pid);
  ssize_t l = readlink (path, ns, sizeof ns - 1);
  ssize_t m = readlink ("/proc/self/ns/mnt", ours, sizeof ours - 1);
  *same = (rst.st_dev == ost.st_dev && rst.st_ino == ost.st_ino
	   && l > 0 && l == m && memcmp (ns, ours, l) == 0);
  return fd;
}

/* openat2 (2) of PATH (absolute, as the process names it) under ROOT
   with FLAGS: every link resolved inside ROOT as if it were "/" (an
   absolute one too), no magic link of /proc followed.  Linux 5.6 and
   later.  */
static int
open_in_root (int root, const char *path, int flags)
{
  struct open_how how = { .flags = flags,
			  .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
  while (*path == '/')
    ++path;
  return syscall (SYS_openat2, root, *path != '\0' ? path : ".", &how,
		  sizeof how);
}

int
hugeld_open_in_root (int root, const char *file, struct stat *st,
		     char why[HUGELD_OPEN_WHY_MAX])
{
  why[0] = '\0';
  int pfd = open_in_root (root, file, O_PATH | O_CLOEXEC);
  struct stat pst;
  if (pfd < 0 || fstat (pfd, &pst) != 0)
    {
      int err = errno;
      say (why, "%s", err == ENOSYS ? "cannot be opened inside the "
	   "process's root (no openat2: Linux before 5.6)" : strerror (err));
      if (pfd >= 0)
	close (pfd);
      errno = err;
      return -1;
    }
  int fd = -1;
  if (!S_ISREG (pst.st_mode))
    {
      say (why, "not a regular file (%s)", file_kind (pst.st_mode));
      errno = EINVAL;
    }
  else
    {
      /* Only through the descriptor: /proc/self/fd is there, since
	 the root came from /proc.  */
      char proc[64];
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", pfd);
      fd = reopen (pfd, -1, proc, 0, &pst, st, why);
    }
  close (pfd);
  return fd;
}

ssize_t
hugeld_readlink_in_root (int root, const char *path, char *buf, size_t size)
{
  int fd = open_in_root (root, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = readlinkat (fd, "", buf, size);
  int err = errno;
  close (fd);
  errno = err;
  return n;
}

unsigned int
hugeld_uid_in (int pid, unsigned int uid)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/uid_map", pid);
  FILE *f = fopen (path, "re");
  /* The kernel's overflowuid: what a process sees of an owner its user
     namespace does not map.  */
  unsigned int shown = 65534;
  unsigned long int inside, outside, count;
  while (f != NULL && fscanf (f, "%lu %lu %lu", &inside, &outside, &count)
	 == 3)
    if (uid >= outside && uid - outside < count)
      {
	shown = inside + (uid - outside);
	break;
      }
  if (f != NULL)
    fclose (f);
  return shown;
}
