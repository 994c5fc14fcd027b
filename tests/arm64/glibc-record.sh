#!/bin/bash
# hugeld check-arm64 (glibc's tests): the test-wrapper that `make check'
# of the cross-built glibc runs each test program through on the host:
# it runs nothing, and appends the directory and the command, quoted for
# bash, to $HUGELD_GLIBC_RECORD, for tests/arm64/glibc-run.sh to run in
# the arm64 guest with and without every object selected.
printf '%s\t%s\n' "$PWD" "$(printf '%q ' "$@")" >> "$HUGELD_GLIBC_RECORD"
exit 0
