#!/bin/bash
# Everything else that touches an object's mappings keeps working when
# the object is on huge pages: text relocations, dlclose, _dl_find_object
# / dladdr / dl_iterate_phdr, audit modules, dlmopen, TLS, IFUNC, C++
# exceptions and gdb.
#
# The fixtures (tests/compat/*.c, built here) are libraries whose real
# code sits between two 3 MiB blocks of filler text, so that it is on
# whole 2 MiB pages whenever the library's text is.  Each program reads
# /proc/self/smaps itself: with -H it exits with status 3 if the code
# or data it is about is not on a mapping with KernelPageSize 2048 kB.
# Its stdout is what it observed of the behaviour, which must be what
# it is under the stock loader.  So every item is two checks:
#   ITEM: same behaviour as the stock loader
#   ITEM: ... on 2 MiB pages   (the program's check and the LD_DEBUG
#                               report of the loader)
# and a control run shows that the page size check fails when the
# object is not selected.
#
# A breakpoint that gdb puts into a selected main program when it
# starts it (before the loader runs) must be hit: the loader leaves the
# zone holding it on ordinary pages.
. "$(dirname "$0")/lib.sh"

SRC=$HUGELD_TOP/tests/compat
B=$TEST_TMP/build
T=$TEST_TMP/run
mkdir -p "$B" "$T"

need_root "to reserve huge pages"

# At most about 10 pages are in use at a time (two copies of a library,
# or text and rodata of the text relocation library, plus a gdb
# breakpoint); leave room.
need=32
reserve_hugepages $need || { fail reserve "cannot get $need free huge pages"; finish; }

# --- Build the fixtures --------------------------------------------------

have_cxx=yes
command -v g++ > /dev/null || have_cxx=no

build () {
  local cflags="-O0 -g -Wall -Wextra"
  local lib="$cflags -fPIC"
  local w f
  cd "$B" || return 1
  for w in lo hi; do
    gcc $lib -c "$SRC/fill.c" -DFILL_NAME=compat_fill_$w -o fill-$w.o || return 1
    gcc $lib -c "$SRC/fill.c" -DFILL_NAME=compat_fill_$w -DFILL_RODATA \
      -o fill-ro-$w.o || return 1
  done
  for f in big textrel tls audit; do
    gcc $lib -c "$SRC/$f.c" -o $f.o || return 1
  done
  # The libraries: real code between the two filler blocks.
  gcc -shared -Wl,-soname,libcompatbig.so fill-lo.o big.o fill-hi.o \
    -o libcompatbig.so || return 1
  gcc -shared -Wl,-soname,libcompatdl.so fill-lo.o big.o fill-hi.o \
    -o libcompatdl.so || return 1
  gcc -shared -Wl,-z,notext -Wl,-soname,libcompattextrel.so \
    fill-ro-lo.o textrel.o fill-ro-hi.o -o libcompattextrel.so || return 1
  gcc -shared -Wl,-soname,libcompattls.so fill-lo.o tls.o fill-hi.o \
    -o libcompattls.so || return 1
  gcc -shared -Wl,-soname,libcompataudit.so fill-lo.o audit.o fill-hi.o \
    -o libcompataudit.so || return 1
  # The programs.
  gcc $cflags "$SRC/compat-prog.c" -o compat-prog -L. -lcompatbig \
    -Wl,-rpath,"$B" -ldl || return 1
  gcc $cflags -pthread "$SRC/tls-main.c" -o compat-tls -L. -lcompattls \
    -Wl,-rpath,"$B" || return 1
  gcc $cflags -pthread -DCOMPAT_TLS_DLOPEN "$SRC/tls-main.c" \
    -o compat-tls-dl -ldl || return 1
  # gdb runs these directly: hugeld's loader is their interpreter.
  gcc $cflags "$SRC/gdb-main.c" -o compat-gdb -L. -lcompatbig \
    -Wl,-rpath,"$B" -Wl,--dynamic-linker="$HUGELD_LDSO" || return 1
  gcc $lib -c "$SRC/bigmain.c" -o bigmain.o || return 1
  gcc -pie fill-lo.o bigmain.o fill-hi.o -o compat-bigmain \
    -Wl,--dynamic-linker="$HUGELD_LDSO" || return 1
  if [ $have_cxx = yes ]; then
    g++ $lib -c "$SRC/cxx.cc" -o cxx.o || return 1
    g++ -shared -Wl,-soname,libcompatcxx.so fill-lo.o cxx.o fill-hi.o \
      -o libcompatcxx.so || return 1
    g++ $cflags "$SRC/cxx-main.cc" -o compat-cxx -L. -lcompatcxx \
      -Wl,-rpath,"$B" || return 1
  fi
}
if ! (build) > "$B/build.log" 2>&1; then
  fail build "$(tail -5 "$B/build.log" | tr '\n' ' ')"
  finish
