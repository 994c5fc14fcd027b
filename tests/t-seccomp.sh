#!/bin/bash
# Seccomp filters as services run under them: hugeld's ld.so makes no
# system call that the stock loader's process may make and a service's
# filter refuses.  tests/seccomp/hp-seccomp installs an allow-list
# (libseccomp) and execs the loader, as systemd does for a unit:
#   system-service-252  systemd 252's SystemCallFilter=@system-service
#   docker-default      Docker's default profile (amd64, default caps)
# with the action "kill" (SIGSYS: a unit without SystemCallErrorNumber=)
# and "errno" (EPERM).
#  0. The harness: a process that calls mincore, which @system-service
#     leaves out, is killed with "kill" and gets EPERM with "errno",
#     as root and as nobody; the stock loader runs every program under
#     every filter (the baseline).
#  1. With LD_HUGEPAGE_LIBS='*' and each LD_HUGEPAGE_BACKING (unset:
#     the default order; private; shared; thp), with no pool and with a
#     pool (and a cache entry for libbig.so), as root and as nobody:
#     python3, ls, the big-code fixture (bigcheck-shared + libbig.so),
#     llc-14 and (default order and thp only) clang-14 --version exit
#     with the stock loader's status and output under the same filter,
#     and are never killed by a signal.
#  2. LD_DEBUG=hugepages under each filter: what the thp backing
#     reports for libbig.so's text (recorded, not asserted: coverage
#     under a filter is not promised), and the shared backing still
#     maps libbig.so's text from the cache.
#  3. No variable at all, the policy file /etc/hugeld.conf holding only
#     `libs *' (a machine with hugeld as the system loader, nothing
#     reserved): under @system-service with the kill action, pool 0,
#     as root and as nobody, every program as the stock loader.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(huge page pool, the cache, runs as nobody)"
need_loaders
need_fixtures bigcheck-shared libbig.so

S=$HUGELD_TOP/tests/seccomp
PROFILES=(system-service-252 docker-default)
ACTIONS=(kill errno)
USERS=(root nobody)
BACKINGS=(default private shared thp)
POOL=64

# hp-seccomp is a fixture (tests/fixtures/Makefile); make it here if the
# fixtures were built before libseccomp-dev was installed.
if [ ! -e /usr/include/seccomp.h ]; then
  fail setup "no <seccomp.h>: libseccomp-dev is not installed (scripts/deps.sh test)"; finish
fi
make -s -C "$HUGELD_TOP/tests/fixtures" OUT="$FIXTURES" "$FIXTURES/hp-seccomp" > "$TEST_TMP/make.log" 2>&1 \
  || { fail "build hp-seccomp" "$(tail -3 "$TEST_TMP/make.log" | tr '\n' ' ')"; finish; }
