/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: the I/O commands (NVM 3.x, ZNS 3.x/4.x) and how they run.
 *
 * A fetched command is checked (namespace, range, MDTS, data pointer) and
 * handed to the dispatch engine, queue = its SQ; the engine's policy picks
 * the start order and the service model the completion time.  At its start
 * a write is checked against its zone's write pointer (ZNS 3.4.1), so
 * misordered writes fail as Zone Invalid Write exactly when the policy
 * reorders them, and its data is copied in; then the backend I/O runs.  A
 * command completes when both its service time and its backend I/O are
 * over, and a write only once every earlier write of its zone has (the
 * core's write tracking, zone.h).
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "block/aio-wait.h"
#include "system/block-backend.h"
#include "nvme-zns-internal.h"
#include "trace.h"

/* Status for a zone model result (ZNS 1.1 3.4.x, Figure "status codes") */
uint16_t nz_zone_status(ZrResult res, bool mgmt)
{
    switch (res) {
    case ZR_OK:
        return NVME_SUCCESS;
    case ZR_ERR_LBA_OUT_OF_RANGE:
        return NVME_LBA_RANGE | NVME_DNR;
    case ZR_ERR_UNALIGNED_WRITE:
        /* no DNR: a pipelining host retries writes that arrived misordered */
        return NVME_ZONE_INVALID_WRITE;
    case ZR_ERR_BOUNDARY:
    case ZR_ERR_GAP:
        return NVME_ZONE_BOUNDARY_ERROR | NVME_DNR;
    case ZR_ERR_ZONE_FULL:
        return (mgmt ? NVME_ZONE_INVAL_TRANSITION : NVME_ZONE_FULL) |
               NVME_DNR;
    case ZR_ERR_READ_ONLY:
        return (mgmt ? NVME_ZONE_INVAL_TRANSITION : NVME_ZONE_READ_ONLY) |
               NVME_DNR;
    case ZR_ERR_OFFLINE:
        return (mgmt ? NVME_ZONE_INVAL_TRANSITION : NVME_ZONE_OFFLINE) |
               NVME_DNR;
    case ZR_ERR_NO_OPEN_RESOURCE:
        return NVME_ZONE_TOO_MANY_OPEN | NVME_DNR;
    case ZR_ERR_NO_ACTIVE_RESOURCE:
        return NVME_ZONE_TOO_MANY_ACTIVE | NVME_DNR;
    case ZR_ERR_INVALID_TRANSITION:
        return NVME_ZONE_INVAL_TRANSITION | NVME_DNR;
    default:
        return NVME_INVALID_FIELD | NVME_DNR;
    }
}

static uint16_t nz_io_status(NzReq *r, ZrResult res)
{
    uint16_t status = nz_zone_status(res, false);

    if ((status & 0x7ff) == NVME_ZONE_INVALID_WRITE) {
        /*
         * DNR 0 is right (Base 2.0, Status Field: the same command sent
         * again can succeed once the write pointer is there);
         * x-zone-invalid-write-dnr sets it so that a test can show what
         * reaches the host without its retry.
         */
        if (r->s->ziw_dnr) {
            status |= NVME_DNR;
        }
        r->ns->zone_invalid_writes++;
        r->s->zone_invalid_writes++;
        trace_nvme_zns_zone_invalid_write(r->ns->nsid, r->sqid,
                                          le16_to_cpu(r->cmd.cid), r->slba,
                                          r->nlb);
    }
    return status;
}

static ZrOp nz_io_op(uint8_t opcode)
{
    switch (opcode) {
    case NVME_CMD_READ:
        return ZR_OP_READ;
    case NVME_CMD_WRITE:
    case NVME_CMD_WRITE_ZEROES:
        return ZR_OP_WRITE;
    case NVME_CMD_ZONE_APPEND:
        return ZR_OP_APPEND;
    case NVME_CMD_ZONE_MGMT_SEND:
        return ZR_OP_ZONE_MGMT;
    default:
        return ZR_OP_OTHER;
    }
}

/* Is @ns an active namespace for I/O under CC.CSS (Base 3.1.4.5)? */
static bool nz_ns_active(NzCtrl *s, NzNs *ns)
{
    return ns && NVME_CC_CSS(s->cc) == NVME_CC_CSS_ALL;
}

/* Checks common to the commands with an LBA range (NVM 3.2.x) */
static inline QEMU_ALWAYS_INLINE
uint16_t nz_io_range(NzReq *r, bool data, uint64_t max_bytes)
{
    NzNs *ns = r->ns;
    uint64_t bytes;

    r->slba = ldq_le_p(&r->cmd.cdw10);
    r->nlb = (le32_to_cpu(r->cmd.cdw12) & 0xffff) + 1;
    if (r->slba >= ns->nr_blocks || ns->nr_blocks - r->slba < r->nlb) {
        return NVME_LBA_RANGE | NVME_DNR;
    }
    bytes = (uint64_t)r->nlb << ns->lbads;
    if (data && bytes > max_bytes) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: %u blocks exceed the "
                      "transfer limit\n", r->nlb);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    r->buf_len = data ? bytes : 0;
    return NVME_SUCCESS;
}

