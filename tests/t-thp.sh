#!/bin/bash
# The thp backing against what the page cache holds already.  With no
# pool at all, a selected library's text must come up on the page
# cache's 2 MiB folios (FilePmdMapped) whoever filled the page cache:
#  1. warm by the stock loader (small folios): repaired, >= 95% huge;
#  2. a second process: all of it huge again, nothing dropped;
#  3. held by another process that maps every page in small folios:
#     nothing is evicted, and the hugeld process maps no more small
#     pages than a stock process does;
#  4. cold, and a library whose text starts at file offset 0 (like
#     libLLVM): the first 2 MiB, which shares its folio with the ELF
#     header ld.so reads, is huge too;
#  5. hugeld status reports each object's coverage;
#  6. the last partial 2 MiB of the text is huge where the file allows
#     it, and not where another segment's bytes would show;
#  7. cold, with a readahead window that is not a multiple of 2 MiB,
#     all of it is huge in the first process.
# Where the kernel or the file system gives no page-cache huge pages
# even without ld.so, the checks of coverage are skipped and the rest
# must still hold.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(empties the huge page pool)"
cache_test_setup || finish
reserve_hugepages 0 || { fail reserve "cannot empty the huge page pool"; finish; }
chmod 755 "$B"
# The probes of the run as nobody write their reports here.
chmod 1777 "$TEST_TMP"

