/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtests of the ufs-zoned UFS host controller in mode=legacy (single
 * doorbell; zr-ufs-mcq-test covers MCQ):
 * bring-up the way Linux 6.12's ufshcd does it, NOP, queries, SCSI
 * commands through UPIUs to the zoned LU, the start order each reorder
 * policy gives a scripted doorbell sequence and the UNALIGNED WRITE it
 * causes, and bad descriptors answered with the spec's OCS.
 *
 * Time only moves with clock_step, so the start order is exact.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "hw/pci/pci_regs.h"
#include "qobject/qdict.h"
#include "scsi/constants.h"
#include "zr-ufs-helpers.h"

/* --- tests ------------------------------------------------------------ */

static void test_bringup(void)
{
    Ufs *u = ufs_boot("");
    UfsResp r;
    uint8_t cdb[16];
    uint8_t buf[256];

    g_assert_cmpuint(FIELD_EX32(rd(u, A_CAP), CAP, MCQS), ==, 0);
    g_assert_cmphex(rd(u, A_MCQCAP), ==, 0);
    ufs_bringup(u);
    nop(u, NUTRS - 1);

    /* ufshcd_complete_dev_init: set fDeviceInit, poll until clear */
    query_expect(u, true, OP_SET_FLAG, UFS_QUERY_FLAG_IDN_FDEVICEINIT, 0, 0);
    g_assert_cmpuint(query_expect(u, false, OP_READ_FLAG,
                                  UFS_QUERY_FLAG_IDN_FDEVICEINIT, 0, 0) & 1,
                     ==, 0);

    /* ufshcd_get_max_pwr_mode and ufshcd_change_power_mode */
    uic(u, UFS_UIC_CMD_DME_GET, 0x1561, 0);
    g_assert_cmpuint(rd(u, A_UCMDARG3), ==, 1);
    uic(u, UFS_UIC_CMD_DME_PEER_GET, 0x1587, 0);
    g_assert_cmpuint(rd(u, A_UCMDARG3), >=, 1);
    uic(u, UFS_UIC_CMD_DME_SET, 0x1571, 0x11);
    g_assert_true(rd(u, A_IS) & R_IS_UPMS_MASK);
    g_assert_cmpuint(FIELD_EX32(rd(u, A_HCS), HCS, UPMCRS), ==,
                     UFS_PWR_LOCAL);

    /* Well-known LUs: UFS Device (required), RPMB (required), BOOT */
    zr_cdb_inquiry(cdb, false, 0, 36);
    scsi(u, 0, UFS_UPIU_UFS_DEVICE_WLUN, cdb, UFS_UTP_DEVICE_TO_HOST, buf,
         36, &r);
    assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x1e);
    scsi(u, 0, UFS_UPIU_RPMB_WLUN, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 36, &r);
    assert_good(&r);
    scsi(u, 0, UFS_UPIU_BOOT_WLUN, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 36, &r);
    assert_good(&r);

    /* The default LU 0 is a host-managed zoned disk */
    scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 36, &r);
    assert_good(&r);
    g_assert_cmphex(buf[0] & 0x1f, ==, 0x14);

    /* REPORT LUNS on LUN 0 (what scsi_scan_host sends) and on the W-LUN */
    memset(cdb, 0, sizeof(cdb));
    cdb[0] = REPORT_LUNS;
    stl_be_p(&cdb[6], 256);
    lu_ready(u, 0);
    scsi(u, 2, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 256, &r);
    assert_good(&r);
    g_assert_cmpuint(ldl_be_p(buf), ==, 8);
    g_assert_cmpuint(buf[9], ==, 0);
    scsi(u, 2, UFS_UPIU_REPORT_LUNS_WLUN, cdb, UFS_UTP_DEVICE_TO_HOST, buf,
         256, &r);
    assert_good(&r);
    g_assert_cmpuint(ldl_be_p(buf), ==, 8);

    /* A LUN that does not exist */
    zr_cdb_inquiry(cdb, false, 0, 36);
    scsi(u, 3, 5, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 36, &r);
    g_assert_cmphex(buf[0], ==, 0x7f);

    /* HCE = 0 resets the link; bring-up works again */
    wr(u, A_HCE, 0);
    g_assert_cmpuint(rd(u, A_HCE), ==, 0);
    g_assert_cmpuint(rd(u, A_HCS), ==, 0);
    ufs_bringup(u);
    nop(u, 0);
    ufs_stop(u);
}

/*
 * start-log keeps the last 32 starts, oldest first: TEST UNIT READYs
 * through slots 0-31 and then 0-7 one at a time leave slots 8-31 and
 * 0-7; a write of the property empties it.
 */
