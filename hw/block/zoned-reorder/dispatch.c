/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the dispatch engine's command flow and counters.
 *
 * This file owns the pending list (arrival order), the in-flight list
 * (start order), sequence numbers and every counter about start order.
 * Which pending command starts is decided in policy.c.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "dispatch-internal.h"
#include "trace.h"

const char *zr_op_name(ZrOp op)
{
    static const char *const names[ZR_OP__MAX] = {
        [ZR_OP_READ] = "read",
        [ZR_OP_WRITE] = "write",
        [ZR_OP_APPEND] = "append",
        [ZR_OP_ZONE_MGMT] = "zone-mgmt",
        [ZR_OP_OTHER] = "other",
    };

    return op < ZR_OP__MAX ? names[op] : "invalid";
}

/* Does @cmd count in the per-zone write accounting? */
static bool zr_cmd_zone_counted(const ZrDispatch *d, const ZrCmd *cmd)
{
    return d->cfg.zone_size && !cmd->zone_untracked &&
           (cmd->op == ZR_OP_WRITE || cmd->op == ZR_OP_APPEND);
}

static ZrZoneWrites *zr_zw_find(const ZrDispatch *d, uint64_t zone)
{
    uint32_t i;

    for (i = 0; i < d->nr_zw; i++) {
        if (d->zw[i].zone == zone) {
            return &d->zw[i];
        }
    }
    return NULL;
}

/* @cmd started: count it in its zone; returns the zone's count before */
static inline QEMU_ALWAYS_INLINE
uint32_t zr_zw_add(ZrDispatch *d, const ZrCmd *cmd)
{
    uint64_t zone = cmd->lba / d->cfg.zone_size;
    ZrZoneWrites *z = zr_zw_find(d, zone);

    if (!z) {
        if (d->nr_zw == d->zw_alloc) {
            d->zw_alloc = MAX(8, d->zw_alloc * 2);
            d->zw = g_renew(ZrZoneWrites, d->zw, d->zw_alloc);
        }
        z = &d->zw[d->nr_zw++];
        *z = (ZrZoneWrites) { .zone = zone };
    }
    return z->n++;
}

/* @cmd left the in-flight list */
static void zr_zw_del(ZrDispatch *d, const ZrCmd *cmd)
{
    ZrZoneWrites *z;

    if (!zr_cmd_zone_counted(d, cmd)) {
        return;
    }
    z = zr_zw_find(d, cmd->lba / d->cfg.zone_size);
    assert(z && z->n);
    if (!--z->n) {
        *z = d->zw[--d->nr_zw];
    }
}

/* Count the in-flight writes again (the zone size changed, a restore) */
static void zr_zw_rebuild(ZrDispatch *d)
{
    ZrCmd *cmd;

    d->nr_zw = 0;
    QTAILQ_FOREACH(cmd, &d->in_flight, link) {
        if (zr_cmd_zone_counted(d, cmd)) {
            zr_zw_add(d, cmd);
        }
    }
}

uint32_t zr_dispatch_zone_writes_in_flight(const ZrDispatch *d, uint64_t lba)
{
    const ZrZoneWrites *z;

    assert(d->cfg.zone_size);
    z = zr_zw_find(d, lba / d->cfg.zone_size);
    return z ? z->n : 0;
}

bool zr_dispatch_init(ZrDispatch *d, const ZrDispatchConfig *cfg,
                      Error **errp)
{
    unsigned i;

    memset(d, 0, sizeof(*d));
    if (cfg->policy >= ZR_POLICY__MAX) {
        error_setg(errp, "invalid reorder policy %d", cfg->policy);
        return false;
    }
    if (cfg->spec != ZR_SPEC_LOWEST_SLOT && cfg->spec != ZR_SPEC_RING_ORDER &&
        cfg->spec != ZR_SPEC_PER_QUEUE_RR) {
        error_setg(errp, "invalid spec flavour %d", cfg->spec);
        return false;
    }
    if (cfg->nr_queues == 0) {
        error_setg(errp, "the dispatch engine needs at least one queue");
        return false;
    }
    if (cfg->zone_size && !is_power_of_2(cfg->zone_size)) {
        error_setg(errp, "zone size %" PRIu64 " blocks is not a power of two",
                   cfg->zone_size);
        return false;
    }

    d->cfg = *cfg;
    d->cfg.spec_burst = MAX(cfg->spec_burst, 1);
    d->cfg.rr_burst = MAX(cfg->rr_burst, 1);
    d->next_seq = 1;
    QTAILQ_INIT(&d->pending);
    QTAILQ_INIT(&d->in_flight);
    d->queue_pending = g_new0(uint32_t, cfg->nr_queues);
    d->queue_starts = g_new0(uint64_t, cfg->nr_queues);
    d->queue_class = g_new(uint8_t, cfg->nr_queues);
    memset(d->queue_class, ZR_QCLASS_MEDIUM, cfg->nr_queues);
    for (i = 0; i < ZR_WRR_CLASSES; i++) {
        d->wrr_weight[i] = d->wrr_credit[i] = 1;
    }
    zr_prng_seed(&d->prng, cfg->seed);
    return true;
}

