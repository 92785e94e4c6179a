/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: migration and snapshots (docs/devel/zone-state.md,
 * "Migration and snapshots"; docs/system/devices/ufs-zoned.rst).
 *
 * What moves: the register file (UFSHCI 4.0 5.2-5.4: interrupts, the
 * UTRL/UTMRL bases and run-stop, the UIC command registers, AHIT,
 * MCQCONFIG and the ESI base), the MCQ queue configuration and each
 * queue's run state (heads, tails, SQRTC/SQRTS, CQIS/CQIE; 5.5, 5.6),
 * the doorbell rings not yet fetched, the link (up, in H8, the end of an
 * H8 exit) and the auto-hibernate timers, the device flags and
 * attributes queries set, the counters, the dispatch engine (policy,
 * PRNG, round-robin position) and the service model, and every transfer
 * request the controller holds, exactly as it stands:
 *
 *  - rung or fetched, not started (pending in the dispatch engine): it
 *    starts on the destination when the policy picks it, in its place;
 *  - started, in its modelled service time: it keeps its completion time
 *    (guest time moves with the VM);
 *  - handed to its LU and not yet done there: the LU saves the SCSI
 *    request (QEMU's SCSI bus does, with our part, which only names the
 *    request context: ufs_zoned_save_request()).  If the LU runs it again
 *    from its start on the destination (scsi-zbc does for anything that
 *    left no trace on the medium: scsi_zbc_req_resume()), its data moves
 *    again from the first byte; otherwise (a write already on the medium
 *    or stopped on a host error, or another LU type) it goes on where it
 *    was -- except a transfer another LU type was waiting for, which the
 *    host retries (its buffer may not have travelled);
 *  - done at its LU, waiting for its service time or for the work BH to
 *    respond, or done and waiting for room in its CQ: saved with its
 *    status, sense and residual, and answered on the destination.
 *
 * So no command runs twice and none is lost: a write whose write pointer
 * moved is never issued again, and none turns into UNALIGNED WRITE on the
 * way.  The request contexts hold what was read from guest memory (the
 * UTRD, the request UPIU, the PRDT), because the host may reuse an SQ
 * entry once it is fetched.  Nothing runs on the destination before the
 * VM does: the vm-state handler schedules the work once it runs.
 *
 * The stream is input we do not trust: every index, count and state is
 * checked on load, and a request that does not fit fails the load.  A
 * SCSI request an LU brings that matches no request context (QEMU's bus
 * cannot fail a load from there) is cancelled when the VM runs, and a
 * request context whose SCSI request did not come back completes with
 * ABORTED COMMAND, which the host retries (ufs_zoned_mig_lost()).
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/lockable.h"
#include "migration/qemu-file-types.h"
#include "migration/vmstate.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "scsi/constants.h"
#include "system/runstate.h"
#include "hw/scsi/scsi-zbc.h"
#include "hw/block/zoned-reorder/vmstate.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define UFSZ_MIG_REQ_VERSION    1
#define UFSZ_MIG_REQS_END       UINT32_MAX
#define UFSZ_MIG_MAX_PRDT       4096

/* --- one request context ----------------------------------------------- */

