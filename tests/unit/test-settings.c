/* hugeld: unit tests for the settings' table and the one resolver
   (elf/dl-hugepage-settings.c).  Built into test-unit.
   Copyright (C) 2026 The hugeld authors.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <stdlib.h>
#include <string.h>
#include "dl-hugepage-kinds.h"
#include "dl-hugepage-settings.h"
#include "unit-check.h"
#include "tunconf-build.h"

/* The sources of one case, and what the resolver made of them.  */
static struct hp_sources src;
static struct hp_effective e;
static char *env[8];
static char conf_libs[512];
static const char *const names[] = { "myprog", "/usr/bin/myprog" };
static struct cache cache;
/* How many times the last resolve asked for the path and the file.  */
static int asked_path, asked_conf;

/* Start a case: no source at all, the environment ENV0... (NULL
   ended).  */
static void
start (const char *env0, ...)
{
  memset (&src, 0, sizeof src);
  memset (env, 0, sizeof env);
  env[0] = (char *) env0;
  src.environ = env;
}

/* The policy file TEXT (static), for the resolver to read.  */
static void
policy (const char *text)
{
  src.conf = text;
  src.conf_len = strlen (text);
  src.names = names;
  src.nnames = 2;
  src.conf_libs = conf_libs;
}

/* ld.so.cache's tunables: CACHE, sealed.  */
static void
system_tunables (void)
{
  src.tunconf = cache.sec;
  src.tunconf_size = seal (&cache);
  src.tunconf_data = cache.data;
  src.tunconf_start = cache.start;
  src.tunconf_end = cache.end;
}

/* Whether resolve () reads the file later, as ld.so does for a
   program the kernel started (_dl_hugepage_settle): the other sources
   first, as if there were no file, then _dl_hugepage_resolve_conf with
   the file, on the settings E says only the file may give.  */
static bool deferred;

/* Resolve as ld.so does, gathering what is asked for: the program's
   path /usr/bin/myprog, and the file (if policy () gave one).  */
static void
resolve (void)
{
  asked_path = asked_conf = 0;
  const char *conf = src.conf;
  src.conf = NULL;
  src.have_path = src.have_conf = false;
  unsigned int need;
  while ((need = _dl_hugepage_resolve (&src, &e)) != 0 && asked_path < 3)
    if ((need & HP_NEED_PATH) != 0)
      {
	++asked_path;
	src.have_path = true;
	src.path = "/usr/bin/myprog";
      }
    else
      {
	++asked_conf;
	src.have_conf = true;
	src.conf = deferred ? NULL : conf;
      }
  if (deferred && asked_conf > 0)
    {
      /* The file's part on its own, on what the other sources gave
	 (the first answer, as if there were no file).  */
      src.conf = conf;
      _dl_hugepage_resolve_conf (&src, &e);
    }
}

/* Whether setting T came from SOURCE.  */
static bool
from (int t, enum hp_source source)
{
  return e.source[t] == source;
}

/* E's libs as LD_HUGEPAGE_LIBS spells them ("" for none).  */
static const char *
libs (void)
{
  static char buf[512];
  if (e.libs == NULL)
    return "";
  _dl_hugepage_libs_copy (&e, buf);
  return buf;
}

static bool
defaults (int t)
{
  switch (t)
    {
    case HP_SET_LIBS:
      return e.libs == NULL;
    case HP_SET_SEGMENTS:
      return e.kinds == HP_KIND_DEFAULT;
    default:
      {
	static const unsigned char order[] = HP_BACKINGS_DEFAULT;
	return (e.nbackings == HP_NBACKINGS
		&& memcmp (e.backings, order, HP_NBACKINGS) == 0);
      }
    }
}

