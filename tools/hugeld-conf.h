/* hugeld-conf: what the policy file says, as ld.so reads it.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

/* What the modes of hugeld-conf share: the files as ld.so or another
   process's ld.so sees them (hugeld-conf-file.c), the document of a
   policy file (hugeld-conf-doc.c), --effective
   (hugeld-conf-effective.c) and ld.so.cache's tunables
   (hugeld-conf-tunables.c).  hugeld-conf.c has the command line.  */

#ifndef HUGELD_CONF_H
#define HUGELD_CONF_H 1

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "dl-hugepage-settings.h"
#include "hugeld-json.h"
#include "hugeld-open.h"

/* Where glibc 2.44 and later keep the system-wide tunables.  */
#define LD_SO_CACHE "/etc/ld.so.cache"

/* Say MSG on stderr and exit with STATUS.  */
void conf_refuse (int status, const char *msg) __attribute__ ((noreturn));

/* --pid PID: read the files as process PID's ld.so read them, inside
   its root (its mount namespace and chroot: hugeld-open.h), their
   owners seen as it sees them.  Exits with one line on stderr if PID's
   root cannot be opened.  */
void conf_as_process (int pid);

/* readlink of PATH, inside the root of --pid's process if it has its
   own.  */
long int conf_readlink (const char *path, char *buf, size_t size);

/* FILE opened for reading, as the process of --pid, or we, see it:
   with its stat in *ST (its owner as that process sees it), or -1 with
   why in WHY and errno set.  Only a regular file is opened, through no
   other user's symbolic link where STRICT_LINKS (hugeld-open.c).  A
   missing FILE is -1 with WHY "".  */
int conf_open_seen (const char *file, bool strict_links, struct stat *st,
		    char *why);

/* The helpers' one reader of whole files: all of FD into *BUF
   (malloc'ed, NUL-terminated after *LEN bytes), reading again after
   EINTR; HINT is its expected size.  Returns 0, or an errno value (of
   read, or ENOMEM) with *BUF NULL.  */
int conf_read_whole (int fd, size_t hint, char **buf, size_t *len);

/* A policy file as the command sees it.  */
struct conf_file
{
  const char *path;
  bool exists;			/* False: nothing else is set.  */
  char openwhy[HUGELD_OPEN_WHY_MAX];	/* Not "": it cannot be opened.  */
  const char *distrust;		/* Why ld.so would not use it, or NULL.  */
  char *buf;			/* What it holds (malloc'ed).  */
  size_t len;
  struct hp_conf_summary sum;	/* _dl_hugepage_conf_check's.  */
};

/* Read the file PATH into *CF, as ld.so's hp_policy_open and the trust
   rule of dl-hugepage-policy.c would see it.  A file that is not
   there, or cannot be opened, is not an error (CF says so); exits on
   lack of memory or a read error.  */
void conf_read_file (const char *path, struct conf_file *cf);

/* Whether the file CF could be read: if not, say why on stderr and
   return false.  */
bool conf_readable (const struct conf_file *cf);

/* Why ld.so takes nothing from the file CF, into BUF (SIZE bytes), or
   NULL if it may use it: "no such file", why it cannot be opened, or
   "ignored by ld.so: " and why it distrusts the file.  Which lines
   apply to a program, and whether they parse, is
   _dl_hugepage_conf_resolve's to say.  */
const char *conf_unused_why (const struct conf_file *cf, char *buf,
			     size_t size);

/* A line of a policy file that does not parse, and what it costs.  */
struct conf_bad_line
{
  unsigned int line;
  const char *error;
  /* The `program' line of the block it is in (its own line for a bad
     `program' line), or 0: a global line, and ld.so ignores the file
     for every program (but AT_SECURE ones, which read only their
     blocks).  */
  unsigned int block;
  /* A cache or pool line: ld.so does not read them; `hugeld cache
     sync' refuses the file.  */
  bool cache;
};

/* Call FN with each bad line of the file CF, in order, and ARG.
   Returns how many there are.  */
unsigned int conf_bad_lines (const struct conf_file *cf,
			     void (*fn) (const struct conf_bad_line *,
					 void *),
			     void *arg);

/* What a bad line costs, in words: "ld.so ignores the whole file",
   "ld.so ignores the file for the programs of the block at line N" or
   "ld.so skips it; hugeld cache sync refuses the file", into BUF (SIZE
   bytes).  Returns BUF.  */
