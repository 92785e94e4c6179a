/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: QOM type, properties, realize and reset, the command table and
 * the SCSIReqOps every command runs through.
 *
 * A request moves through these phases (ZbcPhase):
 *
 *   emulated data-in   send() fills buf -> DATA_READY -> read_data hands
 *                      it over -> DATA_IN -> read_data completes
 *   data-out           send() -> WANT_DATA_OUT -> write_data asks the HBA
 *                      -> DATA_OUT -> write_data: cmd->data_out()
 *   medium read        send() -> READ_READY -> read_data submits to the
 *                      dispatch engine -> STARTED -> start() reads into
 *                      buf, hands it over -> DATA_IN -> read_data completes
 *   no data            send() submits (medium) or completes (emulated)
 *
 * Medium commands (READ, WRITE, SYNCHRONIZE CACHE, ZBC OUT) start when the
 * dispatch engine picks them (zbc-rw.c), so the `reorder` policy decides
 * the order in which write pointers are checked.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qobject/qlist.h"
#include "qom/qom-qobject.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "scsi/constants.h"
#include "system/block-backend.h"
#include "system/reset.h"
#include "system/runstate.h"
#include "hw/block/zoned-reorder/service-props.h"
#include "zbc-internal.h"
#include "trace.h"

/*
 * ------------------------------------------------------------------------
 * The command table
 */

/*
 * CDB usage maps name only the bytes with used bits; the CONTROL byte is
 * always 0 (NACA and LINK are not supported).
 */
#define ZBC_OUT_CMD(_name, _sa)                                             \
    { _name, ZBC_OUT, _sa, 16,                                              \
      { [0] = ZBC_OUT, [1] = 0x1f, [2 ... 9] = 0xff /* ZONE ID */,          \
        [14] = 0x01 /* ALL */ },                                            \
      .own = { [12 ... 13] = 0xff /* ZONE COUNT: zbc_out_send() */ },       \
      .needs_ready = true, .op = ZR_OP_ZONE_MGMT,                           \
      .send = zbc_out_send, .start = zbc_out_start }

/*
 * Every command scsi-zbc supports, with the CDB usage data it reports in
 * REPORT SUPPORTED OPERATION CODES (SPC-5).  Reserved bits are refused
 * from the same maps, so what is reported is what is checked.
 */
const ZbcCmd zbc_cmds[] = {
    { "TEST UNIT READY", TEST_UNIT_READY, -1, 6,
      { [0] = TEST_UNIT_READY },
      .needs_ready = true, .send = zbc_tur_send },
    { "REQUEST SENSE", REQUEST_SENSE, -1, 6,
      { [0] = REQUEST_SENSE, [1] = 0x01 /* DESC */, [4] = 0xff },
      .send = zbc_request_sense_send },
    { "INQUIRY", INQUIRY, -1, 6,
      { [0] = INQUIRY, [1] = 0x01 /* EVPD */, [2 ... 4] = 0xff },
      .send = zbc_inquiry_send },
    { "MODE SELECT(6)", MODE_SELECT, -1, 6,
      { [0] = MODE_SELECT, [1] = 0x11 /* PF, SP */, [4] = 0xff },
      .send = zbc_mode_select_send, .data_out = zbc_mode_select_data_out },
    { "MODE SENSE(6)", MODE_SENSE, -1, 6,
      { [0] = MODE_SENSE, [1] = 0x08 /* DBD */, [2 ... 4] = 0xff },
      .send = zbc_mode_sense_send },
    { "START STOP UNIT", START_STOP, -1, 6,
      { [0] = START_STOP, [1] = 0x01 /* IMMED */,
        [4] = 0xf7 /* POWER CONDITION, NO_FLUSH, LOEJ, START */ },
      .send = zbc_start_stop_send },
    { "READ CAPACITY(10)", READ_CAPACITY_10, -1, 10,
      { [0] = READ_CAPACITY_10 },
      .send = zbc_read_capacity10_send },
    { "READ(10)", READ_10, -1, 10,
      { [0] = READ_10, [1] = 0x18 /* DPO, FUA */, [2 ... 5] = 0xff,
        [7 ... 8] = 0xff },
      .needs_ready = true, .op = ZR_OP_READ,
      .send = zbc_read_send, .start = zbc_read_start },
    { "WRITE(10)", WRITE_10, -1, 10,
      { [0] = WRITE_10, [1] = 0x18 /* DPO, FUA */, [2 ... 5] = 0xff,
        [7 ... 8] = 0xff },
      .needs_ready = true, .op = ZR_OP_WRITE,
      .send = zbc_write_send, .data_out = zbc_write_data_out,
      .start = zbc_write_start },
    { "SYNCHRONIZE CACHE(10)", SYNCHRONIZE_CACHE, -1, 10,
      { [0] = SYNCHRONIZE_CACHE, [1] = 0x02 /* IMMED */, [2 ... 5] = 0xff,
        [7 ... 8] = 0xff },
      .needs_ready = true, .op = ZR_OP_OTHER,
      .send = zbc_sync_send, .start = zbc_sync_start },
    { "MODE SELECT(10)", MODE_SELECT_10, -1, 10,
      { [0] = MODE_SELECT_10, [1] = 0x11 /* PF, SP */, [7 ... 8] = 0xff },
      .send = zbc_mode_select_send, .data_out = zbc_mode_select_data_out },
    { "MODE SENSE(10)", MODE_SENSE_10, -1, 10,
      { [0] = MODE_SENSE_10, [1] = 0x18 /* LLBAA, DBD */, [2 ... 3] = 0xff,
        [7 ... 8] = 0xff },
      .send = zbc_mode_sense_send },
    { "READ(16)", READ_16, -1, 16,
      { [0] = READ_16, [1] = 0x18 /* DPO, FUA */, [2 ... 9] = 0xff,
        [10 ... 13] = 0xff },
      .needs_ready = true, .op = ZR_OP_READ,
      .send = zbc_read_send, .start = zbc_read_start },
    { "WRITE(16)", WRITE_16, -1, 16,
      { [0] = WRITE_16, [1] = 0x18 /* DPO, FUA */, [2 ... 9] = 0xff,
        [10 ... 13] = 0xff },
      .needs_ready = true, .op = ZR_OP_WRITE,
      .send = zbc_write_send, .data_out = zbc_write_data_out,
      .start = zbc_write_start },
    { "SYNCHRONIZE CACHE(16)", SYNCHRONIZE_CACHE_16, -1, 16,
      { [0] = SYNCHRONIZE_CACHE_16, [1] = 0x02 /* IMMED */, [2 ... 9] = 0xff,
        [10 ... 13] = 0xff },
      .needs_ready = true, .op = ZR_OP_OTHER,
      .send = zbc_sync_send, .start = zbc_sync_start },
    ZBC_OUT_CMD("CLOSE ZONE", ZBC_SA_CLOSE_ZONE),
    ZBC_OUT_CMD("FINISH ZONE", ZBC_SA_FINISH_ZONE),
    ZBC_OUT_CMD("OPEN ZONE", ZBC_SA_OPEN_ZONE),
    ZBC_OUT_CMD("RESET WRITE POINTER", ZBC_SA_RESET_WP),
    { "REPORT ZONES", ZBC_IN, ZBC_SA_REPORT_ZONES, 16,
      { [0] = ZBC_IN, [1] = 0x1f, [2 ... 9] = 0xff, [10 ... 13] = 0xff,
        [14] = 0xbf /* PARTIAL, REPORTING OPTIONS */ },
      .needs_ready = true, .send = zbc_report_zones_send },
    { "READ CAPACITY(16)", SERVICE_ACTION_IN_16, ZBC_SA_READ_CAPACITY_16, 16,
      { [0] = SERVICE_ACTION_IN_16, [1] = 0x1f, [10 ... 13] = 0xff },
      .send = zbc_read_capacity16_send },
    /* Answered by QEMU's SCSI bus for every LU; listed for RSOC. */
    { "REPORT LUNS", REPORT_LUNS, -1, 12,
      { [0] = REPORT_LUNS, [2] = 0xff /* SELECT REPORT */,
        [6 ... 9] = 0xff },
      .by_bus = true },
    { "REPORT SUPPORTED OPERATION CODES", MAINTENANCE_IN, ZBC_SA_RSOC, 12,
      { [0] = MAINTENANCE_IN, [1] = 0x1f,
        [2] = 0x87 /* RCTD, REPORTING OPTIONS */, [3 ... 9] = 0xff },
      .send = zbc_rsoc_send },
};

