/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtests of ufs-zoned in mode=mcq (UFSHCI 4.0 multi-circular queues):
 * the capability and offset registers Linux 6.12 reads, bring-up on the
 * legacy doorbell and then MCQ the way ufshcd_config_mcq does it, SCSI
 * I/O through SQs with CQEs, SQ and CQ wrap, a full CQ holding
 * completions back, MCQCONFIG.MAC, queue delete and re-create, SQ stop,
 * start and cleanup, nullified entries, completions waiting for a full CQ
 * after their SQ was re-created, auto-hibernate batching across SQs, the
 * start order each reorder policy gives commands spread over two SQs, and
 * bad doorbells and queue configuration.
 *
 * Time only moves with clock_step, so the start order is exact.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "scsi/constants.h"
#include "zr-ufs-helpers.h"

static Ufs *mcq_start(const char *props, uint32_t nq, uint32_t entries)
{
    Ufs *u = ufs_start(props);

    ufs_mcq_enable(u, nq, entries);
    return u;
}

static void tur(Ufs *u, int slot)
{
    uint8_t cdb[16] = { TEST_UNIT_READY };
    UfsResp r;

    scsi(u, slot, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, NULL, 0, &r);
    assert_good(&r);
}

/* Put slot @slot's TEST UNIT READY in SQ @sq, not rung. */
static void queue_tur(Ufs *u, uint32_t sq, int slot)
{
    uint8_t cdb[16] = { TEST_UNIT_READY };

    prep_scsi(u, slot, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    ufs_mcq_queue(u, sq, slot);
}

static uint32_t opr(Ufs *u, uint32_t q, uint32_t off)
{
    return rd(u, ufs_mcq_sq_reg(q, off));
}

static void step(Ufs *u, int64_t ns)
{
    ufs_step(u, ns);
}

/* --- tests ------------------------------------------------------------ */

/* What ufshcd_hba_capabilities, ufs_qemu_op_runtime_config and
 * ufshcd_device_params_init read, then MCQ on and a NOP through SQ 0. */
static void test_bringup(void)
{
    Ufs *u = ufs_boot("mcq-queues=4");
    uint32_t cap = rd(u, A_CAP), mcqcap = rd(u, A_MCQCAP);
    UfsResp r;
    uint32_t q;

    g_assert_cmpuint(FIELD_EX32(cap, CAP, MCQS), ==, 1);
    g_assert_cmpuint(FIELD_EX32(cap, CAP, LSDBS), ==, 0);
    g_assert_cmpuint(FIELD_EX32(mcqcap, MCQCAP, MAXQ), ==, 3);
    g_assert_cmpuint(FIELD_EX32(mcqcap, MCQCAP, RRP), ==, 1);
    g_assert_cmpuint(FIELD_EX32(mcqcap, MCQCAP, EIS), ==, 0);
    g_assert_cmpuint(FIELD_EX32(mcqcap, MCQCAP, QCFGPTR), ==, 2);
    for (q = 0; q < 4; q++) {
        uint32_t base = 0x1000 + q * 48;

        g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(q, A_SQDAO)), ==, base);
        g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(q, A_SQISAO)), ==, base + 0x14);
        g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(q, A_CQDAO)), ==, base + 0x1c);
        g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(q, A_CQISAO)), ==, base + 0x24);
        g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(q, A_SQATTR)), ==, 0);
    }
    g_assert_cmphex(rd(u, A_CONFIG), ==, 0);

    /* Bring-up runs on the legacy doorbell, MCQ still off */
    ufs_bringup(u);
    nop(u, NUTRS - 1);
    read_desc(u, UFS_QUERY_DESC_IDN_DEVICE, 0, &r);
    g_assert_cmpuint(r.data[0x21], ==, 64);     /* bQueueDepth */

    ufs_mcq_enable(u, 3, 8);
    g_assert_cmphex(rd(u, A_CONFIG), ==, 1);
    g_assert_cmphex(rd(u, A_MCQCONFIG), ==, (NUTRS - 1) << 8);
    nop(u, NUTRS - 1);
    g_assert_cmpuint(u->q[0].cqes, ==, 1);
    g_assert_cmphex(opr(u, 0, SQHP), ==, 32);
    g_assert_cmphex(opr(u, 0, CQTP), ==, 32);
    query_expect(u, false, OP_READ_FLAG, UFS_QUERY_FLAG_IDN_FDEVICEINIT, 0,
                 0);
    g_assert_cmpuint(u->q[0].cqes, ==, 2);
    lu_ready(u, 0);
    ufs_stop(u);
}

