/* hugeld: unit tests for LD_HUGEPAGE_BACKING, build IDs, the names of
   shared cache entries and when ld.so places text at its file phase
   (the planner's placement itself is tested in
   elf/tst-hugepage-plan.c).  Built into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "dl-hugepage-cache.h"
#include "dl-hugepage-cgroup.h"
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-place.h"
#include "unit-check.h"

#define M (1024UL * 1024UL)
#define H (2 * M)

static void
test_backing (void)
{
  unsigned char o[HP_NBACKINGS];
  CHECK (_dl_hugepage_parse_backing ("shared,private,thp", o) == 3
	 && o[0] == HP_B_SHARED && o[1] == HP_B_PRIVATE && o[2] == HP_B_THP,
	 "default order");
  CHECK (_dl_hugepage_parse_backing ("thp,shared", o) == 2
	 && o[0] == HP_B_THP && o[1] == HP_B_SHARED, "thp,shared");
  CHECK (_dl_hugepage_parse_backing ("private,,private,", o) == 1
	 && o[0] == HP_B_PRIVATE, "repeated and empty elements");
  CHECK (_dl_hugepage_parse_backing ("", o) == 0, "empty");
  CHECK (_dl_hugepage_parse_backing ("share", o) == -1, "shorter");
  CHECK (_dl_hugepage_parse_backing ("shared,THP", o) == -1, "case");
  CHECK (_dl_hugepage_parse_backing ("hugetlb", o) == -1, "unknown");
  CHECK (strcmp (_dl_hugepage_backing_name (HP_B_THP), "thp") == 0, "name");
  CHECK (strcmp (_dl_hugepage_backing_name (HP_B_NONE), "?") == 0
	 && strcmp (_dl_hugepage_backing_name (HP_B_END), "?") == 0
	 && _dl_hugepage_backing_flags (HP_B_NONE) == 0
	 && _dl_hugepage_backing_flags (HP_B_END) == 0, "outside the table");
  /* Every backing of the table: its name parses back to it, and the
     flags ld.so acts on are the ones the design gives it.  */
  for (int b = 1; b <= HP_NBACKINGS; ++b)
    CHECK (_dl_hugepage_parse_backing (_dl_hugepage_backing_name (b), o) == 1
	   && o[0] == b, "name of backing %d parses back", b);
  CHECK (_dl_hugepage_backing_flags (HP_B_SHARED)
	 == (HP_BF_SHAREABLE | HP_BF_CACHED)
	 && _dl_hugepage_backing_flags (HP_B_PRIVATE) == HP_BF_PLAIN
	 && _dl_hugepage_backing_flags (HP_B_THP) == HP_BF_FILE_PHASE,
	 "flags");

  static const unsigned char dflt[HP_NBACKINGS] = HP_BACKINGS_DEFAULT;
  char list[HP_LIST_STRING_MAX];
  CHECK (strcmp (_dl_hugepage_backings_string (dflt, HP_NBACKINGS, list,
					       sizeof list),
		 "shared,private,thp") == 0, "default order: %s", list);
  CHECK (strcmp (_dl_hugepage_backings_string (o, 0, list, sizeof list),
		 "") == 0, "no backing");
  CHECK (strcmp (_dl_hugepage_kinds_string (HP_KIND_DEFAULT, ',', list,
					    sizeof list),
		 "text,rodata,relro") == 0, "default kinds: %s", list);
  CHECK (strcmp (_dl_hugepage_kinds_string (HP_KIND_ALL, ' ', list,
					    sizeof list),
		 "text rodata relro data bss") == 0, "all kinds: %s", list);
  CHECK (strcmp (_dl_hugepage_kinds_string (HP_KIND_ALL, ',', list, 10),
		 "text") == 0, "cut at a word: %s", list);
}

/* The backing ld.so ends up with for a zone, as `hugeld plan' counts
   it: the first of the order that works for it.  */
