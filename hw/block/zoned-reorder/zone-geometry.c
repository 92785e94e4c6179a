/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: zone geometry and the zone array's lifetime.
 *
 * This file owns the validation of a ZrZoneConfig (once, at realize, with
 * messages that name the offending value), the layout of the zone array
 * (start, size and capacity of every zone, the smaller last zone), lookups
 * by LBA, formatting, and the checks of a zone array restored from saved
 * state.  The state machine itself is in zone.c.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/host-utils.h"
#include "hw/block/zoned-reorder/zone.h"
#include "zone-internal.h"
#include "trace.h"

/*
 * ------------------------------------------------------------------------
 * Geometry
 */

/* Zones needed to cover the device, the last one possibly smaller. */
static uint64_t zr_zone_count_zones(const ZrZoneConfig *cfg)
{
    return cfg->nr_blocks / cfg->zone_size +
           !!(cfg->nr_blocks & (cfg->zone_size - 1));
}

bool zr_zone_config_check(const ZrZoneConfig *cfg, Error **errp)
{
    uint64_t cap = cfg->zone_cap ? cfg->zone_cap : cfg->zone_size;
    uint64_t nr_zones;
    uint32_t nr_seq;

    if (cfg->flavour != ZR_FLAVOUR_ZBC && cfg->flavour != ZR_FLAVOUR_ZNS) {
        error_setg(errp, "invalid zone model flavour %d", cfg->flavour);
        return false;
    }
    if (!is_power_of_2(cfg->zone_size)) {
        error_setg(errp, "zone size %" PRIu64 " blocks is not a power of two",
                   cfg->zone_size);
        return false;
    }
    if (cap > cfg->zone_size) {
        error_setg(errp, "zone capacity %" PRIu64 " blocks exceeds the zone "
                   "size of %" PRIu64 " blocks", cap, cfg->zone_size);
        return false;
    }
    if (cfg->nr_blocks < cfg->zone_size) {
        error_setg(errp, "device of %" PRIu64 " blocks is smaller than one "
                   "zone of %" PRIu64 " blocks", cfg->nr_blocks,
                   cfg->zone_size);
        return false;
    }
    nr_zones = zr_zone_count_zones(cfg);
    if (nr_zones > UINT32_MAX) {
        error_setg(errp, "%" PRIu64 " zones are too many (at most %u); "
                   "use a larger zone size", nr_zones, UINT32_MAX);
        return false;
    }
    if (cfg->nr_conv >= nr_zones) {
        error_setg(errp, "%u conventional zones leave no sequential write "
                   "required zone (the device has %" PRIu64 " zones)",
                   cfg->nr_conv, nr_zones);
        return false;
    }
    if (cfg->flavour == ZR_FLAVOUR_ZNS) {
        /* ZNS 1.1: all zones of a namespace are sequential write required. */
        if (cfg->nr_conv) {
            error_setg(errp, "zoned namespaces have no conventional zones "
                       "(%u requested)", cfg->nr_conv);
            return false;
        }
        /* ZNS 1.1: one zone size (ZSZE) for the whole namespace. */
        if (cfg->nr_blocks & (cfg->zone_size - 1)) {
            error_setg(errp, "namespace size %" PRIu64 " blocks is not a "
                       "multiple of the zone size %" PRIu64 " blocks",
                       cfg->nr_blocks, cfg->zone_size);
            return false;
        }
    }
    nr_seq = nr_zones - cfg->nr_conv;
    if (cfg->max_open > nr_seq) {
        error_setg(errp, "max open zones (%u) exceeds the number of "
                   "sequential write required zones (%u)",
                   cfg->max_open, nr_seq);
        return false;
    }
    if (cfg->max_active > nr_seq) {
        error_setg(errp, "max active zones (%u) exceeds the number of "
                   "sequential write required zones (%u)",
                   cfg->max_active, nr_seq);
        return false;
    }
    if (cfg->max_active && cfg->max_open > cfg->max_active) {
        error_setg(errp, "max open zones (%u) exceeds max active zones (%u)",
                   cfg->max_open, cfg->max_active);
        return false;
    }
    return true;
}

/* Expected fixed fields of zone @i; shared by init and post_load. */
static void zr_zone_layout(const ZrZoneModel *m, uint32_t i, ZrZone *z)
{
    memset(z, 0, sizeof(*z));
    z->start = (uint64_t)i << m->zone_shift;
    z->size = MIN(m->cfg.zone_size, m->cfg.nr_blocks - z->start);
    if (i < m->cfg.nr_conv) {
        z->type = ZR_ZONE_TYPE_CONVENTIONAL;
        z->cap = z->size;
        z->cond = ZR_COND_NOT_WP;
    } else {
        z->type = ZR_ZONE_TYPE_SEQ_WRITE_REQUIRED;
        /* A smaller last zone keeps at most its own size as capacity. */
        z->cap = MIN(m->cfg.zone_cap, z->size);
        z->cond = ZR_COND_EMPTY;
    }
    z->wp = z->start;
    z->wend = z->start;
}

