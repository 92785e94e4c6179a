/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the zone condition state machine and open/active
 * resource accounting (geometry and saved state: zone-geometry.c).
 *
 * This file owns every change of ZrZone.cond after format.  They all go
 * through zr_zone_assign_cond(), which keeps the open/active counts and
 * the set of implicitly open zones in step with the conditions, so the
 * operations below only decide *whether* a transition is allowed.
 *
 * Spec references are by clause title (numbers move between revisions):
 * ZBC-2 "Zone condition state machine" (states ZC1:Empty .. ZC7:Offline)
 * and "Zone resources"; ZNS 1.1 "Zone State Machine" (ZSE .. ZSO) and
 * "Active Resources" / "Open Resources".
 */

#include "qemu/osdep.h"
#include "hw/block/zoned-reorder/zone.h"
#include "zone-internal.h"
#include "trace.h"

/*
 * ------------------------------------------------------------------------
 * Resource accounting
 */

static void zr_zone_imp_add(ZrZoneModel *m, uint32_t idx)
{
    m->imp_pos[idx] = m->nr_imp_open;
    m->imp_open[m->nr_imp_open++] = idx;
}

static void zr_zone_imp_remove(ZrZoneModel *m, uint32_t idx)
{
    uint32_t pos = m->imp_pos[idx];
    uint32_t last = m->imp_open[--m->nr_imp_open];

    m->imp_open[pos] = last;
    m->imp_pos[last] = pos;
}

/* Rebuild the accounting from zones[].cond, e.g. after a restore. */
void zr_zone_recount(ZrZoneModel *m)
{
    uint32_t i;

    m->nr_imp_open = 0;
    m->nr_exp_open = 0;
    m->nr_closed = 0;
    m->lru_clock = 0;
    for (i = 0; i < m->nr_zones; i++) {
        switch (m->zones[i].cond) {
        case ZR_COND_IMP_OPEN:
            zr_zone_imp_add(m, i);
            break;
        case ZR_COND_EXP_OPEN:
            m->nr_exp_open++;
            break;
        case ZR_COND_CLOSED:
            m->nr_closed++;
            break;
        default:
            break;
        }
        m->lru_clock = MAX(m->lru_clock, m->zones[i].lru);
    }
}

/*
 * The single place a zone changes condition.  Leaving a condition gives
 * back what it held (open: an open and an active resource; closed: an
 * active resource), entering one takes it; callers have checked with
 * zr_zone_check_resources() that the limits allow it.
 */
void zr_zone_assign_cond(ZrZoneModel *m, ZrZone *z, ZrZoneCond cond)
{
    uint32_t idx = zr_zone_index(m, z);

    if (z->cond == cond) {
        return;
    }
    if (trace_event_get_state_backends(TRACE_ZR_ZONE_COND)) {
        trace_zr_zone_cond(idx, z->start, zr_zone_cond_name(z->cond),
                           zr_zone_cond_name(cond), z->wp);
    }

    switch (z->cond) {
    case ZR_COND_IMP_OPEN:
        zr_zone_imp_remove(m, idx);
        break;
    case ZR_COND_EXP_OPEN:
        m->nr_exp_open--;
        break;
    case ZR_COND_CLOSED:
        m->nr_closed--;
        break;
    default:
        break;
    }

    z->cond = cond;
    zr_zone_touch(m, idx);

    switch (cond) {
    case ZR_COND_IMP_OPEN:
        zr_zone_imp_add(m, idx);
        break;
    case ZR_COND_EXP_OPEN:
        m->nr_exp_open++;
        break;
    case ZR_COND_CLOSED:
        m->nr_closed++;
        break;
    default:
        break;
    }
}

static void zr_zone_close_one(ZrZoneModel *m, ZrZone *z);

/*
 * Free an open resource for @z if it needs one and none is free, by
 * closing the least recently used implicitly open zone.  Which zone to
 * close is left to the device by ZBC-2 and ZNS; LRU is deterministic and
 * what a write-cache-managing controller would do.  Only call after
 * zr_zone_check_resources() returned ZR_OK.
 */