/* Data through SQ 1 and back through SQ 0 on a file-backed LU. */
static void test_read_write(void)
{
    g_autofree char *path = NULL;
    g_autofree char *props = NULL;
    g_autofree uint8_t *buf = g_malloc(BLK);
    g_autofree char *starts = NULL;
    uint8_t cdb[16];
    UfsResp r;
    Ufs *u;
    int fd;

    fd = g_file_open_tmp("zr-ufs-mcq-XXXXXX", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, 16 * MiB), ==, 0);
    close(fd);
    props = g_strdup_printf("mcq-queues=4 -drive if=none,id=d0,format=raw,"
                            "file=%s -device scsi-zbc,bus=ufs0.0,lun=0,"
                            "drive=d0", path);
    u = mcq_start(props, 2, 8);

    u->sq = 1;
    write1(u, 3, ZONE_BLOCKS, 0x5a, &r);
    assert_good(&r);
    g_assert_cmpuint(u->q[1].cqes, ==, 1);
    u->sq = 0;
    zr_cdb_rw16(cdb, READ_16, ZONE_BLOCKS, 1);
    scsi(u, 4, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, BLK, &r);
    assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmphex(buf[0], ==, 0x5a);
    g_assert_cmphex(buf[BLK - 1], ==, 0x5a);
    starts = qom_str(u, "queue-starts");
    /* SQ 0: the legacy TEST UNIT READY of bring-up and the read */
    g_assert_cmpstr(starts, ==, "3,1,0,0");
    ufs_stop(u);
    unlink(path);
}

/* Four-entry queues wrap; a full CQ holds completions back. */
static void test_cq_wrap(void)
{
    Ufs *u = mcq_start("", 2, 4);
    uint32_t size = 4 * 8 - 1;
    int i;

    for (i = 0; i < 10; i++) {
        tur(u, i);
    }
    g_assert_cmpuint(u->q[0].cqes, ==, 10);
    g_assert_cmphex(opr(u, 0, SQHP), ==, (10 % 4) * 32);
    g_assert_cmphex(opr(u, 0, CQTP), ==, (10 % 4) * 32);
    g_assert_cmphex(opr(u, 0, CQHP), ==, (10 % 4) * 32);

    /* SQ 1 re-created to complete into CQ 0: six CQEs, room for three */
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), QEN | 0 << 16 | size);
    u->q[1].sq_tail = 0;
    for (i = 0; i < 3; i++) {
        queue_tur(u, 0, 10 + i);
        queue_tur(u, 1, 13 + i);
    }
    ufs_mcq_ring(u, 0);
    ufs_mcq_ring(u, 1);
    step(u, 10 * 1000 * 1000);
    g_assert_cmphex(opr(u, 0, CQTP), ==, ((10 + 3) % 4) * 32);
    g_assert_cmphex(opr(u, 0, CQHP), ==, (10 % 4) * 32);
    g_assert_cmphex(opr(u, 1, CQTP), ==, 0);
    wait_done(u, 0x3f << 10);
    g_assert_cmpuint(u->q[0].cqes, ==, 16);
    for (i = 10; i < 16; i++) {
        g_assert_cmphex(u->cqe_ocs[i], ==, OCS_SUCCESS);
    }
    ufs_stop(u);
}

/*
 * A command waiting for room in a full CQ completes into the CQ its SQ
 * named when it was fetched, even after the SQ is re-created on another
 * CQ.  An SQ cleanup finds it done: it keeps its one CQE (OCS SUCCESS).
 */
