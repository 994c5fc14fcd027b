/* Test program for t-cache: does at startup what V8 does with the
   builtins embedded in its text (CodeRange::RemapEmbeddedBuiltins with
   OS::RemapPages): finds the mapping that holds a page of its own code
   in /proc/self/maps, opens the path named there, checks that it is the
   same file (device and inode), and maps that page again, at its file
   offset, over a scratch area.  An mmap that fails there is fatal, as
   in V8 (which aborts with "unreachable code"); a file that does not
   open, or is another, is not (V8 then copies the code instead).
   Prints "remapped", "copied (WHY)" or dies with status 3.
   4 MiB of code and 4 MiB of read-only data, so that some of each is
   on a whole 2 MiB page.
   With -DHIDE_NAME the name /proc/self/maps is made at run time, so
   that no copy of it is in the file: `hugeld cache add' cannot tell
   that this program looks at its own mappings (t-selfmap's control).
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

__asm__ (".text\n"
	 ".globl blob\n"
	 ".type blob, @function\n"
	 ".p2align 12\n"
	 "blob_pad_before:\n"
	 "  .fill 2097152, 1, 0x90\n"
	 ".p2align 12\n"
	 "blob:\n"
	 "  movl $42, %eax\n"
	 "  ret\n"
	 ".size blob, . - blob\n"
	 "  .fill 2097152, 1, 0xcc\n");
extern int blob (void);

/* And 4 MiB of read-only data, which the cache serves.  */
const char selfmap_rodata[4 << 20] __attribute__ ((aligned (64))) = { 1 };

int
main (void)
{
  uintptr_t page = (uintptr_t) &blob & ~(uintptr_t) 4095;
#ifdef HIDE_NAME
  static const char backwards[] = "spam/fles/corp/";
  char maps[sizeof backwards];
  for (size_t i = 0; i + 1 < sizeof backwards; ++i)
    maps[i] = backwards[sizeof backwards - 2 - i];
  maps[sizeof backwards - 1] = '\0';
#else
  const char *maps = "/proc/self/maps";
#endif
  FILE *f = fopen (maps, "r");
  char line[4096];
  unsigned long lo = 0, hi = 0, off = 0, ino = 0;
  unsigned int maj = 0, min = 0;
  char path[4096] = "";
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      path[0] = '\0';
      if (sscanf (line, "%lx-%lx %*s %lx %x:%x %lu %4095[^\n]", &lo, &hi,
		  &off, &maj, &min, &ino, path) >= 6
	  && lo <= page && page + 4096 <= hi)
	break;
      lo = hi = 0;
    }
  if (f != NULL)
    fclose (f);
  char *p = path;
  while (*p == ' ')
    ++p;
  if (hi == 0 || *p == '\0')
    {
      puts ("copied (anonymous mapping)");
      return blob () == 42 ? 0 : 1;
    }
  int fd = open (p, O_RDONLY);
  if (fd < 0)
    {
      puts ("copied (the path does not open)");
      return blob () == 42 ? 0 : 1;
    }
  struct stat st;
  if (fstat (fd, &st) != 0 || major (st.st_dev) != maj
      || minor (st.st_dev) != min || st.st_ino != ino)
    {
      puts ("copied (another file)");
      return blob () == 42 ? 0 : 1;
    }
  void *scratch = mmap (NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
  void *again = mmap (scratch, 4096, PROT_READ | PROT_EXEC,
		      MAP_PRIVATE | MAP_FIXED, fd, off + (page - lo));
  close (fd);
  if (again != scratch)
    {
      fprintf (stderr, "selfmap: mapping %s again at offset %#lx: %m\n", p,
	       off + (page - lo));
      return 3;
    }
  int (*copy) (void) = (int (*) (void)) ((char *) again
					 + ((uintptr_t) &blob - page));
  puts (copy () == 42 ? "remapped" : "remapped wrong bytes");
  return copy () == 42 ? 0 : 1;
}