static void test_start_log(void)
{
    Ufs *u = ufs_start("");
    uint8_t cdb[16] = { TEST_UNIT_READY };
    g_autoptr(GString) want = g_string_new("");
    g_autofree char *log = NULL;
    g_autofree char *empty = NULL;
    int i;

    qom_set_str(u, "start-log", "");
    for (i = 0; i < 40; i++) {
        UfsResp r;

        prep_scsi(u, i % NUTRS, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
        ring(u, 1u << (i % NUTRS));
        wait_done(u, 1u << (i % NUTRS));
        get_resp(u, i % NUTRS, &r);
        assert_good(&r);
    }
    for (i = 8; i < 40; i++) {
        g_string_append_printf(want, "%s%d", i > 8 ? "," : "", i % NUTRS);
    }
    log = qom_str(u, "start-log");
    g_assert_cmpstr(log, ==, want->str);
    qom_set_str(u, "start-log", "");
    empty = qom_str(u, "start-log");
    g_assert_cmpstr(empty, ==, "");
    ufs_stop(u);
}

static void test_queries(void)
{
    Ufs *u = ufs_boot("");
    UfsResp r;

    ufs_bringup(u);
    read_desc(u, UFS_QUERY_DESC_IDN_GEOMETRY, 0, &r);
    g_assert_cmpuint(r.data[0x0c], ==, 1);              /* bMaxNumberLU */
    g_assert_cmpuint(ldq_be_p(&r.data[4]), ==, (1 * GiB) >> 9);
    read_desc(u, UFS_QUERY_DESC_IDN_DEVICE, 0, &r);
    g_assert_cmpuint(r.data[0x06], ==, 1);              /* bNumberLU */
    g_assert_cmphex(lduw_be_p(&r.data[0x10]), ==, 0x400);
    g_assert_cmpuint(r.data[0x21], ==, NUTRS);          /* bQueueDepth */
    read_desc(u, UFS_QUERY_DESC_IDN_STRING, r.data[0x15], &r);
    g_assert_cmpuint(r.data[0], >, 2);
    g_assert_cmphex(lduw_be_p(&r.data[2]), ==, 'Q');
    read_desc(u, UFS_QUERY_DESC_IDN_UNIT, 0, &r);
    g_assert_cmpuint(r.data[0x03], ==, 1);              /* bLUEnable */
    g_assert_cmpuint(r.data[0x0a], ==, 12);             /* 4 KiB */
    g_assert_cmpuint(ldq_be_p(&r.data[0x0b]), ==, GiB / BLK);
    read_desc(u, UFS_QUERY_DESC_IDN_UNIT, 1, &r);
    g_assert_cmpuint(r.data[0x03], ==, 0);
    read_desc(u, UFS_QUERY_DESC_IDN_UNIT, UFS_UPIU_RPMB_WLUN, &r);
    g_assert_cmpuint(r.data[0x02], ==, UFS_UPIU_RPMB_WLUN);
    read_desc(u, UFS_QUERY_DESC_IDN_POWER, 0, &r);
    read_desc(u, UFS_QUERY_DESC_IDN_INTERCONNECT, 0, &r);
    read_desc(u, UFS_QUERY_DESC_IDN_HEALTH, 0, &r);
    read_desc(u, UFS_QUERY_DESC_IDN_CONFIGURATION, 0, &r);

    /* a short read gets the first bytes only */
    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST,
          UFS_UPIU_QUERY_OPCODE_READ_DESC, UFS_QUERY_DESC_IDN_DEVICE, 0, 4,
          0, &r);
    g_assert_cmpuint(r.len, ==, 4);

    /* bad index and IDN */
    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST,
          UFS_UPIU_QUERY_OPCODE_READ_DESC, UFS_QUERY_DESC_IDN_STRING, 9, 255,
          0, &r);
    g_assert_cmphex(r.response, ==, UFS_QUERY_RESULT_INVALID_INDEX);
    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST,
          UFS_UPIU_QUERY_OPCODE_READ_DESC, 0x0f, 0, 255, 0, &r);
    g_assert_cmphex(r.response, ==, UFS_QUERY_RESULT_INVALID_IDN);
    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_WRITE_REQUEST,
          UFS_UPIU_QUERY_OPCODE_WRITE_DESC, UFS_QUERY_DESC_IDN_DEVICE, 0, 0,
          0, &r);
    g_assert_cmphex(r.response, ==, UFS_QUERY_RESULT_NOT_WRITEABLE);

    /* attributes Linux uses */
    query_expect(u, true, OP_WRITE_ATTR, UFS_QUERY_ATTR_IDN_ACTIVE_ICC_LVL, 5,
                 0);
    g_assert_cmpuint(query_expect(u, false, OP_READ_ATTR,
                                  UFS_QUERY_ATTR_IDN_ACTIVE_ICC_LVL, 0, 0),
                     ==, 5);
    query_expect(u, true, OP_WRITE_ATTR, UFS_QUERY_ATTR_IDN_ACTIVE_ICC_LVL,
                 0x10, UFS_QUERY_RESULT_INVALID_VALUE);
    query_expect(u, true, OP_WRITE_ATTR, UFS_QUERY_ATTR_IDN_EE_CONTROL, 0, 0);
    query_expect(u, true, OP_WRITE_ATTR, UFS_QUERY_ATTR_IDN_SECONDS_PASSED,
                 100, 0);
    query_expect(u, false, OP_READ_ATTR, UFS_QUERY_ATTR_IDN_SECONDS_PASSED,
                 0, UFS_QUERY_RESULT_NOT_READABLE);
    query_expect(u, true, OP_WRITE_ATTR, UFS_QUERY_ATTR_IDN_POWER_MODE, 0,
                 UFS_QUERY_RESULT_NOT_WRITEABLE);
    query_expect(u, false, OP_READ_ATTR, 0x7e, 0,
                 UFS_QUERY_RESULT_INVALID_IDN);

    /* flags */
    g_assert_cmpuint(query_expect(u, false, OP_READ_FLAG,
                                  UFS_QUERY_FLAG_IDN_PWR_ON_WPE, 0, 0),
                     ==, 0);
    query_expect(u, true, UFS_UPIU_QUERY_OPCODE_CLEAR_FLAG,
                 UFS_QUERY_FLAG_IDN_BKOPS_EN, 0, 0);
    query_expect(u, true, OP_SET_FLAG, UFS_QUERY_FLAG_IDN_PERMANENT_WPE, 0,
                 UFS_QUERY_RESULT_NOT_WRITEABLE);
    query_expect(u, false, 0x0f, 0, 0, UFS_QUERY_RESULT_INVALID_OPCODE);
    ufs_stop(u);
}

