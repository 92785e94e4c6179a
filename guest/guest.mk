# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of qemu-zoned-reorder: kernel, static fio, initramfs.
# Included by the top-level Makefile, which defines
#   B    build directory (default build)
#   SRC  repository root
# and the order-only prerequisite $(B)/.deps-stamp (packages installed).
#
# Targets:  kernel  kernel-patched  fio  initramfs  guest (= kernel initramfs)
# Variables for users: GUEST_KERNEL, GUEST_KERNEL_PATCHED, GUEST_INITRAMFS,
#                      GUEST_FIO
#
# The recipes are scripts that do their own caching (downloads, unpacked
# sources, kbuild, ccache); make only decides when to call them:
#   - the kernel is rebuilt when guest/build-kernel, the config fragments or
#     scripts/deb-fetch change (the patched kernel also on a patch change);
#   - fio when guest/build-fio or scripts/deb-fetch change;
#   - the initramfs when guest/init, guest/plan-lib.sh, a plan (added,
#     removed or edited), fio, guest/mk-initramfs or one of the Debian
#     packages it takes binaries from (dpkg's file list is rewritten on
#     upgrade) change.

GUEST_B := $(abspath $(B))
GUEST_SRC := $(abspath $(SRC))

# The harness boots the kernel with our pipelining series
# (guest/linux/patches); the same source and configuration without it is
# `make kernel-stock`, for comparisons (scripts/run-guest --stock).
GUEST_KERNEL_PATCHED := $(GUEST_B)/linux-patched/arch/x86/boot/bzImage
GUEST_KERNEL_STOCK := $(GUEST_B)/linux/arch/x86/boot/bzImage
# The patched kernel with lockdep and other debugging options
# (guest/linux/debug.config): `make kernel-debug`, booted by make check-full.
GUEST_KERNEL_DEBUG := $(GUEST_B)/linux-debug/arch/x86/boot/bzImage
GUEST_KERNEL := $(GUEST_KERNEL_PATCHED)
GUEST_FIO := $(GUEST_B)/guest/fio/fio
GUEST_INITRAMFS := $(GUEST_B)/guest/initramfs.cpio.gz

guest_deps_stamp := $(B)/.deps-stamp
guest_common := $(GUEST_SRC)/scripts/deb-fetch $(GUEST_SRC)/scripts/apt-sources
guest_fragments := $(GUEST_SRC)/guest/linux/zoned-guest.config \
                   $(GUEST_SRC)/guest/linux/zoned-reorder.config
guest_patches := $(sort $(wildcard $(GUEST_SRC)/guest/linux/patches/*.patch) \
                        $(wildcard $(GUEST_SRC)/guest/linux/patches/series))
guest_plans := $(sort $(wildcard $(GUEST_SRC)/guest/plans/*.sh))
guest_pkgs := busybox-static bash grep sed util-linux sg3-utils nvme-cli coreutils
guest_pkg_lists := $(wildcard $(guest_pkgs:%=/var/lib/dpkg/info/%.list))

# Removing a plan or a patch changes no file's time; these list files are
# rewritten (only) when the set of names changes, so make notices.
guest_plans_list := $(GUEST_B)/guest/.plans.list
guest_patches_list := $(GUEST_B)/linux-src/.patches.list
guest_update_list = $(shell mkdir -p $(dir $(1)) && \
    printf '%s\n' $(notdir $(2)) | cmp -s - $(1) || printf '%s\n' $(notdir $(2)) > $(1))
$(call guest_update_list,$(guest_plans_list),$(guest_plans))
$(call guest_update_list,$(guest_patches_list),$(guest_patches))

.PHONY: kernel kernel-patched kernel-stock kernel-debug fio initramfs guest

kernel: $(GUEST_KERNEL)
kernel-patched: $(GUEST_KERNEL_PATCHED)
kernel-stock: $(GUEST_KERNEL_STOCK)
kernel-debug: $(GUEST_KERNEL_DEBUG)
fio: $(GUEST_FIO)
initramfs: $(GUEST_INITRAMFS)
guest: kernel initramfs

$(GUEST_KERNEL_STOCK): $(GUEST_SRC)/guest/build-kernel $(guest_fragments) \
		$(guest_common) | $(guest_deps_stamp)
	B=$(GUEST_B) PATCHED=0 $(GUEST_SRC)/guest/build-kernel

$(GUEST_KERNEL_PATCHED): $(GUEST_SRC)/guest/build-kernel $(guest_fragments) \
		$(guest_common) $(guest_patches) $(guest_patches_list) | $(guest_deps_stamp)
	B=$(GUEST_B) PATCHED=1 $(GUEST_SRC)/guest/build-kernel

$(GUEST_KERNEL_DEBUG): $(GUEST_SRC)/guest/build-kernel $(guest_fragments) \
		$(GUEST_SRC)/guest/linux/debug.config \
		$(guest_common) $(guest_patches) $(guest_patches_list) | $(guest_deps_stamp)
	B=$(GUEST_B) DEBUG=1 $(GUEST_SRC)/guest/build-kernel

$(GUEST_FIO): $(GUEST_SRC)/guest/build-fio $(guest_common) | $(guest_deps_stamp)
	B=$(GUEST_B) $(GUEST_SRC)/guest/build-fio

$(GUEST_INITRAMFS): $(GUEST_SRC)/guest/mk-initramfs $(GUEST_SRC)/guest/init \
		$(GUEST_SRC)/guest/plan-lib.sh $(guest_plans) $(guest_plans_list) \
		$(GUEST_FIO) $(guest_pkg_lists) | $(guest_deps_stamp)
	$(GUEST_SRC)/guest/mk-initramfs --output $@ --fio-dir $(dir $(GUEST_FIO)) \
		--init $(GUEST_SRC)/guest/init --plan-lib $(GUEST_SRC)/guest/plan-lib.sh \
		--plans $(GUEST_SRC)/guest/plans
