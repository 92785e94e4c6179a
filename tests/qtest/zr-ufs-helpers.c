/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the ufs-zoned qtests; see zr-ufs-helpers.h.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/pci/pci_regs.h"
#include "qobject/qdict.h"
#include "scsi/constants.h"
#include "zr-ufs-helpers.h"

const char *ufs_test_mode = "mcq";
const char *ufs_binary_env;

uint32_t rd(Ufs *u, uint32_t off)
{
    return qpci_io_readl(u->dev, u->bar, off);
}

void wr(Ufs *u, uint32_t off, uint32_t val)
{
    qpci_io_writel(u->dev, u->bar, off, val);
}

uint64_t ucd(Ufs *u, int slot)
{
    return u->ucd + slot * UCD_SIZE;
}

uint64_t data_buf(Ufs *u, int slot)
{
    return u->data + (uint64_t)slot * DATA_SIZE;
}

void uic(Ufs *u, uint8_t cmd, uint16_t attr, uint32_t val)
{
    wr(u, A_IS, rd(u, A_IS));
    g_assert_true(rd(u, A_HCS) & R_HCS_UCRDY_MASK);
    wr(u, A_UCMDARG1, (uint32_t)attr << 16);
    wr(u, A_UCMDARG2, 0);
    wr(u, A_UCMDARG3, val);
    wr(u, A_UICCMD, cmd);
    g_assert_true(rd(u, A_IS) & R_IS_UCCS_MASK);
    g_assert_cmphex(rd(u, A_UCMDARG2) & 0xff, ==, 0);
}

/* The command line of a VM with the controller and @props */
char *ufs_args(const char *props)
{
    g_autofree char *fw = zr_firmware_args();

    return g_strdup_printf("%s-machine q35 -nodefaults "
                           "-device ufs-zoned,id=ufs0,addr=%02x.0,mode=%s%s%s",
                           fw, PCI_SLOT, ufs_test_mode, *props ? "," : "",
                           props);
}

Ufs *ufs_boot(const char *props)
{
    g_autofree char *args = ufs_args(props);

    return ufs_boot_args(args);
}

/* Boot the VM of command line @args, a controller with our PCI ID at slot 4 */
Ufs *ufs_boot_args(const char *args)
{
    Ufs *u = g_new0(Ufs, 1);
    uint64_t utrl;

    u->qts = qtest_init_with_env(ufs_binary_env, args, true);
    pc_alloc_init(&u->alloc, u->qts, ALLOC_NO_FLAGS);
    u->pcibus = qpci_new_pc(u->qts, &u->alloc);
    u->dev = qpci_device_find(u->pcibus, QPCI_DEVFN(PCI_SLOT, 0));
    g_assert_nonnull(u->dev);
    g_assert_cmphex(qpci_config_readw(u->dev, PCI_VENDOR_ID), ==, 0x1b36);
    g_assert_cmphex(qpci_config_readw(u->dev, PCI_DEVICE_ID), ==, 0x0013);
    qpci_device_enable(u->dev);
    u->bar = qpci_iomap(u->dev, 0, NULL);

    utrl = guest_alloc(&u->alloc, 2 * 4096);
    u->utrl = ROUND_UP(utrl, 4096);
    u->utmrl = guest_alloc(&u->alloc, 4096);
    u->ucd = guest_alloc(&u->alloc, NUTRS * UCD_SIZE);
    u->data = guest_alloc(&u->alloc, NUTRS * DATA_SIZE);
    g_assert_cmpuint(u->ucd & 127, ==, 0);
    return u;
}

/*
 * Migrate the VM to a file and go on in a new QEMU started with @props
 * (the same controller; drives as the destination has them).
 */
void ufs_migrate(Ufs *u, const char *props)
{
    g_autofree char *args = ufs_args(props);

    u->qts = zr_migrate_via_file(u->qts, args);
    u->pcibus->qts = u->qts;
}

void ufs_stop(Ufs *u)
{
    qpci_free_pc(u->pcibus);
    g_free(u->dev);
    alloc_destroy(&u->alloc);
    qtest_quit(u->qts);
    g_free(u);
}

