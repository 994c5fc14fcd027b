/* hugeld-plan --cache: what `hugeld cache add' puts on hugetlbfs.
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

/* The names come from the loader's own elf/dl-hugepage-cache.c and the
   zones from its planner, with the settings ld.so uses for an object
   it maps itself, so that ld.so finds exactly what is made here.  And
   whether ld.so would map each zone from the cache now: the entry
   looked up as hp_cache_open and hp_open_zone do
   (elf/dl-hugepage-back.c), with the same checks of what is found.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "dl-hugepage-cache.h"
#include "hugeld-json.h"
#include "hugeld-plan.h"

/* Open NAME in DIRFD as ld.so's hp_openat does: read-only, never
   through a symbolic link, never blocking.  */
static int
cache_openat (int dirfd, const char *name, int flags)
{
  return openat (dirfd, name, flags | O_RDONLY | O_NOFOLLOW | O_NONBLOCK
		 | O_NOCTTY | O_CLOEXEC);
}

/* Open the directory NAME in DIRFD and check it as ld.so's hp_open_dir
   does: the descriptor, or -1 with why not in *WHY (MISSING if it is
   not there; the error's text in BUF, SIZE bytes, for others).  */
static int
cache_open_dir (int dirfd, const char *name, const char *missing,
		const char **why, char *buf, size_t size)
{
  int fd = cache_openat (dirfd, name, O_DIRECTORY);
  if (fd < 0)
    {
      if (errno == ENOENT)
	*why = missing;
      else if (errno == ELOOP || errno == ENOTDIR)
	*why = "not trusted: a symbolic link or not a directory";
      else
	{
	  snprintf (buf, size, "opening the cache: %s", strerror (errno));
	  *why = buf;
	}
      return -1;
    }
  struct stat st;
  *why = (fstat (fd, &st) != 0 ? "not trusted: fstat failed"
	  : _dl_hugepage_cache_distrust (true, st.st_mode, st.st_uid));
  if (*why != NULL)
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* The version directory of the entry named INODE and VERSION, opened
   as ld.so's hp_cache_open opens it: the descriptor, or -1 with why
   not in *WHY (BUF, SIZE bytes, may hold it).  */
static int
cache_open_entry (const char *inode, const char *version, const char **why,
		  char *buf, size_t size)
{
  int top = cache_open_dir (AT_FDCWD, HP_CACHE_DIR,
			    "no cache (" HP_CACHE_DIR " does not exist)", why,
			    buf, size);
  if (top < 0)
    return -1;
  int ino = cache_open_dir (top, inode, "no cache entry for this file", why,
			    buf, size);
  close (top);
  if (ino < 0)
    return -1;
  int dir = cache_open_dir (ino, version, "stale cache entry (the file "
			    "changed after `hugeld cache add')", why, buf,
			    size);
  close (ino);
  return dir;
}

/* Why ld.so would not map zone Z (for bias BIAS, named NAME) from the
   entry open as DIRFD, or NULL if it would (hp_open_zone); BUF (SIZE
   bytes) may hold the reason.  */
static const char *
zone_absent_why (int dirfd, const struct hp_zone *z, const char *name,
		 char *buf, size_t size)
{
  int zfd = cache_openat (dirfd, name, 0);
  if (zfd < 0)
    {
      if (errno == ENOENT)
	return "no cache entry for this zone (made for other segments or "
	       "another placement)";
      if (errno == ELOOP)
	return "not trusted: a symbolic link";
      snprintf (buf, size, "opening the zone's cache file: %s",
		strerror (errno));
      return buf;
    }
  struct stat st;
  struct statfs sfs;
  const char *why = "not trusted: fstat failed";
  if (fstat (zfd, &st) == 0)
    {
      memset (&sfs, 0, sizeof sfs);
      if (fstatfs (zfd, &sfs) != 0)
	sfs.f_type = 0;
      why = _dl_hugepage_cache_zone_distrust (st.st_mode, st.st_uid, st.st_size,
				z->end - z->start, sfs.f_type, sfs.f_bsize);
    }
  close (zfd);
  return why;
}

/* What a program reads to find its own mappings.  A program that
   finds the file its code is mapped from there, opens that path and
   maps part of it again at the offset it read (V8 does this with the
   builtins embedded in its text, at startup: CodeRange::
   RemapEmbeddedBuiltins) cannot when that file is a cache zone on
   hugetlbfs: hugetlbfs maps only at offsets that are multiples of
   2 MiB, the mmap fails, and V8 aborts.  No static look at an object
   tells whether it maps its own code again, but one that does so must
   first read one of these; an object that holds none of them in the
   bytes it loads never looks at its own mappings, and its text can be
   served from the cache.  The text of one that does is not cached
   (its read-only data is: only code is mapped again) and gets the
   next backing, private or thp, whose mappings name no hugetlbfs file
   (private: an anonymous huge page mapping no path opens; thp: the
   object's own file).  */
static const char *const self_maps_names[] =
  {
    "/proc/self/maps",
    "/proc/self/smaps",
    "/proc/self/map_files",
  };

/* Whether [OFF, END) of FD holds one of self_maps_names (*NAME is then
   the one found).  Holes (SEEK_DATA) are skipped: they hold zeros, and
   a sparse file that claims gigabytes costs nothing.  */
static bool
scan_range (int fd, uint64_t off, uint64_t end, const char **name)
{
  enum { CHUNK = 1 << 20, OVERLAP = 64 };
  static char buf[CHUNK + OVERLAP];
  size_t kept = 0;
  while (off < end)
    {
      off_t data = lseek (fd, off, SEEK_DATA);
      if (data < 0 && errno == ENXIO)
	return false;
      if (data > (off_t) off)
	{
	  /* A hole: no name goes across it.  */
	  off = data;
	  kept = 0;
	  if (off >= end)
	    return false;
	}
      off_t hole = lseek (fd, off, SEEK_HOLE);
      uint64_t stop = (hole > (off_t) off && (uint64_t) hole < end
		       ? (uint64_t) hole : end);
      size_t want = stop - off < CHUNK ? stop - off : CHUNK;
      long int n = read_fd (&fd, buf + kept, want, off);
      if (n <= 0)
	return false;
      size_t len = kept + n;
      for (size_t k = 0; k < sizeof self_maps_names
	     / sizeof self_maps_names[0]; ++k)
	if (memmem (buf, len, self_maps_names[k],
		    strlen (self_maps_names[k])) != NULL)
	  {
	    *name = self_maps_names[k];
	    return true;
	  }
      /* Keep the tail: a name may straddle two reads.  */
      kept = len < OVERLAP ? len : OVERLAP;
      memmove (buf, buf + len - kept, kept);
      off += n;
    }
  return false;
}

/* Whether the data the object open as FD loads holds one of
   self_maps_names; *NAME is then the one found.  Where the object has
   section headers, that is its allocated sections of data that are not
   code (.rodata, .data.rel.ro, .data: where a name is written as
   bytes; code can only build one, and no copy of it is then in the
   file); where it has none, all its PT_LOAD segments' file contents.  */
static bool
looks_at_own_mappings (const struct object *o, int fd, const char **name)
{
  ElfW(Ehdr) eh;
  if (read_fd (&fd, &eh, sizeof eh, 0) == (long int) sizeof eh
      && eh.e_shnum > 0 && eh.e_shoff != 0
      && eh.e_shentsize == sizeof (ElfW(Shdr)))
    {
      bool found = false;
      for (size_t i = 0; i < eh.e_shnum && !found; ++i)
	{
	  ElfW(Shdr) sh;
	  if (read_fd (&fd, &sh, sizeof sh, eh.e_shoff + i * sizeof sh)
	      != (long int) sizeof sh)
	    break;
	  if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_ALLOC) != 0
	      && (sh.sh_flags & SHF_EXECINSTR) == 0 && sh.sh_size > 0
	      && sh.sh_offset < o->file_size)
	    found = scan_range (fd, sh.sh_offset,
				sh.sh_size < o->file_size - sh.sh_offset
				? sh.sh_offset + sh.sh_size : o->file_size,
				name);
	}
      return found;
    }
  for (size_t i = 0; i < o->nphdr; ++i)
    {
      const ElfW(Phdr) *ph = &o->phdr[i];
      if (ph->p_type != PT_LOAD || ph->p_filesz == 0
	  || ph->p_offset >= o->file_size)
	continue;
      uint64_t end = ph->p_offset + ph->p_filesz;
      if (end > o->file_size || end < ph->p_offset)
	end = o->file_size;
      if (scan_range (fd, ph->p_offset, end, name))
	return true;
    }
  return false;
}

