/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the zone model.
 *
 * One model serves both ZBC-2 (SCSI host-managed) and ZNS 1.1 (NVMe zoned
 * namespaces).  It owns zone geometry, zone types and conditions, write
 * pointers, zone capacity and open/active resource accounting with
 * implicit close.  It knows nothing of CDBs or SQEs: every operation
 * returns a ZrResult that the front-end maps to its sense data or status.
 * The few places where ZBC-2 and ZNS disagree are selected by
 * ZrZoneFlavour (see docs/devel/zoned-reorder.md, "Flavour differences").
 *
 * All LBAs and lengths are in logical blocks of the front-end's choosing.
 * None of these functions is thread-safe; callers hold the BQL (or their
 * AioContext lock) as for any device state.
 */

#ifndef HW_BLOCK_ZONED_REORDER_ZONE_H
#define HW_BLOCK_ZONED_REORDER_ZONE_H

#include "qemu/iov.h"
#include "qemu/queue.h"

/*
 * Zone type.  Values are stable: they are stored in ZrZone.type and so
 * become part of any saved state.
 */
typedef enum ZrZoneType {
    ZR_ZONE_TYPE_CONVENTIONAL = 1,
    ZR_ZONE_TYPE_SEQ_WRITE_REQUIRED = 2,
} ZrZoneType;

/*
 * Zone condition.  The values equal both the ZBC-2 ZONE CONDITION field
 * encoding and the ZNS Zone State (ZS) encoding, which agree; they are
 * stable (stored in ZrZone.cond).  A front-end should still map them
 * explicitly rather than rely on the coincidence.
 */
typedef enum ZrZoneCond {
    ZR_COND_NOT_WP = 0x0,       /* conventional zone: no write pointer */
    ZR_COND_EMPTY = 0x1,        /* ZBC ZC1:Empty, ZNS ZSE */
    ZR_COND_IMP_OPEN = 0x2,     /* ZBC ZC2:Implicit_Open, ZNS ZSIO */
    ZR_COND_EXP_OPEN = 0x3,     /* ZBC ZC3:Explicit_Open, ZNS ZSEO */
    ZR_COND_CLOSED = 0x4,       /* ZBC ZC4:Closed, ZNS ZSC */
    ZR_COND_READ_ONLY = 0xd,    /* ZBC ZC6:Read_Only, ZNS ZSRO */
    ZR_COND_FULL = 0xe,         /* ZBC ZC5:Full, ZNS ZSF */
    ZR_COND_OFFLINE = 0xf,      /* ZBC ZC7:Offline, ZNS ZSO */
} ZrZoneCond;

/* Which standard's rules apply where ZBC-2 and ZNS 1.1 differ. */
typedef enum ZrZoneFlavour {
    ZR_FLAVOUR_ZBC = 0,
    ZR_FLAVOUR_ZNS = 1,
} ZrZoneFlavour;

/*
 * Generic result of a zone operation.  Each names the cause, not a
 * transport status; the front-end picks the status per command (e.g.
 * ZR_ERR_READ_ONLY is "ZONE IS READ ONLY" for a SCSI write but "Zone
 * Invalid State Transition" for an NVMe Zone Management Send).
 */
typedef enum ZrResult {
    ZR_OK = 0,
    ZR_ERR_LBA_OUT_OF_RANGE,    /* LBA or LBA + length beyond the device */
    ZR_ERR_NOT_ZONE_START,      /* zone op / append LBA is not a zone start */
    ZR_ERR_CONVENTIONAL,        /* zone op or append on a conventional zone */
    ZR_ERR_UNALIGNED_WRITE,     /* write LBA != write pointer */
    ZR_ERR_BOUNDARY,            /* access crosses the zone (capacity) end */
    ZR_ERR_ZONE_FULL,           /* write or append to a FULL zone */
    ZR_ERR_READ_ONLY,           /* zone is READ ONLY */
    ZR_ERR_OFFLINE,             /* zone is OFFLINE */
    ZR_ERR_NO_OPEN_RESOURCE,    /* max open reached, nothing to close */
    ZR_ERR_NO_ACTIVE_RESOURCE,  /* max active reached */
    ZR_ERR_INVALID_TRANSITION,  /* op not allowed from this condition */
    ZR_ERR_READ_BEYOND_WP,      /* checked read above the write pointer */
    ZR_ERR_GAP,                 /* access in [capacity, size) of a zone */
    ZR_WAIT,                    /* not an error: reported later (ZrZoneIo) */
    ZR_RESULT__MAX
} ZrResult;

