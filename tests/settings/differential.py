# hugeld's tests: ld.so and the hugeld command must take the same
# settings from the same sources.  Run by tests/t-effective.sh, as root,
# in a mount namespace of its own (unshare -m): /etc is an overlay there,
# so that /etc/hugeld.conf and /etc/ld.so.cache can be written for each
# case without touching the machine's.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# For every case (a combination of LD_HUGEPAGE_* variables,
# GLIBC_TUNABLES strings, /etc/tunables.conf lines compiled into
# ld.so.cache, and policy file lines), the program PROG (hugeld its
# PT_INTERP, so the kernel starts it as the system loader would) runs
# with exactly that environment and LD_DEBUG=hugepages; ld.so's report
# is read into (value, where from) for each setting, and compared with
# what `hugeld-conf --effective' answers for the same sources, and,
# for the cases marked so, with what `hugeld status PID' says of the
# running process.  Prints one line per disagreement, then a summary:
#   differential: N cases (M through hugeld status), D disagreements
# Exit status 1 if there is a disagreement.

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TUN = "glibc.elf.hugepage."
CONF = "/etc/hugeld.conf"
CACHE = "/etc/ld.so.cache"
NAMES = ("libs", "segments", "backing")

# Each source's value for each setting: distinct, so that the value
# says where it came from.
VALUES = {
    "var": {"libs": "vlib.so:v2.so", "segments": "text",
            "backing": "thp"},
    "tun": {"libs": "tlib.so,t2.so", "segments": "rodata",
            "backing": "private"},
    "sys": {"libs": "slib.so,s2.so", "segments": "text,data",
            "backing": "thp,private"},
    "file": {"libs": "flib.so f2.so", "segments": "relro",
             "backing": "shared"},
}


class Case(object):
    """The sources of one run: ENV (the environment strings, in order),
    CONF_TEXT (the policy file, or None), TUNCONF (the lines of
    /etc/tunables.conf, or None), SECURE (run set-user-ID as nobody),
    STATUS (also ask hugeld status)."""

    def __init__(self, name, env, conf_text=None, tunconf=None,
                 secure=False, status=False):
        self.name = name
        self.env = env
        self.conf_text = conf_text
        self.tunconf = tunconf
        self.secure = secure
        self.status = status


def combination(choice, tunconf):
    """The Case of CHOICE: {setting: (var, tun, sys, file)}, each None or
    a mode: "set", "empty" (var only), "locked" (sys only)."""
    env = ["PATH=/usr/bin:/bin"]
    tunables = []
    lines = []
    sys_lines = []
    for k in NAMES:
        var, tun, sysv, fil = choice[k]
        if var == "set":
            env.append("LD_HUGEPAGE_%s=%s" % (k.upper(), VALUES["var"][k]))
        elif var == "empty":
            env.append("LD_HUGEPAGE_%s=" % k.upper())
        if tun:
            tunables.append("%s%s=%s" % (TUN, k, VALUES["tun"][k]))
        if sysv:
            sys_lines.append("%s%s%s=%s" % ("-" if sysv == "locked" else "",
                                            TUN, k, VALUES["sys"][k]))
        if fil:
            lines.append("%s %s" % (k, VALUES["file"][k]))
    if tunables:
        env.append("GLIBC_TUNABLES=glibc.malloc.perturb=0:" +
                   ":".join(tunables))
    name = " ".join("%s=%s" % (k, "/".join(x or "-" for x in choice[k]))
                    for k in NAMES)
    return Case(name, env, "\n".join(lines) + "\n" if lines else None,
                sys_lines if tunconf and sys_lines else None)


def combinations(tunconf):
    """Every combination of the sources, setting by setting: the full
    product where it is small enough; else every combination of libs
    and segments, with backing's choices taken in turn."""
    per = [(v, t, s, f) for v in (None, "set", "empty")
           for t in (None, "set")
           for s in ((None, "set", "locked") if tunconf else (None,))
           for f in (None, "set")]
    if len(per) ** 3 <= 2000:
        for a, b, c in itertools.product(per, per, per):
            yield combination({"libs": a, "segments": b, "backing": c},
                              tunconf)
    else:
        for i, (a, b) in enumerate(itertools.product(per, per)):
            c = per[(i * 7) % len(per)]
            yield combination({"libs": a, "segments": b, "backing": c},
                              tunconf)