static void test_read_write(void)
{
    Ufs *u = ufs_start("");
    g_autofree uint8_t *buf = g_malloc(2 * BLK);
    uint8_t cdb[16];
    ZrScsiResp z;
    UfsResp r;
    uint64_t zone1 = ZONE_BLOCKS;

    /* READ CAPACITY(16): 1 GiB of 4 KiB blocks */
    zr_cdb_rc16(cdb, 32);
    scsi(u, 3, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 32, &r);
    assert_good(&r);
    g_assert_cmpuint(ldq_be_p(buf), ==, GiB / BLK - 1);
    g_assert_cmpuint(ldl_be_p(buf + 8), ==, BLK);

    /* sequential writes at the write pointer */
    write1(u, 4, zone1, 0xaa, &r);
    assert_good(&r);
    write1(u, 5, zone1 + 1, 0xbb, &r);
    assert_good(&r);
    /* a write off the write pointer */
    write1(u, 6, zone1 + 5, 0xcc, &r);
    resp_to_scsi(&r, &z);
    zr_assert_sense(&z, ILLEGAL_REQUEST, 0x21, 0x04);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 1);

    /* reads return zeros on the null-backed LU, residual counted */
    zr_cdb_rw16(cdb, READ_16, zone1, 1);
    memset(buf, 0xff, 2 * BLK);
    scsi(u, 7, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, BLK, &r);
    assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmphex(buf[0], ==, 0);
    ufs_stop(u);
}

/*
 * The scripted doorbell sequence, with one command in service at a time
 * (max-parallel=1) so later rings wait for the policy:
 *   ring slot 2   a write to zone 2, starts at once (the blocker)
 *   ring slot 3   write zone 1 at its write pointer W
 *   ring 1 and 4  in one doorbell write: W+1 (slot 1), W+2 (slot 4)
 * The guest meant 3, 1, 4; the policy decides what the LU sees.
 */
typedef struct PolicyCase {
    const char *policy;
    const char *order;          /* start log; NULL: random */
} PolicyCase;

static const PolicyCase policy_cases[] = {
    { "none", "2,3,1,4" },
    /*
     * A single-doorbell controller forwards ring by ring, slot order only
     * within a ring: with auto-hibernate off, no reordering at all.
     */
    { "spec", "2,3,1,4" },
    { "rr", "2,3,4,1" },        /* rotating slot pointer after slot 2 */
    { "reverse", "2,4,1,3" },   /* newest arrival first */
    { "random", NULL },
};

