/* hugeld-plan: print the loader's huge page plan of ELF objects as JSON.
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

/* The helper behind `hugeld plan'.  It is linked with the loader's own
   elf/dl-hugepage-plan.c and elf/dl-hugepage-match.c, so the plan it
   prints is the one ld.so computes: the same selection (file name or
   path, then DT_SONAME, then the name a program was run by), the same
   settings (4 KiB pages, 2 MiB huge pages, fixed bias for ET_EXEC,
   text relocations from DT_TEXTREL / DF_TEXTREL) and the same
   planner.  What it adds is only reading the file and printing.

   Usage: hugeld-plan [OPTIONS] FILE...
   See usage () below.  The output is one JSON document:
     {"settings": {...}, "objects": [{...}, ...]}
   Addresses are unrelocated (as in the object's program headers) and
   printed as numbers.  With --layout each object also has "layout":
   the kind of every page of its PT_LOAD segments, on huge pages or
   not, which is what `hugeld status' labels a process's huge page
   mappings with.  A file that cannot be read or is not an ELF
   object this loader can load ends the run with one line on stderr
   and exit status 1; nothing is printed on stdout then.  */

#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "dl-hugepage-plan.h"
#include "dl-hugepage-cache.h"
#include "dl-hugepage-settings.h"
#include "hugeld-check.h"
#include "hugeld-plan.h"
#include "hugeld-json.h"

const char *progname = "hugeld-plan";


/* Print the usage text on OUT.  */
static void
usage (FILE *out)
{
  fprintf (out, "\
Usage: %s [OPTIONS] FILE...\n\
Print, as JSON, how hugeld's ld.so would place each ELF object FILE on\n\
2 MiB pages: whether LD_HUGEPAGE_LIBS selects it and by which pattern,\n\
the zones that go on huge pages and the ranges that stay on 4 KiB pages.\n\
The planning code is the loader's own (elf/dl-hugepage-plan.c).\n\
\n\
  --libs PATTERNS     LD_HUGEPAGE_LIBS (default: the environment's; unset\n\
                      selects nothing)\n\
  --segments LIST     LD_HUGEPAGE_SEGMENTS (default: the environment's, or\n\
                      ld.so's default; see --settings)\n\
  --name PATH         match the FILE after it as PATH, the name ld.so\n\
                      opens (with one FILE it may stand anywhere)\n\
  --check-libs PATTERNS      exit 0 if the LD_HUGEPAGE_LIBS list is sound,\n\
                      else say what is wrong and exit 1 (no FILE)\n\
  --check-segments LIST      the same for LD_HUGEPAGE_SEGMENTS\n\
  --check-backing LIST       the same for LD_HUGEPAGE_BACKING; prints the\n\
                      backings it names, in order, as a JSON list\n\
  --cgroup-none PID   print the hugetlb cgroup limit file that allows\n\
                      process PID no 2 MiB page, as ld.so finds it\n\
                      ({\"file\", \"value\"} or null; no FILE)\n\
  --cache-distrust dir|file:MODE:UID  why ld.so would not trust a\n\
                      directory or file of the shared cache with this\n\
                      st_mode (octal) and owner ({\"why\"}; no FILE)\n\
  --settings          print only the settings: the values used, ld.so's\n\
                      defaults, backings, paths and limits, and whether\n\
                      the kernel gives transparent huge pages (no FILE)\n\
  --kernel            plan FILE as a main program the kernel mapped (its\n\
                      PT_INTERP is hugeld): fixed base, gaps not its own\n\
  --bias ADDR         with --kernel: the load bias; without it every\n\
                      possible bias is tried and the least and most\n\
                      huge pages are reported\n\
  --alias NAME        with --kernel: the name the program was run by\n\
  --layout            also print each object's \"layout\": the kind of\n\
                      every page range of its PT_LOAD segments\n\
  --cache             also print each object's \"cache\": the names of its\n\
                      shared cache entry, the zones it holds, and which\n\
                      of them ld.so would map from the cache now\n\
  --backing LIST      LD_HUGEPAGE_BACKING (default: the environment's, or\n\
                      ld.so's default): with thp first, text is placed\n\
                      at its file phase\n\
  --no-pool           plan as ld.so does where the process can have no\n\
                      pool page (no pool, or a hugetlb cgroup that allows\n\
                      none): text at its file phase if thp is listed\n\
  --strict-links      follow only the symbolic links that root (or the\n\
                      caller) owns in the FILEs' paths; a FIFO, a device\n\
                      or any other file that is not regular is never\n\
                      opened either way\n\
  --help              this text\n", progname);
}

