/* hugeld check-arm64: the BTI test's code (tests/arm64/bti.c, btilib.c).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   BTI_CODE(P) emits, in the object's text, two functions between two
   3 MiB runs of filler (udf #0, never run), so that they lie on the
   whole 2 MiB pages hugeld puts on huge pages: P_lp, whose first
   instruction is the landing pad "bti c", and P_nolp, whose first is a
   nop.  Compiled with -mbranch-protection=standard, the object carries
   GNU_PROPERTY_AARCH64_FEATURE_1_BTI, and where the processor has BTI
   glibc maps its code with PROT_BTI: an indirect call of P_nolp is then
   a branch target exception (SIGILL), one of P_lp returns 7.  */

#define BTI_STR(x) #x
#define BTI_CODE(p) \
  __asm__ (".pushsection .text.bti_code,\"ax\",%progbits\n" \
	   ".balign 65536\n" \
	   ".fill 0x300000,1,0\n" \
	   ".globl " BTI_STR (p) "_nolp\n" \
	   ".type " BTI_STR (p) "_nolp,%function\n" \
	   BTI_STR (p) "_nolp:\n" \
	   "\tnop\n\tmov w0, #42\n\tret\n" \
	   ".size " BTI_STR (p) "_nolp,.-" BTI_STR (p) "_nolp\n" \
	   ".globl " BTI_STR (p) "_lp\n" \
	   ".type " BTI_STR (p) "_lp,%function\n" \
	   BTI_STR (p) "_lp:\n" \
	   "\tbti c\n\tmov w0, #7\n\tret\n" \
	   ".size " BTI_STR (p) "_lp,.-" BTI_STR (p) "_lp\n" \
	   ".fill 0x300000,1,0\n" \
	   ".popsection\n")
