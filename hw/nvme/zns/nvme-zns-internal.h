/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns internals: which file owns what.
 *
 *   nvme-zns.c   QOM type, properties, realize, reset, counters, the
 *                default namespace
 *   ns.c         nvme-zns-ns: a zoned namespace (drive, geometry, zones)
 *   regs.c       the controller registers and doorbells (BAR0); enable,
 *                reset and shutdown
 *   work.c       the guarded work BH every DMA runs on
 *   queues.c     submission and completion queues: fetch, CQE posting
 *   irq.c        INTx, MSI-X, INTMS/INTMC, interrupt coalescing
 *   dma.c        PRP lists and SGLs
 *   admin.c      admin commands, features, asynchronous events
 *   identify.c   Identify data structures
 *   log.c        log pages
 *   io.c         the NVM and Zoned command sets: through the dispatch
 *                engine, backend I/O, completion
 *   zns.c        Zone Management Send and Receive
 *   migrate.c    migration and snapshots (controller and namespaces)
 *
 * Spec references are to NVM Express Base Specification 2.0c ("Base"),
 * NVM Command Set Specification 1.0c ("NVM") and Zoned Namespace Command
 * Set Specification 1.1c ("ZNS").
 */

#ifndef HW_NVME_ZNS_INTERNAL_H
#define HW_NVME_ZNS_INTERNAL_H

#include "qemu/bitmap.h"
#include "qemu/units.h"
#include "hw/pci/pci_device.h"
#include "hw/qdev-core.h"
#include "hw/block/block.h"
#include "block/nvme.h"
#include "system/block-backend.h"
#include "hw/block/zoned-reorder/start-log.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "hw/block/zoned-reorder/dma-ram.h"
#include "hw/block/zoned-reorder/service.h"
#include "hw/block/zoned-reorder/service-timer.h"
#include "hw/block/zoned-reorder/vclock-hold.h"
#include "hw/block/zoned-reorder/zone.h"
#include "hw/block/zoned-reorder/zone-persist.h"
#include "hw/block/zoned-reorder/work.h"

#define TYPE_NVME_ZNS           "nvme-zns"
#define TYPE_NVME_ZNS_NS        "nvme-zns-ns"
#define TYPE_NVME_ZNS_BUS       "nvme-zns-bus"

typedef struct NzCtrl NzCtrl;
typedef struct NzNs NzNs;
OBJECT_DECLARE_SIMPLE_TYPE(NzCtrl, NVME_ZNS)
OBJECT_DECLARE_SIMPLE_TYPE(NzNs, NVME_ZNS_NS)

/*
 * PCI identity.  Linux binds NVMe by class (010802); the ID comes from
 * the range QEMU's docs/specs/pci-ids.rst leaves for experiments
 * (1af4:10f0-10ff), so no Linux quirk table names it, unlike upstream's
 * 1b36:0010 (NVME_QUIRK_BOGUS_NID).
 */
#define NZ_PCI_VENDOR           0x1af4
#define NZ_PCI_DEVICE           0x10f0

#define NZ_MAX_IOQ              64      /* I/O queue pairs, property max */
#define NZ_DEFAULT_IOQ          8
#define NZ_NR_Q                 (NZ_MAX_IOQ + 1)        /* + admin */
#define NZ_MQES                 1023    /* CAP.MQES, 0's based */
#define NZ_MAX_NS               8       /* Identify NN */
#define NZ_IO_REQS              256     /* I/O commands in the controller */
#define NZ_ADMIN_REQS           8
#define NZ_NR_REQS              (NZ_IO_REQS + NZ_ADMIN_REQS)
#define NZ_AERL                 3       /* 0's based: 4 outstanding */
#define NZ_ACL                  3       /* 0's based: 4 aborts at once */
#define NZ_MDTS                 7       /* 2^7 * 4 KiB = 512 KiB */
#define NZ_PAGE                 4096    /* CAP.MPSMIN */
#define NZ_MAX_XFER             ((1u << NZ_MDTS) * NZ_PAGE)
#define NZ_ELPE                 3       /* 0's based: 4 error log entries */
#define NZ_MAX_SGL_DESCS        512     /* per command, all segments */
#define NZ_BAR0_SIZE            0x4000
#define NZ_DB_BASE              0x1000
#define NZ_MSIX_BAR             4
#define NZ_SQ_MARKS             1024
#define NZ_LBA_SHIFT            48      /* dispatch LBA: nsid << 48 | lba */
#define NZ_MAX_EVENTS           16      /* queued asynchronous events */
#define NZ_MAX_CHANGED_ZONES    511     /* Changed Zone List entries */
#define NZ_CC_AMS_WRRU          1       /* CC.AMS: WRR with urgent class */

