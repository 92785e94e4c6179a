/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: the admin command set (Base 5), run in SQ order by the work
 * BH: queue creation and deletion, Abort, features, asynchronous events.
 * Identify and Get Log Page live in identify.c and log.c.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define NZ_DEFAULT_TEMP_THRESH  343     /* K, over-temperature */

static uint16_t nz_admin_bad(const char *what, uint32_t val, uint16_t status)
{
    qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: %s (%u)\n", what, val);
    return status | NVME_DNR;
}

/* The queues the host may use: Number of Queues, once set (Base 5.27.1.7) */
static uint32_t nz_max_sqid(NzCtrl *s)
{
    return s->queues_set ? s->nsqa + 1 : s->nr_ioq;
}

static uint32_t nz_max_cqid(NzCtrl *s)
{
    return s->queues_set ? s->ncqa + 1 : s->nr_ioq;
}

/* Create I/O Completion Queue (Base 5.4) */
static uint16_t nz_create_cq(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t dw10 = le32_to_cpu(r->cmd.cdw10), dw11 = le32_to_cpu(r->cmd.cdw11);
    uint16_t qid = dw10 & 0xffff, iv = dw11 >> 16;
    uint32_t size = (dw10 >> 16) + 1;
    uint64_t addr = le64_to_cpu(r->cmd.dptr.prp1);

    if (!qid || qid > nz_max_cqid(s) || s->cq[qid].valid) {
        return nz_admin_bad("Create CQ: invalid queue identifier", qid,
                            NVME_INVALID_QID);
    }
    if (size < 2 || size > NZ_MQES + 1) {
        return nz_admin_bad("Create CQ: invalid queue size", size,
                            NVME_MAX_QSIZE_EXCEEDED);
    }
    if (!(dw11 & NVME_CQ_PC)) {
        return nz_admin_bad("Create CQ: not physically contiguous (CAP.CQR)",
                            qid, NVME_INVALID_FIELD);
    }
    if (addr & (s->page_size - 1)) {
        return nz_admin_bad("Create CQ: PRP1 not page aligned", qid,
                            NVME_INVALID_PRP_OFFSET);
    }
    if (!nz_irq_vector_valid(s, iv)) {
        return nz_admin_bad("Create CQ: invalid interrupt vector", iv,
                            NVME_INVALID_IRQ_VECTOR);
    }
    if (NVME_CC_IOCQES(s->cc) != 4) {
        return nz_admin_bad("Create CQ: CC.IOCQES is not 4", qid,
                            NVME_INVALID_FIELD);
    }
    return nz_cq_create(s, qid, addr, size, dw11 & NVME_CQ_IEN, iv);
}

/* Create I/O Submission Queue (Base 5.5) */
static uint16_t nz_create_sq(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t dw10 = le32_to_cpu(r->cmd.cdw10), dw11 = le32_to_cpu(r->cmd.cdw11);
    uint16_t qid = dw10 & 0xffff, cqid = dw11 >> 16;
    uint32_t size = (dw10 >> 16) + 1;
    uint64_t addr = le64_to_cpu(r->cmd.dptr.prp1);

    if (!qid || qid > nz_max_sqid(s) || s->sq[qid].valid) {
        return nz_admin_bad("Create SQ: invalid queue identifier", qid,
                            NVME_INVALID_QID);
    }
    if (!cqid || cqid > NZ_MAX_IOQ || !s->cq[cqid].valid) {
        return nz_admin_bad("Create SQ: no such CQ", cqid,
                            NVME_INVALID_CQID);
    }
    if (size < 2 || size > NZ_MQES + 1) {
        return nz_admin_bad("Create SQ: invalid queue size", size,
                            NVME_MAX_QSIZE_EXCEEDED);
    }
    if (!(dw11 & NVME_SQ_PC)) {
        return nz_admin_bad("Create SQ: not physically contiguous (CAP.CQR)",
                            qid, NVME_INVALID_FIELD);
    }
    if (addr & (s->page_size - 1)) {
        return nz_admin_bad("Create SQ: PRP1 not page aligned", qid,
                            NVME_INVALID_PRP_OFFSET);
    }
    if (NVME_CC_IOSQES(s->cc) != 6) {
        return nz_admin_bad("Create SQ: CC.IOSQES is not 6", qid,
                            NVME_INVALID_FIELD);
    }
    return nz_sq_create(s, qid, addr, size, cqid, NVME_SQ_FLAGS_QPRIO(dw11));
}

