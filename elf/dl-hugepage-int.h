/* hugeld: what ld.so's hugeld files share.
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

/* Internal to ld.so: what its hugeld files share.  By file:
   dl-hugepage.c	the hooks glibc calls, the settings, and the one
			load state (struct hp_load_state) they hand down
   dl-hugepage-select.c	deciding: selection and planning of an object
   dl-hugepage-map.c	mapping: trying the backings, moving a zone into
			place, mapping it again from the file
   dl-hugepage-back.c	the shared cache backing
   dl-hugepage-private.c
			the private backing (MAP_HUGETLB copies)
   dl-hugepage-thp.c	the transparent huge page backing
   dl-hugepage-pool.c	whether the process can have pool pages at all
   dl-hugepage-policy.c	the policy file
   dl-hugepage-io.c	input and output primitives
   The pure code (dl-hugepage-plan.c, -kinds.c, -dynamic.c, -match.c,
   -cache.c, -conf.c, -conf-program.c) has headers of its own, also
   built outside glibc.  */

#ifndef _DL_HUGEPAGE_INT_H
#define _DL_HUGEPAGE_INT_H 1

#include <errno.h>
#include <ldsodefs.h>
#include <sys/mman.h>
#include <dl-hugepage.h>
#include "dl-hugepage-cache.h"
#include "dl-hugepage-cgroup.h"
#include "dl-hugepage-dynamic.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-match.h"
#include "dl-hugepage-place.h"
#include "dl-hugepage-settings.h"

/* What ld.so keeps for the object it is putting on huge pages: its
   shared cache entry, looked up when the placement depends on it or at
   its first shareable zone (valid only while LOOKED), and whether its
   file mappings were marked MADV_HUGEPAGE.  _dl_hugepage_object_done
   ends it, for the next object.  */
struct hp_object_state
{
  bool thp_advised;
  bool looked;
  bool verify;			/* Compare the bytes before using them
				   (made on another device).  */
  int dirfd;			/* The version directory, or -1.  */
  int err;			/* Why not: an errno value or 0 ...  */
  const char *why;		/* ... and what.  */
  bool denied;			/* ERR is a security policy's refusal.  */
};

/* Close the shared cache entry *O holds, if any, and forget that it
   was looked up (dl-hugepage-back.c, which looks it up).  */
void _dl_hugepage_cache_close (struct hp_object_state *o) attribute_hidden;

/* End the object state *O, for the next object: close the shared cache
   entry it holds and forget it, and forget that the object's mappings
   were marked MADV_HUGEPAGE.  The hooks, selection and mapping each end
   it where an object's load ends; it lives here, with the state, so
   that none of them depends on another for it.  */
static inline void
_dl_hugepage_object_done (struct hp_object_state *o)
{
  _dl_hugepage_cache_close (o);
  o->thp_advised = false;
}

/* The state of the object being loaded, from _dl_hugepage_prepare to
   _dl_hugepage_apply.  Objects are mapped with the load lock held (the
   main program before any other thread exists), so one serves: the
   hooks in dl-hugepage.c own it and hand it down.  */
struct hp_load_state
{
  /* The object's plan, in hugeld's buffers (_dl_hugepage_plan_load
     sets it), or NULL before the first.  */
  struct hp_plan *plan;
  /* The plan for the object being loaded, or NULL.  */
  const struct hp_plan *current;
  const char *objname;
  const ElfW(Phdr) *phdr;
  size_t phnum;
  int type;			/* e_type.  */
  bool kernel;			/* Mapped by the kernel (PT_INTERP).  */
  bool textrel;
  /* How the object was placed: the enum hp_phase it was planned with
     where ld.so chose its address (-1 where it did not: the kernel did,
     or the planned address could not be had), and whether it was
     placed for its shared cache entry instead (for the thp backing's
     report).  */
  int phase;
  bool placed_for_cache;
  /* The error of the zone function that just returned is a security
     policy's refusal (_dl_hugepage_denied): the report says so.  */
  bool denied;
  struct hp_object_state object;
  /* With LD_DEBUG=hugepages, what an ENOMEM of the backing being tried
     means where that is not the pool's (_dl_hugepage_enomem_why), or
     NULL.  */
  const char *enomem;
  /* What every executable mapping of the object gets besides PROT_EXEC
     (PROT_BTI on AArch64 where glibc gives it: dl-hugepage-arch.h),
     set before the plan is applied.  */
  int exec_prot;
};