/* LD_HUGEPAGE_BACKING LIST parsed into ORDER as ld.so parses it: the
   number of backings.  The loader ignores a list it cannot use; here
   it is an error (hugeld-check.c).  */
static int
parse_backing (const char *list, unsigned char order[HP_NBACKINGS])
{
  char msg[HUGELD_CHECK_MSG_MAX];
  int n;
  if (hugeld_check_backing (list, order, &n, msg, sizeof msg) != NULL)
    die ("%s", msg);
  return n;
}

/* The settings of the plans from the options, else the LD_HUGEPAGE_*
   variables, else the defaults, decided by ld.so's resolver
   (_dl_hugepage_resolve) with no other source: the hugeld command
   asks hugeld-conf --effective for what the policy file and the
   tunables give, and passes the result as options.  Without
   ENVIRONMENT, the variables are not read: ld.so's defaults.  The loader warns
   about and ignores a bad list; here it is an error (dies).  */
static void
resolve_settings (const char *option[HP_NSETTINGS], bool environment,
		  struct hp_effective *e)
{
  extern char **environ;
  struct hp_sources s;
  memset (&s, 0, sizeof s);
  _dl_hugepage_environ_variables (environment ? environ : NULL, s.variable);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    if (option[t] != NULL)
      s.variable[t] = option[t];
  s.have_path = s.have_conf = true;
  _dl_hugepage_resolve (&s, e);
  char msg[HUGELD_CHECK_MSG_MAX];
  unsigned char order[HP_NBACKINGS];
  int n;
  if (e->bad[HP_SET_SEGMENTS])
    die ("bad segment list \"%s\": use a comma list of %s",
	 s.variable[HP_SET_SEGMENTS],
	 _dl_hugepage_setting_words (HP_SET_SEGMENTS));
  if (e->given[HP_SET_BACKING] != NULL && e->given_len[HP_SET_BACKING] > 0
      && hugeld_check_backing (e->given[HP_SET_BACKING], order, &n, msg,
			       sizeof msg) != NULL)
    die ("%s", msg);
}

/* The members "segments" and "backing" of the object being written in
   J: the kinds KINDS and the backings ORDER[0..N), as comma lists.  */
static void
print_lists (struct json *j, unsigned int kinds, const unsigned char *order,
	     int n)
{
  char list[HP_LIST_STRING_MAX];
  json_kstr (j, "segments",
	     _dl_hugepage_kinds_string (kinds, ',', list, sizeof list));
  json_kstr (j, "backing",
	     _dl_hugepage_backings_string (order, n, list, sizeof list));
}

/* The members "backings" and "kinds": the names of the backings ld.so
   knows (in enum hp_backing's order) and of the kinds of segments.  */
static void
print_names (struct json *j)
{
  json_key (j, "backings");
  json_array (j);
  for (int b = 1; b <= HP_NBACKINGS; ++b)
    json_str (j, _dl_hugepage_backing_name (b));
  json_end (j);
  json_key (j, "kinds");
  json_array (j);
  for (unsigned int k = HP_KIND_TEXT; k <= HP_KIND_BSS; k <<= 1)
    json_str (j, _dl_hugepage_kind_name (k));
  json_end (j);
}

/* The member "table": the settings' table, what the command calls each
   setting, its variable, its tunable and the words of its value.  */
