#!/bin/bash
# Guards: a process that sandboxes itself with Landlock (files only
# under /usr, /lib, /etc, the loader's directory and the program's own
# directory; no /dev, so no /dev/hugepages; no /proc, no /sys), as
# programs and sandboxing launchers do (tests/guards/landlock.c), with
# a library that has a current shared cache entry:
#   a. then execs a program linked with the library;
#   b. then dlopens the library (the sandboxing program itself is run
#      by hugeld's ld.so);
# with each backing and the default order, as root and as nobody:
# - the stock loader's exit status and output (the stock loader run
#   in the same domain);
# - what the guard allows, from the kernel: the library's text (the
#   page that holds value ()) read from smaps by a tracer outside the
#   domain at the program's exit (atexit-smaps: /proc is denied inside):
#   private pages in the default order and with private, ordinary
#   pages with shared alone (the cache is denied), the page cache's
#   with thp;
# - LD_DEBUG=hugepages names the guard where it denied something: the
#   open of the cache ("denied by a security policy (Landlock or a
#   security module)"), and with thp what it could not read of /sys
# - hugeld status of a process in such a domain, from outside, says
#   that the cache's entry was there when it started and names what
#   it can see of the guard.
# The control: the same run outside the domain maps the text from the
# cache and its report names no guard, so the checks above can fail.
# Where the kernel has no Landlock (or it is off: lsm=), the test
# skips, saying so.  AppArmor and systemd's RestrictFileSystems= are
# checked under qemu by make check-boot (tests/boot/guest.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(hugetlbfs cache, huge page pool)"
need_loaders
need_fixtures atexit-smaps
mkdir -p "$B"
LL=$B/landlock
cc -O2 -Wall -Wextra -Werror -o "$LL" "$HUGELD_TOP/tests/guards/landlock.c" -ldl \
  2> "$TEST_TMP/cc.err" || { fail "build landlock" "$(head -3 "$TEST_TMP/cc.err" | tr '\n' ' ')"; finish; }
abi=$("$LL" --abi)
if [ "${abi:-0}" = 0 ]; then
  skip all "Landlock is not available here: $("$LL" -- /bin/true 2>&1 | head -1)"
  finish
fi
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
cache_test_setup || finish
at_exit 'cleanup_cache "$L/libvalue.so"'
as_users
mkdir -p "$RUN_AS_DIR" && chmod 1777 "$RUN_AS_DIR"
ATEXIT=$FIXTURES/atexit-smaps

# A program linked with the library (rpath $ORIGIN: it is found in the
# program's own directory, which the domain allows).
printf '#include <stdio.h>\nint value (void);\nint main (void) { printf ("value %%d\\n", value ()); return 0; }\n' \
  > "$TEST_TMP/usevalue.c"
cc -O2 -o "$L/usevalue" "$TEST_TMP/usevalue.c" -L"$L" -lvalue -Wl,-rpath,'$ORIGIN' \
  || { fail "build usevalue" ""; finish; }
# Where value () is in the library: its text's middle 2 MiB page.
VOFF=$(nm "$L/libvalue.so" | awk '$3 == "value" { print $1 }')

"$H" cache add "$L/libvalue.so" > "$TEST_TMP/add.out" 2>&1
if cache_present "$L/libvalue.so" | grep -q ' text:True'; then
  pass "cache add: libvalue.so's text is in the shared cache (Landlock ABI $abi)"
else
  fail "cache add" "$(cat "$TEST_TMP/add.out") $(cache_present "$L/libvalue.so")"
  finish
fi

# The domain: read and execute beneath /usr, /lib, /lib64, /etc and the
# loader's directory; everything beneath the program's own.
LLARGS=()
for d in /usr /lib /lib64 /etc "$(dirname "$HUGELD_LDSO")"; do
  [ -e "$d" ] && LLARGS+=(-r "$d")
done
LLARGS+=(-w "$L")

# ll_run PFX ENV... -- CMD...: CMD with ENV (and nothing else of the
# test's environment), as $AS_USER, under atexit-smaps, which traces it
# from outside the domain and copies its smaps at its exit to
# PFX.smaps; PFX.out, PFX.err (with the report of LD_DEBUG=hugepages:
# the domain allows no file for LD_DEBUG_OUTPUT), PFX.rc.
ll_run () {
  local pfx=$1 envs=() s; shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  run_as_argv || { echo 127 > "$pfx.rc"; : > "$pfx.out"; : > "$pfx.err"; : > "$pfx.smaps"; return; }
  s=$RUN_AS_DIR/$(basename "$pfx").smaps
  rm -f "$s"
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ${envs[@]+"${envs[@]}"} \
    ${RUN_AS_ARGV[@]+"${RUN_AS_ARGV[@]}"} "$ATEXIT" "$s" "$@" > "$pfx.out" 2> "$pfx.err" < /dev/null
  echo $? > "$pfx.rc"
  cp "$s" "$pfx.smaps" 2> /dev/null || : > "$pfx.smaps"
}

