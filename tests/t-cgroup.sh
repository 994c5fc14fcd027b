#!/bin/bash
# Selected objects in a hugetlb cgroup that gives no huge pages, as in a
# Kubernetes pod that requested none: hugetlb.2MB.max = 0 (the kernel
# reserves the pages at mmap time, then refuses them at the first
# touch: a store would be killed by SIGBUS) and, separately,
# hugetlb.2MB.rsvd.max = 0 (the reservation itself is refused).  Every
# selection of executables, libraries and dlopened libraries, with
# fork and writes to data and bss (bigcheck does both), must run to the
# end with the stock loader's result, on ordinary pages, and
# LD_DEBUG=hugepages must say why.  With the default
# LD_HUGEPAGE_BACKING, ld.so must see such a limit (its cgroup's or one
# above) and place text for thp.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

F=$FIXTURES
need_root "(cgroups, huge page pool)"

hugetlb_cgroup_root || finish
cg=$cgroot/hugeld-test-$$
mkdir "$cg" || { fail setup "cannot create $cg"; finish; }
at_exit "rmdir '$cg'"

# The pool has plenty of pages: only the cgroup stands in the way.
reserve_hugepages 96 || { fail reserve "cannot reserve 96 huge pages"; finish; }

# run PFX CGROUP|- ENV... -- CMD...: run_report, in CGROUP (or not):
# moved there as root (no other user may), then CMD as $AS_USER.
run () {
  local pfx=$1 group=$2; shift 2
  local RUN_PREFIX=()
  [ "$group" = - ] || RUN_PREFIX=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$group")
  run_report "$pfx" "$@"
}

# The big-code program with hugeld as PT_INTERP (mapped by the kernel).
B=$TEST_TMP/bin
mkdir -p "$B"
link_interp "$B/bigcheck-interp" -fPIE -pie "$F/big-pic.o" || finish

# variant: name | command | LD_HUGEPAGE_LIBS
variants=(
  "shared|$HUGELD_LDSO $F/bigcheck-shared|libbig.so:bigcheck-shared"
  "dlopen|$HUGELD_LDSO $F/bigcheck-dlopen --dlopen $F/libbig.so|libbig.so:bigcheck-dlopen"
  "pie|$HUGELD_LDSO $F/bigcheck-pie|bigcheck-pie"
  "nopie|$HUGELD_LDSO $F/bigcheck-nopie|bigcheck-nopie"
  "interp|$B/bigcheck-interp|bigcheck-interp"
)

limits=(max)
if [ -e "$cg/hugetlb.2MB.rsvd.max" ]; then
  limits+=(rsvd.max)
else
  skip "rsvd.max" "this kernel has no hugetlb.2MB.rsvd.max (Linux 5.7)"
fi

# What the programs get runs as root, then as nobody (a service's own
# user: the cgroup's limits are the same for it), each against the
# stock loader run the same way.  As nobody, the selections of data
# and of bss alone are left to root's run: "all" has both.
USERS=("" nobody)

# Outside the cgroup the same selection does get huge pages: the limits
# are what the checks below are about.
T=$TEST_TMP/control
mkdir -p "$T"
for who in "${USERS[@]}"; do
  as_user "$who"
  run "$T/all$who" - LD_HUGEPAGE_LIBS=libbig.so:bigcheck-shared LD_HUGEPAGE_SEGMENTS=all -- \
    "$HUGELD_LDSO" "$F/bigcheck-shared" --expect text,rodata,relro,data,bss
  if [ "$(cat "$T/all$who.rc")" = 0 ]; then
    pass "${AS}control: outside the cgroup everything is on 2 MiB pages"
  else
    fail "${AS}control: outside the cgroup everything is on 2 MiB pages" \
      "$(grep FAIL "$T/all$who.err" | head -3 | tr '\n' ' ')"
  fi
done
as_user ""