/*
 * The checks of an I/O command before its data pointer (namespace,
 * opcode, range, transfer size), which set r->ns, slba, nlb, buf_len and
 * to_host; also what a migration's destination runs on a saved command.
 * Inline in this file's hot path; the header's declaration makes this the
 * external definition migrate.c calls.
 */
inline QEMU_ALWAYS_INLINE uint16_t nz_io_check_cmd(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t nsid = le32_to_cpu(r->cmd.nsid);
    uint16_t status;

    r->ns = nz_ns_get(s, nsid);
    if (r->cmd.opcode == NVME_CMD_FLUSH && nsid == NVME_NSID_BROADCAST) {
        r->ns = NULL;
        return NVME_SUCCESS;
    }
    if (!nz_ns_active(s, r->ns)) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: I/O opcode 0x%02x for "
                      "inactive namespace %u\n", r->cmd.opcode, nsid);
        return NVME_INVALID_NSID | NVME_DNR;
    }
    if (NVME_CMD_FLAGS_FUSE(r->cmd.flags)) {
        return NVME_INVALID_FIELD | NVME_DNR;   /* FUSES = 0 */
    }
    switch (r->cmd.opcode) {
    case NVME_CMD_FLUSH:
        return NVME_SUCCESS;
    case NVME_CMD_READ:
        r->to_host = true;
        /* fall through */
    case NVME_CMD_WRITE:
        status = nz_io_range(r, true, NZ_MAX_XFER);
        break;
    case NVME_CMD_ZONE_APPEND:
        status = nz_io_range(r, true, s->zasl ?
                             (uint64_t)NZ_PAGE << s->zasl : NZ_MAX_XFER);
        break;
    case NVME_CMD_WRITE_ZEROES:
        return nz_io_range(r, false, 0);
    case NVME_CMD_DSM:
        r->buf_len = ((le32_to_cpu(r->cmd.cdw10) & 0xff) + 1) *
                     sizeof(NvmeDsmRange);
        status = NVME_SUCCESS;
        break;
    case NVME_CMD_ZONE_MGMT_SEND:
        status = nz_zms_check(r);
        break;
    case NVME_CMD_ZONE_MGMT_RECV:
        status = nz_zmr_check(r);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: unknown I/O opcode "
                      "0x%02x\n", r->cmd.opcode);
        return NVME_INVALID_OPCODE | NVME_DNR;
    }
    return status;
}

static uint16_t nz_io_check(NzReq *r)
{
    uint16_t status = nz_io_check_cmd(r);

    if (!nz_status_ok(status) || !r->buf_len) {
        return status;
    }
    return nz_map_dptr(r->s, &r->cmd, r->buf_len, r->to_host, &r->sg);
}

/*
 * The dispatch engine's view of @r, from the checked command (submit; a
 * migration's load, which keeps the engine's own state: seq, start and
 * completion times); inline here, external for migrate.c
 */
