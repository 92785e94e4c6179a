/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: submission and completion queues (Base 3.3).
 *
 * A doorbell write only records the new tail and, for an I/O SQ, a mark
 * (SQ, tail) in doorbell order.  The work BH fetches: the admin SQ first,
 * then the I/O SQs mark by mark, so the dispatch engine sees commands in
 * the order the host rang, across SQs too; its policy then decides the
 * order they start in.  Completions are posted by the work BH as well: a
 * full CQ keeps its CQEs waiting until the host moves the head.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci.h"
#include "nvme-zns-internal.h"
#include "trace.h"

void nz_queues_reset(NzCtrl *s)
{
    uint32_t i;

    for (i = 0; i < NZ_NR_Q; i++) {
        s->sq[i] = (NzSq) { .valid = false };
        s->cq[i].valid = false;
        s->cq[i].nr_sq = 0;
        QTAILQ_INIT(&s->cq[i].waiting);
    }
    s->nr_cq_waiting = 0;
    bitmap_zero(s->cq_unread, NZ_NR_Q);
    s->nr_marks = 0;
    s->marks_overflow = false;
    QTAILQ_INIT(&s->done);
    QTAILQ_INIT(&s->parked);
    QTAILQ_INIT(&s->orphan_wait);
    QTAILQ_INIT(&s->finishing);
    for (i = 0; i < NZ_NR_REQS; i++) {
        NzReq *r = &s->req[i];

        nz_seglist_free(&r->sg);
        if (r->map.n) {
            nz_dma_unmap(s, &r->map, r->to_host, r->to_host);
        }
        g_free(r->map.iov);
        r->map = (NzDmaMap) { 0 };
        g_free(r->buf);
        r->buf = NULL;
        r->buf_cap = 0;
        zr_zone_read_release(&r->zrd);
        r->state = NZ_REQ_FREE;
        r->cid_held = false;
    }
    s->io_reqs_busy = 0;
    bitmap_fill(s->io_free, NZ_IO_REQS);
}

/* Unrealize: what the queues and contexts keep allocated */
void nz_queues_cleanup(NzCtrl *s)
{
    nz_queues_reset(s);
}

/*
 * Base 3.1.4.19/20 and 5.27.1.x: a doorbell of no queue, or a value
 * beyond the queue, is an error the controller reports with an
 * asynchronous event; the write is otherwise ignored.
 */
static void nz_bad_doorbell(NzCtrl *s, uint16_t qid, bool cq, uint32_t val,
                            bool no_queue)
{
    s->invalid_doorbells++;
    qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: %s doorbell of %s %u, value "
                  "%u: %s\n", cq ? "CQ head" : "SQ tail", cq ? "CQ" : "SQ",
                  qid, val, no_queue ? "no such queue" : "invalid value");
    trace_nvme_zns_bad_doorbell(qid, cq, val, no_queue);
    nz_aer_event(s, NVME_AER_TYPE_ERROR,
                 no_queue ? NVME_AER_INFO_ERR_INVALID_DB_REGISTER
                          : NVME_AER_INFO_ERR_INVALID_DB_VALUE,
                 NVME_LOG_ERROR_INFO);
}

static bool nz_running(NzCtrl *s)
{
    return (s->csts & NVME_CSTS_READY) && !s->resetting;
}

void nz_sq_doorbell(NzCtrl *s, uint16_t qid, uint32_t val)
{
    NzSq *sq = qid < NZ_NR_Q ? &s->sq[qid] : NULL;

    if (!nz_running(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: SQ %u doorbell while the "
                      "controller is not ready: ignored\n", qid);
        return;
    }
    if (!sq || !sq->valid || sq->deleting) {
        nz_bad_doorbell(s, qid, false, val, true);
        return;
    }
    if (val >= sq->size) {
        nz_bad_doorbell(s, qid, false, val, false);
        return;
    }
    trace_nvme_zns_sq_doorbell(qid, val);
    sq->tail = val;
    if (qid) {
        if (s->nr_marks < NZ_SQ_MARKS) {
            s->marks[s->nr_marks++] = (NzSqMark) { .sqid = qid, .tail = val };
        } else {
            s->marks_overflow = true;
        }
    }
    nz_schedule(s);
}

