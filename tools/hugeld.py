#!/usr/bin/python3
# hugeld: run programs with hugeld's loader, plan the huge page pool,
# show what is on huge pages, and keep perf working.
# Copyright (C) 2026 The hugeld authors.
# This file is part of hugeld, a patch set for the GNU C Library.
#
# The GNU C Library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Lesser General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
#
# The GNU C Library is distributed in the hope that it will be useful,
# but WITHOUT ANY WARRANTY; without even the implied warranty of
# MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
# Lesser General Public License for more details.
#
# You should have received a copy of the GNU Lesser General Public
# License along with the GNU C Library; if not, see
# <https://www.gnu.org/licenses/>.

"""The hugeld command (Python 3 standard library only).

run       run a program through hugeld's ld.so with the settings applied
plan      the huge pages a program and its libraries would take, computed
          by the loader's own planner (the hugeld-plan helper is built
          from elf/dl-hugepage-plan.c and elf/dl-hugepage-match.c), and
          the pool that N processes need; --apply reserves it
status    what of a running process is on huge pages, and the pool
perf-map  /tmp/perf-PID.map for the functions in huge-page text, so that
          perf can name them (huge pages are anonymous memory to perf)

Errors are one line on stderr, "hugeld: ...", with exit status 1 (2 for
a usage error), and nothing changed.
"""

import argparse
import errno
import json
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

VERSION = "@VERSION@"
# Replaced at build time by tools/Makefile; the fallbacks are for running
# tools/hugeld.py straight from a checkout.
_LDSO = "@LDSO@"
DEFAULT_LDSO = _LDSO if not _LDSO.startswith("@") else "/opt/hugeld/ld.so"
if VERSION.startswith("@"):
    VERSION = "0.1"

HUGE = 2 * 1024 * 1024          # The huge page size hugeld uses.
PAGE = os.sysconf("SC_PAGESIZE")
SYSFS_HUGE = "/sys/kernel/mm/hugepages/hugepages-2048kB"
SYSFS_NODES = "/sys/devices/system/node"
NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"
DEBUG_DIR = "/usr/lib/debug"
KINDS = ("text", "rodata", "relro", "data", "bss")


class Error(Exception):
    """A failure reported as one line, exit status 1."""


def warn(msg):
    print("hugeld: warning: " + msg, file=sys.stderr)


def mib(pages):
    n = pages * HUGE / (1 << 20)
    return "%d MiB" % n if n == int(n) else "%.1f MiB" % n


def plural(n, word, words=None):
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


# --- Settings -----------------------------------------------------------

def check_patterns(s, opt="--libs"):
    """Refuse pattern lists the loader would accept but that are almost
    certainly mistakes: empty patterns, unclosed brackets, a trailing
    backslash.  (The matching itself is the loader's.)"""
    if s is None or s == "":
        raise Error("%s: empty pattern list" % opt)
    for ch in "\n\0":
        if ch in s:
            raise Error("%s: a pattern contains a %s" %
                        (opt, "newline" if ch == "\n" else "NUL byte"))
    for p in s.split(":"):
        if p == "":
            raise Error("%s %r: empty pattern (two colons in a row, or a "
                        "colon at an end)" % (opt, s))
        i, n = 0, len(p)
        while i < n:
            c = p[i]
            if c == "\\":
                if i + 1 >= n:
                    raise Error("%s: pattern %r ends with a lone backslash"
                                % (opt, p))
                i += 2
                continue
            if c == "[":
                # As the loader's matcher: optional ! or ^, then a first
                # character that may be ], then up to the closing ].
                j = i + 1
                if j < n and p[j] in "!^":
                    j += 1
                first = True
                while j < n and (p[j] != "]" or first):
                    first = False
                    if p[j] == "\\" and j + 1 < n:
                        j += 1
                    j += 1
                if j >= n:
                    raise Error("%s: pattern %r has a '[' that is not "
                                "closed (write \\[ for a literal one)"
                                % (opt, p))
                i = j + 1
                continue
            i += 1
    return s


def check_segments(s, opt="--segments"):
    if s is None:
        return None
    if s == "":
        raise Error("%s: empty list" % opt)
    names = [x for x in s.split(",") if x != ""]
    bad = [x for x in names if x not in KINDS + ("all",)]
    if bad:
        raise Error("%s: unknown segment kind %r: use a comma list of text, "
                    "rodata, relro, data, bss or all" % (opt, bad[0]))
    if not names:
        raise Error("%s %r selects nothing" % (opt, s))
    return s


def positive_int(s):
    try:
        v = int(s, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % s)
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1: %r" % s)
    return v


def pid_arg(s):
    if not s.isdigit() or int(s) < 1:
        raise argparse.ArgumentTypeError("not a process ID: %r" % s)
    return int(s)


def ldso_path(args):
    p = getattr(args, "ldso", None) or os.environ.get("HUGELD_LDSO") \
        or DEFAULT_LDSO
    if not os.path.isfile(p) or not os.access(p, os.X_OK):
        raise Error("hugeld's loader %s is not installed (make install, or "
                    "--ldso PATH)" % p)
    return p