/* The device must have flushed its commands first. */
void zr_dispatch_cleanup(ZrDispatch *d)
{
    assert(QTAILQ_EMPTY(&d->pending) && QTAILQ_EMPTY(&d->in_flight));
    g_free(d->queue_pending);
    g_free(d->queue_starts);
    g_free(d->queue_class);
    g_free(d->zw);
    d->zw = NULL;
    d->nr_zw = d->zw_alloc = 0;
    d->queue_class = NULL;
    d->queue_pending = NULL;
    d->queue_starts = NULL;
}

void zr_dispatch_set_policy(ZrDispatch *d, ZrPolicy policy)
{
    assert(policy < ZR_POLICY__MAX);
    trace_zr_dispatch_set_policy(d, zr_policy_name(d->cfg.policy),
                                 zr_policy_name(policy));
    d->cfg.policy = policy;
}

/* Reseeding restarts the random sequence: same seed, same order again. */
/*
 * Per-zone write accounting for a device whose zone size is known only
 * once its LUs exist (0 switches it off).
 */
bool zr_dispatch_set_zone_size(ZrDispatch *d, uint64_t zone_size,
                               Error **errp)
{
    if (zone_size && !is_power_of_2(zone_size)) {
        error_setg(errp, "zone size %" PRIu64 " blocks is not a power of two",
                   zone_size);
        return false;
    }
    d->cfg.zone_size = zone_size;
    zr_zw_rebuild(d);
    return true;
}

void zr_dispatch_set_seed(ZrDispatch *d, uint64_t seed)
{
    d->cfg.seed = seed;
    zr_prng_seed(&d->prng, seed);
}

void zr_dispatch_set_spec_burst(ZrDispatch *d, uint32_t burst)
{
    d->cfg.spec_burst = MAX(burst, 1);
}

void zr_dispatch_set_rr_burst(ZrDispatch *d, uint32_t burst)
{
    d->cfg.rr_burst = MAX(burst, 1);
}

void zr_dispatch_set_wrr(ZrDispatch *d, bool on,
                         const uint32_t weight[ZR_WRR_CLASSES])
{
    unsigned i;

    d->wrr = on;
    for (i = 0; i < ZR_WRR_CLASSES; i++) {
        d->wrr_weight[i] = MAX(weight[i], 1);
        d->wrr_credit[i] = d->wrr_weight[i];
    }
    trace_zr_dispatch_set_wrr(d, on, d->wrr_weight[0], d->wrr_weight[1],
                              d->wrr_weight[2]);
}

void zr_dispatch_set_queue_class(ZrDispatch *d, uint32_t queue,
                                 ZrQueueClass cls)
{
    assert(queue < d->cfg.nr_queues && cls < ZR_QCLASS__MAX);
    d->queue_class[queue] = cls;
}

void zr_dispatch_reset_stats(ZrDispatch *d)
{
    memset(&d->stats, 0, sizeof(d->stats));
    memset(d->queue_starts, 0, d->cfg.nr_queues * sizeof(d->queue_starts[0]));
}

void zr_dispatch_submit(ZrDispatch *d, ZrCmd *cmd)
{
    assert(cmd->state == ZR_CMD_IDLE);
    assert(cmd->queue < d->cfg.nr_queues);
    assert(cmd->op < ZR_OP__MAX);

    cmd->seq = d->next_seq++;
    cmd->state = ZR_CMD_PENDING;
    cmd->overtaken = 0;
    QTAILQ_INSERT_TAIL(&d->pending, cmd, link);
    d->nr_pending++;
    d->queue_pending[cmd->queue]++;
    d->stats.submitted++;
    d->stats.pending_max = MAX(d->stats.pending_max, d->nr_pending);
    trace_zr_dispatch_submit(d, cmd->tag, cmd->queue, cmd->seq,
                             zr_op_name(cmd->op), cmd->lba, cmd->len,
                             d->nr_pending);
}

