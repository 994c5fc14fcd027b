/* Test library for t-cache: value () returns VALUE from the middle of
   6 MiB of code, so that it lies on a whole 2 MiB page of text, and
   builds with different VALUEs have the same size and layout.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef VALUE
# define VALUE 1
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

__asm__ (".text\n"
	 ".globl value\n"
	 ".type value, @function\n"
	 ".p2align 4\n"
	 "value_pad_before:\n"
	 "  .fill 3145728, 1, 0x90\n"
	 "value:\n"
	 "  movl $" STR (VALUE) ", %eax\n"
	 "  ret\n"
	 ".size value, . - value\n"
	 "  .fill 3145728, 1, 0xcc\n");

/* And 4 MiB of read-only data.  */
const char value_rodata[4 << 20] __attribute__ ((aligned (64))) = { 1 };
