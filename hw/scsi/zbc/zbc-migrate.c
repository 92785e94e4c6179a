/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: migration (docs/devel/zone-state.md, "Migration").
 *
 * What moves: the SCSI device state (QEMU's SCSI bus saves the requests
 * not yet completed, each with the HBA's part and ours), the zone model
 * (every zone's condition, write pointer and written end, the counters),
 * the dispatch engine's policy state and counters, WCE and the stopped
 * state of the LU.
 *
 * A save happens with the VM stopped and the drive drained (do_vm_stop(),
 * and zbc_vm_state() before it), so no backend I/O is in flight, and a
 * request not yet completed is one of:
 *
 *  - not started, or started without a side effect that outlives it (a
 *    read, a flush, a zone operation waiting for writes, a command whose
 *    data the HBA has not moved yet): it runs again from the start on the
 *    destination, as scsi-disk restarts its requests (req->retry), and
 *    moves its data through the HBA again;
 *  - a write stopped on a host error (werror=stop): its zone's write
 *    pointer already covers it and the writes behind it, so it is saved
 *    with its data and issued again when the destination runs, in its
 *    place in the zone (zr_zone_write_restore());
 *  - a write whose data is on the medium, held until the earlier write of
 *    its zone (one of the above) is done: it is saved without data and
 *    reported when that one is, as on the source.
 *
 * So no command whose write pointer moved runs again, and none turns into
 * UNALIGNED WRITE on the way.  Anything else (backend I/O still in flight,
 * a stopped write the HBA cancelled after the stop) fails the save with a
 * message instead of losing a write.  Commands that run again do so in
 * the order they arrived, from zbc_resume_bh() when the VM runs (not from
 * the bus's restart, whose order QEMU does not keep).
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/lockable.h"
#include "migration/qemu-file-types.h"
#include "migration/vmstate.h"
#include "system/block-backend.h"
#include "hw/block/zoned-reorder/vmstate.h"
#include "zbc-internal.h"
#include "trace.h"

typedef enum ZbcMigKind {
    ZBC_MIG_RESTART = 1,    /* runs again from the start */
    ZBC_MIG_PARKED = 2,     /* write stopped on a host error, with data */
    ZBC_MIG_HELD = 3,       /* write on the medium, waiting for its turn */
} ZbcMigKind;

/* Requests of the LU: not those the bus answers itself (REPORT LUNS...). */
static bool zbc_req_own(SCSIRequest *req)
{
    return req->ops->save_request == zbc_save_request;
}

static bool zbc_req_parked(ZbcState *s, ZbcReq *r)
{
    ZbcReq *p;

    QTAILQ_FOREACH(p, &s->parked, park) {
        if (p == r) {
            return true;
        }
    }
    return false;
}

/* How @r travels; 0 when it cannot (see the top of the file). */
static ZbcMigKind zbc_mig_kind(ZbcState *s, ZbcReq *r)
{
    bool write = r->cmd && r->cmd->op == ZR_OP_WRITE;

    if (r->req.aiocb) {
        return 0;
    }
    if (write && r->phase == ZBC_PHASE_STARTED && zbc_req_parked(s, r)) {
        return ZBC_MIG_PARKED;
    }
    if (write && r->zio.state == ZR_IO_DONE) {
        return ZBC_MIG_HELD;
    }
    if (write && r->zio.state == ZR_IO_IN_FLIGHT) {
        /* Data moving and not parked: cannot be after a drain. */
        return 0;
    }
    return ZBC_MIG_RESTART;
}

void zbc_save_request(QEMUFile *f, SCSIRequest *req)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);
    ZbcState *s = zbc_state(r);
    ZbcMigKind kind = zbc_mig_kind(s, r);

    /* zbc_pre_save() refused the save for anything else. */
    assert(kind);
    trace_zbc_mig_save(req->tag, kind, r->lba, r->nb);
    qemu_put_byte(f, kind);
    if (kind == ZBC_MIG_RESTART) {
        return;
    }
    qemu_put_be64(f, r->lba);
    qemu_put_be64(f, r->nb);
    qemu_put_byte(f, r->fua);
    qemu_put_byte(f, r->zio.state);
    /* The data-out moved on the source: the HBA reports what is left. */
    qemu_put_be64(f, req->residual);
    if (kind == ZBC_MIG_PARKED) {
        qemu_put_be32(f, r->io_ret);
        qemu_put_be32(f, r->len);
        qemu_put_buffer(f, r->buf, r->len);
    }
}

/*
 * The stream is input we do not trust: a request that does not make sense
 * here is marked (r->mig_bad) and fails the load in zbc_post_load().
 */
void zbc_load_request(QEMUFile *f, SCSIRequest *req)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);
    ZbcState *s = zbc_state(r);
    uint64_t residual;
    uint32_t len = 0;
    bool known;

    r->mig = qemu_get_byte(f);
    /* Not the bus's restart: zbc_mig_restart_all() keeps arrival order. */
    req->retry = false;
    if (r->mig == ZBC_MIG_RESTART) {
        r->phase = ZBC_PHASE_MIGRATED;
        return;
    }
    r->lba = qemu_get_be64(f);
    r->nb = qemu_get_be64(f);
    r->fua = qemu_get_byte(f);
    /* Put in r->zio once the write is back on its zone (post_load). */
    r->mig_state = qemu_get_byte(f);
    residual = qemu_get_be64(f);
    r->phase = ZBC_PHASE_STARTED;
    r->cmd = zbc_cmd_find(req->cmd.buf[0], req->cmd.buf[1] & 0x1f, &known);
    if (r->mig == ZBC_MIG_PARKED) {
        r->io_ret = (int32_t)qemu_get_be32(f);
        len = qemu_get_be32(f);
    }
    if (len > s->max_xfer_blocks * (uint64_t)s->block_size) {
        /*
         * Nothing is read past here: the rest of the section no longer
         * parses, and the load fails there if not in zbc_post_load().
         */
        r->mig_bad = true;
        return;
    }
    if (r->mig == ZBC_MIG_PARKED) {
        r->len = len;
        zbc_req_buf(r, len);
        qemu_get_buffer(f, r->buf, len);
    } else {
        r->len = r->nb * s->block_size;
    }
    if ((r->mig != ZBC_MIG_PARKED && r->mig != ZBC_MIG_HELD) ||
        !r->cmd || r->cmd->op != ZR_OP_WRITE || s->null_backed ||
        r->nb > s->max_xfer_blocks || r->len != r->nb * s->block_size ||
        residual > req->cmd.xfer ||
        (r->mig == ZBC_MIG_HELD && r->mig_state != ZR_IO_DONE) ||
        (r->mig == ZBC_MIG_PARKED && r->mig_state != ZR_IO_IN_FLIGHT &&
         r->mig_state != ZR_IO_OVERTAKEN &&
         r->mig_state != ZR_IO_DETACHED)) {
        r->mig_bad = true;
        return;
    }
    req->residual = residual;
}

