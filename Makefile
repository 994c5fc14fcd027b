# hugeld: a glibc dynamic loader that maps selected objects onto huge pages.
#
#   make            build ld.so from the distribution's glibc source (incremental)
#   make install    install it as $(DESTDIR)$(PREFIX)/ld.so (default /opt/hugeld)
#   make uninstall  remove what install installed (not while hugeld is the system loader)
#   make check      run the tests on the build, staged in build/stage (root reserves huge pages);
#                   GROUP=loader|command|system|glibc for one part (tests/groups is the index)
#   make check-full the slower tier of tests: glibc's own suites, debootstrapped roots (TIER=full)
#   make check-installed  the same tests on the installed $(PREFIX) (installs first)
#   make check-programs   the real-program corpus (tests/programs/corpus.sh: node, chromium,
#                   java, databases, servers, compilers...) with hugeld as every process's
#                   loader, every backing, root and their own users (installs the packages)
#   make demo       the big-code demo: what goes on huge pages, and the speed-up
#   make unit       planner and matcher unit tests only (no glibc build needed)
#   make tools      the hugeld command only (no glibc build needed)
#   make bench      benchmarks against the stock loader, THP and libhugetlbfs (bench-quick: < 5 min)
#   make check-kernels  the built loader under Debian's 5.10, 6.1, 6.12, 7.2 and 7.3 kernels (qemu)
#   make check-arm64    the arm64 loader (cross-built: make build ARCH=arm64) under Debian's arm64
#                   6.1, 6.12 and 7.x kernels (qemu-system-aarch64, TCG): check-kernels' checks and BTI
#   make check-boot     the .deb on a whole Debian machine, from PID 1 on, booted six times (qemu)
#   make deb        a Debian package of the build: build/hugeld_VERSION+LIBC6VERSION_amd64.deb
#   make check-distro DIST=trixie   build and `make check' in a debootstrapped chroot (bookworm, trixie, sid, experimental)
#   make check-series  apply the patch series to the glibc source of every supported release, and
#                   make each release's series for upstream and apply it with git am (no build)
#   make series RELEASE=R  hugeld as a git format-patch series against the pristine glibc R: build/series-out/R
#   make check-series-build  every commit of the host release's series builds ld.so (a full build, then ~35 s a commit)

PREFIX ?= /opt/hugeld
DESTDIR ?=
BUILDDIR ?= $(CURDIR)/build
export PREFIX DESTDIR BUILDDIR
# make build ARCH=arm64: the loader for Debian's arm64, cross-built on
# amd64 into build/arm64/obj (scripts/config.sh); natively on arm64 it
# is the default.  Only a command-line ARCH counts (a kernel build's
# ARCH in the environment does not).
ifeq ($(origin ARCH),command line)
export HUGELD_ARCH = $(ARCH)
endif

CC ?= gcc
UNIT_CFLAGS = -std=gnu11 -g -O1 -Wall -Wextra -Werror -Ielf -Itests/unit
PLAN_SRCS = elf/dl-hugepage-plan.c elf/dl-hugepage-kinds.c elf/dl-hugepage-dynamic.c \
  elf/dl-hugepage-match.c elf/dl-hugepage-cache.c elf/dl-hugepage-place.c \
  elf/dl-hugepage-cgroup.c elf/dl-hugepage-conf.c \
  elf/dl-hugepage-conf-program.c elf/dl-hugepage-tunables.c \
  elf/dl-hugepage-tunconf.c elf/dl-hugepage-settings.c \
  elf/dl-hugepage-relocate.c
PLAN_HDRS = elf/dl-hugepage-plan.h elf/dl-hugepage-cache.h elf/dl-hugepage-place.h \
  elf/dl-hugepage-cgroup.h elf/dl-hugepage-num.h elf/dl-hugepage-dynamic.h \
  elf/dl-hugepage-kinds.h elf/dl-hugepage-match.h elf/dl-hugepage-conf.h \
  elf/dl-hugepage-settings.h elf/dl-hugepage-relocate.h

.PHONY: check-arm64 check-programs deb check-series series check-series-build check-full check-distro bench bench-quick tools install-tools uninstall-tools all build install uninstall install-system uninstall-system check-system check-glibc check-kernels check-boot check check-installed unit unit-build fuzz fixtures demo clean distclean

all: build tools

# The hugeld command (tools/): built into $(BUILDDIR)/tools; installed as
# $(PREFIX)/bin/hugeld, $(PREFIX)/libexec/hugeld-plan, man page and bash
# completion, with links under /usr/local (LINKDIR= for none).
TOOLS_MAKE = $(MAKE) -C tools OUT=$(BUILDDIR)/tools
# Cross-built (ARCH=arm64 on amd64): with the cross compiler of the
# release's DEB_GCC_VERSION, into build/ARCH/tools.
ifneq ($(filter arm64 aarch64,$(HUGELD_ARCH)),)
ifneq ($(shell dpkg --print-architecture 2>/dev/null),arm64)
TOOLS_MAKE = $(MAKE) -C tools OUT=$(BUILDDIR)/arm64/tools \
  CC=aarch64-linux-gnu-gcc$(shell sed -n 's/^DEB_GCC_VERSION ?= *\(-[0-9]*\) *$$/\1/p' /usr/src/glibc/debian/rules 2>/dev/null)