# text_page SMAPS: what backs the page of value () in the smaps of a
# run: "KPS PATH FILEPMD" (KernelPageSize kB, the mapping's file or
# [anon], FilePmdMapped kB), from the library's first mapping (offset
# 0) and value's offset in it.
text_page () {
  python3 - "$1" "$L/libvalue.so" "$VOFF" <<'EOF'
import sys
smaps, lib, voff = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
maps = []
cur = None
for line in open(smaps):
    f = line.split()
    if "-" in f[0] and len(f) >= 5 and not f[0].endswith(":"):
        a, b = (int(x, 16) for x in f[0].split("-"))
        cur = {"a": a, "b": b, "off": int(f[2], 16),
               "path": " ".join(f[5:]) or "[anon]", "kps": "?", "pmd": "0"}
        maps.append(cur)
    elif cur is not None and f[0] == "KernelPageSize:":
        cur["kps"] = f[1]
    elif cur is not None and f[0] == "FilePmdMapped:":
        cur["pmd"] = f[1]
base = [m for m in maps if m["path"] == lib and m["off"] == 0]
if not base:
    print("? none 0")
    sys.exit()
at = base[0]["a"] + voff
for m in maps:
    if m["a"] <= at < m["b"]:
        print(m["kps"], m["path"].replace(" ", "_"), m["pmd"])
        break
else:
    print("? unmapped 0")
EOF
}

DENIED="denied by a security policy (Landlock or a security module)"
# The stock loader in the domain: what every hugeld run must match.
for mode in exec dlopen; do
  if [ $mode = exec ]; then cmd=("$LL" "${LLARGS[@]}" -- "$SYSTEM_LDSO" "$L/usevalue")
  else cmd=("$SYSTEM_LDSO" "$LL" "${LLARGS[@]}" --dlopen "$L/libvalue.so")
  fi
  ll_run "$TEST_TMP/stock-$mode" -- "${cmd[@]}"
  if [ "$(cat "$TEST_TMP/stock-$mode.rc")" != 0 ] || [ "$(cat "$TEST_TMP/stock-$mode.out")" != "value 1" ]; then
    fail "$mode: the stock loader in the domain" "rc $(cat "$TEST_TMP/stock-$mode.rc"): $(head -3 "$TEST_TMP/stock-$mode.err" | tr '\n' ' ')"
  fi
done

