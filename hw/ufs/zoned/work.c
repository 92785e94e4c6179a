/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: where the controller does its work.
 *
 * Every access to guest memory -- fetching UTRDs and SQ entries, reading
 * UPIUs and PRDTs, moving data, writing responses, OCS and CQEs -- runs in
 * one of two bottom halves created with the device's re-entrancy guard:
 * the work BH here (fetches, data transfers the LUs ask for, completions the
 * LUs report, task management) and the zoned-reorder core's service BH
 * (command starts and service-time completions).  The MMIO handlers, the
 * timers and the SCSI bus callbacks only record what is to be done and
 * schedule the work BH.  A guest that aims DMA at the controller's own BAR so
 * gets MEMTX_ACCESS_ERROR from the memory core, which the code turns into
 * the status the spec defines, instead of a register write in the middle
 * of a completion.
 *
 * The two BHs hand each other work without a main-loop turn in between:
 * the work BH runs the service step itself once it has submitted
 * commands, and the service BH's end runs the work its completions left.
 * A command therefore costs two main-loop turns, the doorbell's and the
 * LU's completion's, as on a controller that does the work when it is
 * told.
 *
 * Under -icount the work is held in guest time (vclock-hold.h): while
 * either BH is scheduled, or an LU is still busy with a command that the
 * service model already counts as done, QEMU_CLOCK_VIRTUAL stays still,
 * so the guest sees the latency the model gives, not the host's.
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

/* One pass of the controller's work (the core's ZrWork runs the passes) */
static void ufs_zoned_work_pass(void *opaque)
{
    UfsZonedState *s = opaque;

    /* what was rung before a task management request is covered by it */
    if (s->nr_rings) {
        ufs_zoned_utrl_fetch(s);
    }
    if (s->mcq_fetch_pending || s->cq_waits) {
        ufs_zoned_mcq_work(s);
    }
    /* what the fetches took (or the completions before them) may idle it */
    ufs_zoned_ahit_maybe_idle(s);
    if (s->utmrl_pending) {
        ufs_zoned_utmrl_work(s);    /* nothing to do without */
    }
    if (ufs_zoned_pending_any(s)) {
        ufs_zoned_utp_work(s);
    }
    /* aggregation timeouts, a deferred message: nothing else to do there */
    if (s->agg_armed || s->irq_msg_pending) {
        ufs_zoned_irq_work(s);
    }
    /*
     * Start what was submitted here and now, under the same guard: the
     * LU's requests for data come back as another pass, with no main-loop
     * turn in between.
     */
    if (!s->teardown) {
        zr_service_timer_run_inline(&s->sched);
    }
}

/*
 * The vclock hold's question: is work under way that ends by itself in
 * host time?  A scheduled BH, or a command the service model has done
 * with while its LU still works on it (host I/O in flight).  Never a
 * command that waits for the guest: one held by x-stall, or torn down.
 * An aborted command has no host work left: the abort cancelled its
 * SCSIRequest, and scsi_req_cancel() waits for the LU's AIO
 * (blk_aio_cancel()); it waits for UTRLCLR or an SQ cleanup.
 */
static bool ufs_zoned_host_busy(void *opaque)
{
    UfsZonedState *s = opaque;
    uint32_t i;

    if (zr_work_busy(&s->work)) {
        return true;
    }
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (req->busy && !req->stopping && !req->aborted && !req->stalled &&
            req->sreq && req->svc_done && !req->scsi_done) {
            return true;
        }
    }
    return false;
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
    /* a teardown holds the service timer and so the work (teardown_end) */
    zr_work_init(&s->work, DEVICE(s), ufs_zoned_work_pass, s, &s->sched,
                 &s->vclock);
    zr_vclock_hold_init(&s->vclock, ufs_zoned_host_busy, s);
    zr_work_service_hooks(&s->work);
}

void ufs_zoned_work_cleanup(UfsZonedState *s)
{
    zr_work_cleanup(&s->work);
    zr_vclock_hold_cleanup(&s->vclock);
}
