#!/bin/bash
# Real programs, as a machine runs them, with hugeld as the loader of
# every process and `libs *': the stock loader's exit status and output,
# under every backing and the default order, as root and as the
# program's own user; and the share of each program's code that was on
# 2 MiB pages, per backing (printed; the default order must give some).
#
# The programs are tests/programs/corpus.sh's (node and chromium with
# V8, java with its JIT and CDS, databases and servers as their own
# users, compilers, interpreters, editors, office, media, tools).  Each
# runs in a private mount namespace where hugeld's ld.so is bound over
# the system's loader and /etc holds a policy file (an overlay: nothing
# of the machine's own /etc or loader changes) that says `libs *' and
# names the biggest objects for the shared cache, which `hugeld cache
# sync' fills first: the whole machine as docs/whole-machine.md sets it
# up, for these processes only.  The stock run is the same function
# outside the namespace.  LD_HUGEPAGE_BACKING chooses the backing (unset:
# the default order).  What a program's code had on huge pages is read
# from smaps (tests/programs/atexit-smaps.c at its exit; a server's while
# it serves).
#
# T_PROGRAMS="node java" runs only those.  Packages the programs need
# are installed first (scripts/deps.sh programs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"
. "$HUGELD_TOP/tests/programs/corpus.sh"
CORPUS=$HUGELD_TOP/tests/programs/corpus.sh

need_root "(namespaces, pool, the programs' own users)"
need_loaders
need_fixtures atexit-smaps
export DEBIAN_FRONTEND=noninteractive
"$HUGELD_TOP/scripts/deps.sh" programs > "$TEST_TMP/deps.log" 2>&1 \
  || { fail packages "$(tail -3 "$TEST_TMP/deps.log" | tr '\n' ' ')"; finish; }

REAL_LDSO=$(readlink -f "$SYSTEM_LDSO")
ATEXIT=$FIXTURES/atexit-smaps
BACKINGS=(default shared private thp)
chmod 755 "$TEST_TMP"

