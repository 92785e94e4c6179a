/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns qtests: bring-up, Identify, logs, features, the I/O and zoned
 * commands and their statuses, the reorder policies' start order across
 * SQs, reset with I/O in flight, and bad input.  Spec references as in
 * hw/nvme/zns/nvme-zns-internal.h.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/pci/pci_regs.h"
#include "zr-nvme-helpers.h"
#include "zr-scsi-helpers.h"

#define ZONE            1024        /* default: 4 MiB zones of 4 KiB blocks */
#define DEV(props)      "-device nvme-zns,id=nz0,addr=04.0" props

/* No service time: starts and completions follow at once */
#define FAST            ",lat-read-ns=0,lat-write-ns=0,lat-other-ns=0," \
                        "xfer-read-ns-per-4k=0,xfer-write-ns-per-4k=0"

/* CAP, VS, enable; Identify Controller as Linux 6.12 reads it */
static void test_bringup(void)
{
    Nzt *n = nzt_boot(DEV(""));
    uint64_t cap = nzt_rd64(n, NVME_REG_CAP);
    g_autofree NvmeIdCtrl *id = g_new0(NvmeIdCtrl, 1);
    uint8_t zoned[4096];

    g_assert_cmpuint(NVME_CAP_MQES(cap), ==, 1023);
    g_assert_cmpuint(NVME_CAP_CQR(cap), ==, 1);
    g_assert_cmpuint(NVME_CAP_CSS(cap) & NVME_CAP_CSS_IOCSS, !=, 0);
    g_assert_cmpuint(NVME_CAP_CSS(cap) & NVME_CAP_CSS_NCSS, !=, 0);
    g_assert_cmpuint(NVME_CAP_DSTRD(cap), ==, 0);
    g_assert_cmpuint(NVME_CAP_MPSMIN(cap), ==, 0);
    g_assert_cmpuint(NVME_CAP_TO(cap), >, 0);
    g_assert_cmphex(nzt_rd(n, NVME_REG_VS), ==, 0x20000);
    g_assert_cmphex(nzt_rd(n, NVME_REG_CSTS), ==, 0);
    nzt_enable(n);

    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CTRL, 0, 0, id), ==, 0);
    g_assert_cmphex(le16_to_cpu(id->vid), ==, 0x1af4);
    g_assert_cmpuint(id->mdts, ==, 7);
    g_assert_cmphex(id->sqes, ==, 0x66);
    g_assert_cmphex(id->cqes, ==, 0x44);
    g_assert_cmpuint(le32_to_cpu(id->nn), ==, 8);
    g_assert_cmphex(le32_to_cpu(id->oaes) & (1u << 27), !=, 0);
    g_assert_cmphex(id->lpa & NVME_LPA_CSE, !=, 0);
    g_assert_cmphex(le32_to_cpu(id->sgls) & 3, ==, 1);
    g_assert_cmpuint(id->cntrltype, ==, 1);
    g_assert_true(g_str_has_prefix((char *)id->subnqn, "nqn."));

    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_CTRL, 0, NVME_CSI_ZONED,
                                 zoned), ==, 0);
    g_assert_cmpuint(zoned[0], ==, 0);      /* ZASL 0: MDTS */
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_CTRL, 0, 5, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    nzt_stop(n);
}

/* Identify Namespace, its zoned data, lists, descriptors (Base 5.17) */
static void test_identify_ns(void)
{
    Nzt *n = nzt_boot(DEV("") " -device nvme-zns-ns,bus=nz0,nsid=1,"
                      "zone-size=8M,zone-capacity=6M,max-open=3,"
                      "max-active=5,size=256M");
    g_autofree NvmeIdNs *id = g_new0(NvmeIdNs, 1);
    g_autofree NvmeIdNsZoned *z = g_new0(NvmeIdNsZoned, 1);
    uint32_t list[1024];
    uint8_t d[4096];
    uint64_t iocs;

    nzt_enable(n);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_NS_ACTIVE_LIST, 0, 0, list),
                    ==, 0);
    g_assert_cmpuint(le32_to_cpu(list[0]), ==, 1);
    g_assert_cmpuint(list[1], ==, 0);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_NS, 1, 0, id), ==, 0);
    g_assert_cmpuint(le64_to_cpu(id->nsze), ==, 65536);
    g_assert_cmpuint(id->lbaf[0].ds, ==, 12);
    g_assert_cmphex(id->dlfeat & 7, ==, 1);
    /* an inactive NSID in range: zeros; out of range: Invalid NSID */
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_NS, 2, 0, id), ==, 0);
    g_assert_cmpuint(id->nsze, ==, 0);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_NS, 9, 0, NULL), ==,
                    NVME_INVALID_NSID | NVME_DNR);

    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_NS, 1, NVME_CSI_ZONED, z),
                    ==, 0);
    g_assert_cmpuint(le64_to_cpu(z->lbafe[0].zsze), ==, 2048);
    g_assert_cmpuint(le32_to_cpu(z->mor), ==, 2);
    g_assert_cmpuint(le32_to_cpu(z->mar), ==, 4);
    g_assert_cmpuint(le16_to_cpu(z->zoc), ==, 0);

    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_NS_DESCR_LIST, 1, 0, d), ==,
                    0);
    /* EUI-64 (4 + 8), NGUID (4 + 16), then the CSI descriptor */
    g_assert_cmpuint(d[0], ==, NVME_NIDT_EUI64);
    g_assert_cmpuint(d[12], ==, NVME_NIDT_NGUID);
    g_assert_cmpuint(d[32], ==, NVME_NIDT_CSI);
    g_assert_cmpuint(d[36], ==, NVME_CSI_ZONED);

    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_NS_ACTIVE_LIST, 0,
                                 NVME_CSI_ZONED, list), ==, 0);
    g_assert_cmpuint(le32_to_cpu(list[0]), ==, 1);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_NS_ACTIVE_LIST, 0,
                                 NVME_CSI_NVM, list), ==, 0);
    g_assert_cmpuint(list[0], ==, 0);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_IO_COMMAND_SET, 0, 0, d), ==,
                    0);
    memcpy(&iocs, d, 8);
    g_assert_cmphex(le64_to_cpu(iocs), ==, 0x5);
    g_assert_cmphex(nzt_identify(n, 0x42, 0, 0, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    nzt_stop(n);
}

/* Commands Supported and Effects per CSI, SMART, errors, unknown page */
static void test_log_pages(void)
{
    Nzt *n = nzt_start(DEV(FAST), 1);
    g_autofree NvmeEffectsLog *e = g_new0(NvmeEffectsLog, 1);
    NvmeErrorLog err[4];
    NvmeSmartLog smart;

    g_assert_cmphex(nzt_get_log(n, NVME_LOG_CMD_EFFECTS, NVME_CSI_ZONED, 0,
                                e, sizeof(*e)), ==, 0);
    g_assert_cmphex(le32_to_cpu(e->iocs[NVME_CMD_ZONE_APPEND]) &
                    NVME_CMD_EFF_CSUPP, !=, 0);
    g_assert_cmphex(le32_to_cpu(e->iocs[NVME_CMD_ZONE_MGMT_SEND]) &
                    NVME_CMD_EFF_CSUPP, !=, 0);
    g_assert_cmphex(le32_to_cpu(e->acs[NVME_ADM_CMD_IDENTIFY]), ==,
                    NVME_CMD_EFF_CSUPP);
    g_assert_cmphex(nzt_get_log(n, NVME_LOG_CMD_EFFECTS, NVME_CSI_NVM, 0,
                                e, sizeof(*e)), ==, 0);
    g_assert_cmphex(e->iocs[NVME_CMD_ZONE_APPEND], ==, 0);

    g_assert_cmphex(nzt_write(n, 1, 0, 1, 0x11), ==, 0);
    g_assert_cmphex(nzt_get_log(n, NVME_LOG_SMART_INFO, 0,
                                NVME_NSID_BROADCAST, &smart, sizeof(smart)),
                    ==, 0);
    g_assert_cmpuint(le64_to_cpu(smart.host_write_commands[0]), ==, 1);
    g_assert_cmpuint(le64_to_cpu(smart.data_units_written[0]), ==, 1);

    /* a failed command lands in the error log */
    g_assert_cmphex(nzt_write(n, 1, 5, 1, 0x11), ==, NVME_ZONE_INVALID_WRITE);
    g_assert_cmphex(nzt_get_log(n, NVME_LOG_ERROR_INFO, 0, 0, err,
                                sizeof(err)), ==, 0);
    g_assert_cmpuint(le64_to_cpu(err[0].error_count), ==, 1);
    g_assert_cmphex(le16_to_cpu(err[0].status_field) >> 1, ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmpuint(le16_to_cpu(err[0].sqid), ==, 1);
    g_assert_cmphex(nzt_get_log(n, 0x70, 0, 0, NULL, 512), ==,
                    NVME_INVALID_LOG_ID | NVME_DNR);
    g_assert_cmphex(nzt_get_log(n, NVME_LOG_SMART_INFO, 0, 1, NULL, 512), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    nzt_stop(n);
}

/* Set/Get Features (Base 5.27) */
static void test_features(void)
{
    Nzt *n = nzt_boot(DEV(",queues=4"));
    uint32_t dw0;
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_SET_FEATURES };

    nzt_enable(n);
    g_assert_cmphex(nzt_get_feature(n, NVME_NUMBER_OF_QUEUES, 0, 0, &dw0), ==,
                    0);
    g_assert_cmphex(dw0, ==, 0x00030003);
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES, 0x00070001,
                                    &dw0), ==, 0);
    g_assert_cmphex(dw0, ==, 0x00030001);   /* 2 SQs, 4 CQs (0's based) */
    /* again before any I/O queue exists: allowed; after one: not */
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES, 0x00010001,
                                    &dw0), ==, 0);
    g_assert_cmphex(dw0, ==, 0x00010001);
    nzt_create_ioq(n, 1, 16, 0);
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES, 0, NULL), ==,
                    NVME_CMD_SEQ_ERROR | NVME_DNR);

    g_assert_cmphex(nzt_set_feature(n, NVME_ARBITRATION, 0x3, NULL), ==, 0);
    g_assert_cmphex(nzt_get_feature(n, NVME_ARBITRATION, 0, 0, &dw0), ==, 0);
    g_assert_cmphex(dw0, ==, 3);
    g_assert_cmphex(nzt_get_feature(n, NVME_ARBITRATION, 1, 0, &dw0), ==, 0);
    g_assert_cmphex(dw0, ==, 0);
    g_assert_cmphex(nzt_get_feature(n, NVME_ARBITRATION, 3, 0, &dw0), ==, 0);
    g_assert_cmphex(dw0 & NVME_FEAT_CAP_CHANGE, !=, 0);

    g_assert_cmphex(nzt_set_feature(n, NVME_VOLATILE_WRITE_CACHE, 0, NULL),
                    ==, 0);
    g_assert_cmphex(nzt_get_feature(n, NVME_VOLATILE_WRITE_CACHE, 0, 0, &dw0),
                    ==, 0);
    g_assert_cmphex(dw0, ==, 0);

    /* the timestamp the host set comes back, advanced by guest time */
    qtest_writeq(n->qts, n->data, 1000000);
    g_assert_cmphex(nzt_set_feature(n, NVME_TIMESTAMP, 0, NULL), ==, 0);
    nzt_step(n, 5000000);
    g_assert_cmphex(nzt_get_feature(n, NVME_TIMESTAMP, 0, 0, NULL), ==, 0);
    g_assert_cmpuint(qtest_readq(n->qts, n->data) & 0xffffffffffffULL, >=,
                     1000005);

    /* saving is not supported; unknown features are invalid */
    cmd.cdw10 = cpu_to_le32(NVME_ARBITRATION | 1u << 31);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==,
                    NVME_FID_NOT_SAVEABLE | NVME_DNR);
    g_assert_cmphex(nzt_set_feature(n, 0x7f, 0, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    g_assert_cmphex(nzt_set_feature(n, NVME_POWER_MANAGEMENT, 1, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    nzt_stop(n);
}

/* Write, read back; above the write pointer reads zeros (DLFEAT) */
static void test_write_read(void)
{
    /* stale data where nothing was written since the zone's reset */
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = NULL;
    uint8_t buf[3 * 4096];
    Nzt *n;

    args = g_strdup_printf("-drive if=none,id=d0,file=%s,format=raw "
                           DEV(FAST) " -device nvme-zns-ns,bus=nz0,drive=d0",
                           img);
    n = nzt_start(args, 1);
    g_assert_cmphex(nzt_write(n, 1, 0, 3, 0x5a), ==, 0);
    g_assert_cmphex(nzt_read(n, 1, 0, 3, buf), ==, 0);
    g_assert_cmpuint(buf[0], ==, 0x5a);
    g_assert_cmpuint(buf[sizeof(buf) - 1], ==, 0x5a);
    g_assert_cmphex(nzt_read(n, 1, 2, 2, buf), ==, 0);
    g_assert_cmpuint(buf[4095], ==, 0x5a);
    g_assert_cmpuint(buf[4096], ==, 0);
    g_assert_cmpuint(buf[4097], ==, 0);
    /* a 64 KiB write through a PRP list */
    g_assert_cmphex(nzt_write(n, 1, 3, 16, 0x77), ==, 0);
    g_assert_cmphex(nzt_read(n, 1, 18, 1, buf), ==, 0);
    g_assert_cmpuint(buf[100], ==, 0x77);
    g_assert_cmpuint(nzt_zone_state(n, 0, NULL), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    nzt_stop(n);
    unlink(img);
}

/*
 * A read racing a write (ZNS 2.1.1: blocks at and above the write
 * pointer, or not yet written, read as zeros): blkdebug holds the write's
 * backend I/O while a read of the same blocks runs into mapped guest
 * pages; the block under the held write must not show the stale data the
 * medium holds there ("STALE" at block 3), the block below it the data
 * that landed.
 */
static void test_read_race(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = g_strdup_printf(
        "-blockdev driver=file,filename=%s,node-name=f0 "
        "-blockdev driver=blkdebug,node-name=dbg,image=f0 "
        "-blockdev driver=raw,node-name=d0,file=dbg "
        DEV(FAST) " -device nvme-zns-ns,id=ns1,bus=nz0,drive=d0", img);
    uint64_t rbuf;
    uint8_t buf[2 * 4096];
    NvmeCmd cmd;
    NvmeCqe cqe;
    uint16_t wcid, rcid;
    Nzt *n = nzt_start(args, 1);
    char *out;

    rbuf = n->data + 64 * 1024;
    g_assert_cmphex(nzt_write(n, 1, 0, 3, 0x11), ==, 0);

    out = qtest_hmp(n->qts, "qemu-io -d ns1 \"break write_aio A\"");
    g_free(out);
    qtest_memset(n->qts, n->data, 0x5a, 4096);
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 3, 1, n->data, 0);
    wcid = nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    nzt_step(n, NZT_STEP_NS);
    /* held: the breakpoint answers through the device's own drive */
    out = qtest_hmp(n->qts, "qemu-io -d ns1 \"wait_break A\"");
    g_free(out);

    /* the write pointer moved past block 3; its data is not there yet */
    qtest_memset(n->qts, rbuf, 0xee, sizeof(buf));
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 2, 2, rbuf, rbuf + 4096);
    rcid = nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, rcid);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    qtest_memread(n->qts, rbuf, buf, sizeof(buf));
    g_assert_cmpuint(buf[0], ==, 0x11);
    g_assert_cmpuint(buf[4095], ==, 0x11);
    g_assert_cmpmem(buf + 4096, 5, "\0\0\0\0\0", 5);
    g_assert_cmpuint(buf[2 * 4096 - 1], ==, 0);
    /* all three went straight to guest RAM: the zeroing was on the map */
    g_assert_cmpuint(nzt_qom_u64(n, "data-mapped"), ==, 3);
    g_assert_cmpuint(nzt_qom_u64(n, "data-bounced"), ==, 0);

    out = qtest_hmp(n->qts, "qemu-io -d ns1 \"resume A\"");
    g_free(out);
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, wcid);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    g_assert_cmphex(nzt_read(n, 1, 3, 1, buf), ==, 0);
    g_assert_cmpuint(buf[0], ==, 0x5a);
    nzt_stop(n);
    unlink(img);
}

