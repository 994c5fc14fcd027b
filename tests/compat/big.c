/* hugeld test: the code of libcompatbig.so and libcompatdl.so.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Linked between the two filler blocks of fill.c; see big.h.  */

#include "big.h"

/* In .data: each copy of the library has its own.  */
int compat_big_counter = 100;

int
compat_big_add (int a, int b)
{
  return a + b + 1000;
}

int
compat_big_bump (void)
{
  return ++compat_big_counter;
}

int
compat_big_inner (int n, int (*cb) (int))
{
  int r = n * 3;
  if (cb != 0)
    r += cb (n);
  return r;
}

int
compat_big_outer (int n, int (*cb) (int))
{
  return compat_big_inner (n + 1, cb);
}

/* The IFUNCs.  The resolvers run while the library is relocated (for
   the hidden one) or when the symbol is bound; they read .data, which
   is initialised by then.  */
static int resolver_calls;
static volatile int prefer_fast = 1;

static int
ifunc_plain (int x)
{
  return x + 1;
}

static int
ifunc_fast (int x)
{
  return x * 10 + 7;
}

static int (*compat_big_ifunc_resolver (void)) (int)
{
  ++resolver_calls;
  return prefer_fast ? ifunc_fast : ifunc_plain;
}

int compat_big_ifunc (int x)
  __attribute__ ((ifunc ("compat_big_ifunc_resolver")));

static int (*compat_big_local_resolver (void)) (int)
{
  ++resolver_calls;
  return prefer_fast ? ifunc_fast : ifunc_plain;
}

int compat_big_local_ifunc (int x)
  __attribute__ ((ifunc ("compat_big_local_resolver"),
		  visibility ("hidden")));

int
compat_big_call_local_ifunc (int x)
{
  return compat_big_local_ifunc (x);
}

int
compat_big_resolver_calls (void)
{
  return resolver_calls;
}
