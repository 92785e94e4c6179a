/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: where the controller does its work.
 *
 * Every access to guest memory -- SQ entries, PRP lists and SGLs, data,
 * CQEs, MSI-X messages -- runs in one of two bottom halves created with
 * the device's re-entrancy guard: the work BH here (enable/reset/shutdown,
 * fetches, admin commands, completions, coalescing) and the zoned-reorder
 * core's service BH (I/O command starts and service-time completions).
 * The MMIO handlers, the timers and the block layer's callbacks only
 * record what is to be done and schedule the work BH.
 *
 * As on ufs-zoned the two hand each other work without a main-loop turn
 * in between: a work pass runs the service step itself once it fetched
 * commands, and the service BH's end posts the completions it made (the
 * core's ZrWork, work.h, owns the BH and these mechanics).
 * Under -icount the work is held in guest time (vclock-hold.h) while a BH
 * is scheduled or backend I/O the model counts as done is still running.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "nvme-zns-internal.h"
#include "trace.h"

/* One pass of the controller's work (the core's ZrWork runs the passes) */
static void nz_work_pass(void *opaque)
{
    NzCtrl *s = opaque;

    if (s->mig_bad) {
        return;     /* a failed load: nothing until a reset */
    }
    /* what completes before nz_post_done() is posted in this pass */
    s->post_ahead = true;
    /* most passes have nothing for most of these: the cheap tests here */
    if (s->resetting || s->enabling || s->shutting_down) {
        nz_regs_work(s);
    }
    if (s->nr_marks || s->marks_overflow || s->sq[0].head != s->sq[0].tail) {
        nz_fetch(s);        /* a doorbell rang, or entries wait */
    }
    if (!QTAILQ_EMPTY(&s->parked)) {
        nz_admin_resume(s);
    }
    if (!QTAILQ_EMPTY(&s->orphan_wait)) {
        nz_orphan_kick(s);
    }
    if (!QTAILQ_EMPTY(&s->finishing)) {
        nz_io_work(s);
    }
    zr_service_timer_run_inline(&s->sched);
    s->post_ahead = false;
    if (!QTAILQ_EMPTY(&s->done) || s->nr_cq_waiting) {
        nz_post_done(s);
    }
    if (s->coal_next != INT64_MAX) {
        nz_irq_work(s);
    }
}

/*
 * The vclock hold's question: is work under way that ends by itself in
 * host time?  A scheduled BH, or backend I/O of a command whose service
 * time is over.
 */
static bool nz_host_busy(void *opaque)
{
    NzCtrl *s = opaque;
    uint32_t i;

    if (zr_work_busy(&s->work)) {
        return true;
    }
    for (i = 0; i < NZ_IO_REQS; i++) {
        NzReq *r = &s->req[i];

        if (r->state == NZ_REQ_RUN && r->svc_done && !r->io_done) {
            return true;
        }
    }
    return false;
}

void nz_work_init(NzCtrl *s)
{
    /*
     * While the VM is stopped the controller does nothing: it fetches no
     * command, starts none and posts no CQE (migrate.c holds its service
     * timer, and so its work), so the drains of a stop, a savevm or a
     * migration find it still; backend I/O already issued ends as it does.
     */
    zr_work_init(&s->work, DEVICE(s), nz_work_pass, s, &s->sched,
                 &s->vclock);
    zr_vclock_hold_init(&s->vclock, nz_host_busy, s);
    zr_work_service_hooks(&s->work);
}

void nz_work_cleanup(NzCtrl *s)
{
    zr_work_cleanup(&s->work);
    zr_vclock_hold_cleanup(&s->vclock);
}
