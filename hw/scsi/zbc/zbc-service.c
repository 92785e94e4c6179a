/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: the service-time model, the same as ufs-zoned's (the core's
 * service.h on QEMU_CLOCK_VIRTUAL, service-timer.h), so the reorder
 * policies mean the same thing when scsi-zbc sits behind virtio-scsi.
 *
 * With a latency, a transfer cost or max-parallel set, a medium command
 * (READ, WRITE, SYNCHRONIZE CACHE, ZBC OUT) starts when the policy picks
 * it and a service slot is free, on the core's service bottom half; its
 * service time is lat-*-ns plus xfer-*-ns-per-4k for every started 4 KiB
 * of its blocks.  It reports to the HBA (a read's data-in, or its status,
 * GOOD or CHECK CONDITION) once both its backend work is done and its
 * service time is over: every report point goes through zbc_req_report(),
 * which holds the report until the service callback releases it.
 *
 * With every property 0 the model is off, and zbc_req_report() reports at
 * once: the path is the one scsi-zbc has without a model.
 *
 * The model does not migrate its commands in service: while it is on,
 * migration (and savevm) is blocked.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "migration/blocker.h"
#include "scsi/constants.h"
#include "zbc-internal.h"
#include "trace.h"

bool zbc_svc_on(ZbcState *s)
{
    return zbc_service(s)->on;
}

/* Is @r in service, its time not over yet? */
static bool zbc_svc_busy(ZbcReq *r)
{
    return zbc_svc_on(zbc_state(r)) && r->zr.state == ZR_CMD_STARTED;
}

static void zbc_req_report_now(ZbcReq *r, ZbcReport what, int status)
{
    if (what == ZBC_REPORT_DATA_IN) {
        scsi_req_data(&r->req, r->len);
    } else {
        scsi_req_complete(&r->req, status);
    }
}

/*
 * The one gate between a command and the HBA: report @what (with @status)
 * now, or, while the command's service time runs, once it is over.  The
 * sense data of a CHECK CONDITION is built before; nothing changes it
 * until the report.
 */
/* @r's backend work ended after its service time: it no longer holds. */
static void zbc_svc_unwait(ZbcReq *r)
{
    if (r->svc_waiting) {
        r->svc_waiting = false;
        zbc_service(zbc_state(r))->backend_wait--;
    }
}

void zbc_req_report(ZbcReq *r, ZbcReport what, int status)
{
    zbc_svc_unwait(r);
    if (zbc_svc_busy(r)) {
        trace_zbc_svc_report_held(r->req.tag, r->cmd ? r->cmd->name : "?",
                                  what, status);
        r->report = what;
        r->report_status = status;
        return;
    }
    zbc_req_report_now(r, what, status);
}

/*
 * The policy picked @cmd and a slot was free: start it as
 * zbc_start_pending() does without the model.  One the HBA cancelled while
 * it waited leaves service at once.  Drops the reference zbc_submit() took.
 */
static void zbc_svc_start(void *opaque, ZrCmd *cmd, int64_t done_ns)
{
    ZbcState *s = opaque;
    ZbcReq *r = cmd->opaque;

    if (r->req.io_canceled) {
        trace_zbc_start_cancelled(r->req.tag);
        zr_service_timer_cancel(&zbc_service(s)->timer, cmd);
    } else {
        trace_zbc_svc_start(r->req.tag, r->cmd->name, r->lba, r->nb,
                            cmd->overtaken, done_ns);
        r->cmd->start(r);
    }
    scsi_req_unref(&r->req);
}

/*
 * @cmd's service time is over (the core has completed it in the dispatch
 * engine): a report its backend work already made goes out now; if that
 * work is still running, it reports when it ends.
 */
static void zbc_svc_complete(void *opaque, ZrCmd *cmd)
{
    ZbcReq *r = cmd->opaque;
    ZbcReport what = r->report;

    if (what == ZBC_REPORT_NONE) {
        /*
         * The backend is still at work: under -icount guest time waits
         * for it, as it waits for ufs-zoned's LUs (zbc_svc_pending()).
         */
        if (!r->req.io_canceled) {
            r->svc_waiting = true;
            zbc_service(opaque)->backend_wait++;
        }
        return;
    }
    r->report = ZBC_REPORT_NONE;
    if (r->req.io_canceled) {
        return;
    }
    trace_zbc_svc_report(r->req.tag, r->cmd->name, what, r->report_status);
    zbc_req_report_now(r, what, r->report_status);
}