def helper_path():
    here = os.path.dirname(os.path.realpath(__file__))
    cands = [os.environ.get("HUGELD_PLAN"),
             os.path.join(here, "hugeld-plan"),
             os.path.join(here, "..", "libexec", "hugeld-plan"),
             os.path.join(here, "..", "build", "tools", "hugeld-plan")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise Error("the hugeld-plan helper is missing (make -C tools; "
                "or set HUGELD_PLAN)")


# --- ELF files ----------------------------------------------------------

PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_NOTE = 1, 2, 3, 4
PT_GNU_RELRO = 0x6474e552
PF_X, PF_W = 1, 2
SHT_SYMTAB, SHT_DYNSYM = 2, 11
STT_FUNC, STT_GNU_IFUNC = 2, 10
ET_EXEC, ET_DYN = 2, 3
DT_NULL, DT_STRTAB, DT_SONAME = 0, 5, 14


class Phdr(object):
    __slots__ = ("type", "flags", "offset", "vaddr", "filesz", "memsz",
                 "align")

    def __init__(self, t, flags, offset, vaddr, filesz, memsz, align):
        self.type, self.flags, self.offset = t, flags, offset
        self.vaddr, self.filesz, self.memsz, self.align = \
            vaddr, filesz, memsz, align


class Elf(object):
    """Just enough of an ELF64 little-endian reader."""

    def __init__(self, path, display=None):
        self.path = path
        self.name = display or path
        try:
            self.f = open(path, "rb")
        except OSError as e:
            raise Error("%s: %s" % (self.name, e.strerror))
        try:
            st = os.fstat(self.f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise Error("%s: not a regular file" % self.name)
            self.dev_ino = (st.st_dev, st.st_ino)
            h = self.f.read(64)
        except OSError as e:
            raise Error("%s: %s" % (self.name, e.strerror))
        if len(h) < 4 or h[:4] != b"\x7fELF":
            raise Error("%s is not an ELF file%s" % (
                self.name, " (a script? run its interpreter: "
                "hugeld run -- INTERPRETER %s)" % self.name
                if h[:2] == b"#!" else ""))
        if len(h) < 64 or h[4] != 2 or h[5] != 1:
            raise Error("%s: not a 64-bit little-endian ELF file" % self.name)
        (self.type, self.machine, _, _, self.phoff, self.shoff, _, _,
         self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", h, 16)
        if self.machine != 62:
            raise Error("%s: ELF machine %d, not x86-64" %
                        (self.name, self.machine))
        self.phdrs = []
        if self.phentsize == 56 and 0 < self.phnum < 1024:
            data = self.read(self.phoff, 56 * self.phnum)
            for i in range(len(data) // 56):
                t, fl, off, va, _, fs, ms, al = struct.unpack_from(
                    "<IIQQQQQQ", data, 56 * i)
                self.phdrs.append(Phdr(t, fl, off, va, fs, ms, al))
        self.loads = [p for p in self.phdrs
                      if p.type == PT_LOAD and p.memsz > 0]
        self._sections = None
        self._dyn = None

    def read(self, off, n):
        try:
            self.f.seek(off)
            return self.f.read(n)
        except (OSError, OverflowError, ValueError):
            return b""

    def close(self):
        self.f.close()

    @property
    def interp(self):
        for p in self.phdrs:
            if p.type == PT_INTERP:
                return self.read(p.offset, p.filesz).split(b"\0")[0] \
                    .decode("utf-8", "surrogateescape")
        return None

    @property
    def dynamic(self):
        return any(p.type == PT_DYNAMIC for p in self.phdrs)

    def vaddr_to_offset(self, va):
        for p in self.loads:
            if p.vaddr <= va < p.vaddr + p.filesz:
                return p.offset + va - p.vaddr
        return None

    @property
    def soname(self):
        if self._dyn is None:
            self._dyn = {}
            for p in self.phdrs:
                if p.type != PT_DYNAMIC:
                    continue
                data = self.read(p.offset, min(p.filesz, 16 * 1024))
                for i in range(len(data) // 16):
                    tag, val = struct.unpack_from("<qQ", data, 16 * i)
                    if tag == DT_NULL:
                        break
                    self._dyn.setdefault(tag, val)
        if DT_SONAME not in self._dyn or DT_STRTAB not in self._dyn:
            return None
        off = self.vaddr_to_offset(self._dyn[DT_STRTAB] + self._dyn[DT_SONAME])
        if off is None:
            return None
        return self.read(off, 256).split(b"\0")[0].decode(
            "utf-8", "surrogateescape") or None

    def relro(self):
        for p in self.phdrs:
            if p.type == PT_GNU_RELRO:
                return (p.vaddr & -PAGE, (p.vaddr + p.memsz) & -PAGE)
        return (0, 0)

    def extent(self):
        if not self.loads:
            return (0, 0)
        return (min(p.vaddr for p in self.loads) & -PAGE,
                max((p.vaddr + p.memsz + PAGE - 1) & -PAGE
                    for p in self.loads))

    def sections(self):
        if self._sections is None:
            self._sections = []
            if self.shentsize == 64 and 0 < self.shnum < 65536 and self.shoff:
                data = self.read(self.shoff, 64 * self.shnum)
                for i in range(len(data) // 64):
                    self._sections.append(struct.unpack_from(
                        "<IIQQQQIIQQ", data, 64 * i))
            names = None
            if self.shstrndx < len(self._sections):
                s = self._sections[self.shstrndx]
                names = self.read(s[4], s[5])
            out = []
            for s in self._sections:
                nm = ""
                if names is not None and s[0] < len(names):
                    end = names.find(b"\0", s[0])
                    nm = names[s[0]:end if end >= 0 else None] \
                        .decode("utf-8", "replace")
                out.append({"name": nm, "type": s[1], "flags": s[2],
                            "addr": s[3], "offset": s[4], "size": s[5],
                            "link": s[6], "entsize": s[9]})
            self._sections = out
        return self._sections

    def has_symtab(self):
        return any(s["type"] == SHT_SYMTAB and s["size"] > 0
                   for s in self.sections())

    def functions(self, which):
        """(value, size, name, bind) of the defined functions of the
        SHT_SYMTAB or SHT_DYNSYM table."""
        secs = self.sections()
        out = []
        for s in secs:
            if s["type"] != which or s["size"] == 0:
                continue
            if s["link"] >= len(secs):
                continue
            link = secs[s["link"]]
            strs = self.read(link["offset"], link["size"])
            data = self.read(s["offset"], s["size"])
            for (name, info, _, shndx, value, size) in \
                    struct.iter_unpack("<IBBHQQ", data[:len(data) // 24 * 24]):
                if shndx == 0 or (info & 0xf) not in (STT_FUNC, STT_GNU_IFUNC):
                    continue
                end = strs.find(b"\0", name)
                if name == 0 or end < 0:
                    continue
                out.append((value, size, strs[name:end].decode(
                    "utf-8", "replace"), info >> 4))
        return out

    def build_id(self):
        for p in self.phdrs:
            if p.type != PT_NOTE:
                continue
            data = self.read(p.offset, min(p.filesz, 65536))
            i = 0
            while i + 12 <= len(data):
                namesz, descsz, ntype = struct.unpack_from("<III", data, i)
                name = data[i + 12:i + 12 + namesz]
                d0 = i + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and name.rstrip(b"\0") == b"GNU":
                    return data[d0:d0 + descsz].hex()
                i = d0 + ((descsz + 3) & ~3)
        for s in self.sections():
            if s["name"] == ".note.gnu.build-id":
                data = self.read(s["offset"], s["size"])
                if len(data) > 16:
                    namesz, descsz, _ = struct.unpack_from("<III", data, 0)
                    d0 = 12 + ((namesz + 3) & ~3)
                    return data[d0:d0 + descsz].hex()
        return None

    def debuglink(self):
        for s in self.sections():
            if s["name"] == ".gnu_debuglink":
                return self.read(s["offset"], s["size"]).split(b"\0")[0] \
                    .decode("utf-8", "surrogateescape")
        return None

    def kind_of(self, lo, hi):
        """The kind (text, rodata, relro, data, bss, data+bss) of the
        unrelocated range [lo, hi), as the loader's planner names it."""
        for p in self.loads:
            ps = p.vaddr & -PAGE
            pe = (p.vaddr + p.memsz + PAGE - 1) & -PAGE
            if not ps <= lo < pe:
                continue
            if p.flags & PF_X:
                return "text"
            if not p.flags & PF_W:
                return "rodata"
            r0, r1 = self.relro()
            if r0 <= lo and hi <= r1:
                return "relro"
            d = (p.vaddr + p.filesz + PAGE - 1) & -PAGE
            if hi <= d:
                return "data"
            if lo >= d:
                return "bss"
            return "data+bss"
        return "?"


def is_hugeld_loader(path, ldso, _cache={}):
    """Is the file at PATH hugeld's ld.so (the installed one, or any
    build of it: its version string names hugeld)?"""
    try:
        real = os.path.realpath(path)
        if os.path.exists(ldso) and os.path.samefile(real, ldso):
            return True
        key = os.stat(real)[1:3]
    except OSError:
        return False
    if key not in _cache:
        try:
            with open(real, "rb") as f:
                data = f.read(8 << 20)
            _cache[key] = re.search(rb"GLIBC [^\0)]* hugeld [0-9]", data) \
                is not None
        except OSError:
            _cache[key] = False
    return _cache[key]


def resolve_program(prog):
    """PROG as a shell would run it: searched in PATH if it has no
    slash."""
    if "/" in prog:
        path = prog
    else:
        path = shutil.which(prog)
        if path is None:
            raise Error("%s: command not found" % prog)
    if not os.path.exists(path):
        raise Error("%s: no such file" % path)
    if os.path.isdir(path):
        raise Error("%s: is a directory" % path)
    return path


def check_program(path):
    """The ELF program at PATH, which hugeld's loader can run."""
    elf = Elf(path)
    if elf.type not in (ET_EXEC, ET_DYN):
        raise Error("%s: not an executable (ELF type %d)" % (path, elf.type))
    if not elf.dynamic:
        raise Error("%s is statically linked: no dynamic loader is involved, "
                    "so hugeld cannot place it" % path)
    return elf


# --- The pool -----------------------------------------------------------

def read_int(path):
    with open(path) as f:
        return int(f.read().split()[0])


def pool_info():
    """The 2 MiB pool (HugePages_Total/Free/Rsvd/Surp for 2 MiB pages),
    overall and per NUMA node, or None without hugetlb support."""
    if not os.path.isdir(SYSFS_HUGE):
        return None
    try:
        p = {"page_size": HUGE,
             "total": read_int(SYSFS_HUGE + "/nr_hugepages"),
             "free": read_int(SYSFS_HUGE + "/free_hugepages"),
             "reserved": read_int(SYSFS_HUGE + "/resv_hugepages"),
             "surplus": read_int(SYSFS_HUGE + "/surplus_hugepages")}
    except (OSError, ValueError, IndexError):
        return None
    p["in_use"] = p["total"] - p["free"]
    p["available"] = p["free"] - p["reserved"]
    nodes = []
    try:
        names = sorted((n for n in os.listdir(SYSFS_NODES)
                        if re.match(r"node[0-9]+$", n)),
                       key=lambda n: int(n[4:]))
    except OSError:
        names = []
    for n in names:
        d = os.path.join(SYSFS_NODES, n, "hugepages/hugepages-2048kB")
        try:
            nodes.append({"node": int(n[4:]),
                          "total": read_int(d + "/nr_hugepages"),
                          "free": read_int(d + "/free_hugepages"),
                          "surplus": read_int(d + "/surplus_hugepages")})
        except (OSError, ValueError, IndexError):
            pass
    p["nodes"] = nodes
    return p


def pool_line(p):
    if p is None:
        return "no 2 MiB huge page support in this kernel"
    s = ("HugePages_Total %d, Free %d, Rsvd %d, Surp %d: %d in use, "
         "%d available" % (p["total"], p["free"], p["reserved"],
                            p["surplus"], p["in_use"], p["available"]))
    if len(p["nodes"]) > 1:
        s += "; " + ", ".join("node%d %d/%d free" % (n["node"], n["free"],
                                                     n["total"])
                              for n in p["nodes"])
    return s


# --- run ----------------------------------------------------------------

def settings(args, cmd):
    """LD_HUGEPAGE_LIBS and LD_HUGEPAGE_SEGMENTS for CMD: the options, else
    the environment; checked, one clear error if unusable."""
    libs = args.libs if args.libs is not None \
        else os.environ.get("LD_HUGEPAGE_LIBS")
    if libs is None or libs == "":
        raise Error("%s: nothing selected: give --libs PATTERNS (or set "
                    "LD_HUGEPAGE_LIBS)" % cmd)
    check_patterns(libs, "--libs" if args.libs is not None
                   else "LD_HUGEPAGE_LIBS")
    segs = args.segments if args.segments is not None \
        else os.environ.get("LD_HUGEPAGE_SEGMENTS")
    if segs:
        check_segments(segs, "--segments" if args.segments is not None
                       else "LD_HUGEPAGE_SEGMENTS")
    return libs, segs


def cmd_run(args):
    cmd = list(args.command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("hugeld run: no program given (hugeld run "
                         "[OPTIONS] -- PROG ARGS...)")
    libs, segs = settings(args, "run")
    ldso = ldso_path(args)
    path = resolve_program(cmd[0])
    elf = check_program(path)
    interp = elf.interp
    elf.close()
    if args.direct and not (interp and is_hugeld_loader(interp, ldso)):
        raise Error("--direct: %s's interpreter is %s, not hugeld's loader "
                    "(relink with -Wl,--dynamic-linker=%s, or leave out "
                    "--direct)" % (path, interp or "none", ldso))
    if not args.no_pool_check:
        p = pool_info()
        if p is None:
            raise Error("this kernel has no 2 MiB huge pages (no %s)"
                        % SYSFS_HUGE)
        if p["available"] <= 0:
            raise Error("no free huge pages (HugePages_Total %d, Free %d, "
                        "Rsvd %d): reserve some first, e.g. hugeld plan %s "
                        "--libs '%s' --apply (as root); or --no-pool-check"
                        % (p["total"], p["free"], p["reserved"], cmd[0],
                           libs))
    env = dict(os.environ)
    env["LD_HUGEPAGE_LIBS"] = libs
    if segs:
        env["LD_HUGEPAGE_SEGMENTS"] = segs
    if args.debug is not None:
        env["LD_DEBUG"] = "hugepages"
        if args.debug != "-":
            env["LD_DEBUG_OUTPUT"] = args.debug
    if args.direct:
        argv = [cmd[0]] + cmd[1:]
        exe = path
    else:
        # ld.so runs PATH; the program sees argv[0] as typed.
        argv = [ldso, "--argv0", cmd[0], path] + cmd[1:]
        exe = ldso
    sys.stdout.flush()
    sys.stderr.flush()
    if not args.perf_map:
        try:
            os.execve(exe, argv, env)
        except OSError as e:
            raise Error("cannot run %s: %s" % (exe, e.strerror))
    return run_with_perf_map(exe, argv, env, args)


def run_with_perf_map(exe, argv, env, args):
    """Run the program as a child and keep /tmp/perf-PID.map up to date
    while its huge page mappings change (start-up, dlopen)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.execve(exe, argv, env)
        except OSError as e:
            os.write(w, ("%d" % e.errno).encode())
        os._exit(127)
    os.close(w)
    failed = os.read(r, 64)
    os.close(r)
    if failed:
        os.waitpid(pid, 0)
        raise Error("cannot run %s: %s" % (exe, os.strerror(int(failed))))
    # The terminal sends SIGINT and SIGQUIT to the child too.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)
    def forward(sig, frame):
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(s, forward)
    last = None
    delay = 0.01
    cache = {}
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done == pid:
            break
        try:
            with open("/proc/%d/maps" % pid) as f:
                sig = tuple(l.split(None, 1)[0] for l in f
                            if "/anon_hugepage" in l)
        except OSError:
            sig = last
        if sig and sig != last:
            try:
                write_perf_map(pid, args.perf_map_output, args.debug_dir,
                               cache, quiet=True)
                last = sig
            except Error as e:
                warn(str(e))
                last = sig
            delay = 0.01
        time.sleep(delay)
        delay = min(delay * 2, 0.2)
    if os.WIFSIGNALED(status):
        # Die of the same signal, as a shell would see it; but do not
        # dump a core of hugeld itself.
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
                   signal.SIGKILL, signal.SIGPIPE, signal.SIGALRM,
                   signal.SIGUSR1, signal.SIGUSR2):
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        return 128 + sig
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


# --- plan ---------------------------------------------------------------

def run_helper(args_list):
    helper = helper_path()
    env = dict(os.environ)
    for v in ("LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS"):
        env.pop(v, None)
    try:
        p = subprocess.run([helper] + args_list, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
    except OSError as e:
        raise Error("cannot run %s: %s" % (helper, e.strerror))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Error(re.sub(r"^hugeld-plan: ", "", msg[0]) if msg
                    else "%s failed (status %d)" % (helper, p.returncode))
    try:
        return json.loads(p.stdout.decode("utf-8", "surrogateescape"))
    except ValueError as e:
        raise Error("%s printed bad JSON: %s" % (helper, e))


def ldso_list(ldso, path):
    """The objects ld.so loads for PATH, from the loader's own
    `ld.so --list': [(name, path or None)]."""
    env = dict(os.environ)
    for v in ("LD_HUGEPAGE_LIBS", "LD_HUGEPAGE_SEGMENTS", "LD_DEBUG",
              "LD_DEBUG_OUTPUT", "LD_TRACE_LOADED_OBJECTS"):
        env.pop(v, None)
    try:
        p = subprocess.run([ldso, "--list", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
    except OSError as e:
        raise Error("cannot run %s: %s" % (ldso, e.strerror))
    out = p.stdout.decode("utf-8", "surrogateescape")
    if p.returncode != 0 and "=>" not in out:
        err = (p.stderr.decode("utf-8", "replace").strip() or out.strip()) \
            .splitlines()
        raise Error("%s --list %s failed: %s" % (
            ldso, path, re.sub(r"^\S+: ", "", err[0]) if err
            else "status %d" % p.returncode))
    objs = []
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"^(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
        if m:
            objs.append((m.group(1), None if m.group(2) == "not found"
                         else m.group(2)))
            continue
        m = re.match(r"^(\S.*?) \(0x[0-9a-f]+\)$", line)
        if m:
            objs.append((m.group(1), m.group(1) if "/" in m.group(1)
                         else None))
    return objs


def summarize(o):
    by = {}
    for z in o.get("zones", []):
        for k in z["kind"].split("+"):
            by[k] = by.get(k, 0) + (z["pages"] if "+" not in z["kind"]
                                    else 0)
        if "+" in z["kind"]:
            by[z["kind"]] = by.get(z["kind"], 0) + z["pages"]
    return by


def cmd_plan(args):
    if args.apply and os.geteuid() != 0:
        raise Error("--apply needs root: it writes %s" % (
            NR_HUGEPAGES if args.node is None else SYSFS_NODES +
            "/nodeN/hugepages/hugepages-2048kB/nr_hugepages"))
    if args.node is not None and not args.apply:
        raise UsageError("hugeld plan: --node only goes with --apply")
    libs, segs = settings(args, "plan")
    nodes = None
    pool = pool_info()
    if args.apply and pool is None:
        raise Error("this kernel has no 2 MiB huge pages (no %s)"
                    % SYSFS_HUGE)
    if args.node is not None:
        have = [n["node"] for n in pool["nodes"]]
        try:
            nodes = sorted(set(int(x) for x in args.node.split(",")))
        except ValueError:
            raise Error("--node: not a list of node numbers: %r" % args.node)
        for n in nodes:
            if n not in have:
                raise Error("--node: no NUMA node %d (this machine has %s)"
                            % (n, ", ".join(map(str, have)) or "none"))
    ldso = ldso_path(args)
    path = resolve_program(args.program)
    elf = check_program(path)
    interp = elf.interp
    library = not interp and elf.soname is not None
    elf.close()
    direct_ok = bool(interp) and is_hugeld_loader(interp, ldso)
    if args.direct and not direct_ok:
        raise Error("--direct: %s's interpreter is %s, not hugeld's loader"
                    % (path, interp or "none"))

    # The objects, as the loader finds them.
    listed = ldso_list(ldso, path)
    missing = [n for n, p in listed if p is None and n not in
               ("linux-vdso.so.1", "linux-gate.so.1")]
    if missing:
        raise Error("%s: %s not found (the program would not start)"
                    % (path, missing[0]))
    libpaths = []
    skipped = []
    seen = set()

    def file_id(p):
        try:
            st = os.stat(p)
            return (st.st_dev, st.st_ino)
        except OSError:
            return p

    def is_loader(name, p):
        if interp and name == interp:
            return True
        if not os.path.basename(p).startswith("ld-linux") and \
                not os.path.basename(name).startswith("ld-linux"):
            try:
                return os.path.samefile(p, ldso)
            except OSError:
                return False
        return True

    seen.add(file_id(path))
    for name, p in listed:
        if p is None:
            continue
        if is_loader(name, p):
            skipped.append((p, "the loader itself (never moved)"))
            seen.add(file_id(p))
            continue
        if file_id(p) not in seen:
            seen.add(file_id(p))
            libpaths.append(p)
    # Libraries the program dlopens, and what they need that is not
    # loaded yet (found as `ld.so --list' finds it for the library).
    dlopened = []
    for d in args.dlopen or []:
        if not os.path.isfile(d):
            raise Error("--dlopen %s: no such file" % d)
        Elf(d).close()
        if file_id(d) in seen:
            skipped.append((d, "--dlopen: already loaded"))
            continue
        seen.add(file_id(d))
        libpaths.append(d)
        dlopened.append(d)
        for name, p in ldso_list(ldso, d):
            if p is None and name not in ("linux-vdso.so.1",
                                          "linux-gate.so.1"):
                raise Error("--dlopen %s: %s not found" % (d, name))
            if p is None or is_loader(name, p) or file_id(p) in seen:
                continue
            seen.add(file_id(p))
            libpaths.append(p)

    common = ["--libs", libs] + (["--segments", segs] if segs else [])
    res_libs = run_helper(common + libpaths)["objects"] if libpaths else []
    # The main program: as `hugeld run' runs it (ld.so command), or as
    # the kernel maps it (--direct, or for the note).
    res_main = run_helper(common + [path])["objects"][0]
    res_kernel = None
    if direct_ok:
        res_kernel = run_helper(common + ["--kernel", "--alias", path,
                                          "--name", os.path.realpath(path),
                                          path])["objects"][0]
    main = res_kernel if args.direct else res_main
    main["role"] = "program"
    objects = [main] + res_libs
    for o in res_libs:
        o["role"] = "dlopen" if o["file"] in dlopened else "library"

    per_process = sum(o["huge_pages"] for o in objects if o["selected"])
    need = per_process * args.copies
    # A debugger's breakpoint in huge-page text of a process with forked
    # children needs a spare huge page for the copy (README: "Debuggers
    # and forked children"); at most one per text page.
    text_pages = sum(z["pages"] for o in objects if o["selected"]
                     for z in o.get("zones") or [] if z["kind"] == "text")
    result = {
        "program": path,
        "ldso": ldso,
        "mode": "direct" if args.direct else "library" if library
        else "ldso-command",
        "settings": {"libs": libs, "segments": segs or "text,rodata,relro"},
        "objects": objects,
        "skipped": [{"path": p, "why": w} for p, w in skipped],
        "pages_per_process": per_process,
        "copies": args.copies,
        "pages_needed": need,
        "debugger_spare_pages": text_pages,
        "pool": pool,
    }
    if res_kernel is not None and "bias_range" in res_kernel \
            and res_kernel["selected"]:
        result["direct_start"] = res_kernel["bias_range"]
    elif res_kernel is not None and res_kernel["selected"]:
        result["direct_start"] = {"min_pages": res_kernel["huge_pages"],
                                  "max_pages": res_kernel["huge_pages"]}

    applied = None
    if args.apply:
        applied = apply_pool(need, nodes)
        result["applied"] = applied
        result["pool"] = pool_info()
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return 0
    print_plan(result, args.verbose)
    if applied is not None:
        for a in applied:
            where = "node %d" % a["node"] if a["node"] is not None \
                else "pool"
            if a["old"] == a["new"]:
                print("applied: %s already has %d available huge pages "
                      "(nr_hugepages %d): nothing to do"
                      % (where, a["available"], a["old"]))
            else:
                print("applied: %s nr_hugepages %d -> %d"
                      % (where, a["old"], a["new"]))
    return 0


def print_plan(r, verbose):
    how = {"direct": "started directly, hugeld as its PT_INTERP",
           "library": "a shared library, as ld.so loads it",
           "ldso-command": "run by hugeld's ld.so, as hugeld run does"}
    print("hugeld plan: %s (%s)" % (r["program"], how[r["mode"]]))
    print("LD_HUGEPAGE_LIBS=%s  LD_HUGEPAGE_SEGMENTS=%s" % (
        r["settings"]["libs"], r["settings"]["segments"]))
    print()
    rows = [("OBJECT", "SELECTED BY") + KINDS + ("PAGES",)]
    unselected = 0
    for o in r["objects"]:
        name = o["path"]
        if o.get("role") == "dlopen":
            name += " (dlopen)"
        if not o["selected"]:
            # The program is always shown; other objects with -v.
            if verbose or o.get("role") == "program":
                rows.append((name, "-") + ("",) * len(KINDS) + ("-",))
            else:
                unselected += 1
            continue
        by = summarize(o)
        cells = []
        for k in KINDS:
            cells.append(str(by[k]) if by.get(k) else "-")
        if by.get("data+bss"):
            cells[3] = "%d(+bss)" % by["data+bss"]
        sel = '"%s" (%s)' % (o["pattern"], o["matched_by"])
        if o["error"]:
            sel += ": " + o["error"]
        rows.append((name, sel) + tuple(cells) + (str(o["huge_pages"]),))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i])
                        for i, c in enumerate(row)).rstrip())
    if unselected:
        print("(and %s not selected; -v lists them)"
              % plural(unselected, "other object"))
    for s in r["skipped"]:
        print("(%s: %s)" % (s["path"], s["why"]))
    if verbose:
        for o in r["objects"]:
            if not o["selected"]:
                continue
            print()
            print("%s:%s" % (o["path"], " text relocations," if o["textrel"]
                             else ""))
            if o["error"]:
                print("  ordinary pages: %s" % o["error"])
                continue
            items = [(z["start"], z["end"], z["kind"], "%s on huge pages" %
                      plural(z["pages"], "page")) for z in o["zones"]]
            items += [(s["start"], s["end"], s["kind"],
                       "ordinary pages: " + s["reason"]) for s in o["small"]]
            for a, b, k, what in sorted(items):
                print("  %-8s [%#x, %#x)  %s" % (k, a, b, what))
            if o["type"] == "DYN" and o["mode"] == "ldso":
                print("  load address = %#x modulo %#x" % (o["bias"],
                                                          o["modulus"]))
    n = r["pages_per_process"]
    print()
    print("per process: %s (%s)" % (plural(n, "huge page"), mib(n)))
    ds = r.get("direct_start")
    if ds and r["mode"] != "direct":
        if ds["min_pages"] == ds["max_pages"]:
            print("note: started directly (its PT_INTERP is hugeld), the "
                  "program itself takes %s" % plural(ds["max_pages"],
                                                     "page"))
        else:
            print("note: started directly (its PT_INTERP is hugeld), the "
                  "kernel picks the program's address and it takes %d to "
                  "%d pages; --direct counts the most" % (ds["min_pages"],
                                                          ds["max_pages"]))
    elif r["mode"] == "direct" and ds and ds["min_pages"] != ds["max_pages"]:
        print("note: the kernel picks the program's address: %d to %d "
              "pages; counted: %d" % (ds["min_pages"], ds["max_pages"],
                                      ds["max_pages"]))
    print("pool for %s: nr_hugepages >= %d (%s)" % (
        plural(r["copies"], "process", "processes"), r["pages_needed"],
        mib(r["pages_needed"])))
    if r.get("debugger_spare_pages"):
        print("debugger: a breakpoint in huge-page text of a process with "
              "forked children takes one spare huge page per 2 MiB page it "
              "lands on (up to %d here); with none spare the children die "
              "of SIGBUS" % r["debugger_spare_pages"])
    p = r["pool"]
    print("pool now: %s" % pool_line(p))
    if p is not None and "applied" not in r:
        if p["available"] >= r["pages_needed"]:
            print("enough: %d huge pages available" % p["available"])
        else:
            print("short by %d: run with --apply (as root) to reserve them"
                  % (r["pages_needed"] - p["available"]))


def write_sysfs(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


def apply_pool(need, nodes):
    """Make NEED huge pages available (in the whole pool, or on each of
    NODES) by growing nr_hugepages; never shrinks it.  All or nothing:
    if the kernel cannot find the pages, the old sizes are put back."""
    pool = pool_info()
    plans = []
    if nodes is None:
        avail = pool["available"]
        old = pool["total"]
        new = old + max(0, need - avail)
        plans.append({"node": None, "file": SYSFS_HUGE + "/nr_hugepages",
                      "old": old, "new": new, "available": avail})
    else:
        for n in nodes:
            info = [x for x in pool["nodes"] if x["node"] == n][0]
            # Reservations are not counted per node; take them off the
            # free pages of every node, to be safe.
            avail = info["free"] - pool["reserved"]
            old = info["total"]
            new = old + max(0, need - avail)
            plans.append({"node": n, "file": os.path.join(
                SYSFS_NODES, "node%d" % n,
                "hugepages/hugepages-2048kB/nr_hugepages"),
                "old": old, "new": new, "available": avail})
    done = []
    try:
        for p in plans:
            if p["new"] == p["old"]:
                continue
            done.append(p)
            try:
                write_sysfs(p["file"], p["new"])
                got = read_int(p["file"])
            except OSError as e:
                raise Error("cannot write %s: %s" % (p["file"], e.strerror))
            if got < p["new"]:
                raise Error("the kernel found only %d of the %d huge pages "
                            "asked for%s (memory too fragmented or too "
                            "small); the pool is left as it was" % (
                                got, p["new"], "" if p["node"] is None
                                else " on node %d" % p["node"]))
    except Error:
        for p in reversed(done):
            try:
                write_sysfs(p["file"], p["old"])
            except OSError:
                pass
        raise
    return plans


# --- Processes ----------------------------------------------------------

class Mapping(object):
    __slots__ = ("start", "end", "perms", "offset", "dev", "inode", "path",
                 "kps", "hugetlb", "rss", "deleted")

    def __init__(self, line):
        f = line.split(None, 5)
        a, b = f[0].split("-")
        self.start, self.end = int(a, 16), int(b, 16)
        self.perms = f[1]
        self.offset = int(f[2], 16)
        mj, mn = f[3].split(":")
        self.dev = (int(mj, 16), int(mn, 16))
        self.inode = int(f[4])
        path = f[5].rstrip("\n") if len(f) > 5 else ""
        self.deleted = path.endswith(" (deleted)")
        self.path = path[:-10] if self.deleted else path
        self.kps = 4
        self.hugetlb = 0
        self.rss = 0

    @property
    def huge(self):
        return self.kps > PAGE // 1024


def proc_error(pid, e, what):
    if isinstance(e, (FileNotFoundError, ProcessLookupError)) or \
            e.errno in (errno.ENOENT, errno.ESRCH):
        return Error("process %d does not exist (or has exited)" % pid)
    if e.errno in (errno.EACCES, errno.EPERM):
        return Error("cannot read /proc/%d/%s: permission denied%s" % (
            pid, what, "" if os.geteuid() == 0
            else " (another user's process: run as root)"))
    return Error("cannot read /proc/%d/%s: %s" % (pid, what, e.strerror))


def read_smaps(pid):
    maps = []
    try:
        with open("/proc/%d/smaps" % pid) as f:
            cur = None
            for line in f:
                k = line.split(None, 1)[0] if line.strip() else ""
                if "-" in k and not k.endswith(":"):
                    cur = Mapping(line)
                    maps.append(cur)
                elif cur is None:
                    continue
                elif k == "KernelPageSize:":
                    cur.kps = int(line.split()[1])
                elif k in ("Private_Hugetlb:", "Shared_Hugetlb:"):
                    cur.hugetlb += int(line.split()[1]) * 1024
                elif k == "Rss:":
                    cur.rss = int(line.split()[1]) * 1024
    except OSError as e:
        raise proc_error(pid, e, "smaps")
    if not maps and not os.path.exists("/proc/%d/exe" % pid):
        # A zombie has no memory.
        try:
            os.readlink("/proc/%d/exe" % pid)
        except OSError:
            raise Error("process %d does not exist (or has exited)" % pid)
    return maps


class ProcObject(object):
    def __init__(self, path, maps):
        self.path = path
        self.maps = maps
        self.elf = None
        self.bias = None
        self.extent = None
        self.huge = []


def open_mapped_elf(pid, m, cache):
    """The ELF file behind mapping M of process PID: the file at its
    path if it is still the same inode, else through
    /proc/PID/map_files (root), else /proc/PID/root."""
    key = (m.dev, m.inode)
    if key in cache:
        return cache[key]
    cands = []
    if not m.deleted:
        cands.append(m.path)
        cands.append("/proc/%d/root%s" % (pid, m.path))
    cands.append("/proc/%d/map_files/%x-%x" % (pid, m.start, m.end))
    elf = None
    for c in cands:
        try:
            st = os.stat(c)
        except OSError:
            continue
        if st.st_ino != m.inode or (os.major(st.st_dev),
                                    os.minor(st.st_dev)) != m.dev:
            continue
        try:
            elf = Elf(c, display=m.path)
            break
        except Error:
            break
    cache[key] = elf
    return elf


def load_bias(elf, maps):
    """The load bias of ELF mapped as MAPS: what most of its file-backed
    mappings agree on."""
    votes = {}
    for m in maps:
        if m.perms.startswith("---"):
            continue        # ld.so's gaps keep the first segment's file.
        for p in elf.loads:
            o0 = p.offset & -PAGE
            o1 = (p.offset + p.filesz + PAGE - 1) & -PAGE
            if o0 <= m.offset < o1 and m.offset + (m.end - m.start) <= o1:
                b = m.start - ((p.vaddr & -PAGE) + (m.offset - o0))
                votes[b] = votes.get(b, 0) + (m.end - m.start)
                break
    if not votes:
        return None
    return max(votes.items(), key=lambda kv: kv[1])[0]


def process_objects(pid, maps, cache):
    """The ELF objects of the process and their huge page ranges."""
    groups = {}
    order = []
    for m in maps:
        if m.huge or m.inode == 0 or not m.path.startswith("/") \
                or m.path.startswith("/anon_hugepage"):
            continue
        key = (m.dev, m.inode, m.path)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(m)
    objs = []
    for key in order:
        ms = groups[key]
        elf = open_mapped_elf(pid, ms[0], cache)
        if elf is None or not elf.loads:
            continue
        o = ProcObject(key[2], ms)
        o.elf = elf
        o.bias = load_bias(elf, ms)
        if o.bias is None:
            continue
        lo, hi = elf.extent()
        o.extent = (o.bias + lo, o.bias + hi)
        objs.append(o)
    others = []
    for m in maps:
        if not m.huge:
            continue
        owner = None
        for o in objs:
            if o.extent[0] <= m.start and m.end <= o.extent[1]:
                owner = o
                break
        if owner is None:
            others.append(m)
        else:
            owner.huge.append(m)
    return objs, others


def read_environ(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            data = f.read()
    except OSError:
        return None
    env = {}
    for item in data.split(b"\0"):
        if b"=" in item:
            k, v = item.split(b"=", 1)
            env[k.decode("utf-8", "replace")] = v.decode("utf-8",
                                                          "surrogateescape")
    return env


def ldso_command_program(pid):
    """The program a `ld.so [OPTIONS] PROGRAM' process runs."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    takes = (b"--library-path", b"--glibc-hwcaps-prepend",
             b"--glibc-hwcaps-mask", b"--inhibit-rpath", b"--audit",
             b"--preload", b"--argv0")
    i = 1
    while i < len(argv) and argv[i].startswith(b"--"):
        i += 2 if argv[i] in takes else 1
    if i < len(argv) and argv[i]:
        return argv[i].decode("utf-8", "surrogateescape")
    return None


def command_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def process_status(pid, cache, ldso, detail=True):
    maps = read_smaps(pid)
    objs, others = process_objects(pid, maps, cache)
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
    except OSError:
        exe = None
    st = {"pid": pid, "command": command_of(pid), "exe": exe}
    loader = None
    for o in objs:
        if (o.elf.soname or "").startswith("ld-linux"):
            loader = o.path
            break
    st["loader"] = loader
    st["hugeld"] = bool(loader) and is_hugeld_loader(loader, ldso)
    st["ldso_command"] = bool(exe and loader) and exe == loader
    st["program"] = exe
    if st["ldso_command"]:
        st["program"] = ldso_command_program(pid) or exe
    env = read_environ(pid)
    st["settings"] = None if env is None else {
        "libs": env.get("LD_HUGEPAGE_LIBS"),
        "segments": env.get("LD_HUGEPAGE_SEGMENTS")}
    olist = []
    total = 0
    for o in objs:
        if not o.huge:
            continue
        ranges = []
        for m in sorted(o.huge, key=lambda m: m.start):
            pages = (m.end - m.start) // (m.kps * 1024) \
                if m.kps * 1024 == HUGE else (m.end - m.start) // HUGE
            used = m.hugetlb // HUGE
            total += used
            ranges.append({
                "kind": o.elf.kind_of(m.start - o.bias, m.end - o.bias),
                "start": m.start, "end": m.end,
                "object_start": m.start - o.bias, "object_end": m.end - o.bias,
                "perms": m.perms, "kernel_page_kb": m.kps,
                "pages": pages, "pages_in_use": used})
        olist.append({"path": o.path, "bias": o.bias,
                      "pages": sum(r["pages_in_use"] for r in ranges),
                      "ranges": ranges})
    oth = []
    for m in others:
        used = m.hugetlb // HUGE
        total += used
        oth.append({"start": m.start, "end": m.end, "perms": m.perms,
                    "path": m.path, "kernel_page_kb": m.kps,
                    "pages_in_use": used})
    st["objects"] = olist
    st["other_ranges"] = oth
    st["pages"] = total
    # Objects that LD_HUGEPAGE_LIBS selects but that have no huge page
    # (pool empty when they were loaded, not loaded by hugeld, ...).
    st["selected_without_huge_pages"] = []
    if detail and st["settings"] and st["settings"]["libs"]:
        cand = [o for o in objs if not o.huge and o.path != loader]
        st["selected_without_huge_pages"] = selected_objects(
            cand, st["settings"], pid)
    return st


def selected_objects(objs, settings, pid):
    """Which of OBJS (by the path they are mapped from, or DT_SONAME)
    the process's LD_HUGEPAGE_LIBS selects, with the loader's matcher,
    and the pages their plan would take."""
    try:
        check_patterns(settings["libs"])
    except Error:
        return []
    out = []
    args = ["--libs", settings["libs"]]
    if settings.get("segments"):
        try:
            check_segments(settings["segments"])
            args += ["--segments", settings["segments"]]
        except Error:
            pass
    for o in objs:
        try:
            r = run_helper(args + ["--name", o.path, o.elf.path])
        except Error:
            continue
        x = r["objects"][0]
        if x["selected"]:
            out.append({"path": o.path, "pattern": x["pattern"],
                        "matched_by": x["matched_by"],
                        "planned_pages": x["huge_pages"]})
    return out


def cmd_status(args):
    ldso = getattr(args, "ldso", None) or os.environ.get("HUGELD_LDSO") \
        or DEFAULT_LDSO
    cache = {}
    if args.all:
        if args.pid is not None:
            raise UsageError("hugeld status: give a PID or --all, not both")
        return status_all(args, cache, ldso)
    if args.pid is None:
        raise UsageError("hugeld status: give a PID or --all")
    st = process_status(args.pid, cache, ldso)
    st["pool"] = pool_info()
    if args.json:
        json.dump(st, sys.stdout, indent=1)
        print()
        return 0
    print_status(st)
    return 0


def display_name(st):
    if st["ldso_command"] and st["program"]:
        return "%s via ld.so" % os.path.basename(st["program"])
    return st["command"]


def print_status(st):
    nobj = len(st["objects"])
    print("process %d (%s): %s (%s) in %s%s" % (
        st["pid"], display_name(st), plural(st["pages"], "huge page"),
        mib(st["pages"]), plural(nobj, "object"),
        ", %s of other memory" % plural(len(st["other_ranges"]), "range")
        if st["other_ranges"] else ""))
    if st["program"]:
        print("  program: %s" % st["program"])
    if st["loader"]:
        print("  loader: %s%s%s" % (
            st["loader"], " (hugeld)" if st["hugeld"] else " (not hugeld)",
            ", run as a command" if st["ldso_command"] else ""))
    s = st["settings"]
    if s is None:
        print("  settings: environment not readable")
    elif s["libs"] is not None or s["segments"] is not None:
        print("  settings: LD_HUGEPAGE_LIBS=%s LD_HUGEPAGE_SEGMENTS=%s" % (
            s["libs"] if s["libs"] is not None else "(unset)",
            s["segments"] if s["segments"] is not None
            else "(default: text,rodata,relro)"))
    else:
        print("  settings: LD_HUGEPAGE_LIBS not set")
    rows = [("OBJECT", "KIND", "ADDRESSES", "IN THE OBJECT", "PAGES")]
    for o in st["objects"]:
        first = True
        for r in o["ranges"]:
            rows.append((o["path"] if first else "", r["kind"],
                         "%x-%x" % (r["start"], r["end"]),
                         "[%#x, %#x)" % (r["object_start"], r["object_end"]),
                         str(r["pages_in_use"])
                         + ("" if r["pages_in_use"] == r["pages"]
                            else "/%d" % r["pages"])
                         + ("" if r["kernel_page_kb"] == HUGE // 1024
                            else " (%d kB pages)" % r["kernel_page_kb"])))
            first = False
    for r in st["other_ranges"]:
        rows.append(("(not an object: %s)" % (r["path"] or "anonymous"),
                     r["perms"], "%x-%x" % (r["start"], r["end"]), "",
                     str(r["pages_in_use"])))
    if len(rows) > 1:
        print()
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        for row in rows:
            print("  " + "  ".join(
                c.rjust(widths[i]) if i == 4 else c.ljust(widths[i])
                for i, c in enumerate(row)).rstrip())
    for x in st["selected_without_huge_pages"]:
        print("  note: %s is selected by \"%s\" (%s) but has no huge pages:"
              % (x["path"], x["pattern"], x["matched_by"]))
        if x["planned_pages"] == 0:
            print("        none of its parts fills a whole 2 MiB page "
                  "(hugeld plan -v tells why)")
        else:
            print("        its plan has %s (pool empty when it was loaded? "
                  "loader not hugeld?)" % plural(x["planned_pages"], "page"))
    print()
    print("pool (2 MiB): %s" % pool_line(st["pool"]))


def status_all(args, cache, ldso):
    procs = []
    unreadable = 0
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        pid = int(d)
        # Cheap first look: HugetlbPages in status.
        try:
            with open("/proc/%d/status" % pid) as f:
                txt = f.read()
        except OSError:
            continue
        m = re.search(r"^HugetlbPages:\s+(\d+) kB", txt, re.M)
        if m is not None and int(m.group(1)) == 0:
            continue
        try:
            st = process_status(pid, cache, ldso, detail=False)
        except Error as e:
            if "permission denied" in str(e):
                unreadable += 1
            continue
        if st["pages"] > 0 or st["objects"] or st["other_ranges"]:
            procs.append(st)
    procs.sort(key=lambda s: s["pid"])
    pool = pool_info()
    total = sum(s["pages"] for s in procs)
    res = {"processes": procs, "pages": total, "pool": pool,
           "unreadable": unreadable}
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return 0
    rows = [("PID", "PAGES", "MiB", "COMMAND", "OBJECTS ON HUGE PAGES")]
    for s in procs:
        objs = ", ".join("%s (%d)" % (os.path.basename(o["path"]), o["pages"])
                         for o in s["objects"])
        if s["other_ranges"]:
            objs += (", " if objs else "") + "other memory (%d)" % sum(
                r["pages_in_use"] for r in s["other_ranges"])
        rows.append((str(s["pid"]), str(s["pages"]),
                     mib(s["pages"]).replace(" MiB", ""), display_name(s),
                     objs))
    if len(rows) > 1:
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        for row in rows:
            print("  ".join(c.rjust(widths[i]) if i < 3 else
                            c.ljust(widths[i]) for i, c in enumerate(row))
                  .rstrip())
        print()
    print("%s in %s" % (plural(total, "huge page"),
                        plural(len(procs), "process", "processes")))
    if unreadable:
        print("(%s not readable: run as root to see them)" %
              plural(unreadable, "process", "processes"))
    print("pool (2 MiB): %s" % pool_line(pool))
    if pool is not None and pool["in_use"] > total and not unreadable:
        print("(%d pages in use elsewhere: shared memory, hugetlbfs files "
              "or reservations)" % (pool["in_use"] - total))
    return 0


# --- perf-map -----------------------------------------------------------

def find_debug_file(elf, debug_dirs):
    bid = elf.build_id()
    if bid and len(bid) > 2:
        for d in debug_dirs:
            p = os.path.join(d, ".build-id", bid[:2], bid[2:] + ".debug")
            if os.path.isfile(p):
                try:
                    dbg = Elf(p)
                except Error:
                    continue
                if dbg.build_id() == bid:
                    return dbg
                dbg.close()
    link = elf.debuglink()
    if link:
        where = os.path.dirname(os.path.realpath(elf.name))
        for d in [where, os.path.join(where, ".debug")] + \
                [d + where for d in debug_dirs]:
            p = os.path.join(d, link)
            if os.path.isfile(p) and os.path.realpath(p) != \
                    os.path.realpath(elf.name):
                try:
                    dbg = Elf(p)
                except Error:
                    continue
                if dbg.has_symtab():
                    return dbg
                dbg.close()
    return None


def function_symbols(elf, debug_dirs, cache):
    """The functions of ELF, sorted, without aliases: from .symtab if it
    has one, else from a separate debug file (build ID or debuglink),
    else from .dynsym."""
    key = ("syms", elf.dev_ino)
    if key in cache:
        return cache[key]
    source = None
    syms = []
    if elf.has_symtab():
        syms, source = elf.functions(SHT_SYMTAB), ".symtab"
    else:
        dbg = find_debug_file(elf, debug_dirs)
        if dbg is not None and dbg.has_symtab():
            syms, source = dbg.functions(SHT_SYMTAB), dbg.path
            dbg.close()
        else:
            syms, source = elf.functions(SHT_DYNSYM), ".dynsym"
    # One name per address: global before weak before local.
    rank = {1: 0, 2: 1, 0: 2}
    best = {}
    for v, size, name, bind in syms:
        k = best.get(v)
        r = (rank.get(bind, 3), 0 if size else 1)
        if k is None or r < k[0]:
            best[v] = (r, size, name)
    addrs = sorted(best)
    out = []
    for i, v in enumerate(addrs):
        _, size, name = best[v]
        if size == 0 and i + 1 < len(addrs):
            size = min(addrs[i + 1] - v, 1 << 20)
        if size > 0:
            out.append((v, size, name))
    cache[key] = (out, source)
    return out, source


def perf_map_entries(pid, debug_dirs, cache):
    maps = read_smaps(pid)
    objs, _ = process_objects(pid, maps, cache)
    entries = []
    report = []
    ranges = []
    for o in objs:
        code = [m for m in o.huge if "x" in m.perms]
        ranges += [(m.start, m.end) for m in o.huge]
        if not code:
            continue
        syms, source = function_symbols(o.elf, debug_dirs, cache)
        n = 0
        for v, size, name in syms:
            a = v + o.bias
            for m in code:
                if a < m.end and a + size > m.start:
                    entries.append((a, size, name))
                    n += 1
                    break
        report.append({"path": o.path, "symbols": n, "source": source})
    entries.sort()
    return entries, report, ranges


def write_perf_map(pid, output, debug_dirs, cache, quiet=False):
    entries, report, ranges = perf_map_entries(pid, debug_dirs or
                                               [DEBUG_DIR], cache)
    lines = ["%x %x %s\n" % e for e in entries]
    if output == "-":
        sys.stdout.write("".join(lines))
        return report, None
    path = output or "/tmp/perf-%d.map" % pid
    if not entries and not output:
        return report, None
    kept = []
    if not output:
        # /tmp is everybody's: never follow a link, keep what others
        # (JIT compilers) wrote about other memory of the process.
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise Error("%s: %s" % (path, e.strerror))
        if st is not None:
            if not stat.S_ISREG(st.st_mode):
                raise Error("%s exists and is not a regular file; not "
                            "touching it" % path)
            if st.st_uid not in (0, os.geteuid()):
                raise Error("%s belongs to user %d; not touching it"
                            % (path, st.st_uid))
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "r", errors="replace") as f:
                    for line in f:
                        try:
                            a = int(line.split(None, 1)[0], 16)
                        except (ValueError, IndexError):
                            kept.append(line)
                            continue
                        if not any(s <= a < e for s, e in ranges):
                            kept.append(line if line.endswith("\n")
                                        else line + "\n")
            except OSError as e:
                raise Error("%s: %s" % (path, e.strerror))
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".%s." %
                                   os.path.basename(path))
    except OSError as e:
        raise Error("cannot write in %s: %s" % (d, e.strerror))
    try:
        with os.fdopen(fd, "w") as f:
            f.writelines(kept)
            f.writelines(lines)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Error("cannot write %s: %s" % (path, e.strerror))
    return report, path


def cmd_perf_map(args):
    cache = {}
    report, path = write_perf_map(args.pid, args.output, args.debug_dir,
                                  cache)
    if args.output == "-":
        return 0
    n = sum(r["symbols"] for r in report)
    if path is None:
        print("process %d has no code on huge pages: nothing written"
              % args.pid, file=sys.stderr)
        return 0
    print("%s: %s for %s" % (path, plural(n, "function"), ", ".join(
        "%s (%d, from %s)" % (r["path"], r["symbols"], r["source"])
        for r in report) or "nothing"), file=sys.stderr)
    return 0


# --- gdb ----------------------------------------------------------------

class CoreMapping(object):
    """A file-backed mapping from a core file's NT_FILE note."""
    __slots__ = ("start", "end", "offset", "path", "perms")

    def __init__(self, start, end, offset, path):
        self.start, self.end, self.offset, self.path = start, end, offset, path
        self.perms = "r--p"


def core_notes(path):
    """NT_FILE mappings and NT_AUXV of the ELF core file PATH."""
    core = Elf(path)
    if core.type != 4:
        raise Error("%s is not a core file (ELF type %d)" % (path, core.type))
    files, auxv = [], {}
    for p in core.phdrs:
        if p.type != PT_NOTE:
            continue
        data = core.read(p.offset, p.filesz)
        i = 0
        while i + 12 <= len(data):
            namesz, descsz, ntype = struct.unpack_from("<III", data, i)
            d0 = i + 12 + ((namesz + 3) & ~3)
            desc = data[d0:d0 + descsz]
            i = d0 + ((descsz + 3) & ~3)
            if ntype == 0x46494c45 and len(desc) >= 16:        # NT_FILE
                count, psz = struct.unpack_from("<QQ", desc, 0)
                names = desc[16 + 24 * count:].split(b"\0")
                for k in range(min(count, len(names))):
                    s0, e0, o0 = struct.unpack_from("<QQQ", desc, 16 + 24 * k)
                    files.append(CoreMapping(s0, e0, o0 * psz, names[k].decode(
                        "utf-8", "surrogateescape")))
            elif ntype == 6:                                    # NT_AUXV
                for k in range(len(desc) // 16):
                    t, v = struct.unpack_from("<QQ", desc, 16 * k)
                    auxv.setdefault(t, v)
    core.close()
    return files, auxv




def gdb_argv_core(core, program, gdb_args, ldso):
    files, auxv = core_notes(core)
    groups = {}
    order = []
    for m in files:
        if m.path.startswith("/anon_hugepage") or not m.path.startswith("/"):
            continue
        if m.path not in groups:
            groups[m.path] = []
            order.append(m.path)
        groups[m.path].append(m)
    entry = auxv.get(9)                                        # AT_ENTRY
    exe = None
    loader = None
    progs = []
    for path in order:
        try:
            elf = Elf(path)
        except Error:
            continue
        ms = groups[path]
        if any(m.start <= (entry or 0) < m.end for m in ms):
            exe = path
        soname = elf.soname or ""
        if soname.startswith("ld-linux"):
            loader = path
        elif elf.interp and not soname:
            progs.append((path, elf))
        else:
            elf.close()
    if exe is None:
        raise Error("%s: cannot tell which program it is of (no NT_FILE or "
                    "AT_ENTRY note)" % core)
    argv = ["gdb"]
    if exe != loader:
        # Started directly: gdb knows everything already.
        return argv + [program or exe, core] + gdb_args
    # `ld.so PROGRAM': gdb takes ld.so for the program and never loads
    # the real program's symbols; add them at the address it has.
    if program:
        sel = [(p, e) for p, e in progs
               if p == os.path.realpath(program)]
        if not sel:
            raise Error("%s is not mapped in %s" % (program, core))
    else:
        sel = progs
        if len(sel) != 1:
            raise Error("%s: cannot tell which program ld.so ran; give it "
                        "with --program" % core)
    path, elf = sel[0]
    bias = load_bias(elf, groups[path])
    if bias is None:
        raise Error("%s: cannot find where %s is mapped" % (core, path))
    return argv + [exe, core, "-ex", "set confirm off", "-ex",
                   "add-symbol-file %s -o %#x" % (path, bias), "-ex",
                   "set confirm on"] + gdb_args


def gdb_argv_pid(pid, gdb_args, ldso):
    st = process_status(pid, {}, ldso, detail=False)
    argv = ["gdb", "-p", str(pid)]
    if not st["ldso_command"] or not st["program"]:
        return argv + gdb_args
    maps = read_smaps(pid)
    objs, _ = process_objects(pid, maps, {})
    want = os.path.realpath(st["program"])
    for o in objs:
        if o.path == want:
            return argv + ["-ex", "set confirm off", "-ex",
                           "add-symbol-file %s -o %#x" % (o.path, o.bias),
                           "-ex", "set confirm on"] + gdb_args
    warn("%s is not mapped in process %d; its symbols are not added"
         % (st["program"], pid))
    return argv + gdb_args


def cmd_gdb(args):
    ldso = getattr(args, "ldso", None) or os.environ.get("HUGELD_LDSO") \
        or DEFAULT_LDSO
    gdb_args = list(args.gdb_args)
    if (args.pid is None) == (args.core is None):
        raise UsageError("hugeld gdb: give a PID or --core CORE")
    if args.core is not None:
        argv = gdb_argv_core(args.core, args.program, gdb_args, ldso)
    else:
        if args.program:
            raise UsageError("hugeld gdb: --program goes with --core")
        argv = gdb_argv_pid(args.pid, gdb_args, ldso)
    gdb = shutil.which("gdb")
    if gdb is None:
        raise Error("gdb is not installed")
    if args.print_command:
        print(" ".join(shlex_quote(a) for a in argv))
        return 0
    sys.stdout.flush()
    try:
        os.execv(gdb, argv)
    except OSError as e:
        raise Error("cannot run %s: %s" % (gdb, e.strerror))


def shlex_quote(s):
    if re.match(r"^[A-Za-z0-9_@%+=:,./-]+$", s):
        return s
    return "'" + s.replace("'", "'\"'\"'") + "'"


# --- Command line -------------------------------------------------------

class UsageError(Exception):
    """A usage error: one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        m = re.match(r"argument cmd: invalid choice: '(.*?)'", message)
        if m:
            message = "unknown command '%s' (run, plan, status, perf-map, " \
                "gdb)" \
                % m.group(1)
        message = re.sub(r"^argument ([^:]*): ", r"\1: ", message)
        raise UsageError("%s: %s" % (self.prog, message))


HELP = """\
hugeld: run programs with their code on 2 MiB huge pages (hugeld's ld.so),
plan the huge page pool, show what is on huge pages, keep perf working.

commands:
  run [--libs PATTERNS] [--segments LIST] -- PROG ARGS...
                 run PROG through hugeld's ld.so with the settings applied
  plan PROG [--libs PATTERNS] [--segments LIST] [--copies N] [--apply]
                 the huge pages PROG and its libraries take (the loader's
                 own planner) and the nr_hugepages N processes need
  status PID|--all [--json]
                 what of a process is on huge pages, and the pool
  perf-map PID   write /tmp/perf-PID.map so perf names huge-page code
  gdb PID|--core CORE [-- GDB-ARGS...]
                 gdb on a process (or core) that hugeld run started, with
                 the program's own symbols

'hugeld COMMAND --help' for each.  PATTERNS is a colon-separated list of
shell globs matched against object file names (or paths, with a /) and
DT_SONAME, like LD_HUGEPAGE_LIBS; LIST a comma list of text, rodata,
relro, data, bss, all (default text,rodata,relro).

environment: HUGELD_LDSO (the loader, default %s), HUGELD_PLAN (the
planning helper).  See hugeld(1).
""" % DEFAULT_LDSO


def build_parser():
    top = Parser(prog="hugeld", add_help=False, usage=argparse.SUPPRESS)
    top.add_argument("-h", "--help", action="store_true")
    top.add_argument("--version", action="store_true")
    sub = top.add_subparsers(dest="cmd", parser_class=Parser)

    def common(p, pool=False):
        p.add_argument("--libs", metavar="PATTERNS",
                       help="colon-separated globs selecting objects, as "
                       "LD_HUGEPAGE_LIBS (default: $LD_HUGEPAGE_LIBS)")
        p.add_argument("--segments", metavar="LIST",
                       help="comma list of text, rodata, relro, data, bss, "
                       "all, as LD_HUGEPAGE_SEGMENTS (default: "
                       "$LD_HUGEPAGE_SEGMENTS or text,rodata,relro)")
        p.add_argument("--ldso", metavar="PATH",
                       help="hugeld's loader (default: $HUGELD_LDSO or %s)"
                       % DEFAULT_LDSO)
        p.add_argument("--direct", action="store_true",
                       help="the program is started directly: its "
                       "PT_INTERP is hugeld's loader (default: run it "
                       "with the loader as a command)")

    p = sub.add_parser(
        "run", prog="hugeld run",
        usage="hugeld run [OPTIONS] [--] PROG [ARGS...]",
        description="Run PROG (searched in PATH) through hugeld's ld.so "
        "with LD_HUGEPAGE_LIBS and LD_HUGEPAGE_SEGMENTS set, as `ld.so "
        "--argv0 PROG PATH ARGS'.  Without --perf-map hugeld is replaced "
        "by the program (same PID, its exit status).  Refuses to run when "
        "the pool has no free huge page (the loader would silently use "
        "ordinary pages), unless --no-pool-check.",
        epilog="example: hugeld run --libs 'libLLVM*.so*' -- clang -c x.c")
    common(p)
    p.add_argument("--debug", nargs="?", const="-", metavar="FILE",
                   help="LD_DEBUG=hugepages: the loader's report on stderr, "
                   "or, written --debug=FILE, in FILE.PID")
    p.add_argument("--perf-map", action="store_true",
                   help="stay as the parent and keep /tmp/perf-PID.map "
                   "(PID: the program's) written while its huge page "
                   "mappings change, so that perf can name the functions "
                   "in them")
    p.add_argument("--perf-map-output", metavar="FILE",
                   help=argparse.SUPPRESS)
    p.add_argument("--debug-dir", action="append", metavar="DIR",
                   help="with --perf-map: where to look for separate debug "
                   "files (default %s)" % DEBUG_DIR)
    p.add_argument("--no-pool-check", action="store_true",
                   help="run even if no huge page is free")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "plan", prog="hugeld plan", usage="hugeld plan PROG [OPTIONS]",
        description="Show how hugeld's ld.so would place PROG and the "
        "libraries it loads (from the loader's own `ld.so --list') on "
        "2 MiB pages: per object the pages of each kind, the total, and "
        "the pool N processes need (each process has its own copy).  "
        "The plan is made by hugeld-plan, built from the loader's own "
        "planner and matcher.",
        epilog="example: hugeld plan /usr/bin/gdb --libs 'libpython3*' "
        "--copies 4 --apply")
    p.add_argument("program", metavar="PROG",
                   help="the program (searched in PATH if it has no slash), "
                   "or a shared library")
    common(p)
    p.add_argument("--copies", type=positive_int, default=1, metavar="N",
                   help="processes that will run at the same time "
                   "(default 1)")
    p.add_argument("--dlopen", action="append", metavar="FILE",
                   help="also plan FILE, a library the program dlopens "
                   "(as the path it passes to dlopen)")
    p.add_argument("--apply", action="store_true",
                   help="grow nr_hugepages so that the pages needed are "
                   "available (root; never shrinks the pool; all or "
                   "nothing)")
    p.add_argument("--node", metavar="N[,N...]",
                   help="with --apply: reserve the pages needed on each of "
                   "these NUMA nodes instead of anywhere")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every range: on huge pages, or on ordinary "
                   "pages and why")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser(
        "status", prog="hugeld status",
        usage="hugeld status PID|--all [--json]",
        description="Show which objects and ranges of a running process "
        "are on huge pages (from /proc/PID/smaps and maps: hugetlb "
        "mappings inside an object's address range are its), the pages "
        "they use, the settings in its environment, and the pool "
        "(HugePages_Total, Free, Rsvd, Surp).  --all: every process with "
        "huge pages (root sees all).")
    p.add_argument("pid", nargs="?", type=pid_arg, metavar="PID",
                   help="the process")
    p.add_argument("--all", action="store_true",
                   help="all processes that have huge pages")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--ldso", metavar="PATH", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "perf-map", prog="hugeld perf-map",
        usage="hugeld perf-map PID [-o FILE] [--debug-dir DIR]",
        description="perf shows huge page mappings (/anon_hugepage) as "
        "anonymous memory and looks up their symbols in /tmp/perf-PID.map. "
        "Write that file: `START SIZE name' (hex) for each function of "
        "each object whose code is on huge pages, from its .symtab, else "
        "a debug file found by build ID (or .gnu_debuglink) under the "
        "debug directory, else .dynsym.  Lines others wrote about other "
        "memory (JIT compilers) are kept.  Run it while the process is "
        "alive; perf report reads the file later.",
        epilog="example: perf record -e cpu-clock -p PID -- sleep 5; "
        "hugeld perf-map PID; perf report")
    p.add_argument("pid", type=pid_arg, metavar="PID",
                   help="the process")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write FILE instead (- for stdout)")
    p.add_argument("--debug-dir", action="append", metavar="DIR",
                   help="where separate debug files are (default %s); "
                   "may be repeated" % DEBUG_DIR)
    p.set_defaults(func=cmd_perf_map)

    p = sub.add_parser(
        "gdb", prog="hugeld gdb",
        usage="hugeld gdb PID | --core CORE [--program PROG] "
        "[-- GDB-ARGS...]",
        description="Run gdb on a process or a core file of a program that "
        "hugeld's ld.so runs as a command (as hugeld run does).  gdb then "
        "takes ld.so for the program and never loads the real program's "
        "symbols (with any loader: the main program's frames show as ??); "
        "this adds them at the address the program is mapped at.  For a "
        "program started directly it just runs gdb.  Huge page libraries "
        "need nothing: gdb reads their symbols from their files.",
        epilog="example: hugeld gdb 1234 -- -batch -ex bt; "
        "hugeld gdb --core core.1234 -- -batch -ex bt")
    p.add_argument("pid", nargs="?", type=pid_arg, metavar="PID",
                   help="the process to attach to")
    p.add_argument("--core", metavar="CORE", help="a core file instead")
    p.add_argument("--program", metavar="PROG",
                   help="with --core: the program ld.so ran (default: the "
                   "one mapped in the core)")
    p.add_argument("--print-command", action="store_true",
                   help="print the gdb command instead of running it")
    p.set_defaults(func=cmd_gdb)
    return top


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    top = build_parser()
    try:
        # `run' takes everything after its own options as the command.
        if argv and argv[0] == "run":
            i = 1
            takes = {"--libs", "--segments", "--ldso", "--perf-map-output",
                     "--debug-dir"}
            while i < len(argv) and argv[i] != "--":
                a = argv[i]
                if not a.startswith("-"):
                    break
                if a in takes:
                    i += 1
                i += 1
            if i < len(argv) and argv[i] != "--":
                argv = argv[:i] + ["--"] + argv[i:]
        # `gdb' passes everything after `--' to gdb.
        gdb_args = []
        if argv and argv[0] == "gdb" and "--" in argv:
            i = argv.index("--")
            argv, gdb_args = argv[:i], argv[i + 1:]
        args = top.parse_args(argv)
        args.gdb_args = gdb_args
        if args.version:
            print("hugeld %s" % VERSION)
            return 0
        if args.help or args.cmd is None:
            sys.stdout.write(HELP)
            return 0 if args.help else 2
        if getattr(args, "debug_dir", None) is None:
            args.debug_dir = [DEBUG_DIR]
        return args.func(args) or 0
    except UsageError as e:
        msg = str(e)
        if not msg.startswith("hugeld"):
            msg = "hugeld " + msg
        print("%s (try --help)" % msg, file=sys.stderr)
        return 2
    except Error as e:
        print("hugeld: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = None
        except Exception:
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