/*
 * A write starting while another write to its zone is in flight is what
 * zoned write pipelining produces (and what zone write locking forbids);
 * count it so a test can tell whether the guest pipelined.
 */
static void zr_dispatch_account_zone_write(ZrDispatch *d, ZrCmd *cmd)
{
    uint32_t n;

    if (!zr_cmd_zone_counted(d, cmd)) {
        return;
    }
    n = zr_zw_add(d, cmd);
    if (n) {
        d->stats.zone_write_overlaps++;
        trace_zr_dispatch_zone_overlap(d, cmd->tag, cmd->seq,
                                       cmd->lba / d->cfg.zone_size, n + 1);
    }
    d->stats.zone_writes_in_flight_max =
        MAX(d->stats.zone_writes_in_flight_max, n + 1);
}

/*
 * Start the command the current policy picks, or return NULL when none is
 * pending.  The caller decides how many may start (a parallelism limit
 * from the service model or the device) and calls this once per start.
 */
ZrCmd *zr_dispatch_pick(ZrDispatch *d)
{
    ZrPolicy policy = d->cfg.policy;
    uint32_t overtaken = 0, in_queue = 0;
    ZrCmd *cmd, *c;

    if (!d->nr_pending) {
        return NULL;
    }
    if (policy == ZR_POLICY_NONE) {
        cmd = QTAILQ_FIRST(&d->pending);    /* overtakes nothing */
    } else {
        cmd = zr_policy_pick(d, policy);
        /* The pending list is in arrival order: what precedes was overtaken */
        QTAILQ_FOREACH(c, &d->pending, link) {
            if (c == cmd) {
                break;
            }
            overtaken++;
            in_queue += c->queue == cmd->queue;
        }
    }

    QTAILQ_REMOVE(&d->pending, cmd, link);
    d->nr_pending--;
    d->queue_pending[cmd->queue]--;

    zr_dispatch_account_zone_write(d, cmd);
    QTAILQ_INSERT_TAIL(&d->in_flight, cmd, link);
    d->nr_in_flight++;
    cmd->state = ZR_CMD_STARTED;
    cmd->overtaken = overtaken;

    d->last_slot = cmd->tag;
    d->any_started = true;
    d->stats.starts++;
    d->stats.decisions[policy]++;
    d->queue_starts[cmd->queue]++;
    if (overtaken) {
        d->stats.starts_reordered++;
        d->stats.overtaken_sum += overtaken;
        d->stats.overtaken_max = MAX(d->stats.overtaken_max, overtaken);
    }
    if (in_queue) {
        d->stats.starts_reordered_in_queue++;
    }
    if (trace_event_get_state_backends(TRACE_ZR_DISPATCH_START)) {
        trace_zr_dispatch_start(d, zr_policy_name(policy), cmd->tag,
                                cmd->queue, cmd->seq, zr_op_name(cmd->op),
                                cmd->lba, overtaken, d->nr_pending);
    }
    return cmd;
}

/* Start up to @max commands at once; returns how many are in @out. */
unsigned zr_dispatch_pick_batch(ZrDispatch *d, ZrCmd **out, unsigned max)
{
    unsigned n = 0;

    while (n < max && (out[n] = zr_dispatch_pick(d))) {
        n++;
    }
    return n;
}

void zr_dispatch_complete(ZrDispatch *d, ZrCmd *cmd)
{
    assert(cmd->state == ZR_CMD_STARTED);
    QTAILQ_REMOVE(&d->in_flight, cmd, link);
    d->nr_in_flight--;
    zr_zw_del(d, cmd);
    cmd->state = ZR_CMD_IDLE;
    d->stats.completed++;
    trace_zr_dispatch_complete(d, cmd->tag, cmd->queue, cmd->seq,
                               d->nr_in_flight);
}

