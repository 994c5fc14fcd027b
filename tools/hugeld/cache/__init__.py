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

"""The shared cache on hugetlbfs that ld.so maps MAP_SHARED
(LD_HUGEPAGE_BACKING=shared): mount (finding and opening it as ld.so
trusts it), entry (its entries and their state), build (making one
entry), upkeep (what the cache commands and status share), sync (cache
sync: the cache made what the policy file declares).  Above the core
modules (common, planner, policy, pathglob, openfile, pool), below the
commands."""