static uint16_t nz_delete_cq(NzReq *r)
{
    NzCtrl *s = r->s;
    uint16_t qid = le32_to_cpu(r->cmd.cdw10) & 0xffff;

    if (!qid || qid > NZ_MAX_IOQ || !s->cq[qid].valid) {
        return nz_admin_bad("Delete CQ: invalid queue identifier", qid,
                            NVME_INVALID_QID);
    }
    return nz_cq_delete(s, qid);
}

/* Delete I/O SQ: done at once, or parked until its commands are posted */
static bool nz_delete_sq(NzReq *r, uint16_t *status)
{
    NzCtrl *s = r->s;
    uint16_t qid = le32_to_cpu(r->cmd.cdw10) & 0xffff;

    if (!qid || qid > NZ_MAX_IOQ || !s->sq[qid].valid ||
        s->sq[qid].deleting) {
        *status = nz_admin_bad("Delete SQ: invalid queue identifier", qid,
                               NVME_INVALID_QID);
        return true;
    }
    nz_sq_delete_begin(s, qid);
    *status = NVME_SUCCESS;
    return nz_sq_delete_done(s, qid);
}

/* Abort (Base 5.1): dword 0 bit 0 is 0 when the command was aborted */
static uint16_t nz_abort(NzReq *r)
{
    uint32_t dw10 = le32_to_cpu(r->cmd.cdw10);
    uint16_t sqid = dw10 & 0xffff, cid = dw10 >> 16;

    r->dw0 = 1;
    if (sqid && sqid <= NZ_MAX_IOQ && nz_io_abort(r->s, sqid, cid)) {
        r->s->aborts_done++;
        r->dw0 = 0;
    }
    trace_nvme_zns_abort(sqid, cid, !r->dw0);
    return NVME_SUCCESS;
}

/* --- asynchronous events (Base 5.2) --------------------------------------- */

static void nz_aer_deliver(NzCtrl *s)
{
    uint32_t i = 0;

    while (s->nr_aer && i < s->nr_events) {
        NzEvent e = s->events[i];
        NzReq *r;

        if (s->masked_events & (1u << e.type)) {
            i++;
            continue;
        }
        memmove(&s->events[i], &s->events[i + 1],
                (s->nr_events - i - 1) * sizeof(s->events[0]));
        s->nr_events--;
        r = s->aer[--s->nr_aer];
        s->aer[s->nr_aer] = NULL;
        /* the event type stays masked until its log page is read */
        s->masked_events |= 1u << e.type;
        r->dw0 = e.type | e.info << 8 | e.log << 16;
        trace_nvme_zns_aer_complete(e.type, e.info, e.log);
        QTAILQ_REMOVE(&s->parked, r, link);
        nz_req_done(r, NVME_SUCCESS);
    }
}

void nz_aer_event(NzCtrl *s, uint8_t type, uint8_t info, uint8_t log)
{
    uint32_t i;

    for (i = 0; i < s->nr_events; i++) {
        if (s->events[i].type == type && s->events[i].info == info) {
            return;     /* already waiting to be reported */
        }
    }
    if (s->nr_events == NZ_MAX_EVENTS) {
        return;
    }
    s->events[s->nr_events++] = (NzEvent) {
        .type = type, .info = info, .log = log,
    };
    trace_nvme_zns_aer_event(type, info, log);
    nz_aer_deliver(s);
}

/* The host read the log page that goes with events of @type */
void nz_aer_clear(NzCtrl *s, uint8_t type)
{
    s->masked_events &= ~(1u << type);
    nz_aer_deliver(s);
}

static bool nz_aer_request(NzReq *r, uint16_t *status)
{
    NzCtrl *s = r->s;

    if (s->nr_aer > NZ_AERL) {
        *status = NVME_AER_LIMIT_EXCEEDED | NVME_DNR;
        return true;
    }
    r->state = NZ_REQ_PARKED;
    QTAILQ_INSERT_TAIL(&s->parked, r, link);
    s->aer[s->nr_aer++] = r;
    nz_aer_deliver(s);
    return false;
}