/* Service-model defaults (documented in nvme-zns.rst) */
#define NZ_DEFAULT_LAT_READ_NS      80000
#define NZ_DEFAULT_LAT_WRITE_NS     30000
#define NZ_DEFAULT_LAT_OTHER_NS     10000
#define NZ_DEFAULT_XFER_READ_NS     1300    /* per 4 KiB: ~3 GB/s */
#define NZ_DEFAULT_XFER_WRITE_NS    2000    /* ~2 GB/s */
#define NZ_DEFAULT_MAX_PARALLEL     16

/* One data segment of a command (dma.c): guest memory, or a bit bucket */
typedef struct NzSeg {
    uint64_t addr;
    uint32_t len;
    bool bucket;                /* SGL bit bucket: read data discarded */
} NzSeg;

typedef struct NzSegList {
    NzSeg *seg;
    uint32_t n;
    uint32_t alloc;
    uint64_t bytes;             /* total, bit buckets included */
} NzSegList;

/* A command's data mapped for its backend I/O (dma.c; n = 0: not) */
typedef struct NzDmaMap {
    struct iovec *iov;          /* kept from command to command */
    uint32_t n;
    uint32_t alloc;
} NzDmaMap;

/* A namespace's zoned geometry and state (ns.c) */
struct NzNs {
    DeviceState parent_obj;
    BlockConf blkconf;

    /* Properties */
    uint32_t nsid;              /* 0: the lowest free */
    uint64_t size;              /* null-backed only */
    uint64_t zone_size;         /* bytes */
    uint64_t zone_cap;          /* bytes; 0 = zone size */
    uint32_t max_open;          /* 0 = no limit */
    uint32_t max_active;
    bool razb;                  /* reads may cross zone boundaries */
    uint32_t zde_size;          /* zone descriptor extension bytes (ZDES) */
    BlockBackend *zs_blk;       /* zone-state: the zone state's drive */
    bool zs_format;             /* zone-state-format */
    bool null_backed;

    NzCtrl *ctrl;
    uint32_t lbads;             /* log2(block size) */
    uint32_t block_size;
    uint64_t nr_blocks;
    uint64_t zone_blocks;
    ZrZoneModel zones;
    bool realized_zones;
    uint8_t *zde;               /* per zone, zde_size bytes (zns.c) */
    unsigned long *zde_valid;   /* per zone: ZA.ZDEV */
    ZrZonePersist persist;      /* zone-state=DRIVE (persist.blk set) */
    VMChangeStateEntry *vmse;

    /* Changed Zone List (ZNS 5.3.1) and its notice (one per AER) */
    uint64_t changed[NZ_MAX_CHANGED_ZONES];
    uint32_t nr_changed;
    bool changed_overflow;

    /* Counters */
    uint64_t zone_invalid_writes;
    uint64_t reads, writes, appends;
    uint64_t blocks_read, blocks_written;

    /* Migration (migrate.c): the stream's sizes of the extension data */
    uint32_t mig_zde_bytes;
    int32_t mig_nr_zones;
};

typedef enum NzReqState {
    NZ_REQ_FREE,
    NZ_REQ_WAIT,                /* in the dispatch engine, not started */
    NZ_REQ_RUN,                 /* started */
    NZ_REQ_PARKED,              /* admin: AER, or Delete SQ waiting */
    NZ_REQ_DONE,                /* result known, CQE not posted yet */
} NzReqState;

