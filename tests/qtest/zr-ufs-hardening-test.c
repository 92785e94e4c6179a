/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned qtests of bad input and error paths (issue 9): DMA aimed at
 * the controller's own BAR, malformed descriptors and UPIUs, queue
 * configuration and doorbells out of range, data shorter or longer than
 * the CDB asks, abort / LU reset / UTRLCLR / SQ cleanup / host reset with
 * commands in flight, and auto-hibernate exits.  Each test asserts the
 * status the spec defines (UFSHCI 4.0, UFS 4.0, SAM-5, SPC-5) and that
 * QEMU is still alive and the controller still works afterwards.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "scsi/constants.h"
#include "zr-ufs-helpers.h"

#define OCS_ABORTED     0x6
#define OCS_FATAL       0x7
#define RSP_FLAGS       1           /* response UPIU byte: O/U flags */

/* --- helpers ------------------------------------------------------------ */

static uint64_t bar0(Ufs *u)
{
    return u->bar.addr;
}

static Ufs *legacy_start(const char *props)
{
    ufs_test_mode = "legacy";
    return ufs_start(props);
}

static Ufs *mcq_start(const char *props, uint32_t nq, uint32_t entries)
{
    Ufs *u;

    ufs_test_mode = "mcq";
    u = ufs_start(props);
    ufs_mcq_enable(u, nq, entries);
    return u;
}

static uint32_t opr(Ufs *u, uint32_t q, uint32_t off)
{
    return rd(u, ufs_mcq_sq_reg(q, off));
}

/* The controller still answers: a NOP and a TEST UNIT READY. */
static void assert_alive(Ufs *u)
{
    uint8_t cdb[16] = { TEST_UNIT_READY };
    UfsResp r;

    nop(u, NUTRS - 1);
    scsi(u, 0, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, NULL, 0, &r);
    assert_good(&r);
}

/* HCE 1 -> 0 -> bring-up again (Linux's ufshcd_hba_enable after errors). */
static void restart(Ufs *u)
{
    bool mcq = u->mcq;
    uint32_t nq = u->nq, entries = u->entries;

    wr(u, A_HCE, 0);
    u->mcq = false;
    u->done = 0;
    ufs_bringup(u);
    nop(u, NUTRS - 1);
    if (mcq) {
        ufs_mcq_enable(u, nq, entries);
    }
}

/* Ring @slot, wait for it, return its response. */
static void run_slot(Ufs *u, int slot, UfsResp *r)
{
    ring(u, 1u << slot);
    wait_done(u, 1u << slot);
    get_resp(u, slot, r);
}

static uint8_t rsp_flags(Ufs *u, int slot)
{
    return qtest_readb(u->qts, ucd(u, slot) + RSP_OFF + RSP_FLAGS);
}

static void assert_sense(const UfsResp *r, uint8_t key, uint8_t asc,
                         uint8_t ascq)
{
    ZrScsiResp z;

    resp_to_scsi(r, &z);
    zr_assert_sense(&z, key, asc, ascq);
}

/* Wait until IS shows @bits (or fail). */
static void wait_is(Ufs *u, uint32_t bits)
{
    int i;

    for (i = 0; i < MAX_STEPS && (rd(u, A_IS) & bits) != bits; i++) {
        ufs_step(u, STEP_NS);
    }
    g_assert_cmphex(rd(u, A_IS) & bits, ==, bits);
}

/* Enter H8 through AHIT (1 ms idle) and check it happened. */
static void enter_h8(Ufs *u)
{
    uint64_t before = qom_u64(u, "h8-entries");

    wr(u, A_AHIT, (2 << 10) | 10);          /* 10 x 100 us */
    ufs_step(u, 2 * 1000 * 1000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, before + 1);
}

/* --- DMA aimed at the controller's own registers ------------------------- */

/* Re-create CQ 0 (and SQ 0 on it) with its entries based at @base. */
static void cq0_at(Ufs *u, uint64_t base)
{
    uint32_t size = u->entries * 8 - 1;

    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_CQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_CQLBA), base & 0xffffffff);
    wr(u, ufs_mcq_cfg_reg(0, A_CQUBA), base >> 32);
    wr(u, ufs_mcq_cfg_reg(0, A_CQATTR), QEN | size);
    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), QEN | size);
    u->q[0].sq_tail = u->q[0].cq_head = 0;
}

/*
 * A CQE posted at BAR0 + 0x20: its dword 5 would land on HCE (a reset in
 * the middle of the completion; SIGFPE before the fix).  The DMA is
 * refused by the re-entrancy guard: a system bus error, HCE untouched.
 */
static void test_cq_over_hce(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint8_t cdb[16] = { TEST_UNIT_READY };

    cq0_at(u, bar0(u) + 0x20);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    ring(u, 1u << 1);
    wait_is(u, R_IS_SBFES_MASK);
    g_assert_cmphex(rd(u, A_HCE) & 1, ==, 1);
    restart(u);
    assert_alive(u);
    ufs_stop(u);
}

/* A CQE over the queue's own CQATTR (would disable it with SIZE 0). */
static void test_cq_over_cqattr(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint8_t cdb[16] = { TEST_UNIT_READY };
    uint32_t attr;

    cq0_at(u, bar0(u) + ufs_mcq_cfg_reg(0, A_CQATTR));
    attr = rd(u, ufs_mcq_cfg_reg(0, A_CQATTR));
    prep_scsi(u, 1, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    ring(u, 1u << 1);
    wait_is(u, R_IS_SBFES_MASK);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(0, A_CQATTR)), ==, attr);
    restart(u);
    assert_alive(u);
    ufs_stop(u);
}