/* --- features (Base 5.27) ------------------------------------------------- */

static uint32_t nz_arb_default(void)
{
    return 0;       /* AB 0: one command per SQ per round */
}

/*
 * Feature 01h (Base 5.27.1.1) into the arbitration of `spec`: the burst
 * always, the weights (HPW, MPW, LPW, 0's based) when CC.AMS selects
 * weighted round robin with urgent priority class (Base 3.4.4.3).
 */
/* The Arbitration Burst (AB, 111b: no limit) as the engine's `spec` burst */
void nz_arb_set_burst(NzCtrl *s)
{
    uint32_t ab = s->arb & 7;

    zr_dispatch_set_spec_burst(&s->dispatch, ab == 7 ? UINT32_MAX : 1u << ab);
}

void nz_arb_apply(NzCtrl *s)
{
    uint32_t w[ZR_WRR_CLASSES] = {
        ((s->arb >> 24) & 0xff) + 1,
        ((s->arb >> 16) & 0xff) + 1,
        ((s->arb >> 8) & 0xff) + 1,
    };

    nz_arb_set_burst(s);
    zr_dispatch_set_wrr(&s->dispatch, NVME_CC_AMS(s->cc) == NZ_CC_AMS_WRRU, w);
}

static bool nz_feature_changeable(uint8_t fid)
{
    switch (fid) {
    case NVME_ARBITRATION:
    case NVME_POWER_MANAGEMENT:
    case NVME_TEMPERATURE_THRESHOLD:
    case NVME_ERROR_RECOVERY:
    case NVME_VOLATILE_WRITE_CACHE:
    case NVME_NUMBER_OF_QUEUES:
    case NVME_INTERRUPT_COALESCING:
    case NVME_INTERRUPT_VECTOR_CONF:
    case NVME_WRITE_ATOMICITY:
    case NVME_ASYNCHRONOUS_EVENT_CONF:
    case NVME_TIMESTAMP:
        return true;
    default:
        return false;
    }
}

/* Timestamp (Base 5.27.1.11): milliseconds, and how it was set */
static uint16_t nz_timestamp_get(NzReq *r)
{
    NzCtrl *s = r->s;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
    uint8_t buf[8];
    uint64_t ts = s->timestamp_set ? now + s->timestamp_base_ms : now;

    stq_le_p(buf, ts & 0xffffffffffffULL);
    buf[6] = s->timestamp_set ? 1 << 1 : 0;     /* origin: set by host */
    buf[7] = 0;
    return nz_dma_out(s, &r->cmd, buf, sizeof(buf));
}

static uint16_t nz_timestamp_set(NzReq *r)
{
    NzCtrl *s = r->s;
    uint8_t buf[8];
    uint16_t status = nz_dma_in(s, &r->cmd, buf, sizeof(buf));

    if (nz_status_ok(status)) {
        s->timestamp_base_ms = (ldq_le_p(buf) & 0xffffffffffffULL) -
                               qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
        s->timestamp_set = true;
    }
    return status;
}

