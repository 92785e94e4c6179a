# SPDX-License-Identifier: GPL-2.0-or-later
#
# qemu-zoned-reorder: the front door.
#
#   make            build qemu-system-x86_64 and qemu-img (QEMU 10.0 + our tree)
#   make install PREFIX=DIR  install them, the docs and the kernel series
#                   (default /opt/qemu-zoned-reorder; add DIR/bin to PATH)
#   make run        boot a guest on the default devices and print the benchmark table
#   make bench-latency  QD1 latency of every device against its configured
#                   service time, icount and wall clock (docs/devel/latency.md)
#   make bench-model    host instructions per 4 KiB command of our devices
#                   against upstream's, under callgrind (docs/benchmarks.md)
#   make check      unit tests, qtests and guest tests; ends with "N passed, N failed"
#   make check-full the above plus the long suites (the whole fio t/zbd suite,
#                   the stock kernel, the pipelining tests on a lockdep kernel)
#   make fuzz-build the clang/libFuzzer/ASan/UBSan build in $(B)/fuzz
#   make fuzz       run every generic-fuzz target for FUZZ_TIME seconds each
#   make check-asan unit tests and qtests against the ASan+UBSan build
#
# Everything is built under $(B) (default: build); downloads are cached in
# $(B)/cache.  Nothing is rebuilt that did not change: a second `make` only
# re-checks the overlay and lets ninja say "no work to do".
# See README.md and docs/devel/build.md.

SRC := $(CURDIR)
B ?= build
override B := $(abspath $(B))
CONFIG := $(B)/config.mk

# ccache across checkouts: paths below the repository are hashed relative
# to it, so a fresh clone elsewhere on the same machine hits the cache.
export CCACHE_BASEDIR := $(SRC)
export CCACHE_NOHASHDIR := 1

QEMU_BUILD := $(B)/qemu
QEMU := $(QEMU_BUILD)/qemu-system-x86_64
QEMU_IMG := $(QEMU_BUILD)/qemu-img
QEMU_TARGETS := qemu-system-x86_64 qemu-img

.DEFAULT_GOAL := all
.PHONY: all deps config qemu qemu-overlay unit-build qtest-build \
        check check-full run bench bench-latency bench-model clean distclean help \
        fuzz-config fuzz-build fuzz check-asan install

all: qemu

help:
	@sed -n '3,19p' Makefile | sed 's/^# \{0,1\}//'

# --- dependencies -----------------------------------------------------------
# Installs missing Debian packages when run as root, else prints the apt
# command.  Re-run when the list changes.
$(B)/.deps-stamp: scripts/install-deps scripts/apt-sources
	@mkdir -p $(B)
	scripts/install-deps
	@touch $@

deps: $(B)/.deps-stamp

# --- QEMU ------------------------------------------------------------------
# configure fetches Debian's QEMU 10.0.x source, lays our tree into a build
# copy and configures it; it re-runs only when its own inputs change.  New
# files of ours are picked up by the overlay step on every make.
$(CONFIG): configure scripts/deb-fetch scripts/qemu-prepare \
           configs/devices/x86_64-softmmu/zoned-reorder.mak \
           configs/devices/x86_64-softmmu/zoned-reorder-vm.mak | $(B)/.deps-stamp
	./configure --build-dir=$(B) $(CONFIGURE_ARGS)
	@touch $@

config: $(CONFIG)

-include $(CONFIG)

qemu-overlay: $(CONFIG)
	@scripts/qemu-prepare $(SRC) $(QEMU_PRISTINE) $(B)/qemu-src

qemu: qemu-overlay
	ninja -C $(QEMU_BUILD) $(QEMU_TARGETS)

# The binaries, the docs and the kernel series under PREFIX; the binary
# finds its data relative to itself and Debian's firmware by absolute path,
# so it runs from anywhere (scripts/install, README "Install").
PREFIX ?= /opt/qemu-zoned-reorder
install: qemu
	B=$(B) scripts/install "$(PREFIX)"

# The core's unit tests (tests/unit/zoned-reorder), built by name because
# QEMU does not build tests by default.
UNIT_TESTS = $(shell test -f $(QEMU_BUILD)/build.ninja && \
    ninja -C $(QEMU_BUILD) -t targets all 2>/dev/null | \
    sed -n 's|^\(tests/unit/zoned-reorder/test-[a-z0-9-]*\): c_LINKER.*|\1|p')

unit-build: qemu-overlay
	@t="$(UNIT_TESTS)"; [ -z "$$t" ] || ninja -C $(QEMU_BUILD) $$t