/*
 * Data-in PRDT DMA into HCE / UTRLCLR (a use-after-free of the SCSI
 * request before the fix): OCS FATAL ERROR and IS.SBFES.
 */
static void prdt_over_reg(Ufs *u, uint32_t reg)
{
    uint8_t cdb[16];
    UfsResp r;

    zr_cdb_rw16(cdb, READ_16, 0, 1);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    set_prdt(u, 1, bar0(u) + reg, BLK - 1);
    run_slot(u, 1, &r);
    g_assert_cmphex(r.ocs, ==, OCS_FATAL);
    g_assert_true(rd(u, A_IS) & R_IS_SBFES_MASK);
    g_assert_cmphex(rd(u, A_HCE) & 1, ==, 1);
    assert_alive(u);
}

static void test_prdt_over_hce(void)
{
    Ufs *u = mcq_start("", 1, 8);

    prdt_over_reg(u, A_HCE);
    ufs_stop(u);
}

static void test_prdt_over_utrlclr_legacy(void)
{
    Ufs *u = legacy_start("");

    prdt_over_reg(u, A_UTRLCLR);
    ufs_stop(u);
}

/* The command UPIU itself in the BAR: it cannot be read. */
static void test_ucd_in_bar(void)
{
    Ufs *u = legacy_start("");
    uint8_t cdb[16] = { TEST_UNIT_READY };
    uint64_t b = bar0(u);
    UfsResp r;

    prep_scsi(u, 2, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    qtest_writel(u->qts, u->utrl + 2 * 32 + 16, cpu_to_le32(b & 0xffffffff));
    qtest_writel(u->qts, u->utrl + 2 * 32 + 20, cpu_to_le32(b >> 32));
    run_slot(u, 2, &r);
    g_assert_cmphex(r.ocs, ==, OCS_INVALID_CTA);
    assert_alive(u);
    ufs_stop(u);
}

/* The transfer request list in the BAR: the UTRD fetch fails (SBFES). */
static void test_utrl_in_bar(void)
{
    Ufs *u = legacy_start("");

    wr(u, A_UTRLBA, bar0(u) & 0xffffffff);
    wr(u, A_UTRLBAU, bar0(u) >> 32);
    wr(u, A_IS, rd(u, A_IS));
    wr(u, A_UTRLDBR, 1u << 3);
    wait_is(u, R_IS_SBFES_MASK);
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 0);
    g_assert_cmphex(rd(u, A_HCE) & 1, ==, 1);
    wr(u, A_UTRLBA, u->utrl & 0xffffffff);
    wr(u, A_UTRLBAU, u->utrl >> 32);
    assert_alive(u);
    ufs_stop(u);
}

/* An SQ based in the BAR: the entry fetch fails (SBFES), no CQE. */
static void test_sq_in_bar(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint32_t size = 8 * 8 - 1;

    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_SQLBA), bar0(u) & 0xffffffff);
    wr(u, ufs_mcq_cfg_reg(0, A_SQUBA), bar0(u) >> 32);
    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), QEN | size);
    wr(u, A_IS, rd(u, A_IS));
    wr(u, ufs_mcq_sq_reg(0, SQTP), 32);
    wait_is(u, R_IS_SBFES_MASK);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    restart(u);
    assert_alive(u);
    ufs_stop(u);
}

