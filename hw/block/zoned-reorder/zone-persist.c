/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: zone state on a drive of its own.
 *
 * The format (all integers little-endian; docs/devel/zone-state.md):
 *
 *   block 0              superblock: magic, version, the geometry the
 *                        state belongs to, CRC-32C
 *   blocks 1 + 2i, 2 + 2i  the two copies of table block i: magic, index,
 *                        generation, entry count, one entry per zone
 *                        (write pointer, written end, condition, type),
 *                        CRC-32C
 *
 * A table block is rewritten whole into the copy that does not hold its
 * current generation, with the next one; on load the valid copy (magic,
 * index, count, checksum) with the higher generation wins.  A write torn
 * by a crash leaves the other copy: the zones of that block keep the state
 * of the sync before.  Each zone's entry is its committed state
 * (zr_zone_committed()), taken before the data drive is flushed, so after
 * any crash a zone's write pointer is at or below the data on the drive.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/bitmap.h"
#include "qemu/bswap.h"
#include "qemu/coroutine.h"
#include "qemu/crc32c.h"
#include "qemu/cutils.h"
#include "qemu/main-loop.h"
#include "qemu/memalign.h"
#include "block/aio-wait.h"
#include "system/block-backend.h"
#include "system/runstate.h"
#include "hw/block/zoned-reorder/zone-persist.h"
#include "trace.h"

#define ZR_PERSIST_MAGIC        "QZRZONES"
#define ZR_PERSIST_TB_MAGIC     0x5a525442u     /* "BTRZ" on disk: LE */
#define ZR_PERSIST_VERSION      1
#define ZR_PERSIST_CRC_OFF      (ZR_PERSIST_BLOCK - 4)

/* Superblock fields (byte offsets). */
enum {
    SB_MAGIC = 0,           /* 8 bytes */
    SB_VERSION = 8,         /* u32 */
    SB_UNIT = 12,           /* u32: ZR_PERSIST_BLOCK */
    SB_NR_BLOCKS = 16,      /* u64: data drive size in logical blocks */
    SB_BLOCK_SIZE = 24,     /* u32 */
    SB_NR_ZONES = 28,       /* u32 */
    SB_ZONE_SIZE = 32,      /* u64, blocks */
    SB_ZONE_CAP = 40,       /* u64, blocks */
    SB_NR_CONV = 48,        /* u32 */
    SB_FLAVOUR = 52,        /* u32: ZrZoneFlavour */
    SB_PER_BLOCK = 56,      /* u32: entries per table block */
    SB_NR_TBLOCKS = 60,     /* u32 */
};

/* Table block header and entries. */
enum {
    TB_MAGIC = 0,           /* u32 */
    TB_INDEX = 4,           /* u32 */
    TB_GEN = 8,             /* u64 */
    TB_COUNT = 16,          /* u32 */
    TB_ENTRIES = 24,
    TB_ENTRY_SIZE = 24,     /* u64 wp, u64 wend, u8 cond, u8 type, 6 zero */
};

#define ZR_PERSIST_PER_BLOCK \
    ((ZR_PERSIST_CRC_OFF - TB_ENTRIES) / TB_ENTRY_SIZE)

static uint32_t zr_persist_nr_tblocks(const ZrZoneModel *m)
{
    return DIV_ROUND_UP(m->nr_zones, ZR_PERSIST_PER_BLOCK);
}

uint64_t zr_persist_size(const ZrZoneModel *m)
{
    return (uint64_t)ZR_PERSIST_BLOCK * (1 + 2 * zr_persist_nr_tblocks(m));
}

static int64_t zr_persist_tb_offset(uint32_t i, unsigned slot)
{
    return (int64_t)ZR_PERSIST_BLOCK * (1 + 2 * (int64_t)i + slot);
}

static void zr_persist_seal(uint8_t *buf)
{
    stl_le_p(buf + ZR_PERSIST_CRC_OFF, crc32c(0xffffffff, buf,
                                             ZR_PERSIST_CRC_OFF));
}

static bool zr_persist_sealed(const uint8_t *buf)
{
    return ldl_le_p(buf + ZR_PERSIST_CRC_OFF) ==
           crc32c(0xffffffff, buf, ZR_PERSIST_CRC_OFF);
}