/* ld.so's large buffers, allocated when one is first needed
   (_dl_hugepage_buffers).  As static arrays they would lie in .bss
   between glibc's own variables, spreading those over pages that every
   process would fault in, whether or not it selects anything (four
   more faults for /bin/true).  Used, like the load state, with the
   load lock held or before any other thread exists.  */
struct hp_buffers
{
  struct hp_plan plan;			/* The load state's.  */
#ifdef __aarch64__
  struct hp_plan cont_plan;		/* Its 64 KiB zones
					   (dl-hugepage-cont.c).  */
  struct hp_range cont_left[HP_MAX_RUNS]; /* The text of the 2 MiB
					   plan left on ordinary pages.  */
  size_t ncont_left;
  struct hp_zone cont_covered[HP_MAX_RUNS]; /* What of its zones is on
					   huge pages.  */
  struct hp_zone cont_pieces[HP_MAX_RUNS + 1]; /* A 64 KiB zone less
					   them.  */
#endif
  ElfW(Phdr) phdr[HP_MAX_PHNUM];	/* A table the caller does not keep.  */
  char exe[HP_PATH_MAX];		/* The program's file, for the
					   settings.  */
  char main_path[HP_PATH_MAX];		/* The main program's file, when the
					   kernel mapped it.  */
  char policy_paths[4 * HP_PATH_MAX];	/* Its names, for the policy
					   file's blocks, where they do
					   not fit a small buffer.  */
  char thp_msg[512];			/* The thp backing's report.  */
};

/* The buffers, allocated on the first call; NULL (errno set) if they
   cannot be, and the caller goes on without what needs them.  */
struct hp_buffers *_dl_hugepage_buffers (void) attribute_hidden;

/* What became of one zone, with one backing.  */
enum hp_outcome
{
  HP_DONE,			/* On huge pages.  */
  HP_THP,			/* Transparent huge pages asked for.  */
  HP_FALLBACK,			/* On ordinary pages, as before.  */
  HP_SHORT,			/* As HP_FALLBACK, because the pool could
				   not reserve all of the zone's pages:
				   part of it may fit
				   (_dl_hugepage_apply_plan).  */
  HP_RESTORED,			/* Mapped again from the file.  */
  HP_LOST,			/* Not mapped any more: the load fails.  */
};

static inline bool
hp_debug (void)
{
  return __glibc_unlikely (GLRO(dl_debug_mask) & DL_DEBUG_HUGEPAGES);
}

/* The mmap protection of segment flags PFLAGS.  */
static inline int
hp_prot (int pflags)
{
  return (((pflags & PF_R) ? PROT_READ : 0)
	  | ((pflags & PF_W) ? PROT_WRITE : 0)
	  | ((pflags & PF_X) ? PROT_EXEC : 0));
}

/* The protection of a mapping of LS's object with segment flags
   PFLAGS: hp_prot, and for code what glibc adds (LS->exec_prot).  */
static inline int
hp_map_prot (const struct hp_load_state *ls, int pflags)
{
  int prot = hp_prot (pflags);
  return (prot & PROT_EXEC) != 0 ? prot | ls->exec_prot : prot;
}

/* The settings (dl-hugepage.c), set once by _dl_hugepage_init.  */

/* LD_HUGEPAGE_LIBS is set (or the policy file selects), the mode is
   normal and some kind of segment is selected.  */
extern bool _dl_hugepage_active attribute_hidden;
/* LD_HUGEPAGE_SEGMENTS: the HP_KIND_* selected.  */
extern unsigned int _dl_hugepage_kinds attribute_hidden;
/* LD_HUGEPAGE_BACKING: the backings to try, in order.  */
extern unsigned char _dl_hugepage_backings[HP_NBACKINGS] attribute_hidden;
extern int _dl_hugepage_nbackings attribute_hidden;
/* The line of the policy file the libs came from, or 0 (a variable).  */
extern unsigned int _dl_hugepage_libs_line attribute_hidden;

/* Deciding (dl-hugepage-select.c).  */

/* Plan LS's object, open as FD, into LS->plan (with the load bias BIAS
   if HAVE_BIAS).  False (said with LD_DEBUG=hugepages) if there is no
   memory for the plan: it stays on ordinary pages.  Once it has
   returned true it always does.  */
bool _dl_hugepage_plan_load (struct hp_load_state *ls, int fd,
			     bool have_bias, ElfW(Addr) bias)
  attribute_hidden;