inline QEMU_ALWAYS_INLINE void nz_io_zr_derive(NzReq *r)
{
    ZrOp op = nz_io_op(r->cmd.opcode);

    r->zr.tag = r->idx;
    r->zr.queue = r->sqid - 1;
    r->zr.op = op;
    r->zr.lba = r->ns ? (uint64_t)r->ns->nsid << NZ_LBA_SHIFT | r->slba : 0;
    r->zr.len = r->nlb;
    r->zr.opaque = r;
    r->zr.xfer_bytes = r->buf_len;
    r->zr.xfer_set = true;
    r->zr.zone_untracked = op != ZR_OP_WRITE && op != ZR_OP_APPEND;
}

void nz_io_submit(NzReq *r)
{
    NzCtrl *s = r->s;
    uint16_t status = nz_io_check(r);

    if (!nz_status_ok(status)) {
        nz_req_done(r, status);
        return;
    }
    /* r->zr is zeroed (nz_req_alloc()), as zr_cmd_init() would leave it */
    nz_io_zr_derive(r);
    r->state = NZ_REQ_WAIT;
    trace_nvme_zns_io(r->sqid, le16_to_cpu(r->cmd.cid), r->cmd.opcode,
                      r->ns ? r->ns->nsid : 0, r->slba, r->nlb);
    zr_dispatch_submit(&s->dispatch, &r->zr);
}

/* --- completion ----------------------------------------------------------- */

/*
 * Both the service time and the backend I/O are over (guarded context:
 * the service BH or the work BH): move read data to the host and post.
 */
void nz_io_finish(NzReq *r)
{
    NzCtrl *s = r->s;
    uint16_t status = r->status;

    if (r->zr.state == ZR_CMD_STARTED) {
        zr_dispatch_complete(&s->dispatch, &r->zr);
    }
    if (r->cancelled) {
        nz_req_free(r);
        return;
    }
    if (nz_status_ok(status) && r->to_host && r->to_host_len &&
        !r->mapped) {
        status = nz_dma_to_host(s, &r->sg, r->buf, r->to_host_len);
    }
    nz_req_done(r, status);
}

/* Backend I/O over: from the block layer (not guarded) or at once */
static void nz_io_ended(NzReq *r)
{
    r->io_done = true;
    r->aiocb = NULL;
    if (r->map.n) {
        /* the drive is done with guest memory */
        nz_dma_unmap(r->s, &r->map, r->to_host, r->to_host);
    }
    if (r->cancelled && r->state != NZ_REQ_RUN) {
        return;
    }
    if ((r->svc_done || r->cancelled) && !r->on_finishing) {
        r->on_finishing = true;
        QTAILQ_INSERT_TAIL(&r->s->finishing, r, link);
        nz_schedule(r->s);
    }
    zr_vclock_hold_poke(&r->s->vclock);
}

static inline QEMU_ALWAYS_INLINE
void nz_aio_end(NzReq *r)
{
    assert(r->s->in_flight_io);
    r->s->in_flight_io--;
    if (r->s->resetting && !r->s->in_flight_io) {
        nz_schedule(r->s);
        aio_wait_kick();        /* nz_io_quiesce() may wait for this */
    }
}

static void nz_read_cb(void *opaque, int ret)
{
    NzReq *r = opaque;

    nz_aio_end(r);
    if (ret < 0) {
        r->status = NVME_UNRECOVERED_READ;
    }
    /* what was not on the medium while the read ran reads as zeros */
    if (r->mapped) {
        zr_zone_read_end_iov(&r->ns->zones, &r->zrd,
                             ret < 0 ? NULL : &r->qiov, r->ns->block_size);
    } else {
        zr_zone_read_end(&r->ns->zones, &r->zrd, ret < 0 ? NULL : r->buf,
                         r->ns->block_size);
    }
    nz_io_ended(r);
}

/*
 * A backend flush, or a sync of the zone-state drive, has ended (Flush,
 * and the commands made durable below); the command ends with the last.
 */
static void nz_flush_cb(void *opaque, int ret)
{
    NzReq *r = opaque;

    nz_aio_end(r);
    if (ret < 0) {
        r->status = nz_io_op(r->cmd.opcode) == ZR_OP_WRITE ||
                    r->cmd.opcode == NVME_CMD_ZONE_APPEND
                    ? NVME_WRITE_FAULT : NVME_INTERNAL_DEV_ERROR;
    }
    if (!--r->nr_aio) {
        nz_io_ended(r);
    }
}