static const VMStateDescription vmstate_ufs_zoned_req = {
    .name = "ufs-zoned-req",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_INT32(sq, UfsZonedReq),
        VMSTATE_UINT32(cq, UfsZonedReq),
        VMSTATE_UINT32(tag, UfsZonedReq),
        VMSTATE_BOOL(aborted, UfsZonedReq),
        VMSTATE_BOOL(xfer_pending, UfsZonedReq),
        VMSTATE_UINT32(xfer_len, UfsZonedReq),
        VMSTATE_BOOL(finish_pending, UfsZonedReq),
        VMSTATE_UINT64(pending_seq, UfsZonedReq),
        VMSTATE_BOOL(responded, UfsZonedReq),
        VMSTATE_BOOL(cleanup, UfsZonedReq),
        VMSTATE_STRUCT(zr, UfsZonedReq, 1, vmstate_zr_cmd, ZrCmd),
        /* as read from guest memory: little-endian, byte for byte */
        {
            .name = "utrd",
            .offset = offsetof(UfsZonedReq, utrd),
            .size = sizeof(UtpTransferReqDesc),
            .info = &vmstate_info_buffer,
            .flags = VMS_BUFFER,
        },
        VMSTATE_BOOL(cq_waiting, UfsZonedReq),
        VMSTATE_UINT32(mig_cq_pos, UfsZonedReq),
        VMSTATE_UINT64(ucd_addr, UfsZonedReq),
        VMSTATE_UINT64(rsp_addr, UfsZonedReq),
        VMSTATE_UINT32(rsp_len, UfsZonedReq),
        VMSTATE_UINT32(dd, UfsZonedReq),
        /* the request UPIU as read: big-endian fields, byte for byte */
        {
            .name = "upiu",
            .offset = offsetof(UfsZonedReq, upiu),
            .size = sizeof(UtpUpiuReq),
            .info = &vmstate_info_buffer,
            .flags = VMS_BUFFER,
        },
        VMSTATE_UINT64(prdt_bytes, UfsZonedReq),
        VMSTATE_UINT64(xfer_off, UfsZonedReq),
        VMSTATE_BOOL(dma_error, UfsZonedReq),
        VMSTATE_BOOL(mig_live, UfsZonedReq),
        VMSTATE_BOOL(scsi_done, UfsZonedReq),
        VMSTATE_BOOL(svc_done, UfsZonedReq),
        VMSTATE_UINT8(ocs, UfsZonedReq),
        VMSTATE_UINT8(status, UfsZonedReq),
        VMSTATE_UINT8_ARRAY(sense, UfsZonedReq, UFS_SENSE_SIZE),
        VMSTATE_UINT32(sense_len, UfsZonedReq),
        VMSTATE_UINT32(resid, UfsZonedReq),
        VMSTATE_BOOL(overflow, UfsZonedReq),
        VMSTATE_UINT64(overflow_bytes, UfsZonedReq),
        VMSTATE_BOOL(short_data_out, UfsZonedReq),
        VMSTATE_BOOL(stalled, UfsZonedReq),
        VMSTATE_END_OF_LIST()
    },
};

static void ufs_zoned_mig_unload(UfsZonedState *s);

static UfsZonedState *ufs_zoned_of_reqs(void *pv)
{
    return (UfsZonedState *)((char *)pv - offsetof(UfsZonedState, req));
}

/* The busy request contexts: index, state, PRDT; then an end mark. */
static int ufs_zoned_put_reqs(QEMUFile *f, void *pv, size_t size,
                              const VMStateField *field, JSONWriter *vmdesc)
{
    UfsZonedState *s = ufs_zoned_of_reqs(pv);
    uint32_t i, j, n;
    int ret;

    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (!req->busy) {
            continue;
        }
        qemu_put_be32(f, i);
        ret = vmstate_save_state(f, &vmstate_ufs_zoned_req, req, NULL);
        if (ret) {
            return ret;
        }
        /* none once the response is written (ufs_zoned_req_done()) */
        n = req->prdt ? req->prdt_n : 0;
        qemu_put_be32(f, n);
        for (j = 0; j < n; j++) {
            qemu_put_be64(f, req->prdt[j].addr);
            qemu_put_be32(f, req->prdt[j].size);
        }
        trace_ufs_zoned_mig_save_req(i, req->sq, req->tag, req->zr.state,
                                     req->mig_live, req->scsi_done,
                                     req->svc_done);
    }
    qemu_put_be32(f, UFSZ_MIG_REQS_END);
    return 0;
}

static int ufs_zoned_get_reqs(QEMUFile *f, void *pv, size_t size,
                              const VMStateField *field)
{
    UfsZonedState *s = ufs_zoned_of_reqs(pv);
    uint32_t i, j, n;
    int ret;

    while ((i = qemu_get_be32(f)) != UFSZ_MIG_REQS_END) {
        UfsZonedReq *req;

        if (i >= UFSZ_NR_REQS || s->req[i].busy) {
            error_report("ufs-zoned: saved request context %u is out of "
                         "range or given twice", i);
            ufs_zoned_mig_unload(s);
            return -EINVAL;
        }
        req = &s->req[i];
        memset(req, 0, sizeof(*req));
        ret = vmstate_load_state(f, &vmstate_ufs_zoned_req, req, 1);
        if (ret) {
            memset(req, 0, sizeof(*req));
            ufs_zoned_mig_unload(s);
            return ret;
        }
        n = qemu_get_be32(f);
        if (n > UFSZ_MIG_MAX_PRDT) {
            error_report("ufs-zoned: saved request %u has %u PRDT entries",
                         i, n);
            memset(req, 0, sizeof(*req));
            ufs_zoned_mig_unload(s);
            return -EINVAL;
        }
        req->s = s;
        req->slot = i;
        req->busy = true;       /* from here on the cleanup frees it */
        req->prdt = ufs_zoned_prdt_alloc(s, i, n);
        req->prdt_n = n;
        for (j = 0; j < n; j++) {
            req->prdt[j].addr = qemu_get_be64(f);
            req->prdt[j].size = qemu_get_be32(f);
        }
    }
    ret = qemu_file_get_error(f);
    if (ret) {
        ufs_zoned_mig_unload(s);
    }
    return ret;
}

