/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: migration and snapshots (docs/system/devices/nvme-zns.rst,
 * "Migration"; docs/devel/zone-state.md, "Migration and snapshots").
 *
 * What moves: the registers and the bring-up state (Base 3.1), every
 * queue as it stands (base, size, head, tail, phase, vector: Base 3.3),
 * the doorbell marks not fetched yet, the interrupt state (INTMS, the
 * pin, coalescing counts and deadlines, MSI-X table and PBA), the
 * features, the asynchronous event state (outstanding AERs, queued
 * events, masked types), the error log, SMART counters, the dispatch
 * engine and the service model, and every command the controller holds:
 *
 *  - fetched, not started (pending in the dispatch engine): it starts on
 *    the destination when the policy picks it, in its place;
 *  - started, in its modelled service time, its backend I/O over: it
 *    keeps its completion time (guest time moves with the VM), and a read
 *    that went through the bounce buffer brings its data;
 *  - done, its CQE not posted yet (or waiting for room in a full CQ):
 *    posted on the destination, in its order;
 *  - an outstanding Asynchronous Event Request, a Delete I/O SQ waiting
 *    for its commands: still waiting.
 *
 * Each namespace (its own device on the controller's bus) moves its zone
 * model, zone descriptor extensions, Changed Zone List and counters.
 *
 * While the VM is stopped the controller holds its work (it fetches,
 * starts and posts nothing), and the block layer drains the drives before
 * the devices are saved, so no backend I/O is in flight; a save that
 * finds some anyway is refused (-EBUSY), never made half.  A controller
 * reset under way ends at the save; a shutdown under way goes on on the
 * destination.  The stream is input not trusted: every index, count and
 * state is checked on load (each command as its submission checked it),
 * and what does not fit fails the load with nothing left linked; the
 * controller then stays inert until a reset.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "migration/qemu-file-types.h"
#include "migration/vmstate.h"
#include "hw/pci/msix.h"
#include "system/runstate.h"
#include "hw/block/zoned-reorder/vmstate.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define NZ_MIG_REQS_END     UINT32_MAX
#define NZ_MIG_MAX_SEGS     1024
#define NZ_MIG_NO_AER       UINT32_MAX

/* Where a command waits: which of the controller's lists holds it */
enum {
    NZ_MIG_LIST_NONE,
    NZ_MIG_LIST_DONE,
    NZ_MIG_LIST_CQ,         /* its CQ's waiting list (cqid) */
    NZ_MIG_LIST_PARKED,
    NZ_MIG_LIST_FINISHING,
};

/* --- one command --------------------------------------------------------- */

static const VMStateDescription vmstate_nz_req = {
    .name = "nvme-zns-req",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT8(mig_state, NzReq),
        VMSTATE_UINT16(sqid, NzReq),
        VMSTATE_UINT16(cqid, NzReq),
        VMSTATE_UINT16(sq_head, NzReq),
        /* as fetched: little-endian, byte for byte */
        {
            .name = "cmd",
            .offset = offsetof(NzReq, cmd),
            .size = sizeof(NvmeCmd),
            .info = &vmstate_info_buffer,
            .flags = VMS_BUFFER,
        },
        VMSTATE_UINT32(mig_nsid, NzReq),
        VMSTATE_STRUCT(zr, NzReq, 1, vmstate_zr_cmd, ZrCmd),
        VMSTATE_UINT64(slba, NzReq),
        VMSTATE_UINT32(nlb, NzReq),
        VMSTATE_UINT64(buf_len, NzReq),
        VMSTATE_BOOL(to_host, NzReq),
        VMSTATE_BOOL(mapped, NzReq),
        VMSTATE_UINT64(to_host_len, NzReq),
        VMSTATE_BOOL(svc_done, NzReq),
        VMSTATE_BOOL(io_done, NzReq),
        VMSTATE_UINT16(status, NzReq),
        VMSTATE_UINT32(dw0, NzReq),
        VMSTATE_UINT32(dw1, NzReq),
        VMSTATE_BOOL(cid_held, NzReq),
        VMSTATE_UINT8(mig_list, NzReq),
        VMSTATE_UINT32(mig_pos, NzReq),
        VMSTATE_END_OF_LIST()
    },
};

/* Does @r hold read data only its bounce buffer has (not yet DMAed)? */
static bool nz_mig_req_data(const NzReq *r)
{
    return r->mig_state == NZ_REQ_RUN && r->io_done && r->to_host &&
           !r->mapped && r->to_host_len && nz_status_ok(r->status);
}

static NzCtrl *nz_of_reqs(void *pv)
{
    return (NzCtrl *)((char *)pv - offsetof(NzCtrl, req));
}