/*
 * The command's data and the zone state it left must be durable before it
 * completes: with a zone-state drive, a sync of the core's persistence
 * layer (it flushes the data drive, then writes the changed zone state).
 * Without one the data drive's write cache follows VWC and FUA already.
 */
static void nz_io_durable(NzReq *r)
{
    NzNs *ns = r->ns;

    if (!ns->persist.blk || !nz_status_ok(r->status)) {
        nz_io_ended(r);
        return;
    }
    r->nr_aio = 1;
    r->s->in_flight_io++;
    zr_persist_sync(&ns->persist, nz_flush_cb, r);
}

static bool nz_write_fua(NzReq *r)
{
    return le32_to_cpu(r->cmd.cdw12) & NVME_RW_FUA << 16;
}

/*
 * A write may be reported: a FUA write, or any write with the volatile
 * write cache off (Set Features 06h), is durable when it completes, its
 * zone's state included (NVM 3.2.6 FUA; Base 5.27.1.4 VWC).
 */
static inline QEMU_ALWAYS_INLINE
void nz_write_report(NzReq *r, ZrResult res)
{
    if (res != ZR_OK) {
        r->status = nz_io_status(r, res);
    }
    if (res == ZR_OK && (nz_write_fua(r) || !r->s->vwc)) {
        nz_io_durable(r);
        return;
    }
    nz_io_ended(r);
}

/* The zone model releases a write it held (ZR_WAIT) */
void nz_io_zone_released(ZrZoneIo *io, ZrResult res, void *opaque)
{
    NzReq *r = container_of(io, NzReq, zio);

    if (trace_event_get_state_backends(TRACE_NVME_ZNS_WRITE_RELEASED)) {
        trace_nvme_zns_write_released(r->sqid, le16_to_cpu(r->cmd.cid),
                                      zr_result_name(res));
    }
    nz_write_report(r, res);
}

static void nz_write_cb(void *opaque, int ret)
{
    NzReq *r = opaque;
    NzNs *ns = r->ns;
    ZrResult res = ZR_OK;

    nz_aio_end(r);
    if (r->zio_used) {
        res = zr_zone_write_end(&ns->zones, &r->zio, ret >= 0);
    }
    if (ret < 0) {
        r->status = NVME_WRITE_FAULT;
        nz_io_ended(r);
    } else if (res == ZR_WAIT && r->cancelled) {
        zr_zone_write_forget(&ns->zones, &r->zio);
        nz_io_ended(r);
    } else if (res == ZR_WAIT) {
        trace_nvme_zns_write_held(r->sqid, le16_to_cpu(r->cmd.cid), r->slba);
    } else {
        nz_write_report(r, res);
    }
    /* waiting writes start on the work BH, not in the block layer's callback */
    if (!QTAILQ_EMPTY(&r->s->orphan_wait)) {
        nz_schedule(r->s);
    }
}

/* --- starts --------------------------------------------------------------- */

static void nz_start_flush(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t i;

    r->nr_aio = 1;      /* held while issuing */
    for (i = 1; i <= NZ_MAX_NS; i++) {
        NzNs *ns = s->ns[i];

        if (!ns || !ns->blkconf.blk || (r->ns && r->ns != ns)) {
            continue;
        }
        r->nr_aio++;
        s->in_flight_io++;
        if (ns->persist.blk) {
            /* the data drive's flush is the sync's first step */
            zr_persist_sync(&ns->persist, nz_flush_cb, r);
        } else {
            blk_aio_flush(ns->blkconf.blk, nz_flush_cb, r);
        }
    }
    if (!--r->nr_aio) {
        nz_io_ended(r);
    }
}

/*
 * Data in from the host at the start, as a controller fetches it: guest
 * memory mapped for the backend write, or copied into the bounce buffer
 * (dma.c says when).
 */
