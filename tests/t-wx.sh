#!/bin/bash
# Write-execute policies: systemd's MemoryDenyWriteExecute= (a seccomp
# filter that refuses mprotect with PROT_EXEC) and the kernel's prctl
# PR_SET_MDWE refuse exactly what the private backing does to code:
# write it into anonymous memory, then make it executable.  Under either
# (tests/cache/wxdeny.c sets them up, as systemd would, before the
# loader starts):
#  1. the private backing keeps the text on ordinary pages, the program
#     gives the stock loader's result, no pool page is held, and the
#     report names the write-execute policy, not the pool;
#  2. a library in the shared cache is still mapped from the cache (a
#     hugetlbfs file mapped read and execute needs no such change);
#  3. hugeld status of such a process names the seccomp filter.
# Without the policy the same run must put the text on huge pages, or
# the rest proves nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(hugetlbfs cache, huge page pool)"
cache_test_setup || finish
LIB=$L/libvalue.so
cc -O2 -Wall -Werror -o "$B/wxdeny" "$HUGELD_TOP/tests/cache/wxdeny.c" \
  || { fail "build wxdeny" ""; finish; }
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
at_exit 'cleanup_cache "$LIB"'
"$H" cache remove "$LIB" > /dev/null 2>&1

PRIV=(LD_HUGEPAGE_LIBS=libvalue.so LD_HUGEPAGE_BACKING=private LD_HUGEPAGE_SEGMENTS=text)
# The report's line for the text zone that fills huge pages (the first
# text range of the library is too small for one).
text_line () { grep 'libvalue.so: text \[' "$1" | grep -v 'does not fill' | head -1 | sed 's/^ *[0-9]*:\thugepages: //'; }
# private_kb PID: the process's private hugetlb memory (a private copy
# is anonymous memory: its mapping no longer names the library).
private_kb () { awk '$1 == "Private_Hugetlb:" { s += $2 } END { print s + 0 }' "/proc/$1/smaps"; }

# 0. Control: no policy, the text goes on private huge pages.
T=$TEST_TMP/control
hold_start "$T" "${PRIV[@]}"
hp=$(private_kb "$(cat "$T.pid")")
hold_stop "$T"
if [ "$(value_of "$T.out")" = 1 ] && [ "$hp" -gt 0 ]; then
  pass "control, no policy: private backing puts $hp kB of libvalue.so on huge pages"
else
  fail "control, no policy" "value $(value_of "$T.out"), $hp kB huge: $(text_line "$T.dbg")"
  finish
fi

# 1. Under each policy: ordinary pages, the stock result, no pool page
# held, and the reason in the report.
for policy in seccomp mdwe; do
  T=$TEST_TMP/$policy
  if [ "$policy" = mdwe ]; then
    "$B/wxdeny" mdwe /bin/true 2> /dev/null; rc=$?
    if [ "$rc" = 77 ]; then
      skip "$policy" "this kernel has no prctl PR_SET_MDWE (Linux 6.3)"; continue
    fi
  fi
  free0=$(meminfo HugePages_Free)
  HOLD_WRAP="$B/wxdeny $policy" hold_start "$T" "${PRIV[@]}"
  hp=$(private_kb "$(cat "$T.pid")")
  free1=$(meminfo HugePages_Free)
  [ "$policy" = seccomp ] && "$H" status "$(cat "$T.pid")" > "$T.status" 2>&1
  hold_stop "$T"
  line=$(text_line "$T.dbg")
  if [ "$(value_of "$T.out")" != 1 ]; then
    fail "$policy: private backing" "value '$(value_of "$T.out")': $(cat "$T.err")"
  elif [ "$hp" != 0 ] || [ "$free1" != "$free0" ]; then
    fail "$policy: private backing" "$hp kB on huge pages, pool free $free0 -> $free1"
  elif [[ $line != *"fallback to ordinary pages: mprotect PROT_EXEC (this process may not make written memory executable: systemd's MemoryDenyWriteExecute="* ]] \
       || [[ $line == *pool* ]]; then
    fail "$policy: the report" "$line"
  else
    pass "$policy: private backing runs as stock (value 1, 0 kB huge, pool untouched), report: ${line#*: text }"
  fi
  if [ "$policy" = seccomp ]; then
    grep -q "runs under a seccomp filter, which may refuse private copies of code" "$T.status" \
      && pass "$policy: hugeld status names the seccomp filter" \
      || fail "$policy: hugeld status" "$(grep -A2 'note:' "$T.status" | tr '\n' ' ')"
  fi
done

# 2. The shared cache serves the library under each policy, with the
# default backing.
if ! "$H" cache add "$LIB" > "$TEST_TMP/add.out" 2>&1; then
  fail "cache add" "$(cat "$TEST_TMP/add.out")"; finish
fi
for policy in seccomp mdwe; do
  "$B/wxdeny" "$policy" /bin/true 2> /dev/null || continue
  T=$TEST_TMP/cached-$policy
  HOLD_WRAP="$B/wxdeny $policy" hold_start "$T" LD_HUGEPAGE_LIBS=libvalue.so
  # (Shared_Hugetlb only once another process maps the same pages.)
  pid=$(cat "$T.pid")
  hp=$(( $(smaps_kb "$pid" /hugeld/ Shared_Hugetlb) + $(smaps_kb "$pid" /hugeld/ Private_Hugetlb) ))
  hold_stop "$T"
  if [ "$(value_of "$T.out")" = 1 ] && [ "$hp" -gt 0 ] \
     && ! grep -q 'libvalue.so: text .*fallback' "$T.dbg"; then
    pass "$policy: a cached library is mapped from the cache ($hp kB of the cache's huge pages, default backing)"
  else
    fail "$policy: cached library" "value $(value_of "$T.out"), $hp kB: $(text_line "$T.dbg")"
  fi
done
finish