endif
endif

tools:
	$(TOOLS_MAKE)

install-tools: tools
	$(TOOLS_MAKE) install

uninstall-tools:
	$(TOOLS_MAKE) uninstall

build:
	scripts/build.sh

install: build tools
	scripts/install.sh
	$(TOOLS_MAKE) install

# What install put in $(DESTDIR)$(PREFIX), and the links under LINKDIR;
# refuses while hugeld is the system loader or a service runs on it.
uninstall:
	scripts/uninstall.sh
	$(TOOLS_MAKE) uninstall
	-rmdir $(addprefix $(DESTDIR)$(PREFIX)/,share/bash-completion/completions \
	  share/bash-completion share/man/man1 share/man/man5 share/man share \
	  libexec bin) $(DESTDIR)$(PREFIX) 2>/dev/null

# The unit tests, outside glibc, under ASan and UBSan, with a copy of
# the macros of glibc's test framework (tests/unit/support/check.h,
# <support/check.h> with -Itests/unit).  The planner's test is
# elf/tst-hugepage-plan.c, the very file glibc's framework builds
# (glibc-patches/0010); the other pure files' tests are test-unit.
UNIT_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
UNIT_HARNESS = tests/unit/support/check.h tests/unit/support/test-driver.c \
  tests/unit/array_length.h
UNIT_SRCS = tests/unit/test-unit.c tests/unit/test-match.c \
  tests/unit/test-dynamic.c tests/unit/test-cache.c tests/unit/test-conf.c \
  tests/unit/test-tunables.c tests/unit/test-tunconf.c \
  tests/unit/test-settings.c tests/unit/test-relocate.c

$(BUILDDIR)/tests/tst-hugepage-plan: elf/tst-hugepage-plan.c elf/tst-hugepage-plan-check.h elf/tst-hugepage-phdr.h $(UNIT_HARNESS) elf/dl-hugepage-plan.c elf/dl-hugepage-plan.h elf/dl-hugepage-kinds.c elf/dl-hugepage-kinds.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(UNIT_SAN) elf/tst-hugepage-plan.c -o $@

