#!/bin/bash
# Containers of one image share the node's cache, as Kubernetes pods
# that request no huge pages would: a real runtime (runc), an OCI bundle
# per container whose rootfs is an overlayfs mount of one image layer (a
# debootstrap root of the host's release with hugeld's .deb installed,
# plus a 10 MiB test library), linux.resources.hugepageLimits 2MB = 0,
# and the node's /dev/hugepages/hugeld bind-mounted read-only.  The
# entry is made on the node from the layer's file.
# - Three such containers at once: the stock loader's result, all of the
#   entry's pages mapped (KernelPageSize 2048 kB), hugetlb.2MB.max 0 and
#   nothing charged in their cgroups, HugePages_Free unchanged.
# - A container without the mount, and one in a user namespace whose
#   root is an unprivileged user of the node (the cache is then owned by
#   nobody it knows, so not trusted): both run correctly on ordinary
#   pages or thp, and LD_DEBUG=hugepages says why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(runc, overlayfs, cgroups, huge page pool)"
command -v runc > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runc > /dev/null 2>&1
command -v runc > /dev/null || { fail runc "cannot install runc"; finish; }
cache_test_setup || finish

# runc applies hugepageLimits through the cgroup hierarchy it finds at
# /sys/fs/cgroup.  On a hybrid host (version 1 controllers there, the
# unified hierarchy with hugetlb at /sys/fs/cgroup/unified) it would
# find no hugetlb controller and silently apply no limit, so runc runs
# in a mount namespace with the unified hierarchy at /sys/fs/cgroup.
hugetlb_cgroup_root || finish
RUNC_ROOT=$TEST_TMP/runc-state
rc () {
  if [ "$cgroot" = /sys/fs/cgroup ]; then
    runc --root "$RUNC_ROOT" "$@"
  else
    unshare --mount --propagation private sh -c \
      'mount -t cgroup2 none /sys/fs/cgroup && exec runc "$@"' sh --root "$RUNC_ROOT" "$@"
  fi
}

# The image: the host's release, hugeld's .deb, the test program and
# library.  Made once, then used read-only as the layer.
need_fixtures bigcheck-shared libbig.so
libc=$(pkg_version libc6)
ver=$(. "$HUGELD_TOP/scripts/config.sh" && echo "$HUGELD_VERSION")
DEB=$HUGELD_TOP/build/hugeld_${ver}+${libc}_amd64.deb
"$HUGELD_TOP/scripts/deb.sh" > "$TEST_TMP/deb.log" 2>&1 && [ -f "$DEB" ] \
  || { fail "make deb" "$(tail -3 "$TEST_TMP/deb.log" | tr '\n' ' ')"; finish; }
IMG=$TEST_TMP/image
debian_root "$IMG" || finish
cp "$DEB" "$IMG/tmp/"
in_root apt-get update -qq > "$TEST_TMP/apt.log" 2>&1
if ! in_root apt-get install -y -qq "/tmp/$(basename "$DEB")" >> "$TEST_TMP/apt.log" 2>&1; then
  fail "install the .deb in the image" "$(tail -3 "$TEST_TMP/apt.log" | tr '\n' ' ')"
  finish
fi
rm -f "$IMG/tmp/$(basename "$DEB")"
install -m 755 "$B/hold" "$IMG/usr/local/bin/hold"
mkdir -p "$IMG/usr/lib/hugeld-test"
install -m 644 "$B/libvalue-1.so" "$IMG/usr/lib/hugeld-test/libvalue.so"
# The mount point of the output directory (a user namespace's root
# cannot make it in a root directory the node's root owns).
mkdir -p "$IMG/out"
_root_umount "$IMG"
LAYERLIB=$IMG/usr/lib/hugeld-test/libvalue.so

need=$(cache_pages "$LAYERLIB")
reserve_hugepages $((need + 2)) || { fail reserve "cannot reserve $((need + 2)) huge pages"; finish; }
at_exit 'cleanup_cache "$LAYERLIB"'
"$H" cache add "$LAYERLIB" > "$TEST_TMP/add.out" 2>&1 \
  || { fail "cache add the layer's library" "$(cat "$TEST_TMP/add.out")"; finish; }

