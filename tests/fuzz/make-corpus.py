#!/usr/bin/env python3
"""Write the seed corpus for tests/fuzz/fuzz-plan.c into tests/fuzz/corpus.

Input layout (see fuzz-plan.c): byte 0 = flags (bit 0 fixed bias, bit 1
textrel, bit 2 64 KiB pages, bit 3 no_gaps, bit 7 glob mode), byte 1 =
kinds, bytes 2..9 = bias (little endian), then Elf64_Phdr records.  The
seeds are the layouts of the unit tests: a libc-sized object, the
big-code library, a 2 MiB-aligned one, a non-PIE program, RELRO splits,
plus a few glob patterns and /proc/self/cgroup texts (glob mode feeds
the same bytes to the cgroup readers).
"""
import os, struct, sys

PT_LOAD, PT_GNU_RELRO = 1, 0x6474E552
R, W, X = 4, 2, 1
M = 1 << 20


def phdr(t, flags, off, vaddr, filesz, memsz, align):
    return struct.pack("<IIQQQQQQ", t, flags, off, vaddr, vaddr, filesz, memsz, align)


def load(vaddr, filesz, memsz, off, flags, align=0x1000):
    return phdr(PT_LOAD, flags, off, vaddr, filesz, memsz, align)


def relro(vaddr, size):
    return phdr(PT_GNU_RELRO, R, vaddr, vaddr, size, size, 1)


def seed(flags, kinds, bias, *ph):
    return bytes([flags, kinds]) + struct.pack("<Q", bias) + b"".join(ph)


seeds = {
    "libc-like": seed(0, 0x1f, 0,
                      load(0, 0x28000, 0x28000, 0, R),
                      load(0x28000, 0x155000, 0x155000, 0x28000, R | X),
                      load(0x17d000, 0x56000, 0x56000, 0x17d000, R),
                      load(0x1d4f10, 0x5150, 0x12a60, 0x1d3f10, R | W),
                      relro(0x1d4f10, 0x30f0)),
    "big-default": seed(0, 0x07, 0,
                        load(0, 0x800, 0x800, 0, R),
                        load(0x1000, 24 * M, 24 * M, 0x1000, R | X),
                        load(0x1801000, 8 * M, 8 * M, 0x1801000, R),
                        load(0x2002e10, 12 * M + 0x11f0, 28 * M + 0x11f0, 0x2001e10, R | W),
                        relro(0x2002e10, 4 * M + 0x11f0)),
    "big-all-textrel": seed(2, 0x1f, 0,
                            load(0, 0x800, 0x800, 0, R),
                            load(0x1000, 24 * M, 24 * M, 0x1000, R | X),
                            load(0x2002e10, 12 * M, 28 * M, 0x2001e10, R | W),
                            relro(0x2002e10, 4 * M + 0x11f0)),
    "aligned-2m": seed(0, 0x1f, 0,
                       load(0, 0x1000, 0x1000, 0, R, 2 * M),
                       load(0x200000, 0x1234567, 0x1234567, 0x200000, R | X, 2 * M),
                       load(0x1600000, 0x7f0000, 0x7f0000, 0x1600000, R, 2 * M),
                       load(0x1ffde10, 0x4021f0, 0x2402000, 0x1dfde10, R | W, 2 * M),
                       relro(0x1ffde10, 0x4021f0)),
    "exec-fixed-nogaps": seed(1 | 8, 0x1f, 0x400000,
                              load(0x400000, 0x800, 0x800, 0, R),
                              load(0x401000, 10 * M, 10 * M, 0x1000, R | X),
                              load(0xe01000, 4 * M, 4 * M, 0xa01000, R)),
    "relro-split": seed(1, 0x1f, 0,
                        load(0, 0x1000, 0x1000, 0, R),
                        load(0x200000, 12 * M, 12 * M, 0x200000, R | W),
                        relro(0x200000, 5 * M + 0x800)),
    "rwx": seed(0, 0x1f, 0, load(0, 8 * M, 8 * M, 0, R | W | X)),
    "palign-8m-64k-pages": seed(4, 0x1f, 0,
                                load(0, 0x10000, 0x10000, 0, R, 8 * M),
                                load(0x10000, 24 * M, 24 * M, 0x10000, R | X, 8 * M)),
    "glob-1": bytes([0x80]) + b"libcrypto.so*\0libcrypto.so.3",
    "glob-2": bytes([0x80]) + b"lib[!a-c]?.so.[0-9]*\0libdx.so.1",
    "glob-3": bytes([0x80]) + b"*a*a*a*a*a*a*b\0" + b"a" * 60,
    "glob-4": bytes([0x80]) + b"mysqld::/usr/lib/*:[\\]\0/usr/lib/x",
    "cgroup-1": bytes([0x80]) + b"12:hugetlb:/a/b\n1:name=systemd:/u\n0::/u:1/x\n",
    "cgroup-2": bytes([0x80]) + b"0::/kubepods.slice/pod.slice/cri.scope\n0\n",
    # Resolve mode (bits 6 and 7): flags (secure, a policy file, a
    # tunables section, the program's path), each variable's value,
    # four environment strings, then the section's and the file's
    # bytes.  Every source, and AT_SECURE.
    "resolve-all": bytes([0xc0, 0x0e, 0x01, 0x03, 0x07, 0x41, 0x42, 0x80,
                          0x80, 0x00, 0x09, 0x12, 0x1b]) + bytes(range(40)),
    "resolve-secure": bytes([0xc0, 0x0f, 0x81, 0x82, 0x83, 0x43, 0x80,
                             0x80, 0x80, 0x01, 0x0a, 0x11, 0x1a])
                      + bytes([0x09, 0x00, 0x01, 0x02] * 6) + b"\x00\x03\x0e\x11",
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))