static void
test_table (void)
{
  CHECK (strcmp (_dl_hugepage_setting_name (HP_SET_SEGMENTS), "segments")
	 == 0
	 && strcmp (_dl_hugepage_setting_variable (HP_SET_LIBS),
		    "LD_HUGEPAGE_LIBS") == 0
	 && strcmp (_dl_hugepage_setting_tunable (HP_SET_BACKING),
		    "glibc.elf.hugepage.backing") == 0
	 && strcmp (_dl_hugepage_setting_name (HP_NSETTINGS), "?") == 0
	 && strcmp (_dl_hugepage_setting_variable (-1), "?") == 0,
	 "names, variables, tunables");
  for (int t = 0; t < HP_NSETTINGS; ++t)
    CHECK (_dl_hugepage_setting_security (t) == HP_SECURE_ERASE
	   && strlen (_dl_hugepage_setting_tunable (t)) < HP_TUNABLE_NAME_MAX
	   && _dl_hugepage_tunable_of (_dl_hugepage_setting_tunable (t),
				       strlen (_dl_hugepage_setting_tunable
					       (t))) == t,
	   "setting %d: its tunable is its own", t);
  CHECK (strcmp (_dl_hugepage_setting_words (HP_SET_SEGMENTS),
		 "text, rodata, relro, data, bss, or all") == 0
	 && strcmp (_dl_hugepage_setting_words (HP_SET_BACKING),
		    "shared, private, thp, in the order to try") == 0
	 && _dl_hugepage_setting_words (HP_SET_LIBS) == NULL,
	 "the words of the messages, from the kinds' and backings' tables: "
	 "%s; %s", _dl_hugepage_setting_words (HP_SET_SEGMENTS),
	 _dl_hugepage_setting_words (HP_SET_BACKING));
  /* Every word the messages list parses, and nothing else does.  */
  CHECK (_dl_hugepage_parse_kinds ("text,rodata,relro,data,bss")
	 == (int) HP_KIND_ALL && _dl_hugepage_parse_kinds ("all")
	 == (int) HP_KIND_ALL, "the kinds' words");
  CHECK (_dl_hugepage_parse_kinds_n ("text,bss", 4) == (int) HP_KIND_TEXT
	 && _dl_hugepage_parse_kinds_n ("textx", 4) == (int) HP_KIND_TEXT
	 && _dl_hugepage_parse_kinds_n ("", 0) == 0,
	 "a list of LEN bytes ends there");
  unsigned char order[HP_NBACKINGS];
  CHECK (_dl_hugepage_parse_backing_n ("thp,shared:x", 10, order) == 2
	 && order[0] == HP_B_THP && order[1] == HP_B_SHARED,
	 "backings of LEN bytes");
}

static void
test_environ_variables (void)
{
  char *ev[] = { "LD_HUGEPAGE_LIBS=a", "LD_HUGEPAGE_LIBSX=b",
		 "LD_HUGEPAGE_SEGMENTS", "X=LD_HUGEPAGE_BACKING=c",
		 "LD_HUGEPAGE_LIBS=last", "LD_HUGEPAGE_BACKING=", NULL };
  const char *v[HP_NSETTINGS];
  _dl_hugepage_environ_variables (ev, v);
  CHECK (v[HP_SET_LIBS] != NULL && strcmp (v[HP_SET_LIBS], "last") == 0,
	 "the last string of a name wins, as in process_envvars");
  CHECK (v[HP_SET_SEGMENTS] == NULL, "a string without `=' sets nothing");
  CHECK (v[HP_SET_BACKING] != NULL && v[HP_SET_BACKING][0] == '\0',
	 "set empty is set");
  _dl_hugepage_environ_variables (NULL, v);
  CHECK (v[0] == NULL && v[1] == NULL && v[2] == NULL, "no environment");
}

static void
test_defaults (void)
{
  start (NULL);
  CHECK (_dl_hugepage_resolve (&src, &e) == HP_NEED_CONF,
	 "nothing given: the policy file is asked for");
  resolve ();
  CHECK (asked_conf == 1 && asked_path == 0 && !e.conf_used,
	 "asked once; no file");
  for (int t = 0; t < HP_NSETTINGS; ++t)
    CHECK (from (t, HP_SOURCE_DEFAULT) && defaults (t) && e.given[t] == NULL
	   && !e.bad[t] && e.line[t] == 0, "setting %d: the default", t);
}

