/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: a device's guarded work bottom half (work.c).
 *
 * A device does everything that touches guest memory -- fetching
 * commands, moving data, posting completions, raising interrupts -- in a
 * pass of its own work, run by one bottom half created with the device's
 * re-entrancy guard; MMIO handlers, timers and block-layer callbacks only
 * record what is to be done and call zr_work_schedule().  This helper
 * owns the mechanics every device had a copy of:
 *
 *  - a schedule from inside a pass asks for another pass instead of
 *    another main-loop turn (ZrWork.again);
 *  - a pass run from inside itself (a nested event loop: a DMA that
 *    drained the block layer, a blk_flush) only asks the outer run for
 *    another pass;
 *  - the service timer's BH hands the work its completions left to the
 *    work BH at once, under the same guard (zr_work_service_hooks());
 *  - while the device holds its service timer (zr_service_timer_hold(),
 *    e.g. during a teardown or while the VM is stopped) its work is held
 *    too: a scheduled run does nothing, and the service timer is kicked
 *    when a run ends held, so the release reschedules both;
 *  - the vclock hold is poked whenever work is scheduled or a run ends
 *    (under -icount, guest time waits for the work).
 */

#ifndef HW_BLOCK_ZONED_REORDER_WORK_H
#define HW_BLOCK_ZONED_REORDER_WORK_H

#include "qemu/main-loop.h"
#include "hw/qdev-core.h"
#include "hw/block/zoned-reorder/service-timer.h"
#include "hw/block/zoned-reorder/vclock-hold.h"

typedef void ZrWorkPassFn(void *opaque);

typedef struct ZrWork {
    QEMUBH *bh;
    bool pending;               /* the BH is scheduled, not run yet */
    bool running;               /* a run's passes are under way */
    bool again;                 /* work was asked for during the run */
    ZrWorkPassFn *pass;
    void *opaque;
    ZrServiceTimer *sched;
    ZrVclockHold *vclock;
} ZrWork;

/*
 * @pass does one pass of the device's work; it runs again while work is
 * asked for during it.  The BH is guarded by @dev's re-entrancy guard.
 */
void zr_work_init(ZrWork *w, DeviceState *dev, ZrWorkPassFn *pass,
                  void *opaque, ZrServiceTimer *sched, ZrVclockHold *vclock);
void zr_work_cleanup(ZrWork *w);

/* Ask for a pass: now if one is running, else on the BH */
static inline void zr_work_schedule(ZrWork *w)
{
    if (w->running) {
        w->again = true;
        return;
    }
    w->pending = true;
    qemu_bh_schedule(w->bh);
    zr_vclock_hold_poke(w->vclock);
}

/*
 * Install the service timer hooks: the vclock is poked when the service
 * BH is scheduled, and the work its run left is done at its end.
 */
void zr_work_service_hooks(ZrWork *w);

/* Work that ends by itself in host time: a scheduled BH or service step */
bool zr_work_busy(const ZrWork *w);

#endif