static void
test_expected_backing (void)
{
  struct hp_zone text = { .kind = HP_KIND_TEXT, .prot = PF_R | PF_X };
  struct hp_zone relro = { .kind = HP_KIND_RELRO, .prot = PF_R | PF_W };
  static const unsigned char spt[] = { HP_B_SHARED, HP_B_PRIVATE,
				       HP_B_THP };
  static const unsigned char ps[] = { HP_B_PRIVATE, HP_B_SHARED };
  static const unsigned char st[] = { HP_B_SHARED, HP_B_THP };
  static const unsigned char ts[] = { HP_B_THP, HP_B_SHARED };
  /* The order, the zone, text relocations, cached, thp; the backing.  */
  const struct
  {
    const unsigned char *order;
    int n;
    const struct hp_zone *z;
    bool textrel, cached, thp;
    int want;
    const char *what;
  } cases[] =
    {
      { spt, 3, &text, false, true, true, HP_B_SHARED, "cached: shared" },
      { spt, 3, &text, false, false, true, HP_B_PRIVATE,
	"not cached: private" },
      { spt, 3, &text, true, true, true, HP_B_PRIVATE,
	"text relocations: never shared" },
      { spt, 3, &relro, false, true, true, HP_B_PRIVATE,
	"relro: never shared" },
      { ps, 2, &text, false, true, true, HP_B_PRIVATE, "private first" },
      { st, 2, &text, false, false, true, HP_B_THP, "thp" },
      { st, 2, &text, false, false, false, 0, "nothing works" },
      { ts, 2, &text, false, true, false, HP_B_SHARED,
	"thp disabled: shared" },
    };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    {
      unsigned int available = ((1u << HP_B_PRIVATE)
				| (cases[i].cached ? 1u << HP_B_SHARED : 0)
				| (cases[i].thp ? 1u << HP_B_THP : 0));
      CHECK (_dl_hugepage_expected_backing (cases[i].order, cases[i].n,
					    cases[i].z, cases[i].textrel,
					    available)
	     == cases[i].want, "%s", cases[i].what);
    }
  CHECK (!_dl_hugepage_backing_tried (HP_B_SHARED, &relro, false)
	 && _dl_hugepage_backing_tried (HP_B_THP, &relro, false),
	 "tried");

  static const char *const on[] = { "[always] madvise never\n",
				    "always [madvise] never\n" };
  static const char *const off[] = { "always madvise [never]\n", "" };
  for (int i = 0; i < 2; ++i)
    {
      CHECK (_dl_hugepage_thp_enabled_text (on[i], strlen (on[i])),
	     "thp on: %s", on[i]);
      CHECK (!_dl_hugepage_thp_enabled_text (off[i], strlen (off[i])),
	     "thp off: %s", off[i]);
    }
}

/* Append a note to BUF at *LEN.  */
static void
note (unsigned char *buf, size_t *len, uint32_t type, const char *name,
      uint32_t descsz, unsigned char fill)
{
  uint32_t namesz = strlen (name) + 1;
  memcpy (buf + *len, &namesz, 4);
  memcpy (buf + *len + 4, &descsz, 4);
  memcpy (buf + *len + 8, &type, 4);
  *len += 12;
  memset (buf + *len, 0, (namesz + 3) & ~3U);
  memcpy (buf + *len, name, namesz);
  *len += (namesz + 3) & ~3U;
  memset (buf + *len, fill, (descsz + 3) & ~3U);
  *len += (descsz + 3) & ~3U;
}

/* A reader of the bytes at CTX.  */
static long int
read_mem (void *ctx, void *buf, size_t len, uint64_t offset)
{
  memcpy (buf, (const char *) ctx + offset, len);
  return len;
}

