#!/bin/bash
# The policy file /etc/hugeld.conf: with no LD_ variable at all, ld.so
# selects what the file says (as `ld.so PROG', with PT_INTERP and for a
# set-user-ID program), by program blocks too; a file that is not
# root's alone, or that has a line that does not parse, is ignored;
# random bytes in it change no program's result; a set variable
# overrides its setting.  What is on huge pages is read from
# /proc/PID/smaps.  The file is the system's: whatever was there is put
# back at the end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(writes /etc/hugeld.conf)"
take_policy_file
reserve_hugepages 48 || { fail reserve "cannot reserve 48 huge pages"; finish; }
cache_test_setup || finish
at_exit "cleanup_cache $L/libvalue.so"
chmod 755 "$TEST_TMP" "$B" "$L"
LIB=$L/libvalue.so

# conf MODE TEXT: write the file (root's, MODE).
conf () { rm -f "$CONF"; printf '%b' "$2" > "$CONF"; chmod "$1" "$CONF"; }

# huge_kb PID: the 2 MiB-page memory PID maps; shared_kb PID: of it,
# what comes from the shared cache.
huge_kb () {
  awk '/^[0-9a-f]+-[0-9a-f]+ / { sz = 0; next } $1 == "Size:" { sz = $2 }
       $1 == "KernelPageSize:" && $2 == 2048 { s += sz } END { print s + 0 }' "/proc/$1/smaps"
}
shared_kb () { smaps_kb "$1" "$CACHE/" Size; }

# probe NAME [ENV...]: run hold on $LIB through hugeld (hold_start)
# with only ENV, and record its huge page memory, shared part, value
# and report in $NAME.{huge,shared,value,dbg}.
probe () {
  local n=$TEST_TMP/$1; shift
  hold_start "$n" "$@"
  local pid; pid=$(cat "$n.pid")
  huge_kb "$pid" > "$n.huge"; shared_kb "$pid" > "$n.shared"
  hold_stop "$n"
  value_of "$n.out" > "$n.value"
}
got () { cat "$TEST_TMP/$1.$2"; }

# expect NAME WHAT HUGE(yes|no) [GREP]: the probe put libvalue on huge
# pages or not, still printed value 1, and its report says GREP.
expect () {
  local n=$1 what=$2 want=$3 pat=${4:-}
  local huge; huge=$(got "$n" huge)
  local ok=yes
  [ "$(got "$n" value)" = 1 ] || ok=no
  if [ "$want" = yes ]; then [ "$huge" -ge 2048 ] || ok=no
  else [ "$huge" = 0 ] || ok=no; fi
  [ -z "$pat" ] || grep -q -- "$pat" "$TEST_TMP/$n.dbg" || ok=no
  [ $ok = yes ] && pass "$what" \
    || fail "$what" "huge ${huge} kB, value $(got "$n" value), report: $(grep -m3 'hugeld.conf\|selected' "$TEST_TMP/$n.dbg" | tr '\n' ' ')"
}

# Control: no file, no variable: stock.
rm -f "$CONF"
probe none
expect none "no file, no variable: ordinary pages" no "hugeld.conf: none"

conf 644 '# test\nlibs libvalue.so\n'
probe file
expect file "root's file, no variable: libvalue on 2 MiB pages" yes \
  'selected by pattern "libvalue.so" (file name) (/etc/hugeld.conf line 2)'

conf 666 'libs libvalue.so\n'
probe mode666
expect mode666 "mode 666: file ignored" no "ignored: writable by group or others"
conf 620 'libs libvalue.so\n'
probe mode620
expect mode620 "mode 620: file ignored" no "ignored: writable by group or others"
conf 644 'libs libvalue.so\n'; chown 65534 "$CONF"
probe owner
expect owner "owned by another user: file ignored" no "ignored: not owned by root"
rm -f "$CONF"; mkdir "$CONF"
probe dir
expect dir "a directory: ignored" no "ignored: not a regular file"
rmdir "$CONF"

