/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the QEMU_CLOCK_VIRTUAL adapter of the zoned-reorder
 * service model (hw/block/zoned-reorder/service-timer.c), driven by QEMU's
 * main loop.  Without a VM the virtual clock follows the host clock, so
 * these tests check order and lower bounds, not exact times (the exact
 * times are test-zr-service's job, on the pure model).
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/block/zoned-reorder/service-timer.h"

#define MAX_CMDS 16
#define MAX_EVENTS 32

typedef struct Event {
    char kind;
    uint32_t tag;
    int64_t now;
    int64_t done;           /* for starts */
} Event;

typedef struct Fixture {
    ZrDispatch d;
    ZrService s;
    ZrServiceTimer t;
    ZrCmd cmds[MAX_CMDS];
    unsigned nr_cmds;
    Event ev[MAX_EVENTS];
    unsigned nr_ev;
    unsigned completed;
    int depth;              /* callbacks currently on the stack */
    uint32_t follow_up_tag; /* complete() submits and kicks once */
} Fixture;

static ZrCmd *fx_submit(Fixture *f, uint32_t tag, ZrOp op);

static void fx_event(Fixture *f, char kind, uint32_t tag, int64_t done)
{
    g_assert_cmpuint(f->nr_ev, <, MAX_EVENTS);
    f->ev[f->nr_ev++] = (Event){
        kind, tag, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL), done
    };
}

static void fx_start(void *opaque, ZrCmd *cmd, int64_t done)
{
    Fixture *f = opaque;

    g_assert_cmpint(f->depth, ==, 0);
    f->depth++;
    fx_event(f, 'S', cmd->tag, done);
    f->depth--;
}

static void fx_complete(void *opaque, ZrCmd *cmd)
{
    Fixture *f = opaque;

    g_assert_cmpint(f->depth, ==, 0);
    f->depth++;
    fx_event(f, 'C', cmd->tag, 0);
    f->completed++;
    if (f->follow_up_tag) {
        fx_submit(f, f->follow_up_tag, ZR_OP_OTHER);
        f->follow_up_tag = 0;
        /* A kick from inside a callback must not nest callbacks. */
        zr_service_timer_kick(&f->t);
    }
    f->depth--;
}

static const ZrServiceOps fx_ops = {
    .start = fx_start,
    .complete = fx_complete,
};

static void fx_init(Fixture *f, uint64_t write_ns, uint32_t max_parallel)
{
    ZrDispatchConfig dcfg = {
        .policy = ZR_POLICY_NONE,
        .spec = ZR_SPEC_LOWEST_SLOT,
        .nr_queues = 1,
    };
    ZrServiceConfig scfg = {
        .lat_ns = { [ZR_OP_WRITE] = write_ns },
        .max_parallel = max_parallel,
    };

    memset(f, 0, sizeof(*f));
    g_assert_true(zr_dispatch_init(&f->d, &dcfg, &error_abort));
    g_assert_true(zr_service_init(&f->s, &scfg, &error_abort));
    zr_service_timer_init(&f->t, &f->s, &f->d, &fx_ops, f, NULL);
}

static void fx_cleanup(Fixture *f)
{
    zr_service_timer_reset(&f->t, NULL, NULL);
    zr_service_timer_cleanup(&f->t);
    zr_dispatch_cleanup(&f->d);
}

static ZrCmd *fx_submit(Fixture *f, uint32_t tag, ZrOp op)
{
    ZrCmd *c;

    g_assert_cmpuint(f->nr_cmds, <, MAX_CMDS);
    c = &f->cmds[f->nr_cmds++];
    zr_cmd_init(c, tag, 0, op, 0, 1, f);
    zr_dispatch_submit(&f->d, c);
    return c;
}

static void fx_wake(void *opaque)
{
}

/* Run the main loop until *@count reaches @n, or @timeout_ms of host time. */
static void fx_wait_for(unsigned *count, unsigned n, int timeout_ms)
{
    int64_t end = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + timeout_ms;
    QEMUTimer *wake = timer_new_ms(QEMU_CLOCK_REALTIME, fx_wake, NULL);

    /* main_loop_wait() sleeps until a timer: make sure there is one. */
    timer_mod(wake, end);
    while (*count < n && qemu_clock_get_ms(QEMU_CLOCK_REALTIME) < end) {
        main_loop_wait(false);
    }
    timer_free(wake);
}

/* ... until @n completions */
static void fx_wait(Fixture *f, unsigned n, int timeout_ms)
{
    fx_wait_for(&f->completed, n, timeout_ms);
}

