/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtests of the ufs-zoned interrupt: the MSI and MSI-X capabilities, one
 * message per newly set source (IS bits, and each CQ's CQIS event), a
 * masked MSI-X vector left pending, the message a register write makes
 * due sent from the work BH, and interrupt aggregation -- UTRIACR on the
 * legacy list, CQIACR on an MCQ CQ -- with its counter threshold, its
 * timeout on the virtual clock, the UTRD I bit, CTR, IAPWEN, IASB, and
 * its state across a migration.
 *
 * A message is a memory write: the MSI-X table entry (or the MSI address
 * register) points at guest RAM, so each message writes MSG_DATA there,
 * and the `interrupts` counter counts them exactly.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/pci/pci_regs.h"
#include "scsi/constants.h"
#include "zr-ufs-helpers.h"

#define MSG_DATA        0x4e75u

/* UTRIACR / CQIACR (UFSHCI 4.0 5.3.6) */
#define IAEN            (1u << 31)
#define IAPWEN          (1u << 24)
#define IASB            (1u << 20)
#define CTR             (1u << 16)
#define IACTH(n)        ((uint32_t)(n) << 8)
#define IATOVAL(n)      ((uint32_t)(n))
#define CQIACR          0x2c

typedef struct Msg {
    Ufs *u;
    uint64_t addr;              /* where messages land */
    uint64_t base;              /* `interrupts` when last looked at */
} Msg;

static uint32_t msg_word(Msg *m)
{
    return qtest_readl(m->u->qts, m->addr);
}

/* Messages since the last call; each must have written MSG_DATA. */
static uint64_t msgs(Msg *m)
{
    uint64_t n = qom_u64(m->u, "interrupts"), d = n - m->base;

    if (d) {
        g_assert_cmphex(msg_word(m), ==, MSG_DATA);
    }
    qtest_writel(m->u->qts, m->addr, 0);
    m->base = n;
    return d;
}

static void msix_entry(Msg *m, bool masked)
{
    QPCIDevice *d = m->u->dev;
    uint64_t off = d->msix_table_off;

    qpci_io_writel(d, d->msix_table_bar, off + PCI_MSIX_ENTRY_LOWER_ADDR,
                   m->addr & 0xffffffff);
    qpci_io_writel(d, d->msix_table_bar, off + PCI_MSIX_ENTRY_UPPER_ADDR,
                   m->addr >> 32);
    qpci_io_writel(d, d->msix_table_bar, off + PCI_MSIX_ENTRY_DATA,
                   MSG_DATA);
    qpci_io_writel(d, d->msix_table_bar, off + PCI_MSIX_ENTRY_VECTOR_CTRL,
                   masked ? PCI_MSIX_ENTRY_CTRL_MASKBIT : 0);
}

/* Boot with @props and MSI-X on vector 0, as ufshcd-pci would set it up. */
static Msg msix_boot(const char *props)
{
    Msg m = { .u = ufs_boot(props) };

    m.addr = guest_alloc(&m.u->alloc, 4);
    qtest_writel(m.u->qts, m.addr, 0);
    qpci_msix_enable(m.u->dev);
    msix_entry(&m, false);
    return m;
}

static void msg_ready(Msg *m)
{
    ufs_bringup(m->u);
    nop(m->u, NUTRS - 1);
    lu_ready(m->u, 0);
    msgs(m);
}

static void prep_tur(Ufs *u, int slot, bool ibit)
{
    uint8_t cdb[16] = { TEST_UNIT_READY };
    uint32_t dw0;

    prep_scsi(u, slot, 0, cdb, UFS_UTP_NO_DATA_TRANSFER, 0);
    dw0 = qtest_readl(u->qts, u->utrl + slot * 32);
    dw0 = ibit ? dw0 | UFS_UTP_REQ_DESC_INT_CMD
               : dw0 & ~UFS_UTP_REQ_DESC_INT_CMD;
    qtest_writel(u->qts, u->utrl + slot * 32, dw0);
}

/* Legacy: ring @mask without touching IS and step until it is done. */
static void legacy_run(Ufs *u, uint32_t mask)
{
    int i;

    wr(u, A_UTRLDBR, mask);
    for (i = 0; i < MAX_STEPS && (rd(u, A_UTRLDBR) & mask); i++) {
        qtest_clock_step(u->qts, 1000);
    }
    g_assert_cmphex(rd(u, A_UTRLDBR) & mask, ==, 0);
}

/* The virtual clock, moved by 1 ns (qtest has no plain read of it). */
static int64_t now(Ufs *u)
{
    return qtest_clock_step(u->qts, 1);
}

static uint32_t cq_tail(Ufs *u, uint32_t q)
{
    return rd(u, ufs_mcq_sq_reg(q, CQTP)) / 32;
}

/* MCQ: put a TUR in SQ @q, ring, step until its CQE is posted (not read). */
static void mcq_run(Ufs *u, uint32_t q, int slot, bool ibit)
{
    uint32_t tail = cq_tail(u, q);
    int i;

    prep_tur(u, slot, ibit);
    ufs_mcq_queue(u, q, slot);
    ufs_mcq_ring(u, q);
    for (i = 0; i < MAX_STEPS && cq_tail(u, q) == tail; i++) {
        qtest_clock_step(u->qts, 1000);
    }
    g_assert_cmpuint(cq_tail(u, q), !=, tail);
}

/* INTx (no capability, or none enabled): one assertion per completion. */
static void msgs_intx(Ufs *u)
{
    uint64_t n;

    ufs_bringup(u);
    nop(u, NUTRS - 1);
    n = qom_u64(u, "interrupts");
    wr(u, A_IS, rd(u, A_IS));
    prep_tur(u, 0, true);
    legacy_run(u, 1);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    g_assert_cmpuint(qom_u64(u, "interrupts"), ==, n + 1);
}

/* --- tests ------------------------------------------------------------ */

static void test_caps(void)
{
    Ufs *u = ufs_boot("");
    uint8_t msix = qpci_find_capability(u->dev, PCI_CAP_ID_MSIX, 0);
    uint8_t msi = qpci_find_capability(u->dev, PCI_CAP_ID_MSI, 0);

    g_assert_cmpuint(qpci_config_readb(u->dev, PCI_INTERRUPT_PIN), ==, 1);
    g_assert_cmpuint(msix, !=, 0);
    g_assert_cmpuint(msi, !=, 0);
    g_assert_cmpuint(qpci_msix_table_size(u->dev), ==, 1);
    g_assert_cmpuint(qpci_config_readl(u->dev, msix + PCI_MSIX_TABLE) &
                     PCI_MSIX_FLAGS_BIRMASK, ==, 2);
    g_assert_cmphex(qpci_config_readw(u->dev, msi + PCI_MSI_FLAGS) &
                    (PCI_MSI_FLAGS_QMASK | PCI_MSI_FLAGS_64BIT), ==,
                    PCI_MSI_FLAGS_64BIT);
    ufs_stop(u);

    u = ufs_boot("msi=off,msix=off");
    g_assert_cmpuint(qpci_find_capability(u->dev, PCI_CAP_ID_MSIX, 0), ==, 0);
    g_assert_cmpuint(qpci_find_capability(u->dev, PCI_CAP_ID_MSI, 0), ==, 0);
    msgs_intx(u);
    ufs_stop(u);
}

/*
 * Legacy list on MSI-X: one message per completion while the host clears
 * IS between them, none while UTRCS stays set, a masked vector pends.
 */
static void test_msix_legacy(void)
{
    Msg m = msix_boot("");
    Ufs *u = m.u;

    ufs_bringup(u);
    /* the UIC commands' UCCS: raised in the MMIO write, sent from the BH */
    g_assert_cmpuint(msgs(&m), >=, 1);
    nop(u, NUTRS - 1);
    lu_ready(u, 0);
    msgs(&m);

    prep_tur(u, 0, true);
    wr(u, A_IS, rd(u, A_IS));
    legacy_run(u, 1);
    g_assert_cmpuint(msgs(&m), ==, 1);
    /* UTRCS still set: no new source, no message */
    prep_tur(u, 1, true);
    legacy_run(u, 2);
    g_assert_cmpuint(msgs(&m), ==, 0);
    /* the host clears IS: the next completion sends again */
    wr(u, A_IS, rd(u, A_IS));
    prep_tur(u, 2, true);
    legacy_run(u, 4);
    g_assert_cmpuint(msgs(&m), ==, 1);

    /* masked: the PBA bit instead of the write; unmasking delivers it */
    msix_entry(&m, true);
    wr(u, A_IS, rd(u, A_IS));
    prep_tur(u, 3, true);
    legacy_run(u, 8);
    g_assert_true(qpci_msix_pending(u->dev, 0));
    g_assert_cmphex(msg_word(&m), ==, 0);
    msix_entry(&m, false);
    g_assert_false(qpci_msix_pending(u->dev, 0));
    g_assert_cmphex(msg_word(&m), ==, MSG_DATA);
    msgs(&m);

    /* enabling an interrupt whose status is set sends it (from the BH) */
    wr(u, A_IE, rd(u, A_IE) & ~R_IE_UTRCE_MASK);
    wr(u, A_IS, rd(u, A_IS));
    prep_tur(u, 4, true);
    legacy_run(u, 16);
    g_assert_cmpuint(msgs(&m), ==, 0);
    wr(u, A_IE, rd(u, A_IE) | R_IE_UTRCE_MASK);
    rd(u, A_IS);
    g_assert_cmpuint(msgs(&m), ==, 1);
    ufs_stop(u);
}

/*
 * MSI-X enabled while an interrupt is pending (IS.UTRCS set and enabled
 * under INTx): the message goes out, it is not taken as already seen.
 */
static void test_msix_enable_pending(void)
{
    Ufs *u = ufs_start("");
    Msg m = { .u = u };

    m.addr = guest_alloc(&u->alloc, 4);
    qtest_writel(u->qts, m.addr, 0);
    wr(u, A_IS, rd(u, A_IS));
    prep_tur(u, 0, true);
    legacy_run(u, 1);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    m.base = qom_u64(u, "interrupts");      /* INTx assertions so far */
    qpci_msix_enable(u->dev);
    msix_entry(&m, false);
    rd(u, A_IS);
    g_assert_cmpuint(msgs(&m), ==, 1);
    ufs_stop(u);
}

/* MSI (msix=off), set up in config space as Linux does. */
static void test_msi(void)
{
    Ufs *u = ufs_boot("msix=off");
    Msg m = { .u = u };
    uint8_t cap = qpci_find_capability(u->dev, PCI_CAP_ID_MSI, 0);

    g_assert_cmpuint(cap, !=, 0);
    m.addr = guest_alloc(&u->alloc, 4);
    qtest_writel(u->qts, m.addr, 0);
    qpci_config_writel(u->dev, cap + PCI_MSI_ADDRESS_LO, m.addr & 0xffffffff);
    qpci_config_writel(u->dev, cap + PCI_MSI_ADDRESS_HI, m.addr >> 32);
    qpci_config_writew(u->dev, cap + PCI_MSI_DATA_64, MSG_DATA);
    qpci_config_writew(u->dev, cap + PCI_MSI_FLAGS,
                       qpci_config_readw(u->dev, cap + PCI_MSI_FLAGS) |
                       PCI_MSI_FLAGS_ENABLE);
    msg_ready(&m);
    wr(u, A_IS, rd(u, A_IS));
    prep_tur(u, 0, true);
    legacy_run(u, 1);
    g_assert_cmpuint(msgs(&m), ==, 1);
    ufs_stop(u);
}

/*
 * MCQ on MSI-X: each CQ's event is a source of its own, so a CQE on CQ 1
 * sends while CQ 0's event is pending (IS.CQES already set); another CQE
 * on CQ 0 does not until the host clears its CQIS.
 */
static void test_msix_mcq(void)
{
    Msg m = msix_boot("mcq-queues=2");
    Ufs *u = m.u;

    msg_ready(&m);
    ufs_mcq_enable(u, 2, 8);
    msgs(&m);
    mcq_run(u, 0, 0, true);
    g_assert_cmpuint(msgs(&m), ==, 1);
    mcq_run(u, 1, 1, true);
    g_assert_cmpuint(msgs(&m), ==, 1);
    mcq_run(u, 0, 2, true);
    g_assert_cmpuint(msgs(&m), ==, 0);
    wr(u, ufs_mcq_sq_reg(0, CQIS), 1);
    mcq_run(u, 0, 3, true);
    g_assert_cmpuint(msgs(&m), ==, 1);
    ufs_stop(u);
}

/* UTRIACR: counter threshold, timeout, I bit, CTR, IAPWEN, IASB, IAEN. */
static void test_agg_legacy(void)
{
    Ufs *u = ufs_start("");
    int64_t t1;

    wr(u, A_IS, rd(u, A_IS));
    wr(u, A_UTRIACR, IAEN | IAPWEN | IACTH(3) | IATOVAL(5));
    g_assert_cmphex(rd(u, A_UTRIACR), ==, IAEN | IACTH(3) | IATOVAL(5));
    /*
     * Two completions: counted, no UTRCS until 200 us after the first,
     * which happened within the last 1 us step before t1.
     */
    prep_tur(u, 0, false);
    legacy_run(u, 1);
    t1 = now(u);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    g_assert_true(rd(u, A_UTRIACR) & IASB);
    prep_tur(u, 1, false);
    legacy_run(u, 2);
    qtest_clock_set(u->qts, t1 + 198000);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    qtest_clock_step(u->qts, 2000);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    /* CTR resets the counter; a write without IAPWEN keeps the params */
    wr(u, A_UTRIACR, IAEN | CTR | IACTH(9));
    g_assert_cmphex(rd(u, A_UTRIACR), ==, IAEN | IACTH(3) | IATOVAL(5));
    wr(u, A_IS, rd(u, A_IS));

    /* the threshold: the third completion raises UTRCS at once */
    wr(u, A_UTRIACR, IAEN | IAPWEN | IACTH(3));
    prep_tur(u, 0, false);
    prep_tur(u, 1, false);
    legacy_run(u, 3);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    prep_tur(u, 2, false);
    legacy_run(u, 4);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    wr(u, A_UTRIACR, IAEN | CTR);
    wr(u, A_IS, rd(u, A_IS));
    g_assert_false(rd(u, A_UTRIACR) & IASB);

    /* IAEN cleared after the threshold's interrupt: nothing new to raise */
    wr(u, A_UTRIACR, 0);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    wr(u, A_UTRIACR, IAEN | IAPWEN | IACTH(3));

    /* the UTRD I bit interrupts at once */
    prep_tur(u, 0, true);
    legacy_run(u, 1);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    wr(u, A_UTRIACR, IAEN | CTR);
    wr(u, A_IS, rd(u, A_IS));

    /* ... and so signals what was counted: the timeout does not repeat it */
    wr(u, A_UTRIACR, IAEN | IAPWEN | IACTH(8) | IATOVAL(5));
    prep_tur(u, 0, false);
    legacy_run(u, 1);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    prep_tur(u, 1, true);
    legacy_run(u, 2);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    wr(u, A_IS, rd(u, A_IS));
    ufs_step(u, 400000);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    wr(u, A_UTRIACR, IAEN | CTR | IAPWEN | IACTH(3));

    /* clearing IAEN with completions counted raises their interrupt */
    prep_tur(u, 0, false);
    legacy_run(u, 1);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    wr(u, A_UTRIACR, 0);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    g_assert_false(rd(u, A_UTRIACR) & IASB);
    ufs_stop(u);
}

/* CQIACR: CQ 0 aggregates two CQEs; CQ 1 does not aggregate. */
static void test_agg_mcq(void)
{
    Ufs *u = ufs_start("mcq-queues=2");

    ufs_mcq_enable(u, 2, 8);
    wr(u, ufs_mcq_sq_reg(0, CQIACR), IAEN | IAPWEN | IACTH(2));
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(0, CQIACR)), ==, IAEN | IACTH(2));
    mcq_run(u, 0, 0, false);
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(0, CQIS)), ==, 0);
    g_assert_true(rd(u, ufs_mcq_sq_reg(0, CQIACR)) & IASB);
    g_assert_false(rd(u, A_IS) & R_IS_CQES_MASK);
    mcq_run(u, 1, 1, false);
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(1, CQIS)), ==, 1);
    mcq_run(u, 0, 2, false);
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(0, CQIS)), ==, 1);
    g_assert_true(rd(u, A_IS) & R_IS_CQES_MASK);
    wr(u, ufs_mcq_sq_reg(0, CQIACR), IAEN | CTR);
    g_assert_false(rd(u, ufs_mcq_sq_reg(0, CQIACR)) & IASB);
    ufs_stop(u);
}