/* One command in the controller */
typedef struct NzReq {
    NzCtrl *s;
    uint32_t idx;
    NzReqState state;
    uint16_t sqid;
    uint16_t cqid;
    uint16_t sq_head;           /* the SQ head the CQE reports */
    NvmeCmd cmd;
    NzNs *ns;
    ZrCmd zr;
    ZrZoneIo zio;
    bool zio_used;
    ZrZoneRead zrd;             /* a read's backend I/O (zone-read.c) */

    uint64_t slba;
    uint32_t nlb;
    uint64_t buf_len;           /* bytes of data the command moves */
    bool to_host;               /* data moves to the host at the end */
    bool mapped;                /* ... or went there directly (map) */
    uint64_t to_host_len;
    QEMUIOVector qiov;
    BlockAIOCB *aiocb;
    bool svc_done;              /* service time over */
    bool io_done;               /* backend I/O over */
    bool cancelled;             /* reset/SQ deletion: no CQE */
    bool orphan_wait;           /* waits for orphaned writes of its zone */
    uint32_t nr_aio;            /* flush: backend flushes outstanding */
    bool on_finishing;          /* on NzCtrl.finishing */
    uint16_t status;
    uint32_t dw0;
    uint32_t dw1;
    bool cid_held;              /* its CID is marked in cids[sqid] */
    /* Migration (migrate.c): state, namespace, list and place in it */
    uint8_t mig_state;
    uint32_t mig_nsid;
    uint8_t mig_list;
    uint32_t mig_pos;
    QTAILQ_ENTRY(NzReq) link;   /* CQ waiting, parked, done lists */

    /* Kept from command to command (nz_req_alloc() zeroes up to here) */
    NzDmaMap map;               /* data mapped, not bounced (n != 0) */
    NzSegList sg;
    uint8_t *buf;               /* bounce buffer (nz_req_buf()) */
    uint64_t buf_cap;
} NzReq;

/* A bounce buffer up to this size stays with its context when it ends */
#define NZ_BUF_KEEP             (16 * KiB)

typedef struct NzSq {
    bool valid;
    uint64_t addr;
    uint32_t size;              /* entries */
    uint32_t head;
    uint32_t tail;
    uint16_t cqid;
    uint8_t prio;
    uint32_t in_ctrl;           /* fetched, not yet completed */
    bool deleting;
} NzSq;

typedef struct NzCq {
    bool valid;
    uint64_t addr;
    uint32_t size;
    uint32_t head;
    uint32_t tail;
    bool phase;
    bool ien;
    uint16_t iv;
    uint32_t nr_sq;             /* SQs using it */
    QTAILQ_HEAD(, NzReq) waiting;   /* done, the CQ was full */
} NzCq;

typedef struct NzSqMark {
    uint16_t sqid;
    uint32_t tail;
} NzSqMark;

/* Interrupt coalescing state per vector (irq.c) */
typedef struct NzVec {
    uint32_t count;             /* CQEs since the last message */
    int64_t deadline;           /* QEMU_CLOCK_VIRTUAL; 0 = none */
    bool cd;                    /* Feature 09h: coalescing disabled */
    bool pending;               /* INTx/MSI: a CQ on it has entries */
} NzVec;

typedef struct NzErrEntry {
    uint64_t count;
    uint16_t sqid;
    uint16_t cid;
    uint16_t status;            /* phase bit 0 left clear */
    uint64_t lba;
    uint32_t nsid;
} NzErrEntry;

typedef struct NzEvent {
    uint8_t type;
    uint8_t info;
    uint8_t log;
} NzEvent;

struct NzCtrl {
    PCIDevice parent_obj;
    MemoryRegion iomem;
    BusState bus;

    /* Properties */
    uint32_t nr_ioq;            /* I/O queue pairs offered */
    ZrPolicy policy;
    uint64_t seed;
    uint32_t rr_burst;
    ZrServiceParams svc_params;
    char *serial;
    bool default_ns;
    bool msix_on;
    uint8_t zasl;               /* Zone Append Size Limit; 0 = MDTS */
    bool ziw_dnr;               /* x-zone-invalid-write-dnr (test knob) */