fi
# The text relocations are really there.
if readelf -d "$B/libcompattextrel.so" | grep -q TEXTREL; then
  pass "build: fixtures (libcompattextrel.so has DT_TEXTREL)"
else
  fail "build: libcompattextrel.so has DT_TEXTREL" "no TEXTREL in its dynamic section"
fi

# --- Helpers -------------------------------------------------------------

# run NAME ENV... -- CMD...: stdout, stderr and exit status of one run,
# as $AS_USER (tests/lib.sh), in $T/NAME.{out,err,rc}; under hugeld's
# loader (CMD starting with it, or the gdb runs) the LD_DEBUG=hugepages
# report in $T/NAME.dbg.
run () {
  local pfx=$T/$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  run_as_argv || return 1
  if [ "$1" = "$HUGELD_LDSO" ]; then
    envs+=(LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$(report_out "$pfx")")
  fi
  env "${envs[@]}" ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$@" > "$pfx.out" 2> "$pfx.err"
  echo $? > "$pfx.rc"
  report_collect "$pfx"
}

rc () { cat "$T/$1.rc"; }
why () { grep -E 'WRONG|NOT HUGE|rror' "$T/$1.err" | head -4 | tr '\n' ' '; }

# same ITEM STOCK HUGE: the program ran under both loaders (status 0, or
# 3 = only page sizes wrong, which the next check reports) and printed
# the same.
same () {
  local item=$1 s=$2 h=$3
  if [ "$(rc "$s")" != 0 ]; then
    fail "$AS$item: same behaviour as the stock loader" \
      "stock loader: exit $(rc "$s"): $(why "$s") $(head -3 "$T/$s.out" | tr '\n' ' ')"
  elif [ "$(rc "$h")" != 0 ] && [ "$(rc "$h")" != 3 ]; then
    fail "$AS$item: same behaviour as the stock loader" \
      "exit $(rc "$h"): $(why "$h") $(grep -m3 -v ': yes$' "$T/$h.out" | tr '\n' ' ')"
  elif ! cmp -s "$T/$s.out" "$T/$h.out"; then
    fail "$AS$item: same behaviour as the stock loader" \
      "$(diff "$T/$s.out" "$T/$h.out" | grep '^[<>]' | head -4 | tr '\n' ' ')"
  else
    pass "$AS$item: same behaviour as the stock loader"
  fi
}

# pages_used RUN LIB: the huge pages hugeld's report says LIB got in RUN,
# one number per load.
pages_used () {
  sed -n "s|.*hugepages: .*/$2: \([0-9]*\) huge pages used, \([0-9]*\) not available.*|\1 \2|p" \
    "$T/$1.dbg"
}

# huge ITEM RUN LIB WHAT: RUN saw WHAT on 2 MiB pages (status not 3, no
# "NOT HUGE", some "page: ...: 2048 kB") and hugeld's report has LIB on
# huge pages with nothing missing.
huge () {
  local item=$1 r=$2 lib=$3 what=$4
  local used; used=$(pages_used "$r" "$lib" | head -1)
  if [ "$(rc "$r")" = 3 ] || grep -q '^NOT HUGE' "$T/$r.err"; then
    fail "$AS$item: $what on 2 MiB pages" "$(grep -m3 '^NOT HUGE' "$T/$r.err" | tr '\n' ' ')"
  elif ! grep -q '^page: .*\(: 2048 kB\| [1-9][0-9]* of [0-9]*\)$' "$T/$r.err"; then
    fail "$AS$item: $what on 2 MiB pages" "no page size reported: $(why "$r")"
  elif [ -z "$used" ] || [ "${used% *}" = 0 ] || [ "${used#* }" != 0 ]; then
    fail "$AS$item: $what on 2 MiB pages" \
      "LD_DEBUG report for $lib: '${used:-none}' (pages used, not available)"
  else
    pass "$AS$item: $what on 2 MiB pages (report: $lib ${used% *} huge pages)"
  fi
}

P=$B/compat-prog

# Every item as root, then as nobody (a service's own user; gdb too,
# debugging its own program), against the stock loader run the same
# way.
for who in "" nobody; do
  as_user "$who"
  T=$TEST_TMP/run${who:+-$who}
  mkdir -p "$T"

  # --- Control: the page size check can fail --------------------------------

  run basic.stock -- "$SYSTEM_LDSO" "$P" basic
  run control -- "$HUGELD_LDSO" "$P" -H basic
  if [ "$(rc control)" = 3 ] && grep -q '^NOT HUGE: libcompatbig.so code' "$T/control.err" \
     && cmp -s "$T/basic.stock.out" "$T/control.out"; then
    pass "${AS}control: not selected (no LD_HUGEPAGE_LIBS): the page size check reports 4 kB pages"
  else
    fail "${AS}control: not selected: the page size check must fail" \
      "exit $(rc control): $(head -3 "$T/control.err" | tr '\n' ' ')"
  fi
  run control2 LD_HUGEPAGE_LIBS=libcompatdl.so -- "$HUGELD_LDSO" "$P" -H basic
  if [ "$(rc control2)" = 3 ] && [ -z "$(pages_used control2 libcompatbig.so)" ]; then
    pass "${AS}control: another library selected: the page size check fails, no report for libcompatbig.so"
  else
    fail "${AS}control: another library selected: the page size check must fail" \
      "exit $(rc control2): $(head -3 "$T/control2.err" | tr '\n' ' ')"
  fi

  # --- The items -------------------------------------------------------------

  # Calls and a backtrace (glibc's backtrace, libgcc's unwinder, dladdr)
  # from a callback called by the library.
  run basic LD_HUGEPAGE_LIBS=libcompatbig.so -- "$HUGELD_LDSO" "$P" -H basic
  same "calls, backtrace" basic.stock basic
  huge "calls, backtrace" basic libcompatbig.so "code"

  # 1. Text relocations.
  run textrel.stock -- "$SYSTEM_LDSO" "$P" textrel "$B"
  run textrel LD_HUGEPAGE_LIBS=libcompattextrel.so -- "$HUGELD_LDSO" "$P" -H textrel "$B"
  same "textrel" textrel.stock textrel
  huge "textrel" textrel libcompattextrel.so "relocated tables in .text and .rodata"
  if grep -q '^no mapping is writable and executable: yes' "$T/textrel.out" \
     && grep -q '^table in .text: mapping r-xp' "$T/textrel.out" \
     && grep -q '^table in .rodata: mapping r--p' "$T/textrel.out"; then
    pass "${AS}textrel: after relocation text is r-x, rodata r--, no mapping W+X"
  else
    fail "${AS}textrel: protections after relocation" \
      "$(grep 'writable\|mapping' "$T/textrel.out" | tr '\n' ' ')"
  fi
  grep -q 'libcompattextrel.so: selected by .*, has text relocations' "$T/textrel.dbg" \
    && pass "${AS}textrel: LD_DEBUG report: selected, has text relocations" \
    || fail "${AS}textrel: LD_DEBUG report: selected, has text relocations" \
         "$(grep -m1 'libcompattextrel.so: selected' "$T/textrel.dbg")"

  # 2. dlopen/dlclose 50 times.  HugePages_Free is the whole system's: if
  # it moved while this process's own huge pages came back to what they
  # were, another process used the pool meanwhile (tests running in
  # parallel); try again, up to 3 times.
  run_dlclose () {
    local i
    for i in 1 2 3; do
      run "$@"
      grep -q '^HugePages_Free afterwards = before: no$' "$T/$1.out" \
        && grep -q "^this process's huge pages afterwards = before: yes$" "$T/$1.out" \
        || break
      echo "note: $1: HugePages_Free changed by another process; again" >&2
    done
  }
  run_dlclose dlclose.stock -- "$SYSTEM_LDSO" "$P" dlclose "$B" 50
  run_dlclose dlclose LD_HUGEPAGE_LIBS=libcompatdl.so -- "$HUGELD_LDSO" "$P" -H dlclose "$B" 50
  same "dlclose x50 (no mapping left, HugePages_Free as before)" dlclose.stock dlclose
  huge "dlclose x50" dlclose libcompatdl.so "every round's code"
  n=$(pages_used dlclose libcompatdl.so | grep -c '^[1-9][0-9]* 0$')
  [ "$n" = 50 ] && pass "${AS}dlclose x50: the report has 50 loads on huge pages" \
    || fail "${AS}dlclose x50: the report has 50 loads on huge pages" "$n"

  # 3. _dl_find_object, dladdr, dl_iterate_phdr.
  run findobj.stock -- "$SYSTEM_LDSO" "$P" findobj "$B"
  run findobj LD_HUGEPAGE_LIBS=libcompatbig.so:libcompatdl.so -- "$HUGELD_LDSO" "$P" -H findobj "$B"
  same "_dl_find_object, dladdr, dl_iterate_phdr" findobj.stock findobj
  huge "_dl_find_object, dladdr, dl_iterate_phdr" findobj libcompatbig.so \
    "libcompatbig.so (start-up) and libcompatdl.so (dlopen)"

  # 4. An audit module.  Its lines on stderr, with the loader's own name
  # made the same, must be the stock loader's.
  audit_lines () {
    grep '^audit: ' "$T/$1.err" | grep -v '^audit: self page' \
      | sed "s|objopen $(basename "$HUGELD_LDSO") |objopen LDSO |; s|objopen $(basename "$SYSTEM_LDSO") |objopen LDSO |"
  }
  A=$B/libcompataudit.so
  run audit.stock LD_AUDIT="$A" -- "$SYSTEM_LDSO" "$P" basic
  run audit LD_AUDIT="$A" LD_HUGEPAGE_LIBS=libcompatbig.so -- "$HUGELD_LDSO" "$P" -H basic
  same "LD_AUDIT" audit.stock audit
  huge "LD_AUDIT" audit libcompatbig.so "audited library's code"
  if audit_lines audit.stock > "$T/audit.stock.lines" && audit_lines audit > "$T/audit.lines" \
     && cmp -s "$T/audit.stock.lines" "$T/audit.lines" \
     && grep -q '^audit: objopen libcompatbig.so lmid=0$' "$T/audit.lines" \
     && grep -q '^audit: symbind compat_big_inner$' "$T/audit.lines"; then
    pass "${AS}LD_AUDIT: la_objopen and la_symbind64 see libcompatbig.so as under the stock loader"
  else
    fail "${AS}LD_AUDIT: the audit module's events" \
      "$(diff "$T/audit.stock.lines" "$T/audit.lines" | grep '^[<>]' | head -3 | tr '\n' ' ') $(grep -c objopen "$T/audit.lines") objopen"
  fi
  # The audit module itself selected too.
  run audit2 LD_AUDIT="$A" LD_HUGEPAGE_LIBS=libcompatbig.so:libcompataudit.so -- "$HUGELD_LDSO" "$P" -H basic
  same "LD_AUDIT, audit module selected too" audit.stock audit2
  if grep -q '^audit: self page: 2048 kB$' "$T/audit2.err" \
     && [ -n "$(pages_used audit2 libcompataudit.so)" ] && audit_lines audit2 | cmp -s - "$T/audit.stock.lines"; then
    pass "${AS}LD_AUDIT, audit module selected too: the module runs on 2 MiB pages, same events"
  else
    fail "${AS}LD_AUDIT, audit module selected too: on 2 MiB pages, same events" \
      "$(grep '^audit: self' "$T/audit2.err") report: $(pages_used audit2 libcompataudit.so)"
  fi

  # 5. dlmopen: one copy per namespace, each on huge pages.
  run dlmopen.stock -- "$SYSTEM_LDSO" "$P" dlmopen "$B"
  run dlmopen LD_HUGEPAGE_LIBS=libcompatdl.so -- "$HUGELD_LDSO" "$P" -H dlmopen "$B"
  same "dlmopen" dlmopen.stock dlmopen
  huge "dlmopen" dlmopen libcompatdl.so "both copies' code"
  n=$(pages_used dlmopen libcompatdl.so | grep -c '^[1-9][0-9]* 0$')
  [ "$n" = 2 ] && pass "${AS}dlmopen: the report has two copies on huge pages (dlopen + dlmopen)" \
    || fail "${AS}dlmopen: the report has two copies on huge pages" "$n: $(pages_used dlmopen libcompatdl.so | tr '\n' ' ')"

  # 6. TLS: static (linked) and dynamic (dlopened), main thread and threads.
  run tls.stock -- "$SYSTEM_LDSO" "$B/compat-tls"
  run tls LD_HUGEPAGE_LIBS=libcompattls.so -- "$HUGELD_LDSO" "$B/compat-tls" -H
  same "TLS, static (linked library)" tls.stock tls
  huge "TLS, static (linked library)" tls libcompattls.so "TLS image (.tdata) and code"
  run tlsdl.stock -- "$SYSTEM_LDSO" "$B/compat-tls-dl" "$B/libcompattls.so"
  run tlsdl LD_HUGEPAGE_LIBS=libcompattls.so -- "$HUGELD_LDSO" "$B/compat-tls-dl" -H "$B/libcompattls.so"
  same "TLS, dynamic (dlopened library)" tlsdl.stock tlsdl
  huge "TLS, dynamic (dlopened library)" tlsdl libcompattls.so "TLS image (.tdata) and code"

  # 7. IFUNC.
  run ifunc.stock -- "$SYSTEM_LDSO" "$P" ifunc
  run ifunc LD_HUGEPAGE_LIBS=libcompatbig.so -- "$HUGELD_LDSO" "$P" -H ifunc
  same "IFUNC" ifunc.stock ifunc
  huge "IFUNC" ifunc libcompatbig.so "resolvers, implementation and callers"

  # 8. C++ exceptions thrown in, through and inside huge page code.
  if [ $have_cxx = yes ]; then
    run cxx.stock -- "$SYSTEM_LDSO" "$B/compat-cxx"
    run cxx LD_HUGEPAGE_LIBS=libcompatcxx.so -- "$HUGELD_LDSO" "$B/compat-cxx" -H
    same "C++ exceptions" cxx.stock cxx
    huge "C++ exceptions" cxx libcompatcxx.so "throwing and unwound code"
  else
    skip "${AS}C++ exceptions" "no g++"
  fi

  # 9. gdb: a breakpoint in the library's huge page text, run through
  # hugeld's loader (compat-gdb's interpreter); the environment only for
  # the program, through gdb's exec-wrapper.
  if command -v gdb > /dev/null; then
    run gdb.stock -- "$SYSTEM_LDSO" "$B/compat-gdb"
    out=$(report_out "$T/gdb")
    run_as timeout 60 gdb -batch -nx \
      -ex 'set debuginfod enabled off' -ex 'set pagination off' \
      -ex 'set breakpoint pending on' \
      -ex "set exec-wrapper env LD_HUGEPAGE_LIBS=libcompatbig.so LD_DEBUG=hugepages LD_DEBUG_OUTPUT=$out" \
      -ex 'break compat_big_inner' -ex run -ex bt -ex 'info sharedlibrary' \
      -ex continue --args "$B/compat-gdb" -H > "$T/gdb.out" 2> "$T/gdb.err"
    echo $? > "$T/gdb.rc"
    report_collect "$T/gdb"
    o=$T/gdb.out
    grep -q '^Breakpoint 1, compat_big_inner (n=21' "$o" \
      && pass "${AS}gdb: pending breakpoint in the library is hit" \
      || fail "${AS}gdb: pending breakpoint in the library is hit" \
  	 "$(grep -v '^\[' "$o" "$T/gdb.err" | head -4 | tr '\n' ' ')"
    grep -q '^#0  compat_big_inner (n=21' "$o" && grep -q '^#1  .* in compat_big_outer (n=20' "$o" \
      && grep -q '^#2  .* in main ' "$o" \
      && pass "${AS}gdb: bt names compat_big_inner, compat_big_outer, main" \
      || fail "${AS}gdb: bt names the functions" "$(grep '^#' "$o" | head -3 | tr '\n' ' ')"
    grep -q '^0x[0-9a-f]*  *0x[0-9a-f]*  *Yes .*/libcompatbig.so$' "$o" \
      && pass "${AS}gdb: info sharedlibrary lists libcompatbig.so" \
      || fail "${AS}gdb: info sharedlibrary lists libcompatbig.so" "$(grep -A4 '^From' "$o" | tr '\n' ' ')"
    # Status 3 (only the page size check failed) is the next check's.
    if grep -q '^\[Inferior 1 (process [0-9]*) exited \(normally\|with code 03\)\]' "$o" \
       && [ "$(rc gdb.stock)" = 0 ] \
       && [ "$(grep -F -x -f "$T/gdb.stock.out" "$o" | wc -l)" = "$(wc -l < "$T/gdb.stock.out")" ]; then
      pass "${AS}gdb: after continuing, the program prints the stock loader's results and exits normally"
    else
      fail "${AS}gdb: the program runs on and exits normally" \
        "$(grep -E 'Inferior|signal|compat_big_(outer|add) \(' "$o" | head -4 | tr '\n' ' ')"
    fi
    huge gdb gdb libcompatbig.so "library code with a breakpoint in it"

    # The program itself selected: gdb puts the breakpoint into its text
    # when it starts it, before the loader runs.
    gdb_bigmain () {
      local name=$1 out; shift
      out=$(report_out "$T/$name")
      run_as timeout 60 gdb -batch -nx \
        -ex 'set debuginfod enabled off' -ex 'set pagination off' \
        -ex "set exec-wrapper env $* LD_DEBUG=hugepages LD_DEBUG_OUTPUT=$out" \
        -ex 'break compat_main_target' -ex run -ex bt -ex continue \
        --args "$B/compat-bigmain" -H > "$T/$name.out" 2> "$T/$name.err"
      echo $? > "$T/$name.rc"
      report_collect "$T/$name"
    }
    hit='^Breakpoint 1, compat_main_target (x=20)'
    gdb_bigmain gdbmain0 LD_HUGEPAGE_LIBS=no-such-object
    grep -q "$hit" "$T/gdbmain0.out" \
      && pass "${AS}gdb, program not selected (control): breakpoint set before run is hit" \
      || fail "${AS}gdb, program not selected (control): breakpoint set before run is hit" \
  	 "$(grep -v '^\[' "$T/gdbmain0.out" | head -3 | tr '\n' ' ')"
    # The loader sees that the text differs from the file (the
    # breakpoint) and leaves that zone on ordinary pages, so the
    # breakpoint is neither lost nor copied.
    gdb_bigmain gdbmain LD_HUGEPAGE_LIBS=compat-bigmain
    if grep -q "$hit" "$T/gdbmain.out"; then
      pass "${AS}gdb, program selected: breakpoint set before run is hit"
    else
      fail "${AS}gdb, program selected: breakpoint set before run is hit" \
        "$(grep -E 'compat_main_target \(20\) =|Inferior 1' "$T/gdbmain.out" | tr '\n' ' ')"
    fi
    grep -q 'text .* fallback to ordinary pages: compare (the mapped code differs from the file' "$T/gdbmain.dbg" \
      && pass "${AS}gdb, program selected: the zone with the breakpoint stays on ordinary pages, reported" \
      || fail "${AS}gdb, program selected: the zone with the breakpoint stays on ordinary pages, reported" \
  	 "$(grep hugepages "$T/gdbmain.dbg" | tail -3 | tr '\n' ' ')"
  else
    skip "${AS}gdb" "gdb not installed"
  fi
done
as_user ""

finish