/* Is the controller's INTx pin asserted?  (PCI Status, Interrupt Status) */
static bool nzt_intx(Nzt *n)
{
    return qpci_config_readw(n->dev, PCI_STATUS) & PCI_STATUS_INTERRUPT;
}

/* Queue a one-block write on SQ 1, ring, step until its CQE is posted */
static void nzt_write_posted(Nzt *n, uint64_t slba)
{
    NztQueue *q = &n->q[1];
    NvmeCmd cmd;
    NvmeCqe cqe;
    int i;

    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, slba, 1, n->data, 0);
    nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    for (i = 0; i < NZT_MAX_STEPS; i++) {
        qtest_memread(n->qts, q->cq + q->cq_head * 16, &cqe, sizeof(cqe));
        if ((le16_to_cpu(cqe.status) & 1) == q->phase) {
            g_assert_cmphex(NZT_SC(&cqe), ==, 0);
            return;
        }
        nzt_step(n, NZT_STEP_NS);
    }
    g_assert_not_reached();
}

/*
 * INTx (Base 2.0 3.5.1, 3.1.4.3/4): the pin is asserted while a CQ with
 * interrupts enabled holds entries the host has not consumed and INTMS
 * does not mask its vector; INTMS/INTMC set and clear the mask; the CQ
 * head doorbell that consumes the last entry deasserts it.
 */
static void test_intx(void)
{
    Nzt *n = nzt_start(DEV(FAST), 1);
    NvmeCqe cqe;
    uint64_t n0;

    g_assert_false(nzt_intx(n));
    n0 = nzt_qom_u64(n, "interrupts");
    nzt_write_posted(n, 0);
    g_assert_true(nzt_intx(n));
    g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0 + 1);

    nzt_wr(n, NVME_REG_INTMS, 1);
    g_assert_cmphex(nzt_rd(n, NVME_REG_INTMS), ==, 1);
    g_assert_cmphex(nzt_rd(n, NVME_REG_INTMC), ==, 1);
    g_assert_false(nzt_intx(n));
    nzt_wr(n, NVME_REG_INTMC, 1);
    g_assert_cmphex(nzt_rd(n, NVME_REG_INTMS), ==, 0);
    g_assert_true(nzt_intx(n));
    g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0 + 2);

    /* a second entry: still asserted until both are consumed */
    nzt_write_posted(n, 1);
    g_assert_true(nzt_poll(n, 1, &cqe));
    g_assert_true(nzt_intx(n));
    g_assert_true(nzt_poll(n, 1, &cqe));
    g_assert_false(nzt_intx(n));
    nzt_stop(n);
}

/*
 * MSI-X with interrupt coalescing (Set Features 08h: aggregation
 * threshold, 0's based, and time in 100 us units; 09h: Coalescing
 * Disable per vector; Base 2.0 5.27.1.8/9): a message once THR + 1
 * entries are posted or the time since the first ran out; none for
 * those in between; every entry at once on a vector with CD set.
 */
static void test_coalescing(void)
{
    Nzt *n = nzt_boot(DEV(FAST));
    NvmeCqe cqe;
    uint64_t n0;
    int i;

    nzt_enable(n);
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES, 0, NULL), ==,
                    NVME_SUCCESS);
    nzt_create_ioq(n, 1, NZT_QSIZE, 1);     /* I/O CQ 1 on vector 1 */
    qpci_msix_enable(n->dev);
    g_assert_cmphex(nzt_set_feature(n, NVME_INTERRUPT_COALESCING,
                                    3 | 10 << 8, NULL), ==, NVME_SUCCESS);
    n0 = nzt_qom_u64(n, "interrupts");
    for (i = 0; i < 3; i++) {
        nzt_write_posted(n, i);
        g_assert_true(nzt_poll(n, 1, &cqe));
        g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0);
    }
    nzt_write_posted(n, 3);
    g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0 + 1);
    g_assert_true(nzt_poll(n, 1, &cqe));
    g_assert_false(nzt_intx(n));

    /* one entry: the message when 1 ms has passed since it, not before */
    nzt_write_posted(n, 4);
    g_assert_true(nzt_poll(n, 1, &cqe));
    nzt_step(n, 900000);
    g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0 + 1);
    nzt_step(n, 100000);
    g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0 + 2);

    /* the admin vector is never coalesced: nothing to configure there */
    g_assert_cmphex(nzt_set_feature(n, NVME_INTERRUPT_VECTOR_CONF,
                                    0 | 1u << 16, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    /* Coalescing Disable on vector 1: every entry gets its message */
    g_assert_cmphex(nzt_set_feature(n, NVME_INTERRUPT_VECTOR_CONF,
                                    1 | 1u << 16, NULL), ==, NVME_SUCCESS);
    n0 = nzt_qom_u64(n, "interrupts");
    nzt_write_posted(n, 5);
    g_assert_cmpuint(nzt_qom_u64(n, "interrupts"), ==, n0 + 1);
    g_assert_true(nzt_poll(n, 1, &cqe));
    nzt_stop(n);
}

/* Writes off the write pointer: Zone Invalid Write, without DNR */
static void test_zone_invalid_write(void)
{
    Nzt *n = nzt_start(DEV(FAST), 1);
    uint64_t wp;

    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, 0);
    g_assert_cmphex(nzt_write(n, 1, ZONE + 2, 1, 1), ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, NVME_ZONE_INVALID_WRITE);
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==,
                     NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmphex(wp, ==, ZONE + 1);
    g_assert_cmpuint(nzt_qom_u64(n, "zone-invalid-writes"), ==, 2);
    g_assert_cmphex(nzt_write(n, 1, 64 * 1024 * 1024, 1, 1), ==,
                    NVME_LBA_RANGE | NVME_DNR);
    nzt_stop(n);
}

