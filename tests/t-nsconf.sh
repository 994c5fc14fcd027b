#!/bin/bash
# Root's tools judge a process by the policy file its own ld.so read:
# the one of its mount namespace (a container's image carries its own,
# docs/containers.md), opened inside that namespace's root.
#  1. a process in a mount namespace whose /etc/hugeld.conf selects
#     everything (and the host's selects nothing): hugeld status from
#     the host and from inside the namespace name the file's libs, and
#     hugeld check passes both ways, 3 of 3;
#  2. a tenant's /etc/hugeld.conf that is a FIFO: status ends at once,
#     saying what it is; one that is a symbolic link to /etc/shadow
#     (absolute): resolved inside the tenant's namespace, never the
#     host's file;
#  3. the owner as the process sees it: a file owned by a user the
#     process's user namespace maps to root is root's for it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache-lib.sh"

need_root "(mount namespaces, the pool)"
need_fixtures
mkdir -p "$TEST_TMP/ns"
cache_test_setup || finish
take_policy_file
# The host's file selects nothing.
printf '# the host: nothing\n' > /etc/hugeld.conf; chmod 644 /etc/hugeld.conf
printf 'libs *\nbacking private\nsegments text\n' > "$TEST_TMP/ns/all.conf"
chmod 644 "$TEST_TMP/ns/all.conf"
reserve_hugepages 32 || { fail reserve "cannot reserve 32 huge pages"; finish; }

# in_ns NAME SETUP: run SETUP (sh) in a new mount namespace, then hold
# (libvalue.so, 10 MiB) under hugeld's ld.so there until release NAME;
# its pid in NAME.pid.
in_ns () {
  local n=$TEST_TMP/$1 setup=$2
  rm -f "$n.in"; mkfifo "$n.in"
  unshare -m --propagation private sh -c "$setup"' && exec "$@"' sh \
    env -u LD_HUGEPAGE_LIBS "$HUGELD_LDSO" "$B/hold" "$L/libvalue.so" < "$n.in" > "$n.out" 2> "$n.err" &
  echo $! > "$n.pid"
  exec {fd}> "$n.in"; echo "$fd" > "$n.fd"
  local i
  for i in $(seq 100); do grep -q 'ready' "$n.out" 2> /dev/null && break; sleep 0.1; done
  grep -q 'ready' "$n.out"
}
release () {
  local n=$TEST_TMP/$1
  [ -f "$n.fd" ] || return 0
  eval "exec $(cat "$n.fd")>&-"
  wait "$(cat "$n.pid")" 2> /dev/null
  rm -f "$n.fd"
}

# --- 1. the namespace's own file ------------------------------------------
ok=0 bad=
for round in 1 2 3; do
  if ! in_ns sel "mount --bind $TEST_TMP/ns/all.conf /etc/hugeld.conf"; then
    bad="the process did not start: $(cat "$TEST_TMP/sel.err")"; release sel; break
  fi
  pid=$(cat "$TEST_TMP/sel.pid")
  "$H" status "$pid" > "$TEST_TMP/st.host" 2>&1
  "$H" check "$pid" > "$TEST_TMP/ck.host" 2>&1; ckh=$?
  nsenter -m -t "$pid" "$H" status "$pid" > "$TEST_TMP/st.in" 2>&1
  nsenter -m -t "$pid" "$H" check "$pid" > "$TEST_TMP/ck.in" 2>&1; cki=$?
  release sel
  lh=$(grep -m1 'settings:' "$TEST_TMP/st.host")
  li=$(grep -m1 'settings:' "$TEST_TMP/st.in")
  if [ $ckh = 0 ] && [ $cki = 0 ] && [[ $lh == *"libs * (/etc/hugeld.conf line 1)"* ]] && [ "$lh" = "$li" ]; then
    ok=$((ok + 1))
  elif [ -z "$bad" ]; then
    bad="check $ckh (host) $cki (inside); host: $lh; inside: $li; $(head -2 "$TEST_TMP/ck.host" | tr '\n' ' ')"
  fi
done
[ $ok = 3 ] && pass "a process whose mount namespace's /etc/hugeld.conf selects everything: status and check agree from the host and from inside, 3 of 3 ($lh)" \
  || fail "the namespace's own policy file" "$ok of 3: $bad"

