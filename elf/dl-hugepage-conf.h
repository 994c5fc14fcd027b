/* hugeld: the policy file, /etc/hugeld.conf.  Pure interface.
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

/* The file holds the settings of the LD_HUGEPAGE_* variables for every
   process that ld.so loads, one per line:

     # a comment (also after the words of a line)
     libs PATTERN[:PATTERN...] [PATTERN...]   as LD_HUGEPAGE_LIBS; the
					     libs lines of a scope add up;
					     `libs none' selects nothing
     segments LIST                           as LD_HUGEPAGE_SEGMENTS
     backing LIST                            as LD_HUGEPAGE_BACKING
     cache PATH-OR-GLOB...                   what `hugeld cache sync'
					     keeps in the shared cache
     pool N|auto                             huge pages to reserve at boot
     program PATTERN...                      starts a block

   Lines before the first `program' line are global.  A `program' line
   starts a block that lasts until the next one; its libs, segments and
   backing replace the global ones when the main program matches one of
   its patterns (a pattern with `/' is matched against the program's
   path, any other against its last component).  The first matching
   block applies, and only it.  cache and pool are global only, and
   segments, backing and pool may be given once per scope.

   Any line that does not parse makes the whole file void: a file that
   is half understood is not applied, and the programs it would have
   selected run on ordinary pages, as with no file.  ld.so says why
   under LD_DEBUG=hugepages; `hugeld config check' lists every bad
   line.

   Like the rest of the planner this is pure code: no system calls, no
   global state.  ld.so reads the file (dl-hugepage-policy.c); the
   hugeld-conf helper and the unit tests and fuzzer call this
   directly.  */

#ifndef _DL_HUGEPAGE_CONF_H
#define _DL_HUGEPAGE_CONF_H 1

#include <stdbool.h>
#include <stddef.h>
#include "dl-hugepage-place.h"

/* Where ld.so reads it.  */
#define HP_CONF_FILE "/etc/hugeld.conf"

/* A larger file is ignored: it costs every process its bytes.  */
#define HP_CONF_MAX_KIB 64
#define HP_CONF_MAX_SIZE (HP_CONF_MAX_KIB * 1024)

/* The longest word (a pattern list or a glob), in bytes, and the size
   of a buffer that holds one with its NUL.  */
#define HP_CONF_MAX_WORD_LEN 1023
#define HP_CONF_MAX_WORD (HP_CONF_MAX_WORD_LEN + 1)

/* The largest pool size accepted, in huge pages (2 TiB).  The limits
   are plain numbers so that the messages can name them (HP_STR).  */
#define HP_CONF_MAX_POOL 1048576

enum hp_conf_key
{
  HP_CONF_BLANK,		/* Empty or a comment.  */
  HP_CONF_LIBS,
  HP_CONF_SEGMENTS,
  HP_CONF_BACKING,
  HP_CONF_CACHE,
  HP_CONF_POOL,
  HP_CONF_PROGRAM,
  HP_CONF_BAD			/* Does not parse: see error.  */
};

/* One line, as _dl_hugepage_conf_next returns it.  */
struct hp_conf_line
{
  enum hp_conf_key key;
  unsigned int lineno;		/* From 1.  */
  bool in_block;		/* After a `program' line.  */
  const char *args;		/* The words after the keyword (without a */
  size_t argslen;		/* trailing comment), for _conf_word.  */
  const char *error;		/* HP_CONF_BAD: why.  */
  unsigned int kinds;		/* HP_CONF_SEGMENTS: HP_KIND_*.  */
  unsigned char backings[HP_NBACKINGS];	/* HP_CONF_BACKING.  */
  int nbackings;
  long int pool;		/* HP_CONF_POOL: pages, or -1 for auto.  */
  /* KINDS, BACKINGS or POOL are set: a checking reader sets them as it
     checks; a reader of a file known to parse leaves them to
     _dl_hugepage_conf_value, for the lines that are used.  */
  bool valued;
  /* A lazy reader's line: only its key and scope are known yet; the
     line is [TEXT, TEXT_END), checked by _dl_hugepage_conf_use.  */
  bool pending;
  const char *text, *text_end;
};

/* Reads the lines of a file in memory.  */
struct hp_conf_reader
{
  const char *pos;
  const char *end;
  unsigned int lineno;
  bool in_block;
  unsigned int seen;		/* Keys given once, seen in this scope.  */
  bool checked;			/* Known to parse: skip the checks.  */
  bool lazy;			/* Check only the lines used.  */
};

/* Start reading the LEN bytes at BUF.  */
void _dl_hugepage_conf_start (struct hp_conf_reader *r, const char *buf,
			      size_t len);

/* Start reading a file that _dl_hugepage_conf_check found without
   error: the arguments are not checked again.  */
void _dl_hugepage_conf_start_checked (struct hp_conf_reader *r,
				      const char *buf, size_t len);