static bool nz_start_data_in(NzReq *r)
{
    uint16_t status;

    if (!r->ns->null_backed &&
        nz_dma_map(r->s, &r->sg, false, &r->map, &r->qiov)) {
        r->mapped = true;
        r->s->data_mapped++;
        return true;
    }
    r->s->data_bounced++;
    status = nz_dma_from_host(r->s, &r->sg, nz_req_buf(r, false),
                              r->buf_len);
    if (!nz_status_ok(status)) {
        r->status = status;
        nz_io_ended(r);
        return false;
    }
    qemu_iovec_init_buf(&r->qiov, r->buf, r->buf_len);
    return true;
}

static void nz_start_write(NzReq *r)
{
    NzCtrl *s = r->s;
    NzNs *ns = r->ns;
    bool append = r->cmd.opcode == NVME_CMD_ZONE_APPEND;
    bool zeroes = r->cmd.opcode == NVME_CMD_WRITE_ZEROES;
    uint64_t lba = r->slba;
    ZrResult res;

    if (!ns->null_backed && zr_zone_orphaned(&ns->zones, r->slba)) {
        /* an earlier write's data may still land: wait for it */
        trace_nvme_zns_orphan_wait(r->sqid, le16_to_cpu(r->cmd.cid),
                                   r->slba);
        r->orphan_wait = true;
        QTAILQ_INSERT_TAIL(&s->orphan_wait, r, link);
        return;
    }
    if (!zeroes && !nz_start_data_in(r)) {
        return;
    }
    /* an Empty zone's old extension goes before it opens (zns.c) */
    nz_zde_sync(ns, r->slba >> ns->zones.zone_shift);
    if (ns->null_backed) {
        res = append ? zr_zone_append(&ns->zones, r->slba, r->nlb, &lba)
                     : zr_zone_write(&ns->zones, r->slba, r->nlb);
    } else {
        res = append ? zr_zone_append_begin(&ns->zones, r->slba, r->nlb,
                                            &lba, &r->zio)
                     : zr_zone_write_begin(&ns->zones, r->slba, r->nlb,
                                           &r->zio);
        r->zio_used = res == ZR_OK;
    }
    if (res != ZR_OK) {
        r->status = nz_io_status(r, res);
        nz_io_ended(r);
        return;
    }
    if (append) {
        /* ZNS 4.4.1: the assigned LBA in CQE dwords 0 and 1 */
        r->dw0 = lba;
        r->dw1 = lba >> 32;
        ns->appends++;
    } else {
        ns->writes++;
    }
    ns->blocks_written += r->nlb;
    s->host_writes++;
    s->units_written += ((uint64_t)r->nlb << ns->lbads) / 512;
    if (ns->null_backed) {
        nz_io_ended(r);
        return;
    }
    s->in_flight_io++;
    if (zeroes) {
        r->aiocb = blk_aio_pwrite_zeroes(ns->blkconf.blk, lba << ns->lbads,
                                         (int64_t)r->nlb << ns->lbads,
                                         nz_write_fua(r) ? BDRV_REQ_FUA : 0,
                                         nz_write_cb, r);
        return;
    }
    r->aiocb = blk_aio_pwritev(ns->blkconf.blk, lba << ns->lbads, &r->qiov,
                               nz_write_fua(r) ? BDRV_REQ_FUA : 0,
                               nz_write_cb, r);
}

static void nz_start_read(NzReq *r)
{
    NzCtrl *s = r->s;
    NzNs *ns = r->ns;
    ZrResult res;

    res = zr_zone_read_check(&ns->zones, r->slba, r->nlb,
                             ns->razb ? 0 : ZR_READ_CHECK_BOUNDARY);
    if (res != ZR_OK) {
        r->status = nz_io_status(r, res);
        nz_io_ended(r);
        return;
    }
    r->to_host_len = r->buf_len;
    ns->reads++;
    ns->blocks_read += r->nlb;
    s->host_reads++;
    s->units_read += r->buf_len / 512;
    if (ns->null_backed) {
        nz_req_buf(r, true);
        s->data_bounced++;
        nz_io_ended(r);
        return;
    }
    r->mapped = nz_dma_map(s, &r->sg, true, &r->map, &r->qiov);
    if (r->mapped) {
        s->data_mapped++;
    } else {
        qemu_iovec_init_buf(&r->qiov, nz_req_buf(r, false), r->buf_len);
        s->data_bounced++;
    }
    s->in_flight_io++;
    zr_zone_read_begin(&ns->zones, &r->zrd, r->slba, r->nlb);
    r->aiocb = blk_aio_preadv(ns->blkconf.blk, r->slba << ns->lbads,
                              &r->qiov, 0, nz_read_cb, r);
}

