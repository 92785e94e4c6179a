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

/* Does @queue take part in an arbitration over @cls (-1: every queue)? */
static bool zr_policy_queue_in(ZrDispatch *d, uint32_t queue, int cls)
{
    return d->queue_pending[queue] &&
           (cls < 0 || d->queue_class[queue] == cls);
}

/*
 * Queue round-robin with a burst: up to @burst commands from the current
 * queue (*@cur), in order, then the next queue (ascending id, wrapping)
 * that has work, among those of class @cls (-1: all).  This is NVMe Base
 * 2.0 3.4.4.1 "Round Robin Arbitration" with Arbitration Burst, and the
 * MCQ equivalent of UFSHCI 4.0; within a submission queue commands are
 * fetched, and so started, in order.  NULL when no such queue has work.
 */
static ZrCmd *zr_policy_rr_over(ZrDispatch *d, uint32_t burst, int cls,
                                uint32_t *cur, uint32_t *taken)
{
    uint32_t i, q;

    if (*taken < burst && zr_policy_queue_in(d, *cur, cls)) {
        (*taken)++;
        return zr_policy_oldest_in_queue(d, *cur);
    }
    for (i = 1; i <= d->cfg.nr_queues; i++) {
        q = (*cur + i) % d->cfg.nr_queues;
        if (zr_policy_queue_in(d, q, cls)) {
            *cur = q;
            *taken = 1;
            return zr_policy_oldest_in_queue(d, q);
        }
    }
    return NULL;
}

static ZrCmd *zr_policy_pick_queue_rr(ZrDispatch *d, uint32_t burst)
{
    ZrCmd *cmd = zr_policy_rr_over(d, burst, -1, &d->rr_queue, &d->rr_taken);

    assert(cmd);
    return cmd;
}

static bool zr_policy_class_pending(ZrDispatch *d, int cls)
{
    uint32_t q;

    for (q = 0; q < d->cfg.nr_queues; q++) {
        if (zr_policy_queue_in(d, q, cls)) {
            return true;
        }
    }
    return false;
}

/*
 * NVMe Base 2.0 3.4.4.3 "Weighted Round Robin with Urgent Priority Class
 * Arbitration": the urgent class goes first whenever it has work
 * (round robin among its queues); then the high, medium and low classes
 * share what is left by weight, each starting up to its weight of
 * commands per round, round robin with the Arbitration Burst among its
 * own queues.  A round ends when no class with credit left has work;
 * then every class gets its weight again.  (The admin queue's strict
 * priority is the device's: admin commands do not come through here.)
 */
static ZrCmd *zr_policy_pick_wrr(ZrDispatch *d, uint32_t burst)
{
    ZrCmd *cmd;
    int round, c;

    cmd = zr_policy_rr_over(d, burst, ZR_QCLASS_URGENT,
                            &d->class_queue[ZR_QCLASS_URGENT],
                            &d->class_taken[ZR_QCLASS_URGENT]);
    if (cmd) {
        return cmd;
    }
    for (round = 0; round < 2; round++) {
        for (c = 0; c < ZR_WRR_CLASSES; c++) {
            int cls = ZR_QCLASS_HIGH + c;

            if (!d->wrr_credit[c] || !zr_policy_class_pending(d, cls)) {
                continue;
            }
            cmd = zr_policy_rr_over(d, burst, cls, &d->class_queue[cls],
                                    &d->class_taken[cls]);
            d->wrr_credit[c]--;
            return cmd;
        }
        memcpy(d->wrr_credit, d->wrr_weight, sizeof(d->wrr_credit));
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
        if (slots) {
            return zr_policy_pick_lowest_slot(d);
        }
        return d->wrr ? zr_policy_pick_wrr(d, d->cfg.spec_burst)
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