/* The task management list in the BAR: SBFES, the doorbell clears. */
static void test_utmrl_in_bar(void)
{
    Ufs *u = legacy_start("");
    int i;

    wr(u, A_UTMRLBA, bar0(u) & 0xffffffff);
    wr(u, A_UTMRLBAU, bar0(u) >> 32);
    wr(u, A_IS, rd(u, A_IS));
    wr(u, A_UTMRLDBR, 1);
    for (i = 0; i < MAX_STEPS && rd(u, A_UTMRLDBR); i++) {
        ufs_step(u, STEP_NS);
    }
    g_assert_cmphex(rd(u, A_UTMRLDBR), ==, 0);
    g_assert_true(rd(u, A_IS) & R_IS_SBFES_MASK);
    wr(u, A_UTMRLBA, u->utmrl & 0xffffffff);
    wr(u, A_UTMRLBAU, u->utmrl >> 32);
    g_assert_cmphex(task_mgmt(u, UFS_QUERY_TASK_SET, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    assert_alive(u);
    ufs_stop(u);
}

/* --- abort, clear, cleanup and reset with commands in flight ------------ */

/* SQ cleanup of a command nobody has: CUS with RTC 0h, no CQE. */
static void test_sq_cleanup_not_found(void)
{
    Ufs *u = mcq_start("", 1, 8);

    wr(u, ufs_mcq_sq_reg(0, SQRTC), 1);
    g_assert_cmphex(opr(u, 0, SQRTS) & 1, ==, 1);
    g_assert_cmphex(ufs_mcq_cleanup(u, 0, 0, 9) & 0xf3, ==, 3);
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 0);
    ufs_step(u, 1000 * 1000);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    g_assert_cmpuint(qom_u64(u, "sq-cleanups"), ==, 0);
    assert_alive(u);
    ufs_stop(u);
}

/*
 * Three 1-block writes to consecutive blocks from @lba on slots @first..
 * @first + 2, one command in service (max-parallel=1, 50 ms each): after
 * 1 ms only the first has started.  Returns the "starts" count before.
 */
static uint64_t start_three_writes(Ufs *u, int first, uint64_t lba)
{
    uint64_t starts = qom_u64(u, "starts");
    int slot;

    for (slot = first; slot < first + 3; slot++) {
        ufs_queue_write(u, 0, slot, lba + slot - first);
    }
    if (u->mcq) {
        ufs_mcq_ring(u, 0);
    } else {
        ring(u, 7u << first);
    }
    ufs_step(u, 1000 * 1000);
    g_assert_cmpuint(qom_u64(u, "starts"), ==, starts + 1);
    return starts;
}

/*
 * LU RESET with one write in service and two waiting behind it
 * (max-parallel=1): the waiting ones never start, so neither reaches the
 * medium; each SQ cleanup then completes its command with OCS ABORTED.
 */
static void test_lu_reset_no_ghost_start_mcq(void)
{
    Ufs *u = mcq_start("max-parallel=1,lat-write-ns=50000000", 1, 8);
    uint64_t z = 3 * ZONE_BLOCKS, starts = start_three_writes(u, 3, z);
    UfsResp r;
    int slot;

    g_assert_cmphex(task_mgmt(u, UFS_LOGICAL_RESET, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    g_assert_cmpuint(qom_u64(u, "tm-aborts"), ==, 3);
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 1);
    for (slot = 3; slot <= 5; slot++) {
        g_assert_cmphex(ufs_mcq_cleanup(u, 0, 0, slot) & 0xf3, ==, 3);
        /* its CQE is there when CUS says the cleanup is done */
        g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 1);
    }
    wr(u, ufs_mcq_sq_reg(0, SQRTC), 0);
    wait_done(u, 0x38);
    for (slot = 3; slot <= 5; slot++) {
        g_assert_cmphex(u->cqe_ocs[slot], ==, OCS_ABORTED);
    }
    ufs_step(u, 100 * 1000 * 1000);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    g_assert_cmpuint(qom_u64(u, "starts"), ==, starts + 1);
    /* only slot 3's write (started) reached the medium */
    lu_ready(u, 0);
    write1(u, 6, z + 1, 0x66, &r);
    assert_good(&r);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);
    ufs_stop(u);
}