bool zr_zone_model_init(ZrZoneModel *m, const ZrZoneConfig *cfg,
                        Error **errp)
{
    memset(m, 0, sizeof(*m));
    if (!zr_zone_config_check(cfg, errp)) {
        return false;
    }
    m->cfg = *cfg;
    if (!m->cfg.zone_cap) {
        m->cfg.zone_cap = m->cfg.zone_size;
    }
    m->zone_shift = ctz64(cfg->zone_size);
    m->nr_zones = zr_zone_count_zones(cfg);
    m->zones = g_new0(ZrZone, m->nr_zones);
    m->imp_open = g_new0(uint32_t, m->nr_zones);
    m->imp_pos = g_new0(uint32_t, m->nr_zones);
    m->in_flight = g_new(ZrZoneIoList, m->nr_zones);
    for (uint32_t i = 0; i < m->nr_zones; i++) {
        QTAILQ_INIT(&m->in_flight[i]);
    }
    m->dirty = bitmap_new(m->nr_zones);
    m->orphans = g_new0(uint32_t, m->nr_zones);
    zr_zone_model_format(m);
    return true;
}

void zr_zone_model_cleanup(ZrZoneModel *m)
{
    if (m->in_flight) {
        for (uint32_t i = 0; i < m->nr_zones; i++) {
            zr_zone_detach(m, i);
        }
    }
    g_free(m->zones);
    g_free(m->imp_open);
    g_free(m->imp_pos);
    g_free(m->in_flight);
    g_free(m->dirty);
    g_free(m->orphans);
    memset(m, 0, sizeof(*m));
}

/* Every zone EMPTY (or NOT WP), as a freshly formatted device. */
void zr_zone_model_format(ZrZoneModel *m)
{
    uint32_t i;

    for (i = 0; i < m->nr_zones; i++) {
        zr_zone_detach(m, i);
        zr_zone_layout(m, i, &m->zones[i]);
    }
    bitmap_set(m->dirty, 0, m->nr_zones);
    m->nr_imp_open = 0;
    m->nr_exp_open = 0;
    m->nr_closed = 0;
    m->lru_clock = 0;
    trace_zr_zone_format(m->nr_zones, m->cfg.nr_conv);
}

/*
 * ------------------------------------------------------------------------
 * Lookup
 */

ZrZone *zr_zone_at(ZrZoneModel *m, uint64_t lba)
{
    if (lba >= m->cfg.nr_blocks) {
        return NULL;
    }
    return &m->zones[lba >> m->zone_shift];
}

/*
 * ------------------------------------------------------------------------
 * Saved state
 */

/*
 * After the zone array was restored (VMState or a metadata file): check it
 * against the geometry, because the stream is input we do not trust, and
 * rebuild the derived accounting.  FULL zones get their write pointer at
 * the capacity end, whatever was stored; the written end must lie between
 * the zone start and the write pointer.  Writes in flight are forgotten
 * (their ends find them detached).  On failure the model must be
 * formatted (zr_zone_model_format()) or destroyed before further use.
 */
bool zr_zone_model_post_load(ZrZoneModel *m, Error **errp)
{
    uint32_t i;

    for (i = 0; i < m->nr_zones; i++) {
        ZrZone *z = &m->zones[i];
        ZrZone want;
        bool ok;

        zr_zone_layout(m, i, &want);
        if (z->start != want.start || z->size != want.size ||
            z->cap != want.cap || z->type != want.type) {
            error_setg(errp, "zone %u: saved layout (start %" PRIu64
                       " size %" PRIu64 " cap %" PRIu64 " type %u) does not "
                       "match the geometry", i, z->start, z->size, z->cap,
                       z->type);
            return false;
        }
        zr_zone_detach(m, i);
        if (z->type == ZR_ZONE_TYPE_CONVENTIONAL) {
            ok = z->cond == ZR_COND_NOT_WP;
            z->wp = z->start;
            z->wend = z->start;
        } else {
            switch (z->cond) {
            case ZR_COND_EMPTY:
                ok = z->wp == z->start;
                break;
            case ZR_COND_IMP_OPEN:
            case ZR_COND_EXP_OPEN:
            case ZR_COND_CLOSED:
                ok = z->wp >= z->start && z->wp < z->start + z->cap;
                break;
            case ZR_COND_FULL:
                z->wp = z->start + z->cap;
                ok = true;
                break;
            case ZR_COND_READ_ONLY:
            case ZR_COND_OFFLINE:
                ok = z->wp >= z->start && z->wp <= z->start + z->cap;
                break;
            default:
                ok = false;
                break;
            }
            ok = ok && z->wend >= z->start && z->wend <= z->wp;
        }
        if (!ok) {
            error_setg(errp, "zone %u: saved condition 0x%x with write "
                       "pointer %" PRIu64 " and written end %" PRIu64 " is "
                       "inconsistent", i, z->cond, z->wp, z->wend);
            return false;
        }
    }
    zr_zone_recount(m);
    bitmap_set(m->dirty, 0, m->nr_zones);

    if (m->cfg.max_open && zr_zone_nr_open(m) > m->cfg.max_open) {
        error_setg(errp, "saved state has %u open zones, more than the "
                   "limit of %u", zr_zone_nr_open(m), m->cfg.max_open);
        return false;
    }
    if (m->cfg.max_active && zr_zone_nr_active(m) > m->cfg.max_active) {
        error_setg(errp, "saved state has %u active zones, more than the "
                   "limit of %u", zr_zone_nr_active(m), m->cfg.max_active);
        return false;
    }
    return true;
}
