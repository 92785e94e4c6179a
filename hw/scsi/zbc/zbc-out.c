/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: ZBC OUT, the zone management commands (ZBC-2 "CLOSE ZONE",
 * "FINISH ZONE", "OPEN ZONE", "RESET WRITE POINTER"): one zone named by
 * ZONE ID, or with ALL set every zone the operation applies to.  The zone
 * state machine is the core's (zr_zone_mgmt()); this file adds what is
 * ZBC's own: a ZONE ID naming a gap zone.  FINISH writes nothing: the core
 * keeps where the written data ends (ZrZone.wend), and the blocks from
 * there read as the initialization pattern (zr_zone_read_end()),
 * so a FINISH of any size is as quick as any other zone operation and
 * cannot stop half-way.
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
 * Are the zones the operation of @r applies to free of writes in flight
 * (started, not yet reported) and of orphaned writes (overtaken, their
 * data still landing; writes started behind those wait for them, and the
 * operation comes after)?  With ALL, every zone.
 */
static bool zbc_out_zones_idle(ZbcState *s, ZbcReq *r)
{
    const ZrZone *z;

    if (r->req.cmd.buf[14] & 0x01) {
        return s->zones.nr_io == 0 &&
               !zr_zone_orphaned(&s->zones, UINT64_MAX);
    }
    z = zr_zone_at(&s->zones, r->lba);
    return !z || (zr_zone_idle(&s->zones, zr_zone_index(&s->zones, z)) &&
                  !zr_zone_orphaned(&s->zones, r->lba));
}

static void zbc_out_run(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    ZrZoneOp op = zbc_out_op(cdb[1] & 0x1f);
    bool all = cdb[14] & 0x01;
    ZrResult res;

    res = zr_zone_mgmt(&s->zones, op, r->lba, all);
    if (res != ZR_OK) {
        zbc_fail_zone(r, res, ZBC_ACCESS_ZONE_MGMT);
        return;
    }
    /*
     * With a zone-state drive the new zone state is durable before the
     * command completes: a reset forgotten in a crash would bring old data
     * back under the write pointer of a zone the host already rewrote.
     */
    zbc_req_complete_durable(r);
}

/*
 * The operation's turn has come.  It takes effect after the writes the
 * device has already started in its zones, as on a drive that runs a
 * zone's commands in order: while any is in flight (its data moving, or
 * done and waiting for an earlier one) the operation waits, so a RESET or
 * FINISH never races with the data of a write that started before it and
 * the zone state saved afterwards covers only written data.
 */
void zbc_out_start(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    ZrZoneOp op = zbc_out_op(cdb[1] & 0x1f);
    bool all = cdb[14] & 0x01;

    trace_zbc_zone_mgmt(r->req.tag, zr_zone_op_name(op), r->lba, all);
    /* ZBC-2: a ZONE ID that is a gap zone's start names a gap zone. */
    if (!all && zbc_zone_is_gap_start(s, r->lba)) {
        zbc_fail_zone(r, ZR_ERR_GAP, ZBC_ACCESS_ZONE_MGMT);
        return;
    }
    if (!zbc_out_zones_idle(s, r)) {
        trace_zbc_zone_mgmt_wait(r->req.tag, s->zones.nr_io);
        s->zone_op_waits++;
        scsi_req_ref(&r->req);
        QTAILQ_INSERT_TAIL(&s->zone_op_wait, r, park);
        return;
    }
    zbc_out_run(r);
}

/* A write ended: run the zone operations whose zones are now idle. */
void zbc_out_kick(ZbcState *s)
{
    ZbcReq *r, *next;

    if (s->zone_op_kicking || QTAILQ_EMPTY(&s->zone_op_wait)) {
        return;
    }
    s->zone_op_kicking = true;
    QTAILQ_FOREACH_SAFE(r, &s->zone_op_wait, park, next) {
        if (!r->req.io_canceled && !zbc_out_zones_idle(s, r)) {
            continue;
        }
        QTAILQ_REMOVE(&s->zone_op_wait, r, park);
        /* A request cancelled while it waited was completed by the bus. */
        if (!r->req.io_canceled) {
            zbc_out_run(r);
        }
        scsi_req_unref(&r->req);
    }
    s->zone_op_kicking = false;
}

/* Unplug: waiting operations end without running. */
void zbc_out_drop_waiting(ZbcState *s)
{
    ZbcReq *r;

    while ((r = QTAILQ_FIRST(&s->zone_op_wait))) {
        QTAILQ_REMOVE(&s->zone_op_wait, r, park);
        scsi_req_unref(&r->req);
    }
}
