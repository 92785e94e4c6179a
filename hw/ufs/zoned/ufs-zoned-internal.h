/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned internals: which file owns what.
 *
 *   ufs-zoned.c  QOM type, properties, realize, reset, BAR0, default LU
 *   work.c       the guarded work BH every DMA runs on; teardown holds
 *   ahit.c       auto-hibernate: the AHIT idle timer, H8 entry and exit
 *   regs.c       the register file (BAR0 reads/writes)
 *   irq.c        INTx, MSI and MSI-X; interrupt aggregation
 *   uic.c        UIC commands and the DME attributes Linux reads
 *   utp.c        UTRD/UPIU parsing, PRDT DMA, commands to the LUs,
 *                responses, the legacy doorbell and UTRLCLR
 *   mcq.c        MCQ: queue configuration, SQ fetch, CQ posting, SQ
 *                stop/start/cleanup, CQ interrupt status
 *   query.c      QUERY REQUEST: descriptors, flags, attributes
 *   tm.c         task management requests (UTMRL)
 *   migrate.c    vmstate: registers, queues, requests in flight
 */

#ifndef HW_UFS_ZONED_INTERNAL_H
#define HW_UFS_ZONED_INTERNAL_H

#include "qemu/bswap.h"
#include "qemu/timer.h"
#include "hw/ufs/ufs-zoned.h"
#include "hw/scsi/scsi.h"
#include "block/ufs.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "hw/block/zoned-reorder/dma-ram.h"
#include "hw/block/zoned-reorder/service.h"
#include "hw/block/zoned-reorder/service-timer.h"
#include "hw/block/zoned-reorder/start-log.h"
#include "hw/block/zoned-reorder/vclock-hold.h"
#include "hw/block/zoned-reorder/work.h"

#define UFSZ_NUTRS              32      /* transfer request slots */
#define UFSZ_NUTMRS             8       /* task management slots */
#define UFSZ_MAX_LUS            32      /* bMaxNumberLU = 1 */
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

/*
 * A local array the code fills before it reads: QEMU builds with
 * -ftrivial-auto-var-init=zero, which would clear it on every call.
 */
#if __has_attribute(uninitialized)
#define UFSZ_UNINIT             __attribute__((uninitialized))
#else
#define UFSZ_UNINIT
#endif

/* All request contexts: the legacy slots, then the MCQ active commands */
#define UFSZ_NR_REQS            (UFSZ_NUTRS + UFSZ_MCQ_MAC)
#define UFSZ_PENDING_WORDS      DIV_ROUND_UP(UFSZ_NR_REQS, 64)

/* Service-model defaults (documented in ufs-zoned.rst) */
#define UFSZ_DEFAULT_LAT_READ_NS    80000
#define UFSZ_DEFAULT_LAT_WRITE_NS   40000
#define UFSZ_DEFAULT_LAT_OTHER_NS   10000
/* per 4 KiB moved: 2 GB/s reads, 1.2 GB/s writes, a UFS 3.1 part at QD1 */
#define UFSZ_DEFAULT_XFER_READ_NS   2000
#define UFSZ_DEFAULT_XFER_WRITE_NS  3400
#define UFSZ_DEFAULT_MAX_PARALLEL   8
#define UFSZ_DEFAULT_H8_EXIT_NS     200000
#define UFSZ_MAX_H8_EXIT_NS         1000000000ULL

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
    bool busy;                  /* rung/fetched, not yet released */
    bool stopping;              /* being torn down: never reused */
    bool aborted;               /* by task management; awaits a clear */
    bool xfer_pending;          /* the LU asked for data: work BH moves it */
    uint32_t xfer_len;
    bool finish_pending;        /* the LU finished: work BH completes it */
    uint64_t pending_seq;       /* when it got xfer/finish_pending */
    bool responded;             /* response written; at most a CQE left */
    bool cleanup;               /* SQ cleanup: its CQE sets SQRTS.CUS */
    ZrCmd zr;
    UtpTransferReqDesc utrd;    /* as read, for the MCQ CQE */
    bool cq_waiting;            /* MCQ: done, waiting for CQ space */
    QTAILQ_ENTRY(UfsZonedReq) cq_wait;

    hwaddr ucd_addr;
    hwaddr rsp_addr;
    uint32_t rsp_len;
    uint32_t dd;                /* UTRD data direction */
    UfshcdSgEntry *prdt;        /* host-endian addr/size (bytes) */
    uint32_t prdt_n;
    uint64_t prdt_bytes;
    bool prdt_ram;              /* every entry found in guest RAM ... */
    uint32_t prdt_ram_gen;      /* ... when ram_gen was this */
    uint64_t xfer_off;          /* bytes moved so far */
    bool dma_error;
    bool sg_used;               /* its LU moves the data itself (utp.c) */
    bool sg_lost;               /* ... and guest RAM went away meanwhile */
    uint32_t sg_gen;            /* ram_gen when its list was made */

    SCSIRequest *sreq;          /* our reference, held until the end */
    bool scsi_done;
    bool svc_done;
    uint8_t ocs;
    uint8_t status;
    uint8_t sense[UFS_SENSE_SIZE];
    uint32_t sense_len;
    uint32_t resid;
    bool overflow;              /* the command wanted more than EDTL */
    uint64_t overflow_bytes;
    bool short_data_out;        /* host gave less data-out than needed */
    bool stalled;               /* x-stall-*: never handed to its LU */
    bool mig_live;              /* migration: its SCSI request is at the LU */
    uint32_t mig_cq_pos;        /* migration: place in its CQ's waiting */
    /*
     * The request UPIU as read; last, so that a new command clears all but
     * its query data, which the UPIU's DMA overwrites before any use
     * (ufs_zoned_req_init()).
     */
    UtpUpiuReq upiu;
} UfsZonedReq;

