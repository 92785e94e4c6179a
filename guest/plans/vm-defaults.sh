#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-defaults: the guest of a QEMU started with q35's default devices (no
# -nodefaults; tests/host/test-install.sh boots the installed binary so):
# the default NIC (e1000e, 8086:10d3) and the default display (standard
# VGA, 1234:1111) are on the PCI bus, so QEMU found their option ROMs in
# its firmware path.  The test kernel has no driver for either; the PCI
# IDs are enough.
. "$ZR_LIB"

# pci_has VENDOR DEVICE: a PCI function with these IDs exists.
pci_has() {
    local d
    for d in /sys/bus/pci/devices/*; do
        [ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ] && return 0
    done
    return 1
}
if pci_has 0x8086 0x10d3; then zr_pass "default NIC e1000e (8086:10d3) present"
else zr_fail "default NIC e1000e (8086:10d3) present" "$(grep -H . /sys/bus/pci/devices/*/device)"; fi
if pci_has 0x1234 0x1111; then zr_pass "default display std VGA (1234:1111) present"
else zr_fail "default display std VGA (1234:1111) present" "$(grep -H . /sys/bus/pci/devices/*/device)"; fi
zr_done
