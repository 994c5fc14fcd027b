/* hugeld's helpers: opening the files they read.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef HUGELD_OPEN_H
#define HUGELD_OPEN_H 1

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Room for a message of hugeld_open_regular.  */
#define HUGELD_OPEN_WHY_MAX 8400

/* Open FILE for reading as root's tools must (hugeld-open.c): only a
   regular file, and nothing that could block or act on being opened
   (a FIFO, a device) is ever opened: the type is checked on a
   descriptor opened with O_PATH, and the file then opened with
   O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC and checked again with
   fstat.  With STRICT_LINKS, FILE is walked one component at a time
   and a symbolic link is followed only if root (or the caller) owns
   it.  Returns the descriptor, with its stat in *ST; or -1 with why
   (one line, without FILE) in WHY.  */
int hugeld_open_regular (const char *file, bool strict_links,
			 struct stat *st, char why[HUGELD_OPEN_WHY_MAX]);

/* Process PID's root directory (/proc/PID/root: its mount namespace
   and chroot), opened O_PATH, with *SAME set if it is ours (the same
   directory in the same mount namespace); or -1 with why.  */
int hugeld_open_root (int pid, bool *same, char why[HUGELD_OPEN_WHY_MAX]);

/* FILE, an absolute path as the process whose root is ROOT names it,
   opened for reading as hugeld_open_regular opens it (a regular file
   only, nothing that blocks), resolved inside ROOT: every symbolic
   link, an absolute one too, stays inside it (openat2 RESOLVE_IN_ROOT,
   and no magic link of /proc is followed), so that a tenant's link
   names a file of the tenant's own tree, never one of ours.  */
int hugeld_open_in_root (int root, const char *file, struct stat *st,
			 char why[HUGELD_OPEN_WHY_MAX]);

/* readlink (2) of PATH inside ROOT, as above.  */
ssize_t hugeld_readlink_in_root (int root, const char *path, char *buf,
				 size_t size);

/* The owner UID (as we see it) as process PID sees it: through its
   user namespace's uid_map, the kernel's overflow uid (65534) where it
   maps none.  ld.so's trust rules look at the owner it sees.  */
unsigned int hugeld_uid_in (int pid, unsigned int uid);

#endif /* hugeld-open.h */