/* ---------------------------------------------------------------------- */

static void zr_persist_fill_super(const ZrZonePersist *p, uint8_t *buf)
{
    const ZrZoneModel *m = p->m;

    memset(buf, 0, ZR_PERSIST_BLOCK);
    memcpy(buf + SB_MAGIC, ZR_PERSIST_MAGIC, 8);
    stl_le_p(buf + SB_VERSION, ZR_PERSIST_VERSION);
    stl_le_p(buf + SB_UNIT, ZR_PERSIST_BLOCK);
    stq_le_p(buf + SB_NR_BLOCKS, m->cfg.nr_blocks);
    stl_le_p(buf + SB_BLOCK_SIZE, p->block_size);
    stl_le_p(buf + SB_NR_ZONES, m->nr_zones);
    stq_le_p(buf + SB_ZONE_SIZE, m->cfg.zone_size);
    stq_le_p(buf + SB_ZONE_CAP, m->cfg.zone_cap);
    stl_le_p(buf + SB_NR_CONV, m->cfg.nr_conv);
    stl_le_p(buf + SB_FLAVOUR, m->cfg.flavour);
    stl_le_p(buf + SB_PER_BLOCK, p->per_block);
    stl_le_p(buf + SB_NR_TBLOCKS, p->nr_tblocks);
    zr_persist_seal(buf);
}

/* Table block @i of the committed state, generation @gen, into @buf. */
static void zr_persist_fill_table(const ZrZonePersist *p, uint32_t i,
                                  uint64_t gen, uint8_t *buf)
{
    uint32_t first = i * p->per_block;
    uint32_t n = MIN(p->per_block, p->m->nr_zones - first);
    uint32_t k;

    memset(buf, 0, ZR_PERSIST_BLOCK);
    stl_le_p(buf + TB_MAGIC, ZR_PERSIST_TB_MAGIC);
    stl_le_p(buf + TB_INDEX, i);
    stq_le_p(buf + TB_GEN, gen);
    stl_le_p(buf + TB_COUNT, n);
    for (k = 0; k < n; k++) {
        uint8_t *e = buf + TB_ENTRIES + k * TB_ENTRY_SIZE;
        ZrZone z;

        zr_zone_committed(p->m, first + k, &z);
        stq_le_p(e, z.wp);
        stq_le_p(e + 8, z.wend);
        e[16] = z.cond;
        e[17] = z.type;
    }
    zr_persist_seal(buf);
}

/* Is @buf a valid copy of table block @i?  Sets *@gen. */
static bool zr_persist_table_ok(const ZrZonePersist *p, uint32_t i,
                                const uint8_t *buf, uint64_t *gen)
{
    uint32_t n = MIN(p->per_block, p->m->nr_zones - i * p->per_block);

    if (ldl_le_p(buf + TB_MAGIC) != ZR_PERSIST_TB_MAGIC ||
        ldl_le_p(buf + TB_INDEX) != i || ldl_le_p(buf + TB_COUNT) != n ||
        !zr_persist_sealed(buf)) {
        return false;
    }
    *gen = ldq_le_p(buf + TB_GEN);
    return true;
}

/*
 * After load: mark the zones of table block @i dirty where the model no
 * longer matches the block as saved (the power-on rule closed them).
 */
static void zr_persist_load_dirty(ZrZonePersist *p, uint32_t i)
{
    uint32_t first = i * p->per_block;
    uint32_t n = MIN(p->per_block, p->m->nr_zones - first);

    bitmap_clear(p->m->dirty, first, n);
    for (uint32_t k = 0; k < n; k++) {
        if (p->loaded_cond[first + k] != p->m->zones[first + k].cond) {
            set_bit(first + k, p->m->dirty);
        }
    }
}

static void zr_persist_load_table(ZrZonePersist *p, uint32_t i,
                                  const uint8_t *buf)
{
    uint32_t first = i * p->per_block;
    uint32_t n = ldl_le_p(buf + TB_COUNT);
    uint32_t k;

    for (k = 0; k < n; k++) {
        const uint8_t *e = buf + TB_ENTRIES + k * TB_ENTRY_SIZE;
        ZrZone *z = &p->m->zones[first + k];

        z->wp = ldq_le_p(e);
        z->wend = ldq_le_p(e + 8);
        z->cond = e[16];
        z->type = e[17];
        p->loaded_cond[first + k] = z->cond;
    }
}

