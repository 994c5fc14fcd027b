#!/usr/bin/python3
# The system calls a systemd SystemCallFilter= group allows, as the
# installed systemd expands it, one a line (hp-seccomp's profile format):
#
#   systemd-allowlist.py @system-service
#
# `systemd-analyze syscall-filter @GROUP` lists a group's names and the
# groups it includes (@aio, @basic-io, ...); those are expanded in turn.
# The names are printed sorted, whatever the architecture: hp-seccomp
# skips those this one does not have.
import subprocess, sys

seen, names = set(), set()

def expand(group):
    if group in seen:
        return
    seen.add(group)
    out = subprocess.run(["systemd-analyze", "syscall-filter", group],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    if not lines or lines[0].strip() != group:
        sys.exit("systemd-analyze syscall-filter %s: unexpected output" % group)
    for line in lines[1:]:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            expand(line)
        else:
            names.add(line)

for g in sys.argv[1:]:
    expand(g)
print("\n".join(sorted(names)))