/* x-zone-invalid-write-dnr: the same status with Do Not Retry set */
static void test_zone_invalid_write_dnr(void)
{
    Nzt *n = nzt_start(DEV(FAST ",x-zone-invalid-write-dnr=on"), 1);

    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, 0);
    g_assert_cmphex(nzt_write(n, 1, ZONE + 2, 1, 1), ==,
                    NVME_ZONE_INVALID_WRITE | NVME_DNR);
    g_assert_cmpuint(nzt_qom_u64(n, "zone-invalid-writes"), ==, 1);
    /* only that status: a write at the write pointer still succeeds */
    g_assert_cmphex(nzt_write(n, 1, ZONE + 1, 1, 1), ==, 0);
    nzt_stop(n);
}

/*
 * Zone state on a drive of its own (nvme-zns-ns zone-state=): zones
 * written, opened, finished and closed; QEMU quits (SIGTERM: the VM
 * stops, the state is written) and starts again on the same drives: the
 * same zones and data, open zones closed, as after a power cycle.  The
 * state drive starts as an empty file.
 */
#define ZS_ARGS(img, st, props) \
    "-drive if=none,id=d0,format=raw,file=" img \
    " -drive if=none,id=zs0,format=raw,file=" st " " DEV(FAST) \
    " -device nvme-zns-ns,bus=nz0,drive=d0,zone-state=zs0" props

static Nzt *nzt_start_state(const char *img, const char *state,
                            const char *props)
{
    g_autofree char *args = g_strdup_printf(ZS_ARGS("%s", "%s", "%s"), img,
                                            state, props);

    return nzt_start(args, 1);
}

static char *nzt_empty_file(void)
{
    char *path = NULL;
    int fd = g_file_open_tmp("zr-nvme-zs-XXXXXX", &path, NULL);

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    return path;
}

static void test_zone_state_restart(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *state = nzt_empty_file();
    uint8_t buf[3 * 4096];
    uint64_t wp;
    Nzt *n;

    n = nzt_start_state(img, state, "");
    g_assert_cmphex(nzt_write(n, 1, ZONE, 2, 0x22), ==, 0);
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_OPEN, false), ==, 0);
    g_assert_cmphex(nzt_write(n, 1, 3 * ZONE, 3, 0x33), ==, 0);
    g_assert_cmphex(nzt_zms(n, 3 * ZONE, NVME_ZONE_ACTION_OPEN, false), ==, 0);
    g_assert_cmphex(nzt_write(n, 1, 4 * ZONE, 1, 0x44), ==, 0);
    g_assert_cmphex(nzt_zms(n, 4 * ZONE, NVME_ZONE_ACTION_FINISH, false), ==,
                    0);
    g_assert_cmphex(nzt_write(n, 1, 5 * ZONE, 1, 0x55), ==, 0);
    g_assert_cmphex(nzt_zms(n, 5 * ZONE, NVME_ZONE_ACTION_CLOSE, false), ==, 0);
    nzt_stop(n);

    n = nzt_start_state(img, state, "");
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, ZONE + 2);
    /* closed like a Close Zone would, which in ZNS keeps it closed */
    g_assert_cmpuint(nzt_zone_state(n, 2 * ZONE, &wp), ==,
                     NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, 2 * ZONE);
    g_assert_cmpuint(nzt_zone_state(n, 3 * ZONE, &wp), ==,
                     NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, 3 * ZONE + 3);
    g_assert_cmpuint(nzt_zone_state(n, 4 * ZONE, NULL), ==,
                     NVME_ZONE_STATE_FULL);
    g_assert_cmpuint(nzt_zone_state(n, 5 * ZONE, &wp), ==,
                     NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, 5 * ZONE + 1);
    g_assert_cmpuint(nzt_zone_state(n, 6 * ZONE, NULL), ==,
                     NVME_ZONE_STATE_EMPTY);
    g_assert_cmphex(nzt_read(n, 1, ZONE, 3, buf), ==, 0);
    g_assert_cmphex(buf[0], ==, 0x22);
    g_assert_cmphex(buf[2 * 4096 - 1], ==, 0x22);
    g_assert_cmphex(buf[2 * 4096], ==, 0);          /* above the wp */
    g_assert_cmphex(nzt_read(n, 1, 4 * ZONE, 2, buf), ==, 0);
    g_assert_cmphex(buf[0], ==, 0x44);
    g_assert_cmphex(buf[4096], ==, 0);              /* finished, unwritten */
    /* the zone goes on where it was; a reset is kept too */
    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 0x21), ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmphex(nzt_write(n, 1, ZONE + 2, 1, 0x23), ==, 0);
    g_assert_cmphex(nzt_zms(n, 5 * ZONE, NVME_ZONE_ACTION_RESET, false), ==, 0);
    nzt_stop(n);

    n = nzt_start_state(img, state, "");
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, ZONE + 3);
    g_assert_cmpuint(nzt_zone_state(n, 5 * ZONE, NULL), ==,
                     NVME_ZONE_STATE_EMPTY);
    nzt_stop(n);
    unlink(state);
    unlink(img);
}

static uint64_t nzt_ns_qom(Nzt *n, const char *prop)
{
    return nzt_qom_u64_at(n, "/machine/peripheral/ns1", prop);
}

static uint16_t nzt_cmd_at(Nzt *n, uint8_t opcode, uint64_t slba, bool fua)
{
    NvmeCmd cmd;
    NvmeCqe cqe;

    qtest_memset(n->qts, n->data, 0x77, 4096);
    nzt_rw_cmd(&cmd, opcode, slba, 1, n->data, 0);
    if (fua) {
        cmd.cdw12 |= cpu_to_le32(NVME_RW_FUA << 16);
    }
    nzt_io(n, 1, &cmd, &cqe);
    return NZT_SC(&cqe);
}

/*
 * What waits for the zone state to be on its drive before it completes:
 * Flush, a FUA write, any write with the volatile write cache off, Zone
 * Management Send; a plain write does not (zone-state-syncs counts).
 */
static void test_zone_state_durable(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *state = nzt_empty_file();
    uint64_t syncs;
    Nzt *n;

    n = nzt_start_state(img, state, ",id=ns1");
    syncs = nzt_ns_qom(n, "zone-state-syncs");
    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, 0);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, syncs);
    g_assert_cmphex(nzt_cmd_at(n, NVME_CMD_WRITE, ZONE + 1, true), ==, 0);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, ++syncs);
    g_assert_cmphex(nzt_cmd_at(n, NVME_CMD_WRITE_ZEROES, ZONE + 2, true), ==,
                    0);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, ++syncs);
    g_assert_cmphex(nzt_cmd_at(n, NVME_CMD_FLUSH, 0, false), ==, 0);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, ++syncs);
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_OPEN, false), ==, 0);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, ++syncs);
    /* a failed one has nothing to make durable */
    g_assert_cmphex(nzt_cmd_at(n, NVME_CMD_WRITE, ZONE + 9, true), ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, syncs);
    g_assert_cmphex(nzt_set_feature(n, NVME_VOLATILE_WRITE_CACHE, 0, NULL),
                    ==, 0);
    g_assert_cmphex(nzt_write(n, 1, ZONE + 3, 1, 1), ==, 0);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-syncs"), ==, ++syncs);
    g_assert_cmpuint(nzt_ns_qom(n, "zone-state-blocks"), >=, 1);
    /* the namespace's own counters */
    g_assert_cmpuint(nzt_ns_qom(n, "zone-invalid-writes"), ==, 1);
    g_assert_cmpuint(nzt_ns_qom(n, "writes"), ==, 4);
    g_assert_cmpuint(nzt_ns_qom(n, "blocks-written"), ==, 4);
    nzt_stop(n);
    unlink(state);
    unlink(img);
}

/*
 * A controller reset (CC.EN 1 to 0) while a zone-state sync is on the
 * drive (blkdebug holds its first table write): CSTS.RDY stays set until
 * the sync has ended (Base 3.7.2: the reset completes once the backend
 * I/O is over), the Flush that asked for it gets no CQE, and the
 * controller comes up again with the zone state intact.
 */
static void test_zone_state_reset_sync(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *state = nzt_empty_file();
    g_autofree char *args = g_strdup_printf(
        "-drive if=none,id=d0,format=raw,file=%s "
        "-drive if=none,id=zs0,format=raw,file.driver=blkdebug,"
        "file.image.driver=file,file.image.filename=%s " DEV(FAST)
        " -device nvme-zns-ns,bus=nz0,drive=d0,zone-state=zs0,id=ns1",
        img, state);
    NvmeCmd cmd = { .opcode = NVME_CMD_FLUSH };
    uint64_t wp;
    NvmeCqe cqe;
    char *out;
    int i;
    Nzt *n = nzt_start(args, 1);

    g_assert_cmphex(nzt_write(n, 1, ZONE, 2, 0x33), ==, 0);
    out = qtest_hmp(n->qts, "qemu-io zs0 \"break write_aio A\"");
    g_free(out);
    cmd.nsid = cpu_to_le32(1);
    nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    out = qtest_hmp(n->qts, "qemu-io zs0 \"wait_break A\"");
    g_free(out);

    nzt_wr(n, NVME_REG_CC, 0);
    for (i = 0; i < 100; i++) {
        nzt_step(n, NZT_STEP_NS);
    }
    /* the reset waits for the sync: still ready, no CQE for the Flush */
    g_assert_cmphex(nzt_rd(n, NVME_REG_CSTS) & NVME_CSTS_READY, ==,
                    NVME_CSTS_READY);
    g_assert_false(nzt_poll(n, 1, &cqe));
    out = qtest_hmp(n->qts, "qemu-io zs0 \"resume A\"");
    g_free(out);
    g_assert_true(nzt_disable(n));
    g_assert_false(nzt_poll(n, 1, &cqe));

    nzt_enable(n);
    nzt_create_ioq(n, 1, NZT_QSIZE, 0);
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==,
                     NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmpuint(wp, ==, ZONE + 2);
    g_assert_cmphex(nzt_write(n, 1, ZONE + 2, 1, 0x34), ==, 0);
    nzt_stop(n);
    unlink(state);
    unlink(img);
}

