#!/bin/bash
# The Kubernetes manifests in deploy/kubernetes: valid against the
# Kubernetes API's schemas (offline, strict: kubernetes-validate from
# PyPI in a venv under build/; kubectl cannot validate without a
# cluster), and saying what hugeld needs: the application requests no
# huge pages, mounts the node's cache read-only at /dev/hugepages/hugeld,
# selects with LD_HUGEPAGE_LIBS, runs through /opt/hugeld/ld.so, not in
# a user namespace; the cache filler runs as root, not in a user
# namespace, with the node's /dev/hugepages writable and hugepages-2Mi
# requested (requests == limits).  Broken copies must be rejected.
. "$(dirname "$0")/lib.sh"

K=$HUGELD_TOP/deploy/kubernetes
KVER=1.32
PY=/usr/bin/python3
VENV=$HUGELD_TOP/build/k8s-venv

# validate FILE...: the schema check; 0 if valid.
validate () { "$VENV/bin/kubernetes-validate" -k "$KVER" --strict --quiet "$@"; }

if [ ! -x "$VENV/bin/kubernetes-validate" ]; then
  rm -rf "$VENV"
  { "$PY" -m venv "$VENV" && "$VENV/bin/pip" install -q kubernetes-validate; } > "$TEST_TMP/venv.log" 2>&1 \
    || rm -rf "$VENV"
fi
if [ -x "$VENV/bin/kubernetes-validate" ]; then
  if validate "$K"/*.yaml > "$TEST_TMP/validate.out" 2>&1; then
    pass "deploy/kubernetes/*.yaml valid against Kubernetes $KVER's schemas (strict): $(ls "$K"/*.yaml | wc -l) files"
  else
    fail "schemas" "$(head -5 "$TEST_TMP/validate.out" | tr '\n' ' ')"
  fi
  # A misspelled field must be caught.
  sed 's/readOnly: true/readOnyl: true/' "$K/example-app.yaml" > "$TEST_TMP/typo.yaml"
  validate "$TEST_TMP/typo.yaml" > /dev/null 2>&1 \
    && fail "schemas reject a misspelled field" "readOnyl passed" \
    || pass "schemas reject a misspelled field (readOnyl)"
else
  skip schemas "kubernetes-validate cannot be installed here: $(tail -1 "$TEST_TMP/venv.log")"
fi

# semantics FILE...: what hugeld needs of the objects in FILE...; prints
# what is wrong, one line each, and fails if anything is.
semantics () {
  "$PY" - "$@" <<'EOF'
import sys, yaml
bad = []
def say(kind, name, msg):
    bad.append("%s/%s: %s" % (kind, name, msg))
def pod_specs():
    for f in sys.argv[1:]:
        for d in yaml.safe_load_all(open(f)):
            if d and d.get("kind") in ("Deployment", "DaemonSet", "StatefulSet", "Job"):
                yield d["kind"], d["metadata"]["name"], d["spec"]["template"]["spec"]
            elif d and d.get("kind") == "Pod":
                yield "Pod", d["metadata"]["name"], d["spec"]
def huge(res):
    return {k: v for part in ("requests", "limits")
            for k, v in (res or {}).get(part, {}).items()
            if k.startswith("hugepages-")}
seen = set()
for kind, name, spec in pod_specs():
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    if spec.get("hostUsers") is False:
        say(kind, name, "hostUsers: false (ld.so trusts only a cache owned by the node's root)")
    for c in spec["containers"]:
        res = c.get("resources", {})
        mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
        host = {p: vols.get(m["name"], {}).get("hostPath", {}).get("path")
                for p, m in mounts.items()}
        sc = c.get("securityContext", {})
        if kind == "DaemonSet":
            seen.add("filler")
            h = huge(res)
            if "hugepages-2Mi" not in h:
                say(kind, name, "requests no hugepages-2Mi (the entries' pages are charged to it)")
            elif res.get("requests", {}).get("hugepages-2Mi") != res.get("limits", {}).get("hugepages-2Mi"):
                say(kind, name, "hugepages-2Mi requests != limits")
            if host.get("/dev/hugepages") != "/dev/hugepages" or mounts["/dev/hugepages"].get("readOnly"):
                say(kind, name, "does not mount the node's /dev/hugepages writable")
            if sc.get("runAsUser", 0) != 0 or sc.get("runAsNonRoot"):
                say(kind, name, "does not run as root")
        else:
            seen.add("app")
            if huge(res):
                say(kind, name, "requests huge pages %s: it needs none" % huge(res))
            m = mounts.get("/dev/hugepages/hugeld")
            if m is None or host.get("/dev/hugepages/hugeld") != "/dev/hugepages/hugeld":
                say(kind, name, "does not mount the node's /dev/hugepages/hugeld at the same path")
            elif not m.get("readOnly"):
                say(kind, name, "mounts the cache writable")
            if sc.get("privileged"):
                say(kind, name, "runs privileged")
            if not any(e.get("name") == "LD_HUGEPAGE_LIBS" for e in c.get("env", [])):
                say(kind, name, "sets no LD_HUGEPAGE_LIBS")
            if "/opt/hugeld/ld.so" not in " ".join(c.get("command", []) + c.get("args", [])):
                say(kind, name, "does not run through /opt/hugeld/ld.so")
for what in ("filler", "app"):
    if what not in seen:
        bad.append("no %s" % what)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}
if out=$(semantics "$K"/*.yaml 2>&1); then
  pass "the app requests no huge pages and mounts the cache read-only; the filler runs as root with hugepages-2Mi and /dev/hugepages"
else
  fail "manifests say what hugeld needs" "$(echo "$out" | tr '\n' ' ')"
fi
# Each rule can fail: an app that requests huge pages, one in a user
# namespace, one that mounts the cache writable, a filler without huge
# pages.
broken () {
  local what=$1 file=$2; shift 2
  "$PY" - "$K/$file" "$TEST_TMP/broken.yaml" "$@" <<'EOF'
import sys, yaml
src, dst, change = sys.argv[1], sys.argv[2], sys.argv[3]
docs = list(yaml.safe_load_all(open(src)))
for d in docs:
    if not d or "template" not in d.get("spec", {}):
        continue
    spec = d["spec"]["template"]["spec"]
    c = spec["containers"][0]
    if change == "hugepages":
        c["resources"].setdefault("requests", {})["hugepages-2Mi"] = "64Mi"
        c["resources"].setdefault("limits", {})["hugepages-2Mi"] = "64Mi"
    elif change == "userns":
        spec["hostUsers"] = False
    elif change == "writable":
        for m in c["volumeMounts"]:
            m.pop("readOnly", None)
    elif change == "nohuge":
        for part in ("requests", "limits"):
            c["resources"][part].pop("hugepages-2Mi", None)
yaml.safe_dump_all(docs, open(dst, "w"))
EOF
  if semantics "$TEST_TMP/broken.yaml" "$K/$( [ "$file" = example-app.yaml ] && echo hugeld-cache-daemonset.yaml || echo example-app.yaml)" > "$TEST_TMP/broken.out" 2>&1; then
    fail "rejects $what" "passed"
  else
    pass "rejects $what: $(head -1 "$TEST_TMP/broken.out")"
  fi
}
broken "an app that requests huge pages" example-app.yaml hugepages
broken "an app in a user namespace" example-app.yaml userns
broken "an app that mounts the cache writable" example-app.yaml writable
broken "a filler without hugepages-2Mi" hugeld-cache-daemonset.yaml nohuge
finish
