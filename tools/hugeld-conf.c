/* hugeld-conf: what the policy file says, as ld.so reads it.
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

/* The hugeld command's view of /etc/hugeld.conf, made with ld.so's own
   parser (elf/dl-hugepage-conf.c) and the same trust rule as
   elf/dl-hugepage-policy.c, so that `hugeld config check' and `cache
   sync' read the file exactly as the loader does.

   Usage: hugeld-conf [--run NAME [--cwd DIR] [--kernel] | --program
                       NAME...] [--secure] [--expand] FILE
   Prints one JSON document:
     {"file", "program_names": [...],
      "trusted", "untrusted_why", "errors": [{"line", "message",
      "block", "cache", "cost"}], "applies", "rules", "program": {"line", "patterns"} or null,
      "libs": {"value", "patterns": [{"pattern", "line"}], "lines"}
      or null, "segments": {"value", "line"}
      or null, "backing": {"value", "line"} or null,
      "cache": [{"line", "pattern"[, "paths"]}],
      "pool": {"line", "value"} or null}
   where libs, segments, backing and program are what the file gives
   the program known by the NAMEs (ld.so uses the name it is run by,
   that name made absolute, and its real path; for an AT_SECURE
   program only its real path, and --secure then gives what ld.so
   gives it; none: the global settings).  With --run the NAMEs are
   those ld.so derives (_dl_hugepage_program_names) for a program run
   as NAME from the directory DIR (default ours): by `ld.so NAME', or
   with --kernel by the kernel.  With --expand each cache item has the
   "paths" its glob names, in the order ld.so's matcher
   (_dl_hugepage_glob) finds them in each directory, sorted.  Every bad
   line is listed, not only the first, with the block it is in (the
   line of its `program' line, or null: a global line), whether it is
   a cache or pool line, and what it costs in words; "applies" says
   whether ld.so uses the file for the program (it trusts it, and the
   lines that apply to the program parse).  Exit status 0 if the file
   could be read, else 1 with one line on stderr.

   The other modes: --check (hugeld-conf-file.c), --effective
   (hugeld-conf-effective.c), --system-tunables
   (hugeld-conf-tunables.c).  With --pid PID the files are read as
   process PID's ld.so read them, inside its root, their owners seen as
   it sees them (hugeld-conf-file.c).  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugeld-conf.h"

/* --run NAME --cwd DIR: the program's name and where it is run.  */
struct run
{
  const char *name;
  const char *cwd;
  const char *exe;		/* --exe: its real path, or NULL.  */
};

static long int
run_readlink (void *ctx, const char *path, char *buf, size_t size)
{
  (void) ctx;
  return conf_readlink (path, buf, size);
}

static long int
run_getcwd (void *ctx, char *buf, size_t size)
{
  const struct run *r = ctx;
  if (r->cwd != NULL)
    {
      size_t len = strlen (r->cwd) + 1;
      if (len > size)
	return -1;
      memcpy (buf, r->cwd, len);
      return len;
    }
  return getcwd (buf, size) != NULL ? (long int) strlen (buf) + 1 : -1;
}

/* What /proc/self/exe would name for the program: its real path, as
   --exe gives it, or as the file system has it.  */
static const char *
run_exe (void *ctx, char *buf, size_t size)
{
  const struct run *r = ctx;
  if (r->exe != NULL)
    return strlen (r->exe) < size ? strcpy (buf, r->exe) : NULL;
  char path[2 * HP_PATH_MAX + 2];
  if (r->name[0] != '/' && r->cwd != NULL)
    snprintf (path, sizeof path, "%s/%s", r->cwd, r->name);
  else
    snprintf (path, sizeof path, "%s", r->name);
  char real[PATH_MAX];
  if (realpath (path, real) == NULL || strlen (real) >= size)
    return NULL;
  return strcpy (buf, real);
}

#define USAGE "usage: hugeld-conf [--run NAME [--cwd DIR] [--kernel] | " \
  "--program NAME...] [--secure] [--expand] FILE\n" \
  "       hugeld-conf --effective [--libs V] [--segments V] [--backing V] " \
  "[--environ FILE|- [--glibc-tunables NAMES]] [--exe PATH] [--secure] " \
  "[--cache CACHE] [--ldso-view] [--run NAME [--cwd DIR] [--kernel]] " \
  "[--pid PID] FILE\n" \
  "       hugeld-conf --check FILE\n" \
  "       hugeld-conf --system-tunables [--program PATH] [--secure] CACHE"

/* The command line, parsed.  */
struct conf_command
{
  const char *file;		/* FILE.  */
  bool check;			/* --check.  */
  bool effective;		/* --effective.  */
  bool system_tunables;		/* --system-tunables.  */
  bool secure;			/* --secure.  */
  bool by_kernel;		/* --kernel.  */
  bool expand;			/* --expand.  */
  struct run run;		/* --run NAME --cwd DIR.  */
  const char *programs[3];	/* --program NAME...  */
  size_t nprograms;
  struct effective_request req;	/* --libs, --segments, --backing.  */
  int pid;			/* --pid PID, or 0.  */
};

/* Parse ARGV (ARGC strings) into *CMD.  Returns -1 if the command is
   to run, else the exit status to end with: 0 after --help (the usage
   on stdout), 2 after a usage error (said on stderr).  */
