/* hugeld-thp: the thp repair's parts.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#ifndef HUGELD_THP_H
#define HUGELD_THP_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "hugeld-plan.h"

#define THP_HUGE PLAN_HUGEPAGESIZE
#define THP_PAGE PLAN_PAGESIZE
#define THP_CHUNK_PAGES (THP_HUGE / THP_PAGE)

/* Why a 2 MiB range stays in small folios after a repair: the name is
   the key of the helper's JSON record, the text the command's words.  */
#define THP_LEFT_REASONS \
  X (held, "another process maps it") \
  X (hole, "the file has holes there, half of it or more (never read " \
	   "into memory)") \
  X (budget, "over this run's memory budget (the next run goes on)") \
  X (kept, "the kernel kept its small folios (dirty, locked or under " \
	   "writeback)") \
  X (changed, "the file changed while it was repaired") \
  X (failed, "read again in small folios")

enum thp_left
{
#define X(name, text) THP_LEFT_##name,
  THP_LEFT_REASONS
#undef X
  THP_LEFT_N
};

/* What a look at one file's ranges found (after the repair).  */
struct thp_counts
{
  size_t ranges;		/* The 2 MiB ranges the thp backing maps.  */
  size_t huge;			/* On one 2 MiB folio each.  */
  size_t small;			/* In small folios, not repaired (status).  */
  size_t not_cached;		/* Nothing in the page cache.  */
  size_t repaired;		/* Dropped and read again as 2 MiB.  */
  size_t collapsed;		/* Made 2 MiB by MADV_COLLAPSE.  */
  size_t left[THP_LEFT_N];	/* In small folios after a repair, why.  */
  uint64_t read;		/* Bytes of new 2 MiB folios made.  */
  const char *why;		/* What stopped the look, or NULL.  */
};

/* One run's settings.  */
struct thp_run
{
  bool repair;
  /* Bytes of new folios the repair may still make in this run: each
     range repaired or collapsed takes 2 MiB of memory, charged to the
     repair's own cgroup.  */
  uint64_t budget;
};

/* A file range of 2 MiB, at a 2 MiB aligned offset.  */
struct thp_range
{
  uint64_t off;
};

/* hugeld-thp-trust.c: which files the repair touches.  */

/* Whether TYPE (a file system's name, as /proc/PID/mountinfo gives
   it) is one the repair reads: a disk file system that libraries live
   on.  */
bool thp_fs_name_ok (const char *type);

/* Why the repair leaves the file open as FD (fstat ST) alone, or NULL:
   the shared cache's rule (a regular file that root owns and nobody
   else may write), on a file system of the list above (fstatfs).  */
const char *thp_distrust (int fd, const struct stat *st);

/* hugeld-thp-range.c: what the page cache holds, and the repair.  */

/* The 2 MiB file ranges ld.so maps with the thp backing for object O
   into R (at most MAX), in file order; their number.  */
size_t thp_ranges (const struct object *o, struct thp_range *r, size_t max);

/* Look at (and with RUN->repair, repair) the ranges R[0..N) of the
   file open as FD into *C.  */
void thp_survey (int fd, const struct thp_range *r, size_t n,
		 struct thp_run *run, struct thp_counts *c);

/* hugeld-thp-scan.c: the files processes map in the thp backing's
   shape.  */

/* An executable mapping of a file, at an address congruent to its file
   offset modulo 2 MiB, over at least one whole 2 MiB.  */
struct thp_mapping
{
  int pid;
  unsigned long int start, end;
  unsigned int major, minor;	/* Of the file's file system.  */
  unsigned long int ino;
  const char *path;		/* As /proc/PID/maps shows it.  */
  /* The file system's type, from the mount table of the process's
     mount namespace (or ours); NULL if neither mounts that device.  */
  const char *fstype;
};

/* Called once per file (device and inode) found; returns false to
   stop the scan.  */
typedef bool (*thp_found_fn) (const struct thp_mapping *m, void *closure);

/* Called for a process whose maps did not answer in time.  */
typedef void (*thp_stuck_fn) (int pid, void *closure);

/* How long the scan waits for one process's maps.  */
#define THP_SCAN_STALL_MS 2000

/* Leave the file of device MAJOR:MINOR and inode INO out of the next
   scans (as if seen already).  */
void thp_scan_exclude (unsigned int major, unsigned int minor,
		       unsigned long int ino);

/* Walk /proc: every process but ours and those in SKIP[0..NSKIP), in
   order of PID, calling FOUND for each file; STUCK for each process
   whose maps did not answer in THP_SCAN_STALL_MS (left out).  Before
   reading a process's maps, "scan PID" is written at the start of
   PROGRESS (a descriptor, if >= 0).  Returns the number of processes
   listed.  */
size_t thp_scan (thp_found_fn found, void *closure, int progress,
		 const int *skip, size_t nskip, thp_stuck_fn stuck,
		 void *sclosure);

#endif /* hugeld-thp.h */