/* ... until @nr_ev events were seen */
static void fx_wait_events(Fixture *f, unsigned nr_ev, int timeout_ms)
{
    fx_wait_for(&f->nr_ev, nr_ev, timeout_ms);
}

static void test_latency(void)
{
    const int64_t lat = 2 * SCALE_MS;
    Fixture f;

    fx_init(&f, lat, 1);
    fx_submit(&f, 1, ZR_OP_WRITE);
    fx_submit(&f, 2, ZR_OP_WRITE);
    zr_service_timer_kick(&f.t);
    /* A kick only schedules the bottom half: nothing ran yet. */
    g_assert_cmpuint(f.nr_ev, ==, 0);
    fx_wait(&f, 2, 5000);
    g_assert_cmpuint(f.completed, ==, 2);
    g_assert_cmpuint(f.nr_ev, ==, 4);
    g_assert_cmpint(f.ev[0].kind, ==, 'S');
    g_assert_cmpuint(f.ev[0].tag, ==, 1);
    g_assert_cmpint(f.ev[1].kind, ==, 'C');
    g_assert_cmpuint(f.ev[1].tag, ==, 1);
    g_assert_cmpint(f.ev[2].kind, ==, 'S');
    g_assert_cmpuint(f.ev[2].tag, ==, 2);
    g_assert_cmpint(f.ev[3].kind, ==, 'C');
    g_assert_cmpuint(f.ev[3].tag, ==, 2);
    /* Completion time = start + latency; never completed early. */
    g_assert_cmpint(f.ev[0].done - f.ev[0].now, <=, lat);
    g_assert_cmpint(f.ev[1].now, >=, f.ev[0].done);
    g_assert_cmpint(f.ev[2].now, >=, f.ev[0].done);   /* one unit */
    g_assert_cmpint(f.ev[3].now, >=, f.ev[2].done);
    g_assert_cmpint(f.cmds[1].done_ns, ==, f.ev[2].done);
    fx_cleanup(&f);
}

/*
 * Zero latency completes within the step the kick scheduled, after the
 * start callback has returned; a command submitted from a completion
 * callback is started and completed in the same step too.
 */
static void test_zero_latency_and_reentry(void)
{
    Fixture f;

    fx_init(&f, 0, 1);
    fx_submit(&f, 1, ZR_OP_OTHER);
    f.follow_up_tag = 2;
    zr_service_timer_kick(&f.t);
    g_assert_cmpuint(f.nr_ev, ==, 0);
    /* One main-loop turn runs the BH once: all four events in it. */
    main_loop_wait(true);
    g_assert_cmpuint(f.completed, ==, 2);
    g_assert_cmpuint(f.nr_ev, ==, 4);
    g_assert_cmpint(f.ev[0].kind, ==, 'S');
    g_assert_cmpint(f.ev[1].kind, ==, 'C');
    g_assert_cmpint(f.ev[2].kind, ==, 'S');
    g_assert_cmpuint(f.ev[2].tag, ==, 2);
    g_assert_cmpint(f.ev[3].kind, ==, 'C');
    fx_cleanup(&f);
}

/* The wake-up hook holds the start back by at least the delay. */
static void test_delay_starts(void)
{
    const int64_t delay = 3 * SCALE_MS;
    int64_t t0;
    Fixture f;

    fx_init(&f, 0, 0);
    t0 = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    zr_service_timer_delay_starts(&f.t, delay);
    fx_submit(&f, 1, ZR_OP_WRITE);
    zr_service_timer_kick(&f.t);
    g_assert_cmpuint(f.nr_ev, ==, 0);
    fx_wait(&f, 1, 5000);
    g_assert_cmpuint(f.completed, ==, 1);
    g_assert_cmpint(f.ev[0].kind, ==, 'S');
    g_assert_cmpint(f.ev[0].now, >=, t0 + delay);
    fx_cleanup(&f);
}

static void count_dropped(ZrCmd *cmd, void *opaque)
{
    unsigned *n = opaque;

    g_assert_cmpint(cmd->state, ==, ZR_CMD_IDLE);
    (*n)++;
}

