/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: the controller's interrupt and interrupt aggregation.
 *
 * One interrupt, three ways to deliver it (PCI Local Bus 3.0 6.8, PCIe
 * 6.0 7.7.1/7.7.2): the INTx line, a level that follows IS & IE (UFSHCI
 * 4.0 5.3.1/5.3.2); or, once the host enables the capability, an MSI or
 * MSI-X message on vector 0.  A message is an edge: one goes out whenever
 * an enabled interrupt source becomes set that was not set at the last
 * look.  The sources are the IS bits and, while IE.CQES is set, the CQIS
 * event of each CQ separately (CQIS, 5.6), so a CQE posted to one CQ while
 * another CQ's event is still pending sends a message of its own, and a
 * handler that clears a source and then polls never misses what arrives
 * after the clear.  Messages leave from the work BH (or the service BH),
 * never from the MMIO handler: a register write that makes a source set
 * (IE, CQIE, a UIC command) defers its message to the work BH.
 *
 * Aggregation (UTRIACR, 5.3.6, for the legacy list; CQIACR per CQ, 5.6,
 * same layout): with IAEN set, a completion raises UTRCS (CQIS.TEPS) only
 * when IACTH completions have been counted or IATOVAL x 40 us have passed
 * since the first of them; a request whose UTRD has the I bit (DW0 bit
 * 24) interrupts at once.  CTR resets the counter and the timer, IAPWEN
 * guards writes to IACTH and IATOVAL, IASB reads 1 while completions are
 * counted.  IACTH 0 counts as 1, so that no completion is left without an
 * interrupt; IATOVAL 0 means no timer.  Clearing IAEN with completions
 * counted raises their interrupt.  The timer runs on QEMU_CLOCK_VIRTUAL;
 * its expiry only schedules the work BH, which raises the interrupt.
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

/* UTRIACR and CQIACR fields (UFSHCI 4.0 5.3.6) */
#define IACR_IATOVAL_MASK   0xffu
#define IACR_IACTH_SHIFT    8
#define IACR_IACTH_MASK     (0x1fu << IACR_IACTH_SHIFT)
#define IACR_CTR            (1u << 16)
#define IACR_IASB           (1u << 20)
#define IACR_IAPWEN         (1u << 24)
#define IACR_IAEN           (1u << 31)
#define IACR_TIMEOUT_NS     40000   /* IATOVAL unit */

/* UfsReg is packed: no pointers into it */
static uint32_t ufs_zoned_iacr(UfsZonedState *s, uint32_t idx)
{
    return idx == UFSZ_AGG_LEGACY ? s->reg.utriacr : s->cq[idx].iacr;
}

static void ufs_zoned_iacr_set(UfsZonedState *s, uint32_t idx, uint32_t v)
{
    if (idx == UFSZ_AGG_LEGACY) {
        s->reg.utriacr = v;
    } else {
        s->cq[idx].iacr = v;
    }
}

/*
 * MSI-X or MSI enabled: the PCI core is asked again only after what can
 * change the answer -- a config space write, a reset (the PCI core clears
 * the enables after or before ours: the first update after it asks) or
 * a load.
 */
static bool ufs_zoned_msg_mode(UfsZonedState *s)
{
    PCIDevice *pci = &s->parent_obj;

    if (!s->msg_mode_known) {
        s->msg_mode = msix_enabled(pci) || msi_enabled(pci);
        s->msg_mode_known = true;
    }
    return s->msg_mode;
}

static void ufs_zoned_irq_send(UfsZonedState *s)
{
    PCIDevice *pci = &s->parent_obj;
    bool msix = msix_enabled(pci);

    s->irq_msg_pending = false;
    if (!msix && !msi_enabled(pci)) {
        /*
         * The cached mode was stale (msi_notify() does not look: after a
         * PCI reset it would write 0 to address 0): ask again, the pin.
         */
        s->msg_mode_known = false;
        ufs_zoned_irq_update(s);
        return;
    }
    s->interrupts++;
    trace_ufs_zoned_irq_msg(msix ? "MSI-X" : "MSI", s->irq_is_last,
                            s->irq_cq_last);
    if (msix) {
        msix_notify(pci, 0);
    } else {
        msi_notify(pci, 0);
    }
}