for v in "${variants[@]}"; do
  IFS='|' read -r name cmd libs <<< "$v"
  T=$TEST_TMP/$name
  mkdir -p "$T"
  read -r -a argv <<< "$cmd"
  [ "$name" = interp ] && stock=("$SYSTEM_LDSO" "${argv[@]}") \
    || stock=("$SYSTEM_LDSO" "${argv[@]:1}")
  for who in "${USERS[@]}"; do
    as_user "$who"
    S=$T/stock${who:+-$who}
    run "$S" - -- "${stock[@]}" --expect none
    if [ "$(cat "$S.rc")" != 0 ]; then
      fail "$AS$name: stock loader" "$(tail -3 "$S.err" | tr '\n' ' ')"
      continue
    fi
    segments=(all bss data)
    [ -z "$who" ] || segments=(all)
    for limit in "${limits[@]}"; do
      echo max > "$cg/hugetlb.2MB.max"
      [ -e "$cg/hugetlb.2MB.rsvd.max" ] && echo max > "$cg/hugetlb.2MB.rsvd.max"
      echo 0 > "$cg/hugetlb.2MB.$limit"
      case $limit in
        max) why='populating the huge pages failed: EFAULT' ;;
        rsvd.max) why='mmap MAP_HUGETLB failed: ENOMEM' ;;
      esac
      for segs in "${segments[@]}"; do
        P=$T/$limit-$segs${who:+-$who}
        run "$P" "$cg" LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=$segs -- \
          "${argv[@]}" --expect none
        check_name="$AS$name: hugetlb.2MB.$limit=0, LD_HUGEPAGE_SEGMENTS=$segs"
        rc=$(cat "$P.rc")
        if [ "$rc" != 0 ]; then
          fail "$check_name: runs to the end" \
            "exit $rc $(grep -v '^ok:' "$P.err" | head -3 | tr '\n' ' ')"
        elif ! cmp -s "$P.out" "$S.out"; then
          fail "$check_name: runs to the end" "output differs from the stock loader"
        else
          pass "$check_name: stock result, ordinary pages, fork and writes fine"
        fi
        if grep -q "fallback to ordinary pages: $why" "$P.dbg"; then
          pass "$check_name: LD_DEBUG says why"
        else
          fail "$check_name: LD_DEBUG says why" \
            "no '$why': $(grep -m2 'fallback\|on .* huge pages' "$P.dbg" | tr '\n' ' ')"
        fi
      done
    done
  done
done
as_user ""

# The placement.  A cgroup that allows no huge page leaves only thp to
# the default LD_HUGEPAGE_BACKING, so ld.so places text for it (at its
# file phase), as it does with no pool at all: it must see the limit of
# a cgroup above its own (a pod's, above the container's), and of
# rsvd.max.  One page allowed is a pool like any other.
inner=$cg/inner
echo +hugetlb > "$cg/cgroup.subtree_control" && mkdir "$inner" \
  || { fail setup "cannot create $inner with the hugetlb controller"; finish; }
at_exit "rmdir '$inner'"
T=$TEST_TMP/placement
mkdir -p "$T"
L2=$T/lib
mkdir -p "$L2"
cp "$F/libbig.so" "$L2/libbig.so"
for who in "${USERS[@]}"; do
  as_user "$who"
  run "$T/stock${who:+-$who}" - -- "$SYSTEM_LDSO" --library-path "$L2" "$F/bigcheck-shared" --expect none
