/* hugeld test: a module with 6 MiB of text, some RELRO, data and bss,
   whose program headers tests/badelf/mangle.py damages.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

asm (".text\n.balign 4096\n.globl badelf_fill\nbadelf_fill:\n"
     ".fill 0x600000, 1, 0xc3\n");

static int counter;
int *const badelf_ptr = &counter;
int badelf_data[300000] = { 1, 2, 3 };
char badelf_bss[3 << 20];

int
badelf_fn (int x)
{
  return x + *badelf_ptr + badelf_data[1] + badelf_bss[1000];
}
