/* hugeld's helpers: opening the files they read.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef HUGELD_OPEN_H
#define HUGELD_OPEN_H 1

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

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

#endif /* hugeld-open.h */
