/* hugeld: run the fuzz target without libFuzzer: every file named on
   the command line (the seed corpus and saved crashers), then
   HUGELD_FUZZ_RUNS random inputs (default 200000).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
extern long fuzz_plans_with_zones, fuzz_confs_selecting, fuzz_resolved,
  fuzz_resolved_from[5];

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static uint64_t
next (void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

int
main (int argc, char **argv)
{
  static uint8_t buf[1 << 16];
  int files = 0;
  for (int i = 1; i < argc; ++i)
    {
      FILE *f = fopen (argv[i], "rb");
      if (f == NULL)
	{
	  perror (argv[i]);
	  return 1;
	}
      size_t n = fread (buf, 1, sizeof buf, f);
      fclose (f);
      LLVMFuzzerTestOneInput (buf, n);
      ++files;
    }
  const char *e = getenv ("HUGELD_FUZZ_RUNS");
  long runs = e != NULL ? atol (e) : 200000;
  for (long r = 0; r < runs; ++r)
    {
      size_t n = next () % 700;
      for (size_t i = 0; i < n; ++i)
	buf[i] = next ();
      /* Mostly plausible headers: three times out of four, plan mode
	 with nudged headers.  */
      if (n > 0 && (next () & 3) != 0)
	buf[0] = (buf[0] & 0x7f) | 0x10;
      LLVMFuzzerTestOneInput (buf, n);
    }
  printf ("fuzz: %d corpus files and %ld random inputs (%ld plans with "
	  "huge page zones, %ld policy files that select, %ld settings "
	  "resolved: %ld variables, %ld GLIBC_TUNABLES, %ld tunables.conf, "
	  "%ld policy file), no invariant broken\n", files, runs,
	  fuzz_plans_with_zones, fuzz_confs_selecting, fuzz_resolved,
	  fuzz_resolved_from[1], fuzz_resolved_from[2], fuzz_resolved_from[3],
	  fuzz_resolved_from[4]);
  return 0;
}