static void
test_variables (void)
{
  start (NULL);
  src.variable[HP_SET_LIBS] = "a:b";
  src.variable[HP_SET_SEGMENTS] = "text";
  src.variable[HP_SET_BACKING] = "thp";
  CHECK (_dl_hugepage_resolve (&src, &e) == 0,
	 "every variable set: the file is not asked for");
  CHECK (from (HP_SET_LIBS, HP_SOURCE_VARIABLE)
	 && strcmp (libs (), "a:b") == 0 && !e.libs_commas
	 && e.kinds == HP_KIND_TEXT && e.nbackings == 1
	 && e.backings[0] == HP_B_THP && !e.conf_used, "the variables");

  start (NULL);
  src.variable[HP_SET_LIBS] = "";
  CHECK (_dl_hugepage_resolve (&src, &e) == 0 && e.libs == NULL
	 && from (HP_SET_LIBS, HP_SOURCE_VARIABLE),
	 "LD_HUGEPAGE_LIBS= turns hugeld off: no file is asked for");

  start (NULL);
  policy ("libs f\nsegments all\nbacking private\n");
  src.variable[HP_SET_SEGMENTS] = "";
  src.variable[HP_SET_BACKING] = "thp,foo";
  resolve ();
  CHECK (strcmp (libs (), "f") == 0 && from (HP_SET_LIBS, HP_SOURCE_FILE)
	 && e.line[HP_SET_LIBS] == 1
	 && from (HP_SET_SEGMENTS, HP_SOURCE_VARIABLE) && defaults (1)
	 && !e.bad[HP_SET_SEGMENTS]
	 && from (HP_SET_BACKING, HP_SOURCE_VARIABLE) && defaults (2)
	 && e.bad[HP_SET_BACKING] && e.given_len[HP_SET_BACKING] == 7,
	 "set empty or bad: the default, not the file's; bad is said");
}

static void
test_glibc_tunables (void)
{
  start ("GLIBC_TUNABLES=glibc.malloc.perturb=1:glibc.elf.hugepage.libs="
	 "a,b:glibc.elf.hugepage.segments=all");
  resolve ();
  CHECK (from (HP_SET_LIBS, HP_SOURCE_TUNABLES) && e.libs_commas
	 && strcmp (libs (), "a:b") == 0
	 && from (HP_SET_SEGMENTS, HP_SOURCE_TUNABLES)
	 && e.kinds == HP_KIND_ALL && from (HP_SET_BACKING, HP_SOURCE_DEFAULT),
	 "the tunables, the libs' commas as colons");

  /* Every GLIBC_TUNABLES string, in order: the last value wins; a
     string glibc 2.41 rejects gives nothing, the others still do.  */
  start ("GLIBC_TUNABLES=glibc.elf.hugepage.libs=first:"
	 "glibc.elf.hugepage.backing=thp");
  env[1] = "GLIBC_TUNABLES=glibc.elf.hugepage.libs=second";
  env[2] = "GLIBC_TUNABLES=glibc.elf.hugepage.libs=third:bad";
  env[3] = "GLIBC_TUNABLESX=glibc.elf.hugepage.libs=not";
  env[4] = "glibc.elf.hugepage.libs=not-a-tunable";
  resolve ();
  CHECK (strcmp (libs (), "second") == 0
	 && from (HP_SET_BACKING, HP_SOURCE_TUNABLES)
	 && e.backings[0] == HP_B_THP,
	 "repeated strings: the last that glibc takes wins, per name (%s)",
	 libs ());

  start ("GLIBC_TUNABLES=glibc.elf.hugepage.libs=tun:"
	 "glibc.elf.hugepage.segments=text");
  src.variable[HP_SET_LIBS] = "var";
  src.variable[HP_SET_SEGMENTS] = "";
  resolve ();
  CHECK (strcmp (libs (), "var") == 0 && defaults (HP_SET_SEGMENTS)
	 && from (HP_SET_SEGMENTS, HP_SOURCE_VARIABLE),
	 "a variable that is set wins, even empty");

  start ("GLIBC_TUNABLES=glibc.elf.hugepage.libs=:glibc.x=1");
  CHECK (_dl_hugepage_resolve (&src, &e) == 0 && e.libs == NULL
	 && from (HP_SET_LIBS, HP_SOURCE_TUNABLES),
	 "the libs tunable empty turns hugeld off");

  start ("GLIBC_TUNABLES=glibc.elf.hugepage.segments=txt:"
	 "glibc.elf.hugepage.libs=x");
  resolve ();
  CHECK (e.bad[HP_SET_SEGMENTS] && defaults (HP_SET_SEGMENTS)
	 && e.given_len[HP_SET_SEGMENTS] == 3
	 && memcmp (e.given[HP_SET_SEGMENTS], "txt", 3) == 0,
	 "a bad tunable: the default, and its text for the warning");
}

