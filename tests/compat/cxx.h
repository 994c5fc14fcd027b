/* hugeld test: interface of libcompatcxx.so, a big C++ library.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef COMPAT_CXX_H
#define COMPAT_CXX_H 1

#include <stdexcept>

/* Thrown by compat_cxx_throw.  */
struct compat_cxx_error : std::runtime_error
{
  int depth;
  compat_cxx_error (const char *what, int d)
    : std::runtime_error (what), depth (d) {}
};

/* Recurse DEPTH frames deep inside the library, each frame with an
   object whose destructor counts, then throw compat_cxx_error.  */
void compat_cxx_throw (int depth);

/* Recurse DEPTH frames deep and call CB (DEPTH) from the innermost:
   an exception that CB throws unwinds through the library's frames.  */
void compat_cxx_call (int depth, void (*cb) (int));

/* Throw and catch inside the library; returns what was caught, as
   the depth of the error plus 1000.  */
int compat_cxx_catch_inside (int depth);

/* The number of destructors run since the last call.  */
int compat_cxx_cleanups (void);

#endif /* cxx.h */
