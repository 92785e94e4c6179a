/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc internals shared by its files.  Who owns what:
 *
 *   scsi-zbc.c     QOM type, properties, realize/reset, the command table
 *                  (one entry per opcode and service action: CDB usage map,
 *                  handlers) and the SCSIReqOps every command runs through
 *   zbc-inquiry.c  INQUIRY and the VPD pages (00h 80h 83h B0h B1h B6h)
 *   zbc-mode.c     MODE SENSE(6/10), MODE SELECT(6/10)
 *   zbc-emulate.c  TEST UNIT READY, REQUEST SENSE, READ CAPACITY(10/16),
 *                  START STOP UNIT, REPORT SUPPORTED OPERATION CODES
 *   zbc-zones.c    the ZBC-2 view of the core's zones: gap zones, type and
 *                  condition codes, the read rules, unwritten-data masking
 *   zbc-report.c   REPORT ZONES
 *   zbc-out.c      ZBC OUT: OPEN, CLOSE, FINISH, RESET WRITE POINTER
 *   zbc-rw.c       READ, WRITE, SYNCHRONIZE CACHE and the start of medium
 *                  commands through the dispatch (reorder) engine
 *   zbc-sense.c    the one mapping from zone-model results to sense data
 *   zbc-service.c  the optional service-time model (lat-*, xfer-*,
 *                  max-parallel) and the one gate every report to the HBA
 *                  passes (zbc_req_report())
 */

#ifndef HW_SCSI_ZBC_INTERNAL_H
#define HW_SCSI_ZBC_INTERNAL_H

#include "hw/scsi/scsi-zbc.h"
#include "block/accounting.h"
#include "qemu/iov.h"
#include "qemu/memalign.h"
#include "hw/block/zoned-reorder/service-timer.h"

/* Opcodes QEMU's scsi/constants.h does not name (ZBC-2). */
#define ZBC_OUT                 0x94
#define ZBC_IN                  0x95

/* Service actions */
#define ZBC_SA_CLOSE_ZONE       0x01
#define ZBC_SA_FINISH_ZONE      0x02
#define ZBC_SA_OPEN_ZONE        0x03
#define ZBC_SA_RESET_WP         0x04
#define ZBC_SA_REPORT_ZONES     0x00
#define ZBC_SA_READ_CAPACITY_16 0x10
#define ZBC_SA_RSOC             0x0c

/* ZBC-2 zone type codes (REPORT ZONES zone descriptor) */
#define ZBC_TYPE_CONVENTIONAL   0x1
#define ZBC_TYPE_SEQ_REQUIRED   0x2
#define ZBC_TYPE_GAP            0x5

/* What a command does to the medium, for the sense mapping. */
typedef enum ZbcAccess {
    ZBC_ACCESS_READ,
    ZBC_ACCESS_WRITE,
    ZBC_ACCESS_ZONE_MGMT,
} ZbcAccess;

/* Where a request is; see scsi-zbc.c for the transitions. */
typedef enum ZbcPhase {
    ZBC_PHASE_NEW,          /* parsed, nothing moved yet (zeroed) */
    ZBC_PHASE_DATA_READY,   /* data-in is in buf, not yet handed over */
    ZBC_PHASE_DATA_IN,      /* data-in handed to the HBA */
    ZBC_PHASE_READ_READY,   /* medium read waiting for the HBA to pull */
    ZBC_PHASE_WANT_DATA_OUT, /* data-out not requested yet */
    ZBC_PHASE_DATA_OUT,     /* data-out requested from the HBA */
    ZBC_PHASE_STARTED,      /* submitted to the dispatch engine */
    ZBC_PHASE_MIGRATED,     /* loaded, to run again (zbc-migrate.c) */
} ZbcPhase;

typedef struct ZbcReq ZbcReq;

/* What a medium command tells the HBA next (zbc_req_report()). */
typedef enum ZbcReport {
    ZBC_REPORT_NONE,
    ZBC_REPORT_STATUS,      /* scsi_req_complete() with the status */
    ZBC_REPORT_DATA_IN,     /* scsi_req_data() of the read's r->len bytes */
} ZbcReport;

/*
 * The service-time model (zbc-service.c).  Its properties all default to
 * 0, and with all of them 0 the model is off: medium commands start and
 * report exactly as without it (scsi-zbc behind ufs-zoned is timed by the
 * controller's own model).
 */
typedef struct ZbcService {
    /* Properties (lat_other_ns: SYNCHRONIZE CACHE, ZBC OUT) */
    ZrServiceParams params;

    /* Run-time state, with the model on */
    bool on;
    ZrService svc;
    ZrServiceTimer timer;
    uint32_t backend_wait;      /* service time over, backend still busy */
    Error *mig_blocker;
} ZbcService;