/* The same in legacy mode, cleared with one UTRLCLR. */
static void test_lu_reset_no_ghost_start_legacy(void)
{
    Ufs *u = legacy_start("max-parallel=1,lat-write-ns=50000000");
    uint64_t z = 3 * ZONE_BLOCKS, starts = start_three_writes(u, 3, z);
    UfsResp r;

    g_assert_cmphex(task_mgmt(u, UFS_LOGICAL_RESET, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    wr(u, A_UTRLCLR, ~0x38u);
    g_assert_cmphex(rd(u, A_UTRLDBR) & 0x38, ==, 0);
    ufs_step(u, 100 * 1000 * 1000);
    g_assert_cmpuint(qom_u64(u, "starts"), ==, starts + 1);
    g_assert_cmpuint(qom_u64(u, "cleared"), ==, 3);
    lu_ready(u, 0);
    write1(u, 6, z + 1, 0x66, &r);
    assert_good(&r);
    ufs_stop(u);
}

/* UTRLCLR of three slots, one in service: nothing else starts. */
static void test_utrlclr_no_ghost_start(void)
{
    Ufs *u = legacy_start("max-parallel=1,lat-write-ns=50000000");
    uint64_t z = 4 * ZONE_BLOCKS, starts = start_three_writes(u, 1, z);
    UfsResp r;

    wr(u, A_UTRLCLR, ~0xeu);
    ufs_step(u, 100 * 1000 * 1000);
    g_assert_cmpuint(qom_u64(u, "starts"), ==, starts + 1);
    write1(u, 6, z + 1, 0x66, &r);
    assert_good(&r);
    assert_alive(u);
    ufs_stop(u);
}

/* HCE=0 with writes in service: no CQE afterwards, bring-up works. */
static void test_hce_reset_in_flight(void)
{
    Ufs *u = mcq_start("lat-write-ns=50000000", 1, 8);
    uint8_t cq[8 * 32], zero[8 * 32] = { 0 };
    int slot;

    for (slot = 1; slot <= 3; slot++) {
        ufs_queue_write(u, 0, slot, 5 * ZONE_BLOCKS + slot - 1);
    }
    ufs_mcq_ring(u, 0);
    ufs_step(u, 1000 * 1000);
    wr(u, A_HCE, 0);
    g_assert_cmpuint(qom_u64(u, "host-resets"), ==, 1);
    g_assert_cmpuint(qom_u64(u, "cleared"), ==, 3);
    ufs_step(u, 100 * 1000 * 1000);
    /* no CQE was written, during the reset or after it */
    qtest_memread(u->qts, u->q[0].cq, cq, sizeof(cq));
    g_assert_cmpmem(cq, sizeof(cq), zero, sizeof(zero));
    u->mcq = false;
    u->done = 0;
    ufs_bringup(u);
    nop(u, NUTRS - 1);
    ufs_mcq_enable(u, 1, 8);
    assert_alive(u);
    ufs_stop(u);
}

/* A host controller reset leaves the UFS device's attributes alone. */
static void test_hce_reset_keeps_device_state(void)
{
    Ufs *u = legacy_start("");

    query_expect(u, true, OP_WRITE_ATTR, UFS_QUERY_ATTR_IDN_ACTIVE_ICC_LVL,
                 5, UFS_QUERY_RESULT_SUCCESS);
    restart(u);
    g_assert_cmpuint(query_expect(u, false, OP_READ_ATTR,
                                  UFS_QUERY_ATTR_IDN_ACTIVE_ICC_LVL, 0,
                                  UFS_QUERY_RESULT_SUCCESS), ==, 5);
    ufs_stop(u);
}

/*
 * ABORT TASK for a command that is done and only waits for CQ room: it is
 * no longer in the task set, so nothing is aborted, and its one CQE
 * (OCS SUCCESS) still arrives.
 */
/* Slots 1 and 2 complete into a 2-entry CQ 0: slot 2 waits for room. */
static Ufs *start_with_cqe_waiting(void)
{
    Ufs *u = mcq_start("", 1, 2);
    uint8_t cdb[16] = { TEST_UNIT_READY };
    int slot;

    for (slot = 1; slot <= 2; slot++) {
        prep_scsi(u, slot, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
        ufs_mcq_queue(u, 0, slot);
        ufs_mcq_ring(u, 0);
        ufs_step(u, 1000 * 1000);
    }
    g_assert_cmphex(opr(u, 0, CQTP), ==, 32);
    return u;
}

static void test_abort_task_done_waiting(void)
{
    Ufs *u = start_with_cqe_waiting();

    g_assert_cmphex(task_mgmt(u, UFS_ABORT_TASK, 0, 2), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    g_assert_cmpuint(qom_u64(u, "tm-aborts"), ==, 0);
    g_assert_cmphex(task_mgmt(u, UFS_QUERY_TASK, 0, 2), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL);
    wait_done(u, 0x6);
    g_assert_cmphex(u->cqe_ocs[2], ==, OCS_SUCCESS);
    ufs_step(u, 1000 * 1000);
    g_assert_cmpuint(ufs_mcq_reap(u, 0), ==, 0);
    ufs_stop(u);
}

/* A CQ disabled with a completion waiting starts empty when re-enabled. */
static void test_cq_disable_with_waiter(void)
{
    Ufs *u = start_with_cqe_waiting();
    uint8_t cdb[16] = { TEST_UNIT_READY };
    uint32_t size = 2 * 8 - 1;

    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_CQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(0, A_CQATTR), QEN | size);
    wr(u, ufs_mcq_cfg_reg(0, A_SQATTR), QEN | size);
    u->q[0].sq_tail = u->q[0].cq_head = 0;
    u->done = 0;
    /* the next command completes at once into the empty CQ */
    prep_scsi(u, 3, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    ufs_mcq_queue(u, 0, 3);
    ufs_mcq_ring(u, 0);
    wait_done(u, 1u << 3);
    g_assert_cmphex(u->cqe_ocs[3], ==, OCS_SUCCESS);
    assert_alive(u);
    ufs_stop(u);
}

/* --- data shorter or longer than the CDB asks ----------------------------- */

/*
 * A 2-block WRITE with an EDTL (and PRDT) of one block: nothing reaches
 * the medium, CHECK CONDITION INVALID FIELD IN CDB, Overflow with the
 * missing bytes as residual (UFS 4.0 10.7.2).
 */
static void test_short_data_out(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint64_t z = 6 * ZONE_BLOCKS;
    uint8_t cdb[16];
    UfsResp r;

    zr_cdb_rw16(cdb, WRITE_16, z, 2);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    run_slot(u, 1, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    assert_sense(&r, ILLEGAL_REQUEST, 0x24, 0x00);
    g_assert_cmphex(rsp_flags(u, 1), ==, UFS_UPIU_FLAG_OVERFLOW);
    g_assert_cmpuint(r.resid, ==, BLK);
    /* the write pointer did not move */
    write1(u, 2, z, 0x22, &r);
    assert_good(&r);
    ufs_stop(u);
}

/* A 2-block READ into a 1-block buffer: GOOD, Overflow, residual. */
static void test_data_in_overflow(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint8_t cdb[16];
    UfsResp r;

    zr_cdb_rw16(cdb, READ_16, 0, 2);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    run_slot(u, 1, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    assert_good(&r);
    g_assert_cmphex(rsp_flags(u, 1), ==, UFS_UPIU_FLAG_OVERFLOW);
    g_assert_cmpuint(r.resid, ==, BLK);
    ufs_stop(u);
}

/* A 1-block READ with a 2-block EDTL: GOOD, Underflow, residual. */
static void test_data_in_underflow(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint8_t cdb[16];
    UfsResp r;

    zr_cdb_rw16(cdb, READ_16, 0, 1);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, 2 * BLK);
    run_slot(u, 1, &r);
    assert_good(&r);
    g_assert_cmphex(rsp_flags(u, 1), ==, UFS_UPIU_FLAG_UNDERFLOW);
    g_assert_cmpuint(r.resid, ==, BLK);
    ufs_stop(u);
}

/* A response with sense data into a 32-byte response buffer: OCS 4h. */
static void test_response_too_large(void)
{
    Ufs *u = legacy_start("");
    uint8_t cdb[16];
    uint32_t dw6 = cpu_to_le32((RSP_OFF / 4) << 16 | (32 / 4));
    UfsResp r;

    zr_cdb_rw16(cdb, READ_16, 0xffffffffull, 1);    /* beyond capacity */
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    qtest_memwrite(u->qts, u->utrl + 1 * 32 + 24, &dw6, 4);
    run_slot(u, 1, &r);
    g_assert_cmphex(r.ocs, ==, OCS_MISMATCH_RSP);
    assert_alive(u);
    ufs_stop(u);
}

/* A PRDT of more entries than the controller takes: OCS 2h. */
static void test_prdt_too_long(void)
{
    Ufs *u = legacy_start("");
    uint8_t cdb[16];
    uint16_t prdtl = cpu_to_le16(4097);
    UfsResp r;

    zr_cdb_rw16(cdb, READ_16, 0, 1);
    prep_scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, BLK);
    qtest_memwrite(u->qts, u->utrl + 1 * 32 + 28, &prdtl, 2);
    run_slot(u, 1, &r);
    g_assert_cmphex(r.ocs, ==, OCS_INVALID_PRDT);
    assert_alive(u);
    ufs_stop(u);
}

/* UTRD DW0 with both data directions, or an unknown command type. */
static void test_utrd_bad_dw0(void)
{
    Ufs *u = legacy_start("");
    uint8_t cdb[16] = { TEST_UNIT_READY };
    UfsResp r;

    prep_scsi(u, 1, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    qtest_writel(u->qts, u->utrl + 1 * 32,
                 cpu_to_le32((1u << 28) | UFS_UTP_HOST_TO_DEVICE |
                             UFS_UTP_DEVICE_TO_HOST));
    run_slot(u, 1, &r);
    g_assert_cmphex(r.ocs, ==, OCS_INVALID_CTA);

    prep_scsi(u, 2, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    qtest_writel(u->qts, u->utrl + 2 * 32, cpu_to_le32(2u << 28));
    run_slot(u, 2, &r);
    g_assert_cmphex(r.ocs, ==, OCS_INVALID_CTA);
    assert_alive(u);
    ufs_stop(u);
}

/* --- well-known LUs ------------------------------------------------------ */

/*
 * REPORT LUNS with 32 LUs attached: 8 + 32 * 8 bytes, all of them
 * (before the fix, 8 bytes of host stack followed the first 256).
 */
static void test_report_luns_32(void)
{
    GString *props = g_string_new("default-lu=off");
    uint8_t cdb[16] = { REPORT_LUNS };
    uint8_t buf[512];
    uint32_t seen = 0;
    UfsResp r;
    Ufs *u;
    int i;

    for (i = 0; i < 32; i++) {
        g_string_append_printf(props, " -device scsi-zbc,bus=ufs0.0,lun=%d",
                               i);
    }
    u = legacy_start(props->str);
    g_string_free(props, true);
    stl_be_p(&cdb[6], sizeof(buf));
    memset(buf, 0xaa, sizeof(buf));
    scsi(u, 1, UFS_UPIU_REPORT_LUNS_WLUN, cdb, UFS_UTP_DEVICE_TO_HOST, buf,
         sizeof(buf), &r);
    assert_good(&r);
    g_assert_cmpuint(ldl_be_p(buf), ==, 32 * 8);
    for (i = 0; i < 32; i++) {
        g_assert_cmpuint(buf[8 + i * 8], ==, 0);
        g_assert_cmpuint(buf[8 + i * 8 + 1], <, 32);
        seen |= 1u << buf[8 + i * 8 + 1];
    }
    g_assert_cmphex(seen, ==, 0xffffffff);
    g_assert_cmpuint(r.resid, ==, sizeof(buf) - 8 - 32 * 8);
    ufs_stop(u);
}

/* INQUIRY to a W-LU UFS does not define: LOGICAL UNIT NOT SUPPORTED. */
static void test_unknown_wlun(void)
{
    Ufs *u = legacy_start("");
    uint8_t cdb[16];
    uint8_t buf[36];
    UfsResp r;

    zr_cdb_inquiry(cdb, false, 0, sizeof(buf));
    scsi(u, 1, 0x85, cdb, UFS_UTP_DEVICE_TO_HOST, buf, sizeof(buf), &r);
    assert_sense(&r, ILLEGAL_REQUEST, 0x25, 0x00);
    assert_alive(u);
    ufs_stop(u);
}

/* A command to a LUN nobody attached: LOGICAL UNIT NOT SUPPORTED. */
static void test_absent_lun(void)
{
    Ufs *u = legacy_start("");
    uint8_t cdb[16] = { TEST_UNIT_READY };
    UfsResp r;

    scsi(u, 1, 5, cdb, UFS_UTP_NO_DATA_TRANSFER, NULL, 0, &r);
    assert_sense(&r, ILLEGAL_REQUEST, 0x25, 0x00);
    assert_alive(u);
    ufs_stop(u);
}

/* --- auto-hibernate -------------------------------------------------------- */

/* Without CAP.AUTOH8, AHIT is reserved: writes ignored, reads 0. */
static void test_ahit_reserved(void)
{
    Ufs *u = legacy_start("");

    g_assert_cmpuint(FIELD_EX32(rd(u, A_CAP), CAP, AUTOH8), ==, 0);
    wr(u, A_AHIT, (2 << 10) | 10);
    g_assert_cmphex(rd(u, A_AHIT), ==, 0);
    ufs_step(u, 5 * 1000 * 1000);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 0);
    ufs_stop(u);
}

/* A task management doorbell in H8 leaves it and waits out the exit. */
static void test_utmrl_leaves_h8(void)
{
    Ufs *u = legacy_start("auto-hibernate=on,h8-exit-latency=500000");
    uint8_t d[80] = { 0 };

    enter_h8(u);
    stl_le_p(&d[0], UFS_UTP_REQ_DESC_INT_CMD);
    stl_le_p(&d[8], UFS_OCS_INVALID_COMMAND_STATUS);
    d[16] = UFS_UPIU_TRANSACTION_TASK_REQ;
    d[21] = UFS_QUERY_TASK_SET;
    qtest_memwrite(u->qts, u->utmrl, d, sizeof(d));
    wr(u, A_UTMRLDBR, 1);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 1);
    ufs_step(u, 400 * 1000);
    g_assert_cmphex(rd(u, A_UTMRLDBR), ==, 1);
    ufs_step(u, 200 * 1000);
    g_assert_cmphex(rd(u, A_UTMRLDBR), ==, 0);
    g_assert_cmphex(qtest_readb(u->qts, u->utmrl + 8), ==, OCS_SUCCESS);
    ufs_stop(u);
}

/* A UIC command in H8 leaves it too. */
static void test_uic_leaves_h8(void)
{
    Ufs *u = legacy_start("auto-hibernate=on");

    enter_h8(u);
    uic(u, UFS_UIC_CMD_DME_GET, 0x1571, 0);     /* PA_PWRMODE */
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 1);
    ufs_stop(u);
}

/* A NOP rung in H8 is answered only once the exit is over. */
static void test_nop_waits_h8_exit(void)
{
    Ufs *u = legacy_start("auto-hibernate=on,h8-exit-latency=500000");
    uint8_t upiu[32] = { UFS_UPIU_TRANSACTION_NOP_OUT, 0, 0, 0x12 };

    enter_h8(u);
    prep(u, 4, upiu, sizeof(upiu), UFS_UTP_NO_DATA_TRANSFER, 0);
    ring(u, 1u << 4);
    ufs_step(u, 400 * 1000);
    g_assert_cmphex(rd(u, A_UTRLDBR) & (1u << 4), ==, 1u << 4);
    ufs_step(u, 200 * 1000);
    g_assert_cmphex(rd(u, A_UTRLDBR) & (1u << 4), ==, 0);
    ufs_stop(u);
}

/* DME_HIBER_ENTER/EXIT move the same link state auto-hibernate uses. */
static void test_manual_hibernate(void)
{
    Ufs *u = legacy_start("h8-exit-latency=500000");
    uint8_t upiu[32] = { UFS_UPIU_TRANSACTION_NOP_OUT, 0, 0, 0x13 };

    uic(u, UFS_UIC_CMD_DME_HIBER_ENTER, 0, 0);
    g_assert_true(rd(u, A_IS) & R_IS_UHES_MASK);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, 1);
    prep(u, 4, upiu, sizeof(upiu), UFS_UTP_NO_DATA_TRANSFER, 0);
    ring(u, 1u << 4);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 1);
    ufs_step(u, 400 * 1000);
    g_assert_cmphex(rd(u, A_UTRLDBR) & (1u << 4), ==, 1u << 4);
    ufs_step(u, 200 * 1000);
    g_assert_cmphex(rd(u, A_UTRLDBR) & (1u << 4), ==, 0);
    uic(u, UFS_UIC_CMD_DME_HIBER_ENTER, 0, 0);
    uic(u, UFS_UIC_CMD_DME_HIBER_EXIT, 0, 0);
    g_assert_true(rd(u, A_IS) & R_IS_UHXS_MASK);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, 2);
    ufs_stop(u);
}