static int
parse_command (int argc, char **argv, struct conf_command *cmd)
{
  memset (cmd, 0, sizeof *cmd);
  int i = 1;
  for (; i < argc; ++i)
    {
      if (strcmp (argv[i], "--run") == 0 && i + 1 < argc)
	cmd->run.name = argv[++i];
      else if (strcmp (argv[i], "--cwd") == 0 && i + 1 < argc)
	cmd->run.cwd = argv[++i];
      else if (strcmp (argv[i], "--kernel") == 0)
	cmd->by_kernel = true;
      else if (strcmp (argv[i], "--expand") == 0)
	cmd->expand = true;
      else if (strcmp (argv[i], "--program") == 0 && i + 1 < argc)
	{
	  if (cmd->nprograms == 3)
	    {
	      fputs ("hugeld-conf: at most three --program names\n", stderr);
	      return 2;
	    }
	  cmd->programs[cmd->nprograms++] = argv[++i];
	}
      else if (strcmp (argv[i], "--secure") == 0)
	cmd->secure = true;
      else if (strcmp (argv[i], "--check") == 0)
	cmd->check = true;
      else if (strcmp (argv[i], "--effective") == 0)
	cmd->effective = true;
      else if (strcmp (argv[i], "--system-tunables") == 0)
	cmd->system_tunables = true;
      else if (strcmp (argv[i], "--libs") == 0 && i + 1 < argc)
	cmd->req.option[0] = argv[++i];
      else if (strcmp (argv[i], "--segments") == 0 && i + 1 < argc)
	cmd->req.option[1] = argv[++i];
      else if (strcmp (argv[i], "--backing") == 0 && i + 1 < argc)
	cmd->req.option[2] = argv[++i];
      else if (strcmp (argv[i], "--environ") == 0 && i + 1 < argc)
	cmd->req.environ_file = argv[++i];
      else if (strcmp (argv[i], "--glibc-tunables") == 0 && i + 1 < argc)
	cmd->req.known = argv[++i];
      else if (strcmp (argv[i], "--cache") == 0 && i + 1 < argc)
	cmd->req.cache = argv[++i];
      else if (strcmp (argv[i], "--exe") == 0 && i + 1 < argc)
	cmd->run.exe = argv[++i];
      else if (strcmp (argv[i], "--ldso-view") == 0)
	cmd->req.ldso_view = true;
      else if (strcmp (argv[i], "--pid") == 0 && i + 1 < argc)
	{
	  char *end;
	  long int pid = strtol (argv[++i], &end, 10);
	  if (*end != '\0' || pid <= 0 || pid > INT32_MAX)
	    {
	      fprintf (stderr, "hugeld-conf: --pid: not a process ID: %s\n",
		       argv[i]);
	      return 2;
	    }
	  cmd->pid = pid;
	}
      else if (strcmp (argv[i], "--help") == 0)
	{
	  puts (USAGE);
	  return 0;
	}
      else
	break;
    }
  const struct effective_request *req = &cmd->req;
  if (i != argc - 1 || (cmd->run.name != NULL && cmd->nprograms > 0)
      || (cmd->system_tunables
	  && (cmd->effective || cmd->check || cmd->expand
	      || cmd->run.name != NULL || cmd->nprograms > 1))
      || ((cmd->run.cwd != NULL || cmd->by_kernel) && cmd->run.name == NULL)
      || (cmd->req.known != NULL && cmd->req.environ_file == NULL)
      || (!cmd->effective && (req->option[0] != NULL
			      || req->option[1] != NULL
			      || req->option[2] != NULL
			      || req->environ_file != NULL
			      || req->cache != NULL || req->ldso_view
			      || cmd->run.exe != NULL)))
    {
      fputs (USAGE "\n", stderr);
      return 2;
    }
  cmd->file = argv[i];
  cmd->req.program = cmd->run.name;
  cmd->req.exe = cmd->run.exe;
  cmd->req.secure = cmd->secure;
  if (cmd->req.cache == NULL)
    cmd->req.cache = LD_SO_CACHE;
  return -1;
}

/* The names of the program CMD is about, into NAMES (pointing into the
   command line and BUF): those --program gives, or for --run those
   ld.so derives (_dl_hugepage_program_names), looking at the file
   system as ld.so would from --cwd.  Returns how many.  */
static size_t
read_program_names (const struct conf_command *cmd, const char *names[3],
		    char buf[4 * HP_PATH_MAX])
{
  if (cmd->run.name == NULL)
    {
      memcpy (names, cmd->programs, cmd->nprograms * sizeof *names);
      return cmd->nprograms;
    }
  const struct hp_names_io io = { run_readlink, run_getcwd, run_exe,
				  (void *) &cmd->run };
  return _dl_hugepage_program_names (cmd->run.name, cmd->by_kernel,
				     cmd->secure, &io, names, buf,
				     HP_PATH_MAX);
}

int
main (int argc, char **argv)
{
  struct conf_command cmd;
  int status = parse_command (argc, argv, &cmd);
  if (status >= 0)
    return status;
  if (cmd.pid > 0)
    conf_as_process (cmd.pid);
  if (cmd.system_tunables)
    return conf_print_system_tunables (cmd.file, cmd.nprograms > 0
				  ? cmd.programs[0] : NULL, cmd.secure);
  const char *names[3];
  static char namebuf[4 * HP_PATH_MAX];
  size_t nnames = read_program_names (&cmd, names, namebuf);
  struct conf_file cf;
  conf_read_file (cmd.file, &cf);
  if (cmd.effective)
    status = conf_print_effective (&cmd.req, &cf, names, nnames);
  else if (!conf_readable (&cf))
    status = 1;
  else if (cmd.check)
    status = conf_print_check (&cf);
  else
    status = conf_print_document (&cf, names, nnames, cmd.secure,
				  cmd.expand);
  free (cf.buf);
  return status;
}
