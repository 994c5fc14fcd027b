/* hugeld: what ld.so's hugeld files do differently on each machine.
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

/* Internal to ld.so, included by dl-hugepage.c and dl-hugepage-map.c
   after dl-hugepage-int.h.  Two things differ between x86-64 and
   AArch64:

   1. Branch protection.  glibc maps the code of an AArch64 object
      whose GNU property note has GNU_PROPERTY_AARCH64_FEATURE_1_BTI
      with PROT_BTI where the processor has BTI (sysdeps/aarch64/
      dl-bti.c, _dl_bti_protect): for an object it loads, by mapping
      its executable segments again from the file after hugeld put
      them on huge pages (which would undo them); for the program the
      kernel mapped, with mprotect before hugeld maps it.  Every
      executable mapping hugeld makes of such an object must have
      PROT_BTI too, or branch protection is silently off for that code
      (LS->exec_prot, which hp_map_prot adds).  For an object it loads,
      hugeld calls _dl_bti_protect itself before it moves any zone, and
      glibc's own call later does nothing for it
      (_dl_hugepage_bti_protected, called by the patched dl-bti.c).

   2. The instruction cache.  AArch64's is not coherent with stores:
      code written into a new mapping (the private copy, the thp
      backing's anonymous copy) must be cleaned to the point of
      unification and the instruction cache invalidated for it before
      it runs.  Linux happens to do it when it maps a page executable,
      but the architecture asks it of whoever writes the code.  */

#ifndef _DL_HUGEPAGE_ARCH_H
#define _DL_HUGEPAGE_ARCH_H 1

#ifdef __aarch64__
# include <dl-prop.h>

/* Whether the program headers PHDR[0..PHNUM) of the object with load
   bias L_ADDR (mapped) have a GNU property note with the BTI feature,
   read as glibc's _dl_process_pt_gnu_property reads it.  */
static inline bool
hp_arch_has_bti (const ElfW(Phdr) *phdr, size_t phnum, ElfW(Addr) l_addr)
{
  for (size_t i = 0; i < phnum; ++i)
    {
      const ElfW(Phdr) *ph = &phdr[i];
      if (ph->p_type != PT_GNU_PROPERTY || ph->p_align != 8)
	continue;
      const ElfW(Nhdr) *note = (const void *) (ph->p_vaddr + l_addr);
      ElfW(Addr) start = (ElfW(Addr)) note;
      while ((ElfW(Addr)) (note + 1) - start < ph->p_memsz)
	{
	  if (note->n_namesz == 4 && note->n_type == NT_GNU_PROPERTY_TYPE_0
	      && memcmp (note + 1, "GNU", 4) == 0)
	    {
	      if (note->n_descsz < 8 || note->n_descsz % 8 != 0)
		break;
	      const unsigned char *p = (const unsigned char *) (note + 1) + 4;
	      const unsigned char *end = p + note->n_descsz;
	      unsigned int last = 0;
	      while (end - p >= 8)
		{
		  unsigned int type = *(const unsigned int *) p;
		  unsigned int datasz = *(const unsigned int *) (p + 4);
		  p += 8;
		  if (type < last || p + datasz > end)
		    break;
		  last = type;
		  if (type == GNU_PROPERTY_AARCH64_FEATURE_1_AND)
		    {
		      if (datasz == 4
			  && (*(const unsigned int *) p
			      & GNU_PROPERTY_AARCH64_FEATURE_1_BTI) != 0)
			return true;
		      break;
		    }
		  p += ALIGN_UP (datasz, 8);
		}
	      break;
	    }
	  note = ((const void *) note
		  + ELF_NOTE_NEXT_OFFSET (note->n_namesz, note->n_descsz, 8));
	}
    }
  return false;
}

/* The object hugeld protected with _dl_bti_protect itself (the one
   being loaded), whose second call glibc skips; defined in
   dl-hugepage.c.  */
extern struct link_map *_dl_hugepage_bti_map attribute_hidden;

/* Before LS's plan is applied to L (open as FD, or -1 for the program
   the kernel mapped): set LS->exec_prot to PROT_BTI where glibc gives
   L's code PROT_BTI, and for an object ld.so maps, give its executable
   segments PROT_BTI now, with glibc's own _dl_bti_protect, as glibc
   would after the move.  */