# Special files: a FIFO would block the open, and with it every program
# (and root's tools); a device must not even be opened.  As the file
# itself and behind a symbolic link.
specials () {
  local what=$1 ok=yes out
  for who in root nobody; do
    if [ $who = root ]; then
      out=$(LD_DEBUG=hugepages timeout 10 "$HUGELD_LDSO" /bin/true 2>&1)
    else
      out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env LD_DEBUG=hugepages \
            timeout 10 "$HUGELD_LDSO" /bin/true 2>&1)
    fi
    [ $? = 0 ] && echo "$out" | grep -q "hugeld.conf ignored: not a regular file" \
      || { ok=no; fail "$what: /bin/true as $who" "$(echo "$out" | grep -m2 'hugeld.conf\|Terminated' | tr '\n' ' ') (exit or timeout)"; }
  done
  out=$(timeout 20 "$H" config check 2>&1 < /dev/null)
  local rc=$?
  [ $rc != 124 ] && echo "$out" | grep -q "$CONF" \
    || { ok=no; fail "$what: hugeld config check" "exit $rc: $(echo "$out" | head -2 | tr '\n' ' ')"; }
  [ $ok = yes ] && pass "$what: /bin/true (root, nobody) runs at once and says why the file is ignored; hugeld config check names it ($(echo "$out" | grep -m1 "$CONF"))"
}
rm -f "$CONF"; mkfifo -m 644 "$CONF"
specials "a FIFO as the policy file"
rm -f "$CONF"; mkfifo -m 644 "$TEST_TMP/fifo"; ln -s "$TEST_TMP/fifo" "$CONF"
specials "a symbolic link to a FIFO as the policy file"
rm -f "$CONF"; ln -s /dev/zero "$CONF"
specials "a symbolic link to a device as the policy file"
rm -f "$CONF"

# The file swapped while ld.so reads it: root's link leads into a
# directory another user controls, who swaps what it leads to, between
# root's regular file and a device, in a loop, while programs start.
# ld.so resolves the path once and reads what it checked: the device is
# never opened (inotify counts its opens; one `: <' first shows the
# count works).  As the stock loader, which does not read the file.
swap_starts=${SWAP_STARTS:-10000}
SW=$(mktemp -d /tmp/hugeld-swap.XXXXXX)
at_exit "rm -rf $SW"
chown 65534:65534 "$SW"; chmod 755 "$SW"
printf 'libs libnotthere.so\n' > "$TEST_TMP/good.conf"; chmod 644 "$TEST_TMP/good.conf"
mknod -m 666 "$SW/dev" c 1 7
ln -s "$TEST_TMP/good.conf" "$SW/target"
ln -s "$SW/target" "$CONF"
rm -f "$TEST_TMP/opens.ready" "$TEST_TMP/opens.stop"
python3 "$HUGELD_TOP/tests/policy/count-opens.py" "$SW/dev" "$TEST_TMP/opens.ready" "$TEST_TMP/opens.stop" > "$TEST_TMP/opens" &
counter=$!
for _ in $(seq 100); do [ -e "$TEST_TMP/opens.ready" ] && break; sleep 0.05; done
: < "$SW/dev"
setpriv --reuid=65534 --regid=65534 --clear-groups bash -c '
  cd "$1" || exit 1
  while [ ! -e "$2" ]; do
    ln -sfn dev next.d && mv -T next.d target
    ln -sfn "$3" next.g && mv -T next.g target
  done' swap "$SW" "$TEST_TMP/opens.stop" "$TEST_TMP/good.conf" &
swapper=$!
t0=$SECONDS; bad=0
for ((i = 0; i < swap_starts; i++)); do
  timeout 10 "$HUGELD_LDSO" /bin/true || bad=$((bad + 1))
done
t=$((SECONDS - t0))
touch "$TEST_TMP/opens.stop"; wait $swapper; wait $counter
opens=$(cat "$TEST_TMP/opens")
if [ "$opens" = 1 ] && [ $bad = 0 ]; then
  pass "policy file swapped with a device in a loop: $swap_starts starts of /bin/true in ${t} s, all ran, 0 opens of the device (1, the check's own)"
else
  fail "policy file swapped with a device in a loop" "$((opens - 1)) opens of the device by ld.so in $swap_starts starts, $bad failed"
fi
rm -f "$CONF"

conf 644 'libs libvalue.so\nsegments text\nlibz libfoo.so\n'
probe badline
expect badline "a line that does not parse voids the whole file" no \
  "ignored: line 3: unknown keyword"