/* ufs_zoned_irq_update() once a source or the line differs */
void ufs_zoned_irq_changed(UfsZonedState *s, uint32_t is, uint32_t cqs)
{
    bool rise, level = is || cqs;

    rise = (is & ~s->irq_is_last) || (cqs & ~s->irq_cq_last);
    s->irq_is_last = is;
    s->irq_cq_last = cqs;
    if (ufs_zoned_msg_mode(s)) {
        if (!rise) {
            return;
        }
        if (s->irq_in_mmio) {
            s->irq_msg_pending = true;
            ufs_zoned_schedule(s);
        } else {
            ufs_zoned_irq_send(s);
        }
        return;
    }
    if (level != s->intx_level) {
        s->intx_level = level;
        s->interrupts += level;
        trace_ufs_zoned_irq_intx(level, is, cqs);
    }
    /* pci_set_irq() does nothing more when the pin is at @level already */
    if (ufs_zoned_intx_pin(s) != level) {
        pci_set_irq(&s->parent_obj, level);
    }
}

void ufs_zoned_raise(UfsZonedState *s, uint32_t is_bits)
{
    s->reg.is |= is_bits;
    ufs_zoned_irq_update(s);
}


/* --- aggregation ------------------------------------------------------ */

/* The aggregation timer runs to the first deadline, if there is one. */
static void ufs_zoned_agg_rearm(UfsZonedState *s)
{
    int64_t first = INT64_MAX;
    uint64_t bits = s->agg_armed;

    while (bits) {
        uint32_t i = ctz64(bits);

        bits &= bits - 1;
        if (!s->agg[i].deadline) {
            s->agg_armed &= ~(1ULL << i);
        } else if (s->agg[i].deadline < first) {
            first = s->agg[i].deadline;
        }
    }
    /* timer_mod() and timer_del() take the timer list's lock: only if new */
    if (first == INT64_MAX) {
        if (timer_pending(s->agg_timer)) {
            timer_del(s->agg_timer);
        }
    } else if (timer_expire_time_ns(s->agg_timer) != first) {
        timer_mod(s->agg_timer, first);
    }
}

/* The completion interrupt of @idx: IS.UTRCS, or CQ @idx's CQIS.TEPS. */
static inline QEMU_ALWAYS_INLINE void ufs_zoned_agg_fire(UfsZonedState *s,
                                                         uint32_t idx,
                                                         const char *why)
{
    /* what was counted is signalled: no timeout or IAEN clear repeats it */
    s->agg[idx].unsignalled = 0;
    s->agg[idx].deadline = 0;
    trace_ufs_zoned_agg_fire(idx, s->agg[idx].count, why);
    if (idx == UFSZ_AGG_LEGACY) {
        s->reg.is |= R_IS_UTRCS_MASK;
    } else {
        s->cq[idx].is |= R_CQIS_TEPS_MASK;
        ufs_zoned_cq_events_update(s, idx);
    }
    ufs_zoned_irq_update(s);
}

static void ufs_zoned_agg_reset_one(UfsZonedState *s, uint32_t idx)
{
    s->agg[idx].count = 0;
    s->agg[idx].unsignalled = 0;
    s->agg[idx].deadline = 0;
}

/*
 * A request completed on @idx (UFSZ_AGG_LEGACY, or the CQ its CQE went
 * to); @intr: its UTRD has the I bit.
 */