static void scripted_writes(Ufs *u, char **order, UfsResp r[5])
{
    uint64_t w = ZONE_BLOCKS;
    uint8_t cdb[16];
    static const struct { int slot; uint64_t lba; } cmds[] = {
        { 2, 2 * ZONE_BLOCKS }, { 3, 0 }, { 1, 1 }, { 4, 2 },
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(cmds); i++) {
        uint8_t buf[BLK];

        memset(buf, 0x10 + i, sizeof(buf));
        qtest_memwrite(u->qts, data_buf(u, cmds[i].slot), buf, BLK);
        zr_cdb_rw16(cdb, WRITE_16, i ? w + cmds[i].lba : cmds[i].lba, 1);
        prep_scsi(u, cmds[i].slot, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    }
    qom_set_str(u, "start-log", "");
    ring(u, 1u << 2);
    ring(u, 1u << 3);
    ring(u, (1u << 1) | (1u << 4));
    /* nothing but the blocker may have started yet */
    {
        g_autofree char *log = qom_str(u, "start-log");
        g_assert_cmpstr(log, ==, "2");
    }
    wait_done(u, 0x1e);
    *order = qom_str(u, "start-log");
    for (i = 1; i <= 4; i++) {
        get_resp(u, i, &r[i]);
        g_assert_cmphex(r[i].ocs, ==, OCS_SUCCESS);
    }
}

/* Replay @order against a write pointer: which slots must fail. */
static void check_against_order(const char *order, UfsResp r[5])
{
    static const uint64_t off[5] = { 0, 1, 0, 0, 2 };   /* by slot */
    g_auto(GStrv) slots = g_strsplit(order, ",", -1);
    uint64_t wp = 0;
    int i, bad = 0;

    g_assert_cmpuint(g_strv_length(slots), ==, 4);
    g_assert_cmpstr(slots[0], ==, "2");
    for (i = 1; i < 4; i++) {
        int slot = atoi(slots[i]);
        ZrScsiResp z;

        resp_to_scsi(&r[slot], &z);
        if (off[slot] == wp) {
            zr_assert_good(&z);
            wp++;
        } else {
            zr_assert_sense(&z, ILLEGAL_REQUEST, 0x21, 0x04);
            bad++;
        }
    }
    (void)bad;
}

static int count_unaligned(UfsResp r[5])
{
    int i, n = 0;

    for (i = 1; i <= 4; i++) {
        n += r[i].status == CHECK_CONDITION;
    }
    return n;
}

static void test_policy(gconstpointer opaque)
{
    const PolicyCase *c = opaque;
    g_autofree char *props = g_strdup_printf(
        "reorder=%s,reorder-seed=7,max-parallel=1,lat-write-ns=1000000",
        c->policy);
    Ufs *u = ufs_start(props);
    g_autofree char *order = NULL;
    UfsResp r[5];

    scripted_writes(u, &order, r);
    if (c->order) {
        g_assert_cmpstr(order, ==, c->order);
    }
    check_against_order(order, r);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==,
                     count_unaligned(r));
    if (!strcmp(c->policy, "none") || !strcmp(c->policy, "spec")) {
        g_assert_cmpuint(count_unaligned(r), ==, 0);
        g_assert_cmpuint(qom_u64(u, "starts-reordered"), ==, 0);
    } else if (c->order) {
        g_assert_cmpuint(count_unaligned(r), >, 0);
        g_assert_cmpuint(qom_u64(u, "starts-reordered"), >, 0);
    }
    ufs_stop(u);

    if (!c->order) {
        /* random: the same seed gives the same order */
        g_autofree char *again = NULL;

        u = ufs_start(props);
        scripted_writes(u, &again, r);
        g_assert_cmpstr(again, ==, order);
        ufs_stop(u);
    }
}

/* The policy can be changed at run time with qom-set */
static void test_policy_runtime(void)
{
    Ufs *u = ufs_start("max-parallel=1,lat-write-ns=1000000");
    g_autofree char *order = NULL;
    UfsResp r[5];

    qom_set_str(u, "reorder", "reverse");
    scripted_writes(u, &order, r);
    g_assert_cmpstr(order, ==, "2,4,1,3");
    ufs_stop(u);
}

/* Latency: a write completes lat-write-ns after it starts, not before */
static void test_service_time(void)
{
    Ufs *u = ufs_start("lat-write-ns=5000000");
    uint8_t cdb[16];
    int i;

    zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS, 1);
    prep_scsi(u, 6, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    ring(u, 1u << 6);
    for (i = 0; i < 49; i++) {
        qtest_clock_step(u->qts, STEP_NS);
        g_assert_cmphex(rd(u, A_UTRLDBR), ==, 1u << 6);
    }
    qtest_clock_step(u->qts, STEP_NS);
    wait_done(u, 1u << 6);
    ufs_stop(u);
}