static void
print_table (struct json *j)
{
  json_key (j, "table");
  json_array (j);
  for (int t = 0; t < HP_NSETTINGS; ++t)
    {
      json_object (j);
      json_kstr (j, "name", _dl_hugepage_setting_name (t));
      json_kstr (j, "variable", _dl_hugepage_setting_variable (t));
      json_kstr (j, "tunable", _dl_hugepage_setting_tunable (t));
      json_kstr (j, "words", _dl_hugepage_setting_words (t));
      json_end (j);
    }
  json_end (j);
}

/* The members "paths" and "limits": the paths compiled into ld.so (the
   policy file, the shared cache and the files a sync or a cache entry
   leaves there), and the limits of ld.so's hooks and policy file.  */
static void
print_paths_limits (struct json *j)
{
  json_key (j, "paths");
  json_object (j);
  json_kstr (j, "conf_file", HP_CONF_FILE);
  json_kstr (j, "cache_dir", HP_CACHE_DIR);
  json_kstr (j, "cache_synced", HP_CACHE_SYNCED);
  json_kstr (j, "cache_notext", HP_CACHE_NOTEXT);
  json_end (j);
  json_key (j, "limits");
  json_object (j);
  json_kint (j, "program_headers", HP_MAX_PHNUM);
  json_kint (j, "load_segments", HP_MAX_LOADS);
  json_kint (j, "dynamic_entries", HP_MAX_DYN);
  json_kint (j, "soname_bytes", HP_SONAME_MAX - 1);
  json_kint (j, "policy_file_bytes", HP_CONF_MAX_SIZE);
  json_kint (j, "policy_word_bytes", HP_CONF_MAX_WORD_LEN);
  json_kint (j, "pool_pages", HP_CONF_MAX_POOL);
  json_end (j);
}

/* The member "settings" of the document being written in J: what the
   objects are planned with, ld.so's defaults where nothing is set, the
   names it knows, its settings' table, its paths and its limits.  */
static void
print_settings (struct json *j, const struct options *opt)
{
  /* ld.so's defaults: what the resolver gives where nothing is set.  */
  const char *none[HP_NSETTINGS] = { NULL };
  struct hp_effective dflt;
  resolve_settings (none, false, &dflt);
  json_key (j, "settings");
  json_object (j);
  json_kstr (j, "libs", opt->libs);
  print_lists (j, opt->kinds, opt->order, opt->norder);
  json_kbool (j, "thp_enabled", opt->thp);
  json_kuint (j, "pagesize", PLAN_PAGESIZE);
  json_kuint (j, "hugepagesize", PLAN_HUGEPAGESIZE);
  json_key (j, "defaults");
  json_object (j);
  print_lists (j, dflt.kinds, dflt.backings, dflt.nbackings);
  json_end (j);
  print_names (j);
  print_table (j);
  print_paths_limits (j);
  json_end (j);
}

/* Flush the output: exit status 0, or die.  */
static int
finish (void)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    die ("writing the output: %s", strerror (errno));
  return 0;
}

/* The number S (decimal, or 0x hex, or 0 octal) given to the option
   OPT; dies if it is not one.  */
static uint64_t
parse_number (const char *opt, const char *s)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull (s, &end, 0);
  if (errno != 0 || *s == '\0' || *end != '\0' || *s == '-')
    die ("%s: not a number: %s", opt, s);
  return v;
}

/* What a run of hugeld-plan is asked for.  */
enum request
{
  REQ_PLAN,			/* The plans of the FILEs (or --settings).  */
  REQ_HELP,			/* --help.  */
  REQ_CHECK_LIBS,		/* --check-libs PATTERNS.  */
  REQ_CHECK_SEGMENTS,		/* --check-segments LIST.  */
  REQ_CHECK_BACKING,		/* --check-backing LIST.  */
  REQ_CGROUP_NONE,		/* --cgroup-none PID.  */
  REQ_CACHE_DISTRUST		/* --cache-distrust dir|file:MODE:UID.  */
};