/* --- legacy single doorbell: ring order, H8 batches in slot order ------- */

/*
 * Writes of @z (slot 5) and @z + 1 (slot 2), rung apart, both behind a
 * write to another zone on slot 6 when @blocker; the start log.
 */
static char *ring_5_then_2(Ufs *u, uint64_t z, bool blocker)
{
    uint32_t mask = (1u << 5) | (1u << 2);

    qom_set_str(u, "start-log", "");
    if (blocker) {
        ufs_queue_write(u, 0, 6, z + 2 * ZONE_BLOCKS);
        ring(u, 1u << 6);
        ufs_step(u, STEP_NS);
        mask |= 1u << 6;
    }
    ufs_queue_write(u, 0, 5, z);
    ufs_queue_write(u, 0, 2, z + 1);
    ring(u, 1u << 5);
    ring(u, 1u << 2);
    wait_done(u, mask);
    return qom_str(u, "start-log");
}

/*
 * Auto-hibernate off, one command in service at a time: two doorbell
 * writes (slot 5, then slot 2) that both wait behind a write in service
 * start in ring order, not slot order, so the writes to the zone stay in
 * order whatever the backlog.
 */
static void test_legacy_ring_order(void)
{
    Ufs *u = legacy_start("max-parallel=1,lat-write-ns=1000000,"
                          "reorder=spec");
    uint64_t z = 7 * ZONE_BLOCKS;
    g_autofree char *log = NULL;

    log = ring_5_then_2(u, z, true);
    g_assert_cmpstr(log, ==, "6,5,2");
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);
    ufs_stop(u);
}

