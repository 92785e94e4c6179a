/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the project's SCSI qtests.
 *
 * Two halves: CDB builders, sense checks and REPORT ZONES parsing, which
 * know nothing of the transport (the UFS tests reuse them); and ZrScsi, a
 * minimal virtio-scsi initiator on q35 driven through libqos, which sends
 * one command or a batch of commands published with a single
 * notification (so the device sees them queued together).
 */

#ifndef TESTS_QTEST_ZR_SCSI_HELPERS_H
#define TESTS_QTEST_ZR_SCSI_HELPERS_H

#include "libqtest.h"

/* The outcome of one command. */
typedef struct ZrScsiResp {
    uint8_t response;           /* transport response; 0 = completed */
    uint8_t status;             /* SCSI status */
    uint32_t resid;             /* data-in residual */
    uint32_t sense_len;
    uint8_t sense[96];
} ZrScsiResp;

/* One command of a batch. */
typedef struct ZrScsiReq {
    const uint8_t *cdb;         /* 16 bytes */
    const void *out;            /* data-out, or NULL */
    size_t out_len;
    void *in;                   /* data-in, or NULL */
    size_t in_len;
    /*
     * zr_scsi_batch*(): 0 to send with the batch, or i + 1 to send once
     * request i of the batch has completed (then with a kick of its own)
     */
    size_t after;
    ZrScsiResp resp;
    uint32_t done_order;        /* out: 1 for the first to complete, ... */
    uint64_t in_addr;           /* out: guest address of the data-in
                                   buffer, while the command is queued */
} ZrScsiReq;

/* A REPORT ZONES zone descriptor. */
typedef struct ZrZoneDesc {
    uint8_t type;
    uint8_t cond;
    uint64_t len;
    uint64_t start;
    uint64_t wp;
} ZrZoneDesc;

/* --- CDBs (cdb must have room for 16 bytes; unused bytes are zeroed) */
void zr_cdb_rw10(uint8_t *cdb, uint8_t opcode, uint32_t lba, uint16_t nb);
void zr_cdb_rw16(uint8_t *cdb, uint8_t opcode, uint64_t lba, uint32_t nb);
void zr_cdb_report_zones(uint8_t *cdb, uint64_t lba, uint32_t alloc,
                         bool partial, uint8_t option);
void zr_cdb_zbc_out(uint8_t *cdb, uint8_t sa, uint64_t zone, bool all);
void zr_cdb_inquiry(uint8_t *cdb, bool evpd, uint8_t page, uint16_t alloc);
void zr_cdb_rc16(uint8_t *cdb, uint32_t alloc);

/* --- Checks */
void zr_assert_good(const ZrScsiResp *r);
void zr_assert_sense(const ZrScsiResp *r, uint8_t key, uint8_t asc,
                     uint8_t ascq);

/* Parse REPORT ZONES data: returns the descriptors found (at most max). */
size_t zr_parse_report(const uint8_t *buf, size_t len, uint32_t *list_len,
                       uint64_t *max_lba, ZrZoneDesc *out, size_t max);

/*
 * "-L DIR" options for QEMU's firmware: a QEMU run from its build tree
 * looks for data files in its qemu-bundle/ directory, not in the
 * configured firmware path, so name Debian's seabios and qemu-system-data
 * directories explicitly (as scripts/run-guest does).
 */
char *zr_firmware_args(void);

/*
 * QEMU started with q35 and @args refuses to start: exit status 1, and
 * @want in what it says on stderr (bad configuration is an error, never
 * an abort).
 */
void zr_expect_start_error(const char *args, const char *want);

/* --- The virtio-scsi transport */
typedef struct ZrScsi ZrScsi;

/*
 * Boot q35 with a virtio-scsi-pci HBA (id vs0, bus vs0.0) plus the extra
 * command line @fmt, and talk to target 0, LUN 0.  The first command's
 * POWER ON unit attention is consumed and checked.
 */
/*
 * The QEMU binary of the zr_scsi_start() calls that follow: the one the
 * environment variable @var names if set, else QTEST_QEMU_BINARY; NULL
 * returns to QTEST_QEMU_BINARY.  For a test that needs QEMU run
 * differently, e.g. with full stacks for leak suppressions.
 */
void zr_scsi_binary_env(const char *var);
ZrScsi *zr_scsi_start(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void zr_scsi_stop(ZrScsi *s);
QTestState *zr_scsi_qts(ZrScsi *s);

/*
 * Address later commands to @target, @lun (default 0, 0).  Each LU
 * reports its own POWER ON unit attention on its first command.
 */
void zr_scsi_select(ZrScsi *s, uint8_t target, uint16_t lun);
void zr_scsi_cmd(ZrScsi *s, const uint8_t *cdb, const void *out,
                 size_t out_len, void *in, size_t in_len, ZrScsiResp *resp);
void zr_scsi_batch(ZrScsi *s, ZrScsiReq *reqs, size_t n);
/*
 * The same, calling @hook once the batch is rung and before waiting for
 * its completions (e.g. to wait for a STOP event and resume the VM).
 */
void zr_scsi_batch_hook(ZrScsi *s, ZrScsiReq *reqs, size_t n,
                        void (*hook)(ZrScsi *s, void *opaque), void *opaque);
/*
 * How many completions the device has put in the used ring of the
 * request queue so far (free running): from a zr_scsi_batch_hook() hook,
 * whether the commands of the batch were answered yet.
 */
uint16_t zr_scsi_used_idx(ZrScsi *s);
/* LOGICAL UNIT RESET task management function; returns its response. */
uint8_t zr_scsi_lun_reset(ZrScsi *s);
/*
 * Migrate the VM to a file and go on in a new QEMU, started with the
 * arguments @fmt gives (the same devices; drives may differ, e.g. without
 * an error injection), that loads it: guest memory, the virtqueues and the
 * commands in flight come with it, and the test goes on with @s.  The old
 * QEMU quits.
 */
/*
 * Migrate the VM of @from to a file and load it into a new QEMU started
 * with @args (and -incoming defer); @from is quit.  Returns the new one.
 */
QTestState *zr_migrate_via_file(QTestState *from, const char *args);
/* Save the VM of @from (stopping it) to the file @path. */
void zr_migrate_save(QTestState *from, const char *path);
/*
 * Load @path into @to (started with -incoming defer), which stays up if
 * the load fails; true if it completed.
 */
bool zr_migrate_load(QTestState *to, const char *path);
unsigned zr_corrupt_stream_campaign(const char *path, const char *idstr,
                                    const char *until, gsize window,
                                    const char *args, unsigned runs,
                                    guint32 seed);
/* A new qcow2 image of @size bytes (QTEST_QEMU_IMG); the caller unlinks it */
char *zr_make_qcow2(size_t size);
void zr_scsi_migrate(ZrScsi *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/*
 * Guest memory was replaced (loadvm) while no command was in flight: take
 * the virtqueues' used indices from it.
 */
void zr_scsi_resync(ZrScsi *s);

/* qom-get of an integer property (a device counter) of the QOM object at @path */
uint64_t zr_qom_get_u64(QTestState *qts, const char *path, const char *prop);

#endif