/* The command line, parsed.  */
struct command
{
  enum request request;
  const char *arg;		/* The argument of a one-answer request.  */
  bool settings_only;		/* --settings.  */
  bool strict_links;		/* --strict-links.  */
  struct options opt;		/* The options of the plans.  */
  /* The FILEs in command-line order, and the name each is matched as
     (--name PATH before it; NULL: its own).  */
  const char **files;
  const char **names;
  size_t nfiles;
};

/* Parse ARGV (ARGC strings) into *CMD.  A one-answer request (--help,
   --check-*, --cgroup-none, --cache-distrust) ends the parsing where
   it stands: what follows it is not looked at.  --name PATH applies to
   the FILE after it, or with a single FILE wherever it stands.
   Returns 0, or 2 after a usage error is said on stderr; dies on a
   bad --bias or a misplaced --name, --bias or --alias.  The settings
   are left as the options give them (NULL where none does).  */
static int
parse_command (int argc, char **argv, struct command *cmd)
{
  enum { OPT_LIBS = 256, OPT_SEGMENTS, OPT_KERNEL, OPT_BIAS, OPT_ALIAS,
	 OPT_NAME, OPT_CHECK_LIBS, OPT_CHECK_SEGMENTS, OPT_LAYOUT, OPT_CACHE,
	 OPT_BACKING, OPT_NO_POOL, OPT_STRICT_LINKS, OPT_CHECK_BACKING,
	 OPT_SETTINGS, OPT_CGROUP_NONE, OPT_CACHE_DISTRUST, OPT_HELP };
  static const struct option longopts[] =
    {
      { "libs", required_argument, NULL, OPT_LIBS },
      { "segments", required_argument, NULL, OPT_SEGMENTS },
      { "kernel", no_argument, NULL, OPT_KERNEL },
      { "bias", required_argument, NULL, OPT_BIAS },
      { "alias", required_argument, NULL, OPT_ALIAS },
      { "name", required_argument, NULL, OPT_NAME },
      { "check-libs", required_argument, NULL, OPT_CHECK_LIBS },
      { "check-segments", required_argument, NULL, OPT_CHECK_SEGMENTS },
      { "layout", no_argument, NULL, OPT_LAYOUT },
      { "cache", no_argument, NULL, OPT_CACHE },
      { "backing", required_argument, NULL, OPT_BACKING },
      { "no-pool", no_argument, NULL, OPT_NO_POOL },
      { "strict-links", no_argument, NULL, OPT_STRICT_LINKS },
      { "check-backing", required_argument, NULL, OPT_CHECK_BACKING },
      { "settings", no_argument, NULL, OPT_SETTINGS },
      { "cgroup-none", required_argument, NULL, OPT_CGROUP_NONE },
      { "cache-distrust", required_argument, NULL, OPT_CACHE_DISTRUST },
      { "help", no_argument, NULL, OPT_HELP },
      { NULL, 0, NULL, 0 }
    };
  memset (cmd, 0, sizeof *cmd);
  cmd->request = REQ_PLAN;
  cmd->files = calloc (argc, sizeof *cmd->files);
  cmd->names = calloc (argc, sizeof *cmd->names);
  if (cmd->files == NULL || cmd->names == NULL)
    die ("out of memory");
  struct options *opt = &cmd->opt;
  const char *pending_name = NULL;
  int c;
  while (cmd->request == REQ_PLAN
	 && (c = getopt_long (argc, argv, "-", longopts, NULL)) != -1)
    switch (c)
      {
      case 1:
	cmd->names[cmd->nfiles] = pending_name;
	cmd->files[cmd->nfiles++] = optarg;
	pending_name = NULL;
	break;
      case OPT_CHECK_LIBS:
	cmd->request = REQ_CHECK_LIBS;
	cmd->arg = optarg;
	break;
      case OPT_CHECK_SEGMENTS:
	cmd->request = REQ_CHECK_SEGMENTS;
	cmd->arg = optarg;
	break;
      case OPT_CHECK_BACKING:
	cmd->request = REQ_CHECK_BACKING;
	cmd->arg = optarg;
	break;
      case OPT_CGROUP_NONE:
	cmd->request = REQ_CGROUP_NONE;
	cmd->arg = optarg;
	break;
      case OPT_CACHE_DISTRUST:
	cmd->request = REQ_CACHE_DISTRUST;
	cmd->arg = optarg;
	break;
      case OPT_HELP:
	cmd->request = REQ_HELP;
	break;
      case OPT_SETTINGS:
	cmd->settings_only = true;
	break;
      case OPT_LIBS:
	opt->libs = optarg;
	break;
      case OPT_SEGMENTS:
	opt->segments = optarg;
	break;
      case OPT_KERNEL:
	opt->kernel = true;
	break;
      case OPT_BIAS:
	opt->bias = parse_number ("--bias", optarg);
	opt->have_bias = true;
	break;
      case OPT_ALIAS:
	opt->alias = optarg;
	break;
      case OPT_LAYOUT:
	opt->layout = true;
	break;
      case OPT_CACHE:
	opt->cache = true;
	break;
      case OPT_BACKING:
	opt->backing = optarg;
	break;
      case OPT_NO_POOL:
	opt->no_pool = true;
	break;
      case OPT_STRICT_LINKS:
	cmd->strict_links = true;
	break;
      case OPT_NAME:
	if (pending_name != NULL)
	  die ("--name given twice for one FILE");
	pending_name = optarg;
	break;
      default:
	usage (stderr);
	return 2;
      }
  if (cmd->request != REQ_PLAN)
    return 0;
  if (cmd->nfiles == 0 && !cmd->settings_only)
    {
      fprintf (stderr, "%s: no file given (try --help)\n", progname);
      return 2;
    }
  if (pending_name != NULL)
    {
      if (cmd->nfiles != 1 || cmd->names[0] != NULL)
	die ("--name goes before the FILE it names");
      cmd->names[0] = pending_name;
    }
  if ((opt->have_bias || opt->alias != NULL) && !opt->kernel)
    die ("--bias and --alias need --kernel");
  return 0;
}

