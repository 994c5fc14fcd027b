/* hugeld-thp: the files processes map in the thp backing's shape.
   Copyright (C) 2026 The hugeld authors.
   This file is part of hugeld, a patch set for the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* Which files to look at: those any process maps executable at an
   address congruent to the file offset modulo 2 MiB, over at least one
   whole 2 MiB (the shape of the thp backing's zones; whoever mapped
   them).  Only /proc/PID/maps is read: it gives the shape, the file's
   device and inode, and costs the process one short hold of its
   memory map's lock per read; smaps, which walks the page tables
   under that lock, is not.  The caller runs this at normal priority
   and lowers its own only afterwards, for the repair: a scan preempted
   at idle priority would hold another process's lock for as long as
   the CPU is busy.

   A process whose maps do not answer in THP_SCAN_STALL_MS (its memory
   map's lock kept busy: a thread stuck in a fault on a file system
   that does not answer, and another waiting to change the map) is left
   out and reported; the scan runs in a child that is killed and
   started again after it.

   Each file once, by device and inode; its file system's type from
   the mount table of the process's mount namespace (read once per
   namespace), else of ours: nothing of the file itself is opened or
   asked here (a FUSE file's open or stat waits for its server).  */

#define _GNU_SOURCE 1
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hugeld-thp.h"

/* At most this many distinct files are kept per scan (32 bytes each,
   in a table of 4 MiB): a user who maps millions of files gets no more
   of root's memory or time.  */
#define MAX_FILES 65536
/* At most this many mount namespaces' tables are kept.  */
#define MAX_NS 256
/* A mount table line, or a maps line, longer than this is skipped.  */
#define LINE_MAX_LEN 8192

struct file_key
{
  unsigned long int dev, ino;
};

/* The files seen: an open-addressed hash set of twice the limit's
   slots, so that a lookup stays short whatever users map.  */
#define SEEN_SLOTS (2 * MAX_FILES)
static struct file_key *seen;
static size_t nseen;

/* Whether (DEV, INO) was seen; records it if not (true at the limit,
   so that nothing more is looked at).  Inode 0 is never a file here
   (the scan skips it), so a slot with ino 0 is empty.  */
static bool
seen_before (unsigned long int dev, unsigned long int ino)
{
  if (seen == NULL)
    {
      seen = calloc (SEEN_SLOTS, sizeof *seen);
      if (seen == NULL)
	return true;
    }
  size_t h = (size_t) ((ino * 0x9e3779b97f4a7c15ULL) ^ dev) % SEEN_SLOTS;
  while (seen[h].ino != 0)
    {
      if (seen[h].dev == dev && seen[h].ino == ino)
	return true;
      h = (h + 1) % SEEN_SLOTS;
    }
  if (nseen >= MAX_FILES)
    return true;
  seen[h].dev = dev;
  seen[h].ino = ino;
  ++nseen;
  return false;
}

static unsigned long int
dev_of (unsigned int major, unsigned int minor)
{
  return ((unsigned long int) major << 20) | minor;
}

void
thp_scan_exclude (unsigned int major, unsigned int minor,
		  unsigned long int ino)
{
  (void) seen_before (dev_of (major, minor), ino);
}

/* A mount table: device numbers and type names.  */
struct mount_table
{
  unsigned long int ns;		/* Inode of /proc/PID/ns/mnt.  */
  size_t n;
  struct
  {
    unsigned int major, minor;
    char type[32];
  } *m;
};

static struct mount_table tables[MAX_NS];
static size_t ntables;

/* Read a whole /proc file PATH into a buffer of *LEN bytes (malloc'd,
   NUL-terminated); NULL if it cannot be read.  */
static char *
read_proc (const char *path, size_t *len)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t size = 16384, n = 0;
  char *buf = malloc (size);
  while (buf != NULL)
    {
      if (n + 1 >= size)
	{
	  char *b = realloc (buf, size *= 2);
	  if (b == NULL)
	    {
	      free (buf);
	      buf = NULL;
	      break;
	    }
	  buf = b;
	}
      ssize_t r = read (fd, buf + n, size - n - 1);
      if (r < 0)
	{
	  free (buf);
	  buf = NULL;
	}
      else if (r == 0)
	break;
      else
	n += r;
    }
  close (fd);
  if (buf != NULL)
    {
      buf[n] = '\0';
      *len = n;
    }
  return buf;
}

