/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: ZBC OUT, the zone management commands (ZBC-2 "CLOSE ZONE",
 * "FINISH ZONE", "OPEN ZONE", "RESET WRITE POINTER"): one zone named by
 * ZONE ID, or with ALL set every zone the operation applies to.  The zone
 * state machine is the core's (zr_zone_mgmt()); this file adds what is
 * ZBC's own: a ZONE ID naming a gap zone, and the initialization pattern
 * a finished zone must read back for the blocks it never wrote.
 *
 * ZONE COUNT (bytes 12-13): only one zone per command.  A count of 0 or 1
 * (the same thing in ZBC-2) is accepted, a larger one refused with
 * INVALID FIELD IN CDB unless ALL is set (ALL ignores ZONE ID and ZONE
 * COUNT); REPORT SUPPORTED OPERATION CODES shows the field unused, which
 * is how hosts (libzbc) see that counts are not supported.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "scsi/constants.h"
#include "system/block-backend.h"
#include "zbc-internal.h"
#include "trace.h"

static ZrZoneOp zbc_out_op(uint8_t sa)
{
    switch (sa) {
    case ZBC_SA_CLOSE_ZONE:
        return ZR_ZONE_OP_CLOSE;
    case ZBC_SA_FINISH_ZONE:
        return ZR_ZONE_OP_FINISH;
    case ZBC_SA_OPEN_ZONE:
        return ZR_ZONE_OP_OPEN;
    case ZBC_SA_RESET_WP:
        return ZR_ZONE_OP_RESET;
    default:
        /* The command table only routes these four service actions here. */
        g_assert_not_reached();
    }
}

int32_t zbc_out_send(ZbcReq *r)
{
    const uint8_t *cdb = r->req.cmd.buf;
    uint16_t count = lduw_be_p(&cdb[12]);

    if (count > 1 && !(cdb[14] & 0x01)) {
        qemu_log_mask(LOG_GUEST_ERROR, "scsi-zbc: %s: ZONE COUNT %u is not "
                      "supported\n", r->cmd->name, count);
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD), "zone count");
        return 0;
    }
    r->lba = ldq_be_p(&cdb[2]);                 /* ZONE ID */
    r->nb = 0;
    zbc_submit(r);
    return 0;
}

/*
 * ------------------------------------------------------------------------
 * FINISH: zero what was never written
 */

static void zbc_out_zero_next(ZbcReq *r);

static void zbc_out_zeroed(void *opaque, int ret)
{
    ZbcReq *r = opaque;

    if (zbc_req_aio_done(r, ret)) {
        zbc_out_zero_next(r);
    }
    scsi_req_unref(&r->req);
}

static void zbc_out_zero_next(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    const ZbcRange *range;

    if (r->next_zero == r->nr_zero) {
        zbc_req_complete(r);
        return;
    }
    range = &r->zero[r->next_zero++];
    trace_zbc_finish_zero(r->req.tag, range->lba, range->nb);
    scsi_req_ref(&r->req);
    r->req.aiocb = blk_aio_pwrite_zeroes(s->qdev.conf.blk,
                                         range->lba * s->block_size,
                                         range->nb * s->block_size,
                                         BDRV_REQ_MAY_UNMAP,
                                         zbc_out_zeroed, r);
}

/*
 * FINISH moves write pointers to the end of the zone capacity; the blocks
 * in between must read back as the initialization pattern from then on,
 * whatever the drive held there.  Before the operation, note the zones it
 * can move and where their write pointers are: with ALL only the open and
 * CLOSED zones (ZBC-2 "FINISH ZONE command"), so the list costs as much
 * as the zones holding resources, not a slot for every zone of the disk.
 */
typedef struct ZbcOldWp {
    uint32_t idx;
    uint64_t wp;
} ZbcOldWp;

static bool zbc_out_finish_can_move(const ZrZone *z, bool all)
{
    switch (z->cond) {
    case ZR_COND_IMP_OPEN:
    case ZR_COND_EXP_OPEN:
    case ZR_COND_CLOSED:
        return true;
    case ZR_COND_EMPTY:
        return !all;
    default:
        return false;
    }
}

static ZbcOldWp *zbc_out_note_wps(ZbcState *s, uint64_t lba, bool all,
                                  uint32_t *nr)
{
    ZrZoneModel *m = &s->zones;
    uint32_t cap = all ? zr_zone_nr_active(m) : 1;
    ZbcOldWp *old = g_new(ZbcOldWp, MAX(cap, 1));
    const ZrZone *z = all ? NULL : zr_zone_at(m, lba);
    uint32_t i;

    *nr = 0;
    if (!all) {
        if (z && zr_zone_is_seq(z) && zbc_out_finish_can_move(z, false)) {
            old[(*nr)++] = (ZbcOldWp) { zr_zone_index(m, z), z->wp };
        }
        return old;
    }
    for (i = 0; i < m->nr_zones && *nr < cap; i++) {
        z = &m->zones[i];
        if (zr_zone_is_seq(z) && zbc_out_finish_can_move(z, true)) {
            old[(*nr)++] = (ZbcOldWp) { i, z->wp };
        }
    }
    return old;
}

/* After FINISH: the blocks each noted zone skipped, to be zeroed. */
static void zbc_out_list_unwritten(ZbcReq *r, const ZbcOldWp *old,
                                   uint32_t n)
{
    ZbcState *s = zbc_state(r);
    uint32_t i;

    r->zero = g_new(ZbcRange, MAX(n, 1));
    for (i = 0; i < n; i++) {
        const ZrZone *z = &s->zones.zones[old[i].idx];

        if (z->wp > old[i].wp) {
            r->zero[r->nr_zero++] = (ZbcRange) {
                .lba = old[i].wp, .nb = z->wp - old[i].wp,
            };
        }
    }
}

void zbc_out_start(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    ZrZoneOp op = zbc_out_op(cdb[1] & 0x1f);
    bool all = cdb[14] & 0x01;
    g_autofree ZbcOldWp *old = NULL;
    uint32_t n = 0;
    ZrResult res;

    trace_zbc_zone_mgmt(r->req.tag, zr_zone_op_name(op), r->lba, all);
    /* ZBC-2: a ZONE ID that is a gap zone's start names a gap zone. */
    if (!all && zbc_zone_is_gap_start(s, r->lba)) {
        zbc_fail_zone(r, ZR_ERR_GAP, ZBC_ACCESS_ZONE_MGMT);
        return;
    }
    if (op == ZR_ZONE_OP_FINISH && !s->null_backed) {
        old = zbc_out_note_wps(s, r->lba, all, &n);
    }

    res = zr_zone_mgmt(&s->zones, op, r->lba, all);
    if (res != ZR_OK) {
        zbc_fail_zone(r, res, ZBC_ACCESS_ZONE_MGMT);
        return;
    }
    if (n) {
        zbc_out_list_unwritten(r, old, n);
    }
    zbc_out_zero_next(r);
}