/*
 * Data buffers of finished READs and WRITEs, kept for the next ones
 * (scsi-zbc.c, zbc_req_data_buf()): they hold this LU's data of earlier
 * commands or zeros, never anything else of the host's.
 */
#define ZBC_BUF_CACHE           64      /* a full UFS MCQ's worth */
#define ZBC_BUF_CACHE_MAX       (128 * KiB)     /* a buffer */
#define ZBC_BUF_CACHE_BYTES     (2 * MiB)       /* all of them */

typedef struct ZbcBufCache {
    uint8_t *buf[ZBC_BUF_CACHE];
    size_t size[ZBC_BUF_CACHE];
    uint32_t n;
    size_t bytes;
    bool open;                  /* realized: freed buffers are kept */
    bool hba_fills;             /* the HBA hands over all data-out or none */
} ZbcBufCache;

/*
 * The QOM instance of scsi-zbc: the ZbcState other devices see
 * (include/hw/scsi/scsi-zbc.h) and what only hw/scsi/zbc/ uses.
 */
typedef struct ZbcInstance {
    ZbcState pub;
    ZbcService svc;
    ZbcBufCache bufs;
} ZbcInstance;

/* One supported command (an opcode, or an opcode and service action). */
typedef struct ZbcCmd {
    const char *name;
    uint8_t opcode;
    int16_t sa;             /* service action, or -1 */
    uint8_t cdb_len;
    /*
     * CDB USAGE DATA (SPC-5 REPORT SUPPORTED OPERATION CODES): a bit is
     * set where the device server looks.  Every other bit is reserved and
     * refused with INVALID FIELD IN CDB before the command runs.
     */
    uint8_t usage[16];
    /*
     * Bits send() checks itself, not shown in the CDB usage data: a field
     * of which only some values are supported (ZBC OUT's ZONE COUNT).
     */
    uint8_t own[16];
    bool needs_ready;       /* NOT READY while the LU is stopped */
    bool by_bus;            /* answered by QEMU's SCSI bus, not by us */
    ZrOp op;                /* medium commands: class for the engine */
    /* Parse; return the transfer length (< 0: data-out), or 0 when done. */
    int32_t (*send)(ZbcReq *r);
    /* The data-out of the command has arrived. */
    void (*data_out)(ZbcReq *r);
    /* Medium commands: the dispatch engine starts the command. */
    void (*start)(ZbcReq *r);
} ZbcCmd;

struct ZbcReq {
    SCSIRequest req;
    const ZbcCmd *cmd;
    ZbcPhase phase;
    ZrCmd zr;               /* in the dispatch engine */
    uint64_t lba;           /* medium commands */
    uint64_t nb;            /* blocks */
    bool fua;
    uint8_t *buf;
    size_t buf_size;        /* as allocated (zbc_req_data_buf()) */
    size_t len;             /* bytes to transfer */
    QEMUIOVector qiov;
    BlockAcctCookie acct;
    bool acct_started;
    ZrZoneIo zio;           /* WRITE: in the zone model until reported */
    ZrZoneRead zrd;         /* READ: backend I/O in flight (zone-read.c) */
    /* on ZbcState.parked (werror=stop) or zone_op_wait (ZBC OUT) */
    QTAILQ_ENTRY(ZbcReq) park;
    int io_ret;             /* the backend error it was parked on */
    uint8_t mig;            /* loaded by migration: ZbcMigKind, until used */
    uint8_t mig_state;      /* ... the saved ZrZoneIoState of a write */
    bool mig_bad;           /* ... from a stream that makes no sense here */
    uint8_t report;         /* ZbcReport held until the service time ends */
    int report_status;      /* ... its SCSI status */
    bool svc_waiting;       /* service time over, backend still busy */
};

/* A request of ours is on a scsi-zbc LU: no QOM cast check on this path */
static inline ZbcState *zbc_state(ZbcReq *r)
{
    return container_of(r->req.dev, ZbcState, qdev);
}

static inline ZbcService *zbc_service(ZbcState *s)
{
    QEMU_BUILD_BUG_ON(offsetof(ZbcInstance, pub) != 0);
    return &container_of(s, ZbcInstance, pub)->svc;
}

/* scsi-zbc.c */
extern const ZbcCmd zbc_cmds[];
extern const size_t zbc_nr_cmds;
const ZbcCmd *zbc_cmd_find(uint8_t opcode, int sa, bool *opcode_known);
uint8_t *zbc_req_buf(ZbcReq *r, size_t size);
uint8_t *zbc_req_data_buf(ZbcReq *r, size_t size, bool write);
void zbc_buf_cache_init(ZbcState *s);
void zbc_buf_cache_cleanup(ZbcState *s);
int32_t zbc_req_data_in(ZbcReq *r, size_t len);
void zbc_req_complete(ZbcReq *r);
void zbc_req_complete_durable(ZbcReq *r);
void zbc_req_end_dispatch(ZbcReq *r);
void zbc_req_acct_start(ZbcReq *r, size_t bytes, enum BlockAcctType type);
bool zbc_req_aio_done(ZbcReq *r, int ret, ZbcAccess access);