/*
 * A request restarted on the destination (ZBC_MIG_RESTART with data):
 * the bus called scsi_req_continue() on it.  Run it from the start, and
 * move its data as the HBA would after scsi_req_enqueue().
 */
void zbc_mig_restart(ZbcReq *r)
{
    int32_t len;

    trace_zbc_mig_restart(r->req.tag);
    r->phase = ZBC_PHASE_NEW;
    r->mig = 0;
    len = r->req.ops->send_command(&r->req, r->req.cmd.buf);
    if (len) {
        scsi_req_continue(&r->req);
    }
}

ScsiZbcResume scsi_zbc_req_resume(SCSIRequest *req)
{
    if (!zbc_req_own(req)) {
        return SCSI_ZBC_RESUME_OTHER;
    }
    return DO_UPCAST(ZbcReq, req, req)->mig == ZBC_MIG_RESTART ?
           SCSI_ZBC_RESUME_RESTART : SCSI_ZBC_RESUME_CONTINUE;
}

/* The VM runs: the loaded commands to run again, in arrival order. */
void zbc_mig_restart_all(ZbcState *s)
{
    g_autoptr(GPtrArray) todo = g_ptr_array_new();
    SCSIRequest *req;
    guint i;

    s->mig_restart = false;
    WITH_QEMU_LOCK_GUARD(&s->qdev.requests_lock) {
        QTAILQ_FOREACH(req, &s->qdev.requests, next) {
            if (zbc_req_own(req) &&
                DO_UPCAST(ZbcReq, req, req)->mig == ZBC_MIG_RESTART) {
                scsi_req_ref(req);
                g_ptr_array_add(todo, req);
            }
        }
    }
    for (i = 0; i < todo->len; i++) {
        ZbcReq *r = DO_UPCAST(ZbcReq, req, todo->pdata[i]);

        if (!r->req.io_canceled && r->mig == ZBC_MIG_RESTART) {
            zbc_mig_restart(r);
        }
        scsi_req_unref(&r->req);
    }
}

static int zbc_pre_save(void *opaque)
{
    ZbcState *s = opaque;
    SCSIRequest *req;
    ZbcReq *r;
    int ret = 0;

    if (s->persist.running) {
        error_report("scsi-zbc %s: cannot migrate while the zone state is "
                     "being written", s->qdev.qdev.id ?: "");
        return -EBUSY;
    }
    QTAILQ_FOREACH(r, &s->parked, park) {
        if (r->req.io_canceled) {
            error_report("scsi-zbc %s: cannot migrate: %s (tag %u) was "
                         "cancelled while stopped on an error",
                         s->qdev.qdev.id ?: "",
                         r->cmd ? r->cmd->name : "?", r->req.tag);
            return -EBUSY;
        }
    }
    WITH_QEMU_LOCK_GUARD(&s->qdev.requests_lock) {
        QTAILQ_FOREACH(req, &s->qdev.requests, next) {
            r = DO_UPCAST(ZbcReq, req, req);
            if (!zbc_req_own(req)) {
                continue;
            }
            if (!zbc_mig_kind(s, r)) {
                error_report("scsi-zbc %s: cannot migrate: %s (tag %u) has "
                             "I/O in flight", s->qdev.qdev.id ?: "",
                             r->cmd ? r->cmd->name : "?", req->tag);
                ret = -EBUSY;
                break;
            }
        }
    }
    return ret;
}

