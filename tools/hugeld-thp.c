/* hugeld-thp: what the page cache holds under the thp zones of objects,
   and its repair between starts.
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

/* hugeld-thp [--repair] [--budget MIB] [--idle] [--scan] [--skip PID]...
              [--skip-file MAJOR:MINOR:INODE]... [--progress-fd FD]
              [--strict-links] [FILE...]

   For each FILE, and with --scan for each file a process maps in the
   thp backing's shape (hugeld-thp-scan.c), the read-only zones ld.so's
   thp backing maps from it, planned with the loader's own planner, and
   per 2 MiB range what the page cache holds; with --repair, ranges in
   small folios made 2 MiB folios (hugeld-thp-range.c).  ld.so itself
   does none of this (elf/dl-hugepage-thp.c): a repair costs the start
   that makes it, and cannot drop what another process maps.

   It runs as root over what any user maps, so it trusts none of it:
   a file is looked at only if root owns it, nobody else may write it
   and it lives on a disk file system (hugeld-thp-trust.c); a mapped
   file is opened only through /proc/PID/map_files (the inode mapped,
   no path to swap) and only after the mount table said its file system
   is such a disk one; a range with a hole is never read; the new
   folios of a run are bounded by --budget (MiB, default 512; the unit
   that runs it has a memory limit above it); a file cut while it is
   repaired raises no SIGBUS that kills it.  With --idle, it lowers its
   CPU and I/O priority to idle after the scan, before reading any
   file: the scan runs at the caller's priority, so that it holds no
   process's memory map lock while preempted.

   The output is one JSON record per line, per file as it is done:

     {"file": F, "pid": P or null, ["id": "MAJOR:MINOR:INODE",] "ranges": N, "huge": N, "small": N,
      "not_cached": N, "repaired": N, "collapsed": N, "held": N,
      "hole": N, "budget": N, "kept": N, "changed": N, "failed": N,
      "read_kb": N, "why": null or "..."}

   (the counts after the repair; held ... failed: the ranges left in
   small folios, by reason; "why" what stopped the look, or why the
   file was left alone: then "ranges" is 0), or {"file": F, "error":
   "..."} for a FILE that cannot be read as an object; and a last line

     {"done": true, "processes": N, "files": N, "untrusted": N,
      "unlisted": N, "budget_left_kb": N, "stuck": [PID...],
      "stuck_more": N, "reasons": {"held": TEXT, ...}}

   (untrusted: files left alone by the rule above; unlisted: those
   beyond the first 256, counted and not listed; stuck: the processes
   whose maps did not answer in THP_SCAN_STALL_MS, left out).  Exit status 0, 2 for
   a usage error.  --progress-fd FD: before reading each process's maps
   and each file, "scan PID", "file MAJOR:MINOR:INODE" (a mapped file)
   or "named N" (the Nth FILE, from 0) is written at the start of FD,
   for a caller that had to stop a run stuck on one (--skip,
   --skip-file, or the FILE left out).  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hugeld-json.h"
#include "hugeld-open.h"
#include "hugeld-thp.h"

const char *progname = "hugeld-thp";

/* Untrusted files listed, at most; the rest are counted.  */
#define MAX_LISTED_UNTRUSTED 256

/* A file to look at: named (PID 0) or mapped by process PID.  */
struct target
{
  const char *name;		/* Named: as given.  */
  int pid;
  unsigned long int start, end;
  unsigned int major, minor;
  unsigned long int ino;
  bool fs_ok;			/* The mount table names a disk file system.  */
  char fstype[32];
};

static struct target *targets;
static size_t ntargets, targets_size;

static struct target *
new_target (void)
{
  if (ntargets == targets_size)
    {
      size_t size = targets_size ? 2 * targets_size : 64;
      struct target *t = realloc (targets, size * sizeof *t);
      if (t == NULL)
	return NULL;
      targets = t;
      targets_size = size;
    }
  struct target *t = &targets[ntargets++];
  memset (t, 0, sizeof *t);
  return t;
}