/* Dataset Management (NVM 3.2.3): ranges are checked; deallocation is a
 * hint this controller does not act on (Base: "may deallocate") */
static void nz_start_dsm(NzReq *r)
{
    g_autofree NvmeDsmRange *rng = g_malloc(r->buf_len);
    uint32_t n = r->buf_len / sizeof(*rng), i;
    uint16_t status;

    status = nz_dma_from_host(r->s, &r->sg, rng, r->buf_len);
    for (i = 0; i < n && nz_status_ok(status); i++) {
        uint64_t slba = le64_to_cpu(rng[i].slba);
        uint32_t nlb = le32_to_cpu(rng[i].nlb);

        if (slba >= r->ns->nr_blocks || r->ns->nr_blocks - slba < nlb) {
            status = NVME_LBA_RANGE | NVME_DNR;
        }
    }
    r->status = status;
    nz_io_ended(r);
}

static inline QEMU_ALWAYS_INLINE
void nz_io_start(NzReq *r)
{
    switch (r->cmd.opcode) {
    case NVME_CMD_FLUSH:
        nz_start_flush(r);
        break;
    case NVME_CMD_READ:
        nz_start_read(r);
        break;
    case NVME_CMD_WRITE:
    case NVME_CMD_WRITE_ZEROES:
    case NVME_CMD_ZONE_APPEND:
        nz_start_write(r);
        break;
    case NVME_CMD_DSM:
        nz_start_dsm(r);
        break;
    case NVME_CMD_ZONE_MGMT_SEND:
        r->status = nz_zms_start(r);
        /*
         * With a zone-state drive the new zone state is durable before the
         * command completes: a reset forgotten in a crash would bring old
         * data back under the write pointer of a zone the host rewrote.
         */
        nz_io_durable(r);
        nz_orphan_kick(r->s);
        break;
    case NVME_CMD_ZONE_MGMT_RECV:
        r->status = nz_zmr_start(r);
        nz_io_ended(r);
        break;
    default:
        g_assert_not_reached();     /* nz_io_check() let only these pass */
    }
}

static void nz_svc_start(void *opaque, ZrCmd *cmd, int64_t done_ns)
{
    NzReq *r = cmd->opaque;
    NzCtrl *s = r->s;

    r->state = NZ_REQ_RUN;
    zr_start_log_add(&s->start_log,
                     (uint32_t)r->sqid << 16 | le16_to_cpu(r->cmd.cid));
    trace_nvme_zns_start(r->sqid, le16_to_cpu(r->cmd.cid), r->cmd.opcode,
                         r->slba, r->nlb, cmd->overtaken);
    nz_io_start(r);
}

static void nz_svc_complete(void *opaque, ZrCmd *cmd)
{
    NzReq *r = cmd->opaque;

    r->svc_done = true;
    if (r->io_done) {
        nz_io_finish(r);
    }
}

const ZrServiceOps nz_service_ops = {
    .start = nz_svc_start,
    .complete = nz_svc_complete,
};

/* Writes that waited for orphaned writes of their zone may go now. */
void nz_orphan_kick(NzCtrl *s)
{
    NzReq *r, *next;

    QTAILQ_FOREACH_SAFE(r, &s->orphan_wait, link, next) {
        if (zr_zone_orphaned(&r->ns->zones, r->slba)) {
            continue;
        }
        QTAILQ_REMOVE(&s->orphan_wait, r, link);
        r->orphan_wait = false;
        if (r->cancelled) {
            continue;
        }
        trace_nvme_zns_orphan_go(r->sqid, le16_to_cpu(r->cmd.cid), r->slba);
        nz_io_start(r);
    }
}

/* Work BH: commands whose backend I/O ended with the service time over */
void nz_io_work(NzCtrl *s)
{
    NzReq *r;

    while ((r = QTAILQ_FIRST(&s->finishing))) {
        QTAILQ_REMOVE(&s->finishing, r, link);
        r->on_finishing = false;
        nz_io_finish(r);
    }
}

