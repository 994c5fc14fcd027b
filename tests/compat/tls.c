/* hugeld test: the code of libcompattls.so.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   See tls.h.  The big block is written in assembly: .fill and .rept
   make 4 MiB of initialised TLS cheaply, and the layout is the
   struct's.  */

#include <stddef.h>
#include "tls.h"

_Static_assert (offsetof (struct compat_tls_blob, mid)
		== COMPAT_TLS_MID_OFFSET, "layout");
_Static_assert (sizeof (struct compat_tls_blob)
		== 16 + 2 * COMPAT_TLS_PAD + 4 * COMPAT_TLS_MID + 16, "size");

#define TLS_STR2(x) #x
#define TLS_STR(x) TLS_STR2 (x)

asm (".pushsection .tdata, \"awT\", @progbits\n"
     ".balign 64\n"
     ".globl compat_tls_blob\n"
     ".type compat_tls_blob, @object\n"
     "compat_tls_blob:\n"
     ".long 11, 12, 13, 14\n"
     ".fill " TLS_STR (COMPAT_TLS_PAD) ", 1, 0x11\n"
     ".set compat_tls_i, 0\n"
     ".rept " TLS_STR (COMPAT_TLS_MID) "\n"
     ".long 1000 + compat_tls_i\n"
     ".set compat_tls_i, compat_tls_i + 1\n"
     ".endr\n"
     ".fill " TLS_STR (COMPAT_TLS_PAD) ", 1, 0x22\n"
     ".long 21, 22, 23, 24\n"
     ".size compat_tls_blob, . - compat_tls_blob\n"
     ".popsection\n");

extern __thread struct compat_tls_blob compat_tls_blob;

/* Initialised and zero-initialised (.tbss) TLS.  */
__thread int compat_tls_small = 42;
__thread long compat_tls_zero[512];

int
compat_tls_check_initial (void)
{
  struct compat_tls_blob *b = &compat_tls_blob;
  for (int i = 0; i < 4; ++i)
    {
      if (b->head[i] != 11 + i)
	return 1;
      if (b->tail[i] != 21 + i)
	return 2;
    }
  for (int i = 0; i < COMPAT_TLS_MID; ++i)
    if (b->mid[i] != 1000 + i)
      return 3;
  for (size_t i = 0; i < COMPAT_TLS_PAD; ++i)
    if (b->pad1[i] != 0x11 || b->pad2[i] != 0x22)
      return 4;
  if (compat_tls_small != 42)
    return 5;
  for (int i = 0; i < 512; ++i)
    if (compat_tls_zero[i] != 0)
      return 6;
  return 0;
}

void
compat_tls_set (int v)
{
  compat_tls_blob.head[0] = v;
  compat_tls_blob.mid[COMPAT_TLS_MID / 2] = v;
  compat_tls_blob.tail[3] = v;
  compat_tls_small = v;
  compat_tls_zero[7] = v;
}

int
compat_tls_get_sum (void)
{
  return (compat_tls_blob.head[0] + compat_tls_blob.mid[COMPAT_TLS_MID / 2]
	  + compat_tls_blob.tail[3] + compat_tls_small
	  + (int) compat_tls_zero[7]);
}

struct compat_tls_blob *
compat_tls_blob_addr (void)
{
  return &compat_tls_blob;
}