static const VMStateInfo ufs_zoned_vmstate_info_reqs = {
    .name = "ufs-zoned-reqs",
    .get = ufs_zoned_get_reqs,
    .put = ufs_zoned_put_reqs,
};

/* --- the SCSI bus's part of a request an LU saves ---------------------- */

/* Our part of an LU's request: only which context it is (its tag). */
void ufs_zoned_save_request(QEMUFile *f, SCSIRequest *sreq)
{
    qemu_put_byte(f, UFSZ_MIG_REQ_VERSION);
}

/*
 * The LU loaded one of its requests.  It must be the one a request
 * context of ours handed it (its tag is the context index, its CDB the
 * one in our UPIU); one that is not gets no context and is cancelled
 * when the VM runs (ufs_zoned_mig_resume()).
 */
void *ufs_zoned_load_request(QEMUFile *f, SCSIRequest *sreq)
{
    UfsZonedState *s = container_of(sreq->bus, UfsZonedState, bus);
    uint8_t version = qemu_get_byte(f);
    UfsZonedReq *req = sreq->tag < UFSZ_NR_REQS ? &s->req[sreq->tag] : NULL;

    /* The bus parsed the CDB again: its bytes past cmd.len are zero. */
    if (version != UFSZ_MIG_REQ_VERSION || !req || !req->busy ||
        !req->mig_live || req->sreq ||
        req->upiu.header.lun != sreq->lun ||
        sreq->cmd.len > sizeof(req->upiu.sc.cdb) ||
        memcmp(req->upiu.sc.cdb, sreq->cmd.buf, sreq->cmd.len)) {
        error_report("ufs-zoned: a saved request of LU %u (tag %u) matches "
                     "no command of the controller; it will be cancelled",
                     sreq->lun, sreq->tag);
        s->mig_stray = true;
        return NULL;
    }
    /*
     * Its retry flag is the LU's business: scsi-zbc clears it and runs
     * its requests itself, scsi-disk lets the bus restart them.
     */
    req->sreq = sreq;
    scsi_req_ref(sreq);
    trace_ufs_zoned_mig_load_sreq(req->slot, sreq->lun);
    return req;
}

/* --- save and load ------------------------------------------------------- */

static int ufs_zoned_pre_save(void *opaque)
{
    UfsZonedState *s = opaque;
    uint32_t i, c;

    if (s->teardown || s->work.running) {
        error_report("ufs-zoned: cannot migrate in the middle of a reset or "
                     "an abort");
        return -EBUSY;
    }
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        /*
         * Loaded and not run since: what the last load brought is still
         * to be settled on the next destination (ufs_zoned_mig_resume()).
         */
        if (!s->mig_loaded) {
            req->mig_live = req->busy && req->sreq && !req->scsi_done;
        }
        req->mig_cq_pos = 0;
        if (req->busy && req->stopping) {
            error_report("ufs-zoned: cannot migrate while a command is torn "
                         "down");
            return -EBUSY;
        }
    }
    zr_start_log_linearize(&s->start_log);
    /* Each CQ's completions that wait for room, in their order */
    for (c = 0; c < UFSZ_MCQ_MAX_QUEUES; c++) {
        UfsZonedReq *req;
        uint32_t pos = 0;

        QTAILQ_FOREACH(req, &s->cq[c].waiting, cq_wait) {
            req->mig_cq_pos = pos++;
        }
    }
    return 0;
}

/* Undo a load that failed half-way: no context stays on a list. */
static void ufs_zoned_mig_unload(UfsZonedState *s)
{
    uint32_t i;

    zr_dispatch_flush(&s->dispatch, NULL, NULL);
    zr_service_flush(&s->svc);
    for (i = 0; i < UFSZ_MCQ_MAX_QUEUES; i++) {
        QTAILQ_INIT(&s->cq[i].waiting);
    }
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (req->prdt) {
            ufs_zoned_prdt_free(req);
        }
        memset(req, 0, sizeof(*req));
    }
    s->mcq_active = 0;
    s->utrldbr = 0;
    s->nr_rings = 0;
    s->nr_sq_marks = 0;
}

