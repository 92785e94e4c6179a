/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: ZBC OUT, the zone management commands (ZBC-2 "CLOSE ZONE",
 * "FINISH ZONE", "OPEN ZONE", "RESET WRITE POINTER"): one zone named by
 * ZONE ID, or with ALL set every zone the operation applies to.  The zone
 * state machine is the core's (zr_zone_mgmt()); this file adds what is
 * ZBC's own: a ZONE ID naming a gap zone, and the initialization pattern
 * a finished zone must read back for the blocks it never wrote.
 *
 * ZONE COUNT (bytes 12-13) is reserved here: a non-zero count is refused
 * from the command table's usage map, and REPORT SUPPORTED OPERATION
 * CODES shows the field unused, which is how hosts (libzbc) detect it.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
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
    r->lba = ldq_be_p(&r->req.cmd.buf[2]);      /* ZONE ID */
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
 * After FINISH moved write pointers from @old_wp[i] to the end of the
 * zone capacity, list the blocks in between: they must read back as the
 * initialization pattern from now on, whatever the drive held there.
 */
static void zbc_out_list_unwritten(ZbcReq *r, const uint64_t *old_wp,
                                   uint32_t first, uint32_t n)
{
    ZbcState *s = zbc_state(r);
    uint32_t i;

    r->zero = g_new(ZbcRange, n);
    for (i = 0; i < n; i++) {
        const ZrZone *z = &s->zones.zones[first + i];

        if (zr_zone_is_seq(z) && z->wp > old_wp[i]) {
            r->zero[r->nr_zero++] = (ZbcRange) {
                .lba = old_wp[i], .nb = z->wp - old_wp[i],
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
    g_autofree uint64_t *old_wp = NULL;
    uint32_t first = 0, n = 0, i;
    ZrResult res;

    trace_zbc_zone_mgmt(r->req.tag, zr_zone_op_name(op), r->lba, all);
    /* ZBC-2: a ZONE ID that is a gap zone's start names a gap zone. */
    if (!all && zbc_zone_is_gap_start(s, r->lba)) {
        zbc_fail_zone(r, ZR_ERR_GAP, ZBC_ACCESS_ZONE_MGMT);
        return;
    }
    if (op == ZR_ZONE_OP_FINISH && !s->null_backed) {
        if (all) {
            n = s->zones.nr_zones;
        } else if (zr_zone_at(&s->zones, r->lba)) {
            first = zr_zone_index(&s->zones, zr_zone_at(&s->zones, r->lba));
            n = 1;
        }
        old_wp = g_new(uint64_t, MAX(n, 1));
        for (i = 0; i < n; i++) {
            old_wp[i] = s->zones.zones[first + i].wp;
        }
    }

    res = zr_zone_mgmt(&s->zones, op, r->lba, all);
    if (res != ZR_OK) {
        zbc_fail_zone(r, res, ZBC_ACCESS_ZONE_MGMT);
        return;
    }
    if (n) {
        zbc_out_list_unwritten(r, old_wp, first, n);
    }
    zbc_out_zero_next(r);
}
