#!/bin/bash
# Looking at oneself: what the tools that read a process's code see when
# its code came from the shared cache or a private copy.  A program
# (tests/guards/spin.c, PT_INTERP hugeld's ld.so) spins in the middle of
# libhpspin's text (tests/guards/spinlib.c), on a whole 2 MiB page that
# the shared cache or a private copy backs; it is killed with SIGSEGV
# there and the kernel dumps its core:
# - with the default coredump_filter (0x33) the huge pages are in the
#   core (the cache's zones too: mapped read-only, the kernel dumps them
#   as private hugetlb, bit 5); with 0x13 (no hugetlb) they are not;
# - either way gdb opens the core with symbols and a full backtrace
#   (spin () in libhpspin.so, main () with its line), disassembles the
#   instruction at the PC (read from the core, or from the library's
#   file), and eu-stack names spin in libhpspin.so and main in the
#   program; the stock loader's core is the control;
# - systemd-coredump: where it runs (systemd as PID 1), coredumpctl's
#   stack trace names spin in libhpspin.so (else a SKIP: make
#   check-boot checks it);
# - perf: attached to the running process, the huge pages' samples are
#   raw addresses until `hugeld perf-map PID' names them; perf started
#   with the program names them too.
# The core comes from the kernel: through systemd-coredump where it
# runs (coredumpctl dump), else kernel.core_pattern is set to a file of
# this test's for the moment of the dump and put back at once (never
# left changed: also when the test ends early).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(hugetlbfs cache, huge page pool, core_pattern)"
need_loaders
mkdir -p "$B" "$L" "$TEST_TMP/cores"
chmod 755 "$TEST_TMP" "$B" "$L"
cc -shared -fPIC -O2 -o "$L/libhpspin.so" "$HUGELD_TOP/tests/guards/spinlib.c" \
  && cc -O2 -g -o "$L/spin" "$HUGELD_TOP/tests/guards/spin.c" -L"$L" -lhpspin \
       -Wl,-rpath,'$ORIGIN' -Wl,--dynamic-linker="$HUGELD_LDSO" \
  && cc -O2 -g -o "$L/spin-stock" "$HUGELD_TOP/tests/guards/spin.c" -L"$L" -lhpspin \
       -Wl,-rpath,'$ORIGIN' \
  || { fail build "libhpspin, spin"; finish; }
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
cache_remember_mount
at_exit 'cleanup_cache "$L/libhpspin.so"'
"$H" cache add "$L/libhpspin.so" > "$TEST_TMP/add.out" 2>&1
cache_present "$L/libhpspin.so" | grep -q ' text:True' \
  || { fail "cache add libhpspin.so" "$(cat "$TEST_TMP/add.out")"; finish; }
SOFF=$(nm "$L/libhpspin.so" | awk '$3 == "spin" { print $1 }')

# Through systemd-coredump where it runs; else a pattern of our own for
# the moment of each dump.
PATTERN=$(cat /proc/sys/kernel/core_pattern)
COREDUMPCTL=
if [ -d /run/systemd/system ] && [[ $PATTERN == "|"*systemd-coredump* ]] && command -v coredumpctl > /dev/null; then
  COREDUMPCTL=yes
else
  at_exit 'printf "%s\n" "$PATTERN" > /proc/sys/kernel/core_pattern'
fi