/* Counted completions and a running timeout travel with a migration. */
static void test_agg_migrate(void)
{
    Ufs *u = ufs_start("");

    wr(u, A_IS, rd(u, A_IS));
    wr(u, A_UTRIACR, IAEN | IAPWEN | IACTH(8) | IATOVAL(25));   /* 1 ms */
    prep_tur(u, 0, false);
    legacy_run(u, 1);
    g_assert_true(rd(u, A_UTRIACR) & IASB);
    ufs_migrate(u, "");
    g_assert_true(rd(u, A_UTRIACR) & IASB);
    g_assert_false(rd(u, A_IS) & R_IS_UTRCS_MASK);
    /*
     * The deadline travels as an absolute virtual time; a qtest
     * destination's clock starts again from 0, so step past it.
     */
    ufs_step(u, 1300000);
    g_assert_true(rd(u, A_IS) & R_IS_UTRCS_MASK);
    g_assert_true(rd(u, A_UTRIACR) & IASB);
    wr(u, A_UTRIACR, IAEN | CTR);
    g_assert_false(rd(u, A_UTRIACR) & IASB);
    ufs_stop(u);
}

typedef struct IrqCase {
    const char *name;
    const char *mode;
    void (*fn)(void);
} IrqCase;

static const IrqCase irq_cases[] = {
    { "caps", "legacy", test_caps },
    { "msix-legacy", "legacy", test_msix_legacy },
    { "msi", "legacy", test_msi },
    { "msix-enable-pending", "legacy", test_msix_enable_pending },
    { "msix-mcq", "mcq", test_msix_mcq },
    { "agg-legacy", "legacy", test_agg_legacy },
    { "agg-mcq", "mcq", test_agg_mcq },
    { "agg-migrate", "legacy", test_agg_migrate },
};

static void run_case(gconstpointer opaque)
{
    const IrqCase *c = opaque;

    ufs_test_mode = c->mode;
    c->fn();
}

int main(int argc, char **argv)
{
    size_t i;

    g_test_init(&argc, &argv, NULL);
    for (i = 0; i < ARRAY_SIZE(irq_cases); i++) {
        g_autofree char *path = g_strdup_printf("/ufs-zoned/irq/%s",
                                                irq_cases[i].name);

        qtest_add_data_func(path, &irq_cases[i], run_case);
    }
    return g_test_run();
}
