# What an AppArmor abstraction of file rules grants, for the tests of
# scripts/deb/apparmor-base.d-hugeld (tests/t-outputs.sh): no kernel
# needed.  apparmor_parser says whether the file parses; this says which
# paths its rules match, by AppArmor's globbing.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   python3 aarules.py FILE < CASES
#
# CASES: JSON [[path, permission, want], ...], want "yes" (a rule grants
# it to every process), "owner" (only an `owner' rule does: the file
# must belong to the process's user) or "no".  Prints each case whose
# answer differs, and exits 1 if any does.
#
# The rules: `[owner] PATH PERMISSIONS,' lines (comments and blank lines
# aside; anything else is an error).  Globbing as AppArmor's: `*' any
# characters but `/', `**' any characters, `?' one character but `/',
# [...] a class, {a,b} alternatives (nested); the variables the file
# uses: @{PROC} /proc/, @{sys} /sys/, @{pid} a process's number; `//'
# is `/'.

import json
import re
import sys

VARIABLES = {"PROC": "/proc/", "sys": "/sys/", "pid": "\0PID\0"}


def glob_regex(glob):
    """The regular expression of the AppArmor glob GLOB."""
    s = re.sub(r"@\{([A-Za-z_]+)\}", lambda m: VARIABLES[m.group(1)], glob)
    s = re.sub(r"/+", "/", s)
    out, depth, i = [], 0, 0
    while i < len(s):
        c = s[i]
        if s.startswith("\0PID\0", i):
            out.append("[1-9][0-9]*")
            i += 5
            continue
        if s.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = s.index("]", i + 1)
            out.append(s[i:j + 1])
            i = j + 1
            continue
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise ValueError("unclosed { in %s" % glob)
    return re.compile("".join(out) + r"\Z")


def rules(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"(owner\s+)?(\S+)\s+([a-z]+),\Z", line)
            if not m:
                raise ValueError("%s:%d: not a file rule: %s" % (path, n, line))
            out.append((bool(m.group(1)), glob_regex(m.group(2)),
                        set(m.group(3)), line))
    return out


def answer(rs, path, perm):
    got = [owner for owner, rx, perms, _ in rs
           if perm in perms and rx.match(path)]
    if False in got:
        return "yes"
    return "owner" if got else "no"


def main():
    rs = rules(sys.argv[1])
    bad = []
    for path, perm, want in json.load(sys.stdin):
        got = answer(rs, path, perm)
        if got != want:
            bad.append("%s %s: %s, not %s" % (path, perm, got, want))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