/*
 * A loadvm replaces the zone state whether or not it succeeds: which copy
 * of each table block on the zone-state drive is the newer must be read
 * again before the next write.
 */
static int zbc_pre_load(void *opaque)
{
    ZbcState *s = opaque;

    zr_persist_invalidate(&s->persist);
    return 0;
}

/*
 * The zone model is back (its own post_load checked it), and the bus
 * loaded the requests: put the writes that were in flight back on their
 * zones, then (all of them checked) park those to issue again and hold
 * the others, with the references the source held for them.  On failure
 * nothing stays linked.
 */
static int zbc_post_load(void *opaque, int version_id)
{
    ZbcState *s = opaque;
    Error *err = NULL;
    SCSIRequest *req;

    WITH_QEMU_LOCK_GUARD(&s->qdev.requests_lock) {
        QTAILQ_FOREACH(req, &s->qdev.requests, next) {
            ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

            if (!zbc_req_own(req) || !r->mig) {
                continue;
            }
            if (r->mig_bad) {
                error_setg(&err, "bad saved state of tag %u", req->tag);
                break;
            }
            if (r->mig == ZBC_MIG_RESTART) {
                continue;
            }
            r->zio.lba = r->lba;
            r->zio.len = r->nb;
            r->zio.state = r->mig_state;
            if (!zr_zone_write_restore(&s->zones, &r->zio, &err)) {
                r->zio.state = ZR_IO_IDLE;
                break;
            }
        }
    }
    if (!err) {
        zr_zone_write_restore_check(&s->zones, &err);
    }
    if (err) {
        WITH_QEMU_LOCK_GUARD(&s->qdev.requests_lock) {
            QTAILQ_FOREACH(req, &s->qdev.requests, next) {
                ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

                /* Restored orphans are on no list: forget each. */
                if (zbc_req_own(req) && r->mig &&
                    (r->zio.state == ZR_IO_OVERTAKEN ||
                     r->zio.state == ZR_IO_DETACHED)) {
                    zr_zone_write_forget(&s->zones, &r->zio);
                }
            }
        }
        zr_zone_write_restore_abort(&s->zones);
        WITH_QEMU_LOCK_GUARD(&s->qdev.requests_lock) {
            QTAILQ_FOREACH(req, &s->qdev.requests, next) {
                if (zbc_req_own(req) && DO_UPCAST(ZbcReq, req, req)->mig) {
                    DO_UPCAST(ZbcReq, req, req)->zio.state = ZR_IO_IDLE;
                }
            }
        }
        error_prepend(&err, "scsi-zbc %s: ", s->qdev.qdev.id ?: "");
        error_report_err(err);
        return -EINVAL;
    }
    WITH_QEMU_LOCK_GUARD(&s->qdev.requests_lock) {
        QTAILQ_FOREACH(req, &s->qdev.requests, next) {
            ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

            if (!zbc_req_own(req)) {
                continue;
            }
            if (r->mig == ZBC_MIG_RESTART) {
                s->mig_restart = true;
            } else if (r->mig == ZBC_MIG_PARKED || r->mig == ZBC_MIG_HELD) {
                scsi_req_ref(req);
                if (r->mig == ZBC_MIG_PARKED) {
                    QTAILQ_INSERT_TAIL(&s->parked, r, park);
                }
                r->mig = 0;
            }
        }
    }
    /* The policy the source ran with (qom-set at run time) */
    s->policy = s->dispatch.cfg.policy;
    /* The drive's cache follows the guest's WCE, as MODE SELECT set it. */
    if (!s->null_backed) {
        blk_set_enable_write_cache(s->qdev.conf.blk, s->wce);
    }
    zr_persist_invalidate(&s->persist);
    trace_zbc_mig_loaded(s->zones.nr_io);
    return 0;
}

const VMStateDescription vmstate_scsi_zbc = {
    .name = "scsi-zbc",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = zbc_pre_save,
    .pre_load = zbc_pre_load,
    .post_load = zbc_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_SCSI_DEVICE(qdev, ZbcState),
        VMSTATE_BOOL(wce, ZbcState),
        VMSTATE_BOOL(stopped, ZbcState),
        VMSTATE_UINT64(zone_op_waits, ZbcState),
        VMSTATE_UINT64(orphan_waits, ZbcState),
        VMSTATE_STRUCT(zones, ZbcState, 1, vmstate_zr_zone_model,
                       ZrZoneModel),
        VMSTATE_STRUCT(dispatch, ZbcState, 1, vmstate_zr_dispatch,
                       ZrDispatch),
        VMSTATE_END_OF_LIST()
    },
};
