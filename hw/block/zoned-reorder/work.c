/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: a device's guarded work bottom half (work.h says
 * what it owns and why).
 */

#include "qemu/osdep.h"
#include "hw/block/zoned-reorder/work.h"

/* The device holds its service timer: its work waits too */
static bool zr_work_held(const ZrWork *w)
{
    return zr_service_timer_held(w->sched);
}

static void zr_work_bh(void *opaque)
{
    ZrWork *w = opaque;

    w->pending = false;
    if (zr_work_held(w)) {
        return;     /* the release schedules a run again */
    }
    if (w->running) {
        /* a nested event loop ran us: the outer run takes another pass */
        w->again = true;
        return;
    }
    w->running = true;
    do {
        w->again = false;
        w->pass(w->opaque);
    } while (w->again && !zr_work_held(w));
    w->running = false;
    if (zr_work_held(w)) {
        zr_service_timer_kick(w->sched);
    }
    zr_vclock_hold_poke(w->vclock);
}

/*
 * The end of a service BH run (a service time ran out): the completions
 * it made left work; do it now, under the same guard, instead of a
 * main-loop turn later.
 */
static void zr_work_after_service(void *opaque)
{
    ZrWork *w = opaque;

    if (w->pending && !w->running && !zr_work_held(w)) {
        qemu_bh_cancel(w->bh);
        zr_work_bh(w);
    }
}

/* The core scheduled its service BH (from a timer, maybe the vCPU's) */
static void zr_work_service_scheduled(void *opaque)
{
    ZrWork *w = opaque;

    zr_vclock_hold_poke(w->vclock);
}

void zr_work_service_hooks(ZrWork *w)
{
    zr_service_timer_set_hook_opaque(w->sched, w);
    zr_service_timer_set_scheduled_hook(w->sched, zr_work_service_scheduled);
    zr_service_timer_set_after_run_hook(w->sched, zr_work_after_service);
}

bool zr_work_busy(const ZrWork *w)
{
    return w->pending || zr_service_timer_pending(w->sched);
}

void zr_work_init(ZrWork *w, DeviceState *dev, ZrWorkPassFn *pass,
                  void *opaque, ZrServiceTimer *sched, ZrVclockHold *vclock)
{
    *w = (ZrWork) {
        .pass = pass, .opaque = opaque, .sched = sched, .vclock = vclock,
    };
    w->bh = qemu_bh_new_guarded(zr_work_bh, w, &dev->mem_reentrancy_guard);
}

void zr_work_cleanup(ZrWork *w)
{
    if (w->bh) {
        qemu_bh_delete(w->bh);
        w->bh = NULL;
    }
    w->pending = false;
}
