/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: keep QEMU_CLOCK_VIRTUAL still while a device's work
 * runs outside it, under -icount.
 *
 * With "-icount ...,sleep=off" QEMU advances QEMU_CLOCK_VIRTUAL to the
 * next timer deadline as soon as every vCPU is idle (the warp after each
 * poll of the main loop).  Work a device does outside the virtual clock --
 * a bottom half scheduled but not run yet, host I/O its model already
 * counts as done -- would then last as long as the gap to whatever timer
 * comes next (often the guest's tick, milliseconds), and a benchmark run on
 * icount would measure those gaps, not the device model.
 *
 * A hold watches every poll of the main loop (a main-loop poll notifier,
 * which runs after the poll and before the warp), and the device pokes it
 * whenever it may have become busy.  While the device's @busy callback
 * says so, it keeps a QEMU_CLOCK_VIRTUAL deadline one
 * nanosecond ahead, so a warp advances the clock by one nanosecond and the
 * device's work takes (almost) no guest time, whatever the host's speed.
 * Each deadline also notifies the vCPU thread, so while a hold lasts the
 * vCPU thread and the main loop take turns instead of sleeping.  A running
 * vCPU stops at each deadline, so while the device is busy it executes one instruction per
 * turn of the main loop: guest time stands still for host work even when
 * it overlaps the guest's own, which keeps the figures independent of the
 * host, at the price of host time.
 *
 * @busy must therefore only cover work that ends by itself in host time (a
 * BH, host I/O), never a wait for the guest: a held command (x-stall), a
 * guest timeout.  As a guard a hold gives up after ZR_VCLOCK_HOLD_MAX_RT_NS of
 * host time and lets the clock warp until @busy turns false once.
 *
 * Without "-icount sleep=off" (KVM, TCG on the host clock, icount with
 * sleep=on, record/replay, qtest) a hold does nothing.
 */

#ifndef HW_BLOCK_ZONED_REORDER_VCLOCK_HOLD_H
#define HW_BLOCK_ZONED_REORDER_VCLOCK_HOLD_H

#include "qemu/notify.h"
#include "qemu/timer.h"

#define ZR_VCLOCK_HOLD_MAX_RT_NS    NANOSECONDS_PER_SECOND

typedef bool ZrVclockBusyFn(void *opaque);

typedef struct ZrVclockHold {
    QEMUTimer *timer;       /* the deadline; NULL without icount */
    Notifier poll;          /* main-loop poll notifier */
    ZrVclockBusyFn *busy;
    void *opaque;
    int64_t since_rt;       /* QEMU_CLOCK_REALTIME at the start, or -1 */
    bool gave_up;           /* this episode outlasted the maximum */
    uint64_t holds;         /* statistics: episodes started */
    uint64_t expired;       /* episodes given up after the maximum */
} ZrVclockHold;

void zr_vclock_hold_init(ZrVclockHold *h, ZrVclockBusyFn *busy, void *opaque);
void zr_vclock_hold_cleanup(ZrVclockHold *h);
void zr_vclock_hold_check(ZrVclockHold *h);

/*
 * The device may have become busy (it scheduled a BH, or its model is done
 * with a command whose host I/O is still running): hold the clock from now
 * on, not only from the next poll, so that a running vCPU does not advance
 * guest time meanwhile by as much as the host lets it.  Without a timer
 * (no -icount sleep=off) there is nothing to hold.
 */
static inline void zr_vclock_hold_poke(ZrVclockHold *h)
{
    if (h->timer) {
        zr_vclock_hold_check(h);
    }
}

#endif
