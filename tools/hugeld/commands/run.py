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

"""hugeld run: run a program through hugeld's ld.so."""

import os
import signal
import sys
import time

from ..cache import entry
from ..common import DEBUG_DIR, Error, SYSFS_HUGE, UsageError, ldso_arg, ldso_path, shown, warn
from ..elf import check_program, interp_is_hugeld_loader, resolve_program
from ..perfmap import write_perf_map
from ..planner import cache_dir, default_setting, parse_backing, setting_variable
from ..plans import PlanOptions, make_plan, unmatched_messages
from ..pool import hugetlb_cgroup_none, pool_info
from ..registry import Command, append, flag, loader_options, optional, settings, value
from ..settings import options_of, program_path, resolve


def cmd_run(args):
    cmd = list(args.rest)
    if not cmd:
        raise UsageError("hugeld run: no program given (hugeld run "
                         "[OPTIONS] -- PROG ARGS...)")
    # /proc/self/exe names the loader, run as a command, or the program
    # (the [proc:] lines of /etc/tunables.conf match it).
    settings = resolve("run", options_of(args), os.environ,
                       program_path(cmd[0]), exe=None if args.direct
                       else os.path.realpath(ldso_arg(args)))
    ldso = ldso_path(args)
    path = resolve_program(cmd[0])
    elf = check_program(path)
    interp = elf.interp
    elf.close()
    if args.direct:
        check_direct(path, interp, ldso)
    # Only the private backing takes pages from the pool (shared ones
    # are the cache's, thp ones the kernel's).
    order = parse_backing(settings.backing or default_setting("backing"))
    plan = program_plan(cmd[0], args, settings)
    if not args.no_pool_check and "private" in order:
        check_pool(cmd[0], settings, order, plan)
    for msg in plan_warnings(plan, cmd[0], settings, order):
        warn(msg)
    env = environment(args, settings)
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


def check_direct(path, interp, ldso):
    """Refuse --direct for the program PATH unless its PT_INTERP
    (INTERP) is hugeld's loader LDSO.  PT_INTERP names a path: opened
    by the opening rule (never a FIFO or a device), and judged by what
    was opened."""
    ok, why = interp_is_hugeld_loader(interp, ldso)
    if not ok:
        raise Error("--direct: %s's interpreter is %s, not hugeld's "
                    "loader%s (relink with -Wl,--dynamic-linker=%s, or "
                    "leave out --direct)" % (
                        shown(path), shown(interp or "none"),
                        " (%s)" % shown(why) if why else "", ldso))


def check_pool(prog, settings, order, plan):
    """Refuse to run PROG when its backings ORDER take private copies
    and the pool has no page for them (or its hugetlb cgroup allows
    none), unless the shared cache holds some of what its PLAN
    selects: then warn."""
    p = pool_info()
    if p is None:
        raise Error("this kernel has no 2 MiB huge pages (no %s)"
                    % SYSFS_HUGE)
    cg = hugetlb_cgroup_none()
    if p["available"] <= 0:
        short = "no free huge pages"
        why = ("no free huge pages (HugePages_Total %d, Free %d, "
               "Rsvd %d): reserve some first, e.g. hugeld plan %s "
               "%s--apply (as root); or --backing thp (no pool), or "
               "--no-pool-check"
               % (p["total"], p["free"], p["reserved"], prog,
                  "" if "libs" in settings.from_file
                  else "--libs '%s' " % settings.libs))
    elif cg is not None:
        short = "this process's hugetlb cgroup allows no huge page " \
                "(%s is %d)" % (cg["file"], cg["value"])
        why = ("%s: private copies would fail; ld.so places text for "
               "thp here (--backing thp, or --no-pool-check)" % short)
    else:
        return
    # The cache's pages cost the process none: a pod that requested no
    # huge pages still maps them, if the cache holds some of the
    # objects this program selects.
    if "shared" not in order or not cached_for(plan):
        raise Error(why)
    warn("%s: only objects in the shared cache (%s) and thp get huge "
         "pages" % (short, cache_dir()))


