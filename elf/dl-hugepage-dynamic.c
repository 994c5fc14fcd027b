/* hugeld: what ld.so reads of a dynamic section before mapping.
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

/* What ld.so needs of an object's dynamic section before the object is
   mapped (text relocations, DT_SONAME), read through the caller's file
   reader from the program headers.  Pure code: ld.so reads with it
   before planning, hugeld-plan with the same function
   (dl-hugepage-plan.h).  */

#include "dl-hugepage-dynamic.h"

bool
_dl_hugepage_scan_dynamic (const ElfW(Dyn) *dyn, size_t n,
			   struct hp_dynamic *info)
{
  for (size_t i = 0; i < n; ++i)
    switch (dyn[i].d_tag)
      {
      case DT_NULL:
	return false;
      case DT_TEXTREL:
	info->textrel = true;
	break;
      case DT_FLAGS:
	if (dyn[i].d_un.d_val & DF_TEXTREL)
	  info->textrel = true;
	break;
      case DT_STRTAB:
	info->strtab = dyn[i].d_un.d_ptr;
	break;
      case DT_SONAME:
	info->soname = dyn[i].d_un.d_val;
	info->have_soname = true;
	break;
      }
  return true;
}

int64_t
_dl_hugepage_vaddr_to_offset (const ElfW(Phdr) *phdr, size_t phnum,
			      uint64_t vaddr)
{
  for (size_t i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_LOAD && vaddr >= phdr[i].p_vaddr
	&& vaddr - phdr[i].p_vaddr < phdr[i].p_filesz
	&& phdr[i].p_offset < HP_ADDR_LIMIT)
      return phdr[i].p_offset + (vaddr - phdr[i].p_vaddr);
  return -1;
}

bool
_dl_hugepage_read_dynamic (const ElfW(Phdr) *phdr, size_t phnum,
			   hp_read_fn *reader, void *ctx, bool *textrel,
			   char soname[HP_SONAME_MAX])
{
  *textrel = false;
  if (soname != NULL)
    soname[0] = '\0';
  const ElfW(Phdr) *dyn = NULL;
  for (size_t i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_DYNAMIC)
      dyn = &phdr[i];
  if (dyn == NULL)
    return false;

  /* In chunks, up to DT_NULL, the end of the section or the end of
     the file.  */
  ElfW(Dyn) buf[64];
  size_t total = dyn->p_filesz / sizeof (ElfW(Dyn));
  if (total > HP_MAX_DYN)
    total = HP_MAX_DYN;
  struct hp_dynamic info = { 0 };
  for (size_t done = 0; done < total; )
    {
      size_t want = total - done;
      if (want > sizeof buf / sizeof buf[0])
	want = sizeof buf / sizeof buf[0];
      long int n = reader (ctx, buf, want * sizeof (ElfW(Dyn)),
			   dyn->p_offset + done * sizeof (ElfW(Dyn)));
      if (n < (long int) sizeof (ElfW(Dyn)))
	break;
      size_t got = n / sizeof (ElfW(Dyn));
      if (!_dl_hugepage_scan_dynamic (buf, got, &info) || got < want)
	break;
      done += got;
    }
  *textrel = info.textrel;
  if (soname == NULL || !info.have_soname || info.strtab == 0)
    return true;

  int64_t off = _dl_hugepage_vaddr_to_offset (phdr, phnum,
					      info.strtab + info.soname);
  if (off < 0)
    return true;
  long int n = reader (ctx, soname, HP_SONAME_MAX - 1, off);
  if (n <= 0)
    n = 0;
  soname[n] = '\0';
  /* A name as long as the buffer was probably cut: ignore it.  */
  size_t len = 0;
  while (soname[len] != '\0')
    ++len;
  if (len == HP_SONAME_MAX - 1)
    soname[0] = '\0';
  return true;
}