const size_t zbc_nr_cmds = ARRAY_SIZE(zbc_cmds);

/*
 * The entry for @opcode (and, for opcodes with service actions, @sa), or
 * NULL.  *@opcode_known tells an unsupported service action of a known
 * opcode (INVALID FIELD IN CDB) from an unknown opcode (INVALID COMMAND
 * OPERATION CODE), as SPC-5 asks.
 */
const ZbcCmd *zbc_cmd_find(uint8_t opcode, int sa, bool *opcode_known)
{
    size_t i;

    *opcode_known = false;
    for (i = 0; i < zbc_nr_cmds; i++) {
        const ZbcCmd *c = &zbc_cmds[i];

        if (c->opcode != opcode) {
            continue;
        }
        *opcode_known = true;
        if (c->sa < 0 || c->sa == sa) {
            return c;
        }
    }
    return NULL;
}

/*
 * ------------------------------------------------------------------------
 * Request plumbing
 */

static ZbcBufCache *zbc_bufs(ZbcState *s)
{
    return &container_of(s, ZbcInstance, pub)->bufs;
}

/*
 * A buffer of at least @size bytes for @r: one a finished command left
 * (zbc_buf_put()), else a new one, zeroed, so that it never holds what
 * the host had there.  The cache is the main thread's, as the zone model
 * is (zbc_send_command()).
 */
static uint8_t *zbc_buf_get(ZbcReq *r, size_t size, bool *fresh)
{
    ZbcBufCache *c = zbc_bufs(zbc_state(r));
    uint32_t i;

    assert(!r->buf);
    size = MAX(size, 1);
    if (size <= ZBC_BUF_CACHE_MAX && qemu_in_main_thread()) {
        for (i = c->n; i-- > 0;) {
            if (c->size[i] >= size) {
                r->buf = c->buf[i];
                r->buf_size = c->size[i];
                c->bytes -= c->size[i];
                c->n--;
                c->buf[i] = c->buf[c->n];
                c->size[i] = c->size[c->n];
                *fresh = false;
                return r->buf;
            }
        }
    }
    r->buf_size = size;
    r->buf = blk_blockalign(r->req.dev->conf.blk, size);
    memset(r->buf, 0, size);
    *fresh = true;
    return r->buf;
}

/* @r is freed: keep its buffer for a later command, or free it. */
static void zbc_buf_put(ZbcReq *r)
{
    ZbcBufCache *c = zbc_bufs(zbc_state(r));

    if (r->buf && c->open && c->n < ZBC_BUF_CACHE &&
        r->buf_size <= ZBC_BUF_CACHE_MAX &&
        c->bytes + r->buf_size <= ZBC_BUF_CACHE_BYTES &&
        qemu_in_main_thread()) {
        c->buf[c->n] = r->buf;
        c->size[c->n] = r->buf_size;
        c->bytes += r->buf_size;
        c->n++;
    } else {
        qemu_vfree(r->buf);
    }
    r->buf = NULL;
}

/* A zeroed buffer of @size bytes for the command's data. */
uint8_t *zbc_req_buf(ZbcReq *r, size_t size)
{
    bool fresh;

    zbc_buf_get(r, size, &fresh);
    if (!fresh) {
        memset(r->buf, 0, MAX(size, 1));
    }
    return r->buf;
}

/*
 * The buffer of a READ's or a WRITE's @size bytes of medium data, left as
 * it is (an earlier command's data of this LU, or zeros) where all of it
 * is about to be overwritten: a READ's by the drive (an error the drive
 * policy ignores clears it, zbc_io_error(); a drive that leaves a read's
 * buffer alone, null-co with read-zeroes=off, returns this LU's data,
 * never the host's), a WRITE's by an HBA that hands over all of the
 * data-out or cancels the command.  Other HBAs may hand over less (a
 * guest's short buffer): the rest reads as zeros, as it always did; and
 * a null-backed LU reads zeros.
 */
uint8_t *zbc_req_data_buf(ZbcReq *r, size_t size, bool write)
{
    ZbcState *s = zbc_state(r);
    bool fresh;

    if (write ? !zbc_bufs(s)->hba_fills : s->null_backed) {
        return zbc_req_buf(r, size);
    }
    return zbc_buf_get(r, size, &fresh);
}

