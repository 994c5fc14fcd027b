/* hugeld test: C++ exceptions through code on huge pages.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: compat-cxx [-H]

   Linked against libcompatcxx.so: exceptions thrown in it and caught
   here, thrown here and unwound through it, and thrown and caught
   inside it (the unwinder finds the frames with _dl_find_object).
   stdout: what was caught and how many destructors ran; stderr: page
   sizes (2 MiB with -H).  Exit status as in compat.h.  */

#include <cstring>
#include "compat.h"
#include "cxx.h"

static void
throw_int (int depth)
{
  throw depth + 42;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && std::strcmp (argv[1], "-H") == 0)
    compat_want_huge = true;
  setvbuf (stdout, NULL, _IOLBF, 0);

  compat_check_huge ("libcompatcxx.so code (compat_cxx_throw)",
		     (const void *) &compat_cxx_throw);
  compat_check_huge ("libcompatcxx.so code (compat_cxx_call)",
		     (const void *) &compat_cxx_call);

  // Thrown in the library, through 6 of its frames, caught here.
  try
    {
      compat_cxx_throw (5);
      compat_bad ("compat_cxx_throw returned");
    }
  catch (const std::runtime_error &e)
    {
      const compat_cxx_error *ce = dynamic_cast<const compat_cxx_error *> (&e);
      int n = compat_cxx_cleanups ();
      std::printf ("caught from the library: \"%s\", rethrown %d times, "
		   "%d destructors ran\n", e.what (), ce ? ce->depth : -1, n);
      if (ce == NULL || ce->depth != 5 || n != 6)
	compat_bad ("exception from the library");
    }

  // Thrown here, unwound through 4 frames of the library.
  try
    {
      compat_cxx_call (3, throw_int);
      compat_bad ("compat_cxx_call returned");
    }
  catch (int v)
    {
      int n = compat_cxx_cleanups ();
      std::printf ("caught through the library: %d, %d destructors ran\n",
		   v, n);
      if (v != 42 || n != 4)
	compat_bad ("exception through the library");
    }

  // Thrown and caught inside the library.
  int r = compat_cxx_catch_inside (2);
  int n = compat_cxx_cleanups ();
  std::printf ("caught inside the library: %d, %d destructors ran\n", r, n);
  if (r != 1002 || n != 3)
    compat_bad ("exception inside the library");

  return compat_exit_status ();
}
