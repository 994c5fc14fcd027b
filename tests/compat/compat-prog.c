/* hugeld test: what else touches an object's mappings, with the object
   on huge pages.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Usage: compat-prog [-H] MODE [DIR [N]]

   Linked against libcompatbig.so; DIR is the directory of the other
   test libraries.  Modes:

   basic	Call into libcompatbig.so, and take a backtrace (glibc's
		backtrace, libgcc's unwinder, dladdr) from a callback that
		it calls.
   findobj	_dl_find_object, dladdr, dladdr1 and dl_iterate_phdr on
		libcompatbig.so and on DIR/libcompatdl.so (dlopened), and
		the mapped segments against the file.
   ifunc	libcompatbig.so's IFUNCs: through the PLT, an IRELATIVE
		relocation and dlsym.
   dlclose	dlopen and dlclose DIR/libcompatdl.so N times: each copy
		works, leaves no mapping behind, and the huge page pool
		has as many free pages afterwards as before.
   dlmopen	DIR/libcompatdl.so dlopened and dlmopened into a new
		namespace: two copies, each with its own data.
   textrel	dlopen DIR/libcompattextrel.so (DT_TEXTREL): its text and
		rodata tables are relocated, no mapping is writable and
		executable.

   stdout: what was observed (the same with every loader); stderr: page
   sizes.  With -H the code and data each mode is about must be on
   2 MiB pages.  Exit status: 0, 1 if something behaved wrongly, 3 if
   only page sizes were wrong, 2 for a usage error.  */

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "big.h"

static const char *dir = ".";

static char *
lib_path (const char *name)
{
  char *p;
  if (asprintf (&p, "%s/%s", dir, name) < 0)
    abort ();
  return p;
}