# --- 2. a FIFO, and a link that points out --------------------------------
mkfifo "$TEST_TMP/ns/fifo"
if in_ns fifo "mount --bind $TEST_TMP/ns/fifo /etc/hugeld.conf"; then
  pid=$(cat "$TEST_TMP/fifo.pid")
  t0=$(date +%s%N)
  timeout 60 "$H" status "$pid" > "$TEST_TMP/st.fifo" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  release fifo
  [ $rc = 0 ] && [ $ms -lt 10000 ] && grep -q 'libs none.*/etc/hugeld.conf: .*a FIFO' "$TEST_TMP/st.fifo" \
    && pass "a FIFO at the namespace's /etc/hugeld.conf: status answered in $ms ms: $(grep -m1 -o 'libs none.*' "$TEST_TMP/st.fifo" | cut -c1-150)" \
    || fail "a FIFO as the policy file" "status $rc after $ms ms: $(head -5 "$TEST_TMP/st.fifo" | tr '\n' ' ')"
else
  fail "a FIFO as the policy file: the process" "$(cat "$TEST_TMP/fifo.err")"
fi

# The tenant's /etc is their own (a tmpfs here), its hugeld.conf a link
# to /etc/shadow: inside the namespace that is the tenant's own (none);
# read from the host's root it would be the host's shadow file (which
# ld.so's trust rule would take: root's, writable by nobody else).
if in_ns link "mount -t tmpfs none /etc && ln -s /etc/shadow /etc/hugeld.conf"; then
  pid=$(cat "$TEST_TMP/link.pid")
  strace -f -qq -e trace=openat,openat2,open -o "$TEST_TMP/link.strace" "$H" status "$pid" > "$TEST_TMP/st.link" 2>&1; rc=$?
  release link
  host_shadow=$(grep -c '"/etc/shadow"' "$TEST_TMP/link.strace")
  # The tenant's namespace has no /etc/shadow: the settings line names
  # no file (a read of the host's would say it is ignored, its lines not
  # parsing).
  [ $rc = 0 ] && [ "$host_shadow" = 0 ] && grep -q 'libs none (nothing gives libs)' "$TEST_TMP/st.link" \
    && ! grep 'settings:' "$TEST_TMP/st.link" | grep -q '/etc/hugeld.conf: ' \
    && pass "the namespace's /etc/hugeld.conf a link to /etc/shadow: resolved inside its root (the host's /etc/shadow never opened): $(grep -m1 -o 'libs none.*' "$TEST_TMP/st.link" | cut -c1-120)" \
    || fail "a link out of the namespace" "status $rc, host /etc/shadow opened $host_shadow times: $(head -4 "$TEST_TMP/st.link" | tr '\n' ' ')"
else
  fail "a link as the policy file: the process" "$(cat "$TEST_TMP/link.err")"
fi

# --- 3. the owner as the process sees it ------------------------------------
# A user namespace mapping uid 0 to nobody: a file nobody owns is
# root's there.  hugeld-conf judges it through the process's uid_map.
cp "$TEST_TMP/ns/all.conf" "$TEST_TMP/ns/nobody.conf"; chown nobody "$TEST_TMP/ns/nobody.conf"
CONF=$(dirname "$(readlink -f "$H")")/../libexec/hugeld-conf
[ -x "$CONF" ] || CONF=$HUGELD_TOP/build/tools/hugeld-conf
# (setpriv and unshare exec what follows: the pid is the sleep's.)
setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Ur sleep 60 &
upid=$!
for i in $(seq 50); do grep -q '^ *0 *65534' /proc/$upid/uid_map 2> /dev/null && break; sleep 0.1; done
"$CONF" --pid "$upid" "$TEST_TMP/ns/nobody.conf" > "$TEST_TMP/u.json" 2>&1
"$CONF" "$TEST_TMP/ns/nobody.conf" > "$TEST_TMP/h.json" 2>&1
kill $upid 2> /dev/null; wait $upid 2> /dev/null
tu=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trusted"])' "$TEST_TMP/u.json" 2> /dev/null)
th=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trusted"])' "$TEST_TMP/h.json" 2> /dev/null)
[ "$tu" = True ] && [ "$th" = False ] \
  && pass "a file nobody owns: trusted as a process whose user namespace maps nobody to root sees it, not as the host sees it" \
  || fail "the owner through the user namespace" "as the process: $tu, as the host: $th: $(head -c 300 "$TEST_TMP/u.json")"

finish
