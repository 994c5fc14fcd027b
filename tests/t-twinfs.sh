#!/bin/bash
# The shared cache across file systems.  The threat: a file system
# image (ext4, squashfs, erofs, a USB stick) reports whatever inode
# numbers, times, sizes and build IDs its author wrote, so a file on it
# can be the exact twin, by everything but its bytes, of a file on
# another one.  If root caches the twin (a `cache' glob over a mounted
# image, a DaemonSet caching a pod's image), no process that loads the
# other file may run the twin's cached bytes.
#
# Two loop-mounted ext4 images X and Y each hold libv.so with the same
# inode number, size, mtime and ctime (to the nanosecond) and build ID,
# and different code (value () returns 1 on X, 2 on Y).  Y's is cached;
# X's must run its own bytes, as the stock loader does, for root and
# for nobody, and the cache must still serve Y's file and an identical
# twin (Z, the same bytes: the compare lets it through; X's rodata,
# the same bytes as Y's, may be served too).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(loop mounts, hugetlbfs cache, huge page pool)"
for t in mkfs.ext4 debugfs losetup setpriv; do
  command -v $t > /dev/null || { skip all "no $t"; finish; }
done
cache_test_setup || finish
chmod 755 "$TEST_TMP" "$B"
reserve_hugepages 16 || { fail reserve "cannot reserve 16 huge pages"; finish; }
at_exit 'cleanup_cache "$TEST_TMP/Y/libv.so" "$TEST_TMP/Z/libv.so"'

# The twins: one layout, one build ID, different code.
for v in 1 2; do
  cc -shared -fPIC -O2 -DVALUE=$v -Wl,--build-id=0x5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed \
    -o "$B/twin-$v.so" "$HUGELD_TOP/tests/cache/valuelib.c" || { fail "build twins" ""; finish; }
  chmod 644 "$B/twin-$v.so"
done
if cmp -s "$B/twin-1.so" "$B/twin-2.so" \
   || [ "$(stat -c %s "$B/twin-1.so")" != "$(stat -c %s "$B/twin-2.so")" ]; then
  fail "twins" "not the same size with different bytes"; finish
fi

# image NAME LIB: an ext4 image holding LIB as /libv.so (inode 12 on a
# new file system), its times set to one fixed instant with nanoseconds,
# mounted read-only on $TEST_TMP/NAME.
image () {
  local img=$TEST_TMP/$1.img mnt=$TEST_TMP/$1
  truncate -s 48M "$img"
  mkfs.ext4 -q -F -I 256 -O ^has_journal "$img" || return 1
  debugfs -w -R "write $2 libv.so" "$img" > /dev/null 2>&1 || return 1
  local f
  for f in "mtime 0x6a000000" "mtime_extra 0x1c9c3800" "ctime 0x6a000000" \
           "ctime_extra 0x1c9c3800" "atime 0x6a000000" "uid 0" "gid 0"; do
    debugfs -w -R "sif libv.so $f" "$img" > /dev/null 2>&1 || return 1
  done
  mkdir -p "$mnt"
  mount -o loop,ro "$img" "$mnt" || return 1
  at_exit "umount '$mnt'"
}
image X "$B/twin-1.so" && image Y "$B/twin-2.so" && image Z "$B/twin-2.so" \
  || { fail "images" "could not make the ext4 images"; finish; }
