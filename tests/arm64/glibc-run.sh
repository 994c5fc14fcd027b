#!/bin/bash
# hugeld check-arm64 (glibc's tests): run in the arm64 Debian root
# (tests/arm64/root-run.sh sources it) every command that `make check'
# recorded for the cross-built glibc (tests/arm64/glibc-record.sh), from
# the build tree on /dev/vdc mounted where it was built: once as it is
# and once with LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all.  The
# tests run through the build's own ld.so (hugeld's), as glibc's harness
# runs them, so "as it is" is hugeld with nothing selected, as
# scripts/check-glibc.sh compares on amd64.  One line per test,
# "@hugeld GLIBCT NAME RC-PLAIN RC-SELECTED", then a summary line.
# Only the exit status counts: the make rules that compare a test's
# output with an expected file are not run.
run_glibc_tests () {
  local list=$1 top=$2 cwd cmd name rc1 rc2 n=0 same=0 pass=0 start
  start=$(date +%s)
  while IFS=$'\t' read -r cwd cmd; do
    name=$(awk -v top="$top/" '{ for (i = 1; i <= NF; i++) if (index($i, top) == 1 && $i !~ /ld-linux|^--/ && $(i - 1) != "--library-path") { sub(top, "", $i); print $i; exit } }' <<< "$cmd")
    ( cd "$cwd" && timeout 120 bash -c "$cmd" > /dev/null 2>&1 < /dev/null ); rc1=$?
    ( cd "$cwd" && export LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all && timeout 120 bash -c "$cmd" > /dev/null 2>&1 < /dev/null ); rc2=$?
    echo "@hugeld GLIBCT ${name:-?} $rc1 $rc2"
    n=$((n + 1))
    [ $rc1 = $rc2 ] && same=$((same + 1))
    [ $rc1 = 0 ] && pass=$((pass + 1))
  done < "$list"
  if [ $n -gt 0 ] && [ $same = $n ]; then
    echo "@hugeld PASS glibc-tests: $n test commands, $pass exit 0 as they are; the same exit status for every one with LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all ($(( $(date +%s) - start ))s)"
  else
    echo "@hugeld FAIL glibc-tests: $n test commands, $((n - same)) with another exit status when every object is selected ($(( $(date +%s) - start ))s)"
  fi
}