static void
test_build_id (void)
{
  unsigned char buf[512];
  size_t len = 0;
  struct hp_identity id = { 0 };
  note (buf, &len, 5, "GNU", 16, 0x11);	/* .note.gnu.property  */
  note (buf, &len, 1, "GNU", 16, 0x22);	/* .note.ABI-tag  */
  note (buf, &len, 3, "GNU", 20, 0xab);
  CHECK (_dl_hugepage_find_build_id (buf, len, &id)
	 && id.build_id_len == 20 && id.build_id[0] == 0xab
	 && id.build_id[19] == 0xab, "third note");
  id.build_id_len = 0;
  CHECK (!_dl_hugepage_find_build_id (buf, len - 4, &id)
	 && id.build_id_len == 0, "cut short");
  len = 0;
  note (buf, &len, 3, "GNUX", 20, 0xab);
  CHECK (!_dl_hugepage_find_build_id (buf, len, &id), "other owner");
  len = 0;
  note (buf, &len, 3, "GNU", 0, 0);
  CHECK (!_dl_hugepage_find_build_id (buf, len, &id), "empty build ID");
  len = 0;
  note (buf, &len, 3, "GNU", HP_BUILD_ID_MAX + 4, 1);
  CHECK (!_dl_hugepage_find_build_id (buf, len, &id), "too long");
  uint32_t huge[3] = { 0xfffffff0, 4, 3 };
  CHECK (!_dl_hugepage_find_build_id (huge, sizeof huge, &id),
	 "namesz past the end");
  CHECK (!_dl_hugepage_find_build_id (buf, 0, &id), "nothing");

  /* Through the PT_NOTE headers and a reader, as ld.so and the cache
     makers do: the second note segment has it.  */
  len = 0;
  note (buf, &len, 1, "GNU", 16, 0x22);
  size_t second = len;
  note (buf, &len, 3, "GNU", 8, 0xcd);
  ElfW(Phdr) ph[3] = { { .p_type = PT_LOAD, .p_offset = 0, .p_filesz = len },
		       { .p_type = PT_NOTE, .p_offset = 0, .p_filesz = second },
		       { .p_type = PT_NOTE, .p_offset = second,
			 .p_filesz = len - second } };
  id.build_id_len = 99;
  _dl_hugepage_read_build_id (&id, ph, 3, read_mem, buf);
  CHECK (id.build_id_len == 8 && id.build_id[7] == 0xcd,
	 "read through PT_NOTE: %zu", id.build_id_len);
  _dl_hugepage_read_build_id (&id, ph, 2, read_mem, buf);
  CHECK (id.build_id_len == 0, "no build ID note: none");
}

static void
test_names (void)
{
  struct hp_identity id = { .dev = 0xfe00, .ino = 0x54298a,
			    .size = 0x2bed548, .mtime_sec = 0x6b0476fb,
			    .mtime_nsec = 0x4dd9639, .ctime_sec = 0x6b047872,
			    .ctime_nsec = 0, .build_id_len = 3,
			    .build_id = { 0x51, 0x2a, 0x0f } };
  char name[HP_CACHE_NAME_MAX];
  _dl_hugepage_cache_inode_name (&id, name);
  CHECK (strcmp (name, "i54298a") == 0, "inode %s", name);
  /* The same file seen through another mount (an overlayfs view of an
     image layer has its own device number) has the same entry.  */
  id.dev = 0x27;
  char other[HP_CACHE_NAME_MAX];
  _dl_hugepage_cache_inode_name (&id, other);
  CHECK (strcmp (name, other) == 0, "inode through another mount %s", other);
  /* ... but the device is what the entry is for.  */
  _dl_hugepage_cache_device_name (&id, name);
  CHECK (strcmp (name, "dev-27") == 0, "device %s", name);
  id.dev = 0xfe00;
  _dl_hugepage_cache_device_name (&id, name);
  CHECK (strcmp (name, "dev-fe00") == 0, "device %s", name);
  _dl_hugepage_cache_inode_name (&id, name);
  _dl_hugepage_cache_version_name (&id, name);
  CHECK (strcmp (name, "2bed548-6b0476fb.4dd9639-6b047872.0-512a0f") == 0,
	 "version %s", name);
  id.build_id_len = 0;
  _dl_hugepage_cache_version_name (&id, name);
  CHECK (strcmp (name, "2bed548-6b0476fb.4dd9639-6b047872.0-none") == 0,
	 "version without build ID %s", name);
  /* The longest possible name still fits.  */
  memset (&id, 0xff, sizeof id);
  id.build_id_len = HP_BUILD_ID_MAX;
  _dl_hugepage_cache_version_name (&id, name);
  CHECK (strlen (name) == 16 * 5 + 5 + 2 * HP_BUILD_ID_MAX
	 && strlen (name) < HP_CACHE_NAME_MAX, "longest %zu", strlen (name));

  struct hp_zone z = { .start = 0x200000, .end = 0x1600000,
		       .kind = HP_KIND_TEXT, .prot = PF_R | PF_X };
  _dl_hugepage_cache_zone_name (&z, 0x7f0000000000, name);
  CHECK (strcmp (name, "text-0-200000-1600000") == 0, "zone %s", name);
  _dl_hugepage_cache_zone_name (&z, 0x7f00001ff000, name);
  CHECK (strcmp (name, "text-1ff000-200000-1600000") == 0, "phase %s", name);

  CHECK (_dl_hugepage_zone_shareable (&z, false), "text is shareable");
  CHECK (!_dl_hugepage_zone_shareable (&z, true), "not with textrel");
  z.kind = HP_KIND_RODATA;
  z.prot = PF_R;
  CHECK (_dl_hugepage_zone_shareable (&z, false), "rodata is shareable");
  z.kind = HP_KIND_RELRO;
  CHECK (!_dl_hugepage_zone_shareable (&z, false), "relro is written");
  z.kind = HP_KIND_DATA;
  z.prot = PF_R | PF_W;
  CHECK (!_dl_hugepage_zone_shareable (&z, false), "data is written");
}

