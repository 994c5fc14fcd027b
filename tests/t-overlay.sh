#!/bin/bash
# One cache entry for a library seen through many mounts, as container
# runtimes show an image layer: each container gets an overlayfs mount
# of its own (its own device number) with the layer as its lower
# directory.  An entry made from the layer's file, or through any one
# view of it, must serve every view: the processes get their text from
# the entry and take no page from the pool.  A library a container
# changed (a copy-up, data or only metadata) must never be served from
# the layer's entry: it is loaded from its own bytes.
#
# The processes run as root and as nobody (a service's own user: "as
# nobody: "), and are compared with the stock loader as the same user.
# The mounts, the entries and the copy-ups are root's (only root mounts
# overlayfs and writes the cache; a container's writes are its
# runtime's), and so named.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(overlayfs, hugetlbfs cache, huge page pool)"
cache_test_setup || finish

# The image layer and two containers' views of it (all on one file
# system, as containerd and CRI-O lay them out).
O=$TEST_TMP/ov
mkdir -p "$O/layer" "$O/u1" "$O/w1" "$O/u2" "$O/w2" "$O/m1" "$O/m2"
cp "$B/libvalue-1.so" "$O/layer/libvalue.so"
chmod 644 "$O/layer/libvalue.so"
for i in 1 2; do
  if ! mount -t overlay overlay -o "lowerdir=$O/layer,upperdir=$O/u$i,workdir=$O/w$i" "$O/m$i" 2> "$O/mount.err"; then
    skip all "cannot mount overlayfs here: $(head -1 "$O/mount.err")"
    finish
  fi
  at_exit "umount '$O/m$i'"
done
LAYER=$O/layer/libvalue.so
dev_l=$(stat -c %d "$LAYER"); dev_1=$(stat -c %d "$O/m1/libvalue.so"); dev_2=$(stat -c %d "$O/m2/libvalue.so")
if [ "$dev_1" = "$dev_l" ] || [ "$dev_1" = "$dev_2" ]; then
  fail setup "the overlay mounts do not have devices of their own ($dev_l $dev_1 $dev_2)"
  finish
fi
if [ "$(stat -c %i "$O/m1/libvalue.so")" != "$(stat -c %i "$LAYER")" ]; then
  skip all "this overlayfs reports other inode numbers than the layer's (xino)"
  finish
fi

need=$(cache_pages "$LAYER")
reserve_hugepages $((need + 2)) || { fail reserve "cannot reserve $((need + 2)) huge pages"; finish; }
at_exit 'cleanup_cache "$LAYER" "$O/m1/libvalue.so"'

# serve WHAT: 4 processes as $AS_USER, 2 through each view; each must
# give value 1 with all $need pages of the entry mapped, and the pool
# must not move.
serve () {
  local what=$AS$1 i v pid bad="" free0 free1
  local T=$TEST_TMP/$2${AS_USER:+-$AS_USER}
  mkdir -p "$T"
  free0=$(meminfo HugePages_Free)
  for i in 1 2 3 4; do
    v=$(( (i + 1) / 2 ))
    HOLD_LIB=$O/m$v/libvalue.so hold_start "$T/p$i" LD_HUGEPAGE_LIBS=libvalue.so
  done
  free1=$(meminfo HugePages_Free)
  for i in 1 2 3 4; do
    pid=$(cat "$T/p$i.pid")
    kb=$(smaps_kb "$pid" "$CACHE/" Size)
    page=$(smaps_kb "$pid" "$CACHE/i" KernelPageSize)
    [ "$(value_of "$T/p$i.out")" = 1 ] && [ "$kb" = $((need * 2048)) ] && [ "$page" -ge 2048 ] \
      || bad="$bad p$i (view m$(( (i + 1) / 2 ))): value $(value_of "$T/p$i.out"), $kb KiB from the cache, $(grep -m1 'shared:' "$T/p$i.dbg");"
  done
  for i in 1 2 3 4; do hold_stop "$T/p$i"; done
  if [ -z "$bad" ] && [ "$free0" = "$free1" ]; then
    pass "$what: 4 processes through 2 overlay mounts, each with all $need pages from the one entry (KernelPageSize 2048 kB), HugePages_Free unchanged ($free0)"
  else
    fail "$what" "${bad:-HugePages_Free $free0 -> $free1}"
  fi
}