static void test_cq_wait_recreate(void)
{
    Ufs *u = mcq_start("", 2, 4);
    uint32_t size = 4 * 8 - 1;
    int i;

    /* SQ 1 completes into CQ 0, which has room for three CQEs */
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), QEN | 0 << 16 | size);
    u->q[1].sq_tail = 0;
    for (i = 1; i <= 3; i++) {
        queue_tur(u, 0, i);
    }
    queue_tur(u, 1, 4);
    queue_tur(u, 1, 5);
    ufs_mcq_ring(u, 0);
    ufs_mcq_ring(u, 1);
    step(u, 10 * 1000 * 1000);
    g_assert_cmphex(opr(u, 0, CQTP), ==, 3 * 32);

    /* SQ 1 re-created on CQ 1; then tag 5, done and waiting, cleaned up */
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), QEN | 1 << 16 | size);
    u->q[1].sq_tail = 0;
    wr(u, ufs_mcq_sq_reg(1, SQRTC), 1);
    ufs_mcq_cleanup(u, 1, 0, 5);
    wr(u, ufs_mcq_sq_reg(1, SQRTC), 0);

    /* Four more through SQ 1: three fill CQ 1, the fourth waits there */
    for (i = 6; i <= 8; i++) {
        queue_tur(u, 1, i);
    }
    ufs_mcq_ring(u, 1);
    queue_tur(u, 1, 9);
    ufs_mcq_ring(u, 1);
    step(u, 10 * 1000 * 1000);
    g_assert_cmphex(opr(u, 1, CQTP), ==, 3 * 32);

    /* CQ 0 gets tags 4 and 5; CQ 1 gets its four */
    wait_done(u, 0x3fe);
    step(u, 10 * 1000 * 1000);
    ufs_mcq_reap(u, 0);
    ufs_mcq_reap(u, 1);
    g_assert_cmpuint(u->q[0].cqes, ==, 5);
    g_assert_cmpuint(u->q[1].cqes, ==, 4);
    g_assert_cmphex(u->cqe_ocs[5], ==, OCS_SUCCESS);
    ufs_stop(u);
}

/* MCQCONFIG.MAC bounds the commands fetched and not yet completed. */
static void test_mac(void)
{
    Ufs *u = mcq_start("lat-other-ns=1000000,max-parallel=0", 1, 8);
    int i;

    wr(u, A_MCQCONFIG, 1 << 8);         /* two active commands */
    for (i = 0; i < 5; i++) {
        queue_tur(u, 0, i);
    }
    ufs_mcq_ring(u, 0);
    step(u, STEP_NS);           /* fetched on the work BH */
    g_assert_cmphex(opr(u, 0, SQHP), ==, 2 * 32);
    step(u, 1000 * 1000);
    g_assert_cmphex(opr(u, 0, SQHP), ==, 4 * 32);
    wait_done(u, 0x1f);
    g_assert_cmphex(opr(u, 0, SQHP), ==, 5 * 32);
    ufs_stop(u);
}

/* A queue deleted (attributes 0) and re-created with another size works. */
static void test_queue_recreate(void)
{
    Ufs *u = mcq_start("", 1, 4);
    uint64_t sq = guest_alloc(&u->alloc, 16 * 32);
    uint64_t cq = guest_alloc(&u->alloc, 16 * 32);

    tur(u, 1);
    tur(u, 2);
    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_CQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_SQLBA), sq & 0xffffffff);
    wr(u, ufs_mcq_cfg_reg(0, A_SQUBA), sq >> 32);
    wr(u, ufs_mcq_cfg_reg(0, A_CQLBA), cq & 0xffffffff);
    wr(u, ufs_mcq_cfg_reg(0, A_CQUBA), cq >> 32);
    wr(u, ufs_mcq_cfg_reg(0, A_CQATTR), QEN | (16 * 8 - 1));
    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), QEN | (16 * 8 - 1));
    g_assert_cmphex(opr(u, 0, SQHP), ==, 0);
    g_assert_cmphex(opr(u, 0, CQTP), ==, 0);
    u->q[0].sq = sq;
    u->q[0].cq = cq;
    u->q[0].sq_tail = u->q[0].cq_head = 0;
    u->entries = 16;
    tur(u, 3);
    tur(u, 4);
    g_assert_cmphex(opr(u, 0, CQTP), ==, 2 * 32);
    ufs_stop(u);
}

