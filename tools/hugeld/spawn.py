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

"""Running a command and collecting what it prints: what hugeld needs of
subprocess.run, on os.posix_spawn and select.poll.  subprocess itself
imports threading, selectors, signal and contextlib, which every start
of the command paid for, whether it ran a helper or not."""

import os
import select
import time

PIPE = -1       # Collect the stream.
STDOUT = -2     # Standard error into standard output.


class TimedOut(Exception):
    """The command did not finish in time (it has been killed); stdout:
    what it had printed on its standard output."""

    def __init__(self, msg, stdout=b""):
        Exception.__init__(self, msg)
        self.stdout = stdout


class Completed(object):
    """What a command did: its exit status (minus the signal that
    killed it, as subprocess says it), and the bytes it printed."""

    __slots__ = ("args", "returncode", "stdout", "stderr")

    def __init__(self, args, returncode, stdout, stderr):
        self.args = args
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def run(args, env=None, stderr=PIPE, timeout=None, pass_fds=(), data=None):
    """Run ARGS (a path, or a name searched in PATH) with ENV (default
    this process's), standard input inherited (or DATA, bytes, written
    to it), and collect its standard output, and its standard error
    (PIPE) or both together (STDOUT).
    The descriptors PASS_FDS stay open in it, at their numbers.
    OSError if it cannot be started; TimedOut, with the command killed,
    if TIMEOUT seconds pass first."""
    args = list(args)
    fds = []
    made_inheritable = []
    try:
        for fd in pass_fds:
            if not os.get_inheritable(fd):
                os.set_inheritable(fd, True)
                made_inheritable.append(fd)
        pid, out_r, err_r, in_w = _start(args, env, stderr, data, fds)
        got = _collect(pid, args, fds, (out_r, err_r, in_w), data, timeout)
        _, status = os.waitpid(pid, 0)
        return Completed(args, os.waitstatus_to_exitcode(status),
                         b"".join(got[out_r]),
                         b"".join(got[err_r]) if err_r is not None else None)
    finally:
        for fd in made_inheritable:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass


def _start(args, env, stderr, data, fds):
    """Start ARGS (see run) with its pipes, each descriptor of ours
    added to FDS (run closes them): (its process ID, the read ends of
    its standard output and error (None: into the output), the write
    end of its standard input (None: inherited))."""
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    fds += [out_r, out_w]
    err_r, err_w = None, out_w
    if stderr == PIPE:
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        fds += [err_r, err_w]
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1),
               (os.POSIX_SPAWN_DUP2, err_w, 2)]
    in_r = in_w = None
    if data is not None:
        in_r, in_w = os.pipe2(os.O_CLOEXEC)
        fds += [in_r, in_w]
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    spawn = os.posix_spawn if "/" in args[0] else os.posix_spawnp
    pid = spawn(args[0], args, os.environ if env is None else env,
                file_actions=actions)
    # The child's ends, closed here.
    for fd in (out_w, err_w if err_r is not None else None, in_r):
        if fd is not None:
            os.close(fd)
            fds.remove(fd)
    return pid, out_r, err_r, in_w


def _collect(pid, args, fds, ends, data, timeout):
    """What the command PID (ARGS) printed on the read ends of ENDS
    ((stdout, stderr or None, stdin's write end or None)), DATA written
    to the last: {descriptor: [bytes]}.  A descriptor closed here leaves
    FDS.  TimedOut, the command killed, if TIMEOUT seconds pass."""
    out_r, err_r, in_w = ends
    got = {out_r: [], err_r: []}
    poll = select.poll()
    open_fds = [fd for fd in (out_r, err_r) if fd is not None]
    for fd in open_fds:
        poll.register(fd, select.POLLIN)
    todo = memoryview(data) if in_w is not None else b""
    if in_w is not None:
        os.set_blocking(in_w, False)
        if todo:
            poll.register(in_w, select.POLLOUT)
            open_fds.append(in_w)
        else:
            os.close(in_w)
            fds.remove(in_w)
    deadline = None if timeout is None else time.monotonic() + timeout
    while open_fds:
        wait = None
        if deadline is not None:
            wait = max(0, int((deadline - time.monotonic()) * 1000))
        ready = poll.poll(wait)
        if not ready and deadline is not None \
                and time.monotonic() >= deadline:
            os.kill(pid, 9)         # SIGKILL
            os.waitpid(pid, 0)
            raise TimedOut("%s: no answer in %s s" % (args[0], timeout),
                           b"".join(got[out_r]))
        for fd, ev in ready:
            if fd == in_w:
                todo = _write_some(fd, todo)
                if not todo:
                    poll.unregister(fd)
                    open_fds.remove(fd)
                    os.close(fd)
                    fds.remove(fd)
                continue
            chunk = os.read(fd, 65536)
            if chunk:
                got[fd].append(chunk)
            else:
                poll.unregister(fd)
                open_fds.remove(fd)
    return got


def _write_some(fd, todo):
    """What is left of TODO (a memoryview) after writing what FD takes
    now (nothing, where the command has closed its input)."""
    try:
        return todo[os.write(fd, todo):]
    except BlockingIOError:
        return todo
    except BrokenPipeError:
        return b""
