/* hugeld test: the code of libcompatcxx.so.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Linked between the two filler blocks of fill.c; see cxx.h.  */

#include "cxx.h"

namespace
{
int cleanups;

struct counter
{
  ~counter () { ++cleanups; }
};
}

// Not inlined, so that every level is a frame of its own to unwind.
__attribute__ ((noinline)) void
compat_cxx_throw (int depth)
{
  counter c;
  if (depth <= 0)
    throw compat_cxx_error ("thrown from huge pages", 0);
  try
    {
      compat_cxx_throw (depth - 1);
    }
  catch (compat_cxx_error &e)
    {
      ++e.depth;
      throw;
    }
}

__attribute__ ((noinline)) void
compat_cxx_call (int depth, void (*cb) (int))
{
  counter c;
  if (depth <= 0)
    cb (depth);
  else
    compat_cxx_call (depth - 1, cb);
}

int
compat_cxx_catch_inside (int depth)
{
  try
    {
      compat_cxx_throw (depth);
    }
  catch (const compat_cxx_error &e)
    {
      return e.depth + 1000;
    }
  return -1;
}

int
compat_cxx_cleanups ()
{
  int n = cleanups;
  cleanups = 0;
  return n;
}