/*
 * ------------------------------------------------------------------------
 * Open: format or load
 */

static bool zr_persist_all_zero(const uint8_t *buf, size_t len)
{
    return buffer_is_zero(buf, len);
}

/* Write a fresh state: table blocks first, the superblock last. */
static int zr_persist_format(ZrZonePersist *p, Error **errp)
{
    g_autofree uint8_t *buf = g_malloc(ZR_PERSIST_BLOCK);
    int64_t need = zr_persist_size(p->m);
    int64_t len = blk_getlength(p->blk);
    uint32_t i;
    int ret;

    if (len < 0) {
        error_setg_errno(errp, -len, "cannot get the size of the zone-state "
                         "drive");
        return len;
    }
    if (len < need) {
        ret = blk_truncate(p->blk, need, false, PREALLOC_MODE_OFF, 0, errp);
        if (ret < 0) {
            error_prepend(errp, "the zone-state drive is %" PRId64 " bytes, "
                          "%" PRId64 " needed, and cannot grow: ", len, need);
            return ret;
        }
    }
    /*
     * Re-formatting over a valid state: the old superblock goes first, so
     * a crash half-way leaves a drive that is formatted again at the next
     * start rather than one mixing fresh and old table blocks.
     */
    ret = blk_pwrite_zeroes(p->blk, 0, ZR_PERSIST_BLOCK, 0);
    if (ret == 0) {
        ret = blk_flush(p->blk);
    }
    if (ret < 0) {
        error_setg_errno(errp, -ret, "cannot write the zone-state drive");
        return ret;
    }
    zr_zone_model_format(p->m);
    for (i = 0; i < p->nr_tblocks; i++) {
        unsigned slot;

        for (slot = 0; slot < 2; slot++) {
            zr_persist_fill_table(p, i, slot ? 0 : 1, buf);
            ret = blk_pwrite(p->blk, zr_persist_tb_offset(i, slot),
                             ZR_PERSIST_BLOCK, buf, 0);
            if (ret < 0) {
                error_setg_errno(errp, -ret, "cannot write the zone-state "
                                 "drive");
                return ret;
            }
        }
        p->gen[i] = 1;
        p->slot[i] = 0;
    }
    ret = blk_flush(p->blk);
    if (ret == 0) {
        zr_persist_fill_super(p, buf);
        ret = blk_pwrite(p->blk, 0, ZR_PERSIST_BLOCK, buf, 0);
    }
    if (ret == 0) {
        ret = blk_flush(p->blk);
    }
    if (ret < 0) {
        error_setg_errno(errp, -ret, "cannot write the zone-state drive");
        return ret;
    }
    bitmap_zero(p->m->dirty, p->m->nr_zones);
    trace_zr_persist_format(p->m->nr_zones, p->nr_tblocks);
    return 0;
}

/* The superblock's geometry must be @p's: say which field differs. */
static bool zr_persist_check_super(ZrZonePersist *p, const uint8_t *buf,
                                   Error **errp)
{
    static const struct {
        const char *name;
        unsigned off;
        bool wide;
    } f[] = {
        { "state unit", SB_UNIT, false },
        { "logical block size", SB_BLOCK_SIZE, false },
        { "size in blocks", SB_NR_BLOCKS, true },
        { "zone size in blocks", SB_ZONE_SIZE, true },
        { "zone capacity in blocks", SB_ZONE_CAP, true },
        { "conventional zones", SB_NR_CONV, false },
        { "zone count", SB_NR_ZONES, false },
        { "zone model", SB_FLAVOUR, false },
        { "entries per table block", SB_PER_BLOCK, false },
        { "table blocks", SB_NR_TBLOCKS, false },
    };
    g_autofree uint8_t *want = g_malloc(ZR_PERSIST_BLOCK);
    size_t i;

    if (ldl_le_p(buf + SB_VERSION) != ZR_PERSIST_VERSION) {
        error_setg(errp, "zone state format version %u is not supported "
                   "(this QEMU writes version %u)", ldl_le_p(buf + SB_VERSION),
                   ZR_PERSIST_VERSION);
        return false;
    }
    zr_persist_fill_super(p, want);
    for (i = 0; i < ARRAY_SIZE(f); i++) {
        uint64_t got = f[i].wide ? ldq_le_p(buf + f[i].off)
                                 : ldl_le_p(buf + f[i].off);
        uint64_t exp = f[i].wide ? ldq_le_p(want + f[i].off)
                                 : ldl_le_p(want + f[i].off);

        if (got != exp) {
            error_setg(errp, "the zone state was written for another "
                       "geometry: %s %" PRIu64 ", this device has %" PRIu64,
                       f[i].name, got, exp);
            return false;
        }
    }
    return true;
}