static inline void
hp_arch_before_apply (struct hp_load_state *ls, struct link_map *l, int fd)
{
  ls->exec_prot = 0;
  if (!GLRO(dl_aarch64_cpu_features).bti
      || !hp_arch_has_bti (ls->phdr, ls->phnum, l->l_addr))
    return;
  ls->exec_prot = PROT_BTI;
  if (fd == -1)
    /* The kernel mapped it: glibc has given it PROT_BTI already, with
       mprotect (rtld_setup_main_map).  */
    return;
  /* _dl_bti_protect walks L->l_phdr, which _dl_map_object_from_fd only
     relocates (or copies, where no segment holds the headers) after
     _dl_hugepage_apply: give it hugeld's copy of the same headers for
     the call.  */
  const ElfW(Phdr) *phdr = l->l_phdr;
  l->l_phdr = ls->phdr;
  _dl_bti_protect (l, fd);
  l->l_phdr = phdr;
  _dl_hugepage_bti_map = l;
}

/* Make the instruction cache coherent with the LEN bytes written at
   ADDR (ordinary or huge pages, still mapped for reading): clean the
   data cache to the point of unification, invalidate the instruction
   cache, as the architecture requires before they run (CTR_EL0 says
   which steps this processor needs, and the line sizes).  */
static inline void
hp_arch_sync_icache (void *addr, size_t len)
{
  uint64_t ctr;
  __asm__ volatile ("mrs %0, ctr_el0" : "=r" (ctr));
  uintptr_t start = (uintptr_t) addr, end = start + len;
  if ((ctr & (1UL << 28)) == 0)	/* IDC clear: clean to PoU.  */
    {
      uintptr_t line = 4UL << ((ctr >> 16) & 0xf);
      for (uintptr_t p = start & -line; p < end; p += line)
	__asm__ volatile ("dc cvau, %0" : : "r" (p) : "memory");
    }
  __asm__ volatile ("dsb ish" : : : "memory");
  if ((ctr & (1UL << 29)) == 0)	/* DIC clear: invalidate.  */
    {
      uintptr_t line = 4UL << (ctr & 0xf);
      for (uintptr_t p = start & -line; p < end; p += line)
	__asm__ volatile ("ic ivau, %0" : : "r" (p) : "memory");
      __asm__ volatile ("dsb ish" : : : "memory");
    }
  __asm__ volatile ("isb" : : : "memory");
}

/* 3. More than one huge page size.  With 4 KiB pages (HP_CONT_BASE),
   Linux offers hugetlb pages of 64 KiB, sixteen contiguous PTEs that
   take one TLB entry, with a pool of their own: the ends of the text
   that no 2 MiB page covers go on them (dl-hugepage-cont.c).  */
# define HP_ARCH_CONT_SIZE HP_CONT_SIZE
# define HP_ARCH_CONT_SHIFT 16		/* MAP_HUGE_64KB.  */
# define HP_ARCH_CONT_NAME "64 KiB"

/* _dl_hugepage_apply_plan's account of the text it left on ordinary
   pages: none yet, then zone Z (the whole zone, or what follows the
   pages the pool had room for), as no backing put it on huge pages
   (the thp backing's advice counts as putting it there).  */
void _dl_hugepage_cont_reset (void) attribute_hidden;
void _dl_hugepage_cont_left (const struct hp_zone *z) attribute_hidden;

/* After LS's 2 MiB plan BIG was applied to L (open as FD; VERIFY as for
   _dl_hugepage_apply_plan): put the rest of its text on 64 KiB pages
   where they fit: the ends no 2 MiB page covers, and the 2 MiB zones
   the 2 MiB pool had no room for.  NULL, or the error that must fail
   the load.  */
const char *_dl_hugepage_cont_apply (struct hp_load_state *ls,
				     const struct hp_plan *big,
				     struct link_map *l, int fd, bool verify)
  attribute_hidden;

#else /* !__aarch64__ */

/* x86-64: no property changes how code is mapped (CET's IBT needs no
   protection bit), and the instruction cache is coherent.  */
static inline void
hp_arch_before_apply (struct hp_load_state *ls, struct link_map *l, int fd)
{
  ls->exec_prot = 0;
}

static inline void
hp_arch_sync_icache (void *addr, size_t len)
{
}

/* One huge page size.  */
static inline void
_dl_hugepage_cont_reset (void)
{
}

static inline void
_dl_hugepage_cont_left (const struct hp_zone *z)
{
}

static inline const char *
_dl_hugepage_cont_apply (struct hp_load_state *ls, const struct hp_plan *big,
			 struct link_map *l, int fd, bool verify)
{
  return NULL;
}

#endif

#endif /* dl-hugepage-arch.h */
