/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: the small emulated commands: TEST UNIT READY, REQUEST SENSE
 * (SPC-5), READ CAPACITY(10) and (16) and START STOP UNIT (SBC-4), and
 * REPORT SUPPORTED OPERATION CODES (SPC-5), which is generated from the
 * command table in scsi-zbc.c.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "scsi/constants.h"
#include "system/block-backend.h"
#include "zbc-internal.h"
#include "trace.h"

/* TEST UNIT READY: the generic checks (stopped: NOT READY) did it all. */
int32_t zbc_tur_send(ZbcReq *r)
{
    zbc_req_complete(r);
    return 0;
}

/*
 * REQUEST SENSE.  QEMU's SCSI bus answers it itself while sense data is
 * pending; here there is none, so the answer is NO SENSE, or the stopped
 * condition (SPC-5: REQUEST SENSE reports the LU's state).  DESC selects
 * descriptor format.
 */
int32_t zbc_request_sense_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    bool fixed = !(r->req.cmd.buf[1] & 0x01);
    SCSISense sense = s->stopped ? zbc_sense_stopped() : SENSE_CODE(NO_SENSE);
    uint8_t *buf = zbc_req_buf(r, SCSI_SENSE_LEN);

    return zbc_req_data_in(r, scsi_build_sense_buf(buf, SCSI_SENSE_LEN,
                                                   sense, fixed));
}

int32_t zbc_read_capacity10_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *buf = zbc_req_buf(r, 8);

    /* RETURNED LOGICAL BLOCK ADDRESS saturates: use READ CAPACITY(16). */
    stl_be_p(&buf[0], MIN(s->nr_blocks - 1, 0xffffffff));
    stl_be_p(&buf[4], s->block_size);
    return zbc_req_data_in(r, 8);
}

int32_t zbc_read_capacity16_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *buf = zbc_req_buf(r, 32);

    stq_be_p(&buf[0], s->nr_blocks - 1);
    stl_be_p(&buf[8], s->block_size);
    /*
     * RC BASIS 01b: the returned LBA is the last of the whole logical
     * unit (with 00b Linux would take REPORT ZONES' MAXIMUM LBA instead).
     */
    buf[12] = 0x10;
    buf[13] = get_physical_block_exp(&s->qdev.conf);
    return zbc_req_data_in(r, 32);
}

/*
 * ------------------------------------------------------------------------
 * START STOP UNIT (SBC-4): START = 0 stops the LU (medium access commands
 * then get NOT READY, INITIALIZING COMMAND REQUIRED), START = 1 makes it
 * ready.  Power conditions other than START_VALID and LOEJ (there is no
 * removable medium) are not supported.
 */

static void zbc_stop_flushed(void *opaque, int ret)
{
    ZbcReq *r = opaque;

    if (zbc_req_aio_done(r, ret, ZBC_ACCESS_ZONE_MGMT)) {
        zbc_state(r)->stopped = true;
        zbc_req_complete(r);
    }
    scsi_req_unref(&r->req);
}

int32_t zbc_start_stop_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t b4 = r->req.cmd.buf[4];
    bool start = b4 & 0x01, loej = b4 & 0x02, no_flush = b4 & 0x04;

    trace_zbc_start_stop(r->req.tag, b4 >> 4, start);
    if (b4 >> 4) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "power condition not supported");
        return 0;
    }
    if (loej) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "no removable medium");
        return 0;
    }
    if (start || s->null_backed || no_flush) {
        s->stopped = !start;
        zbc_req_complete(r);
        return 0;
    }
    /* Stopping writes the volatile cache to the medium first. */
    scsi_req_ref(&r->req);
    r->req.aiocb = blk_aio_flush(s->qdev.conf.blk, zbc_stop_flushed, r);
    return 0;
}

/*
 * ------------------------------------------------------------------------
 * REPORT SUPPORTED OPERATION CODES (SPC-5)
 */

#define RSOC_ALL                0x0
#define RSOC_OPCODE             0x1
#define RSOC_OPCODE_SA          0x2
#define RSOC_OPCODE_MAYBE_SA    0x3

