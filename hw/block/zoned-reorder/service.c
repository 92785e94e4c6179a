/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the service-time model (pure: time comes in as an
 * argument).
 *
 * This file owns the in-service list, the parallelism limit, the "not
 * before" start time and the scheduling step zr_service_run().  Each
 * command in service completes independently at start + cost, like a
 * controller with max_parallel independent back-end units; commands due
 * at the same time complete in start order.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/block/zoned-reorder/service.h"
#include "trace.h"

/* Every service time 0 and no limit: the model is off */
static bool zr_service_config_timeless(const ZrServiceConfig *cfg)
{
    unsigned op;

    for (op = 0; op < ZR_OP__MAX; op++) {
        if (cfg->lat_ns[op] || cfg->xfer_ns_per_4k[op]) {
            return false;
        }
    }
    return !cfg->max_parallel;
}

static bool zr_service_config_check(const ZrServiceConfig *cfg, Error **errp)
{
    if (cfg->block_size && !is_power_of_2(cfg->block_size)) {
        error_setg(errp, "service model block size %u is not a power of two",
                   cfg->block_size);
        return false;
    }
    return true;
}

bool zr_service_init(ZrService *s, const ZrServiceConfig *cfg, Error **errp)
{
    memset(s, 0, sizeof(*s));
    QTAILQ_INIT(&s->in_service);
    return zr_service_set_config(s, cfg, errp);
}

/*
 * Change latencies or the limit at run time (QOM properties).  Commands in
 * service keep their completion time; a lower limit only holds back new
 * starts.
 */
bool zr_service_set_config(ZrService *s, const ZrServiceConfig *cfg,
                           Error **errp)
{
    if (!zr_service_config_check(cfg, errp)) {
        return false;
    }
    s->cfg = *cfg;
    if (!s->cfg.block_size) {
        s->cfg.block_size = 4096;
    }
    s->timeless = zr_service_config_timeless(&s->cfg);
    return true;
}

void zr_service_config_from(ZrServiceConfig *cfg, const ZrServiceParams *p,
                            uint32_t block_size)
{
    *cfg = (ZrServiceConfig) {
        .lat_ns = {
            [ZR_OP_READ] = p->lat_read_ns,
            [ZR_OP_WRITE] = p->lat_write_ns,
            [ZR_OP_APPEND] = p->lat_write_ns,
            [ZR_OP_ZONE_MGMT] = p->lat_other_ns,
            [ZR_OP_OTHER] = p->lat_other_ns,
        },
        .xfer_ns_per_4k = {
            [ZR_OP_READ] = p->xfer_read_ns,
            [ZR_OP_WRITE] = p->xfer_write_ns,
            [ZR_OP_APPEND] = p->xfer_write_ns,
        },
        .block_size = block_size,
        .max_parallel = p->max_parallel,
    };
}

/* No service time and no limit: a device may leave its model off. */
bool zr_service_params_zero(const ZrServiceParams *p)
{
    return !p->lat_read_ns && !p->lat_write_ns && !p->lat_other_ns &&
           !p->xfer_read_ns && !p->xfer_write_ns && !p->max_parallel;
}

/*
 * Fixed cost plus the per-4 KiB cost for every started 4 KiB of @bytes;
 * saturates.
 */
uint64_t zr_service_cost_bytes_ns(const ZrServiceConfig *cfg, ZrOp op,
                                  uint64_t bytes)
{
    uint64_t units = bytes / 4096 + !!(bytes % 4096);
    uint64_t xfer, lo, hi;

    assert(op < ZR_OP__MAX);
    mulu64(&lo, &hi, units, cfg->xfer_ns_per_4k[op]);
    if (hi) {
        return UINT64_MAX;
    }
    xfer = lo;
    if (xfer > UINT64_MAX - cfg->lat_ns[op]) {
        return UINT64_MAX;
    }
    return cfg->lat_ns[op] + xfer;
}

/* The same for @len blocks of the configured block size. */
uint64_t zr_service_cost_ns(const ZrServiceConfig *cfg, ZrOp op, uint64_t len)
{
    uint64_t bs = cfg->block_size ? cfg->block_size : 4096;

    if (len > UINT64_MAX / bs) {
        assert(op < ZR_OP__MAX);
        return UINT64_MAX;
    }
    return zr_service_cost_bytes_ns(cfg, op, len * bs);
}

bool zr_service_slot_free(const ZrService *s)
{
    return !s->cfg.max_parallel || s->busy < s->cfg.max_parallel;
}

bool zr_service_can_start(const ZrService *s, int64_t now)
{
    return zr_service_slot_free(s) && now >= s->not_before_ns;
}

/*
 * Put @cmd (done_ns and svc_order set) in service: the list is sorted by
 * completion time, equal times in start order.
 */
static inline QEMU_ALWAYS_INLINE
void zr_service_insert(ZrService *s, ZrCmd *cmd)
{
    ZrCmd *c;

    QTAILQ_FOREACH_REVERSE(c, &s->in_service, svc_link) {
        if (c->done_ns < cmd->done_ns ||
            (c->done_ns == cmd->done_ns && c->svc_order < cmd->svc_order)) {
            break;
        }
    }
    if (c) {
        QTAILQ_INSERT_AFTER(&s->in_service, c, cmd, svc_link);
    } else {
        QTAILQ_INSERT_HEAD(&s->in_service, cmd, svc_link);
    }
    s->busy++;
}

/*
 * Put @cmd in service at @now and return its completion time.  Starting
 * when zr_service_can_start() is false is a device bug.  Inline in
 * zr_service_run(); service.h's declaration makes this the external
 * definition too.
 */