/*
 * The LU, too, sees the commands in ring order: it starts a write once it
 * has the write's data, so the controller must move the data in the order
 * the LU asked for it, not in slot order.  Two writes of one zone rung back
 * to back (slot 5 at the write pointer, then slot 2 behind it) wait behind
 * two writes to other zones and start together when those end: both
 * succeed.
 */
static void test_legacy_ring_order_at_lu(void)
{
    Ufs *u = legacy_start("reorder=spec,max-parallel=2,lat-write-ns=1000000");
    uint64_t z = 7 * ZONE_BLOCKS;
    UfsResp r;

    /* Two writes elsewhere fill the service slots and end together. */
    ufs_queue_write(u, 0, 6, z + 2 * ZONE_BLOCKS);
    ufs_queue_write(u, 0, 7, z + 3 * ZONE_BLOCKS);
    ring(u, 1u << 6);
    ring(u, 1u << 7);
    ufs_queue_write(u, 0, 5, z);
    ufs_queue_write(u, 0, 2, z + 1);
    ring(u, 1u << 5);
    ring(u, 1u << 2);
    wait_done(u, 0xe4);
    get_resp(u, 5, &r);
    assert_good(&r);
    get_resp(u, 2, &r);
    assert_good(&r);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);
    ufs_stop(u);
}