static uint32_t nz_cq_used(const NzCq *cq)
{
    return (cq->tail + cq->size - cq->head) % cq->size;
}

void nz_cq_doorbell(NzCtrl *s, uint16_t qid, uint32_t val)
{
    NzCq *cq = qid < NZ_NR_Q ? &s->cq[qid] : NULL;

    if (!nz_running(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: CQ %u doorbell while the "
                      "controller is not ready: ignored\n", qid);
        return;
    }
    if (!cq || !cq->valid) {
        nz_bad_doorbell(s, qid, true, val, true);
        return;
    }
    /* the host may consume only entries that were posted */
    if (val >= cq->size ||
        (val + cq->size - cq->head) % cq->size > nz_cq_used(cq)) {
        nz_bad_doorbell(s, qid, true, val, false);
        return;
    }
    trace_nvme_zns_cq_doorbell(qid, val);
    cq->head = val;
    nz_irq_cq_moved(s, qid);
    nz_irq_update(s);
    if (!QTAILQ_EMPTY(&cq->waiting)) {
        nz_schedule(s);
    }
}

/* A free context (zeroed up to its kept part); NULL: none left */
static inline QEMU_ALWAYS_INLINE
NzReq *nz_req_alloc(NzCtrl *s, bool admin)
{
    uint32_t i = admin ? NZ_IO_REQS : find_first_bit(s->io_free, NZ_IO_REQS);
    uint32_t end = admin ? NZ_NR_REQS : NZ_IO_REQS;
    NzReq *r;

    for (; i < end && s->req[i].state != NZ_REQ_FREE; i++) {
        /* admin: the lowest free one; I/O: io_free found it */
    }
    if (i >= end) {
        return NULL;
    }
    r = &s->req[i];
    /* the lowest free context, as a slot number's policies expect */
    memset(r, 0, offsetof(NzReq, map));
    r->s = s;
    r->idx = i;
    r->state = NZ_REQ_WAIT;
    r->sg.n = 0;
    r->sg.bytes = 0;
    if (!admin) {
        clear_bit(i, s->io_free);
        s->io_reqs_busy++;
    }
    return r;
}

/*
 * The context's bounce buffer for @r->buf_len bytes (zeroed if @zero):
 * kept from command to command up to NZ_BUF_KEEP, so most commands do
 * not allocate.
 */
uint8_t *nz_req_buf(NzReq *r, bool zero)
{
    if (!r->buf_len) {
        return r->buf;
    }
    if (r->buf_cap < r->buf_len) {
        g_free(r->buf);
        r->buf = zero ? g_malloc0(r->buf_len) : g_malloc(r->buf_len);
        r->buf_cap = r->buf_len;
    } else if (zero) {
        memset(r->buf, 0, r->buf_len);
    }
    return r->buf;
}

/* @r no longer holds its CID (ended, or cancelled by a reset) */
static void nz_req_cid_release(NzReq *r)
{
    if (r->cid_held) {
        clear_bit(le16_to_cpu(r->cmd.cid), r->s->cids[r->sqid]);
        r->cid_held = false;
    }
}

void nz_req_cancel(NzReq *r)
{
    r->cancelled = true;
    nz_req_cid_release(r);
}

void nz_req_free(NzReq *r)
{
    NzCtrl *s = r->s;

    nz_req_cid_release(r);
    if (r->map.n) {
        nz_dma_unmap(s, &r->map, r->to_host, r->to_host);
    }
    if (r->idx < NZ_IO_REQS) {
        assert(s->io_reqs_busy);
        s->io_reqs_busy--;
        set_bit(r->idx, s->io_free);
    }
    if (r->buf_cap > NZ_BUF_KEEP) {
        g_free(r->buf);
        r->buf = NULL;
        r->buf_cap = 0;
    }
    zr_zone_read_release(&r->zrd);
    r->buf_len = 0;
    r->sg.n = 0;
    r->state = NZ_REQ_FREE;
    if (r->idx < NZ_IO_REQS && (s->nr_marks || s->marks_overflow)) {
        /* a fetch that ran out of contexts goes on */
        nz_schedule(s);
    }
}