inline QEMU_ALWAYS_INLINE
int64_t zr_service_start(ZrService *s, ZrCmd *cmd, int64_t now)
{
    uint64_t cost = 0;
    int64_t done;

    if (!s->timeless) {
        cost = cmd->xfer_set
            ? zr_service_cost_bytes_ns(&s->cfg, cmd->op, cmd->xfer_bytes)
            : zr_service_cost_ns(&s->cfg, cmd->op, cmd->len);
    }

    assert(zr_service_can_start(s, now));
    assert(now >= 0);
    done = cost > (uint64_t)(ZR_SERVICE_NEVER - 1 - now)
           ? ZR_SERVICE_NEVER - 1 : now + (int64_t)cost;
    cmd->done_ns = done;
    cmd->svc_order = s->next_order++;
    zr_service_insert(s, cmd);

    s->stats.starts++;
    s->stats.busy_max = MAX(s->stats.busy_max, s->busy);
    s->stats.busy_ns += done - now;
    if (trace_event_get_state_backends(TRACE_ZR_SERVICE_START)) {
        trace_zr_service_start(s, cmd->seq, zr_op_name(cmd->op), now, done,
                               s->busy);
    }
    return done;
}

/* Take @cmd, the first in service, out of service: its slot is freed */
static inline QEMU_ALWAYS_INLINE
void zr_service_done(ZrService *s, ZrCmd *cmd, int64_t now)
{
    QTAILQ_REMOVE(&s->in_service, cmd, svc_link);
    s->busy--;
    s->stats.completions++;
    trace_zr_service_done(s, cmd->seq, now, s->busy);
}

/* The next command whose service time is over by @now, its slot freed. */
ZrCmd *zr_service_pop_done(ZrService *s, int64_t now)
{
    ZrCmd *cmd = QTAILQ_FIRST(&s->in_service);

    if (!cmd || cmd->done_ns > now) {
        return NULL;
    }
    zr_service_done(s, cmd, now);
    return cmd;
}

/*
 * Hold every start until @not_before (the wake-up hook): a UFS link in
 * hibernate must exit H8 before the device sees the command.  Later calls
 * can only push the time further out.
 */
void zr_service_delay_starts(ZrService *s, int64_t not_before)
{
    if (not_before > s->not_before_ns) {
        s->not_before_ns = not_before;
        trace_zr_service_delay(s, not_before);
    }
}

/* Take @cmd out of service early, freeing its slot; false if not in it. */
bool zr_service_cancel(ZrService *s, ZrCmd *cmd)
{
    ZrCmd *c;

    QTAILQ_FOREACH(c, &s->in_service, svc_link) {
        if (c == cmd) {
            QTAILQ_REMOVE(&s->in_service, cmd, svc_link);
            s->busy--;
            return true;
        }
    }
    return false;
}

/*
 * Migration: put @cmd back in service with its saved completion time and
 * start order (cmd->done_ns, cmd->svc_order), counting nothing again.
 * Guest time is migrated, so the command completes when it would have on
 * the source.  False, with @errp, for a saved state that cannot be.
 */
bool zr_service_restore(ZrService *s, ZrCmd *cmd, Error **errp)
{
    if (cmd->done_ns < 0 || cmd->svc_order >= s->next_order) {
        error_setg(errp, "saved command (tag %u) has a bad service time",
                   cmd->tag);
        return false;
    }
    zr_service_insert(s, cmd);
    trace_zr_service_restore(s, cmd->seq, cmd->done_ns, s->busy);
    return true;
}

/* Controller reset: drop everything in service; no callbacks. */
void zr_service_flush(ZrService *s)
{
    ZrCmd *cmd;

    while ((cmd = QTAILQ_FIRST(&s->in_service))) {
        QTAILQ_REMOVE(&s->in_service, cmd, svc_link);
    }
    s->busy = 0;
    s->not_before_ns = 0;
}

/*
 * One scheduling step at @now: complete every command due (releasing its
 * slot, then ops->complete), then start commands in policy order while a
 * slot is free and @now is not before the wake-up time (ops->start), and
 * again while the starts made commands due by @now (zero latency).
 * Completions come first so freed slots are reused at once; a command
 * with zero latency completes after the start loop that started it, so a
 * device's start and complete callbacks never nest, and commands started
 * together complete together, in start order.
 *
 * Returns the time of the next step, always after @now: the next
 * completion, or the wake-up time if starts are held, or ZR_SERVICE_NEVER
 * when idle.
 */
int64_t zr_service_run(ZrService *s, ZrDispatch *d, int64_t now,
                       const ZrServiceOps *ops, void *opaque)
{
    int64_t next;
    ZrCmd *cmd;

    do {
        while (zr_service_next_completion(s) <= now) {
            cmd = QTAILQ_FIRST(&s->in_service);
            zr_service_done(s, cmd, now);
            zr_dispatch_complete(d, cmd);
            ops->complete(opaque, cmd);
        }
        while (zr_dispatch_nr_pending(d) && zr_service_can_start(s, now)) {
            int64_t done;

            cmd = zr_dispatch_pick(d);
            done = zr_service_start(s, cmd, now);
            ops->start(opaque, cmd, done);
        }
        next = zr_service_next_completion(s);
    } while (next <= now);

    if (zr_dispatch_nr_pending(d) && zr_service_slot_free(s) &&
        now < s->not_before_ns) {
        s->stats.delayed_kicks++;
        next = MIN(next, s->not_before_ns);
    }
    return next;
}