done
as_user ""
# The files of the runs as $AS_USER are named with this suffix ("-nobody";
# none for root's), their stock loader's output is $(stock).
sfx () { echo "${AS_USER:+-$AS_USER}"; }
stock () { echo "$T/stock$(sfx).out"; }
# place NAME LIMIT-FILE VALUE [EXPECT]: run the big-code checker in
# $inner with LIMIT-FILE of $cg at VALUE (the others at max), libbig.so
# read cold, expecting EXPECT (default none) on 2 MiB pages.
place () {
  echo max > "$cg/hugetlb.2MB.max"
  [ -e "$cg/hugetlb.2MB.rsvd.max" ] && echo max > "$cg/hugetlb.2MB.rsvd.max"
  echo "$3" > "$cg/hugetlb.2MB.$2"
  drop_page_cache "$L2/libbig.so"
  run "$T/$1" "$inner" LD_HUGEPAGE_LIBS=libbig.so -- \
    "$HUGELD_LDSO" --library-path "$L2" "$F/bigcheck-shared" --expect "${4:-none}"
}
thp_place='placement: text at its file phase, for thp (costs up to one huge page per zone); the hugetlb cgroup allows no huge page'
can=$(file_thp_possible "$L2/libbig.so")
for who in "${USERS[@]}"; do
  as_user "$who"
  for limit in "${limits[@]}"; do
    place "$limit$(sfx)" "$limit" 0
    P=$T/$limit$(sfx)
    pmd=$(sed -n 's/^info: text: .*; \([0-9]*\) KiB of transparent huge pages.*/\1/p' "$P.err")
    zone=$(sed -n 's/.*libbig.so: text \[\(0x[0-9a-f]*\), \(0x[0-9a-f]*\)).*thp:.*/\1 \2/p' "$P.dbg" \
      | head -1 | { read -r a b; [ -n "$a" ] && echo $(( (b - a) / 1024 )); })
    what="hugetlb.2MB.$limit=0 one level up"
    if [ "$(cat "$P.rc")" != 0 ] || ! cmp -s "$P.out" "$(stock)"; then
      fail "${AS}placement, $what" "rc $(cat "$P.rc"), not the stock loader's result: $(grep -v '^ok' "$P.err" | head -2 | tr '\n' ' ')"
    elif ! grep -qF "$thp_place" "$P.dbg"; then
      fail "${AS}placement, $what" "$(grep -m1 placement "$P.dbg")"
    elif [ -z "$zone" ]; then
      fail "${AS}placement, $what: thp asked for the text" "$(grep 'libbig.so: text' "$P.dbg" | tr '\n' ' ')"
    elif [ "$can" != yes ]; then
      pass "${AS}placement, $what: text at its file phase for thp, thp asked for (this kernel or file system gives no page-cache huge pages)"
    elif [ "${pmd:-0}" -ge $((zone * 9 / 10)) ]; then
      pass "${AS}placement, $what: text at its file phase for thp, ${pmd} KiB of its ${zone} KiB FilePmdMapped, stock result"
    else
      fail "${AS}placement, $what: text FilePmdMapped" "${pmd:-?} KiB of ${zone} KiB"
    fi
  done
done
as_user ""
# A container's view (Kubernetes gives each container a cgroup
# namespace and the container's cgroup its own hugetlb limit): its
# cgroup is "0::/" and its hierarchy is mounted at /sys/fs/cgroup.
echo max > "$cg/hugetlb.2MB.max"
[ -e "$cg/hugetlb.2MB.rsvd.max" ] && echo max > "$cg/hugetlb.2MB.rsvd.max"
echo 0 > "$inner/hugetlb.2MB.max"
# unshare's own propagation change fails in a chroot (its root is no
# mount point): /sys is made private instead, so that nothing mounted
# here reaches the host.
if command -v unshare > /dev/null; then
  cat > "$T/ns.sh" <<'EOF'
#!/bin/sh
# ns.sh CGROUP READY CMD...: CMD in CGROUP, in a cgroup and mount
# namespace of its own with that cgroup at /sys/fs/cgroup; READY is
# made once that is set up.
cg=$1 ready=$2
shift 2
echo $$ > "$cg/cgroup.procs" || exit 1
exec unshare --cgroup --mount --propagation unchanged sh -c 'mount --make-rprivate /sys && mount -t cgroup2 none /sys/fs/cgroup && grep -q "^0::/$" /proc/self/cgroup && : > "$0" && exec "$@"' "$ready" "$@"
EOF
  # The namespaces are made as root, then the program runs as $AS_USER.
  ns () {
    local RUN_PREFIX=(sh "$T/ns.sh" "$inner" "$T/ns$(sfx).ready")
    run_report "$@"
  }
  for who in "${USERS[@]}"; do
    as_user "$who"
    N=$T/ns$(sfx)
    rm -f "$N.ready"
    ns "$N" LD_HUGEPAGE_LIBS=libbig.so -- \
      "$HUGELD_LDSO" --library-path "$L2" "$F/bigcheck-shared" --expect none
    if [ ! -e "$N.ready" ]; then
      skip "${AS}placement in a cgroup namespace" "cannot set one up here: $(grep -v 'LD_DEBUG' "$N.err" | head -2 | tr '\n' ' ')"
    elif [ "$(cat "$N.rc")" = 0 ] && cmp -s "$N.out" "$(stock)" && grep -qF "$thp_place" "$N.dbg"; then
      pass "${AS}placement in a cgroup namespace (a container: 0::/, limit 0 at /sys/fs/cgroup): text at its file phase for thp, stock result"
    else
      fail "${AS}placement in a cgroup namespace" "rc $(cat "$N.rc"): $(grep -m1 'placement:' "$N.dbg") $(grep -v '^ok\|LD_DEBUG' "$N.err" | head -2 | tr '\n' ' ')"
    fi
  done
  as_user ""
