/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: the one place that turns a problem into CHECK CONDITION
 * status and sense data.  Every rejected command passes through
 * zbc_check_condition(), which traces it (zbc_err_sense).
 *
 * The additional sense codes QEMU's scsi/utils.c does not have are named
 * here.  Their values are those of T10's ASC/ASCQ assignments (SPC-5
 * annex, "ASC and ASCQ assignments"); the sense keys are those ZBC-2
 * gives in its command and zone model clauses, cross-checked with the
 * libzbc conformance suite (test/scripts/01_sk_ascq_check, 05_*).
 */

#include "qemu/osdep.h"
#include "scsi/constants.h"
#include "zbc-internal.h"
#include "trace.h"

/* ILLEGAL REQUEST: the write does not start at the write pointer. */
static const SCSISense sense_code_ZBC_UNALIGNED_WRITE = {
    .key = ILLEGAL_REQUEST, .asc = 0x21, .ascq = 0x04
};
/* ILLEGAL REQUEST: the write crosses the end of its zone. */
static const SCSISense sense_code_ZBC_WRITE_BOUNDARY = {
    .key = ILLEGAL_REQUEST, .asc = 0x21, .ascq = 0x05
};
/* ILLEGAL REQUEST: read above a write pointer or across zone types. */
static const SCSISense sense_code_ZBC_READ_INVALID_DATA = {
    .key = ILLEGAL_REQUEST, .asc = 0x21, .ascq = 0x06
};
/* ILLEGAL REQUEST: the read crosses a zone boundary (URSWRZ = 0). */
static const SCSISense sense_code_ZBC_READ_BOUNDARY = {
    .key = ILLEGAL_REQUEST, .asc = 0x21, .ascq = 0x07
};
/* ILLEGAL REQUEST: ATTEMPT TO ACCESS GAP ZONE. */
static const SCSISense sense_code_ZBC_GAP_ZONE = {
    .key = ILLEGAL_REQUEST, .asc = 0x21, .ascq = 0x09
};
/* DATA PROTECT: ZONE IS READ ONLY. */
static const SCSISense sense_code_ZBC_ZONE_READ_ONLY = {
    .key = DATA_PROTECT, .asc = 0x27, .ascq = 0x08
};
/* DATA PROTECT: ZONE IS OFFLINE. */
static const SCSISense sense_code_ZBC_ZONE_OFFLINE = {
    .key = DATA_PROTECT, .asc = 0x2c, .ascq = 0x0e
};
/* DATA PROTECT: INSUFFICIENT ZONE RESOURCES. */
static const SCSISense sense_code_ZBC_NO_ZONE_RESOURCES = {
    .key = DATA_PROTECT, .asc = 0x55, .ascq = 0x0e
};
/*
 * MEDIUM ERROR: WRITE ERROR, what a drive reports for a failed media
 * write (SBC-4 "WRITE(16) command"; SPC-5 ASC 0Ch).
 */
static const SCSISense sense_code_ZBC_WRITE_ERROR = {
    .key = MEDIUM_ERROR, .asc = 0x0c, .ascq = 0x00
};
/*
 * NOT READY: LOGICAL UNIT NOT READY, INITIALIZING COMMAND REQUIRED, the
 * state after START STOP UNIT with START = 0 (SBC-4 "START STOP UNIT
 * command": a START STOP UNIT with START = 1 makes the LU ready again).
 */
static const SCSISense sense_code_ZBC_STOPPED = {
    .key = NOT_READY, .asc = 0x04, .ascq = 0x02
};

/*
 * The sense data for a zone-model result.  The keys and codes are ZBC-2's
 * (cited per line); where ZBC-2 gives the condition of a FULL zone to a
 * write as an invalid field, libzbc test 01.073 agrees.
 */