/*
 * The transfer term: 1 ms per 4 KiB moved, nothing fixed.  A 4 KiB write
 * is done after 1 ms, a 64 KiB one after 16 ms, and not a step before.
 */
static void test_service_time_per_4k(void)
{
    Ufs *u = ufs_start("lat-write-ns=0,xfer-write-ns-per-4k=1000000");
    static const uint32_t blocks[] = { 1, 16 };
    uint8_t cdb[16];
    size_t k;
    uint32_t i;

    for (k = 0; k < ARRAY_SIZE(blocks); k++) {
        uint32_t steps = blocks[k] * 1000000 / STEP_NS;

        zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS + 16 * k, blocks[k]);
        prep_scsi(u, 6, 0, cdb, UFS_UTP_HOST_TO_DEVICE, blocks[k] * BLK);
        ring(u, 1u << 6);
        for (i = 0; i < steps - 1; i++) {
            qtest_clock_step(u->qts, STEP_NS);
            g_assert_cmphex(rd(u, A_UTRLDBR), ==, 1u << 6);
        }
        qtest_clock_step(u->qts, STEP_NS);
        wait_done(u, 1u << 6);
    }
    ufs_stop(u);
}

/*
 * With max-parallel=1: ring slot 1 (write at zone 1's start, starts at
 * once) and slot 2 (the next block, left waiting) in one doorbell write.
 */
static void ring_two_writes(Ufs *u)
{
    uint8_t cdb[16];

    zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS, 1);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS + 1, 1);
    prep_scsi(u, 2, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    ring(u, 0x6);
}

/* UTRLCLR drops a waiting command without completing it */
static void test_utrlclr(void)
{
    Ufs *u = ufs_start("max-parallel=1,lat-write-ns=1000000");
    UfsResp r;

    ring_two_writes(u);
    wr(u, A_UTRLCLR, ~(1u << 2));
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 1u << 1);
    wait_done(u, 0x2);
    get_resp(u, 1, &r);
    assert_good(&r);
    g_assert_cmphex(qtest_readb(u->qts, u->utrl + 2 * 32 + 8), ==,
                    UFS_OCS_INVALID_COMMAND_STATUS);
    /* the write pointer moved by one block only */
    write1(u, 3, ZONE_BLOCKS + 1, 0x11, &r);
    assert_good(&r);
    ufs_stop(u);
}

static void expect_ocs(Ufs *u, int slot, uint8_t ocs)
{
    UfsResp r;

    ring(u, 1u << slot);
    wait_done(u, 1u << slot);
    get_resp(u, slot, &r);
    g_assert_cmphex(r.ocs, ==, ocs);
}