static int ufs_zoned_cmp_svc_order(const void *a, const void *b)
{
    const UfsZonedReq *x = *(UfsZonedReq *const *)a;
    const UfsZonedReq *y = *(UfsZonedReq *const *)b;

    return x->zr.svc_order < y->zr.svc_order ? -1 :
           x->zr.svc_order > y->zr.svc_order;
}

static int ufs_zoned_cmp_cq_pos(const void *a, const void *b)
{
    const UfsZonedReq *x = *(UfsZonedReq *const *)a;
    const UfsZonedReq *y = *(UfsZonedReq *const *)b;

    if (x->cq != y->cq) {
        return x->cq < y->cq ? -1 : 1;
    }
    return x->mig_cq_pos < y->mig_cq_pos ? -1 :
           x->mig_cq_pos > y->mig_cq_pos;
}

/* Whether loaded request context @req can be what it says it is. */
static bool ufs_zoned_mig_req_ok(UfsZonedState *s, UfsZonedReq *req,
                                 Error **errp)
{
    uint32_t i = req->slot, nq = s->mcq ? s->mcq_queues : 0;
    bool legacy = i < UFSZ_NUTRS;

    if (legacy ? req->sq != -1 || !(s->utrldbr & (1u << i)) ||
                 req->responded || req->cq_waiting
               : req->sq < 0 || (uint32_t)req->sq >= nq || req->cq >= nq) {
        error_setg(errp, "request context %u does not fit its queue", i);
        return false;
    }
    if (req->sense_len > sizeof(req->sense) ||
        (req->cq_waiting && !req->responded) ||
        (req->responded && (!legacy && !req->cq_waiting)) ||
        (req->responded && (req->zr.state != ZR_CMD_IDLE || req->mig_live ||
                            req->xfer_pending || req->finish_pending)) ||
        (req->aborted && (req->zr.state != ZR_CMD_IDLE || req->mig_live ||
                          req->responded)) ||
        (req->mig_live && (req->scsi_done || req->stalled)) ||
        (req->xfer_pending && !req->mig_live) ||
        (req->zr.state != ZR_CMD_IDLE && req->svc_done) ||
        (req->zr.state == ZR_CMD_PENDING && (req->mig_live ||
                                             req->scsi_done)) ||
        req->zr.state > ZR_CMD_STARTED) {
        error_setg(errp, "request context %u is in an impossible state", i);
        return false;
    }
    return true;
}

/*
 * What the controller keeps only to find its work fast, derived from the
 * state loaded (first, so that it holds whether the load is accepted or
 * not): which contexts have a deferred event, which CQs an interrupt
 * event, which aggregations a deadline.
 */
static void ufs_zoned_mig_derive(UfsZonedState *s)
{
    uint32_t i;

    memset(s->pending_map, 0, sizeof(s->pending_map));
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (req->busy && (req->xfer_pending || req->finish_pending)) {
            ufs_zoned_req_pending_note(req);
        }
    }
    s->sq_rung = s->cq_waits = 0;
    for (i = 0; i < UFSZ_MCQ_MAX_QUEUES; i++) {
        ufs_zoned_cq_events_update(s, i);
        if (s->sq[i].head != s->sq[i].tail) {
            s->sq_rung |= 1u << i;
        }
    }
    s->agg_armed = 0;
    for (i = 0; i < UFSZ_AGG_N; i++) {
        if (s->agg[i].deadline) {
            s->agg_armed |= 1ULL << i;
        }
    }
}