static uint16_t nz_get_features(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t dw10 = le32_to_cpu(r->cmd.cdw10), dw11 = le32_to_cpu(r->cmd.cdw11);
    uint8_t fid = NVME_GETSETFEAT_FID(dw10);
    uint8_t sel = NVME_GETFEAT_SELECT(dw10);
    bool dflt = sel == NVME_GETFEAT_SELECT_DEFAULT ||
                sel == NVME_GETFEAT_SELECT_SAVED;   /* nothing is saved */

    if (sel > NVME_GETFEAT_SELECT_CAP) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (sel == NVME_GETFEAT_SELECT_CAP) {
        if (!nz_feature_changeable(fid)) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        r->dw0 = NVME_FEAT_CAP_CHANGE;
        return NVME_SUCCESS;
    }
    switch (fid) {
    case NVME_ARBITRATION:
        r->dw0 = dflt ? nz_arb_default() : s->arb;
        break;
    case NVME_POWER_MANAGEMENT:
        r->dw0 = 0;
        break;
    case NVME_TEMPERATURE_THRESHOLD:
        r->dw0 = dflt ? NZ_DEFAULT_TEMP_THRESH : s->temp_thresh;
        break;
    case NVME_ERROR_RECOVERY:
        r->dw0 = dflt ? 0 : s->err_recovery;
        break;
    case NVME_VOLATILE_WRITE_CACHE:
        r->dw0 = dflt ? 1 : s->vwc;
        break;
    case NVME_NUMBER_OF_QUEUES:
        r->dw0 = (s->queues_set && !dflt) ?
                 (s->nsqa | s->ncqa << 16) :
                 ((s->nr_ioq - 1) | (s->nr_ioq - 1) << 16);
        break;
    case NVME_INTERRUPT_COALESCING:
        r->dw0 = dflt ? 0 : (s->coal_thr | s->coal_time << 8);
        break;
    case NVME_INTERRUPT_VECTOR_CONF: {
        uint16_t iv = dw11 & 0xffff;

        if (!nz_irq_vector_valid(s, iv)) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        r->dw0 = iv | ((!dflt && s->vec[iv].cd) ? 1u << 16 : 0);
        break;
    }
    case NVME_WRITE_ATOMICITY:
        r->dw0 = dflt ? 0 : s->write_atomicity;
        break;
    case NVME_ASYNCHRONOUS_EVENT_CONF:
        r->dw0 = dflt ? 0 : s->aec;
        break;
    case NVME_TIMESTAMP:
        return nz_timestamp_get(r);
    default:
        return nz_admin_bad("Get Features: unsupported feature", fid,
                            NVME_INVALID_FIELD);
    }
    return NVME_SUCCESS;
}

