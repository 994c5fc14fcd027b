/* hugeld check-arm64: _start of bti-main, the BTI test's program whose
   own code is on huge pages.  Debian 12's crt1.o, crti.o and crtn.o
   have no BTI property note (its glibc is built without BTI), and one
   input without it leaves the program unmarked: bti-main is linked
   with -nostartfiles and this start code, which calls
   __libc_start_main as glibc's sysdeps/aarch64/start.S does (no init
   or fini: glibc 2.34 and later run the program's init arrays from
   ld.so).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

	.section .note.gnu.property, "a"
	.p2align 3
	.word 4			/* n_namesz */
	.word 16		/* n_descsz */
	.word 5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz "GNU"
	.word 0xc0000000	/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.word 4
	.word 3			/* BTI | PAC */
	.word 0

	.text
	.globl _start
	.type _start, %function
_start:
	bti	c
	mov	x29, #0
	mov	x30, #0
	mov	x5, x0			/* rtld_fini */
	ldr	x1, [sp]		/* argc */
	add	x2, sp, #8		/* argv */
	mov	x6, sp			/* stack_end */
	adrp	x0, main
	add	x0, x0, :lo12:main
	mov	x3, #0			/* init */
	mov	x4, #0			/* fini */
	bl	__libc_start_main
	brk	#0
	.size _start, . - _start

	.section .note.GNU-stack, "", %progbits