    /* Registers (regs.c) */
    uint64_t cap;
    uint32_t vs;
    uint32_t intms;
    uint32_t cc;
    uint32_t csts;
    uint32_t aqa;
    uint64_t asq;
    uint64_t acq;
    bool enabling;              /* CC.EN 0->1 seen; work BH brings up */
    bool resetting;             /* CC.EN 1->0: waiting for I/O to end */
    bool shutting_down;         /* CC.SHN: waiting for I/O and flushes */
    uint32_t page_size;

    /* Queues (queues.c) */
    NzSq sq[NZ_NR_Q];
    NzCq cq[NZ_NR_Q];
    /* Per SQ, the CIDs of its commands in the controller (bit per CID) */
    unsigned long cids[NZ_NR_Q][BITS_TO_LONGS(1u << 16)];
    NzSqMark marks[NZ_SQ_MARKS];
    uint32_t nr_marks;
    bool marks_overflow;        /* fall back to fetching every SQ */
    uint32_t nr_vectors;

    /* Interrupts (irq.c) */
    NzVec vec[NZ_NR_Q];
    int64_t coal_next;          /* earliest deadline; INT64_MAX: none */
    QEMUTimer *coal_timer;
    uint8_t coal_thr;           /* Feature 08h, 0's based */
    uint8_t coal_time;          /* 100 us units */
    bool intx_level;
    /* CQs with IEN that hold entries the host has not consumed */
    DECLARE_BITMAP(cq_unread, NZ_NR_Q);
    uint64_t interrupts;

    /* Features (admin.c) */
    uint32_t arb;               /* Feature 01h dword */
    uint32_t temp_thresh;
    uint32_t err_recovery;
    bool vwc;
    uint32_t nsqa, ncqa;        /* 0's based, once set */
    bool queues_set;
    uint32_t aec;               /* Feature 0Bh */
    uint32_t write_atomicity;
    int64_t timestamp_base_ms;  /* host's value minus our clock, ms */
    bool timestamp_set;

    /* Asynchronous events (admin.c) */
    NzReq *aer[NZ_AERL + 1];
    uint32_t nr_aer;
    NzEvent events[NZ_MAX_EVENTS];
    uint32_t nr_events;
    uint32_t masked_events;     /* event types awaiting their log read */
    uint32_t outstanding_aborts;

    /* Error log (log.c) */
    NzErrEntry errlog[NZ_ELPE + 1];
    uint64_t err_count;

    /* SMART counters (log.c) */
    uint64_t units_read, units_written;     /* 512-byte units */
    uint64_t host_reads, host_writes;
    int64_t power_on_ns;

    /* Namespaces (ns.c) */
    NzNs *ns[NZ_MAX_NS + 1];    /* by nsid */
    NzNs *default_ns_obj;

    ZrDmaRam ram;               /* guest RAM the data may map (dma.c) */

    /* Commands */
    NzReq req[NZ_NR_REQS];
    uint32_t io_reqs_busy;
    DECLARE_BITMAP(io_free, NZ_IO_REQS);    /* free I/O contexts */
    uint32_t nr_cq_waiting;         /* CQEs on the CQs' waiting lists */
    bool post_ahead;                /* the work pass posts CQEs later */
    QTAILQ_HEAD(, NzReq) done;      /* to post on the work BH */
    QTAILQ_HEAD(, NzReq) parked;    /* admin commands waiting */
    QTAILQ_HEAD(, NzReq) orphan_wait;
    QTAILQ_HEAD(, NzReq) finishing;   /* I/O ended, service time over */
    uint32_t in_flight_io;          /* backend I/O not yet ended */
    ZrDispatch dispatch;
    ZrService svc;
    ZrServiceTimer sched;

    /* Work (work.c) */
    ZrWork work;                /* the guarded work BH (work.c) */
    ZrVclockHold vclock;
    Notifier machine_done;
    QEMUBH *default_ns_bh;      /* hot plugged: the default namespace */

