/* Test helper for t-guards: a process that sandboxes itself with
   Landlock, as programs and sandboxing launchers do, then runs a
   program or loads a library.

     landlock --abi                  print the kernel's Landlock ABI
				     version (0: none) and exit 0
     landlock [-r DIR]... [-w DIR]... -- PROG ARG...
				     restrict this process, then exec PROG
     landlock [-r DIR]... [-w DIR]... --dlopen LIB
				     restrict this process, then dlopen LIB
				     and print "value N", N what its
				     value () returns (tests/cache/valuelib.c)

   The domain handles every file system right the kernel knows (by its
   ABI version) and allows, beneath each -r DIR, reading files, listing
   directories and executing, beneath each -w DIR every right; nothing
   else: no /dev (so no /dev/hugepages), no /proc, no /sys unless a
   DIR names them.  Files already open stay usable.  Exit status 125
   (and one line on standard error) if the domain cannot be made:
   Landlock not in the kernel (ENOSYS) or not enabled (EOPNOTSUPP); the
   test skips then.  The system calls are made directly: the C
   library's headers may be older than the kernel.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
# define SYS_landlock_create_ruleset 444
# define SYS_landlock_add_rule 445
# define SYS_landlock_restrict_self 446
#endif

/* The kernel's interface (include/uapi/linux/landlock.h), as far as
   this helper uses it.  */
struct ruleset_attr
{
  uint64_t handled_access_fs;
};
struct path_beneath_attr
{
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__ ((packed));
#define CREATE_RULESET_VERSION (1U << 0)
#define RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
/* ABI 1: bits 0 to 12; 2 adds REFER (13); 3 TRUNCATE (14); 5
   IOCTL_DEV (15).  */
static uint64_t
fs_rights (int abi)
{
  uint64_t r = (1ULL << 13) - 1;
  if (abi >= 2)
    r |= 1ULL << 13;
  if (abi >= 3)
    r |= 1ULL << 14;
  if (abi >= 5)
    r |= 1ULL << 15;
  return r;
}

static int
abi_version (void)
{
  long int v = syscall (SYS_landlock_create_ruleset, NULL, 0,
			CREATE_RULESET_VERSION);
  return v < 0 ? 0 : (int) v;
}

static int
allow (int ruleset, const char *dir, uint64_t rights)
{
  int fd = open (dir, O_PATH | O_CLOEXEC);
  if (fd < 0)
    {
      fprintf (stderr, "landlock: %s: %m\n", dir);
      return -1;
    }
  struct path_beneath_attr pb = { .allowed_access = rights, .parent_fd = fd };
  int r = syscall (SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &pb, 0);
  if (r != 0)
    fprintf (stderr, "landlock: adding %s: %m\n", dir);
  close (fd);
  return r;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--abi") == 0)
    {
      printf ("%d\n", abi_version ());
      return 0;
    }
  int abi = abi_version ();
  if (abi <= 0)
    {
      int err = errno;
      fprintf (stderr, "landlock: not available here: %s\n",
	       err == EOPNOTSUPP ? "disabled at boot (lsm=)"
	       : err == ENOSYS ? "not in this kernel" : strerror (err));
      return 125;
    }
  uint64_t all = fs_rights (abi);
  struct ruleset_attr attr = { .handled_access_fs = all };
  int ruleset = syscall (SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0)
    {
      fprintf (stderr, "landlock: landlock_create_ruleset: %m\n");
      return 125;
    }
  int i = 1;
  for (; i + 1 < argc; i += 2)
    {
      uint64_t rights;
      if (strcmp (argv[i], "-r") == 0)
	rights = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
      else if (strcmp (argv[i], "-w") == 0)
	rights = all;
      else
	break;
      if (allow (ruleset, argv[i + 1], rights) != 0)
	return 125;
    }
  const char *lib = NULL;
  if (i + 1 < argc && strcmp (argv[i], "--dlopen") == 0)
    lib = argv[i + 1];
  else if (i + 1 < argc && strcmp (argv[i], "--") == 0)
    ++i;
  else
    {
      fprintf (stderr, "usage: landlock --abi | [-r DIR]... [-w DIR]... "
	       "(-- PROG ARG... | --dlopen LIB)\n");
      return 2;
    }
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
      || syscall (SYS_landlock_restrict_self, ruleset, 0) != 0)
    {
      fprintf (stderr, "landlock: restricting this process: %m\n");
      return 125;
    }
  close (ruleset);
  if (lib == NULL)
    {
      execv (argv[i], argv + i);
      fprintf (stderr, "landlock: %s: %m\n", argv[i]);
      return 126;
    }
  void *h = dlopen (lib, RTLD_NOW);
  if (h == NULL)
    {
      fprintf (stderr, "landlock: %s\n", dlerror ());
      return 1;
    }
  int (*value) (void) = (int (*) (void)) dlsym (h, "value");
  if (value == NULL)
    {
      fprintf (stderr, "landlock: no value () in %s\n", lib);
      return 1;
    }
  printf ("value %d\n", value ());
  return 0;
}