# spin_start PFX ENV...: spin (its PT_INTERP is hugeld's ld.so; SPIN
# overrides the program) with ENV, no core size limit, in the
# background; its pid in SPID once it is spinning, the page of spin ()
# in PFX.page ("KPS PATH").
spin_start () {
  local pfx=$1; shift
  (ulimit -c unlimited; [ -z "${FILTER:-}" ] || echo "$FILTER" > /proc/self/coredump_filter
   exec env "$@" "${SPIN:-$L/spin}") > "$pfx.out" 2> "$pfx.err" &
  SPID=$!
  for _ in $(seq 100); do grep -q '^spinning' "$pfx.out" 2> /dev/null && break; sleep 0.05; done
  awk -v at=$(( 0x$(awk -v l="$L/libhpspin.so" '$6 == l && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/$SPID/maps) + 0x$SOFF )) '
    /^[0-9a-f]+-[0-9a-f]+ / { split($1, a, "-"); on = strtonum("0x" a[1]) <= at && at < strtonum("0x" a[2]); if (on) p = $6; next }
    on && $1 == "KernelPageSize:" { print $2, p; exit }' /proc/$SPID/smaps > "$pfx.page"
}

# core_of PFX: kill the spinning SPID with SIGSEGV; its core from the
# kernel into PFX.core.
core_of () {
  local pfx=$1 i
  rm -f "$pfx.core"
  if [ -n "$COREDUMPCTL" ]; then
    kill -SEGV $SPID; wait $SPID 2> /dev/null
    for i in $(seq 60); do
      coredumpctl dump -q -o "$pfx.core" $SPID > /dev/null 2>&1 && break
      sleep 0.5
    done
  else
    echo "$TEST_TMP/cores/core.%p" > /proc/sys/kernel/core_pattern
    kill -SEGV $SPID; wait $SPID 2> /dev/null
    printf '%s\n' "$PATTERN" > /proc/sys/kernel/core_pattern
    mv "$TEST_TMP/cores/core.$SPID" "$pfx.core" 2> /dev/null
  fi
  [ -s "$pfx.core" ]
}

# in_core CORE ADDR: the bytes the core holds of the mapping at ADDR.
in_core () {
  readelf -lW "$1" | awk -v at=$(( 0x$2 )) '$1 == "LOAD" && strtonum($3) <= at && at < strtonum($3) + strtonum($6) { print strtonum($5); exit }'
}

GDB=$(command -v gdb) EUSTACK=$(command -v eu-stack)
[ -n "$GDB" ] || skip gdb "gdb is not installed"
[ -n "$EUSTACK" ] || skip eu-stack "elfutils is not installed"

for case in shared private stock; do
  for FILTER in "" 0x13; do
    name="$case${FILTER:+, coredump_filter $FILTER}"
    prog=$L/spin
    [ $case = stock ] && prog=$L/spin-stock
    P=$TEST_TMP/$case${FILTER:+-$FILTER}
    case $case in
      stock) SPIN=$prog spin_start "$P" ;;
      *) spin_start "$P" LD_HUGEPAGE_LIBS=libhpspin.so LD_HUGEPAGE_BACKING=$case ;;
    esac
    read -r kps path < "$P.page"
    case $case in
      shared) [ "$kps" = 2048 ] && [ "${path#"$CACHE"/}" != "$path" ] ;;
      private) [ "$kps" = 2048 ] && [ "$path" = /anon_hugepage ] ;;
      stock) [ "$kps" = 4 ] ;;
    esac || { fail "$name: spin's page" "$kps kB from $path; $(head -3 "$P.err" | tr '\n' ' ')"; kill $SPID; wait $SPID 2> /dev/null; continue; }
    pc=$(awk -v at=$(( 0x$(awk -v l="$L/libhpspin.so" '$6 == l && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/$SPID/maps) + 0x$SOFF )) 'BEGIN { printf "%x\n", at }')
    if ! core_of "$P"; then
      fail "$name: a core from the kernel" "none (${COREDUMPCTL:+coredumpctl: }$(ls "$TEST_TMP/cores" | head -3))"
      continue
    fi
    held=$(in_core "$P.core" "$pc")
    if [ "$case" != stock ]; then
      if [ -z "$FILTER" ] && [ "${held:-0}" -lt $((2 << 20)) ]; then
        fail "$name: the huge pages are in the core" "$held bytes of the mapping of spin"
        continue
      elif [ -n "$FILTER" ] && [ "${held:-1}" != 0 ]; then
        fail "$name: the huge pages are left out" "$held bytes of the mapping of spin"
        continue
      fi
    fi
    what="spin's page $kps kB ($path), $((${held:-0} >> 20)) MiB of its mapping in the core"
    if [ -n "$GDB" ]; then
      timeout 120 "$GDB" -batch -nx -iex 'set debuginfod enabled off' -ex bt -ex 'x/i $pc' \
        -ex 'info sharedlibrary' "$prog" "$P.core" > "$P.gdb" 2>&1
      if grep -q "^#0  0x[0-9a-f]* in spin () from $L/libhpspin.so$" "$P.gdb" \
         && grep -q '^#1  0x[0-9a-f]* in main () at .*spin.c:[0-9]*$' "$P.gdb" \
         && grep -q '^=> 0x[0-9a-f]* <spin+[0-9]*>:[[:space:]]*\(jmp\|pause\)' "$P.gdb" \
         && grep -q "Yes.* $L/libhpspin.so$" "$P.gdb"; then
        pass "$name: gdb: spin () in libhpspin.so, main () at spin.c, the instruction at the PC, symbols read; $what"
      else
        fail "$name: gdb on the core" "$(grep -E '^#|^=>|rror|libhpspin' "$P.gdb" | head -5 | tr '\n' '|')"
      fi
    fi
    if [ -n "$EUSTACK" ]; then
      timeout 120 "$EUSTACK" -m --core="$P.core" > "$P.eu" 2>&1
      if grep -q '^#0  *0x[0-9a-f]* spin - .*libhpspin.so$' "$P.eu" \
         && grep -q '^#1  *0x[0-9a-f]* main - .*spin\(-stock\)\?$' "$P.eu"; then
        pass "$name: eu-stack: $(grep -m2 '^#[01]' "$P.eu" | sed 's/  */ /g' | tr '\n' ';')"
      else
        fail "$name: eu-stack on the core" "$(head -5 "$P.eu" | tr '\n' '|')"
      fi
    fi
    if [ -n "$COREDUMPCTL" ] && [ -z "$FILTER" ]; then
      coredumpctl info $SPID > "$P.info" 2>&1
      grep -q '#0  *0x[0-9a-f]* spin (libhpspin.so' "$P.info" \
        && pass "$name: coredumpctl info: $(grep -m1 '#0 ' "$P.info" | sed 's/^ *//')" \
        || fail "$name: coredumpctl info names spin in libhpspin.so" "$(grep -m3 '#[0-9]' "$P.info" | tr '\n' '|')"
    fi
  done
done
unset FILTER SPIN
[ -n "$COREDUMPCTL" ] \
  || skip coredumpctl "systemd-coredump does not run here (no systemd as PID 1; core_pattern $PATTERN): make check-boot checks coredumpctl"

# perf: attached (the huge pages are anonymous to perf: hugetlbfs files
# and /anon_hugepage), then named by hugeld perf-map; and started with
# the program.
if ! command -v perf > /dev/null || ! perf version > /dev/null 2>&1; then
  skip perf "perf is not installed (linux-perf)"
else
  for case in shared private; do
    P=$TEST_TMP/perf-$case
    spin_start "$P" LD_HUGEPAGE_LIBS=libhpspin.so LD_HUGEPAGE_BACKING=$case
    rm -f /tmp/perf-$SPID.map
    at_exit "rm -f /tmp/perf-$SPID.map"
    perf record -q -e cpu-clock -p $SPID -o "$P.data" -- sleep 1 > /dev/null 2>&1
    perf report -i "$P.data" --stdio --sort dso,sym 2> /dev/null | grep -v '^#' | grep . > "$P.raw"
    map=$("$H" perf-map $SPID 2>&1)
    perf report -i "$P.data" --stdio --sort dso,sym 2> /dev/null | grep -v '^#' | grep . > "$P.named"
    kill $SPID; wait $SPID 2> /dev/null
    if head -1 "$P.raw" | grep -q '\[\.\] 0x0000' && head -1 "$P.named" | grep -q '\[JIT\] tid [0-9]* *\[\.\] spin$'; then
      pass "perf attached, $case: raw addresses ($(head -1 "$P.raw" | awk '{ print $NF }')) until hugeld perf-map names them: $(head -1 "$P.named" | sed 's/  */ /g') ($map)"
    else
      fail "perf attached, $case: named by perf-map" "before: $(head -1 "$P.raw"); after: $(head -1 "$P.named"); $map"
    fi
    # Started with the program: perf follows its mappings from the
    # start.
    LD_HUGEPAGE_LIBS=libhpspin.so LD_HUGEPAGE_BACKING=$case timeout -k 5 -s INT 2 \
      perf record -q -e cpu-clock -o "$P.start" -- "$L/spin" > /dev/null 2>&1
    perf report -i "$P.start" --stdio --sort dso,sym 2> /dev/null | grep -v '^#' | grep . > "$P.sreport"
    if head -1 "$P.sreport" | grep -q 'libhpspin.so *\[\.\] spin'; then
      pass "perf started with the program, $case: $(head -1 "$P.sreport" | sed 's/  */ /g')"
    else
      fail "perf started with the program, $case" "$(head -2 "$P.sreport" | tr '\n' '|')"
    fi
  done
fi
finish