$(BUILDDIR)/tests/test-unit: $(UNIT_SRCS) $(UNIT_HARNESS) tests/unit/unit-check.h tests/unit/tunconf-build.h elf/tst-hugepage-phdr.h $(PLAN_SRCS) $(PLAN_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(UNIT_SAN) $(UNIT_SRCS) $(PLAN_SRCS) -o $@

unit-build: $(BUILDDIR)/tests/tst-hugepage-plan $(BUILDDIR)/tests/test-unit $(BUILDDIR)/tests/fuzz-plan

unit: unit-build
	tests/run.sh tests/t-unit.sh

FUZZ_RUNS ?= 300000
FUZZ_SECONDS ?= 120

# The fuzz target as a plain program: corpus plus random inputs (gcc).
$(BUILDDIR)/tests/fuzz-plan: tests/fuzz/fuzz-plan.c tests/fuzz/driver.c elf/tst-hugepage-plan-check.h $(PLAN_SRCS) $(PLAN_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(UNIT_SAN) \
	  tests/fuzz/fuzz-plan.c tests/fuzz/driver.c $(PLAN_SRCS) -o $@

# Coverage-guided fuzzing with clang's libFuzzer, bounded in time.
fuzz:
	scripts/deps.sh fuzz
	@mkdir -p $(BUILDDIR)/tests/fuzz-corpus
	clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -Ielf -Itests/unit \
	  tests/fuzz/fuzz-plan.c $(PLAN_SRCS) -o $(BUILDDIR)/tests/fuzz-plan-libfuzzer
	$(BUILDDIR)/tests/fuzz-plan-libfuzzer -max_total_time=$(FUZZ_SECONDS) \
	  -artifact_prefix=$(BUILDDIR)/tests/ $(BUILDDIR)/tests/fuzz-corpus tests/fuzz/corpus

fixtures:
	$(MAKE) -C tests/fixtures OUT=$(BUILDDIR)/tests

# The tests run on a staged install (make install DESTDIR=$(STAGE), no
# links under /usr/local): nothing is written to $(PREFIX).  The tests
# take the loader and the command from HUGELD_LDSO and HUGELD_CMD; the
# system-loader test copies the staged tree into its chroot's $(PREFIX).
#
# The tests come in tiers (tests/groups): `make check' runs the default
# one, `make check-full' the slower one, `make check-programs' the
# real-program corpus (tests/t-programs.sh; T_PROGRAMS="node java" for
# some; it ends with the share of each program's code on 2 MiB pages per
# backing); check-TIER: tier TIER.  TIER=all runs every test, GROUP=G
# one part of the tier.  One make builds and installs once for all of
# them: CI runs `make -k check check-full check-programs'.  A
# new tier is a `tier NAME TEST' line in tests/groups and check-NAME
# added to the targets of the rule below.
STAGE = $(BUILDDIR)/stage
RUN_ARGS = --tier $(or $(TIER),$(patsubst check-%,%,$(filter-out check check-installed,$@)),check) \
  $(if $(GROUP),--group $(GROUP))
$(STAGE)/.installed: build tools fixtures
	scripts/deps.sh test
	$(MAKE) unit-build
	rm -rf $(STAGE)
	$(MAKE) install DESTDIR=$(STAGE) LINKDIR=
	touch $@
check check-full check-programs: $(STAGE)/.installed
	HUGELD_LDSO=$(STAGE)$(PREFIX)/ld.so HUGELD_CMD=$(STAGE)$(PREFIX)/bin/hugeld tests/run.sh $(RUN_ARGS)
	@[ $@ != check-programs ] || cat $(BUILDDIR)/tests/t-programs.summary 2>/dev/null || true

# The same tests on the installed loader and command ($(DESTDIR)$(PREFIX)).
check-installed: install fixtures
	scripts/deps.sh test
	$(MAKE) unit-build
	HUGELD_LDSO=$(DESTDIR)$(PREFIX)/ld.so HUGELD_CMD=$(DESTDIR)$(PREFIX)/bin/hugeld tests/run.sh $(RUN_ARGS)

demo: install fixtures
	scripts/demo.sh

# The Debian package (see scripts/deb.sh): /opt/hugeld as make install
# makes it, depending on exactly the libc6 it was built from.
deb: build tools
	scripts/deb.sh

# hugeld as the distribution's loader (root; see scripts/system-loader.sh).
install-system: install
	$(DESTDIR)$(PREFIX)/libexec/hugeld-system-loader install

uninstall-system:
	$(DESTDIR)$(PREFIX)/libexec/hugeld-system-loader uninstall

# Only the system-loader test (tests/t-system.sh, also part of check):
# a throwaway Debian 12 root made with debootstrap.
check-system: install fixtures
	tests/run.sh tests/t-system.sh

# The built loader (build/obj/elf/ld.so; no install) under the kernels of
# Debian 11, 12, 13, sid and experimental, booted with qemu (see
# scripts/check-kernels.sh).
check-kernels: fixtures
	scripts/check-kernels.sh

# The arm64 loader, cross-built, under Debian's arm64 kernels with
# qemu-system-aarch64 (see scripts/check-arm64.sh).  A tier beside
# check-kernels, not in every CI run.
check-arm64:
	$(MAKE) deb ARCH=arm64
	scripts/check-arm64.sh

# hugeld on a whole machine: a Debian image with systemd and the .deb,
# booted under qemu as a policy-file user, with hugeld as the system
# loader, with a small pool, a bad policy file and without hugeld
# (root; see scripts/check-boot.sh).
check-boot: deb
	scripts/check-boot.sh

# Build and `make check' on another Debian release (DIST=bookworm or
# trixie), in a chroot under build/distro/DIST (see scripts/check-distro.sh).
check-distro:
	@test -n "$(DIST)" || { echo "usage: make check-distro DIST=bookworm|trixie|sid|experimental" >&2; exit 2; }
	scripts/check-distro.sh $(DIST)

# The patch series against every supported release's glibc source
# (glibc-patches/releases; see scripts/check-series.sh).
check-series:
	scripts/check-series.sh

# The series for upstream glibc, generated from glibc-patches/ and elf/
# (glibc-patches/upstream/series; scripts/series.sh), and the check that
# each of its commits builds.
RELEASE ?=
series:
	scripts/series.sh $(or $(RELEASE),$(shell . scripts/config.sh && echo $$GLIBC_RELEASE))

check-series-build:
	scripts/check-series-build.sh

# Benchmarks (bench/): the full set for the README and a CI-sized one.
bench: install fixtures
	$(MAKE) -C bench bench

bench-quick: install fixtures
	$(MAKE) -C bench bench-quick

# glibc's own elf/ and dlfcn/ tests, plain and with every object selected.
check-glibc: build
	scripts/check-glibc.sh

clean:
	rm -rf $(BUILDDIR)/tests $(BUILDDIR)/tools
	-$(MAKE) -C $(BUILDDIR)/obj clean >/dev/null 2>&1

distclean:
	rm -rf $(BUILDDIR)