/* The mount table of process PID's mount namespace (PID 0: ours).  */
static const struct mount_table *
mounts_of (int pid)
{
  char path[64], link[64];
  snprintf (path, sizeof path, pid ? "/proc/%d/ns/mnt" : "/proc/self/ns/mnt",
	    pid);
  ssize_t l = readlink (path, link, sizeof link - 1);
  if (l <= 0)
    return NULL;
  link[l] = '\0';
  const char *b = strchr (link, '[');
  if (b == NULL)
    return NULL;
  unsigned long int ns = strtoul (b + 1, NULL, 10);
  for (size_t i = 0; i < ntables; ++i)
    if (tables[i].ns == ns)
      return &tables[i];
  if (ntables >= MAX_NS)
    return NULL;
  snprintf (path, sizeof path,
	    pid ? "/proc/%d/mountinfo" : "/proc/self/mountinfo", pid);
  size_t len;
  char *buf = read_proc (path, &len);
  if (buf == NULL)
    return NULL;
  struct mount_table *t = &tables[ntables];
  size_t lines = 0;
  for (size_t i = 0; i < len; ++i)
    lines += buf[i] == '\n';
  t->m = calloc (lines + 1, sizeof *t->m);
  if (t->m == NULL)
    {
      free (buf);
      return NULL;
    }
  t->ns = ns;
  t->n = 0;
  /* ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [FIELDS...] - TYPE ...  */
  for (char *line = buf, *next; *line != '\0'; line = next)
    {
      char *nl = strchr (line, '\n');
      next = nl != NULL ? nl + 1 : line + strlen (line);
      if (nl != NULL)
	*nl = '\0';
      unsigned int major, minor;
      char *dash = strstr (line, " - ");
      if (dash == NULL
	  || sscanf (line, "%*u %*u %u:%u", &major, &minor) != 2)
	continue;
      char *type = dash + 3;
      size_t tl = strcspn (type, " ");
      if (tl == 0 || tl >= sizeof t->m[0].type)
	continue;
      t->m[t->n].major = major;
      t->m[t->n].minor = minor;
      memcpy (t->m[t->n].type, type, tl);
      t->m[t->n].type[tl] = '\0';
      ++t->n;
    }
  free (buf);
  ++ntables;
  return t;
}

static const char *
type_in (const struct mount_table *t, unsigned int major, unsigned int minor)
{
  for (size_t i = 0; t != NULL && i < t->n; ++i)
    if (t->m[i].major == major && t->m[i].minor == minor)
      return t->m[i].type;
  return NULL;
}

/* Read process PID's maps and call FOUND for each new file of the
   shape; false if FOUND stopped the scan.  */
static bool
scan_process (int pid, thp_found_fn found, void *closure)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/maps", pid);
  size_t len;
  char *buf = read_proc (path, &len);
  if (buf == NULL)
    return true;
  bool go = true;
  for (char *line = buf, *next; go && *line != '\0'; line = next)
    {
      char *nl = strchr (line, '\n');
      next = nl != NULL ? nl + 1 : line + strlen (line);
      if (nl != NULL)
	*nl = '\0';
      struct thp_mapping m = { .pid = pid };
      char perms[5];
      unsigned long int off;
      int pathpos = 0;
      if (sscanf (line, "%lx-%lx %4s %lx %x:%x %lu %n", &m.start, &m.end,
		  perms, &off, &m.major, &m.minor, &m.ino, &pathpos) < 7
	  || strcmp (perms, "r-xp") != 0 || m.ino == 0 || pathpos == 0
	  || line[pathpos] != '/')
	continue;
      /* Congruent, and over one whole 2 MiB at least.  */
      if ((m.start - off) % THP_HUGE != 0
	  || (m.end & -THP_HUGE) < ((m.start + THP_HUGE - 1) & -THP_HUGE)
				   + THP_HUGE)
	continue;
      if (seen_before (dev_of (m.major, m.minor), m.ino))
	continue;
      m.fstype = type_in (mounts_of (pid), m.major, m.minor);
      if (m.fstype == NULL)
	m.fstype = type_in (mounts_of (0), m.major, m.minor);
      go = found (&m, closure);
    }
  free (buf);
  return go;
}

