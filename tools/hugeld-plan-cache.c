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
#include <inttypes.h>
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

void
print_cache (const struct object *o, uint64_t pagesize)
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

  struct hp_settings s;
  static struct hp_plan plan;
  _dl_hugepage_settings (&s, pagesize, HP_KIND_DEFAULT, o->type, false,
			 false, 0, o->textrel, HP_PHASE_FREE);
  s.file_size = o->file_size;
  _dl_hugepage_plan (o->phdr, o->phnum, &s, &plan);
  const char *why = NULL;
  if (o->textrel)
    why = "text relocations (ld.so writes to its code)";
  else if (plan.error != HP_E_NONE)
    why = _dl_hugepage_error_name (plan.error);

  printf (",\n   \"cache\": {\"dir\": \"%s\", \"inode\": \"%s\", "
	  "\"version\": \"%s\", \"device\": \"%s\", \"overlay\": %s,"
	  "\n    \"identity\": {\"dev\": %" PRIu64
	  ", \"ino\": %" PRIu64 ", \"size\": %" PRIu64 ", \"mtime_ns\": %"
	  PRIu64 ", \"ctime_ns\": %" PRIu64 ", \"build_id\": ",
	  HP_CACHE_DIR, inode, version, device, overlay ? "true" : "false",
	  id.dev, id.ino, id.size,
	  id.mtime_sec * 1000000000 + id.mtime_nsec,
	  id.ctime_sec * 1000000000 + id.ctime_nsec);
  if (id.build_id_len == 0)
    printf ("null");
  else
    {
      putchar ('"');
      for (size_t i = 0; i < id.build_id_len; ++i)
	printf ("%02x", id.build_id[i]);
      putchar ('"');
    }
  /* What ld.so finds of the entry now.  */
  char lookbuf[256];
  const char *lookup = NULL;
  int dirfd = -1;
  if (why == NULL && plan.nzones > 0)
    dirfd = cache_open_entry (inode, version, &lookup, lookbuf,
			      sizeof lookbuf);
  printf ("},\n    \"lookup\": ");
  if (lookup == NULL)
    printf ("null");
  else
    json_string (lookup);
  printf (",\n    \"bias\": %" PRIu64 ", \"zones\": [", plan.bias);
  size_t n = 0;
  bool text_left_out = false;
  for (size_t i = 0; why == NULL && i < plan.nzones; ++i)
    {
      const struct hp_zone *z = &plan.zones[i];
      if (!_dl_hugepage_zone_shareable (z, o->textrel))
	continue;
      if (self_maps != NULL && z->kind == HP_KIND_TEXT)
	{
	  text_left_out = true;
	  continue;
	}
      char name[HP_CACHE_NAME_MAX];
      _dl_hugepage_cache_zone_name (z, plan.bias, name);
      printf ("%s\n     {\"name\": \"%s\", \"kind\": \"%s\", \"start\": %"
	      PRIu64 ", \"end\": %" PRIu64 ", \"size\": %" PRIu64
	      ", \"copy_offset\": %" PRIu64 ", \"copy_len\": %" PRIu64
	      ", \"copy_need\": %" PRIu64 ", \"fileoff\": %" PRIu64 ",\n"
	      "      \"present\": ",
	      n++ > 0 ? "," : "", name, _dl_hugepage_kind_name (z->kind),
	      z->start, z->end, z->end - z->start, z->copy_start - z->start,
	      z->copy_len, z->copy_need, z->fileoff);
      char absbuf[256];
      const char *absent = (dirfd < 0 ? lookup
			    : zone_absent_why (dirfd, z, name, absbuf,
					       sizeof absbuf));
      printf ("%s, \"absent_why\": ", absent == NULL ? "true" : "false");
      if (absent == NULL)
	printf ("null");
      else
	json_string (absent);
      printf ("}");
    }
  if (dirfd >= 0)
    close (dirfd);
  if (why == NULL && n == 0)
    why = (text_left_out
	   ? "no read-only zone but text fills a whole huge page, and "
	     HP_CACHE_NOTEXT_WHY
	   : "no read-only zone fills a whole huge page");
  /* Whether the text is left out (the entry then holds HP_CACHE_NOTEXT),
     and what was found.  */
  printf ("],\n    \"notext\": ");
  if (self_maps == NULL)
    printf ("null");
  else
    {
      printf ("{\"marker\": \"%s\", \"found\": ", HP_CACHE_NOTEXT);
      json_string (self_maps);
      printf (", \"why\": ");
      json_string (HP_CACHE_NOTEXT_WHY);
      printf ("}");
    }
  printf (",\n    \"why_not\": ");
  if (why == NULL)
    printf ("null");
  else
    printf ("\"%s\"", why);
  printf ("}");
}
