/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: READ(10/16), WRITE(10/16) and SYNCHRONIZE CACHE(10/16)
 * (SBC-4), and the start of every medium command through the dispatch
 * engine of the zoned-reorder core.
 *
 * A medium command is parsed when it arrives (send), its data-out is
 * fetched, and only then is it submitted to the engine.  The engine
 * decides when it starts: at once in arrival order with reorder=none, or
 * from a bottom half that sees the whole batch an HBA queued (every
 * command of one virtqueue kick) with the other policies.  The write
 * pointer is checked when the command starts (zr_zone_write_begin()), so
 * the policy's order is the order the guest observes, and the data moves
 * afterwards.  A write is reported only once its data and that of every
 * earlier write of its zone is on the drive (zr_zone_write_end()): a
 * failed backend write takes the write pointer back to where it started
 * and answers WRITE ERROR (or what the host error maps to), and the later
 * writes of its zone then answer UNALIGNED WRITE COMMAND, as they would on
 * a drive that never advanced its write pointer.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/main-loop.h"
#include "scsi/constants.h"
#include "system/block-backend.h"
#include "zbc-internal.h"
#include "trace.h"

/* LBA and TRANSFER LENGTH (or NUMBER OF LOGICAL BLOCKS) of the CDB. */
static void zbc_rw_parse(ZbcReq *r)
{
    uint8_t *cdb = r->req.cmd.buf;

    if (r->cmd->cdb_len == 10) {
        r->lba = ldl_be_p(&cdb[2]);
        r->nb = lduw_be_p(&cdb[7]);
    } else {
        r->lba = ldq_be_p(&cdb[2]);
        r->nb = ldl_be_p(&cdb[10]);
    }
    r->fua = cdb[1] & 0x08;
}

/*
 * The checks SBC-4 makes before any data moves: TRANSFER LENGTH within
 * the Block Limits page's MAXIMUM TRANSFER LENGTH, blocks within the
 * capacity.  The zone checks come when the command starts.
 */
static bool zbc_rw_check(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    if (r->nb > s->max_xfer_blocks) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "transfer length above the maximum");
        return false;
    }
    if (r->lba >= s->nr_blocks || r->nb > s->nr_blocks - r->lba) {
        zbc_fail_zone(r, ZR_ERR_LBA_OUT_OF_RANGE, ZBC_ACCESS_READ);
        return false;
    }
    return true;
}

/*
 * ------------------------------------------------------------------------
 * READ and WRITE
 */

static int32_t zbc_rw_send(ZbcReq *r, bool write)
{
    zbc_rw_parse(r);
    trace_zbc_rw(r->req.tag, r->cmd->name, r->lba, r->nb, r->fua);
    if (!zbc_rw_check(r)) {
        return 0;
    }
    /* SBC-4: a TRANSFER LENGTH of zero transfers nothing and is no error. */
    if (!r->nb) {
        zbc_req_complete(r);
        return 0;
    }
    r->len = r->nb * zbc_state(r)->block_size;
    zbc_req_data_buf(r, r->len, write);
    if (write) {
        r->phase = ZBC_PHASE_WANT_DATA_OUT;
        return -(int32_t)r->len;
    }
    r->phase = ZBC_PHASE_READ_READY;
    return r->len;
}

int32_t zbc_read_send(ZbcReq *r)
{
    return zbc_rw_send(r, false);
}

int32_t zbc_write_send(ZbcReq *r)
{
    return zbc_rw_send(r, true);
}

/* The data is in: the write can take its turn. */
void zbc_write_data_out(ZbcReq *r)
{
    zbc_submit(r);
}

/*
 * Blocks of sequential zones above the data on the medium (ZrZone.wend:
 * the write pointer, except after FINISH ZONE, which moves the write
 * pointer without writing; less the writes still moving), gap zones
 * included, read as the initialization pattern, zeros, whatever the drive
 * holds there from before: a reset erases nothing, a failed write may
 * have left data behind, and a write the read raced may not have landed.
 */
static void zbc_read_finish(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    zr_zone_read_end(&s->zones, &r->zrd, r->buf, s->block_size);
    r->phase = ZBC_PHASE_DATA_IN;
    zbc_req_report(r, ZBC_REPORT_DATA_IN, 0);
}