void zr_zone_make_room(ZrZoneModel *m, const ZrZone *z)
{
    ZrZone *victim = NULL;
    uint32_t i;

    if (z->cond != ZR_COND_EMPTY && z->cond != ZR_COND_CLOSED) {
        return;
    }
    if (!m->cfg.max_open || zr_zone_nr_open(m) < m->cfg.max_open) {
        return;
    }
    assert(m->nr_imp_open);
    for (i = 0; i < m->nr_imp_open; i++) {
        ZrZone *c = &m->zones[m->imp_open[i]];

        if (!victim || c->lru < victim->lru) {
            victim = c;
        }
    }
    trace_zr_zone_implicit_close(zr_zone_index(m, victim), victim->start,
                                 zr_zone_index(m, z), zr_zone_nr_open(m));
    m->stats.implicit_closes++;
    zr_zone_close_one(m, victim);
}

/*
 * ------------------------------------------------------------------------
 * Zone management: one small function per operation
 */

static ZrResult zr_zone_cond_error(const ZrZone *z)
{
    switch (z->cond) {
    case ZR_COND_READ_ONLY:
        return ZR_ERR_READ_ONLY;
    case ZR_COND_OFFLINE:
        return ZR_ERR_OFFLINE;
    default:
        return ZR_ERR_INVALID_TRANSITION;
    }
}

static bool zr_zone_is_zbc(const ZrZoneModel *m)
{
    return m->cfg.flavour == ZR_FLAVOUR_ZBC;
}

/*
 * Open (explicit).  ZBC-2 OPEN ZONE and ZNS Open Zone: EMPTY, IMPLICITLY
 * OPEN and CLOSED become EXPLICITLY OPEN.  FULL is a no-op for ZBC-2 but
 * an invalid transition for ZNS.
 */
static ZrResult zr_zone_open_one(ZrZoneModel *m, ZrZone *z)
{
    ZrResult res;

    switch (z->cond) {
    case ZR_COND_EXP_OPEN:
        return ZR_OK;

    case ZR_COND_EMPTY:
    case ZR_COND_CLOSED:
        res = zr_zone_check_resources(m, z);
        if (res != ZR_OK) {
            return res;
        }
        zr_zone_make_room(m, z);
        /* fall through */
    case ZR_COND_IMP_OPEN:
        zr_zone_assign_cond(m, z, ZR_COND_EXP_OPEN);
        return ZR_OK;

    case ZR_COND_FULL:
        return zr_zone_is_zbc(m) ? ZR_OK : ZR_ERR_INVALID_TRANSITION;

    default:
        return zr_zone_cond_error(z);
    }
}

/*
 * Close.  An open zone becomes CLOSED, giving back its open resource.
 * ZBC-2 sends a zone whose write pointer is still at its start back to
 * EMPTY (nothing to keep active); ZNS keeps it in ZSC.  ZBC-2 treats
 * CLOSE of an EMPTY or FULL zone as a no-op; ZNS rejects it.
 */
static void zr_zone_close_one(ZrZoneModel *m, ZrZone *z)
{
    if (zr_zone_is_zbc(m) && z->wp == z->start) {
        zr_zone_assign_cond(m, z, ZR_COND_EMPTY);
    } else {
        zr_zone_assign_cond(m, z, ZR_COND_CLOSED);
    }
}

static ZrResult zr_zone_close_op(ZrZoneModel *m, ZrZone *z)
{
    switch (z->cond) {
    case ZR_COND_IMP_OPEN:
    case ZR_COND_EXP_OPEN:
        zr_zone_close_one(m, z);
        return ZR_OK;

    case ZR_COND_CLOSED:
        return ZR_OK;

    case ZR_COND_EMPTY:
    case ZR_COND_FULL:
        return zr_zone_is_zbc(m) ? ZR_OK : ZR_ERR_INVALID_TRANSITION;

    default:
        return zr_zone_cond_error(z);
    }
}

/*
 * Finish.  The write pointer moves to the end of the capacity and the
 * zone is FULL, holding no resource.  For ZBC-2 a single-zone FINISH ZONE
 * of an EMPTY or CLOSED zone passes through an open condition and so
 * needs zone resources (as Linux null_blk also implements); ZNS 1.1 goes
 * straight from ZSE/ZSC to ZSF.  @check is false for "finish all", which
 * only touches zones already holding resources.
 */