/* zbc-sense.c */
void zbc_check_condition(ZbcReq *r, SCSISense sense, const char *why);
void zbc_fail_zone(ZbcReq *r, ZrResult res, ZbcAccess access);
void zbc_fail_errno(ZbcReq *r, int ret, ZbcAccess access);
void zbc_fail_stopped(ZbcReq *r);
SCSISense zbc_sense_stopped(void);

/* zbc-inquiry.c */
#define ZBC_LU_NAME_MAX 64      /* bytes of the VPD 83h T10 vendor ID name */
char *zbc_lu_name(ZbcState *s);
int32_t zbc_inquiry_send(ZbcReq *r);

/* zbc-mode.c */
int32_t zbc_mode_sense_send(ZbcReq *r);
int32_t zbc_mode_select_send(ZbcReq *r);
void zbc_mode_select_data_out(ZbcReq *r);

/* zbc-emulate.c */
int32_t zbc_tur_send(ZbcReq *r);
int32_t zbc_request_sense_send(ZbcReq *r);
int32_t zbc_read_capacity10_send(ZbcReq *r);
int32_t zbc_read_capacity16_send(ZbcReq *r);
int32_t zbc_start_stop_send(ZbcReq *r);
int32_t zbc_rsoc_send(ZbcReq *r);

/* zbc-zones.c: the ZBC-2 view of the core's zones */
typedef struct ZbcZoneView {
    uint64_t start;
    uint64_t len;
    uint64_t wp;            /* as reported (all ones where invalid) */
    uint32_t index;         /* the core's zone */
    uint8_t type;           /* ZBC_TYPE_* */
    uint8_t cond;           /* ZBC-2 ZONE CONDITION code */
    bool gap;
} ZbcZoneView;

void zbc_zone_view_at(ZbcState *s, uint64_t lba, ZbcZoneView *v);
bool zbc_zone_view_next(ZbcState *s, ZbcZoneView *v);
bool zbc_zone_is_gap_start(ZbcState *s, uint64_t lba);
ZrResult zbc_zone_read_check(ZbcState *s, uint64_t lba, uint64_t nb);
bool zbc_zone_write_misaligned(ZbcState *s, uint64_t lba, uint64_t nb);

/* zbc-report.c */
int32_t zbc_report_zones_send(ZbcReq *r);

/* zbc-out.c */
int32_t zbc_out_send(ZbcReq *r);
void zbc_out_start(ZbcReq *r);
void zbc_out_kick(ZbcState *s);
void zbc_out_drop_waiting(ZbcState *s);

/* zbc-rw.c */
int32_t zbc_read_send(ZbcReq *r);
int32_t zbc_write_send(ZbcReq *r);
void zbc_write_data_out(ZbcReq *r);
void zbc_read_start(ZbcReq *r);
void zbc_write_start(ZbcReq *r);
void zbc_write_released(ZrZoneIo *io, ZrResult res, void *opaque);
void zbc_resume_bh(void *opaque);
void zbc_io_drop_parked(ZbcState *s);
int32_t zbc_sync_send(ZbcReq *r);
void zbc_sync_start(ZbcReq *r);
void zbc_submit(ZbcReq *r);

void zbc_save_request(QEMUFile *f, SCSIRequest *req);
void zbc_load_request(QEMUFile *f, SCSIRequest *req);
void zbc_mig_restart(ZbcReq *r);
void zbc_mig_restart_all(ZbcState *s);
void zbc_io_drop_cancelled(ZbcState *s);
void zbc_orphan_drop_waiting(ZbcState *s);
void zbc_orphan_kick(ZbcState *s);
extern const VMStateDescription vmstate_scsi_zbc;
void zbc_start_pending(ZbcState *s);
void zbc_start_bh(void *opaque);
void zbc_schedule_starts(ZbcState *s);
bool zbc_starts_pending(void *opaque);

/* zbc-service.c */
bool zbc_svc_realize(ZbcState *s, Error **errp);
void zbc_svc_unrealize(ZbcState *s);
bool zbc_svc_on(ZbcState *s);
void zbc_svc_kick(ZbcState *s);
bool zbc_svc_pending(ZbcState *s);
void zbc_svc_drained_begin(ZbcState *s);
void zbc_svc_drained_end(ZbcState *s);
void zbc_svc_free_req(ZbcReq *r);
void zbc_req_report(ZbcReq *r, ZbcReport what, int status);

#endif