/*
 * Read both copies of every table block: which one is newer sets the
 * generation and the copy the next write replaces.  With @apply, the newer
 * copy's zones go into the model (loading); without, a block with no valid
 * copy (never written since a format that a crash interrupted) is written
 * anew as generation 1 (after a migration or a snapshot, whose zone state
 * came with the VM).
 */
static int coroutine_mixed_fn zr_persist_scan(ZrZonePersist *p, bool apply,
                                              Error **errp)
{
    g_autofree uint8_t *a = g_malloc(ZR_PERSIST_BLOCK);
    g_autofree uint8_t *b = g_malloc(ZR_PERSIST_BLOCK);
    uint32_t i;
    int ret;

    for (i = 0; i < p->nr_tblocks; i++) {
        uint64_t ga = 0, gb = 0;
        bool oka, okb;

        ret = blk_pread(p->blk, zr_persist_tb_offset(i, 0), ZR_PERSIST_BLOCK,
                        a, 0);
        if (ret == 0) {
            ret = blk_pread(p->blk, zr_persist_tb_offset(i, 1),
                            ZR_PERSIST_BLOCK, b, 0);
        }
        if (ret < 0) {
            error_setg_errno(errp, -ret, "cannot read zone state table block "
                             "%u", i);
            return ret;
        }
        oka = zr_persist_table_ok(p, i, a, &ga);
        okb = zr_persist_table_ok(p, i, b, &gb);
        if (!oka && !okb && apply) {
            error_setg(errp, "zone state table block %u (zones %u-%u): "
                       "neither copy is valid (checksum, magic or index)",
                       i, i * p->per_block,
                       MIN((i + 1) * p->per_block, p->m->nr_zones) - 1);
            return -EINVAL;
        }
        p->slot[i] = !oka || (okb && gb > ga);
        p->gen[i] = p->slot[i] ? gb : ga;
        if (apply) {
            zr_persist_load_table(p, i, p->slot[i] ? b : a);
        }
    }
    return 0;
}

static int zr_persist_load(ZrZonePersist *p, Error **errp)
{
    uint32_t i;
    int ret;

    p->loaded_cond = g_new0(uint8_t, p->m->nr_zones);
    ret = zr_persist_scan(p, true, errp);
    if (ret < 0) {
        return ret;
    }
    /*
     * Open zones do not survive a power cycle (ZBC-2, ZNS): apply that
     * before the open limit is checked, since a crash between the table
     * blocks of one sync can leave open zones of two syncs, more than
     * max-open together.
     */
    for (i = 0; i < p->m->nr_zones; i++) {
        ZrZone *z = &p->m->zones[i];

        if (z->cond == ZR_COND_IMP_OPEN || z->cond == ZR_COND_EXP_OPEN) {
            z->cond = z->wp == z->start &&
                      p->m->cfg.flavour == ZR_FLAVOUR_ZBC ? ZR_COND_EMPTY
                                                          : ZR_COND_CLOSED;
        }
    }
    if (!zr_zone_model_post_load(p->m, errp)) {
        error_prepend(errp, "zone state: ");
        return -EINVAL;
    }
    /* What changed from the saved state goes out with the next sync. */
    for (i = 0; i < p->nr_tblocks; i++) {
        zr_persist_load_dirty(p, i);
    }
    g_free(p->loaded_cond);
    p->loaded_cond = NULL;
    trace_zr_persist_load(p->m->nr_zones, p->nr_tblocks);
    return 0;
}