static void zbc_read_done(void *opaque, int ret);
static void zbc_write_done(void *opaque, int ret);
static void zbc_sync_done(void *opaque, int ret);

/*
 * Issue the backend I/O of a started READ, WRITE or SYNCHRONIZE CACHE: when
 * it starts, and again when the VM resumes after a stop on error.
 */
static void zbc_io_submit(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    BlockBackend *blk = s->qdev.conf.blk;
    int64_t offset = r->lba * s->block_size;

    scsi_req_ref(&r->req);
    switch (r->cmd->op) {
    case ZR_OP_WRITE:
        zbc_req_acct_start(r, r->len, BLOCK_ACCT_WRITE);
        qemu_iovec_init_buf(&r->qiov, r->buf, r->len);
        r->req.aiocb = blk_aio_pwritev(blk, offset, &r->qiov,
                                       r->fua ? BDRV_REQ_FUA : 0,
                                       zbc_write_done, r);
        break;
    case ZR_OP_READ:
        zbc_req_acct_start(r, r->len, BLOCK_ACCT_READ);
        zr_zone_read_begin(&s->zones, &r->zrd, r->lba, r->nb);
        qemu_iovec_init_buf(&r->qiov, r->buf, r->len);
        r->req.aiocb = blk_aio_preadv(blk, offset, &r->qiov, 0,
                                      zbc_read_done, r);
        break;
    default:
        zbc_req_acct_start(r, 0, BLOCK_ACCT_FLUSH);
        r->req.aiocb = blk_aio_flush(blk, zbc_sync_done, r);
        break;
    }
}

/*
 * ------------------------------------------------------------------------
 * Backend errors: werror and rerror
 */

/*
 * The drive's error policy (werror/rerror, on -drive or the device, as for
 * scsi-disk; the default stops the VM on ENOSPC for writes and reports
 * everything else): report the error to the guest, ignore it (the command
 * completes as if it had succeeded), or stop the VM.  A stopped command
 * waits, parked: a write keeps its zone's write pointer reserved (its
 * ZrZoneIo stays in flight, so the writes behind it in the zone wait too),
 * and the command runs again when the VM resumes (zbc_resume_bh()), so a
 * full host disk never turns into a zone whose write pointer covers
 * garbage.  Returns true when @r was parked; *@ret is 0 for "ignore".
 */
static bool zbc_io_error(ZbcReq *r, int *ret, bool is_read)
{
    ZbcState *s = zbc_state(r);
    BlockBackend *blk = s->qdev.conf.blk;
    BlockErrorAction action;

    if (*ret >= 0 || r->req.io_canceled) {
        return false;
    }
    action = blk_get_error_action(blk, is_read, -*ret);
    blk_error_action(blk, action, is_read, -*ret);
    if (action == BLOCK_ERROR_ACTION_IGNORE) {
        /* what the read left in its buffer is not this command's data */
        if (is_read && r->buf) {
            memset(r->buf, 0, r->len);
        }
        *ret = 0;
        return false;
    }
    if (action != BLOCK_ERROR_ACTION_STOP) {
        return false;
    }
    r->req.aiocb = NULL;
    if (r->acct_started) {
        block_acct_failed(blk_get_stats(blk), &r->acct);
        r->acct_started = false;
    }
    trace_zbc_io_parked(r->req.tag, r->cmd->name, *ret);
    r->io_ret = *ret;
    /* The reference taken for the I/O stays with the parked request. */
    QTAILQ_INSERT_TAIL(&s->parked, r, park);
    return true;
}

/*
 * ------------------------------------------------------------------------
 * Orphaned writes
 *
 * A write overtaken by a failed earlier write of its zone (or detached
 * from it) answers UNALIGNED WRITE, but its data may still be on its way
 * to the drive.  A write into that zone waits until it has landed
 * (zr_zone_orphaned()): the guest's retry of those blocks must not race
 * with the old transfer, which could land after it and bring old data
 * back, where a drive finishes its media writes in order.
 */

static void zbc_rw_start(ZbcReq *r, bool write);

/*
 * Writes waiting for orphaned I/O whose zone is clear now start; not
 * while the drive is drained (zbc_drained_end() kicks again), as nothing
 * starts then.
 */