#define RSOC_TIMEOUTS_LEN       12      /* command timeouts descriptor */

/* A command timeouts descriptor: length only, timeouts not specified. */
static size_t zbc_rsoc_timeouts(uint8_t *p)
{
    stw_be_p(&p[0], RSOC_TIMEOUTS_LEN - 2);
    return RSOC_TIMEOUTS_LEN;
}

static size_t zbc_rsoc_all(bool rctd, uint8_t *buf)
{
    size_t i, len = 4;

    for (i = 0; i < zbc_nr_cmds; i++) {
        const ZbcCmd *c = &zbc_cmds[i];
        uint8_t *d = &buf[len];

        d[0] = c->opcode;
        stw_be_p(&d[2], c->sa < 0 ? 0 : c->sa);
        d[5] = (c->sa >= 0 ? 0x01 : 0) | (rctd ? 0x02 : 0); /* SERVACTV, CTDP */
        stw_be_p(&d[6], c->cdb_len);
        len += 8;
        if (rctd) {
            len += zbc_rsoc_timeouts(&buf[len]);
        }
    }
    stl_be_p(&buf[0], len - 4);         /* COMMAND DATA LENGTH */
    return len;
}

int32_t zbc_rsoc_send(ZbcReq *r)
{
    uint8_t *cdb = r->req.cmd.buf;
    bool rctd = cdb[2] & 0x80;
    int option = cdb[2] & 0x07;
    uint8_t opcode = cdb[3];
    uint16_t sa = lduw_be_p(&cdb[4]);
    const ZbcCmd *c = NULL;
    bool known = false, has_sa = false;
    uint8_t *buf;
    size_t len, i;

    trace_zbc_rsoc(r->req.tag, option, opcode, sa);
    buf = zbc_req_buf(r, 4 + zbc_nr_cmds * (8 + RSOC_TIMEOUTS_LEN));
    if (option == RSOC_ALL) {
        return zbc_req_data_in(r, zbc_rsoc_all(rctd, buf));
    }
    for (i = 0; i < zbc_nr_cmds; i++) {
        if (zbc_cmds[i].opcode == opcode) {
            has_sa = zbc_cmds[i].sa >= 0;
            break;
        }
    }
    switch (option) {
    case RSOC_OPCODE:
        /* SPC-5: the opcode must not have service actions. */
        if (has_sa) {
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "RSOC: opcode has service actions");
            return 0;
        }
        c = zbc_cmd_find(opcode, -1, &known);
        break;
    case RSOC_OPCODE_SA:
        if (i < zbc_nr_cmds && !has_sa) {
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "RSOC: opcode has no service actions");
            return 0;
        }
        c = sa <= 0x1f ? zbc_cmd_find(opcode, sa, &known) : NULL;
        break;
    case RSOC_OPCODE_MAYBE_SA:
        c = !has_sa ? zbc_cmd_find(opcode, -1, &known) :
            sa <= 0x1f ? zbc_cmd_find(opcode, sa, &known) : NULL;
        break;
    default:
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "RSOC: reporting option");
        return 0;
    }

    if (!c) {
        buf[1] = 0x01;                  /* SUPPORT: not supported */
        return zbc_req_data_in(r, 4);
    }
    buf[1] = 0x03 | (rctd ? 0x80 : 0);  /* SUPPORT: as the standard, CTDP */
    stw_be_p(&buf[2], c->cdb_len);
    memcpy(&buf[4], c->usage, c->cdb_len);
    /*
     * SPC-5 "One_command parameter data format": the CDB USAGE DATA holds
     * the service action where the CDB has its SERVICE ACTION field.
     */
    if (c->sa >= 0) {
        buf[5] = (c->usage[1] & ~0x1f) | c->sa;
    }
    len = 4 + c->cdb_len;
    if (rctd) {
        len += zbc_rsoc_timeouts(&buf[len]);
    }
    return zbc_req_data_in(r, len);
}
