/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the dispatch (reorder) engine.
 *
 * Commands arrive (zr_dispatch_submit()) and wait in a pending set until the
 * device may start one; zr_dispatch_pick() then returns the command the
 * reorder policy chooses.  The device checks the write pointer when the
 * command *starts*, so the start order chosen here is the order the guest
 * observes.  Started commands stay "in flight" until zr_dispatch_complete().
 *
 * The engine speaks tags, queues and sequence numbers only; what a tag is
 * (a UFS doorbell slot, an NVMe command identifier) is the device's
 * business.  Not thread-safe: call under the BQL or the device's lock.
 */

#ifndef HW_BLOCK_ZONED_REORDER_DISPATCH_H
#define HW_BLOCK_ZONED_REORDER_DISPATCH_H

#include "qemu/queue.h"
#include "qapi/util.h"
#include "hw/block/zoned-reorder/prng.h"

/* Command class, for the service-time model and per-zone accounting. */
typedef enum ZrOp {
    ZR_OP_READ,
    ZR_OP_WRITE,
    ZR_OP_APPEND,
    ZR_OP_ZONE_MGMT,
    ZR_OP_OTHER,        /* flush, inquiry, report zones, ... */
    ZR_OP__MAX
} ZrOp;

/* Reorder policies; the names are the same on every device. */
typedef enum ZrPolicy {
    ZR_POLICY_NONE,     /* strict arrival order */
    ZR_POLICY_SPEC,     /* what the transport's standard lets hardware do */
    ZR_POLICY_RR,       /* round-robin across queues (or slots), burst */
    ZR_POLICY_RANDOM,   /* uniform among pending, seeded */
    ZR_POLICY_REVERSE,  /* newest first (adversarial) */
    ZR_POLICY__MAX
} ZrPolicy;

/*
 * Which `spec` behaviour the transport has; it also decides whether `rr`
 * rotates over slots or over queues.
 */
typedef enum ZrSpecFlavour {
    /*
     * One doorbell register whose bits are slots (UFSHCI legacy single
     * doorbell, UTRLDBR): `spec` starts the lowest pending slot; `rr`
     * rotates a slot pointer.
     */
    ZR_SPEC_LOWEST_SLOT,
    /*
     * One doorbell register whose bits are slots, forwarded ring by ring
     * as real single-doorbell controllers do (the device submits each
     * ring's slots in slot order): `spec` starts in arrival order; `rr`
     * rotates a slot pointer.  The reordering such controllers show comes
     * from when the device fetches (e.g. a batch after an H8 exit), not
     * from the start policy.
     */
    ZR_SPEC_RING_ORDER,
    /*
     * Several submission queues (UFSHCI 4.0 MCQ, NVMe): `spec` keeps order
     * within a queue and takes queues round-robin (burst spec_burst);
     * `rr` does the same with burst rr_burst.
     */
    ZR_SPEC_PER_QUEUE_RR,
} ZrSpecFlavour;

/*
 * Queue priority classes for weighted round robin with an urgent priority
 * class (NVMe Base 2.0 3.4.4.3; the values are Create I/O Submission
 * Queue's QPRIO).  Only ZR_SPEC_PER_QUEUE_RR engines with WRR switched on
 * (zr_dispatch_set_wrr()) look at them.
 */
typedef enum ZrQueueClass {
    ZR_QCLASS_URGENT,   /* strict priority over the weighted classes */
    ZR_QCLASS_HIGH,
    ZR_QCLASS_MEDIUM,
    ZR_QCLASS_LOW,
    ZR_QCLASS__MAX
} ZrQueueClass;

#define ZR_WRR_CLASSES  3   /* high, medium, low */

typedef enum ZrCmdState {
    ZR_CMD_IDLE,        /* not known to the engine */
    ZR_CMD_PENDING,     /* submitted, waiting to start */
    ZR_CMD_STARTED,     /* picked; in flight until zr_dispatch_complete() */
} ZrCmdState;