# Our device qtests (tests/qtest/zr-*-test), listed once `qemu` has let
# meson pick up new ones.
qtest-build: qemu
	@t=$$(ninja -C $(QEMU_BUILD) -t targets all 2>/dev/null | \
	    sed -n 's|^\(tests/qtest/zr-[a-z0-9-]*-test\): c_LINKER.*|\1|p'); \
	[ -z "$$t" ] || ninja -C $(QEMU_BUILD) $$t

# --- fuzzing build ------------------------------------------------------------
# A second QEMU build from the same overlaid copy: clang-14, libFuzzer,
# ASan and UBSan (configure --fuzz).  It gives qemu-fuzz-x86_64 (the
# generic-fuzz targets of tests/fuzz/targets.conf), an ASan+UBSan
# qemu-system-x86_64 and our qtests and unit tests built the same way.
# docs/devel/fuzzing.md.
FUZZ_BUILD := $(B)/fuzz
FUZZ_QEMU := $(FUZZ_BUILD)/qemu-system-x86_64
FUZZ_BIN := $(FUZZ_BUILD)/qemu-fuzz-x86_64
FUZZ_TIME ?= 60
FUZZ_TARGETS ?=

$(FUZZ_BUILD)/.zr-configure-args: configure scripts/deb-fetch scripts/qemu-prepare \
           configs/devices/x86_64-softmmu/zoned-reorder.mak | $(CONFIG)
	./configure --build-dir=$(B) --fuzz $(CONFIGURE_ARGS)
	@touch $@

fuzz-config: $(FUZZ_BUILD)/.zr-configure-args

# build.ninja first, so that meson picks up new tests before they are listed.
fuzz-build: qemu-overlay fuzz-config
	ninja -C $(FUZZ_BUILD) build.ninja
	@t=$$(ninja -C $(FUZZ_BUILD) -t targets all 2>/dev/null | sed -n \
	    -e 's|^\(tests/qtest/zr-[a-z0-9-]*-test\): c_LINKER.*|\1|p' \
	    -e 's|^\(tests/unit/zoned-reorder/test-[a-z0-9-]*\): c_LINKER.*|\1|p'); \
	ninja -C $(FUZZ_BUILD) qemu-fuzz-x86_64 qemu-system-x86_64 $$t

FUZZ_ENV = B=$(B) SRC=$(SRC) FUZZ_BIN=$(FUZZ_BIN) FUZZ_QEMU=$(FUZZ_QEMU)

fuzz: fuzz-build
	$(FUZZ_ENV) nice -n 19 scripts/fuzz run --time=$(FUZZ_TIME) $(FUZZ_TARGETS)

check-asan: fuzz-build
	$(CHECK_ENV) scripts/check 'asan/*'

# --- guest -----------------------------------------------------------------
.PHONY: guest-images
ifneq ($(wildcard guest/guest.mk),)
include guest/guest.mk
guest-images: kernel initramfs
else
guest-images:
endif

# --- tests and benchmarks ----------------------------------------------------
CHECK_ENV = B=$(B) SRC=$(SRC) QEMU=$(QEMU) QEMU_IMG=$(QEMU_IMG) \
            GUEST_KERNEL=$(GUEST_KERNEL) GUEST_KERNEL_STOCK=$(GUEST_KERNEL_STOCK) \
            GUEST_INITRAMFS=$(GUEST_INITRAMFS)

check: qemu unit-build qtest-build guest-images fuzz-build
	$(CHECK_ENV) scripts/check

# The long suites also boot the stock kernel (kernel-stock) and the lockdep
# kernel (kernel-debug, tests/guest/full-pipeline-debug.sh).
check-full: qemu unit-build qtest-build guest-images kernel-stock kernel-debug fuzz-build
	$(CHECK_ENV) scripts/check --full

run: qemu guest-images
	$(CHECK_ENV) scripts/bench

bench: run

# Does the guest see the configured service time?  QD1 latency of every
# device and its upstream counterpart, icount and wall clock (issue 14,
# docs/devel/latency.md).
bench-latency: qemu guest-images
	$(CHECK_ENV) scripts/bench-latency

# What does each device model cost the host?  Instructions per 4 KiB
# command (callgrind) of a qtest-driven stream, ours against upstream's
# (issue 12, docs/benchmarks.md "Device model cost").
bench-model: qtest-build
	$(CHECK_ENV) scripts/bench-model

# --- cleaning ----------------------------------------------------------------
# clean keeps the download cache and the configured QEMU tree; distclean
# removes everything under $(B).
clean:
	-ninja -C $(QEMU_BUILD) clean
	rm -rf $(B)/results $(B)/logs

distclean:
	rm -rf $(B)
