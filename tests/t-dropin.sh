#!/bin/bash
# hugeld must be a drop-in for the system loader: with none of its own
# variables set, real programs run through $HUGELD_LDSO must behave exactly
# as through $SYSTEM_LDSO -- byte-identical stdout and stderr, same exit
# status.  Each check runs the same command line once under each loader
# ("LDSO PROGRAM ARGS...") and compares.  Programs that spawn children
# (gcc, ...) start those through the system loader; that is fine.
#
# The only normalisation is of what legitimately names the loader itself:
# the (0x...) load addresses and the loader's own path in --list, and the
# loader's own path in --help.  Everything else must match byte for byte.
#
# Every check runs as the shell's user (root in make check), then as
# nobody (a service's own user: "as nobody: "), both loaders as that
# user, in a working directory that user owns.
. "$(dirname "$0")/lib.sh"
as_users

need_loaders

# ---------------------------------------------------------------- helpers

# elf_prog NAME...: print the first NAME (a path, or a command looked up in
# PATH) that resolves to an ELF file.  ld.so can only run ELF executables,
# so shell-script wrappers (pyenv shims, ...) do not count.
elf_prog () {
  local n p
  for n in "$@"; do
    p=$(type -P "$n") || continue
    if [ "$(head -c4 "$(readlink -f "$p")" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
      echo "$p"; return 0
    fi
  done
  return 1
}

# Normalisers: called as NORM LDSO, filter stdin to stdout.
# --list: load addresses vary from run to run; the loader's own line is
# "/lib64/ld-linux-x86-64.so.2 => LDSO (0x...)" when LDSO is not the
# canonical path, "/lib64/ld-linux-x86-64.so.2 (0x...)" when it is.
norm_list () {
  sed -E 's/\(0x[0-9a-f]+\)/(ADDR)/g' | fixed_replace " => $1 (" " ("
}
# --help: the usage line names the loader as invoked.  (Only that line:
# "self-identifies as: /lib64/ld-linux-x86-64.so.2" is the name the loader
# is built to have, and must match.)
norm_help () {
  fixed_replace "Usage: $1 " "Usage: <LDSO> "
}

# run_both TAG CMD...: run "LDSO CMD..." under each loader (sys = system,
# hug = hugeld), as $AS_USER, in a fresh working directory
# $TEST_TMP/TAG.WHICH.d (that user's), with stdin from $RUN_STDIN
# (default /dev/null).  Keeps stdout, stderr and the exit status in
# $TEST_TMP/TAG.WHICH.{out,err,rc}; if $RUN_NORM names a normaliser,
# stdout and stderr are passed through it.
run_both () {
  local tag=$1; shift
  local which ldso base part
  run_as_argv || return 1
  for which in sys hug; do
    if [ $which = sys ]; then ldso=$SYSTEM_LDSO; else ldso=$HUGELD_LDSO; fi
    base=$TEST_TMP/$tag.$which
    rm -rf "$base.d"; mkdir -p "$base.d"
    [ -z "$AS_USER" ] || chown "$AS_USER" "$base.d"
    ( cd "$base.d" && exec ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$ldso" "$@" ) \
      < "${RUN_STDIN:-/dev/null}" > "$base.out" 2> "$base.err"
    echo $? > "$base.rc"
    if [ -n "${RUN_NORM:-}" ]; then
      for part in out err; do
        "$RUN_NORM" "$ldso" < "$base.$part" > "$base.$part.n"
        mv "$base.$part.n" "$base.$part"
      done
    fi
  done
}

# show_diff FILE1 FILE2: a unified diff of two (possibly binary) outputs,
# indented, at most 40 lines.
show_diff () {
  if grep -q -P '[^\x09\x0a\x20-\x7e]' "$1" "$2" 2>/dev/null; then
    diff -u --label "$SYSTEM_LDSO" --label "$HUGELD_LDSO" \
      <(od -An -c "$1") <(od -An -c "$2")
  else
    diff -u --label "$SYSTEM_LDSO" --label "$HUGELD_LDSO" "$1" "$2"
  fi | head -40 | sed 's/^/    /'
}

# compare_both NAME TAG RC REGEX: PASS if the two runs of TAG agree on
# stdout, stderr and exit status, and the system loader's run -- the
# reference -- exited RC with stdout matching the extended regex REGEX
# ("" for no stdout check).  The reference check keeps a test from passing
# because both runs failed the same way.
compare_both () {
  local name=$1 tag=$2 rc=$3 re=$4
  local s=$TEST_TMP/$tag.sys h=$TEST_TMP/$tag.hug part what bad=
  for part in rc out err; do
    if ! cmp -s "$s.$part" "$h.$part"; then
      case $part in
        rc) what="exit status differs: system $(cat "$s.rc"), hugeld $(cat "$h.rc")" ;;
        out) what="stdout differs" ;;
        err) what="stderr differs" ;;
      esac
      bad="${bad:+$bad; }$what"
    fi
  done
  if [ -n "$bad" ]; then
    case $bad in *stdout*|*stderr*) bad="$bad (diff follows)" ;; esac
    fail "$name" "$bad"
    for part in out err; do
      cmp -s "$s.$part" "$h.$part" || { echo "  $part:"; show_diff "$s.$part" "$h.$part"; }
    done
    return 1
  fi
  if [ "$(cat "$s.rc")" != "$rc" ]; then
    fail "$name" "both loaders agree, but the reference run exited $(cat "$s.rc"), not $rc: $(head -c 300 "$s.err" | tr '\n' ' ')"
    return 1
  fi
  if [ -n "$re" ] && ! grep -E -q -- "$re" "$s.out"; then
    fail "$name" "both loaders agree, but the reference output does not match /$re/: $(head -c 300 "$s.out" | tr '\n' ' ')"
    return 1
  fi
  pass "$name"
}