def special(prog, tunconf):
    """The cases the combinations do not reach: repeated and rejected
    strings, bad values, program blocks, AT_SECURE, and issues 41 and
    43's own cases (marked for hugeld status too)."""
    P = ["PATH=/usr/bin:/bin"]
    base = os.path.basename(prog)
    out = [
        # Issue 41: the libs from the policy file, segments and backing
        # from GLIBC_TUNABLES: ld.so takes them.
        Case("file libs, GLIBC_TUNABLES segments and backing",
             P + ["GLIBC_TUNABLES=%ssegments=all:%sbacking=private"
                  % (TUN, TUN)], "libs flib.so\n", status=True),
        # Issue 43: two GLIBC_TUNABLES strings; ld.so reads them in order.
        Case("two GLIBC_TUNABLES strings",
             P + ["GLIBC_TUNABLES=%slibs=first.so:%ssegments=all"
                  % (TUN, TUN), "GLIBC_TUNABLES=%slibs=second.so" % TUN],
             status=True),
        Case("a GLIBC_TUNABLES string glibc rejects, then one it takes",
             P + ["GLIBC_TUNABLES=%slibs=a.so:b.so" % TUN,
                  "GLIBC_TUNABLES=%sbacking=thp:%slibs=c.so" % (TUN, TUN)],
             status=True),
        Case("a GLIBC_TUNABLES string it takes, then one it rejects",
             P + ["GLIBC_TUNABLES=%slibs=c.so" % TUN,
                  "GLIBC_TUNABLES=%slibs=d.so:x" % TUN], status=True),
        # Issue 43: an empty pattern, taken by ld.so.
        Case("libs=hold,,x", P + ["GLIBC_TUNABLES=%slibs=hold,,x" % TUN],
             status=True),
        Case("LD_HUGEPAGE_LIBS=a::b", P + ["LD_HUGEPAGE_LIBS=a::b"],
             status=True),
        # Issue 43: a variable named like a tunable is not one.
        Case("a variable named %slibs" % TUN,
             P + ["GLIBC_TUNABLES=%ssegments=all" % TUN,
                  "%slibs=var.so" % TUN, "LD_HUGEPAGE_BACKING=thp"],
             status=True),
        Case("glibc's tunable last, then hugeld's tunable: glibc ends its "
             "value with a NUL in place (before 2.39)",
             P + ["GLIBC_TUNABLES=%slibs=x.so:glibc.malloc.perturb=0:"
                  "%ssegments=all:glibc.malloc.check=0:%sbacking=thp"
                  % (TUN, TUN, TUN)], status=True),
        Case("repeated variables: the last wins",
             P + ["LD_HUGEPAGE_LIBS=a.so", "LD_HUGEPAGE_SEGMENTS=all",
                  "LD_HUGEPAGE_LIBS=b.so", "LD_HUGEPAGE_SEGMENTS=text"],
             status=True),
        Case("bad values", P + ["LD_HUGEPAGE_LIBS=x.so",
                                "LD_HUGEPAGE_SEGMENTS=txt",
                                "GLIBC_TUNABLES=%sbacking=huge" % TUN],
             status=True),
        Case("bad values in the file's place", P + [
            "GLIBC_TUNABLES=%ssegments=,:%sbacking=," % (TUN, TUN)],
            "libs flib.so\nsegments all\nbacking thp\n", status=True),
        Case("the program's block", P + ["LD_HUGEPAGE_BACKING=thp"],
             "libs g.so\nsegments text\nprogram %s\nlibs b.so\n"
             "segments all\n" % base, status=True),
        Case("another program's block", P,
             "libs g.so\nprogram other\nlibs b.so\n", status=True),
        Case("libs none in the program's block", P,
             "libs g.so\nprogram %s\nlibs none\n" % base, status=True),
        Case("a file ld.so ignores", P + ["LD_HUGEPAGE_SEGMENTS=all"],
             "libs g.so\nsegmnts all\n", status=True),
        Case("LD_HUGEPAGE_LIBS= turns the file off",
             P + ["LD_HUGEPAGE_LIBS="], "libs g.so\n", status=True),
        # AT_SECURE: set-user-ID root, run by nobody.
        Case("AT_SECURE: no variable, no GLIBC_TUNABLES, no global line",
             P + ["LD_HUGEPAGE_LIBS=v.so",
                  "GLIBC_TUNABLES=%ssegments=all" % TUN],
             "libs g.so\n", secure=True, status=True),
        Case("AT_SECURE: the block naming it", P + ["LD_HUGEPAGE_LIBS=v.so"],
             "libs g.so\nprogram %s\nlibs s.so\n" % base, secure=True,
             status=True),
    ]
    if tunconf:
        out += [
            # Issue 41: a global libs line only, in /etc/tunables.conf.
            Case("a global %slibs line" % TUN, P, None,
                 ["%slibs=libbig.so" % TUN], status=True),
            Case("a [proc:] line for the program", P, "libs f.so\n",
                 ["[proc:%s]" % base, "%slibs=p.so" % TUN, "[]",
                  "%ssegments=all" % TUN], status=True),
            Case("a [proc:] line for another", P, None,
                 ["[proc:other]", "%slibs=p.so" % TUN], status=True),
            Case("nonoverridable over the variable",
                 P + ["LD_HUGEPAGE_LIBS=v.so",
                      "GLIBC_TUNABLES=%sbacking=private" % TUN], None,
                 ["-%slibs=l.so" % TUN, "-%sbacking=thp" % TUN],
                 status=True),
            Case("AT_SECURE: the lines marked for it", P, "libs g.so\n",
                 ["%slibs=n.so" % TUN, "*%ssegments=all" % TUN,
                  "@%sbacking=thp" % TUN], secure=True, status=True),
            Case("AT_SECURE: a line for it with libs", P, None,
                 ["*%slibs=s.so" % TUN], secure=True, status=True),
        ]
    return out


