#!/bin/bash
# The manual section of the series for upstream
# (glibc-patches/upstream/manual.texi): put into glibc's
# manual/tunables.texi by `make series' (the `manual' kind of
# glibc-patches/upstream/series), checked offline by tests/t-series.sh,
# and against a real upstream manual by hand (docs/releases.md).
#
#   scripts/series-manual.sh insert TUNABLES_TEXI SECTION
#       Put SECTION (a file that starts with "@c menu: DESCRIPTION",
#       then "@node NAME") into TUNABLES_TEXI, in place: "* NAME::
#       DESCRIPTION" into the chapter's @menu (the first after @chapter)
#       and the section as a node
#       of the chapter, right after the "ELF Tunables" section where the
#       chapter has one (glibc 2.44 and later), else after the last
#       section.  The "@c menu:" line is not copied.  Refuses (exit 1,
#       one line) a file with no @menu, or one that has NAME already.
#   scripts/series-manual.sh check SECTION
#       What CI checks without glibc's manual (Debian's glibc-source has
#       none): SECTION is valid Texinfo (makeinfo of a minimal document
#       with its menu entry prints nothing), `insert' puts it where it
#       should in chapters shaped as upstream's (with and without "ELF
#       Tunables") and makeinfo accepts the result; SECTION documents
#       every tunable the series registers (patch u2's
#       dl-tunables.list hunk) and every backing in HP_BACKING_TABLE,
#       each segment kind of dl-hugepage-kinds.c, and the defaults the
#       code has; and the NEWS entry (news.txt) names the same tunables
#       and variables and points to the section.  Prints "ok: ..."
#       lines, or one "FAIL: ..." line and exits 1.
#   scripts/series-manual.sh upstream GLIBC_GIT REF [OUT]
#       The section in a real glibc manual: manual/ of REF (a tag or
#       branch of a glibc git repository) into OUT (default a temporary
#       directory, removed), `insert' into its tunables.texi, the files
#       manual/Makefile generates made as it makes them (without
#       configure), and `makeinfo libc.texinfo' run as manual/Makefile
#       runs it.  Prints makeinfo's output and the new node's place in
#       the info file; exits 1 if makeinfo fails or warns.  Needs
#       makeinfo and perl.
#   scripts/series-manual.sh build MANUAL_DIR LABEL
#       The last part of `upstream' alone: MANUAL_DIR (a glibc manual/
#       whose tunables.texi has the section, such as the one a
#       `make series' commit made) built as above; LABEL names it.
set -euo pipefail
HUGELD_TOP=$(cd "$(dirname "$0")/.." && pwd)
die () { echo "FAIL: $*"; exit 1; }

# insert TEXI SECTION
insert () {
  local texi=$1 section=$2 name desc
  desc=$(sed -n '1s/^@c menu: *//p' "$section")
  name=$(sed -n 's/^@node //p' "$section" | head -1)
  [ -n "$desc" ] || { echo "$section does not start with \"@c menu: DESCRIPTION\""; return 1; }
  [ -n "$name" ] || { echo "$section has no @node"; return 1; }
  if grep -qx "@node $name" "$texi"; then
    echo "$texi has a node \"$name\" already"; return 1
  fi
  # One pass to find the places, one to write: the menu entry after the
  # last line (continuation lines included) of the "ELF Tunables" entry,
  # or of the last entry; the node before the @node that follows "ELF
  # Tunables", or at the end.
  awk -v name="$name" -v desc="$desc" -v section="$section" '
    FNR == 1 { pass++ }
    pass == 1 {
      if (/^@chapter /) chapter = FNR
      if (/^@menu/ && chapter && !menu) { inmenu = 1; menu = FNR; next }
      if (inmenu && /^@end menu/) { inmenu = 0; menu_end = FNR; next }
      if (inmenu) {
        if (/^\* /) { entry = ($0 ~ /^\* ELF Tunables::/); last = FNR; if (entry) elf_entry = FNR }
        else if (/^[ \t]+[^ \t]/ && last == FNR - 1) { last = FNR; if (entry) elf_entry = FNR }
        next
      }
      if ($0 == "@node ELF Tunables") elf_node = FNR
      else if (/^@node / && elf_node && !after_elf) after_elf = FNR
      next
    }
    pass == 2 && FNR == 1 {
      if (!menu || !menu_end || !last) { print "no @menu with entries after @chapter" > "/dev/stderr"; exit 3 }
      if (elf_node && !elf_entry) { print "a node \"ELF Tunables\" but no menu entry for it" > "/dev/stderr"; exit 3 }
      entry_after = elf_node ? elf_entry : last
      node_before = elf_node ? after_elf : 0
    }
    pass == 2 {
      if (FNR == node_before) { put_section(); print "" }
      print
      if (FNR == entry_after) print "* " name "::  " desc
    }
    function put_section(  line, n) {
      n = 0
      while ((getline line < section) > 0)
        if (++n > 1 || line !~ /^@c menu:/) print line
      close(section)
    }
    END {
      if (pass == 2 && !node_before) {
        if (prev_blank == 0) print ""
        put_section()
      }
    }
    pass == 2 { prev_blank = ($0 ~ /^[ \t]*$/) }
  ' "$texi" "$texi" > "$texi.new" || { rm -f "$texi.new"; echo "$texi: not the shape of glibc's manual/tunables.texi"; return 1; }
  mv "$texi.new" "$texi"
}