# ld.so checks the lines that apply to the program: a bad line in
# another program's block is that program's; in its own block it voids
# the file for it (hugeld config check still names every bad line).
conf 644 'libs libvalue.so\nsegments text\nprogram /no/such/prog\n  libz libfoo.so\n  segments bogus\n'
probe otherbad
expect otherbad "a bad line in another program's block: the file applies to this one" yes
conf 644 'libs libvalue.so\nsegments text\nprogram hold\n  libz libfoo.so\n'
probe ownbad
expect ownbad "a bad line in the program's own block voids the file for it" no \
  "ignored: line 4: unknown keyword"
"$H" config check > "$TEST_TMP/cc.out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q ':4: unknown keyword' "$TEST_TMP/cc.out" \
  && pass "hugeld config check names the bad line of any block" \
  || fail "hugeld config check" "exit $rc: $(cat "$TEST_TMP/cc.out")"

# Variables override the file, setting by setting.
conf 644 'libs libvalue.so\nsegments text\n'
probe empty LD_HUGEPAGE_LIBS=
expect empty "LD_HUGEPAGE_LIBS= (empty): off, file not read" no
grep -q hugeld.conf "$TEST_TMP/empty.dbg" \
  && fail "LD_HUGEPAGE_LIBS= does not read the file" "$(grep -m1 hugeld.conf "$TEST_TMP/empty.dbg")" \
  || pass "LD_HUGEPAGE_LIBS= does not read the file"
probe other LD_HUGEPAGE_LIBS=libother.so
expect other "LD_HUGEPAGE_LIBS overrides the file's libs" no "LD_HUGEPAGE_LIBS=libother.so"
probe segvar LD_HUGEPAGE_SEGMENTS=text,rodata
expect segvar "LD_HUGEPAGE_SEGMENTS overrides the file's segments, libs still from the file" yes \
  "segments: text rodata$"

# Program blocks.
conf 644 'program /no/such/prog\n  libs libvalue.so\n'
probe noblock
expect noblock "program block for another program: not selected" no "selects nothing"
conf 644 'libs libnothing.so\nprogram hold\n  libs libvalue.so\n'
probe byname
expect byname "program block by name" yes "program block at line 2 applies"
conf 644 "libs libvalue.so\nprogram $B/h*\n  libs none\n"
probe optout
expect optout "program block by path glob: libs none opts it out" no "selects nothing"

# PT_INTERP: the kernel runs the program; the block matches the path
# of its file and the name it was run by (a symlink).
cc -O2 -o "$B/ihold" "$HUGELD_TOP/tests/cache/hold.c" -ldl \
  -Wl,--dynamic-linker="$HUGELD_LDSO" || fail "link ihold" ""
ln -sf ihold "$B/hold-link"
iprobe () {
  local n=$TEST_TMP/$1 prog=$2
  rm -f "$n".dbg.* "$n.stop"
  env HOLD_UNTIL="$n.stop" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$n.dbg" \
    "$prog" "$LIB" < /dev/null > "$n.out" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q '^ready' "$n.out" 2>/dev/null && break; sleep 0.1; done
  huge_kb "$pid" > "$n.huge"; shared_kb "$pid" > "$n.shared"
  touch "$n.stop"; wait "$pid"
  cat "$n".dbg.* > "$n.dbg" 2>/dev/null || : > "$n.dbg"
  value_of "$n.out" > "$n.value"
}
conf 644 "program $B/ihold\n  libs libvalue.so\n"
iprobe interp "$B/ihold"
expect interp "PT_INTERP program: block by the path of its file" yes "program block at line 1 applies"
conf 644 "program hold-link\n  libs libvalue.so\n"
iprobe interplink "$B/hold-link"
expect interplink "PT_INTERP program: block by the name it was run by" yes "program block at line 1 applies"