/* Bad doorbells and queue configuration are ignored, never fatal. */
static void test_bad_config(void)
{
    Ufs *u = mcq_start("mcq-queues=4", 2, 4);
    uint32_t size = 4 * 8 - 1;
    uint64_t base = guest_alloc(&u->alloc, 4096);

    /* SQ 2: CQID naming no queue, bad sizes, unaligned base */
    wr(u, ufs_mcq_cfg_reg(2, A_SQLBA), base & 0xffffffff);
    wr(u, ufs_mcq_cfg_reg(2, A_SQUBA), base >> 32);
    wr(u, ufs_mcq_cfg_reg(2, A_SQATTR), QEN | 7 << 16 | size);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(2, A_SQATTR)) & QEN, ==, 0);
    wr(u, ufs_mcq_cfg_reg(2, A_SQATTR), QEN | 1 << 16 | 10);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(2, A_SQATTR)) & QEN, ==, 0);
    wr(u, ufs_mcq_cfg_reg(2, A_SQATTR), QEN | 1 << 16 | 7);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(2, A_SQATTR)) & QEN, ==, 0);
    wr(u, ufs_mcq_cfg_reg(2, A_SQLBA), (base & 0xffffffff) + 8);
    wr(u, ufs_mcq_cfg_reg(2, A_SQATTR), QEN | 1 << 16 | size);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(2, A_SQATTR)) & QEN, ==, 0);

    /* Doorbells of a disabled queue, beyond the size, not entry-aligned */
    wr(u, ufs_mcq_sq_reg(2, SQTP), 32);
    g_assert_cmphex(opr(u, 2, SQTP), ==, 0);
    wr(u, ufs_mcq_sq_reg(0, SQTP), 4 * 32);
    g_assert_cmphex(opr(u, 0, SQTP), ==, 0);
    wr(u, ufs_mcq_sq_reg(0, SQTP), 16);
    g_assert_cmphex(opr(u, 0, SQTP), ==, 0);
    wr(u, ufs_mcq_sq_reg(0, CQHP), 5 * 32);
    g_assert_cmphex(opr(u, 0, CQHP), ==, 0);
    wr(u, ufs_mcq_sq_reg(3, CQHP), 32);
    g_assert_cmphex(opr(u, 3, CQHP), ==, 0);

    /* Enabled queues keep their base, size and doorbell offsets */
    wr(u, ufs_mcq_cfg_reg(0, A_SQLBA), 0x1000);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(0, A_SQLBA)), ==,
                    u->q[0].sq & 0xffffffff);
    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), QEN | (8 * 8 - 1));
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(0, A_SQATTR)), ==, QEN | size);
    wr(u, ufs_mcq_cfg_reg(0, A_SQDAO), 0x1800);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(0, A_SQDAO)), ==, 0x1000);

    /* Nothing was fetched, and the queues still work */
    g_assert_cmpuint(u->q[0].cqes, ==, 0);
    tur(u, 1);
    u->sq = 1;
    tur(u, 2);
    ufs_stop(u);
}

/* MEM_CFG cannot select MCQ on a legacy controller. */
static void test_legacy_refuses_mcq(void)
{
    Ufs *u;

    ufs_test_mode = "legacy";
    u = ufs_start("");
    ufs_test_mode = "mcq";
    wr(u, A_CONFIG, 1);
    g_assert_cmphex(rd(u, A_CONFIG), ==, 0);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(0, A_SQDAO)), ==, 0);
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(0, SQHP)), ==, 0);
    {
        g_autofree char *mtree = qtest_hmp(u->qts, "info mtree");

        g_assert_null(strstr(mtree, "ufs-zoned-mcq-opr"));    /* no region */
    }
    nop(u, 0);
    ufs_stop(u);
}

/*
 * The operation registers' own region (ufs-zoned-mcq-opr): a queue
 * beyond MCQCONFIG's reads 0 and takes no write, as the register file
 * answers; a byte or word access is refused (dword registers, UFSHCI 4.0
 * 5.1) and changes nothing; the queues still work after both.
 */