def words(s):
    return tuple(w for w in re.split(r"[ ,]+", s or "") if w)


def ldso_answer(err):
    """(value, from) for each setting, from ld.so's LD_DEBUG report and
    warnings ERR, and what else it said: {"libs": (patterns or None,
    "variable"|"tunable"|"system"|"file:LINE"), "segments": (words,
    ""|"tunable"|"system"|"file:LINE"), "backing": ..., "bad": [...],
    "ignored": [...]}.  Segments and backing are reported only where
    something is selected; from a variable or the default they have no
    mark."""
    a = {"libs": (None, None), "bad": [], "ignored": []}
    for line in err.splitlines():
        m = re.search(r"hugepages: (LD_HUGEPAGE_LIBS|%slibs)=(.*?)"
                      r"( \(/etc/tunables\.conf\))?$" % re.escape(TUN), line)
        if m:
            a["libs"] = (m.group(2), "variable" if m.group(1).startswith(
                "LD_") else "system" if m.group(3) else "tunable")
            continue
        m = re.search(r"hugepages: libs \(%s line (\d+)\): (.*)$" % CONF,
                      line)
        if m:
            a["libs"] = (m.group(2), "file:" + m.group(1))
            continue
        m = re.search(r"hugepages: (segments|backing): (.*?)"
                      r"(?: \((%s line \d+|GLIBC_TUNABLES|/etc/tunables\.conf)"
                      r"\))?$" % CONF, line)
        if m:
            where = m.group(3) or ""
            where = ("tunable" if where == "GLIBC_TUNABLES" else "system"
                     if where == "/etc/tunables.conf" else
                     "file:" + where.split()[-1] if where else "")
            a[m.group(1)] = (words(m.group(2)) if m.group(2) != "none"
                             else (), where)
            continue
        m = re.search(r"warning: (LD_HUGEPAGE_(\w+)|%s(\w+))=.* ignored: use"
                      % re.escape(TUN), line)
        if m:
            a["bad"].append((m.group(2) or m.group(3)).lower())
            continue
        m = re.search(r"hugepages: LD_HUGEPAGE_(\w+) ignored: .*"
                      r"nonoverridable", line)
        if m:
            a["ignored"].append(m.group(1).lower())
    a["bad"].sort()
    a["ignored"].sort()
    return a