/* statfs's f_type of overlayfs: its files' device is the mount's, not
   that of the file system that holds their bytes, so an entry made
   from one records no device and ld.so always compares it.  */
#define HP_OVERLAYFS_MAGIC 0x794c7630

/* The identity of FILE as ld.so computes it from its descriptor, and
   whether it is on overlayfs (ld.so then compares its bytes instead of
   its device: dl-hugepage-cache.h).  */
static void
identity_of (const struct object *o, struct hp_identity *id, bool *overlay,
	     const char **self_maps)
{
  struct stat st;
  int fd = open_object (o->file, &st);
  HP_IDENTITY_SET_STAT (id, &st);
  _dl_hugepage_read_build_id (id, o->phdr, o->nphdr, read_fd, &fd);
  struct statfs sfs;
  *overlay = fstatfs (fd, &sfs) == 0 && sfs.f_type == HP_OVERLAYFS_MAGIC;
  *self_maps = NULL;
  looks_at_own_mappings (o, fd, self_maps);
  close (fd);
}

/* The member "identity": the identity ID of the file, as ld.so names
   its cache entry by it (the build ID in hexadecimal, or null).  */
static void
print_identity (struct json *j, const struct hp_identity *id)
{
  json_key (j, "identity");
  json_object (j);
  json_kuint (j, "dev", id->dev);
  json_kuint (j, "ino", id->ino);
  json_kuint (j, "size", id->size);
  json_kuint (j, "mtime_ns", id->mtime_sec * 1000000000 + id->mtime_nsec);
  json_kuint (j, "ctime_ns", id->ctime_sec * 1000000000 + id->ctime_nsec);
  if (id->build_id_len == 0)
    json_knull (j, "build_id");
  else
    {
      char hex[2 * HP_BUILD_ID_MAX + 1];
      for (size_t i = 0; i < id->build_id_len; ++i)
	snprintf (hex + 2 * i, 3, "%02x", id->build_id[i]);
      json_kstr (j, "build_id", hex);
    }
  json_end (j);
}