/* Read all of FILE into memory; *SIZE gets its size.  */
static unsigned char *
read_file (const char *file, size_t *size)
{
  int fd = open (file, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    return NULL;
  unsigned char *buf = malloc (st.st_size);
  size_t done = 0;
  while (buf != NULL && done < (size_t) st.st_size)
    {
      ssize_t n = read (fd, buf + done, st.st_size - done);
      if (n <= 0)
	{
	  free (buf);
	  buf = NULL;
	  break;
	}
      done += n;
    }
  close (fd);
  *size = done;
  return buf;
}

/* The callback of "basic": a backtrace from inside the library.  */
static int
backtrace_cb (int n)
{
  void *frames[32];
  int nframes = backtrace (frames, 32);
  char **names = backtrace_symbols (frames, nframes);
  printf ("backtrace from the callback:");
  for (int i = 0; i < nframes && names != NULL; ++i)
    {
      /* "file(symbol+0xoff) [address]": print the symbols of the
	 library's functions, which only it can name.  */
      char *open = strchr (names[i], '('), *plus;
      if (open != NULL && strncmp (open + 1, "compat_big_", 11) == 0
	  && (plus = strchr (open, '+')) != NULL)
	printf (" %.*s", (int) (plus - open - 1), open + 1);
    }
  printf ("\n");
  free (names);
  return n * 100;
}

static void
mode_basic (void)
{
  int r = compat_big_add (1, 2);
  printf ("compat_big_add (1, 2) = %d\n", r);
  if (r != 1003)
    compat_bad ("compat_big_add");
  r = compat_big_outer (4, NULL);
  printf ("compat_big_outer (4, NULL) = %d\n", r);
  if (r != 15)
    compat_bad ("compat_big_outer");
  r = compat_big_outer (1, backtrace_cb);
  printf ("compat_big_outer (1, backtrace_cb) = %d\n", r);
  if (r != 206)
    compat_bad ("compat_big_outer with a callback");
  compat_check_huge ("libcompatbig.so code (compat_big_inner)",
		     (const void *) compat_big_inner);
  compat_check_huge ("libcompatbig.so code (compat_big_add)",
		     (const void *) compat_big_add);
}

/* The phdrs dl_iterate_phdr reports for the object loaded at L_ADDR.  */
struct phdr_search
{
  ElfW(Addr) l_addr;
  const char *name;
  int count;
  ElfW(Addr) dlpi_addr;
  const ElfW(Phdr) *phdr;
  ElfW(Half) phnum;
};

static int
phdr_cb (struct dl_phdr_info *info, size_t size, void *data)
{
  struct phdr_search *s = data;
  (void) size;
  if (info->dlpi_addr == s->l_addr
      && strcmp (compat_basename (info->dlpi_name), s->name) == 0)
    {
      ++s->count;
      s->dlpi_addr = info->dlpi_addr;
      s->phdr = info->dlpi_phdr;
      s->phnum = info->dlpi_phnum;
    }
  return 0;
}

/* All the findobj checks on the library NAME opened as H.  */
static void
check_object (const char *name, void *h)
{
  char what[256];
#define EXPECT(fmt, ok)							\
  (snprintf (what, sizeof what, "%s: " fmt, name), compat_expect (what, ok))

  struct link_map *lm = NULL;
  if (!EXPECT ("dlinfo RTLD_DI_LINKMAP",
	       dlinfo (h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL))
    return;
  char *fn = dlsym (h, "compat_big_inner");
  char *fill_lo = dlsym (h, "compat_fill_lo");
  char *fill_hi = dlsym (h, "compat_fill_hi");
  if (!EXPECT ("dlsym", fn != NULL && fill_lo != NULL && fill_hi != NULL))
    return;
  /* Inside the filler (2.5 MiB from the segment's start, so on a whole
     huge page whatever the load address), and the real code between
     the two blocks.  */
  char *fill_mid = fill_lo + 0x280000;
  snprintf (what, sizeof what, "%s code (compat_big_inner)", name);
  compat_check_huge (what, fn);
  snprintf (what, sizeof what, "%s text (compat_fill_lo + 2.5 MiB)", name);
  compat_check_huge (what, fill_mid);

  int r = ((int (*) (int, int (*) (int))) fn) (2, NULL);
  EXPECT ("compat_big_inner (2) = 6", r == 6);

  /* dl_iterate_phdr sees it once, with the file's program headers.  */
  struct phdr_search s = { .l_addr = lm->l_addr, .name = name };
  dl_iterate_phdr (phdr_cb, &s);
  if (!EXPECT ("dl_iterate_phdr reports it once", s.count == 1))
    return;
  size_t fsize;
  unsigned char *file = read_file (lm->l_name, &fsize);
  if (!EXPECT ("file readable", file != NULL && fsize >= sizeof (ElfW(Ehdr))))
    return;
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *) file;
  const ElfW(Phdr) *fph = (const ElfW(Phdr) *) (file + eh->e_phoff);
  EXPECT ("dl_iterate_phdr: phnum = e_phnum", s.phnum == eh->e_phnum);
  EXPECT ("dl_iterate_phdr: program headers = the file's",
	  s.phnum == eh->e_phnum
	  && memcmp (s.phdr, fph, s.phnum * sizeof (ElfW(Phdr))) == 0);

  long pagesize = sysconf (_SC_PAGESIZE);
  ElfW(Addr) lo = ~(ElfW(Addr)) 0, hi = 0, eh_frame = 0;
  int nloads = 0, nsame = 0, nreadonly = 0;
  for (int i = 0; i < s.phnum; ++i)
    {
      const ElfW(Phdr) *ph = &s.phdr[i];
      if (ph->p_type == PT_GNU_EH_FRAME)
	eh_frame = s.dlpi_addr + ph->p_vaddr;
      if (ph->p_type != PT_LOAD)
	continue;
      ++nloads;
      if ((ph->p_vaddr & -pagesize) < lo)
	lo = ph->p_vaddr & -pagesize;
      if (ph->p_vaddr + ph->p_memsz > hi)
	hi = ph->p_vaddr + ph->p_memsz;
      /* Segments nothing writes (no relocations in them): in memory
	 exactly as in the file.  */
      if ((ph->p_flags & PF_W) == 0)
	{
	  ++nreadonly;
	  if (ph->p_offset + ph->p_filesz <= fsize
	      && memcmp ((const void *) (s.dlpi_addr + ph->p_vaddr),
			 file + ph->p_offset, ph->p_filesz) == 0)
	    ++nsame;
	}
    }
  printf ("%s: %d PT_LOAD segments, %d read-only\n", name, nloads,
	  nreadonly);
  EXPECT ("read-only segments in memory = in the file",
	  nreadonly > 0 && nsame == nreadonly);
  ElfW(Addr) base = s.dlpi_addr + lo;
  ElfW(Addr) end = s.dlpi_addr + hi;

  /* _dl_find_object on the code and inside the filler.  */
  char *addrs[2] = { fn, fill_mid };
  const char *addr_names[2] = { "compat_big_inner", "the filler" };
  for (int i = 0; i < 2; ++i)
    {
      struct dl_find_object dlfo;
      memset (&dlfo, 0, sizeof dlfo);
      int ret = _dl_find_object (addrs[i], &dlfo);
      snprintf (what, sizeof what, "%s: _dl_find_object (%s)", name,
		addr_names[i]);
      if (!compat_expect (what, ret == 0))
	continue;
      EXPECT ("_dl_find_object: dlfo_link_map = the handle's link map",
	      dlfo.dlfo_link_map == lm);
      EXPECT ("_dl_find_object: dlfo_map_start <= address < dlfo_map_end",
	      (char *) dlfo.dlfo_map_start <= addrs[i]
	      && addrs[i] < (char *) dlfo.dlfo_map_end);
      EXPECT ("_dl_find_object: dlfo_map_start = lowest PT_LOAD page",
	      (ElfW(Addr)) dlfo.dlfo_map_start == base);
      EXPECT ("_dl_find_object: dlfo_map_end = end of the last PT_LOAD",
	      (ElfW(Addr)) dlfo.dlfo_map_end == end);
      EXPECT ("_dl_find_object: dlfo_eh_frame = PT_GNU_EH_FRAME",
	      eh_frame != 0 && (ElfW(Addr)) dlfo.dlfo_eh_frame == eh_frame);
    }

  /* dladdr and dladdr1.  */
  Dl_info info;
  memset (&info, 0, sizeof info);
  if (EXPECT ("dladdr (compat_big_inner)", dladdr (fn, &info) != 0))
    {
      EXPECT ("dladdr: dli_fname = link map's name",
	      info.dli_fname != NULL && strcmp (info.dli_fname, lm->l_name) == 0);
      EXPECT ("dladdr: dli_fname names the library",
	      info.dli_fname != NULL
	      && strcmp (compat_basename (info.dli_fname), name) == 0);
      EXPECT ("dladdr: dli_fbase = dlpi_addr + lowest PT_LOAD page",
	      (ElfW(Addr)) info.dli_fbase == base);
      EXPECT ("dladdr: dli_sname = compat_big_inner",
	      info.dli_sname != NULL
	      && strcmp (info.dli_sname, "compat_big_inner") == 0);
      EXPECT ("dladdr: dli_saddr = the function", info.dli_saddr == fn);
    }
  memset (&info, 0, sizeof info);
  if (EXPECT ("dladdr (inside the filler)", dladdr (fill_mid, &info) != 0))
    {
      EXPECT ("dladdr: dli_sname = compat_fill_lo",
	      info.dli_sname != NULL
	      && strcmp (info.dli_sname, "compat_fill_lo") == 0);
      EXPECT ("dladdr: dli_saddr = compat_fill_lo", info.dli_saddr == fill_lo);
      EXPECT ("dladdr: dli_fbase", (ElfW(Addr)) info.dli_fbase == base);
    }
  struct link_map *lm1 = NULL;
  memset (&info, 0, sizeof info);
  EXPECT ("dladdr1 RTLD_DL_LINKMAP = the handle's link map",
	  dladdr1 (fill_hi + 0x100000, &info, (void **) &lm1,
		   RTLD_DL_LINKMAP) != 0 && lm1 == lm);
  free (file);
#undef EXPECT
}

static void
mode_findobj (void)
{
  void *h = dlopen ("libcompatbig.so", RTLD_NOW | RTLD_NOLOAD);
  if (compat_expect ("libcompatbig.so: loaded at start-up", h != NULL))
    check_object ("libcompatbig.so", h);
  char *path = lib_path ("libcompatdl.so");
  void *h2 = dlopen (path, RTLD_NOW);
  if (compat_expect ("libcompatdl.so: dlopen", h2 != NULL))
    check_object ("libcompatdl.so", h2);
  else
    fprintf (stderr, "%s\n", dlerror ());
  free (path);
}

static void
mode_ifunc (void)
{
  int r = compat_big_ifunc (3);
  printf ("compat_big_ifunc (3) through the PLT = %d\n", r);
  if (r != 37)
    compat_bad ("IFUNC through the PLT");
  r = compat_big_call_local_ifunc (4);
  printf ("hidden IFUNC (IRELATIVE) (4) = %d\n", r);
  if (r != 47)
    compat_bad ("hidden IFUNC");
  int (*p) (int) = (int (*) (int)) dlsym (RTLD_DEFAULT, "compat_big_ifunc");
  r = p != NULL ? p (5) : -1;
  printf ("dlsym (compat_big_ifunc) (5) = %d\n", r);
  if (r != 57)
    compat_bad ("IFUNC through dlsym");
  compat_expect ("dlsym gives the function pointer the program uses",
		 p == compat_big_ifunc);
  compat_expect ("resolvers ran", compat_big_resolver_calls () >= 2);
  Dl_info info;
  compat_expect ("the implementation is in libcompatbig.so",
		 dladdr ((void *) p, &info) != 0
		 && strcmp (compat_basename (info.dli_fname),
			    "libcompatbig.so") == 0);
  compat_check_huge ("IFUNC implementation", (const void *) p);
  compat_check_huge ("IFUNC caller (compat_big_call_local_ifunc)",
		     (const void *) compat_big_call_local_ifunc);
}

static void
mode_dlclose (int rounds)
{
  char *path = lib_path ("libcompatdl.so");
  long free_before = compat_meminfo ("HugePages_Free");
  long own_before = compat_hugetlb_kb ();
  int calls_ok = 0, huge = 0, left = 0, opened = 0, still_mapped = 0;
  long kb = -1;
  for (int i = 0; i < rounds; ++i)
    {
      void *h = dlopen (path, RTLD_NOW | RTLD_LOCAL);
      if (h == NULL)
	{
	  fprintf (stderr, "round %d: %s\n", i, dlerror ());
	  continue;
	}
      ++opened;
      int (*fn) (int, int (*) (int)) =
	(int (*) (int, int (*) (int))) dlsym (h, "compat_big_inner");
      if (fn != NULL && fn (i, NULL) == 3 * i)
	++calls_ok;
      kb = compat_page_kb ((const void *) fn);
      if (kb == COMPAT_HUGE_KB)
	++huge;
      else if (compat_want_huge && huge == i)
	fprintf (stderr, "round %d: code on %ld kB pages\n", i, kb);
      if (dlclose (h) != 0)
	fprintf (stderr, "round %d: dlclose: %s\n", i, dlerror ());
      /* Nothing is mapped where the code was (a huge page mapping is
	 anonymous: /proc/self/maps does not name the library).  */
      if (compat_page_kb ((const void *) fn) != -1)
	++still_mapped;
      if (compat_maps_mentions ("libcompatdl.so") != 0)
	++left;
    }
  long free_after = compat_meminfo ("HugePages_Free");
  long own_after = compat_hugetlb_kb ();
  printf ("dlopen/dlclose: %d of %d rounds opened, %d calls right\n",
	  opened, rounds, calls_ok);
  if (opened != rounds || calls_ok != rounds)
    compat_bad ("dlopen/dlclose rounds");
  compat_expect ("no mapping of libcompatdl.so after any dlclose", left == 0);
  compat_expect ("the code's address unmapped after every dlclose",
		 still_mapped == 0);
  compat_expect ("this process's huge pages afterwards = before",
		 own_after == own_before);
  if (!compat_expect ("HugePages_Free afterwards = before",
		      free_after == free_before))
    fprintf (stderr, "HugePages_Free: %ld before, %ld after\n", free_before,
	     free_after);
  fprintf (stderr, "page: rounds with the code on 2 MiB pages: %d of %d\n",
	   huge, rounds);
  if (huge != rounds && compat_want_huge)
    {
      fprintf (stderr, "NOT HUGE: %d of %d rounds on 2 MiB pages "
	       "(last: %ld kB)\n", huge, rounds, kb);
      compat_status |= 2;
    }
  free (path);
}

static void
mode_dlmopen (void)
{
  char *path = lib_path ("libcompatdl.so");
  void *h1 = dlopen (path, RTLD_NOW);
  void *h2 = dlmopen (LM_ID_NEWLM, path, RTLD_NOW);
  if (!compat_expect ("dlopen and dlmopen (LM_ID_NEWLM)",
		      h1 != NULL && h2 != NULL))
    {
      fprintf (stderr, "%s\n", dlerror ());
      return;
    }
  Lmid_t ns1 = -1, ns2 = -1;
  dlinfo (h1, RTLD_DI_LMID, &ns1);
  dlinfo (h2, RTLD_DI_LMID, &ns2);
  compat_expect ("dlopen: base namespace", ns1 == LM_ID_BASE);
  compat_expect ("dlmopen: another namespace", ns2 != LM_ID_BASE && ns2 > 0);
  compat_expect ("two handles", h1 != h2);
  void *f1 = dlsym (h1, "compat_big_inner");
  void *f2 = dlsym (h2, "compat_big_inner");
  compat_expect ("two copies of the code", f1 != NULL && f2 != NULL
		 && f1 != f2);
  int (*b1) (void) = (int (*) (void)) dlsym (h1, "compat_big_bump");
  int (*b2) (void) = (int (*) (void)) dlsym (h2, "compat_big_bump");
  int (*a2) (int, int) = (int (*) (int, int)) dlsym (h2, "compat_big_add");
  int (*i2) (int) = (int (*) (int)) dlsym (h2, "compat_big_ifunc");
  if (b1 == NULL || b2 == NULL || a2 == NULL || i2 == NULL)
    {
      compat_bad ("dlsym");
      return;
    }
  int x = b1 (), y = b1 (), z = b2 ();
  printf ("counters: base namespace %d, %d; new namespace %d\n", x, y, z);
  if (x != 101 || y != 102 || z != 101)
    compat_bad ("each copy has its own data");
  printf ("new namespace: compat_big_add (5, 6) = %d, compat_big_ifunc (2) "
	  "= %d\n", a2 (5, 6), i2 (2));
  if (a2 (5, 6) != 1011 || i2 (2) != 27)
    compat_bad ("calls into the new namespace");
  struct link_map *lm1 = NULL, *lm2 = NULL;
  struct dl_find_object dlfo1, dlfo2;
  dlinfo (h1, RTLD_DI_LINKMAP, &lm1);
  dlinfo (h2, RTLD_DI_LINKMAP, &lm2);
  compat_expect ("_dl_find_object finds each copy's link map",
		 _dl_find_object (f1, &dlfo1) == 0
		 && _dl_find_object (f2, &dlfo2) == 0
		 && dlfo1.dlfo_link_map == lm1 && dlfo2.dlfo_link_map == lm2
		 && lm1 != lm2);
  Dl_info info1, info2;
  compat_expect ("dladdr names the function in both copies",
		 dladdr (f1, &info1) != 0 && dladdr (f2, &info2) != 0
		 && info1.dli_sname != NULL && info2.dli_sname != NULL
		 && strcmp (info1.dli_sname, "compat_big_inner") == 0
		 && strcmp (info2.dli_sname, "compat_big_inner") == 0
		 && (ElfW(Addr)) info1.dli_fbase == lm1->l_addr
		 && (ElfW(Addr)) info2.dli_fbase == lm2->l_addr);
  compat_check_huge ("libcompatdl.so code, base namespace", f1);
  compat_check_huge ("libcompatdl.so code, new namespace", f2);
  dlclose (h2);
  dlclose (h1);
  compat_expect ("no mapping of libcompatdl.so after both dlclose",
		 compat_maps_mentions ("libcompatdl.so") == 0);
  free (path);
}

static void
mode_textrel (void)
{
  char *path = lib_path ("libcompattextrel.so");
  void *h = dlopen (path, RTLD_NOW);
  if (!compat_expect ("dlopen libcompattextrel.so", h != NULL))
    {
      fprintf (stderr, "%s\n", dlerror ());
      return;
    }
  struct link_map *lm = NULL;
  dlinfo (h, RTLD_DI_LINKMAP, &lm);
  bool textrel = false;
  for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_TEXTREL
	|| (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
      textrel = true;
  compat_expect ("the library has DT_TEXTREL", textrel);

  const void *var = dlsym (h, "compat_tr_var");
  const void *func = dlsym (h, "compat_tr_func");
  const void *text_sym = dlsym (h, "compat_tr_text_table");
  const void *ro_sym = dlsym (h, "compat_tr_ro_table");
  const void *const *(*text_addr) (void)
    = (const void *const *(*) (void)) dlsym (h, "compat_tr_text_table_addr");
  const void *const *(*ro_addr) (void)
    = (const void *const *(*) (void)) dlsym (h, "compat_tr_ro_table_addr");
  const void *(*local_addr) (void)
    = (const void *(*) (void)) dlsym (h, "compat_tr_local_addr");
  if (var == NULL || func == NULL || text_sym == NULL || ro_sym == NULL
      || text_addr == NULL || ro_addr == NULL || local_addr == NULL)
    {
      compat_bad ("dlsym");
      return;
    }
  const void *local = local_addr ();
  const void *const *tables[2] = { text_addr (), ro_addr () };
  const void *syms[2] = { text_sym, ro_sym };
  const char *names[2] = { "table in .text", "table in .rodata" };
  const char *perms_want[2] = { "r-xp", "r--p" };
  char what[256];
  for (int i = 0; i < 2; ++i)
    {
      const void *const *t = tables[i];
#define EXPECT(fmt, ok)							\
      (snprintf (what, sizeof what, "%s: " fmt, names[i]),		\
       compat_expect (what, ok))
      EXPECT ("dlsym = the code's own address", t == syms[i]);
      EXPECT ("[0] = &compat_tr_var (R_X86_64_64)", t[0] == var);
      EXPECT ("[1] = &compat_tr_func (R_X86_64_64)", t[1] == func);
      EXPECT ("[2] = &compat_tr_var + 8 (addend)",
	      t[2] == (const char *) var + 8);
      EXPECT ("[3] = compat_tr_local (R_X86_64_RELATIVE)", t[3] == local);
      printf ("%s: *[0] = %d, [1] () = %d, *[2] = %d, [3] () = %d\n",
	      names[i], *(const int *) t[0], ((int (*) (void)) t[1]) (),
	      *(const int *) t[2], ((int (*) (void)) t[3]) ());
      if (*(const int *) t[0] != 42 || ((int (*) (void)) t[1]) () != 7
	  || *(const int *) t[2] != 44 || ((int (*) (void)) t[3]) () != 9)
	compat_bad ("the relocated addresses lead to the right things");
      char perms[5] = "";
      compat_mapping_of (t, NULL, NULL, perms, NULL);
      printf ("%s: mapping %s\n", names[i], perms);
      if (strcmp (perms, perms_want[i]) != 0)
	compat_bad ("protection restored after relocation");
#undef EXPECT
    }
  compat_check_huge ("libcompattextrel.so: table in .text", tables[0]);
  compat_check_huge ("libcompattextrel.so: table in .rodata", tables[1]);
  compat_check_huge ("libcompattextrel.so: code (compat_tr_func)", func);
  compat_expect ("no mapping is writable and executable",
		 compat_count_wx () == 0);
  free (path);
}

int
main (int argc, char **argv)
{
  int a = 1;
  if (a < argc && strcmp (argv[a], "-H") == 0)
    {
      compat_want_huge = true;
      ++a;
    }
  if (a >= argc)
    {
      fprintf (stderr, "usage: %s [-H] MODE [DIR [N]]\n", argv[0]);
      return 2;
    }
  const char *mode = argv[a++];
  if (a < argc)
    dir = argv[a++];
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (strcmp (mode, "basic") == 0)
    mode_basic ();
  else if (strcmp (mode, "findobj") == 0)
    mode_findobj ();
  else if (strcmp (mode, "ifunc") == 0)
    mode_ifunc ();
  else if (strcmp (mode, "dlclose") == 0)
    mode_dlclose (a < argc ? atoi (argv[a]) : 50);
  else if (strcmp (mode, "dlmopen") == 0)
    mode_dlmopen ();
  else if (strcmp (mode, "textrel") == 0)
    mode_textrel ();
  else
    {
      fprintf (stderr, "%s: unknown mode %s\n", argv[0], mode);
      return 2;
    }
  return compat_exit_status ();
}