/* The busy contexts: index, state, data segments, data; an end mark */
static int nz_put_reqs(QEMUFile *f, void *pv, size_t size,
                       const VMStateField *field, JSONWriter *vmdesc)
{
    NzCtrl *s = nz_of_reqs(pv);
    uint32_t i, j;
    int ret;

    for (i = 0; i < NZ_NR_REQS; i++) {
        NzReq *r = &s->req[i];

        if (r->state == NZ_REQ_FREE) {
            continue;
        }
        qemu_put_be32(f, i);
        ret = vmstate_save_state(f, &vmstate_nz_req, r, NULL);
        if (ret) {
            return ret;
        }
        qemu_put_be32(f, r->sg.n);
        for (j = 0; j < r->sg.n; j++) {
            qemu_put_be64(f, r->sg.seg[j].addr);
            qemu_put_be32(f, r->sg.seg[j].len);
            qemu_put_byte(f, r->sg.seg[j].bucket);
        }
        if (nz_mig_req_data(r)) {
            qemu_put_buffer(f, r->buf, r->to_host_len);
        }
        trace_nvme_zns_mig_save_req(i, r->sqid, le16_to_cpu(r->cmd.cid),
                                    r->mig_state, r->mig_list);
    }
    qemu_put_be32(f, NZ_MIG_REQS_END);
    return 0;
}

static void nz_mig_unload(NzCtrl *s);

static int nz_get_reqs(QEMUFile *f, void *pv, size_t size,
                       const VMStateField *field)
{
    NzCtrl *s = nz_of_reqs(pv);
    uint32_t i, j, n;
    int ret;

    while ((i = qemu_get_be32(f)) != NZ_MIG_REQS_END) {
        NzReq *r;

        if (i >= NZ_NR_REQS || s->req[i].state != NZ_REQ_FREE) {
            error_report("nvme-zns: saved command context %u is out of "
                         "range or given twice", i);
            nz_mig_unload(s);
            return -EINVAL;
        }
        r = &s->req[i];
        memset(r, 0, offsetof(NzReq, map));
        r->s = s;
        r->idx = i;
        ret = vmstate_load_state(f, &vmstate_nz_req, r, 1);
        /* busy from here on: nz_mig_unload() frees it */
        r->state = NZ_REQ_WAIT;
        if (ret) {
            nz_mig_unload(s);
            return ret;
        }
        n = qemu_get_be32(f);
        if (n > NZ_MIG_MAX_SEGS || r->buf_len > NZ_MAX_XFER ||
            r->to_host_len > r->buf_len) {
            error_report("nvme-zns: saved command %u: %u data segments, "
                         "%" PRIu64 " bytes", i, n, r->buf_len);
            nz_mig_unload(s);
            return -EINVAL;
        }
        r->sg.n = 0;
        r->sg.bytes = 0;
        if (r->sg.alloc < n) {
            r->sg.alloc = n;
            r->sg.seg = g_renew(NzSeg, r->sg.seg, n);
        }
        for (j = 0; j < n; j++) {
            NzSeg *seg = &r->sg.seg[j];

            seg->addr = qemu_get_be64(f);
            seg->len = qemu_get_be32(f);
            seg->bucket = qemu_get_byte(f);
            r->sg.bytes += seg->len;
        }
        r->sg.n = n;
        if (nz_mig_req_data(r)) {
            qemu_get_buffer(f, nz_req_buf(r, false), r->to_host_len);
        }
    }
    ret = qemu_file_get_error(f);
    if (ret) {
        nz_mig_unload(s);
    }
    return ret;
}

static const VMStateInfo nz_vmstate_info_reqs = {
    .name = "nvme-zns-reqs",
    .get = nz_get_reqs,
    .put = nz_put_reqs,
};

/* --- save ---------------------------------------------------------------- */

static void nz_mig_mark_list(NzReq *r, uint8_t list, uint32_t *pos)
{
    r->mig_list = list;
    r->mig_pos = (*pos)++;
}