/* ufshcd_init + ufshcd_link_startup + ufshcd_make_hba_operational */
void ufs_bringup(Ufs *u)
{
    uint32_t cap = rd(u, A_CAP);

    g_assert_cmpuint(FIELD_EX32(cap, CAP, NUTRS) + 1, ==, NUTRS);
    g_assert_cmpuint(FIELD_EX32(cap, CAP, LSDBS), ==, 0);
    g_assert_cmpuint(FIELD_EX32(cap, CAP, 64AS), ==, 1);
    g_assert_cmphex(rd(u, A_VER), ==, 0x400);
    wr(u, A_IS, rd(u, A_IS));
    wr(u, A_IE, 0);

    g_assert_cmpuint(rd(u, A_HCE), ==, 0);
    wr(u, A_HCE, 1);
    g_assert_cmpuint(rd(u, A_HCE) & 1, ==, 1);
    wr(u, A_IE, R_IE_UCCE_MASK | R_IE_UPMSE_MASK | R_IE_UHXSE_MASK |
       R_IE_UHESE_MASK);

    uic(u, UFS_UIC_CMD_DME_LINK_STARTUP, 0, 0);
    g_assert_true(rd(u, A_HCS) & R_HCS_DP_MASK);
    rd(u, A_UECPA);
    wr(u, A_IE, rd(u, A_IE) | R_IE_UTRCE_MASK | R_IE_UTMRCE_MASK |
       R_IE_UEE_MASK);
    wr(u, A_UTRIACR, 0);
    wr(u, A_UTRLBA, u->utrl & 0xffffffff);
    wr(u, A_UTRLBAU, u->utrl >> 32);
    wr(u, A_UTMRLBA, u->utmrl & 0xffffffff);
    wr(u, A_UTMRLBAU, u->utmrl >> 32);
    g_assert_cmphex(rd(u, A_HCS) & 0xe, ==, 0xe);
    wr(u, A_UTMRLRSR, 1);
    wr(u, A_UTRLRSR, 1);
}

/* Write UTRD, request UPIU (32 bytes + @extra) and a one-entry PRDT. */
void prep(Ufs *u, int slot, const uint8_t *upiu, size_t upiu_len,
          uint32_t dd, uint32_t prdt_bytes)
{
    uint64_t c = ucd(u, slot);
    uint32_t utrd[8] = { 0 };
    uint8_t zero[RSP_OFF] = { 0 };
    uint32_t prdt[4];

    utrd[0] = cpu_to_le32((1u << 28) | dd | UFS_UTP_REQ_DESC_INT_CMD);
    utrd[2] = cpu_to_le32(UFS_OCS_INVALID_COMMAND_STATUS);
    utrd[4] = cpu_to_le32(c & 0xffffffff);
    utrd[5] = cpu_to_le32(c >> 32);
    utrd[6] = cpu_to_le32((RSP_OFF / 4) << 16 | (RSP_OFF / 4));
    utrd[7] = cpu_to_le32((PRDT_OFF / 4) << 16 | (prdt_bytes ? 1 : 0));
    qtest_memwrite(u->qts, u->utrl + slot * 32, utrd, sizeof(utrd));
    qtest_memwrite(u->qts, c, zero, sizeof(zero));
    qtest_memwrite(u->qts, c + RSP_OFF, zero, sizeof(zero));
    qtest_memwrite(u->qts, c, upiu, upiu_len);
    if (prdt_bytes) {
        prdt[0] = cpu_to_le32(data_buf(u, slot) & 0xffffffff);
        prdt[1] = cpu_to_le32(data_buf(u, slot) >> 32);
        prdt[2] = 0;
        prdt[3] = cpu_to_le32(prdt_bytes - 1);
        qtest_memwrite(u->qts, c + PRDT_OFF, prdt, sizeof(prdt));
    }
}

void set_prdt(Ufs *u, int slot, uint64_t addr, uint32_t dbc)
{
    uint32_t prdt[4] = { cpu_to_le32(addr & 0xffffffff),
                         cpu_to_le32(addr >> 32), 0, cpu_to_le32(dbc) };

    qtest_memwrite(u->qts, ucd(u, slot) + PRDT_OFF, prdt, sizeof(prdt));
}

