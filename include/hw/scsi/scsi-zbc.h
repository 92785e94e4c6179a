/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: a host-managed zoned block device (ZBC-2, peripheral device
 * type 14h) on any QEMU SCSI bus: virtio-scsi, ufs-zoned, or another HBA.
 *
 * The zones are the zoned-reorder core's (hw/block/zoned-reorder): this
 * device parses CDBs, presents the core's zones the ZBC-2 way (gap zones
 * when the zone capacity is below the zone size), maps the core's results
 * to sense data, and moves data through its BlockBackend.  Without a drive
 * it is null-backed: reads return zeros, writes are discarded.
 *
 * User documentation: docs/system/devices/scsi-zbc.rst.
 */

#ifndef HW_SCSI_SCSI_ZBC_H
#define HW_SCSI_SCSI_ZBC_H

#include "qemu/units.h"
#include "hw/scsi/scsi.h"
#include "hw/block/zoned-reorder/zone.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "hw/block/zoned-reorder/vclock-hold.h"
#include "hw/block/zoned-reorder/zone-persist.h"

#define TYPE_SCSI_ZBC "scsi-zbc"
typedef struct ZbcReq ZbcReq;   /* a request (hw/scsi/zbc/zbc-internal.h) */
OBJECT_DECLARE_SIMPLE_TYPE(ZbcState, SCSI_ZBC)

/* Property defaults (documented in docs/system/devices/scsi-zbc.rst). */
#define ZBC_DEFAULT_NULL_SIZE   (1 * GiB)   /* capacity without a drive */
#define ZBC_DEFAULT_BLOCK_SIZE  4096
#define ZBC_DEFAULT_ZONE_SIZE   (4 * MiB)
#define ZBC_DEFAULT_CONV_ZONES  1

/*
 * MAXIMUM TRANSFER LENGTH reported in the Block Limits VPD page; longer
 * READ/WRITE commands are refused (SBC-4).  Data goes through one buffer
 * per command, so this also bounds the memory a command can pin.
 */
#define ZBC_MAX_XFER_BYTES      (2 * MiB)

struct ZbcState {
    SCSIDevice qdev;

    /* Properties (the logical block size is qdev.conf.logical_block_size) */
    uint64_t size;              /* bytes; 0 = the drive's size */
    uint64_t zone_size;         /* bytes */
    uint64_t zone_cap;          /* bytes; 0 = zone_size */
    uint32_t conv_zones;
    uint32_t max_open;          /* 0 = no limit */
    bool urswrz;                /* unrestricted reads (VPD B6 URSWRZ) */
    char *serial;
    ZrPolicy policy;            /* start order of medium commands */
    uint64_t seed;              /* for the `random` policy */
    BlockBackend *zs_blk;       /* zone-state: drive holding zone state */
    bool zs_format;             /* zone-state-format: format it anew */

    /* Derived at realize */
    bool null_backed;           /* no drive: reads zero, writes discarded */
    char *lu_name;              /* VPD 83h T10 vendor ID name (zbc-inquiry.c) */
    uint64_t nr_blocks;
    uint32_t block_size;
    uint32_t pb_blocks;         /* physical block, in logical blocks */
    uint32_t max_xfer_blocks;
    uint32_t zone_blocks;       /* zone size in blocks */

    /* Run-time state */
    bool wce;                   /* Caching mode page WCE */
    bool wce_default;           /* ... as the drive was configured */
    bool stopped;               /* START STOP UNIT with START = 0 */
    bool draining;              /* zbc_start_pending() is running */
    unsigned quiesced;          /* drained sections of the drive */
    ZrZoneModel zones;
    ZrDispatch dispatch;
    QEMUBH *start_bh;
    bool start_pending;         /* start_bh scheduled, not run yet */
    ZrVclockHold vclock;        /* icount: guest time waits for start_bh */
    ZrZonePersist persist;      /* zone state on zs_blk (persist.blk) */
    VMChangeStateEntry *vmse;   /* stop: zone state; run: parked resume */
    QTAILQ_HEAD(, ZbcReq) parked;   /* stopped on a backend error */
    QTAILQ_HEAD(, ZbcReq) zone_op_wait; /* ZBC OUT behind writes in flight */
    bool zone_op_kicking;
    uint64_t zone_op_waits;     /* ZBC OUT that waited for writes */
    QTAILQ_HEAD(, ZbcReq) orphan_wait;  /* writes behind orphaned I/O */
    bool orphan_kicking;
    uint64_t orphan_waits;      /* writes that waited for orphaned I/O */
    QEMUBH *resume_bh;
    bool mig_restart;           /* loaded commands to run again at start */
};

/*
 * For an HBA that migrates its requests: what @req, a request of an LU
 * loaded on the migration destination, does when the VM runs.
 */
typedef enum ScsiZbcResume {
    SCSI_ZBC_RESUME_OTHER,      /* not a request of a scsi-zbc LU */
    SCSI_ZBC_RESUME_RESTART,    /* runs again from its start: its data
                                   moves again from the first byte */
    SCSI_ZBC_RESUME_CONTINUE,   /* goes on: all its data has moved */
} ScsiZbcResume;

ScsiZbcResume scsi_zbc_req_resume(SCSIRequest *req);

#endif
