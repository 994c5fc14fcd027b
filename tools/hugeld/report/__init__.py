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

"""What a running process has on huge pages, and why: the part of the
command that status, check and gdb share, in three parts that each
depend only on the one before it:

  records     the typed records: per process (Process), per object
              (Object) and per range (Range): what the kernel gave
              (/proc/PID/smaps), what the settings asked (Selected,
              Unserved: the objects they select, with their plans) and
              what the shared cache had (CacheUnused, PrivateCopy); per
              node (Node) for status --all
  collect     the collector of one process (/proc, the helpers), and
  node        of every process and the node (status --all)
  diagnose    why: the reasons a selected object has no huge page, or
              not all of its text (status, check), what a debugger
              meets (gdb)
  text, document, prometheus
              the renderers: the report for a person, the JSON document
              (status --json: field for field what it always was) and
              the Prometheus text format; they format, nothing else."""