static void test_opr_edges(void)
{
    Ufs *u = mcq_start("mcq-queues=2", 2, 8);
    uint32_t tail = opr(u, 0, SQTP);
    g_autofree char *mtree = qtest_hmp(u->qts, "info mtree");

    g_assert_nonnull(strstr(mtree, "ufs-zoned-mcq-opr"));

    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(2, SQHP)), ==, 0);
    wr(u, ufs_mcq_sq_reg(2, SQTP), 0x40);
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(2, SQTP)), ==, 0);
    g_assert_cmphex(rd(u, 0x1ffc), ==, 0);      /* the region's last dword */

    qpci_io_writeb(u->dev, u->bar, ufs_mcq_sq_reg(0, SQTP), 0x20);
    qpci_io_writew(u->dev, u->bar, ufs_mcq_sq_reg(0, SQTP), 0x20);
    qpci_io_readb(u->dev, u->bar, ufs_mcq_sq_reg(0, SQHP));
    g_assert_cmphex(opr(u, 0, SQTP), ==, tail);
    g_assert_cmphex(opr(u, 0, SQHP), ==, tail);

    u->sq = 1;
    tur(u, 1);
    u->sq = 0;
    tur(u, 2);
    ufs_stop(u);
}

/* SQRTC stops and starts fetching; a nullified entry is skipped. */
static void test_sq_stop_start(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint32_t dw0;

    wr(u, ufs_mcq_sq_reg(0, SQRTC), 1);
    g_assert_cmphex(opr(u, 0, SQRTS) & 1, ==, 1);
    queue_tur(u, 0, 5);
    ufs_mcq_ring(u, 0);
    step(u, 1000 * 1000);
    g_assert_cmphex(opr(u, 0, SQHP), ==, 0);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 0);
    g_assert_cmphex(opr(u, 0, SQRTS) & 1, ==, 0);
    wait_done(u, 1u << 5);
    g_assert_cmphex(u->cqe_ocs[5], ==, OCS_SUCCESS);

    /* Linux's ufshcd_mcq_nullify_sqe: command type Fh while stopped */
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 1);
    queue_tur(u, 0, 6);
    dw0 = qtest_readl(u->qts, u->q[0].sq + 32);
    qtest_writel(u->qts, u->q[0].sq + 32, dw0 | 0xf0000000);
    ufs_mcq_ring(u, 0);
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 0);
    step(u, 1000 * 1000);
    g_assert_cmphex(opr(u, 0, SQHP), ==, 2 * 32);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    tur(u, 7);
    ufs_stop(u);
}

/*
 * ufshcd_try_to_abort_task in MCQ: ABORT TASK, then the SQ cleanup of
 * ufshcd_mcq_sq_cleanup; the command never completes, its context is
 * free again.
 */
static void test_sq_cleanup(void)
{
    Ufs *u = mcq_start("lat-write-ns=50000000", 1, 8);
    g_autofree char *log = NULL;
    UfsResp r;

    qom_set_str(u, "start-log", "");
    ufs_queue_write(u, 0, 7, ZONE_BLOCKS);
    ufs_mcq_ring(u, 0);
    step(u, 1000 * 1000);
    log = qom_str(u, "start-log");
    g_assert_cmpstr(log, ==, "0:7");
    g_assert_cmphex(task_mgmt(u, UFS_ABORT_TASK, 0, 7), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);

    /* cleanup while running: CUS with RTC 2h, "SQ not stopped" */
    wr(u, ufs_mcq_sq_reg(0, SQCTI), 7);
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 2);
    g_assert_cmphex(opr(u, 0, SQRTS) & 0xf3, ==, 0x22);

    wr(u, ufs_mcq_sq_reg(0, SQRTC), 1);
    /* SQS, CUS, RTC 0 */
    g_assert_cmphex(ufs_mcq_cleanup(u, 0, 0, 7) & 0xf3, ==, 3);
    /*
     * The cleaned-up command completes with a CQE of OCS ABORTED (what
     * Linux's ufshcd_mcq_abort and LU-reset paths wait for), once, and it
     * is in the CQ by the time CUS is set: Linux polls the CQ right then.
     */
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 1);
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 0);
    g_assert_cmphex(opr(u, 0, SQRTS) & 1, ==, 0);
    wait_done(u, 1u << 7);
    g_assert_cmphex(u->cqe_ocs[7], ==, UFS_OCS_ABORTED);
    g_assert_cmpuint(qom_u64(u, "sq-cleanups"), ==, 1);
    step(u, 100 * 1000 * 1000);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);

    /*
     * The write reached the LU when it started; only its completion was
     * aborted, so the write pointer moved past it.
     */
    write1(u, 7, ZONE_BLOCKS + 1, 0x11, &r);
    assert_good(&r);
    ufs_stop(u);
}