/*
 * A command as the core sees it.  Devices embed one in their request and
 * find the request again with container_of() or @opaque.
 */
typedef struct ZrCmd {
    /* Set by the device (zr_cmd_init()) before zr_dispatch_submit(). */
    uint32_t tag;           /* doorbell slot / command identifier */
    uint32_t queue;         /* submission queue, 0 .. nr_queues - 1 */
    ZrOp op;
    uint64_t lba;
    uint64_t len;           /* blocks */
    /*
     * Bytes moved, for the service model's per-4 KiB cost, when
     * @xfer_set; otherwise @len blocks of the model's block_size count
     * (devices whose LUs differ in block size set both after
     * zr_cmd_init())
     */
    uint64_t xfer_bytes;
    bool xfer_set;
    void *opaque;
    /* Left out of per-zone write accounting (e.g. an LU with no zones) */
    bool zone_untracked;

    /* Owned by the core. */
    ZrCmdState state;
    uint64_t seq;           /* arrival order, from 1, per engine */
    uint32_t overtaken;     /* earlier arrivals still pending at start */
    int64_t done_ns;        /* service model: completion time */
    uint64_t svc_order;     /* service model: start order, for ties */
    QTAILQ_ENTRY(ZrCmd) link;       /* dispatch: pending or in-flight list */
    QTAILQ_ENTRY(ZrCmd) svc_link;   /* service model: in-service list */
} ZrCmd;

typedef void ZrCmdFn(ZrCmd *cmd, void *opaque);

typedef struct ZrDispatchConfig {
    ZrPolicy policy;
    ZrSpecFlavour spec;
    uint32_t nr_queues;     /* >= 1; ZR_SPEC_LOWEST_SLOT uses queue 0 */
    /* `spec` queue burst; 0 = 1.  NVMe: 2^AB, or UINT32_MAX for AB=111b */
    uint32_t spec_burst;
    uint32_t rr_burst;      /* `rr` queue burst; 0 = 1 */
    uint64_t seed;          /* `random` */
    uint64_t zone_size;     /* blocks, power of two; 0 = no zone tracking */
} ZrDispatchConfig;

typedef struct ZrDispatchStats {
    uint64_t submitted;
    uint64_t starts;
    uint64_t starts_reordered;  /* an earlier arrival was still pending */
    uint64_t overtaken_sum;     /* sum over starts of earlier arrivals left */
    uint64_t overtaken_max;
    /* an earlier arrival *in the same queue* was still pending */
    uint64_t starts_reordered_in_queue;
    uint64_t decisions[ZR_POLICY__MAX];
    uint64_t completed;
    uint64_t cancelled;
    uint64_t flushed;
    uint64_t pending_max;
    /*
     * Writes and appends started while another write or append to the
     * same zone was in flight, and the highest such per-zone depth seen.
     * Needs ZrDispatchConfig.zone_size.
     */
    uint64_t zone_write_overlaps;
    uint64_t zone_writes_in_flight_max;
} ZrDispatchStats;

/* Writes in flight to one zone (zone index at the current zone size) */
typedef struct ZrZoneWrites {
    uint64_t zone;
    uint32_t n;
} ZrZoneWrites;