def environment(args, settings):
    """The program's environment: ours with the SETTINGS that ld.so
    does not read itself (from the policy file, GLIBC_TUNABLES or
    /etc/tunables.conf: said on stderr) and --debug's LD_DEBUG."""
    libs, segs, backing = settings.libs, settings.segments, settings.backing
    from_file = settings.from_file
    env = dict(os.environ)
    own = set(from_file) | set(settings.tunables())
    for k, v in (("libs", libs), ("segments", segs), ("backing", backing)):
        if v and k not in own:
            env[setting_variable(k)] = v
    note = settings.describe({"libs": libs,
                              "segments": segs or default_setting("segments"),
                              "backing": backing
                              or default_setting("backing")})
    if note:
        # Not a warning: the file is how the system is meant to work.
        where = {"file": settings.policy["file"],
                 "tunable": "GLIBC_TUNABLES",
                 "system": "/etc/tunables.conf"}
        print(shown("hugeld: %s%s; ld.so reads %s itself" % (
            note, ", the program block at " + from_file["program"]
            if "program" in from_file else "",
            " and ".join(sorted({where[settings.origin[k]] for k in own
                                 if k in settings.origin})))),
            file=sys.stderr)
    if args.debug is not None:
        env["LD_DEBUG"] = "hugepages"
        if args.debug != "-":
            env["LD_DEBUG_OUTPUT"] = args.debug
    return env


def program_plan(prog, args, settings):
    """`hugeld plan''s plan of PROG under SETTINGS, or None where it
    cannot be made (a library not found: the program then fails, or
    not, on its own)."""
    try:
        return make_plan(PlanOptions(prog, args.ldso, args.direct, None, 1),
                         settings, pool_info())
    except Error:
        return None


def cached_for(r):
    """Whether the shared cache holds now some of what the plan R's
    selected objects take (entries the policy file declares but `cache
    sync' has not made yet do not count); without a plan, whether it
    holds any entry."""
    if r is None:
        return entry.has_entries()
    return r["pages_in_cache"] - r["pages_declared"] > 0


def plan_warnings(r, prog, settings, order):
    """What `hugeld run' says before it runs PROG with SETTINGS (the
    backings ORDER), from its plan R (None: nothing): the patterns that
    select none of the objects it loads, and a pool too small for what
    it takes (ld.so then gives the pages there are to text first)."""
    if r is None:
        return []
    out = unmatched_messages(r)
    p = r["pool"]
    need = r["pages_per_process"]
    if p is not None and "private" in order and 0 < p["available"] < need:
        out.append("the pool has %d of the %d huge pages this process "
                   "takes from it: %d short; ld.so gives the pages there "
                   "are to text first (hugeld plan %s %s--apply reserves "
                   "them)" % (p["available"], need, need - p["available"],
                              prog, "" if "libs" in settings.from_file
                              else "--libs '%s' " % settings.libs))
    return out


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
            with open("/proc/%d/maps" % pid, encoding="utf-8",
                      errors="surrogateescape", newline="\n") as f:
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


COMMAND = Command(
    name="run", rank=10,
    synopsis=("run [--libs PATTERNS] [--segments LIST] [--backing BACKINGS] "
              "[OPTIONS] -- PROG [ARGS...]",),
    summary="run PROG through hugeld's ld.so with the settings applied",
    description="Run PROG (searched in PATH) through hugeld's ld.so "
    "with LD_HUGEPAGE_LIBS, LD_HUGEPAGE_SEGMENTS and LD_HUGEPAGE_BACKING "
    "set, as `ld.so --argv0 PROG PATH ARGS'.  Without --perf-map hugeld "
    "is replaced by the program (same PID, its exit status).  Refuses "
    "to run when the pool has no free huge page and the backings "
    "include private (the loader would silently use ordinary pages), "
    "unless --no-pool-check.",
    epilog="example: hugeld run --libs 'libLLVM*.so*' -- clang -c x.c",
    options=(
        settings(),
        *loader_options(),
        optional("--debug", metavar="FILE", const="-",
                 help="LD_DEBUG=hugepages: the loader's report on stderr, "
                 "or, written --debug=FILE, in FILE.PID"),
        flag("--perf-map", help="stay as the parent and keep "
             "/tmp/perf-PID.map (PID: the program's) written while its huge "
             "page mappings change, so that perf can name the functions in "
             "them"),
        value("--perf-map-output", metavar="FILE", hidden=True),
        append("--debug-dir", metavar="DIR",
               help="with --perf-map: where to look for separate debug "
               "files (default %s)" % DEBUG_DIR),
        flag("--no-pool-check", help="run even if no huge page is free")),
    rest="program", run=cmd_run)
