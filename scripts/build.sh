#!/bin/bash
# Build glibc (and so ld.so) in build/obj.  Incremental after the first run.
set -euo pipefail
. "$(dirname "$0")/config.sh"

"$HUGELD_TOP/scripts/deps.sh" build
"$HUGELD_TOP/scripts/prepare-source.sh"
"$HUGELD_TOP/scripts/configure.sh"
jobs=${JOBS:-$(nproc)}
start=$(date +%s)
echo "hugeld: building in $OBJDIR (make -j$jobs; log: $OBJDIR/build.log)"
if ! make -C "$OBJDIR" -j"$jobs" > "$OBJDIR/build.log" 2>&1; then
  grep -E -A3 ': error:|: undefined reference|\*\*\* ' "$OBJDIR/build.log" | cut -c1-300 | head -40 >&2
  die "glibc build failed (log: $OBJDIR/build.log)"
fi
echo "hugeld: built $OBJDIR/elf/ld.so in $(( $(date +%s) - start ))s"