/* Decide whether the object in FD at PATH (also known as ALIAS, if not
   NULL: the name a program was run by), whose program headers and type
   the caller put into LS, is selected, and if so plan it into LS->plan
   (with the load bias BIAS if HAVE_BIAS).  Sets LS->current and
   returns true if there is something to map.  */
bool _dl_hugepage_select_and_plan (struct hp_load_state *ls,
				   const char *path, const char *alias,
				   int fd, bool have_bias, ElfW(Addr) bias)
  attribute_hidden;

/* The same for the main program the kernel mapped, MAIN_MAP (its
   program headers where the kernel put them, with the load bias BIAS),
   found through /proc/self/exe and checked to be the file in memory:
   its descriptor, with LS planned, or -1 if there is nothing to map.  */
int _dl_hugepage_select_main (struct hp_load_state *ls,
			      const struct link_map *main_map,
			      ElfW(Addr) bias)
  attribute_hidden;

/* Moving the main program (dl-hugepage-move.c).  */

/* LS's object is the position-independent main program the kernel
   mapped at load bias KBIAS, MAIN_MAP (before rtld_setup_main_map),
   open as FD and planned there.  Where the backings would serve it at
   the address ld.so would choose for it (its shared cache entry's, or
   its text at its file phase for thp), move it there: its mappings,
   MAIN_MAP's program headers and entry, *USER_ENTRY, the auxiliary
   vector and the kernel's copy of it.  LS is planned again for where
   it is then, and LS->current set as _dl_hugepage_select_and_plan
   sets it.  Returns whether it moved; a failure leaves everything
   where the kernel put it, and says why under LD_DEBUG=hugepages.  */
bool _dl_hugepage_move_main (struct hp_load_state *ls,
			     struct link_map *main_map,
			     ElfW(Addr) *user_entry, ElfW(Addr) kbias,
			     int fd)
  attribute_hidden;

/* ld.so was run as a command to run PROGRAM (`ld.so PROGRAM', as
   hugeld run and a service's drop-in run it): give the process the
   command name the kernel would have given PROGRAM run directly (the
   last component of its path), so that ps, pidof, pgrep and systemctl
   name it as without hugeld.  Only where hugeld selects something:
   otherwise ld.so stays the stock loader.  A refusal (a seccomp
   filter) changes nothing.  */
void _dl_hugepage_name_process (const char *program) attribute_hidden;

/* Mapping (dl-hugepage-map.c).  */

/* Apply LS's current plan to L, mapped from FD, trying the backings in
   order for each zone.  With VERIFY, the bytes mapped now must be the
   file's (a program the kernel mapped: a debugger's breakpoints or
   uprobes may be in its text already).  Returns NULL, or the error
   that must fail the load: a zone that could be neither put on huge
   pages nor mapped again.  */
const char *_dl_hugepage_apply_plan (struct hp_load_state *ls,
				     struct link_map *l, int fd, bool verify)
  attribute_hidden;

/* Whether every page of [ADDR, ADDR + LEN) is mapped.  */
bool _dl_hugepage_mapped (void *addr, size_t len) attribute_hidden;

/* Whether the kernel can move hugetlb mappings with mremap (found out
   once); if not, *ERR and *WHAT say why, and *DENIED whether a
   security policy refused the probe's MAP_HUGETLB mapping
   (hp_hugetlb_denied).  */
bool _dl_hugepage_kernel_can_move (int *err, const char **what,
				   bool *denied) attribute_hidden;

/* What the report says when this process may not make a copy of code
   executable: a write-execute policy, not the pool, kept the text on
   ordinary pages.  */
#define HP_WX_REFUSED \
  "mprotect PROT_EXEC (this process may not make written memory " \
  "executable: systemd's MemoryDenyWriteExecute=, prctl PR_SET_MDWE " \
  "or SELinux execmem)"

/* Whether this process may make a private copy of code executable;
   if not, sets *ERR and *WHAT (HP_WX_REFUSED).  Found out once.  */
bool _dl_hugepage_may_exec_copy (int *err, const char **what)
  attribute_hidden;

#ifndef MAP_HUGE_SHIFT
# define MAP_HUGE_SHIFT 26
#endif
/* The mmap flag of a MAP_HUGETLB mapping of 2 MiB pages.  */
#define HP_MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)

/* Whether ERR, from an anonymous MAP_HUGETLB mapping, is a security
   policy's refusal.  The mapping fails with ENOMEM or EINVAL of its
   own; EACCES comes from a security module that mediates the memory's
   file on the kernel's internal hugetlbfs (AppArmor refuses its path,
   which no mount namespace reaches, in every profile without
   attach_disconnected).  */
