/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: hold QEMU_CLOCK_VIRTUAL under icount while a device
 * works outside it.  See include/hw/block/zoned-reorder/vclock-hold.h.
 *
 * Neither the poll notifier nor the timer moves data or calls the device
 * but for @busy, which must only read state.
 */

#include "qemu/osdep.h"
#include "qemu/config-file.h"
#include "qemu/main-loop.h"
#include "qemu/option.h"
#include "qemu/timer.h"
#include "exec/replay-core.h"
#include "system/cpu-timers.h"
#include "system/qtest.h"
#include "system/runstate.h"
#include "hw/block/zoned-reorder/vclock-hold.h"
#include "trace.h"

static void zr_vclock_hold_end(ZrVclockHold *h, int64_t now_rt)
{
    trace_zr_vclock_hold_end(h, now_rt - h->since_rt);
    h->since_rt = -1;
    h->gave_up = false;
}

/* Hold the clock one more nanosecond if the device is still busy. */
void zr_vclock_hold_check(ZrVclockHold *h)
{
    int64_t now_rt = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);

    if (!runstate_is_running()) {
        /* no warp while stopped; a stop must not count as host work */
        if (h->since_rt >= 0) {
            h->since_rt = now_rt;
        }
        return;
    }

    if (!h->busy(h->opaque)) {
        if (h->since_rt >= 0) {
            zr_vclock_hold_end(h, now_rt);
        }
        return;
    }
    if (h->since_rt < 0) {
        h->since_rt = now_rt;
        h->holds++;
        trace_zr_vclock_hold_start(h);
    }
    if (h->gave_up) {
        return;
    }
    if (now_rt - h->since_rt > ZR_VCLOCK_HOLD_MAX_RT_NS) {
        /* not host work after all: let the guest's time go on */
        trace_zr_vclock_hold_expired(h, now_rt - h->since_rt);
        h->expired++;
        h->gave_up = true;
        return;
    }
    timer_mod(h->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 1);
}

/*
 * The deadline was reached: hold on while the device is busy.  A running
 * vCPU then advances one instruction per turn of the main loop, so the
 * guest sees no time pass for host work that overlaps its own, and the
 * figures do not depend on how fast the host is.
 */
static void zr_vclock_hold_expire(void *opaque)
{
    zr_vclock_hold_check(opaque);
}

/* After each poll of the main loop, before QEMU may warp the clock. */
static void zr_vclock_hold_poll(Notifier *n, void *data)
{
    MainLoopPoll *mlpoll = data;

    if (mlpoll->state == MAIN_LOOP_POLL_OK) {
        zr_vclock_hold_check(container_of(n, ZrVclockHold, poll));
    }
}

/*
 * Only "-icount sleep=off" warps: with sleep=on guest time follows the
 * host's while the vCPUs sleep, so a hold would only cost.  Not under
 * record/replay either (its deadlines would come from host state), nor
 * under qtest, whose clock_step moves time without running BHs.
 */
static bool zr_vclock_hold_wanted(void)
{
    QemuOptsList *list;
    QemuOpts *opts;

    if (!icount_enabled() || qtest_enabled() ||
        replay_mode != REPLAY_MODE_NONE) {
        return false;
    }
    list = qemu_find_opts("icount");
    opts = list ? qemu_opts_find(list, NULL) : NULL;
    return opts && !qemu_opt_get_bool(opts, "sleep", true);
}

void zr_vclock_hold_init(ZrVclockHold *h, ZrVclockBusyFn *busy, void *opaque)
{
    memset(h, 0, sizeof(*h));
    h->busy = busy;
    h->opaque = opaque;
    h->since_rt = -1;
    if (zr_vclock_hold_wanted()) {
        h->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, zr_vclock_hold_expire, h);
        h->poll.notify = zr_vclock_hold_poll;
        main_loop_poll_add_notifier(&h->poll);
    }
}

void zr_vclock_hold_cleanup(ZrVclockHold *h)
{
    if (h->timer) {
        main_loop_poll_remove_notifier(&h->poll);
        timer_free(h->timer);
        h->timer = NULL;
    }
}