command -v setpriv > /dev/null || { fail setup "no setpriv (util-linux)"; finish; }
# Everything nobody runs or writes is in the test's directory.
mkdir -p "$B" "$TEST_TMP/dbg"
cp "$FIXTURES/hp-seccomp" "$FIXTURES/bigcheck-shared" "$FIXTURES/libbig.so" "$B/"
for prof in "${PROFILES[@]}"; do cp "$S/$prof.txt" "$B/"; done
chmod 755 "$TEST_TMP" "$B"
chmod 644 "$B"/*.txt
chmod 1777 "$TEST_TMP/dbg"
cache_remember_mount

# sandboxed PFX USER PROFILE ACTION ENV... -- CMD...: run CMD as USER
# (root or nobody) under PROFILE's allow-list with ACTION, in a clean
# environment plus ENV; PFX.out, PFX.err, PFX.rc.
sandboxed () {
  local pfx=$1 user=$2 prof=$3 act=$4; shift 4
  local envs=() wrap=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  [ "$user" = nobody ] && wrap=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  # (The braces keep bash's "Bad system call" off the test's output.)
  { env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME=/ "${envs[@]}" "${wrap[@]}" \
      "$B/hp-seccomp" "$B/$prof.txt" "$act" -- "$@" < /dev/null > "$pfx.out" 2> "$pfx.err"
    echo $? > "$pfx.rc"; } 2> /dev/null
}
# status RC: "exit N", or the signal that killed the process.
status () {
  if [ "$1" -gt 128 ] && [ "$1" -le 192 ]; then
    echo "killed by SIG$(kill -l $(($1 - 128))) (exit $1)"
  else
    echo "exit $1"
  fi
}

# 0. The harness.  mincore on a page of its own, from python3 under the
# stock loader: "RESULT ERRNO".
MINCORE='import ctypes, mmap
libc = ctypes.CDLL(None, use_errno=True)
m = mmap.mmap(-1, 4096); v = ctypes.create_string_buffer(1)
a = ctypes.addressof(ctypes.c_char.from_buffer(m))
print(libc.syscall(27, ctypes.c_void_p(a), ctypes.c_size_t(4096), v), ctypes.get_errno())'
harness_ok=1
for user in "${USERS[@]}"; do
  for prof in "${PROFILES[@]}"; do
    for act in "${ACTIONS[@]}"; do
      T=$TEST_TMP/harness-$user-$prof-$act
      sandboxed "$T" "$user" "$prof" "$act" -- "$SYSTEM_LDSO" /usr/bin/python3 -c "$MINCORE"
      rc=$(cat "$T.rc") out=$(cat "$T.out")
      case $prof/$act in
        system-service-252/kill) want=159 wantout= ;;
        system-service-252/errno) want=0 wantout="-1 1" ;;
        *) want=0 wantout="0 0" ;;
      esac
      if [ "$rc" = "$want" ] && [ "$out" = "$wantout" ]; then
        pass "harness: $prof $act as $user: mincore gives $( [ "$want" = 159 ] && status 159 || echo "\"$out\"" )"
      else
        fail "harness: $prof $act as $user: mincore" "$(status "$rc"), output '$out' (want $(status "$want"), '$wantout'): $(head -3 "$T.err" | tr '\n' ' ')"
        harness_ok=
      fi
    done
  done
done
[ -n "$harness_ok" ] || finish

# The programs: NAME|CMD (no argument has a space).  ls lists files,
# not the directory: a directory's "total" is the files' st_blocks,
# which ext4 changes when it writes back what was just copied there
# (one run of make check saw the stock and hugeld listings differ so).
PROGRAMS=(
  "python3|/usr/bin/python3 -c print(1)"
  "ls|/bin/ls -l $B/bigcheck-shared $B/libbig.so"
  "bigcheck|$B/bigcheck-shared"
)
for p in llc-14 clang-14; do
  if command -v "$p" > /dev/null; then
    PROGRAMS+=("$p|$(command -v "$p") --version")
  else
    skip "$p" "not installed (scripts/deps.sh test installs clang-14 where the release has it)"
  fi
done
# clang-14 (libLLVM and libclang-cpp) with the default order and thp only.
wanted () {
  [ "$1" != clang-14 ] || [ "$2" = default ] || [ "$2" = thp ]
}
# The output compared: bigcheck's "info:" lines tell the page sizes.
errs () {
  case $1 in bigcheck) grep -v '^info:' "$2" ;; *) cat "$2" ;; esac
}

# Baseline: the stock loader, under each filter and action, as each user.
declare -A usable
for user in "${USERS[@]}"; do
  for prof in "${PROFILES[@]}"; do
    for act in "${ACTIONS[@]}"; do
      bad=()
      for p in "${PROGRAMS[@]}"; do
        IFS='|' read -r name cmd <<< "$p"; read -r -a argv <<< "$cmd"
        T=$TEST_TMP/stock-$user-$prof-$act-$name
        sandboxed "$T" "$user" "$prof" "$act" -- "$SYSTEM_LDSO" "${argv[@]}"
        if [ "$(cat "$T.rc")" = 0 ]; then
          usable[$user-$prof-$act-$name]=1
        else
          bad+=("$name: $(status "$(cat "$T.rc")")$(head -2 "$T.err" | tr '\n' ' ' | sed 's/ $//; s/^./: &/')")
        fi
      done
      if [ ${#bad[@]} = 0 ]; then
        pass "stock loader under $prof $act as $user: every program exits 0"
      else
        # Not hugeld's doing: those programs are left out of the comparison.
        skip "stock loader under $prof $act as $user" "fails itself, left out: $(printf '%s; ' "${bad[@]}" | sed 's/; $//')"
      fi
    done
  done
done

# 1. hugeld with every object selected, each backing, pool 0 and a pool.
for pool in 0 "$POOL"; do
  reserve_hugepages "$pool" || { fail reserve "cannot set the pool to $pool pages"; finish; }
  if [ "$pool" != 0 ]; then
    at_exit 'cleanup_cache "$B/libbig.so"'
    "$H" cache add "$B/libbig.so" > "$TEST_TMP/add.out" 2>&1 \
      || fail "cache add libbig.so" "$(tail -3 "$TEST_TMP/add.out" | tr '\n' ' ')"
  fi
  for user in "${USERS[@]}"; do
    for prof in "${PROFILES[@]}"; do
      for act in "${ACTIONS[@]}"; do
        for backing in "${BACKINGS[@]}"; do
          envs=(LD_HUGEPAGE_LIBS='*')
          [ "$backing" = default ] || envs+=(LD_HUGEPAGE_BACKING=$backing)
          what="$prof $act, as $user, backing $backing, pool $pool"
          bad=() ran=()
          for p in "${PROGRAMS[@]}"; do
            IFS='|' read -r name cmd <<< "$p"; read -r -a argv <<< "$cmd"
            wanted "$name" "$backing" || continue
            [ -n "${usable[$user-$prof-$act-$name]:-}" ] || continue
            S0=$TEST_TMP/stock-$user-$prof-$act-$name
            T=$TEST_TMP/h-$pool-$user-$prof-$act-$backing-$name
            sandboxed "$T" "$user" "$prof" "$act" "${envs[@]}" -- "$HUGELD_LDSO" "${argv[@]}"
            rc=$(cat "$T.rc")
            ran+=("$name")
            if [ "$rc" != 0 ]; then
              bad+=("$name: $(status "$rc"), stock exit 0$(head -2 "$T.err" | tr '\n' ' ' | sed 's/ $//; s/^./: &/')")
            elif ! cmp -s "$T.out" "$S0.out"; then
              bad+=("$name: standard output differs from the stock loader's: $(head -c 100 "$T.out" | tr '\n' ' ')")
            elif ! cmp -s <(errs "$name" "$T.err") <(errs "$name" "$S0.err"); then
              bad+=("$name: standard error differs from the stock loader's: $(diff <(errs "$name" "$S0.err") <(errs "$name" "$T.err") | grep '^[<>]' | head -2 | tr '\n' ' ')")
            fi
            rm -f "$T.out" "$T.err"
          done
          if [ ${#bad[@]} = 0 ]; then
            pass "$what: ${ran[*]} as the stock loader"
          else
            fail "$what" "$(printf '%s; ' "${bad[@]}" | sed 's/; $//')"
          fi
        done
      done
    done
  done
done

# 2. The reports, with the pool and the cache entry still there.
report_line () {
  grep -h "libbig.so: text \[" "$1" | grep -v 'does not fill' | head -1 | sed 's/^ *[0-9]*:\thugepages: //; s/^.*libbig.so: text //'
}
for user in "${USERS[@]}"; do
  for prof in "${PROFILES[@]}"; do
    for act in "${ACTIONS[@]}"; do
      for backing in thp shared; do
        n=$user-$prof-$act-$backing T=$TEST_TMP/report-$user-$prof-$act-$backing
        what="report, $prof $act, as $user, backing $backing"
        sandboxed "$T" "$user" "$prof" "$act" LD_HUGEPAGE_LIBS=libbig.so LD_HUGEPAGE_BACKING=$backing \
          LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$TEST_TMP/dbg/$n" -- "$HUGELD_LDSO" "$B/bigcheck-shared"
        cat "$TEST_TMP/dbg/$n".* > "$T.dbg" 2> /dev/null || : > "$T.dbg"
        rc=$(cat "$T.rc") line=$(report_line "$T.dbg")
        if [ "$rc" != 0 ]; then
          fail "$what" "$(status "$rc"); the report's last line: $(tail -1 "$T.dbg" | sed 's/^ *[0-9]*:\t//')"
        elif [ "$backing" = thp ]; then
          pass "$what: libbig.so text ${line:-(no line)}"
        elif [[ $line == *"huge pages (shared)"* ]]; then
          pass "$what: libbig.so's text from the cache: $line"
        else
          fail "$what: libbig.so's text not from the cache" "${line:-no line for it}"
        fi
      done
    done
  done
done

# 3. The policy file alone selects every object.
take_policy_file
printf 'libs *\n' > "$CONF"; chmod 644 "$CONF"
reserve_hugepages 0 || { fail reserve "cannot empty the pool"; finish; }
prof=system-service-252 act=kill
for user in "${USERS[@]}"; do
  bad=() ran=()
  for p in "${PROGRAMS[@]}"; do
    IFS='|' read -r name cmd <<< "$p"; read -r -a argv <<< "$cmd"
    [ -n "${usable[$user-$prof-$act-$name]:-}" ] || continue
    S0=$TEST_TMP/stock-$user-$prof-$act-$name T=$TEST_TMP/conf-$user-$name
    sandboxed "$T" "$user" "$prof" "$act" -- "$HUGELD_LDSO" "${argv[@]}"
    rc=$(cat "$T.rc")
    ran+=("$name")
    if [ "$rc" != 0 ]; then
      bad+=("$name: $(status "$rc"), stock exit 0")
    elif ! cmp -s "$T.out" "$S0.out"; then
      bad+=("$name: standard output differs from the stock loader's")
    fi
  done
  sandboxed "$TEST_TMP/conf-$user-dbg" "$user" "$prof" "$act" LD_DEBUG=hugepages -- "$HUGELD_LDSO" "$B/bigcheck-shared"
  if [ ${#bad[@]} = 0 ] && grep -q 'selected by pattern "\*"' "$TEST_TMP/conf-$user-dbg.err"; then
    pass "policy file \`libs *' only, $prof $act, pool 0, as $user: ${ran[*]} as the stock loader (every object selected by the file)"
  else
    fail "policy file \`libs *' only, $prof $act, pool 0, as $user" "$(printf '%s; ' "${bad[@]}" | sed 's/; $//') $(grep -m1 'hugeld.conf' "$TEST_TMP/conf-$user-dbg.err")"
  fi
done
finish