else
  skip "placement in a cgroup namespace" "no unshare(1)"
fi
echo max > "$inner/hugetlb.2MB.max"

# The one page goes to the first zone that fits in it: RELRO.
for who in "${USERS[@]}"; do
  as_user "$who"
  P=$T/onepage$(sfx)
  place "onepage$(sfx)" max $((2 * 1024 * 1024)) relro
  if [ "$(cat "$P.rc")" = 0 ] && cmp -s "$P.out" "$(stock)" && grep -q 'placement: the most huge pages (text at its file phase where that costs none)$' "$P.dbg"; then
    pass "${AS}placement, hugetlb.2MB.max = one page: the most huge pages, RELRO on the one page, stock result"
  else
    fail "${AS}placement, hugetlb.2MB.max = one page" "rc $(cat "$P.rc"): $(grep -m1 placement "$P.dbg")"
  fi
done
as_user ""

# The node's shared cache in such a cgroup: its pages are already
# there, charged to whoever made them, so the process maps them all the
# same.  With the default LD_HUGEPAGE_BACKING, the placement for thp
# must not make the entry miss: libbig.so has an entry, so it is placed
# for it, and all of its cached zones come from the cache, with no page
# taken from the pool or charged to the cgroup.
if [ -x "$H" ]; then
  cache_remember_mount
  # Only what others can read through its path is cached.
  chmod 755 "$TEST_TMP" "$T" "$L2"
  if "$H" cache add "$L2/libbig.so" > "$T/add.out" 2>&1; then
    at_exit 'cleanup_cache "$L2/libbig.so"'
    cached=$(cache_pages "$L2/libbig.so")
    for who in "${USERS[@]}"; do
      as_user "$who"
      for limit in "${limits[@]}"; do
        free0=$(meminfo HugePages_Free)
        place "cache-$limit$(sfx)" "$limit" 0 text,rodata
        P=$T/cache-$limit$(sfx)
        free1=$(meminfo HugePages_Free)
        used=$(cat "$cg/hugetlb.2MB.current")
        read -r text_kb huge_kb < <(sed -n 's/^info: text: .*(\([0-9]*\) KiB): \([0-9]*\) KiB on 2 MiB pages.*/\1 \2/p' "$P.err")
        zone_kb=$(sed -n 's/.*libbig.so: text \[\(0x[0-9a-f]*\), \(0x[0-9a-f]*\)) at .* (shared)$/\1 \2/p' "$P.dbg" \
          | { read -r a b; [ -n "$a" ] && echo $(( (b - a) / 1024 )); })
        what="${AS}hugetlb.2MB.$limit=0, libbig.so cached, LD_HUGEPAGE_BACKING unset"
        if [ "$(cat "$P.rc")" != 0 ] || ! cmp -s "$P.out" "$(stock)"; then
          fail "$what" "rc $(cat "$P.rc"), not the stock loader's result: $(grep -v '^ok' "$P.err" | head -2 | tr '\n' ' ')"
        elif ! grep -q 'libbig.so: placed for its shared cache entry' "$P.dbg" \
             || ! grep -q "libbig.so: $cached huge pages used, .*($cached shared" "$P.dbg"; then
          fail "$what" "$(grep -m1 'placement:' "$P.dbg") $(grep -m1 'huge pages used' "$P.dbg")"
        elif [ -z "$zone_kb" ] || [ "${huge_kb:-0}" -lt "$zone_kb" ]; then
          fail "$what: text on the cache's pages" "${huge_kb:-?} KiB on 2 MiB pages, the cached text zone ${zone_kb:-?} KiB"
        elif [ "$free1" != "$free0" ] || [ "$used" != 0 ]; then
          fail "$what: nothing taken" "HugePages_Free $free0 -> $free1, hugetlb.2MB.current $used"
        else
          pass "$what: placed for the entry, $cached pages from the cache, text ${huge_kb} of ${text_kb} KiB on 2 MiB pages (all its zone), none from the pool or charged, stock result"
        fi
      done
    done
    as_user ""
    # hugeld run, which refuses in such a cgroup without a cache, runs
    # the program and says that only cached objects get huge pages.
    echo 0 > "$cg/hugetlb.2MB.max"
    LD_LIBRARY_PATH=$L2 sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$inner" \
      "$H" run --libs libbig.so -- "$F/bigcheck-shared" --expect text,rodata \
      > "$T/run-cache.out" 2> "$T/run-cache.err"
    rc=$?
    if [ "$rc" = 0 ] && cmp -s "$T/run-cache.out" "$T/stock.out" \
       && grep -qF "hugeld: warning: this process's hugetlb cgroup allows no huge page ($cg/hugetlb.2MB.max is 0): only objects in the shared cache" "$T/run-cache.err"; then
      pass "hugeld run in the cgroup with a cache: runs, text and rodata on 2 MiB pages, says only cached objects get huge pages"
    else
      fail "hugeld run in the cgroup with a cache" "exit $rc: $(grep -v '^ok' "$T/run-cache.err" | head -3 | tr '\n' ' ')"
    fi
    cleanup_cache "$L2/libbig.so"
  else
    fail "cache add libbig.so" "$(head -c 300 "$T/add.out")"
  fi