static ZrResult zr_zone_finish_op(ZrZoneModel *m, ZrZone *z, bool check)
{
    ZrResult res;

    switch (z->cond) {
    case ZR_COND_EMPTY:
    case ZR_COND_CLOSED:
        if (check && zr_zone_is_zbc(m)) {
            res = zr_zone_check_resources(m, z);
            if (res != ZR_OK) {
                return res;
            }
            zr_zone_make_room(m, z);
        }
        /* fall through */
    case ZR_COND_IMP_OPEN:
    case ZR_COND_EXP_OPEN:
        /*
         * Nothing is written: wend stays, and the blocks from there read
         * as the initialization pattern (ZBC-2 "FINISH ZONE command").
         */
        zr_zone_detach(m, zr_zone_index(m, z));
        z->wp = z->start + z->cap;
        zr_zone_assign_cond(m, z, ZR_COND_FULL);
        /* fall through */
    case ZR_COND_FULL:
        return ZR_OK;

    default:
        return zr_zone_cond_error(z);
    }
}

/* Reset write pointer: any written or open zone becomes EMPTY. */
static ZrResult zr_zone_reset_op(ZrZoneModel *m, ZrZone *z)
{
    switch (z->cond) {
    case ZR_COND_IMP_OPEN:
    case ZR_COND_EXP_OPEN:
    case ZR_COND_CLOSED:
    case ZR_COND_FULL:
        zr_zone_detach(m, zr_zone_index(m, z));
        z->wp = z->start;
        z->wend = z->start;
        zr_zone_assign_cond(m, z, ZR_COND_EMPTY);
        /* fall through */
    case ZR_COND_EMPTY:
        return ZR_OK;

    default:
        return zr_zone_cond_error(z);
    }
}

/*
 * OPEN with ALL (ZBC-2) / Select All (ZNS) opens every CLOSED zone, or
 * none when the open resources cannot cover them all.  Implicitly open
 * zones may be closed to make room, so the budget is max_open minus the
 * explicitly open zones.  The CLOSED set is taken first: zones closed to
 * make room are not opened in the same pass.
 */
static ZrResult zr_zone_open_all(ZrZoneModel *m)
{
    g_autofree uint32_t *todo = NULL;
    uint32_t n = 0, i;

    if (m->cfg.max_open && m->nr_closed > m->cfg.max_open - m->nr_exp_open) {
        return ZR_ERR_NO_OPEN_RESOURCE;
    }
    todo = g_new(uint32_t, m->nr_closed + 1);
    for (i = m->cfg.nr_conv; i < m->nr_zones; i++) {
        if (m->zones[i].cond == ZR_COND_CLOSED) {
            todo[n++] = i;
        }
    }
    for (i = 0; i < n; i++) {
        ZrZone *z = &m->zones[todo[i]];

        zr_zone_make_room(m, z);
        zr_zone_assign_cond(m, z, ZR_COND_EXP_OPEN);
    }
    return ZR_OK;
}

/*
 * CLOSE/FINISH/RESET with ALL apply to every sequential zone in a
 * condition the single-zone op would change: open zones for CLOSE; open
 * and CLOSED for FINISH; open, CLOSED and FULL for RESET.  EMPTY, READ
 * ONLY and OFFLINE zones and conventional zones are skipped.
 */
static ZrResult zr_zone_mgmt_all(ZrZoneModel *m, ZrZoneOp op)
{
    uint32_t i;

    if (op == ZR_ZONE_OP_OPEN) {
        return zr_zone_open_all(m);
    }
    for (i = m->cfg.nr_conv; i < m->nr_zones; i++) {
        ZrZone *z = &m->zones[i];

        switch (z->cond) {
        case ZR_COND_IMP_OPEN:
        case ZR_COND_EXP_OPEN:
            break;
        case ZR_COND_CLOSED:
            if (op == ZR_ZONE_OP_CLOSE) {
                continue;
            }
            break;
        case ZR_COND_FULL:
            if (op != ZR_ZONE_OP_RESET) {
                continue;
            }
            break;
        default:
            continue;
        }

        switch (op) {
        case ZR_ZONE_OP_CLOSE:
            zr_zone_close_op(m, z);
            break;
        case ZR_ZONE_OP_FINISH:
            zr_zone_finish_op(m, z, false);
            break;
        case ZR_ZONE_OP_RESET:
            zr_zone_reset_op(m, z);
            break;
        default:
            g_assert_not_reached();
        }
    }
    return ZR_OK;
}