const char *conf_bad_cost (const struct conf_bad_line *bad, char *buf,
			   size_t size);

/* --check: say on stderr each reason ld.so would not use the file CF,
   or a part of it (distrust; each bad line as FILE:LINE: message, and
   what it costs), nothing if the whole file parses.  Returns the exit
   status: 0 if it does, else 1.  */
int conf_print_check (const struct conf_file *cf);

/* A pattern of the libs list the file gives a program, with the line
   it came from.  */
struct libs_pattern
{
  const char *pattern;		/* In the joined list.  */
  size_t len;
  unsigned int line;		/* 0 if not known.  */
};

/* The patterns of the joined list LIBS that _dl_hugepage_conf_resolve
   made with S, each with the line it came from (from S's spans), into
   *PATS (malloc'ed; NULL if there are none): how many.  Exits on lack
   of memory.  */
size_t conf_libs_patterns (const struct hp_conf_settings *s,
			   const char *libs, struct libs_pattern **pats);

/* The lines the libs list of S came from, in order, from the N
   patterns PATS, into LINES (room for MAX): those of the patterns,
   each once, or the first libs line if the list selects nothing (libs
   none).  Returns how many.  */
size_t conf_libs_lines (const struct hp_conf_settings *s,
			const struct libs_pattern *pats, size_t n,
			unsigned int *lines, size_t max);

/* "FILE line N" or "FILE lines N, M" for the N LINES, into BUF (SIZE
   bytes).  Returns BUF.  */
char *conf_lines_source (const char *file, const unsigned int *lines,
			 size_t n, char *buf, size_t size);

/* The room _dl_hugepage_conf_resolve needs for the file CF: its joined
   list and its spans, malloc'ed (exits on lack of memory).  */
struct conf_resolved
{
  struct hp_conf_settings s;
  char *libs;
  struct hp_conf_span *spans;
};
void conf_resolve (const struct conf_file *cf, const char *const *names,
		   size_t nnames, bool secure, struct conf_resolved *r);
void conf_resolved_free (struct conf_resolved *r);

/* Print the document of the file CF for the program known by
   NAMES[0..NNAMES) (SECURE: an AT_SECURE one), with EXPAND the paths
   of its cache globs (hugeld-conf.c says what it holds).  Returns the
   exit status.  */
int conf_print_document (const struct conf_file *cf,
			 const char *const *names, size_t nnames,
			 bool secure, bool expand);

/* --effective: the request.  */
struct effective_request
{
  const char *option[HP_NSETTINGS];	/* --libs, --segments, --backing.  */
  const char *program;		/* --run NAME, or NULL.  */
  const char *environ_file;	/* --environ FILE ("-": stdin), or NULL:
				   ours.  */
  const char *known;		/* --glibc-tunables NAMES, or NULL.  */
  const char *cache;		/* --cache CACHE.  */
  const char *exe;		/* --exe PATH, or NULL.  */
  bool secure;			/* --secure.  */
  bool ldso_view;		/* --ldso-view: never refuse.  */
};

/* hugeld-conf --effective (hugeld-conf-effective.c).  Returns the exit
   status.  */
int conf_print_effective (const struct effective_request *req,
			  const struct conf_file *cf,
			  const char *const *names, size_t nnames);

/* A file read whole into memory: ld.so.cache, or an environment.  */
struct blob
{
  char *buf;
  size_t len;
};

/* The system-wide tunables of ld.so.cache as ld.so 2.44 finds them:
   the cache CACHE read into *B, and the section into the sources S.
   Returns whether the cache could be read (else why is in WHY);
   *SECTION says whether it has a tunables section glibc would use.  A
   missing cache is none.  */
bool conf_read_system_tunables (const char *cache, struct blob *b,
				struct hp_sources *s, bool *section,
				char *why);

/* Another process's environment, the NUL-separated strings of *B, as
   it has it, into a NULL-terminated array (malloc'ed); KNOWN names the
   tunables its glibc (before 2.39) cut GLIBC_TUNABLES at
   (hugeld-conf-tunables.c).  */
char **conf_split_environ (struct blob *b, const char *known);

/* hugeld-conf --system-tunables: print what CACHE's system-wide
   tunables give the program PATH (NULL: none named).  Returns the
   exit status.  */
int conf_print_system_tunables (const char *cache, const char *path,
				bool secure);

#endif /* hugeld-conf.h */