/* Zone Z, named NAME, as an element of "zones": where it is in the
   object and the file, whether ld.so would map it from the cache
   now, and why not (ABSENT, or NULL).  */
static void
print_cache_zone (struct json *j, const struct hp_zone *z, const char *name,
		  const char *absent)
{
  json_object (j);
  json_kstr (j, "name", name);
  json_kstr (j, "kind", _dl_hugepage_kind_name (z->kind));
  json_kuint (j, "start", z->start);
  json_kuint (j, "end", z->end);
  json_kuint (j, "size", z->end - z->start);
  json_kuint (j, "copy_offset", z->copy_start - z->start);
  json_kuint (j, "copy_len", z->copy_len);
  json_kuint (j, "copy_need", z->copy_need);
  json_kuint (j, "fileoff", z->fileoff);
  json_kbool (j, "present", absent == NULL);
  json_kstr (j, "absent_why", absent);
  json_end (j);
}

/* The elements of "zones": the zones of PLAN (of O) that the cache
   entry holds, each looked up in the entry open as DIRFD (if >= 0;
   else absent for LOOKUP).  The text is left out if SELF_MAPS
   (*TEXT_LEFT_OUT is then set where it would be a zone).  Returns the
   number of zones written.  */
static size_t
print_cache_zones (struct json *j, const struct object *o,
		   const struct hp_plan *plan, int dirfd, const char *lookup,
		   const char *self_maps, bool *text_left_out)
{
  size_t n = 0;
  for (size_t i = 0; i < plan->nzones; ++i)
    {
      const struct hp_zone *z = &plan->zones[i];
      if (!_dl_hugepage_zone_shareable (z, o->textrel))
	continue;
      if (self_maps != NULL && z->kind == HP_KIND_TEXT)
	{
	  *text_left_out = true;
	  continue;
	}
      char name[HP_CACHE_NAME_MAX], absbuf[256];
      _dl_hugepage_cache_zone_name (z, plan->bias, name);
      print_cache_zone (j, z, name,
			dirfd < 0 ? lookup
			: zone_absent_why (dirfd, z, name, absbuf,
					   sizeof absbuf));
      ++n;
    }
  return n;
}