/* When ld.so places text at its file phase.  */
static void
test_phase_mode (void)
{
  unsigned char d[] = { HP_B_SHARED, HP_B_PRIVATE, HP_B_THP };
  unsigned char t[] = { HP_B_THP, HP_B_SHARED };
  unsigned char sp[] = { HP_B_SHARED, HP_B_PRIVATE };
  CHECK (_dl_hugepage_phase_mode (d, 3, false) == HP_PHASE_FREE,
	 "default order, a pool: free");
  CHECK (_dl_hugepage_phase_mode (d, 3, true) == HP_PHASE_ALWAYS,
	 "default order, no pool: always");
  CHECK (_dl_hugepage_phase_mode (t, 2, false) == HP_PHASE_ALWAYS,
	 "thp first: always");
  CHECK (_dl_hugepage_phase_mode (sp, 2, true) == HP_PHASE_FREE,
	 "no thp: free (cache entries are laid out so)");

  /* Where no pool page can be had, an object with a cache entry is
     placed for the entry if shared comes before thp.  */
  unsigned char ps[] = { HP_B_PRIVATE, HP_B_SHARED, HP_B_THP };
  unsigned char pt[] = { HP_B_PRIVATE, HP_B_THP, HP_B_SHARED };
  unsigned char p[] = { HP_B_PRIVATE, HP_B_THP };
  CHECK (_dl_hugepage_cache_placement (d, 3), "default order: for the cache");
  CHECK (_dl_hugepage_cache_placement (ps, 3), "private,shared,thp: cache");
  CHECK (!_dl_hugepage_cache_placement (t, 2), "thp first: thp");
  CHECK (!_dl_hugepage_cache_placement (pt, 3), "thp before shared: thp");
  CHECK (!_dl_hugepage_cache_placement (p, 2), "no shared: thp");
}

/* The cgroup path TEXT gives for V1, as a string ("" for none).  */
static const char *
cgroup_path (const char *text, bool v1)
{
  static char out[256];
  size_t len;
  const char *p = _dl_hugepage_cgroup_path (text, strlen (text), v1, &len);
  if (p == NULL)
    return "(none)";
  memcpy (out, p, len);
  out[len] = '\0';
  return out;
}

/* A cgroup file system in memory: the unified hierarchy at
   /sys/fs/cgroup, where /kubepods allows no huge page.  */