# same NAME RC REGEX CMD...: run_both + compare_both as each of
# AS_USERS ("as nobody: NAME"); $L.{sys,hug}.* are the outputs
# afterwards, for each L in LASTS (one per user).
same () {
  local name=$1 rc=$2 re=$3; shift 3
  local tag a who
  for a in "$@"; do
    if [ -z "$a" ]; then
      fail "$name" "a program it needs was not found (empty argument in: $*)"
      return 1
    fi
  done
  LASTS=()
  for who in "${AS_USERS[@]}"; do
    as_user "$who"
    tag=$AS$name; tag=${tag//[^A-Za-z0-9]/_}
    LASTS+=("$TEST_TMP/$tag")
    run_both "$tag" "$@" && compare_both "$AS$name" "$tag" "$rc" "$re"
  done
  as_user ""
}

# build NAME CC-ARGS...: compile a test binary with the system toolchain
# (run normally, not through either loader).
build () {
  local name=$1; shift
  if ! out=$(cc -O2 -Wall "$@" 2>&1); then
    fail "$name" "could not build the test program: $(echo "$out" | head -5 | tr '\n' ' ')"
    return 1
  fi
}

SRC=$TEST_TMP/src
mkdir -p "$SRC"

# ---------------------------------------------------------------- programs

# Python: ssl (libssl/libcrypto via an extension module), sqlite3, json.
if py=$(elf_prog /usr/bin/python3 python3); then
  cat > "$SRC/py.py" <<'EOF'
import hashlib, json, ssl, sqlite3
print(ssl.OPENSSL_VERSION)
ctx = ssl.create_default_context()
print("ssl verify_mode", ctx.verify_mode, "check_hostname", ctx.check_hostname)
print("sha256", hashlib.sha256(b"hugeld").hexdigest())
db = sqlite3.connect(":memory:")
db.execute("create table t (k integer primary key, v text)")
db.executemany("insert into t (v) values (?)", [(w,) for w in "huge pages for the loader".split()])
print("sqlite", sqlite3.sqlite_version, db.execute("select count(*), group_concat(v, '-'), sum(length(v)) from t order by k").fetchone())
doc = {"name": "hugeld", "pages": [4096, 2097152], "nested": {"ok": True, "pi": 3.141592653589793, "s": "\u00fc\u2603"}}
text = json.dumps(doc, sort_keys=True)
assert json.loads(text) == doc
print("json", text)
EOF
  same "python3 ssl+sqlite3+json" 0 '^sqlite .*huge-pages-for-the-loader' "$py" -I "$SRC/py.py"
else
  fail "python3 ssl+sqlite3+json" "no ELF python3 found (apt-get install python3)"
fi

# Perl with XS modules (POSIX, List::Util, Digest::MD5 are dlopened).
if perl=$(elf_prog /usr/bin/perl perl); then
  same "perl -MPOSIX -MList::Util" 0 '^sum 5050$' "$perl" -MPOSIX -MList::Util=sum,max -MDigest::MD5=md5_hex -e '
    print "sum ", sum(1..100), "\n";
    print "max ", max(3, 9, 2), "\n";
    print "floor ", POSIX::floor(-2.5), " fmod ", POSIX::fmod(10, 3), "\n";
    print "epoch ", POSIX::strftime("%Y-%m-%d %H:%M:%S", gmtime(0)), "\n";
    print "md5 ", md5_hex("hugeld"), "\n";
    print "sorted ", join(",", sort { $a <=> $b } (10, 2, 33, 4)), "\n";'
else
  fail "perl -MPOSIX -MList::Util" "no ELF perl found (apt-get install perl)"
fi

# gcc: compile and link under each loader; gcc's own output must match, and
# the two produced programs must behave the same.
if gcc=$(elf_prog /usr/bin/gcc gcc); then
  cat > "$SRC/hello.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp (const void *a, const void *b)
{
  return strcmp (*(const char **) a, *(const char **) b);
}

int main (int argc, char **argv)
{
  const char *w[] = { "pages", "huge", "loader", "dynamic" };
  qsort (w, 4, sizeof w[0], cmp);
  for (int i = 0; i < 4; i++)
    printf ("%s%c", w[i], i == 3 ? '\n' : ' ');
  printf ("sqrt(2) = %.15f\n", sqrt (argc + 1.0));
  return 3;
}
EOF
  for who in "${AS_USERS[@]}"; do
    as_user "$who"
    name="${AS}gcc compile+link" G=$TEST_TMP/gcc${who:+-$who}
    run_both "${G##*/}" "$gcc" -O2 -Wall -o hello "$SRC/hello.c" -lm
    if compare_both "$name" "${G##*/}" 0 ""; then
      for w in sys hug; do
        if [ -x "$G.$w.d/hello" ]; then
          run_as "$G.$w.d/hello" > "$G.$w.run" 2>&1
          echo "rc=$?" >> "$G.$w.run"
        else
          echo "no program produced" > "$G.$w.run"
        fi
      done
      if ! cmp -s "$G.sys.run" "$G.hug.run"; then
        fail "$name: produced programs" "behave differently (diff follows)"
        show_diff "$G.sys.run" "$G.hug.run"
      elif [ "$(tail -1 "$G.sys.run")" != rc=3 ] \
           || ! grep -q '^dynamic huge loader pages$' "$G.sys.run"; then
        fail "$name: produced programs" "agree, but not with what the program should print: $(tr '\n' ' ' < "$G.sys.run")"
      else
        pass "$name: produced programs"
        cmp -s "$G.sys.d/hello" "$G.hug.d/hello" \
          && echo "  note: the two binaries are also byte-identical" \
          || echo "  note: the two binaries differ in bytes (not checked)"
      fi
    else
      fail "$name: produced programs" "not compared: the compile itself did not match"
    fi
  done
  as_user ""
else
  fail "gcc compile+link" "no ELF gcc found (apt-get install gcc)"
fi

# coreutils.
lsdir=$TEST_TMP/lsdata/fixed
mkdir -p "$lsdir/sub"
printf 'hello\n' > "$lsdir/a.txt"
head -c 12345 /dev/zero > "$lsdir/zeros"
printf '#!/bin/sh\n' > "$lsdir/run me.sh"; chmod 755 "$lsdir/run me.sh"
ln -s a.txt "$lsdir/link"
chmod 640 "$lsdir/a.txt"
touch -h -d '2001-02-03 04:05:06 UTC' "$lsdir/link"
touch -d '2001-02-03 04:05:06 UTC' "$lsdir/a.txt" "$lsdir/zeros" "$lsdir/run me.sh" "$lsdir/sub" \
  "$lsdir" "$TEST_TMP/lsdata"
LC_ALL=C TZ=UTC same "ls -la" 0 ' a\.txt$' "$(elf_prog ls)" -la "$lsdir"

printf 'pear,3\napple,10\nBanana,2\n\xc3\xa4pfel,1\ncherry,10\nzucchini,7\n' > "$SRC/sort.in"
LC_ALL=C.UTF-8 same "sort" 0 '^Banana,2$' "$(elf_prog sort)" -t, -k2,2n -k1,1 "$SRC/sort.in"

head -c 1000000 /dev/zero | tr '\0' 'h' > "$SRC/sha.in"
same "sha256sum" 0 '^[0-9a-f]{64}  ' "$(elf_prog sha256sum)" "$SRC/sha.in" "$SRC/sort.in"

LC_ALL=C same "date -d @0 -u" 0 '^Thu Jan  1 00:00:00 UTC 1970$' "$(elf_prog date)" -d @0 -u
LC_ALL=C TZ=UTC same "date -d @0 +format" 0 '^1970-01-01T00:00:00\+0000 4 001$' \
  "$(elf_prog date)" -d @0 '+%Y-%m-%dT%H:%M:%S%z %u %j'

# iconv: these conversions dlopen gconv modules (ISO8859-1.so, EBCDIC-US.so).
if iconv=$(elf_prog iconv); then
  printf 'Gr\xc3\xbc\xc3\x9fe aus K\xc3\xb6ln, caf\xc3\xa9\n' > "$SRC/latin.in"
  printf 'HELLO, ebcdic 0123 (hugeld)\n' > "$SRC/ascii.in"
  # The expected bytes (ü is 0xfc in ISO-8859-1; H is 0xc8 in EBCDIC) are
  # checked on the reference output by the regex on its od dump below.
  same "iconv UTF-8 to ISO-8859-1" 0 '' "$iconv" -f UTF-8 -t ISO-8859-1 "$SRC/latin.in"
  for l in "${LASTS[@]}"; do
    od -An -tx1 "$l.sys.out" | grep -q 'fc' \
      || fail "iconv UTF-8 to ISO-8859-1" "reference output ($l) is not ISO-8859-1"
  done
  same "iconv UTF-8 to EBCDIC-US" 0 '' "$iconv" -f UTF-8 -t EBCDIC-US "$SRC/ascii.in"
  for l in "${LASTS[@]}"; do
    od -An -tx1 "$l.hug.out" | grep -q '^ c8 c5 d3 d3 d6' \
      || fail "iconv UTF-8 to EBCDIC-US" "output ($l) is not EBCDIC: $(od -An -tx1 "$l.hug.out" | head -1)"
  done
  # And the modules really were dlopened by hugeld.
  for who in "${AS_USERS[@]}"; do
    as_user "$who"
    run_as env LD_DEBUG=files "$HUGELD_LDSO" "$iconv" -f UTF-8 -t EBCDIC-US "$SRC/ascii.in" \
      > /dev/null 2> "$TEST_TMP/iconv.debug"
    if grep -q 'file=.*EBCDIC-US\.so' "$TEST_TMP/iconv.debug"; then
      pass "${AS}iconv: hugeld dlopened the EBCDIC-US gconv module"
    else
      fail "${AS}iconv: hugeld dlopened the EBCDIC-US gconv module" "LD_DEBUG=files shows no EBCDIC-US.so"
    fi
  done
  as_user ""
else
  fail "iconv" "no ELF iconv found (apt-get install libc-bin)"
fi

# dlopen/dlsym from a program, and the messages of failing dlopens.
cat > "$SRC/dl.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int main (int argc, char **argv)
{
  void *h = dlopen ("libm.so.6", RTLD_NOW);
  if (h == NULL)
    {
      printf ("dlopen libm.so.6: %s\n", dlerror ());
      return 1;
    }
  double (*cosp) (double) = (double (*) (double)) dlsym (h, "cos");
  if (cosp == NULL)
    {
      printf ("dlsym cos: %s\n", dlerror ());
      return 1;
    }
  printf ("cos(0.5) = %.17g\n", cosp (0.5));
  Dl_info info;
  if (dladdr ((void *) cosp, &info))
    printf ("cos is in %s\n", info.dli_fname);
  printf ("dlclose: %d\n", dlclose (h));

  void *bad = dlopen ("libhugeld-no-such-library.so.1", RTLD_NOW);
  printf ("missing library: %s\n", bad ? "loaded?!" : dlerror ());
  bad = dlopen (argv[1], RTLD_LAZY);
  printf ("not an ELF file: %s\n", bad ? "loaded?!" : dlerror ());
  void *sym = dlsym (RTLD_DEFAULT, "hugeld_no_such_symbol");
  printf ("missing symbol: %s\n", sym ? "found?!" : dlerror ());
  return 0;
}
EOF
# Longer than an ELF header, so that the error is about the header.
printf 'This text file is not an ELF object; it is longer than an ELF header though.\n' > "$SRC/not-elf.so"
if build "dlopen libm + failing dlopen" -o "$TEST_TMP/dl" "$SRC/dl.c"; then
  same "dlopen libm + failing dlopen" 0 \
    '^not an ELF file: .*: invalid ELF header$' \
    "$TEST_TMP/dl" "$SRC/not-elf.so"
  # What the reference run must have printed besides (the outputs are
  # already known to be identical).
  for want in '^cos\(0\.5\) = 0\.87758256189037276$' \
      '^missing library: libhugeld-no-such-library\.so\.1: cannot open shared object file: No such file or directory$' \
      '^missing symbol: .*: undefined symbol: hugeld_no_such_symbol$'; do
    for l in "${LASTS[@]}"; do
      grep -E -q "$want" "$l.sys.out" \
        || fail "dlopen libm + failing dlopen" "the output ($l) has no line matching /$want/"
    done
  done
fi

# ---------------------------------------------------------------- loader options

RUN_NORM=norm_list same "--list /bin/ls" 0 'libc\.so\.6 => ' --list "$(elf_prog /bin/ls ls)"

same "--verify dynamic executable" 0 '' --verify "$(elf_prog /bin/ls ls)"
same "--verify text file" 1 '' --verify "$SRC/not-elf.so"

# --library-path: libhltest.so lives in a directory nothing else names.
mkdir -p "$TEST_TMP/libpath"
cat > "$SRC/hltest.c" <<'EOF'
int hltest_answer (void) { return 42; }
EOF
cat > "$SRC/uselib.c" <<'EOF'
#include <stdio.h>
int hltest_answer (void);
int main (void) { printf ("hltest_answer: %d\n", hltest_answer ()); return 0; }
EOF
if build "--library-path" -shared -fPIC -o "$TEST_TMP/libpath/libhltest.so" "$SRC/hltest.c" \
   && build "--library-path" -o "$TEST_TMP/uselib" "$SRC/uselib.c" -L"$TEST_TMP/libpath" -lhltest; then
  same "--library-path" 0 '^hltest_answer: 42$' --library-path "$TEST_TMP/libpath" "$TEST_TMP/uselib"
  same "--library-path: not found without it" 127 '' "$TEST_TMP/uselib"
fi

# --preload: a library whose constructor prints.
cat > "$SRC/pre.c" <<'EOF'
#include <unistd.h>
__attribute__ ((constructor)) static void
init (void)
{
  static const char msg[] = "hugeld test preload: constructor ran\n";
  write (1, msg, sizeof msg - 1);
}
EOF
if build "--preload" -shared -fPIC -o "$TEST_TMP/libpre.so" "$SRC/pre.c"; then
  same "--preload" 0 '^hugeld test preload: constructor ran$' \
    --preload "$TEST_TMP/libpre.so" "$(elf_prog /bin/echo echo)" after-the-constructor
fi

# --argv0.
cat > "$SRC/argv0.c" <<'EOF'
#include <stdio.h>
int main (int argc, char **argv)
{
  for (int i = 0; i < argc; i++)
    printf ("argv[%d] = %s\n", i, argv[i]);
  return 0;
}
EOF
if build "--argv0" -o "$TEST_TMP/argv0" "$SRC/argv0.c"; then
  same "--argv0" 0 '^argv\[0\] = hugeld-argv0-name$' --argv0 hugeld-argv0-name "$TEST_TMP/argv0" one two
fi

RUN_NORM=norm_help same "--help" 0 '^Usage: <LDSO> ' --help

finish