/*
 * Base 3.3.1: CIDs are unique per SQ among outstanding commands.  Mark
 * @r's CID in its SQ; false if a command of the SQ still holds it.  A
 * bit per CID: a scan of the contexts cost each command more than the
 * rest of its fetch.
 */
static bool nz_req_cid_take(NzCtrl *s, NzReq *r)
{
    unsigned long *cids = s->cids[r->sqid];
    uint16_t cid = le16_to_cpu(r->cmd.cid);

    if (test_bit(cid, cids)) {
        return false;
    }
    set_bit(cid, cids);
    r->cid_held = true;
    return true;
}

/* The command is done: its CQE is posted by the work BH. */
void nz_req_done(NzReq *r, uint16_t status)
{
    r->status = status;
    r->state = NZ_REQ_DONE;
    if (status != NVME_SUCCESS) {
        nz_log_error(r->s, r, status);
    }
    trace_nvme_zns_req_done(r->sqid, le16_to_cpu(r->cmd.cid), r->cmd.opcode,
                            status);
    QTAILQ_INSERT_TAIL(&r->s->done, r, link);
    if (!r->s->post_ahead) {
        /* else the running work pass posts it: no second pass for it */
        nz_schedule(r->s);
    }
}

/* Post @r's CQE (Base 4.6); false when its CQ is full. */
static inline QEMU_ALWAYS_INLINE
bool nz_cq_post(NzCtrl *s, NzReq *r)
{
    uint16_t cqid = r->cqid;
    NzCq *cq = &s->cq[cqid];
    NzSq *sq = &s->sq[r->sqid];
    NvmeCqe cqe;
    MemTxResult res;

    if ((cq->tail + 1) % cq->size == cq->head) {
        return false;
    }
    cqe.result = cpu_to_le32(r->dw0);
    cqe.dw1 = cpu_to_le32(r->dw1);
    cqe.sq_head = cpu_to_le16(sq->head);
    cqe.sq_id = cpu_to_le16(r->sqid);
    cqe.cid = r->cmd.cid;       /* as the host wrote it */
    cqe.status = cpu_to_le16((r->status << 1) | cq->phase);
    res = pci_dma_write(nz_pci(s), cq->addr + (uint64_t)cq->tail *
                        sizeof(cqe), &cqe, sizeof(cqe));
    if (res != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: CQ %u: CQE write at 0x%"
                      PRIx64 " failed: controller fatal status\n", r->cqid,
                      cq->addr + (uint64_t)cq->tail * sizeof(cqe));
        s->csts |= NVME_CSTS_FAILED;
    }
    trace_nvme_zns_cqe(cqid, cq->tail, r->sqid, le16_to_cpu(r->cmd.cid),
                       r->status);
    cq->tail++;
    if (cq->tail == cq->size) {
        cq->tail = 0;
        cq->phase = !cq->phase;
    }
    nz_irq_cq_moved(s, cqid);
    if (sq->in_ctrl) {
        sq->in_ctrl--;
    }
    nz_req_free(r);
    nz_irq_cq_posted(s, cq, cqid);
    return true;
}

/* Post a CQE that waited for room in @cq; false: still full */
static bool nz_cq_post_waiting(NzCtrl *s, NzCq *cq, NzReq *r)
{
    QTAILQ_REMOVE(&cq->waiting, r, link);
    s->nr_cq_waiting--;
    if (!nz_cq_post(s, r)) {
        QTAILQ_INSERT_HEAD(&cq->waiting, r, link);
        s->nr_cq_waiting++;
        return false;
    }
    return true;
}