/*
 * A state drive that does not match is an error at realize, never a
 * silent re-format; zone-state-format=on formats it anew.
 */
static void test_zone_state_errors(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *state = nzt_empty_file();
    g_autofree char *args = NULL;
    uint64_t wp;
    Nzt *n;

    n = nzt_start_state(img, state, "");
    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 0x11), ==, 0);
    nzt_stop(n);

    args = g_strdup_printf(ZS_ARGS("%s", "%s", ",zone-size=2M"), img, state);
    zr_expect_start_error(args, "another geometry");
    g_free(args);
    args = g_strdup_printf(DEV(FAST) " -drive if=none,id=zs0,format=raw,"
                           "file=%s -device nvme-zns-ns,bus=nz0,"
                           "zone-state=zs0", state);
    zr_expect_start_error(args, "zone-state needs a drive");
    g_free(args);
    args = g_strdup_printf("-drive if=none,id=d0,format=raw,file=%s "
                           DEV(FAST) " -device nvme-zns-ns,bus=nz0,drive=d0,"
                           "zone-state-format=on", img);
    zr_expect_start_error(args, "zone-state-format needs a zone-state drive");
    g_free(args);
    args = g_strdup_printf(ZS_ARGS("%s", "%s", ",zone-desc-ext-size=64"),
                           img, state);
    zr_expect_start_error(args, "does not keep zone descriptor extensions");

    /* the geometry that wrote it still loads it */
    n = nzt_start_state(img, state, "");
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, ZONE + 1);
    nzt_stop(n);
    n = nzt_start_state(img, state, ",zone-state-format=on");
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==, NVME_ZONE_STATE_EMPTY);
    nzt_stop(n);
    unlink(state);
    unlink(img);
}

/*
 * Zone descriptor extensions (zone-desc-ext-size): ZDES in Identify, Set
 * Zone Descriptor Extension takes an Empty zone to Closed with ZA.ZDEV
 * set, Extended Report Zones returns the data, a reset clears it.
 */
static uint16_t nzt_set_zde(Nzt *n, uint64_t zslba, uint8_t fill,
                            uint32_t bytes, bool all)
{
    NvmeCmd cmd;
    NvmeCqe cqe;

    qtest_memset(n->qts, n->data, fill, bytes);
    nzt_zms_cmd(&cmd, zslba, NVME_ZONE_ACTION_SET_ZD_EXT, all);
    cmd.dptr.prp1 = cpu_to_le64(n->data);
    nzt_io(n, 1, &cmd, &cqe);
    return NZT_SC(&cqe);
}

/* Extended report of one zone: its descriptor and @ext bytes after it */
static uint16_t nzt_report_ext(Nzt *n, uint64_t zslba, NvmeZoneDescr *zd,
                               uint8_t *ext, uint32_t ext_bytes)
{
    NvmeCmd cmd;
    NvmeCqe cqe;

    qtest_memset(n->qts, n->data, 0xee, 64 + 64 + ext_bytes);
    nzt_zmr_cmd(&cmd, zslba, NVME_ZONE_REPORT_ALL, true, n->data,
                64 + 64 + ext_bytes);
    cmd.cdw13 |= cpu_to_le32(NVME_ZONE_REPORT_EXTENDED);
    nzt_io(n, 1, &cmd, &cqe);
    if (NZT_SC(&cqe) == NVME_SUCCESS) {
        g_assert_cmpuint(qtest_readq(n->qts, n->data), ==, 1);
        qtest_memread(n->qts, n->data + 64, zd, 64);
        qtest_memread(n->qts, n->data + 128, ext, ext_bytes);
    }
    return NZT_SC(&cqe);
}

static void test_zone_desc_ext(void)
{
    Nzt *n = nzt_boot(DEV(FAST) " -device nvme-zns-ns,bus=nz0,"
                      "zone-desc-ext-size=128,max-active=2");
    NvmeIdNsZoned *idz = g_new0(NvmeIdNsZoned, 1);
    NvmeZoneDescr zd;
    uint8_t ext[128];
    uint64_t wp;

    nzt_enable(n);
    nzt_create_ioq(n, 1, NZT_QSIZE, 0);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_NS, 1, NVME_CSI_ZONED,
                                 idz), ==, 0);
    g_assert_cmpuint(idz->lbafe[0].zdes, ==, 2);    /* 64-byte units */

    g_assert_cmphex(nzt_set_zde(n, ZONE, 0x5a, 128, false), ==, 0);
    g_assert_cmpuint(nzt_zone_state(n, ZONE, &wp), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(wp, ==, ZONE);
    g_assert_cmphex(nzt_report_ext(n, ZONE, &zd, ext, 128), ==, 0);
    g_assert_cmphex(zd.za, ==, NVME_ZA_ZD_EXT_VALID);
    g_assert_cmpuint(le64_to_cpu(zd.zslba), ==, ZONE);
    for (int i = 0; i < 128; i++) {
        g_assert_cmphex(ext[i], ==, 0x5a);
    }
    /* two entries: each descriptor followed by its own extension */
    g_assert_cmphex(nzt_set_zde(n, 4 * ZONE, 0xa4, 128, false), ==, 0);
    {
        uint32_t entry = 64 + 128, bytes = 64 + 3 * entry;
        NvmeCmd cmd;
        NvmeCqe cqe;
        NvmeZoneDescr d[3];
        uint8_t x[3];

        nzt_zmr_cmd(&cmd, 3 * ZONE, NVME_ZONE_REPORT_ALL, true, n->data,
                    bytes);
        cmd.cdw13 |= cpu_to_le32(NVME_ZONE_REPORT_EXTENDED);
        nzt_io(n, 1, &cmd, &cqe);
        g_assert_cmphex(NZT_SC(&cqe), ==, 0);
        g_assert_cmpuint(qtest_readq(n->qts, n->data), ==, 3);
        for (int i = 0; i < 3; i++) {
            qtest_memread(n->qts, n->data + 64 + i * entry, &d[i], 64);
            x[i] = qtest_readb(n->qts, n->data + 64 + i * entry + 64 + 127);
        }
        g_assert_cmpuint(le64_to_cpu(d[0].zslba), ==, 3 * ZONE);
        g_assert_cmphex(d[0].za | x[0], ==, 0);
        g_assert_cmpuint(le64_to_cpu(d[1].zslba), ==, 4 * ZONE);
        g_assert_cmphex(d[1].za, ==, NVME_ZA_ZD_EXT_VALID);
        g_assert_cmphex(x[1], ==, 0xa4);
        g_assert_cmpuint(le64_to_cpu(d[2].zslba), ==, 5 * ZONE);
        g_assert_cmphex(d[2].za | x[2], ==, 0);
    }
    g_assert_cmphex(nzt_zms(n, 4 * ZONE, NVME_ZONE_ACTION_RESET, false), ==, 0);
    /* the plain report says so too; a zone without one has zeros */
    nzt_report(n, ZONE, NVME_ZONE_REPORT_ALL, true, &zd, 1);
    g_assert_cmphex(zd.za, ==, NVME_ZA_ZD_EXT_VALID);
    g_assert_cmphex(nzt_report_ext(n, 3 * ZONE, &zd, ext, 128), ==, 0);
    g_assert_cmphex(zd.za, ==, 0);
    g_assert_cmphex(ext[0] | ext[127], ==, 0);

    /* only an Empty zone; one zone, never Select All */
    g_assert_cmphex(nzt_set_zde(n, ZONE, 0x11, 128, false), ==,
                    NVME_ZONE_INVAL_TRANSITION | NVME_DNR);
    g_assert_cmphex(nzt_set_zde(n, 0, 0x11, 128, true), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    g_assert_cmphex(nzt_set_zde(n, ZONE + 1, 0x11, 128, false), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    /* it takes an active resource: max-active=2 */
    g_assert_cmphex(nzt_write(n, 1, 2 * ZONE, 1, 1), ==, 0);
    g_assert_cmphex(nzt_set_zde(n, 3 * ZONE, 0x33, 128, false), ==,
                    NVME_ZONE_TOO_MANY_ACTIVE | NVME_DNR);
    /* writes go on in a zone with an extension; a finish keeps it */
    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, 0);
    g_assert_cmphex(nzt_zms(n, ZONE, NVME_ZONE_ACTION_FINISH, false), ==, 0);
    nzt_report(n, ZONE, NVME_ZONE_REPORT_ALL, true, &zd, 1);
    g_assert_cmphex(zd.za, ==, NVME_ZA_ZD_EXT_VALID);
    /* a reset ends it: a write after it opens the zone without one */
    g_assert_cmphex(nzt_zms(n, ZONE, NVME_ZONE_ACTION_RESET, false), ==, 0);
    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, 0);
    g_assert_cmphex(nzt_report_ext(n, ZONE, &zd, ext, 128), ==, 0);
    g_assert_cmphex(zd.za, ==, 0);
    g_assert_cmphex(ext[0], ==, 0);
    g_free(idz);
    nzt_stop(n);

    /* without extensions: neither action is there */
    n = nzt_start(DEV(FAST), 1);
    g_assert_cmphex(nzt_set_zde(n, ZONE, 0x11, 64, false), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    g_assert_cmphex(nzt_report_ext(n, ZONE, &zd, ext, 64), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    nzt_stop(n);
}

/*
 * A controller plugged into a running machine (device_add behind a PCIe
 * root port) gets its default namespace as one on the command line does.
 */
static void test_hotplug_default_ns(void)
{
    g_autofree char *fw = NULL;
    QTestState *qts;
    QDict *r;
    QList *props;
    const QListEntry *e;
    int children = 0;

    if (!qtest_has_device("pcie-root-port")) {
        g_test_skip("no pcie-root-port in this build");
        return;
    }
    fw = zr_firmware_args();
    qts = qtest_initf("%s-machine q35 -nodefaults "
                      "-device pcie-root-port,id=rp0,chassis=1", fw);
    qtest_qmp_device_add(qts, "nvme-zns", "hp", "{'bus': 'rp0'}");
    /* the namespace comes on a bottom half: one QMP round trip runs it */
    r = qtest_qmp(qts, "{ 'execute': 'qom-list', 'arguments': "
                  "{ 'path': '/machine/peripheral/hp/hp' } }");
    props = qdict_get_qlist(r, "return");
    g_assert_nonnull(props);
    QLIST_FOREACH_ENTRY(props, e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));

        children += g_str_has_prefix(qdict_get_str(p, "name"), "child[");
    }
    g_assert_cmpint(children, ==, 1);
    qobject_unref(r);
    qtest_quit(qts);
}