/*
 * Rung while the link leaves H8, the same two writes are fetched as one
 * batch in slot order when the exit is over: slot 2 goes first and fails
 * as unaligned -- the reordering the pipelining series worries about.
 */
static void test_legacy_h8_batch_slot_order(void)
{
    Ufs *u = legacy_start("auto-hibernate=on,h8-exit-latency=500000,"
                          "reorder=spec");
    uint64_t z = 7 * ZONE_BLOCKS;
    g_autofree char *log = NULL;
    UfsResp r;

    enter_h8(u);
    log = ring_5_then_2(u, z, false);
    g_assert_cmpstr(log, ==, "2,5");
    get_resp(u, 2, &r);
    assert_sense(&r, ILLEGAL_REQUEST, 0x21, 0x04);
    get_resp(u, 5, &r);
    assert_good(&r);
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 1);
    ufs_stop(u);
}

/* --- queues and doorbells out of range -------------------------------------- */

/*
 * An SQ doorbell while MEM_CFG selects the legacy doorbell: nothing is
 * fetched until MCQ is selected, then the entry runs.
 */
static void test_mcq_doorbell_before_select(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint8_t upiu[32] = { UFS_UPIU_TRANSACTION_NOP_OUT, 0, 0, 0x21 };

    wr(u, A_CONFIG, 0);
    prep(u, 4, upiu, sizeof(upiu), UFS_UTP_NO_DATA_TRANSFER, 0);
    ufs_mcq_queue(u, 0, 4);
    ufs_mcq_ring(u, 0);
    ufs_step(u, 1000 * 1000);
    g_assert_cmphex(opr(u, 0, CQTP), ==, 0);
    wr(u, A_CONFIG, 1);
    wait_done(u, 1u << 4);
    g_assert_cmphex(u->cqe_ocs[4], ==, OCS_SUCCESS);
    assert_alive(u);
    ufs_stop(u);
}

/*
 * Arrival order is the order the host rang: three entries rung on SQ 0,
 * then one on SQ 1, before the controller fetched any (both rung while
 * the link leaves H8); reorder=none starts them exactly so, where a
 * round-robin fetch would put SQ 1's second.
 */
static void test_mcq_doorbell_order_across_sqs(void)
{
    Ufs *u = mcq_start("reorder=none,max-parallel=1,lat-write-ns=1000000,"
                       "auto-hibernate=on,h8-exit-latency=500000", 2, 8);
    g_autofree char *log = NULL;
    int slot;

    enter_h8(u);
    qom_set_str(u, "start-log", "");
    for (slot = 1; slot <= 3; slot++) {
        ufs_queue_write(u, 0, slot, 8 * ZONE_BLOCKS + slot - 1);
    }
    ufs_queue_write(u, 1, 4, 9 * ZONE_BLOCKS);
    ufs_mcq_ring(u, 0);
    ufs_mcq_ring(u, 1);
    wait_done(u, 0x1e);
    log = qom_str(u, "start-log");
    g_assert_cmpstr(log, ==, "0:1,0:2,0:3,1:4");
    g_assert_cmpuint(qom_u64(u, "starts-reordered"), ==, 0);
    ufs_stop(u);
}

/* An SQ of one entry, or naming a CQ that does not exist, stays off. */
static void test_mcq_bad_queue_attrs(void)
{
    Ufs *u = mcq_start("", 1, 8);

    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), QEN | 7);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(1, A_SQATTR)) & QEN, ==, 0);
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), QEN | 31 << 16 | (8 * 8 - 1));
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(1, A_SQATTR)) & QEN, ==, 0);
    wr(u, ufs_mcq_cfg_reg(1, A_CQATTR), QEN | 8);
    g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(1, A_CQATTR)) & QEN, ==, 0);
    assert_alive(u);
    ufs_stop(u);
}

/* --- queries and task management ----------------------------------------- */

static void test_query_bad_idn(void)
{
    Ufs *u = legacy_start("");
    UfsResp r;

    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST,
          UFS_UPIU_QUERY_OPCODE_READ_DESC, 0x55, 0, 255, 0, &r);
    g_assert_cmphex(r.response, ==, UFS_QUERY_RESULT_INVALID_IDN);
    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST,
          UFS_UPIU_QUERY_OPCODE_READ_FLAG, 0x55, 0, 0, 0, &r);
    g_assert_cmphex(r.response, ==, UFS_QUERY_RESULT_INVALID_IDN);
    assert_alive(u);
    ufs_stop(u);
}

static void test_query_bad_opcode(void)
{
    Ufs *u = legacy_start("");
    UfsResp r;

    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST, 0x55, 0, 0, 0, 0,
          &r);
    g_assert_cmphex(r.response, ==, UFS_QUERY_RESULT_INVALID_OPCODE);
    assert_alive(u);
    ufs_stop(u);
}