/* Zone management operations (ZBC OUT service actions, ZNS ZSA values). */
typedef enum ZrZoneOp {
    ZR_ZONE_OP_OPEN,
    ZR_ZONE_OP_CLOSE,
    ZR_ZONE_OP_FINISH,
    ZR_ZONE_OP_RESET,
    ZR_ZONE_OP__MAX
} ZrZoneOp;

/*
 * Report filters: the union of ZBC-2 REPORT ZONES reporting options and
 * NVMe ZNS Zone Receive Action Specific Field values.  The front-end maps
 * its field to one of these; gap zones are the ZBC front-end's business
 * (see zr_zone_report_next()).
 */
typedef enum ZrReportFilter {
    ZR_REPORT_ALL,
    ZR_REPORT_EMPTY,
    ZR_REPORT_IMP_OPEN,
    ZR_REPORT_EXP_OPEN,
    ZR_REPORT_CLOSED,
    ZR_REPORT_FULL,
    ZR_REPORT_READ_ONLY,
    ZR_REPORT_OFFLINE,
    ZR_REPORT_INACTIVE,         /* ZBC-2 zone domains: never matches */
    ZR_REPORT_RWP_RECOMMENDED,  /* never matches: no background reset */
    ZR_REPORT_NON_SEQ,          /* never matches: no non-seq resources */
    ZR_REPORT_NOT_WP,           /* conventional zones */
    ZR_REPORT__MAX
} ZrReportFilter;

/* Flags for zr_zone_read_check(); 0 = URSWRZ=1, reads allowed anywhere. */
enum {
    ZR_READ_CHECK_WP = 1 << 0,       /* no read above a zone's write pointer */
    ZR_READ_CHECK_BOUNDARY = 1 << 1, /* no read crossing a seq zone's end */
    ZR_READ_CHECK_GAP = 1 << 2,      /* no read in [capacity, size) */
    ZR_READ_CHECK_STRICT = ZR_READ_CHECK_WP | ZR_READ_CHECK_BOUNDARY |
                           ZR_READ_CHECK_GAP,
};

/* Geometry and limits, validated once by zr_zone_model_init(). */
typedef struct ZrZoneConfig {
    uint64_t nr_blocks;     /* device size in blocks */
    uint64_t zone_size;     /* blocks, power of two */
    uint64_t zone_cap;      /* writable blocks per seq zone; 0 = zone_size */
    uint32_t nr_conv;       /* conventional zones, at the start */
    uint32_t max_open;      /* 0 = unlimited */
    uint32_t max_active;    /* 0 = unlimited */
    ZrZoneFlavour flavour;
} ZrZoneConfig;

/*
 * One zone.  Fixed-width fields only, so the array can be described with
 * VMState or written to a metadata file as is.  start/size/cap are derived
 * from the geometry but kept so a report is a plain copy and a restored
 * array can be checked against the geometry (zr_zone_model_post_load()).
 */
typedef struct ZrZone {
    uint64_t start;         /* first LBA */
    uint64_t size;          /* blocks; only the last zone may be smaller */
    uint64_t cap;           /* writable blocks from start; <= size */
    uint64_t wp;            /* write pointer (LBA); start for conventional */
    /*
     * End of the blocks written since the zone was last reset, <= wp:
     * blocks from here up read as the initialization pattern.  Below wp
     * only after a FINISH, which moves wp without writing anything.
     */
    uint64_t wend;
    uint64_t lru;           /* stamp of last implicit open or write */
    uint8_t type;           /* ZrZoneType */
    uint8_t cond;           /* ZrZoneCond */
    uint8_t reserved[6];
} ZrZone;