# The objects the cache serves: the programs' biggest (what a machine's
# policy file would name), where installed.
CACHED=(/usr/bin/node /usr/lib/chromium/chromium /usr/lib/jvm/*/lib/server/libjvm.so
  /usr/lib/llvm-14/lib/libLLVM-14.so.1 /usr/lib/x86_64-linux-gnu/libclang-cpp.so.14
  /usr/sbin/mariadbd /usr/lib/postgresql/*/bin/postgres
  /usr/lib/libreoffice/program/libmergedlo.so /usr/lib/x86_64-linux-gnu/libavcodec.so.59
  /usr/lib/x86_64-linux-gnu/libx265.so.199 /usr/bin/emacs-nox /usr/lib/gcc/x86_64-linux-gnu/*/cc1
  /usr/lib/x86_64-linux-gnu/libpython3*.so.1.0 /usr/lib/x86_64-linux-gnu/libcrypto.so.3)

# The policy file, in an overlay over /etc that only the namespace sees.
mkdir -p "$TEST_TMP/etc-up" "$TEST_TMP/etc-work"
{
  echo "# t-programs: every object of every process, and a cache"
  echo "libs *"
  for f in "${CACHED[@]}"; do [ -f "$f" ] && echo "cache $f"; done
} > "$TEST_TMP/etc-up/hugeld.conf"
chmod 644 "$TEST_TMP/etc-up/hugeld.conf"
cat > "$TEST_TMP/ns" <<EOF
#!/bin/sh
# In a new mount namespace: hugeld's ld.so as every program's loader,
# and the test's /etc/hugeld.conf.
mount --bind "$HUGELD_LDSO" "$REAL_LDSO" \
  && mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TEST_TMP/etc-up,workdir=$TEST_TMP/etc-work" /etc \
  && exec "\$@"
EOF
chmod 755 "$TEST_TMP/ns"
in_hugeld () { unshare -m --propagation private "$TEST_TMP/ns" "$@"; }

# The pool: the cache's pages and room for private copies, as memory
# allows (a quarter of what is available, at most 1,200 pages).
avail=$(( $(meminfo MemAvailable) / 2048 / 4 ))
pool=$(( avail < 1200 ? avail : 1200 ))
reserve_hugepages "$pool" || { fail reserve "cannot reserve $pool huge pages"; finish; }
cache_remember_mount
cache_keep_current
# The corpus's entries out again, each on its own (cleanup_cache), so
# that the pages do not stay taken after the test.  (A sync here, in
# the namespace, would read the test's policy file and make them
# again.)
at_exit 'cleanup_cache "${CACHED[@]}"'
if in_hugeld timeout -k 5 600 "$H" cache sync > "$TEST_TMP/sync.out" 2>&1; then
  pass "cache sync of the policy file ($(grep -c '^cache ' "$TEST_TMP/etc-up/hugeld.conf") objects): $(tail -1 "$TEST_TMP/sync.out")"
else
  fail "cache sync" "$(tail -3 "$TEST_TMP/sync.out" | tr '\n' ' ')"
fi
grep -h 'text not cached' "$TEST_TMP/sync.out" | sed 's/:.*//; s/^/  text left out of the cache: /'

# coverage SMAPS: the share of the code mapped in SMAPS (executable
# mappings of files and of hugeld's copies) that is on 2 MiB pages
# (hugetlb, or page-cache huge pages), as "P% of N MiB".
coverage () {
  [ -s "$1" ] || { echo "-"; return; }
  awk '/^[0-9a-f]+-[0-9a-f]+ / { x = ($2 ~ /x/) && NF >= 6 && $6 !~ /^\[/; next }
       x && $1 == "Size:" { size = $2; tot += size }
       x && $1 == "KernelPageSize:" && $2 == 2048 { huge += size }
       x && $1 == "FilePmdMapped:" { huge += $2 }
       END { if (tot == 0) print "-"; else printf "%d%% of %d MiB\n", 100 * huge / tot, tot / 1024 }' "$1"
}

# run_prog NAME USER VARIANT: run p_NAME as USER (root: "-") under
# VARIANT (stock, or a backing under hugeld); R=its files' prefix:
# R.out (stdout, W's path as "W"), R.err, R.rc, R.smaps.
run_prog () {
  local name=$1 user=$2 variant=$3
  R=$TEST_TMP/r/$name-${user/#-/root}-$variant
  W=$TEST_TMP/w/$name-$user
  mkdir -p "$TEST_TMP/r" "$TEST_TMP/w"
  chmod 755 "$TEST_TMP/w"
  rm -rf "$W"; mkdir -p "$W"
  local as=()
  if [ "$user" != - ]; then
    chown "$user" "$W"
    as=(setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --init-groups --)
  fi
  local home=$W envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    HOME="$W" W="$W" M="$ATEXIT $W/smaps" LANG=C.UTF-8 TZ=UTC USER="${user/-/root}" TERM=dumb)
  [ "$variant" = stock ] || [ "$variant" = default ] || envs+=(LD_HUGEPAGE_BACKING="$variant")
  local pre=()
  [ "$variant" = stock ] || pre=(in_hugeld)
  "${pre[@]}" timeout -k 10 300 env -i "${envs[@]}" "${as[@]}" \
    bash -c '. "$0"; cd "$W" || exit 98; p_'"${name//-/_}" "$CORPUS" > "$R.raw" 2> "$R.err" < /dev/null
  echo $? > "$R.rc"
  fixed_replace "$W" W < "$R.raw" > "$R.out"
  cp "$W/smaps" "$R.smaps" 2> /dev/null || : > "$R.smaps"
}

only=" ${T_PROGRAMS:-} "
total=0; same=0
# The table of what each program's code had on 2 MiB pages, per backing
# (make check-programs prints it).
SUMMARY=$FIXTURES/t-programs.summary
printf '%-14s %-9s %s\n' PROGRAM USER "CODE ON 2 MiB PAGES (share of its code; smaps): ${BACKINGS[*]}" > "$SUMMARY"
while read -r name users pkgs; do
  [ -n "$name" ] || continue
  [ "$only" = "  " ] || [ "${only/ $name /}" != "$only" ] || continue
  for who in ${users//,/ }; do
    user=$who
    [ "$who" != root ] || user=-
    run_prog "$name" "$user" stock
    S=$R
    if [ "$(cat "$S.rc")" != 0 ] || [ ! -s "$S.out" ]; then
      fail "$name as $who: the stock loader's run" "rc $(cat "$S.rc"): $(tail -3 "$S.err" | tr '\n' ' ')"
      continue
    fi
    cov=()
    for b in "${BACKINGS[@]}"; do
      run_prog "$name" "$user" "$b"
      total=$((total + 1))
      c=$(coverage "$R.smaps")
      cov+=("$b ${c%% of*}")
      if [ "$(cat "$R.rc")" = "$(cat "$S.rc")" ] && cmp -s "$R.out" "$S.out"; then
        same=$((same + 1))
        pass "$name as $who, $b: the stock loader's exit status and output; code on 2 MiB pages: $c"
      else
        fail "$name as $who, $b: as the stock loader" "rc $(cat "$R.rc") (stock $(cat "$S.rc")); $(diff "$S.out" "$R.out" | head -4 | tr '\n' ' ') $(tail -2 "$R.err" | tr '\n' ' ')"
      fi
    done
    printf '%-14s %-9s %s\n' "$name" "$who" "$(IFS=,; echo "${cov[*]}" | sed 's/,/, /g')" >> "$SUMMARY"
  done
done <<< "$PROGRAMS"
echo "$same of $total runs (programs x users x backings) as the stock loader" >> "$SUMMARY"
finish