/*
 * Auto-hibernate in MCQ mode: writes rung on two SQs while the link
 * leaves H8 are batched, and `spec` starts them SQ by SQ in order, so the
 * writes to each zone stay in order (unlike the legacy doorbell, where
 * the lowest slot goes first: qtest /ufs-zoned/auto-hibernate).
 */
static void test_auto_hibernate(void)
{
    Ufs *u = mcq_start("auto-hibernate=on,h8-exit-latency=500000,"
                       "reorder=spec,lat-write-ns=10000", 2, 8);
    g_autofree char *order = NULL;
    int slot;

    wr(u, A_AHIT, (2 << 10) | 10);          /* 1 ms */
    step(u, 1000 * 1000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 1);
    g_assert_false(rd(u, A_IS) & R_IS_UHES_MASK);

    qom_set_str(u, "start-log", "");
    ufs_queue_write(u, 0, 1, ZONE_BLOCKS);
    ufs_queue_write(u, 1, 3, 2 * ZONE_BLOCKS);
    ufs_mcq_ring(u, 0);
    ufs_mcq_ring(u, 1);
    ufs_queue_write(u, 0, 2, ZONE_BLOCKS + 1);
    ufs_queue_write(u, 1, 4, 2 * ZONE_BLOCKS + 1);
    ufs_mcq_ring(u, 0);
    ufs_mcq_ring(u, 1);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 1);
    step(u, 499000);
    order = qom_str(u, "start-log");
    g_assert_cmpstr(order, ==, "");
    g_free(order);
    step(u, 1000);
    wait_done(u, 0x1e);
    /*
     * Round-robin goes on from bring-up's last start (SQ 0), so SQ 1
     * comes first; within each SQ the order is the host's.
     */
    order = qom_str(u, "start-log");
    g_assert_cmpstr(order, ==, "1:3,0:1,1:4,0:2");
    for (slot = 1; slot <= 4; slot++) {
        g_assert_cmphex(u->cqe_ocs[slot], ==, OCS_SUCCESS);
    }
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);
    ufs_stop(u);
}

/*
 * Writes to one zone in service together (what a pipelining host does)
 * are counted; in order, they all succeed.
 */
static void test_zone_overlap(void)
{
    Ufs *u = mcq_start("lat-write-ns=1000000", 1, 8);
    int slot;

    for (slot = 1; slot <= 3; slot++) {
        ufs_queue_write(u, 0, slot, ZONE_BLOCKS + slot - 1);
    }
    ufs_queue_write(u, 0, 4, 2 * ZONE_BLOCKS);
    ufs_mcq_ring(u, 0);
    wait_done(u, 0x1e);
    for (slot = 1; slot <= 4; slot++) {
        g_assert_cmphex(u->cqe_ocs[slot], ==, OCS_SUCCESS);
    }
    g_assert_cmpuint(qom_u64(u, "zone-write-overlaps"), ==, 2);
    g_assert_cmpuint(qom_u64(u, "zone-writes-in-flight-max"), ==, 3);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);
    ufs_stop(u);
}

typedef struct McqPolicyCase {
    const char *policy;
    const char *order;          /* start-log; NULL: only reproducible */
    uint64_t unaligned;
} McqPolicyCase;

/*
 * SQ 0 gets writes to zone 1 (slots 1, 2), SQ 1 to zone 2 (slots 3, 4),
 * each pair in LBA order and each SQ rung with one SQTP write.  With one
 * command in service, the first start is the policy's pick of SQ 0's two;
 * the rest are ordered once SQ 1 has rung too.  Each write the policy
 * starts ahead of its zone's earlier one is an UNALIGNED WRITE.
 */
