#!/bin/bash
# hugeld's ld.so must be ABI-identical to the system loader it stands in
# for: the system's libc.so.6 (and libdl users, debuggers, ...) reach into
# ld.so through its exported symbols, through _rtld_global and
# _rtld_global_ro (GLIBC_PRIVATE, accessed by offset), through struct
# link_map, and through tunable IDs.  Any difference there breaks the
# system's libc.so.6 in ways no functional test is sure to notice.
#
#   dynamic symbols  objdump -T names, versions and flags (and the sizes of
#                    the exported data objects)
#   tunables         --list-tunables
#   struct layouts   gdb ptype/o of link_map, rtld_global, rtld_global_ro in
#                    the unstripped build ($HUGELD_OBJDIR/elf/ld.so) and in
#                    the system loader with Debian's libc6-dbg
#   version          --version names hugeld and the same glibc release
#
# Any user: the dynamic symbols, the data object sizes and the struct
# layouts are read from the files (objdump, gdb on the unstripped build),
# and --version prints a string built into the loader: the same for
# every user, so checked once.  --list-tunables is the loader's answer
# from a process of its own: it runs as root and as nobody ("as
# nobody: "), each against the system loader run as the same user.
. "$(dirname "$0")/lib.sh"
as_users

need_loaders

# show FILE1 FILE2: the unified diff of two outputs (system vs hugeld),
# indented, at most 60 lines.
show () {
  diff -u --label "system: $3" --label "hugeld: $4" "$1" "$2" | head -60 | sed 's/^/    /'
}

# same_output NAME FILE1 FILE2 LABEL1 LABEL2: PASS if the files are
# identical, else FAIL with the diff.
same_output () {
  if cmp -s "$2" "$3"; then
    pass "$1"
  else
    fail "$1" "$4 and $5 differ ($(diff "$2" "$3" | grep -c '^[<>]') lines; diff follows)"
    show "$2" "$3" "$4" "$5"
  fi
}

build_id () {
  readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}


# ---------------------------------------------------------------- dynamic symbols

# dynsyms LDSO: "FLAGS VERSION NAME" for each dynamic symbol, sorted;
# addresses, sections and sizes left out.
dynsyms () {
  objdump -T "$1" \
    | sed -n 's/^[0-9a-f]\{16\} \(.......\) [^	]*	[0-9a-f]\{16\} *\(.*\)$/\1 \2/p' \
    | sed 's/  */ /g' | sort
}
# dynobjs LDSO: "VERSION NAME SIZE" for each dynamic data object.
dynobjs () {
  objdump -T "$1" \
    | sed -n 's/^[0-9a-f]\{16\} .....DO [^	]*	\([0-9a-f]\{16\}\) *\(.*\)$/\2 \1/p' \
    | sed 's/  */ /g' | sort
}

if ! command -v objdump > /dev/null; then
  fail "dynamic symbols" "objdump is not installed (apt-get install binutils)"
else
  dynsyms "$SYSTEM_LDSO" > "$TEST_TMP/syms.sys"
  dynsyms "$HUGELD_LDSO" > "$TEST_TMP/syms.hug"
  n=$(wc -l < "$TEST_TMP/syms.sys")
  if [ "$n" -lt 20 ] || ! grep -q ' GLIBC_PRIVATE _rtld_global$' "$TEST_TMP/syms.sys"; then
    fail "dynamic symbols" "could not read the system loader's dynamic symbols ($n parsed from objdump -T $SYSTEM_LDSO)"
  else
    echo "  $n dynamic symbols in $SYSTEM_LDSO"
    same_output "dynamic symbols" \
      "$TEST_TMP/syms.sys" "$TEST_TMP/syms.hug" "$SYSTEM_LDSO" "$HUGELD_LDSO"
  fi
  # The sizes of exported data objects are ABI too (_rtld_global's is that
  # of struct rtld_global, which libc.so.6 indexes into).
  dynobjs "$SYSTEM_LDSO" > "$TEST_TMP/objs.sys"
  dynobjs "$HUGELD_LDSO" > "$TEST_TMP/objs.hug"
  same_output "dynamic data object sizes" \
    "$TEST_TMP/objs.sys" "$TEST_TMP/objs.hug" "$SYSTEM_LDSO" "$HUGELD_LDSO"
fi

# ---------------------------------------------------------------- tunables

