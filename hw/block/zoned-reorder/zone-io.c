/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the I/O side of the zone model.
 *
 * This file owns write-pointer checks and advances: writes (ZBC-2 "Writing
 * in sequential write required zones", ZNS 1.1 "Writing in Zones"), zone
 * append (ZNS 1.1 "Zone Append command") and the read-only/offline
 * injection hooks; reads are in zone-read.c.  A device calls
 * zr_zone_write()/zr_zone_append() when a command *starts*, so the start
 * order chosen by the dispatch engine is the order the write pointer sees.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/bitops.h"
#include "hw/block/zoned-reorder/zone.h"
#include "zone-internal.h"
#include "trace.h"

/*
 * The checks of a write of @len blocks at @lba, without side effects; on
 * ZR_OK *@idx is the zone index.  Each front-end must report the first
 * problem its standard (and its hosts' conformance suites) expect, and the
 * two standards order the checks differently:
 *
 * - ZNS: range, zone condition, gap, write pointer, boundary, resources
 *   (the order of QEMU's NVMe model).
 * - ZBC: range, gap, boundary, zone condition, write pointer, resources.
 *   In ZBC-2 the blocks in [start + cap, start + size) form a separate gap
 *   zone, so a write starting there is an ATTEMPT TO ACCESS GAP ZONE
 *   whatever the condition of the zone before it, and a write crossing
 *   the end of its zone is a WRITE BOUNDARY VIOLATION even when it also
 *   starts off the write pointer or in a FULL zone.  This is what the
 *   libzbc conformance suite checks (test/scripts/01_sk_ascq_check 090,
 *   092, 093) and what Linux scsi_debug and tcmu-runner's ZBC handler do.
 */
static inline QEMU_ALWAYS_INLINE
ZrResult zr_zone_check_write(const ZrZoneModel *m, uint64_t lba,
                             uint64_t len, uint32_t *idx)
{
    const ZrZone *z;

    if (!zr_zone_range_ok(m, lba, len)) {
        return ZR_ERR_LBA_OUT_OF_RANGE;
    }
    *idx = lba >> m->zone_shift;
    z = &m->zones[*idx];

    if (!zr_zone_is_seq(z)) {
        /*
         * ZBC-2: writes may span conventional zones but not run into a
         * sequential write required zone (WRITE BOUNDARY VIOLATION).
         */
        if (len > ((uint64_t)m->cfg.nr_conv << m->zone_shift) - lba) {
            return ZR_ERR_BOUNDARY;
        }
        return ZR_OK;
    }
    /* A zero-length write transfers nothing and changes nothing (SBC). */
    if (len == 0) {
        return ZR_OK;
    }
    if (m->cfg.flavour == ZR_FLAVOUR_ZBC) {
        if (lba >= z->start + z->cap) {
            return ZR_ERR_GAP;
        }
        if (len > z->start + z->cap - lba) {
            return ZR_ERR_BOUNDARY;
        }
    }

    switch (z->cond) {
    case ZR_COND_OFFLINE:
        return ZR_ERR_OFFLINE;
    case ZR_COND_READ_ONLY:
        return ZR_ERR_READ_ONLY;
    case ZR_COND_FULL:
        return ZR_ERR_ZONE_FULL;
    default:
        break;
    }
    if (lba >= z->start + z->cap) {
        return ZR_ERR_GAP;
    }
    if (lba != z->wp) {
        return ZR_ERR_UNALIGNED_WRITE;
    }
    if (len > z->start + z->cap - lba) {
        return ZR_ERR_BOUNDARY;
    }
    return zr_zone_check_resources(m, z);
}

/*
 * Commit @len blocks at the write pointer of a checked zone.  An EMPTY or
 * CLOSED zone is implicitly opened first (ZBC-2 ZC1/ZC4 -> ZC2, ZNS
 * ZSE/ZSC -> ZSIO), closing another implicitly open zone if the open
 * limit requires it; reaching the capacity makes the zone FULL, which
 * gives both resources back.
 */
static inline QEMU_ALWAYS_INLINE
void zr_zone_advance(ZrZoneModel *m, ZrZone *z, uint64_t len,
                     ZrZoneIo *io)
{
    uint32_t idx = zr_zone_index(m, z);

    if (z->cond == ZR_COND_EMPTY || z->cond == ZR_COND_CLOSED) {
        zr_zone_make_room(m, z);
        zr_zone_assign_cond(m, z, ZR_COND_IMP_OPEN);
        m->stats.implicit_opens++;
    }
    z->lru = ++m->lru_clock;
    if (io) {
        *io = (ZrZoneIo) {
            .lba = z->wp, .len = len, .zone = idx, .state = ZR_IO_IN_FLIGHT,
        };
        QTAILQ_INSERT_TAIL(&m->in_flight[idx], io, link);
        m->nr_io++;
    }
    z->wp += len;
    z->wend = z->wp;
    zr_zone_touch(m, idx);
    if (z->wp == z->start + z->cap) {
        zr_zone_assign_cond(m, z, ZR_COND_FULL);
    }
}

ZrResult zr_zone_write_check(const ZrZoneModel *m, uint64_t lba,
                             uint64_t len)
{
    uint32_t idx;

    return zr_zone_check_write(m, lba, len, &idx);
}

ZrResult zr_zone_write_begin(ZrZoneModel *m, uint64_t lba, uint64_t len,
                             ZrZoneIo *io)
{
    uint32_t idx = 0;
    ZrResult res = zr_zone_check_write(m, lba, len, &idx);
    ZrZone *z;

    if (io) {
        io->state = ZR_IO_IDLE;
    }
    if (res != ZR_OK) {
        trace_zr_err_zone_write(lba, len, zr_zone_range_ok(m, lba, len) ?
                                m->zones[idx].wp : 0, zr_result_name(res));
        return zr_zone_count(m, res);
    }
    z = &m->zones[idx];
    if (zr_zone_is_seq(z) && len) {
        zr_zone_advance(m, z, len, io);
    }
    m->stats.writes++;
    m->stats.blocks_written += len;
    trace_zr_zone_write(lba, len, idx, z->wp);
    return ZR_OK;
}

ZrResult zr_zone_write(ZrZoneModel *m, uint64_t lba, uint64_t len)
{
    return zr_zone_write_begin(m, lba, len, NULL);
}

/*
 * Zone append (ZNS 1.1): @zslba must be the start of a sequential zone;
 * the data goes at the write pointer, which is returned in *@lba_out.
 * The zone condition, boundary and resource rules are those of a write.
 */
ZrResult zr_zone_append_begin(ZrZoneModel *m, uint64_t zslba, uint64_t len,
                              uint64_t *lba_out, ZrZoneIo *io)
{
    ZrResult res;
    ZrZone *z = NULL;

    if (io) {
        io->state = ZR_IO_IDLE;
    }
    if (zslba >= m->cfg.nr_blocks) {
        res = ZR_ERR_LBA_OUT_OF_RANGE;
    } else if (zslba & (m->cfg.zone_size - 1)) {
        res = ZR_ERR_NOT_ZONE_START;
    } else {
        z = zr_zone_at(m, zslba);
        if (!zr_zone_is_seq(z)) {
            res = ZR_ERR_CONVENTIONAL;
        } else if (z->cond == ZR_COND_OFFLINE) {
            res = ZR_ERR_OFFLINE;
        } else if (z->cond == ZR_COND_READ_ONLY) {
            res = ZR_ERR_READ_ONLY;
        } else if (z->cond == ZR_COND_FULL) {
            res = ZR_ERR_ZONE_FULL;
        } else if (len > z->start + z->cap - z->wp) {
            res = ZR_ERR_BOUNDARY;
        } else {
            res = zr_zone_check_resources(m, z);
        }
    }
    if (res != ZR_OK) {
        trace_zr_err_zone_append(zslba, len, zr_result_name(res));
        return zr_zone_count(m, res);
    }

    *lba_out = z->wp;
    if (len) {
        zr_zone_advance(m, z, len, io);
    }
    m->stats.appends++;
    m->stats.blocks_written += len;
    trace_zr_zone_append(zslba, len, *lba_out, z->wp);
    return ZR_OK;
}

ZrResult zr_zone_append(ZrZoneModel *m, uint64_t zslba, uint64_t len,
                        uint64_t *lba_out)
{
    return zr_zone_append_begin(m, zslba, len, lba_out, NULL);
}

/*
 * ------------------------------------------------------------------------
 * Writes in flight
 */

/* @io left its zone's list with its data still moving: an orphan. */
static void zr_zone_orphan_begin(ZrZoneModel *m, ZrZoneIo *io)
{
    m->orphans[io->zone]++;
    m->nr_orphans++;
}

/*
 * The transfer of an orphaned write (zr_zone_orphaned()) is over.  The
 * model may be gone already (a write that outlived the device's cleanup).
 */
static void zr_zone_orphan_end(ZrZoneModel *m, ZrZoneIo *io)
{
    if (m->orphans) {
        assert(m->orphans[io->zone] && m->nr_orphans);
        m->orphans[io->zone]--;
        m->nr_orphans--;
    }
    io->state = ZR_IO_IDLE;
}

static void zr_zone_io_unlink(ZrZoneModel *m, ZrZoneIo *io)
{
    QTAILQ_REMOVE(&m->in_flight[io->zone], io, link);
    m->nr_io--;
}

void zr_zone_set_io_done(ZrZoneModel *m, ZrZoneIoDoneFn *fn, void *opaque)
{
    m->io_done = fn;
    m->io_done_opaque = opaque;
}

/* Report the held writes moved to @list, now that the model is consistent. */
static void zr_zone_report_held(ZrZoneModel *m, ZrZoneIoList *list,
                                ZrResult res)
{
    ZrZoneIo *io;

    while ((io = QTAILQ_FIRST(list))) {
        QTAILQ_REMOVE(list, io, link);
        io->state = ZR_IO_IDLE;
        if (res != ZR_OK) {
            zr_zone_count(m, res);
        }
        if (trace_event_get_state_backends(TRACE_ZR_ZONE_WRITE_REPORT)) {
            trace_zr_zone_write_report(io->zone, io->lba, io->len,
                                       zr_result_name(res));
        }
        m->io_done(io, res, m->io_done_opaque);
    }
}

/*
 * Zone @idx was reset, finished or made READ ONLY / OFFLINE, or the model
 * was formatted or restored: what its writes in flight would have done to
 * the write pointer is moot.  They end as having happened before; those
 * held back are reported done.
 */
void zr_zone_detach(ZrZoneModel *m, uint32_t idx)
{
    ZrZoneIoList held = QTAILQ_HEAD_INITIALIZER(held);
    ZrZoneIo *io;

    while ((io = QTAILQ_FIRST(&m->in_flight[idx]))) {
        zr_zone_io_unlink(m, io);
        if (io->state == ZR_IO_DONE) {
            QTAILQ_INSERT_TAIL(&held, io, link);
        } else {
            io->state = ZR_IO_DETACHED;
            zr_zone_orphan_begin(m, io);
        }
    }
    zr_zone_report_held(m, &held, ZR_OK);
}

/*
 * The data of @io did not reach the medium: the write pointer goes back to
 * where it started, as on a drive that failed the media write and never
 * advanced.  Every later write of the zone started at a write pointer this
 * one moved; on a drive they would have arrived off the write pointer, so
 * they are overtaken and end as UNALIGNED WRITE (at once if their data is
 * already written and they were held, else when it is).  A zone that was
 * FULL only because of the writes in flight is open again (taking an open
 * resource if one can be had, else CLOSED); one at its start again is
 * EMPTY unless the host opened it explicitly.
 */
static void zr_zone_write_rollback(ZrZoneModel *m, ZrZoneIo *io)
{
    ZrZone *z = &m->zones[io->zone];
    ZrZoneIoList held = QTAILQ_HEAD_INITIALIZER(held);
    ZrZoneIo *later;

    while ((later = QTAILQ_NEXT(io, link))) {
        zr_zone_io_unlink(m, later);
        m->stats.writes_overtaken++;
        if (later->state == ZR_IO_DONE) {
            QTAILQ_INSERT_TAIL(&held, later, link);
        } else {
            later->state = ZR_IO_OVERTAKEN;
            zr_zone_orphan_begin(m, later);
        }
    }
    zr_zone_io_unlink(m, io);
    m->stats.write_failures++;
    trace_zr_zone_write_rollback(io->zone, z->wp, io->lba);
    z->wp = io->lba;
    z->wend = MIN(z->wend, z->wp);
    zr_zone_touch(m, io->zone);

    if (z->cond == ZR_COND_FULL) {
        zr_zone_assign_cond(m, z, ZR_COND_CLOSED);
        if (z->wp != z->start &&
            zr_zone_check_resources(m, z) == ZR_OK) {
            zr_zone_make_room(m, z);
            zr_zone_assign_cond(m, z, ZR_COND_IMP_OPEN);
        }
    }
    if (z->wp == z->start &&
        (z->cond == ZR_COND_IMP_OPEN || z->cond == ZR_COND_CLOSED)) {
        zr_zone_assign_cond(m, z, ZR_COND_EMPTY);
    }
    zr_zone_report_held(m, &held, ZR_ERR_UNALIGNED_WRITE);
}

/*
 * The data transfer of a write begun with zr_zone_write_begin() (or an
 * append) is over; @ok says whether the data is on the medium.  Returns
 * what to report for it now:
 *  - ZR_OK: done (the caller reports its own transfer error, if any);
 *  - ZR_ERR_UNALIGNED_WRITE: an earlier write of its zone failed (see
 *    zr_zone_write_rollback()); its data lies above the write pointer and
 *    must be reported as not written;
 *  - ZR_WAIT: written, but an earlier write of the zone is still moving;
 *    the model calls the io_done callback when it may be reported.
 * Writes that were held and may now be reported go to the callback before
 * this returns.
 */
ZrResult zr_zone_write_end(ZrZoneModel *m, ZrZoneIo *io, bool ok)
{
    ZrZoneIoList *list;
    ZrZoneIoList held = QTAILQ_HEAD_INITIALIZER(held);
    ZrZoneIo *next;

    switch (io->state) {
    case ZR_IO_IN_FLIGHT:
        break;
    case ZR_IO_OVERTAKEN:
        trace_zr_zone_write_overtaken(io->zone, io->lba, io->len);
        zr_zone_orphan_end(m, io);
        return zr_zone_count(m, ZR_ERR_UNALIGNED_WRITE);
    case ZR_IO_DONE:
        /* Only ever set here; a second end of one write is a bug. */
        g_assert_not_reached();
    case ZR_IO_DETACHED:
        zr_zone_orphan_end(m, io);
        return ZR_OK;
    default:
        io->state = ZR_IO_IDLE;
        return ZR_OK;
    }

    list = &m->in_flight[io->zone];
    trace_zr_zone_write_end(io->zone, io->lba, io->len, ok);
    if (!ok) {
        zr_zone_write_rollback(m, io);
        io->state = ZR_IO_IDLE;
        return ZR_OK;
    }
    if (io != QTAILQ_FIRST(list)) {
        assert(m->io_done);
        io->state = ZR_IO_DONE;
        return ZR_WAIT;
    }
    zr_zone_io_unlink(m, io);
    io->state = ZR_IO_IDLE;
    while ((next = QTAILQ_FIRST(list)) && next->state == ZR_IO_DONE) {
        zr_zone_io_unlink(m, next);
        QTAILQ_INSERT_TAIL(&held, next, link);
    }
    zr_zone_touch(m, io->zone);
    if (!QTAILQ_EMPTY(&held)) {
        zr_zone_report_held(m, &held, ZR_OK);
    }
    return ZR_OK;
}

/*
 * The front-end drops a write it began (its request is freed, e.g. after
 * an abort) without waiting for zr_zone_write_end() or the io_done call.
 * Only a held write (data written) can be dropped; one still moving holds
 * its request until its transfer ends.
 */
void zr_zone_write_forget(ZrZoneModel *m, ZrZoneIo *io)
{
    if (io->state == ZR_IO_DONE) {
        zr_zone_io_unlink(m, io);
    } else if (io->state == ZR_IO_OVERTAKEN || io->state == ZR_IO_DETACHED) {
        zr_zone_orphan_end(m, io);
    } else {
        assert(io->state != ZR_IO_IN_FLIGHT);
    }
    io->state = ZR_IO_IDLE;
}

/* zr_zone_orphaned() once some zone has orphaned writes */
bool zr_zone_orphaned_slow(const ZrZoneModel *m, uint64_t lba)
{
    uint32_t idx;

    if (lba == UINT64_MAX) {
        return true;
    }
    if (lba >= m->cfg.nr_blocks) {
        return false;
    }
    idx = lba >> m->zone_shift;
    return idx < m->nr_zones && m->orphans[idx];
}

/* Has zone @idx no write in flight? */
bool zr_zone_idle(const ZrZoneModel *m, uint32_t idx)
{
    return QTAILQ_EMPTY(&m->in_flight[idx]);
}

/*
 * Zone @idx as it stands on the medium: the write pointer stops at the
 * first write still in flight (every block below it was written), and a
 * zone FULL only because of writes in flight is not.  Conditions are kept
 * otherwise: an open zone is stored open, power-on closes it.
 */
void zr_zone_committed(const ZrZoneModel *m, uint32_t idx, ZrZone *out)
{
    const ZrZoneIo *first = QTAILQ_FIRST(&m->in_flight[idx]);

    *out = m->zones[idx];
    if (!first) {
        return;
    }
    out->wp = first->lba;
    out->wend = MIN(out->wend, out->wp);
    if (out->cond == ZR_COND_FULL) {
        out->cond = out->wp == out->start ? ZR_COND_EMPTY : ZR_COND_CLOSED;
    } else if (out->wp == out->start &&
               (out->cond == ZR_COND_IMP_OPEN ||
                (out->cond == ZR_COND_CLOSED &&
                 m->cfg.flavour == ZR_FLAVOUR_ZBC))) {
        /* ZBC-2 has no CLOSED zone with nothing written. */
        out->cond = ZR_COND_EMPTY;
    }
}

/*
 * Error injection: make the zone containing @lba READ ONLY or OFFLINE, as
 * media failures do (ZBC-2 ZC6/ZC7, ZNS ZSRO/ZSO).  Resources held by the
 * zone are given back.  OFFLINE is final; READ ONLY can still go OFFLINE.
 */
static ZrResult zr_zone_inject(ZrZoneModel *m, uint64_t lba, ZrZoneCond cond)
{
    ZrZone *z = zr_zone_at(m, lba);

    if (!z) {
        return ZR_ERR_LBA_OUT_OF_RANGE;
    }
    if (!zr_zone_is_seq(z)) {
        return ZR_ERR_CONVENTIONAL;
    }
    if (z->cond == ZR_COND_OFFLINE) {
        return z->cond == cond ? ZR_OK : ZR_ERR_OFFLINE;
    }
    zr_zone_detach(m, zr_zone_index(m, z));
    zr_zone_assign_cond(m, z, cond);
    return ZR_OK;
}

ZrResult zr_zone_set_read_only(ZrZoneModel *m, uint64_t lba)
{
    return zr_zone_inject(m, lba, ZR_COND_READ_ONLY);
}

ZrResult zr_zone_set_offline(ZrZoneModel *m, uint64_t lba)
{
    return zr_zone_inject(m, lba, ZR_COND_OFFLINE);
}

/*
 * ------------------------------------------------------------------------
 * Writes in flight across migration
 */

/*
 * Migration: put back a write that was on its zone's list when the state
 * was saved, after the zone array was restored (zr_zone_model_post_load()
 * leaves every list empty).  After the drain that precedes a save, such a
 * write is one stopped on a host error and waiting for the VM to resume
 * (ZR_IO_IN_FLIGHT: its data must be written again), or one written
 * behind it and held (ZR_IO_DONE).  @io carries the saved lba, len and
 * state; the zone's saved write pointer already covers it.  Writes may
 * come back in any order: each goes to its place by LBA, and
 * zr_zone_write_restore_check() checks the lists once all are back.
 * Other states are not on a list and need nothing.  The stream is input
 * we do not trust: what cannot have been saved is refused.
 */
bool zr_zone_write_restore(ZrZoneModel *m, ZrZoneIo *io, Error **errp)
{
    ZrZone *z;
    ZrZoneIo *at, *prev;
    uint32_t idx;

    if (io->state == ZR_IO_OVERTAKEN || io->state == ZR_IO_DETACHED) {
        /* Off the list, but its data is still to be written: an orphan. */
        z = zr_zone_at(m, io->lba);
        if (!z) {
            error_setg(errp, "write at %" PRIu64 " beyond the device",
                       io->lba);
            return false;
        }
        io->zone = zr_zone_index(m, z);
        zr_zone_orphan_begin(m, io);
        return true;
    }
    if (io->state != ZR_IO_IN_FLIGHT && io->state != ZR_IO_DONE) {
        if (io->state != ZR_IO_IDLE) {
            error_setg(errp, "write at %" PRIu64 ": bad state %u", io->lba,
                       io->state);
            return false;
        }
        return true;
    }
    z = zr_zone_at(m, io->lba);
    if (!io->len || !z || !zr_zone_is_seq(z) ||
        io->len > z->wp - MIN(z->wp, io->lba) || io->lba < z->start) {
        error_setg(errp, "write of %" PRIu64 " blocks at %" PRIu64 " is not "
                   "below its zone's write pointer", io->len, io->lba);
        return false;
    }
    idx = zr_zone_index(m, z);
    io->zone = idx;
    QTAILQ_FOREACH(at, &m->in_flight[idx], link) {
        if (at->lba >= io->lba) {
            break;
        }
    }
    prev = at ? QTAILQ_PREV(at, link) : QTAILQ_LAST(&m->in_flight[idx]);
    if ((at && at->lba < io->lba + io->len) ||
        (prev && prev->lba + prev->len > io->lba)) {
        error_setg(errp, "writes in flight at %" PRIu64 " overlap",
                   io->lba);
        return false;
    }
    if (at) {
        QTAILQ_INSERT_BEFORE(at, io, link);
    } else {
        QTAILQ_INSERT_TAIL(&m->in_flight[idx], io, link);
    }
    m->nr_io++;
    set_bit(idx, m->dirty);
    return true;
}

/*
 * Once every write is back: each zone's list must lie below the write
 * pointer and start with a write whose data still has to be written (a
 * held write first in line would have been reported).  The writes need
 * not follow each other without a gap: a held write that the HBA cancelled
 * is not saved, though its data is written and the write pointer covers
 * it, as on the source.
 */
bool zr_zone_write_restore_check(ZrZoneModel *m, Error **errp)
{
    uint32_t i;

    for (i = 0; i < m->nr_zones; i++) {
        ZrZoneIo *io, *first = QTAILQ_FIRST(&m->in_flight[i]);
        uint64_t end;

        if (!first) {
            continue;
        }
        if (first->state != ZR_IO_IN_FLIGHT) {
            error_setg(errp, "zone %u: the first write in flight is done", i);
            return false;
        }
        end = first->lba;
        QTAILQ_FOREACH(io, &m->in_flight[i], link) {
            end = io->lba + io->len;
        }
        if (end > m->zones[i].wp) {
            error_setg(errp, "zone %u: writes in flight end at %" PRIu64
                       ", the write pointer is %" PRIu64, i, end,
                       m->zones[i].wp);
            return false;
        }
    }
    return true;
}

/*
 * A load failed after some writes were restored: take them all off their
 * lists again, reporting nothing (the device state is not usable; the
 * requests are freed with it).  Restored orphans (OVERTAKEN, DETACHED) are
 * not on a list: the device forgets each (zr_zone_write_forget()).
 */
void zr_zone_write_restore_abort(ZrZoneModel *m)
{
    uint32_t i;
    ZrZoneIo *io;

    for (i = 0; i < m->nr_zones; i++) {
        while ((io = QTAILQ_FIRST(&m->in_flight[i]))) {
            zr_zone_io_unlink(m, io);
            io->state = ZR_IO_IDLE;
        }
    }
}
