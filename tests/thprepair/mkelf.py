# t-thprepair: a sparse file that hugeld-thp plans as an object.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# mkelf.py FILE MIB: FILE becomes MIB MiB long, holes but for its first
# page: an ELF header and one PT_LOAD, read and execute, over the whole
# file (what the thp backing's planner maps as text), as an attacker
# makes one to have root's repair fill the holes.
import struct
import sys

path, mib = sys.argv[1], int(sys.argv[2])
size = mib << 20
ehdr = struct.pack("<16sHHIQQQIHHHHHH",
                   b"\x7fELF\x02\x01\x01" + bytes(9), 3, 62, 1, 0, 64, 0, 0,
                   64, 56, 1, 64, 0, 0)
phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, size, size, 2 << 20)
with open(path, "wb") as f:
    f.write(ehdr + phdr)
    f.truncate(size)