/* Start reading a file that has not been checked, checking only the
   lines the caller uses: each line comes with its key and scope only
   (its key from its first word), and _dl_hugepage_conf_use checks it
   and reads its arguments.  What ld.so does: the lines of other
   programs' blocks cost it no more than their first word.  */
void _dl_hugepage_conf_start_lazy (struct hp_conf_reader *r, const char *buf,
				   size_t len);

/* The arguments of LINE, from a lazy reader R, unchecked (ARGS and
   ARGSLEN set; _dl_hugepage_conf_use still checks it): for the words of
   a line that may not apply.  Nothing for a line of another reader.  */
void _dl_hugepage_conf_args (struct hp_conf_reader *r,
			     struct hp_conf_line *line);

/* Check LINE, from a lazy reader R, as a checking reader would have
   (the lines before it that the caller used count for `given twice'):
   false if it is bad (its key is then HP_CONF_BAD, its error says
   why).  True at once for a line of another reader.  */
bool _dl_hugepage_conf_use (struct hp_conf_reader *r,
			    struct hp_conf_line *line);

/* Move the lazy reader R past the lines of the block it is in, to its
   next `program' line (a line whose first word is that keyword) or the
   end: what a caller skips unread, cheaper than reading each line.  */
void _dl_hugepage_conf_skip_block (struct hp_conf_reader *r);

/* Read the next line into *LINE: false at the end.  */
bool _dl_hugepage_conf_next (struct hp_conf_reader *r,
			     struct hp_conf_line *line);

/* The next blank-separated word of [*P, END): true with *WORD, *LEN
   set and *P moved past it, or false at the end.  */
bool _dl_hugepage_conf_word (const char **p, const char *end,
			     const char **word, size_t *len);

/* Whether the LEN bytes at WORD are the word NAME (a string literal:
   inline, so that its length is a constant).  */
static inline bool
_dl_hugepage_conf_word_is (const char *word, size_t len, const char *name)
{
  return __builtin_strlen (name) == len
	 && __builtin_memcmp (word, name, len) == 0;
}

/* Set the kinds, backings or pool of LINE, a segments, backing or pool
   line of a file known to parse, if they are not yet.  */
void _dl_hugepage_conf_value (struct hp_conf_line *line);

/* Whether WORD (LEN bytes), a pattern of a `program' line, matches one
   of NAMES[0..NNAMES) (NULL entries are skipped).  */
bool _dl_hugepage_conf_program_matches (const char *word, size_t len,
					const char *const *names,
					size_t nnames);

/* Why ld.so must not use a policy file with these properties (from
   fstat of the open file), or NULL: it must be a regular file owned by
   root, writable by nobody else, and at most HP_CONF_MAX_SIZE bytes.  */
const char *_dl_hugepage_conf_distrust (bool regular, unsigned int uid,
					unsigned int mode,
					unsigned long long int size);

/* The longest path the names of a program may have, with its NUL.  */
#define HP_PATH_MAX 4096

/* How _dl_hugepage_program_names looks at the file system.  CTX is the
   caller's.  */
struct hp_names_io
{
  /* The target of the symbolic link PATH into BUF (at most SIZE bytes,
     no NUL added): its length, or <= 0 if PATH is no link.  */
  long int (*readlink) (void *ctx, const char *path, char *buf,
			size_t size);
  /* The current directory into BUF (SIZE bytes, NUL-terminated): its
     length with the NUL, as the getcwd system call gives it, or <= 0.  */
  long int (*getcwd) (void *ctx, char *buf, size_t size);
  /* The real path of the program the kernel executed into BUF (SIZE
     bytes, NUL-terminated), as /proc/self/exe gives it: BUF, or NULL
     if it cannot be had.  Asked for AT_SECURE programs only.  */
  const char *(*exe) (void *ctx, char *buf, size_t size);
  void *ctx;
};

/* The names a `program' line is matched against, into NAMES (pointing
   into NAME and BUF, four buffers of SIZE bytes: HP_PATH_MAX holds any
   path); returns how many (at most three), or, where SIZE is less than
   HP_PATH_MAX, (size_t) -1 if a path may not have fitted: the caller
   asks again with HP_PATH_MAX (ld.so tries a small buffer first, which
   takes no page of its own).

   An AT_SECURE program (SECURE) is known only by what the kernel
   executed: its real path (IO->exe, every symbolic link, `.' and `..'
   resolved by the kernel).  Its caller chose every other name:
   AT_EXECFN is the path given to execve, so `/path//prog',
   `/path/./prog', a linked directory or a symbolic link named after
   another program would otherwise pick the block, and an opt-out
   written for the program must hold however it is run.  Without it,
   it has no name, and no block applies to it.

   Other programs: NAME, the name they were run by (NULL: none, no
   names), so that a block can name a link such as python3; that name
   made absolute (against IO->getcwd) and normal (no `//', `.' or
   `..'); and their real path: for a program the kernel executed
   (BY_KERNEL) that name with the symbolic links of every component
   followed (IO->readlink, as the kernel resolved it; `..' lexically),
   so that /bin/x on a merged /usr matches a block for /usr/bin/x, else
   NAME after the symbolic links of its last component (up to eight,
   resolved lexically).  Not /proc/self/exe: the program's caller chose
   the name, and the first use of /proc/self costs a new process about
   15 us (three readlink calls of ordinary paths, about 2 us, resolve
   /bin/true).  ld.so and hugeld-conf both use this.  */