static long int
fake_read (void *ctx, const char *name, char *buf, size_t size)
{
  const char *limited = ctx;
  if (strcmp (name, limited) != 0)
    return -2;
  if (size < 2)
    return -22;
  memcpy (buf, "0\n", 2);
  return 2;
}

static unsigned long int
fake_fs_type (void *ctx, const char *name)
{
  (void) ctx;
  return strcmp (name, "/sys/fs/cgroup") == 0 ? 0x63677270 : 0;
}

/* The walk up from a process's cgroup that ld.so and hugeld-plan make.  */
static void
test_cgroup_walk (void)
{
  char limit[] = "/sys/fs/cgroup/kubepods/hugetlb.2MB.max";
  struct hp_cgroup_io io = { fake_read, fake_fs_type, limit };
  char file[HP_CGROUP_DIR_MAX];
  const char *pod[2] = { "/kubepods/pod1/c1", NULL };
  CHECK (_dl_hugepage_cgroup_none (pod, &io, file)
	 && strcmp (file, limit) == 0, "found above: %s", file);
  const char *other[2] = { "/system.slice/x", "/kubepods" };
  CHECK (!_dl_hugepage_cgroup_none (other, &io, file),
	 "elsewhere, and no version 1 hierarchy mounted");
  const char *none[2] = { NULL, NULL };
  CHECK (!_dl_hugepage_cgroup_none (none, &io, file), "no cgroup");
}

/* Reading /proc/self/cgroup and hugetlb cgroup limits.  */
static void
test_cgroup (void)
{
  CHECK (strcmp (cgroup_path ("0::/kubepods.slice/pod1.slice/cri-x.scope\n",
			      false),
		 "/kubepods.slice/pod1.slice/cri-x.scope") == 0,
	 "unified: the path");
  CHECK (strcmp (cgroup_path ("0::/\n", false), "/") == 0,
	 "unified: the root (a cgroup namespace)");
  CHECK (strcmp (cgroup_path ("0::/\n", true), "(none)") == 0,
	 "unified only: no version 1 hugetlb");
  const char *hybrid = "12:hugetlb:/a/b\n11:cpu,cpuacct:/x\n"
		       "1:name=systemd:/user.slice\n0::/user.slice/u:1\n";
  CHECK (strcmp (cgroup_path (hybrid, true), "/a/b") == 0,
	 "version 1: the hugetlb hierarchy's path");
  CHECK (strcmp (cgroup_path (hybrid, false), "/user.slice/u:1") == 0,
	 "hybrid: the unified path, with a colon in it");
  CHECK (strcmp (cgroup_path ("3:cpu,hugetlb,pids:/c\n", true), "/c") == 0,
	 "version 1: hugetlb in a list of controllers");
  CHECK (strcmp (cgroup_path ("3:hugetlbx:/c\n4:xhugetlb:/d\n", true),
		 "(none)") == 0, "version 1: only the word hugetlb");
  CHECK (strcmp (cgroup_path ("0::/cut-off", false), "(none)") == 0,
	 "a line without its newline is not used");
  CHECK (strcmp (cgroup_path ("10::/x\n0:a:/y\n:::\n\n0::\n0::rel\n", false),
		 "(none)") == 0, "malformed lines");
  CHECK (strcmp (cgroup_path ("", false), "(none)") == 0, "empty");

  CHECK (_dl_hugepage_cgroup_limit_none ("0\n", 2), "0: none");
  CHECK (_dl_hugepage_cgroup_limit_none ("0", 1), "0 without newline");
  CHECK (_dl_hugepage_cgroup_limit_none ("2097151\n", 8),
	 "less than a page: none");
  CHECK (!_dl_hugepage_cgroup_limit_none ("2097152\n", 8), "one page");
  CHECK (!_dl_hugepage_cgroup_limit_none ("max\n", 4), "max");
  CHECK (!_dl_hugepage_cgroup_limit_none ("9223372036854771712\n", 20),
	 "version 1's unlimited");
  CHECK (!_dl_hugepage_cgroup_limit_none ("99999999999999999999999\n", 24),
	 "no overflow");
  CHECK (!_dl_hugepage_cgroup_limit_none ("", 0), "empty");
  CHECK (!_dl_hugepage_cgroup_limit_none ("0x", 2), "not a number");
  CHECK (!_dl_hugepage_cgroup_limit_none ("0x10\n", 5), "hexadecimal");
  CHECK (_dl_hugepage_cgroup_limit_none ("010\n", 4), "leading zero");
  CHECK (!_dl_hugepage_cgroup_limit_none ("0002097152\n", 11),
	 "one page, leading zeros");
  CHECK (!_dl_hugepage_cgroup_limit_none (" 0\n", 3), "leading space");
  CHECK (!_dl_hugepage_cgroup_limit_none ("0 \n", 3), "trailing space");
}

