#!/bin/bash
# scripts/series-tunables.sh TREE RELEASE: check, without building
# glibc, what the series for upstream does to glibc's tunable list in
# TREE (a glibc RELEASE tree with the whole series applied; the
# repository of `make series', whose tag `pristine' is the release).
#
# - The generator (scripts/gen-tunables.awk, patched to allow a dot in
#   a namespace) makes from the release's own x86_64 lists exactly the
#   dl-tunable-list.h the release's generator makes: nothing else
#   changes for a release's existing tunables.
# - From the patched lists it generates an enum that compiles, and
#   tunable names that are, as C strings, glibc.elf.hugepage.libs,
#   .segments and .backing (what `ld.so --list-tunables' prints; that
#   is run on a built tree by `make check-series-build').
#
# Prints nothing and exits 0 when all holds, else one line saying what
# does not and exits 1.  Needs gawk and a C compiler.
set -euo pipefail
tree=$(cd "${1:?usage: scripts/series-tunables.sh TREE RELEASE}" && pwd)
rel=${2:?usage: scripts/series-tunables.sh TREE RELEASE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
no () { echo "glibc $rel: $*"; exit 1; }

# The lists an x86_64 build reads (Makeconfig: elf/, then the subdirs'
# and the sysdirs' dl-tunables.list), in the pristine and the patched
# tree.
lists="elf/dl-tunables.list sysdeps/nptl/dl-tunables.list sysdeps/x86/dl-tunables.list"
[ ! -e "$tree/sysdeps/x86_64/64/dl-tunables.list" ] \
  || lists="$lists sysdeps/x86_64/64/dl-tunables.list"
mkdir -p "$tmp/pristine"
for f in $lists scripts/gen-tunables.awk; do
  mkdir -p "$tmp/pristine/$(dirname "$f")"
  git -C "$tree" show "pristine:$f" > "$tmp/pristine/$f" || no "no $f in the pristine tree"
done
gen () { ( cd "$1" && LC_ALL=C gawk -f "$2" $lists ); }

gen "$tmp/pristine" "$tmp/pristine/scripts/gen-tunables.awk" > "$tmp/old.h" \
  || no "the release's gen-tunables.awk fails on its own lists"
gen "$tmp/pristine" "$tree/scripts/gen-tunables.awk" > "$tmp/new.h" \
  || no "the patched gen-tunables.awk fails on the release's lists"
cmp -s "$tmp/old.h" "$tmp/new.h" \
  || no "the patched gen-tunables.awk changes dl-tunable-list.h for the release's own tunables"

gen "$tree" "$tree/scripts/gen-tunables.awk" > "$tmp/list.h" \
  || no "the patched gen-tunables.awk fails on the patched lists"
{
  echo '#include <stdio.h>'
  echo '#define TUNABLE_NAME_S(top,ns,id) #top "." #ns "." #id'
  echo '#define TUNABLE_ENUM_NAME(a,b,c) TUNABLE_ENUM_NAME1 (a,b,c)'
  echo '#define TUNABLE_ENUM_NAME1(a,b,c) a ## _ ## b ## _ ## c'
  sed -n '/^typedef enum/,/tunable_id_t;/p' "$tmp/list.h"
  echo 'static const char *const names[] = {'
  grep -o 'TUNABLE_NAME_S([^)]*)' "$tmp/list.h" | sed 's/$/,/'
  echo '};'
  echo 'static const tunable_id_t ids[] = {'
  echo '  glibc_elf_hugepage_libs, glibc_elf_hugepage_segments,'
  echo '  glibc_elf_hugepage_backing };'
  echo 'int main (void) {'
  echo '  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)'
  echo '    puts (names[i]);'
  echo '  for (size_t i = 0; i < 3; ++i) printf ("id %s\n", names[ids[i]]);'
  echo '  return 0; }'
} > "$tmp/names.c"
gcc -std=gnu11 -Wall -Werror -o "$tmp/names" "$tmp/names.c" 2> "$tmp/cc.log" \
  || no "the generated tunable enum or names do not compile: $(grep -m1 error "$tmp/cc.log")"
"$tmp/names" > "$tmp/names.out"
for t in libs segments backing; do
  grep -qx "glibc.elf.hugepage.$t" "$tmp/names.out" \
    || no "the generated list has no tunable named glibc.elf.hugepage.$t"
  grep -qx "id glibc.elf.hugepage.$t" "$tmp/names.out" \
    || no "the enum name glibc_elf_hugepage_$t is not the tunable glibc.elf.hugepage.$t"
done
old=$(grep -c 'TUNABLE_NAME_S' "$tmp/old.h")
new=$(grep -c 'TUNABLE_NAME_S' "$tmp/list.h")
[ "$new" = $((old + 3)) ] || no "the patched list has $new tunables, not the release's $old and 3"
exit 0