# Set-user-ID: the variables never apply, the root-owned file does.
if command -v setpriv > /dev/null; then
  cp "$B/ihold" "$B/suid-hold"; chmod 4755 "$B/suid-hold"
  sprobe () {
    local n=$TEST_TMP/$1; shift
    rm -f "$n.stop"; : > "$n.out"; chmod 666 "$n.out"
    setpriv --reuid=65534 --regid=65534 --clear-groups env "$@" HOLD_UNTIL="$n.stop" "${SPROG:-$B/suid-hold}" "$LIB" < /dev/null > "$n.out" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do grep -q '^ready' "$n.out" 2>/dev/null && break; sleep 0.1; done
    huge_kb "$pid" > "$n.huge"
    touch "$n.stop"; wait "$pid"
    : > "$n.dbg"; value_of "$n.out" > "$n.value"
  }
  rm -f "$CONF"
  sprobe suidvar LD_HUGEPAGE_LIBS=libvalue.so
  expect suidvar "setuid program: LD_HUGEPAGE_LIBS ignored" no
  # The global lines are for ordinary programs: an AT_SECURE program
  # gets only what a block naming it says.
  conf 644 'libs libvalue.so\n'
  sprobe suidglobal
  expect suidglobal "setuid program: the file's global libs do not apply to it" no
  conf 644 "program $B/suid-hold\n  libs libvalue.so\n"
  sprobe suidfile
  expect suidfile "setuid program: the root-owned file's block for it applies" yes

  # Its block is matched on the file the kernel ran, never on the name
  # its caller chose: every way of naming it finds its own block (and
  # no other), and an opt-out holds however it is run.
  ln -sfn "$B" "$TEST_TMP/dirlink"
  ln -sf suid-hold "$B/python3"
  names=("$B//suid-hold" "$B/./suid-hold" "$TEST_TMP/dirlink/suid-hold"
         "$B/../bin/suid-hold")
  ok=0
  for n in "${names[@]}"; do
    SPROG=$n sprobe suidname
    [ "$(got suidname huge)" -ge 2048 ] && [ "$(got suidname value)" = 1 ] \
      && ok=$((ok + 1))
  done
  [ $ok = ${#names[@]} ] \
    && pass "setuid program run as //, /./, through a linked directory, ..: its own block applies (by its real path)" \
    || fail "setuid program names: own block" "$ok of ${#names[@]} names got it"
  conf 644 "libs libvalue.so\nprogram $B/suid-hold\n  libs none\nprogram python3\n  libs libvalue.so\n  segments all\n  backing private\n"
  bad=
  for n in "${names[@]}" "$B/python3"; do
    SPROG=$n sprobe suidopt
    [ "$(got suidopt huge)" = 0 ] && [ "$(got suidopt value)" = 1 ] || bad="$bad $n($(got suidopt huge) kB)"
  done
  [ -z "$bad" ] \
    && pass "setuid program with \`libs none': the opt-out holds as //, /./, a linked directory, .. and a link named python3 (another block's name)" \
    || fail "setuid opt-out" "huge pages when run as:$bad"
else
  skip "setuid program" "no setpriv"
fi

# The shared cache with the file: no variable, text from the cache.
conf 644 'libs libvalue.so\ncache '"$LIB"'\n'
if "$H" cache add "$LIB" > "$TEST_TMP/add.out" 2>&1; then
  probe shared
  sh=$(got shared shared)
  [ "$sh" -ge 2048 ] && [ "$(got shared value)" = 1 ] \
    && pass "file + cache entry: text from the shared cache (${sh} kB)" \
    || fail "file + cache entry: text from the shared cache" "shared ${sh} kB, $(grep -m2 shared "$TEST_TMP/shared.dbg" | tr '\n' ' ')"
else
  fail "hugeld cache add" "$(tail -2 "$TEST_TMP/add.out")"
fi

# Random bytes, and near-misses made from a valid file, change no
# program's result: the same output and status as without the file.
rm -f "$CONF"
ref_sort=$(printf 'b\na\nc\n' | "$HUGELD_LDSO" /usr/bin/sort; echo "rc=$?")
ref_ls=$("$HUGELD_LDSO" /bin/ls -d / /nonexistent 2>&1; echo "rc=$?")
bad=0
for i in $(seq 20); do
  case $((i % 3)) in
    0) head -c $((RANDOM % 3000 + 1)) /dev/urandom > "$CONF" ;;
    1) printf 'libs *\nsegments all\nbacking private\n' | head -c $((RANDOM % 40)) > "$CONF"
       head -c 3 /dev/urandom >> "$CONF" ;;
    2) { printf 'libs *\nsegments all\n'; head -c 200 /dev/urandom | tr -c 'a-z /*:\n#' ' '; } > "$CONF" ;;
  esac
  chmod 644 "$CONF"
  s=$(printf 'b\na\nc\n' | "$HUGELD_LDSO" /usr/bin/sort 2>&1; echo "rc=$?")
  l=$("$HUGELD_LDSO" /bin/ls -d / /nonexistent 2>&1; echo "rc=$?")
  probe rnd
  if [ "$s" != "$ref_sort" ] || [ "$l" != "$ref_ls" ] || [ "$(got rnd value)" != 1 ]; then
    bad=$((bad + 1)); cp "$CONF" "$TEST_TMP/bad-$i.conf"
  fi