static void test_tm_bad_lun(void)
{
    Ufs *u = legacy_start("");

    g_assert_cmphex(task_mgmt(u, UFS_ABORT_TASK_SET, 9, 0), ==,
                    UFS_UPIU_INCORRECT_LOGICAL_UNIT_NO);
    g_assert_cmphex(task_mgmt(u, 0x42, 0, 0), ==,
                    UFS_UPIU_TASK_MANAGEMENT_FUNC_NOT_SUPPORTED);
    assert_alive(u);
    ufs_stop(u);
}

/* A UTMRD whose UPIU is not a task management request: OCS 1h. */
static void test_tm_not_a_tm_upiu(void)
{
    Ufs *u = legacy_start("");
    uint8_t d[80] = { 0 };
    int i;

    stl_le_p(&d[8], UFS_OCS_INVALID_COMMAND_STATUS);
    d[16] = UFS_UPIU_TRANSACTION_NOP_OUT;
    qtest_memwrite(u->qts, u->utmrl, d, sizeof(d));
    wr(u, A_UTMRLDBR, 1);
    for (i = 0; i < MAX_STEPS && rd(u, A_UTMRLDBR); i++) {
        ufs_step(u, STEP_NS);
    }
    g_assert_cmphex(qtest_readb(u->qts, u->utmrl + 8), ==, OCS_INVALID_CTA);
    assert_alive(u);
    ufs_stop(u);
}

/* READ at the capacity: LOGICAL BLOCK ADDRESS OUT OF RANGE, from the LU. */
static void test_lba_out_of_range(void)
{
    Ufs *u = mcq_start("", 1, 8);
    uint8_t cdb[16];
    uint8_t buf[BLK];
    UfsResp r;

    zr_cdb_rw16(cdb, READ_16, 1ull << 40, 1);
    scsi(u, 1, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, BLK, &r);
    assert_sense(&r, ILLEGAL_REQUEST, 0x21, 0x00);
    assert_alive(u);
    ufs_stop(u);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        { "dma-bar/cq-over-hce", test_cq_over_hce },
        { "dma-bar/cq-over-cqattr", test_cq_over_cqattr },
        { "dma-bar/prdt-over-hce", test_prdt_over_hce },
        { "dma-bar/prdt-over-utrlclr-legacy", test_prdt_over_utrlclr_legacy },
        { "dma-bar/ucd-in-bar", test_ucd_in_bar },
        { "dma-bar/utrl-in-bar", test_utrl_in_bar },
        { "dma-bar/sq-in-bar", test_sq_in_bar },
        { "dma-bar/utmrl-in-bar", test_utmrl_in_bar },
        { "abort/sq-cleanup-not-found", test_sq_cleanup_not_found },
        { "abort/lu-reset-no-ghost-start-mcq",
          test_lu_reset_no_ghost_start_mcq },
        { "abort/lu-reset-no-ghost-start-legacy",
          test_lu_reset_no_ghost_start_legacy },
        { "abort/utrlclr-no-ghost-start", test_utrlclr_no_ghost_start },
        { "abort/task-done-waiting-for-cq", test_abort_task_done_waiting },
        { "abort/cq-disable-with-waiter", test_cq_disable_with_waiter },
        { "reset/hce-in-flight", test_hce_reset_in_flight },
        { "reset/hce-keeps-device-state", test_hce_reset_keeps_device_state },
        { "data/short-data-out", test_short_data_out },
        { "data/data-in-overflow", test_data_in_overflow },
        { "data/data-in-underflow", test_data_in_underflow },
        { "data/response-too-large", test_response_too_large },
        { "data/prdt-too-long", test_prdt_too_long },
        { "utrd/bad-dw0", test_utrd_bad_dw0 },
        { "wlun/report-luns-32", test_report_luns_32 },
        { "wlun/unknown", test_unknown_wlun },
        { "lun/absent", test_absent_lun },
        { "lun/lba-out-of-range", test_lba_out_of_range },
        { "ah8/ahit-reserved", test_ahit_reserved },
        { "ah8/utmrl-leaves-h8", test_utmrl_leaves_h8 },
        { "ah8/uic-leaves-h8", test_uic_leaves_h8 },
        { "ah8/nop-waits-exit", test_nop_waits_h8_exit },
        { "ah8/manual-hibernate", test_manual_hibernate },
        { "legacy/ring-order", test_legacy_ring_order },
        { "legacy/ring-order-at-lu", test_legacy_ring_order_at_lu },
        { "legacy/h8-batch-slot-order", test_legacy_h8_batch_slot_order },
        { "mcq/doorbell-before-select", test_mcq_doorbell_before_select },
        { "mcq/doorbell-order-across-sqs",
          test_mcq_doorbell_order_across_sqs },
        { "mcq/bad-queue-attrs", test_mcq_bad_queue_attrs },
        { "query/bad-idn", test_query_bad_idn },
        { "query/bad-opcode", test_query_bad_opcode },
        { "tm/bad-lun-and-function", test_tm_bad_lun },
        { "tm/not-a-tm-upiu", test_tm_not_a_tm_upiu },
    };
    size_t i;

    g_test_init(&argc, &argv, NULL);
    for (i = 0; i < ARRAY_SIZE(tests); i++) {
        g_autofree char *name = g_strdup_printf("/ufs-zoned/hardening/%s",
                                                tests[i].name);

        qtest_add_func(name, tests[i].fn);
    }
    return g_test_run();
}