/*
 * At realize.  ufs-zoned moves a data-out in one piece, or cancels the
 * command when the host's buffer is short or its DMA fails
 * (ufs_zoned_req_transfer()): the LU never sees part of one.
 */
void zbc_buf_cache_init(ZbcState *s)
{
    ZbcBufCache *c = zbc_bufs(s);
    Object *hba = OBJECT(DEVICE(s)->parent_bus->parent);

    c->n = 0;
    c->bytes = 0;
    c->open = true;
    c->hba_fills = object_dynamic_cast(hba, "ufs-zoned") != NULL;
}

/* At unrealize: requests freed later free their buffers. */
void zbc_buf_cache_cleanup(ZbcState *s)
{
    ZbcBufCache *c = zbc_bufs(s);

    c->open = false;
    while (c->n) {
        qemu_vfree(c->buf[--c->n]);
    }
    c->bytes = 0;
}

/*
 * Emulated data-in of @len bytes is in r->buf: transfer at most the
 * allocation length (SPC-5: the rest is not an error, the residual says
 * how much was left out).
 */
int32_t zbc_req_data_in(ZbcReq *r, size_t len)
{
    r->len = MIN(len, r->req.cmd.xfer);
    if (!r->len) {
        zbc_req_complete(r);
        return 0;
    }
    r->phase = ZBC_PHASE_DATA_READY;
    return r->len;
}

/*
 * A started medium command is over as far as the dispatch engine goes.
 * With the service-time model the model completes it there when its
 * service time is over (zbc-service.c), not before.
 */
void zbc_req_end_dispatch(ZbcReq *r)
{
    if (r->zr.state == ZR_CMD_STARTED && !zbc_svc_on(zbc_state(r))) {
        zr_dispatch_complete(&zbc_state(r)->dispatch, &r->zr);
    }
}

void zbc_req_complete(ZbcReq *r)
{
    trace_zbc_complete(r->req.tag, r->cmd ? r->cmd->name : "?");
    zbc_req_end_dispatch(r);
    zbc_req_report(r, ZBC_REPORT_STATUS, GOOD);
}

void zbc_req_acct_start(ZbcReq *r, size_t bytes, enum BlockAcctType type)
{
    block_acct_start(blk_get_stats(r->req.dev->conf.blk), &r->acct, bytes,
                     type);
    r->acct_started = true;
}

/*
 * The common end of a backend I/O (the callback's first step): forget the
 * AIOCB, close the accounting, and finish the request if it was cancelled
 * or failed.  Returns true when the caller goes on with its success path;
 * either way the caller then drops the reference it took for the I/O.
 */
bool zbc_req_aio_done(ZbcReq *r, int ret, ZbcAccess access)
{
    BlockAcctStats *stats = blk_get_stats(r->req.dev->conf.blk);
    bool ok = ret >= 0 && !r->req.io_canceled;

    r->req.aiocb = NULL;
    if (r->acct_started) {
        if (ok) {
            block_acct_done(stats, &r->acct);
        } else {
            block_acct_failed(stats, &r->acct);
        }
        r->acct_started = false;
    }
    if (r->req.io_canceled) {
        scsi_req_cancel_complete(&r->req);
    } else if (ret < 0) {
        zbc_fail_errno(r, ret, access);
    }
    return ok;
}

/*
 * Zone state and data must be durable before @r completes (a cache flush,
 * a FUA write, a zone operation): with a zone-state drive, wait for a sync
 * of the core's persistence layer; without one, only a flush of the data
 * drive counts, and that only for SYNCHRONIZE CACHE (zbc-rw.c).
 */
static void zbc_persisted(void *opaque, int ret)
{
    ZbcReq *r = opaque;

    if (r->acct_started) {
        BlockAcctStats *stats = blk_get_stats(r->req.dev->conf.blk);

        if (ret < 0) {
            block_acct_failed(stats, &r->acct);
        } else {
            block_acct_done(stats, &r->acct);
        }
        r->acct_started = false;
    }
    /* A request cancelled while it waited was completed by the bus. */
    if (!r->req.io_canceled) {
        if (ret < 0) {
            zbc_fail_errno(r, ret, ZBC_ACCESS_WRITE);
        } else {
            zbc_req_complete(r);
        }
    }
    scsi_req_unref(&r->req);
}

void zbc_req_complete_durable(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);

    if (!s->persist.blk) {
        zbc_req_complete(r);
        return;
    }
    scsi_req_ref(&r->req);
    zr_persist_sync(&s->persist, zbc_persisted, r);
}

static int32_t zbc_send_command(SCSIRequest *req, uint8_t *cdb)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);
    ZbcState *s = zbc_state(r);
    const ZbcCmd *cmd;
    bool known;
    int i;

    /*
     * The zone model and the dispatch engine live under the BQL: an HBA
     * that runs the device in an iothread (virtio-scsi iothread=...) gets
     * TARGET FAILURE rather than a race.
     */
    if (!qemu_in_main_thread()) {
        qemu_log_mask(LOG_UNIMP, "scsi-zbc: iothreads are not supported\n");
        zbc_check_condition(r, SENSE_CODE(TARGET_FAILURE), "iothread");
        return 0;
    }
    /*
     * The VM runs on a migration's destination and the HBA has a new
     * command before zbc_resume_bh() ran: the commands the migration
     * brought, which arrived first, run again first, so that a write
     * never overtakes an earlier one of its zone here.
     */
    if (s->mig_restart && runstate_is_running()) {
        zbc_mig_restart_all(s);
    }
    cmd = zbc_cmd_find(cdb[0], cdb[1] & 0x1f, &known);
    if (!cmd || cmd->by_bus) {
        trace_zbc_cmd(req->tag, cdb[0], "unsupported");
        if (known && !cmd) {
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "unsupported service action");
        } else {
            zbc_check_condition(r, SENSE_CODE(INVALID_OPCODE),
                                "unsupported operation code");
        }
        return 0;
    }
    r->cmd = cmd;
    trace_zbc_cmd(req->tag, cdb[0], cmd->name);

    /* SPC-5: a reserved bit set in the CDB is an invalid field. */
    for (i = 1; i < cmd->cdb_len; i++) {
        uint8_t reserved = cdb[i] & ~(cmd->usage[i] | cmd->own[i]);

        if (reserved) {
            qemu_log_mask(LOG_GUEST_ERROR, "scsi-zbc: %s: reserved bits 0x%02x "
                          "set in CDB byte %d\n", cmd->name, reserved, i);
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "reserved bits set");
            return 0;
        }
    }
    if (cmd->needs_ready && s->stopped) {
        zbc_fail_stopped(r);
        return 0;
    }
    return cmd->send(r);
}