/*
 * Advance QEMU_CLOCK_VIRTUAL by @ns in steps of at most STEP_NS with a
 * register read between them: the controller's timers only schedule its
 * BHs, which run in the main loop between two qtest commands, so a long
 * single clock_step would bunch every event at its end.
 */
void ufs_step(Ufs *u, int64_t ns)
{
    while (ns > 0) {
        int64_t q = MIN(ns, (int64_t)STEP_NS);

        qtest_clock_step(u->qts, q);
        rd(u, A_IS);
        ns -= q;
    }
}

/*
 * Step the clock until the slots of @mask are done: their doorbell bits
 * clear (legacy) or their CQEs consumed (MCQ).
 */
void wait_done(Ufs *u, uint32_t mask)
{
    int i;

    if (u->mcq) {
        for (i = 0; i < MAX_STEPS && (u->done & mask) != mask; i++) {
            uint32_t q;

            for (q = 0; q < u->nq; q++) {
                ufs_mcq_reap(u, q);
            }
            if ((u->done & mask) != mask) {
                qtest_clock_step(u->qts, STEP_NS);
            }
        }
        g_assert_cmphex(u->done & mask, ==, mask);
        return;
    }
    for (i = 0; i < MAX_STEPS && (rd(u, A_UTRLDBR) & mask); i++) {
        qtest_clock_step(u->qts, STEP_NS);
    }
    g_assert_cmphex(rd(u, A_UTRLDBR) & mask, ==, 0);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
}

void get_resp(Ufs *u, int slot, UfsResp *r)
{
    uint8_t rsp[RSP_OFF];

    memset(r, 0, sizeof(*r));
    r->ocs = u->mcq ? u->cqe_ocs[slot] :
             qtest_readb(u->qts, u->utrl + slot * 32 + 8);
    qtest_memread(u->qts, ucd(u, slot) + RSP_OFF, rsp, sizeof(rsp));
    r->tc = rsp[0];
    r->response = rsp[6];
    r->status = rsp[7];
    r->resid = ldl_be_p(&rsp[12]);
    memcpy(r->sense, &rsp[34], sizeof(r->sense));
    r->value = ldl_be_p(&rsp[20]);
    r->len = lduw_be_p(&rsp[10]);
    memcpy(r->data, &rsp[32], sizeof(r->data));
}

/* Start the slots of @mask: one UTRLDBR write, or one SQTP write. */
void ring(Ufs *u, uint32_t mask)
{
    int slot;

    wr(u, A_IS, rd(u, A_IS));
    if (!u->mcq) {
        wr(u, A_UTRLDBR, mask);
        return;
    }
    for (slot = 0; slot < NUTRS; slot++) {
        if (mask & (1u << slot)) {
            ufs_mcq_queue(u, u->sq, slot);
        }
    }
    ufs_mcq_ring(u, u->sq);
}

