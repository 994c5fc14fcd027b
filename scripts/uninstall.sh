#!/bin/bash
# make uninstall: take out of $DESTDIR$PREFIX what make install put
# there (the loader and hugeld-system-loader here; the command, its
# helpers, man pages, completion and links by tools/Makefile's
# uninstall), and the directories it leaves empty.  Nothing else.
#
# It refuses, changing nothing, while something on this machine still
# runs the installed loader by its path: hugeld as the system loader
# (make uninstall-system first), or a service hugeld enable put on it
# (hugeld disable UNIT first).  The shared cache and /etc/hugeld.conf
# are left alone.
set -euo pipefail
. "$(dirname "$0")/config.sh"

dest=$DESTDIR$PREFIX
if [ -z "$DESTDIR" ]; then
  sl=$dest/libexec/hugeld-system-loader
  if [ -x "$sl" ] && "$sl" status 2>/dev/null | grep -q '^system loader: hugeld'; then
    die "hugeld is the system's loader: make uninstall-system first (nothing removed)"
  fi
  enabled=$(grep -l -s -F '# Written by hugeld enable' /etc/systemd/system/*.d/hugeld.conf \
    | sed 's|^/etc/systemd/system/\(.*\)\.d/hugeld.conf$|\1|' | tr '\n' ' ' || true)
  [ -z "$enabled" ] \
    || die "services run $dest/ld.so: ${enabled% }; hugeld disable each first (nothing removed)"
fi
rm -f "$dest/ld.so" "$dest/libexec/hugeld-system-loader"
echo "hugeld: removed $dest/ld.so and $dest/libexec/hugeld-system-loader"
