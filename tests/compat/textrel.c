/* hugeld test: the code of libcompattextrel.so, which has text
   relocations (DT_TEXTREL).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Linked with -z notext between two filler blocks of text and of
   rodata (fill.c with -DFILL_RODATA), so both tables below are in the
   middle of more than 6 MiB of read-only, non-writable segment: on
   2 MiB pages when the library is selected, and written by ld.so's
   relocation through a temporary mprotect.  Each table holds, in this
   order, absolute addresses that need these dynamic relocations:

     [0] compat_tr_var		R_X86_64_64 against a symbol
     [1] compat_tr_func		R_X86_64_64 against a function
     [2] compat_tr_var + 8	R_X86_64_64 with an addend
     [3] compat_tr_local	R_X86_64_RELATIVE (a local function)  */

int compat_tr_var[4] = { 42, 43, 44, 45 };

int
compat_tr_func (void)
{
  return 7;
}

static int __attribute__ ((used, noinline))
compat_tr_local (void)
{
  return 9;
}

#define COMPAT_TR_TABLE(name)						\
  ".balign 64\n"							\
  ".globl " name "\n"							\
  ".type " name ", @object\n"						\
  name ":\n"								\
  name "_here:\n"							\
  ".quad compat_tr_var\n"						\
  ".quad compat_tr_func\n"						\
  ".quad compat_tr_var + 8\n"						\
  ".quad compat_tr_local\n"						\
  ".size " name ", 32\n"

asm (".pushsection .text, \"ax\", @progbits\n"
     COMPAT_TR_TABLE ("compat_tr_text_table")
     ".popsection\n"
     ".pushsection .rodata, \"a\", @progbits\n"
     COMPAT_TR_TABLE ("compat_tr_ro_table")
     ".popsection\n");

/* The tables and the local function as this object's code addresses
   them (PC-relative, no relocation): the tables through their local
   labels, so that the global names stay exported.  */
extern const void *const text_table_here[4]
  __asm__ ("compat_tr_text_table_here")
  __attribute__ ((visibility ("hidden")));
extern const void *const ro_table_here[4]
  __asm__ ("compat_tr_ro_table_here")
  __attribute__ ((visibility ("hidden")));

const void *const *
compat_tr_text_table_addr (void)
{
  return text_table_here;
}

const void *const *
compat_tr_ro_table_addr (void)
{
  return ro_table_here;
}

const void *
compat_tr_local_addr (void)
{
  return (const void *) &compat_tr_local;
}
