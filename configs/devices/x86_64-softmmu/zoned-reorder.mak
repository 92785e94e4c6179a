# SPDX-License-Identifier: GPL-2.0-or-later
#
# The trimmed device list of our QEMU build (configure passes
# --without-default-devices --with-devices-x86_64=zoned-reorder).
# q35 and what it selects, PCI, virtio-scsi for scsi-zbc, and upstream
# QEMU's own ufs/ufs-lu and nvme/nvme-ns, which the benchmarks run side by
# side with ours.  Our devices are selected by their own Kconfig entries.

CONFIG_Q35=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_SCSI=y
CONFIG_UFS_PCI=y
CONFIG_NVME_PCI=y

# The device-independent core; our devices select it too.
CONFIG_ZONED_REORDER=y

# Our devices.
CONFIG_SCSI_ZBC=y
CONFIG_UFS_ZONED=y
CONFIG_NVME_ZNS=y
