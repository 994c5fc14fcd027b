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
# the rest proves nothing.  All of it as root and as nobody (a
# service's own user, as systemd runs a unit with User=).
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

# Every check as root, then as nobody (a service's own user: "as
# nobody: "); the policy is set up as root, as systemd would before it
# changes to the unit's User=, and hugeld status (root) reads the
# process.
for who in "" nobody; do
  as_user "$who"
  W=${who:+-$who}

  # 0. Control: no policy, the text goes on private huge pages.
  T=$TEST_TMP/control$W
  hold_start "$T" "${PRIV[@]}"
  hp=$(private_kb "$(cat "$T.pid")")
  hold_stop "$T"
  if [ "$(value_of "$T.out")" = 1 ] && [ "$hp" -gt 0 ]; then
    pass "${AS}control, no policy: private backing puts $hp kB of libvalue.so on huge pages"
  else
    fail "${AS}control, no policy" "value $(value_of "$T.out"), $hp kB huge: $(text_line "$T.dbg")"
    continue
  fi

  # 1. Under each policy: ordinary pages, the stock result, no pool page
  # held, and the reason in the report.
  for policy in seccomp mdwe; do
    T=$TEST_TMP/$policy$W
    if [ "$policy" = mdwe ]; then
      "$B/wxdeny" mdwe /bin/true 2> /dev/null; rc=$?
      if [ "$rc" = 77 ]; then
        skip "$AS$policy" "this kernel has no prctl PR_SET_MDWE (Linux 6.3)"; continue
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
      fail "$AS$policy: private backing" "value '$(value_of "$T.out")': $(cat "$T.err")"
    elif [ "$hp" != 0 ] || [ "$free1" != "$free0" ]; then
      fail "$AS$policy: private backing" "$hp kB on huge pages, pool free $free0 -> $free1"
    elif [[ $line != *"fallback to ordinary pages: mprotect PROT_EXEC (this process may not make written memory executable: systemd's MemoryDenyWriteExecute="* ]] \
         || [[ $line == *pool* ]]; then
      fail "$AS$policy: the report" "$line"
    else
      pass "$AS$policy: private backing runs as stock (value 1, 0 kB huge, pool untouched), report: ${line#*: text }"
    fi
    if [ "$policy" = seccomp ]; then
      grep -q "runs under a seccomp filter: if it refuses to make written memory executable" "$T.status" \
        && pass "$AS$policy: hugeld status names the seccomp filter" \
        || fail "$AS$policy: hugeld status" "$(grep -A2 'note:' "$T.status" | tr '\n' ' ')"
    fi
  done
done
as_user ""

# 2. The shared cache serves the library under each policy, with the
# default backing, as root and as nobody.  (Adding the entry is root's:
# only root writes the cache.)
if ! "$H" cache add "$LIB" > "$TEST_TMP/add.out" 2>&1; then
  fail "cache add (root: only root writes the cache)" "$(cat "$TEST_TMP/add.out")"; finish
fi
for who in "" nobody; do
  as_user "$who"
  for policy in seccomp mdwe; do
    "$B/wxdeny" "$policy" /bin/true 2> /dev/null || continue
    T=$TEST_TMP/cached-$policy${who:+-$who}
    HOLD_WRAP="$B/wxdeny $policy" hold_start "$T" LD_HUGEPAGE_LIBS=libvalue.so
    # (Shared_Hugetlb only once another process maps the same pages.)
    pid=$(cat "$T.pid")
    hp=$(( $(smaps_kb "$pid" /hugeld/ Shared_Hugetlb) + $(smaps_kb "$pid" /hugeld/ Private_Hugetlb) ))
    hold_stop "$T"
    if [ "$(value_of "$T.out")" = 1 ] && [ "$hp" -gt 0 ] \
       && ! grep -q 'libvalue.so: text .*fallback' "$T.dbg"; then
      pass "$AS$policy: a cached library is mapped from the cache ($hp kB of the cache's huge pages, default backing)"
    else
      fail "$AS$policy: cached library" "value $(value_of "$T.out"), $hp kB: $(text_line "$T.dbg")"
    fi
  done
done
as_user ""
finish