static bool
found (const struct thp_mapping *m, void *closure)
{
  (void) closure;
  struct target *t = new_target ();
  if (t == NULL)
    return false;
  t->pid = m->pid;
  t->start = m->start;
  t->end = m->end;
  t->major = m->major;
  t->minor = m->minor;
  t->ino = m->ino;
  t->fs_ok = m->fstype != NULL && thp_fs_name_ok (m->fstype);
  snprintf (t->fstype, sizeof t->fstype, "%s",
	    m->fstype != NULL ? m->fstype : "");
  return true;
}

/* The processes whose maps did not answer in time.  */
static int stuck_pids[64];
static size_t nstuck, nstuck_more;

static void
stuck (int pid, void *closure)
{
  (void) closure;
  if (nstuck < sizeof stuck_pids / sizeof stuck_pids[0])
    stuck_pids[nstuck++] = pid;
  else
    ++nstuck_more;
}

static int progress_fd = -1;

static void
progress (const char *fmt, ...)
{
  if (progress_fd < 0)
    return;
  char b[256];
  va_list ap;
  va_start (ap, fmt);
  int l = vsnprintf (b, sizeof b - 1, fmt, ap);
  va_end (ap);
  if (l < 0)
    return;
  if (l > (int) sizeof b - 2)
    l = sizeof b - 2;
  b[l++] = '\n';
  (void) pwrite (progress_fd, b, l, 0);
}

/* Idle CPU and I/O priority for the rest of the run (ioprio_set:
   IOPRIO_CLASS_IDLE; glibc has no wrapper).  */
static void
go_idle (void)
{
  struct sched_param sp = { 0 };
  sched_setscheduler (0, SCHED_IDLE, &sp);
  setpriority (PRIO_PROCESS, 0, 19);
#ifdef SYS_ioprio_set
  syscall (SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0,
	   3 << 13 /* IOPRIO_CLASS_IDLE */);
#endif
}

/* The line of FILE, target T: what the look at it found, C.  */
static void
print_record (const char *file, const struct target *t,
	      const struct thp_counts *c)
{
  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  json_kstr (&j, "file", file);
  if (t->pid > 0)
    {
      char id[64];
      snprintf (id, sizeof id, "%u:%u:%lu", t->major, t->minor, t->ino);
      json_kint (&j, "pid", t->pid);
      json_kstr (&j, "id", id);
    }
  else
    json_knull (&j, "pid");
  json_kuint (&j, "ranges", c->ranges);
  json_kuint (&j, "huge", c->huge);
  json_kuint (&j, "small", c->small);
  json_kuint (&j, "not_cached", c->not_cached);
  json_kuint (&j, "repaired", c->repaired);
  json_kuint (&j, "collapsed", c->collapsed);
#define X(name, text) json_kuint (&j, #name, c->left[THP_LEFT_##name]);
  THP_LEFT_REASONS
#undef X
  json_kuint (&j, "read_kb", c->read / 1024);
  json_kstr (&j, "why", c->why);
  json_end (&j);
  fflush (stdout);
}

/* The line of the named FILE that cannot be read as an object, WHY.  */
static void
print_error (const char *file, const char *why)
{
  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  json_kstr (&j, "file", file);
  json_kstr (&j, "error", why);
  json_end (&j);
  fflush (stdout);
}

static size_t untrusted, unlisted;

/* Left alone by the trust rule: listed (the first ones) or counted.  */
static void
left_alone (const char *file, const struct target *t, const char *why)
{
  ++untrusted;
  if (untrusted > MAX_LISTED_UNTRUSTED)
    {
      ++unlisted;
      return;
    }
  struct thp_counts c = { .why = why };
  print_record (file, t, &c);
}

