/* hugeld test: a block of filler text (and optionally rodata).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Compiled twice per library, with -DFILL_NAME=compat_fill_lo and
   -DFILL_NAME=compat_fill_hi, and linked as "fill-lo.o code.o
   fill-hi.o": the link editor keeps the input order inside .text (and
   .rodata), so the library's real code sits between two blocks of
   FILL_SIZE (3 MiB) bytes.  Every byte at least 2 MiB away from both
   ends of a text segment is on a whole 2 MiB page of it, whatever the
   load address, so the real code is on huge pages whenever the
   loader puts the library's text there.

   With -DFILL_RODATA there is the same block of read-only data around
   the code's .rodata, named FILL_NAME_ro.  */

#ifndef FILL_NAME
# error "define FILL_NAME"
#endif
#ifndef FILL_SIZE
# define FILL_SIZE 0x300000
#endif

#define FILL_STR2(x) #x
#define FILL_STR(x) FILL_STR2 (x)

/* 0xc3 is `ret': a call into the filler returns at once.  */
asm (".pushsection .text, \"ax\", @progbits\n"
     ".globl " FILL_STR (FILL_NAME) "\n"
     ".type " FILL_STR (FILL_NAME) ", @function\n"
     ".balign 4096\n"
     FILL_STR (FILL_NAME) ":\n"
     ".fill " FILL_STR (FILL_SIZE) ", 1, 0xc3\n"
     ".size " FILL_STR (FILL_NAME) ", " FILL_STR (FILL_SIZE) "\n"
     ".popsection\n");

#ifdef FILL_RODATA
asm (".pushsection .rodata, \"a\", @progbits\n"
     ".globl " FILL_STR (FILL_NAME) "_ro\n"
     ".type " FILL_STR (FILL_NAME) "_ro, @object\n"
     ".balign 4096\n"
     FILL_STR (FILL_NAME) "_ro:\n"
     ".fill " FILL_STR (FILL_SIZE) ", 1, 0x5a\n"
     ".size " FILL_STR (FILL_NAME) "_ro, " FILL_STR (FILL_SIZE) "\n"
     ".popsection\n");
#endif
