/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: zone report iteration and the names of zone
 * conditions, operations and results.
 *
 * The filters cover ZBC-2 REPORT ZONES "REPORTING OPTIONS" and the ZNS 1.1
 * Zone Management Receive "Zone Receive Action Specific Field".  The core
 * reports zones of its own model only.  A ZBC front-end whose zone
 * capacity is below the zone size shows each sequential zone as a zone of
 * `cap` blocks followed by a gap zone of `size - cap` blocks (ZBC-2 "Gap
 * zones"); it synthesises those gap descriptors while walking the zones
 * returned here, and answers the gap-zone reporting option itself.
 */

#include "qemu/osdep.h"
#include "hw/block/zoned-reorder/zone.h"

bool zr_zone_filter_match(const ZrZone *z, ZrReportFilter filter)
{
    switch (filter) {
    case ZR_REPORT_ALL:
        return true;
    case ZR_REPORT_EMPTY:
        return z->cond == ZR_COND_EMPTY;
    case ZR_REPORT_IMP_OPEN:
        return z->cond == ZR_COND_IMP_OPEN;
    case ZR_REPORT_EXP_OPEN:
        return z->cond == ZR_COND_EXP_OPEN;
    case ZR_REPORT_CLOSED:
        return z->cond == ZR_COND_CLOSED;
    case ZR_REPORT_FULL:
        return z->cond == ZR_COND_FULL;
    case ZR_REPORT_READ_ONLY:
        return z->cond == ZR_COND_READ_ONLY;
    case ZR_REPORT_OFFLINE:
        return z->cond == ZR_COND_OFFLINE;
    case ZR_REPORT_NOT_WP:
        return z->cond == ZR_COND_NOT_WP;
    case ZR_REPORT_INACTIVE:
    case ZR_REPORT_RWP_RECOMMENDED:
    case ZR_REPORT_NON_SEQ:
    default:
        /*
         * No zone domains (INACTIVE), no background operations that would
         * recommend a reset, no non-sequential write resources.
         */
        return false;
    }
}

/* Index of the first zone >= @from matching @filter, or nr_zones. */
uint32_t zr_zone_report_next(const ZrZoneModel *m, uint32_t from,
                             ZrReportFilter filter)
{
    uint32_t i;

    for (i = from; i < m->nr_zones; i++) {
        if (zr_zone_filter_match(&m->zones[i], filter)) {
            return i;
        }
    }
    return m->nr_zones;
}

/*
 * Matching zones from @from on: ZBC-2 reports this count in ZONE LIST
 * LENGTH even when the allocation length truncates the descriptors.
 */
uint32_t zr_zone_report_count(const ZrZoneModel *m, uint32_t from,
                              ZrReportFilter filter)
{
    uint32_t i, n = 0;

    for (i = from; i < m->nr_zones; i++) {
        n += zr_zone_filter_match(&m->zones[i], filter);
    }
    return n;
}

const char *zr_zone_cond_name(ZrZoneCond cond)
{
    switch (cond) {
    case ZR_COND_NOT_WP:
        return "not-wp";
    case ZR_COND_EMPTY:
        return "empty";
    case ZR_COND_IMP_OPEN:
        return "imp-open";
    case ZR_COND_EXP_OPEN:
        return "exp-open";
    case ZR_COND_CLOSED:
        return "closed";
    case ZR_COND_READ_ONLY:
        return "read-only";
    case ZR_COND_FULL:
        return "full";
    case ZR_COND_OFFLINE:
        return "offline";
    default:
        return "invalid";
    }
}

const char *zr_zone_op_name(ZrZoneOp op)
{
    static const char *const names[ZR_ZONE_OP__MAX] = {
        [ZR_ZONE_OP_OPEN] = "open",
        [ZR_ZONE_OP_CLOSE] = "close",
        [ZR_ZONE_OP_FINISH] = "finish",
        [ZR_ZONE_OP_RESET] = "reset",
    };

    return op < ZR_ZONE_OP__MAX ? names[op] : "invalid";
}

const char *zr_result_name(ZrResult res)
{
    static const char *const names[ZR_RESULT__MAX] = {
        [ZR_OK] = "ok",
        [ZR_ERR_LBA_OUT_OF_RANGE] = "lba-out-of-range",
        [ZR_ERR_NOT_ZONE_START] = "not-zone-start",
        [ZR_ERR_CONVENTIONAL] = "conventional-zone",
        [ZR_ERR_UNALIGNED_WRITE] = "unaligned-write",
        [ZR_ERR_BOUNDARY] = "boundary",
        [ZR_ERR_ZONE_FULL] = "zone-full",
        [ZR_ERR_READ_ONLY] = "zone-read-only",
        [ZR_ERR_OFFLINE] = "zone-offline",
        [ZR_ERR_NO_OPEN_RESOURCE] = "no-open-resource",
        [ZR_ERR_NO_ACTIVE_RESOURCE] = "no-active-resource",
        [ZR_ERR_INVALID_TRANSITION] = "invalid-transition",
        [ZR_ERR_READ_BEYOND_WP] = "read-beyond-wp",
        [ZR_ERR_GAP] = "gap",
        [ZR_WAIT] = "wait",
    };

    return res < ZR_RESULT__MAX ? names[res] : "invalid";
}