/* Post the CQEs of commands that are done, waiting ones first. */
void nz_post_done(NzCtrl *s)
{
    NzReq *r, *next;
    bool sq_freed = false;
    uint32_t q;

    if (s->resetting) {
        return;     /* nz_io_reset() took everything off the lists */
    }
    /* no CQ above nr_ioq is ever created (nz_max_cqid) */
    for (q = 0; q <= s->nr_ioq && s->nr_cq_waiting; q++) {
        NzCq *cq = &s->cq[q];

        QTAILQ_FOREACH_SAFE(r, &cq->waiting, link, next) {
            uint16_t sqid = r->sqid;

            if (!nz_cq_post_waiting(s, cq, r)) {
                break;
            }
            sq_freed |= s->sq[sqid].deleting;
        }
    }
    while ((r = QTAILQ_FIRST(&s->done))) {
        uint16_t sqid = r->sqid;

        QTAILQ_REMOVE(&s->done, r, link);
        if (r->cancelled || !s->cq[r->cqid].valid) {
            if (s->sq[sqid].in_ctrl) {
                s->sq[sqid].in_ctrl--;
            }
            nz_req_free(r);
            continue;
        }
        if (!QTAILQ_EMPTY(&s->cq[r->cqid].waiting) || !nz_cq_post(s, r)) {
            trace_nvme_zns_cq_full(r->cqid, le16_to_cpu(r->cmd.cid));
            QTAILQ_INSERT_TAIL(&s->cq[r->cqid].waiting, r, link);
            s->nr_cq_waiting++;
            continue;
        }
        sq_freed |= s->sq[sqid].deleting;
    }
    if (sq_freed) {
        nz_admin_resume(s);
    }
}

/* Fetch SQ @qid's entry at its head (Base 3.3.1); NULL: out of contexts */
static inline QEMU_ALWAYS_INLINE
NzReq *nz_fetch_one(NzCtrl *s, uint16_t qid)
{
    NzSq *sq = &s->sq[qid];
    NzReq *r = nz_req_alloc(s, qid == 0);
    MemTxResult res;

    if (!r) {
        return NULL;
    }
    res = pci_dma_read(nz_pci(s), sq->addr + (uint64_t)sq->head * 64,
                       &r->cmd, sizeof(r->cmd));
    sq->head = (sq->head + 1) % sq->size;
    sq->in_ctrl++;
    r->sqid = qid;
    r->cqid = sq->cqid;
    if (res != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: SQ %u: fetch at 0x%"
                      PRIx64 " failed: controller fatal status\n", qid,
                      sq->addr + (uint64_t)sq->head * 64);
        s->csts |= NVME_CSTS_FAILED;
        r->cancelled = true;
        nz_req_done(r, NVME_DATA_TRAS_ERROR);
        return r;
    }
    trace_nvme_zns_fetch(qid, le16_to_cpu(r->cmd.cid), r->cmd.opcode,
                         le32_to_cpu(r->cmd.nsid));
    if (!nz_req_cid_take(s, r)) {
        s->cid_conflicts++;
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: SQ %u: CID %u is still "
                      "outstanding\n", qid, le16_to_cpu(r->cmd.cid));
        nz_req_done(r, NVME_CID_CONFLICT | NVME_DNR);
        return r;
    }
    if (qid == 0) {
        s->admin_cmds++;
        nz_admin_exec(r);
    } else {
        nz_io_submit(r);
    }
    return r;
}

/* Fetch SQ @qid up to @tail; false when out of contexts */
static bool nz_fetch_sq(NzCtrl *s, uint16_t qid, uint32_t tail)
{
    NzSq *sq = &s->sq[qid];

    while (sq->valid && !sq->deleting && sq->head != tail) {
        if (!nz_fetch_one(s, qid)) {
            return false;
        }
    }
    return true;
}

