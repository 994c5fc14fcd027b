/* t-thprepair: a FUSE file system whose requests stop being answered.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: fusestall MOUNTPOINT  (run single-threaded, in the foreground)

   Serves one file, /lib.so, of 64 MiB: a sparse "object" (an ELF
   header and one read-execute PT_LOAD over the whole file, zeros
   after it).  After SIGUSR1, every request waits for ever (until
   SIGTERM): a user's file system that does not answer.  */

#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define SIZE (64UL << 20)

static volatile sig_atomic_t stalled;

static void
on_usr1 (int sig)
{
  (void) sig;
  stalled = 1;
}

static void
maybe_stall (void)
{
  while (stalled)
    pause ();
}

/* The first bytes of the file: ELF header and program header.  */
static unsigned char head[120];

static void
make_head (void)
{
  static const unsigned char ident[16] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
  memcpy (head, ident, 16);
  uint16_t h16[] = { 3, 62 };			/* ET_DYN, EM_X86_64.  */
  memcpy (head + 16, h16, 4);
  uint32_t version = 1;
  memcpy (head + 20, &version, 4);
  uint64_t phoff = 64;
  memcpy (head + 32, &phoff, 8);
  uint16_t sizes[] = { 64, 56, 1, 64, 0, 0 };	/* ehsize, phentsize...  */
  memcpy (head + 52, sizes, 12);
  uint32_t p32[] = { 1, 5 };			/* PT_LOAD, R|X.  */
  memcpy (head + 64, p32, 8);
  uint64_t p64[] = { 0, 0, 0, SIZE, SIZE, 2UL << 20 };
  memcpy (head + 72, p64, 48);
}

static int
fs_getattr (const char *path, struct stat *st, struct fuse_file_info *fi)
{
  (void) fi;
  maybe_stall ();
  memset (st, 0, sizeof *st);
  if (strcmp (path, "/") == 0)
    {
      st->st_mode = S_IFDIR | 0755;
      st->st_nlink = 2;
      return 0;
    }
  if (strcmp (path, "/lib.so") == 0)
    {
      st->st_mode = S_IFREG | 0755;
      st->st_nlink = 1;
      st->st_size = SIZE;
      return 0;
    }
  return -ENOENT;
}

static int
fs_open (const char *path, struct fuse_file_info *fi)
{
  (void) fi;
  maybe_stall ();
  return strcmp (path, "/lib.so") == 0 ? 0 : -ENOENT;
}

static int
fs_read (const char *path, char *buf, size_t size, off_t off,
	 struct fuse_file_info *fi)
{
  (void) path;
  (void) fi;
  maybe_stall ();
  if ((uint64_t) off >= SIZE)
    return 0;
  if (size > SIZE - off)
    size = SIZE - off;
  memset (buf, 0, size);
  if ((size_t) off < sizeof head)
    memcpy (buf, head + off,
	    size < sizeof head - off ? size : sizeof head - off);
  return size;
}

static int
fs_readdir (const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
	    struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
  (void) path;
  (void) off;
  (void) fi;
  (void) flags;
  maybe_stall ();
  fill (buf, ".", NULL, 0, 0);
  fill (buf, "..", NULL, 0, 0);
  fill (buf, "lib.so", NULL, 0, 0);
  return 0;
}

static const struct fuse_operations ops = {
  .getattr = fs_getattr,
  .open = fs_open,
  .read = fs_read,
  .readdir = fs_readdir,
};

int
main (int argc, char **argv)
{
  make_head ();
  signal (SIGUSR1, on_usr1);
  return fuse_main (argc, argv, &ops, NULL);
}
