/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the read side of the zone model.
 *
 * This file owns the optional URSWRZ=0 style read checks and what a read
 * returns above a sequential zone's written data: the initialization
 * pattern, zeros (ZBC-2 "Initialization pattern"; ZNS 1.1 "Reading in
 * Zones", DLFEAT), whatever the backend holds there.
 *
 * A read races the writes of its zone: its backend I/O can overlap the
 * transfer of a write that started before it and has not landed, or land
 * after the zone was reset.  The backend then returns old data for those
 * blocks: what the drive held before the zone's last reset, which no
 * host ever wrote there since.  So the front-end takes a snapshot when it
 * issues the read's backend I/O (zr_zone_read_begin()) and masks with it
 * at the end (zr_zone_read_end()): a block reads as zeros unless it held
 * landed data both when the read began and when it ended.  Zeros are a
 * valid answer for any block the read raced: it was unwritten, or its
 * write had not completed, when the read began.
 */

#include "qemu/osdep.h"
#include "qemu/iov.h"
#include "hw/block/zoned-reorder/zone.h"
#include "zone-internal.h"

/*
 * Reads are unrestricted with ZBC-2 URSWRZ=1 (what Linux requires) and in
 * ZNS, except that an OFFLINE zone cannot be read.  A ZBC front-end that
 * reports URSWRZ=0, or wants gap zones to fail reads, passes @flags:
 * ZR_READ_CHECK_WP (ATTEMPT TO READ INVALID DATA), ZR_READ_CHECK_BOUNDARY
 * (READ BOUNDARY VIOLATION), ZR_READ_CHECK_GAP (ATTEMPT TO ACCESS GAP
 * ZONE).  The first problem in LBA order is returned.
 */
ZrResult zr_zone_read_check(const ZrZoneModel *m, uint64_t lba,
                            uint64_t len, unsigned flags)
{
    uint64_t end = lba + len;
    uint64_t pos = lba;

    if (!zr_zone_range_ok(m, lba, len)) {
        return ZR_ERR_LBA_OUT_OF_RANGE;
    }
    while (pos < end) {
        const ZrZone *z = &m->zones[pos >> m->zone_shift];
        uint64_t zend = z->start + z->size;
        uint64_t seg_end = MIN(end, zend);

        if (z->cond == ZR_COND_OFFLINE) {
            return ZR_ERR_OFFLINE;
        }
        if (zr_zone_is_seq(z)) {
            if ((flags & ZR_READ_CHECK_BOUNDARY) &&
                (lba < z->start || end > zend)) {
                return ZR_ERR_BOUNDARY;
            }
            if ((flags & ZR_READ_CHECK_GAP) && seg_end > z->start + z->cap) {
                return ZR_ERR_GAP;
            }
            if ((flags & ZR_READ_CHECK_WP) && seg_end > z->wp) {
                return ZR_ERR_READ_BEYOND_WP;
            }
        }
        pos = seg_end;
    }
    return ZR_OK;
}

/*
 * The end of the data of zone @idx that is on the medium: its written end,
 * or the start of its first write still in flight (writes of a zone land
 * in start order only as far as the first one still moving; those behind
 * it may have landed, but none of them is reported yet).
 */
static uint64_t zr_zone_landed_end(const ZrZoneModel *m, uint32_t idx)
{
    const ZrZone *z = &m->zones[idx];
    const ZrZoneIo *first = QTAILQ_FIRST(&m->in_flight[idx]);

    return first ? MIN(z->wend, first->lba) : z->wend;
}

void zr_zone_read_begin(const ZrZoneModel *m, ZrZoneRead *rd, uint64_t lba,
                        uint64_t len)
{
    uint64_t *ends;
    uint32_t first, i;

    zr_zone_read_release(rd);
    if (!len || !zr_zone_range_ok(m, lba, len)) {
        return;
    }
    first = lba >> m->zone_shift;
    rd->lba = lba;
    rd->len = len;
    rd->nr = ((lba + len - 1) >> m->zone_shift) - first + 1;
    if (rd->nr > ZR_READ_INLINE_ZONES) {
        rd->heap = g_new(uint64_t, rd->nr);
    }
    ends = rd->heap ? rd->heap : rd->inline_end;
    for (i = 0; i < rd->nr; i++) {
        ends[i] = zr_zone_landed_end(m, first + i);
    }
}

/*
 * Call @zero(@opaque, offset, bytes) for each part of @rd's range, in
 * bytes from its start, that was not on the medium for the whole read.
 */
static void zr_zone_read_unlanded(const ZrZoneModel *m, const ZrZoneRead *rd,
                                  uint32_t block_size,
                                  void (*zero)(void *, uint64_t, uint64_t),
                                  void *opaque)
{
    const uint64_t *ends = rd->heap ? rd->heap : rd->inline_end;
    uint64_t lba = rd->lba, end = rd->lba + rd->len, pos = lba;
    uint32_t i = 0;

    while (pos < end && i < rd->nr) {
        uint32_t idx = pos >> m->zone_shift;
        const ZrZone *z = &m->zones[idx];
        uint64_t zend = MIN(end, z->start + z->size);

        if (zr_zone_is_seq(z)) {
            uint64_t landed = MIN(ends[i], zr_zone_landed_end(m, idx));
            uint64_t from = MAX(pos, landed);

            if (from < zend) {
                zero(opaque, (from - lba) * block_size,
                     (zend - from) * block_size);
            }
        }
        pos = zend;
        i++;
    }
}

static void zr_zero_buf(void *opaque, uint64_t off, uint64_t bytes)
{
    memset((uint8_t *)opaque + off, 0, bytes);
}

static void zr_zero_iov(void *opaque, uint64_t off, uint64_t bytes)
{
    qemu_iovec_memset(opaque, off, 0, bytes);
}

void zr_zone_read_end(const ZrZoneModel *m, ZrZoneRead *rd, uint8_t *buf,
                      uint32_t block_size)
{
    if (rd->nr && buf) {
        zr_zone_read_unlanded(m, rd, block_size, zr_zero_buf, buf);
    }
    zr_zone_read_release(rd);
}

/* The same for a read whose data went straight to @qiov (mapped memory) */
void zr_zone_read_end_iov(const ZrZoneModel *m, ZrZoneRead *rd,
                          QEMUIOVector *qiov, uint32_t block_size)
{
    if (rd->nr && qiov) {
        zr_zone_read_unlanded(m, rd, block_size, zr_zero_iov, qiov);
    }
    zr_zone_read_release(rd);
}