static void zbc_read_data(SCSIRequest *req)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

    switch (r->phase) {
    case ZBC_PHASE_READ_READY:
        r->phase = ZBC_PHASE_STARTED;
        zbc_submit(r);
        break;
    case ZBC_PHASE_DATA_READY:
        r->phase = ZBC_PHASE_DATA_IN;
        scsi_req_data(req, r->len);
        break;
    case ZBC_PHASE_DATA_IN:
        zbc_req_complete(r);
        break;
    case ZBC_PHASE_MIGRATED:
        zbc_mig_restart(r);
        break;
    default:
        /* Only an HBA that breaks the SCSIReqOps protocol gets here. */
        g_assert_not_reached();
    }
}

static void zbc_write_data(SCSIRequest *req)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

    switch (r->phase) {
    case ZBC_PHASE_WANT_DATA_OUT:
        r->phase = ZBC_PHASE_DATA_OUT;
        scsi_req_data(req, r->len);
        break;
    case ZBC_PHASE_DATA_OUT:
        r->phase = ZBC_PHASE_STARTED;
        r->cmd->data_out(r);
        break;
    case ZBC_PHASE_MIGRATED:
        zbc_mig_restart(r);
        break;
    default:
        g_assert_not_reached();
    }
}

static uint8_t *zbc_get_buf(SCSIRequest *req)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

    return r->buf;
}

static void zbc_free_req(SCSIRequest *req)
{
    ZbcReq *r = DO_UPCAST(ZbcReq, req, req);

    /* Cancelled after it started: the engine still counts it in flight. */
    zbc_svc_free_req(r);
    zbc_req_end_dispatch(r);
    zr_zone_write_forget(&zbc_state(r)->zones, &r->zio);
    zr_zone_read_release(&r->zrd);
    zbc_buf_put(r);
}

static const SCSIReqOps zbc_reqops = {
    .size = sizeof(ZbcReq),
    .free_req = zbc_free_req,
    .send_command = zbc_send_command,
    .read_data = zbc_read_data,
    .write_data = zbc_write_data,
    .get_buf = zbc_get_buf,
    .save_request = zbc_save_request,
    .load_request = zbc_load_request,
};

static SCSIRequest *zbc_alloc_req(SCSIDevice *d, uint32_t tag, uint32_t lun,
                                  uint8_t *buf, void *hba_private)
{
    return scsi_req_alloc(&zbc_reqops, d, tag, lun, hba_private);
}

/*
 * QEMU's generic CDB parser takes bytes 10-13 of any 16-byte CDB as the
 * transfer length; in ZBC OUT they are reserved and ZONE COUNT, and the
 * command never moves data (ZBC-2).  Get that right, or an HBA would set
 * up a data phase the command does not have.
 */
static int zbc_parse_cdb(SCSIDevice *dev, SCSICommand *cmd, uint8_t *buf,
                         size_t buf_len, void *hba_private)
{
    int ret = scsi_req_parse_cdb(dev, cmd, buf, buf_len);

    if (ret == 0 && buf[0] == ZBC_OUT) {
        cmd->xfer = 0;
        cmd->mode = SCSI_XFER_NONE;
    }
    return ret;
}

/*
 * ------------------------------------------------------------------------
 * Realize, reset
 */

/* Size in bytes -> blocks, refusing sizes that are not whole blocks. */
static bool zbc_to_blocks(const char *prop, uint64_t bytes, uint32_t bs,
                          uint64_t *blocks, Error **errp)
{
    if (bytes % bs) {
        error_setg(errp, "%s %" PRIu64 " is not a multiple of the logical "
                   "block size %" PRIu32, prop, bytes, bs);
        return false;
    }
    *blocks = bytes / bs;
    return true;
}

/*
 * With a physical block larger than the logical block, writes in
 * sequential zones must be whole physical blocks
 * (zbc_zone_write_misaligned()), so every zone, and the space a zone can
 * be written in, must be too, or a zone could never be filled.
 */
static bool zbc_check_physical(ZbcState *s, uint64_t zone_blocks,
                               uint64_t cap_blocks, Error **errp)
{
    uint32_t pbs = s->qdev.conf.physical_block_size;
    uint64_t mask = s->pb_blocks - 1;

    if (zone_blocks & mask) {
        error_setg(errp, "zone-size %" PRIu64 " is not a multiple of the "
                   "physical block size %" PRIu32, s->zone_size, pbs);
        return false;
    }
    if (cap_blocks & mask) {
        error_setg(errp, "zone-capacity %" PRIu64 " is not a multiple of "
                   "the physical block size %" PRIu32, s->zone_cap, pbs);
        return false;
    }
    if (s->nr_blocks & mask) {
        error_setg(errp, "the device size (%" PRIu64 " bytes) is not a "
                   "multiple of the physical block size %" PRIu32,
                   s->nr_blocks * s->block_size, pbs);
        return false;
    }
    return true;
}

