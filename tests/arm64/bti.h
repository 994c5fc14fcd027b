/* hugeld check-arm64: the BTI test's code (tests/arm64/bti.c, btilib.c).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   BTI_CODE(P) emits, in the object's text, two functions after 3 MiB
   of filler (udf #0, never run), so that they lie on the whole 2 MiB
   pages hugeld puts on huge pages: P_lp, whose first instruction is the
   landing pad "bti c", and P_nolp, whose first is a nop; and the same
   two again, P_tail_lp and P_tail_nolp, 2.25 MiB further, in the last
   partial 2 MiB of the text (about 5.4 MiB in all), which hugeld puts
   on 64 KiB pages where the object is placed at its file phase.  Compiled with -mbranch-protection=standard, the object carries
   GNU_PROPERTY_AARCH64_FEATURE_1_BTI, and where the processor has BTI
   glibc maps its code with PROT_BTI: an indirect call of P_nolp is then
   a branch target exception (SIGILL), one of P_lp returns 7.  */

#define BTI_STR(x) #x
#define BTI_FN(name, first, ret) \
	   ".globl " name "\n" \
	   ".type " name ",%function\n" \
	   name ":\n" \
	   "\t" first "\n\tmov w0, #" ret "\n\tret\n" \
	   ".size " name ",.-" name "\n"
#define BTI_CODE(p) \
  __asm__ (".pushsection .text.bti_code,\"ax\",%progbits\n" \
	   ".balign 65536\n" \
	   ".fill 0x300000,1,0\n" \
	   BTI_FN (BTI_STR (p) "_nolp", "nop", "42") \
	   BTI_FN (BTI_STR (p) "_lp", "bti c", "7") \
	   ".fill 0x240000,1,0\n" \
	   BTI_FN (BTI_STR (p) "_tail_nolp", "nop", "42") \
	   BTI_FN (BTI_STR (p) "_tail_lp", "bti c", "7") \
	   ".fill 0x20000,1,0\n" \
	   ".popsection\n")