static ZrResult zr_zone_mgmt_one(ZrZoneModel *m, ZrZoneOp op, uint64_t lba)
{
    ZrZone *z;

    if (lba >= m->cfg.nr_blocks) {
        return ZR_ERR_LBA_OUT_OF_RANGE;
    }
    if (lba & (m->cfg.zone_size - 1)) {
        return ZR_ERR_NOT_ZONE_START;
    }
    z = zr_zone_at(m, lba);
    /* ZBC-2: a zone op naming a conventional zone is an invalid field. */
    if (!zr_zone_is_seq(z)) {
        return ZR_ERR_CONVENTIONAL;
    }

    switch (op) {
    case ZR_ZONE_OP_OPEN:
        return zr_zone_open_one(m, z);
    case ZR_ZONE_OP_CLOSE:
        return zr_zone_close_op(m, z);
    case ZR_ZONE_OP_FINISH:
        return zr_zone_finish_op(m, z, true);
    case ZR_ZONE_OP_RESET:
        return zr_zone_reset_op(m, z);
    default:
        g_assert_not_reached();
    }
}

ZrResult zr_zone_mgmt(ZrZoneModel *m, ZrZoneOp op, uint64_t lba, bool all)
{
    ZrResult res;

    assert(op < ZR_ZONE_OP__MAX);
    res = all ? zr_zone_mgmt_all(m, op) : zr_zone_mgmt_one(m, op, lba);
    if (res == ZR_OK) {
        m->stats.ops[op]++;
        trace_zr_zone_mgmt(zr_zone_op_name(op), lba, all,
                           zr_zone_nr_open(m), zr_zone_nr_active(m));
    } else {
        trace_zr_err_zone_mgmt(zr_zone_op_name(op), lba, all,
                               zr_result_name(res));
    }
    return zr_zone_count(m, res);
}

/*
 * Activate: an EMPTY zone becomes CLOSED, taking an active resource and no
 * open one, its write pointer at its start.  This is the transition of
 * ZNS 1.1 Set Zone Descriptor Extension (ZSE to ZSC); ZBC-2 has none.
 * Any other condition is an invalid transition (Read Only and Offline say
 * so).  Not a zone management op of ZrZoneOp: its count would change the
 * saved statistics.
 */
ZrResult zr_zone_activate(ZrZoneModel *m, uint64_t lba)
{
    ZrResult res = ZR_OK;
    ZrZone *z;

    if (lba >= m->cfg.nr_blocks) {
        res = ZR_ERR_LBA_OUT_OF_RANGE;
    } else if (lba & (m->cfg.zone_size - 1)) {
        res = ZR_ERR_NOT_ZONE_START;
    } else if (!zr_zone_is_seq(z = zr_zone_at(m, lba))) {
        res = ZR_ERR_CONVENTIONAL;
    } else if (z->cond != ZR_COND_EMPTY) {
        res = zr_zone_cond_error(z);
    } else if (m->cfg.max_active &&
               zr_zone_nr_active(m) >= m->cfg.max_active) {
        res = ZR_ERR_NO_ACTIVE_RESOURCE;
    } else {
        zr_zone_assign_cond(m, z, ZR_COND_CLOSED);
    }
    if (res == ZR_OK) {
        trace_zr_zone_mgmt("activate", lba, false, zr_zone_nr_open(m),
                           zr_zone_nr_active(m));
    } else {
        trace_zr_err_zone_mgmt("activate", lba, false, zr_result_name(res));
    }
    return zr_zone_count(m, res);
}

/*
 * Power on with persistent zone state: open conditions do not survive a
 * power cycle; open zones come back CLOSED (ZBC-2: EMPTY when nothing was
 * written), exactly as a close of every zone.  Write pointers stay: a
 * write still in flight (a system reset cancels it) ends as usual.
 */
void zr_zone_model_power_on(ZrZoneModel *m)
{
    zr_zone_mgmt_all(m, ZR_ZONE_OP_CLOSE);
}