static void test_bad_input(void)
{
    Ufs *u = ufs_start("");
    uint8_t cdb[16];
    uint8_t upiu[32] = { 0x05 };    /* no such transaction code */
    uint32_t dw6 = 0;

    zr_cdb_rw16(cdb, READ_16, 0, 1);

    /* PRDT byte count not a whole number of dwords */
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    set_prdt(u, 1, data_buf(u, 1), BLK);
    expect_ocs(u, 1, OCS_INVALID_PRDT);

    /* PRDT pointing outside guest memory */
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    set_prdt(u, 1, 0xfffffff000000000ull, BLK - 1);
    expect_ocs(u, 1, OCS_INVALID_PRDT);

    /* PRDT address not dword aligned */
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    set_prdt(u, 1, data_buf(u, 1) + 2, BLK - 1);
    expect_ocs(u, 1, OCS_INVALID_PRDT);

    /* expected transfer length larger than the PRDT */
    prep_scsi(u, 2, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    set_prdt(u, 2, data_buf(u, 2), BLK / 2 - 1);
    expect_ocs(u, 2, OCS_MISMATCH_DATA);

    /* unknown UPIU transaction code */
    prep(u, 3, upiu, sizeof(upiu), UFS_UTP_NO_DATA_TRANSFER, 0);
    expect_ocs(u, 3, OCS_INVALID_CTA);

    /* command descriptor outside guest memory */
    prep_scsi(u, 4, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    qtest_writel(u->qts, u->utrl + 4 * 32 + 20, 0xfffffff0);
    expect_ocs(u, 4, OCS_INVALID_CTA);

    /* response UPIU too small */
    prep_scsi(u, 5, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    qtest_memwrite(u->qts, u->utrl + 5 * 32 + 24, &dw6, 4);
    expect_ocs(u, 5, OCS_MISMATCH_RSP);

    /* doorbell while the list is stopped is ignored */
    wr(u, A_UTRLRSR, 0);
    prep(u, 6, (uint8_t[32]){ UFS_UPIU_TRANSACTION_NOP_OUT }, 32,
         UFS_UTP_NO_DATA_TRANSFER, 0);
    wr(u, A_UTRLDBR, 1u << 6);
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 0);
    wr(u, A_UTRLRSR, 1);

    /* unknown UIC command fails, the controller goes on */
    wr(u, A_UICCMD, 0x7f);
    g_assert_cmphex(rd(u, A_UCMDARG2) & 0xff, !=, 0);

    /* still alive */
    nop(u, 7);
    lu_ready(u, 0);
    ufs_stop(u);
}

/* A user-attached LU replaces the default one */
static void test_user_lu(void)
{
    Ufs *u = ufs_boot("reorder=spec "
                      "-device scsi-zbc,bus=ufs0.0,lun=2,zone-size=8M");
    UfsResp r;
    uint8_t cdb[16];
    uint8_t buf[36];

    ufs_bringup(u);
    read_desc(u, UFS_QUERY_DESC_IDN_DEVICE, 0, &r);
    g_assert_cmpuint(r.data[0x06], ==, 1);
    read_desc(u, UFS_QUERY_DESC_IDN_UNIT, 2, &r);
    g_assert_cmpuint(r.data[0x03], ==, 1);
    read_desc(u, UFS_QUERY_DESC_IDN_UNIT, 0, &r);
    g_assert_cmpuint(r.data[0x03], ==, 0);
    zr_cdb_inquiry(cdb, false, 0, 36);
    scsi(u, 1, 2, cdb, UFS_UTP_DEVICE_TO_HOST, buf, 36, &r);
    assert_good(&r);
    g_assert_cmphex(buf[0] & 0x1f, ==, 0x14);
    ufs_stop(u);
}

/* A PRDT of @n entries {offset in the slot's data buffer, bytes} */
typedef struct HdPrd {
    uint64_t off;
    uint32_t len;
} HdPrd;

static void hd_prdt(Ufs *u, int slot, const HdPrd *e, int n, uint64_t base)
{
    uint32_t utrd7 = cpu_to_le32((PRDT_OFF / 4) << 16 | n);
    int i;

    qtest_memwrite(u->qts, u->utrl + slot * 32 + 28, &utrd7, 4);
    for (i = 0; i < n; i++) {
        uint64_t a = (base ? base : data_buf(u, slot)) + e[i].off;
        uint32_t prd[4] = { cpu_to_le32(a & 0xffffffff),
                            cpu_to_le32(a >> 32), 0,
                            cpu_to_le32(e[i].len - 1) };

        qtest_memwrite(u->qts, ucd(u, slot) + PRDT_OFF + i * 16, prd, 16);
    }
}

/* READ/WRITE(16) of @nb blocks at @lba to LU 1, EDTL @edtl, PRDT @e */
static void hd_rw(Ufs *u, int slot, uint8_t op, uint64_t lba, uint32_t nb,
                  uint32_t edtl, const HdPrd *e, int n, uint64_t base,
                  UfsResp *r)
{
    uint8_t cdb[16];

    zr_cdb_rw16(cdb, op, lba, nb);
    prep_scsi(u, slot, 1, cdb, op == READ_16 ? UFS_UTP_DEVICE_TO_HOST :
              UFS_UTP_HOST_TO_DEVICE, edtl);
    hd_prdt(u, slot, e, n, base);
    ring(u, 1u << slot);
    wait_done(u, 1u << slot);
    get_resp(u, slot, r);
}

/*
 * A scsi-hd LU moves its data itself, over a scatter-gather list made of
 * the PRDT (UFSHCI 4.0 6.1.2): several entries scattered in guest RAM
 * both ways; the copy on the work BH instead when the command does not
 * move exactly EDTL bytes (the residual is reported, SAM-5 5.5.2); an
 * entry where no memory is fails the command with the PRDT, nothing
 * written.
 */
static void test_hd_sg(void)
{
    g_autofree char *img = NULL;
    g_autofree char *props = NULL;
    static const HdPrd w3[] = { { 0, 4096 }, { 20480, 8192 }, { 40960, 4096 } };
    static const HdPrd r2[] = { { 4096, 12288 }, { 32768, 4096 } };
    static const HdPrd r1[] = { { 0, 16384 } };
    uint8_t want[16384], got[16384];
    UfsResp r;
    Ufs *u;
    int fd, i;

    fd = g_file_open_tmp("zr-ufs-hd-XXXXXX", &img, NULL);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, 16 * MiB), ==, 0);
    close(fd);
    props = g_strdup_printf("reorder=none -blockdev driver=file,filename=%s,"
                            "node-name=d1 -device scsi-hd,bus=ufs0.0,lun=1,"
                            "drive=d1,logical_block_size=4096,"
                            "physical_block_size=4096", img);
    u = ufs_start(props);
    lu_ready(u, 1);
    g_assert_cmpuint(qom_u64(u, "data-sg"), ==, 0);

    /* a write from three entries, 4 + 8 + 4 KiB, scattered */
    for (i = 0; i < 16384; i++) {
        want[i] = i / 4096 * 0x11 + (i & 0xf);
    }
    qtest_memwrite(u->qts, data_buf(u, 1), want, 4096);
    qtest_memwrite(u->qts, data_buf(u, 1) + 20480, want + 4096, 8192);
    qtest_memwrite(u->qts, data_buf(u, 1) + 40960, want + 12288, 4096);
    hd_rw(u, 1, WRITE_16, 8, 4, 16384, w3, 3, 0, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmpuint(qom_u64(u, "data-sg"), ==, 1);

    /* read back into two other entries */
    qtest_memset(u->qts, data_buf(u, 2), 0xee, DATA_SIZE);
    hd_rw(u, 2, READ_16, 8, 4, 16384, r2, 2, 0, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    assert_good(&r);
    g_assert_cmpuint(qom_u64(u, "data-sg"), ==, 2);
    qtest_memread(u->qts, data_buf(u, 2) + 4096, got, 12288);
    qtest_memread(u->qts, data_buf(u, 2) + 32768, got + 12288, 4096);
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    g_assert_cmphex(qtest_readb(u->qts, data_buf(u, 2)), ==, 0xee);

    /* EDTL 16 KiB for 8 KiB: copied, the underflow in the residual */
    qtest_memset(u->qts, data_buf(u, 3), 0xee, DATA_SIZE);
    hd_rw(u, 3, READ_16, 9, 2, 16384, r1, 1, 0, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 8192);
    g_assert_cmpuint(qom_u64(u, "data-sg"), ==, 2);
    qtest_memread(u->qts, data_buf(u, 3), got, 8192);
    g_assert_cmpmem(got, 8192, want + 4096, 8192);
    g_assert_cmphex(qtest_readb(u->qts, data_buf(u, 3) + 8192), ==, 0xee);

    /* an entry where no memory is: refused with the PRDT (UFSHCI 6.1.2) */
    hd_rw(u, 4, WRITE_16, 8, 1, 4096, r1, 1, 0xfff0000000000ULL, &r);
    g_assert_cmphex(r.ocs, ==, OCS_INVALID_PRDT);
    g_assert_cmpuint(qom_u64(u, "data-sg"), ==, 2);
    qtest_memset(u->qts, data_buf(u, 5), 0, DATA_SIZE);
    hd_rw(u, 5, READ_16, 8, 1, 4096, r1, 1, 0, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    qtest_memread(u->qts, data_buf(u, 5), got, 4096);
    g_assert_cmpmem(got, 4096, want, 4096);
    g_assert_cmpuint(qom_u64(u, "data-sg"), ==, 3);

    ufs_stop(u);
    unlink(img);
}

/*
 * Auto-hibernate: idle for AHIT -> H8; a doorbell in H8 holds every start
 * for h8-exit-latency, so commands rung meanwhile are batched and the
 * policy (spec: lowest slot) starts them out of arrival order.
 */
static void test_auto_hibernate(void)
{
    Ufs *u = ufs_start("auto-hibernate=on,h8-exit-latency=500000,"
                       "reorder=spec,lat-write-ns=10000");
    static const struct { int slot; uint64_t off; } cmds[] = {
        { 3, 0 }, { 1, 1 }, { 4, 2 },
    };
    uint8_t cdb[16];
    UfsResp r;
    size_t i;
    int n;

    g_assert_cmpuint(FIELD_EX32(rd(u, A_CAP), CAP, AUTOH8), ==, 1);
    /* AHIT: timer 10, scale 2 (100 us units) = 1 ms; read back */
    wr(u, A_AHIT, (2 << 10) | 10);
    g_assert_cmphex(rd(u, A_AHIT), ==, (2 << 10) | 10);
    qtest_clock_step(u->qts, 999000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 0);
    qtest_clock_step(u->qts, 1000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 1);
    /* no UHES for an autonomous transition */
    g_assert_false(rd(u, A_IS) & R_IS_UHES_MASK);

    for (i = 0; i < ARRAY_SIZE(cmds); i++) {
        zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS + cmds[i].off, 1);
        prep_scsi(u, cmds[i].slot, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    }
    qom_set_str(u, "start-log", "");
    ring(u, 1u << 3);
    ring(u, (1u << 1) | (1u << 4));
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 1);
    for (n = 0; n < 4; n++) {
        g_autofree char *log = NULL;

        qtest_clock_step(u->qts, STEP_NS);
        log = qom_str(u, "start-log");
        g_assert_cmpstr(log, ==, "");
    }
    qtest_clock_step(u->qts, STEP_NS);
    wait_done(u, 0x1a);
    {
        g_autofree char *log = qom_str(u, "start-log");
        g_assert_cmpstr(log, ==, "1,3,4");
    }
    get_resp(u, 1, &r);
    g_assert_cmphex(r.status, ==, CHECK_CONDITION);
    get_resp(u, 3, &r);
    assert_good(&r);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 2);

    /* idle again: H8 again after AHIT */
    qtest_clock_step(u->qts, 1000000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 2);
    /* AHIT = 0 turns it off */
    wr(u, A_AHIT, 0);
    nop(u, 0);
    qtest_clock_step(u->qts, 10000000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 2);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 2);
    ufs_stop(u);
}