/* The member "notext": whether the text is left out (the entry then
   holds HP_CACHE_NOTEXT), and what was found (SELF_MAPS), or null.  */
static void
print_notext (struct json *j, const char *self_maps)
{
  if (self_maps == NULL)
    {
      json_knull (j, "notext");
      return;
    }
  json_key (j, "notext");
  json_object (j);
  json_kstr (j, "marker", HP_CACHE_NOTEXT);
  json_kstr (j, "found", self_maps);
  json_kstr (j, "why", HP_CACHE_NOTEXT_WHY);
  json_end (j);
}

/* O planned into PLAN as ld.so plans an object it maps itself, with
   the default segments and pages of PAGESIZE bytes: the zones of its
   cache entry.  */
static void
cache_plan (const struct object *o, uint64_t pagesize, struct hp_plan *plan)
{
  struct hp_settings s;
  _dl_hugepage_settings (&s, pagesize, HP_KIND_DEFAULT, o->type, false,
			 false, 0, o->textrel, HP_PHASE_FREE);
  s.file_size = o->file_size;
  _dl_hugepage_plan (o->phdr, o->phnum, &s, plan);
}

/* Why no entry is made for O, planned as PLAN, or NULL (before its
   zones are looked at).  */
static const char *
cache_why_not (const struct object *o, const struct hp_plan *plan)
{
  if (o->textrel)
    return "text relocations (ld.so writes to its code)";
  if (plan->error != HP_E_NONE)
    return _dl_hugepage_error_name (plan->error);
  return NULL;
}

void
print_cache (struct json *j, const struct object *o, uint64_t pagesize)
{
  struct hp_identity id;
  bool overlay;
  const char *self_maps;
  identity_of (o, &id, &overlay, &self_maps);
  char inode[HP_CACHE_NAME_MAX], version[HP_CACHE_NAME_MAX];
  char device[HP_CACHE_NAME_MAX];
  _dl_hugepage_cache_inode_name (&id, inode);
  _dl_hugepage_cache_version_name (&id, version);
  _dl_hugepage_cache_device_name (&id, device);
  static struct hp_plan plan;
  cache_plan (o, pagesize, &plan);
  const char *why = cache_why_not (o, &plan);

  json_key (j, "cache");
  json_object (j);
  json_kstr (j, "dir", HP_CACHE_DIR);
  json_kstr (j, "inode", inode);
  json_kstr (j, "version", version);
  json_kstr (j, "device", device);
  json_kbool (j, "overlay", overlay);
  print_identity (j, &id);
  /* What ld.so finds of the entry now.  */
  char lookbuf[256];
  const char *lookup = NULL;
  int dirfd = -1;
  if (why == NULL && plan.nzones > 0)
    dirfd = cache_open_entry (inode, version, &lookup, lookbuf,
			      sizeof lookbuf);
  json_kstr (j, "lookup", lookup);
  json_kuint (j, "bias", plan.bias);
  bool text_left_out = false;
  size_t n = 0;
  json_key (j, "zones");
  json_array (j);
  if (why == NULL)
    n = print_cache_zones (j, o, &plan, dirfd, lookup, self_maps,
			   &text_left_out);
  json_end (j);
  if (dirfd >= 0)
    close (dirfd);
  if (why == NULL && n == 0)
    why = (text_left_out
	   ? "no read-only zone but text fills a whole huge page, and "
	     HP_CACHE_NOTEXT_WHY
	   : "no read-only zone fills a whole huge page");
  print_notext (j, self_maps);
  json_kstr (j, "why_not", why);
  json_end (j);
}
