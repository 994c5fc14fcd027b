/* hugeld test: interface of libcompattls.so, a big library with TLS.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   The library's initialised TLS (.tdata) is one block, compat_tls_blob,
   of more than 4 MiB: its middle (MID) is on a whole 2 MiB page of the
   TLS initialisation image whatever the load address, so it is on a
   huge page when the loader puts the image's segment (RELRO) there.
   Every thread's copy of the block is initialised from that image.
   There is also a small initialised int and some zero-initialised TLS
   (.tbss).  Its functions are between two 3 MiB filler blocks.  */

#ifndef COMPAT_TLS_H
#define COMPAT_TLS_H 1

#define COMPAT_TLS_PAD 0x201000
#define COMPAT_TLS_MID 1024

/* The initial values: head[i] = 11 + i, pad1 all 0x11, mid[i] = 1000 + i,
   pad2 all 0x22, tail[i] = 21 + i.  */
struct compat_tls_blob
{
  int head[4];
  unsigned char pad1[COMPAT_TLS_PAD];
  int mid[COMPAT_TLS_MID];
  unsigned char pad2[COMPAT_TLS_PAD];
  int tail[4];
};

/* The offset of mid in the TLS block and so in the image (the block
   is the first thing in .tdata).  */
#define COMPAT_TLS_MID_OFFSET (16 + COMPAT_TLS_PAD)

/* 0 if the calling thread's TLS has its initial values, otherwise a
   number that says what was wrong (see tls.c).  */
int compat_tls_check_initial (void);

/* Write V into five places of the calling thread's TLS (the block's
   head, middle and tail, the small int and the zero array).  */
void compat_tls_set (int v);

/* The sum of those five places.  */
int compat_tls_get_sum (void);

/* The address of the calling thread's block.  */
struct compat_tls_blob *compat_tls_blob_addr (void);

#endif /* tls.h */