static int ufs_zoned_post_load(void *opaque, int version_id)
{
    UfsZonedState *s = opaque;
    UfsZonedReq *started[UFSZ_NR_REQS], *waiting[UFSZ_NR_REQS];
    uint32_t i, rung, nr_started = 0, nr_waiting = 0, nr_mcq = 0;
    Error *err = NULL;

    ufs_zoned_mig_derive(s);
    if (s->nr_rings > UFSZ_NUTRS) {
        error_setg(&err, "saved queue lengths out of range");
        goto fail;
    }
    if (!zr_start_log_loaded(&s->start_log)) {
        error_setg(&err, "saved start log count out of range");
        goto fail;
    }
    if (!ufs_zoned_mcq_post_load(s, &err)) {
        goto fail;
    }
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (!req->busy) {
            continue;
        }
        if (!ufs_zoned_mig_req_ok(s, req, &err)) {
            goto fail;
        }
        nr_mcq += req->sq >= 0;
        req->zr.opaque = req;
        if (req->zr.state == ZR_CMD_PENDING) {
            if (!zr_dispatch_restore(&s->dispatch, &req->zr, &err)) {
                req->zr.state = ZR_CMD_IDLE;
                goto fail;
            }
        } else if (req->zr.state == ZR_CMD_STARTED) {
            started[nr_started++] = req;
        }
        if (req->cq_waiting) {
            waiting[nr_waiting++] = req;
        }
    }
    if (nr_mcq != s->mcq_active) {
        error_setg(&err, "%u MCQ commands saved, %u counted", nr_mcq,
                   s->mcq_active);
        goto fail;
    }
    /* In flight: start order in the engine and in the service model */
    qsort(started, nr_started, sizeof(started[0]), ufs_zoned_cmp_svc_order);
    for (i = 0; i < nr_started; i++) {
        UfsZonedReq *req = started[i];

        if (!zr_dispatch_restore(&s->dispatch, &req->zr, &err)) {
            req->zr.state = ZR_CMD_IDLE;
            goto fail;
        }
        if (!zr_service_restore(&s->svc, &req->zr, &err)) {
            goto fail;
        }
    }
    qsort(waiting, nr_waiting, sizeof(waiting[0]), ufs_zoned_cmp_cq_pos);
    for (i = 0; i < nr_waiting; i++) {
        s->cq_waits |= 1u << waiting[i]->cq;
        QTAILQ_INSERT_TAIL(&s->cq[waiting[i]->cq].waiting, waiting[i],
                           cq_wait);
    }
    /* A rung slot is fetched (a busy context) or still in a ring. */
    for (i = 0, rung = 0; i < s->nr_rings; i++) {
        rung |= s->rings[i];
    }
    for (i = 0; i < UFSZ_NUTRS; i++) {
        if (s->req[i].busy) {
            rung |= 1u << i;
        }
    }
    if (s->utrldbr & ~rung) {
        error_setg(&err, "saved doorbell 0x%08x has slots 0x%08x that are "
                   "neither fetched nor rung", s->utrldbr, s->utrldbr & ~rung);
        goto fail;
    }
    s->policy = s->dispatch.cfg.policy;
    if (!ufs_zoned_irq_check_loaded(s, &err)) {
        goto fail;
    }
    s->mig_loaded = true;
    ufs_zoned_irq_post_load(s);
    trace_ufs_zoned_mig_loaded(nr_started, zr_dispatch_nr_pending(&s->dispatch),
                               nr_waiting);
    return 0;

fail:
    error_prepend(&err, "ufs-zoned: ");
    error_report_err(err);
    ufs_zoned_mig_unload(s);
    return -EINVAL;
}

/*
 * loadvm resets the machine before it loads: the request contexts are
 * empty here (and a fresh destination's are).
 */
static int ufs_zoned_pre_load(void *opaque)
{
    UfsZonedState *s = opaque;

    s->mig_loaded = false;
    s->mig_stray = false;
    return 0;
}

/* Cancel the LUs' loaded requests no context took (load_request). */
static void ufs_zoned_mig_cancel_strays(UfsZonedState *s)
{
    g_autoptr(GPtrArray) todo = g_ptr_array_new();
    BusChild *kid;
    guint i;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        SCSIDevice *dev = SCSI_DEVICE(kid->child);
        SCSIRequest *sreq;

        WITH_QEMU_LOCK_GUARD(&dev->requests_lock) {
            QTAILQ_FOREACH(sreq, &dev->requests, next) {
                if (!sreq->hba_private) {
                    scsi_req_ref(sreq);
                    g_ptr_array_add(todo, sreq);
                }
            }
        }
    }
    for (i = 0; i < todo->len; i++) {
        SCSIRequest *sreq = todo->pdata[i];

        scsi_req_cancel(sreq);
        scsi_req_unref(sreq);
    }
}

/*
 * A command that cannot go on after a load: stop what its LU has of it
 * and complete it with ABORTED COMMAND, I/O PROCESS TERMINATED (SAM-5
 * 5.3.1: the host may retry it; nothing of it reached the medium, or its
 * LU would still hold it).
 */