done
[ $bad = 0 ] && pass "20 random or mangled files: sort, ls and hold give the stock result" \
  || fail "random files change a result" "$bad of 20 (kept in $TEST_TMP/bad-*.conf)"

# A declared cache that is not filled yet (this boot's sync has not run:
# PID 1 and the early services start before the boot unit): no process
# takes a private copy, so none holds pool pages the cache needs for
# its life.  The sync's mark (.synced, root's, in the cache directory)
# ends the wait; without cache lines there is none.
SYNCED=$CACHE/.synced
mountpoint -q /dev/hugepages || mount -t hugetlbfs none /dev/hugepages
mkdir -p "$CACHE"
if [ -e "$SYNCED" ]; then at_exit "touch $SYNCED"; else at_exit "rm -f $SYNCED"; fi
rm -f "$SYNCED"
free0=$(meminfo HugePages_Free)
conf 644 "libs libvalue.so\nbacking private\ncache /usr/lib/hugeld-test-nothing.so\n"
probe wait
expect wait "a declared cache not synced yet: no private copy, stock result" no \
  "text .*private: not used until the shared cache is filled"
touch "$SYNCED"; chown nobody "$SYNCED"
probe notroot
expect notroot "a .synced that root does not own does not end the wait" no \
  "private: not used until the shared cache is filled"
chown root "$SYNCED"
probe synced
expect synced "after the sync's mark: the private copy again" yes
rm -f "$SYNCED"
conf 644 "libs libvalue.so\nbacking private\n"
probe nocache
expect nocache "no cache lines: no wait for a sync" yes
[ "$(meminfo HugePages_Free)" = "$free0" ] \
  && pass "waiting for the sync: no pool page held afterwards" \
  || fail "waiting for the sync: pool" "free $free0 -> $(meminfo HugePages_Free)"

# A program the kernel started (PT_INTERP: hugeld's ld.so), as every
# program is with hugeld as the system loader: a block for its real
# path applies when it is run through a linked directory (the name
# resolved component by component, as on a merged /usr), one for the
# name of a link to it applies when it is run by that name, a block for
# another program does not; and ld.so finds a small program's real
# path without /proc/self/exe, whose first use costs a new process
# about 15 us.
K=$TEST_TMP/kbin
mkdir -p "$K"; chmod 755 "$K"
if link_interp "$K/kpie" -fPIE -pie "$FIXTURES/big-pic.o"; then
  ln -sfn "$K" "$TEST_TMP/kdir"
  ln -sf kpie "$K/python9"
  # kstart NAME EXPECT PROG: PROG run by the kernel (root, then nobody)
  # with only the file; bigcheck checks the page sizes EXPECT names.
  kstart () {
    local what=$1 want=$2 prog=$3 bad=
    for who in root nobody; do
      if [ $who = root ]; then
        env -i PATH=/usr/bin:/bin "$prog" --expect "$want" > "$TEST_TMP/k.out" 2>&1
      else
        env -i PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
          "$prog" --expect "$want" > "$TEST_TMP/k.out" 2>&1
      fi || bad="$bad $who: $(grep -m2 -i 'fail\|fatal' "$TEST_TMP/k.out" | tr '\n' ' ')"
    done
    [ -z "$bad" ] && pass "kernel start: $what (root, nobody)" || fail "kernel start: $what" "$bad"
  }
  conf 644 "program $K/kpie\n  libs kpie\n"
  kstart "through a linked directory: the block for its real path applies" \
    text,rodata,relro "$TEST_TMP/kdir/kpie"
  conf 644 "program python9\n  libs python9\n"
  kstart "by a link's name: the block naming the link applies" \
    text,rodata,relro "$K/python9"
  conf 644 "program $K/other\n  libs kpie\n"
  kstart "a block for another program: not selected" none "$TEST_TMP/kdir/kpie"
  if command -v strace > /dev/null; then
    # A program none of whose objects may fill a huge page reads nothing
    # of the file (as ld.so.cache, it is read when first needed)...
    echo 'int main (void) { return 0; }' > "$K/tiny.c"
    cc "$K/tiny.c" -o "$K/tiny" -Wl,--dynamic-linker="$HUGELD_LDSO"
    # kpage [LIB] prints the page size of the mapping of libkbig's
    # text (big_run): the libkbig it was linked with, or, given LIB, the
    # one it dlopens after it wrote over the name it was run by (as a
    # program that sets its process title may).
    cat > "$K/kpage.c" <<'EOC'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