# Tunable IDs are indices into ld.so's tunable list; the system's
# libc.so.6 was compiled with them.  Values as printed (no GLIBC_TUNABLES:
# tests/clean-env.sh): both run here, on the same machine, as root and
# as nobody.
for who in "${AS_USERS[@]}"; do
  as_user "$who"
  tun=$TEST_TMP/tun${who:+-$who}
  run_as "$SYSTEM_LDSO" --list-tunables > "$tun.sys" 2>&1
  rc_sys=$?
  run_as "$HUGELD_LDSO" --list-tunables > "$tun.hug" 2>&1
  rc_hug=$?
  if [ $rc_sys != 0 ] || ! grep -q '^glibc\.rtld\.nns: ' "$tun.sys"; then
    fail "${AS}--list-tunables" "the system loader did not list its tunables (exit $rc_sys): $(head -3 "$tun.sys" | tr '\n' ' ')"
  elif [ $rc_hug != 0 ]; then
    fail "${AS}--list-tunables" "hugeld exited $rc_hug: $(head -3 "$tun.hug" | tr '\n' ' ')"
  else
    echo "  $(wc -l < "$tun.sys") tunables in $SYSTEM_LDSO${who:+ (as $who)}"
    same_output "${AS}--list-tunables" \
      "$tun.sys" "$tun.hug" "$SYSTEM_LDSO" "$HUGELD_LDSO"
  fi
done
as_user ""

# ---------------------------------------------------------------- struct layouts

STRUCTS="link_map rtld_global rtld_global_ro"
name="struct layouts (ptype/o ${STRUCTS// /, })"
unstripped=$HUGELD_OBJDIR/elf/ld.so
libc_ver=$(pkg_version libc6)

# gdb and the libc6-dbg matching the installed libc6: install them if
# missing (as root); without them this check FAILs, it does not skip.
want=()
command -v gdb > /dev/null || want+=(gdb)
if [ -n "$libc_ver" ] && [ "$(pkg_version libc6-dbg)" != "$libc_ver" ]; then
  want+=("libc6-dbg=$libc_ver")