# probe LIB [all]: dlopen the library, call value () if it has one,
# with "all" read every page the library maps, say ready, stay until
# standard input closes.  Without "all" it touches only what it runs.
cat > "$TEST_TMP/probe.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int
main (int argc, char **argv)
{
  void *h = dlopen (argv[1], RTLD_NOW);
  if (h == NULL)
    {
      fprintf (stderr, "%s\n", dlerror ());
      return 1;
    }
  int (*value) (void) = (int (*) (void)) dlsym (h, "value");
  unsigned long sum = 0;
  if (argc > 2 && strcmp (argv[2], "all") == 0)
    {
      const char *name = strrchr (argv[1], '/') + 1;
      FILE *maps = fopen ("/proc/self/maps", "r");
      char line[4096];
      unsigned long a, b;
      char perms[8];
      while (maps != NULL && fgets (line, sizeof line, maps) != NULL)
	if (sscanf (line, "%lx-%lx %7s", &a, &b, perms) == 3
	    && perms[0] == 'r' && strstr (line, name) != NULL)
	  for (unsigned long p = a; p < b; p += 4096)
	    sum += *(volatile unsigned char *) p;
    }
  printf ("value %d\nready %lu\n", value != NULL ? value () : -1, sum & 1);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
EOF
cc -O2 -o "$B/probe" "$TEST_TMP/probe.c" -ldl || { fail "build probe" ""; finish; }

# Two libraries on this file system (ext4 on Debian): libbig.so (text
# from 68 KiB on, 24 MiB) and libvalue linked with its text in the
# first segment, from file offset 0.
W=$TEST_TMP/lib
mkdir -p "$W"; chmod 755 "$W"
cp "$FIXTURES/libbig.so" "$W/libbig.so"
cc -shared -fPIC -O2 -Wl,-z,noseparate-code -o "$W/libzero.so" \
  "$HUGELD_TOP/tests/cache/valuelib.c" || { fail "build libzero" ""; finish; }
readelf -lW "$W/libzero.so" | grep -q 'LOAD *0x000000 .* R E' \
  || { fail "libzero" "its text does not start at file offset 0"; finish; }

# start NAME LOADER LIB [ENV...]: run the probe on LIB under LOADER
# (with LD_DEBUG=hugepages; PROBE_ARG, if set, is its second
# argument), keep it until stop NAME.
start () {
  local n=$TEST_TMP/$1 ldr=$2 lib=$3; shift 3
  rm -f "$n".dbg.*; mkfifo "$n.in"
  "${RUN_AS[@]}" env "$@" LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$n.dbg" "$ldr" "$B/probe" "$lib" ${PROBE_ARG:-} \
    < "$n.in" > "$n.out" 2> "$n.err" &
  echo $! > "$n.pid"
  exec {fd}> "$n.in"; echo $fd > "$n.fd"
  local i
  for i in $(seq 100); do grep -q '^ready' "$n.out" 2>/dev/null && break; sleep 0.1; done
  cat "$n".dbg.* > "$n.dbg" 2>/dev/null || : > "$n.dbg"
}
stop () {
  local n=$TEST_TMP/$1
  eval "exec $(cat "$n.fd")>&-"
  wait "$(cat "$n.pid")"
  rm -f "$n.in"
}
# text NAME LIB: "SIZE RSS PMD" in kB of LIB's executable mappings in
# the process NAME.
text () {
  awk -v lib="$2" '/^[0-9a-f]+-[0-9a-f]+ / { on = ($2 ~ /x/) && index($0, lib) > 0; next }
    on && $1 == "Size:" { s += $2 } on && $1 == "Rss:" { r += $2 }
    on && $1 == "FilePmdMapped:" { p += $2 }
    END { print s + 0, r + 0, p + 0 }' "/proc/$(cat "$TEST_TMP/$1.pid")/smaps"
}
# zone_kb NAME LIB: the size of LIB's text zone in the report.
zone_kb () {
  sed -n "s|.*$2: text \[\(0x[0-9a-f]*\), \(0x[0-9a-f]*\)).*thp:.*|\1 \2|p" "$TEST_TMP/$1.dbg" \
    | head -1 | { read -r a b; [ -n "$a" ] && echo $(( (b - a) / 1024 )) || echo 0; }
}
# resident LIB: the file's pages in the page cache.
resident () { fincore -n -o PAGES "$1" | tr -d " "; }
# fill LIB: drop LIB from the page cache, then read it all with read(2),
# as an ordinary process would (cat, a backup, a stock loader's
# neighbour): small folios, or whatever the kernel's readahead makes.
fill () { drop_page_cache "$1"; cat "$1" > /dev/null; }

THP=(LD_HUGEPAGE_BACKING=thp LD_HUGEPAGE_SEGMENTS=text)
can=$(file_thp_possible "$W/libbig.so")

# Every check runs twice: as root, and as nobody (AS names the run).
# A process that may not write the library (every user but root, for
# what is in /usr/lib) cannot ask the page cache what it holds
# (cachestat refuses it, mincore lies to it): ld.so finds out by
# faulting each range in, and must reach the same coverage.
scenarios () {
  # 1. Warm by an ordinary process.
  fill "$W/libbig.so"
  PROBE_ARG=all start warm "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  read -r size rss pmd < <(text warm libbig.so)
  zone=$(zone_kb warm libbig.so)
  stop warm
  if ! grep -q 'libbig.so: text .*thp: page-cache huge pages asked for' "$TEST_TMP/warm.dbg"; then
    fail "${AS}warm by read(2): report" "$(grep -m2 'libbig.so: text.*thp:' "$TEST_TMP/warm.dbg" | tr '\n' ' ')"
  elif [ "$can" != yes ]; then
    skip "${AS}warm by read(2): coverage" "no page-cache huge pages here even without ld.so"
  elif [ "$zone" -gt 0 ] && [ "$pmd" -ge $((zone * 95 / 100)) ] \
       && grep -q 'libbig.so: text .*mapped huge ([1-9][0-9]* repaired' "$TEST_TMP/warm.dbg"; then
    pass "${AS}warm by read(2): ${pmd} of ${zone} KiB of libbig.so's text zone FilePmdMapped, repaired ($(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/warm.dbg" | sed 's/.*thp: //'))"
  else
    fail "${AS}warm by read(2): coverage" "${pmd} KiB FilePmdMapped of a ${zone} KiB zone: $(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/warm.dbg" | sed 's/.*thp: //')"
  fi

  # 2. The next process: the page cache holds the huge folios now.
  before=$(resident "$W/libbig.so")
  start second "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  read -r size rss pmd < <(text second libbig.so)
  "$H" status "$(cat "$TEST_TMP/second.pid")" > "$TEST_TMP/status.out" 2>&1
  stop second
  # 5. hugeld status: the object's text coverage, as smaps has it.
  if grep -q "libbig.so: text $size kB: $pmd kB on 2 MiB page-cache folios, $((rss - pmd)) kB on 4 KiB pages" "$TEST_TMP/status.out"; then
    pass "${AS}hugeld status: libbig.so's text coverage ($(grep -m1 'libbig.so: text ' "$TEST_TMP/status.out" | sed 's/^ *//' | cut -c1-140)...)"
  else
    fail "${AS}hugeld status: text coverage" "want $size/$pmd/$((rss - pmd)) kB: $(grep -m3 'libbig\|error' "$TEST_TMP/status.out" | tr '\n' ' ')"
  fi
  if [ "$can" = yes ]; then
    [ "$pmd" -ge $((zone * 95 / 100)) ] \
      && grep -q 'libbig.so: text .*mapped huge (0 repaired' "$TEST_TMP/second.dbg" \
      && pass "${AS}second process: ${pmd} KiB FilePmdMapped, nothing repaired again" \
      || fail "${AS}second process" "${pmd} KiB of ${zone}: $(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/second.dbg" | sed 's/.*thp: //')"
  fi

  # 3. Held: a stock process maps every page of the library, in small
  # folios (hold reads every page of its mappings).  Nothing may be
  # evicted, and the hugeld probe maps no more small pages than the stock
  # probe.
  fill "$W/libbig.so"
  PROBE_ARG=all start holder "$SYSTEM_LDSO" "$W/libbig.so"
  grep -q '^ready' "$TEST_TMP/holder.out" || fail "${AS}holder" "$(cat "$TEST_TMP/holder.err")"
  held0=$(resident "$W/libbig.so")
  start stockp "$SYSTEM_LDSO" "$W/libbig.so"
  read -r ssize srss spmd < <(text stockp libbig.so)
  stop stockp
  start heldp "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  read -r hsize hrss hpmd < <(text heldp libbig.so)
  held1=$(resident "$W/libbig.so")
  stop heldp
  stop holder
  # Small pages: what is mapped and not with a huge page.  Some of the
  # file may have come in 2 MiB folios even by read(2) (large folios on
  # ext4 since Linux 6.16): hugeld maps those huge, which is fine.
  hsmall=$((hrss - hpmd)) ssmall=$((srss - spmd))
  if [ "$held1" -ge "$held0" ] && [ "$hsmall" -le $((ssmall + 64)) ] \
     && grep -q 'libbig.so: text .*[1-9][0-9]* held in small folios by another process' "$TEST_TMP/heldp.dbg"; then
    pass "${AS}held by another process: nothing evicted ($held0 -> $held1 pages cached), hugeld maps ${hsmall} KiB of text on 4 KiB pages (stock ${ssmall} KiB) and ${hpmd} KiB huge, says so ($(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/heldp.dbg" | sed 's/.*thp: //'))"
  else
    fail "${AS}held by another process" "cached pages $held0 -> $held1, hugeld ${hsmall} KiB on 4 KiB pages vs stock ${ssmall} KiB: $(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/heldp.dbg" | sed 's/.*thp: //')"
  fi

  # 4. Cold, text from file offset 0: the first 2 MiB too.
  drop_page_cache "$W/libzero.so"
  PROBE_ARG=all start zero "$HUGELD_LDSO" "$W/libzero.so" LD_HUGEPAGE_LIBS=libzero.so "${THP[@]}"
  read -r size rss pmd < <(text zero libzero.so)
  zone=$(zone_kb zero libzero.so)
  stop zero
  if [ "$(value_of "$TEST_TMP/zero.out")" != 1 ]; then
    fail "${AS}text from offset 0" "value $(value_of "$TEST_TMP/zero.out")"
  elif ! grep -q 'libzero.so: text \[0x0, ' "$TEST_TMP/zero.dbg"; then
    fail "${AS}text from offset 0: zone" "$(grep -m1 'libzero.so: text.*thp:' "$TEST_TMP/zero.dbg")"
  elif [ "$can" != yes ]; then
    skip "${AS}text from offset 0: coverage" "no page-cache huge pages here even without ld.so"
  elif [ "$zone" -gt 0 ] && [ "$pmd" -ge "$zone" ]; then
    pass "${AS}cold, text from file offset 0: all ${zone} KiB of the zone FilePmdMapped, the ELF header's 2 MiB too ($(grep -m1 'libzero.so: text.*thp:' "$TEST_TMP/zero.dbg" | sed 's/.*thp: //'))"
  else
    fail "${AS}text from offset 0: coverage" "${pmd} of ${zone} KiB: $(grep -m1 'libzero.so: text.*thp:' "$TEST_TMP/zero.dbg" | sed 's/.*thp: //')"
  fi

  # 6. The last partial 2 MiB.  libbig-2m.so (2 MiB max-page-size) has
  # its text end 1.4 MiB into a 2 MiB range whose rest is file padding up
  # to the next segment: the zone takes the whole range, and ld.so maps
  # the file over the gap so that it is one huge page too.  Its rodata
  # ends in a range whose file bytes after it are the RW segment's: that
  # range stays on ordinary pages and the gap stays inaccessible (no
  # other segment's bytes are shown).
  cp "$FIXTURES/libbig-2m.so" "$W/libbig-2m.so"
  fill "$W/libbig-2m.so"
  PROBE_ARG=all start tail "$HUGELD_LDSO" "$W/libbig-2m.so" LD_HUGEPAGE_LIBS=libbig-2m.so \
    LD_HUGEPAGE_BACKING=thp LD_HUGEPAGE_SEGMENTS=text,rodata
  read -r size rss pmd < <(text tail libbig-2m.so)
  zone=$(zone_kb tail libbig-2m.so)
  gap=$(awk '/^[0-9a-f]+-[0-9a-f]+ / && index($0, "libbig-2m.so") { if (prev == "r--p" && $2 == "---p") n++; prev = $2 }
    END { print n + 0 }' "/proc/$(cat "$TEST_TMP/tail.pid")/maps")
  stop tail
  memsz=$(readelf -lW "$W/libbig-2m.so" | awk '$1 == "LOAD" && $8 == "E" { print $6 }')
  seg=$(( (memsz + 4095) / 4096 * 4 ))
  if ! grep -q 'libbig-2m.so: rodata .*thp: .*, 1 where the file holds another segment.s bytes)' "$TEST_TMP/tail.dbg"; then
    fail "${AS}tail: rodata" "the range holding RW bytes is not named: $(grep -m1 'libbig-2m.so: rodata.*thp:' "$TEST_TMP/tail.dbg" | sed 's/.*thp: //')"
  elif [ "$gap" -lt 1 ]; then
    fail "${AS}tail: rodata" "the gap after rodata is no longer inaccessible"
  elif [ "$zone" -le "$seg" ] || [ "$size" != "$zone" ]; then
    fail "${AS}tail: text" "zone ${zone} KiB for ${seg} KiB of text pages, executable mapping ${size} KiB: $(grep -m1 'libbig-2m.so: text.*thp:' "$TEST_TMP/tail.dbg" | sed 's/.*thp: //')"
  elif [ "$can" != yes ]; then
    skip "${AS}tail: coverage" "no page-cache huge pages here even without ld.so"
  elif [ "$pmd" = "$zone" ]; then
    pass "${AS}the last partial 2 MiB: all ${zone} KiB of the text zone FilePmdMapped (${seg} KiB of text pages), rodata's last range left where the file holds RW bytes ($(grep -m1 'libbig-2m.so: text.*thp:' "$TEST_TMP/tail.dbg" | sed 's/.*thp: //'))"
  else
    fail "${AS}tail: coverage" "${pmd} of ${zone} KiB: $(grep -m1 'libbig-2m.so: text.*thp:' "$TEST_TMP/tail.dbg" | sed 's/.*thp: //')"
  fi

  # 7. Cold, on a device whose read_ahead_kb is not a multiple of 2 MiB
  # (2560): the kernel's asynchronous readahead after each 2 MiB fault
  # would bring the next ranges in small folios; ld.so reads each range
  # itself, so all of the zone is huge in the first process already.
  dev=$(findmnt -n -o SOURCE --target "$W" 2> /dev/null | sed 's|^/dev/||')
  ra=/sys/class/block/$dev/queue/read_ahead_kb
  [ -n "$dev" ] && [ -e "$ra" ] || ra=/sys/class/block/$dev/../queue/read_ahead_kb
  if [ -z "$dev" ] || ! [ -w "$ra" ]; then
    skip "${AS}cold, read_ahead_kb 2560" "no block device's read_ahead_kb for $W (${dev:-no source})"
  elif [ "$can" != yes ]; then
    skip "${AS}cold, read_ahead_kb 2560" "no page-cache huge pages here even without ld.so"
  else
    ra0=$(cat "$ra")
    at_exit "echo $ra0 > $ra"
    echo 2560 > "$ra"
    drop_page_cache "$W/libbig.so"
    PROBE_ARG=all start coldra "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
    read -r size rss pmd < <(text coldra libbig.so)
    zone=$(zone_kb coldra libbig.so)
    stop coldra
    echo "$ra0" > "$ra"
    if [ "$zone" -gt 0 ] && [ "$pmd" -ge "$zone" ]; then
      pass "${AS}cold, read_ahead_kb 2560: all ${zone} KiB of libbig.so's text zone FilePmdMapped in the first process ($(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/coldra.dbg" | sed 's/.*thp: //'))"
    else
      fail "${AS}cold, read_ahead_kb 2560" "${pmd} of ${zone} KiB: $(grep -m1 'libbig.so: text.*thp:' "$TEST_TMP/coldra.dbg" | sed 's/.*thp: //')"
    fi
  fi
}

AS="" RUN_AS=()
scenarios
AS="as nobody: " RUN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
scenarios
finish