# makeinfo FILE: run as manual/Makefile does; prints what it says.
run_makeinfo () {
  LANGUAGE=C LC_ALL=C makeinfo --no-split "$@" 2>&1
}

check () {
  local section=$1 tmp out t b k
  command -v makeinfo > /dev/null || die "no makeinfo (apt-get install texinfo)"
  tmp=$(mktemp -d)
  [ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' RETURN; [ -z "${KEEP_TMP:-}" ] || echo "tmp: $tmp"
  name=$(sed -n 's/^@node //p' "$section" | head -1)

  # 1. The section alone, in a minimal document with its menu entry.
  {
    printf '%s\n' '\input texinfo' '@setfilename check.info' '@settitle check' \
      '@node Top' '@top check' '@menu' '* Tunables::  The chapter' '@end menu' '' \
      '@node Tunables' '@chapter Tunables' '@menu' "* $name::  The section" '@end menu' ''
    cat "$section"
    printf '%s\n' '' '@bye'
  } > "$tmp/alone.texi"
  out=$(cd "$tmp" && run_makeinfo -o alone.info alone.texi) \
    || die "makeinfo fails on the section: $(echo "$out" | head -3 | tr '\n' ' ')"
  [ -z "$out" ] || die "makeinfo warns on the section: $(echo "$out" | head -3 | tr '\n' ' ')"
  grep -q "^File: alone.info,  Node: $name," "$tmp/alone.info" \
    || die "makeinfo made no node \"$name\""
  echo "ok: makeinfo accepts the section alone (no warning): node \"$name\""

  # 2. insert, in a chapter shaped as glibc's tunables.texi (the menu's
  # last entry with a continuation line and a blank line before @end
  # menu), without and with "ELF Tunables" (2.44).
  for shape in last elf; do
    {
      printf '%s\n' '\input texinfo' '@setfilename chapter.info' '@settitle check' \
        '@node Top' '@top check' '@menu' '* Tunables::  The chapter' '@end menu' ''
      printf '%s\n' '@node Tunables' '@chapter Tunables' '' 'Text.' '' '@menu' \
        '* First Tunables::  The first section'
      # ELF Tunables not last, to see that the node follows it.
      [ $shape = last ] || printf '%s\n' '* ELF Tunables::  Tunables of ELF loading'
      printf '%s\n' '* Second Tunables::  The second section, whose description' \
        '                     takes two lines' '' '@end menu' '' \
        '@node First Tunables' '@section First Tunables' '' 'One.' ''
      [ $shape = last ] || printf '%s\n' '@node ELF Tunables' '@section ELF Tunables' '' 'Two.' ''
      printf '%s\n' '@node Second Tunables' '@section Second Tunables' '' 'Three.'
    } > "$tmp/$shape.texi"
    out=$(insert "$tmp/$shape.texi" "$section") || die "insert ($shape): $out"
    echo '@bye' >> "$tmp/$shape.texi"
    out=$(cd "$tmp" && run_makeinfo -o "$shape.info" "$shape.texi") \
      || die "makeinfo fails on a chapter with the section inserted ($shape): $(echo "$out" | head -3 | tr '\n' ' ')"
    [ -z "$out" ] || die "makeinfo warns on a chapter with the section inserted ($shape): $(echo "$out" | head -3 | tr '\n' ' ')"
    # The node order and the menu order the info file has.
    nodes=$(sed -n 's/^File: [^,]*,  Node: \([^,]*\),.*/\1/p' "$tmp/$shape.info" | tr '\n' '|')
    menu=$(awk '/^\* Menu:/ { n++; next } n == 2 && /^$/ && got { exit } n == 2 && /^\* / { got = 1; sub(/::.*/, ""); sub(/^\* /, ""); printf "%s|", $0 }' "$tmp/$shape.info")
    if [ $shape = last ]; then
      want="Top|Tunables|First Tunables|Second Tunables|$name|"
      wantmenu="First Tunables|Second Tunables|$name|"
    else
      want="Top|Tunables|First Tunables|ELF Tunables|$name|Second Tunables|"
      wantmenu="First Tunables|ELF Tunables|$name|Second Tunables|"
    fi
    [ "$nodes" = "$want" ] || die "insert ($shape): the nodes are $nodes, not $want"
    [ "$menu" = "$wantmenu" ] || die "insert ($shape): the menu is $menu, not $wantmenu"
    ! out=$(insert "$tmp/$shape.texi" "$section" 2>&1) \
      || die "insert ($shape): a second insert was not refused"
  done
  echo "ok: insert puts the node and its menu entry after the last section, or after ELF Tunables, and makeinfo accepts both (no warning)"

  # 3. What the section names is what the code has.
  local names=
  for p in "$HUGELD_TOP"/glibc-patches/upstream/u2-*.patch; do
    t=$(awk '
      /^\+\+\+ .*dl-tunables\.list/ { inlist = 1; next }
      /^\+\+\+ / { inlist = 0 }
      inlist && /^\+  [a-z_.]+ \{$/ { ns = $2; next }
      inlist && ns != "" && /^\+    [a-z_]+ \{$/ { print "glibc." ns "." $2 }
      inlist && /^\+  \}$/ { ns = "" }' "$p")
    [ -n "$t" ] || die "$(basename "$p") registers no tunable in a dl-tunables.list hunk"
    names="$names $t"
  done
  names=$(echo $names | tr ' ' '\n' | sort -u)
  [ "$(echo "$names" | wc -l)" -ge 3 ] || die "patch u2 registers only: $names"
  for t in $names; do
    grep -qx "@deftp Tunable $t" "$section" || die "the section has no @deftp Tunable $t (registered by patch u2)"
  done
  grep -qx "@deftp {Tunable namespace} ${t%.*}" "$section" \
    || die "the section has no @deftp {Tunable namespace} ${t%.*}"
  # Every @deftp Tunable is one the series registers.
  for t in $(sed -n 's/^@deftp Tunable //p' "$section"); do
    echo "$names" | grep -qx "$t" || die "the section documents $t, which the series does not register"
  done
  echo "ok: the section documents exactly the tunables patch u2 registers: $(echo $names)"

  local backings order
  backings=$(sed -n 's/^  X ([A-Z_]*, \([a-z_]*\), .*/\1/p' "$HUGELD_TOP/elf/dl-hugepage-cache.h")
  [ -n "$backings" ] || die "no backing in HP_BACKING_TABLE (elf/dl-hugepage-cache.h)"
  for b in $backings; do
    grep -qx "@item $b" "$section" || die "the section has no @item $b (a backing in HP_BACKING_TABLE)"
  done
  for b in $(awk '/^@table/ { t = 1; next } /^@end table/ { t = 0 } t && /^@item / { print $2 }' "$section"); do
    echo "$backings" | grep -qx "$b" || die "the section's table has $b, which is not in HP_BACKING_TABLE"
  done
  # The default order is the table's (HP_BACKINGS_DEFAULT).
  order=$(echo $backings | tr ' ' ',')
  grep -q "^The default value of this tunable is @samp{$order}\.$" "$section" \
    || die "the section does not give the default backing order $order (HP_BACKING_TABLE's)"
  echo "ok: the section documents exactly the backings of HP_BACKING_TABLE, default $order"

  local kinds default=
  # The words _dl_hugepage_parse_kinds reads.
  kinds=$(awk '/^_dl_hugepage_parse_kinds / { f = 1 } f && /names\[\]\[HP_WORD_MAX\]/ { n = 1 }
               n { print } n && /;/ { exit }' "$HUGELD_TOP/elf/dl-hugepage-kinds.c" \
            | grep -o '"[a-z]*"' | tr -d '"' || true)
  [ -n "$kinds" ] || die "no segment kind in elf/dl-hugepage-kinds.c"
  for k in $kinds; do
    grep -q "@samp{$k}" "$section" || die "the section does not name the segment kind $k (dl-hugepage-kinds.c)"
  done
  for k in $(sed -n 's/^#define HP_KIND_DEFAULT[[:space:]]*(\(.*\))/\1/p' "$HUGELD_TOP/elf/dl-hugepage-plan.h" \
               | grep -o 'HP_KIND_[A-Z]*'); do
    default="${default:+$default,}$(echo "${k#HP_KIND_}" | tr 'A-Z' 'a-z')"
  done
  [ -n "$default" ] || die "no HP_KIND_DEFAULT in elf/dl-hugepage-plan.h"
  grep -q "^The default value of this tunable is @samp{$default}\.$" "$section" \
    || die "the section does not give the default segments $default (HP_KIND_DEFAULT)"
  echo "ok: the section names every segment kind ($(echo $kinds)), default $default"

  # The NEWS entry (news.txt) says what the section says: the tunables
  # by name, the variables, and where the section is.
  local news=$HUGELD_TOP/glibc-patches/upstream/news.txt flat v
  flat=$(tr -s ' \n' '  ' < "$news")
  for t in $names; do
    case $t in *.libs) v=LD_HUGEPAGE_LIBS ;; *.segments) v=LD_HUGEPAGE_SEGMENTS ;; *.backing) v=LD_HUGEPAGE_BACKING ;; *) v= ;; esac
    echo "$flat" | grep -Eq "${t//./\\.}([^a-z_]|\$)" || die "news.txt does not name the tunable $t"
    [ -z "$v" ] || grep -q "@env{$v}" "$section" || die "the section does not name $v"
    case $flat in *"$v"*) ;; *) die "news.txt does not name $v" ;; esac
  done
  case $flat in *"\"$name\""*) ;; *) die "news.txt does not point to the manual's \"$name\"" ;; esac
  echo "ok: news.txt names the tunables and their variables, as the section does, and points to \"$name\""
}

