/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: REPORT ZONES (ZBC-2 "REPORT ZONES command", ZBC IN service
 * action 00h).
 *
 * The list starts with the zone containing ZONE START LBA and holds every
 * following zone that matches REPORTING OPTIONS; gap zones are listed
 * after the sequential zone they follow (zbc-zones.c).  ZONE LIST LENGTH
 * counts the whole list unless PARTIAL is set, in which case it counts
 * the descriptors that fit in the allocation length (as Linux scsi_debug
 * does).  The data is cut at the allocation length, as SPC-5 says of any
 * allocation length.  SAME is 0 ("may differ"), which is always true.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "scsi/constants.h"
#include "zbc-internal.h"
#include "trace.h"

#define RZ_HEADER_LEN   64
#define RZ_DESC_LEN     64

#define RZ_OPT_GAP      0x3e
#define RZ_OPT_NOT_WP   0x3f

/* REPORTING OPTIONS -> the core's filter; false for a reserved value. */
static bool zbc_report_filter(uint8_t opt, ZrReportFilter *f)
{
    switch (opt) {
    case 0x00:
        *f = ZR_REPORT_ALL;
        return true;
    case 0x01:
        *f = ZR_REPORT_EMPTY;
        return true;
    case 0x02:
        *f = ZR_REPORT_IMP_OPEN;
        return true;
    case 0x03:
        *f = ZR_REPORT_EXP_OPEN;
        return true;
    case 0x04:
        *f = ZR_REPORT_CLOSED;
        return true;
    case 0x05:
        *f = ZR_REPORT_FULL;
        return true;
    case 0x06:
        *f = ZR_REPORT_READ_ONLY;
        return true;
    case 0x07:
        *f = ZR_REPORT_OFFLINE;
        return true;
    case 0x08:
        *f = ZR_REPORT_INACTIVE;
        return true;
    case 0x10:
        *f = ZR_REPORT_RWP_RECOMMENDED;
        return true;
    case 0x11:
        *f = ZR_REPORT_NON_SEQ;
        return true;
    case RZ_OPT_GAP:
        /* Gap zones only: no zone of the core matches. */
        *f = ZR_REPORT_INACTIVE;
        return true;
    case RZ_OPT_NOT_WP:
        *f = ZR_REPORT_NOT_WP;
        return true;
    default:
        return false;
    }
}

static bool zbc_report_match(ZbcState *s, const ZbcZoneView *v, uint8_t opt,
                             ZrReportFilter f)
{
    if (v->gap) {
        /* A gap zone's condition is NOT WRITE POINTER. */
        return opt == 0x00 || opt == RZ_OPT_GAP || opt == RZ_OPT_NOT_WP;
    }
    return zr_zone_filter_match(&s->zones.zones[v->index], f);
}

static void zbc_report_desc(const ZbcZoneView *v, uint8_t *d)
{
    d[0] = v->type;
    d[1] = v->cond << 4;        /* NON_SEQ and RESET are never set */
    stq_be_p(&d[8], v->len);
    stq_be_p(&d[16], v->start);
    stq_be_p(&d[24], v->wp);
}

int32_t zbc_report_zones_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    uint64_t lba = ldq_be_p(&cdb[2]);
    uint32_t alloc = ldl_be_p(&cdb[10]);
    bool partial = cdb[14] & 0x80;
    uint8_t opt = cdb[14] & 0x3f;
    uint64_t matches = 0, fit, ndesc, list, n;
    ZrReportFilter f;
    ZbcZoneView v;
    uint8_t *buf;

    if (lba >= s->nr_blocks) {
        zbc_fail_zone(r, ZR_ERR_LBA_OUT_OF_RANGE, ZBC_ACCESS_READ);
        return 0;
    }
    if (!zbc_report_filter(opt, &f)) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "reserved reporting option");
        return 0;
    }
    zbc_zone_view_at(s, lba, &v);
    do {
        matches += zbc_report_match(s, &v, opt, f);
    } while (zbc_zone_view_next(s, &v));

    /* Whole descriptors within the allocation length, and the one cut. */
    fit = alloc > RZ_HEADER_LEN ? (alloc - RZ_HEADER_LEN) / RZ_DESC_LEN : 0;
    ndesc = alloc > RZ_HEADER_LEN ?
            DIV_ROUND_UP(alloc - RZ_HEADER_LEN, RZ_DESC_LEN) : 0;
    ndesc = MIN(ndesc, matches);
    list = (partial ? MIN(matches, fit) : matches) * RZ_DESC_LEN;
    trace_zbc_report(r->req.tag, lba, opt, partial, alloc, matches);

    buf = zbc_req_buf(r, RZ_HEADER_LEN + ndesc * RZ_DESC_LEN);
    stl_be_p(&buf[0], MIN(list, UINT32_MAX & ~(RZ_DESC_LEN - 1)));
    stq_be_p(&buf[8], s->nr_blocks - 1);        /* MAXIMUM LBA */
    zbc_zone_view_at(s, lba, &v);
    for (n = 0; n < ndesc; ) {
        if (zbc_report_match(s, &v, opt, f)) {
            zbc_report_desc(&v, &buf[RZ_HEADER_LEN + n * RZ_DESC_LEN]);
            n++;
        }
        if (!zbc_zone_view_next(s, &v)) {
            break;
        }
    }
    return zbc_req_data_in(r, RZ_HEADER_LEN + ndesc * RZ_DESC_LEN);
}
