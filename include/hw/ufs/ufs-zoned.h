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
#define UFSZ_START_LOG          32      /* remembered start order */
#define UFSZ_LUN_SHIFT          48      /* dispatch engine LBA: LUN << 48 */
#define UFSZ_LBA(zr_lba)        ((zr_lba) & ((1ULL << UFSZ_LUN_SHIFT) - 1))

/*
 * MCQ (UFSHCI 4.0 5.5, 5.6): queue configuration registers at
 * QCFGPTR * 0x200, 0x40 per queue; the operation and runtime registers
 * (SQ/CQ doorbells, interrupt status) at UFSZ_MCQ_OPR_BASE, 48 bytes per
 * queue, the stride Linux's qemu-pci glue assumes.
 */
#define UFSZ_MCQ_MAX_QUEUES     32
#define UFSZ_MCQ_DEFAULT_QUEUES 4
#define UFSZ_MCQ_MAC            64      /* max active commands */
#define UFSZ_MCQ_QCFGPTR        2       /* queue config at 0x400 */
#define UFSZ_MCQ_CFG_BASE       (UFSZ_MCQ_QCFGPTR * 0x200)
#define UFSZ_MCQ_CFG_STRIDE     0x40
#define UFSZ_MCQ_OPR_BASE       0x1000
#define UFSZ_MCQ_OPR_STRIDE     48
#define UFSZ_BAR0_SIZE          0x2000

/* All request contexts: the legacy slots, then the MCQ active commands */
#define UFSZ_NR_REQS            (UFSZ_NUTRS + UFSZ_MCQ_MAC)

/* Service-model defaults (documented in ufs-zoned.rst) */
#define UFSZ_DEFAULT_LAT_READ_NS    80000
#define UFSZ_DEFAULT_LAT_WRITE_NS   40000
#define UFSZ_DEFAULT_LAT_OTHER_NS   10000
#define UFSZ_DEFAULT_MAX_PARALLEL   8
#define UFSZ_DEFAULT_H8_EXIT_NS     200000

typedef struct UfsZonedState UfsZonedState;

/*
 * One transfer request in the controller (utp.c): a legacy doorbell slot
 * (index < UFSZ_NUTRS, sq < 0) or an entry fetched from an MCQ
 * submission queue (mcq.c).
 */
typedef struct UfsZonedReq {
    UfsZonedState *s;
    uint32_t slot;              /* index in UfsZonedState.req */
    int32_t sq;                 /* MCQ submission queue, or -1 */
    uint32_t cq;                /* MCQ: the CQ its SQ named at fetch */
    uint32_t tag;               /* legacy slot, or the UPIU task tag */
    bool busy;                  /* rung/fetched, not yet completed */
    bool aborted;               /* by task management; awaits a clear */
    ZrCmd zr;
    UtpTransferReqDesc utrd;    /* as read, for the MCQ CQE */
    bool cq_waiting;            /* MCQ: done, waiting for CQ space */
    QTAILQ_ENTRY(UfsZonedReq) cq_wait;

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

/* One MCQ submission queue (mcq.c) */
typedef struct UfsZonedSq {
    uint32_t head;              /* entries */
    uint32_t tail;
    uint32_t rtc;               /* SQRTC */
    uint32_t cti;               /* SQCTI */
    uint32_t rts;               /* SQRTS */
    uint32_t is;
    uint32_t ie;
} UfsZonedSq;

/* One MCQ completion queue (mcq.c) */
typedef struct UfsZonedCq {
    uint32_t head;              /* entries */
    uint32_t tail;
    uint32_t is;                /* CQIS */
    uint32_t ie;                /* CQIE */
    uint32_t iacr;
    QTAILQ_HEAD(, UfsZonedReq) waiting;     /* done, CQ was full */
} UfsZonedCq;

struct UfsZonedState {
    PCIDevice parent_obj;
    MemoryRegion iomem;
    SCSIBus bus;

    /* Properties */
    char *mode;
    bool mcq;                   /* mode=mcq: CAP.MCQS=1 */
    uint32_t mcq_queues;
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

    /* MCQ (mcq.c): the config registers, then each queue's run state */
    UfsMcqReg mcq_cfg[UFSZ_MCQ_MAX_QUEUES];
    UfsZonedSq sq[UFSZ_MCQ_MAX_QUEUES];
    UfsZonedCq cq[UFSZ_MCQ_MAX_QUEUES];
    uint32_t mcq_active;        /* fetched MCQ commands not yet freed */
    bool mcq_fetching;
    bool mcq_fetch_again;

    /* Transfer requests (utp.c) */
    UfsZonedReq req[UFSZ_NR_REQS];
    ZrDispatch dispatch;
    ZrService svc;
    ZrServiceTimer sched;

    /* Counters, readable with qom-get */
    uint64_t unaligned_writes;
    uint64_t unaligned_lu[UFSZ_MAX_LUS];
    uint32_t start_log[UFSZ_START_LOG];
    uint32_t start_log_n;

    Notifier machine_done;
};

#endif