/*
 * An SQ doorbell write not yet fetched (mcq.c): SQ @q's entries up to
 * @tail arrived then.  Fetching follows these marks, so arrival order is
 * the order the host rang, across SQs too.
 */
typedef struct UfsZonedSqMark {
    uint32_t q;
    uint32_t tail;
} UfsZonedSqMark;

#define UFSZ_MCQ_MARKS          256

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
/*
 * Interrupt aggregation state (irq.c): one per CQ (CQIACR), and one for
 * the legacy transfer request list (UTRIACR) at UFSZ_AGG_LEGACY.
 */
#define UFSZ_AGG_LEGACY         UFSZ_MCQ_MAX_QUEUES
#define UFSZ_AGG_N              (UFSZ_MCQ_MAX_QUEUES + 1)
#define UFSZ_MSIX_BAR           2       /* BAR0 is 64-bit: BARs 0 and 1 */

typedef struct UfsZonedAgg {
    uint32_t count;             /* completions counted since CTR */
    uint32_t unsignalled;       /* of them, since the last interrupt */
    int64_t deadline;           /* QEMU_CLOCK_VIRTUAL ns; 0 = no timer */
} UfsZonedAgg;

#define UFSZ_PRDT_KEEP          256     /* PRDT entries a context keeps */

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
    MemoryRegion mcq_opr;       /* BAR0's MCQ operation registers (mcq.c) */
    SCSIBus bus;

    /* Properties */
    char *mode;
    bool mcq;                   /* mode=mcq: CAP.MCQS=1 */
    uint32_t mcq_queues;
    ZrPolicy policy;
    uint64_t seed;
    ZrServiceParams svc_params; /* lat-*, xfer-*, max-parallel */
    bool default_lu;
    bool auto_hibernate;
    uint64_t h8_exit_latency_ns;
    uint32_t stall_every;       /* x-stall-*: commands held unanswered */
    uint64_t stall_lba;
    uint64_t stall_blocks;
    uint32_t stall_max;
    uint32_t stall_tm;          /* x-stall-tm: TM requests left unanswered */

    /* Registers (regs.c) */
    UfsReg reg;
    uint32_t utrldbr;

    /* Interrupt (irq.c) */
    bool msi_on;                /* property msi: offer the MSI capability */
    bool msix_on;               /* property msix: offer MSI-X (BAR 2) */
    bool intx_level;
    bool irq_in_mmio;           /* in an MMIO handler: defer messages */
    bool irq_msg_pending;       /* a message deferred to the work BH */
    bool msg_mode_known;        /* msg_mode is the PCI core's answer ... */
    bool msg_mode;              /* ... to MSI-X or MSI enabled (irq.c) */
    uint32_t irq_is_last;       /* IS & IE at the last look */
    uint32_t irq_cq_last;       /* CQs with an enabled event then */
    uint64_t interrupts;        /* messages sent, or INTx assertions */
    UfsZonedAgg agg[UFSZ_AGG_N];
    /*
     * One bit an aggregation whose deadline may be set (every one that is,
     * perhaps some run out since): the work BH and the timer look at these
     * only.  Derived, never migrated (ufs_zoned_irq_post_load()).
     */
    uint64_t agg_armed;
    QEMUTimer *agg_timer;

    /*
     * Deferred work (work.c): the MMIO handlers, the timers and the SCSI
     * callbacks only record what is to be done and schedule the work BH,
     * which runs under the device's re-entrancy guard.
     */
    ZrWork work;                /* the guarded work BH (work.c) */
    unsigned teardown;          /* aborts/clears/resets in progress */
    ZrVclockHold vclock;        /* icount: guest time waits for host work */
    uint32_t rings[UFSZ_NUTRS]; /* legacy doorbell writes not yet fetched */
    uint32_t nr_rings;
    uint32_t utmrl_pending;     /* rung task management slots */
    bool mcq_fetch_pending;

    /* UIC (uic.c) */
    bool link_up;

    /* Auto-hibernate (ahit.c) */
    QEMUTimer *ahit_timer;
    QEMUTimer *h8_exit_timer;   /* schedules the work BH when an exit ends */
    bool h8;                    /* link in hibernate */
    int64_t h8_exit_end_ns;     /* link usable from then on */
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
    uint32_t cq_events;         /* CQs with CQIS & CQIE set; derived */
    /*
     * Derived, never migrated (post_load), and supersets: a bit for each
     * SQ whose tail may be ahead of its head, each CQ that may have
     * completions waiting for room.
     */
    uint32_t sq_rung;
    uint32_t cq_waits;
    bool mcq_fetching;
    bool mcq_fetch_again;
    UfsZonedSqMark sq_marks[UFSZ_MCQ_MARKS];
    uint32_t nr_sq_marks;

    /*
     * Guest RAM as the controller's DMA sees it (the core's dma-ram.h):
     * a PRDT entry inside it needs no further check (utp.c).
     */
    ZrDmaRam ram;
    /* each context's scatter-gather list, kept from command to command */
    QEMUSGList req_sg[UFSZ_NR_REQS];
    /* ... and its room for PRDT entries (utp.c, ufs_zoned_prdt_alloc()) */
    UfshcdSgEntry *prdt_keep[UFSZ_NR_REQS];
    uint32_t prdt_cap[UFSZ_NR_REQS];

    /* Transfer requests (utp.c) */
    UfsZonedReq req[UFSZ_NR_REQS];
    uint64_t pending_seq;       /* orders the work BH's deferred events */
    /*
     * One bit a context that may have a deferred event (xfer_pending or
     * finish_pending): every one that has, perhaps some that had.  The
     * work BH looks at these only.  Derived, never migrated (post_load).
     */
    uint64_t pending_map[UFSZ_PENDING_WORDS];
    ZrDispatch dispatch;
    ZrService svc;
    ZrServiceTimer sched;

    /* Counters, readable with qom-get */
    uint64_t unaligned_writes;
    uint64_t unaligned_lu[UFSZ_MAX_LUS];
    uint64_t lu_commands;       /* SCSI commands started to an LU */
    uint64_t data_sg;           /* ... whose data the LU moved itself */
    uint64_t stalled;
    uint64_t tm_aborts;
    uint64_t tm_stalled;
    uint64_t lu_resets;
    uint64_t cleared;
    uint64_t sq_cleanups;
    uint64_t host_resets;
    ZrStartLog start_log;       /* legacy: slot; MCQ: (SQ + 1) << 16 | tag */

    Notifier machine_done;

    /* Migration (migrate.c) */
    VMChangeStateEntry *vmse;
    bool mig_loaded;            /* loaded: settle at the first run */
    bool mig_stray;             /* an LU brought a request no context took */
};