int
main (int argc, char **argv)
{
  void *h = RTLD_DEFAULT;
  if (argc > 1)
    {
      char *execfn = (char *) getauxval (AT_EXECFN);
      memset (execfn, 'x', strlen (execfn));
      h = dlopen (argv[1], RTLD_NOW);
      if (h == NULL)
        return 1;
    }
  FILE *f = fopen ("/proc/self/smaps", "r");
  char line[512];
  unsigned long lo, hi, a = (unsigned long) dlsym (h, "big_run");
  int in = 0, kb;
  while (a != 0 && f != NULL && fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "%lx-%lx ", &lo, &hi) == 2)
      in = lo <= a && a < hi;
    else if (in && sscanf (line, "KernelPageSize: %d kB", &kb) == 1)
      printf ("libkbig %d\n", kb);
  return 0;
}
EOC
    conf 644 "program $K/tiny\n  libs libnone-such.so\n"
    env -i strace -o "$TEST_TMP/k0.strace" -f "$TEST_TMP/kdir/tiny" > /dev/null 2>&1
    if grep -q 'hugeld\.conf\|^readlink\|/proc/self' "$TEST_TMP/k0.strace"; then
      fail "kernel start: a small program reads nothing of the policy file" "$(grep -m3 'hugeld\.conf\|^readlink\|/proc/self' "$TEST_TMP/k0.strace" | tr '\n' ' ')"
    else
      pass "kernel start: a small program reads nothing of the policy file ($(grep -c . "$TEST_TMP/k0.strace") calls in all)"
    fi
    # ... one that loads such a library reads it then, with the names
    # resolved by readlink of their components (a small program: no
    # /proc/self/exe, whose first use costs a new process about 15 us),
    # and its block applies.
    cc -shared -o "$K/libkbig.so" "$FIXTURES/big-pic.o"
    cc "$K/kpage.c" -o "$K/tinybig" -Wl,--no-as-needed -L"$K" -lkbig \
      -Wl,-rpath,"$K" -Wl,--dynamic-linker="$HUGELD_LDSO"
    conf 644 "program $K/tinybig\n  libs libkbig.so\n"
    env -i strace -o "$TEST_TMP/k.strace" -e trace=readlink,openat,newfstatat \
      "$TEST_TMP/kdir/tinybig" > /dev/null 2>&1
    # ld.so's part: until it opens libc.
    sed '/libc\.so\.6/q' "$TEST_TMP/k.strace" > "$TEST_TMP/k.ldso"
    if grep -q 'readlink("/proc/self/exe"' "$TEST_TMP/k.ldso"; then
      fail "kernel start: the real path without /proc/self/exe" "$(grep -m1 /proc/self "$TEST_TMP/k.ldso")"
    elif ! sed -n '/libkbig/,$p' "$TEST_TMP/k.ldso" | grep -q 'hugeld\.conf'; then
      fail "kernel start: the file read when the large library is loaded" "$(grep -m3 'hugeld\.conf\|libkbig' "$TEST_TMP/k.ldso" | tr '\n' ' ')"
    elif grep -q "readlink(\"$TEST_TMP/kdir\"" "$TEST_TMP/k.ldso"; then
      pass "kernel start: the file read when a library that may fill a huge page is loaded; the name resolved by readlink of its components ($(grep -c '^readlink' "$TEST_TMP/k.ldso") calls), not /proc/self/exe"
    else
      fail "kernel start: the name resolved by its components" "$(grep -m3 readlink "$TEST_TMP/k.ldso" | tr '\n' ' ')"
    fi
    # The block applied: the library's text is on 2 MiB pages (the
    # program reads its own smaps; run as nobody too).
    for who in root nobody; do
      if [ $who = root ]; then
        got=$(env -i "$TEST_TMP/kdir/tinybig" 2>&1)
      else
        got=$(env -i setpriv --reuid=65534 --regid=65534 --clear-groups "$TEST_TMP/kdir/tinybig" 2>&1)
      fi
      [ "$got" = "libkbig 2048" ] \
        && pass "kernel start: the file read late selects the library ($who: $got)" \
        || fail "kernel start: the file read late selects the library ($who)" "$got"
    done
    # A program that writes over the name it was run by (as those that
    # set their process title may) before it dlopens the library: the
    # file, read then, still applies its block (ld.so kept the name).
    cc "$K/kpage.c" -o "$K/tinytitle" -Wl,--dynamic-linker="$HUGELD_LDSO"
    conf 644 "program $K/tinytitle\n  libs libkbig.so\n"
    got=$(env -i "$TEST_TMP/kdir/tinytitle" "$K/libkbig.so" 2>&1)
    [ "$got" = "libkbig 2048" ] \
      && pass "kernel start: the name written over before a dlopen: the block still applies ($got)" \
      || fail "kernel start: the name written over before a dlopen" "$got"
    # A path longer than ld.so's first, small room for the names.
    D=$K/$(printf 'd%.0s' $(seq 60))/$(printf 'e%.0s' $(seq 60))/$(printf 'f%.0s' $(seq 60))
    mkdir -p "$D"; cp "$K/tiny" "$D/"; ln -sfn "$D" "$TEST_TMP/kdeep"
    conf 644 "program $D/tiny\n  libs libnone-such.so\n"
    if env -i LD_DEBUG=hugepages "$TEST_TMP/kdeep/tiny" 2>&1 | grep -q "program block at line 1 applies to $D/tiny"; then
      pass "kernel start: a real path of ${#D} bytes through a linked directory: its block applies"
    else
      fail "kernel start: a long real path" "$(env -i LD_DEBUG=hugepages "$TEST_TMP/kdeep/tiny" 2>&1 | grep -m2 hugeld.conf | tr '\n' ' ')"
    fi
  else
    skip "kernel start: the real path without /proc/self/exe" "no strace"
  fi