static int nz_pre_save(void *opaque)
{
    NzCtrl *s = opaque;
    uint32_t i, pos = 0;
    NzReq *r;

    if (s->work.running) {
        error_report("nvme-zns: cannot migrate from inside its own work");
        return -EBUSY;
    }
    /*
     * A controller reset under way only waited for backend I/O, which the
     * stop drained: it ends here (no guest memory access), the commands
     * it ends with it.
     */
    if (s->resetting && !nz_reset_finish(s)) {
        error_report("nvme-zns: cannot migrate in the middle of a "
                     "controller reset with backend I/O in flight");
        return -EBUSY;
    }
    if (s->in_flight_io || !QTAILQ_EMPTY(&s->orphan_wait)) {
        error_report("nvme-zns: cannot migrate with backend I/O in flight");
        return -EBUSY;
    }
    zr_start_log_linearize(&s->start_log);
    for (i = 0; i < NZ_NR_REQS; i++) {
        r = &s->req[i];
        if (r->state == NZ_REQ_FREE) {
            continue;
        }
        if (r->cancelled || r->nr_aio || r->map.n ||
            (r->zio_used && r->zio.state != ZR_IO_IDLE) ||
            (r->state == NZ_REQ_RUN && !r->io_done)) {
            error_report("nvme-zns: cannot migrate: command %u of SQ %u "
                         "has I/O in flight", le16_to_cpu(r->cmd.cid),
                         r->sqid);
            return -EBUSY;
        }
        r->mig_state = r->state;
        r->mig_nsid = r->ns ? r->ns->nsid : 0;
        r->mig_list = NZ_MIG_LIST_NONE;
        r->mig_pos = 0;
    }
    QTAILQ_FOREACH(r, &s->done, link) {
        nz_mig_mark_list(r, NZ_MIG_LIST_DONE, &pos);
    }
    QTAILQ_FOREACH(r, &s->parked, link) {
        nz_mig_mark_list(r, NZ_MIG_LIST_PARKED, &pos);
    }
    QTAILQ_FOREACH(r, &s->finishing, link) {
        nz_mig_mark_list(r, NZ_MIG_LIST_FINISHING, &pos);
    }
    for (i = 0; i < NZ_NR_Q; i++) {
        QTAILQ_FOREACH(r, &s->cq[i].waiting, link) {
            nz_mig_mark_list(r, NZ_MIG_LIST_CQ, &pos);
        }
    }
    for (i = 0; i <= NZ_AERL; i++) {
        s->mig_aer[i] = i < s->nr_aer ? s->aer[i]->idx : NZ_MIG_NO_AER;
    }
    return 0;
}

/* --- load ---------------------------------------------------------------- */

/* Undo a load that failed half-way: no context stays on a list. */
static void nz_mig_unload(NzCtrl *s)
{
    uint32_t i;

    zr_dispatch_flush(&s->dispatch, NULL, NULL);
    zr_service_flush(&s->svc);
    nz_queues_reset(s);
    for (i = 0; i < NZ_NR_REQS; i++) {
        memset(&s->req[i], 0, offsetof(NzReq, map));
        s->req[i].s = s;
        s->req[i].idx = i;
    }
    memset(s->aer, 0, sizeof(s->aer));
    s->nr_aer = 0;
    zr_start_log_clear(&s->start_log);
    s->mig_loaded = false;
}

static int nz_pre_load(void *opaque)
{
    NzCtrl *s = opaque;

    s->mig_loaded = false;
    /* until post_load accepts what came, the controller stays inert */
    s->mig_bad = true;
    return 0;
}

static bool nz_mig_queues_ok(NzCtrl *s, Error **errp)
{
    uint32_t q, i, nr_sq[NZ_NR_Q] = { 0 };

    for (q = 0; q < NZ_NR_Q; q++) {
        NzSq *sq = &s->sq[q];
        NzCq *cq = &s->cq[q];

        if (q > s->nr_ioq && (sq->valid || cq->valid)) {
            error_setg(errp, "queue %u beyond the %u I/O queues", q,
                       s->nr_ioq);
            return false;
        }
        if (cq->valid && (cq->size < 2 || cq->size > NZ_MQES + 1 ||
                          cq->head >= cq->size || cq->tail >= cq->size ||
                          (cq->ien && !nz_irq_vector_valid(s, cq->iv)))) {
            error_setg(errp, "CQ %u does not fit", q);
            return false;
        }
        if (!sq->valid) {
            continue;
        }
        if (sq->size < 2 || sq->size > NZ_MQES + 1 ||
            sq->head >= sq->size || sq->tail >= sq->size ||
            sq->cqid >= NZ_NR_Q || !s->cq[sq->cqid].valid ||
            (q == 0) != (sq->cqid == 0)) {
            error_setg(errp, "SQ %u does not fit", q);
            return false;
        }
        nr_sq[sq->cqid]++;
    }
    for (q = 0; q < NZ_NR_Q; q++) {
        if (s->cq[q].valid && s->cq[q].nr_sq != nr_sq[q]) {
            error_setg(errp, "CQ %u: %u SQs saved, %u counted", q,
                       s->cq[q].nr_sq, nr_sq[q]);
            return false;
        }
    }
    if (s->nr_marks > NZ_SQ_MARKS) {
        error_setg(errp, "%u doorbell marks", s->nr_marks);
        return false;
    }
    for (i = 0; i < s->nr_marks; i++) {
        NzSqMark *m = &s->marks[i];

        if (!m->sqid || m->sqid >= NZ_NR_Q || !s->sq[m->sqid].valid ||
            m->tail >= s->sq[m->sqid].size) {
            error_setg(errp, "doorbell mark %u does not fit", i);
            return false;
        }
    }
    if (s->nr_aer > NZ_AERL + 1 || s->nr_events > NZ_MAX_EVENTS ||
        !zr_start_log_loaded(&s->start_log)) {
        error_setg(errp, "saved counts out of range");
        return false;
    }
    for (i = 0; i < s->nr_events; i++) {
        if (s->events[i].type > NVME_AER_TYPE_VENDOR_SPECIFIC) {
            error_setg(errp, "saved event %u of type %u", i,
                       s->events[i].type);
            return false;
        }
    }
    /* CC.MPS within CAP.MPSMIN..MPSMAX (4 KiB to 64 KiB) */
    if (s->page_size < NZ_PAGE || s->page_size > NZ_PAGE << 4 ||
        !is_power_of_2(s->page_size) ||
        ((s->csts & NVME_CSTS_READY) &&
         s->page_size != NZ_PAGE << NVME_CC_MPS(s->cc))) {
        error_setg(errp, "saved memory page size %u", s->page_size);
        return false;
    }
    return true;
}

