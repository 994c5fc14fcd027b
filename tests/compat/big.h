/* hugeld test: interface of libcompatbig.so and libcompatdl.so.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Both libraries are big.c between two 3 MiB blocks of filler text
   (fill.c), so all the functions below are in the middle of more than
   6 MiB of text: on 2 MiB pages when the library is selected.
   libcompatdl.so is the same code under another name, for dlopen,
   dlclose and dlmopen.  */

#ifndef COMPAT_BIG_H
#define COMPAT_BIG_H 1

#ifdef __cplusplus
extern "C" {
#endif

/* A + B + 1000.  */
int compat_big_add (int a, int b);

/* Increment this copy's counter (in .data, starts at 100) and return
   it: two copies of the library have two counters.  */
int compat_big_bump (void);

/* The functions a debugger stops in: compat_big_outer (N, CB) calls
   compat_big_inner (N + 1, CB), which calls CB (N + 1) if CB is not
   null and returns (N + 1) * 3 + CB's result.  */
int compat_big_inner (int n, int (*cb) (int));
int compat_big_outer (int n, int (*cb) (int));

/* An IFUNC: its resolver selects an implementation that returns
   X * 10 + 7 (the other one would return X + 1).  */
int compat_big_ifunc (int x);
/* Calls a hidden IFUNC (an R_X86_64_IRELATIVE relocation) with the
   same implementations: X * 10 + 7.  */
int compat_big_call_local_ifunc (int x);
/* How many times the resolvers ran in this copy.  */
int compat_big_resolver_calls (void);

#ifdef __cplusplus
}
#endif

#endif /* big.h */
