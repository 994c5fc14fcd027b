#!/bin/bash
# hugeld as a system component, in a throwaway root of the host's
# release (debian_root): the .deb's boot unit passes systemd-analyze
# verify, and a real package upgrade keeps the shared cache current.
#
# hpdemo 1 and 2 are two versions of a small package that ships a
# 20 MiB library (libhpdemo.so.1: value () in the middle of 18 MiB of
# text, a different value and different filler bytes in each version)
# and a program that prints value () and checksums of the library's
# text as mapped and as read from the file it was loaded by.  With
# /etc/hugeld.conf declaring the library (libs and cache) and no
# variable, dpkg -i of version 1 and then of version 2 must run the
# file trigger's cache sync each time: a process started after the
# upgrade prints 2 and maps its text from the new cache entry, its
# mapped bytes are the v2 file's, a process started before still runs
# and still has version 1, and no stale entry is left.  Nothing here
# runs the sync by hand: without the trigger the new process gets no
# cache entry and the test fails.
. "$(dirname "$0")/lib.sh"

need_root "(debootstrap, chroot, hugetlbfs, pool)"
libc=$(pkg_version libc6)
ver=$(. "$HUGELD_TOP/scripts/config.sh" && echo "$HUGELD_VERSION")
DEB=$HUGELD_TOP/build/hugeld_${ver}+${libc}_amd64.deb
if [ ! -f "$DEB" ] || [ -n "$(find "$HUGELD_TOP/build/stage" "$HUGELD_TOP/scripts/deb" -newer "$DEB" -type f 2>/dev/null | head -1)" ]; then
  "$HUGELD_TOP/scripts/deb.sh" > "$TEST_TMP/deb.log" 2>&1 \
    || { fail "make deb" "$(tail -3 "$TEST_TMP/deb.log" | tr '\n' ' ')"; finish; }
fi

# --- hpdemo 1 and 2 ---------------------------------------------------------
P=$TEST_TMP/pkg
mkdir -p "$P"
cat > "$P/lib.c" <<'EOF'
#define STR2(x) #x
#define STR(x) STR2(x)
__asm__ (".text\n.globl value\n.type value, @function\n.p2align 4\n"
	 "  .fill 9437184, 1, " STR (FILL) "\n"
	 "value:\n  movl $" STR (VALUE) ", %eax\n  ret\n"
	 ".size value, . - value\n"
	 "  .fill 9437184, 1, " STR (FILL) "\n");
const char hpdemo_rodata[2 << 20] = { VALUE };
EOF
cat > "$P/main.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int value (void);
static unsigned long mem_sum, file_sum;
static int
text (struct dl_phdr_info *i, size_t size, void *data)
{
  (void) size; (void) data;
  if (strstr (i->dlpi_name, "libhpdemo") == NULL)
    return 0;
  int fd = open (i->dlpi_name, O_RDONLY);
  for (int k = 0; k < i->dlpi_phnum; ++k)
    {
      const ElfW(Phdr) *p = &i->dlpi_phdr[k];
      if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
	continue;
      const unsigned char *m = (const unsigned char *) (i->dlpi_addr + p->p_vaddr);
      unsigned char *f = malloc (p->p_filesz);
      if (fd < 0 || f == NULL
	  || pread (fd, f, p->p_filesz, p->p_offset) != (ssize_t) p->p_filesz)
	exit (3);
      for (size_t j = 0; j < p->p_filesz; ++j)
	{
	  mem_sum = mem_sum * 31 + m[j];
	  file_sum = file_sum * 31 + f[j];
	}
      free (f);
    }
  close (fd);
  return 1;
}
int
main (int argc, char **argv)
{
  dl_iterate_phdr (text, NULL);
  printf ("value %d mem %lx file %lx\n", value (), mem_sum, file_sum);
  fflush (stdout);
  if (argc > 1)
    {
      while (access (argv[1], F_OK) != 0)
	usleep (100000);
      printf ("value %d at exit\n", value ());
    }
  return 0;
}
EOF
for v in 1 2; do
  d=$P/hpdemo-$v
  mkdir -p "$d/DEBIAN" "$d/usr/lib/x86_64-linux-gnu" "$d/usr/bin"
  fill=$([ $v = 1 ] && echo 0x90 || echo 0xcc)
  cc -shared -fPIC -O2 -DVALUE=$v -DFILL=$fill -Wl,-soname,libhpdemo.so.1 \
    -o "$d/usr/lib/x86_64-linux-gnu/libhpdemo.so.1" "$P/lib.c" \
    && cc -O2 -o "$d/usr/bin/hpdemo" "$P/main.c" "$d/usr/lib/x86_64-linux-gnu/libhpdemo.so.1" \
    || { fail "build hpdemo $v" ""; finish; }
  printf 'Package: hpdemo\nVersion: %s\nArchitecture: amd64\nMaintainer: hugeld tests <t@example.org>\nDepends: libc6\nDescription: hugeld upgrade test\n 20 MiB library, version %s.\n' $v $v > "$d/DEBIAN/control"
  dpkg-deb --root-owner-group --build "$d" "$P/hpdemo_${v}_amd64.deb" > /dev/null \
    || { fail "dpkg-deb hpdemo $v" ""; finish; }