/*
 * An I/O command waiting to start or started: what its submission checked
 * (namespace, opcode, range, transfer size) must hold of the saved command
 * and agree with the saved fields, and its data segments must cover its
 * transfer; the engine's view of it is derived again from the command.
 */
static bool nz_mig_io_ok(NzReq *r)
{
    NzReq t;
    uint64_t bytes = 0;
    uint16_t status;
    uint32_t i;

    memcpy(&t, r, offsetof(NzReq, map));
    t.ns = NULL;
    t.slba = 0;
    t.nlb = 0;
    t.buf_len = 0;
    t.to_host = false;
    status = nz_io_check_cmd(&t);
    if (!nz_status_ok(status) || t.ns != r->ns ||
        t.slba != r->slba || t.nlb != r->nlb || t.buf_len != r->buf_len ||
        t.to_host != r->to_host) {
        return false;
    }
    for (i = 0; i < r->sg.n; i++) {
        if (r->sg.seg[i].bucket && !r->to_host) {
            return false;
        }
        bytes += r->sg.seg[i].len;
    }
    if (bytes < r->buf_len) {
        return false;
    }
    nz_io_zr_derive(r);
    return true;
}

/* A parked Delete I/O SQ: of a valid SQ being deleted, one per SQ */
static bool nz_mig_delete_ok(NzCtrl *s, NzReq *r, unsigned long *seen)
{
    uint32_t qid = le32_to_cpu(r->cmd.cdw10) & 0xffff;

    if (!qid || qid > s->nr_ioq || !s->sq[qid].valid ||
        !s->sq[qid].deleting || test_bit(qid, seen)) {
        return false;
    }
    set_bit(qid, seen);
    return true;
}

/* Whether loaded context @r can be what it says it is */
static bool nz_mig_req_ok(NzCtrl *s, NzReq *r, unsigned long *deleting,
                          Error **errp)
{
    NzSq *sq = r->sqid < NZ_NR_Q ? &s->sq[r->sqid] : NULL;
    bool admin = r->idx >= NZ_IO_REQS;
    bool started = r->zr.state == ZR_CMD_STARTED;

    if (!sq || !sq->valid || (r->sqid == 0) != admin ||
        r->cqid != sq->cqid || r->sq_head >= sq->size) {
        error_setg(errp, "command context %u does not fit its queue",
                   r->idx);
        return false;
    }
    r->ns = r->mig_nsid <= NZ_MAX_NS ? s->ns[r->mig_nsid] : NULL;
    if (r->mig_nsid && !r->ns) {
        error_setg(errp, "command context %u: no namespace %u", r->idx,
                   r->mig_nsid);
        return false;
    }
    switch (r->mig_state) {
    case NZ_REQ_WAIT:
        if (admin || r->zr.state != ZR_CMD_PENDING || r->mig_list ||
            !nz_mig_io_ok(r)) {
            goto bad;
        }
        break;
    case NZ_REQ_RUN:
        /* in service (started), or its service time over (the engine
         * completed it) waiting for its I/O or on the finishing list */
        if (admin || started == r->svc_done ||
            (r->svc_done && r->zr.state != ZR_CMD_IDLE) || !r->io_done ||
            (r->mig_list && r->mig_list != NZ_MIG_LIST_FINISHING) ||
            (r->mig_list == NZ_MIG_LIST_FINISHING) != r->svc_done ||
            !nz_mig_io_ok(r)) {
            goto bad;
        }
        break;
    case NZ_REQ_DONE:
        if (r->zr.state != ZR_CMD_IDLE ||
            (r->mig_list != NZ_MIG_LIST_DONE &&
             r->mig_list != NZ_MIG_LIST_CQ)) {
            goto bad;
        }
        break;
    case NZ_REQ_PARKED:
        if (!admin || r->mig_list != NZ_MIG_LIST_PARKED ||
            (r->cmd.opcode != NVME_ADM_CMD_ASYNC_EV_REQ &&
             (r->cmd.opcode != NVME_ADM_CMD_DELETE_SQ ||
              !nz_mig_delete_ok(s, r, deleting)))) {
            goto bad;
        }
        break;
    default:
        goto bad;
    }
    if (admin && r->zr.state != ZR_CMD_IDLE) {
        goto bad;
    }
    return true;

bad:
    error_setg(errp, "command context %u is in an impossible state (%u, "
               "list %u)", r->idx, r->mig_state, r->mig_list);
    return false;
}