/* The trust rule of the shared cache: root's alone, of the kind
   wanted.  */
static void
test_distrust (void)
{
  CHECK (_dl_hugepage_cache_distrust (true, S_IFDIR | 0755, 0) == NULL,
	 "root's directory");
  CHECK (_dl_hugepage_cache_distrust (false, S_IFREG | 0444, 0) == NULL,
	 "root's file");
  CHECK (_dl_hugepage_cache_distrust (false, S_IFREG | 0644, 0) == NULL,
	 "root's writable file");
  CHECK (strcmp (_dl_hugepage_cache_distrust (true, S_IFREG | 0755, 0),
		 "not trusted: not a directory") == 0, "file for a directory");
  CHECK (strcmp (_dl_hugepage_cache_distrust (false, S_IFIFO | 0444, 0),
		 "not trusted: not a regular file") == 0, "FIFO");
  CHECK (strcmp (_dl_hugepage_cache_distrust (false, S_IFREG | 0444, 1000),
		 "not trusted: not owned by root") == 0, "another owner");
  CHECK (strcmp (_dl_hugepage_cache_distrust (true, S_IFDIR | 0775, 0),
		 "not trusted: writable by group or others") == 0,
	 "group-writable");
  CHECK (strcmp (_dl_hugepage_cache_distrust (false, S_IFREG | 0446, 0),
		 "not trusted: writable by group or others") == 0,
	 "other-writable");
}

/* A zone's cache file: trusted, the zone's size, on hugetlbfs of 2 MiB
   pages, in that order.  */
static void
test_zone_distrust (void)
{
  const unsigned long int hfs = HP_HUGETLBFS_MAGIC;
  CHECK (_dl_hugepage_cache_zone_distrust (S_IFREG | 0644, 0, H, H, hfs, H)
	 == NULL, "a good zone file");
  const char *w = _dl_hugepage_cache_zone_distrust (S_IFREG | 0666, 0, 2 * H,
						    H, 0, 4096);
  CHECK (w != NULL && strstr (w, "writable") != NULL, "trust first: %s", w);
  w = _dl_hugepage_cache_zone_distrust (S_IFREG | 0644, 0, 2 * H, H, 0, 4096);
  CHECK (w != NULL && strcmp (w, "cache file of the wrong size") == 0,
	 "then the size: %s", w);
  w = _dl_hugepage_cache_zone_distrust (S_IFREG | 0644, 0, H, H, 0xef53, H);
  CHECK (w != NULL && strstr (w, "hugetlbfs") != NULL, "ext4: %s", w);
  w = _dl_hugepage_cache_zone_distrust (S_IFREG | 0644, 0, H, H, hfs,
					1UL << 30);
  CHECK (w != NULL && strstr (w, "hugetlbfs") != NULL, "1 GiB pages: %s", w);
  w = _dl_hugepage_cache_zone_distrust (S_IFREG | 0644, 1000, H, H, hfs, H);
  CHECK (w != NULL && strstr (w, "root") != NULL, "not root's: %s", w);
}

void
test_cache (void)
{
  test_zone_distrust ();
  test_distrust ();
  test_cgroup ();
  test_backing ();
  test_expected_backing ();
  test_cgroup_walk ();
  test_build_id ();
  test_names ();
  test_phase_mode ();
}
