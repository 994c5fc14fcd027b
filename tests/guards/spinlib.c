/* Test library for t-coredump and make check-boot: spin () loops for
   ever in the middle of 6 MiB of code, so that a process stopped or
   killed there has its innermost frame on a whole 2 MiB page of text
   (the shared cache's, or a private copy), as a process that crashes
   in a selected library has.  value () returns VALUE, as
   tests/cache/valuelib.c's does.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef VALUE
# define VALUE 1
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

/* Frame pointers and CFI as the compiler would give them, so that
   every unwinder (gdb, elfutils, systemd-coredump) finds main ()
   above spin ().  */
__asm__ (".text\n"
	 ".globl value\n"
	 ".type value, @function\n"
	 ".p2align 4\n"
	 "spin_pad_before:\n"
	 "  .fill 3145728, 1, 0x90\n"
	 "value:\n"
	 "  movl $" STR (VALUE) ", %eax\n"
	 "  ret\n"
	 ".size value, . - value\n"
	 ".globl spin\n"
	 ".type spin, @function\n"
	 ".p2align 4\n"
	 "spin:\n"
	 "  .cfi_startproc\n"
	 "  pushq %rbp\n"
	 "  .cfi_def_cfa_offset 16\n"
	 "  .cfi_offset %rbp, -16\n"
	 "  movq %rsp, %rbp\n"
	 "  .cfi_def_cfa_register %rbp\n"
	 "spin_loop:\n"
	 "  pause\n"
	 "  jmp spin_loop\n"
	 "  .cfi_endproc\n"
	 ".size spin, . - spin\n"
	 "  .fill 3145728, 1, 0xcc\n");

/* And 4 MiB of read-only data.  */
const char spin_rodata[4 << 20] __attribute__ ((aligned (64))) = { 1 };