static int
by_pid (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

/* The processes to read, in order of PID: all but ours and SKIP's.  */
static int *
list_processes (const int *skip, size_t nskip, size_t *npids)
{
  DIR *d = opendir ("/proc");
  if (d == NULL)
    return NULL;
  size_t n = 0, size = 1024;
  int *pids = malloc (size * sizeof *pids);
  int self = getpid ();
  struct dirent *e;
  while (pids != NULL && (e = readdir (d)) != NULL)
    {
      if (!isdigit ((unsigned char) e->d_name[0]))
	continue;
      int pid = atoi (e->d_name);
      if (pid <= 0 || pid == self)
	continue;
      bool skipped = false;
      for (size_t i = 0; i < nskip && !skipped; ++i)
	skipped = skip[i] == pid;
      if (skipped)
	continue;
      if (n == size)
	{
	  int *p = realloc (pids, (size *= 2) * sizeof *pids);
	  if (p == NULL)
	    {
	      free (pids);
	      pids = NULL;
	      break;
	    }
	  pids = p;
	}
      pids[n++] = pid;
    }
  closedir (d);
  if (pids != NULL)
    qsort (pids, n, sizeof *pids, by_pid);
  *npids = n;
  return pids;
}

/* What a scanning child sends its parent for each file: a fixed-size
   record, so that each write is atomic.  */
struct found_msg
{
  struct thp_mapping m;
  char fstype[32];
};

/* In the child: FOUND sends the mapping to the parent (CLOSURE: the
   pipe's descriptor).  */
static bool
send_found (const struct thp_mapping *m, void *closure)
{
  struct found_msg msg;
  memset (&msg, 0, sizeof msg);
  msg.m = *m;
  msg.m.path = NULL;
  if (m->fstype != NULL)
    snprintf (msg.fstype, sizeof msg.fstype, "%s", m->fstype);
  return write (*(int *) closure, &msg, sizeof msg) == sizeof msg;
}

/* Where the scanning child is: the index of the process it reads, in
   memory shared with the parent.  */
struct scan_state
{
  volatile size_t index;
};

static long int
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Scan PIDS[FROM..N) in a child (reading another process's maps can
   wait on its memory map's lock for as long as that process keeps it
   busy, and such a read can be ended only by killing the reader).
   What it finds goes to FOUND.  Returns the index of the process the
   child was stuck on for THP_SCAN_STALL_MS (it has been killed), or N
   when the scan ended.  */
static size_t
scan_in_child (const int *pids, size_t from, size_t n, thp_found_fn found,
	       void *closure, int progress, struct scan_state *state,
	       bool *stopped)
{
  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    return n;
  state->index = from;
  pid_t child = fork ();
  if (child < 0)
    {
      close (p[0]);
      close (p[1]);
      return n;
    }
  if (child == 0)
    {
      close (p[0]);
      /* The tests' stand-in for a process whose maps never answer
	 (tests/t-thprepair.sh): on the kernels that read maps under
	 per-VMA locks, no user can make that happen on demand.  */
      const char *e = getenv ("HUGELD_THP_TEST_STALL_PID");
      int stall = e != NULL ? atoi (e) : 0;
      for (size_t i = from; i < n; ++i)
	{
	  state->index = i;
	  while (pids[i] == stall)
	    pause ();
	  if (progress >= 0)
	    {
	      char b[24];
	      int l = snprintf (b, sizeof b, "scan %-11d\n", pids[i]);
	      (void) pwrite (progress, b, l, 0);
	    }
	  if (!scan_process (pids[i], send_found, &p[1]))
	    break;
	}
      state->index = n;
      _exit (0);
    }
  close (p[1]);
  size_t last = from, stuck = n;
  long int since = now_ms ();
  struct pollfd pfd = { .fd = p[0], .events = POLLIN };
  for (;;)
    {
      int r = poll (&pfd, 1, 100);
      if (r > 0)
	{
	  struct found_msg msg;
	  ssize_t got = read (p[0], &msg, sizeof msg);
	  if (got == 0)
	    break;
	  if (got == sizeof msg && !*stopped)
	    {
	      msg.m.fstype = msg.fstype[0] != '\0' ? msg.fstype : NULL;
	      if (!seen_before (dev_of (msg.m.major, msg.m.minor), msg.m.ino))
		*stopped = !found (&msg.m, closure);
	    }
	}
      size_t at = state->index;
      if (at != last)
	{
	  last = at;
	  since = now_ms ();
	}
      else if (at < n && now_ms () - since >= THP_SCAN_STALL_MS)
	{
	  kill (child, SIGKILL);
	  stuck = at;
	  break;
	}
    }
  close (p[0]);
  waitpid (child, NULL, 0);
  return stuck;
}

size_t
thp_scan (thp_found_fn found, void *closure, int progress,
	  const int *skip, size_t nskip, thp_stuck_fn stuck, void *sclosure)
{
  size_t n;
  int *pids = list_processes (skip, nskip, &n);
  if (pids == NULL)
    return 0;
  struct scan_state *state = mmap (NULL, sizeof *state,
				   PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (state == MAP_FAILED)
    {
      free (pids);
      return 0;
    }
  bool stopped = false;
  size_t from = 0;
  while (from < n && !stopped)
    {
      size_t at = scan_in_child (pids, from, n, found, closure, progress,
				 state, &stopped);
      if (at >= n)
	break;
      stuck (pids[at], sclosure);
      from = at + 1;
    }
  munmap (state, sizeof *state);
  free (pids);
  return n;
}
