/* hugeld: a module with more than 6 MiB of text for tst-hugepage-dlopen.
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

/* 6 MiB of `ret' instructions between two functions: whatever the load
   address, at least two whole 2 MiB pages of text.  */
asm (".text\n"
     ".globl hugepage_mod_fill\n"
     ".type hugepage_mod_fill, @function\n"
     ".balign 4096\n"
     "hugepage_mod_fill:\n"
     ".fill 0x600000, 1, 0xc3\n"
     ".size hugepage_mod_fill, 0x600000\n");

int
hugepage_mod_fn (int x)
{
  return x + 42;
}
