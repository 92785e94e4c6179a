/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: binds the pure service model (service.c) to
 * QEMU_CLOCK_VIRTUAL.  This file owns one QEMUTimer and one bottom half;
 * every decision is made in zr_service_run().
 *
 * Execution context: zr_service_run() calls the device's start and
 * complete callbacks, which move data by DMA.  So it only ever runs in a
 * bottom half created with the device's re-entrancy guard: the timer and
 * zr_service_timer_kick() just schedule that BH.  A guest that aims DMA at
 * the device's own registers then gets MEMTX_ACCESS_ERROR from the memory
 * core instead of re-entering the device in the middle of a completion.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/block/zoned-reorder/service-timer.h"
#include "trace.h"

static void zr_service_timer_schedule(ZrServiceTimer *t)
{
    t->bh_pending = true;
    qemu_bh_schedule(t->bh);
    if (t->scheduled) {
        t->scheduled(t->hook_opaque);
    }
}

/*
 * Call @fn(hook opaque: the device's, or zr_service_timer_set_hook_opaque())
 * whenever the BH is scheduled, e.g. to poke a vclock hold (vclock-hold.h).
 */
void zr_service_timer_set_scheduled_hook(ZrServiceTimer *t,
                                         void (*fn)(void *opaque))
{
    t->scheduled = fn;
}

/*
 * Call @fn(hook opaque) at the end of each BH run, still inside the BH and
 * so under the device's re-entrancy guard.
 */
void zr_service_timer_set_after_run_hook(ZrServiceTimer *t,
                                         void (*fn)(void *opaque))
{
    t->after_run = fn;
}

/* What the hooks are called with (default: the device's opaque) */
void zr_service_timer_set_hook_opaque(ZrServiceTimer *t, void *opaque)
{
    t->hook_opaque = opaque;
}

static inline QEMU_ALWAYS_INLINE void zr_service_timer_run(ZrServiceTimer *t)
{
    int64_t now, next;

    t->running = true;
    do {
        t->again = false;
        now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        next = zr_service_run(t->svc, t->dispatch, now, t->ops, t->opaque);
        /*
         * Commands due by now (zero latency) complete in this run, not one
         * main-loop turn later: a timer at @now would cost a wake-up per
         * command.  Never inside zr_service_run's start loop, though:
         * ops->start returns before its command can complete.
         */
    } while (!t->hold && (t->again || next <= now));
    t->running = false;

    /* the timer list's lock only when the deadline changes */
    if (next == ZR_SERVICE_NEVER) {
        if (timer_pending(t->timer)) {
            timer_del(t->timer);
        }
    } else if (timer_expire_time_ns(t->timer) != (uint64_t)next) {
        trace_zr_service_timer_arm(t, now, next);
        timer_mod(t->timer, next);
    }
}

static void zr_service_timer_bh(void *opaque)
{
    ZrServiceTimer *t = opaque;

    t->bh_pending = false;
    if (t->hold) {
        /* A teardown is in progress; zr_service_timer_release() kicks. */
        trace_zr_service_timer_held(t, t->hold);
        t->again = true;
        return;
    }
    if (t->running) {
        /*
         * Run from inside a callback of the running step (a drain of the
         * block layer runs the main loop's BHs): the outer loop takes
         * another turn instead of nesting.
         */
        t->again = true;
        return;
    }
    zr_service_timer_run(t);
    if (t->after_run) {
        t->after_run(t->hook_opaque);
    }
}

/* zr_service_timer_run_inline() once its quick test found work */
void zr_service_timer_run_inline_slow(ZrServiceTimer *t)
{
    if (t->running || t->hold) {
        zr_service_timer_kick(t);
        return;
    }
    if (!t->bh_pending && !zr_dispatch_nr_pending(t->dispatch) &&
        zr_service_next_completion(t->svc) == ZR_SERVICE_NEVER) {
        /* nothing waits to start or is in service: the step has no work */
        return;
    }
    if (t->bh_pending) {
        qemu_bh_cancel(t->bh);
        t->bh_pending = false;
    }
    trace_zr_service_timer_inline(t);
    zr_service_timer_run(t);
}

/* The timer never runs the model itself: it only schedules the BH. */
static void zr_service_timer_cb(void *opaque)
{
    ZrServiceTimer *t = opaque;

    zr_service_timer_schedule(t);
}

void zr_service_timer_init(ZrServiceTimer *t, ZrService *svc,
                           ZrDispatch *dispatch, const ZrServiceOps *ops,
                           void *opaque, MemReentrancyGuard *guard)
{
    memset(t, 0, sizeof(*t));
    t->svc = svc;
    t->dispatch = dispatch;
    t->ops = ops;
    t->opaque = opaque;
    t->hook_opaque = opaque;
    t->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, zr_service_timer_cb, t);
    t->bh = qemu_bh_new_guarded(zr_service_timer_bh, t, guard);
}

void zr_service_timer_cleanup(ZrServiceTimer *t)
{
    timer_free(t->timer);
    t->timer = NULL;
    qemu_bh_delete(t->bh);
    t->bh = NULL;
    t->bh_pending = false;
}

/*
 * New commands were submitted (or the policy changed): run a step soon,
 * on the BH.  From inside a callback the running step takes another turn.
 */
void zr_service_timer_kick(ZrServiceTimer *t)
{
    if (t->running) {
        t->again = true;
        return;
    }
    zr_service_timer_schedule(t);
}

/* Is a step scheduled but not run yet?  (For a vclock hold's @busy.) */
bool zr_service_timer_pending(ZrServiceTimer *t)
{
    return t->bh_pending;
}

/*
 * Hold the model still while a device tears commands down (abort, clear,
 * reset): nothing starts or completes until the matching release, even if
 * a block-layer drain inside the teardown runs the main loop's BHs.
 */
void zr_service_timer_hold(ZrServiceTimer *t)
{
    t->hold++;
}

void zr_service_timer_release(ZrServiceTimer *t)
{
    assert(t->hold);
    if (!--t->hold) {
        zr_service_timer_kick(t);
    }
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
 * runs for it, and nothing else starts here: the freed service slot is
 * used at the next step, which the caller kicks once after its loop, so
 * an abort loop never starts a command the same loop is about to abort.
 * Returns false if the core did not hold @cmd.
 */
bool zr_service_timer_cancel(ZrServiceTimer *t, ZrCmd *cmd)
{
    if (zr_dispatch_cancel(t->dispatch, cmd)) {
        return true;
    }
    if (cmd->state == ZR_CMD_STARTED) {
        zr_service_cancel(t->svc, cmd);
        zr_dispatch_complete(t->dispatch, cmd);
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
    qemu_bh_cancel(t->bh);
    t->bh_pending = false;
    zr_service_flush(t->svc);
    zr_dispatch_flush(t->dispatch, fn, opaque);
}