/* Zone Append: the assigned LBA in the CQE (ZNS 4.4.1) */
static void test_append(void)
{
    Nzt *n = nzt_start(DEV(FAST ",zasl=1"), 1);
    uint64_t alba;

    g_assert_cmphex(nzt_append(n, 2 * ZONE, 2, &alba), ==, 0);
    g_assert_cmphex(alba, ==, 2 * ZONE);
    g_assert_cmphex(nzt_append(n, 2 * ZONE, 1, &alba), ==, 0);
    g_assert_cmphex(alba, ==, 2 * ZONE + 2);
    /* not a zone start; beyond ZASL (2 pages) */
    g_assert_cmphex(nzt_append(n, 2 * ZONE + 1, 1, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    g_assert_cmphex(nzt_append(n, 3 * ZONE, 3, NULL), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    g_assert_cmpuint(nzt_qom_u64(n, "zone-invalid-writes"), ==, 0);
    nzt_stop(n);
}

/* Zone Management Send and the states it leads to (ZNS 4.3.1, 2.1.1) */
static void test_zone_mgmt(void)
{
    Nzt *n = nzt_boot(DEV(FAST) " -device nvme-zns-ns,bus=nz0,max-open=2,"
                      "max-active=3");
    uint64_t wp;
    uint32_t q;

    nzt_enable(n);
    for (q = 1; q <= 1; q++) {
        nzt_create_ioq(n, q, NZT_QSIZE, 0);
    }
    g_assert_cmphex(nzt_zms(n, 0, NVME_ZONE_ACTION_OPEN, false), ==, 0);
    g_assert_cmpuint(nzt_zone_state(n, 0, NULL), ==,
                     NVME_ZONE_STATE_EXPLICITLY_OPEN);
    g_assert_cmphex(nzt_zms(n, ZONE, NVME_ZONE_ACTION_OPEN, false), ==, 0);
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_ZONE_TOO_MANY_OPEN | NVME_DNR);
    g_assert_cmphex(nzt_zms(n, ZONE, NVME_ZONE_ACTION_CLOSE, false), ==, 0);
    g_assert_cmpuint(nzt_zone_state(n, ZONE, NULL), ==,
                     NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(nzt_write(n, 1, 2 * ZONE, 1, 1), ==, 0);
    /* three active (open, closed, implicitly open): no fourth */
    g_assert_cmphex(nzt_write(n, 1, 3 * ZONE, 1, 1), ==,
                    NVME_ZONE_TOO_MANY_ACTIVE | NVME_DNR);
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_FINISH, false), ==,
                    0);
    g_assert_cmpuint(nzt_zone_state(n, 2 * ZONE, &wp), ==,
                     NVME_ZONE_STATE_FULL);
    g_assert_cmphex(nzt_write(n, 1, 2 * ZONE + 1, 1, 1), ==,
                    NVME_ZONE_FULL | NVME_DNR);
    /* offline only from read only */
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_OFFLINE, false), ==,
                    NVME_ZONE_INVAL_TRANSITION | NVME_DNR);
    g_assert_cmphex(nzt_zms(n, 1, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    g_assert_cmphex(nzt_zms(n, 0, 0x42, false), ==,
                    NVME_INVALID_FIELD | NVME_DNR);
    /* reset all: every zone empty again */
    g_assert_cmphex(nzt_zms(n, 0, NVME_ZONE_ACTION_RESET, true), ==, 0);
    g_assert_cmpuint(nzt_report(n, 0, NVME_ZONE_REPORT_EMPTY, false, NULL, 1),
                     ==, 256);
    g_assert_cmpuint(nzt_zone_state(n, 2 * ZONE, &wp), ==,
                     NVME_ZONE_STATE_EMPTY);
    g_assert_cmphex(wp, ==, 2 * ZONE);
    nzt_stop(n);
}

/* Zone Management Receive: filters, partial, the header count */
static void test_report(void)
{
    Nzt *n = nzt_start(DEV(FAST), 1);
    NvmeZoneDescr zd[4];

    g_assert_cmphex(nzt_write(n, 1, ZONE, 1, 1), ==, 0);
    g_assert_cmphex(nzt_write(n, 1, 3 * ZONE, 1, 1), ==, 0);
    g_assert_cmpuint(nzt_report(n, 0, NVME_ZONE_REPORT_ALL, false, zd, 4), ==,
                     256);
    g_assert_cmpuint(nzt_report(n, 0, NVME_ZONE_REPORT_ALL, true, zd, 4), ==,
                     4);
    g_assert_cmpuint(zd[1].zt, ==, NVME_ZONE_TYPE_SEQ_WRITE);
    g_assert_cmpuint(zd[1].zs >> 4, ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmphex(le64_to_cpu(zd[1].wp), ==, ZONE + 1);
    g_assert_cmphex(le64_to_cpu(zd[1].zcap), ==, ZONE);
    g_assert_cmpuint(nzt_report(n, 0, NVME_ZONE_REPORT_IMPLICITLY_OPEN, false,
                                zd, 4), ==, 2);
    g_assert_cmphex(le64_to_cpu(zd[0].zslba), ==, ZONE);
    g_assert_cmphex(le64_to_cpu(zd[1].zslba), ==, 3 * ZONE);
    g_assert_cmpuint(nzt_report(n, 2 * ZONE, NVME_ZONE_REPORT_IMPLICITLY_OPEN,
                                false, zd, 4), ==, 1);
    g_assert_cmpuint(nzt_report(n, 0, NVME_ZONE_REPORT_FULL, false, zd, 4),
                     ==, 0);
    nzt_stop(n);
}

/* Step 1 us at a time until @want CQEs, all successful, on SQs 1..@nq */
static void wait_successes(Nzt *n, uint32_t nq, uint32_t want)
{
    uint32_t q, got = 0, steps = 0;
    NvmeCqe cqe;

    while (got < want) {
        for (q = 1; q <= nq; q++) {
            while (nzt_poll(n, q, &cqe)) {
                g_assert_cmphex(NZT_SC(&cqe), ==, 0);
                got++;
            }
        }
        nzt_step(n, 1000);
        g_assert_cmpuint(++steps, <, NZT_MAX_STEPS);
    }
}

/*
 * start-log keeps the last 32 starts, oldest first: 40 reads in batches
 * of 8 overwrite the 8 oldest; a write of the property empties it, and
 * it fills again from its start.
 */
static void test_start_log(void)
{
    Nzt *n = nzt_start(DEV(FAST ",reorder=none"), 1);
    g_autoptr(GString) want = g_string_new("");
    g_autofree char *log = NULL;
    g_autofree char *one = NULL;
    uint16_t cid = 0;
    NvmeCmd cmd;
    uint32_t b, i;

    nzt_qom_set_str(n, "start-log", "");
    for (b = 0; b < 5; b++) {
        for (i = 0; i < 8; i++) {
            nzt_rw_cmd(&cmd, NVME_CMD_READ, b * 8 + i, 1,
                       n->data + i * 4096, 0);
            cid = nzt_queue(n, 1, &cmd);
        }
        nzt_ring(n, 1);
        wait_successes(n, 1, 8);
    }
    for (i = 0; i < 32; i++) {
        g_string_append_printf(want, "%s1:%u", i ? "," : "", cid - 31 + i);
    }
    log = nzt_qom_str(n, "start-log");
    g_assert_cmpstr(log, ==, want->str);

    nzt_qom_set_str(n, "start-log", "");
    g_free(log);
    log = nzt_qom_str(n, "start-log");
    g_assert_cmpstr(log, ==, "");
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 1, n->data, 0);
    cid = nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    wait_successes(n, 1, 1);
    one = g_strdup_printf("1:%u", cid);
    g_free(log);
    log = nzt_qom_str(n, "start-log");
    g_assert_cmpstr(log, ==, one);
    nzt_stop(n);
}

/*
 * The start order across two SQs, per policy: four reads queued on SQ 1,
 * four on SQ 2, SQ 1 rung first, one command in service at a time.
 */
static void check_order(const char *policy, const char *want)
{
    g_autofree char *args = g_strdup_printf(
        DEV(FAST ",max-parallel=1,lat-read-ns=1000,lat-write-ns=50000,"
            "reorder=%s"), policy);
    Nzt *n = nzt_start(args, 2);
    g_autofree char *log = NULL;
    NvmeCmd cmd;
    uint32_t q, i;

    /* a write holds the one service slot while the reads queue up */
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 0, 1, n->data, 0);
    nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    nzt_step(n, 1000);
    nzt_qom_set_str(n, "start-log", "");
    for (q = 1; q <= 2; q++) {
        for (i = 0; i < 4; i++) {
            nzt_rw_cmd(&cmd, NVME_CMD_READ, q * ZONE + i, 1,
                       n->data + (q * 4 + i) * 4096, 0);
            nzt_queue(n, q, &cmd);
        }
    }
    nzt_ring(n, 1);
    nzt_ring(n, 2);
    wait_successes(n, 2, 9);
    log = nzt_qom_str(n, "start-log");
    g_assert_cmpstr(log, ==, want);
    nzt_stop(n);
}

static void test_order(void)
{
    /* CIDs: 1-5 admin, 6 the write, SQ 1 reads 7-10, SQ 2 reads 11-14 */
    check_order("none", "1:7,1:8,1:9,1:10,2:11,2:12,2:13,2:14");
    check_order("spec", "2:11,1:7,2:12,1:8,2:13,1:9,2:14,1:10");
    check_order("reverse", "2:14,2:13,2:12,2:11,1:10,1:9,1:8,1:7");
}