/* work.c */
void ufs_zoned_work_init(UfsZonedState *s);
void ufs_zoned_work_cleanup(UfsZonedState *s);

/* Have the work BH run (work.c) */
static inline void ufs_zoned_schedule(UfsZonedState *s)
{
    zr_work_schedule(&s->work);
}

/* The service model is done with a command: its LU may still be busy. */
static inline void ufs_zoned_vclock_poke(UfsZonedState *s)
{
    zr_vclock_hold_poke(&s->vclock);
}
void ufs_zoned_teardown_begin(UfsZonedState *s);
void ufs_zoned_teardown_end(UfsZonedState *s);

/* regs.c */
extern const MemoryRegionOps ufs_zoned_mmio_ops;

/* BAR0's registers are dwords (UFSHCI 4.0 5.1): its MemoryRegionOps' */
#define UFSZ_MMIO_DWORDS \
    .endianness = DEVICE_LITTLE_ENDIAN, \
    .impl = { .min_access_size = 4, .max_access_size = 4 }, \
    .valid = { .min_access_size = 4, .max_access_size = 4 }

/* mcq.c: the CQs whose enabled CQIS event is set, one bit a CQ */
static inline uint32_t ufs_zoned_mcq_cq_events(UfsZonedState *s)
{
    return s->cq_events;
}