static inline bool
hp_hugetlb_denied (int err)
{
  return err == EACCES;
}

/* The steps that fail in more than one place, as the report names
   them.  */
#define HP_STEP_MMAP_HUGETLB "mmap MAP_HUGETLB"
#define HP_STEP_MMAP_CACHE "mmap of the cache file"
#define HP_STEP_MADV_HUGEPAGE "madvise MADV_HUGEPAGE"
#define HP_STEP_PREAD "pread"

/* Fill TMP, new memory of zone Z's size for LS's object (load bias
   L_ADDR, open as FD), with the zone's bytes from the file; with
   VERIFY, they must equal what is mapped there now (a program the
   kernel mapped may already carry a debugger's breakpoints or uprobes
   in its text, which must be neither dropped nor copied); give it the
   zone's protection and move it over the zone.  What
   _dl_hugepage_move_zone says, or HP_FALLBACK with TMP unmapped and
   *ERR and *WHAT set.  The private copy and the thp backing's copy
   both end with this.  */
enum hp_outcome _dl_hugepage_fill_and_move (const struct hp_load_state *ls,
					    void *tmp,
					    const struct hp_zone *z,
					    ElfW(Addr) l_addr, int fd,
					    bool verify, int *err,
					    const char **what)
  attribute_hidden;

/* After a failed attempt to replace zone Z of LS's object, with load
   bias L_ADDR: HP_FALLBACK if its ordinary pages are all still mapped,
   else map them again from FD exactly as the stock loader had them
   (HP_RESTORED), or HP_LOST with *ERR.  */
enum hp_outcome _dl_hugepage_unhole (const struct hp_load_state *ls,
				     const struct hp_zone *z,
				     ElfW(Addr) l_addr, int fd, int *err)
  attribute_hidden;

/* Move TMP, the zone's new pages, over zone Z in one mremap: HP_DONE,
   or (TMP unmapped, *ERR and *WHAT set) what _dl_hugepage_unhole
   says.  */
enum hp_outcome _dl_hugepage_move_zone (const struct hp_load_state *ls,
					void *tmp, const struct hp_zone *z,
					ElfW(Addr) l_addr, int fd, int *err,
					const char **what) attribute_hidden;

/* The backings (HP_BACKING_TABLE in dl-hugepage-place.h).  */

/* A backing's zone function, _dl_hugepage_NAME_zone: put zone Z
   (planned for load bias BIAS) of LS's object, now at load bias
   L_ADDR and open as FD, on the backing's pages.  With VERIFY, the
   bytes mapped now must be what it puts there (see
   _dl_hugepage_apply_plan).  Returns HP_DONE (on huge pages), HP_THP
   (transparent huge pages asked for), HP_FALLBACK (the ordinary pages
   are still there, all of them), HP_SHORT (the same, because the pool
   had no room for all of the zone's pages), HP_RESTORED (they were
   mapped again from the file) or HP_LOST; sets *ERR to an errno value,
   0 where the backing was not tried or has nothing (then *WHAT says
   why), and *WHAT to the step that failed or what was done.  The zone
   functions are: _dl_hugepage_shared_zone (dl-hugepage-back.c: the
   hugetlbfs cache's read-only entry), _dl_hugepage_private_zone
   (dl-hugepage-private.c: a private MAP_HUGETLB copy from the pool) and
   _dl_hugepage_thp_zone (dl-hugepage-thp.c: page-cache huge pages for
   a read-only zone, an anonymous MADV_HUGEPAGE copy for a writable
   one).  */
typedef enum hp_outcome hp_zone_fn (struct hp_load_state *ls,
				    const struct hp_zone *z, uint64_t bias,
				    ElfW(Addr) l_addr, int fd, bool verify,
				    int *err, const char **what);
#define HP_BACKING_ZONE_FN(id, name, flags) \
  extern hp_zone_fn _dl_hugepage_##name##_zone attribute_hidden;
HP_BACKING_TABLE (HP_BACKING_ZONE_FN)
#undef HP_BACKING_ZONE_FN

/* How many huge pages, fewer than N, a private copy can reserve from
   the pool now, a reservation of N having just failed (the private
   backing's HP_SHORT; dl-hugepage-private.c).  */
size_t _dl_hugepage_private_room (size_t n) attribute_hidden;

