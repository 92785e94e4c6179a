/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: binds the pure service model (service.c) to one
 * QEMUTimer on QEMU_CLOCK_VIRTUAL.  This file owns only the timer and the
 * re-entrancy guard; every decision is made in zr_service_run().
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "hw/block/zoned-reorder/service-timer.h"
#include "trace.h"

static void zr_service_timer_run(ZrServiceTimer *t)
{
    int64_t now, next;

    /* A callback kicking us again: let the outer loop take another turn. */
    if (t->running) {
        t->again = true;
        return;
    }
    t->running = true;
    do {
        t->again = false;
        now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        next = zr_service_run(t->svc, t->dispatch, now, t->ops, t->opaque);
        /*
         * Commands due by now (zero latency) complete in this call, not
         * one main-loop turn later: a timer at @now would cost a wake-up
         * per command.  Never inside zr_service_run's start loop, though:
         * ops->start returns before its command can complete.
         */
    } while (t->again || next <= now);
    t->running = false;

    if (next == ZR_SERVICE_NEVER) {
        timer_del(t->timer);
    } else {
        trace_zr_service_timer_arm(t, now, next);
        timer_mod(t->timer, next);
    }
}

static void zr_service_timer_cb(void *opaque)
{
    zr_service_timer_run(opaque);
}

void zr_service_timer_init(ZrServiceTimer *t, ZrService *svc,
                           ZrDispatch *dispatch, const ZrServiceOps *ops,
                           void *opaque)
{
    memset(t, 0, sizeof(*t));
    t->svc = svc;
    t->dispatch = dispatch;
    t->ops = ops;
    t->opaque = opaque;
    t->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, zr_service_timer_cb, t);
}

void zr_service_timer_cleanup(ZrServiceTimer *t)
{
    timer_free(t->timer);
    t->timer = NULL;
}

/* New commands were submitted (or the policy changed): run a step now. */
void zr_service_timer_kick(ZrServiceTimer *t)
{
    zr_service_timer_run(t);
}

/* Wake-up hook: nothing starts for @delay_ns from now (e.g. H8 exit). */
void zr_service_timer_delay_starts(ZrServiceTimer *t, int64_t delay_ns)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    zr_service_delay_starts(t->svc, now + delay_ns);
}

/*
 * Abort one command: a pending one leaves the dispatch engine, a started
 * one leaves service early (its slot is freed at once).  Neither callback
 * runs for it; returns false if the core did not hold it.
 */
bool zr_service_timer_cancel(ZrServiceTimer *t, ZrCmd *cmd)
{
    if (zr_dispatch_cancel(t->dispatch, cmd)) {
        return true;
    }
    if (cmd->state == ZR_CMD_STARTED) {
        zr_service_cancel(t->svc, cmd);
        zr_dispatch_complete(t->dispatch, cmd);
        zr_service_timer_kick(t);
        return true;
    }
    return false;
}

/*
 * Controller reset: drop every pending and started command, calling @fn
 * for each (pending first, in arrival order), and stop the timer.
 */
void zr_service_timer_reset(ZrServiceTimer *t, ZrCmdFn *fn, void *opaque)
{
    timer_del(t->timer);
    zr_service_flush(t->svc);
    zr_dispatch_flush(t->dispatch, fn, opaque);
}