static bool zbc_geometry(ZbcState *s, Error **errp)
{
    BlockConf *conf = &s->qdev.conf;
    uint64_t bytes, zone_blocks, cap_blocks = 0;
    ZrZoneConfig cfg;
    Error *local_err = NULL;

    s->block_size = conf->logical_block_size ?: ZBC_DEFAULT_BLOCK_SIZE;
    if (s->block_size != 512 && s->block_size != 4096) {
        error_setg(errp, "logical_block_size %" PRIu32 " is not supported "
                   "(512 or 4096)", s->block_size);
        return false;
    }
    conf->logical_block_size = s->block_size;
    if (!conf->physical_block_size) {
        conf->physical_block_size = s->block_size;
    } else if (conf->physical_block_size < s->block_size) {
        error_setg(errp, "physical_block_size %" PRIu32 " is smaller than "
                   "logical_block_size %" PRIu32, conf->physical_block_size,
                   s->block_size);
        return false;
    }

    if (s->null_backed) {
        bytes = s->size ?: ZBC_DEFAULT_NULL_SIZE;
    } else {
        int64_t len = blk_getlength(conf->blk);

        if (len < 0) {
            error_setg_errno(errp, -len, "cannot get the drive's size");
            return false;
        }
        if (s->size > len) {
            error_setg(errp, "size %" PRIu64 " exceeds the drive's size %"
                       PRId64, s->size, len);
            return false;
        }
        /* A drive that is not a whole number of blocks is rounded down. */
        bytes = s->size ?: QEMU_ALIGN_DOWN(len, s->block_size);
    }
    if (!zbc_to_blocks("size", bytes, s->block_size, &s->nr_blocks, errp) ||
        !zbc_to_blocks("zone-size", s->zone_size, s->block_size,
                       &zone_blocks, errp) ||
        !zbc_to_blocks("zone-capacity", s->zone_cap, s->block_size,
                       &cap_blocks, errp)) {
        return false;
    }
    s->pb_blocks = conf->physical_block_size / s->block_size;
    if (!zbc_check_physical(s, zone_blocks, cap_blocks, errp)) {
        return false;
    }
    if (zone_blocks > UINT32_MAX) {
        error_setg(errp, "zone-size %" PRIu64 " is too large", s->zone_size);
        return false;
    }
    /*
     * With gap zones Linux takes every zone to be zone-size long (the
     * starting LBA granularity of VPD B6), so a smaller last zone would
     * not cover the capacity exactly and the disk would be rejected.
     */
    if (cap_blocks && cap_blocks < zone_blocks && zone_blocks &&
        s->nr_blocks % zone_blocks) {
        error_setg(errp, "with zone-capacity below zone-size the device size "
                   "(%" PRIu64 " bytes) must be a multiple of zone-size (%"
                   PRIu64 " bytes)", s->nr_blocks * s->block_size,
                   s->zone_size);
        return false;
    }

    cfg = (ZrZoneConfig) {
        .nr_blocks = s->nr_blocks,
        .zone_size = zone_blocks,
        .zone_cap = cap_blocks,
        .nr_conv = s->conv_zones,
        .max_open = s->max_open,
        .flavour = ZR_FLAVOUR_ZBC,
    };
    if (!zr_zone_model_init(&s->zones, &cfg, &local_err)) {
        error_propagate_prepend(errp, local_err, "invalid zone geometry "
                                "(in %" PRIu32 "-byte blocks): ",
                                s->block_size);
        return false;
    }
    s->zone_blocks = zone_blocks;
    s->max_xfer_blocks = ZBC_MAX_XFER_BYTES / s->block_size;
    return true;
}

/*
 * ------------------------------------------------------------------------
 * The block layer: iothreads, drains
 */

/*
 * Does the HBA run its commands in an iothread?  The zone model and the
 * dispatch engine live under the BQL, so scsi-zbc cannot follow it there.
 * The drive's AioContext cannot tell at realize: virtio-scsi, the HBA that
 * supports iothreads (it sets hba_supports_iothread in its pre-plug
 * handler), moves the drive to its iothread in its plug handler, after
 * realize, and a null-backed disk's BlockBackend has no node to move.  So
 * ask the HBA: an "iothread" link or a non-empty "iothread-vq-mapping".
 */
static const char *zbc_hba_iothread(SCSIDevice *dev)
{
    Object *hba = OBJECT(DEVICE(dev)->parent_bus->parent);
    g_autofree char *iothread = NULL;
    QObject *map;
    bool mapped;

    if (!dev->hba_supports_iothread) {
        return NULL;
    }
    if (object_property_find(hba, "iothread")) {
        iothread = object_property_get_str(hba, "iothread", NULL);
        if (iothread && *iothread) {
            return "iothread";
        }
    }
    if (!object_property_find(hba, "iothread-vq-mapping")) {
        return NULL;
    }
    map = object_property_get_qobject(hba, "iothread-vq-mapping", NULL);
    mapped = qobject_to(QList, map) && !qlist_empty(qobject_to(QList, map));
    qobject_unref(map);
    return mapped ? "iothread-vq-mapping" : NULL;
}

static bool zbc_check_iothread(SCSIDevice *dev, Error **errp)
{
    const char *prop = zbc_hba_iothread(dev);

    if (prop) {
        error_setg(errp, "scsi-zbc does not support iothreads, and the HBA "
                   "of bus %s has %s set; use an HBA without one",
                   DEVICE(dev)->parent_bus->name, prop);
        return false;
    }
    if (dev->conf.blk &&
        blk_get_aio_context(dev->conf.blk) != qemu_get_aio_context()) {
        error_setg(errp, "scsi-zbc does not support iothreads, and its "
                   "drive is in one");
        return false;
    }
    return true;
}

/*
 * While the drive is drained, the HBA stops submitting (the bus's
 * drained_begin, as scsi-disk does) and the dispatch engine starts
 * nothing: queued commands wait, and start from the bottom half once the
 * drain ends.  No drained_poll: a queued command is not I/O in flight.
 */
static void zbc_drained_begin(void *opaque)
{
    ZbcState *s = opaque;

    s->quiesced++;
    trace_zbc_drained(s->quiesced);
    zbc_svc_drained_begin(s);
    scsi_device_drained_begin(&s->qdev);
}

static void zbc_drained_end(void *opaque)
{
    ZbcState *s = opaque;

    assert(s->quiesced);
    s->quiesced--;
    trace_zbc_drained(s->quiesced);
    scsi_device_drained_end(&s->qdev);
    zbc_svc_drained_end(s);
    /* After unrealize (no bottom half) nothing is pending either. */
    if (!s->quiesced && s->start_bh && !QTAILQ_EMPTY(&s->dispatch.pending)) {
        zbc_schedule_starts(s);
    }
    /* Writes that waited for orphans through the drain: from start_bh. */
    if (!s->quiesced && s->start_bh && !QTAILQ_EMPTY(&s->orphan_wait)) {
        zbc_schedule_starts(s);
    }
}

/*
 * No resize_cb: the drive is opened without sharing BLK_PERM_RESIZE
 * (blkconf_apply_backend_options(..., resizable = false, ...)), so
 * block_resize is refused; the zone layout is fixed at realize.
 */
static const BlockDevOps zbc_block_ops = {
    .drained_begin = zbc_drained_begin,
    .drained_end = zbc_drained_end,
};

/*
 * System reset is a power cycle for the medium: open zones come back
 * CLOSED (EMPTY with nothing written), as after a restart, so zones a
 * previous boot left open do not use up max-open (ZBC-2 "Zone condition
 * after power on").  Device and bus resets keep them, as on a drive.
 */
static void zbc_power_on(void *opaque)
{
    ZbcState *s = opaque;

    trace_zbc_power_on(zr_zone_nr_open(&s->zones));
    zr_zone_model_power_on(&s->zones);
}