typedef struct ZrDispatch {
    ZrDispatchConfig cfg;
    uint64_t next_seq;
    uint32_t nr_pending;
    uint32_t nr_in_flight;
    QTAILQ_HEAD(, ZrCmd) pending;       /* in arrival (seq) order */
    QTAILQ_HEAD(, ZrCmd) in_flight;     /* in start order */
    uint32_t *queue_pending;            /* [nr_queues] */
    uint64_t *queue_starts;             /* [nr_queues] */

    /* Policy state */
    ZrPrng prng;
    uint32_t rr_queue;          /* queue round-robin: current queue */
    uint32_t rr_taken;          /* ... and starts taken from it so far */
    uint32_t last_slot;         /* slot flavour: last started tag */
    /*
     * Weighted round robin (`spec` of ZR_SPEC_PER_QUEUE_RR when @wrr):
     * each queue's class, each class's round-robin cursor, and the
     * commands each weighted class may still start this round.
     */
    bool wrr;
    uint8_t *queue_class;                   /* [nr_queues] ZrQueueClass */
    uint32_t wrr_weight[ZR_WRR_CLASSES];    /* commands per round, >= 1 */
    uint32_t wrr_credit[ZR_WRR_CLASSES];
    uint32_t class_queue[ZR_QCLASS__MAX];
    uint32_t class_taken[ZR_QCLASS__MAX];
    bool any_started;

    /*
     * Zones with writes in flight and how many each (zone_size set):
     * one entry per such zone, so a start looks at the zones being
     * written, not at every command in flight.
     */
    ZrZoneWrites *zw;
    uint32_t nr_zw;
    uint32_t zw_alloc;

    ZrDispatchStats stats;
} ZrDispatch;

/* Policy names, for QOM enum/string properties */
extern const QEnumLookup ZrPolicy_lookup;
const char *zr_policy_name(ZrPolicy policy);
bool zr_policy_parse(const char *name, ZrPolicy *policy, Error **errp);
char *zr_policy_names(void);

/* Setup and run-time changes */
bool zr_dispatch_init(ZrDispatch *d, const ZrDispatchConfig *cfg,
                      Error **errp);
void zr_dispatch_cleanup(ZrDispatch *d);
void zr_dispatch_set_policy(ZrDispatch *d, ZrPolicy policy);
void zr_dispatch_set_seed(ZrDispatch *d, uint64_t seed);
bool zr_dispatch_set_zone_size(ZrDispatch *d, uint64_t zone_size,
                               Error **errp);
void zr_dispatch_set_spec_burst(ZrDispatch *d, uint32_t burst);
void zr_dispatch_set_rr_burst(ZrDispatch *d, uint32_t burst);
/*
 * Weighted round robin with an urgent class for `spec`: @weight is the
 * commands per round of the high, medium and low classes (each >= 1;
 * NVMe's HPW/MPW/LPW + 1).  Off (the default), `spec` is plain round
 * robin and the classes are ignored.
 */
void zr_dispatch_set_wrr(ZrDispatch *d, bool on,
                         const uint32_t weight[ZR_WRR_CLASSES]);
void zr_dispatch_set_queue_class(ZrDispatch *d, uint32_t queue,
                                 ZrQueueClass cls);
void zr_dispatch_reset_stats(ZrDispatch *d);

/* Command flow */
static inline void zr_cmd_init(ZrCmd *cmd, uint32_t tag, uint32_t queue,
                               ZrOp op, uint64_t lba, uint64_t len,
                               void *opaque)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->tag = tag;
    cmd->queue = queue;
    cmd->op = op;
    cmd->lba = lba;
    cmd->len = len;
    cmd->opaque = opaque;
}

void zr_dispatch_submit(ZrDispatch *d, ZrCmd *cmd);
ZrCmd *zr_dispatch_pick(ZrDispatch *d);
unsigned zr_dispatch_pick_batch(ZrDispatch *d, ZrCmd **out, unsigned max);
void zr_dispatch_complete(ZrDispatch *d, ZrCmd *cmd);
bool zr_dispatch_cancel(ZrDispatch *d, ZrCmd *cmd);
bool zr_dispatch_restore(ZrDispatch *d, ZrCmd *cmd, Error **errp);
void zr_dispatch_flush(ZrDispatch *d, ZrCmdFn *fn, void *opaque);

/* Queries */
static inline uint32_t zr_dispatch_nr_pending(const ZrDispatch *d)
{
    return d->nr_pending;
}

static inline uint32_t zr_dispatch_nr_in_flight(const ZrDispatch *d)
{
    return d->nr_in_flight;
}

uint32_t zr_dispatch_zone_writes_in_flight(const ZrDispatch *d,
                                           uint64_t lba);
const char *zr_op_name(ZrOp op);

#endif
