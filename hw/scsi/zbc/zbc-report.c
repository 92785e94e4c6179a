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
 *
 * Cost: the zones are walked once, from ZONE START LBA, and the walk
 * stops when the returned data is full unless PARTIAL = 0 asks for the
 * length of the whole list; the rest of the list is then counted without
 * building descriptors.  The buffer holds only what is returned.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "scsi/constants.h"
#include "zbc-internal.h"
#include "trace.h"

#define RZ_HEADER_LEN   64
#define RZ_DESC_LEN     64

/*
 * The most one REPORT ZONES returns: the Block Limits page's MAXIMUM
 * TRANSFER LENGTH (2 MiB, the header and 32767 descriptors), so no
 * command pins more memory than a READ.  Linux never asks for more
 * (sd_zbc sizes its buffer by the transfer limits).  A longer allocation
 * length is served as if it were 2 MiB: with PARTIAL = 0 the ZONE LIST
 * LENGTH still counts every matching zone, so the host sees that the list
 * goes on and asks again from the zone after the last one it got (ZBC-2
 * "REPORT ZONES command"); with PARTIAL = 1 it counts the descriptors
 * returned.
 */
#define RZ_MAX_LEN      ZBC_MAX_XFER_BYTES

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

/*
 * Descriptors of the zones from @v on that match: at most @room of them
 * into @d (NULL: count only).  Returns the count; the walk stops once
 * @room are found, so its cost is that of the zones it passes.
 */
static uint64_t zbc_report_walk(ZbcState *s, ZbcZoneView *v, bool *more,
                                uint8_t opt, ZrReportFilter f, uint8_t *d,
                                uint64_t room)
{
    uint64_t n = 0;

    while (*more && n < room) {
        if (zbc_report_match(s, v, opt, f)) {
            if (d) {
                zbc_report_desc(v, &d[n * RZ_DESC_LEN]);
            }
            n++;
        }
        *more = zbc_zone_view_next(s, v);
    }
    return n;
}

/* An upper bound of the ZBC zones from @v to the end (two per zone). */
static uint64_t zbc_report_zones_left(ZbcState *s, const ZbcZoneView *v)
{
    return 2 * (uint64_t)(s->zones.nr_zones - v->index);
}

int32_t zbc_report_zones_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    uint64_t lba = ldq_be_p(&cdb[2]);
    uint32_t alloc = ldl_be_p(&cdb[10]);
    uint32_t len = MIN(alloc, RZ_MAX_LEN);
    bool partial = cdb[14] & 0x80;
    uint8_t opt = cdb[14] & 0x3f;
    uint64_t fit, room, n, list;
    bool more = true;
    ZrReportFilter f;
    ZbcZoneView v;
    uint8_t *buf;

    if (lba >= s->nr_blocks) {
        zbc_fail_zone(r, ZR_ERR_LBA_OUT_OF_RANGE, ZBC_ACCESS_READ);
        return 0;
    }
    if (!zbc_report_filter(opt, &f)) {
        qemu_log_mask(LOG_GUEST_ERROR, "scsi-zbc: REPORT ZONES: reserved "
                      "reporting option 0x%02x\n", opt);
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "reserved reporting option");
        return 0;
    }
    /* SPC-5: an allocation length of zero is not an error. */
    if (!alloc) {
        zbc_req_complete(r);
        return 0;
    }
    zbc_zone_view_at(s, lba, &v);
    /* Whole descriptors within the length, and the one it cuts. */
    fit = len > RZ_HEADER_LEN ? (len - RZ_HEADER_LEN) / RZ_DESC_LEN : 0;
    room = len > RZ_HEADER_LEN ?
           DIV_ROUND_UP(len - RZ_HEADER_LEN, RZ_DESC_LEN) : 0;
    room = MIN(room, zbc_report_zones_left(s, &v));

    buf = zbc_req_buf(r, RZ_HEADER_LEN + room * RZ_DESC_LEN);
    n = zbc_report_walk(s, &v, &more, opt, f, &buf[RZ_HEADER_LEN], room);
    if (partial) {
        list = MIN(n, fit);
    } else {
        list = n + zbc_report_walk(s, &v, &more, opt, f, NULL, UINT64_MAX);
    }
    trace_zbc_report(r->req.tag, lba, opt, partial, alloc, list);
    list *= RZ_DESC_LEN;
    stl_be_p(&buf[0], MIN(list, UINT32_MAX & ~(RZ_DESC_LEN - 1)));
    stq_be_p(&buf[8], s->nr_blocks - 1);        /* MAXIMUM LBA */
    /*
     * ZONE STARTING LBA GRANULARITY: with gap zones (zone alignment method
     * 8h in VPD B6h) zones start every zone-size blocks, as B6h says;
     * otherwise the field is zero.
     */
    if (s->zones.cfg.zone_cap < s->zones.cfg.zone_size) {
        stq_be_p(&buf[16], s->zones.cfg.zone_size);
    }
    return zbc_req_data_in(r, MIN(len, RZ_HEADER_LEN + n * RZ_DESC_LEN));
}
