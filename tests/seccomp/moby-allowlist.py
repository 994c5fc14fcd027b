#!/usr/bin/python3
# The allow-list of a moby (Docker) seccomp profile, as hp-seccomp reads
# it, for one architecture and set of capabilities:
#
#   moby-allowlist.py default.json [--arch amd64] [--kernel 6.1] [--caps CAP,...]
#
# moby/profiles/seccomp/default.json (vendored in moby/moby under
# vendor/github.com/moby/profiles/seccomp/) gives each rule "includes"
# and "excludes" (arches, caps, minKernel) that Docker evaluates when it
# starts a container (profiles/seccomp/seccomp_linux.go): a rule is
# taken if every capability it includes is granted, its arch is listed
# (when it lists any), the kernel is at least minKernel, and no
# capability or arch it excludes applies.  An ALLOW rule's names are
# printed one a line; an ERRNO rule's as "NAME errno N".  Argument
# conditions cannot be written in the list: such a name is allowed
# whatever its arguments, and said so in a comment.
import argparse, json, sys

# Docker's default capabilities (moby daemon/pkg/oci/caps/defaults.go).
DEFAULT_CAPS = ("CAP_CHOWN CAP_DAC_OVERRIDE CAP_FSETID CAP_FOWNER CAP_MKNOD "
                "CAP_NET_RAW CAP_SETGID CAP_SETUID CAP_SETFCAP CAP_SETPCAP "
                "CAP_NET_BIND_SERVICE CAP_SYS_CHROOT CAP_KILL CAP_AUDIT_WRITE")

ap = argparse.ArgumentParser()
ap.add_argument("profile")
ap.add_argument("--arch", default="amd64")
ap.add_argument("--kernel", default="6.1")
ap.add_argument("--caps", default=DEFAULT_CAPS.replace(" ", ","))
a = ap.parse_args()
caps = set(a.caps.split(","))
kernel = tuple(int(x) for x in a.kernel.split("."))

def version(s):
    return tuple(int(x) for x in s.split("."))

OPS = {"SCMP_CMP_EQ": "==", "SCMP_CMP_NE": "!=", "SCMP_CMP_LT": "<",
       "SCMP_CMP_LE": "<=", "SCMP_CMP_GT": ">", "SCMP_CMP_GE": ">="}
def condition(x):
    if x["op"] == "SCMP_CMP_MASKED_EQ":
        return "arg%d & %#x == %#x" % (x["index"], x["value"], x.get("valueTwo", 0))
    return "arg%d %s %#x" % (x["index"], OPS[x["op"]], x["value"])

prof = json.load(open(a.profile))
assert prof["defaultAction"] == "SCMP_ACT_ERRNO", prof["defaultAction"]
allow, errno, conditional = {}, {}, {}
for r in prof["syscalls"]:
    inc, exc = r.get("includes") or {}, r.get("excludes") or {}
    if inc.get("arches") and a.arch not in inc["arches"]:
        continue
    if not set(inc.get("caps") or []) <= caps:
        continue
    if inc.get("minKernel") and kernel < version(inc["minKernel"]):
        continue
    if a.arch in (exc.get("arches") or []) or caps & set(exc.get("caps") or []):
        continue
    for n in r["names"]:
        if r["action"] == "SCMP_ACT_ALLOW":
            allow[n] = 1
            if r.get("args"):
                conditional.setdefault(n, []).append(
                    " and ".join(condition(x) for x in r["args"]))
        elif r["action"] == "SCMP_ACT_ERRNO":
            errno[n] = r.get("errnoRet", prof.get("defaultErrnoRet", 1))
        else:
            sys.exit("unexpected action %s for %s" % (r["action"], n))
for n in sorted(set(allow) | set(errno)):
    if n in allow:
        note = ("  # Docker: only with " + " or ".join(conditional[n])) \
            if n in conditional else ""
        print(n + note)
    else:
        print("%s errno %d" % (n, errno[n]))