ident () { stat -c '%i %s %.9Y %.9Z %u %a' "$1"; }
buildid () { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
if [ "$(ident "$TEST_TMP/X/libv.so")" != "$(ident "$TEST_TMP/Y/libv.so")" ] \
   || [ "$(buildid "$TEST_TMP/X/libv.so")" != "$(buildid "$TEST_TMP/Y/libv.so")" ] \
   || [ "$(stat -c %d "$TEST_TMP/X/libv.so")" = "$(stat -c %d "$TEST_TMP/Y/libv.so")" ]; then
  fail "twin file systems" "X: $(ident "$TEST_TMP/X/libv.so"), Y: $(ident "$TEST_TMP/Y/libv.so")"; finish
fi
pass "twin file systems: X and Y hold libv.so with one inode number, size, times ($(ident "$TEST_TMP/X/libv.so")) and build ID, different code"

if ! "$H" cache add "$TEST_TMP/Y/libv.so" > "$TEST_TMP/add.out" 2>&1; then
  fail "cache add Y" "$(cat "$TEST_TMP/add.out")"; finish
fi

# run NAME WHO LIB: hold LIB through hugeld with the shared backing as
# WHO (root or nobody); its value in NAME.value, its cache-backed kB in
# NAME.shared, its report in NAME.dbg.
run () {
  local n=$TEST_TMP/$1 who=$2 lib=$3
  rm -f "$n".dbg.* "$n.stop"; : > "$n.out"; chmod 666 "$n.out"
  local pre=()
  [ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  mkdir -p "$n.d"; chmod 777 "$n.d"
  "${pre[@]}" env HOLD_UNTIL="$n.d/stop" LD_HUGEPAGE_LIBS=libv.so LD_HUGEPAGE_BACKING=shared \
    LD_HUGEPAGE_SEGMENTS=text,rodata LD_DEBUG=hugepages LD_DEBUG_OUTPUT="$n.d/dbg" \
    "$HUGELD_LDSO" "$B/hold" "$lib" < /dev/null > "$n.out" 2>&1 &
  local pid=$! i
  for i in $(seq 100); do grep -q '^ready' "$n.out" 2>/dev/null && break; sleep 0.1; done
  smaps_kb "$pid" "$CACHE/" Size > "$n.shared"
  touch "$n.d/stop"; wait "$pid"
  cat "$n.d"/dbg.* > "$n.dbg" 2>/dev/null || : > "$n.dbg"
  value_of "$n.out" > "$n.value"
}
got () { cat "$TEST_TMP/$1.$2"; }
stock () { echo | "$SYSTEM_LDSO" "$B/hold" "$1" | sed -n 's/^value //p'; }

# Control: Y's own file gets its entry, without a compare.
run y root "$TEST_TMP/Y/libv.so"
[ "$(got y value)" = 2 ] && [ "$(got y shared)" -ge 2048 ] \
  && pass "control: Y's file is served its entry ($(got y shared) kB from the cache, value 2)" \
  || fail "control: Y's file" "value $(got y value), $(got y shared) kB shared: $(grep -m2 'text' "$TEST_TMP/y.dbg" | tr '\n' ' ')"

# The victim: X's file runs X's code, as the stock loader does.
want=$(stock "$TEST_TMP/X/libv.so")
for who in root nobody; do
  run "x-$who" $who "$TEST_TMP/X/libv.so"
  # Its rodata is byte for byte Y's (the compare may serve that); its
  # text is not.
  [ "$want" = 1 ] && [ "$(got "x-$who" value)" = "$want" ] \
    && grep -q "text .*shared: the file's bytes differ from the cache entry" "$TEST_TMP/x-$who.dbg" \
    && pass "X's twin as $who: its own code (value $want, as the stock loader), not Y's cached text: $(grep -m1 -o 'shared: the file.s bytes differ[^)]*)' "$TEST_TMP/x-$who.dbg")" \
    || fail "X's twin as $who" "value $(got "x-$who" value) (stock $want), $(got "x-$who" shared) kB from the cache: $(grep -m2 'text\|rodata' "$TEST_TMP/x-$who.dbg" | tr '\n' ' ')"
done

# A twin with the same bytes on a third file system: compared, served.
run z nobody "$TEST_TMP/Z/libv.so"
[ "$(got z value)" = 2 ] && [ "$(got z shared)" -ge 2048 ] \
  && pass "Z, Y's bytes on a third file system: compared and served ($(got z shared) kB from the cache)" \
  || fail "Z, same bytes" "value $(got z value), $(got z shared) kB shared: $(grep -m2 'text' "$TEST_TMP/z.dbg" | tr '\n' ' ')"

# The tool: X's file is not "already cached", and its entry is not
# replaced behind Y's users.
out=$("$H" cache add "$TEST_TMP/X/libv.so" 2>&1)
rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "made from another file" \
  && pass "cache add of X's twin: refused, not \"already cached\" ($(echo "$out" | head -1 | cut -c1-160)...)" \
  || fail "cache add of X's twin" "exit $rc: $out"
run y2 root "$TEST_TMP/Y/libv.so"
[ "$(got y2 value)" = 2 ] && [ "$(got y2 shared)" -ge 2048 ] \
  && pass "Y's entry still serves Y" || fail "Y after X's add" "value $(got y2 value), $(got y2 shared) kB"
# Z's add compares, finds Y's bytes and records Z's device: then Z is
# served without a compare.
out=$("$H" cache add "$TEST_TMP/Z/libv.so" 2>&1)
run z2 root "$TEST_TMP/Z/libv.so"
echo "$out" | grep -q "already cached" && [ "$(got z2 shared)" -ge 2048 ] \
  && ! grep -q "bytes differ" "$TEST_TMP/z2.dbg" \
  && pass "cache add of Z (same bytes): \"already cached\" after a compare, and Z's device recorded" \
  || fail "cache add of Z" "$out; $(got z2 shared) kB"

# The last page.  Linked with 2 MiB max-page-size, the text zone reaches
# past the text's last file byte, and the rest of that page (up to
# 4,095 bytes after p_filesz) is mapped executable with it.  P's file
# (on one image) and Q's (on another) are twins whose only difference
# lies there: Q's entry must not be served to P, whose bytes differ.
cc -shared -fPIC -O2 -DVALUE=2 -Wl,-z,max-page-size=0x200000 \
  -Wl,--build-id=0x5eed5eed5eed5eed5eed5eed5eed5eed5eed5eee \
  -o "$B/page-q.so" "$HUGELD_TOP/tests/cache/valuelib.c" || { fail "build last-page twins" ""; finish; }
python3 - "$B/page-q.so" "$B/page-p.so" <<'PY' || { fail "last-page twins" "no room after the text's last byte"; finish; }
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
for i in range(phnum):
    t, f, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
    if t == 1 and f & 1:
        end = off + fsz
if end % 4096 == 0:
    sys.exit(1)
data[end + (4096 - end % 4096) // 2] ^= 0xcc
open(sys.argv[2], "wb").write(data)
PY
chmod 644 "$B/page-p.so" "$B/page-q.so"
image Q "$B/page-q.so" && image P "$B/page-p.so" \
  || { fail "images" "could not make the last-page images"; finish; }
at_exit 'cleanup_cache "$TEST_TMP/Q/libv.so"'
"$H" cache add "$TEST_TMP/Q/libv.so" > "$TEST_TMP/addq.out" 2>&1 \
  || { fail "cache add Q" "$(cat "$TEST_TMP/addq.out")"; finish; }
run q root "$TEST_TMP/Q/libv.so"
run p nobody "$TEST_TMP/P/libv.so"
if [ "$(got q shared)" -lt 2048 ]; then
  fail "last page: control" "Q's own file gets $(got q shared) kB from the cache: $(grep -m2 'text' "$TEST_TMP/q.dbg" | tr '\n' ' ')"
elif [ "$(got p value)" = 2 ] && grep -q "text .*shared: the file's bytes differ from the cache entry" "$TEST_TMP/p.dbg"; then
  pass "last page: a twin that differs only after the text's p_filesz is compared there and not served ($(got q shared) kB served to Q itself)"
else
  fail "last page" "value $(got p value), $(got p shared) kB from the cache: $(grep -m2 'text' "$TEST_TMP/p.dbg" | tr '\n' ' ')"
fi
out=$("$H" cache add "$TEST_TMP/P/libv.so" 2>&1)
rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "made from another file" \
  && pass "last page: cache add of P refused, its device not recorded for Q's entry" \
  || fail "last page: cache add of P" "exit $rc: $out"
finish