static int nz_cmp_svc_order(const void *a, const void *b)
{
    const NzReq *x = *(NzReq *const *)a;
    const NzReq *y = *(NzReq *const *)b;

    return x->zr.svc_order < y->zr.svc_order ? -1 :
           x->zr.svc_order > y->zr.svc_order;
}

static int nz_cmp_list_pos(const void *a, const void *b)
{
    const NzReq *x = *(NzReq *const *)a;
    const NzReq *y = *(NzReq *const *)b;

    return x->mig_pos < y->mig_pos ? -1 : x->mig_pos > y->mig_pos;
}

/* The CID bitmaps, free contexts, per-SQ counts the contexts give */
static bool nz_mig_derive(NzCtrl *s, Error **errp)
{
    uint32_t i, in_ctrl[NZ_NR_Q] = { 0 };

    for (i = 0; i < NZ_NR_Q; i++) {
        bitmap_zero(s->cids[i], 1u << 16);
    }
    for (i = 0; i < NZ_NR_REQS; i++) {
        NzReq *r = &s->req[i];
        uint16_t cid = le16_to_cpu(r->cmd.cid);

        if (r->state == NZ_REQ_FREE) {
            continue;
        }
        if (i < NZ_IO_REQS) {
            clear_bit(i, s->io_free);
            s->io_reqs_busy++;
        }
        in_ctrl[r->sqid]++;
        if (r->cid_held) {
            if (test_bit(cid, s->cids[r->sqid])) {
                error_setg(errp, "SQ %u: CID %u held twice", r->sqid, cid);
                return false;
            }
            set_bit(cid, s->cids[r->sqid]);
        }
    }
    for (i = 0; i < NZ_NR_Q; i++) {
        if (s->sq[i].valid && s->sq[i].in_ctrl != in_ctrl[i]) {
            error_setg(errp, "SQ %u: %u commands saved, %u counted", i,
                       s->sq[i].in_ctrl, in_ctrl[i]);
            return false;
        }
        nz_irq_cq_moved(s, i);
    }
    return true;
}

static int nz_post_load(void *opaque, int version_id)
{
    NzCtrl *s = opaque;
    NzReq *started[NZ_NR_REQS], *listed[NZ_NR_REQS];
    DECLARE_BITMAP(deleting, NZ_NR_Q);
    DECLARE_BITMAP(aer_seen, NZ_NR_REQS);
    uint32_t i, nr_started = 0, nr_listed = 0, nr_aer_parked = 0;
    Error *err = NULL;

    bitmap_zero(deleting, NZ_NR_Q);
    bitmap_zero(aer_seen, NZ_NR_REQS);

    /* the contexts' own states were loaded as mig_state */
    s->io_reqs_busy = 0;
    bitmap_fill(s->io_free, NZ_IO_REQS);
    s->nr_cq_waiting = 0;
    for (i = 0; i < NZ_NR_Q; i++) {
        QTAILQ_INIT(&s->cq[i].waiting);
    }
    if (!nz_mig_queues_ok(s, &err)) {
        goto fail;
    }
    for (i = 0; i < NZ_NR_REQS; i++) {
        NzReq *r = &s->req[i];

        if (r->state == NZ_REQ_FREE) {
            continue;
        }
        if (!nz_mig_req_ok(s, r, deleting, &err)) {
            goto fail;
        }
        nr_aer_parked += r->mig_state == NZ_REQ_PARKED &&
                         r->cmd.opcode == NVME_ADM_CMD_ASYNC_EV_REQ;
        r->state = r->mig_state;
        r->zr.opaque = r;
        r->on_finishing = r->mig_list == NZ_MIG_LIST_FINISHING;
        if (r->mig_list) {
            listed[nr_listed++] = r;
        }
        if (r->zr.state == ZR_CMD_PENDING) {
            if (!zr_dispatch_restore(&s->dispatch, &r->zr, &err)) {
                r->zr.state = ZR_CMD_IDLE;
                goto fail;
            }
        } else if (r->zr.state == ZR_CMD_STARTED) {
            started[nr_started++] = r;
        }
    }
    if (!nz_mig_derive(s, &err)) {
        goto fail;
    }
    /* In flight: start order in the engine; in service if not done */
    qsort(started, nr_started, sizeof(started[0]), nz_cmp_svc_order);
    for (i = 0; i < nr_started; i++) {
        NzReq *r = started[i];

        if (!zr_dispatch_restore(&s->dispatch, &r->zr, &err)) {
            r->zr.state = ZR_CMD_IDLE;
            goto fail;
        }
        if (!r->svc_done && !zr_service_restore(&s->svc, &r->zr, &err)) {
            goto fail;
        }
    }
    /* The lists, each in its saved order */
    qsort(listed, nr_listed, sizeof(listed[0]), nz_cmp_list_pos);
    for (i = 0; i < nr_listed; i++) {
        NzReq *r = listed[i];

        switch (r->mig_list) {
        case NZ_MIG_LIST_DONE:
            QTAILQ_INSERT_TAIL(&s->done, r, link);
            break;
        case NZ_MIG_LIST_CQ:
            QTAILQ_INSERT_TAIL(&s->cq[r->cqid].waiting, r, link);
            s->nr_cq_waiting++;
            break;
        case NZ_MIG_LIST_PARKED:
            QTAILQ_INSERT_TAIL(&s->parked, r, link);
            break;
        case NZ_MIG_LIST_FINISHING:
            QTAILQ_INSERT_TAIL(&s->finishing, r, link);
            break;
        }
    }
    /* each outstanding AER once, and every parked AER among them */
    if (nr_aer_parked != s->nr_aer) {
        error_setg(&err, "%u AERs saved, %u parked", s->nr_aer,
                   nr_aer_parked);
        goto fail;
    }
    for (i = 0; i <= NZ_AERL; i++) {
        uint32_t idx = s->mig_aer[i];

        if ((i < s->nr_aer) != (idx != NZ_MIG_NO_AER) ||
            (idx != NZ_MIG_NO_AER &&
             (idx < NZ_IO_REQS || idx >= NZ_NR_REQS ||
              test_bit(idx, aer_seen) ||
              s->req[idx].state != NZ_REQ_PARKED ||
              s->req[idx].cmd.opcode != NVME_ADM_CMD_ASYNC_EV_REQ))) {
            error_setg(&err, "saved AER %u does not fit", i);
            goto fail;
        }
        if (idx != NZ_MIG_NO_AER) {
            set_bit(idx, aer_seen);
        }
        s->aer[i] = idx == NZ_MIG_NO_AER ? NULL : &s->req[idx];
    }
    s->policy = s->dispatch.cfg.policy;
    nz_arb_set_burst(s);
    nz_irq_post_load(s);
    s->mig_loaded = true;
    s->mig_bad = false;
    trace_nvme_zns_mig_loaded(nr_started,
                              zr_dispatch_nr_pending(&s->dispatch),
                              nr_listed);
    return 0;

fail:
    error_prepend(&err, "nvme-zns: ");
    error_report_err(err);
    nz_mig_unload(s);
    return -EINVAL;
}

