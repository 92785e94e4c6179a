/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the ufs-zoned qtests: a minimal UFS host driver that boots
 * q35 with the controller, brings it up the way Linux 6.12's ufshcd does,
 * and sends NOP, QUERY and SCSI command UPIUs on a slot -- through the
 * legacy doorbell, or after ufs_mcq_enable() through an MCQ submission
 * queue, the slot then being the task tag and the UCD the CQE names.
 */

#ifndef TESTS_QTEST_ZR_UFS_HELPERS_H
#define TESTS_QTEST_ZR_UFS_HELPERS_H

#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/malloc-pc.h"
#include "libqos/pci-pc.h"
#include "block/ufs.h"
#include "zr-scsi-helpers.h"

#define PCI_SLOT        4
#define NUTRS           32
#define UCD_SIZE        4096        /* cmd UPIU 512, rsp UPIU 512, PRDT */
#define RSP_OFF         512
#define PRDT_OFF        1024
#define DATA_SIZE       (64 * 1024)
#define BLK             4096
#define ZONE_BLOCKS     1024        /* scsi-zbc default: 4 MiB zones */
#define STEP_NS         100000
#define MAX_STEPS       10000

/* Overall Command Status values of the UTRD (UFSHCI 4.0 6.1.1) */
#define OCS_SUCCESS         0x0
#define OCS_INVALID_CTA     0x1
#define OCS_INVALID_PRDT    0x2
#define OCS_MISMATCH_DATA   0x3
#define OCS_MISMATCH_RSP    0x4

#define OP_READ_FLAG        UFS_UPIU_QUERY_OPCODE_READ_FLAG
#define OP_SET_FLAG         UFS_UPIU_QUERY_OPCODE_SET_FLAG
#define OP_READ_ATTR        UFS_UPIU_QUERY_OPCODE_READ_ATTR
#define OP_WRITE_ATTR       UFS_UPIU_QUERY_OPCODE_WRITE_ATTR

#define UFS_TEST_MAX_QUEUES 4

/* Operation and runtime registers of an MCQ queue (UFSHCI 4.0 5.6) */
#define SQHP        0x00
#define SQTP        0x04
#define SQRTC       0x08
#define SQCTI       0x0c
#define SQRTS       0x10
#define CQHP        0x1c
#define CQTP        0x20
#define CQIS        0x24
#define QEN         (1u << 31)          /* SQATTR/CQATTR enable */

typedef struct UfsTestQueue {
    uint64_t sq;                /* SQ entries */
    uint64_t cq;                /* CQ entries */
    uint32_t sq_tail;           /* entries */
    uint32_t cq_head;
    uint32_t cqes;              /* consumed from this CQ */
} UfsTestQueue;

typedef struct Ufs {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *pcibus;
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t utrl;
    uint64_t utmrl;
    uint64_t ucd;               /* NUTRS * UCD_SIZE */
    uint64_t data;              /* NUTRS * DATA_SIZE */

    /* MCQ, once ufs_mcq_enable() ran: commands go through SQ @sq */
    bool mcq;
    uint32_t nq;
    uint32_t entries;           /* per SQ and CQ */
    uint32_t sq;                /* SQ the next ring() uses */
    UfsTestQueue q[UFS_TEST_MAX_QUEUES];
    uint32_t done;              /* slots whose CQE was consumed */
    uint8_t cqe_ocs[NUTRS];
} Ufs;

typedef struct UfsResp {
    uint8_t ocs;
    uint8_t tc;
    uint8_t response;
    uint8_t status;
    uint32_t resid;
    uint8_t sense[18];
    uint32_t value;             /* query */
    uint16_t len;               /* query data */
    uint8_t data[256];          /* query data segment */
} UfsResp;

/* The mode= every ufs_boot() passes: "mcq" unless a test file says so */
extern const char *ufs_test_mode;
/* The variable naming the QEMU binary ufs_boot() starts (NULL: the default) */
extern const char *ufs_binary_env;

uint32_t rd(Ufs *u, uint32_t off);
void wr(Ufs *u, uint32_t off, uint32_t val);
uint64_t ucd(Ufs *u, int slot);
uint64_t data_buf(Ufs *u, int slot);
void uic(Ufs *u, uint8_t cmd, uint16_t attr, uint32_t val);
char *ufs_args(const char *props);
Ufs *ufs_boot(const char *props);
Ufs *ufs_boot_args(const char *args);
void ufs_stop(Ufs *u);
void ufs_migrate(Ufs *u, const char *props);
void ufs_bringup(Ufs *u);
void prep(Ufs *u, int slot, const uint8_t *upiu, size_t upiu_len,
          uint32_t dd, uint32_t prdt_bytes);
void set_prdt(Ufs *u, int slot, uint64_t addr, uint32_t dbc);
void ufs_step(Ufs *u, int64_t ns);
void wait_done(Ufs *u, uint32_t mask);
void get_resp(Ufs *u, int slot, UfsResp *r);
void ring(Ufs *u, uint32_t mask);
void nop(Ufs *u, int slot);
void query(Ufs *u, uint8_t func, uint8_t opcode, uint8_t idn,
           uint8_t index, uint16_t len, uint32_t value, UfsResp *r);
void read_desc(Ufs *u, uint8_t idn, uint8_t index, UfsResp *r);
uint32_t query_expect(Ufs *u, bool write, uint8_t opcode, uint8_t idn,
                      uint32_t value, uint8_t expect);
void prep_scsi(Ufs *u, int slot, uint8_t lun, const uint8_t *cdb,
               uint32_t dd, uint32_t len);
void scsi(Ufs *u, int slot, uint8_t lun, const uint8_t *cdb,
          uint32_t dd, void *buf, uint32_t len, UfsResp *r);
void resp_to_scsi(const UfsResp *r, ZrScsiResp *z);
void assert_good(const UfsResp *r);
void lu_ready(Ufs *u, uint8_t lun);
Ufs *ufs_start(const char *props);
uint64_t qom_u64(Ufs *u, const char *prop);
char *qom_str(Ufs *u, const char *prop);
void qom_set_str(Ufs *u, const char *prop, const char *value);

void ufs_queue_write(Ufs *u, uint32_t sq, int slot, uint64_t lba);
void write1(Ufs *u, int slot, uint64_t lba, uint8_t fill, UfsResp *r);
uint8_t task_mgmt(Ufs *u, uint8_t func, uint8_t lun, uint8_t tag);

/* MCQ: configure @nq queue pairs of @entries each and select MCQ. */
void ufs_mcq_enable(Ufs *u, uint32_t nq, uint32_t entries);
/* MCQ: put slot @slot's UTRD in SQ @sq without ringing; ring with SQTP. */
void ufs_mcq_queue(Ufs *u, uint32_t sq, int slot);
void ufs_mcq_ring(Ufs *u, uint32_t sq);
uint32_t ufs_mcq_cleanup(Ufs *u, uint32_t q, uint8_t lun, uint8_t tag);
/* MCQ: consume the CQEs CQ @cq holds; returns how many. */
uint32_t ufs_mcq_reap(Ufs *u, uint32_t cq);
uint32_t ufs_mcq_sq_reg(uint32_t q, uint32_t off);
uint32_t ufs_mcq_cfg_reg(uint32_t q, uint32_t off);

#endif
