# A strict reader of the Prometheus text format (0.0.4), for the tests
# of `hugeld status --all --prometheus' (tests/t-outputs.sh).
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   python3 promcheck.py FILE
#
# Exit 0 and print the samples as JSON ([name, {label: value}, value],
# label values unescaped) if FILE is what node_exporter's textfile
# collector reads without complaint, and what hugeld promises on top;
# else exit 1 with one line saying where and why.  Stricter than the
# format, never looser:
# - the bytes are UTF-8 (a collector drops a file that is not);
# - no control character anywhere but the newline that ends each line,
#   and that newline ends the file; no empty line;
# - `# HELP NAME TEXT' (TEXT escapes only \\ and \n), `# TYPE NAME TYPE'
#   before NAME's samples, at most once each;
# - a sample: NAME, optionally {LABEL="VALUE",...}, a space, a number
#   (Go's ParseFloat: decimals, exponents, NaN, +Inf, -Inf), optionally
#   a timestamp; a metric's samples together; no label twice in one
#   sample, no two samples with the same name and labels;
# - in a label value only the escapes \\, \" and \n (the Go parser
#   refuses any other), no raw double quote or backslash.

import json
import re
import sys
import unicodedata

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
                    r"(?:[eE][+-]?[0-9]+)?|Inf|NaN)\Z")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


class Bad(Exception):
    pass


def label_value(s, i):
    """The label value starting after the opening quote at S[I]: (value
    unescaped, index after the closing quote)."""
    out = []
    while True:
        if i >= len(s):
            raise Bad("label value not closed")
        c = s[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= len(s):
                raise Bad("a backslash ends the line")
            e = s[i + 1]
            if e not in '\\"n':
                raise Bad("escape \\%s in a label value (only \\\\, \\\" "
                          "and \\n are)" % e)
            out.append("\n" if e == "n" else e)
            i += 2
            continue
        out.append(c)
        i += 1


def sample(line):
    m = NAME.match(line)
    if not m:
        raise Bad("no metric name")
    name, i = m.group(0), m.end()
    labels = {}
    if i < len(line) and line[i] == "{":
        i += 1
        while True:
            if i < len(line) and line[i] == "}":
                i += 1
                break
            m = LABEL.match(line, i)
            if not m:
                raise Bad("no label name at column %d" % i)
            k = m.group(0)
            i = m.end()
            if line[i:i + 2] != '="':
                raise Bad("label %s: no =\" after it" % k)
            v, i = label_value(line, i + 2)
            if k in labels:
                raise Bad("label %s twice" % k)
            labels[k] = v
            if i < len(line) and line[i] == ",":
                i += 1
            elif i < len(line) and line[i] == "}":
                pass
            else:
                raise Bad("no , or } after label %s" % k)
    if i >= len(line) or line[i] != " ":
        raise Bad("no space before the value")
    rest = line[i + 1:].split(" ")
    if len(rest) not in (1, 2) or not NUMBER.match(rest[0]) \
            or (len(rest) == 2 and not re.match(r"-?[0-9]+\Z", rest[1])):
        raise Bad("not a value [timestamp]: %r" % line[i + 1:])
    return name, labels, rest[0]


def check(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Bad("not UTF-8 at byte %d" % e.start)
    if not text.endswith("\n"):
        raise Bad("the last line has no newline")
    samples = []
    helped, typed, done, seen = set(), {}, set(), set()
    current = None
    for n, line in enumerate(text[:-1].split("\n"), 1):
        try:
            for c in line:
                if unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs"):
                    raise Bad("a control character U+%04X" % ord(c))
            if line == "":
                raise Bad("an empty line")
            if line.startswith("#"):
                f = line.split(" ", 3)
                if len(f) >= 3 and f[1] in ("HELP", "TYPE"):
                    if not NAME.fullmatch(f[2]):
                        raise Bad("%s of a bad name" % f[1])
                    if f[2] in done or f[2] == current:
                        raise Bad("%s after %s's samples" % (f[1], f[2]))
                    if f[1] == "HELP":
                        if f[2] in helped:
                            raise Bad("HELP of %s twice" % f[2])
                        helped.add(f[2])
                        if re.search(r"\\[^\\n]|\\\Z", f[3] if len(f) > 3
                                     else ""):
                            raise Bad("escape in HELP other than \\\\ or \\n")
                    else:
                        if f[2] in typed:
                            raise Bad("TYPE of %s twice" % f[2])
                        if len(f) != 4 or f[3] not in TYPES:
                            raise Bad("bad TYPE line")
                        typed[f[2]] = f[3]
                continue
            name, labels, value = sample(line)
            if name != current:
                if name in done:
                    raise Bad("samples of %s not together" % name)
                if current is not None:
                    done.add(current)
                current = name
            key = (name, tuple(sorted(labels.items())))
            if key in seen:
                raise Bad("the same sample twice")
            seen.add(key)
            samples.append([name, labels, value])
        except Bad as e:
            raise Bad("line %d: %s" % (n, e))
    return samples


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    try:
        samples = check(data)
    except Bad as e:
        print("%s: %s" % (sys.argv[1], e))
        return 1
    json.dump(samples, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
