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

"""The guards a running process is under, as far as /proc shows them:
what may have refused ld.so the shared cache (its open or its mapping)
or /proc and /sys, where LD_DEBUG=hugepages says "denied by a security
policy".  ld.so decides by trying; this only names what is there.

- AppArmor: the process's profile and mode (/proc/PID/attr/apparmor/
  current, Linux 5.8; else attr/current where AppArmor is the security
  module), unless unconfined.
- SELinux: the process's context, where SELinux is on.
- Landlock: /proc shows no domain.  A process that is not privileged
  can only make one after setting no_new_privs (NoNewPrivs: 1 in
  /proc/PID/status), which is all there is to see; so are seccomp
  filters (Seccomp: 2).
- systemd: the unit of the process's cgroup, and that unit's
  RestrictFileSystems= (a BPF program on the file_open hook, which
  only acts where the kernel runs the BPF security module) and
  PrivateDevices=.
- The process's mount namespace: whether the cache's directory is
  there at all (PrivateDevices= and containers give a /dev without
  /dev/hugepages)."""

import os

from . import spawn

SECURITYFS_LSM = "/sys/kernel/security/lsm"


def read_text(path):
    """The first line of PATH, stripped, or None."""
    try:
        with open(path, "rb") as f:
            return f.read(4096).split(b"\n")[0].rstrip(b"\0").decode(
                "utf-8", "replace").strip()
    except OSError:
        return None


def active_lsms():
    """The security modules the kernel runs (securityfs's lsm), or None
    where securityfs is not mounted."""
    t = read_text(SECURITYFS_LSM)
    return None if t is None else [x for x in t.split(",") if x]


def apparmor_label(pid, lsms):
    """PID's AppArmor label ("profile (enforce)"), or None if it is
    unconfined or AppArmor is off."""
    t = read_text("/proc/%d/attr/apparmor/current" % pid)
    if t is None and lsms is not None and "apparmor" in lsms:
        t = read_text("/proc/%d/attr/current" % pid)
    if not t or t == "unconfined" or t.startswith("unconfined "):
        return None
    return t


def selinux_context(pid, lsms):
    """PID's SELinux context, where SELinux is on, else None."""
    if not os.path.exists("/sys/fs/selinux/enforce"):
        return None
    t = read_text("/proc/%d/attr/selinux/current" % pid)
    if t is None and lsms is not None and "selinux" in lsms:
        t = read_text("/proc/%d/attr/current" % pid)
    return t or None


def status_fields(pid):
    """NoNewPrivs and Seccomp of /proc/PID/status (0 where unknown)."""
    out = {"NoNewPrivs": 0, "Seccomp": 0}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in out:
                    out[k] = int(v.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return out


def systemd_unit(pid):
    """The systemd unit (service or scope) of PID's cgroup, or None."""
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        path = line.split(":", 2)[-1]
        for part in reversed(path.split("/")):
            if part.endswith((".service", ".scope")):
                return part
    return None


def unit_properties(unit):
    """{property: value} of UNIT's RestrictFileSystems= and
    PrivateDevices=, asked of systemd (10 s at most), or {} where
    systemd does not run or does not answer."""
    if unit is None or not os.path.isdir("/run/systemd/system"):
        return {}
    try:
        r = spawn.run(["systemctl", "show", "-p", "RestrictFileSystems",
                       "-p", "PrivateDevices", "--", unit], timeout=10)
    except (OSError, spawn.TimedOut):
        return {}
    props = {}
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        k, _, v = line.partition("=")
        props[k] = v
    return props


def denies_hugetlbfs(restrict):
    """Whether a RestrictFileSystems= value keeps hugetlbfs out: an
    allow list without it, or a deny list (~) with it."""
    if not restrict:
        return False
    deny = restrict.startswith("~")
    names = restrict.lstrip("~").split()
    return ("hugetlbfs" in names) == deny


def process_guards(pid, cache_dir):
    """What /proc shows of the guards process PID runs under (see the
    module's docstring), with "words": each one named for a person."""
    lsms = active_lsms()
    g = {"lsms": lsms, "apparmor": apparmor_label(pid, lsms),
         "selinux": selinux_context(pid, lsms)}
    st = status_fields(pid)
    g["no_new_privs"] = st["NoNewPrivs"] == 1
    g["seccomp_filter"] = st["Seccomp"] == 2
    g["unit"] = systemd_unit(pid)
    props = unit_properties(g["unit"])
    g["restrict_filesystems"] = props.get("RestrictFileSystems") or None
    g["private_devices"] = props.get("PrivateDevices") == "yes"
    # Through the process's own root and mount namespace.
    g["cache_visible"] = os.path.isdir("/proc/%d/root%s" % (pid, cache_dir))
    words = []
    if g["apparmor"]:
        words.append("AppArmor profile %s" % g["apparmor"])
    if g["selinux"]:
        words.append("SELinux context %s" % g["selinux"])
    if g["restrict_filesystems"] and denies_hugetlbfs(
            g["restrict_filesystems"]):
        bpf = lsms is not None and "bpf" in lsms
        words.append("systemd unit %s: RestrictFileSystems=%s, without "
                     "hugetlbfs (%s)" % (
                         g["unit"], g["restrict_filesystems"],
                         "enforced: the kernel runs the BPF security module"
                         if bpf else "enforced only where the kernel runs "
                         "the BPF security module (lsm=...,bpf)"))
    if not g["cache_visible"]:
        words.append("no %s in its mount namespace%s" % (
            cache_dir, " (PrivateDevices=yes)" if g["private_devices"]
            else " (a private /dev: PrivateDevices=, a container)"))
    if g["seccomp_filter"]:
        words.append("a seccomp filter")
    if g["no_new_privs"]:
        words.append("NoNewPrivs (as a Landlock domain needs: /proc shows "
                     "no Landlock domain itself)")
    g["words"] = words
    return g