    /* Migration (migrate.c) */
    uint32_t mig_aer[NZ_AERL + 1];  /* the outstanding AERs' contexts */
    bool mig_loaded;                /* loaded; goes on when the VM runs */
    bool mig_bad;                   /* a load failed: inert until reset */
    bool vm_stopped;                /* no work while the VM is stopped */
    VMChangeStateEntry *vmse;

    /* Counters */
    uint64_t admin_cmds;
    uint64_t invalid_doorbells;
    uint64_t cid_conflicts;
    uint64_t data_mapped;       /* I/O data moved straight to guest RAM */
    uint64_t data_bounced;      /* ... or through a bounce buffer */
    uint64_t aborts_done;
    uint64_t resets;
    uint64_t zone_invalid_writes;
    ZrStartLog start_log;       /* sqid << 16 | cid */
};

/* Hot paths reach the PCI device without a checked QOM cast */
static inline PCIDevice *nz_pci(NzCtrl *s)
{
    return &s->parent_obj;
}

/* migrate.c */
extern const VMStateDescription vmstate_nvme_zns;
extern const VMStateDescription vmstate_nvme_zns_ns;
void nz_migrate_init(NzCtrl *s);
void nz_migrate_cleanup(NzCtrl *s);

/* nvme-zns.c */
uint32_t nz_ioq_count(NzCtrl *s);
void nz_drain(NzCtrl *s);

/* ns.c */
bool nz_ns_attach(NzCtrl *s, NzNs *ns, Error **errp);
void nz_ns_detach(NzCtrl *s, NzNs *ns);
static inline NzNs *nz_ns_get(NzCtrl *s, uint32_t nsid)
{
    return nsid >= 1 && nsid <= NZ_MAX_NS ? s->ns[nsid] : NULL;
}
void nz_ns_zone_changed(NzNs *ns, uint64_t zslba);
int nz_ns_persist_now(NzNs *ns);

/* work.c */
void nz_work_init(NzCtrl *s);
void nz_work_cleanup(NzCtrl *s);

/* Have the work BH run (work.c) */
static inline void nz_schedule(NzCtrl *s)
{
    zr_work_schedule(&s->work);
}

/* regs.c */
extern const MemoryRegionOps nz_mmio_ops;
void nz_regs_reset(NzCtrl *s);
void nz_regs_work(NzCtrl *s);
bool nz_reset_finish(NzCtrl *s);

/* queues.c */
void nz_queues_reset(NzCtrl *s);
void nz_queues_cleanup(NzCtrl *s);
uint8_t *nz_req_buf(NzReq *r, bool zero);
void nz_sq_doorbell(NzCtrl *s, uint16_t qid, uint32_t val);
void nz_cq_doorbell(NzCtrl *s, uint16_t qid, uint32_t val);
void nz_fetch(NzCtrl *s);
void nz_post_done(NzCtrl *s);
void nz_req_done(NzReq *r, uint16_t status);
void nz_req_free(NzReq *r);
uint16_t nz_sq_create(NzCtrl *s, uint16_t qid, uint64_t addr, uint32_t size,
                      uint16_t cqid, uint8_t prio);
uint16_t nz_cq_create(NzCtrl *s, uint16_t qid, uint64_t addr, uint32_t size,
                      bool ien, uint16_t iv);
uint16_t nz_cq_delete(NzCtrl *s, uint16_t qid);
void nz_sq_delete_begin(NzCtrl *s, uint16_t qid);
bool nz_sq_delete_done(NzCtrl *s, uint16_t qid);
void nz_req_cancel(NzReq *r);

/* irq.c */
bool nz_irq_init(NzCtrl *s, Error **errp);
void nz_irq_cleanup(NzCtrl *s);
void nz_irq_reset(NzCtrl *s);
void nz_irq_cq_posted(NzCtrl *s, NzCq *cq, uint16_t qid);
void nz_irq_update(NzCtrl *s);