static void
test_system_tunables (void)
{
  /* A global libs line only (issue 41's first case): ld.so selects.  */
  init (&cache);
  add (&cache, DEFAULT, "glibc.elf.hugepage.libs", "libbig.so,libc*", NULL);
  start (NULL);
  system_tunables ();
  resolve ();
  CHECK (from (HP_SET_LIBS, HP_SOURCE_SYSTEM) && e.libs_commas
	 && strcmp (libs (), "libbig.so:libc*") == 0 && !e.locked[0]
	 && asked_path == 0 && asked_conf == 1,
	 "a global line of /etc/tunables.conf selects");

  /* Overridable: GLIBC_TUNABLES and the variable win.  */
  start ("GLIBC_TUNABLES=glibc.elf.hugepage.libs=tun");
  system_tunables ();
  resolve ();
  CHECK (strcmp (libs (), "tun") == 0, "GLIBC_TUNABLES over a line");
  src.variable[HP_SET_LIBS] = "var";
  resolve ();
  CHECK (strcmp (libs (), "var") == 0 && !e.variable_ignored[0],
	 "the variable over a line");

  /* Nonoverridable: it wins over both, and says the variable lost.  */
  init (&cache);
  add (&cache, DEFAULT | DENY, "glibc.elf.hugepage.libs", "locked", NULL);
  start ("GLIBC_TUNABLES=glibc.elf.hugepage.libs=tun");
  src.variable[HP_SET_LIBS] = "var";
  system_tunables ();
  resolve ();
  CHECK (strcmp (libs (), "locked") == 0 && e.locked[0]
	 && e.variable_ignored[0] && from (HP_SET_LIBS, HP_SOURCE_SYSTEM),
	 "a nonoverridable line wins over both");

  /* [proc:] filters: the path is asked for, once.  */
  init (&cache);
  add (&cache, DEFAULT, "glibc.elf.hugepage.segments", "text", "myprog");
  add (&cache, DEFAULT, "glibc.elf.hugepage.backing", "thp", "other");
  start (NULL);
  system_tunables ();
  CHECK (_dl_hugepage_resolve (&src, &e) == HP_NEED_PATH,
	 "a [proc:] line: the path is asked for");
  resolve ();
  CHECK (asked_path == 1 && e.kinds == HP_KIND_TEXT
	 && from (HP_SET_SEGMENTS, HP_SOURCE_SYSTEM)
	 && from (HP_SET_BACKING, HP_SOURCE_DEFAULT),
	 "the filter naming the program applies, the other not");
  src.have_path = true;
  src.path = NULL;
  src.have_conf = true;
  CHECK (_dl_hugepage_resolve (&src, &e) == 0
	 && from (HP_SET_SEGMENTS, HP_SOURCE_DEFAULT),
	 "no name for the program: no [proc:] line applies");

  /* AT_SECURE: the lines marked for it only; never the environment.  */
  init (&cache);
  add (&cache, DEFAULT, "glibc.elf.hugepage.libs", "nonsecure", NULL);
  add (&cache, ANYSECURE, "glibc.elf.hugepage.segments", "all", NULL);
  start ("GLIBC_TUNABLES=glibc.elf.hugepage.backing=thp");
  src.secure = true;
  src.variable[HP_SET_LIBS] = "var";
  system_tunables ();
  resolve ();
  CHECK (e.libs == NULL && from (HP_SET_LIBS, HP_SOURCE_DEFAULT)
	 && from (HP_SET_SEGMENTS, HP_SOURCE_SYSTEM) && e.kinds == HP_KIND_ALL
	 && from (HP_SET_BACKING, HP_SOURCE_DEFAULT)
	 && !e.variable_ignored[0],
	 "AT_SECURE: only the line marked for it (`*')");

  /* A malformed section: none of its lines, said.  */
  init (&cache);
  add (&cache, DEFAULT, "glibc.elf.hugepage.libs", "x", NULL);
  start (NULL);
  system_tunables ();
  src.tunconf_end = src.tunconf_start + 4;
  resolve ();
  CHECK (e.tunconf_bad && e.libs == NULL, "malformed: ignored, and said");
}