/*
 * Weighted round robin with urgent priority class (CAP.AMS bit 17,
 * CC.AMS = 001b, Base 3.4.4.3): SQ 1 low, SQ 2 high, SQ 3 urgent, weights
 * high 2 low 1 (Feature 01h HPW=1 LPW=0), four reads on each, SQ 1 rung
 * first.  Urgent goes first, then two high for each low per round.
 */
static void test_wrr(void)
{
    Nzt *n = nzt_boot(DEV(FAST ",max-parallel=1,lat-read-ns=1000,"
                          "lat-write-ns=50000,reorder=spec"));
    g_autofree char *log = NULL;
    NvmeCmd cmd;
    uint32_t q, i;

    g_assert_cmpuint(NVME_CAP_AMS(nzt_rd64(n, NVME_REG_CAP)) & 1, ==, 1);
    /* a CC.AMS the controller does not offer fails the enable */
    nzt_wr(n, NVME_REG_AQA, (NZT_QSIZE - 1) << 16 | (NZT_QSIZE - 1));
    nzt_wr(n, NVME_REG_ASQ, n->q[0].sq);
    nzt_wr(n, NVME_REG_ACQ, n->q[0].cq);
    nzt_wr(n, NVME_REG_CC, 1 | 6 << 4 | 7 << 11 | 6 << 16 | 4 << 20);
    nzt_step(n, NZT_STEP_NS);
    g_assert_cmphex(nzt_rd(n, NVME_REG_CSTS) & (NVME_CSTS_READY |
                    NVME_CSTS_FAILED), ==, NVME_CSTS_FAILED);

    n->ams = 1;
    n->qprio[1] = 3;    /* low */
    n->qprio[2] = 1;    /* high */
    n->qprio[3] = 0;    /* urgent */
    nzt_enable(n);
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES, 2 | 2 << 16,
                                    NULL), ==, NVME_SUCCESS);
    g_assert_cmphex(nzt_set_feature(n, NVME_ARBITRATION, 1 << 24, NULL), ==,
                    NVME_SUCCESS);
    for (q = 1; q <= 3; q++) {
        nzt_create_ioq(n, q, NZT_QSIZE, 0);
    }
    /* a write holds the one service slot while the reads queue up */
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 0, 1, n->data, 0);
    nzt_queue(n, 1, &cmd);
    nzt_ring(n, 1);
    nzt_step(n, 1000);
    nzt_qom_set_str(n, "start-log", "");
    for (q = 1; q <= 3; q++) {
        for (i = 0; i < 4; i++) {
            nzt_rw_cmd(&cmd, NVME_CMD_READ, q * ZONE + i, 1,
                       n->data + (q * 4 + i) * 4096, 0);
            nzt_queue(n, q, &cmd);
        }
    }
    for (q = 1; q <= 3; q++) {
        nzt_ring(n, q);
    }
    wait_successes(n, 3, 13);
    /*
     * CIDs: 1-8 admin, 9 the write, SQ 1 10-13, SQ 2 14-17, SQ 3 18-21.
     * The write took the low class's one command of the first round, so
     * that round ends after two high; the next gives two high, one low.
     */
    log = nzt_qom_str(n, "start-log");
    g_assert_cmpstr(log, ==, "3:18,3:19,3:20,3:21,2:14,2:15,2:16,2:17,"
                    "1:10,1:11,1:12,1:13");
    nzt_stop(n);
}

/* Reordered writes to one zone fail as Zone Invalid Write */
static void test_reorder_writes(void)
{
    Nzt *n = nzt_start(DEV(FAST ",reorder=reverse"), 1);
    NvmeCmd cmd;
    NvmeCqe cqe[2];
    uint16_t cid[2];
    int i, j;

    for (i = 0; i < 2; i++) {
        nzt_rw_cmd(&cmd, NVME_CMD_WRITE, i, 1, n->data, 0);
        cid[i] = nzt_queue(n, 1, &cmd);
    }
    nzt_ring(n, 1);
    nzt_wait(n, 1, &cqe[0]);
    nzt_wait(n, 1, &cqe[1]);
    /* the later write (LBA 1) started first and failed; LBA 0 succeeded */
    for (j = 0; j < 2; j++) {
        uint16_t want = le16_to_cpu(cqe[j].cid) == cid[1] ?
                        NVME_ZONE_INVALID_WRITE : NVME_SUCCESS;

        g_assert_cmphex(NZT_SC(&cqe[j]), ==, want);
    }
    g_assert_cmpuint(nzt_qom_u64(n, "zone-invalid-writes"), ==, 1);
    g_assert_cmpuint(nzt_qom_u64(n, "starts-reordered"), ==, 1);
    /* at run time: in order now, both succeed */
    nzt_qom_set_str(n, "reorder", "none");
    for (i = 1; i < 3; i++) {
        nzt_rw_cmd(&cmd, NVME_CMD_WRITE, i, 1, n->data, 0);
        nzt_queue(n, 1, &cmd);
    }
    nzt_ring(n, 1);
    nzt_wait(n, 1, &cqe[0]);
    nzt_wait(n, 1, &cqe[1]);
    g_assert_cmphex(NZT_SC(&cqe[0]), ==, 0);
    g_assert_cmphex(NZT_SC(&cqe[1]), ==, 0);
    nzt_stop(n);
}

/* CC.EN 1 -> 0 with writes in service: no CQEs, RDY drops, re-enable */
static void test_reset_inflight(void)
{
    Nzt *n = nzt_start(DEV(",lat-write-ns=1000000"), 1);
    NvmeCmd cmd;
    NvmeCqe cqe;
    int i;

    for (i = 0; i < 4; i++) {
        nzt_rw_cmd(&cmd, NVME_CMD_WRITE, i * ZONE, 1, n->data, 0);
        nzt_queue(n, 1, &cmd);
    }
    nzt_ring(n, 1);
    nzt_step(n, 100000);
    g_assert_false(nzt_poll(n, 1, &cqe));
    g_assert_true(nzt_disable(n));
    nzt_step(n, 10000000);
    g_assert_false(nzt_poll(n, 1, &cqe));
    g_assert_cmpuint(nzt_qom_u64(n, "resets"), ==, 1);
    nzt_enable(n);
    nzt_create_ioq(n, 1, NZT_QSIZE, 0);
    /* the writes had started: their zones moved */
    g_assert_cmphex(nzt_write(n, 1, 1, 1, 1), ==, 0);
    nzt_stop(n);
}

/* Shutdown (Base 3.6.2) */
static void test_shutdown(void)
{
    Nzt *n = nzt_start(DEV(FAST), 1);
    int i;

    g_assert_cmphex(nzt_write(n, 1, 0, 1, 1), ==, 0);
    nzt_wr(n, NVME_REG_CC, nzt_rd(n, NVME_REG_CC) | 1 << CC_SHN_SHIFT);
    for (i = 0; i < 1000 && NVME_CSTS_SHST(nzt_rd(n, NVME_REG_CSTS)) != 2;
         i++) {
        nzt_step(n, 10000);
    }
    g_assert_cmpuint(NVME_CSTS_SHST(nzt_rd(n, NVME_REG_CSTS)), ==, 2);
    nzt_stop(n);
}

/* Queue management errors (Base 5.4, 5.5, 5.6, 5.7) */
static void test_bad_queues(void)
{
    Nzt *n = nzt_boot(DEV(",queues=2"));
    NvmeCmd cmd;

    nzt_enable(n);
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = NVME_ADM_CMD_CREATE_SQ;
    cmd.dptr.prp1 = cpu_to_le64(n->q[1].sq);
    cmd.cdw10 = cpu_to_le32(1 | 15 << 16);
    cmd.cdw11 = cpu_to_le32(NVME_SQ_PC | 1 << 16);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_INVALID_CQID | NVME_DNR);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = NVME_ADM_CMD_CREATE_CQ;
    cmd.dptr.prp1 = cpu_to_le64(n->q[1].cq);
    cmd.cdw10 = cpu_to_le32(3 | 15 << 16);     /* beyond queues=2 */
    cmd.cdw11 = cpu_to_le32(NVME_CQ_PC);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_INVALID_QID | NVME_DNR);
    cmd.cdw10 = cpu_to_le32(1 | 4095 << 16);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==,
                    NVME_MAX_QSIZE_EXCEEDED | NVME_DNR);
    cmd.cdw10 = cpu_to_le32(1 | 15 << 16);
    cmd.cdw11 = cpu_to_le32(NVME_CQ_PC | 9 << 16);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==,
                    NVME_INVALID_IRQ_VECTOR | NVME_DNR);
    cmd.cdw11 = cpu_to_le32(0);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_INVALID_FIELD | NVME_DNR);
    cmd.cdw11 = cpu_to_le32(NVME_CQ_PC);
    cmd.dptr.prp1 = cpu_to_le64(n->q[1].cq + 8);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==,
                    NVME_INVALID_PRP_OFFSET | NVME_DNR);

    nzt_create_ioq(n, 1, 16, 0);
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = NVME_ADM_CMD_DELETE_CQ;
    cmd.cdw10 = cpu_to_le32(1);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==,
                    NVME_INVALID_QUEUE_DEL | NVME_DNR);
    cmd.opcode = NVME_ADM_CMD_DELETE_SQ;
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, 0);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_INVALID_QID | NVME_DNR);
    cmd.opcode = NVME_ADM_CMD_DELETE_CQ;
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, 0);
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = 0x7e;
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_INVALID_OPCODE | NVME_DNR);
    nzt_stop(n);
}