static uint16_t nz_set_features(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t dw10 = le32_to_cpu(r->cmd.cdw10), dw11 = le32_to_cpu(r->cmd.cdw11);
    uint8_t fid = NVME_GETSETFEAT_FID(dw10);
    uint32_t i;

    if (NVME_SETFEAT_SAVE(dw10)) {
        return NVME_FID_NOT_SAVEABLE | NVME_DNR;
    }
    trace_nvme_zns_set_feature(fid, dw11);
    switch (fid) {
    case NVME_ARBITRATION:
        s->arb = dw11;
        nz_arb_apply(s);
        break;
    case NVME_POWER_MANAGEMENT:
        if (dw11 & 0x1f) {
            return nz_admin_bad("Set Features: power state beyond NPSS",
                                dw11 & 0x1f, NVME_INVALID_FIELD);
        }
        break;
    case NVME_TEMPERATURE_THRESHOLD:
        s->temp_thresh = dw11 & 0xffff;
        break;
    case NVME_ERROR_RECOVERY:
        if (dw11 & (1u << 16)) {
            return nz_admin_bad("Set Features: DULBE not supported", 1,
                                NVME_INVALID_FIELD);
        }
        s->err_recovery = dw11 & 0xffff;
        break;
    case NVME_VOLATILE_WRITE_CACHE:
        s->vwc = dw11 & 1;
        for (i = 1; i <= NZ_MAX_NS; i++) {
            if (s->ns[i] && s->ns[i]->blkconf.blk) {
                blk_set_enable_write_cache(s->ns[i]->blkconf.blk, s->vwc);
            }
        }
        break;
    case NVME_NUMBER_OF_QUEUES: {
        uint32_t nsqr = dw11 & 0xffff, ncqr = dw11 >> 16;

        for (i = 1; i < NZ_NR_Q; i++) {
            if (s->sq[i].valid || s->cq[i].valid) {
                /* not once I/O queues exist (Base 5.27.1.7) */
                return NVME_CMD_SEQ_ERROR | NVME_DNR;
            }
        }
        if (nsqr == 0xffff || ncqr == 0xffff) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        s->nsqa = MIN(nsqr, s->nr_ioq - 1);
        s->ncqa = MIN(ncqr, s->nr_ioq - 1);
        s->queues_set = true;
        r->dw0 = s->nsqa | s->ncqa << 16;
        break;
    }
    case NVME_INTERRUPT_COALESCING:
        s->coal_thr = dw11 & 0xff;
        s->coal_time = (dw11 >> 8) & 0xff;
        break;
    case NVME_INTERRUPT_VECTOR_CONF: {
        uint16_t iv = dw11 & 0xffff;

        if (!nz_irq_vector_valid(s, iv) || iv == 0) {
            /* the admin vector is never coalesced */
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        s->vec[iv].cd = dw11 & (1u << 16);
        break;
    }
    case NVME_WRITE_ATOMICITY:
        s->write_atomicity = dw11 & 1;
        break;
    case NVME_ASYNCHRONOUS_EVENT_CONF:
        /* SMART warnings (7:0) and Zone Descriptor Changed (27) */
        s->aec = dw11 & (0xff | 1u << 27);
        break;
    case NVME_TIMESTAMP:
        return nz_timestamp_set(r);
    default:
        return nz_admin_bad("Set Features: unsupported feature", fid,
                            NVME_INVALID_FIELD);
    }
    return NVME_SUCCESS;
}

/* --- dispatch -------------------------------------------------------------- */

void nz_admin_exec(NzReq *r)
{
    uint16_t status = NVME_SUCCESS;
    bool done = true;

    trace_nvme_zns_admin(r->cmd.opcode, le16_to_cpu(r->cmd.cid));
    if (NVME_CMD_FLAGS_PSDT(r->cmd.flags) != NVME_PSDT_PRP ||
        NVME_CMD_FLAGS_FUSE(r->cmd.flags)) {
        /* PCIe admin commands use PRPs and are never fused (Base 4.1) */
        nz_req_done(r, nz_admin_bad("admin command with PSDT or FUSE set",
                                    r->cmd.flags, NVME_INVALID_FIELD));
        return;
    }
    switch (r->cmd.opcode) {
    case NVME_ADM_CMD_DELETE_SQ:
        done = nz_delete_sq(r, &status);
        if (!done) {
            r->state = NZ_REQ_PARKED;
            QTAILQ_INSERT_TAIL(&r->s->parked, r, link);
        }
        break;
    case NVME_ADM_CMD_CREATE_SQ:
        status = nz_create_sq(r);
        break;
    case NVME_ADM_CMD_GET_LOG_PAGE:
        status = nz_get_log(r);
        break;
    case NVME_ADM_CMD_DELETE_CQ:
        status = nz_delete_cq(r);
        break;
    case NVME_ADM_CMD_CREATE_CQ:
        status = nz_create_cq(r);
        break;
    case NVME_ADM_CMD_IDENTIFY:
        status = nz_identify(r);
        break;
    case NVME_ADM_CMD_ABORT:
        status = nz_abort(r);
        break;
    case NVME_ADM_CMD_SET_FEATURES:
        status = nz_set_features(r);
        break;
    case NVME_ADM_CMD_GET_FEATURES:
        status = nz_get_features(r);
        break;
    case NVME_ADM_CMD_ASYNC_EV_REQ:
        done = nz_aer_request(r, &status);
        break;
    default:
        status = nz_admin_bad("unsupported admin opcode", r->cmd.opcode,
                              NVME_INVALID_OPCODE);
        break;
    }
    if (done) {
        nz_req_done(r, status);
    }
}

/* Parked Delete SQ commands whose SQ has emptied complete now */
void nz_admin_resume(NzCtrl *s)
{
    NzReq *r, *next;

    QTAILQ_FOREACH_SAFE(r, &s->parked, link, next) {
        uint16_t qid;

        if (r->cmd.opcode != NVME_ADM_CMD_DELETE_SQ) {
            continue;
        }
        qid = le32_to_cpu(r->cmd.cdw10) & 0xffff;
        if (nz_sq_delete_done(s, qid)) {
            QTAILQ_REMOVE(&s->parked, r, link);
            nz_req_done(r, NVME_SUCCESS);
        }
    }
}

/* Controller reset: features to their defaults, AERs gone (no CQEs) */
void nz_admin_reset(NzCtrl *s)
{
    NzReq *r;

    while ((r = QTAILQ_FIRST(&s->parked))) {
        QTAILQ_REMOVE(&s->parked, r, link);
        nz_req_free(r);
    }
    memset(s->aer, 0, sizeof(s->aer));
    s->nr_aer = 0;
    s->nr_events = 0;
    s->masked_events = 0;
    s->arb = nz_arb_default();
    nz_arb_apply(s);
    s->temp_thresh = NZ_DEFAULT_TEMP_THRESH;
    s->err_recovery = 0;
    s->vwc = true;
    s->queues_set = false;
    s->nsqa = s->ncqa = 0;
    s->aec = 0;
    s->write_atomicity = 0;
}