/* Whether the shared cache has a trusted entry for LS's object, open
   as FD, with a file for at least one of PLAN's shareable zones,
   looked up into LS->object (which keeps the entry for
   _dl_hugepage_shared_zone).  */
bool _dl_hugepage_cache_has_zone (struct hp_load_state *ls,
				  const struct hp_plan *plan, int fd)
  attribute_hidden;

/* The pool (dl-hugepage-pool.c).  */

/* Whether the process can have 2 MiB pages from the pool at all.  */
enum hp_pool_state
{
  HP_POOL_SOME,			/* A pool, or nothing could be read.  */
  HP_POOL_NONE,			/* Neither persistent nor surplus pages
				   configured.  */
  HP_POOL_CGROUP_NONE		/* The process's hugetlb cgroup allows
				   none.  */
};

/* The enum hp_pool_state of the machine and the process
   (dl-hugepage-pool.c).  */
int _dl_hugepage_pool_state (void) attribute_hidden;

/* The 2 MiB pages of the pool that are free and not reserved (sysfs's
   free_hugepages less resv_hugepages), or -1 if they cannot be read: a
   first guess at what a mapping can reserve, which the hugetlb cgroup
   and the surplus pages make smaller or larger.  */
long int _dl_hugepage_pool_unreserved (void) attribute_hidden;

/* Input and output primitives (dl-hugepage-io.c).  */

/* Read from FD at OFFSET until LEN bytes are in or the file ends.
   Returns the number of bytes read, or -1 (errno set).  */
ssize_t _dl_hugepage_pread_full (int fd, void *buf, size_t len,
				 off64_t offset) attribute_hidden;

/* Whether the LEN bytes at ADDR, a private mapping of the kernel-mapped
   main program, are all its file's, as /proc/self/pagemap says of
   their pages: each one not yet faulted in or a page of the file's
   page cache, none a private copy (a debugger's breakpoint written
   with ptrace, or a uprobe, puts one there; the file itself is the
   running executable, which nobody may write).  False if pagemap
   cannot be read: the caller compares the bytes then.  */
bool _dl_hugepage_pages_from_file (ElfW(Addr) addr, size_t len)
  attribute_hidden;

/* Start reading the file bytes of a selected object (descriptor FD,
   program headers PHDR[0..PHNUM)) that ld.so reads before and right
   after mapping it, without waiting for them (readahead, in systemd's
   @system-service and Docker's default seccomp lists; an error is
   ignored), in the order it needs them: its PT_GNU_RELRO, where the
   dynamic section, the GOT and the relocated pointers are; the page
   each zero fill starts in; and the file's first 2 MiB, where the
   dynamic symbol, string and hash tables usually are (DT_NEEDED
   names, symbol lookups).  Nothing for an object without a segment of
   2 MiB, which has no zone to be quick for.  In a cold start
   each of these reads would otherwise wait for the disk in turn, and
   none of them costs a huge page: the ELF header's read has already
   put small folios in the first 2 MiB, the writable segment is copied
   or mapped privately, and what the page cache holds already is left
   as it is.  */
void _dl_hugepage_readahead (int fd, const ElfW(Phdr) *phdr, size_t phnum)
  attribute_hidden;

/* Read, with one pread of a byte, the file page of each of PHDR's
   PT_LOAD segments whose end glibc's _dl_map_segments zeroes (the last
   file page of a segment with a zero fill): its memset is the first
   touch of that page, and a fault in a file mapping that is not marked
   MADV_HUGEPAGE yet reads the device's readahead window around it (8
   MiB on many disks) in small folios, which can reach into the zones
   before the segment, where the thp backing wants 2 MiB folios.  A
   pread of one page that nothing near it was read before reads that
   page alone (after _dl_hugepage_readahead, it waits for the page
   already on its way).  Past the end of a cut file it reads nothing.  */
void _dl_hugepage_read_zero_fill_pages (int fd, const ElfW(Phdr) *phdr,
					size_t phnum) attribute_hidden;

/* The hp_read_fn of the pure readers (_dl_hugepage_read_dynamic,
   _dl_hugepage_read_build_id): _dl_hugepage_pread_full from the
   descriptor *(int *) FD.  */
long int _dl_hugepage_read_fd (void *fd, void *buf, size_t len,
			       uint64_t offset) attribute_hidden;

/* Read up to SIZE bytes of the file NAME (a small sysfs, procfs or
   cgroup file) into BUF: the number read, or minus the error number.  */
