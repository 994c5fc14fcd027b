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
check     whether a process's selected text is on huge pages
enable    one systemd service on hugeld's loader; disable undoes it
perf-map  /tmp/perf-PID.map for the functions in huge-page text, so that
          perf can name them (huge pages are anonymous memory to perf)
gdb       gdb with the right symbols for a process or core
cache     the shared cache on hugetlbfs; cache sync makes it what
          /etc/hugeld.conf declares
config    config check: /etc/hugeld.conf as ld.so reads it (the
          hugeld-conf helper is built from elf/dl-hugepage-conf.c)
thp       what the page cache holds under the thp backing, its repair

Layers; a module imports only from its own layer's lower modules and
from the layers below it (tests/unit/test_hugeld_imports.py checks
that there is no cycle, no import inside a function, no command module
that imports another, and no file over 500 lines nor function over
80):

  cli.py        the command line: which command runs, its parser, help
                and errors
  commands/     one module per command, each declaring it (registry):
                run, plan, status, check, enable, disable, perf_map
                (perf-map), gdb, cache, config, thp
  report/       what status, check and gdb say of a process: records
                (typed), collect and node (the collectors), diagnose
                (why), text, document and prometheus (the renderers)
  cache/        the shared cache: mount (finding and opening it as
                ld.so trusts it), entry (its entries and their state),
                build (making one entry), upkeep (what the cache
                commands and status share), sync (cache sync)
  core          registry (the commands' declarations), common
                (constants, errors, formatting), helpers (the helpers
                and ld.so: where each is, its environment, running
                one), spawn, planner (hugeld-plan's questions and ld.so
                --list), plans (a program's plan), policy (the policy
                file, read by hugeld-conf), settings (libs, segments and
                backing of a command, made once), perfmap, systemd, elf,
                procfs, guards, pool, openfile, pathglob

Every rule ld.so applies is asked of the helpers, which are built from
ld.so's own code; none is written here.  Installed as a package
compiled to bytecode beside a small launcher (tools/Makefile).

Errors are one line on stderr, "hugeld: ...", with exit status 1 (2 for
a usage error), and nothing changed.
"""
