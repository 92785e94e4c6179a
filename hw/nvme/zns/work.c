/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: where the controller does its work.
 *
 * Every access to guest memory -- SQ entries, PRP lists and SGLs, data,
 * CQEs, MSI-X messages -- runs in one of two bottom halves created with
 * the device's re-entrancy guard: work_bh here (enable/reset/shutdown,
 * fetches, admin commands, completions, coalescing) and the zoned-reorder
 * core's service BH (I/O command starts and service-time completions).
 * The MMIO handlers, the timers and the block layer's callbacks only
 * record what is to be done and schedule work_bh.
 *
 * As on ufs-zoned the two hand each other work without a main-loop turn
 * in between: the work BH runs the service step itself once it fetched
 * commands, and the service BH's end posts the completions it made.
 * Under -icount the work is held in guest time (vclock-hold.h) while a BH
 * is scheduled or backend I/O the model counts as done is still running.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "nvme-zns-internal.h"
#include "trace.h"

static void nz_work_bh(void *opaque)
{
    NzCtrl *s = opaque;

    s->work_pending = false;
    if (s->work_running) {
        /* a nested event loop (blk_flush) ran us: the outer run goes on */
        s->work_again = true;
        return;
    }
    s->work_running = true;
    do {
        s->work_again = false;
        nz_regs_work(s);
        nz_fetch(s);
        nz_admin_resume(s);
        nz_orphan_kick(s);
        nz_io_work(s);
        zr_service_timer_run_inline(&s->sched);
        nz_post_done(s);
        nz_irq_work(s);
    } while (s->work_again);
    s->work_running = false;
    zr_vclock_hold_poke(&s->vclock);
}

static void nz_service_after_run(void *opaque)
{
    NzCtrl *s = opaque;

    if (s->work_pending && !s->work_running) {
        qemu_bh_cancel(s->work_bh);
        nz_work_bh(s);
    }
}

static void nz_service_scheduled(void *opaque)
{
    NzCtrl *s = opaque;

    zr_vclock_hold_poke(&s->vclock);
}

void nz_schedule(NzCtrl *s)
{
    if (s->work_running) {
        s->work_again = true;
        return;
    }
    s->work_pending = true;
    qemu_bh_schedule(s->work_bh);
    zr_vclock_hold_poke(&s->vclock);
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

    if (s->work_pending || zr_service_timer_pending(&s->sched)) {
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
    s->work_bh = qemu_bh_new_guarded(nz_work_bh, s,
                                     &DEVICE(s)->mem_reentrancy_guard);
    zr_vclock_hold_init(&s->vclock, nz_host_busy, s);
    zr_service_timer_set_scheduled_hook(&s->sched, nz_service_scheduled);
    zr_service_timer_set_after_run_hook(&s->sched, nz_service_after_run);
}

void nz_work_cleanup(NzCtrl *s)
{
    if (s->work_bh) {
        qemu_bh_delete(s->work_bh);
        s->work_bh = NULL;
    }
    s->work_pending = false;
    zr_vclock_hold_cleanup(&s->vclock);
}