ssize_t _dl_hugepage_read_file (const char *name, void *buf, size_t size)
  attribute_hidden;

/* madvise (ADDR, LEN, ADVICE): 0, or -1 with errno set.  */
int _dl_hugepage_madvise (void *addr, size_t len, int advice)
  attribute_hidden;

/* Whether ERR, the error of opening NAME (relative to DIRFD) for
   reading, is a security policy's refusal (Landlock, AppArmor,
   systemd's RestrictFileSystems=...), not the file's modes': EACCES
   or EPERM although the modes let this process read it.  With NAME
   NULL (a mapping of a file open for reading), EACCES or EPERM is.  */
bool _dl_hugepage_denied (int err, int dirfd, const char *name)
  attribute_hidden;

/* What the report adds to an error that _dl_hugepage_denied says a
   security policy gave: one clear reason, the same everywhere.  */
#define HP_DENIED_WORDS \
  "denied by a security policy (Landlock or a security module)"
#define HP_DENIED ", " HP_DENIED_WORDS

/* ld.so has no strerror: the name of ERR (EINVAL, ...).  */
const char *_dl_hugepage_errno_name (int err) attribute_hidden;

/* What an ENOMEM from an anonymous private mmap of LEN bytes (writable
   if DATA) means when it is a limit of the process: "ENOMEM, over
   RLIMIT_AS ..." and the like; NULL if none explains it (then the pool,
   for a hugetlb mapping).  For the report only: it maps and unmaps LEN
   bytes to find out.  */
const char *_dl_hugepage_enomem_why (size_t len, bool data)
  attribute_hidden;

/* The policy file (dl-hugepage-policy.c).  */

/* The policy file, as ld.so read it (dl-hugepage-policy.c).  */
struct hp_policy
{
  char *buf;			/* Its bytes, or NULL: not used.  */
  size_t len;
  char *libs;			/* The patterns it gives the program.  */
  struct hp_conf_span *spans;	/* The lines they come from: NSPANS.  */
  size_t nspans;
  unsigned int block_line;	/* The program block that applies.  */
  bool cache_declared;		/* It has `cache' lines.  */
};
extern struct hp_policy _dl_hugepage_policy_file attribute_hidden;

/* Whether the policy file of a program the kernel started may be read
   later than start-up (_dl_hugepage_settle): not for a set-user-ID
   program, nor one run by a relative name (their names are looked up
   at once); then the name it was run by is kept.  */
bool _dl_hugepage_policy_defer (void) attribute_hidden;

/* Read the policy file _dl_hugepage_init left for later, if it did, and
   complete the settings: whether hugeld acts in this process
   (_dl_hugepage_active).  Called where an object that may fill a huge
   page is about to be selected; cheap when nothing waits.  errno is
   left as it was.  */
bool _dl_hugepage_settle (void) attribute_hidden;

/* Read HP_CONF_FILE if it is to be trusted and parses, into the
   sources *S with the main program's names for its blocks (PROGRAM:
   see _dl_hugepage_init).  Returns false if there is no file to use
   (said under LD_DEBUG=hugepages).  */
bool _dl_hugepage_policy_load (const char *program, struct hp_sources *s)
  attribute_hidden;

/* The file was used and its program block BLOCK (0: none) applied,
   CACHE says whether it declares a shared cache and NSPANS how many
   spans say where its libs came from: keep them for the reports and
   the private backing, and say so under LD_DEBUG=hugepages.  */
void _dl_hugepage_policy_report (unsigned int block, bool cache,
				 size_t nspans)
  attribute_hidden;

/* The file's LINE, which applies to the program, does not parse (WHY):
   nothing of the file applies; say so under LD_DEBUG=hugepages.  */
void _dl_hugepage_policy_ignored (unsigned int line, const char *why)
  attribute_hidden;

/* Whether the private backing may take huge pages from the pool now;
   if not, sets *WHAT to why.  */
bool _dl_hugepage_private_allowed (const char **what) attribute_hidden;

/* The line of the policy file that gave the pattern PAT (a pointer into
   _dl_hugepage_policy_file.libs), or 0.  */
unsigned int _dl_hugepage_policy_libs_line (const char *pat)
  attribute_hidden;

/* " (/etc/hugeld.conf line N)" for a setting from line LINE of the
   policy file, else "" (BUF, SIZE bytes, has room for it: 64 do).  */
const char *_dl_hugepage_policy_from (unsigned int line, char *buf,
				      size_t size) attribute_hidden;

#endif /* dl-hugepage-int.h */