void zbc_orphan_kick(ZbcState *s)
{
    ZbcReq *r, *next;

    if (s->orphan_kicking || QTAILQ_EMPTY(&s->orphan_wait)) {
        return;
    }
    s->orphan_kicking = true;
    QTAILQ_FOREACH_SAFE(r, &s->orphan_wait, park, next) {
        if (!r->req.io_canceled &&
            (s->quiesced || zr_zone_orphaned(&s->zones, r->lba))) {
            continue;
        }
        QTAILQ_REMOVE(&s->orphan_wait, r, park);
        /* A request cancelled while it waited was completed by the bus. */
        if (!r->req.io_canceled) {
            trace_zbc_write_orphan_go(r->req.tag, r->lba);
            zbc_rw_start(r, true);
        }
        scsi_req_unref(&r->req);
    }
    s->orphan_kicking = false;
}

/* Unplug: waiting writes end without running. */
void zbc_orphan_drop_waiting(ZbcState *s)
{
    ZbcReq *r;

    while ((r = QTAILQ_FIRST(&s->orphan_wait))) {
        QTAILQ_REMOVE(&s->orphan_wait, r, park);
        scsi_req_unref(&r->req);
    }
}

/* A write ended: what waited for its zone may go. */
static void zbc_writes_kick(ZbcState *s)
{
    zbc_orphan_kick(s);
    zbc_out_kick(s);
}

/* A parked command's I/O will not run again: its write never happened. */
static void zbc_io_drop(ZbcState *s, ZbcReq *r)
{
    if (r->cmd->op == ZR_OP_WRITE) {
        zr_zone_write_end(&s->zones, &r->zio, false);
        zbc_writes_kick(s);
    }
    scsi_req_unref(&r->req);
}

/*
 * A parked write that an earlier failed write of its zone overtook while
 * it waited (or whose zone was made READ ONLY or OFFLINE) is not issued
 * again: it ends now, as UNALIGNED WRITE or with its own error.
 */
static bool zbc_io_end_moot(ZbcState *s, ZbcReq *r)
{
    ZrResult res;

    if (r->cmd->op != ZR_OP_WRITE || r->zio.state == ZR_IO_IN_FLIGHT) {
        return false;
    }
    res = zr_zone_write_end(&s->zones, &r->zio, false);
    if (res != ZR_OK) {
        zbc_fail_zone(r, res, ZBC_ACCESS_WRITE);
    } else {
        zbc_fail_errno(r, r->io_ret, ZBC_ACCESS_WRITE);
    }
    zbc_writes_kick(s);
    scsi_req_unref(&r->req);
    return true;
}

/*
 * The VM stops: parked commands the HBA cancelled meanwhile are dropped
 * now, as the resume would, so that no write that will never happen keeps
 * its zone's write pointer up while the state is saved or migrated.
 */
void zbc_io_drop_cancelled(ZbcState *s)
{
    ZbcReq *r, *next;

    QTAILQ_FOREACH_SAFE(r, &s->parked, park, next) {
        if (r->req.io_canceled) {
            QTAILQ_REMOVE(&s->parked, r, park);
            zbc_io_drop(s, r);
        }
    }
}

/*
 * The VM runs again: the parked commands' I/O, in the order they failed,
 * then the commands a migration brought that run again from the start.
 */
void zbc_resume_bh(void *opaque)
{
    ZbcState *s = opaque;
    ZbcReq *r;

    while ((r = QTAILQ_FIRST(&s->parked))) {
        QTAILQ_REMOVE(&s->parked, r, park);
        if (r->req.io_canceled) {
            /* The bus completed the cancel: nothing to report. */
            zbc_io_drop(s, r);
            continue;
        }
        if (zbc_io_end_moot(s, r)) {
            continue;
        }
        trace_zbc_io_resumed(r->req.tag, r->cmd->name);
        zbc_io_submit(r);
        scsi_req_unref(&r->req);
    }
    if (s->mig_restart) {
        zbc_mig_restart_all(s);
    }
}

/* Unplug: parked commands end without their I/O. */
void zbc_io_drop_parked(ZbcState *s)
{
    ZbcReq *r;

    while ((r = QTAILQ_FIRST(&s->parked))) {
        QTAILQ_REMOVE(&s->parked, r, park);
        zbc_io_drop(s, r);
    }
}