/*
 * A write or append between its start and the moment it may be reported.
 * The front-end embeds one in each request; zr_zone_write_begin() checks
 * the command, moves the write pointer (so the next write of the zone is
 * checked against it, in start order) and links it to its zone;
 * zr_zone_write_end() says whether the data reached the medium.
 *
 * A write is reported done only once every earlier write of its zone is:
 * a drive writes a zone in order, so a write completing while an earlier
 * one is still in flight waits (ZR_IO_DONE), and if the earlier one fails
 * it never happened (UNALIGNED WRITE).  So no write is reported that the
 * write pointer does not cover.  While a zone has writes in flight its
 * *committed* state (zr_zone_committed(), what persistence stores) stops
 * at the first of them: everything below is data that was written.
 */
typedef enum ZrZoneIoState {
    ZR_IO_IDLE = 0,         /* not tracked (conventional zone, no blocks) */
    ZR_IO_IN_FLIGHT,        /* on its zone's list, data moving */
    ZR_IO_DONE,             /* on the list, data written, earlier one moving */
    ZR_IO_OVERTAKEN,        /* an earlier write of the zone failed */
    ZR_IO_DETACHED,         /* the zone was reset, finished or failed since */
} ZrZoneIoState;

typedef struct ZrZoneIo {
    QTAILQ_ENTRY(ZrZoneIo) link;
    uint64_t lba;
    uint64_t len;
    uint32_t zone;
    uint8_t state;          /* ZrZoneIoState */
} ZrZoneIo;

typedef QTAILQ_HEAD(, ZrZoneIo) ZrZoneIoList;

/* A read whose backend I/O is in flight (zr_zone_read_begin()) */
#define ZR_READ_INLINE_ZONES 2

typedef struct ZrZoneRead {
    uint64_t lba;
    uint64_t len;
    /* per zone spanned, its landed data's end: here, or in heap if more */
    uint64_t inline_end[ZR_READ_INLINE_ZONES];
    uint64_t *heap;
    uint32_t nr;            /* zones spanned; 0: no read begun */
} ZrZoneRead;

/*
 * A write that zr_zone_write_end() held back (ZR_WAIT) may now be
 * reported: @res is ZR_OK or ZR_ERR_UNALIGNED_WRITE.  Called from inside
 * zr_zone_write_end() of another write or a zone operation, once the
 * model is consistent again.
 */
typedef void ZrZoneIoDoneFn(ZrZoneIo *io, ZrResult res, void *opaque);

typedef struct ZrZoneStats {
    uint64_t writes;            /* successful writes (incl. conventional) */
    uint64_t appends;           /* successful appends */
    uint64_t blocks_written;
    uint64_t implicit_opens;
    uint64_t implicit_closes;   /* implicitly open zones closed for a slot */
    uint64_t write_failures;    /* writes whose data transfer failed */
    uint64_t writes_overtaken;  /* started behind a write that then failed */
    uint64_t ops[ZR_ZONE_OP__MAX];  /* successful zone management ops */
    uint64_t errors[ZR_RESULT__MAX];    /* every non-ZR_OK result returned */
} ZrZoneStats;