/* Cancel and reset: nothing fires afterwards. */
static void test_cancel_reset(void)
{
    unsigned dropped = 0;
    ZrCmd *c1, *c2, *c3;
    Fixture f;

    fx_init(&f, 50 * SCALE_MS, 1);
    c1 = fx_submit(&f, 1, ZR_OP_WRITE);
    c2 = fx_submit(&f, 2, ZR_OP_WRITE);
    c3 = fx_submit(&f, 3, ZR_OP_WRITE);
    zr_service_timer_kick(&f.t);
    fx_wait_events(&f, 1, 5000);
    g_assert_cmpint(c1->state, ==, ZR_CMD_STARTED);
    /*
     * Cancelling the started command frees the unit, but starts nothing
     * by itself: an abort loop must not start what it aborts next.
     */
    g_assert_true(zr_service_timer_cancel(&f.t, c1));
    g_assert_cmpint(c1->state, ==, ZR_CMD_IDLE);
    g_assert_cmpint(c2->state, ==, ZR_CMD_PENDING);
    zr_service_timer_kick(&f.t);
    fx_wait_events(&f, 2, 5000);
    g_assert_cmpint(c2->state, ==, ZR_CMD_STARTED);
    g_assert_true(zr_service_timer_cancel(&f.t, c3));
    g_assert_false(zr_service_timer_cancel(&f.t, c3));
    zr_service_timer_reset(&f.t, count_dropped, &dropped);
    g_assert_cmpuint(dropped, ==, 1);
    g_assert_cmpint(c2->state, ==, ZR_CMD_IDLE);
    fx_wait(&f, 1, 80);
    g_assert_cmpuint(f.completed, ==, 0);
    g_assert_cmpuint(f.nr_ev, ==, 2);
    fx_cleanup(&f);
}

/* While held, neither a kick nor the timer runs a step; release does. */
static void test_hold_release(void)
{
    Fixture f;

    fx_init(&f, 0, 0);
    fx_submit(&f, 1, ZR_OP_WRITE);
    zr_service_timer_hold(&f.t);
    zr_service_timer_kick(&f.t);
    main_loop_wait(true);
    main_loop_wait(true);
    g_assert_cmpuint(f.nr_ev, ==, 0);
    zr_service_timer_hold(&f.t);
    zr_service_timer_release(&f.t);
    main_loop_wait(true);
    g_assert_cmpuint(f.nr_ev, ==, 0);
    zr_service_timer_release(&f.t);
    fx_wait(&f, 1, 5000);
    g_assert_cmpuint(f.completed, ==, 1);
    fx_cleanup(&f);
}

static void fx_after_run(void *opaque)
{
    Fixture *f = opaque;

    fx_event(f, 'A', 0, 0);
}

/*
 * run_inline runs the step before it returns (no main-loop turn) and
 * cancels a kick already scheduled; held, it does nothing until the
 * release.  The after-run hook ends every BH run, not the inline ones.
 */
static void test_run_inline(void)
{
    Fixture f;

    fx_init(&f, 0, 0);
    zr_service_timer_set_after_run_hook(&f.t, fx_after_run);
    fx_submit(&f, 1, ZR_OP_WRITE);
    zr_service_timer_kick(&f.t);
    g_assert_true(zr_service_timer_pending(&f.t));
    zr_service_timer_run_inline(&f.t);
    g_assert_false(zr_service_timer_pending(&f.t));
    g_assert_cmpuint(f.nr_ev, ==, 2);
    g_assert_cmpint(f.ev[0].kind, ==, 'S');
    g_assert_cmpint(f.ev[1].kind, ==, 'C');
    main_loop_wait(true);
    g_assert_cmpuint(f.nr_ev, ==, 2);

    zr_service_timer_hold(&f.t);
    fx_submit(&f, 2, ZR_OP_WRITE);
    zr_service_timer_run_inline(&f.t);
    g_assert_cmpuint(f.nr_ev, ==, 2);
    zr_service_timer_release(&f.t);
    fx_wait(&f, 2, 5000);
    g_assert_cmpint(f.ev[2].kind, ==, 'S');
    g_assert_cmpint(f.ev[3].kind, ==, 'C');
    g_assert_cmpint(f.ev[4].kind, ==, 'A');
    fx_cleanup(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qemu_init_main_loop(&error_abort);
    /* No VM here: let the virtual clock run. */
    qemu_clock_enable(QEMU_CLOCK_VIRTUAL, true);

    g_test_add_func("/zoned-reorder/service-timer/latency", test_latency);
    g_test_add_func("/zoned-reorder/service-timer/zero-latency-reentry",
                    test_zero_latency_and_reentry);
    g_test_add_func("/zoned-reorder/service-timer/delay-starts",
                    test_delay_starts);
    g_test_add_func("/zoned-reorder/service-timer/cancel-reset",
                    test_cancel_reset);
    g_test_add_func("/zoned-reorder/service-timer/hold-release",
                    test_hold_release);
    g_test_add_func("/zoned-reorder/service-timer/run-inline",
                    test_run_inline);
    return g_test_run();
}