def helper_answer(d):
    """The same, from hugeld-conf --effective's document D (or the
    "settings" of hugeld status --json, which are made of it)."""
    def where(k):
        f = d["origin"][k] if "origin" in d else d[k]["from"]
        if f == "file":
            src = d["sources"][k] if "sources" in d else d[k]["source"]
            line = re.search(r"lines? (\d+)", src).group(1)
            return "file:" + line
        if f in ("variable", "option"):
            return "variable" if k == "libs" else ""
        if f == "default":
            return None if k == "libs" else ""
        return f

    def value(k):
        return d[k] if "origin" in d else d[k]["effective"]

    a = {"bad": [], "ignored": []}
    libs = value("libs")
    a["libs"] = (libs, where("libs")) if libs is not None else (None, None)
    for k in ("segments", "backing"):
        a[k] = (words(value(k)), where(k))
    for k in NAMES:
        bad = k in d["bad"] if "origin" in d else d[k]["bad"]
        ign = (k in d["ignored"] if "origin" in d
               else d[k]["variable_ignored"])
        if bad and libs is not None:
            a["bad"].append(k)
        if ign:
            a["ignored"].append(k)
    a["bad"].sort()
    a["ignored"].sort()
    return a


def comparable(ld, helper):
    """HELPER's answer cut to what ld.so's report says: nothing but libs
    where nothing is selected."""
    if ld["libs"][0] is None:
        return ({"libs": ld["libs"], "ignored": ld["ignored"]},
                {"libs": helper["libs"], "ignored": helper["ignored"]})
    return ld, helper