fi

# The hugeld command sees the same limit: `run' refuses up front, as it
# does with no free page, and `status' says why a process has none.
if [ -x "$H" ]; then
  [ -e "$cg/hugetlb.2MB.rsvd.max" ] && echo max > "$cg/hugetlb.2MB.rsvd.max"
  echo 0 > "$cg/hugetlb.2MB.max"
  want="this process's hugetlb cgroup allows no huge page ($cg/hugetlb.2MB.max is 0)"
  # Where the shared cache holds this program's libbig.so (the
  # machine's own sync), run warns and goes on instead: the run sees a
  # cache of its own, empty (tests/isolate.sh).
  sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$inner" \
    unshare -m "$HUGELD_TOP/tests/isolate.sh" --no-cache \
    "$H" run --libs libbig.so -- "$F/bigcheck-shared" --expect none > "$T/run.out" 2> "$T/run.err"
  rc=$?
  if [ "$rc" = 1 ] && grep -qF "$want" "$T/run.err" && [ ! -s "$T/run.out" ]; then
    pass "hugeld run in the cgroup: refused, the limit named, the program not run"
  else
    fail "hugeld run in the cgroup" "exit $rc: $(head -c 300 "$T/run.err")"
  fi
  sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$inner" env LD_HUGEPAGE_LIBS=libbig.so \
    "$HUGELD_LDSO" "$F/bigcheck-shared" --bench --rounds 400 > /dev/null 2>&1 &
  bench=$!
  # Until it has loaded libbig.so (up to 10 s on a busy machine).
  for _ in $(seq 100); do
    grep -q 'libbig.so$' "/proc/$bench/maps" 2>/dev/null && break
    sleep 0.1
  done
  "$H" status "$bench" > "$T/status.out" 2>&1
  kill "$bench" 2>/dev/null; wait "$bench" 2>/dev/null
  if grep -qF "  hugetlb cgroup: $cg/hugetlb.2MB.max is 0: no huge page from the pool for this process" "$T/status.out" \
     && grep -q "^process $bench (bigcheck-shared via ld.so): 0 huge pages" "$T/status.out"; then
    pass "hugeld status of a process in the cgroup: 0 pages, the limit named"
  else
    fail "hugeld status of a process in the cgroup" "$(tr '\n' '|' < "$T/status.out")"
  fi
else
  skip "hugeld run and status in the cgroup" "no hugeld command ($H)"
fi

# Nothing was left charged to the cgroup or taken from the pool.
echo max > "$cg/hugetlb.2MB.max"
[ -e "$cg/hugetlb.2MB.rsvd.max" ] && echo max > "$cg/hugetlb.2MB.rsvd.max"
usage=$(cat "$cg/hugetlb.2MB.current")
[ "$usage" = 0 ] && pass "cgroup holds no huge pages afterwards" \
  || fail "cgroup holds no huge pages afterwards" "hugetlb.2MB.current=$usage"
[ "$(pool_ours)" = 0 ] \
  && pass "pool fully free afterwards" \
  || fail "pool fully free afterwards" "$(pool_ours) pages still in use (besides other processes' $(pool_others))"
finish