done
size=$(stat -c %s "$P/hpdemo-1/usr/lib/x86_64-linux-gnu/libhpdemo.so.1")
[ "$size" -gt $((20 << 20)) ] && pass "hpdemo 1 and 2 built: libhpdemo.so.1 of $((size >> 20)) MiB" \
  || fail "hpdemo's library is 20 MiB" "$size bytes"

# --- the root, with hugeld, systemd and man-db ------------------------------
C=$HUGELD_TOP/build/chroot-upgrade
debian_root "$C" || finish
cp "$DEB" "$P"/hpdemo_*.deb "$C/tmp/"
in_root apt-get update -qq > "$TEST_TMP/apt.log" 2>&1
in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$DEB")" systemd man-db \
  >> "$TEST_TMP/apt.log" 2>&1 \
  || { fail "apt-get install hugeld systemd man-db" "$(tail -3 "$TEST_TMP/apt.log" | tr '\n' ' ')"; finish; }
UNIT=$(cd "$C" && ls lib/systemd/system/hugeld-cache.service usr/lib/systemd/system/hugeld-cache.service 2>/dev/null | head -1)
if [ -n "$UNIT" ] && in_root systemd-analyze verify "/$UNIT" > "$TEST_TMP/verify.log" 2>&1 \
   && [ ! -s "$TEST_TMP/verify.log" ]; then
  pass "systemd-analyze verify /$UNIT: clean (ExecStart, man pages, ordering)"
else
  fail "systemd-analyze verify hugeld-cache.service" "${UNIT:-no unit}: $(head -5 "$TEST_TMP/verify.log" | tr '\n' ' ')"
fi
[ -L "$C/etc/systemd/system/sysinit.target.wants/hugeld-cache.service" ] \
  && pass "postinst enabled hugeld-cache.service (sysinit.target.wants)" \
  || fail "postinst enables the unit" "$(ls "$C/etc/systemd/system/sysinit.target.wants" 2>&1 | tr '\n' ' ')"
TUNITS="/${UNIT%/*}/hugeld-thp-repair.service /${UNIT%/*}/hugeld-thp-repair.timer"
if in_root systemd-analyze verify $TUNITS > "$TEST_TMP/verify-thp.log" 2>&1 \
   && [ ! -s "$TEST_TMP/verify-thp.log" ] \
   && [ -L "$C/etc/systemd/system/timers.target.wants/hugeld-thp-repair.timer" ]; then
  pass "hugeld-thp-repair.service and .timer: systemd-analyze verify clean, the timer enabled (timers.target.wants)"
else
  fail "hugeld-thp-repair units" "$(head -5 "$TEST_TMP/verify-thp.log" | tr '\n' ' ') $(ls "$C/etc/systemd/system/timers.target.wants" 2>&1 | tr '\n' ' ')"
fi

# The cache: a hugetlbfs inside the root, removed at the end.
reserve_hugepages 40 || { fail pool "cannot reserve 40 huge pages"; finish; }
at_exit "in_root /opt/hugeld/bin/hugeld cache clear > /dev/null 2>&1; umount '$C/dev/hugepages' 2> /dev/null"
mount -t hugetlbfs -o pagesize=2M none "$C/dev/hugepages" \
  || { fail "mount a hugetlbfs on the root's /dev/hugepages" ""; finish; }
# The root stands for a running system, where the postinst syncs (in a
# chroot, or without systemd, it skips the sync): dpkg runs as PID 1 of
# a PID namespace of its own, in the root (ischroot compares / with PID
# 1's root), and the root has /run/systemd/system.
mkdir -p "$C/run/systemd/system"
as_system () {
  unshare --pid --fork --mount-proc="$C/proc" chroot "$C" /usr/bin/env -i \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"
}
printf '# t-upgrade\nlibs libhpdemo.so*\ncache /usr/lib/x86_64-linux-gnu/libhpdemo.so*\n' > "$C/etc/hugeld.conf"
chmod 644 "$C/etc/hugeld.conf"
CACHE=/dev/hugepages/hugeld