static SCSISense zbc_sense_zone(ZrResult res, ZbcAccess access)
{
    switch (res) {
    case ZR_ERR_LBA_OUT_OF_RANGE:
        /* SBC-4 READ/WRITE; ZBC-2 ZBC OUT and REPORT ZONES. */
        return SENSE_CODE(LBA_OUT_OF_RANGE);
    case ZR_ERR_NOT_ZONE_START:
    case ZR_ERR_CONVENTIONAL:
        /* ZBC-2 ZBC OUT: ZONE ID is not the lowest LBA of a wp zone. */
        return SENSE_CODE(INVALID_FIELD);
    case ZR_ERR_UNALIGNED_WRITE:
        return SENSE_CODE(ZBC_UNALIGNED_WRITE);
    case ZR_ERR_BOUNDARY:
        return access == ZBC_ACCESS_READ ? SENSE_CODE(ZBC_READ_BOUNDARY)
                                         : SENSE_CODE(ZBC_WRITE_BOUNDARY);
    case ZR_ERR_ZONE_FULL:
        return SENSE_CODE(INVALID_FIELD);
    case ZR_ERR_READ_ONLY:
        return SENSE_CODE(ZBC_ZONE_READ_ONLY);
    case ZR_ERR_OFFLINE:
        return SENSE_CODE(ZBC_ZONE_OFFLINE);
    case ZR_ERR_NO_OPEN_RESOURCE:
    case ZR_ERR_NO_ACTIVE_RESOURCE:
        return SENSE_CODE(ZBC_NO_ZONE_RESOURCES);
    case ZR_ERR_READ_BEYOND_WP:
        return SENSE_CODE(ZBC_READ_INVALID_DATA);
    case ZR_ERR_GAP:
        return SENSE_CODE(ZBC_GAP_ZONE);
    case ZR_ERR_INVALID_TRANSITION:
    default:
        /* The ZBC flavour of the core never returns these. */
        return SENSE_CODE(TARGET_FAILURE);
    }
}

void zbc_check_condition(ZbcReq *r, SCSISense sense, const char *why)
{
    trace_zbc_err_sense(r->req.tag, r->req.cmd.buf[0],
                        r->cmd ? r->cmd->name : "?", sense.key, sense.asc,
                        sense.ascq, why);
    zbc_req_end_dispatch(r);
    scsi_req_build_sense(&r->req, sense);
    zbc_req_report(r, ZBC_REPORT_STATUS, CHECK_CONDITION);
}

void zbc_fail_zone(ZbcReq *r, ZrResult res, ZbcAccess access)
{
    zbc_check_condition(r, zbc_sense_zone(res, access), zr_result_name(res));
}

/*
 * A backend I/O error, mapped as QEMU's other SCSI devices map them
 * (scsi_sense_from_errno(): ENOSPC is SPACE ALLOCATION FAILED, ENOMEDIUM
 * MEDIUM NOT PRESENT, ...), except that an error with no mapping of its
 * own (EIO) is what a drive says when the medium failed: WRITE ERROR for a
 * write, UNRECOVERED READ ERROR for a read, rather than QEMU's ABORTED
 * COMMAND, which hosts retry as a transport problem.
 */
void zbc_fail_errno(ZbcReq *r, int ret, ZbcAccess access)
{
    SCSISense sense = SENSE_CODE(IO_ERROR);
    int status = scsi_sense_from_errno(-ret, &sense);

    if (status == CHECK_CONDITION &&
        sense.key == sense_code_IO_ERROR.key &&
        sense.asc == sense_code_IO_ERROR.asc &&
        sense.ascq == sense_code_IO_ERROR.ascq) {
        if (access == ZBC_ACCESS_WRITE) {
            sense = SENSE_CODE(ZBC_WRITE_ERROR);
        } else if (access == ZBC_ACCESS_READ) {
            sense = SENSE_CODE(READ_ERROR);
        }
    }

    trace_zbc_err_io(r->req.tag, r->cmd ? r->cmd->name : "?", ret);
    if (status == CHECK_CONDITION) {
        zbc_check_condition(r, sense, "backend I/O error");
        return;
    }
    zbc_req_end_dispatch(r);
    zbc_req_report(r, ZBC_REPORT_STATUS, status);
}

SCSISense zbc_sense_stopped(void)
{
    return SENSE_CODE(ZBC_STOPPED);
}

void zbc_fail_stopped(ZbcReq *r)
{
    zbc_check_condition(r, SENSE_CODE(ZBC_STOPPED), "logical unit stopped");
}