/*
 * Task management: ABORT TASK / QUERY TASK on a waiting command, then
 * UTRLCLR as Linux does; LOGICAL UNIT RESET; bad LUN and function.
 */
static void test_task_mgmt(void)
{
    Ufs *u = ufs_start("max-parallel=1,lat-write-ns=1000000");
    uint8_t cdb[16];
    UfsResp r;

    ring_two_writes(u);
    g_assert_cmphex(task_mgmt(u, UFS_QUERY_TASK, 0, 2), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_SUCCEEDED);
    g_assert_cmphex(task_mgmt(u, UFS_ABORT_TASK, 0, 2), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    g_assert_cmphex(task_mgmt(u, UFS_QUERY_TASK, 0, 2), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    /* aborted, not completed: the doorbell bit stays until UTRLCLR */
    qtest_clock_step(u->qts, 5000000);
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 1u << 2);
    g_assert_cmphex(qtest_readb(u->qts, u->utrl + 2 * 32 + 8), ==,
                    UFS_OCS_INVALID_COMMAND_STATUS);
    wr(u, A_UTRLCLR, ~(1u << 2));
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 0);
    get_resp(u, 1, &r);
    assert_good(&r);

    /* LOGICAL UNIT RESET drops what is queued on the LU */
    zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS + 1, 1);
    prep_scsi(u, 3, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    zr_cdb_rw16(cdb, WRITE_16, ZONE_BLOCKS + 2, 1);
    prep_scsi(u, 4, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    ring(u, 0x18);
    g_assert_cmphex(task_mgmt(u, UFS_QUERY_TASK_SET, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_SUCCEEDED);
    g_assert_cmphex(task_mgmt(u, UFS_LOGICAL_RESET, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    g_assert_cmphex(task_mgmt(u, UFS_QUERY_TASK_SET, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    wr(u, A_UTRLCLR, ~0x18u);
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 0);

    /* no such LU, no such function */
    g_assert_cmphex(task_mgmt(u, UFS_ABORT_TASK, 7, 0), ==,
                    UFS_UPIU_INCORRECT_LOGICAL_UNIT_NO);
    g_assert_cmphex(task_mgmt(u, 0x55, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_NOT_SUPPORTED);

    /*
     * The LU works after the reset (reset unit attention first).  Slot 3
     * had started, so its write may have reached the medium: use zone 3.
     */
    lu_ready(u, 0);
    write1(u, 5, 3 * ZONE_BLOCKS, 0x22, &r);
    assert_good(&r);
    ufs_stop(u);
}

int main(int argc, char **argv)
{
    size_t i;

    ufs_test_mode = "legacy";
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/ufs-zoned/bringup", test_bringup);
    qtest_add_func("/ufs-zoned/queries", test_queries);
    qtest_add_func("/ufs-zoned/start-log", test_start_log);
    qtest_add_func("/ufs-zoned/read-write", test_read_write);
    for (i = 0; i < ARRAY_SIZE(policy_cases); i++) {
        g_autofree char *name = g_strdup_printf("/ufs-zoned/policy/%s",
                                                policy_cases[i].policy);
        qtest_add_data_func(name, &policy_cases[i], test_policy);
    }
    qtest_add_func("/ufs-zoned/policy-runtime", test_policy_runtime);
    qtest_add_func("/ufs-zoned/service-time", test_service_time);
    qtest_add_func("/ufs-zoned/service-time-per-4k",
                   test_service_time_per_4k);
    qtest_add_func("/ufs-zoned/utrlclr", test_utrlclr);
    qtest_add_func("/ufs-zoned/bad-input", test_bad_input);
    qtest_add_func("/ufs-zoned/user-lu", test_user_lu);
    qtest_add_func("/ufs-zoned/hd-sg", test_hd_sg);
    qtest_add_func("/ufs-zoned/auto-hibernate", test_auto_hibernate);
    qtest_add_func("/ufs-zoned/task-mgmt", test_task_mgmt);
    return g_test_run();
}
