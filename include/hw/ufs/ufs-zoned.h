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
#include "hw/scsi/scsi.h"
#include "block/ufs.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "hw/block/zoned-reorder/service.h"
#include "hw/block/zoned-reorder/service-timer.h"

#define TYPE_UFS_ZONED "ufs-zoned"
OBJECT_DECLARE_SIMPLE_TYPE(UfsZonedState, UFS_ZONED)

#define UFSZ_NUTRS              32      /* transfer request slots */
#define UFSZ_NUTMRS             8       /* task management slots */
#define UFSZ_MAX_LUS            32      /* bMaxNumberLU = 1 */
#define UFSZ_BAR0_SIZE          0x1000
#define UFSZ_START_LOG          32      /* remembered start order */

/* Service-model defaults (documented in ufs-zoned.rst) */
#define UFSZ_DEFAULT_LAT_READ_NS    80000
#define UFSZ_DEFAULT_LAT_WRITE_NS   40000
#define UFSZ_DEFAULT_LAT_OTHER_NS   10000
#define UFSZ_DEFAULT_MAX_PARALLEL   8
#define UFSZ_DEFAULT_H8_EXIT_NS     200000

typedef struct UfsZonedState UfsZonedState;

/* One UTP transfer request slot (utp.c) */
typedef struct UfsZonedReq {
    UfsZonedState *s;
    uint32_t slot;
    bool busy;                  /* doorbell bit set, not yet completed */
    bool aborted;               /* by task management; awaits UTRLCLR */
    ZrCmd zr;

    hwaddr ucd_addr;
    hwaddr rsp_addr;
    uint32_t rsp_len;
    uint32_t dd;                /* UTRD data direction */
    UtpUpiuReq upiu;            /* the request UPIU as read */
    UfshcdSgEntry *prdt;        /* host-endian addr/size (bytes) */
    uint32_t prdt_n;
    uint64_t prdt_bytes;
    uint64_t xfer_off;          /* bytes moved so far */
    bool dma_error;

    SCSIRequest *sreq;
    bool scsi_done;
    bool svc_done;
    uint8_t ocs;
    uint8_t status;
    uint8_t sense[UFS_SENSE_SIZE];
    uint32_t sense_len;
    uint32_t resid;
} UfsZonedReq;

struct UfsZonedState {
    PCIDevice parent_obj;
    MemoryRegion iomem;
    SCSIBus bus;

    /* Properties */
    char *mode;
    ZrPolicy policy;
    uint64_t seed;
    uint64_t lat_read_ns;
    uint64_t lat_write_ns;
    uint64_t lat_other_ns;
    uint32_t max_parallel;
    bool default_lu;
    bool auto_hibernate;
    uint64_t h8_exit_latency_ns;

    /* Registers (regs.c) */
    UfsReg reg;
    uint32_t utrldbr;

    /* UIC (uic.c) */
    bool link_up;

    /* Auto-hibernate (ahit.c) */
    QEMUTimer *ahit_timer;
    bool h8;                    /* link in hibernate */
    uint64_t h8_entries;
    uint64_t h8_exits;

    /* Device state seen through queries (query.c) */
    bool fdeviceinit;
    bool fpoweronwpen;
    bool fbkopsen;
    uint8_t active_icc_level;
    uint16_t ee_control;
    uint8_t max_num_rtt;
    uint32_t seconds_passed;

    /* Transfer requests (utp.c) */
    UfsZonedReq req[UFSZ_NUTRS];
    ZrDispatch dispatch;
    ZrService svc;
    ZrServiceTimer sched;

    /* Counters, readable with qom-get */
    uint64_t unaligned_writes;
    uint32_t start_log[UFSZ_START_LOG];
    uint32_t start_log_n;

    Notifier machine_done;
};

#endif
