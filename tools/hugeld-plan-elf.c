/* hugeld-plan: reading an ELF object as ld.so does.
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

#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The machine the helper is built for: the objects it plans are run by
   the loader of the same machine.  */
#if defined __x86_64__
# define HP_ELF_MACHINE EM_X86_64
# define HP_ELF_MACHINE_NAME "x86-64"
#elif defined __aarch64__
# define HP_ELF_MACHINE EM_AARCH64
# define HP_ELF_MACHINE_NAME "aarch64"
#else
# error "hugeld is built for x86-64 and aarch64"
#endif

#include "dl-hugepage-plan.h"
#include "hugeld-open.h"
#include "hugeld-plan.h"

void
die (const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "%s: ", progname);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (1);
}

/* A reader for the loader's pure readers (hp_read_fn).  */
long int
read_fd (void *fd, void *buf, size_t len, uint64_t offset)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t n = pread (*(int *) fd, (char *) buf + done, len - done,
			 offset + done);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	return -1;
      if (n == 0)
	break;
      done += n;
    }
  return done;
}

static bool
read_at (int fd, void *buf, size_t len, off_t off)
{
  return read_fd (&fd, buf, len, off) == (long int) len;
}

bool strict_links;

int
open_object (const char *file, struct stat *st)
{
  char why[HUGELD_OPEN_WHY_MAX];
  int fd = hugeld_open_regular (file, strict_links, st, why);
  if (fd < 0)
    die ("%s: %s", file, why);
  return fd;
}

const char *
object_from_fd (int fd, const char *file, uint64_t file_size,
		struct object *o)
{
  memset (o, 0, sizeof *o);
  o->file = file;
  o->path = file;
  o->file_size = file_size;

  ElfW(Ehdr) eh;
  unsigned char ident[EI_NIDENT];
  if (!read_at (fd, ident, sizeof ident, 0)
      || memcmp (ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF file";
  if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
    return "not a 64-bit little-endian ELF file";
  if (!read_at (fd, &eh, sizeof eh, 0))
    return "truncated ELF header";
  static char why[80];
  if (eh.e_machine != HP_ELF_MACHINE)
    {
      snprintf (why, sizeof why, "ELF machine %u, not " HP_ELF_MACHINE_NAME,
		eh.e_machine);
      return why;
    }
  if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC)
    {
      snprintf (why, sizeof why,
		"not an executable or shared object (e_type %u)", eh.e_type);
      return why;
    }
  if (eh.e_phentsize != sizeof (ElfW(Phdr)) || eh.e_phnum == 0)
    {
      snprintf (why, sizeof why, "unusable program headers (%u of size %u)",
		eh.e_phnum, eh.e_phentsize);
      return why;
    }
  o->type = eh.e_type;
  o->phnum = eh.e_phnum;
  /* ld.so plans no object with more headers than it keeps: neither
     do we (the planner says why).  */
  o->nphdr = o->phnum <= HP_MAX_PHNUM ? o->phnum : 0;
  if (!read_at (fd, o->phdr, o->nphdr * sizeof (ElfW(Phdr)), eh.e_phoff))
    return "truncated program headers";
  for (size_t i = 0; i < o->nphdr; ++i)
    if (o->phdr[i].p_type == PT_INTERP)
      {
	size_t len = o->phdr[i].p_filesz;
	if (len >= sizeof o->interp)
	  len = sizeof o->interp - 1;
	if (!read_at (fd, o->interp, len, o->phdr[i].p_offset))
	  len = 0;
	o->interp[len] = '\0';
      }
  o->dynamic = _dl_hugepage_read_dynamic (o->phdr, o->nphdr, read_fd, &fd,
					  &o->textrel, o->soname);
  return NULL;
}

void
read_object (const char *file, struct object *o)
{
  struct stat st;
  int fd = open_object (file, &st);
  const char *why = object_from_fd (fd, file, st.st_size, o);
  if (why != NULL)
    die ("%s: %s", file, why);
  close (fd);
}
