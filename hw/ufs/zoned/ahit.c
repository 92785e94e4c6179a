/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: auto-hibernate (UFSHCI 4.0 5.2.5, AHIT).
 *
 * With auto-hibernate=on, CAP.AUTOH8 is set and a non-zero AHIT timer makes
 * the link enter hibernate (H8) once the controller has had no request
 * outstanding for that long (no transfer or task management doorbell bit,
 * no SQ entry, no command in flight).  Any request for the link in H8 --
 * UTRLDBR, UTMRLDBR, an SQ doorbell, a UIC command -- starts the exit,
 * which takes h8-exit-latency: nothing is fetched before it is over, so
 * every request rung meanwhile (NOP, QUERY and W-LU ones included) waits
 * it out and the batch is then fetched in slot-index order (legacy) or
 * in the order the SQ doorbells were rung (MCQ; the policy then picks
 * the start order).  DME_HIBER_ENTER/EXIT move the same
 * link state.  Autonomous transitions raise no UHES/UHXS
 * (Linux 6.12 treats those as failures of auto-hibernate).
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qemu/log.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define AHIT_TIMER_MASK     0x3ff
#define AHIT_SCALE_SHIFT    10
#define AHIT_SCALE_MAX      5       /* 100 ms units; 6 and 7 are reserved */

/* The idle time AHIT asks for, in ns; 0 = auto-hibernate off. */
static int64_t ufs_zoned_ahit_ns(UfsZonedState *s)
{
    uint32_t timer = s->reg.ahit & AHIT_TIMER_MASK;
    uint32_t scale = (s->reg.ahit >> AHIT_SCALE_SHIFT) & 7;
    int64_t ns = timer * 1000;

    if (!s->auto_hibernate || !timer || scale > AHIT_SCALE_MAX) {
        return 0;
    }
    while (scale--) {
        ns *= 10;
    }
    return ns;
}

/* timer_del() takes the timer list's lock: only when there is one to stop */
static void ufs_zoned_ahit_stop(UfsZonedState *s)
{
    if (timer_pending(s->ahit_timer)) {
        timer_del(s->ahit_timer);
    }
}

/* Enter H8, autonomously or by DME_HIBER_ENTER. */
void ufs_zoned_h8_enter(UfsZonedState *s)
{
    if (s->h8) {
        return;
    }
    if (s->ahit_timer) {
        ufs_zoned_ahit_stop(s);
    }
    s->h8 = true;
    s->h8_entries++;
    trace_ufs_zoned_h8_enter(s->h8_entries);
}

/*
 * Leave H8.  An exit the controller starts itself (a request for the link
 * arrived) takes h8-exit-latency, and whatever is rung meanwhile is
 * fetched when it is over.  DME_HIBER_EXIT (@manual) is the host's: the
 * host waits for the UIC command to complete before it sends anything, so
 * the link is ready when the command completes.
 */
static void ufs_zoned_h8_leave(UfsZonedState *s, bool manual)
{
    uint64_t latency = manual ? 0 : s->h8_exit_latency_ns;
    int64_t now;

    if (!s->h8) {
        return;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    s->h8 = false;
    s->h8_exits++;
    s->h8_exit_end_ns = now + latency;
    trace_ufs_zoned_h8_exit(s->h8_exits, latency);
    if (latency) {
        zr_service_timer_delay_starts(&s->sched, latency);
        timer_mod(s->h8_exit_timer, s->h8_exit_end_ns);
    } else {
        ufs_zoned_schedule(s);      /* whatever waited may be fetched */
    }
}

void ufs_zoned_h8_exit_by_host(UfsZonedState *s)
{
    ufs_zoned_h8_leave(s, true);
}

/* Timers only change state and schedule the work BH. */
static void ufs_zoned_ahit_expired(void *opaque)
{
    UfsZonedState *s = opaque;

    if (s->h8 || !s->link_up || !ufs_zoned_idle(s) || !ufs_zoned_ahit_ns(s)) {
        return;
    }
    ufs_zoned_h8_enter(s);
}

static void ufs_zoned_h8_exit_done(void *opaque)
{
    UfsZonedState *s = opaque;

    trace_ufs_zoned_h8_exit_done();
    ufs_zoned_schedule(s);
}

/* The controller went idle (or AHIT changed): (re)arm the idle timer. */
void ufs_zoned_ahit_idle(UfsZonedState *s)
{
    int64_t ns = ufs_zoned_ahit_ns(s);

    if (!s->ahit_timer) {
        return;
    }
    if (!ns || !ufs_zoned_idle(s) || s->h8) {
        ufs_zoned_ahit_stop(s);
        return;
    }
    timer_mod(s->ahit_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + ns);
}

/* ufs_zoned_ahit_busy() with auto-hibernate on or the link in H8 */
void ufs_zoned_ahit_wake(UfsZonedState *s)
{
    if (s->ahit_timer) {
        ufs_zoned_ahit_stop(s);
    }
    if (s->h8) {
        ufs_zoned_h8_leave(s, false);
    }
}

/*
 * AHIT (5.2.5) exists only with CAP.AUTOH8 = 1; otherwise it is reserved:
 * writes are ignored and it reads 0.  AHIT = 0 disables auto-hibernate
 * and brings the link out of an autonomous H8.
 */
void ufs_zoned_ahit_write(UfsZonedState *s, uint32_t val)
{
    if (!s->auto_hibernate) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: AHIT written, but "
                      "CAP.AUTOH8 = 0 (auto-hibernate=off): reserved\n");
        return;
    }
    s->reg.ahit = val & (AHIT_TIMER_MASK | (7u << AHIT_SCALE_SHIFT));
    if (!ufs_zoned_ahit_ns(s)) {
        ufs_zoned_h8_leave(s, false);
    }
    ufs_zoned_ahit_idle(s);
}

void ufs_zoned_ahit_init(UfsZonedState *s)
{
    s->ahit_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ufs_zoned_ahit_expired,
                                 s);
    s->h8_exit_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                    ufs_zoned_h8_exit_done, s);
}

void ufs_zoned_ahit_cleanup(UfsZonedState *s)
{
    timer_free(s->ahit_timer);
    s->ahit_timer = NULL;
    timer_free(s->h8_exit_timer);
    s->h8_exit_timer = NULL;
}

void ufs_zoned_ahit_reset(UfsZonedState *s)
{
    if (s->ahit_timer) {
        timer_del(s->ahit_timer);
        timer_del(s->h8_exit_timer);
    }
    s->h8 = false;
    s->h8_exit_end_ns = 0;
}