static void zbc_read_done(void *opaque, int ret)
{
    ZbcReq *r = opaque;

    if (zbc_io_error(r, &ret, true)) {
        return;
    }
    if (zbc_req_aio_done(r, ret, ZBC_ACCESS_READ)) {
        zbc_read_finish(r);
    }
    scsi_req_unref(&r->req);
}

/*
 * Report a write the zone model says may be reported (@res).  A FUA write,
 * or any write with the write cache off, is durable when it completes, its
 * zone state included.
 */
static void zbc_write_report(ZbcReq *r, ZrResult res)
{
    if (res == ZR_OK && (r->fua || !zbc_state(r)->wce)) {
        zbc_req_complete_durable(r);
    } else if (res == ZR_OK) {
        zbc_req_complete(r);
    } else {
        zbc_fail_zone(r, res, ZBC_ACCESS_WRITE);
    }
}

/*
 * The zone model releases a write it held back (ZR_WAIT below) because
 * the earlier writes of its zone are done: report it, unless the HBA
 * cancelled it meanwhile, and drop the reference the hold kept.
 */
void zbc_write_released(ZrZoneIo *io, ZrResult res, void *opaque)
{
    ZbcReq *r = container_of(io, ZbcReq, zio);

    if (trace_event_get_state_backends(TRACE_ZBC_WRITE_RELEASED)) {
        trace_zbc_write_released(r->req.tag, zr_result_name(res));
    }
    if (!r->req.io_canceled) {
        zbc_write_report(r, res);
    }
    scsi_req_unref(&r->req);
}

/*
 * The backend is done with a write.  The zone model decides what may be
 * reported: now, or once the earlier writes of the zone are (then the
 * request stays referenced until zbc_write_released()).
 */
static void zbc_write_done(void *opaque, int ret)
{
    ZbcReq *r = opaque;
    ZbcState *s = zbc_state(r);
    ZrResult res;

    /*
     * The error policy is for writes that can still happen: not for one
     * an earlier failed write of its zone overtook (it is UNALIGNED).
     */
    if (r->zio.state == ZR_IO_IN_FLIGHT && zbc_io_error(r, &ret, false)) {
        return;
    }
    res = zr_zone_write_end(&s->zones, &r->zio, ret >= 0);
    if (!zbc_req_aio_done(r, ret, ZBC_ACCESS_WRITE)) {
        /* Failed (reported) or cancelled: a held write is dropped. */
        zr_zone_write_forget(&s->zones, &r->zio);
    } else if (res == ZR_WAIT) {
        trace_zbc_write_held(r->req.tag, r->lba, r->nb);
        return;
    } else {
        zbc_write_report(r, res);
    }
    zbc_writes_kick(s);
    scsi_req_unref(&r->req);
}

static void zbc_sync_done(void *opaque, int ret)
{
    ZbcReq *r = opaque;

    if (zbc_io_error(r, &ret, false)) {
        return;
    }
    if (zbc_req_aio_done(r, ret, ZBC_ACCESS_WRITE)) {
        zbc_req_complete(r);
    }
    scsi_req_unref(&r->req);
}

/*
 * The command's turn has come: check (a write also commits, moving the
 * write pointer), then move the data.
 */
static void zbc_rw_start(ZbcReq *r, bool write)
{
    ZbcState *s = zbc_state(r);
    ZrResult res;

    if (write && zbc_zone_write_misaligned(s, r->lba, r->nb)) {
        /* Counted with the writes off the write pointer. */
        s->zones.stats.errors[ZR_ERR_UNALIGNED_WRITE]++;
        res = ZR_ERR_UNALIGNED_WRITE;
    } else if (write && !s->null_backed &&
               zr_zone_orphaned(&s->zones, r->lba)) {
        trace_zbc_write_orphan_wait(r->req.tag, r->lba);
        s->orphan_waits++;
        scsi_req_ref(&r->req);
        QTAILQ_INSERT_TAIL(&s->orphan_wait, r, park);
        return;
    } else if (write && s->null_backed) {
        res = zr_zone_write(&s->zones, r->lba, r->nb);
    } else if (write) {
        res = zr_zone_write_begin(&s->zones, r->lba, r->nb, &r->zio);
    } else {
        res = zbc_zone_read_check(s, r->lba, r->nb);
    }
    if (res != ZR_OK) {
        zbc_fail_zone(r, res, write ? ZBC_ACCESS_WRITE : ZBC_ACCESS_READ);
        return;
    }
    if (s->null_backed) {
        /* Writes go nowhere; reads return the zeroed buffer. */
        if (write) {
            zbc_req_complete(r);
        } else {
            zbc_read_finish(r);
        }
        return;
    }
    zbc_io_submit(r);
}