/*
 * The VM runs again: commands stopped on a backend error are issued
 * again, and those a migration brought run.  The VM stops (shutdown,
 * pause, migration, savevm): stopped commands the HBA cancelled are
 * dropped, and the zone state is written.
 */
static void zbc_vm_state(void *opaque, bool running, RunState state)
{
    ZbcState *s = opaque;
    int ret;

    if (running) {
        if (!QTAILQ_EMPTY(&s->parked) || s->mig_restart) {
            qemu_bh_schedule(s->resume_bh);
        }
        return;
    }
    zbc_io_drop_cancelled(s);
    if (!s->persist.blk) {
        return;
    }
    /*
     * The block layer drains all drives only after the stop handlers: let
     * this disk's writes end first, so their zone state is written too.
     */
    blk_drain(s->qdev.conf.blk);
    ret = zr_persist_sync_now(&s->persist);
    if (ret < 0) {
        error_report("scsi-zbc %s: cannot write the zone state: %s",
                     s->qdev.qdev.id ?: "", strerror(-ret));
    }
}

/*
 * zone-state=DRIVE: the zone state lives on a drive of its own, loaded
 * (or, fresh, formatted) here; docs/devel/zone-state.md says why a drive
 * of its own and what survives a crash.
 */
static bool zbc_persist_open(ZbcState *s, Error **errp)
{
    BlockBackend *zs = s->zs_blk;

    if (!zs) {
        if (s->zs_format) {
            error_setg(errp, "zone-state-format needs a zone-state drive");
            return false;
        }
        if (!s->null_backed) {
            warn_report_once("scsi-zbc: a drive without zone-state: zone "
                             "conditions and write pointers are lost when "
                             "QEMU exits (see zone-state in "
                             "docs/system/devices/scsi-zbc.rst)");
        }
        return true;
    }
    if (s->null_backed) {
        error_setg(errp, "zone-state needs a drive: a null-backed disk keeps "
                   "no data to match");
        return false;
    }
    return zr_persist_attach(&s->persist, &s->zones, zs, s->qdev.conf.blk,
                             s->block_size, s->zs_format, errp);
}

static void zbc_realize(SCSIDevice *dev, Error **errp)
{
    ZbcState *s = SCSI_ZBC(dev);
    BlockConf *conf = &dev->conf;
    ZrDispatchConfig dcfg;

    if (s->serial && strlen(s->serial) > 36) {
        error_setg(errp, "serial can be at most 36 characters long");
        return;
    }
    if (!zbc_check_iothread(dev, errp)) {
        return;
    }
    zbc_buf_cache_init(s);
    s->null_backed = !conf->blk;
    if (!s->null_backed) {
        if (!blk_is_inserted(conf->blk)) {
            error_setg(errp, "the drive has no medium");
            return;
        }
        if (!blkconf_apply_backend_options(conf, false, false, errp)) {
            return;
        }
        /* werror/rerror=stop report through the drive's I/O status. */
        blk_iostatus_enable(conf->blk);
    }
    if (!zbc_geometry(s, errp)) {
        return;
    }
    zr_zone_set_io_done(&s->zones, zbc_write_released, s);
    /*
     * One queue: a SCSI LU sees one task set, so `spec` and `rr` keep
     * arrival order; `random` and `reverse` reorder.
     */
    dcfg = (ZrDispatchConfig) {
        .policy = s->policy,
        .spec = ZR_SPEC_PER_QUEUE_RR,
        .nr_queues = 1,
        .seed = s->seed,
        .zone_size = s->zone_blocks,
    };
    if (!zr_dispatch_init(&s->dispatch, &dcfg, errp)) {
        zr_zone_model_cleanup(&s->zones);
        return;
    }
    if (!zbc_svc_realize(s, errp)) {
        zr_dispatch_cleanup(&s->dispatch);
        zr_zone_model_cleanup(&s->zones);
        return;
    }
    if (!zbc_persist_open(s, errp)) {
        zbc_svc_unrealize(s);
        zr_dispatch_cleanup(&s->dispatch);
        zr_zone_model_cleanup(&s->zones);
        return;
    }
    if (s->null_backed) {
        /*
         * QEMU's SCSI bus drains the device's BlockBackend on reset and
         * unplug, so give it an empty one (as scsi-cd does without media).
         */
        conf->blk = blk_new(qemu_get_aio_context(), 0, BLK_PERM_ALL);
        if (blk_attach_dev(conf->blk, DEVICE(dev)) < 0) {
            g_assert_not_reached();
        }
        s->wce_default = conf->wce != ON_OFF_AUTO_OFF;
    } else {
        s->wce_default = blk_enable_write_cache(conf->blk);
    }
    s->wce = s->wce_default;
    s->lu_name = zbc_lu_name(s);
    blk_set_dev_ops(conf->blk, &zbc_block_ops, s);
    s->start_bh = qemu_bh_new_guarded(zbc_start_bh, s,
                                      &DEVICE(dev)->mem_reentrancy_guard);
    zr_vclock_hold_init(&s->vclock, zbc_starts_pending, s);
    qemu_register_reset(zbc_power_on, s);
    QTAILQ_INIT(&s->parked);
    QTAILQ_INIT(&s->zone_op_wait);
    QTAILQ_INIT(&s->orphan_wait);
    s->resume_bh = qemu_bh_new_guarded(zbc_resume_bh, s,
                                       &DEVICE(dev)->mem_reentrancy_guard);
    s->vmse = qemu_add_vm_change_state_handler(zbc_vm_state, s);
    dev->type = TYPE_ZBC;
    dev->blocksize = s->block_size;
    dev->max_lba = s->nr_blocks - 1;
    trace_zbc_realize(s->nr_blocks, s->block_size, s->zones.nr_zones,
                      s->zones.cfg.zone_size, s->zones.cfg.zone_cap,
                      s->conv_zones, s->max_open);
}