/* --- teardown ------------------------------------------------------------- */

/*
 * Controller reset (Base 3.7.2): every command ends without a CQE.  Each
 * is taken off every list and freed, except one whose backend I/O is
 * still running (or a written write its zone holds until an earlier one
 * ends): it stays, cancelled, and frees itself when that ends
 * (nz_io_finish()); the reset completes once no backend I/O is left
 * (nz_regs_work() waits for in_flight_io).
 */
void nz_io_reset(NzCtrl *s)
{
    uint32_t i;
    NzReq *r;

    zr_service_timer_reset(&s->sched, NULL, NULL);
    while ((r = QTAILQ_FIRST(&s->done))) {
        QTAILQ_REMOVE(&s->done, r, link);
    }
    for (i = 0; i < NZ_NR_Q; i++) {
        while ((r = QTAILQ_FIRST(&s->cq[i].waiting))) {
            QTAILQ_REMOVE(&s->cq[i].waiting, r, link);
        }
    }
    s->nr_cq_waiting = 0;
    while ((r = QTAILQ_FIRST(&s->orphan_wait))) {
        QTAILQ_REMOVE(&s->orphan_wait, r, link);
        r->orphan_wait = false;
    }
    while ((r = QTAILQ_FIRST(&s->parked))) {
        QTAILQ_REMOVE(&s->parked, r, link);
    }
    for (i = 0; i < NZ_NR_REQS; i++) {
        r = &s->req[i];
        if (r->state == NZ_REQ_FREE) {
            continue;
        }
        nz_req_cancel(r);
        if (r->state == NZ_REQ_RUN && !r->io_done) {
            continue;
        }
        if (r->on_finishing) {
            /* its I/O ended: nothing left to wait for */
            QTAILQ_REMOVE(&s->finishing, r, link);
            r->on_finishing = false;
        }
        if (r->zio_used) {
            zr_zone_write_forget(&r->ns->zones, &r->zio);
        }
        nz_req_free(r);
    }
    nz_admin_reset(s);
}

/*
 * Stop the controller at once (a device reset, unplug): what is in flight
 * ends without a CQE and the backend I/O is waited for.  Nested event
 * loops run the BHs, which do nothing while resetting.
 */
void nz_io_quiesce(NzCtrl *s)
{
    s->resetting = true;
    nz_io_reset(s);
    while (s->in_flight_io) {
        nz_drain(s);
        /*
         * A zone-state sync is no I/O of the data drives, which is all
         * blk_drain() waits for: it runs in a coroutine of its own, on the
         * zone-state drive.  Poll until it has ended too.
         */
        AIO_WAIT_WHILE(NULL, s->in_flight_io);
        nz_io_reset(s);
    }
    nz_io_work(s);      /* cancelled: freed, no DMA */
}

/* Delete SQ: its commands not started yet end as aborted (Base 5.7) */
void nz_io_cancel_sq(NzCtrl *s, uint16_t sqid)
{
    uint32_t i;

    for (i = 0; i < NZ_IO_REQS; i++) {
        NzReq *r = &s->req[i];

        if (r->state == NZ_REQ_WAIT && r->sqid == sqid &&
            zr_service_timer_cancel(&s->sched, &r->zr)) {
            nz_req_done(r, NVME_CMD_ABORT_SQ_DEL);
        }
    }
    zr_service_timer_kick(&s->sched);
}

/* Abort (Base 5.1): a command not started yet ends with Abort Requested */
bool nz_io_abort(NzCtrl *s, uint16_t sqid, uint16_t cid)
{
    uint32_t i;

    for (i = 0; i < NZ_IO_REQS; i++) {
        NzReq *r = &s->req[i];

        if (r->state == NZ_REQ_WAIT && r->sqid == sqid &&
            le16_to_cpu(r->cmd.cid) == cid &&
            zr_service_timer_cancel(&s->sched, &r->zr)) {
            trace_nvme_zns_aborted(sqid, le16_to_cpu(cid));
            nz_req_done(r, NVME_CMD_ABORT_REQ);
            zr_service_timer_kick(&s->sched);
            return true;
        }
    }
    return false;
}
