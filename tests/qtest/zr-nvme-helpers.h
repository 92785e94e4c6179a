/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the nvme-zns qtests: a minimal NVMe host driver that boots
 * q35 with the controller, enables it the way Linux 6.12's nvme-pci does
 * (CC.CSS=110b, 64/16-byte entries), creates I/O queue pairs and submits
 * admin and I/O commands, polling the CQs while stepping virtual time.
 */

#ifndef TESTS_QTEST_ZR_NVME_HELPERS_H
#define TESTS_QTEST_ZR_NVME_HELPERS_H

#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/malloc-pc.h"
#include "libqos/pci-pc.h"
#include "block/nvme.h"

#define NZT_PCI_SLOT        4
#define NZT_MAX_Q           8
#define NZT_QSIZE           64
#define NZT_PAGE            4096
#define NZT_DATA            (512 * 1024)
#define NZT_STEP_NS         10000
#define NZT_MAX_STEPS       200000

/* Status without the phase bit, as the spec's tables give it */
#define NZT_SC(cqe)         (le16_to_cpu((cqe)->status) >> 1)
#define NZT_DNR             NVME_DNR

typedef struct NztQueue {
    uint64_t sq, cq;
    uint32_t size;
    uint32_t sq_tail;
    uint32_t cq_head;
    bool phase;
} NztQueue;

typedef struct Nzt {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *pcibus;
    QPCIDevice *dev;
    QPCIBar bar;
    NztQueue q[NZT_MAX_Q + 1];
    uint16_t next_cid;
    uint64_t data;              /* NZT_DATA bytes of guest memory */
    uint64_t prp_list;          /* one page */
    uint8_t ams;                /* CC.AMS nzt_enable() sets */
    uint8_t qprio[NZT_MAX_Q + 1];   /* QPRIO nzt_create_ioq() sets */
} Nzt;

uint32_t nzt_rd(Nzt *n, uint32_t off);
uint64_t nzt_rd64(Nzt *n, uint32_t off);
void nzt_wr(Nzt *n, uint32_t off, uint32_t val);
Nzt *nzt_boot(const char *extra);
Nzt *nzt_boot_pci(const char *extra, uint16_t vid, uint16_t did);
void nzt_stop(Nzt *n);
void nzt_migrate(Nzt *n, const char *extra);
Nzt *nzt_start(const char *extra, uint32_t nq);
char *nzt_image(int mib);
void nzt_step(Nzt *n, int64_t ns);
void nzt_enable(Nzt *n);
bool nzt_disable(Nzt *n);

/* Admin: submit, ring, wait; returns the CQE */
void nzt_admin(Nzt *n, NvmeCmd *cmd, NvmeCqe *cqe);
uint16_t nzt_admin_sc(Nzt *n, NvmeCmd *cmd);
uint16_t nzt_identify(Nzt *n, uint8_t cns, uint32_t nsid, uint8_t csi,
                      void *buf);
uint16_t nzt_get_log(Nzt *n, uint8_t lid, uint8_t csi, uint32_t nsid,
                     void *buf, uint32_t len);
uint16_t nzt_set_feature(Nzt *n, uint8_t fid, uint32_t dw11, uint32_t *dw0);
uint16_t nzt_get_feature(Nzt *n, uint8_t fid, uint8_t sel, uint32_t dw11,
                         uint32_t *dw0);
void nzt_create_ioq(Nzt *n, uint16_t qid, uint32_t size, uint16_t iv);
void nzt_create_cq(Nzt *n, uint16_t cqid, uint32_t size, uint64_t addr,
                   uint16_t iv);
void nzt_create_sq(Nzt *n, uint16_t qid, uint32_t size, uint64_t addr,
                   uint16_t cqid);
void nzt_delete_q(Nzt *n, uint16_t qid, bool cq);

/* I/O: queue without ringing, ring, reap */
uint16_t nzt_queue(Nzt *n, uint16_t qid, NvmeCmd *cmd);
void nzt_ring(Nzt *n, uint16_t qid);
bool nzt_poll(Nzt *n, uint16_t qid, NvmeCqe *cqe);
bool nzt_poll_cq(Nzt *n, uint16_t qid, uint16_t cqid, NvmeCqe *cqe);
void nzt_wait(Nzt *n, uint16_t qid, NvmeCqe *cqe);
void nzt_io(Nzt *n, uint16_t qid, NvmeCmd *cmd, NvmeCqe *cqe);

void nzt_rw_cmd(NvmeCmd *cmd, uint8_t opcode, uint64_t slba, uint32_t nlb,
                uint64_t prp1, uint64_t prp2);
void nzt_zms_cmd(NvmeCmd *cmd, uint64_t slba, uint8_t zsa, bool all);
void nzt_zmr_cmd(NvmeCmd *cmd, uint64_t slba, uint8_t zrasf, bool partial,
                 uint64_t prp1, uint32_t bytes);
uint16_t nzt_write(Nzt *n, uint16_t qid, uint64_t slba, uint32_t nlb,
                   uint8_t fill);
uint16_t nzt_read(Nzt *n, uint16_t qid, uint64_t slba, uint32_t nlb,
                  void *buf);
uint16_t nzt_zms(Nzt *n, uint64_t slba, uint8_t zsa, bool all);
uint16_t nzt_append(Nzt *n, uint64_t zslba, uint32_t nlb, uint64_t *alba);
uint64_t nzt_report(Nzt *n, uint64_t slba, uint8_t zrasf, bool partial,
                    NvmeZoneDescr *zd, uint32_t max);
uint8_t nzt_zone_state(Nzt *n, uint64_t zslba, uint64_t *wp);

uint64_t nzt_qom_u64(Nzt *n, const char *prop);
uint64_t nzt_qom_u64_at(Nzt *n, const char *path, const char *prop);
char *nzt_qom_str(Nzt *n, const char *prop);
void nzt_qom_set_str(Nzt *n, const char *prop, const char *value);

#endif
