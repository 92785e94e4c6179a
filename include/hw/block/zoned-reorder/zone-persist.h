/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: zone state kept on a drive of its own, so that it
 * survives a restart and a crash (docs/devel/zone-state.md has the on-disk
 * format and the guarantees).
 *
 * A front-end opens it at realize (zr_persist_open(): load, or format a
 * fresh drive), asks for a sync whenever its standard says data and zone
 * state must be durable (a cache flush, a FUA write, a zone operation) and
 * once more when the VM stops (zr_persist_sync_now()).  A sync takes the
 * committed zone state (zr_zone_committed()) of the zones marked dirty,
 * flushes the data drive, writes the changed table blocks into their other
 * copy with the next generation, and flushes the state drive: so the state
 * on disk never claims data that is not on the data drive.
 *
 * It knows nothing of SCSI or NVMe; it runs under the BQL in the main
 * AioContext.
 */

#ifndef HW_BLOCK_ZONED_REORDER_ZONE_PERSIST_H
#define HW_BLOCK_ZONED_REORDER_ZONE_PERSIST_H

#include "qemu/queue.h"
#include "hw/block/zoned-reorder/zone.h"

/* The unit of the state drive: superblock and table block copies. */
#define ZR_PERSIST_BLOCK        4096

typedef void ZrPersistCb(void *opaque, int ret);

typedef struct ZrPersistWaiter {
    ZrPersistCb *cb;
    void *opaque;
    QSIMPLEQ_ENTRY(ZrPersistWaiter) next;
} ZrPersistWaiter;

typedef struct ZrPersistStats {
    uint64_t syncs;             /* rounds run */
    uint64_t blocks_written;    /* table block copies written */
    uint64_t errors;            /* rounds that failed */
} ZrPersistStats;

typedef struct ZrZonePersist {
    BlockBackend *blk;          /* the state drive; NULL: not persistent */
    BlockBackend *data;         /* flushed before the state is written */
    ZrZoneModel *m;
    uint32_t block_size;        /* the data drive's logical block */
    uint32_t per_block;         /* zone entries per table block */
    uint32_t nr_tblocks;
    uint64_t *gen;              /* per table block: generation on disk */
    uint8_t *slot;              /* ... and the copy (0/1) holding it */
    uint8_t *loaded_cond;       /* while loading: conditions as saved */
    bool running;               /* a sync coroutine is active */
    bool rescan;                /* the copies on the drive are unknown */
    QSIMPLEQ_HEAD(, ZrPersistWaiter) waiting;
    ZrPersistStats stats;
} ZrZonePersist;

/*
 * Load the zone state of @m from @blk (checking it against @m's geometry
 * and @block_size, then applying the power-on rule), or format @blk when
 * it is fresh (all zeros) or @format is set.  @data is the data drive.
 */
bool zr_persist_open(ZrZonePersist *p, ZrZoneModel *m, BlockBackend *blk,
                     BlockBackend *data, uint32_t block_size, bool format,
                     bool incoming, Error **errp);
/*
 * A front-end's zone-state=DRIVE: check @zs (a medium, the main
 * AioContext), take write permission on it and zr_persist_open() it,
 * knowing whether an incoming migration brings the state.
 */
bool zr_persist_attach(ZrZonePersist *p, ZrZoneModel *m, BlockBackend *zs,
                       BlockBackend *data, uint32_t block_size, bool format,
                       Error **errp);
void zr_persist_invalidate(ZrZonePersist *p);
void zr_persist_close(ZrZonePersist *p);

/* Make data and zone state durable; @cb runs when they are (or failed). */
void zr_persist_sync(ZrZonePersist *p, ZrPersistCb *cb, void *opaque);

/* The same, waiting for it (VM stop, unplug); returns 0 or -errno. */
int zr_persist_sync_now(ZrZonePersist *p);

/* Bytes the state drive needs for @m. */
uint64_t zr_persist_size(const ZrZoneModel *m);

#endif