/* Look at (and repair) target T (an element of TARGETS).  */
static void
look (const struct target *t, struct thp_run *run)
{
  static char mapped[80], name[4200];
  const char *file = t->name;
  if (t->pid > 0)
    {
      snprintf (mapped, sizeof mapped, "/proc/%d/map_files/%lx-%lx",
		t->pid, t->start, t->end);
      file = mapped;
      ssize_t l = readlink (mapped, name, sizeof name - 1);
      if (l <= 0)
	return;			/* Gone.  */
      name[l] = '\0';
      /* Nobody maps it by its name any more: nothing to gain.  */
      if (l > 10 && strcmp (name + l - 10, " (deleted)") == 0)
	return;
      if (!t->fs_ok)
	{
	  static char why[160];
	  snprintf (why, sizeof why,
		    "not trusted: on %s, not a disk file system that "
		    "libraries live on", t->fstype[0] ? t->fstype
		    : "a file system no mount table names");
	  left_alone (name, t, why);
	  return;
	}
    }
  if (t->pid > 0)
    progress ("file %u:%u:%lu", t->major, t->minor, t->ino);
  else
    progress ("named %zu", (size_t) (t - targets));
  const char *shown = t->pid > 0 ? name : file;
  struct stat st;
  char why[HUGELD_OPEN_WHY_MAX];
  int fd = hugeld_open_regular (file, t->pid == 0 && strict_links, &st, why);
  if (fd < 0)
    {
      if (t->pid == 0)
	print_error (shown, why);
      return;
    }
  const char *distrust = thp_distrust (fd, &st);
  if (distrust != NULL)
    {
      close (fd);
      left_alone (shown, t, distrust);
      return;
    }
  static struct object o;
  const char *bad = object_from_fd (fd, shown, st.st_size, &o);
  if (bad != NULL)
    {
      close (fd);
      if (t->pid == 0)
	print_error (shown, bad);
      return;
    }
  static struct thp_range r[HP_MAX_RUNS * 8192];
  struct thp_counts c = { 0 };
  thp_survey (fd, r, thp_ranges (&o, r, sizeof r / sizeof r[0]), run, &c);
  close (fd);
  print_record (shown, t, &c);
}

/* The last line: the counts of the run (PROCESSES listed by the scan,
   BUDGET bytes of new folios left), the processes left out and the
   words of the reasons a range is left in small folios.  */
static void
print_done (size_t processes, uint64_t budget)
{
  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  json_kbool (&j, "done", true);
  json_kuint (&j, "processes", processes);
  json_kuint (&j, "files", ntargets);
  json_kuint (&j, "untrusted", untrusted);
  json_kuint (&j, "unlisted", unlisted);
  json_kuint (&j, "budget_left_kb", budget / 1024);
  json_key (&j, "stuck");
  json_array (&j);
  for (size_t i = 0; i < nstuck; ++i)
    json_int (&j, stuck_pids[i]);
  json_end (&j);
  json_kuint (&j, "stuck_more", nstuck_more);
  json_key (&j, "reasons");
  json_object (&j);
#define X(name, text) json_kstr (&j, #name, text);
  THP_LEFT_REASONS
#undef X
  json_end (&j);
  json_end (&j);
}