static void ufs_zoned_mig_lost(UfsZonedState *s, UfsZonedReq *req)
{
    if (req->sreq) {
        SCSIRequest *sreq = req->sreq;

        req->sreq = NULL;
        ufs_zoned_teardown_begin(s);
        scsi_req_cancel(sreq);
        ufs_zoned_teardown_end(s);
        scsi_req_unref(sreq);
    }
    req->status = CHECK_CONDITION;
    req->sense_len = scsi_build_sense_buf(req->sense, sizeof(req->sense),
                                          SENSE_CODE(IO_ERROR), true);
    req->xfer_pending = false;
    req->scsi_done = true;
    req->pending_seq = ++s->pending_seq;
    req->finish_pending = true;
    ufs_zoned_req_pending_note(req);
    trace_ufs_zoned_mig_lost(req->slot);
}

/*
 * The destination runs for the first time since the load: settle what the
 * LUs brought back, then let the work BH and the service model go on.
 */
static void ufs_zoned_mig_resume(UfsZonedState *s)
{
    uint32_t i;

    s->mig_loaded = false;
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (!req->busy || !req->mig_live) {
            continue;
        }
        req->mig_live = false;
        if (!req->sreq) {
            /* Its LU did not bring it back: the host retries it. */
            error_report("ufs-zoned: command in context %u did not come "
                         "back with its LU; completing it with ABORTED "
                         "COMMAND", i);
            ufs_zoned_mig_lost(s, req);
            continue;
        }
        switch (scsi_zbc_req_resume(req->sreq)) {
        case SCSI_ZBC_RESUME_RESTART:
            /* The LU runs it from the start: so does its data. */
            req->xfer_pending = false;
            req->xfer_off = 0;
            req->overflow = false;
            req->overflow_bytes = 0;
            req->short_data_out = false;
            req->dma_error = false;
            break;
        case SCSI_ZBC_RESUME_CONTINUE:
            /* Its data is all on the LU's side: nothing to move. */
            req->xfer_pending = false;
            break;
        case SCSI_ZBC_RESUME_OTHER:
            /*
             * Another LU type goes on where it stood; but a transfer it
             * asked for can only be made if it brought its buffer back,
             * which the SCSI bus cannot tell: the host retries instead.
             */
            if (req->xfer_pending) {
                ufs_zoned_mig_lost(s, req);
            }
            break;
        }
        trace_ufs_zoned_mig_resume_req(i, !!req->sreq, req->xfer_off);
    }
    if (s->mig_stray) {
        s->mig_stray = false;
        ufs_zoned_mig_cancel_strays(s);
    }
    ufs_zoned_schedule(s);
    zr_service_timer_kick(&s->sched);
}

static void ufs_zoned_vm_state(void *opaque, bool running, RunState state)
{
    UfsZonedState *s = opaque;

    if (running && s->mig_loaded) {
        ufs_zoned_mig_resume(s);
    }
}

void ufs_zoned_migrate_init(UfsZonedState *s)
{
    s->vmse = qdev_add_vm_change_state_handler(DEVICE(s), ufs_zoned_vm_state,
                                               s);
}

void ufs_zoned_migrate_cleanup(UfsZonedState *s)
{
    if (s->vmse) {
        qemu_del_vm_change_state_handler(s->vmse);
        s->vmse = NULL;
    }
}

/* --- the controller ---------------------------------------------------- */