static const McqPolicyCase mcq_policy_cases[] = {
    { "none", "0:1,0:2,1:3,1:4", 0 },
    { "spec", "0:1,1:3,0:2,1:4", 0 },
    { "rr", "0:1,1:3,0:2,1:4", 0 },
    { "reverse", "0:2,1:4,1:3,0:1", 2 },
    { "random", NULL, 0 },
};

static char *mcq_scripted(const char *policy, uint64_t *unaligned)
{
    g_autofree char *props = g_strdup_printf("reorder=%s,reorder-seed=7,"
                                             "max-parallel=1,"
                                             "lat-write-ns=1000000", policy);
    Ufs *u = mcq_start(props, 2, 8);
    g_autofree char *per_lu = NULL;
    char *order;
    int slot;

    qom_set_str(u, "start-log", "");
    ufs_queue_write(u, 0, 1, ZONE_BLOCKS);
    ufs_queue_write(u, 0, 2, ZONE_BLOCKS + 1);
    ufs_queue_write(u, 1, 3, 2 * ZONE_BLOCKS);
    ufs_queue_write(u, 1, 4, 2 * ZONE_BLOCKS + 1);
    ufs_mcq_ring(u, 0);
    step(u, STEP_NS);       /* SQ 0 fetched, its first write started */
    ufs_mcq_ring(u, 1);
    wait_done(u, 0x1e);
    for (slot = 1; slot <= 4; slot++) {
        g_assert_cmphex(u->cqe_ocs[slot], ==, OCS_SUCCESS);
    }
    order = qom_str(u, "start-log");
    *unaligned = qom_u64(u, "unaligned-writes");
    per_lu = qom_str(u, "unaligned-writes-per-lu");
    g_test_message("%s: %s", policy, order);
    g_assert_cmpstr(per_lu, ==, *unaligned == 2 ? "0=2" :
                                *unaligned ? "0=1" : "0=0");
    ufs_stop(u);
    return order;
}

static void test_policy(gconstpointer opaque)
{
    const McqPolicyCase *c = opaque;
    g_autofree char *order = NULL, *again = NULL;
    uint64_t unaligned, unaligned2;

    order = mcq_scripted(c->policy, &unaligned);
    if (c->order) {
        g_assert_cmpstr(order, ==, c->order);
        g_assert_cmpuint(unaligned, ==, c->unaligned);
    } else {
        again = mcq_scripted(c->policy, &unaligned2);
        g_assert_cmpstr(order, ==, again);
        g_assert_cmpuint(unaligned, ==, unaligned2);
    }
}

int main(int argc, char **argv)
{
    size_t i;

    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/ufs-zoned/mcq/bringup", test_bringup);
    qtest_add_func("/ufs-zoned/mcq/read-write", test_read_write);
    qtest_add_func("/ufs-zoned/mcq/cq-wrap", test_cq_wrap);
    qtest_add_func("/ufs-zoned/mcq/cq-wait-recreate", test_cq_wait_recreate);
    qtest_add_func("/ufs-zoned/mcq/mac", test_mac);
    qtest_add_func("/ufs-zoned/mcq/queue-recreate", test_queue_recreate);
    qtest_add_func("/ufs-zoned/mcq/bad-config", test_bad_config);
    qtest_add_func("/ufs-zoned/mcq/legacy-refuses-mcq",
                   test_legacy_refuses_mcq);
    qtest_add_func("/ufs-zoned/mcq/opr-edges", test_opr_edges);
    qtest_add_func("/ufs-zoned/mcq/sq-stop-start", test_sq_stop_start);
    qtest_add_func("/ufs-zoned/mcq/sq-cleanup", test_sq_cleanup);
    qtest_add_func("/ufs-zoned/mcq/auto-hibernate", test_auto_hibernate);
    qtest_add_func("/ufs-zoned/mcq/zone-overlap", test_zone_overlap);
    for (i = 0; i < ARRAY_SIZE(mcq_policy_cases); i++) {
        g_autofree char *name = g_strdup_printf("/ufs-zoned/mcq/policy/%s",
                                                mcq_policy_cases[i].policy);

        qtest_add_data_func(name, &mcq_policy_cases[i], test_policy);
    }
    return g_test_run();
}
