#!/bin/bash
# The thp backing against what the page cache holds already, and its
# repair between starts (hugeld thp repair).  With no pool at all:
#  1. warm by an ordinary reader (cat: small folios): ld.so drops and
#     repairs nothing at load (the file's cached pages stay), and maps
#     the text as the stock loader does; hugeld thp status counts the
#     small ranges, hugeld thp repair makes them 2 MiB folios, and the
#     next process has >= 95% of the zone FilePmdMapped;
#  2. that next process: all of it huge, and a second repair finds
#     nothing to do;
#  3. held by another process that maps every page in small folios:
#     nothing is evicted, by the start or by the repair, and the hugeld
#     process maps no more small pages than a stock process does;
#  4. cold, and a library whose text starts at file offset 0 (like
#     libLLVM): all but the first 2 MiB huge in the first process (the
#     ELF header ld.so reads comes in small folios there), all of it
#     after the repair;
#  5. hugeld status reports each object's coverage;
#  6. the last partial 2 MiB of the text is huge where the file allows
#     it (after a repair of what cat left), and not where another
#     segment's bytes would show;
#  7. cold, with a readahead window that is not a multiple of 2 MiB:
#     whatever the first process gets, all of it after the repair;
#  8. a cold start reads no more of the text than the stock loader's
#     (ld.so touches nothing at load: no range is read before the
#     program runs it).
# Where the kernel or the file system gives no page-cache huge pages
# even without ld.so, the checks of coverage are skipped and the rest
# must still hold.  The process under test runs as root and as nobody;
# the repair always as root (as its service does).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(empties the huge page pool)"
cache_test_setup || finish
reserve_hugepages 0 || { fail reserve "cannot empty the huge page pool"; finish; }
chmod 755 "$B"
# The probes of the run as nobody write their reports here.
chmod 1777 "$TEST_TMP"

# probe LIB [all|sparse]: dlopen the library, call value () if it has
# one, with "all" read every page the library maps in order, with
# "sparse" one byte in each 2 MiB of its mappings, last to first (code
# runs where it runs, not in file order), say ready, stay until
# standard input closes.  Without either it touches only what it runs.
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
  int sparse = argc > 2 && strcmp (argv[2], "sparse") == 0;
  if (argc > 2 && (sparse || strcmp (argv[2], "all") == 0))
    {
      const char *name = strrchr (argv[1], '/') + 1;
      FILE *maps = fopen ("/proc/self/maps", "r");
      char line[4096];
      unsigned long a, b;
      char perms[8];
      while (maps != NULL && fgets (line, sizeof line, maps) != NULL)
	if (sscanf (line, "%lx-%lx %7s", &a, &b, perms) == 3
	    && perms[0] == 'r' && strstr (line, name) != NULL)
	  {
	    if (sparse)
	      for (unsigned long p = (b - 1) & -(2UL << 20); p + (1UL << 20) > a;
		   p -= 2UL << 20)
		{
		  unsigned long q = p + (1UL << 20);
		  if (q >= a && q < b)
		    sum += *(volatile unsigned char *) q;
		  if (p < (2UL << 20))
		    break;
		}
	    else
	      for (unsigned long p = a; p < b; p += 4096)
		sum += *(volatile unsigned char *) p;
	  }
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
# repair LIB: hugeld thp repair of LIB, as root; its JSON in repair.json.
repair () { "$H" thp repair --json "$1" > "$TEST_TMP/repair.json" 2> "$TEST_TMP/repair.err"; }
# rj KEY: KEY of the first file of repair.json (after repair).
rj () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][0][sys.argv[2]])' "$TEST_TMP/repair.json" "$1" 2> /dev/null || echo "?"; }
# advised NAME LIB: "yes" if every executable mapping of LIB in process
# NAME has VmFlags hg (MADV_HUGEPAGE).
advised () {
  awk -v lib="$2" '/^[0-9a-f]+-[0-9a-f]+ / { on = ($2 ~ /x/) && index($0, lib) > 0; if (on) n++; next }
    on && $1 == "VmFlags:" { for (i = 2; i <= NF; i++) if ($i == "hg") h++ }
    END { print (n > 0 && h == n) ? "yes" : "no" }' "/proc/$(cat "$TEST_TMP/$1.pid")/smaps"
}
# thp_line NAME LIB: the thp report of LIB's text in process NAME.
thp_line () { grep -m1 "$2: text.*thp:" "$TEST_TMP/$1.dbg" | sed 's/.*thp: //'; }

