/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: the ZBC-2 view of the zoned-reorder core's zones.
 *
 * The core models a sequential zone as `size` blocks of which the first
 * `cap` are writable.  ZBC-2 has no zone capacity; it shows the same
 * layout as a sequential write required zone of `cap` blocks followed by
 * a gap zone of `size - cap` blocks ("Gap zones"), with the zone starting
 * LBA granularity in VPD B6h.  This file is the only one that knows about
 * that presentation: zone views for REPORT ZONES and ZBC OUT, the read
 * rules, and which blocks read back as the initialization pattern.
 */

#include "qemu/osdep.h"
#include "zbc-internal.h"

/* The ZBC-2 ZONE CONDITION code of a core condition (equal by design). */
static uint8_t zbc_cond_code(uint8_t cond)
{
    switch (cond) {
    case ZR_COND_NOT_WP:
        return 0x0;
    case ZR_COND_EMPTY:
        return 0x1;
    case ZR_COND_IMP_OPEN:
        return 0x2;
    case ZR_COND_EXP_OPEN:
        return 0x3;
    case ZR_COND_CLOSED:
        return 0x4;
    case ZR_COND_READ_ONLY:
        return 0xd;
    case ZR_COND_FULL:
        return 0xe;
    case ZR_COND_OFFLINE:
    default:
        return 0xf;
    }
}

static bool zbc_zone_has_gap(const ZrZone *z)
{
    return zr_zone_is_seq(z) && z->cap < z->size;
}

static void zbc_zone_view_fill(ZbcState *s, uint32_t idx, bool gap,
                               ZbcZoneView *v)
{
    const ZrZone *z = &s->zones.zones[idx];

    v->index = idx;
    v->gap = gap;
    if (gap) {
        v->start = z->start + z->cap;
        v->len = z->size - z->cap;
        v->type = ZBC_TYPE_GAP;
        v->cond = zbc_cond_code(ZR_COND_NOT_WP);
        v->wp = UINT64_MAX;     /* no write pointer */
    } else if (!zr_zone_is_seq(z)) {
        v->start = z->start;
        v->len = z->size;
        v->type = ZBC_TYPE_CONVENTIONAL;
        v->cond = zbc_cond_code(ZR_COND_NOT_WP);
        v->wp = UINT64_MAX;
    } else {
        v->start = z->start;
        v->len = z->cap;
        v->type = ZBC_TYPE_SEQ_REQUIRED;
        v->cond = zbc_cond_code(z->cond);
        /* FULL: the core keeps it at the zone's end, as Linux expects. */
        v->wp = z->wp;
    }
}

/* The ZBC zone containing @lba, which must be below the capacity. */
void zbc_zone_view_at(ZbcState *s, uint64_t lba, ZbcZoneView *v)
{
    const ZrZone *z = zr_zone_at(&s->zones, lba);

    assert(z);
    zbc_zone_view_fill(s, zr_zone_index(&s->zones, z),
                       zbc_zone_has_gap(z) && lba >= z->start + z->cap, v);
}

/* Move @v to the next ZBC zone; false after the last one. */
bool zbc_zone_view_next(ZbcState *s, ZbcZoneView *v)
{
    const ZrZone *z = &s->zones.zones[v->index];

    if (!v->gap && zbc_zone_has_gap(z)) {
        zbc_zone_view_fill(s, v->index, true, v);
        return true;
    }
    if (v->index + 1 >= s->zones.nr_zones) {
        return false;
    }
    zbc_zone_view_fill(s, v->index + 1, false, v);
    return true;
}

bool zbc_zone_is_gap_start(ZbcState *s, uint64_t lba)
{
    const ZrZone *z = zr_zone_at(&s->zones, lba);

    return z && zbc_zone_has_gap(z) && lba == z->start + z->cap;
}

/*
 * May @nb blocks at @lba be read?  In LBA range; then not spanning
 * conventional and write pointer zones, ATTEMPT TO READ INVALID DATA
 * whatever URSWRZ says (the host-managed rule the libzbc conformance
 * suite checks in 01.062 and 01.064, citing ZBC 4.4.3.4.2; Linux
 * scsi_debug and tcmu-runner apply it too); then the core's checks: with
 * URSWRZ = 1 only OFFLINE zones fail, with URSWRZ = 0 also reads above a
 * write pointer, across a zone boundary or into a gap zone (libzbc
 * 01.060, 01.061, 05.363).
 */
ZrResult zbc_zone_read_check(ZbcState *s, uint64_t lba, uint64_t nb)
{
    uint64_t conv_end = (uint64_t)s->zones.cfg.nr_conv << s->zones.zone_shift;

    if (lba >= s->nr_blocks || nb > s->nr_blocks - lba) {
        return ZR_ERR_LBA_OUT_OF_RANGE;
    }
    if (nb && (lba < conv_end) != (lba + nb - 1 < conv_end)) {
        return ZR_ERR_READ_BEYOND_WP;
    }
    return zr_zone_read_check(&s->zones, lba, nb,
                              s->urswrz ? 0 : ZR_READ_CHECK_STRICT);
}

/*
 * Is a write of @nb blocks at @lba, that the core's checks would let
 * through, not made of whole physical blocks in a sequential write
 * required zone?  When the physical block is larger than the logical
 * block, ZBC-2 "Sequential write required zones" makes such a write an
 * UNALIGNED WRITE COMMAND (libzbc 01.075, "WRITE with unaligned ending
 * physical block"); conventional zones take any alignment, as an SBC-4
 * disk does.  A write the core refuses gets the core's answer (range,
 * gap, boundary, condition, write pointer, resources; see zone-io.c), so
 * the order of the checks stays the one libzbc expects.
 */
bool zbc_zone_write_misaligned(ZbcState *s, uint64_t lba, uint64_t nb)
{
    uint64_t mask = s->pb_blocks - 1;

    if (!mask || !nb || !((lba | nb) & mask) ||
        zr_zone_write_check(&s->zones, lba, nb) != ZR_OK) {
        return false;
    }
    return zr_zone_is_seq(zr_zone_at(&s->zones, lba));
}