# 1. The entry made from the layer's own file (by the node).
"$H" cache add "$LAYER" > "$O/add1.out" 2>&1 || { fail "cache add the layer's file (root: only root writes the cache)" "$(cat "$O/add1.out")"; finish; }
for who in "" nobody; do
  as_user "$who"
  serve "entry made from the layer's file" layer
done
as_user ""

# 2. Made through one view instead: the other view and the layer's file
# use it too.
"$H" cache remove "$LAYER" > /dev/null 2>&1
"$H" cache add "$O/m1/libvalue.so" > "$O/add2.out" 2>&1 || { fail "cache add through a view (root: only root writes the cache)" "$(cat "$O/add2.out")"; finish; }
for who in "" nobody; do
  as_user "$who"
  serve "entry made through the first overlay mount" view
  T=$TEST_TMP/direct${who:+-$who}
  HOLD_LIB=$LAYER hold_start "$T" LD_HUGEPAGE_LIBS=libvalue.so
  kb=$(smaps_kb "$(cat "$T.pid")" "$CACHE/" Size)
  hold_stop "$T"
  [ "$(value_of "$T.out")" = 1 ] && [ "$kb" = $((need * 2048)) ] \
    && pass "${AS}the layer's own file uses the entry made through a view" \
    || fail "${AS}the layer's own file" "value $(value_of "$T.out"), $kb KiB from the cache"
done
as_user ""

# 3. Copy-ups.  A container rewrites its library (version 2, the same
# size): a new upper inode, so the layer's entry must not serve it; the
# other container still gets the entry.  Then a metadata-only copy-up
# (chmod) in the other container: its own bytes (the same), not the
# entry's pages.
cat "$B/libvalue-2.so" > "$O/m2/libvalue.so"
for who in "" nobody; do
  as_user "$who"
  T=$TEST_TMP/copyup${who:+-$who}
  mkdir -p "$T"
  HOLD_LIB=$O/m2/libvalue.so hold_start "$T/changed" LD_HUGEPAGE_LIBS=libvalue.so
  HOLD_LIB=$O/m1/libvalue.so hold_start "$T/other" LD_HUGEPAGE_LIBS=libvalue.so
  kb_c=$(smaps_kb "$(cat "$T/changed.pid")" "$CACHE/" Size)
  kb_o=$(smaps_kb "$(cat "$T/other.pid")" "$CACHE/" Size)
  hold_stop "$T/changed"; hold_stop "$T/other"
  stock=$(run_as "$SYSTEM_LDSO" "$B/hold" "$O/m2/libvalue.so" < /dev/null 2>/dev/null | head -1)
  if [ "$stock" = "value 2" ] && [ "$(head -1 "$T/changed.out")" = "$stock" ] && [ "$kb_c" = 0 ] \
     && grep -q 'shared: \(stale cache entry\|no cache entry for this file\)' "$T/changed.dbg"; then
    pass "${AS}a library rewritten in one container (copy-up) is loaded from its own bytes ($stock), not the entry: \"$(grep -m1 -o 'shared: [^(]*' "$T/changed.dbg" | sed 's/shared: //; s/ *$//')\""
  else
    fail "${AS}copy-up" "stock '$stock', hugeld '$(head -1 "$T/changed.out")', $kb_c KiB from the cache: $(grep -m1 'shared:' "$T/changed.dbg")"
  fi
  [ "$(value_of "$T/other.out")" = 1 ] && [ "$kb_o" = $((need * 2048)) ] \
    && pass "${AS}the other container still gets the layer's entry" \
    || fail "${AS}the other container after a copy-up" "value $(value_of "$T/other.out"), $kb_o KiB from the cache"
done
chmod 755 "$O/m1/libvalue.so"
for who in "" nobody; do
  as_user "$who"
  T=$TEST_TMP/copyup${who:+-$who}
  HOLD_LIB=$O/m1/libvalue.so hold_start "$T/meta" LD_HUGEPAGE_LIBS=libvalue.so
  kb_m=$(smaps_kb "$(cat "$T/meta.pid")" "$CACHE/" Size)
  hold_stop "$T/meta"
  [ "$(value_of "$T/meta.out")" = 1 ] && [ "$kb_m" = 0 ] \
    && pass "${AS}a metadata-only copy-up (chmod) is not served from the layer's entry either" \
    || fail "${AS}metadata copy-up" "value $(value_of "$T/meta.out"), $kb_m KiB from the cache: $(grep -m1 'shared:' "$T/meta.dbg")"
done
as_user ""
finish