static void
usage (FILE *out)
{
  fprintf (out, "\
usage: %s [--repair] [--budget MIB] [--idle] [--scan] [--skip PID]...\n\
       [--skip-file MAJOR:MINOR:INODE]... [--progress-fd FD]\n\
       [--strict-links] [FILE...]\n\
\n\
What the page cache holds under the read-only zones that hugeld's thp\n\
backing maps from each FILE (and, with --scan, from each file a process\n\
maps in that shape), per 2 MiB range, one JSON record per line.  With\n\
--repair, ranges in small folios are made 2 MiB folios: MADV_COLLAPSE\n\
where the kernel has it for file text, else dropped and read again\n\
where no other process maps them.  Only files that root owns, nobody\n\
else may write and that live on a disk file system are looked at; no\n\
range with a hole is read.  Needs root (mincore answers only root and\n\
a file's owner or writer).\n\
\n\
  --repair            repair what is in small folios\n\
  --budget MIB        make at most MIB MiB of new folios (default 512)\n\
  --idle              idle CPU and I/O priority after the scan\n\
  --scan              also the files processes map in the thp shape\n\
  --skip PID          leave process PID out of the scan\n\
  --skip-file M:N:I   leave the file of that device and inode out of it\n\
  --progress-fd FD    write what is being read at the start of FD\n\
  --strict-links      follow only the symbolic links that root (or the\n\
                      caller) owns in the paths of the FILEs\n\
  --help              this text\n", progname);
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "repair", no_argument, NULL, 'r' },
    { "budget", required_argument, NULL, 'b' },
    { "idle", no_argument, NULL, 'i' },
    { "scan", no_argument, NULL, 'S' },
    { "skip", required_argument, NULL, 'k' },
    { "skip-file", required_argument, NULL, 'K' },
    { "progress-fd", required_argument, NULL, 'p' },
    { "strict-links", no_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  struct thp_run run = { .repair = false, .budget = 512ULL << 20 };
  bool idle = false, scan = false;
  static int skip[1024];
  size_t nskip = 0;
  int c;
  while ((c = getopt_long (argc, argv, "", longopts, NULL)) != -1)
    {
      char *end;
      switch (c)
	{
	case 'r':
	  run.repair = true;
	  break;
	case 'b':
	  errno = 0;
	  unsigned long long int mib = strtoull (optarg, &end, 10);
	  if (errno != 0 || end == optarg || *end != '\0'
	      || mib > (1ULL << 30))
	    {
	      fprintf (stderr, "%s: --budget: not a number of MiB: %s\n",
		       progname, optarg);
	      return 2;
	    }
	  run.budget = mib << 20;
	  break;
	case 'i':
	  idle = true;
	  break;
	case 'S':
	  scan = true;
	  break;
	case 'k':
	  {
	    long int pid = strtol (optarg, &end, 10);
	    if (end == optarg || *end != '\0' || pid <= 0 || pid > INT32_MAX
		|| nskip == sizeof skip / sizeof skip[0])
	      {
		fprintf (stderr, "%s: --skip: not a process ID: %s\n",
			 progname, optarg);
		return 2;
	      }
	    skip[nskip++] = pid;
	  }
	  break;
	case 'K':
	  {
	    unsigned int major, minor;
	    unsigned long int ino;
	    int n = 0;
	    if (sscanf (optarg, "%u:%u:%lu%n", &major, &minor, &ino, &n) != 3
		|| optarg[n] != '\0')
	      {
		fprintf (stderr, "%s: --skip-file: not MAJOR:MINOR:INODE: %s\n",
			 progname, optarg);
		return 2;
	      }
	    thp_scan_exclude (major, minor, ino);
	  }
	  break;
	case 'p':
	  {
	    long int fd = strtol (optarg, &end, 10);
	    if (end == optarg || *end != '\0' || fd < 0 || fd > INT32_MAX
		|| fcntl (fd, F_GETFD) < 0)
	      {
		fprintf (stderr, "%s: --progress-fd: not an open descriptor: "
			 "%s\n", progname, optarg);
		return 2;
	      }
	    progress_fd = fd;
	  }
	  break;
	case 's':
	  strict_links = true;
	  break;
	case 'h':
	  usage (stdout);
	  return 0;
	default:
	  usage (stderr);
	  return 2;
	}
    }
  if (optind >= argc && !scan)
    {
      fprintf (stderr, "%s: no file given (try --help)\n", progname);
      return 2;
    }
  for (int i = optind; i < argc; ++i)
    {
      struct target *t = new_target ();
      if (t == NULL)
	{
	  fprintf (stderr, "%s: out of memory\n", progname);
	  return 1;
	}
      t->name = argv[i];
    }
  size_t processes = 0;
  if (scan)
    processes = thp_scan (found, NULL, progress_fd, skip, nskip, stuck,
			  NULL);
  if (idle)
    go_idle ();
  for (size_t i = 0; i < ntargets; ++i)
    look (&targets[i], &run);
  print_done (processes, run.budget);
  return ferror (stdout) || fflush (stdout) != 0;
}