for who in "${AS_USERS[@]}"; do
  as_user "$who"
  for mode in exec dlopen; do
    for b in "" shared private thp; do
      name="${AS}$mode, backing ${b:-default}"
      T=$TEST_TMP/$mode-${b:-default}${who:+-$who}
      if [ $mode = exec ]; then cmd=("$LL" "${LLARGS[@]}" -- "$HUGELD_LDSO" "$L/usevalue")
      else cmd=("$HUGELD_LDSO" "$LL" "${LLARGS[@]}" --dlopen "$L/libvalue.so")
      fi
      ll_run "$T" LD_HUGEPAGE_LIBS=libvalue.so ${b:+LD_HUGEPAGE_BACKING=$b} LD_DEBUG=hugepages -- "${cmd[@]}"
      read -r kps path pmd <<< "$(text_page "$T.smaps")"
      cachewhy=$(grep -m1 'libvalue.so: text .*: shared: ' "$T.err" | sed 's/.*: shared: //')
      thpline=$(grep -m1 'libvalue.so: text .*: thp: ' "$T.err" | sed 's/.*: thp: //')
      rc=$(cat "$T.rc") out=$(cat "$T.out")
      if [ "$rc" != "$(cat "$TEST_TMP/stock-$mode.rc")" ] || [ "$out" != "$(cat "$TEST_TMP/stock-$mode.out")" ]; then
        fail "$name: as the stock loader" "exit $rc, \"$out\"; the stock loader's $(cat "$TEST_TMP/stock-$mode.rc"), \"$(cat "$TEST_TMP/stock-$mode.out")\": $(grep -v '^ *[0-9]*: *hugepages:' "$T.err" | head -3 | tr '\n' ' ')"
        continue
      fi
      case ${b:-default} in
        default|private)
          [ "$kps" = 2048 ] && [ "${path#/anon_hugepage}" != "$path" ] \
            || { fail "$name: a private copy" "value's page: $kps kB from $path; $(grep -m3 'libvalue.so: text' "$T.err" | tr '\n' ' ')"; continue; } ;;
        shared)
          [ "$kps" = 4 ] && [ "$path" = "$L/libvalue.so" ] \
            || { fail "$name: ordinary pages" "value's page: $kps kB from $path"; continue; } ;;
        thp)
          [ "$path" = "$L/libvalue.so" ] && [ -n "$thpline" ] \
            || { fail "$name: thp asked for" "value's page: $kps kB from $path; $(grep -m3 'libvalue.so: text' "$T.err" | tr '\n' ' ')"; continue; } ;;
      esac
      if [ "${b:-default}" != private ] && [ "${b:-default}" != thp ] \
         && ! echo "$cachewhy" | grep -qF "opening the cache failed: EACCES (errno 13), $DENIED"; then
        fail "$name: the report names the guard" "shared: ${cachewhy:-no line}"
      elif [ "$b" = thp ] && ! echo "$thpline" | grep -qF "$DENIED"; then
        fail "$name: the report names what the guard denied" "thp: ${thpline:-no line}"
      elif [ "$b" = private ] && grep -q "$DENIED" "$T.err"; then
        fail "$name: nothing denied" "$(grep -m2 "$DENIED" "$T.err" | tr '\n' ' ')"
      else
        why=$cachewhy
        [ "$b" = thp ] && why=$(echo "$thpline" | grep -o "[^;]*$DENIED[^;]*" | head -2 | tr '\n' '|')
        [ "$b" = private ] && why="nothing denied"
        pass "$name: \"$out\", exit $rc as the stock loader; value's page $kps kB ($path${pmd:+, FilePmdMapped $pmd kB}); ${why:0:200}"
      fi
    done
  done
done
as_user ""

# The control: outside the domain the text comes from the cache, and the
# report names no guard.
T=$TEST_TMP/control
ll_run "$T" LD_HUGEPAGE_LIBS=libvalue.so LD_DEBUG=hugepages -- "$HUGELD_LDSO" "$L/usevalue"
read -r kps path pmd <<< "$(text_page "$T.smaps")"
if [ "$(cat "$T.rc")" = 0 ] && [ "$kps" = 2048 ] && [ "${path#"$CACHE"/}" != "$path" ] \
   && ! grep -q "denied by a security policy" "$T.err"; then
  pass "control: outside the domain value's page is the cache's ($path), and the report names no guard"
else
  fail "control: outside the domain, from the cache" "rc $(cat "$T.rc"), $kps kB from $path; $(grep -m2 'denied\|libvalue.so: text' "$T.err" | tr '\n' ' ')"
fi

# hugeld status of a process in the domain, from outside: the entry
# was current when it started, and what it can see of the guard.
P=$TEST_TMP/held
rm -f "$L/stop"
cp "$B/hold" "$L/hold"
env -i PATH=/usr/bin:/bin HOLD_UNTIL="$L/stop" LD_HUGEPAGE_LIBS=libvalue.so \
  "$LL" "${LLARGS[@]}" -- "$HUGELD_LDSO" "$L/hold" "$L/libvalue.so" > "$P.out" 2> "$P.err" < /dev/null &
hp=$!
for _ in $(seq 100); do grep -q '^ready' "$P.out" 2> /dev/null && break; sleep 0.1; done
timeout 60 "$H" status "$hp" > "$P.status" 2>&1
timeout 60 "$H" status --json "$hp" > "$P.json" 2>&1
touch "$L/stop"; wait $hp
if grep -q "its cache entry was current when the process started" "$P.status" \
   && grep -qi "landlock" "$P.status" \
   && python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["guards"]; sys.exit(0 if g["no_new_privs"] else 1)' "$P.json"; then
  pass "hugeld status from outside: $(grep -m1 -A2 'cache entry was current' "$P.status" | tr -s ' ' | tr '\n' ' ' | cut -c1-300)"
else
  fail "hugeld status names the guard" "$(grep -i -m4 'note\|guard\|libvalue' "$P.status" | tr '\n' '|')"
fi
finish
