/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the reorder policies and their names.
 *
 * Each policy is one small function that looks at the pending list (kept
 * in arrival order) and returns the command to start.  Ties are always
 * broken by arrival order, so every policy is a pure function of the
 * arrivals, the policy state and, for `random`, the seed.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "dispatch-internal.h"

static const char *const zr_policy_strs[ZR_POLICY__MAX] = {
    [ZR_POLICY_NONE] = "none",
    [ZR_POLICY_SPEC] = "spec",
    [ZR_POLICY_RR] = "rr",
    [ZR_POLICY_RANDOM] = "random",
    [ZR_POLICY_REVERSE] = "reverse",
};

/* For qdev enum properties: .enum_table = &ZrPolicy_lookup. */
const QEnumLookup ZrPolicy_lookup = {
    .array = zr_policy_strs,
    .size = ZR_POLICY__MAX,
};

const char *zr_policy_name(ZrPolicy policy)
{
    return policy < ZR_POLICY__MAX ? zr_policy_strs[policy] : "invalid";
}

/* "none, spec, rr, random, reverse"; caller frees. */
char *zr_policy_names(void)
{
    GString *s = g_string_new(NULL);
    int i;

    for (i = 0; i < ZR_POLICY__MAX; i++) {
        g_string_append_printf(s, "%s%s", i ? ", " : "", zr_policy_strs[i]);
    }
    return g_string_free(s, false);
}

bool zr_policy_parse(const char *name, ZrPolicy *policy, Error **errp)
{
    g_autofree char *valid = NULL;
    int i;

    for (i = 0; i < ZR_POLICY__MAX; i++) {
        if (name && !strcmp(name, zr_policy_strs[i])) {
            *policy = i;
            return true;
        }
    }
    valid = zr_policy_names();
    error_setg(errp, "invalid reorder policy '%s'; valid policies are: %s",
               name ? name : "", valid);
    return false;
}

/*
 * ------------------------------------------------------------------------
 * Policies
 */

/* none: strict arrival order. */
static ZrCmd *zr_policy_pick_none(ZrDispatch *d)
{
    return QTAILQ_FIRST(&d->pending);
}

/* reverse: the newest arrival first, the worst order a host can see. */
static ZrCmd *zr_policy_pick_reverse(ZrDispatch *d)
{
    return QTAILQ_LAST(&d->pending);
}

/* random: uniform among the pending commands, from the seeded PRNG. */
static ZrCmd *zr_policy_pick_random(ZrDispatch *d)
{
    uint64_t n = zr_prng_below(&d->prng, d->nr_pending);
    ZrCmd *cmd;

    QTAILQ_FOREACH(cmd, &d->pending, link) {
        if (n-- == 0) {
            return cmd;
        }
    }
    g_assert_not_reached();
}

/*
 * spec, single doorbell: the lowest pending slot.  UFSHCI 4.0 (UTP
 * Transfer Request List Door Bell Register, UTRLDBR) does not define the
 * order in which set doorbell bits are processed; controllers (and QEMU's
 * own ufs model) scan the register from bit 0, so a low slot rung after a
 * high one overtakes it.
 */
static ZrCmd *zr_policy_pick_lowest_slot(ZrDispatch *d)
{
    ZrCmd *cmd, *best = NULL;

    QTAILQ_FOREACH(cmd, &d->pending, link) {
        if (!best || cmd->tag < best->tag) {
            best = cmd;
        }
    }
    return best;
}

/*
 * rr, single doorbell: a rotating slot pointer.  The scan starts at the
 * slot after the last started one and wraps, as a controller that resumes
 * its doorbell scan where it stopped would.
 */
static ZrCmd *zr_policy_pick_slot_rr(ZrDispatch *d)
{
    uint32_t from = d->any_started ? d->last_slot + 1 : 0;
    ZrCmd *cmd, *best = NULL;

    QTAILQ_FOREACH(cmd, &d->pending, link) {
        if (!best || (uint32_t)(cmd->tag - from) <
                     (uint32_t)(best->tag - from)) {
            best = cmd;
        }
    }
    return best;
}

static ZrCmd *zr_policy_oldest_in_queue(ZrDispatch *d, uint32_t queue)
{
    ZrCmd *cmd;

    QTAILQ_FOREACH(cmd, &d->pending, link) {
        if (cmd->queue == queue) {
            return cmd;
        }
    }
    g_assert_not_reached();
}

/*
 * Queue round-robin with a burst: up to @burst commands from the current
 * queue, in order, then the next queue (ascending id, wrapping) that has
 * work.  This is NVMe Base 2.0 "Round Robin Arbitration" with Arbitration
 * Burst, and the MCQ equivalent of UFSHCI 4.0; within a submission queue
 * commands are fetched, and so started, in order.
 */
static ZrCmd *zr_policy_pick_queue_rr(ZrDispatch *d, uint32_t burst)
{
    uint32_t i, q;

    if (d->rr_taken < burst && d->queue_pending[d->rr_queue]) {
        d->rr_taken++;
        return zr_policy_oldest_in_queue(d, d->rr_queue);
    }
    for (i = 1; i <= d->cfg.nr_queues; i++) {
        q = (d->rr_queue + i) % d->cfg.nr_queues;
        if (d->queue_pending[q]) {
            d->rr_queue = q;
            d->rr_taken = 1;
            return zr_policy_oldest_in_queue(d, q);
        }
    }
    g_assert_not_reached();
}

ZrCmd *zr_policy_pick(ZrDispatch *d, ZrPolicy policy)
{
    bool slots = d->cfg.spec == ZR_SPEC_LOWEST_SLOT ||
                 d->cfg.spec == ZR_SPEC_RING_ORDER;

    assert(d->nr_pending);
    switch (policy) {
    case ZR_POLICY_NONE:
        return zr_policy_pick_none(d);
    case ZR_POLICY_SPEC:
        if (d->cfg.spec == ZR_SPEC_RING_ORDER) {
            return zr_policy_pick_none(d);
        }
        return slots ? zr_policy_pick_lowest_slot(d)
                     : zr_policy_pick_queue_rr(d, d->cfg.spec_burst);
    case ZR_POLICY_RR:
        return slots ? zr_policy_pick_slot_rr(d)
                     : zr_policy_pick_queue_rr(d, d->cfg.rr_burst);
    case ZR_POLICY_RANDOM:
        return zr_policy_pick_random(d);
    case ZR_POLICY_REVERSE:
        return zr_policy_pick_reverse(d);
    default:
        g_assert_not_reached();
    }
}
