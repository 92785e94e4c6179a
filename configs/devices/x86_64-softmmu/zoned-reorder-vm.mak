# SPDX-License-Identifier: GPL-2.0-or-later
#
# The device list of the qemu-system-x86_64 that `make` builds (configure
# passes --with-devices-x86_64=zoned-reorder-vm): everything of
# zoned-reorder.mak, plus what a storage developer's own VM needs to boot a
# distro image on KVM, reach it over the network and share a directory
# with it.  The fuzzing build keeps the lean zoned-reorder.mak.
# docs/system/devices/own-kernel.rst says how the pieces are used.

include zoned-reorder.mak

# Networking: virtio-net, and e1000e, q35's default NIC (no "Default NIC
# 'e1000e' is not available" warning).
CONFIG_VIRTIO_NET=y
CONFIG_E1000E_PCI_EXPRESS=y

# Disks and entropy for a distro image.
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_RNG=y

# Shared directory (-virtfs / virtio-9p-pci), e.g. a kernel build tree.
CONFIG_VIRTIO_9P=y

# q35's default display is the standard VGA; without it every start warns
# "Default display 'std' is not available".  No graphical front-end is
# built: with no -display the console is the serial line (-nographic).
CONFIG_VGA_PCI=y

# PCI Express root ports (pcie-root-port): q35's root bus takes no hot
# plug, so a controller added with device_add (an NVMe controller plugged
# into a running guest, the kernel's hot-plug and surprise-removal paths)
# goes behind one: -device pcie-root-port,id=rp0,chassis=1, then
# device_add nvme-zns,bus=rp0.
CONFIG_PCIE_PORT=y
