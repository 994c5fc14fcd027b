#!/bin/bash
# Selected objects in a hugetlb cgroup that gives no huge pages, as in a
# Kubernetes pod that requested none: hugetlb.2MB.max = 0 (the kernel
# reserves the pages at mmap time, then refuses them at the first
# touch: a store would be killed by SIGBUS) and, separately,
# hugetlb.2MB.rsvd.max = 0 (the reservation itself is refused).  Every
# selection of executables, libraries and dlopened libraries, with
# fork and writes to data and bss (bigcheck does both), must run to the
# end with the stock loader's result, on ordinary pages, and
# LD_DEBUG=hugepages must say why.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES
if [ "$(id -u)" != 0 ]; then
  skip all "must run as root (cgroups, huge page pool)"
  finish
fi
unset LD_HUGEPAGE_LIBS LD_HUGEPAGE_SEGMENTS LD_DEBUG LD_DEBUG_OUTPUT

# A cgroup v2 hierarchy with the hugetlb controller: the one mounted,
# or one mounted here for the test.
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cgroot" ]; then
  cgroot=$TEST_TMP/cgroup2
  mkdir -p "$cgroot"
  mount -t cgroup2 none "$cgroot" 2>/dev/null && at_exit "umount '$cgroot'"
fi
if ! grep -qw hugetlb "$cgroot/cgroup.controllers" 2>/dev/null; then
  skip all "no cgroup v2 hierarchy with the hugetlb controller (bound to cgroup v1?)"
  finish
fi
if ! grep -qw hugetlb "$cgroot/cgroup.subtree_control"; then
  echo +hugetlb > "$cgroot/cgroup.subtree_control" \
    || { fail setup "cannot enable the hugetlb controller in $cgroot"; finish; }
  at_exit "echo -hugetlb > '$cgroot/cgroup.subtree_control' 2>/dev/null || true"
fi
cg=$cgroot/hugeld-test-$$
mkdir "$cg" || { fail setup "cannot create $cg"; finish; }
at_exit "rmdir '$cg'"

# The pool has plenty of pages: only the cgroup stands in the way.
reserve_hugepages 96 || { fail reserve "cannot reserve 96 huge pages"; finish; }

# run PFX CGROUP|- ENV... -- CMD...: run_report, in CGROUP (or not).
run () {
  local pfx=$1 group=$2; shift 2
  if [ "$group" = - ]; then
    run_report "$pfx" "$@"
    return
  fi
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  run_report "$pfx" "${envs[@]}" -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$group" "$@"
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

# Outside the cgroup the same selection does get huge pages: the limits
# are what the checks below are about.
T=$TEST_TMP/control
mkdir -p "$T"
run "$T/all" - LD_HUGEPAGE_LIBS=libbig.so:bigcheck-shared LD_HUGEPAGE_SEGMENTS=all -- \
  "$HUGELD_LDSO" "$F/bigcheck-shared" --expect text,rodata,relro,data,bss
if [ "$(cat "$T/all.rc")" = 0 ]; then
  pass "control: outside the cgroup everything is on 2 MiB pages"
else
  fail "control: outside the cgroup everything is on 2 MiB pages" \
    "$(grep FAIL "$T/all.err" | head -3 | tr '\n' ' ')"
fi

for v in "${variants[@]}"; do
  IFS='|' read -r name cmd libs <<< "$v"
  T=$TEST_TMP/$name
  mkdir -p "$T"
  read -r -a argv <<< "$cmd"
  [ "$name" = interp ] && stock=("$SYSTEM_LDSO" "${argv[@]}") \
    || stock=("$SYSTEM_LDSO" "${argv[@]:1}")
  run "$T/stock" - -- "${stock[@]}" --expect none
  if [ "$(cat "$T/stock.rc")" != 0 ]; then
    fail "$name: stock loader" "$(tail -3 "$T/stock.err" | tr '\n' ' ')"
    continue
  fi
  for limit in "${limits[@]}"; do
    echo max > "$cg/hugetlb.2MB.max"
    [ -e "$cg/hugetlb.2MB.rsvd.max" ] && echo max > "$cg/hugetlb.2MB.rsvd.max"
    echo 0 > "$cg/hugetlb.2MB.$limit"
    case $limit in
      max) why='populating the huge pages failed: EFAULT' ;;
      rsvd.max) why='mmap MAP_HUGETLB failed: ENOMEM' ;;
    esac
    for segs in all bss data; do
      P=$T/$limit-$segs
      run "$P" "$cg" LD_HUGEPAGE_LIBS="$libs" LD_HUGEPAGE_SEGMENTS=$segs -- \
        "${argv[@]}" --expect none
      check_name="$name: hugetlb.2MB.$limit=0, LD_HUGEPAGE_SEGMENTS=$segs"
      rc=$(cat "$P.rc")
      if [ "$rc" != 0 ]; then
        fail "$check_name: runs to the end" \
          "exit $rc $(grep -v '^ok:' "$P.err" | head -3 | tr '\n' ' ')"
      elif ! cmp -s "$P.out" "$T/stock.out"; then
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

# Nothing was left charged to the cgroup or taken from the pool.
echo max > "$cg/hugetlb.2MB.max"
usage=$(cat "$cg/hugetlb.2MB.current")
[ "$usage" = 0 ] && pass "cgroup holds no huge pages afterwards" \
  || fail "cgroup holds no huge pages afterwards" "hugetlb.2MB.current=$usage"
[ "$(meminfo HugePages_Free)" = "$(meminfo HugePages_Total)" ] \
  && pass "pool fully free afterwards" \
  || fail "pool fully free afterwards" "$(meminfo HugePages_Free) of $(meminfo HugePages_Total)"
finish
