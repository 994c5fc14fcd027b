#!/usr/bin/env python3
"""Write damaged copies of an ELF shared object: mangle.py IN OUTDIR.

Each copy changes the program headers (or the file's length) in one way
that the loader has to cope with: truncated files, overlapping or
unaligned PT_LOADs, p_filesz > p_memsz, huge or odd p_align, zero-size
segments, a PT_GNU_RELRO outside every segment, and so on.
"""
import os, struct, sys

src, out = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
PT_LOAD, PT_GNU_RELRO, PT_DYNAMIC = 1, 0x6474E552, 2
FMT = "<IIQQQQQQ"   # type flags offset vaddr paddr filesz memsz align


def phdrs(d):
    return [list(struct.unpack_from(FMT, d, phoff + i * phentsize)) for i in range(phnum)]


def put(d, ph):
    for i, p in enumerate(ph):
        struct.pack_into(FMT, d, phoff + i * phentsize, *p)


def loads(ph):
    return [p for p in ph if p[0] == PT_LOAD]


def variant(name, fn):
    d = bytearray(data)
    ph = phdrs(d)
    r = fn(d, ph)
    if r is not None:
        d = r
    else:
        put(d, ph)
    with open(os.path.join(out, name), "wb") as f:
        f.write(d)


os.makedirs(out, exist_ok=True)
L = lambda ph: loads(ph)
text = lambda ph: [p for p in loads(ph) if p[1] & 1][0]
rw = lambda ph: [p for p in loads(ph) if p[1] & 2][0]

variant("ok.so", lambda d, ph: None)
variant("truncated-half.so", lambda d, ph: d[: len(d) // 2])
variant("truncated-in-text.so", lambda d, ph: d[: text(ph)[2] + 3 * 1024 * 1024])
variant("truncated-headers.so", lambda d, ph: d[: phoff + 2 * phentsize])
def overlap(d, ph):
    t = text(ph); l = L(ph); i = l.index(t)
    l[i + 1][3] = t[3] + 0x100000; l[i + 1][4] = l[i + 1][3]
    l[i + 1][2] = (l[i + 1][2] & ~0xfff) | (l[i + 1][3] & 0xfff)
variant("overlapping-loads.so", overlap)
def unaligned(d, ph):
    t = text(ph); t[3] += 0x800; t[4] = t[3]
variant("unaligned-load.so", unaligned)
def filesz_gt(d, ph):
    t = text(ph); t[5] = t[6] + 0x10000
variant("filesz-gt-memsz.so", filesz_gt)
def huge_align(d, ph):
    for p in L(ph): p[7] = 1 << 40
variant("p_align-1TiB.so", huge_align)
def odd_align(d, ph):
    for p in L(ph): p[7] = 12345
variant("p_align-odd.so", odd_align)
def align_2m(d, ph):
    for p in L(ph): p[7] = 0x200000
variant("p_align-2MiB-unaligned-vaddr.so", align_2m)
def zero_size(d, ph):
    t = text(ph); t[5] = 0; t[6] = 0
variant("zero-size-text.so", zero_size)
def relro_out(d, ph):
    for p in ph:
        if p[0] == PT_GNU_RELRO:
            p[3] = p[4] = 0x40000000; p[2] = 0
variant("relro-outside.so", relro_out)
def relro_text(d, ph):
    t = text(ph)
    for p in ph:
        if p[0] == PT_GNU_RELRO:
            p[3] = p[4] = t[3]; p[5] = p[6] = t[6]
variant("relro-over-text.so", relro_text)
def rwx(d, ph):
    text(ph)[1] |= 2
variant("text-rwx.so", rwx)
def unsorted(d, ph):
    l = L(ph)
    a, b = l[1], l[2]
    ia, ib = ph.index(a), ph.index(b)
    ph[ia], ph[ib] = b, a
variant("unsorted-loads.so", unsorted)
def offset_past_eof(d, ph):
    t = text(ph); t[2] += len(d) & ~0xfff
variant("offset-past-eof.so", offset_past_eof)
def memsz_huge(d, ph):
    rw(ph)[6] = 1 << 44
variant("bss-16TiB.so", memsz_huge)
print("wrote %d variants" % len(os.listdir(out)))