fi
if [ ${#want[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "  installing with apt-get: ${want[*]}"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${want[@]}"; } \
    > "$TEST_TMP/apt.log" 2>&1 \
    || echo "  apt-get failed: $(tail -3 "$TEST_TMP/apt.log" | tr '\n' ' ')"
fi

sys_id=$(build_id "$SYSTEM_LDSO")
dbg=/usr/lib/debug/.build-id/${sys_id:0:2}/${sys_id:2}.debug
why=
if ! command -v gdb > /dev/null; then
  why="gdb is not installed and could not be installed (run: apt-get install gdb)"
elif [ -z "$libc_ver" ]; then
  why="dpkg knows no installed libc6, so there is no libc6-dbg to read $SYSTEM_LDSO's layouts from"
elif [ "$(pkg_version libc6-dbg)" != "$libc_ver" ]; then
  why="libc6-dbg ${libc_ver} is needed (installed: '$(pkg_version libc6-dbg)') and could not be installed (run: apt-get update && apt-get install libc6-dbg=$libc_ver)"
elif [ -z "$sys_id" ]; then
  why="$SYSTEM_LDSO has no build ID, so gdb cannot find its debug info"
elif [ ! -f "$dbg" ]; then
  why="libc6-dbg $libc_ver has no debug info for $SYSTEM_LDSO (no $dbg)"
elif [ ! -f "$unstripped" ]; then
  why="no unstripped loader at $unstripped (set HUGELD_OBJDIR to the glibc build directory)"
fi

# ptype LDSO OUT: gdb's ptype/o of the structs; stdout to OUT, stderr to
# OUT.err.  The loader's path is replaced (gdb does not normally print it).
ptype () {
  local args=() s
  for s in $STRUCTS; do args+=(-ex "ptype/o struct $s"); done
  gdb -nx -batch -iex 'set debuginfod enabled off' "${args[@]}" "$1" \
    2> "$2.err" | fixed_replace "$1" "<LDSO>" > "$2"
}

# layout_sanity OUT LDSO: the output really holds the offsets of all three
# structs, and gdb's struct sizes are the loader's exported object sizes
# (so the debug info describes this very binary).  Prints the sizes.
layout_sanity () {
  local out=$1 ldso=$2 s n sz obj
  for s in $STRUCTS; do
    n=$(awk -v s="$s" '/type = struct / { cur = $(NF-1) } cur == s && /^\/\* +[0-9]+ +\| +[0-9]+ \*\// { n++ } END { print n + 0 }' "$out")
    if [ "$n" -lt 10 ]; then
      echo "gdb printed no member offsets for struct $s in $ldso: $(head -c 300 "$out.err" | tr '\n' ' ')"
      return 1
    fi
  done
  for s in rtld_global rtld_global_ro; do
    sz=$(awk -v s="$s" '/type = struct / { cur = $(NF-1) } cur == s && /total size \(bytes\)/ { t = $(NF-1) } END { print t }' "$out")
    obj=$(objdump -T "$ldso" | awk -v n="_$s" '
      $NF == n { for (i = 2; i < NF; i++) if ($i ~ /^[0-9a-f]+$/ && length($i) >= 8) z = $i }
      END { print z }')
    [ -n "$obj" ] && obj=$((16#$obj))
    if [ -z "$sz" ] || [ "$sz" != "$obj" ]; then
      echo "gdb's struct $s is ${sz:-?} bytes but $ldso exports _$s with ${obj:-no} bytes: the debug info does not describe this loader"
      return 1
    fi
  done
  for s in $STRUCTS; do
    printf ' %s=%s' "$s" "$(awk -v s="$s" '/type = struct / { cur = $(NF-1) } cur == s && /total size \(bytes\)/ { t = $(NF-1) } END { print t }' "$out")"
  done
}

if [ -n "$why" ]; then
  fail "$name" "$why"
else
  ptype "$SYSTEM_LDSO" "$TEST_TMP/ptype.sys"
  ptype "$unstripped" "$TEST_TMP/ptype.hug"
  if ! sys_sizes=$(layout_sanity "$TEST_TMP/ptype.sys" "$SYSTEM_LDSO"); then
    fail "$name" "system loader: $sys_sizes"
  elif ! hug_sizes=$(layout_sanity "$TEST_TMP/ptype.hug" "$unstripped"); then
    fail "$name" "hugeld: $hug_sizes"
  else
    echo "  struct sizes in bytes: system$sys_sizes; hugeld$hug_sizes ($(grep -c '^/\*' "$TEST_TMP/ptype.sys") lines of offsets)"
    same_output "$name" "$TEST_TMP/ptype.sys" "$TEST_TMP/ptype.hug" \
      "$SYSTEM_LDSO (libc6-dbg $libc_ver)" "$unstripped"
  fi
fi

# The layouts above are those of the unstripped build; make sure that is
# the loader under test.  (Stripping keeps the build ID.)
hug_id=$(build_id "$HUGELD_LDSO")
obj_id=$( [ -f "$unstripped" ] && build_id "$unstripped")
if [ -z "$hug_id" ] || [ -z "$obj_id" ]; then
  skip "struct layouts: the unstripped build is the loader under test" \
    "no build ID to compare (${HUGELD_LDSO}: ${hug_id:-none}, ${unstripped}: ${obj_id:-none})"
elif [ "$hug_id" = "$obj_id" ]; then
  pass "struct layouts: the unstripped build is the loader under test"
else
  fail "struct layouts: the unstripped build is the loader under test" \
    "$HUGELD_LDSO (build ID $hug_id) is not the loader built in $HUGELD_OBJDIR (build ID $obj_id): rebuild and reinstall"
fi

# ---------------------------------------------------------------- version

hug_v=$("$HUGELD_LDSO" --version 2>&1 | head -1)
sys_v=$("$SYSTEM_LDSO" --version 2>&1 | head -1)
release () { sed -n 's/.* release version \([0-9][0-9.]*[0-9]\)\.\{0,1\}$/\1/p' <<< "$1"; }
# The installed libc6's glibc release: 2.41-12+deb13u4 -> 2.41.
libc_release=${libc_ver#*:}; libc_release=${libc_release%%-*}
if [[ $hug_v != *hugeld* ]]; then
  fail "--version" "the first line does not name hugeld: $hug_v"
elif [[ $sys_v == *hugeld* ]]; then
  fail "--version" "$SYSTEM_LDSO names hugeld too: is it the system's loader? ($sys_v)"
elif [ -z "$(release "$sys_v")" ] || [ "$(release "$hug_v")" != "$(release "$sys_v")" ]; then
  fail "--version" "glibc release differs: hugeld '$hug_v', system '$sys_v'"
elif [ "$(release "$hug_v")" != "$libc_release" ]; then
  fail "--version" "glibc release $(release "$hug_v"), not the installed libc6's $libc_release ($libc_ver): $hug_v"
else
  echo "  hugeld: $hug_v"
  echo "  system: $sys_v"
  pass "--version"
fi
# The Debian package version in the version string: the loader was built
# from the source of the installed libc6.
deb () { sed -n 's/.*(Debian GLIBC \([^ )]*\).*/\1/p' <<< "$1"; }
if [ -n "$(deb "$sys_v")" ] && [ "$(deb "$hug_v")" = "$(deb "$sys_v")" ]; then
  pass "--version: same Debian version"
else
  fail "--version: same Debian version" "hugeld '$hug_v', system '$sys_v'"
fi

finish