void ufs_zoned_irq_completion(UfsZonedState *s, uint32_t idx, bool intr)
{
    uint32_t iacr = ufs_zoned_iacr(s, idx);
    uint32_t th = MAX((iacr & IACR_IACTH_MASK) >> IACR_IACTH_SHIFT, 1);
    uint32_t to = iacr & IACR_IATOVAL_MASK;
    UfsZonedAgg *a = &s->agg[idx];

    if (!(iacr & IACR_IAEN)) {
        ufs_zoned_agg_fire(s, idx, "no aggregation");
        return;
    }
    a->count = MIN(a->count + 1, UINT32_MAX - 1);
    a->unsignalled++;
    if (intr) {
        ufs_zoned_agg_fire(s, idx, "UTRD interrupt bit");
    } else if (a->count >= th) {
        ufs_zoned_agg_fire(s, idx, "counter threshold");
    } else {
        if (to && !a->deadline) {
            a->deadline = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                          (int64_t)to * IACR_TIMEOUT_NS;
            s->agg_armed |= 1ULL << idx;
        }
        trace_ufs_zoned_agg_count(idx, a->count, th, a->deadline);
    }
    ufs_zoned_agg_rearm(s);
}

/* A write to UTRIACR (@idx = UFSZ_AGG_LEGACY) or to CQ @idx's CQIACR. */
void ufs_zoned_iacr_write(UfsZonedState *s, uint32_t idx, uint32_t val)
{
    uint32_t old = ufs_zoned_iacr(s, idx);
    /* IACTH and IATOVAL change only with IAPWEN in the same write */
    uint32_t params = (val & IACR_IAPWEN ? val : old) &
                      (IACR_IACTH_MASK | IACR_IATOVAL_MASK);

    ufs_zoned_iacr_set(s, idx, (val & IACR_IAEN) | params);
    trace_ufs_zoned_agg_ctl(idx, val, ufs_zoned_iacr(s, idx));
    if ((old & IACR_IAEN) && !(val & IACR_IAEN)) {
        if (s->agg[idx].unsignalled) {
            ufs_zoned_agg_fire(s, idx, "aggregation disabled");
        }
        ufs_zoned_agg_reset_one(s, idx);
    } else if (val & IACR_CTR) {
        ufs_zoned_agg_reset_one(s, idx);
    }
    ufs_zoned_agg_rearm(s);
}

uint32_t ufs_zoned_iacr_read(UfsZonedState *s, uint32_t idx)
{
    return ufs_zoned_iacr(s, idx) | (s->agg[idx].count ? IACR_IASB : 0);
}

static void ufs_zoned_agg_timer_cb(void *opaque)
{
    ufs_zoned_schedule(opaque);     /* the work BH raises what expired */
}

/*
 * Work BH: raise the interrupts whose aggregation timeout has passed and
 * send a message an MMIO handler deferred.
 */
void ufs_zoned_irq_work(UfsZonedState *s)
{
    uint64_t bits = s->agg_armed;

    if (bits) {
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

        while (bits) {
            uint32_t i = ctz64(bits);

            bits &= bits - 1;
            if (s->agg[i].deadline && s->agg[i].deadline <= now) {
                s->agg[i].deadline = 0;
                ufs_zoned_agg_fire(s, i, "timeout");
            }
        }
    }
    ufs_zoned_agg_rearm(s);
    if (s->irq_msg_pending && !s->irq_in_mmio) {
        uint32_t is, cqs;

        ufs_zoned_irq_sources(s, &is, &cqs);
        if (ufs_zoned_msg_mode(s) && (is || cqs)) {
            ufs_zoned_irq_send(s);
        }
        s->irq_msg_pending = false;
    }
}

/* --- set-up ----------------------------------------------------------- */

bool ufs_zoned_irq_init(UfsZonedState *s, Error **errp)
{
    PCIDevice *pci = PCI_DEVICE(s);

    QEMU_BUILD_BUG_ON(UFSZ_AGG_N > 64);     /* s->agg_armed */
    pci->config[PCI_INTERRUPT_PIN] = 1;
    s->agg_timer = NULL;
    if (!msi_nonbroken) {
        /* the machine has no MSI: INTx only, as on real boards */
        s->msi_on = s->msix_on = false;
    }
    if (s->msi_on && msi_init(pci, 0, 1, true, false, errp) < 0) {
        return false;
    }
    if (s->msix_on) {
        if (msix_init_exclusive_bar(pci, 1, UFSZ_MSIX_BAR, errp) < 0) {
            msi_uninit(pci);
            return false;
        }
        msix_vector_use(pci, 0);
    }
    s->agg_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ufs_zoned_agg_timer_cb, s);
    return true;
}