/* CQ @qid was created, deleted, or its head or tail moved (irq.c) */
static inline void nz_irq_cq_moved(NzCtrl *s, uint16_t qid)
{
    NzCq *cq = &s->cq[qid];

    if (cq->valid && cq->ien && cq->head != cq->tail) {
        set_bit(qid, s->cq_unread);
    } else {
        clear_bit(qid, s->cq_unread);
    }
}
void nz_irq_post_load(NzCtrl *s);
void nz_irq_work(NzCtrl *s);
bool nz_irq_vector_valid(NzCtrl *s, uint16_t iv);
void nz_irq_config_write(PCIDevice *pci, uint32_t addr, uint32_t val,
                         int len);

/* dma.c */
uint16_t nz_map_dptr(NzCtrl *s, const NvmeCmd *cmd, uint64_t len,
                     bool to_host, NzSegList *sg);
void nz_seglist_free(NzSegList *sg);
uint16_t nz_dma_to_host(NzCtrl *s, NzSegList *sg, const void *buf,
                        uint64_t len);
uint16_t nz_dma_from_host(NzCtrl *s, NzSegList *sg, void *buf, uint64_t len);
uint16_t nz_dma_out(NzCtrl *s, const NvmeCmd *cmd, const void *buf,
                    uint64_t len);
uint16_t nz_dma_in(NzCtrl *s, const NvmeCmd *cmd, void *buf, uint64_t len);
bool nz_dma_map(NzCtrl *s, NzSegList *sg, bool to_host, NzDmaMap *map,
                QEMUIOVector *qiov);
void nz_dma_unmap(NzCtrl *s, NzDmaMap *map, bool to_host, bool written);

/* admin.c */
void nz_admin_exec(NzReq *r);
void nz_admin_resume(NzCtrl *s);
void nz_aer_event(NzCtrl *s, uint8_t type, uint8_t info, uint8_t log);
void nz_aer_clear(NzCtrl *s, uint8_t type);
void nz_admin_reset(NzCtrl *s);
void nz_arb_apply(NzCtrl *s);
void nz_arb_set_burst(NzCtrl *s);

/* identify.c */
uint16_t nz_identify(NzReq *r);

/* log.c */
uint16_t nz_get_log(NzReq *r);
void nz_log_error(NzCtrl *s, NzReq *r, uint16_t status);

/* io.c */
extern const ZrServiceOps nz_service_ops;
void nz_io_submit(NzReq *r);
uint16_t nz_io_check_cmd(NzReq *r);
void nz_io_zr_derive(NzReq *r);
void nz_io_reset(NzCtrl *s);
void nz_io_quiesce(NzCtrl *s);
void nz_io_cancel_sq(NzCtrl *s, uint16_t sqid);
bool nz_io_abort(NzCtrl *s, uint16_t sqid, uint16_t cid);
void nz_io_finish(NzReq *r);
void nz_io_work(NzCtrl *s);
void nz_io_zone_released(ZrZoneIo *io, ZrResult res, void *opaque);
uint16_t nz_zone_status(ZrResult res, bool mgmt);
void nz_orphan_kick(NzCtrl *s);

/* zns.c */
uint16_t nz_zms_start(NzReq *r);
uint16_t nz_zmr_start(NzReq *r);
uint16_t nz_zms_check(NzReq *r);
uint16_t nz_zmr_check(NzReq *r);

/*
 * A zone's extension is valid from Set Zone Descriptor Extension until the
 * zone is reset or goes offline (ZNS 1.1 "Zone Descriptor Extension"): a
 * zone seen Empty or Offline has none.  Called before anything changes a
 * zone and when it is reported, so a zone that went Empty is never seen
 * with its old one.
 */
static inline void nz_zde_sync(NzNs *ns, uint32_t idx)
{
    ZrZoneCond cond;

    if (!ns->zde_valid) {
        return;
    }
    cond = ns->zones.zones[idx].cond;
    if (cond == ZR_COND_EMPTY || cond == ZR_COND_OFFLINE) {
        clear_bit(idx, ns->zde_valid);
    }
}

static inline bool nz_status_ok(uint16_t status)
{
    return status == NVME_SUCCESS;
}

#endif