typedef struct ZrZoneModel {
    ZrZoneConfig cfg;       /* zone_cap resolved (never 0) */
    uint32_t nr_zones;
    unsigned zone_shift;    /* log2(zone_size) */
    ZrZone *zones;

    /* Resource accounting, derived from zones[].cond. */
    uint32_t nr_imp_open;
    uint32_t nr_exp_open;
    uint32_t nr_closed;

    /*
     * The implicitly open zones, in no particular order, for implicit
     * close; imp_pos[z] is zone z's index in imp_open (valid only while z
     * is implicitly open).  Not saved: rebuilt from the zone array.
     */
    uint32_t *imp_open;
    uint32_t *imp_pos;
    uint64_t lru_clock;

    /* Writes in flight per zone, in start (= LBA) order.  Not saved. */
    ZrZoneIoList *in_flight;
    uint32_t nr_io;         /* ... on all the lists */
    /*
     * Per zone: writes taken off its list while their data was still
     * moving (overtaken by a failed earlier write, or detached), whose
     * transfer has not ended yet (zr_zone_orphaned()).  Not saved: a save
     * follows a drain.
     */
    uint32_t *orphans;
    uint32_t nr_orphans;    /* ... in all zones */
    ZrZoneIoDoneFn *io_done;
    void *io_done_opaque;

    /*
     * Zones whose committed state (zr_zone_committed()) may have changed
     * since the bit was last cleared: what a persistence layer must write.
     */
    unsigned long *dirty;

    ZrZoneStats stats;
} ZrZoneModel;

/* Geometry */
bool zr_zone_config_check(const ZrZoneConfig *cfg, Error **errp);
bool zr_zone_model_init(ZrZoneModel *m, const ZrZoneConfig *cfg,
                        Error **errp);
void zr_zone_model_cleanup(ZrZoneModel *m);
void zr_zone_model_format(ZrZoneModel *m);
bool zr_zone_model_post_load(ZrZoneModel *m, Error **errp);
void zr_zone_model_power_on(ZrZoneModel *m);

/* Lookup */
ZrZone *zr_zone_at(ZrZoneModel *m, uint64_t lba);

static inline uint32_t zr_zone_index(const ZrZoneModel *m, const ZrZone *z)
{
    return z - m->zones;
}

static inline bool zr_zone_is_seq(const ZrZone *z)
{
    return z->type == ZR_ZONE_TYPE_SEQ_WRITE_REQUIRED;
}

static inline uint32_t zr_zone_nr_open(const ZrZoneModel *m)
{
    return m->nr_imp_open + m->nr_exp_open;
}

static inline uint32_t zr_zone_nr_active(const ZrZoneModel *m)
{
    return m->nr_imp_open + m->nr_exp_open + m->nr_closed;
}

/* Zone management: one zone (@lba = its start) or, with @all, every zone */
ZrResult zr_zone_mgmt(ZrZoneModel *m, ZrZoneOp op, uint64_t lba, bool all);
/* EMPTY -> CLOSED with an active resource (ZNS Set Zone Descriptor Ext.) */
ZrResult zr_zone_activate(ZrZoneModel *m, uint64_t lba);

static inline ZrResult zr_zone_open(ZrZoneModel *m, uint64_t lba)
{
    return zr_zone_mgmt(m, ZR_ZONE_OP_OPEN, lba, false);
}

static inline ZrResult zr_zone_close(ZrZoneModel *m, uint64_t lba)
{
    return zr_zone_mgmt(m, ZR_ZONE_OP_CLOSE, lba, false);
}

static inline ZrResult zr_zone_finish(ZrZoneModel *m, uint64_t lba)
{
    return zr_zone_mgmt(m, ZR_ZONE_OP_FINISH, lba, false);
}

static inline ZrResult zr_zone_reset(ZrZoneModel *m, uint64_t lba)
{
    return zr_zone_mgmt(m, ZR_ZONE_OP_RESET, lba, false);
}

/*
 * I/O checks.  write and append commit at once (the data is taken as
 * written); the _begin variants track the write until zr_zone_write_end();
 * the _check variant changes nothing.
 */
ZrResult zr_zone_write_check(const ZrZoneModel *m, uint64_t lba,
                             uint64_t len);
ZrResult zr_zone_write(ZrZoneModel *m, uint64_t lba, uint64_t len);
ZrResult zr_zone_append(ZrZoneModel *m, uint64_t zslba, uint64_t len,
                        uint64_t *lba_out);
ZrResult zr_zone_write_begin(ZrZoneModel *m, uint64_t lba, uint64_t len,
                             ZrZoneIo *io);