bool zr_persist_open(ZrZonePersist *p, ZrZoneModel *m, BlockBackend *blk,
                     BlockBackend *data, uint32_t block_size, bool format,
                     bool incoming, Error **errp)
{
    g_autofree uint8_t *buf = g_malloc0(ZR_PERSIST_BLOCK);
    int64_t len;
    int ret;

    memset(p, 0, sizeof(*p));
    p->blk = blk;
    p->data = data;
    p->m = m;
    p->block_size = block_size;
    p->per_block = ZR_PERSIST_PER_BLOCK;
    p->nr_tblocks = zr_persist_nr_tblocks(m);
    p->gen = g_new0(uint64_t, p->nr_tblocks);
    p->slot = g_new0(uint8_t, p->nr_tblocks);
    QSIMPLEQ_INIT(&p->waiting);

    len = blk_getlength(blk);
    if (len < 0) {
        error_setg_errno(errp, -len, "cannot get the size of the zone-state "
                         "drive");
        goto fail;
    }
    if (incoming) {
        /*
         * The state comes with the migration stream, and the drive belongs
         * to the source until the migration ends: nothing is read or
         * written now (format is for a cold start only).  The first sync
         * learns the copies on the drive (zr_persist_rescan()).
         */
        p->rescan = true;
        trace_zr_persist_incoming(m->nr_zones, p->nr_tblocks);
        return true;
    }
    if (len >= ZR_PERSIST_BLOCK) {
        ret = blk_pread(blk, 0, ZR_PERSIST_BLOCK, buf, 0);
        if (ret < 0) {
            error_setg_errno(errp, -ret, "cannot read the zone-state drive");
            goto fail;
        }
    }
    if (format || zr_persist_all_zero(buf, ZR_PERSIST_BLOCK)) {
        if (zr_persist_format(p, errp) < 0) {
            goto fail;
        }
        return true;
    }
    if (memcmp(buf + SB_MAGIC, ZR_PERSIST_MAGIC, 8)) {
        error_setg(errp, "the zone-state drive holds something else (no "
                   "zone state superblock); use a new or zeroed file, or "
                   "zone-state-format=on to overwrite it");
        goto fail;
    }
    if (!zr_persist_sealed(buf)) {
        error_setg(errp, "the zone state superblock fails its checksum");
        goto fail;
    }
    if (!zr_persist_check_super(p, buf, errp)) {
        error_append_hint(errp, "zone-state-format=on formats the state "
                          "anew: every zone EMPTY\n");
        goto fail;
    }
    if (len < (int64_t)zr_persist_size(m)) {
        error_setg(errp, "the zone-state drive is truncated: %" PRId64
                   " bytes, %" PRIu64 " needed", len, zr_persist_size(m));
        goto fail;
    }
    if (zr_persist_load(p, errp) < 0) {
        goto fail;
    }
    return true;

fail:
    zr_persist_close(p);
    return false;
}

bool zr_persist_attach(ZrZonePersist *p, ZrZoneModel *m, BlockBackend *zs,
                       BlockBackend *data, uint32_t block_size, bool format,
                       Error **errp)
{
    int ret;

    if (!blk_is_inserted(zs)) {
        error_setg(errp, "the zone-state drive has no medium");
        return false;
    }
    /* the sync coroutine runs in the main loop, under the BQL */
    if (blk_get_aio_context(zs) != qemu_get_aio_context()) {
        error_setg(errp, "the zone-state drive is in an iothread");
        return false;
    }
    ret = blk_set_perm(zs, BLK_PERM_CONSISTENT_READ | BLK_PERM_WRITE |
                       BLK_PERM_RESIZE, BLK_PERM_CONSISTENT_READ, errp);
    if (ret < 0) {
        error_prepend(errp, "zone-state: ");
        return false;
    }
    /*
     * An incoming migration brings the zone state in its stream: the
     * drive is the source's until the migration ends.
     */
    if (!zr_persist_open(p, m, zs, data, block_size, format,
                         runstate_check(RUN_STATE_INMIGRATE), errp)) {
        error_prepend(errp, "zone-state: ");
        return false;
    }
    return true;
}

/*
 * The zone state was replaced from outside (migration, loadvm): every zone
 * is dirty (zr_zone_model_post_load()), and which copy of each table block
 * is the newer must be read again before the next write.
 */