/* Bad I/O: opcode, namespace, PRPs, SGLs, MDTS, CID reuse */
static void test_bad_io(void)
{
    Nzt *n = nzt_start(DEV(",lat-write-ns=1000000"), 1);
    NvmeCmd cmd;
    NvmeCqe cqe;

    nzt_rw_cmd(&cmd, 0x7f, 0, 1, n->data, 0);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_INVALID_OPCODE | NVME_DNR);
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 1, n->data, 0);
    cmd.nsid = cpu_to_le32(5);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_INVALID_NSID | NVME_DNR);
    /* two pages, PRP2 not page aligned */
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 2, n->data, n->data + 4096 + 8);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_INVALID_PRP_OFFSET | NVME_DNR);
    /* beyond MDTS (512 KiB) */
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 129, n->data, n->prp_list);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_INVALID_FIELD | NVME_DNR);
    /* a PRP1 outside guest memory */
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 1, 0xfff0000000000ULL, 0);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_DATA_TRAS_ERROR);
    /* SGL: a bit bucket in a write; a data block shorter than the data */
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 0, 1, 0, 0);
    cmd.flags = NVME_PSDT_SGL_MPTR_CONTIGUOUS << 6;
    cmd.dptr.sgl.addr = cpu_to_le64(n->data);
    cmd.dptr.sgl.len = cpu_to_le32(4096);
    cmd.dptr.sgl.type = NVME_SGL_DESCR_TYPE_BIT_BUCKET << 4;
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_SGL_DESCR_TYPE_INVALID | NVME_DNR);
    cmd.dptr.sgl.type = NVME_SGL_DESCR_TYPE_DATA_BLOCK << 4;
    cmd.dptr.sgl.len = cpu_to_le32(512);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_DATA_SGL_LEN_INVALID | NVME_DNR);
    /* a CID still outstanding */
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 0, 1, n->data, 0);
    cmd.cid = cpu_to_le16(0x77);
    qtest_memwrite(n->qts, n->q[1].sq + n->q[1].sq_tail * 64, &cmd, 64);
    n->q[1].sq_tail++;
    qtest_memwrite(n->qts, n->q[1].sq + n->q[1].sq_tail * 64, &cmd, 64);
    n->q[1].sq_tail++;
    nzt_ring(n, 1);
    nzt_wait(n, 1, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_CID_CONFLICT | NVME_DNR);
    nzt_wait(n, 1, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    g_assert_cmpuint(nzt_qom_u64(n, "cid-conflicts"), ==, 1);
    nzt_stop(n);
}

/* SGL with a segment list; a read with a bit bucket */
static void test_sgl(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = g_strdup_printf(
        "-drive if=none,id=d0,file=%s,format=raw " DEV(FAST)
        " -device nvme-zns-ns,bus=nz0,drive=d0", img);
    Nzt *n = nzt_start(args, 1);
    NvmeSglDescriptor seg[3];
    uint64_t list = n->prp_list;
    NvmeCmd cmd;
    NvmeCqe cqe;

    /* write 2 blocks: 4 KiB + 4 KiB from two data blocks in a segment */
    qtest_memset(n->qts, n->data, 0x31, 4096);
    qtest_memset(n->qts, n->data + 8192, 0x32, 4096);
    memset(seg, 0, sizeof(seg));
    seg[0].addr = cpu_to_le64(n->data);
    seg[0].len = cpu_to_le32(4096);
    seg[1].addr = cpu_to_le64(n->data + 8192);
    seg[1].len = cpu_to_le32(4096);
    qtest_memwrite(n->qts, list, seg, 2 * sizeof(seg[0]));
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 0, 2, 0, 0);
    cmd.flags = NVME_PSDT_SGL_MPTR_CONTIGUOUS << 6;
    cmd.dptr.sgl.addr = cpu_to_le64(list);
    cmd.dptr.sgl.len = cpu_to_le32(2 * sizeof(seg[0]));
    cmd.dptr.sgl.type = NVME_SGL_DESCR_TYPE_LAST_SEGMENT << 4;
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    g_assert_cmpuint(nzt_zone_state(n, 0, NULL), ==,
                     NVME_ZONE_STATE_IMPLICITLY_OPEN);
    /* two RAM data blocks: mapped for the drive */
    g_assert_cmpuint(nzt_qom_u64(n, "data-mapped"), ==, 1);
    g_assert_cmpuint(nzt_qom_u64(n, "data-bounced"), ==, 0);

    /* a last segment that chains another segment is invalid */
    seg[1].type = NVME_SGL_DESCR_TYPE_SEGMENT << 4;
    seg[1].addr = cpu_to_le64(list);
    seg[1].len = cpu_to_le32(32);
    qtest_memwrite(n->qts, list, seg, 2 * sizeof(seg[0]));
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, 2, 2, 0, 0);
    cmd.flags = NVME_PSDT_SGL_MPTR_CONTIGUOUS << 6;
    cmd.dptr.sgl.addr = cpu_to_le64(list);
    cmd.dptr.sgl.len = cpu_to_le32(32);
    cmd.dptr.sgl.type = NVME_SGL_DESCR_TYPE_LAST_SEGMENT << 4;
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_INVALID_SGL_SEG_DESCR | NVME_DNR);

    /* read 2 blocks: the first into a bit bucket */
    memset(seg, 0, sizeof(seg));
    seg[0].len = cpu_to_le32(4096);
    seg[0].type = NVME_SGL_DESCR_TYPE_BIT_BUCKET << 4;
    seg[1].addr = cpu_to_le64(n->data + 16384);
    seg[1].len = cpu_to_le32(4096);
    qtest_memwrite(n->qts, list, seg, 2 * sizeof(seg[0]));
    nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 2, 0, 0);
    cmd.flags = NVME_PSDT_SGL_MPTR_CONTIGUOUS << 6;
    cmd.dptr.sgl.addr = cpu_to_le64(list);
    cmd.dptr.sgl.len = cpu_to_le32(2 * sizeof(seg[0]));
    cmd.dptr.sgl.type = NVME_SGL_DESCR_TYPE_LAST_SEGMENT << 4;
    qtest_memset(n->qts, n->data + 16384, 0, 4096);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    /* block 0 went to the bucket, block 1 (0x32) to the data block */
    g_assert_cmphex(qtest_readb(n->qts, n->data + 16384), ==, 0x32);
    g_assert_cmphex(qtest_readb(n->qts, n->data + 16384 + 4095), ==, 0x32);
    /* a bit bucket is no memory to map: the read went through the buffer */
    g_assert_cmpuint(nzt_qom_u64(n, "data-mapped"), ==, 1);
    g_assert_cmpuint(nzt_qom_u64(n, "data-bounced"), ==, 1);
    nzt_stop(n);
    unlink(img);
}

/* Writes and reads across a zone's capacity and its end (ZNS 3.4.1) */
static void test_zone_boundary(void)
{
    Nzt *n = nzt_boot(DEV(FAST) " -device nvme-zns-ns,bus=nz0,zone-size=64K,"
                      "zone-capacity=48K,cross-zone-read=off");
    uint8_t buf[8 * 4096];

    nzt_enable(n);
    nzt_create_ioq(n, 1, NZT_QSIZE, 0);
    g_assert_cmphex(nzt_write(n, 1, 0, 10, 1), ==, 0);
    /* from the write pointer past the capacity (12 blocks) */
    g_assert_cmphex(nzt_write(n, 1, 10, 4, 1), ==,
                    NVME_ZONE_BOUNDARY_ERROR | NVME_DNR);
    g_assert_cmphex(nzt_write(n, 1, 10, 2, 1), ==, 0);
    g_assert_cmpuint(nzt_zone_state(n, 0, NULL), ==, NVME_ZONE_STATE_FULL);
    g_assert_cmphex(nzt_write(n, 1, 12, 1, 1), ==,
                    NVME_ZONE_FULL | NVME_DNR);
    /* OZCS.RAZB clear: a read across zones fails, one within does not */
    g_assert_cmphex(nzt_read(n, 1, 14, 4, buf), ==,
                    NVME_ZONE_BOUNDARY_ERROR | NVME_DNR);
    g_assert_cmphex(nzt_read(n, 1, 0, 8, buf), ==, 0);
    nzt_stop(n);
}

/*
 * A reset with reads of a drive in the controller (their service time
 * holds them there, whether or not their backend I/O has ended): CC.EN
 * 1 -> 0, then a system reset: no CQE after either, and the controller
 * works again.
 */
static void test_reset_drive(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = g_strdup_printf(
        "-drive if=none,id=d0,file=%s,format=raw "
        DEV(",lat-read-ns=1000000,xfer-read-ns-per-4k=0")
        " -device nvme-zns-ns,bus=nz0,drive=d0", img);
    Nzt *n = nzt_start(args, 1);
    NvmeCmd cmd;
    NvmeCqe cqe;
    QDict *rsp;
    int i, round;

    for (round = 0; round < 2; round++) {
        for (i = 0; i < 8; i++) {
            nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 128, n->data, n->prp_list);
            nzt_queue(n, 1, &cmd);
        }
        nzt_ring(n, 1);
        if (round == 0) {
            g_assert_true(nzt_disable(n));
        } else {
            rsp = qtest_qmp(n->qts, "{ 'execute': 'system_reset' }");
            qobject_unref(rsp);
            qtest_qmp_eventwait(n->qts, "RESET");
            /* the reset cleared the BARs: map them again */
            qpci_iounmap(n->dev, n->bar);
            n->bar = qpci_iomap(n->dev, 0, NULL);
            qpci_device_enable(n->dev);
        }
        nzt_step(n, 1000000);
        g_assert_false(nzt_poll(n, 1, &cqe));
        nzt_enable(n);
        nzt_create_ioq(n, 1, NZT_QSIZE, 0);
        g_assert_cmphex(nzt_read(n, 1, 0, 1, NULL), ==, 0);
    }
    nzt_stop(n);
    unlink(img);
}

/* Abort (Base 5.1) and Delete SQ with commands pending (Base 5.7) */
static void test_abort(void)
{
    Nzt *n = nzt_start(DEV(",lat-write-ns=1000000,max-parallel=1"), 2);
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_ABORT };
    NvmeCqe cqe;
    uint16_t cid[3];
    int i;

    for (i = 0; i < 3; i++) {
        NvmeCmd w;

        nzt_rw_cmd(&w, NVME_CMD_WRITE, i * ZONE, 1, n->data, 0);
        cid[i] = nzt_queue(n, 1, &w);
    }
    nzt_ring(n, 1);
    nzt_step(n, 10000);
    /* the third waits behind the first: aborted, dword 0 bit 0 clear */
    cmd.cdw10 = cpu_to_le32(1 | (uint32_t)cid[2] << 16);
    nzt_admin(n, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    g_assert_cmpuint(le32_to_cpu(cqe.result) & 1, ==, 0);
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid[2]);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_CMD_ABORT_REQ);
    /* the first is in service: not aborted */
    cmd.cdw10 = cpu_to_le32(1 | (uint32_t)cid[0] << 16);
    nzt_admin(n, &cmd, &cqe);
    g_assert_cmpuint(le32_to_cpu(cqe.result) & 1, ==, 1);
    /* delete SQ 1: the second ends as aborted by the deletion */
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = NVME_ADM_CMD_DELETE_SQ;
    cmd.cdw10 = cpu_to_le32(1);
    nzt_admin(n, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid[1]);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_CMD_ABORT_SQ_DEL);
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid[0]);
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    nzt_stop(n);
}