static const ZrServiceOps zbc_svc_ops = {
    .start = zbc_svc_start,
    .complete = zbc_svc_complete,
};

/* Under -icount guest time waits while the service BH is scheduled. */
static void zbc_svc_scheduled(void *opaque)
{
    ZbcState *s = opaque;

    zr_vclock_hold_poke(&s->vclock);
}


/* After the geometry (block size) and the dispatch engine. */
bool zbc_svc_realize(ZbcState *s, Error **errp)
{
    ZbcService *v = zbc_service(s);
    ZrServiceConfig cfg;

    if (zr_service_params_zero(&v->params)) {
        return true;
    }
    /*
     * Counted in blocks of the LU (ZrCmd.len, the TRANSFER LENGTH): the
     * core multiplies by block_size.
     */
    zr_service_config_from(&cfg, &v->params, s->block_size);
    if (!zr_service_init(&v->svc, &cfg, errp)) {
        return false;
    }
    error_setg(&v->mig_blocker, "scsi-zbc %s: commands in service of the "
               "service-time model (lat-*, xfer-*, max-parallel) cannot "
               "migrate; set them all to 0 to migrate",
               s->qdev.qdev.id ?: "");
    if (migrate_add_blocker(&v->mig_blocker, errp) < 0) {
        return false;
    }
    zr_service_timer_init(&v->timer, &v->svc, &s->dispatch, &zbc_svc_ops, s,
                          &DEVICE(s)->mem_reentrancy_guard);
    zr_service_timer_set_scheduled_hook(&v->timer, zbc_svc_scheduled);
    v->on = true;
    trace_zbc_svc_realize(v->params.lat_read_ns, v->params.lat_write_ns,
                          v->params.lat_other_ns, v->params.xfer_read_ns,
                          v->params.xfer_write_ns, v->params.max_parallel);
    return true;
}

/*
 * Unplug, after the bus purged the requests and the pending ones were let
 * go: drop what is left in service (no callbacks) and stop.
 */
void zbc_svc_unrealize(ZbcState *s)
{
    ZbcService *v = zbc_service(s);

    if (!v->on) {
        return;
    }
    v->on = false;
    zr_service_timer_reset(&v->timer, NULL, NULL);
    zr_service_timer_cleanup(&v->timer);
    migrate_del_blocker(&v->mig_blocker);
}

/* Commands were submitted: start what may start, on the service BH. */
void zbc_svc_kick(ZbcState *s)
{
    zr_service_timer_kick(&zbc_service(s)->timer);
}

/*
 * For the vclock hold: the service BH is scheduled, not run yet, or a
 * command's service time is over while its backend still works.
 */
bool zbc_svc_pending(ZbcState *s)
{
    return zbc_svc_on(s) &&
           (zr_service_timer_pending(&zbc_service(s)->timer) ||
            zbc_service(s)->backend_wait);
}

/* While the drive is drained nothing starts (nor completes). */
void zbc_svc_drained_begin(ZbcState *s)
{
    if (zbc_svc_on(s)) {
        zr_service_timer_hold(&zbc_service(s)->timer);
    }
}

void zbc_svc_drained_end(ZbcState *s)
{
    if (zbc_svc_on(s)) {
        zr_service_timer_release(&zbc_service(s)->timer);
    }
}

/*
 * The last reference to @r is gone while it is still in service: the HBA
 * cancelled it (abort, reset, unplug).  It leaves service, its slot goes
 * to the next command.
 */
void zbc_svc_free_req(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    zbc_svc_unwait(r);
    if (zbc_svc_busy(r)) {
        trace_zbc_svc_cancel(r->req.tag);
        zr_service_timer_cancel(&zbc_service(s)->timer, &r->zr);
        zbc_svc_kick(s);
    }
}