static void zbc_unrealize(SCSIDevice *dev)
{
    ZbcState *s = SCSI_ZBC(dev);
    ZrCmd *cmd;

    qemu_unregister_reset(zbc_power_on, s);
    qemu_del_vm_change_state_handler(s->vmse);
    s->vmse = NULL;
    qemu_bh_delete(s->resume_bh);
    s->resume_bh = NULL;
    zbc_io_drop_parked(s);
    zbc_out_drop_waiting(s);
    zbc_orphan_drop_waiting(s);
    if (s->persist.blk) {
        if (zr_persist_sync_now(&s->persist) < 0) {
            error_report("scsi-zbc: cannot write the zone state at unplug");
        }
        zr_persist_close(&s->persist);
    }
    qemu_bh_delete(s->start_bh);
    s->start_bh = NULL;
    s->start_pending = false;
    zr_vclock_hold_cleanup(&s->vclock);
    /* Requests never started hold the reference zbc_submit() took. */
    while ((cmd = QTAILQ_FIRST(&s->dispatch.pending))) {
        ZbcReq *r = cmd->opaque;

        zr_dispatch_cancel(&s->dispatch, cmd);
        scsi_req_unref(&r->req);
    }
    /* Started ones are off the lists; their free_req sees them idle. */
    zbc_svc_unrealize(s);
    zr_dispatch_flush(&s->dispatch, NULL, NULL);
    zr_dispatch_cleanup(&s->dispatch);
    zr_zone_model_cleanup(&s->zones);
    zbc_buf_cache_cleanup(s);
    g_free(s->lu_name);
    s->lu_name = NULL;
}

static void zbc_reset(DeviceState *dev)
{
    ZbcState *s = SCSI_ZBC(dev);

    /*
     * Commands in progress are aborted and the next command reports POWER
     * ON, RESET, OR BUS DEVICE RESET OCCURRED.  Zone conditions and write
     * pointers are the medium's and survive, as they do on a drive.
     */
    scsi_device_purge_requests(&s->qdev, SENSE_CODE(RESET));
    s->stopped = false;
}

/*
 * ------------------------------------------------------------------------
 * QOM: properties, run-time controls, counters
 */

static int zbc_get_reorder(Object *obj, Error **errp)
{
    return SCSI_ZBC(obj)->policy;
}

static void zbc_set_reorder(Object *obj, int value, Error **errp)
{
    ZbcState *s = SCSI_ZBC(obj);

    s->policy = value;
    if (DEVICE(obj)->realized) {
        zr_dispatch_set_policy(&s->dispatch, value);
        zbc_schedule_starts(s);
    }
}

/*
 * Error injection, as null_blk's zone_readonly/zone_offline: make the
 * zone containing an LBA READ ONLY or OFFLINE (a media failure).
 */
static void zbc_set_inject(Object *obj, Visitor *v, const char *name,
                           void *opaque, Error **errp)
{
    ZbcState *s = SCSI_ZBC(obj);
    bool offline = opaque != NULL;
    uint64_t lba;
    ZrResult res;

    if (!visit_type_uint64(v, name, &lba, errp)) {
        return;
    }
    if (!DEVICE(obj)->realized) {
        error_setg(errp, "%s needs a realized device", name);
        return;
    }
    res = offline ? zr_zone_set_offline(&s->zones, lba)
                  : zr_zone_set_read_only(&s->zones, lba);
    if (res != ZR_OK) {
        error_setg(errp, "%s: LBA %" PRIu64 ": %s", name, lba,
                   zr_result_name(res));
        return;
    }
    trace_zbc_inject(offline ? "offline" : "read-only", lba);
}

static const Property zbc_props[] = {
    DEFINE_PROP_DRIVE("drive", ZbcState, qdev.conf.blk),
    DEFINE_PROP_BLOCKSIZE("logical_block_size", ZbcState,
                          qdev.conf.logical_block_size),
    DEFINE_PROP_BLOCKSIZE("physical_block_size", ZbcState,
                          qdev.conf.physical_block_size),
    DEFINE_PROP_ON_OFF_AUTO("write-cache", ZbcState, qdev.conf.wce,
                            ON_OFF_AUTO_AUTO),
    DEFINE_PROP_SIZE("size", ZbcState, size, 0),
    DEFINE_PROP_SIZE("zone-size", ZbcState, zone_size,
                     ZBC_DEFAULT_ZONE_SIZE),
    DEFINE_PROP_SIZE("zone-capacity", ZbcState, zone_cap, 0),
    DEFINE_PROP_UINT32("conv-zones", ZbcState, conv_zones,
                       ZBC_DEFAULT_CONV_ZONES),
    DEFINE_PROP_UINT32("max-open", ZbcState, max_open, 0),
    DEFINE_PROP_BOOL("unrestricted-read", ZbcState, urswrz, true),
    DEFINE_PROP_STRING("serial", ZbcState, serial),
    DEFINE_PROP_UINT64("wwn", ZbcState, qdev.wwn, 0),
    DEFINE_PROP_UINT64("reorder-seed", ZbcState, seed, 1),
    DEFINE_BLOCK_ERROR_PROPERTIES(ZbcState, qdev.conf),
    DEFINE_PROP_DRIVE("zone-state", ZbcState, zs_blk),
    DEFINE_PROP_BOOL("zone-state-format", ZbcState, zs_format, false),
    /* The service-time model (zbc-service.c): all 0, off. */
    DEFINE_ZR_SERVICE_PROPS(ZbcInstance, svc.params, 0, 0, 0, 0, 0, 0),
};