/* IS as the host reads it: CQES follows the CQs' interrupt status. */
static inline uint32_t ufs_zoned_is(UfsZonedState *s)
{
    return s->reg.is | (ufs_zoned_mcq_cq_events(s) ? R_IS_CQES_MASK : 0);
}

/* CQ @q's CQIS or CQIE changed: its bit in cq_events follows them. */
static inline void ufs_zoned_cq_events_update(UfsZonedState *s, uint32_t q)
{
    if (q < s->mcq_queues && (s->cq[q].is & s->cq[q].ie & R_CQIS_TEPS_MASK)) {
        s->cq_events |= 1u << q;
    } else {
        s->cq_events &= ~(1u << q);
    }
}

/* irq.c */
bool ufs_zoned_irq_init(UfsZonedState *s, Error **errp);
void ufs_zoned_irq_cleanup(UfsZonedState *s);
void ufs_zoned_irq_reset(UfsZonedState *s);
void ufs_zoned_irq_post_load(UfsZonedState *s);
bool ufs_zoned_irq_check_loaded(UfsZonedState *s, Error **errp);
void ufs_zoned_irq_changed(UfsZonedState *s, uint32_t is, uint32_t cqs);

/* The enabled interrupt sources: IS bits, and each CQ's event with CQES */
static inline void ufs_zoned_irq_sources(UfsZonedState *s, uint32_t *is,
                                         uint32_t *cqs)
{
    *is = ufs_zoned_is(s) & s->reg.ie;
    *cqs = (s->reg.ie & R_IS_CQES_MASK) ? ufs_zoned_mcq_cq_events(s) : 0;
}

/* INTx pin of the function as the PCI core has it */
static inline bool ufs_zoned_intx_pin(UfsZonedState *s)
{
    return (s->parent_obj.irq_state >> pci_intx(&s->parent_obj)) & 1;
}

/* The interrupt sources may have changed: message or INTx level (irq.c) */
static inline void ufs_zoned_irq_update(UfsZonedState *s)
{
    uint32_t is, cqs;
    bool level;

    ufs_zoned_irq_sources(s, &is, &cqs);
    level = is || cqs;
    /*
     * Nothing set or cleared since the last look, and the line (if it is
     * the way) already there: no message, no level to change, either way.
     */
    if (is == s->irq_is_last && cqs == s->irq_cq_last &&
        level == s->intx_level && ufs_zoned_intx_pin(s) == level) {
        return;
    }
    ufs_zoned_irq_changed(s, is, cqs);
}
void ufs_zoned_raise(UfsZonedState *s, uint32_t is_bits);

/* MMIO handlers: what they make set is sent from the work BH (irq.c). */
static inline void ufs_zoned_irq_mmio_begin(UfsZonedState *s)
{
    s->irq_in_mmio = true;
}