ZrResult zr_zone_append_begin(ZrZoneModel *m, uint64_t zslba, uint64_t len,
                              uint64_t *lba_out, ZrZoneIo *io);
ZrResult zr_zone_write_end(ZrZoneModel *m, ZrZoneIo *io, bool ok);
void zr_zone_write_forget(ZrZoneModel *m, ZrZoneIo *io);
void zr_zone_set_io_done(ZrZoneModel *m, ZrZoneIoDoneFn *fn, void *opaque);
void zr_zone_committed(const ZrZoneModel *m, uint32_t idx, ZrZone *out);
bool zr_zone_idle(const ZrZoneModel *m, uint32_t idx);
bool zr_zone_orphaned_slow(const ZrZoneModel *m, uint64_t lba);

/*
 * Does the zone at @lba (any zone: UINT64_MAX) have orphaned writes:
 * overtaken or detached while their data was still moving, their transfer
 * not over?  Their data may still land, so a write into the zone must wait
 * for them, or the host could finish the orphan's transfer after the new
 * write's and put back what the guest rewrote (a drive finishes its media
 * writes in order).
 */
static inline bool zr_zone_orphaned(const ZrZoneModel *m, uint64_t lba)
{
    return m->nr_orphans && zr_zone_orphaned_slow(m, lba);
}
bool zr_zone_write_restore(ZrZoneModel *m, ZrZoneIo *io, Error **errp);
bool zr_zone_write_restore_check(ZrZoneModel *m, Error **errp);
void zr_zone_write_restore_abort(ZrZoneModel *m);
ZrResult zr_zone_read_check(const ZrZoneModel *m, uint64_t lba,
                            uint64_t len, unsigned flags);
/*
 * Reads (zone-read.c): the front-end calls zr_zone_read_begin() when it
 * issues a read's backend I/O and zr_zone_read_end() when that I/O ends,
 * with the data (NULL on failure: nothing to mask).  Blocks of sequential
 * zones that were not on the medium when the read began or when it ended
 * read as the initialization pattern, zeros, whatever the backend
 * returned.  A ZrZoneRead starts zeroed; begin and end pair up, and
 * zr_zone_read_release() frees one that will never end.
 */
void zr_zone_read_begin(const ZrZoneModel *m, ZrZoneRead *rd, uint64_t lba,
                        uint64_t len);
void zr_zone_read_end(const ZrZoneModel *m, ZrZoneRead *rd, uint8_t *buf,
                      uint32_t block_size);
void zr_zone_read_end_iov(const ZrZoneModel *m, ZrZoneRead *rd,
                          QEMUIOVector *qiov, uint32_t block_size);
static inline void zr_zone_read_release(ZrZoneRead *rd)
{
    if (rd->heap) {
        g_free(rd->heap);
        rd->heap = NULL;
    }
    rd->nr = 0;
}

/* Test and debug hooks (error injection) */
ZrResult zr_zone_set_read_only(ZrZoneModel *m, uint64_t lba);
ZrResult zr_zone_set_offline(ZrZoneModel *m, uint64_t lba);

/* Report */
bool zr_zone_filter_match(const ZrZone *z, ZrReportFilter filter);
uint32_t zr_zone_report_next(const ZrZoneModel *m, uint32_t from,
                             ZrReportFilter filter);
uint32_t zr_zone_report_count(const ZrZoneModel *m, uint32_t from,
                              ZrReportFilter filter);

#define ZR_ZONE_FOREACH_MATCH(m, i, from, filter)                  \
    for ((i) = zr_zone_report_next((m), (from), (filter));         \
         (i) < (m)->nr_zones;                                      \
         (i) = zr_zone_report_next((m), (i) + 1, (filter)))

/* Names, for traces, QOM and messages */
const char *zr_zone_cond_name(ZrZoneCond cond);
const char *zr_zone_op_name(ZrZoneOp op);
const char *zr_result_name(ZrResult res);

#endif