upstream () {
  local git=$1 ref=$2 out=${3:-} keep=1 m
  if [ -z "$out" ]; then out=$(mktemp -d); keep=0; fi
  [ $keep = 1 ] || trap 'rm -rf "$out"' EXIT
  mkdir -p "$out"
  git --git-dir="$git" archive --format=tar --prefix=manual/ "$ref:manual" | tar -C "$out" -xf -
  m=$out/manual
  [ -f "$m/tunables.texi" ] || die "$ref has no manual/tunables.texi"
  echo "glibc $ref ($(git --git-dir="$git" rev-parse --short "$ref^{commit}")): manual/tunables.texi, $(wc -l < "$m/tunables.texi") lines, sections: $(grep -c '^@node' "$m/tunables.texi") nodes"
  insert "$m/tunables.texi" "$HUGELD_TOP/glibc-patches/upstream/manual.texi" || die "insert failed"
  echo "inserted:"
  build_manual "$m" "$ref"
}

# build_manual DIR LABEL: the manual in DIR (a glibc manual/ whose
# tunables.texi has the section) built as manual/Makefile builds it.
build_manual () {
  local m=$1 ref=$2 name
  command -v makeinfo > /dev/null || die "no makeinfo (apt-get install texinfo)"
  command -v perl > /dev/null || die "no perl"
  name=$(sed -n 's/^@node //p' "$HUGELD_TOP/glibc-patches/upstream/manual.texi" | head -1)
  echo "tunables.texi: menu entry at line $(grep -n "^\* $name::" "$m/tunables.texi" | cut -d: -f1), node at line $(grep -nx "@node $name" "$m/tunables.texi" | cut -d: -f1), after the node $(grep '^@node ' "$m/tunables.texi" | grep -B1 -x "@node $name" | head -1 | sed 's/^@node //')"
  # manual/Makefile's generated files, made as its rules make them.
  (
    cd "$m"
    chapters="intro errno memory ctype string charset locale message search pattern io stdio llio filesys pipe socket terminal syslog math arith stdbit time resource setjmp signal startup process ipc job nss users sysinfo conf crypt debug threads dynlink probes tunables"
    # The chapter list of REF's Makefile, if it differs.
    chapters=$(awk '/^chapters = /{ on = 1 } on { print } on && !/\\$/ { exit }' Makefile \
      | sed -e 's/^chapters = $(addsuffix .texi, *//' -e 's/)//' -e 's/\\//g' | tr -s ' \t\n' ' ')
    appendices="lang.texi header.texi install.texi maint.texi platform.texi contrib.texi"
    licenses="freemanuals.texi lgpl-2.1.texi fdl-1.3.texi"
    ch=$(for c in $chapters; do printf '%s.texi ' "$c"; done)
    gawk -f texis.awk $ch $appendices $licenses > texis 2> /dev/null || awk -f texis.awk $ch $appendices $licenses > texis
    # texis: "texis = \", then one file a line, each with " \".
    list=$(sed -e '1d' -e 's/[ \\]*$//' texis | grep '\.texi$' | sort -u)
    for e in $(echo "$list" | grep '\.c\.texi$'); do
      [ -f "examples/${e%.texi}" ] || continue
      sed -e '1,/^\*\/$/d' -e 's,[{}],@&,g' -e 's,/\*\(@.*\)\*/,\1,g' \
          -e 's,/\*  *,/* @r{,g' -e 's,  *\*/,} */,' \
          -e 's/\(@[a-z][a-z]*\)@{\([^}]*\)@}/\1{\2}/g' "examples/${e%.texi}" | expand > "$e"
    done
    # version.texi and pkgvers.texi as config.make would give them.
    echo "@set VERSION $ref" > version.texi
    { echo "@ifclear PKGVERS"; echo "@set PKGVERS"; echo "@set PKGVERSION (GNU libc) "
      echo "@set PKGVERSION_DEFAULT"; echo "@set REPORT_BUGS_TO <https://www.gnu.org/software/libc/bugs.html>"
      echo "@set man_pages_version 6.9"; echo "@end ifclear"; } > pkgvers.texi
    AWK=awk sh libc-texinfo.sh "" "$ch" "$appendices $licenses"
    # summary.pl and xtract-typefun.awk read every texi but summary.texi,
    # in texis' order (manual/Makefile's $(texis-path)).
    all=$(sed -e '1d' -e 's/[ \\]*$//' texis | grep '\.texi$' | grep -v '^summary.texi$' | tr '\n' ' ')
    LC_ALL=C perl summary.pl $all > summary.texi
    { echo "@dircategory GNU C library functions and macros"; echo "@direntry"
      awk -f xtract-typefun.awk $all | sort; echo "@end direntry"; } > dir-add.texi
    echo "check-safety.sh and check-deftype.sh on tunables.texi (manual/Makefile runs them before summary.pl):"
    sh check-safety.sh tunables.texi && echo "  check-safety.sh: ok"
    sh check-deftype.sh tunables.texi && echo "  check-deftype.sh: ok"
  ) || die "making the manual's generated files failed"
  echo "LANGUAGE=C LC_ALL=C makeinfo --output=libc.info libc.texinfo:"
  local log rc=0
  log=$(cd "$m" && LANGUAGE=C LC_ALL=C makeinfo --output=libc.info libc.texinfo 2>&1) || rc=$?
  echo "${log:-  (no output)}" | sed 's/^/  /'
  echo "  exit status $rc; $(ls "$m"/libc.info* | wc -l) info files"
  [ $rc = 0 ] && [ -z "$log" ] || die "makeinfo of the whole manual failed or warned"
  # The node in the info file: its neighbours and the chapter menu.
  echo "the node, and its menu entries (the chapter's menu, the Top node's detailed menu):"
  grep -h "^File: libc.info[-0-9]*,  Node: $name," "$m"/libc.info* | sed 's/^/  /'
  grep -h -B1 "^\* $name::" "$m"/libc.info* | sed 's/^/  /'
  echo "ok: the whole manual of $ref builds with the section inserted"
}

case "${1:-}" in
  insert) [ $# = 3 ] || die "usage: $0 insert TUNABLES_TEXI SECTION"; insert "$2" "$3" ;;
  check) check "${2:-$HUGELD_TOP/glibc-patches/upstream/manual.texi}" ;;
  upstream) [ $# -ge 3 ] || die "usage: $0 upstream GLIBC_GIT REF [OUT]"; upstream "$2" "$3" "${4:-}" ;;
  build) [ $# = 3 ] || die "usage: $0 build MANUAL_DIR LABEL"; build_manual "$2" "$3" ;;
  *) die "usage: $0 insert TUNABLES_TEXI SECTION | check [SECTION] | upstream GLIBC_GIT REF [OUT] | build MANUAL_DIR LABEL" ;;
esac
