#!/usr/bin/python3
# hugeld check-arm64: coverage.py SMAPS OBJECT...: for each OBJECT (a
# path), the bytes of its executable segments on each page size in the
# process whose /proc/PID/smaps was copied to SMAPS (atexit-smaps):
# "OBJECT: TOTAL KiB: N KiB on P kB pages, ...; huge P%" (P: on 2 MiB
# and 64 KiB pages).  hugeld's mappings of the object are anonymous or
# hugetlbfs files, so the object's load bias comes from a mapping of
# its file that is left (its data, at least), and its segments'
# addresses from its program headers.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
import os
import struct
import sys


def phdrs(path):
    with open(path, "rb") as f:
        h = f.read(64)
        phoff, = struct.unpack_from("<Q", h, 32)
        phentsize, phnum = struct.unpack_from("<HH", h, 54)
        f.seek(phoff)
        data = f.read(phentsize * phnum)
    out = []
    for i in range(phnum):
        t, fl, off, va, _, fs, ms, _ = struct.unpack_from("<IIQQQQQQ", data, i * phentsize)
        if t == 1:
            out.append((fl, off, va, fs, ms))
    return out


def mappings(smaps):
    maps, cur = [], None
    with open(smaps) as f:
        for line in f:
            w = line.split()
            if "-" in w[0] and len(w) >= 5 and ":" in w[3]:
                s, e = (int(x, 16) for x in w[0].split("-"))
                cur = [s, e, int(w[2], 16), w[5] if len(w) > 5 else "", 0]
                maps.append(cur)
            elif w[0] == "KernelPageSize:" and cur is not None:
                cur[4] = int(w[1])
    return maps


def main():
    maps = mappings(sys.argv[1])
    for obj in sys.argv[2:]:
        real = os.path.realpath(obj)
        ph = phdrs(real)
        bias = None
        for s, e, off, path, _ in maps:
            if path != real:
                continue
            for fl, poff, va, fs, ms in ph:
                if poff <= off < poff + max(fs, 1):
                    bias = s - (va + off - poff)
                    break
            if bias is not None:
                break
        if bias is None:
            print("%s: not mapped" % obj)
            continue
        text = [((bias + va) & ~0xfff, (bias + va + ms + 0xfff) & ~0xfff)
                for fl, _, va, _, ms in ph if fl & 1]
        sizes, total = {}, 0
        for s, e, _, _, kps in maps:
            n = sum(max(0, min(e, b) - max(s, a)) for a, b in text)
            if n:
                sizes[kps] = sizes.get(kps, 0) + n
                total += n
        huge = sizes.get(2048, 0) + sizes.get(64, 0)
        print("%s: %d KiB: %s; huge %d%%" % (
            obj, total // 1024,
            ", ".join("%d KiB on %d kB pages" % (v // 1024, k) for k, v in sorted(sizes.items(), reverse=True)),
            100 * huge // total if total else 0))


main()