# container NAME [stock] [nomount] [userns]: an overlay rootfs over the
# image, a bundle, and the container started (detached); its output in
# $TEST_TMP/NAME/out, its report in .../out/dbg.*.
started=()
container () {
  local n=$1; shift
  local d=$TEST_TMP/$n
  mkdir -p "$d/upper" "$d/work" "$d/rootfs" "$d/out"
  # A user namespace's root (an unprivileged user of the node) must be
  # able to reach its rootfs and write its output.
  chmod 755 "$TEST_TMP" "$d"
  chmod 777 "$d/out"
  mount -t overlay overlay -o "lowerdir=$IMG,upperdir=$d/upper,workdir=$d/work" "$d/rootfs" \
    || { fail "$n: overlay rootfs" ""; return 1; }
  at_exit "umount -l '$d/rootfs'"
  (cd "$d" && runc spec) || { fail "$n: runc spec" ""; return 1; }
  python3 - "$d" "$n" "$@" <<'EOF' || { fail "$n: config.json" ""; return 1; }
import json, sys
d, name, opts = sys.argv[1], sys.argv[2], set(sys.argv[3:])
c = json.load(open(d + "/config.json"))
c["root"] = {"path": d + "/rootfs", "readonly": False}
p = c["process"]
p["terminal"] = False
p["args"] = (["/usr/local/bin/hold"] if "stock" in opts else
             ["/opt/hugeld/ld.so", "/usr/local/bin/hold"]) + \
            ["/usr/lib/hugeld-test/libvalue.so"]
p["env"] = ["PATH=/usr/bin:/bin", "LD_HUGEPAGE_LIBS=libvalue.so",
            "LD_DEBUG=hugepages", "LD_DEBUG_OUTPUT=/out/dbg",
            "HOLD_UNTIL=/out/stop"]
c["mounts"].append({"destination": "/out", "type": "bind",
                    "source": d + "/out", "options": ["rbind", "rw"]})
if "nomount" not in opts:
    c["mounts"].append({"destination": "/dev/hugepages/hugeld",
                        "type": "bind", "source": "/dev/hugepages/hugeld",
                        "options": ["rbind", "ro", "nosuid", "nodev"]})
lx = c["linux"]
lx["resources"]["hugepageLimits"] = [{"pageSize": "2MB", "limit": 0}]
lx["cgroupsPath"] = "/hugeld-test-" + name
if "userns" in opts:
    lx["namespaces"].append({"type": "user"})
    lx["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
    lx["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
json.dump(c, open(d + "/config.json", "w"), indent=1)
EOF
  if ! rc run -d --pid-file "$d/pid" -b "$d" "hugeld-test-$n" < /dev/null > "$d/out/stdout" 2> "$d/runc.err"; then
    fail "$n: runc run" "$(tail -3 "$d/runc.err" | tr '\n' ' ')"
    return 1
  fi
  started+=("$n")
  at_exit "rc delete -f 'hugeld-test-$n' > /dev/null 2>&1"
}
# ready NAME: wait until its program has said "ready" (10 s).
ready () {
  local i
  for i in $(seq 100); do
    grep -q '^ready' "$TEST_TMP/$1/out/stdout" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
report () { cat "$TEST_TMP/$1/out"/dbg.* 2>/dev/null; }

# A process in a chroot cannot create user namespaces (the kernel
# refuses CLONE_NEWUSER when the root is not its mount namespace's:
# check-distro's roots).  Only then is the userns case left out.
cases="c1 c2 c3 stock nomount userns"
if ! unshare --user true 2>/dev/null; then
  skip "userns container" "this process cannot create a user namespace (chrooted: $(unshare --user true 2>&1 | head -1))"
  cases="c1 c2 c3 stock nomount"
fi
free0=$(meminfo HugePages_Free)
for n in $cases; do
  case $n in
    c*) container "$n" ;;
    *) container "$n" "$n" ;;
  esac
done
for n in "${started[@]}"; do
  ready "$n" || fail "$n: the program did not start" "$(head -c 300 "$TEST_TMP/$n/out/stdout") $(report "$n" | tail -2)"
done
free1=$(meminfo HugePages_Free)
stock=$(head -1 "$TEST_TMP/stock/out/stdout")
[ "$stock" = "value 1" ] && pass "the stock loader in a container: $stock" \
  || fail "the stock loader in a container" "'$stock'"

# What a container's process has: its pid on the node, its cgroup.
pid_of () { cat "$TEST_TMP/$1/pid"; }
cg_of () { echo "$cgroot/hugeld-test-$1"; }

bad=""
for n in c1 c2 c3; do
  pid=$(pid_of "$n")
  kb=$(smaps_kb "$pid" "$CACHE/" Size)
  page=$(smaps_kb "$pid" "$CACHE/i" KernelPageSize)
  cg=$(cg_of "$n")
  max=$(cat "$cg/hugetlb.2MB.max" 2>/dev/null)
  cur=$(cat "$cg/hugetlb.2MB.current" 2>/dev/null)
  out=$(head -1 "$TEST_TMP/$n/out/stdout")
  if [ "$out" != "$stock" ] || [ "$kb" != $((need * 2048)) ] || [ "$page" -lt 2048 ] \
     || [ "$max" != 0 ] || [ "$cur" != 0 ]; then
    bad="$bad $n: '$out', $kb KiB from the cache, hugetlb.2MB.max '$max' current '$cur', $(report "$n" | grep -m1 'shared:');"
  fi
done
if [ -z "$bad" ] && [ "$free0" = "$free1" ]; then
  pass "3 containers at once (hugetlb.2MB.max 0, the cache bind-mounted read-only): the stock result, all $need pages of the node's entry each (KernelPageSize 2048 kB), nothing charged to their cgroups, HugePages_Free unchanged ($free0)"
else
  fail "3 containers sharing the node's cache" "${bad:-HugePages_Free $free0 -> $free1}"
fi
# The process in a container saw its own cgroup's limit and placed for
# the entry (the thp placement would have missed it).
grep -q 'libvalue.so: placed for its shared cache entry' <(report c1) \
  && pass "in the container, ld.so saw the cgroup's limit and placed libvalue.so for its entry" \
  || fail "placement in the container" "$(report c1 | grep -m2 'placement')"

# Without the mount, and in a user namespace: the stock result, no page
# from the cache or the pool, and the report says why.
for n in nomount userns; do
  case " $cases " in *" $n "*) ;; *) continue ;; esac
  case $n in
    nomount) why="no cache ($CACHE does not exist)" ;;
    userns) why="not trusted: not owned by root" ;;
  esac
  pid=$(pid_of "$n")
  kb=$(smaps_kb "$pid" "$CACHE/" Size)
  huge=$(smaps_kb "$pid" "libvalue.so" KernelPageSize)
  out=$(head -1 "$TEST_TMP/$n/out/stdout")
  if [ "$out" = "$stock" ] && [ "$kb" = 0 ] && report "$n" | grep -qF "shared: $why"; then
    pass "$n container: the stock result, not from the cache: \"$why\"$(report "$n" | grep -m1 -q 'thp: page-cache' && echo ', thp asked for')"
  else
    fail "$n container" "'$out', $kb KiB from the cache: $(report "$n" | grep -m1 'shared:')"
  fi
done
[ "$(meminfo HugePages_Free)" = "$free0" ] && pass "HugePages_Free unchanged with all six containers running" \
  || fail "HugePages_Free with all containers running" "$free0 -> $(meminfo HugePages_Free)"

for n in "${started[@]}"; do touch "$TEST_TMP/$n/out/stop"; done
for n in "${started[@]}"; do
  for _ in $(seq 50); do kill -0 "$(pid_of "$n")" 2>/dev/null || break; sleep 0.1; done
  rc delete -f "hugeld-test-$n" > /dev/null 2>&1
done
finish
