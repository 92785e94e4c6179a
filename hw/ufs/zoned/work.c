/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: where the controller does its work.
 *
 * Every access to guest memory -- fetching UTRDs and SQ entries, reading
 * UPIUs and PRDTs, moving data, writing responses, OCS and CQEs -- runs in
 * one of two bottom halves created with the device's re-entrancy guard:
 * work_bh here (fetches, data transfers the LUs ask for, completions the
 * LUs report, task management) and the zoned-reorder core's service BH
 * (command starts and service-time completions).  The MMIO handlers, the
 * timers and the SCSI bus callbacks only record what is to be done and
 * schedule work_bh.  A guest that aims DMA at the controller's own BAR so
 * gets MEMTX_ACCESS_ERROR from the memory core, which the code turns into
 * the status the spec defines, instead of a register write in the middle
 * of a completion.
 *
 * Teardown (task management aborts, UTRLCLR, SQ cleanup, HCE=0) holds both
 * BHs still: cancelling a SCSI request may drain the block layer, which
 * runs the main loop's BHs; while held they do nothing, and the end of
 * the teardown schedules them once.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

static void ufs_zoned_work_bh(void *opaque)
{
    UfsZonedState *s = opaque;

    if (s->teardown) {
        return;     /* ufs_zoned_teardown_end() schedules us again */
    }
    if (s->work_running) {
        /*
         * Run again from inside itself: a DMA aimed at another device
         * drained the block layer, which runs the main loop's BHs.  The
         * outer run takes another turn instead.
         */
        s->work_again = true;
        return;
    }
    s->work_running = true;
    do {
        s->work_again = false;
        /* what was rung before a task management request is covered by it */
        ufs_zoned_utrl_fetch(s);
        ufs_zoned_mcq_work(s);
        ufs_zoned_utmrl_work(s);
        ufs_zoned_utp_work(s);
    } while (s->work_again && !s->teardown);
    s->work_running = false;
    zr_service_timer_kick(&s->sched);
}

void ufs_zoned_schedule(UfsZonedState *s)
{
    if (s->work_running) {
        s->work_again = true;
        return;
    }
    qemu_bh_schedule(s->work_bh);
}

void ufs_zoned_teardown_begin(UfsZonedState *s)
{
    s->teardown++;
    zr_service_timer_hold(&s->sched);
}

void ufs_zoned_teardown_end(UfsZonedState *s)
{
    assert(s->teardown);
    s->teardown--;
    zr_service_timer_release(&s->sched);
    if (!s->teardown) {
        ufs_zoned_schedule(s);
    }
}

void ufs_zoned_work_init(UfsZonedState *s)
{
    s->work_bh = qemu_bh_new_guarded(ufs_zoned_work_bh, s,
                                     &DEVICE(s)->mem_reentrancy_guard);
}

void ufs_zoned_work_cleanup(UfsZonedState *s)
{
    qemu_bh_delete(s->work_bh);
    s->work_bh = NULL;
}