/* Doorbells of no queue or beyond one: an error event (Base 5.2) */
static void test_bad_doorbell(void)
{
    Nzt *n = nzt_start(DEV(FAST), 1);
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_ASYNC_EV_REQ };
    NvmeCqe cqe;
    uint16_t cid;

    cid = nzt_queue(n, 0, &cmd);
    nzt_ring(n, 0);
    nzt_step(n, 10000);
    g_assert_false(nzt_poll(n, 0, &cqe));
    nzt_wr(n, 0x1000 + 8 * 5, 1);           /* SQ 5 does not exist */
    nzt_wait(n, 0, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid);
    g_assert_cmphex(le32_to_cpu(cqe.result), ==,
                    NVME_AER_TYPE_ERROR |
                    NVME_AER_INFO_ERR_INVALID_DB_REGISTER << 8 |
                    NVME_LOG_ERROR_INFO << 16);
    nzt_wr(n, 0x1000 + 8, 4000);            /* beyond SQ 1 */
    g_assert_cmpuint(nzt_qom_u64(n, "invalid-doorbells"), ==, 2);
    /* the controller still works */
    g_assert_cmphex(nzt_write(n, 1, 0, 1, 1), ==, 0);
    nzt_stop(n);
}

/*
 * A zone the controller changed (inject-read-only / inject-offline): the
 * Zone Descriptor Changed notice, the Changed Zone List, the statuses
 */
static void test_zone_changed(void)
{
    Nzt *n = nzt_start(DEV(FAST) " -device nvme-zns-ns,bus=nz0,id=ns1", 1);
    NvmeCmd aer = { .opcode = NVME_ADM_CMD_ASYNC_EV_REQ };
    uint8_t log[4096];
    NvmeCqe cqe;
    QDict *r;
    uint16_t cid;

    g_assert_cmphex(nzt_set_feature(n, NVME_ASYNCHRONOUS_EVENT_CONF, 1u << 27,
                                    NULL), ==, 0);
    cid = nzt_queue(n, 0, &aer);
    nzt_ring(n, 0);
    g_assert_cmphex(nzt_write(n, 1, 2 * ZONE, 1, 1), ==, 0);
    r = qtest_qmp(n->qts, "{ 'execute': 'qom-set', 'arguments': "
                  "{ 'path': '/machine/peripheral/ns1', "
                  "'property': 'inject-read-only', 'value': %d } }",
                  2 * ZONE + 5);
    g_assert_false(qdict_haskey(r, "error"));
    qobject_unref(r);
    nzt_wait(n, 0, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid);
    /* notice (2), Zone Descriptor Changed (EFh), log page BFh */
    g_assert_cmphex(le32_to_cpu(cqe.result), ==, 0xbfef02);
    g_assert_cmphex(nzt_get_log(n, 0xbf, NVME_CSI_ZONED, 1, log, 4096), ==, 0);
    g_assert_cmpuint(lduw_le_p(log), ==, 1);
    g_assert_cmphex(ldq_le_p(log + 8), ==, 2 * ZONE);
    /* read, it is empty again */
    g_assert_cmphex(nzt_get_log(n, 0xbf, NVME_CSI_ZONED, 1, log, 4096), ==, 0);
    g_assert_cmpuint(lduw_le_p(log), ==, 0);

    g_assert_cmpuint(nzt_zone_state(n, 2 * ZONE, NULL), ==,
                     NVME_ZONE_STATE_READ_ONLY);
    g_assert_cmphex(nzt_write(n, 1, 2 * ZONE + 1, 1, 1), ==,
                    NVME_ZONE_READ_ONLY | NVME_DNR);
    g_assert_cmphex(nzt_read(n, 1, 2 * ZONE, 1, NULL), ==, 0);
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_ZONE_INVAL_TRANSITION | NVME_DNR);
    /* Offline Zone takes a read-only zone offline (ZNS 4.3.1.5) */
    g_assert_cmphex(nzt_zms(n, 2 * ZONE, NVME_ZONE_ACTION_OFFLINE, false), ==,
                    0);
    g_assert_cmpuint(nzt_zone_state(n, 2 * ZONE, NULL), ==,
                     NVME_ZONE_STATE_OFFLINE);
    g_assert_cmphex(nzt_read(n, 1, 2 * ZONE, 1, NULL), ==,
                    NVME_ZONE_OFFLINE | NVME_DNR);
    /* an LBA beyond the namespace: refused */
    r = qtest_qmp(n->qts, "{ 'execute': 'qom-set', 'arguments': "
                  "{ 'path': '/machine/peripheral/ns1', "
                  "'property': 'inject-offline', 'value': %d } }",
                  1 << 30);
    g_assert_true(qdict_haskey(r, "error"));
    qobject_unref(r);
    nzt_stop(n);
}

/*
 * More commands rung than the controller has contexts for (256): the
 * fetch stops and goes on as commands complete, with no further doorbell.
 */
static void test_many(void)
{
    Nzt *n = nzt_start(DEV(FAST ",lat-read-ns=100000,max-parallel=8"), 5);
    NvmeCmd cmd;
    NvmeCqe cqe;
    uint32_t q, i, got = 0, steps = 0;

    for (q = 1; q <= 5; q++) {
        for (i = 0; i < NZT_QSIZE - 1; i++) {
            nzt_rw_cmd(&cmd, NVME_CMD_READ, q * ZONE + i, 1, n->data, 0);
            nzt_queue(n, q, &cmd);
        }
        nzt_ring(n, q);
    }
    while (got < 5 * (NZT_QSIZE - 1)) {
        for (q = 1; q <= 5; q++) {
            while (nzt_poll(n, q, &cqe)) {
                g_assert_cmphex(NZT_SC(&cqe), ==, 0);
                got++;
            }
        }
        nzt_step(n, 100000);
        g_assert_cmpuint(++steps, <, 10000);
    }
    nzt_stop(n);
}

/* CQ full: completions wait for the host to move the head */
static void test_cq_full(void)
{
    Nzt *n = nzt_boot(DEV(FAST));
    NvmeCmd cmd;
    NvmeCqe cqe;
    int i;

    nzt_enable(n);
    nzt_create_ioq(n, 1, 4, 0);
    nzt_create_ioq(n, 2, 4, 0);
    /* SQ 2 completes into CQ 3: 2 entries, 1 usable */
    nzt_delete_q(n, 2, false);
    nzt_create_cq(n, 3, 2, n->q[3].cq, 0);
    nzt_create_sq(n, 2, 4, n->q[2].sq, 3);
    n->q[2] = (NztQueue) { .sq = n->q[2].sq, .cq = n->q[3].cq, .size = 4,
                           .phase = true };
    for (i = 0; i < 2; i++) {
        nzt_rw_cmd(&cmd, NVME_CMD_READ, 0, 1, n->data, 0);
        nzt_queue(n, 2, &cmd);
    }
    nzt_ring(n, 2);
    nzt_step(n, 100000);
    /* one CQE posted; the second waits: slot 1 still has phase 0 */
    g_assert_cmpuint(qtest_readw(n->qts, n->q[3].cq + 16 + 14) & 1, ==, 0);
    n->q[2].size = 2;                       /* the CQ's size, for polling */
    g_assert_true(nzt_poll_cq(n, 2, 3, &cqe));  /* the head moves */
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    nzt_step(n, 10000);
    g_assert_true(nzt_poll_cq(n, 2, 3, &cqe));
    g_assert_cmphex(NZT_SC(&cqe), ==, 0);
    nzt_stop(n);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/nvme-zns/bringup", test_bringup);
    qtest_add_func("/nvme-zns/identify-ns", test_identify_ns);
    qtest_add_func("/nvme-zns/log-pages", test_log_pages);
    qtest_add_func("/nvme-zns/features", test_features);
    qtest_add_func("/nvme-zns/write-read", test_write_read);
    qtest_add_func("/nvme-zns/read-race", test_read_race);
    qtest_add_func("/nvme-zns/intx", test_intx);
    qtest_add_func("/nvme-zns/coalescing", test_coalescing);
    qtest_add_func("/nvme-zns/zone-invalid-write", test_zone_invalid_write);
    qtest_add_func("/nvme-zns/zone-invalid-write-dnr",
                   test_zone_invalid_write_dnr);
    qtest_add_func("/nvme-zns/append", test_append);
    qtest_add_func("/nvme-zns/hotplug-default-ns", test_hotplug_default_ns);
    qtest_add_func("/nvme-zns/zone-desc-ext", test_zone_desc_ext);
    qtest_add_func("/nvme-zns/zone-state/restart", test_zone_state_restart);
    qtest_add_func("/nvme-zns/zone-state/errors", test_zone_state_errors);
    qtest_add_func("/nvme-zns/zone-state/durable", test_zone_state_durable);
    qtest_add_func("/nvme-zns/zone-state/reset-during-sync",
                   test_zone_state_reset_sync);
    qtest_add_func("/nvme-zns/zone-mgmt", test_zone_mgmt);
    qtest_add_func("/nvme-zns/report", test_report);
    qtest_add_func("/nvme-zns/order", test_order);
    qtest_add_func("/nvme-zns/start-log", test_start_log);
    qtest_add_func("/nvme-zns/wrr", test_wrr);
    qtest_add_func("/nvme-zns/reorder-writes", test_reorder_writes);
    qtest_add_func("/nvme-zns/reset-inflight", test_reset_inflight);
    qtest_add_func("/nvme-zns/shutdown", test_shutdown);
    qtest_add_func("/nvme-zns/bad-queues", test_bad_queues);
    qtest_add_func("/nvme-zns/bad-io", test_bad_io);
    qtest_add_func("/nvme-zns/sgl", test_sgl);
    qtest_add_func("/nvme-zns/abort", test_abort);
    qtest_add_func("/nvme-zns/bad-doorbell", test_bad_doorbell);
    qtest_add_func("/nvme-zns/cq-full", test_cq_full);
    qtest_add_func("/nvme-zns/zone-boundary", test_zone_boundary);
    qtest_add_func("/nvme-zns/reset-drive", test_reset_drive);
    qtest_add_func("/nvme-zns/zone-changed", test_zone_changed);
    qtest_add_func("/nvme-zns/many", test_many);
    return g_test_run();
}