/* --check-backing LIST: the backings LIST names, in order, as the
   document of J (a list); dies if LIST is not sound.  */
static void
print_backing_list (struct json *j, const char *list)
{
  unsigned char order[HP_NBACKINGS];
  int norder = parse_backing (list, order);
  json_array (j);
  for (int k = 0; k < norder; ++k)
    json_str (j, _dl_hugepage_backing_name (order[k]));
  json_end (j);
}

/* Answer the one-answer request of CMD (not REQ_PLAN): print it and
   return the exit status, or die with one line (a setting the command
   refuses, hugeld-check.c).  */
static int
answer (const struct command *cmd)
{
  char msg[HUGELD_CHECK_MSG_MAX];
  struct json j;
  json_start (&j, stdout);
  switch (cmd->request)
    {
    case REQ_HELP:
      usage (stdout);
      return 0;
    case REQ_CHECK_LIBS:
      if (hugeld_check_libs (cmd->arg, msg, sizeof msg) != NULL)
	die ("%s", msg);
      return 0;
    case REQ_CHECK_SEGMENTS:
      if (hugeld_check_segments (cmd->arg, msg, sizeof msg) != NULL)
	die ("%s", msg);
      return 0;
    case REQ_CHECK_BACKING:
      print_backing_list (&j, cmd->arg);
      return finish ();
    case REQ_CGROUP_NONE:
      print_cgroup_none (&j, cmd->arg);
      return finish ();
    case REQ_CACHE_DISTRUST:
      print_cache_distrust (&j, cmd->arg);
      return finish ();
    default:
      return 2;
    }
}

/* Read what the plans need besides the command line into *OPT: the
   settings (resolve_settings), and whether the kernel gives
   transparent huge pages.  */
