/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the service model on QEMU_CLOCK_VIRTUAL.
 *
 * A thin adapter that runs zr_service_run() on a bottom half, scheduled
 * by a kick and by its one QEMUTimer, so a device gets "start when
 * allowed, complete at time T" from two callbacks and no timer code of
 * its own:
 *
 *     zr_dispatch_submit(&s->dispatch, &req->zr);   (for each new command)
 *     zr_service_timer_kick(&s->sched);             (after the batch)
 *     ...ops->start(req) at the start time, ops->complete(req) at T...
 *
 * The BH is created with the device's re-entrancy guard (the guard of
 * its DeviceState, &DEVICE(s)->mem_reentrancy_guard), so the callbacks'
 * DMA can never re-enter the device's MMIO handlers.  hold/release keep
 * the model still while the device tears commands down.
 *
 * A device whose own BH (created with the same guard) has just submitted
 * commands may run the step there and then with zr_service_timer_run_inline()
 * instead of kicking: one main-loop turn less per command.  The after-run
 * hook lets the device do, in the same BH run, the work the step's
 * callbacks left it (a completion's response and interrupt).
 *
 * Under qtest QEMU_CLOCK_VIRTUAL only moves with clock_step, so the start
 * and completion times are exact and tests are deterministic.
 */

#ifndef HW_BLOCK_ZONED_REORDER_SERVICE_TIMER_H
#define HW_BLOCK_ZONED_REORDER_SERVICE_TIMER_H

#include "qemu/timer.h"
#include "hw/block/zoned-reorder/service.h"

typedef struct ZrServiceTimer {
    ZrService *svc;
    ZrDispatch *dispatch;
    const ZrServiceOps *ops;
    void *opaque;
    QEMUTimer *timer;       /* only schedules @bh */
    QEMUBH *bh;             /* runs zr_service_run(), guarded */
    unsigned hold;          /* teardowns in progress: run nothing */
    bool running;           /* inside zr_service_run() */
    bool again;             /* kicked while running */
    bool bh_pending;        /* @bh scheduled, not run yet */
    void (*scheduled)(void *opaque);    /* called when @bh is scheduled */
    void (*after_run)(void *opaque);    /* called at the end of a BH run */
    void *hook_opaque;                  /* what the two hooks get */
} ZrServiceTimer;

void zr_service_timer_init(ZrServiceTimer *t, ZrService *svc,
                           ZrDispatch *dispatch, const ZrServiceOps *ops,
                           void *opaque, MemReentrancyGuard *guard);
void zr_service_timer_cleanup(ZrServiceTimer *t);
void zr_service_timer_kick(ZrServiceTimer *t);
bool zr_service_timer_pending(ZrServiceTimer *t);
void zr_service_timer_set_scheduled_hook(ZrServiceTimer *t,
                                         void (*fn)(void *opaque));
void zr_service_timer_set_after_run_hook(ZrServiceTimer *t,
                                         void (*fn)(void *opaque));
void zr_service_timer_set_hook_opaque(ZrServiceTimer *t, void *opaque);
void zr_service_timer_run_inline_slow(ZrServiceTimer *t);
void zr_service_timer_hold(ZrServiceTimer *t);

/*
 * Run a step now, from a BH of the device guarded like ours (never from a
 * timer callback or an MMIO handler); nested in a running step, or held,
 * it does what a kick does.  With nothing pending, in service or
 * scheduled it has nothing to do, and costs no call.
 */
static inline void zr_service_timer_run_inline(ZrServiceTimer *t)
{
    if (t->running || t->hold || t->bh_pending ||
        zr_dispatch_nr_pending(t->dispatch) ||
        zr_service_next_completion(t->svc) != ZR_SERVICE_NEVER) {
        zr_service_timer_run_inline_slow(t);
    }
}

/* Is the model held (zr_service_timer_hold() not yet released)? */
static inline bool zr_service_timer_held(const ZrServiceTimer *t)
{
    return t->hold;
}
void zr_service_timer_release(ZrServiceTimer *t);
void zr_service_timer_delay_starts(ZrServiceTimer *t, int64_t delay_ns);
bool zr_service_timer_cancel(ZrServiceTimer *t, ZrCmd *cmd);
void zr_service_timer_reset(ZrServiceTimer *t, ZrCmdFn *fn, void *opaque);

#endif