static void
test_policy_file (void)
{
  /* The libs from the policy file and the segments and backing from
     GLIBC_TUNABLES (issue 41's second case): ld.so takes both.  */
  start ("GLIBC_TUNABLES=glibc.elf.hugepage.segments=all:"
	 "glibc.elf.hugepage.backing=private");
  policy ("libs a:b\nsegments text\n");
  resolve ();
  CHECK (from (HP_SET_LIBS, HP_SOURCE_FILE) && strcmp (libs (), "a:b") == 0
	 && e.libs == conf_libs && e.line[HP_SET_LIBS] == 1
	 && from (HP_SET_SEGMENTS, HP_SOURCE_TUNABLES)
	 && e.kinds == HP_KIND_ALL && from (HP_SET_BACKING, HP_SOURCE_TUNABLES)
	 && e.backings[0] == HP_B_PRIVATE && e.conf_used,
	 "the file's libs with GLIBC_TUNABLES's segments and backing");

  /* Under a line of /etc/tunables.conf.  */
  init (&cache);
  add (&cache, DEFAULT, "glibc.elf.hugepage.segments", "rodata", NULL);
  start (NULL);
  system_tunables ();
  policy ("libs a\nsegments text\nbacking thp\n");
  resolve ();
  CHECK (from (HP_SET_SEGMENTS, HP_SOURCE_SYSTEM)
	 && e.kinds == HP_KIND_RODATA && from (HP_SET_BACKING, HP_SOURCE_FILE)
	 && e.line[HP_SET_BACKING] == 3, "/etc/tunables.conf over the file");

  /* Program blocks, libs none, AT_SECURE.  */
  start (NULL);
  policy ("libs g\nprogram other\nlibs o\nprogram myprog\nlibs none\n");
  resolve ();
  CHECK (e.libs == NULL && from (HP_SET_LIBS, HP_SOURCE_FILE)
	 && e.line[HP_SET_LIBS] == 5 && e.conf_block == 4,
	 "the block naming the program: libs none, from its line");
  start (NULL);
  src.secure = true;
  src.variable[HP_SET_LIBS] = "var";
  policy ("libs g\nprogram /usr/bin/myprog\nlibs s\n");
  resolve ();
  CHECK (strcmp (libs (), "s") == 0 && e.conf_block == 2,
	 "AT_SECURE: the variable is ignored, the block naming it applies");
  start (NULL);
  src.secure = true;
  policy ("libs g\n");
  resolve ();
  CHECK (e.libs == NULL && e.conf_used, "AT_SECURE: no global lines");
}

void
test_settings_resolve (void)
{
  test_table ();
  test_environ_variables ();
  test_defaults ();
  test_variables ();
  test_glibc_tunables ();
  test_system_tunables ();
  test_policy_file ();
  /* The same cases with the file read later: the same answers.  */
  deferred = true;
  test_variables ();
  test_glibc_tunables ();
  test_system_tunables ();
  test_policy_file ();
  deferred = false;
}