# demo NAME: run hpdemo through hugeld's loader in the root, with no
# variable, until $NAME.stop exists; its pid in $NAME.pid.
demo_start () {
  local n=$TEST_TMP/$1
  rm -f "$C/tmp/$1.stop"
  chroot "$C" /usr/bin/env -i PATH=/usr/bin:/bin /opt/hugeld/ld.so /usr/bin/hpdemo "/tmp/$1.stop" \
    < /dev/null > "$n.out" 2>&1 &
  echo $! > "$n.pid"
  for _ in $(seq 100); do grep -q '^value' "$n.out" 2>/dev/null && break; sleep 0.1; done
}
demo_stop () { touch "$C/tmp/$1.stop"; wait "$(cat "$TEST_TMP/$1.pid")"; }
cache_kb () { awk -v pat="$CACHE/$2" '/^[0-9a-f]+-[0-9a-f]+ / { on = index($0, pat) > 0; next }
  on && $1 == "Size:" { s += $2 } END { print s + 0 }' "/proc/$1/smaps"; }
ino_dir () { printf 'i%x/' "$(stat -c %i "$C/usr/lib/x86_64-linux-gnu/libhpdemo.so.1")"; }
sums_agree () { awk 'NR == 1 { exit !($4 == $6) }' "$1"; }

# --- version 1 ----------------------------------------------------------------
as_system dpkg -i /tmp/hpdemo_1_amd64.deb > "$TEST_TMP/dpkg1.log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^hugeld: libraries changed .*: hugeld cache sync$" "$TEST_TMP/dpkg1.log" \
   && in_root hugeld cache list | grep -q "libhpdemo.so.1 *current"; then
  pass "dpkg -i hpdemo 1: the file trigger ran cache sync, the library is in the cache"
else
  fail "dpkg -i hpdemo 1: trigger and sync" "exit $rc: $(grep hugeld "$TEST_TMP/dpkg1.log" | head -4 | tr '\n' ' ')"
fi
demo_start old
oldpid=$(cat "$TEST_TMP/old.pid")
ino1=$(ino_dir)
if grep -q '^value 1 ' "$TEST_TMP/old.out" && sums_agree "$TEST_TMP/old.out" \
   && [ "$(cache_kb "$oldpid" "$ino1")" -ge 16384 ]; then
  pass "version 1, no variable: text from the cache ($(cache_kb "$oldpid" "$ino1") kB), the bytes are the file's"
else
  fail "version 1 from the cache" "$(cat "$TEST_TMP/old.out") cache $(cache_kb "$oldpid" "$ino1") kB"
fi

# --- the upgrade to version 2 -----------------------------------------------------
as_system dpkg -i /tmp/hpdemo_2_amd64.deb > "$TEST_TMP/dpkg2.log" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "^hugeld: libraries changed .*: hugeld cache sync$" "$TEST_TMP/dpkg2.log" \
  && pass "dpkg -i hpdemo 2 (upgrade): succeeded, the trigger ran cache sync" \
  || fail "dpkg -i hpdemo 2" "exit $rc: $(grep -i 'hugeld\|error' "$TEST_TMP/dpkg2.log" | head -4 | tr '\n' ' ')"
ino2=$(ino_dir)
demo_start new
newpid=$(cat "$TEST_TMP/new.pid")
if [ "$ino1" != "$ino2" ] && grep -q '^value 2 ' "$TEST_TMP/new.out" && sums_agree "$TEST_TMP/new.out" \
   && [ "$(cache_kb "$newpid" "$ino2")" -ge 16384 ] && [ "$(cache_kb "$newpid" "$ino1")" = 0 ]; then
  pass "a process started after the upgrade: version 2's text from the new entry ($(cache_kb "$newpid" "$ino2") kB), its bytes are the v2 file's"
else
  fail "after the upgrade: v2 from the cache" "$(cat "$TEST_TMP/new.out"); new entry $(cache_kb "$newpid" "$ino2") kB, old entry $(cache_kb "$newpid" "$ino1") kB"
fi
in_root hugeld cache list > "$TEST_TMP/list.out" 2>&1
! grep -q stale "$TEST_TMP/list.out" && grep -q "libhpdemo.so.1 *current" "$TEST_TMP/list.out" \
  && pass "cache list after the upgrade: current, no stale entry" \
  || fail "cache list after the upgrade" "$(tr '\n' ' ' < "$TEST_TMP/list.out")"
# The process started before keeps its version 1 pages until it exits.
[ "$(cache_kb "$oldpid" "$ino1")" -ge 16384 ] \
  && pass "the process started before still maps version 1's pages" \
  || fail "the old process keeps its pages" "$(cache_kb "$oldpid" "$ino1") kB"
demo_stop new
demo_stop old
grep -q '^value 1 at exit' "$TEST_TMP/old.out" && grep -q '^value 2 at exit' "$TEST_TMP/new.out" \
  && pass "both ran to the end: the old one with version 1, the new one with version 2" \
  || fail "both ran to the end" "$(tr '\n' ' ' < "$TEST_TMP/old.out") / $(tr '\n' ' ' < "$TEST_TMP/new.out")"

# Removed: the trigger's sync drops the entry.
as_system dpkg -r hpdemo > "$TEST_TMP/dpkg3.log" 2>&1
in_root hugeld cache list > "$TEST_TMP/list3.out" 2>&1
! grep -q libhpdemo "$TEST_TMP/list3.out" \
  && pass "dpkg -r hpdemo: the trigger's sync removed its entry" \
  || fail "dpkg -r hpdemo: entry removed" "$(tr '\n' ' ' < "$TEST_TMP/list3.out")"
finish