static inline void ufs_zoned_irq_mmio_end(UfsZonedState *s)
{
    s->irq_in_mmio = false;
}
void ufs_zoned_irq_completion(UfsZonedState *s, uint32_t idx, bool intr);
void ufs_zoned_iacr_write(UfsZonedState *s, uint32_t idx, uint32_t val);
uint32_t ufs_zoned_iacr_read(UfsZonedState *s, uint32_t idx);
void ufs_zoned_irq_work(UfsZonedState *s);
void ufs_zoned_irq_config_write(PCIDevice *pci, uint32_t addr, uint32_t val,
                                int len);
void ufs_zoned_regs_reset(UfsZonedState *s);

/* ahit.c */
void ufs_zoned_ahit_init(UfsZonedState *s);
void ufs_zoned_ahit_cleanup(UfsZonedState *s);
void ufs_zoned_ahit_reset(UfsZonedState *s);
void ufs_zoned_ahit_idle(UfsZonedState *s);
void ufs_zoned_ahit_wake(UfsZonedState *s);

/*
 * A request for the link (a transfer or task management doorbell, an SQ
 * doorbell, a UIC command): leave H8 first.  Without auto-hibernate no
 * AHIT timer ever runs (ufs_zoned_ahit_idle() arms none), so there is
 * only an H8 the host entered to leave.
 */
static inline void ufs_zoned_ahit_busy(UfsZonedState *s)
{
    if (s->auto_hibernate || s->h8) {
        ufs_zoned_ahit_wake(s);
    }
}

/* The link carries requests: not in H8 and no exit under way. */
static inline bool ufs_zoned_link_ready(UfsZonedState *s)
{
    return !s->h8 && (s->h8_exit_end_ns <= 0 ||
                      qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >=
                      s->h8_exit_end_ns);
}
void ufs_zoned_ahit_write(UfsZonedState *s, uint32_t val);
void ufs_zoned_h8_exit_by_host(UfsZonedState *s);
void ufs_zoned_h8_enter(UfsZonedState *s);

/* uic.c */
void ufs_zoned_uic_cmd(UfsZonedState *s, uint32_t cmd);

/* utp.c */
extern const SCSIBusInfo ufs_zoned_scsi_info;
extern const ZrServiceOps ufs_zoned_service_ops;

/* Claim request context @index for a new command. */
static inline UfsZonedReq *ufs_zoned_req_init(UfsZonedState *s,
                                              uint32_t index, int32_t sq,
                                              uint32_t tag)
{
    UfsZonedReq *req = &s->req[index];

    /* the UPIU is last, its query data last in it */
    QEMU_BUILD_BUG_ON(sizeof(*req) - offsetof(UfsZonedReq, upiu) -
                      sizeof(req->upiu) >= __alignof__(UfsZonedReq));
    QEMU_BUILD_BUG_ON(offsetof(UtpUpiuReq, qr.data) +
                      sizeof(req->upiu.qr.data) != sizeof(req->upiu));
    memset(req, 0, offsetof(UfsZonedReq, upiu.qr.data));
    req->s = s;
    req->slot = index;
    req->sq = sq;
    req->tag = tag;
    req->busy = true;
    req->svc_done = true;       /* set false for commands that are timed */
    return req;
}

/* The UCD address of a UTRD (UFSHCI 4.0 6.1.1, DW4-5) */
static inline hwaddr ufs_zoned_utrd_ucd(const UtpTransferReqDesc *utrd)
{
    return ((uint64_t)le32_to_cpu(utrd->command_desc_base_addr_hi) << 32) |
           (le32_to_cpu(utrd->command_desc_base_addr_lo) & ~0x7fu);
}
void ufs_zoned_req_begin(UfsZonedReq *req, const UtpTransferReqDesc *utrd);
void ufs_zoned_utrl_doorbell(UfsZonedState *s, uint32_t val);
void ufs_zoned_utrl_fetch(UfsZonedState *s);
void ufs_zoned_utp_work(UfsZonedState *s);