static void zbc_instance_init(Object *obj)
{
    ZbcState *s = SCSI_ZBC(obj);
    static const struct {
        const char *name;
        size_t offset;
        const char *desc;
    } counters[] = {
        { "stats.writes", offsetof(ZbcState, zones.stats.writes),
          "writes that passed the zone checks (read-only counter)" },
        { "stats.blocks-written",
          offsetof(ZbcState, zones.stats.blocks_written),
          "logical blocks written (read-only counter)" },
        { "stats.unaligned-writes",
          offsetof(ZbcState, zones.stats.errors[ZR_ERR_UNALIGNED_WRITE]),
          "writes failed with UNALIGNED WRITE COMMAND: not at the write "
          "pointer when they started, or not whole physical blocks "
          "(read-only counter)" },
        { "stats.implicit-opens",
          offsetof(ZbcState, zones.stats.implicit_opens),
          "zones implicitly opened by a write (read-only counter)" },
        { "stats.implicit-closes",
          offsetof(ZbcState, zones.stats.implicit_closes),
          "implicitly open zones closed to free an open resource "
          "(read-only counter)" },
        { "stats.starts", offsetof(ZbcState, dispatch.stats.starts),
          "medium commands started (read-only counter)" },
        { "stats.starts-reordered",
          offsetof(ZbcState, dispatch.stats.starts_reordered),
          "commands started while an earlier-arrived one still waited "
          "(read-only counter)" },
        { "stats.write-failures",
          offsetof(ZbcState, zones.stats.write_failures),
          "writes whose backend I/O failed; their write pointer did not "
          "move (read-only counter)" },
        { "stats.writes-overtaken",
          offsetof(ZbcState, zones.stats.writes_overtaken),
          "writes refused as unaligned because an earlier write of their "
          "zone failed (read-only counter)" },
        { "stats.zone-op-waits", offsetof(ZbcState, zone_op_waits),
          "zone operations that waited for the writes in flight in their "
          "zones (read-only counter)" },
        { "stats.orphan-waits", offsetof(ZbcState, orphan_waits),
          "writes that waited for the data of an overtaken write of their "
          "zone to land before starting (read-only counter)" },
        { "stats.zone-state-syncs", offsetof(ZbcState, persist.stats.syncs),
          "zone state syncs to the zone-state drive (read-only counter)" },
        { "stats.zone-state-blocks",
          offsetof(ZbcState, persist.stats.blocks_written),
          "zone state table blocks written (read-only counter)" },
        { "stats.service-starts",
          offsetof(ZbcInstance, svc.svc.stats.starts),
          "commands put in service by the service-time model "
          "(read-only counter)" },
        { "stats.service-completions",
          offsetof(ZbcInstance, svc.svc.stats.completions),
          "commands whose modelled service time ended "
          "(read-only counter)" },
        { "stats.service-busy-max",
          offsetof(ZbcInstance, svc.svc.stats.busy_max),
          "most commands in service at once (read-only counter)" },
    };
    size_t i;

    static const struct {
        const char *name;
        size_t offset;
        const char *desc;
    } gauges[] = {
        { "zones.implicitly-open", offsetof(ZbcState, zones.nr_imp_open),
          "zones now IMPLICITLY OPEN" },
        { "zones.explicitly-open", offsetof(ZbcState, zones.nr_exp_open),
          "zones now EXPLICITLY OPEN" },
        { "zones.closed", offsetof(ZbcState, zones.nr_closed),
          "zones now CLOSED" },
        { "service.busy", offsetof(ZbcInstance, svc.svc.busy),
          "commands now in service (service-time model)" },
    };

    for (i = 0; i < ARRAY_SIZE(gauges); i++) {
        object_property_add_uint32_ptr(obj, gauges[i].name,
                                       (uint32_t *)((char *)s +
                                                    gauges[i].offset),
                                       OBJ_PROP_FLAG_READ);
        object_property_set_description(obj, gauges[i].name,
                                        gauges[i].desc);
    }
    for (i = 0; i < ARRAY_SIZE(counters); i++) {
        object_property_add_uint64_ptr(obj, counters[i].name,
                                       (uint64_t *)((char *)s +
                                                    counters[i].offset),
                                       OBJ_PROP_FLAG_READ);
        object_property_set_description(obj, counters[i].name,
                                        counters[i].desc);
    }
}

static void zbc_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    SCSIDeviceClass *sc = SCSI_DEVICE_CLASS(oc);

    sc->realize = zbc_realize;
    sc->unrealize = zbc_unrealize;
    sc->alloc_req = zbc_alloc_req;
    sc->parse_cdb = zbc_parse_cdb;
    dc->desc = "host-managed zoned SCSI disk (ZBC-2)";
    dc->vmsd = &vmstate_scsi_zbc;
    device_class_set_legacy_reset(dc, zbc_reset);
    device_class_set_props(dc, zbc_props);
    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);

    object_class_property_set_description(oc, "size",
        "device size in bytes when null-backed (default 1 GiB; with a "
        "drive, the drive's size)");
    object_class_property_set_description(oc, "zone-size",
        "zone size in bytes, a power of two multiple of the logical "
        "block size");
    object_class_property_set_description(oc, "zone-capacity",
        "writable bytes per sequential zone, <= zone-size; below it each "
        "zone is followed by a gap zone (0 = zone-size)");
    object_class_property_set_description(oc, "conv-zones",
        "number of conventional zones at the start of the disk");
    object_class_property_set_description(oc, "max-open",
        "maximum number of open sequential zones, VPD B6h "
        "(0 = no limit)");
    object_class_property_set_description(oc, "unrestricted-read",
        "URSWRZ: reads may cross write pointers and zone boundaries");
    object_class_property_set_description(oc, "serial",
        "unit serial number (VPD page 80h)");
    object_class_property_set_description(oc, "wwn",
        "NAA world wide name (VPD page 83h); 0 = none");
    object_class_property_set_description(oc, "reorder-seed",
        "seed of the random reorder policy (same seed, same order)");
    object_class_property_set_description(oc, "zone-state",
        "drive holding the zone conditions and write pointers, so they "
        "survive a restart (a new or zeroed drive is formatted)");
    object_class_property_set_description(oc, "zone-state-format",
        "format the zone-state drive anew, whatever it holds (every zone "
        "EMPTY)");

    /* all 0 (the default): no service-time model */
    zr_service_props_describe(oc, "SYNCHRONIZE CACHE and the zone "
                              "operations (ZBC OUT)");
    object_class_property_set_description(oc, "max-parallel",
        "medium commands in service at once (0 = no limit); any service "
        "property set blocks migration");

    object_class_property_add_enum(oc, "reorder", "ZrPolicy",
                                   &ZrPolicy_lookup, zbc_get_reorder,
                                   zbc_set_reorder);
    object_class_property_set_description(oc, "reorder",
        "order in which queued medium commands start: none, spec, rr, "
        "random, reverse (settable at run time)");
    object_class_property_add(oc, "inject-read-only", "uint64", NULL,
                              zbc_set_inject, NULL, NULL);
    object_class_property_set_description(oc, "inject-read-only",
        "make the zone containing this LBA READ ONLY (test hook)");
    object_class_property_add(oc, "inject-offline", "uint64", NULL,
                              zbc_set_inject, NULL, (void *)1);
    object_class_property_set_description(oc, "inject-offline",
        "make the zone containing this LBA OFFLINE (test hook)");
}

static const TypeInfo zbc_info = {
    .name = TYPE_SCSI_ZBC,
    .parent = TYPE_SCSI_DEVICE,
    .instance_size = sizeof(ZbcInstance),
    .instance_init = zbc_instance_init,
    .class_init = zbc_class_init,
};

static void zbc_register_types(void)
{
    type_register_static(&zbc_info);
}

type_init(zbc_register_types)
