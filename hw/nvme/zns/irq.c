/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: interrupts (Base 3.5.1.x, "Interrupts" of the PCIe transport
 * 3.x).
 *
 * MSI-X, one vector per queue pair (the admin CQ and up to 64 I/O CQs),
 * table and PBA in BAR 4; a CQ created with IEN signals its vector IV for
 * every CQE it gets, subject to coalescing.  Without MSI-X the pin
 * (INTA) is a level: asserted while a CQ with IEN holds entries the host
 * has not consumed and INTMS does not mask its vector.
 *
 * Interrupt coalescing (Feature 08h, Base 5.27.1.8): on I/O CQs whose
 * vector has not disabled it (Feature 09h CD), a message is sent once THR
 * + 1 CQEs are waiting or TIME * 100 us after the first, whichever comes
 * first.  The timer runs on QEMU_CLOCK_VIRTUAL and only schedules the work
 * BH; messages are sent from the work BH (a completion is posted there),
 * never from the MMIO handlers.
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define NZ_COAL_UNIT_NS     100000

static void nz_coal_timer_cb(void *opaque)
{
    nz_schedule(opaque);
}

bool nz_irq_init(NzCtrl *s, Error **errp)
{
    PCIDevice *pci = PCI_DEVICE(s);
    uint32_t nvec = s->nr_ioq + 1, i;

    pci->config[PCI_INTERRUPT_PIN] = 1;
    s->nr_vectors = 1;
    if (s->msix_on) {
        if (msix_init_exclusive_bar(pci, nvec, NZ_MSIX_BAR, errp)) {
            return false;
        }
        for (i = 0; i < nvec; i++) {
            msix_vector_use(pci, i);
        }
        s->nr_vectors = nvec;
    }
    s->coal_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, nz_coal_timer_cb, s);
    return true;
}

void nz_irq_cleanup(NzCtrl *s)
{
    PCIDevice *pci = PCI_DEVICE(s);

    if (s->coal_timer) {
        timer_free(s->coal_timer);
        s->coal_timer = NULL;
    }
    if (s->msix_on && msix_present(pci)) {
        msix_unuse_all_vectors(pci);
        msix_uninit_exclusive_bar(pci);
    }
}

void nz_irq_reset(NzCtrl *s)
{
    uint32_t i;

    for (i = 0; i < NZ_NR_Q; i++) {
        s->vec[i] = (NzVec) { .cd = false };
    }
    s->coal_next = INT64_MAX;
    s->coal_thr = 0;
    s->coal_time = 0;
    if (s->coal_timer) {
        timer_del(s->coal_timer);
    }
    nz_irq_update(s);
}

bool nz_irq_vector_valid(NzCtrl *s, uint16_t iv)
{
    return iv < s->nr_vectors;
}

/* The pin: asserted while an unmasked CQ with IEN holds entries. */
static inline QEMU_ALWAYS_INLINE void nz_irq_level_update(NzCtrl *s)
{
    PCIDevice *pci = nz_pci(s);
    bool level = false;
    uint32_t w;

    if (!msix_enabled(pci)) {
        /* any CQ with unread entries whose vector INTMS does not mask */
        for (w = 0; w < BITS_TO_LONGS(NZ_NR_Q) && !level; w++) {
            unsigned long bits = s->cq_unread[w];

            while (bits && !level) {
                uint32_t q = w * BITS_PER_LONG + ctzl(bits);

                bits &= bits - 1;
                level = !(s->intms & (1u << (s->cq[q].iv & 31)));
            }
        }
    }
    if (level != s->intx_level) {
        s->intx_level = level;
        s->interrupts += level;
        trace_nvme_zns_irq_intx(level);
    }
    pci_set_irq(pci, level);
}

void nz_irq_update(NzCtrl *s)
{
    nz_irq_level_update(s);
}

static void nz_irq_send(NzCtrl *s, uint16_t iv)
{
    s->vec[iv].count = 0;
    s->vec[iv].deadline = 0;
    s->interrupts++;
    trace_nvme_zns_irq_msix(iv);
    msix_notify(nz_pci(s), iv);
}

static void nz_coal_arm(NzCtrl *s)
{
    int64_t next = INT64_MAX;
    uint32_t i;

    for (i = 0; i < s->nr_vectors; i++) {
        if (s->vec[i].deadline) {
            next = MIN(next, s->vec[i].deadline);
        }
    }
    s->coal_next = next;
    if (next == INT64_MAX) {
        timer_del(s->coal_timer);
    } else {
        timer_mod(s->coal_timer, next);
    }
}

void nz_irq_cq_posted(NzCtrl *s, NzCq *cq, uint16_t qid)
{
    NzVec *v;

    if (!cq->ien) {
        return;
    }
    if (!msix_enabled(nz_pci(s))) {
        nz_irq_level_update(s);
        return;
    }
    if (cq->iv >= s->nr_vectors) {
        return;
    }
    v = &s->vec[cq->iv];
    /* the admin CQ is never coalesced; TIME 0 is no delay (Base 5.27.1.8) */
    if (qid == 0 || v->cd || !s->coal_time) {
        nz_irq_send(s, cq->iv);
        return;
    }
    v->count++;
    if (v->count > s->coal_thr) {
        nz_irq_send(s, cq->iv);
        nz_coal_arm(s);
        return;
    }
    if (!v->deadline) {
        v->deadline = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      (int64_t)s->coal_time * NZ_COAL_UNIT_NS;
        nz_coal_arm(s);
    }
}

/* Migration: the coalescing deadlines loaded arm the timer again */
void nz_irq_post_load(NzCtrl *s)
{
    nz_coal_arm(s);
}

/*
 * Work BH: coalescing times that ran out.  coal_next is the earliest
 * deadline nz_coal_arm() saw (or earlier: a message sent since only
 * cleared its deadline), so most passes stop at the comparison.
 */
void nz_irq_work(NzCtrl *s)
{
    int64_t now;
    uint32_t i;

    if (s->coal_next == INT64_MAX) {
        return;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (now < s->coal_next) {
        return;
    }
    for (i = 0; i < s->nr_vectors; i++) {
        if (s->vec[i].deadline && s->vec[i].deadline <= now) {
            nz_irq_send(s, i);
        }
    }
    nz_coal_arm(s);
}

/* Turning MSI-X on or off moves the signal between the pin and messages */
void nz_irq_config_write(PCIDevice *pci, uint32_t addr, uint32_t val,
                         int len)
{
    pci_default_write_config(pci, addr, val, len);
    nz_irq_update(NVME_ZNS(pci));
}
