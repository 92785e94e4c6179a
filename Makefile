# SPDX-License-Identifier: GPL-2.0-or-later
#
# qemu-zoned-reorder: the front door.
#
#   make            build qemu-system-x86_64 and qemu-img (QEMU 10.0 + our tree)
#   make run        boot a guest on the default devices and print the benchmark table
#   make check      unit tests, qtests and guest tests; ends with "N passed, N failed"
#   make check-full the above plus the long suites (the whole fio t/zbd suite)
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
        check check-full run bench clean distclean help

all: qemu

help:
	@sed -n '3,10p' Makefile | sed 's/^# \{0,1\}//'

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
           configs/devices/x86_64-softmmu/zoned-reorder.mak | $(B)/.deps-stamp
	./configure --build-dir=$(B) $(CONFIGURE_ARGS)
	@touch $@

config: $(CONFIG)

-include $(CONFIG)

qemu-overlay: $(CONFIG)
	@scripts/qemu-prepare $(SRC) $(QEMU_PRISTINE) $(B)/qemu-src

qemu: qemu-overlay
	ninja -C $(QEMU_BUILD) $(QEMU_TARGETS)

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

check: qemu unit-build qtest-build guest-images
	$(CHECK_ENV) scripts/check

# The long suites also boot the stock kernel (kernel-stock).
check-full: qemu unit-build qtest-build guest-images kernel-stock
	$(CHECK_ENV) scripts/check --full

run: qemu guest-images
	$(CHECK_ENV) scripts/bench

bench: run

# --- cleaning ----------------------------------------------------------------
# clean keeps the download cache and the configured QEMU tree; distclean
# removes everything under $(B).
clean:
	-ninja -C $(QEMU_BUILD) clean
	rm -rf $(B)/results $(B)/logs

distclean:
	rm -rf $(B)
