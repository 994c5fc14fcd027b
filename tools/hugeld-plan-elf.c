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

static bool
read_at (int fd, void *buf, size_t len, off_t off)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t n = pread (fd, (char *) buf + done, len - done, off + done);
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	return false;
      done += n;
    }
  return true;
}

/* What ld.so reads of the dynamic section before mapping: text
   relocations and DT_SONAME, with the loader's own helpers (as
   hp_read_dynamic does).  */
static void
read_dynamic (int fd, struct object *o)
{
  const ElfW(Phdr) *dyn = NULL;
  for (size_t i = 0; i < o->phnum; ++i)
    if (o->phdr[i].p_type == PT_DYNAMIC)
      dyn = &o->phdr[i];
  if (dyn == NULL)
    return;
  o->dynamic = true;

  size_t total = dyn->p_filesz / sizeof (ElfW(Dyn));
  if (total > MAX_DYN)
    total = MAX_DYN;
  struct hp_dynamic info = { 0 };
  for (size_t i = 0; i < total; ++i)
    {
      ElfW(Dyn) d;
      if (!read_at (fd, &d, sizeof d, dyn->p_offset + i * sizeof d)
	  || !_dl_hugepage_scan_dynamic (&d, 1, &info))
	break;
    }
  o->textrel = info.textrel;
  if (!info.have_soname || info.strtab == 0)
    return;
  int64_t off = _dl_hugepage_vaddr_to_offset (o->phdr, o->phnum,
					      info.strtab + info.soname);
  if (off < 0)
    return;
  ssize_t n = pread (fd, o->soname, sizeof o->soname - 1, off);
  if (n < 0)
    n = 0;
  o->soname[n] = '\0';
  /* Cut at the limit: ld.so ignores such a name.  */
  if (strlen (o->soname) == sizeof o->soname - 1)
    o->soname[0] = '\0';
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

void
read_object (const char *file, struct object *o)
{
  memset (o, 0, sizeof *o);
  o->file = file;
  o->path = file;
  struct stat st;
  int fd = open_object (file, &st);

  ElfW(Ehdr) eh;
  unsigned char ident[EI_NIDENT];
  if (!read_at (fd, ident, sizeof ident, 0)
      || memcmp (ident, ELFMAG, SELFMAG) != 0)
    die ("%s: not an ELF file", file);
  if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
    die ("%s: not a 64-bit little-endian ELF file", file);
  if (!read_at (fd, &eh, sizeof eh, 0))
    die ("%s: truncated ELF header", file);
  if (eh.e_machine != EM_X86_64)
    die ("%s: ELF machine %u, not x86-64", file, eh.e_machine);
  if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC)
    die ("%s: not an executable or shared object (e_type %u)", file,
	 eh.e_type);
  if (eh.e_phentsize != sizeof (ElfW(Phdr)) || eh.e_phnum == 0
      || eh.e_phnum > MAX_PHNUM)
    die ("%s: unusable program headers (%u of size %u)", file,
	 eh.e_phnum, eh.e_phentsize);
  o->type = eh.e_type;
  o->phnum = eh.e_phnum;
  if (!read_at (fd, o->phdr, o->phnum * sizeof (ElfW(Phdr)), eh.e_phoff))
    die ("%s: truncated program headers", file);
  for (size_t i = 0; i < o->phnum; ++i)
    if (o->phdr[i].p_type == PT_INTERP)
      {
	size_t len = o->phdr[i].p_filesz;
	if (len >= sizeof o->interp)
	  len = sizeof o->interp - 1;
	if (!read_at (fd, o->interp, len, o->phdr[i].p_offset))
	  len = 0;
	o->interp[len] = '\0';
      }
  read_dynamic (fd, o);
  close (fd);
}

/* --- JSON output -------------------------------------------------------- */