/*
 * Migration: put @cmd, loaded with its saved state (ZR_CMD_PENDING or
 * ZR_CMD_STARTED and its sequence number), back on the engine's lists
 * without counting anything again.  Pending commands go in arrival
 * order whatever the order of the calls; started ones are appended, so
 * the device restores them in their start order.  The saved state is
 * input not trusted: a command that cannot be one of this engine's fails
 * with @errp and is left off the lists.
 */
bool zr_dispatch_restore(ZrDispatch *d, ZrCmd *cmd, Error **errp)
{
    ZrCmd *c;

    if (cmd->queue >= d->cfg.nr_queues || cmd->op >= ZR_OP__MAX ||
        !cmd->seq || cmd->seq >= d->next_seq) {
        error_setg(errp, "saved command (tag %u, queue %u, seq %" PRIu64
                   ") does not fit the dispatch engine", cmd->tag,
                   cmd->queue, cmd->seq);
        return false;
    }
    switch (cmd->state) {
    case ZR_CMD_PENDING:
        QTAILQ_FOREACH_REVERSE(c, &d->pending, link) {
            if (c->seq == cmd->seq) {
                error_setg(errp, "two saved commands with seq %" PRIu64,
                           cmd->seq);
                return false;
            }
            if (c->seq < cmd->seq) {
                break;
            }
        }
        if (c) {
            QTAILQ_INSERT_AFTER(&d->pending, c, cmd, link);
        } else {
            QTAILQ_INSERT_HEAD(&d->pending, cmd, link);
        }
        d->nr_pending++;
        d->queue_pending[cmd->queue]++;
        break;
    case ZR_CMD_STARTED:
        QTAILQ_INSERT_TAIL(&d->in_flight, cmd, link);
        d->nr_in_flight++;
        if (zr_cmd_zone_counted(d, cmd)) {
            zr_zw_add(d, cmd);
        }
        break;
    default:
        error_setg(errp, "saved command (tag %u) in state %d", cmd->tag,
                   cmd->state);
        return false;
    }
    trace_zr_dispatch_restore(d, cmd->tag, cmd->queue, cmd->seq,
                              cmd->state == ZR_CMD_STARTED);
    return true;
}

/*
 * Take a pending command back (abort, SQ deletion).  Returns false if it
 * is not pending: a started command must run to zr_dispatch_complete().
 */
bool zr_dispatch_cancel(ZrDispatch *d, ZrCmd *cmd)
{
    if (cmd->state != ZR_CMD_PENDING) {
        return false;
    }
    QTAILQ_REMOVE(&d->pending, cmd, link);
    d->nr_pending--;
    d->queue_pending[cmd->queue]--;
    cmd->state = ZR_CMD_IDLE;
    d->stats.cancelled++;
    trace_zr_dispatch_cancel(d, cmd->tag, cmd->queue, cmd->seq);
    return true;
}

/*
 * Controller reset: forget every pending and in-flight command, calling
 * @fn (if any) for each after it is off the lists (so @fn may free it):
 * pending ones in arrival order, then in-flight ones in start order.
 * Policy state restarts; the counters and the PRNG stream do not.
 */
void zr_dispatch_flush(ZrDispatch *d, ZrCmdFn *fn, void *opaque)
{
    ZrCmd *cmd;

    trace_zr_dispatch_flush(d, d->nr_pending, d->nr_in_flight);
    while ((cmd = QTAILQ_FIRST(&d->pending))) {
        QTAILQ_REMOVE(&d->pending, cmd, link);
        d->queue_pending[cmd->queue]--;
        d->nr_pending--;
        cmd->state = ZR_CMD_IDLE;
        d->stats.flushed++;
        if (fn) {
            fn(cmd, opaque);
        }
    }
    while ((cmd = QTAILQ_FIRST(&d->in_flight))) {
        QTAILQ_REMOVE(&d->in_flight, cmd, link);
        d->nr_in_flight--;
        cmd->state = ZR_CMD_IDLE;
        d->stats.flushed++;
        if (fn) {
            fn(cmd, opaque);
        }
    }
    d->rr_queue = 0;
    d->rr_taken = 0;
    memset(d->class_queue, 0, sizeof(d->class_queue));
    memset(d->class_taken, 0, sizeof(d->class_taken));
    memcpy(d->wrr_credit, d->wrr_weight, sizeof(d->wrr_credit));
    d->any_started = false;
    d->last_slot = 0;
    d->nr_zw = 0;
}