void zbc_read_start(ZbcReq *r)
{
    zbc_rw_start(r, false);
}

void zbc_write_start(ZbcReq *r)
{
    zbc_rw_start(r, true);
}

/*
 * ------------------------------------------------------------------------
 * SYNCHRONIZE CACHE: the whole cache is flushed whatever the range; the
 * range is still checked (SBC-4).  IMMED is accepted and ignored: the
 * command completes when the flush has.
 */

int32_t zbc_sync_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    zbc_rw_parse(r);
    trace_zbc_sync(r->req.tag, r->lba, r->nb);
    if (r->lba >= s->nr_blocks || r->nb > s->nr_blocks - r->lba) {
        zbc_fail_zone(r, ZR_ERR_LBA_OUT_OF_RANGE, ZBC_ACCESS_READ);
        return 0;
    }
    zbc_submit(r);
    return 0;
}

void zbc_sync_start(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    if (s->null_backed) {
        zbc_req_complete(r);
        return;
    }
    if (s->persist.blk) {
        /* The data drive's flush is the first step of the sync. */
        zbc_req_acct_start(r, 0, BLOCK_ACCT_FLUSH);
        zbc_req_complete_durable(r);
        return;
    }
    zbc_io_submit(r);
}

/*
 * ------------------------------------------------------------------------
 * Starting medium commands
 */

/*
 * Queue @r in the dispatch engine.  The engine holds a reference on the
 * request until it starts (zbc_start_pending()), so a command cancelled
 * while queued stays valid until the engine lets go of it.
 */
void zbc_submit(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    r->phase = ZBC_PHASE_STARTED;
    zr_cmd_init(&r->zr, r->req.tag, 0, r->cmd->op, r->lba, r->nb, r);
    scsi_req_ref(&r->req);
    zr_dispatch_submit(&s->dispatch, &r->zr);
    if (zbc_svc_on(s)) {
        /* The service BH starts it when the policy and a slot allow. */
        zbc_svc_kick(s);
    } else if (s->dispatch.cfg.policy == ZR_POLICY_NONE) {
        zbc_start_pending(s);
    } else {
        zbc_schedule_starts(s);
    }
}

/* Start queued commands in the order the policy picks. */
void zbc_start_pending(ZbcState *s)
{
    ZrCmd *cmd;

    /*
     * A command completing inside start() must not restart the loop; and
     * nothing starts while the drive is drained (zbc_drained_end()
     * schedules the rest).
     */
    if (s->draining || s->quiesced) {
        return;
    }
    if (zbc_svc_on(s)) {
        /* With the service-time model its BH starts them. */
        zbc_svc_kick(s);
        return;
    }
    s->draining = true;
    while ((cmd = zr_dispatch_pick(&s->dispatch))) {
        ZbcReq *r = cmd->opaque;

        if (r->req.io_canceled) {
            trace_zbc_start_cancelled(r->req.tag);
            zbc_req_end_dispatch(r);
        } else {
            trace_zbc_start(r->req.tag, r->cmd->name, r->lba, r->nb,
                            cmd->overtaken);
            r->cmd->start(r);
        }
        scsi_req_unref(&r->req);
    }
    s->draining = false;
}

void zbc_start_bh(void *opaque)
{
    ZbcState *s = opaque;

    s->start_pending = false;
    zbc_start_pending(s);
    zbc_orphan_kick(s);
}

/*
 * Start what the policy picks on start_bh.  Under -icount guest time
 * stands still until it runs (vclock-hold.h); the host I/O it starts
 * runs on the clock of the HBA's model, if it has one.
 */
void zbc_schedule_starts(ZbcState *s)
{
    s->start_pending = true;
    qemu_bh_schedule(s->start_bh);
    zr_vclock_hold_poke(&s->vclock);
}

bool zbc_starts_pending(void *opaque)
{
    ZbcState *s = opaque;

    return s->start_pending || zbc_svc_pending(s);
}