void zr_persist_invalidate(ZrZonePersist *p)
{
    if (p->blk) {
        p->rescan = true;
    }
}

void zr_persist_close(ZrZonePersist *p)
{
    assert(!p->running);
    g_free(p->loaded_cond);
    p->loaded_cond = NULL;
    g_free(p->gen);
    g_free(p->slot);
    p->gen = NULL;
    p->slot = NULL;
    p->blk = NULL;
}

/*
 * ------------------------------------------------------------------------
 * Sync
 */

/*
 * One round: snapshot the dirty table blocks, flush the data, write the
 * snapshot, flush the state.  On failure the blocks are dirty again.
 */
/*
 * The zone state came with the VM (an incoming migration, a loadvm): the
 * model is right, and the drive holds what the source wrote last (or what
 * the snapshot holds).  Before writing over one copy of a table block,
 * learn which copy is the newer.  A drive never formatted is formatted by
 * this round: its tables (every zone is dirty) and then, in
 * zr_persist_round(), its superblock (*@fresh).  Another format or
 * geometry fails the round, as it would have failed realize.
 */
static int coroutine_mixed_fn zr_persist_rescan(ZrZonePersist *p,
                                                bool *fresh)
{
    g_autofree uint8_t *buf = g_malloc0(ZR_PERSIST_BLOCK);
    int64_t need = zr_persist_size(p->m);
    int64_t len = blk_getlength(p->blk);
    Error *err = NULL;
    int ret;

    if (len < 0) {
        return len;
    }
    if (len >= ZR_PERSIST_BLOCK) {
        ret = blk_pread(p->blk, 0, ZR_PERSIST_BLOCK, buf, 0);
        if (ret < 0) {
            return ret;
        }
    }
    if (zr_persist_all_zero(buf, ZR_PERSIST_BLOCK)) {
        if (len < need) {
            ret = blk_truncate(p->blk, need, false, PREALLOC_MODE_OFF, 0,
                               &err);
            if (ret < 0) {
                error_report_err(err);
                return ret;
            }
        }
        memset(p->gen, 0, p->nr_tblocks * sizeof(*p->gen));
        memset(p->slot, 1, p->nr_tblocks);
        bitmap_set(p->m->dirty, 0, p->m->nr_zones);
        *fresh = true;
        return 0;
    }
    if (memcmp(buf + SB_MAGIC, ZR_PERSIST_MAGIC, 8) ||
        !zr_persist_sealed(buf)) {
        error_setg(&err, "no valid superblock");
    } else if (zr_persist_check_super(p, buf, &err) && len < need) {
        error_setg(&err, "truncated: %" PRId64 " bytes, %" PRId64 " needed",
                   len, need);
    }
    if (!err) {
        ret = zr_persist_scan(p, false, &err);
    } else {
        ret = -EINVAL;
    }
    if (ret < 0) {
        error_prepend(&err, "zone-state drive after migration: ");
        error_report_err(err);
        return ret;
    }
    return 0;
}