static const VMStateDescription vmstate_ufs_zoned_mcq_cfg = {
    .name = "ufs-zoned-mcq-cfg",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(sqattr, UfsMcqReg),
        VMSTATE_UINT32(sqlba, UfsMcqReg),
        VMSTATE_UINT32(squba, UfsMcqReg),
        VMSTATE_UINT32(sqdao, UfsMcqReg),
        VMSTATE_UINT32(sqisao, UfsMcqReg),
        VMSTATE_UINT32(sqcfg, UfsMcqReg),
        VMSTATE_UINT32(cqattr, UfsMcqReg),
        VMSTATE_UINT32(cqlba, UfsMcqReg),
        VMSTATE_UINT32(cquba, UfsMcqReg),
        VMSTATE_UINT32(cqdao, UfsMcqReg),
        VMSTATE_UINT32(cqisao, UfsMcqReg),
        VMSTATE_UINT32(cqcfg, UfsMcqReg),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_ufs_zoned_sq = {
    .name = "ufs-zoned-sq",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(head, UfsZonedSq),
        VMSTATE_UINT32(tail, UfsZonedSq),
        VMSTATE_UINT32(rtc, UfsZonedSq),
        VMSTATE_UINT32(cti, UfsZonedSq),
        VMSTATE_UINT32(rts, UfsZonedSq),
        VMSTATE_UINT32(is, UfsZonedSq),
        VMSTATE_UINT32(ie, UfsZonedSq),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_ufs_zoned_cq = {
    .name = "ufs-zoned-cq",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(head, UfsZonedCq),
        VMSTATE_UINT32(tail, UfsZonedCq),
        VMSTATE_UINT32(is, UfsZonedCq),
        VMSTATE_UINT32(ie, UfsZonedCq),
        VMSTATE_UINT32(iacr, UfsZonedCq),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_ufs_zoned_sq_mark = {
    .name = "ufs-zoned-sq-mark",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(q, UfsZonedSqMark),
        VMSTATE_UINT32(tail, UfsZonedSqMark),
        VMSTATE_END_OF_LIST()
    },
};

#define UFSZ_REG(f)     VMSTATE_UINT32(reg.f, UfsZonedState)

static const VMStateDescription vmstate_ufs_zoned_agg = {
    .name = "ufs-zoned-agg",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(count, UfsZonedAgg),
        VMSTATE_UINT32(unsignalled, UfsZonedAgg),
        VMSTATE_INT64(deadline, UfsZonedAgg),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * irq.c's state, sent only when it is not at its reset values, so that a
 * controller with msi=off,msix=off and no aggregation under way migrates
 * to and from builds that predate it.
 */
static bool ufs_zoned_irq_needed(void *opaque)
{
    UfsZonedState *s = opaque;
    uint32_t i;

    if (s->irq_msg_pending) {
        return true;
    }
    for (i = 0; i < UFSZ_AGG_N; i++) {
        if (s->agg[i].count || s->agg[i].unsignalled || s->agg[i].deadline) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_ufs_zoned_irq = {
    .name = "ufs-zoned/irq",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ufs_zoned_irq_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(irq_msg_pending, UfsZonedState),
        VMSTATE_STRUCT_ARRAY(agg, UfsZonedState, UFSZ_AGG_N, 1,
                             vmstate_ufs_zoned_agg, UfsZonedAgg),
        VMSTATE_END_OF_LIST()
    },
};

static bool ufs_zoned_msix_needed(void *opaque)
{
    return msix_present(PCI_DEVICE(opaque));
}

/* The MSI-X table and PBA (BAR 2); MSI lives in config space. */
static const VMStateDescription vmstate_ufs_zoned_msix = {
    .name = "ufs-zoned/msix",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ufs_zoned_msix_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_MSIX(parent_obj, UfsZonedState),
        VMSTATE_END_OF_LIST()
    },
};

static bool ufs_zoned_data_path_needed(void *opaque)
{
    return ((UfsZonedState *)opaque)->data_sg;
}

/* Counters added after the stream's first version */
static const VMStateDescription vmstate_ufs_zoned_data_path = {
    .name = "ufs-zoned/data-path",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ufs_zoned_data_path_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(data_sg, UfsZonedState),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_ufs_zoned = {
    .name = "ufs-zoned",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = ufs_zoned_pre_save,
    .pre_load = ufs_zoned_pre_load,
    .post_load = ufs_zoned_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, UfsZonedState),
        /* what the properties give: the destination must have the same */
        VMSTATE_UINT32_EQUAL(reg.cap, UfsZonedState,
                             "mode or auto-hibernate differ"),
        VMSTATE_UINT32_EQUAL(reg.mcqcap, UfsZonedState,
                             "mcq-queues differ"),
        UFSZ_REG(ahit), UFSZ_REG(is), UFSZ_REG(ie), UFSZ_REG(hcs),
        UFSZ_REG(hce), UFSZ_REG(uecpa), UFSZ_REG(uecdl), UFSZ_REG(uecn),
        UFSZ_REG(uect), UFSZ_REG(uecdme), UFSZ_REG(utriacr),
        UFSZ_REG(utrlba), UFSZ_REG(utrlbau), UFSZ_REG(utrldbr),
        UFSZ_REG(utrlclr), UFSZ_REG(utrlrsr), UFSZ_REG(utrlcnr),
        UFSZ_REG(utmrlba), UFSZ_REG(utmrlbau), UFSZ_REG(utmrldbr),
        UFSZ_REG(utmrlclr), UFSZ_REG(utmrlrsr), UFSZ_REG(uiccmd),
        UFSZ_REG(ucmdarg1), UFSZ_REG(ucmdarg2), UFSZ_REG(ucmdarg3),
        UFSZ_REG(config), UFSZ_REG(mcqconfig), UFSZ_REG(esilba),
        UFSZ_REG(esiuba),
        VMSTATE_UINT32(utrldbr, UfsZonedState),
        VMSTATE_UINT32_ARRAY(rings, UfsZonedState, UFSZ_NUTRS),
        VMSTATE_UINT32(nr_rings, UfsZonedState),
        VMSTATE_UINT32(utmrl_pending, UfsZonedState),
        VMSTATE_BOOL(mcq_fetch_pending, UfsZonedState),
        VMSTATE_BOOL(link_up, UfsZonedState),
        VMSTATE_BOOL(h8, UfsZonedState),
        VMSTATE_INT64(h8_exit_end_ns, UfsZonedState),
        VMSTATE_UINT64(h8_entries, UfsZonedState),
        VMSTATE_UINT64(h8_exits, UfsZonedState),
        VMSTATE_TIMER_PTR(ahit_timer, UfsZonedState),
        VMSTATE_TIMER_PTR(h8_exit_timer, UfsZonedState),
        VMSTATE_BOOL(fdeviceinit, UfsZonedState),
        VMSTATE_BOOL(fpoweronwpen, UfsZonedState),
        VMSTATE_BOOL(fbkopsen, UfsZonedState),
        VMSTATE_UINT8(active_icc_level, UfsZonedState),
        VMSTATE_UINT16(ee_control, UfsZonedState),
        VMSTATE_UINT8(max_num_rtt, UfsZonedState),
        VMSTATE_UINT32(seconds_passed, UfsZonedState),
        VMSTATE_STRUCT_ARRAY(mcq_cfg, UfsZonedState, UFSZ_MCQ_MAX_QUEUES, 1,
                             vmstate_ufs_zoned_mcq_cfg, UfsMcqReg),
        VMSTATE_STRUCT_ARRAY(sq, UfsZonedState, UFSZ_MCQ_MAX_QUEUES, 1,
                             vmstate_ufs_zoned_sq, UfsZonedSq),
        VMSTATE_STRUCT_ARRAY(cq, UfsZonedState, UFSZ_MCQ_MAX_QUEUES, 1,
                             vmstate_ufs_zoned_cq, UfsZonedCq),
        VMSTATE_UINT32(mcq_active, UfsZonedState),
        VMSTATE_STRUCT_ARRAY(sq_marks, UfsZonedState, UFSZ_MCQ_MARKS, 1,
                             vmstate_ufs_zoned_sq_mark, UfsZonedSqMark),
        VMSTATE_UINT32(nr_sq_marks, UfsZonedState),
        VMSTATE_UINT64(pending_seq, UfsZonedState),
        VMSTATE_UINT64(unaligned_writes, UfsZonedState),
        VMSTATE_UINT64_ARRAY(unaligned_lu, UfsZonedState, UFSZ_MAX_LUS),
        VMSTATE_UINT64(lu_commands, UfsZonedState),
        VMSTATE_UINT64(stalled, UfsZonedState),
        VMSTATE_UINT64(tm_aborts, UfsZonedState),
        VMSTATE_UINT64(tm_stalled, UfsZonedState),
        VMSTATE_UINT64(lu_resets, UfsZonedState),
        VMSTATE_UINT64(cleared, UfsZonedState),
        VMSTATE_UINT64(sq_cleanups, UfsZonedState),
        VMSTATE_UINT64(host_resets, UfsZonedState),
        VMSTATE_UINT32_ARRAY(start_log.entry, UfsZonedState,
                             ZR_START_LOG_LEN),
        VMSTATE_UINT32(start_log.n, UfsZonedState),
        VMSTATE_STRUCT(dispatch, UfsZonedState, 1, vmstate_zr_dispatch,
                       ZrDispatch),
        VMSTATE_STRUCT(svc, UfsZonedState, 1, vmstate_zr_service,
                       ZrService),
        /* last: they go back on the dispatch engine's lists */
        {
            .name = "req",
            .version_id = 1,
            .size = sizeof(UfsZonedReq) * UFSZ_NR_REQS,
            .info = &ufs_zoned_vmstate_info_reqs,
            .flags = VMS_SINGLE,
            .offset = offsetof(UfsZonedState, req),
        },
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_ufs_zoned_irq,
        &vmstate_ufs_zoned_msix,
        &vmstate_ufs_zoned_data_path,
        NULL
    },
};