fi

# clang-14 with only the file: its libLLVM text from the shared cache.
CLANG=/usr/bin/clang-14
LLVM=$(ls /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 2>/dev/null)
CPP=$(ls /usr/lib/x86_64-linux-gnu/libclang-cpp.so.14 2>/dev/null)
if [ -x "$CLANG" ] && [ -n "$LLVM" ] && [ -n "$CPP" ]; then
  need=$(( $(cache_pages "$LLVM") + $(cache_pages "$CPP") + 8 ))
  reserve_hugepages $((need + 8)) || fail reserve "cannot reserve $need huge pages"
  conf 644 "libs libLLVM-14.so*:libclang-cpp.so*\ncache $LLVM $CPP\n"
  "$H" cache add "$LLVM" "$CPP" > "$TEST_TMP/addc.out" 2>&1 \
    || fail "cache add libLLVM" "$(tail -2 "$TEST_TMP/addc.out")"
  at_exit "$H cache remove $LLVM > /dev/null 2>&1; $H cache remove $CPP > /dev/null 2>&1"
  mkfifo "$TEST_TMP/cin"
  env -i PATH=/usr/bin:/bin "$HUGELD_LDSO" "$CLANG" -fsyntax-only -x c - < "$TEST_TMP/cin" &
  cpid=$!
  exec 7> "$TEST_TMP/cin"
  # Wait until libLLVM is mapped.
  for _ in $(seq 100); do grep -q libLLVM "/proc/$cpid/maps" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  # The cache entry's directory is named by the file's inode.
  llvm_cache=$(smaps_kb "$cpid" "$CACHE/$(printf 'i%x' "$(stat -L -c %i "$LLVM")")/" Size)
  echo 'int main(void){return 0;}' >&7; exec 7>&-
  wait $cpid; crc=$?
  llvm_text_kb=$(( $(cache_pages "$LLVM" text) * 2048 ))
  [ $crc = 0 ] && [ "$llvm_cache" -ge "$llvm_text_kb" ] && [ "$llvm_text_kb" -gt 0 ] \
    && pass "clang-14 with only $CONF: libLLVM text from the shared cache (${llvm_cache} kB)" \
    || fail "clang-14 with only $CONF: libLLVM text from the shared cache" "exit $crc, ${llvm_cache} kB of ${llvm_text_kb} kB"
else
  skip "clang-14 with only $CONF" "clang-14 is not installed"
fi
finish