void ufs_zoned_irq_cleanup(UfsZonedState *s)
{
    PCIDevice *pci = PCI_DEVICE(s);

    if (s->agg_timer) {
        timer_free(s->agg_timer);
        s->agg_timer = NULL;
    }
    if (msix_present(pci)) {
        msix_unuse_all_vectors(pci);
        msix_uninit_exclusive_bar(pci);
    }
    msi_uninit(pci);
}

/* Controller reset (HCE=0 and system reset): no aggregation state left. */
void ufs_zoned_irq_reset(UfsZonedState *s)
{
    uint32_t i;

    for (i = 0; i < UFSZ_AGG_N; i++) {
        ufs_zoned_agg_reset_one(s, i);
    }
    s->agg_armed = 0;
    if (s->agg_timer) {
        timer_del(s->agg_timer);
    }
    s->irq_msg_pending = false;
    s->msg_mode_known = false;
    /* the reset lowered the line; nothing counts as seen */
    s->intx_level = false;
    s->irq_is_last = 0;
    s->irq_cq_last = 0;
}

/*
 * The host turned MSI or MSI-X on or off (PCI config space): what is set
 * now is delivered the new way, as if it had just become set; a message
 * goes out from the work BH.
 */
void ufs_zoned_irq_config_write(PCIDevice *pci, uint32_t addr, uint32_t val,
                                int len)
{
    UfsZonedState *s = UFS_ZONED(pci);
    bool was = ufs_zoned_msg_mode(s);

    pci_default_write_config(pci, addr, val, len);
    s->msg_mode_known = false;
    if (ufs_zoned_msg_mode(s) != was) {
        s->irq_is_last = 0;
        s->irq_cq_last = 0;
        s->intx_level = false;
        ufs_zoned_irq_mmio_begin(s);
        ufs_zoned_irq_update(s);
        ufs_zoned_irq_mmio_end(s);
    }
}

/*
 * Before a load is accepted: aggregation state only where aggregation is
 * on, a timeout only with IATOVAL, no queue beyond the ones configured.
 */
bool ufs_zoned_irq_check_loaded(UfsZonedState *s, Error **errp)
{
    uint32_t i;

    for (i = 0; i < UFSZ_AGG_N; i++) {
        const UfsZonedAgg *a = &s->agg[i];
        uint32_t iacr = ufs_zoned_iacr(s, i) &
                        (IACR_IAEN | IACR_IACTH_MASK | IACR_IATOVAL_MASK);

        ufs_zoned_iacr_set(s, i, iacr);     /* only what a write stores */
        bool exists = i == UFSZ_AGG_LEGACY || (s->mcq && i < s->mcq_queues);

        if (a->deadline < 0 || a->unsignalled > a->count ||
            ((a->count || a->deadline) && (!exists || !(iacr & IACR_IAEN))) ||
            (a->deadline && !(iacr & IACR_IATOVAL_MASK))) {
            error_setg(errp, "interrupt aggregation %u: count %u (%u not "
                       "signalled), deadline %" PRId64 " with IACR 0x%08x",
                       i, a->count, a->unsignalled, a->deadline, iacr);
            return false;
        }
    }
    return true;
}

/*
 * After a load: the sources as they are now count as seen (their
 * messages went out on the source), the line follows them, and the
 * aggregation timer runs again.
 */
void ufs_zoned_irq_post_load(UfsZonedState *s)
{
    s->msg_mode_known = false;      /* config space came with the load */
    ufs_zoned_irq_sources(s, &s->irq_is_last, &s->irq_cq_last);
    if (!ufs_zoned_msg_mode(s)) {
        s->intx_level = s->irq_is_last || s->irq_cq_last;
        pci_set_irq(&s->parent_obj, s->intx_level);
    }
    ufs_zoned_agg_rearm(s);
}