/* Has any context perhaps a deferred event (work for ufs_zoned_utp_work)? */
static inline bool ufs_zoned_pending_any(const UfsZonedState *s)
{
    uint64_t any = 0;
    unsigned w;

    for (w = 0; w < UFSZ_PENDING_WORDS; w++) {
        any |= s->pending_map[w];
    }
    return any;
}
void ufs_zoned_req_pending_note(UfsZonedReq *req);
void ufs_zoned_req_drop(UfsZonedState *s, UfsZonedReq *req);
void ufs_zoned_req_complete_aborted(UfsZonedReq *req);
void ufs_zoned_utrl_clear(UfsZonedState *s, uint32_t val);
void ufs_zoned_utp_reset(UfsZonedState *s);
void ufs_zoned_utp_abort(UfsZonedState *s, uint32_t slot);
void ufs_zoned_dma_cleanup(UfsZonedState *s);
UfshcdSgEntry *ufs_zoned_prdt_grow(UfsZonedState *s, uint32_t slot,
                                   uint32_t n);

/*
 * Room for @n PRDT entries of context @slot, filled by the caller: up to
 * UFSZ_PRDT_KEEP entries the context keeps from command to command, so a
 * command mallocs nothing for them.
 */
static inline UfshcdSgEntry *ufs_zoned_prdt_alloc(UfsZonedState *s,
                                                  uint32_t slot, uint32_t n)
{
    if (n && n <= s->prdt_cap[slot]) {
        return s->prdt_keep[slot];
    }
    return ufs_zoned_prdt_grow(s, slot, n);
}
void ufs_zoned_prdt_free(UfsZonedReq *req);

/* mcq.c */
uint32_t ufs_zoned_mcqcap(UfsZonedState *s);
void ufs_zoned_mcq_init(UfsZonedState *s);
void ufs_zoned_mcq_exit(UfsZonedState *s);
bool ufs_zoned_mcq_read(UfsZonedState *s, hwaddr addr, uint32_t *val);
bool ufs_zoned_mcq_write(UfsZonedState *s, hwaddr addr, uint32_t val);
void ufs_zoned_mcq_req_done(UfsZonedState *s, UfsZonedReq *req);
void ufs_zoned_mcq_req_free(UfsZonedState *s, UfsZonedReq *req);
void ufs_zoned_mcq_fetch(UfsZonedState *s);
bool ufs_zoned_mcq_fetch_waiting_slow(UfsZonedState *s);

/* Entries wait in a running SQ (the controller is not idle). */
static inline bool ufs_zoned_mcq_fetch_waiting(UfsZonedState *s)
{
    return s->sq_rung && ufs_zoned_mcq_fetch_waiting_slow(s);
}

/* No request anywhere in the controller: the link may go to H8 */
static inline bool ufs_zoned_idle(UfsZonedState *s)
{
    return !s->utrldbr && !s->mcq_active && !s->reg.utmrldbr &&
           !ufs_zoned_mcq_fetch_waiting(s);
}

/*
 * The controller may have gone idle: (re)arm the AHIT idle timer.  There
 * is none to arm or stop without auto-hibernate.
 */
static inline void ufs_zoned_ahit_maybe_idle(UfsZonedState *s)
{
    if (s->auto_hibernate && ufs_zoned_idle(s)) {
        ufs_zoned_ahit_idle(s);
    }
}
void ufs_zoned_mcq_stop_all(UfsZonedState *s);
void ufs_zoned_mcq_work(UfsZonedState *s);
void ufs_zoned_mcq_select(UfsZonedState *s, uint32_t val);
void ufs_zoned_mcq_reset(UfsZonedState *s);
bool ufs_zoned_mcq_post_load(UfsZonedState *s, Error **errp);

/* migrate.c */
extern const VMStateDescription vmstate_ufs_zoned;
void ufs_zoned_migrate_init(UfsZonedState *s);
void ufs_zoned_migrate_cleanup(UfsZonedState *s);
void ufs_zoned_save_request(QEMUFile *f, SCSIRequest *sreq);
void *ufs_zoned_load_request(QEMUFile *f, SCSIRequest *sreq);

/* tm.c */
void ufs_zoned_utmrl_doorbell(UfsZonedState *s, uint32_t val);
void ufs_zoned_utmrl_clear(UfsZonedState *s, uint32_t val);
void ufs_zoned_utmrl_work(UfsZonedState *s);

/* query.c: fills @rsp (header already copied) from the request @req. */
void ufs_zoned_query(UfsZonedState *s, const UtpUpiuReq *req,
                     UtpUpiuRsp *rsp, uint16_t *data_len);
void ufs_zoned_query_reset(UfsZonedState *s);

#endif