static void nz_vm_stop(NzCtrl *s)
{
    if (!s->vm_stopped) {
        s->vm_stopped = true;
        zr_service_timer_hold(&s->sched);
    }
}

/*
 * The VM stops: the controller holds its work (work.c) and its service
 * model, before the namespaces' handlers drain the drives (a qdev handler
 * of the controller's depth runs before their priority-0 ones on a stop).
 * It runs: the work goes on, the stream's too after a load.
 */
static void nz_vm_state(void *opaque, bool running, RunState state)
{
    NzCtrl *s = opaque;

    if (!running) {
        nz_vm_stop(s);
        return;
    }
    s->mig_loaded = false;
    if (s->vm_stopped) {
        s->vm_stopped = false;
        zr_service_timer_release(&s->sched);
    }
    nz_schedule(s);
}

void nz_migrate_init(NzCtrl *s)
{
    s->vmse = qdev_add_vm_change_state_handler(DEVICE(s), nz_vm_state, s);
    if (!runstate_is_running()) {
        nz_vm_stop(s);
    }
}

void nz_migrate_cleanup(NzCtrl *s)
{
    if (s->vmse) {
        qemu_del_vm_change_state_handler(s->vmse);
        s->vmse = NULL;
    }
}

/* --- the controller ------------------------------------------------------ */