size_t _dl_hugepage_program_names (const char *name, bool by_kernel,
				   bool secure, const struct hp_names_io *io,
				   const char *names[3], char *buf,
				   size_t size);

/* What a whole file says.  */
struct hp_conf_summary
{
  unsigned int rules;		/* Lines that are not blank.  */
  unsigned int error_line;	/* The first bad line, or 0 ...  */
  const char *error;		/* ... and why.  */
  bool has_programs;		/* Whether it has `program' blocks.  */
  bool has_cache;		/* Whether it declares a shared cache.  */
};

/* Check the LEN bytes at BUF: every line (hugeld config check).  */
void _dl_hugepage_conf_check (const char *buf, size_t len,
			      struct hp_conf_summary *sum);

/* The outline of the LEN bytes at BUF, from each line's first word
   only, nothing checked (ERROR_LINE stays 0): its rules, whether it
   has program blocks and global cache lines.  What ld.so needs before
   _dl_hugepage_conf_resolve, which checks what applies.  */
void _dl_hugepage_conf_outline (const char *buf, size_t len,
				struct hp_conf_summary *sum);

/* The part [START, END) of the joined libs list that line LINE gave.  */
struct hp_conf_span
{
  unsigned int line;
  size_t start, end;
};

/* Room for the spans of a file of LEN bytes: one per libs line that
   gives a pattern, and each such line takes 6 bytes or more.  */
#define HP_CONF_MAX_SPANS(len) ((len) / 6 + 1)

/* The settings the file gives a program.  A line number of 0 means
   the file does not set it.  */
struct hp_conf_settings
{
  unsigned int block_line;	/* The `program' line that applied.  */
  unsigned int libs_line;	/* The first `libs' line used.  */
  size_t libslen;		/* Length of the joined pattern list.  */
  unsigned int segments_line;
  unsigned int kinds;
  unsigned int backing_line;
  unsigned char backings[HP_NBACKINGS];
  int nbackings;
  /* A line that applies to the program does not parse: the first one,
     and why; the file then gives the program nothing.  */
  unsigned int error_line;
  const char *error;
  /* The file declares a shared cache (a global cache line).  */
  bool has_cache;
  /* Where each libs line's patterns are in the joined list: NSPANS
     of them at SPANS, in order (none if the caller kept none).  */
  const struct hp_conf_span *spans;
  size_t nspans;
};

/* The line that gave the byte at OFFSET of a joined libs list, from
   its N SPANS, or 0.  */
unsigned int _dl_hugepage_conf_span_line (const struct hp_conf_span *spans,
					  size_t n, size_t offset);

/* The settings of the file at BUF (LEN bytes) for the main program
   known by NAMES[0..NNAMES) (the names it was run by and its real
   path; none if the file has no `program' block).  The patterns of
   the libs lines used are joined with `:' into LIBS, NUL-terminated;
   it must have room for LEN + 2 bytes.  Where each line's
   patterns are in it goes to SPANS (room for HP_CONF_MAX_SPANS (LEN)),
   unless SPANS is NULL.  One pass over the file, which stops at the
   end of the block that applies.

   Only the lines that apply to the program are checked: the global
   libs, segments and backing lines and the lines of no known keyword,
   the `program' line that applies (the others' patterns are matched as
   they are) and its block's lines; cache and pool lines are
   `hugeld cache sync''s.  If one of them does not parse, the file gives
   the program nothing (S says which line and why); a bad line in
   another program's block is that program's (`hugeld config check'
   lists every bad line).

   With SECURE (an AT_SECURE program: set-user-ID, set-group-ID or
   with file capabilities) the global lines are ignored: such a
   program gets only what the block naming it says (its libs, and the
   default segments and backings where the block gives none), and
   nothing if no block names it.  Its caller chose its name, its
   environment and its data, so nothing put on huge pages for it is
   decided by a rule written for other programs.  */
void _dl_hugepage_conf_resolve (const char *buf, size_t len,
				const char *const *names, size_t nnames,
				bool secure, struct hp_conf_settings *s,
				char *libs, struct hp_conf_span *spans);

#endif /* dl-hugepage-conf.h */