void nz_fetch(NzCtrl *s)
{
    uint32_t i, q;

    if (!nz_running(s) || (s->csts & NVME_CSTS_FAILED)) {
        return;
    }
    if (s->sq[0].head != s->sq[0].tail) {
        nz_fetch_sq(s, 0, s->sq[0].tail);
    }
    if (!s->nr_marks && !s->marks_overflow) {
        return;     /* no I/O doorbell since the last fetch */
    }
    for (i = 0; i < s->nr_marks; i++) {
        if (!nz_fetch_sq(s, s->marks[i].sqid, s->marks[i].tail)) {
            break;
        }
    }
    if (i < s->nr_marks) {
        memmove(s->marks, s->marks + i,
                (s->nr_marks - i) * sizeof(s->marks[0]));
    }
    s->nr_marks -= i;
    if (s->marks_overflow && !s->nr_marks) {
        /* more doorbells than marks: take every SQ as it stands */
        for (q = 1; q <= s->nr_ioq; q++) {
            if (!nz_fetch_sq(s, q, s->sq[q].tail)) {
                return;
            }
        }
        s->marks_overflow = false;
    }
}

uint16_t nz_cq_create(NzCtrl *s, uint16_t qid, uint64_t addr, uint32_t size,
                      bool ien, uint16_t iv)
{
    NzCq *cq = &s->cq[qid];

    *cq = (NzCq) {
        .valid = true, .addr = addr, .size = size, .phase = true,
        .ien = ien, .iv = iv,
    };
    QTAILQ_INIT(&cq->waiting);
    nz_irq_cq_moved(s, qid);
    trace_nvme_zns_cq_create(qid, addr, size, ien, iv);
    return NVME_SUCCESS;
}

uint16_t nz_sq_create(NzCtrl *s, uint16_t qid, uint64_t addr, uint32_t size,
                      uint16_t cqid, uint8_t prio)
{
    bitmap_zero(s->cids[qid], 1u << 16);
    s->sq[qid] = (NzSq) {
        .valid = true, .addr = addr, .size = size, .cqid = cqid,
        .prio = prio,
    };
    s->cq[cqid].nr_sq++;
    if (qid) {
        /* QPRIO (Base 5.5) is the core's class numbering */
        zr_dispatch_set_queue_class(&s->dispatch, qid - 1, prio & 3);
    }
    trace_nvme_zns_sq_create(qid, addr, size, cqid, prio);
    return NVME_SUCCESS;
}

uint16_t nz_cq_delete(NzCtrl *s, uint16_t qid)
{
    NzCq *cq = &s->cq[qid];

    if (cq->nr_sq) {
        return NVME_INVALID_QUEUE_DEL | NVME_DNR;
    }
    cq->valid = false;
    nz_irq_cq_moved(s, qid);
    nz_irq_update(s);
    trace_nvme_zns_cq_delete(qid);
    return NVME_SUCCESS;
}

/*
 * Delete I/O SQ (Base 5.7): commands not started yet end with Command
 * Aborted due to SQ Deletion; the deletion completes once every command
 * of the SQ has posted its CQE (nz_sq_delete_done()).
 */
void nz_sq_delete_begin(NzCtrl *s, uint16_t qid)
{
    uint32_t i, j = 0;

    s->sq[qid].deleting = true;
    for (i = 0; i < s->nr_marks; i++) {
        if (s->marks[i].sqid != qid) {
            s->marks[j++] = s->marks[i];
        }
    }
    s->nr_marks = j;
    nz_io_cancel_sq(s, qid);
    trace_nvme_zns_sq_delete(qid, s->sq[qid].in_ctrl);
}

bool nz_sq_delete_done(NzCtrl *s, uint16_t qid)
{
    NzSq *sq = &s->sq[qid];

    if (sq->in_ctrl) {
        return false;
    }
    assert(s->cq[sq->cqid].nr_sq);
    s->cq[sq->cqid].nr_sq--;
    sq->valid = false;
    sq->deleting = false;
    return true;
}