static const VMStateDescription vmstate_nz_sq = {
    .name = "nvme-zns-sq",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(valid, NzSq),
        VMSTATE_UINT64(addr, NzSq),
        VMSTATE_UINT32(size, NzSq),
        VMSTATE_UINT32(head, NzSq),
        VMSTATE_UINT32(tail, NzSq),
        VMSTATE_UINT16(cqid, NzSq),
        VMSTATE_UINT8(prio, NzSq),
        VMSTATE_UINT32(in_ctrl, NzSq),
        VMSTATE_BOOL(deleting, NzSq),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_nz_cq = {
    .name = "nvme-zns-cq",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(valid, NzCq),
        VMSTATE_UINT64(addr, NzCq),
        VMSTATE_UINT32(size, NzCq),
        VMSTATE_UINT32(head, NzCq),
        VMSTATE_UINT32(tail, NzCq),
        VMSTATE_BOOL(phase, NzCq),
        VMSTATE_BOOL(ien, NzCq),
        VMSTATE_UINT16(iv, NzCq),
        VMSTATE_UINT32(nr_sq, NzCq),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_nz_mark = {
    .name = "nvme-zns-sq-mark",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT16(sqid, NzSqMark),
        VMSTATE_UINT32(tail, NzSqMark),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_nz_vec = {
    .name = "nvme-zns-vector",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(count, NzVec),
        VMSTATE_INT64(deadline, NzVec),
        VMSTATE_BOOL(cd, NzVec),
        VMSTATE_BOOL(pending, NzVec),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_nz_event = {
    .name = "nvme-zns-event",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT8(type, NzEvent),
        VMSTATE_UINT8(info, NzEvent),
        VMSTATE_UINT8(log, NzEvent),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_nz_err = {
    .name = "nvme-zns-error-entry",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(count, NzErrEntry),
        VMSTATE_UINT16(sqid, NzErrEntry),
        VMSTATE_UINT16(cid, NzErrEntry),
        VMSTATE_UINT16(status, NzErrEntry),
        VMSTATE_UINT64(lba, NzErrEntry),
        VMSTATE_UINT32(nsid, NzErrEntry),
        VMSTATE_END_OF_LIST()
    },
};

static bool nz_msix_test(void *opaque, int version_id)
{
    return msix_present(nz_pci(opaque));
}

static bool nz_data_path_needed(void *opaque)
{
    NzCtrl *s = opaque;

    return s->data_mapped || s->data_bounced;
}

/* Counters added after the stream's first version */
static const VMStateDescription vmstate_nz_data_path = {
    .name = "nvme-zns/data-path",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = nz_data_path_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(data_mapped, NzCtrl),
        VMSTATE_UINT64(data_bounced, NzCtrl),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_nvme_zns = {
    .name = TYPE_NVME_ZNS,
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = nz_pre_save,
    .pre_load = nz_pre_load,
    .post_load = nz_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, NzCtrl),
        /* what the properties give: the destination must have the same */
        VMSTATE_UINT64_EQUAL(cap, NzCtrl, "the controller's CAP differs"),
        VMSTATE_UINT32_EQUAL(nr_ioq, NzCtrl, "queues differs"),
        VMSTATE_UINT32(intms, NzCtrl),
        VMSTATE_UINT32(cc, NzCtrl),
        VMSTATE_UINT32(csts, NzCtrl),
        VMSTATE_UINT32(aqa, NzCtrl),
        VMSTATE_UINT64(asq, NzCtrl),
        VMSTATE_UINT64(acq, NzCtrl),
        VMSTATE_BOOL(enabling, NzCtrl),
        VMSTATE_BOOL(shutting_down, NzCtrl),
        VMSTATE_UINT32(page_size, NzCtrl),
        VMSTATE_STRUCT_ARRAY(sq, NzCtrl, NZ_NR_Q, 1, vmstate_nz_sq, NzSq),
        VMSTATE_STRUCT_ARRAY(cq, NzCtrl, NZ_NR_Q, 1, vmstate_nz_cq, NzCq),
        VMSTATE_STRUCT_ARRAY(marks, NzCtrl, NZ_SQ_MARKS, 1,
                             vmstate_nz_mark, NzSqMark),
        VMSTATE_UINT32(nr_marks, NzCtrl),
        VMSTATE_BOOL(marks_overflow, NzCtrl),
        VMSTATE_STRUCT_ARRAY(vec, NzCtrl, NZ_NR_Q, 1, vmstate_nz_vec,
                             NzVec),
        VMSTATE_UINT8(coal_thr, NzCtrl),
        VMSTATE_UINT8(coal_time, NzCtrl),
        VMSTATE_BOOL(intx_level, NzCtrl),
        VMSTATE_UINT64(interrupts, NzCtrl),
        VMSTATE_UINT32(arb, NzCtrl),
        VMSTATE_UINT32(temp_thresh, NzCtrl),
        VMSTATE_UINT32(err_recovery, NzCtrl),
        VMSTATE_BOOL(vwc, NzCtrl),
        VMSTATE_UINT32(nsqa, NzCtrl),
        VMSTATE_UINT32(ncqa, NzCtrl),
        VMSTATE_BOOL(queues_set, NzCtrl),
        VMSTATE_UINT32(aec, NzCtrl),
        VMSTATE_UINT32(write_atomicity, NzCtrl),
        VMSTATE_INT64(timestamp_base_ms, NzCtrl),
        VMSTATE_BOOL(timestamp_set, NzCtrl),
        VMSTATE_UINT32_ARRAY(mig_aer, NzCtrl, NZ_AERL + 1),
        VMSTATE_UINT32(nr_aer, NzCtrl),
        VMSTATE_STRUCT_ARRAY(events, NzCtrl, NZ_MAX_EVENTS, 1,
                             vmstate_nz_event, NzEvent),
        VMSTATE_UINT32(nr_events, NzCtrl),
        VMSTATE_UINT32(masked_events, NzCtrl),
        VMSTATE_UINT32(outstanding_aborts, NzCtrl),
        VMSTATE_STRUCT_ARRAY(errlog, NzCtrl, NZ_ELPE + 1, 1, vmstate_nz_err,
                             NzErrEntry),
        VMSTATE_UINT64(err_count, NzCtrl),
        VMSTATE_UINT64(units_read, NzCtrl),
        VMSTATE_UINT64(units_written, NzCtrl),
        VMSTATE_UINT64(host_reads, NzCtrl),
        VMSTATE_UINT64(host_writes, NzCtrl),
        VMSTATE_INT64(power_on_ns, NzCtrl),
        VMSTATE_UINT64(admin_cmds, NzCtrl),
        VMSTATE_UINT64(invalid_doorbells, NzCtrl),
        VMSTATE_UINT64(cid_conflicts, NzCtrl),
        VMSTATE_UINT64(aborts_done, NzCtrl),
        VMSTATE_UINT64(resets, NzCtrl),
        VMSTATE_UINT64(zone_invalid_writes, NzCtrl),
        VMSTATE_UINT32_ARRAY(start_log.entry, NzCtrl, ZR_START_LOG_LEN),
        VMSTATE_UINT32(start_log.n, NzCtrl),
        VMSTATE_STRUCT(dispatch, NzCtrl, 1, vmstate_zr_dispatch, ZrDispatch),
        VMSTATE_STRUCT(svc, NzCtrl, 1, vmstate_zr_service, ZrService),
        /* the MSI-X table and PBA (BAR 4), before post_load checks all */
        VMSTATE_MSIX_TEST(parent_obj, NzCtrl, nz_msix_test),
        /* last: they go back on the dispatch engine's lists */
        {
            .name = "req",
            .version_id = 1,
            .size = sizeof(NzReq) * NZ_NR_REQS,
            .info = &nz_vmstate_info_reqs,
            .flags = VMS_SINGLE,
            .offset = offsetof(NzCtrl, req),
        },
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_nz_data_path,
        NULL
    },
};

/* --- a namespace --------------------------------------------------------- */

/* The sizes of the extension data and its bitmap, for the stream */
static int nz_ns_mig_sizes(NzNs *ns)
{
    uint64_t bytes = (uint64_t)ns->zones.nr_zones * ns->zde_size;

    if (bytes > UINT32_MAX || ns->zones.nr_zones > INT32_MAX) {
        error_report("nvme-zns-ns %u: too many zone descriptor extension "
                     "bytes to migrate", ns->nsid);
        return -EINVAL;
    }
    ns->mig_zde_bytes = bytes;
    ns->mig_nr_zones = ns->zones.nr_zones;
    return 0;
}

static int nz_ns_pre_load(void *opaque)
{
    NzNs *ns = opaque;

    /* the zone state is replaced: which table copy is newer is read again */
    zr_persist_invalidate(&ns->persist);
    return nz_ns_mig_sizes(ns);
}

static int nz_ns_post_load(void *opaque, int version_id)
{
    NzNs *ns = opaque;

    if (ns->nr_changed > NZ_MAX_CHANGED_ZONES) {
        error_report("nvme-zns-ns %u: %u changed zones saved", ns->nsid,
                     ns->nr_changed);
        return -EINVAL;
    }
    zr_persist_invalidate(&ns->persist);
    return 0;
}

static bool nz_ns_zde_needed(void *opaque)
{
    return ((NzNs *)opaque)->zde_size;
}

/* Zone descriptor extensions (ZNS 3.2.2): the data and ZA.ZDEV per zone */
static const VMStateDescription vmstate_nz_ns_zde = {
    .name = "nvme-zns-ns/zde",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = nz_ns_zde_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(zde_size, NzNs,
                             "zone-desc-ext-size differs"),
        VMSTATE_VBUFFER_UINT32(zde, NzNs, 1, NULL, mig_zde_bytes),
        VMSTATE_BITMAP(zde_valid, NzNs, 1, mig_nr_zones),
        VMSTATE_END_OF_LIST()
    },
};

static int nz_ns_pre_save(void *opaque)
{
    return nz_ns_mig_sizes(opaque);
}

const VMStateDescription vmstate_nvme_zns_ns = {
    .name = TYPE_NVME_ZNS_NS,
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = nz_ns_pre_save,
    .pre_load = nz_ns_pre_load,
    .post_load = nz_ns_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(nsid, NzNs, "nsid differs"),
        VMSTATE_STRUCT(zones, NzNs, 1, vmstate_zr_zone_model, ZrZoneModel),
        VMSTATE_UINT64_ARRAY(changed, NzNs, NZ_MAX_CHANGED_ZONES),
        VMSTATE_UINT32(nr_changed, NzNs),
        VMSTATE_BOOL(changed_overflow, NzNs),
        VMSTATE_UINT64(zone_invalid_writes, NzNs),
        VMSTATE_UINT64(reads, NzNs),
        VMSTATE_UINT64(writes, NzNs),
        VMSTATE_UINT64(appends, NzNs),
        VMSTATE_UINT64(blocks_read, NzNs),
        VMSTATE_UINT64(blocks_written, NzNs),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_nz_ns_zde,
        NULL
    },
};