static void
read_settings (struct options *opt)
{
  const char *option[HP_NSETTINGS] =
    {
      [HP_SET_LIBS] = opt->libs, [HP_SET_SEGMENTS] = opt->segments,
      [HP_SET_BACKING] = opt->backing,
    };
  struct hp_effective e;
  resolve_settings (option, true, &e);
  opt->libs = e.libs;
  opt->segments = e.given[HP_SET_SEGMENTS];
  opt->backing = e.given[HP_SET_BACKING];
  opt->kinds = e.kinds;
  memcpy (opt->order, e.backings, e.nbackings);
  opt->norder = e.nbackings;
  opt->phase = _dl_hugepage_phase_mode (opt->order, opt->norder,
					opt->no_pool);
  opt->thp = thp_enabled ();
}

/* Read every FILE of CMD as ld.so would see it, matched as its --name
   if it has one: the objects, in order (malloc'ed).  Dies with one
   line for the first that cannot be read, so that an error prints
   nothing on stdout.  */
static struct object *
read_objects (const struct command *cmd)
{
  struct object *objs = calloc (cmd->nfiles, sizeof *objs);
  if (objs == NULL)
    die ("out of memory");
  for (size_t i = 0; i < cmd->nfiles; ++i)
    {
      read_object (cmd->files[i], &objs[i]);
      if (cmd->names[i] != NULL)
	objs[i].path = cmd->names[i];
    }
  return objs;
}

/* How many of the N objects OBJS the one pattern PAT (LEN bytes)
   selects by itself under OPT.  */
static size_t
pattern_count (const struct options *opt, const char *pat, size_t len,
	       const struct object *objs, size_t n)
{
  char *one = strndup (pat, len);
  if (one == NULL)
    die ("out of memory");
  size_t count = 0;
  for (size_t i = 0; i < n; ++i)
    {
      size_t l;
      const char *how;
      if (_dl_hugepage_select (one, objs[i].path, objs[i].soname,
			       opt->kernel ? opt->alias : NULL, &l,
			       &how) != NULL)
	++count;
    }
  free (one);
  return count;
}

/* The "patterns" member: each pattern of --libs with the number of the
   N objects OBJS it selects by itself, matched as ld.so matches the
   whole list (so that the command can name a pattern that selects
   nothing).  Patterns are separated by `:' as in
   _dl_hugepage_match_list.  */
static void
print_patterns (struct json *j, const struct options *opt,
		const struct object *objs, size_t n)
{
  json_key (j, "patterns");
  json_array (j);
  const char *p = opt->libs;
  while (p != NULL && *p != '\0')
    {
      size_t l = strcspn (p, ":");
      if (l > 0)
	{
	  json_object (j);
	  json_kstrn (j, "pattern", p, l);
	  json_kuint (j, "objects", pattern_count (opt, p, l, objs, n));
	  json_end (j);
	}
      p += l;
      if (*p == ':')
	++p;
    }
  json_end (j);
}

/* Print the document of the plans: {"settings": ..., "objects": [the
   N objects OBJS planned with OPT]}, or with SETTINGS_ONLY
   {"settings": ...}.  Returns the exit status (dies if the output
   cannot be written).  */
static int
print_plans (const struct options *opt, const struct object *objs, size_t n,
	     bool settings_only)
{
  struct json j;
  json_start (&j, stdout);
  json_object (&j);
  print_settings (&j, opt);
  if (!settings_only)
    {
      json_key (&j, "objects");
      json_array (&j);
      for (size_t i = 0; i < n; ++i)
	print_object (&j, &objs[i], opt);
      json_end (&j);
      print_patterns (&j, opt, objs, n);
    }
  json_end (&j);
  return finish ();
}

int
main (int argc, char **argv)
{
  struct command cmd;
  int status = parse_command (argc, argv, &cmd);
  if (status != 0)
    return status;
  if (cmd.request != REQ_PLAN)
    return answer (&cmd);
  strict_links = cmd.strict_links;
  read_settings (&cmd.opt);
  struct object *objs = read_objects (&cmd);
  status = print_plans (&cmd.opt, objs, cmd.nfiles, cmd.settings_only);
  free (objs);
  free (cmd.files);
  free (cmd.names);
  return status;
}
