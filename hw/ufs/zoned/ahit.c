/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: auto-hibernate (UFSHCI 4.0 5.2.5, AHIT).
 *
 * With auto-hibernate=on, CAP.AUTOH8 is set and a non-zero AHIT timer makes
 * the link enter hibernate (H8) once the controller has had no transfer
 * request outstanding for that long.  A doorbell rung in H8 starts the
 * exit, which takes h8-exit-latency: nothing starts before it is over, so
 * every command rung meanwhile is batched and then started in the order
 * the reorder policy picks.  Autonomous transitions raise no UHES/UHXS
 * (Linux 6.12 treats those as failures of auto-hibernate).
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define AHIT_TIMER_MASK     0x3ff
#define AHIT_SCALE_SHIFT    10
#define AHIT_SCALE_MAX      5       /* 10 s units; 6 and 7 are reserved */

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

static void ufs_zoned_ahit_expired(void *opaque)
{
    UfsZonedState *s = opaque;

    if (s->h8 || !s->link_up || !ufs_zoned_idle(s) || !ufs_zoned_ahit_ns(s)) {
        return;
    }
    s->h8 = true;
    s->h8_entries++;
    trace_ufs_zoned_h8_enter(s->h8_entries);
}

/* The controller went idle (or AHIT changed): (re)arm the idle timer. */
void ufs_zoned_ahit_idle(UfsZonedState *s)
{
    int64_t ns = ufs_zoned_ahit_ns(s);

    if (!s->ahit_timer) {
        return;
    }
    if (!ns || !ufs_zoned_idle(s) || s->h8) {
        timer_del(s->ahit_timer);
        return;
    }
    timer_mod(s->ahit_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + ns);
}

/* A doorbell: leave H8 first; nothing starts until the exit is over. */
void ufs_zoned_ahit_busy(UfsZonedState *s)
{
    if (s->ahit_timer) {
        timer_del(s->ahit_timer);
    }
    if (!s->h8) {
        return;
    }
    s->h8 = false;
    s->h8_exits++;
    trace_ufs_zoned_h8_exit(s->h8_exits, s->h8_exit_latency_ns);
    zr_service_timer_delay_starts(&s->sched, s->h8_exit_latency_ns);
}

void ufs_zoned_ahit_init(UfsZonedState *s)
{
    s->ahit_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ufs_zoned_ahit_expired,
                                 s);
}

void ufs_zoned_ahit_cleanup(UfsZonedState *s)
{
    timer_free(s->ahit_timer);
    s->ahit_timer = NULL;
}

void ufs_zoned_ahit_reset(UfsZonedState *s)
{
    if (s->ahit_timer) {
        timer_del(s->ahit_timer);
    }
    s->h8 = false;
}
