/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: a UFS host controller (UFSHCI, PCI 1b36:0013) whose logical
 * units are SCSI devices on its own SCSI bus: by default one host-managed
 * zoned LU (scsi-zbc), or whatever -device scsi-zbc/scsi-hd,bus=<id>.0
 * attaches.  Transfer requests start through the zoned-reorder dispatch
 * engine, so the `reorder` policy decides the order the LUs see commands.
 *
 * User documentation: docs/system/devices/ufs-zoned.rst.
 */

#ifndef HW_UFS_UFS_ZONED_H
#define HW_UFS_UFS_ZONED_H

#include "hw/pci/pci_device.h"

#define TYPE_UFS_ZONED "ufs-zoned"
OBJECT_DECLARE_SIMPLE_TYPE(UfsZonedState, UFS_ZONED)

/* The device's state is private: hw/ufs/zoned/ufs-zoned-internal.h */

#endif
