#!/bin/bash
# glibc's own tests against the hugeld build, twice: as they are, and with
# LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all set for every test program
# (glibc's harness runs each test as `elf/ld.so --library-path ... test'
# and passes the caller's environment through).  Both runs must give the
# same results, and every failure must be listed in
# tests/glibc-xfail.txt with its reason.  Prints one summary line.
#
#   scripts/check-glibc.sh [SUBDIRS]     default: elf dlfcn
set -uo pipefail
. "$(dirname "$0")/config.sh"

subdirs=${1:-${GLIBC_CHECK_SUBDIRS:-elf dlfcn}}
# The nptl tests that load objects (dlopen, TLS in modules, unloading,
# atfork handlers in modules, gdb attaching to threads).
nptl_tests=${GLIBC_CHECK_NPTL:-tst-stack4 tst-tls3 tst-atfork2 tst-atfork3 tst-atfork4 tst-create1 tst-join7 tst-pt-tls4 tst-unload tst-pthread-gdb-attach}
xfail=$HUGELD_TOP/tests/glibc-xfail.txt
out=$BUILDDIR/check-glibc
mkdir -p "$out"
[ -f "$OBJDIR/config.status" ] || die "$OBJDIR is not built (make)"

. "$HUGELD_TOP/scripts/pool.sh"
if [ -w "$HUGELD_POOL_FILE" ] && [ "$(pool_size)" -lt 16 ]; then
  pool_save
  trap pool_restore EXIT
  pool_set 16 || true
fi

run () { # name env...
  local name=$1; shift
  for d in $subdirs; do
    find "$OBJDIR/$d" -maxdepth 1 \( -name '*.out' -o -name '*.test-result' \) -delete 2>/dev/null
  done
  rm -f "$OBJDIR/tests.sum"
  local start=$(date +%s)
  env "$@" make -C "$OBJDIR" subdirs="$subdirs" -j"${JOBS:-$(nproc)}" check \
    > "$out/$name.log" 2>&1
  grep -E '^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED|UNRESOLVED):' "$OBJDIR/tests.sum" \
    > "$out/$name.sum"
  for t in $nptl_tests; do
    rm -f "$OBJDIR/nptl/$t.out" "$OBJDIR/nptl/$t.test-result"
    env "$@" make -C "$OBJDIR" test t="nptl/$t" >> "$out/$name.log" 2>&1
    head -1 "$OBJDIR/nptl/$t.test-result" 2>/dev/null || echo "UNRESOLVED: nptl/$t"
  done >> "$out/$name.sum"
  sort -o "$out/$name.sum" "$out/$name.sum"
  echo "hugeld: glibc tests ($name): $(cut -d: -f1 "$out/$name.sum" | sort | uniq -c | tr -s ' \n' ' ')in $(( $(date +%s) - start ))s" >&2
}

run plain
run hugepages LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all

status=0
# listed NAME TEST: TEST may fail in run NAME.  An entry whose reason
# starts with "hugepages-only:" may fail (and so differ) only in the run
# with every object selected.
listed () {
  grep -v '^#' "$xfail" 2>/dev/null \
    | awk -v run="$1" -v t="$2" '$1 == t && (run == "hugepages" || $2 != "hugepages-only:") { f = 1 } END { exit !f }'
}
hugepages_only () { grep -v '^#' "$xfail" 2>/dev/null | awk '$2 == "hugepages-only:" { print $1 }'; }
for name in plain hugepages; do
  while read -r t; do
    if ! listed "$name" "$t"; then
      echo "hugeld: unexpected failure ($name): $t" >&2
      status=1
    fi
  done < <(sed -n 's/^FAIL: //p' "$out/$name.sum")
done
# The results without the hugepages-only tests.
others () {
  awk -v list="$(hugepages_only | tr '\n' ' ')" \
    'BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) skip[a[i]] = 1 } !($2 in skip)' "$1"
}
others "$out/plain.sum" > "$out/plain.others"
others "$out/hugepages.sum" > "$out/hugepages.others"
if ! diff -u "$out/plain.others" "$out/hugepages.others" > "$out/diff" ; then
  echo "hugeld: results differ with LD_HUGEPAGE_LIBS='*' (see $out/diff):" >&2
  grep '^[-+][A-Z]' "$out/diff" | head -20 >&2
  status=1
fi
total=$(wc -l < "$out/plain.sum")
pass=$(grep -c '^PASS' "$out/plain.sum")
fails=$(grep -c '^FAIL' "$out/plain.sum")
echo "check-glibc: $subdirs + $(echo $nptl_tests | wc -w) nptl tests: $total tests, $pass passed, $fails failed (all listed in tests/glibc-xfail.txt: $([ $status = 0 ] && echo yes || echo NO)), identical with LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all: $(cmp -s "$out/plain.others" "$out/hugepages.others" && echo yes || echo NO)$(n=$(hugepages_only | wc -l); [ "$n" = 0 ] || echo " (but for $n hugepages-only tests: $(cmp -s "$out/plain.sum" "$out/hugepages.sum" && echo same || echo "$(diff "$out/plain.sum" "$out/hugepages.sum" | grep -c '^>') differ"))")"
exit $status
