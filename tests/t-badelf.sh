#!/bin/bash
# Malformed ELF files (truncated, overlapping, unaligned or unsorted
# PT_LOADs, p_filesz > p_memsz, huge or odd p_align, zero-size segments,
# RELRO outside any segment or over text, a W+X segment, offsets past the
# end of the file, a 16 TiB bss): dlopen through hugeld with every object
# selected gives exactly what the stock loader gives — the same error
# message, the same result, or the same crash (the stock loader itself
# dies on some of them) — and never anything else.  As root, then as
# nobody: run by a service's own user, each against the stock loader as
# that user.
. "$(dirname "$0")/lib.sh"
as_users

S=$HUGELD_TOP/tests/badelf
B=$TEST_TMP/badelf
mkdir -p "$B"
if [ "$(id -u)" = 0 ]; then reserve_hugepages 32 || true; fi

gcc -O2 -shared -fPIC -o "$B/libbad.so" "$S/mod.c" \
  && gcc -O2 -Wall -o "$B/load" "$S/load.c" \
  && python3 "$S/mangle.py" "$B/libbad.so" "$B/v" > /dev/null \
  || { fail build "fixtures"; finish; }

# Every variant as root, then as nobody (a service's own user: "as
# nobody: "), each against the stock loader run as the same user.
for who in "${AS_USERS[@]}"; do
  as_user "$who"
  n=0
  for f in "$B"/v/*.so; do
    name=$AS$(basename "$f")
    stock=$(run_as "$SYSTEM_LDSO" "$B/load" "$f" 2>&1; echo "exit $?")
    huge=$(LD_HUGEPAGE_LIBS='*' LD_HUGEPAGE_SEGMENTS=all run_as "$HUGELD_LDSO" "$B/load" "$f" 2>&1; echo "exit $?")
    if [ "$stock" = "$huge" ]; then
      n=$((n + 1))
      pass "$name: same as the stock loader ($(echo "$stock" | tail -2 | tr '\n' ' ' | sed 's/^[^:]*: //'))"
    else
      fail "$name: same as the stock loader" "stock: $(echo "$stock" | tr '\n' ' ') hugeld: $(echo "$huge" | tr '\n' ' ')"
    fi
  done
  [ $n -ge 15 ] || fail "${AS}variants" "only $n compared"
done
as_user ""

# The path under test really ran: the intact copy went on huge pages.
if [ "$(id -u)" = 0 ] && reserve_hugepages 16; then
  for who in "${AS_USERS[@]}"; do
    as_user "$who"
    run_report "$TEST_TMP/ctl${who:+-$who}" LD_HUGEPAGE_BACKING=private LD_HUGEPAGE_LIBS='*' -- \
      "$HUGELD_LDSO" "$B/load" "$B/v/ok.so"
    grep -q 'ok.so: text .* on [0-9]* huge pages' "$TEST_TMP/ctl${who:+-$who}.dbg" \
      && pass "${AS}control: the intact copy's text went on huge pages" \
      || fail "${AS}control: the intact copy's text went on huge pages" "$(grep -h ok.so "$TEST_TMP/ctl${who:+-$who}.dbg" | tail -2)"
  done
  as_user ""
fi
finish