# Every check runs twice: the process under test as root, and as
# nobody (AS names the run), who may not write the library: ld.so asks
# nothing of the page cache for either, and both must get the same.
scenarios () {
  # 1. Warm by an ordinary reader.
  fill "$W/libbig.so"
  PROBE_ARG=all start stockw "$SYSTEM_LDSO" "$W/libbig.so"
  read -r ssize srss spmd < <(text stockw libbig.so)
  sadv=$(advised stockw libbig.so)
  stop stockw
  fill "$W/libbig.so"
  before=$(resident "$W/libbig.so")
  PROBE_ARG=all start warm "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  read -r size rss pmd < <(text warm libbig.so)
  zone=$(zone_kb warm libbig.so)
  hadv=$(advised warm libbig.so)
  stop warm
  after=$(resident "$W/libbig.so")
  if [ "$hadv" != yes ] || [ "$sadv" != no ]; then
    fail "${AS}warm by read(2): MADV_HUGEPAGE" "the text mappings' VmFlags hg: hugeld $hadv, the stock loader $sadv"
  elif ! grep -q 'libbig.so: text .*thp: page-cache huge pages asked for (MADV_HUGEPAGE) for [1-9]' "$TEST_TMP/warm.dbg"; then
    fail "${AS}warm by read(2): report" "$(grep -m2 'libbig.so: text.*thp:' "$TEST_TMP/warm.dbg" | tr '\n' ' ')"
  elif [ "$after" -lt "$before" ]; then
    fail "${AS}warm by read(2): ld.so dropped nothing" "the file's cached pages went from $before to $after"
  elif [ "$pmd" -gt $((spmd + 2048)) ] || [ "$pmd" -lt $((spmd - 2048)) ]; then
    fail "${AS}warm by read(2): as the stock loader" "hugeld ${pmd} KiB FilePmdMapped, the stock loader ${spmd} KiB in the same state"
  else
    pass "${AS}warm by read(2): text mappings MADV_HUGEPAGE (VmFlags hg; the stock loader's not), nothing dropped at load ($before -> $after pages cached), ${pmd} KiB FilePmdMapped as the stock loader's ${spmd} KiB ($(thp_line warm libbig.so))"
  fi
  "$H" thp status "$W/libbig.so" > "$TEST_TMP/tstatus.out" 2>&1
  repair "$W/libbig.so"
  # The helper plans text and rodata (libbig.so: 10 and 3 ranges); the
  # report above is of the text alone.
  nr=$(sed -n "s|.*libbig.so: \([0-9]*\) of the thp backing's 2 MiB ranges: .*|\1|p" "$TEST_TMP/tstatus.out")
  if [ -z "$nr" ] || [ "$nr" -lt $((zone / 2048)) ] || [ "$(rj ranges)" != "$nr" ]; then
    fail "${AS}hugeld thp status" "want at least the text's $((zone / 2048)) ranges: $(cat "$TEST_TMP/tstatus.out")"
  elif [ "$can" != yes ]; then
    skip "${AS}hugeld thp repair" "no page-cache huge pages here even without ld.so ($(cat "$TEST_TMP/tstatus.out"))"
  elif [ "$(rj huge)" = "$(rj ranges)" ]; then
    pass "${AS}hugeld thp repair: $(rj repaired) ranges repaired, all $(rj huge) on 2 MiB folios (status before: $(sed 's/.*ranges: //' "$TEST_TMP/tstatus.out"))"
  else
    fail "${AS}hugeld thp repair" "$(cat "$TEST_TMP/repair.json" "$TEST_TMP/repair.err" | tr '\n' ' ')"
  fi

  # 2. The next process: the page cache holds the huge folios now.
  start second "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  PROBE_ARG=all start secondall "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  read -r size rss pmd < <(text secondall libbig.so)
  stop secondall
  read -r size2 rss2 pmd2 < <(text second libbig.so)
  "$H" status "$(cat "$TEST_TMP/second.pid")" > "$TEST_TMP/status.out" 2>&1
  stop second
  # 5. hugeld status: the object's text coverage, as smaps has it.
  if grep -q "libbig.so: text $size2 kB: $pmd2 kB on 2 MiB page-cache folios, $((rss2 - pmd2)) kB on 4 KiB pages" "$TEST_TMP/status.out"; then
    pass "${AS}hugeld status: libbig.so's text coverage ($(grep -m1 'libbig.so: text ' "$TEST_TMP/status.out" | sed 's/^ *//' | cut -c1-140)...)"
  else
    fail "${AS}hugeld status: text coverage" "want $size2/$pmd2/$((rss2 - pmd2)) kB: $(grep -m3 'libbig\|error' "$TEST_TMP/status.out" | tr '\n' ' ')"
  fi
  if [ "$can" = yes ]; then
    repair "$W/libbig.so"
    [ "$zone" -gt 0 ] && [ "$pmd" -ge $((zone * 95 / 100)) ] && [ "$(rj repaired)" = 0 ] \
      && pass "${AS}after the repair: ${pmd} KiB of a ${zone} KiB zone FilePmdMapped; a second repair finds nothing to do" \
      || fail "${AS}after the repair" "${pmd} KiB of ${zone}; second repair: $(cat "$TEST_TMP/repair.json" | tr '\n' ' ')"
  fi

  # 3. Held: a stock process maps every page of the library, in small
  # folios (hold reads every page of its mappings).  Nothing may be
  # evicted, by the start or by the repair, and the hugeld probe maps
  # no more small pages than the stock probe.
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
  repair "$W/libbig.so"
  held2=$(resident "$W/libbig.so")
  stop holder
  # Small pages: what is mapped and not with a huge page.  Some of the
  # file may have come in 2 MiB folios even by read(2) (large folios on
  # ext4 since Linux 6.16): hugeld maps those huge, which is fine.  The
  # repair leaves the ranges alone (held), or, where the kernel
  # collapses file text, collapses them (which evicts nothing).
  hsmall=$((hrss - hpmd)) ssmall=$((srss - spmd))
  left=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(f["held"] + f["collapsed"] + (f["huge"] == f["ranges"]))' "$TEST_TMP/repair.json" 2> /dev/null || echo 0)
  if [ "$held1" -ge "$held0" ] && [ "$held2" -ge "$held0" ] && [ "$hsmall" -le $((ssmall + 64)) ] \
     && [ "$left" -ge 1 ]; then
    pass "${AS}held by another process: nothing evicted ($held0 -> $held1 -> $held2 pages cached), hugeld maps ${hsmall} KiB of text on 4 KiB pages (stock ${ssmall} KiB) and ${hpmd} KiB huge; the repair: $(rj held) held, $(rj collapsed) collapsed"
  else
    fail "${AS}held by another process" "cached pages $held0 -> $held1 -> $held2, hugeld ${hsmall} KiB on 4 KiB pages vs stock ${ssmall} KiB; repair: $(cat "$TEST_TMP/repair.json" | tr '\n' ' ')"
  fi

  # 4. Cold, text from file offset 0: all but the first 2 MiB in the
  # first process (which shares its folios with the ELF header ld.so
  # reads), all of it once repaired.  The first process runs its code
  # where it runs (sparse), not page by page in file order, which the
  # kernel reads ahead of it in smaller folios.
  drop_page_cache "$W/libzero.so"
  PROBE_ARG=sparse start zero "$HUGELD_LDSO" "$W/libzero.so" LD_HUGEPAGE_LIBS=libzero.so "${THP[@]}"
  read -r size rss pmd < <(text zero libzero.so)
  zone=$(zone_kb zero libzero.so)
  stop zero
  repair "$W/libzero.so"
  PROBE_ARG=all start zero2 "$HUGELD_LDSO" "$W/libzero.so" LD_HUGEPAGE_LIBS=libzero.so "${THP[@]}"
  read -r size2 rss2 pmd2 < <(text zero2 libzero.so)
  stop zero2
  if [ "$(value_of "$TEST_TMP/zero.out")" != 1 ]; then
    fail "${AS}text from offset 0" "value $(value_of "$TEST_TMP/zero.out")"
  elif ! grep -q 'libzero.so: text \[0x0, ' "$TEST_TMP/zero.dbg"; then
    fail "${AS}text from offset 0: zone" "$(grep -m1 'libzero.so: text.*thp:' "$TEST_TMP/zero.dbg")"
  elif [ "$can" != yes ]; then
    skip "${AS}text from offset 0: coverage" "no page-cache huge pages here even without ld.so"
  elif [ "$zone" -gt 2048 ] && [ "$pmd" -ge $((zone - 2048)) ] && [ "$pmd2" -ge "$zone" ]; then
    pass "${AS}cold, text from file offset 0: ${pmd} of ${zone} KiB FilePmdMapped in the first process (one byte per 2 MiB, last to first), all of it after the repair ($(rj repaired) repaired)"
  else
    fail "${AS}text from offset 0: coverage" "${pmd} of ${zone} KiB cold, ${pmd2} after the repair: $(cat "$TEST_TMP/repair.json" | tr '\n' ' ')"
  fi

  # 6. The last partial 2 MiB.  libbig-2m.so (2 MiB max-page-size) has
  # its text end 1.4 MiB into a 2 MiB range whose rest is file padding up
  # to the next segment: the zone takes the whole range, and ld.so maps
  # the file over the gap so that it is one huge page too (the repair
  # plans it the same).  Its rodata ends in a range whose file bytes
  # after it are the RW segment's: that range stays on ordinary pages and
  # the gap stays inaccessible (no other segment's bytes are shown).
  cp "$FIXTURES/libbig-2m.so" "$W/libbig-2m.so"
  fill "$W/libbig-2m.so"
  repair "$W/libbig-2m.so"
  PROBE_ARG=all start tail "$HUGELD_LDSO" "$W/libbig-2m.so" LD_HUGEPAGE_LIBS=libbig-2m.so \
    LD_HUGEPAGE_BACKING=thp LD_HUGEPAGE_SEGMENTS=text,rodata
  read -r size rss pmd < <(text tail libbig-2m.so)
  zone=$(zone_kb tail libbig-2m.so)
  gap=$(awk '/^[0-9a-f]+-[0-9a-f]+ / && index($0, "libbig-2m.so") { if (prev == "r--p" && $2 == "---p") n++; prev = $2 }
    END { print n + 0 }' "/proc/$(cat "$TEST_TMP/tail.pid")/maps")
  stop tail
  memsz=$(readelf -lW "$W/libbig-2m.so" | awk '$1 == "LOAD" && $8 == "E" { print $6 }')
  seg=$(( (memsz + 4095) / 4096 * 4 ))
  if ! grep -q 'libbig-2m.so: rodata .*thp: .*; 1 on ordinary pages where the file holds another segment.s bytes' "$TEST_TMP/tail.dbg"; then
    fail "${AS}tail: rodata" "the range holding RW bytes is not named: $(grep -m1 'libbig-2m.so: rodata.*thp:' "$TEST_TMP/tail.dbg" | sed 's/.*thp: //')"
  elif [ "$gap" -lt 1 ]; then
    fail "${AS}tail: rodata" "the gap after rodata is no longer inaccessible"
  elif [ "$zone" -le "$seg" ] || [ "$size" != "$zone" ]; then
    fail "${AS}tail: text" "zone ${zone} KiB for ${seg} KiB of text pages, executable mapping ${size} KiB: $(thp_line tail libbig-2m.so)"
  elif [ "$can" != yes ]; then
    skip "${AS}tail: coverage" "no page-cache huge pages here even without ld.so"
  elif [ "$pmd" = "$zone" ]; then
    pass "${AS}the last partial 2 MiB: all ${zone} KiB of the text zone FilePmdMapped after the repair (${seg} KiB of text pages), rodata's last range left where the file holds RW bytes"
  else
    fail "${AS}tail: coverage" "${pmd} of ${zone} KiB: $(cat "$TEST_TMP/repair.json" | tr '\n' ' ')"
  fi

  # 7. Cold, on a device whose read_ahead_kb is not a multiple of 2 MiB
  # (2560): the kernel's asynchronous readahead after a 2 MiB fault may
  # bring the next ranges in smaller folios; what it did is repaired.
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
    repair "$W/libbig.so"
    PROBE_ARG=all start coldra2 "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
    read -r size2 rss2 pmd2 < <(text coldra2 libbig.so)
    stop coldra2
    if [ "$zone" -gt 0 ] && [ "$pmd2" -ge $((zone * 95 / 100)) ]; then
      pass "${AS}cold, read_ahead_kb 2560: ${pmd} of ${zone} KiB FilePmdMapped in the first process, ${pmd2} KiB after the repair ($(rj repaired) repaired)"
    else
      fail "${AS}cold, read_ahead_kb 2560" "${pmd} of ${zone} KiB, ${pmd2} after the repair: $(cat "$TEST_TMP/repair.json" | tr '\n' ' ')"
    fi
  fi

  # 8. A cold start reads no more of the text than the stock loader's
  # (whose read-around reads megabytes around each fault), and what it
  # reads comes as 2 MiB folios: the probe without "all" runs almost
  # nothing of libbig.so's text.  (Reading every range at load, as
  # ld.so once did where it could not ask the page cache, left no
  # range uncached.)  The helper counts the ranges.
  drop_page_cache "$W/libbig.so"
  start readst "$SYSTEM_LDSO" "$W/libbig.so"
  stop readst
  "$H" thp status --json "$W/libbig.so" > "$TEST_TMP/repair.json"
  snc=$(rj not_cached)
  drop_page_cache "$W/libbig.so"
  start readh "$HUGELD_LDSO" "$W/libbig.so" LD_HUGEPAGE_LIBS=libbig.so "${THP[@]}"
  stop readh
  "$H" thp status --json "$W/libbig.so" > "$TEST_TMP/repair.json"
  hnc=$(rj not_cached) hh=$(rj huge) hr=$(rj ranges)
  if ! [ "$hnc" -ge 1 ] 2> /dev/null || [ "$hnc" -lt $((snc - 2)) ]; then
    fail "${AS}cold start reads no more than the stock loader's" "of libbig.so's $hr ranges, $hnc not cached after hugeld's start, $snc after the stock loader's"
  elif [ "$can" = yes ] && [ "$hh" != $((hr - hnc)) ]; then
    fail "${AS}cold start: what it read came as 2 MiB folios" "$hh of the $((hr - hnc)) ranges read: $(cat "$TEST_TMP/repair.json" | tr '\n' ' ')"
  else
    pass "${AS}cold start: of libbig.so's $hr ranges, $hnc not cached after it (the stock loader's start: $snc), the $hh read all 2 MiB folios"
  fi
}

AS="" RUN_AS=()
scenarios
AS="as nobody: " RUN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
scenarios
finish
