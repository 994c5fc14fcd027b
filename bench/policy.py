"""The cost of the policy file, /etc/hugeld.conf, for a process that
it selects nothing for: /bin/true run through hugeld with a 50-rule
file against the same run without one (issue 18: within 5%).

Rounds alternate the variants (the file is written or removed, and
synced, before a run that needs the other state), each run starting
/bin/true a few hundred times after a warm-up; reported are the medians
and the median of the per-round ratios to the run without the file.
LD_DEBUG=statistics also gives ld.so's own start-up time in cycles,
without the kernel's exec and exit: the file's cost inside ld.so.  Whatever /etc/hugeld.conf held is put
back."""
import os, statistics, subprocess, time

from benchlib import HUGELD, STOCK, base_env, log, sh

CONF = "/etc/hugeld.conf"
HERE = os.path.dirname(os.path.abspath(__file__))


def rules50():
    """A 50-rule file of the kind a fleet would write: global libraries
    and cache lines, and eight program blocks; nothing in it selects
    /bin/true or libc."""
    g = ["libs libLLVM-1[0-9].so*:libclang-cpp.so*",
         "libs libmysqlclient.so*:libmariadb.so*:libcrypto.so*:libssl.so*",
         "libs libpython3.1[0-9].so*:libperl.so*:libruby-*.so*",
         "libs libjvm.so:libv8.so*:libnode.so*",
         "segments text,rodata",
         "backing shared,private,thp",
         "pool auto"]
    g += ["cache /usr/lib/x86_64-linux-gnu/lib%s.so*" % n for n in
          ("LLVM-14", "clang-cpp", "mariadb", "crypto", "ssl", "python3.11",
           "perl", "ruby-3.1", "jvm", "node", "v8", "icudata", "icui18n")]
    blocks = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld", "/usr/bin/python3*",
              "/usr/lib/jvm/*/bin/java", "/usr/bin/node", "/usr/bin/postgres",
              "clang-1[0-9]", "/usr/bin/ruby*", "/usr/bin/gdb", "/usr/sbin/nginx"]
    lines = g
    for b in blocks:
        lines += ["program " + b, "  libs %s:libcrypto.so*" % os.path.basename(b),
                  "  segments text,rodata,relro"]
    text = "# hugeld.conf: a 50-rule policy for the bench\n" + "\n".join(lines) + "\n"
    rules = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    assert len(rules) == 50, len(rules)
    return text


def set_file(with_file, text):
    """Write or remove /etc/hugeld.conf: whether that changed it."""
    if with_file == os.path.exists(CONF):
        return False
    if with_file:
        with open(CONF + ".tmp", "w") as f:
            f.write(text)
        os.chmod(CONF + ".tmp", 0o644)
        os.rename(CONF + ".tmp", CONF)
    else:
        os.unlink(CONF)
    return True


def policy(sysm, w, q, perf_events):
    rounds, n = (7, 200) if q else (21, 500)
    spawn = os.path.join(w["bin"], "spawn")
    sh(["gcc", "-O2", "-Wall", "-o", spawn, os.path.join(HERE, "cost", "spawn.c")])
    text = rules50()
    saved = None
    if os.path.lexists(CONF):
        saved = CONF + ".hugeld-bench"
        os.rename(CONF, saved)
    variants = [
        ("nofile", "hugeld, no file", [HUGELD, "/bin/true"], {}, False),
        ("file50", "hugeld, 50-rule file", [HUGELD, "/bin/true"], {}, True),
        ("optout", "hugeld, 50-rule file, LD_HUGEPAGE_LIBS=", [HUGELD, "/bin/true"],
         {"LD_HUGEPAGE_LIBS": ""}, True),
        ("stock", "stock ld.so", [STOCK, "/bin/true"], {}, False),
        # The file's presence alone, for a loader that never reads it:
        # what the machine does around the runs, not ld.so.
        ("stock-file", "stock ld.so, 50-rule file present", [STOCK, "/bin/true"], {}, True),
    ]
    samples = {v[0]: [] for v in variants}
    try:
        for r in range(rounds + 1):
            for name, label, cmd, env, with_file in variants[r % len(variants):] + variants[:r % len(variants)]:
                if set_file(with_file, text):
                    # Let the file system's journal commit now, not
                    # during the timed run.
                    os.sync()
                    time.sleep(0.3)
                e = base_env()
                e.update(env)
                # Warm up, then time.
                subprocess.run([spawn, str(n // 10)] + cmd, env=e, check=True,
                               stdout=subprocess.DEVNULL)
                out = subprocess.run([spawn, str(n)] + cmd, env=e, check=True,
                                     stdout=subprocess.PIPE, text=True).stdout
                if r > 0:
                    samples[name].append(float(out))
        # ld.so's own start-up time (LD_DEBUG=statistics, in cycles).
        cycles = {v[0]: [] for v in variants if v[2][0] == HUGELD}
        for r in range(60 if q else 200):
            for name, label, cmd, env, with_file in variants:
                if name not in cycles:
                    continue
                set_file(with_file, text)
                e = base_env()
                e.update(env)
                e["LD_DEBUG"] = "statistics"
                err = subprocess.run(cmd, env=e, check=True, stderr=subprocess.PIPE,
                                     text=True).stderr
                cycles[name].append(int(err.split("total startup time in dynamic loader:")[1]
                                        .split()[0]))
    finally:
        if os.path.exists(CONF) and saved is None:
            os.unlink(CONF)
        if saved:
            os.replace(saved, CONF)
    base = samples["nofile"]
    res = {"id": "policy-cost", "title": "/bin/true through hugeld: without and with a "
           "50-rule /etc/hugeld.conf that selects nothing for it (us per start)",
           "rounds": rounds, "starts_per_round": n, "rules": 50, "variants": []}
    for name, label, cmd, env, with_file in variants:
        s = samples[name]
        ratio = statistics.median(a / b for a, b in zip(s, base))
        ent = {"name": name, "label": label, "cmd": cmd, "env": env,
               "file": with_file, "samples_us": s, "median_us": statistics.median(s),
               "paired_ratio": ratio}
        if name in cycles:
            ent["ldso_cycles"] = statistics.median(cycles[name])
            ent["ldso_cycles_extra"] = ent["ldso_cycles"] - statistics.median(cycles["nofile"])
        res["variants"].append(ent)
        log("  %-44s %8.1f us per start  ratio %.3f%s" % (
            label, statistics.median(s), ratio,
            "  ld.so %d cycles (%+d)" % (ent["ldso_cycles"], ent["ldso_cycles_extra"])
            if name in cycles else ""))
    return [res]
