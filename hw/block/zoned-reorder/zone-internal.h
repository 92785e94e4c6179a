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
ZrResult zr_zone_check_resources(const ZrZoneModel *m, const ZrZone *z);
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

#endif