static int coroutine_mixed_fn zr_persist_round(ZrZonePersist *p)
{
    ZrZoneModel *m = p->m;
    uint32_t *idx;
    uint8_t *bufs;
    uint32_t n = 0, i, k;
    bool fresh = false;
    int ret;

    if (p->rescan) {
        ret = zr_persist_rescan(p, &fresh);
        if (ret < 0) {
            p->stats.syncs++;
            p->stats.errors++;
            trace_zr_persist_error(ret);
            return ret;
        }
        p->rescan = false;
    }
    idx = g_new(uint32_t, p->nr_tblocks);
    for (i = 0; i < p->nr_tblocks; i++) {
        uint32_t first = i * p->per_block;
        uint32_t end = MIN(first + p->per_block, m->nr_zones);

        if (find_next_bit(m->dirty, end, first) < end) {
            idx[n++] = i;
        }
    }
    bufs = qemu_blockalign(blk_bs(p->blk), MAX(n, 1) * ZR_PERSIST_BLOCK);
    for (k = 0; k < n; k++) {
        uint32_t first = idx[k] * p->per_block;

        zr_persist_fill_table(p, idx[k], p->gen[idx[k]] + 1,
                              bufs + k * ZR_PERSIST_BLOCK);
        bitmap_clear(m->dirty, first,
                     MIN(p->per_block, m->nr_zones - first));
    }
    trace_zr_persist_round(n);

    ret = p->data ? blk_flush(p->data) : 0;
    for (k = 0; k < n && ret == 0; k++) {
        ret = blk_pwrite(p->blk, zr_persist_tb_offset(idx[k],
                                                     !p->slot[idx[k]]),
                         ZR_PERSIST_BLOCK, bufs + k * ZR_PERSIST_BLOCK, 0);
    }
    if (ret == 0 && n) {
        ret = blk_flush(p->blk);
    }
    if (ret == 0 && fresh) {
        g_autofree uint8_t *sb = g_malloc(ZR_PERSIST_BLOCK);

        /*
         * The other copy of each block is made invalid, as a format does
         * (the superblock is written last), so that no copy left from an
         * earlier format can win with a higher generation.
         */
        for (k = 0; k < p->nr_tblocks && ret == 0; k++) {
            ret = blk_pwrite_zeroes(p->blk, zr_persist_tb_offset(k, 1),
                                    ZR_PERSIST_BLOCK, 0);
        }
        if (ret == 0) {
            ret = blk_flush(p->blk);
        }
        if (ret == 0) {
            zr_persist_fill_super(p, sb);
            ret = blk_pwrite(p->blk, 0, ZR_PERSIST_BLOCK, sb, 0);
        }
        if (ret == 0) {
            ret = blk_flush(p->blk);
        }
    }
    if (ret < 0 && fresh) {
        /* Not formatted yet: the next round starts over. */
        p->rescan = true;
    }
    for (k = 0; k < n; k++) {
        uint32_t first = idx[k] * p->per_block;

        if (ret == 0) {
            p->gen[idx[k]]++;
            p->slot[idx[k]] = !p->slot[idx[k]];
        } else {
            /*
             * Which copy now holds what is unknown: write the other one
             * again next time, with a generation above both.
             */
            p->gen[idx[k]]++;
            bitmap_set(m->dirty, first,
                       MIN(p->per_block, m->nr_zones - first));
        }
    }
    p->stats.syncs++;
    if (ret == 0) {
        p->stats.blocks_written += n;
    } else {
        p->stats.errors++;
        trace_zr_persist_error(ret);
    }
    qemu_vfree(bufs);
    g_free(idx);
    return ret;
}

static void coroutine_fn zr_persist_co(void *opaque)
{
    ZrZonePersist *p = opaque;

    while (!QSIMPLEQ_EMPTY(&p->waiting)) {
        QSIMPLEQ_HEAD(, ZrPersistWaiter) round;
        ZrPersistWaiter *w;
        int ret;

        QSIMPLEQ_INIT(&round);
        QSIMPLEQ_CONCAT(&round, &p->waiting);
        ret = zr_persist_round(p);
        while ((w = QSIMPLEQ_FIRST(&round))) {
            QSIMPLEQ_REMOVE_HEAD(&round, next);
            w->cb(w->opaque, ret);
            g_free(w);
        }
    }
    p->running = false;
    aio_wait_kick();
}

/*
 * Requests arriving while a round runs are served by the next one, whose
 * snapshot is taken after they arrived.  The coroutine starts from the
 * main loop, never inside the caller.
 */
void zr_persist_sync(ZrZonePersist *p, ZrPersistCb *cb, void *opaque)
{
    ZrPersistWaiter *w = g_new0(ZrPersistWaiter, 1);

    w->cb = cb;
    w->opaque = opaque;
    QSIMPLEQ_INSERT_TAIL(&p->waiting, w, next);
    if (!p->running) {
        p->running = true;
        aio_co_schedule(qemu_get_aio_context(),
                        qemu_coroutine_create(zr_persist_co, p));
    }
}

static void zr_persist_now_done(void *opaque, int ret)
{
    int *res = opaque;

    *res = ret;
}

int zr_persist_sync_now(ZrZonePersist *p)
{
    int ret = 1;

    if (!p->blk) {
        return 0;
    }
    zr_persist_sync(p, zr_persist_now_done, &ret);
    AIO_WAIT_WHILE(NULL, ret > 0 || p->running);
    return ret;
}