void nop(Ufs *u, int slot)
{
    uint8_t upiu[32] = { UFS_UPIU_TRANSACTION_NOP_OUT, 0, 0, 0x5a };
    UfsResp r;

    prep(u, slot, upiu, sizeof(upiu), UFS_UTP_NO_DATA_TRANSFER, 0);
    ring(u, 1u << slot);
    wait_done(u, 1u << slot);
    get_resp(u, slot, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    g_assert_cmphex(r.tc, ==, UFS_UPIU_TRANSACTION_NOP_IN);
    g_assert_cmphex(r.response, ==, 0);
}

void query(Ufs *u, uint8_t func, uint8_t opcode, uint8_t idn,
           uint8_t index, uint16_t len, uint32_t value, UfsResp *r)
{
    uint8_t upiu[32] = { UFS_UPIU_TRANSACTION_QUERY_REQ, 0, 0, 0x33 };
    int slot = NUTRS - 1;       /* Linux's reserved dev-cmd slot */

    upiu[5] = func;
    upiu[12] = opcode;
    upiu[13] = idn;
    upiu[14] = index;
    stw_be_p(&upiu[18], len);
    stl_be_p(&upiu[20], value);
    prep(u, slot, upiu, sizeof(upiu), UFS_UTP_NO_DATA_TRANSFER, 0);
    ring(u, 1u << slot);
    wait_done(u, 1u << slot);
    get_resp(u, slot, r);
    g_assert_cmphex(r->ocs, ==, OCS_SUCCESS);
    g_assert_cmphex(r->tc, ==, UFS_UPIU_TRANSACTION_QUERY_RSP);
}

void read_desc(Ufs *u, uint8_t idn, uint8_t index, UfsResp *r)
{
    query(u, UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST,
          UFS_UPIU_QUERY_OPCODE_READ_DESC, idn, index, 255, 0, r);
    g_assert_cmphex(r->response, ==, 0);
    g_assert_cmpuint(r->len, ==, r->data[0]);
    g_assert_cmphex(r->data[1], ==, idn);
}

/* A flag or attribute query that must get response @expect */
uint32_t query_expect(Ufs *u, bool write, uint8_t opcode, uint8_t idn,
                      uint32_t value, uint8_t expect)
{
    UfsResp r;

    query(u, write ? UFS_UPIU_QUERY_FUNC_STANDARD_WRITE_REQUEST :
          UFS_UPIU_QUERY_FUNC_STANDARD_READ_REQUEST, opcode, idn, 0, 0,
          value, &r);
    g_assert_cmphex(r.response, ==, expect);
    return r.value;
}

/* Prepare a SCSI command UPIU on @slot (data in the slot's buffer). */
void prep_scsi(Ufs *u, int slot, uint8_t lun, const uint8_t *cdb,
               uint32_t dd, uint32_t len)
{
    uint8_t upiu[32] = { UFS_UPIU_TRANSACTION_COMMAND };

    upiu[1] = dd == UFS_UTP_DEVICE_TO_HOST ? UFS_UPIU_CMD_FLAGS_READ :
              dd == UFS_UTP_HOST_TO_DEVICE ? UFS_UPIU_CMD_FLAGS_WRITE : 0;
    upiu[2] = lun;
    upiu[3] = slot;
    stl_be_p(&upiu[12], len);
    memcpy(&upiu[16], cdb, 16);
    prep(u, slot, upiu, sizeof(upiu), dd, len);
}

void scsi(Ufs *u, int slot, uint8_t lun, const uint8_t *cdb,
          uint32_t dd, void *buf, uint32_t len, UfsResp *r)
{
    if (dd == UFS_UTP_HOST_TO_DEVICE) {
        qtest_memwrite(u->qts, data_buf(u, slot), buf, len);
    }
    prep_scsi(u, slot, lun, cdb, dd, len);
    ring(u, 1u << slot);
    wait_done(u, 1u << slot);
    get_resp(u, slot, r);
    g_assert_cmphex(r->ocs, ==, OCS_SUCCESS);
    g_assert_cmphex(r->tc, ==, UFS_UPIU_TRANSACTION_RESPONSE);
    if (dd == UFS_UTP_DEVICE_TO_HOST) {
        qtest_memread(u->qts, data_buf(u, slot), buf, len);
    }
}

void resp_to_scsi(const UfsResp *r, ZrScsiResp *z)
{
    memset(z, 0, sizeof(*z));
    z->status = r->status;
    z->sense_len = sizeof(r->sense);
    memcpy(z->sense, r->sense, sizeof(r->sense));
}

void assert_good(const UfsResp *r)
{
    ZrScsiResp z;

    resp_to_scsi(r, &z);
    zr_assert_good(&z);
}

/* TEST UNIT READY until the power-on unit attention is consumed. */
void lu_ready(Ufs *u, uint8_t lun)
{
    uint8_t cdb[16] = { TEST_UNIT_READY };
    UfsResp r;
    int i;

    for (i = 0; i < 3; i++) {
        scsi(u, 0, lun, cdb, UFS_UTP_NO_DATA_TRANSFER, NULL, 0, &r);
        if (r.status == GOOD) {
            return;
        }
        g_assert_cmphex(r.sense[2] & 0xf, ==, UNIT_ATTENTION);
    }
    g_assert_not_reached();
}

Ufs *ufs_start(const char *props)
{
    Ufs *u = ufs_boot(props);

    ufs_bringup(u);
    nop(u, NUTRS - 1);
    lu_ready(u, 0);
    return u;
}

uint64_t qom_u64(Ufs *u, const char *prop)
{
    return zr_qom_get_u64(u->qts, "/machine/peripheral/ufs0", prop);
}

char *qom_str(Ufs *u, const char *prop)
{
    QDict *rsp = qtest_qmp(u->qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': '/machine/peripheral/ufs0', "
                           "'property': %s } }", prop);
    char *val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = g_strdup(qdict_get_str(rsp, "return"));
    qobject_unref(rsp);
    return val;
}

void qom_set_str(Ufs *u, const char *prop, const char *value)
{
    QDict *rsp = qtest_qmp(u->qts, "{ 'execute': 'qom-set', 'arguments': "
                           "{ 'path': '/machine/peripheral/ufs0', "
                           "'property': %s, 'value': %s } }", prop, value);

    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}


/*
 * Prepare a 1-block WRITE(16) of @lba on @slot, data filled with the slot
 * number; in MCQ mode put it in SQ @sq too (ring with ufs_mcq_ring).
 */
void ufs_queue_write(Ufs *u, uint32_t sq, int slot, uint64_t lba)
{
    uint8_t cdb[16];
    uint8_t buf[BLK];

    memset(buf, slot, sizeof(buf));
    qtest_memwrite(u->qts, data_buf(u, slot), buf, BLK);
    zr_cdb_rw16(cdb, WRITE_16, lba, 1);
    prep_scsi(u, slot, 0, cdb, UFS_UTP_HOST_TO_DEVICE, BLK);
    if (u->mcq) {
        ufs_mcq_queue(u, sq, slot);
    }
}

void write1(Ufs *u, int slot, uint64_t lba, uint8_t fill, UfsResp *r)
{
    uint8_t cdb[16];
    g_autofree uint8_t *buf = g_malloc(BLK);

    memset(buf, fill, BLK);
    zr_cdb_rw16(cdb, WRITE_16, lba, 1);
    scsi(u, slot, 0, cdb, UFS_UTP_HOST_TO_DEVICE, buf, BLK, r);
}

/* One task management request on UTMRL slot 0; returns the service
 * response (output parameter 1), asserting OCS SUCCESS. */
uint8_t task_mgmt(Ufs *u, uint8_t func, uint8_t lun, uint8_t tag)
{
    uint8_t d[80] = { 0 };
    int i;

    stl_le_p(&d[0], UFS_UTP_REQ_DESC_INT_CMD);
    stl_le_p(&d[8], UFS_OCS_INVALID_COMMAND_STATUS);
    d[16] = UFS_UPIU_TRANSACTION_TASK_REQ;
    d[18] = lun;
    d[19] = 0x77;
    d[21] = func;
    stl_be_p(&d[28], lun);
    stl_be_p(&d[32], tag);
    qtest_memwrite(u->qts, u->utmrl, d, sizeof(d));
    wr(u, A_IS, rd(u, A_IS));
    wr(u, A_UTMRLDBR, 1);
    /* Answered on the controller's work BH: poll like ufshcd does. */
    for (i = 0; i < MAX_STEPS && rd(u, A_UTMRLDBR); i++) {
        qtest_clock_step(u->qts, STEP_NS);
    }
    g_assert_cmphex(rd(u, A_UTMRLDBR), ==, 0);
    g_assert_true(rd(u, A_IS) & R_IS_UTMRCS_MASK);
    qtest_memread(u->qts, u->utmrl, d, sizeof(d));
    g_assert_cmphex(d[8], ==, OCS_SUCCESS);
    g_assert_cmphex(d[48], ==, UFS_UPIU_TRANSACTION_TASK_RSP);
    g_assert_cmphex(d[51], ==, 0x77);
    return ldl_be_p(&d[60]);
}

/* --- MCQ -------------------------------------------------------------- */

#define MCQ_CFG_BASE    0x400       /* the device's QCFGPTR 2 */

uint32_t ufs_mcq_cfg_reg(uint32_t q, uint32_t off)
{
    return MCQ_CFG_BASE + q * 0x40 + off;
}

/* An operation/runtime register, found through SQDAO like Linux does. */
uint32_t ufs_mcq_sq_reg(uint32_t q, uint32_t off)
{
    return 0x1000 + q * 48 + off;
}

/* ufshcd_config_mcq + ufshcd_mcq_make_queues_operational */
void ufs_mcq_enable(Ufs *u, uint32_t nq, uint32_t entries)
{
    uint32_t mcqcap = rd(u, A_MCQCAP);
    uint32_t size = entries * 8 - 1;
    uint32_t q;

    g_assert_cmpuint(FIELD_EX32(rd(u, A_CAP), CAP, MCQS), ==, 1);
    g_assert_cmpuint(FIELD_EX32(mcqcap, MCQCAP, QCFGPTR) * 0x200, ==,
                     MCQ_CFG_BASE);
    g_assert_cmpuint(FIELD_EX32(mcqcap, MCQCAP, MAXQ) + 1, >=, nq);
    g_assert_cmpuint(nq, <=, UFS_TEST_MAX_QUEUES);
    u->nq = nq;
    u->entries = entries;
    wr(u, A_IE, rd(u, A_IE) | R_IE_CQEE_MASK);
    for (q = 0; q < nq; q++) {
        UfsTestQueue *t = &u->q[q];

        t->sq = guest_alloc(&u->alloc, entries * 32);
        t->cq = guest_alloc(&u->alloc, entries * 32);
        t->sq_tail = t->cq_head = t->cqes = 0;
        g_assert_cmpuint(rd(u, ufs_mcq_cfg_reg(q, A_SQDAO)), ==,
                         ufs_mcq_sq_reg(q, 0));
        wr(u, ufs_mcq_cfg_reg(q, A_SQLBA), t->sq & 0xffffffff);
        wr(u, ufs_mcq_cfg_reg(q, A_SQUBA), t->sq >> 32);
        wr(u, ufs_mcq_cfg_reg(q, A_SQDAO), ufs_mcq_sq_reg(q, 0));
        wr(u, ufs_mcq_cfg_reg(q, A_SQISAO), ufs_mcq_sq_reg(q, 0x14));
        wr(u, ufs_mcq_cfg_reg(q, A_CQLBA), t->cq & 0xffffffff);
        wr(u, ufs_mcq_cfg_reg(q, A_CQUBA), t->cq >> 32);
        wr(u, ufs_mcq_cfg_reg(q, A_CQDAO), ufs_mcq_sq_reg(q, 0x1c));
        wr(u, ufs_mcq_cfg_reg(q, A_CQISAO), ufs_mcq_sq_reg(q, 0x24));
        wr(u, ufs_mcq_sq_reg(q, 0x28), 1);                 /* CQIE.TEPE */
        wr(u, ufs_mcq_cfg_reg(q, A_CQATTR), (1u << 31) | size);
        wr(u, ufs_mcq_cfg_reg(q, A_SQATTR), (1u << 31) | q << 16 | size);
        g_assert_cmphex(rd(u, ufs_mcq_cfg_reg(q, A_SQATTR)), ==,
                        (1u << 31) | q << 16 | size);
    }
    wr(u, A_MCQCONFIG, (NUTRS - 1) << 8);
    wr(u, A_CONFIG, 1);
    u->mcq = true;
    u->sq = 0;
}

void ufs_mcq_queue(Ufs *u, uint32_t sq, int slot)
{
    UfsTestQueue *t = &u->q[sq];
    uint8_t utrd[32];

    qtest_memread(u->qts, u->utrl + slot * 32, utrd, sizeof(utrd));
    qtest_memwrite(u->qts, t->sq + t->sq_tail * 32, utrd, sizeof(utrd));
    t->sq_tail = (t->sq_tail + 1) % u->entries;
    u->done &= ~(1u << slot);
}

/*
 * SQ cleanup of @tag on stopped SQ @q, as ufshcd_mcq_sq_cleanup does it:
 * SQCTI, SQRTC.ICU, then poll SQRTS.CUS.  Returns SQRTS.
 */
uint32_t ufs_mcq_cleanup(Ufs *u, uint32_t q, uint8_t lun, uint8_t tag)
{
    uint32_t rts = 0;
    int i;

    wr(u, ufs_mcq_sq_reg(q, SQCTI), (uint32_t)lun << 8 | tag);
    wr(u, ufs_mcq_sq_reg(q, SQRTC),
       rd(u, ufs_mcq_sq_reg(q, SQRTC)) | 2);
    for (i = 0; i < MAX_STEPS; i++) {
        rts = rd(u, ufs_mcq_sq_reg(q, SQRTS));
        if (rts & 2) {
            break;
        }
        ufs_step(u, STEP_NS);
    }
    g_assert_cmphex(rts & 2, ==, 2);
    return rts;
}

void ufs_mcq_ring(Ufs *u, uint32_t sq)
{
    wr(u, ufs_mcq_sq_reg(sq, 0x04), u->q[sq].sq_tail * 32);
}

/*
 * ufshcd_handle_mcq_cq_events + ufshcd_mcq_poll_cqe_lock for one CQ:
 * clear CQIS, consume the CQEs, move CQHP; again until CQIS is clear and
 * the tail has not moved.
 *
 * A file-backed drive completes on the main loop whenever QEMU polls, not
 * in step with the virtual clock, so a CQE may be posted between any two
 * register accesses here.  Each pass reads CQTP, then CQIS; the checks are
 * the ones that hold whatever the interleaving (UFSHCI 4.0 5.9: posting a
 * CQE sets CQIS.TEPS):
 *  - CQTP moved since the previous pass and CQIS was not cleared since:
 *    CQIS must be set;
 *  - CQTP did not move since the previous pass but CQIS is set: the CQE
 *    behind it was posted between the two reads (any earlier one was seen
 *    by the previous pass, which cleared CQIS), so the next pass must see
 *    CQTP move.
 * The previous pass of the first one is the last pass of the previous call,
 * which saw CQTP at the head and CQIS clear.
 */
uint32_t ufs_mcq_reap(Ufs *u, uint32_t cq)
{
    UfsTestQueue *t = &u->q[cq];
    uint32_t tail, prev = t->cq_head, n = 0;
    bool cleared = false, must_move = false;

    for (;;) {
        uint32_t cqis;

        tail = rd(u, ufs_mcq_sq_reg(cq, 0x20)) / 32;
        cqis = rd(u, ufs_mcq_sq_reg(cq, 0x24)) & 1;
        if (tail == prev) {
            g_assert_false(must_move);
            must_move = cqis;
        } else {
            must_move = false;
            if (!cleared) {
                g_assert_cmphex(cqis, ==, 1);
            }
        }
        if (tail == t->cq_head && !cqis) {
            break;
        }
        cleared = false;
        if (cqis) {
            g_assert_true(rd(u, A_IS) & R_IS_CQES_MASK);
            wr(u, ufs_mcq_sq_reg(cq, 0x24), 1);
            cleared = true;
        }
        prev = tail;
        while (t->cq_head != tail) {
            uint8_t cqe[32];
            uint64_t addr;
            int slot;

            qtest_memread(u->qts, t->cq + t->cq_head * 32, cqe, sizeof(cqe));
            addr = ldq_le_p(cqe) & ~0x7full;
            g_assert_cmpuint(addr, >=, u->ucd);
            slot = (addr - u->ucd) / UCD_SIZE;
            g_assert_cmpint(slot, <, NUTRS);
            g_assert_cmpuint(addr, ==, ucd(u, slot));
            g_assert_false(u->done & (1u << slot));
            u->cqe_ocs[slot] = cqe[16] & 0xf;
            u->done |= 1u << slot;
            t->cq_head = (t->cq_head + 1) % u->entries;
            t->cqes++;
            n++;
        }
        wr(u, ufs_mcq_sq_reg(cq, 0x1c), t->cq_head * 32);
    }
    return n;
}
