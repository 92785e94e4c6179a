/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: helpers shared by zone.c (state machine, resources),
 * zone-geometry.c (layout, saved state), zone-io.c (writes and appends)
 * and zone-read.c (read checks, what a read returns).  Not a public header.
 */

#ifndef HW_BLOCK_ZONED_REORDER_ZONE_INTERNAL_H
#define HW_BLOCK_ZONED_REORDER_ZONE_INTERNAL_H

#include "hw/block/zoned-reorder/zone.h"
#include "qemu/bitops.h"
#include "qemu/bitmap.h"

void zr_zone_assign_cond(ZrZoneModel *m, ZrZone *z, ZrZoneCond cond);
void zr_zone_recount(ZrZoneModel *m);
void zr_zone_make_room(ZrZoneModel *m, const ZrZone *z);
void zr_zone_detach(ZrZoneModel *m, uint32_t idx);

/* The committed state of zone @idx may have changed. */
static inline void zr_zone_touch(ZrZoneModel *m, uint32_t idx)
{
    set_bit(idx, m->dirty);
}

static inline bool zr_zone_range_ok(const ZrZoneModel *m, uint64_t lba,
                                    uint64_t len)
{
    return lba < m->cfg.nr_blocks && len <= m->cfg.nr_blocks - lba;
}

static inline ZrResult zr_zone_count(ZrZoneModel *m, ZrResult res)
{
    if (res != ZR_OK) {
        m->stats.errors[res]++;
    }
    return res;
}

/*
 * May @z enter an open condition?  EMPTY -> open takes an active and an
 * open resource, CLOSED -> open an open resource (ZBC-2 "Zone resources";
 * ZNS 1.1 "Active Resources", "Open Resources").  A missing open resource
 * is not fatal while some zone is implicitly open: both standards let the
 * device close one to make room (zr_zone_make_room()).  Explicitly open
 * zones are never closed behind the host's back.
 */
static inline ZrResult zr_zone_check_resources(const ZrZoneModel *m,
                                               const ZrZone *z)
{
    bool need_active = z->cond == ZR_COND_EMPTY;
    bool need_open = need_active || z->cond == ZR_COND_CLOSED;

    if (need_active && m->cfg.max_active &&
        zr_zone_nr_active(m) >= m->cfg.max_active) {
        return ZR_ERR_NO_ACTIVE_RESOURCE;
    }
    if (need_open && m->cfg.max_open &&
        zr_zone_nr_open(m) >= m->cfg.max_open && m->nr_imp_open == 0) {
        return ZR_ERR_NO_OPEN_RESOURCE;
    }
    return ZR_OK;
}

#endif