class Runner(object):
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.caches = {}
        self.disagree = 0
        self.cases = 0
        self.status_cases = 0
        self.skipped = 0

    def set_conf(self, text):
        if text is None:
            if os.path.lexists(CONF):
                os.unlink(CONF)
            return
        with open(CONF, "w") as f:
            f.write(text)
        os.chmod(CONF, 0o644)

    def set_tunconf(self, lines):
        """/etc/ld.so.cache made by ldconfig with LINES as
        /etc/tunables.conf (or the machine's cache)."""
        key = tuple(lines or ())
        if key not in self.caches:
            path = os.path.join(self.tmp, "cache%d" % len(self.caches))
            if not lines:
                path = self.args.orig_cache
            else:
                conf = path + ".conf"
                with open(conf, "w") as f:
                    f.write("\n".join(lines) + "\n")
                subprocess.run([self.args.ldconfig, "-X", "-C", path, "-t",
                                conf], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True)
            self.caches[key] = path
        with open(self.caches[key], "rb") as src, open(CACHE + ".new",
                                                       "wb") as dst:
            dst.write(src.read())
        os.chmod(CACHE + ".new", 0o644)
        os.rename(CACHE + ".new", CACHE)

    def envfile(self, env, extra=()):
        path = os.path.join(self.tmp, "env")
        with open(path, "wb") as f:
            for e in list(env) + list(extra):
                f.write(e.encode("utf-8", "surrogateescape") + b"\0")
        return path

    def argv(self, case, envfile, *args):
        prog = self.args.suid_prog if case.secure else self.args.prog
        return ([self.args.execenv] + (["-u", "65534:65534"] if case.secure
                                       else []) + [envfile, prog] + list(args))

    def helper(self, case):
        prog = self.args.suid_prog if case.secure else self.args.prog
        cmd = [self.args.conf_helper, "--effective", "--ldso-view",
               "--environ", self.envfile(case.env), "--exe", prog,
               "--run", prog, "--kernel", "--cwd", "/"]
        if case.secure:
            cmd.append("--secure")
        p = subprocess.run(cmd + [CONF], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RuntimeError("hugeld-conf: %s" % p.stderr.decode())
        return json.loads(p.stdout.decode("utf-8", "surrogateescape"))

    def say(self, case, how, ld, other):
        self.disagree += 1
        print("DISAGREE: %s (%s): ld.so %s, %s %s"
              % (case.name, how, json.dumps(ld, sort_keys=True), how,
                 json.dumps(other, sort_keys=True)))

    def run(self, case):
        self.set_conf(case.conf_text)
        if self.args.ldconfig:
            self.set_tunconf(case.tunconf)
        env = self.envfile(case.env, ["LD_DEBUG=hugepages"])
        p = subprocess.run(self.argv(case, env), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd="/")
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode != 0:
            print("FAILED: %s: exit %d: %s" % (case.name, p.returncode,
                                              err[-300:]))
            self.disagree += 1
            return
        if case.secure and "hugepages:" not in err:
            # glibc 2.40 and later take no LD_DEBUG from an AT_SECURE
            # program: nothing to compare with (t-policy, t-settings and
            # t-tunconf check its huge pages).
            self.skipped += 1
            return
        ld = ldso_answer(err)
        self.cases += 1
        a, b = comparable(ld, helper_answer(self.helper(case)))
        if a != b:
            self.say(case, "hugeld-conf --effective", a, b)
        if case.status and self.args.hugeld:
            self.status(case, ld)

    def status(self, case, ld):
        """The same sources for a process that stays, and what hugeld
        status says of it."""
        err = os.path.join(self.tmp, "status.err")
        env = self.envfile(case.env, ["LD_DEBUG=hugepages"])
        with open(err, "wb") as e:
            proc = subprocess.Popen(self.argv(case, env, "wait"),
                                    stdout=subprocess.DEVNULL, stderr=e,
                                    cwd="/")
        try:
            # Until ld.so has handed over to the program (it says so
            # when it reads its argument).
            for _ in range(100):
                with open(err) as e:
                    if "waiting" in e.read():
                        break
                time.sleep(0.05)
            p = subprocess.run([self.args.hugeld, "status", str(proc.pid),
                                "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
        finally:
            proc.kill()
            proc.wait()
        self.status_cases += 1
        if p.returncode != 0:
            print("FAILED: %s (hugeld status): %s"
                  % (case.name, p.stderr.decode()[-300:]))
            self.disagree += 1
            return
        st = json.loads(p.stdout.decode("utf-8", "surrogateescape"))
        if st["settings"] is None:
            print("FAILED: %s (hugeld status): no settings" % case.name)
            self.disagree += 1
            return
        a, b = comparable(ld, helper_answer(st["settings"]))
        if a != b:
            self.say(case, "hugeld status", a, b)


def big_environment(r, ldso, prog):
    """A process with a large environment: two GLIBC_TUNABLES strings of
    120 KB each (longer than an argument may be, MAX_ARG_STRLEN), the
    first selecting libbig.so among 8,000 other patterns, run by LDSO as
    a command (PROG: bigcheck-shared, which maps libbig.so).  hugeld
    status PID must say what its ld.so took, and status --all must list
    it with its huge pages."""
    pats = ",".join("nothing%05d.so" % i for i in range(7400)) + ",libbig.so"
    env = ["PATH=/usr/bin:/bin",
           "GLIBC_TUNABLES=glibc.malloc.perturb=0:%slibs=%s" % (TUN, pats),
           "GLIBC_TUNABLES=glibc.x.pad=%s:%sbacking=private"
           % ("p" * 120000, TUN), "LD_DEBUG=hugepages"]
    case = Case("two GLIBC_TUNABLES strings of 120 KB", env)
    r.set_conf(None)
    if r.args.ldconfig:
        r.set_tunconf(None)
    err = os.path.join(r.tmp, "big.err")
    with open(err, "wb") as e:
        proc = subprocess.Popen([r.args.execenv, r.envfile(env), ldso, prog,
                                 "--bench", "--rounds", "100000000"],
                                stdout=subprocess.DEVNULL, stderr=e)
    try:
        # Until its huge pages are mapped (16: libbig.so's).
        last = -1
        for _ in range(200):
            with open("/proc/%d/smaps" % proc.pid) as f:
                n = f.read().count("KernelPageSize:     2048 kB")
            if n > 0 and n == last:
                break
            last = n
            time.sleep(0.1)
        one = subprocess.run([r.args.hugeld, "status", str(proc.pid),
                              "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        every = subprocess.run([r.args.hugeld, "status", "--all", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        proc.kill()
        proc.wait()
    with open(err) as e:
        ld = ldso_answer(e.read())
    r.status_cases += 1
    if ld["libs"][0] is None or not ld["libs"][0].endswith(":libbig.so"):
        print("FAILED: %s: ld.so selected %s" % (case.name, ld["libs"]))
        r.disagree += 1
        return
    if one.returncode != 0 or every.returncode != 0:
        print("FAILED: %s: hugeld status: %s %s"
              % (case.name, one.stderr.decode()[-200:],
                 every.stderr.decode()[-200:]))
        r.disagree += 1
        return
    st = json.loads(one.stdout.decode("utf-8", "surrogateescape"))
    a, b = comparable(ld, helper_answer(st["settings"]))
    if a != b:
        r.say(case, "hugeld status", {k: str(v)[-80:] for k, v in a.items()},
              {k: str(v)[-80:] for k, v in b.items()})
    listed = [p for p in json.loads(every.stdout.decode())["processes"]
              if p["pid"] == proc.pid]
    if not listed or listed[0]["pages"] <= 0:
        print("FAILED: %s: hugeld status --all does not list it with its "
              "huge pages (%s)" % (case.name, listed))
        r.disagree += 1
    else:
        print("big environment: ld.so took %d patterns; hugeld status "
              "PID agrees; status --all lists it with %d huge pages"
              % (len(ld["libs"][0].split(":")), listed[0]["pages"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prog", required=True)
    ap.add_argument("--suid-prog", required=True)
    ap.add_argument("--execenv", required=True)
    ap.add_argument("--conf-helper", required=True)
    ap.add_argument("--hugeld")
    ap.add_argument("--ldconfig")
    ap.add_argument("--only", help="run only the cases whose name has this")
    ap.add_argument("--big", nargs=2, metavar=("LDSO", "PROG"),
                    help="also the large environment, with LDSO and PROG")
    ap.add_argument("--big-only", action="store_true",
                    help="only the large environment")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # /etc, writable in this mount namespace only.
        up, work = os.path.join(tmp, "up"), os.path.join(tmp, "work")
        os.mkdir(up)
        os.mkdir(work)
        args.orig_cache = os.path.join(tmp, "orig.cache")
        with open(CACHE, "rb") as src, open(args.orig_cache, "wb") as dst:
            dst.write(src.read())
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        "lowerdir=/etc,upperdir=%s,workdir=%s" % (up, work),
                        "/etc"], check=True)
        r = Runner(args, tmp)
        cases = list(special(args.prog, bool(args.ldconfig))) + \
            list(combinations(bool(args.ldconfig)))
        for case in cases:
            if (args.only and args.only not in case.name) or args.big_only:
                continue
            r.run(case)
        if args.big:
            big_environment(r, *args.big)
    print("differential: %d cases (%d through hugeld status), %d "
          "disagreements%s" % (r.cases, r.status_cases, r.disagree,
                               "; %d AT_SECURE cases without a report (this "
                               "glibc keeps LD_DEBUG from them)" % r.skipped
                               if r.skipped else ""))
    return 1 if r.disagree else 0


if __name__ == "__main__":
    sys.exit(main())
