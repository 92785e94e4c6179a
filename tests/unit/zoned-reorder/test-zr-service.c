/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the zoned-reorder service-time model
 * (hw/block/zoned-reorder/service.c): costs, exact start and completion
 * times through zr_service_run(), the parallelism limit, zero latency,
 * the wake-up (not before) hook, and how the reorder policy chooses among
 * the commands waiting for a slot.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/block/zoned-reorder/service.h"

#define MAX_CMDS 64
#define MAX_EVENTS 128

typedef struct Event {
    char kind;          /* 'S'tart or 'C'omplete */
    uint32_t tag;
    int64_t now;
    int64_t done;       /* for starts */
} Event;

typedef struct Fixture {
    ZrDispatch d;
    ZrService s;
    ZrCmd cmds[MAX_CMDS];
    unsigned nr_cmds;
    Event ev[MAX_EVENTS];
    unsigned nr_ev;
    int64_t now;
    /* complete() submits a write with this tag once, if non-zero */
    uint32_t follow_up_tag;
} Fixture;

static void fx_start(void *opaque, ZrCmd *cmd, int64_t done)
{
    Fixture *f = opaque;

    g_assert_cmpuint(f->nr_ev, <, MAX_EVENTS);
    g_assert_cmpint(cmd->state, ==, ZR_CMD_STARTED);
    g_assert_cmpint(cmd->done_ns, ==, done);
    f->ev[f->nr_ev++] = (Event){ 'S', cmd->tag, f->now, done };
}

static ZrCmd *fx_submit(Fixture *f, uint32_t tag, ZrOp op, uint64_t len);

static void fx_complete(void *opaque, ZrCmd *cmd)
{
    Fixture *f = opaque;

    g_assert_cmpuint(f->nr_ev, <, MAX_EVENTS);
    g_assert_cmpint(cmd->state, ==, ZR_CMD_IDLE);
    g_assert_cmpint(cmd->done_ns, <=, f->now);
    f->ev[f->nr_ev++] = (Event){ 'C', cmd->tag, f->now, 0 };
    if (f->follow_up_tag) {
        fx_submit(f, f->follow_up_tag, ZR_OP_WRITE, 1);
        f->follow_up_tag = 0;
    }
}

static const ZrServiceOps fx_ops = {
    .start = fx_start,
    .complete = fx_complete,
};

static void fx_init(Fixture *f, ZrPolicy policy, uint32_t max_parallel)
{
    ZrDispatchConfig dcfg = {
        .policy = policy,
        .spec = ZR_SPEC_LOWEST_SLOT,
        .nr_queues = 1,
    };
    ZrServiceConfig scfg = {
        .lat_ns = {
            [ZR_OP_READ] = 100,
            [ZR_OP_WRITE] = 200,
            [ZR_OP_APPEND] = 250,
            [ZR_OP_ZONE_MGMT] = 1000,
            [ZR_OP_OTHER] = 0,
        },
        .max_parallel = max_parallel,
    };

    memset(f, 0, sizeof(*f));
    g_assert_true(zr_dispatch_init(&f->d, &dcfg, &error_abort));
    g_assert_true(zr_service_init(&f->s, &scfg, &error_abort));
}

static void fx_cleanup(Fixture *f)
{
    zr_service_flush(&f->s);
    zr_dispatch_flush(&f->d, NULL, NULL);
    zr_dispatch_cleanup(&f->d);
}

static ZrCmd *fx_submit(Fixture *f, uint32_t tag, ZrOp op, uint64_t len)
{
    ZrCmd *c;

    g_assert_cmpuint(f->nr_cmds, <, MAX_CMDS);
    c = &f->cmds[f->nr_cmds++];
    zr_cmd_init(c, tag, 0, op, 0, len, f);
    zr_dispatch_submit(&f->d, c);
    return c;
}

/* One scheduling step at @now; returns the next step's time. */
static int64_t fx_run(Fixture *f, int64_t now)
{
    f->now = now;
    return zr_service_run(&f->s, &f->d, now, &fx_ops, f);
}

/* Step from event to event until idle. */
static void fx_run_all(Fixture *f, int64_t now)
{
    int64_t next = fx_run(f, now);

    while (next != ZR_SERVICE_NEVER) {
        g_assert_cmpint(next, >=, f->now);
        next = fx_run(f, next);
    }
}

static void assert_events(Fixture *f, const Event *want, unsigned n)
{
    unsigned i;

    for (i = 0; i < MAX(n, f->nr_ev); i++) {
        if (i >= n || i >= f->nr_ev || f->ev[i].kind != want[i].kind ||
            f->ev[i].tag != want[i].tag || f->ev[i].now != want[i].now ||
            f->ev[i].done != want[i].done) {
            g_test_message("event %u: got %c%u@%" PRId64 "(%" PRId64
                           ") want %c%u@%" PRId64 "(%" PRId64 ")", i,
                           i < f->nr_ev ? f->ev[i].kind : '-',
                           i < f->nr_ev ? f->ev[i].tag : 0,
                           i < f->nr_ev ? f->ev[i].now : 0,
                           i < f->nr_ev ? f->ev[i].done : 0,
                           i < n ? want[i].kind : '-',
                           i < n ? want[i].tag : 0,
                           i < n ? want[i].now : 0,
                           i < n ? want[i].done : 0);
        }
    }
    g_assert_cmpuint(f->nr_ev, ==, n);
    for (i = 0; i < n; i++) {
        g_assert_cmpint(f->ev[i].kind, ==, want[i].kind);
        g_assert_cmpuint(f->ev[i].tag, ==, want[i].tag);
        g_assert_cmpint(f->ev[i].now, ==, want[i].now);
        g_assert_cmpint(f->ev[i].done, ==, want[i].done);
    }
}

#define ASSERT_EVENTS(f, ...) do {                                      \
        static const Event want_[] = { __VA_ARGS__ };                   \
        assert_events((f), want_, ARRAY_SIZE(want_));                   \
    } while (0)

#define S(tag, now, done) { 'S', (tag), (now), (done) }
#define C(tag, now) { 'C', (tag), (now), 0 }

/* ------------------------------------------------------------------------ */

static void test_cost(void)
{
    ZrServiceConfig cfg = {
        .lat_ns = { [ZR_OP_WRITE] = 100, [ZR_OP_READ] = 7 },
        .xfer_ns_per_4k = { [ZR_OP_WRITE] = 10 },
        .block_size = 512,
    };

    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 0), ==, 100);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 1), ==, 110);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 8), ==, 110);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 9), ==, 120);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 256), ==, 420);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_READ, 256), ==, 7);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_OTHER, 256), ==, 0);
    /* 4 KiB blocks: one unit per block. */
    cfg.block_size = 4096;
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 3), ==, 130);
    /* Block size 0 means 4096. */
    cfg.block_size = 0;
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 3), ==, 130);
    /* Saturates instead of wrapping. */
    cfg.lat_ns[ZR_OP_WRITE] = UINT64_MAX - 5;
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 1), ==,
                     UINT64_MAX);
    cfg.lat_ns[ZR_OP_WRITE] = 0;
    cfg.xfer_ns_per_4k[ZR_OP_WRITE] = UINT64_MAX / 2;
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, 3), ==,
                     UINT64_MAX);
    g_assert_cmpuint(zr_service_cost_ns(&cfg, ZR_OP_WRITE, UINT64_MAX), ==,
                     UINT64_MAX);
    /* In bytes, whatever the block size: every started 4 KiB counts. */
    cfg.xfer_ns_per_4k[ZR_OP_WRITE] = 10;
    cfg.block_size = 512;
    g_assert_cmpuint(zr_service_cost_bytes_ns(&cfg, ZR_OP_WRITE, 0), ==, 0);
    g_assert_cmpuint(zr_service_cost_bytes_ns(&cfg, ZR_OP_WRITE, 1), ==, 10);
    g_assert_cmpuint(zr_service_cost_bytes_ns(&cfg, ZR_OP_WRITE, 4097), ==,
                     20);
    g_assert_cmpuint(zr_service_cost_bytes_ns(&cfg, ZR_OP_WRITE, 512 * 1024),
                     ==, 1280);
}

/* A command's xfer_bytes, when set, is what its service time counts. */
static void test_cost_xfer_bytes(void)
{
    ZrServiceConfig cfg = {
        .lat_ns = { [ZR_OP_WRITE] = 100 },
        .xfer_ns_per_4k = { [ZR_OP_WRITE] = 10 },
        .block_size = 512,
    };
    ZrService s;
    ZrCmd a, b;

    g_assert_true(zr_service_init(&s, &cfg, &error_abort));
    zr_cmd_init(&a, 1, 0, ZR_OP_WRITE, 0, 8, NULL);          /* 8 x 512 */
    zr_cmd_init(&b, 2, 0, ZR_OP_WRITE, 0, 1, NULL);
    b.xfer_bytes = 64 * 1024;                /* one 64 KiB block, say */
    b.xfer_set = true;
    g_assert_cmpint(zr_service_start(&s, &a, 0), ==, 110);
    g_assert_cmpint(zr_service_start(&s, &b, 0), ==, 260);
    /* set, and 0: no transfer, whatever @len says */
    zr_cmd_init(&a, 3, 0, ZR_OP_WRITE, 0, 8, NULL);
    a.xfer_set = true;
    g_assert_cmpint(zr_service_start(&s, &a, 0), ==, 100);
}

/* Two back-end units: the third command waits for the first to finish. */
static void test_parallel_two(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 2);
    fx_submit(&f, 1, ZR_OP_WRITE, 1);
    fx_submit(&f, 2, ZR_OP_READ, 1);
    fx_submit(&f, 3, ZR_OP_WRITE, 1);
    g_assert_cmpint(fx_run(&f, 0), ==, 100);
    g_assert_cmpuint(f.s.busy, ==, 2);
    g_assert_cmpuint(zr_dispatch_nr_pending(&f.d), ==, 1);
    g_assert_false(zr_service_can_start(&f.s, 0));
    /* Nothing is due before 100. */
    g_assert_cmpint(fx_run(&f, 99), ==, 100);
    g_assert_cmpint(fx_run(&f, 100), ==, 200);
    g_assert_cmpint(fx_run(&f, 200), ==, 300);
    g_assert_cmpint(fx_run(&f, 300), ==, ZR_SERVICE_NEVER);
    ASSERT_EVENTS(&f,
                  S(1, 0, 200), S(2, 0, 100),
                  C(2, 100), S(3, 100, 300),
                  C(1, 200),
                  C(3, 300));
    g_assert_cmpuint(f.s.stats.starts, ==, 3);
    g_assert_cmpuint(f.s.stats.completions, ==, 3);
    g_assert_cmpuint(f.s.stats.busy_max, ==, 2);
    g_assert_cmpuint(f.s.stats.busy_ns, ==, 500);
    g_assert_cmpuint(f.d.stats.completed, ==, 3);
    fx_cleanup(&f);
}

static void test_parallel_one(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 1);
    fx_submit(&f, 1, ZR_OP_WRITE, 1);
    fx_submit(&f, 2, ZR_OP_WRITE, 1);
    fx_submit(&f, 3, ZR_OP_READ, 1);
    fx_run_all(&f, 1000);
    ASSERT_EVENTS(&f,
                  S(1, 1000, 1200),
                  C(1, 1200), S(2, 1200, 1400),
                  C(2, 1400), S(3, 1400, 1500),
                  C(3, 1500));
    g_assert_cmpuint(f.s.stats.busy_max, ==, 1);
    fx_cleanup(&f);
}

static void test_parallel_unlimited(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 0);
    fx_submit(&f, 1, ZR_OP_WRITE, 1);
    fx_submit(&f, 2, ZR_OP_APPEND, 1);
    fx_submit(&f, 3, ZR_OP_READ, 1);
    fx_submit(&f, 4, ZR_OP_ZONE_MGMT, 0);
    fx_run_all(&f, 0);
    ASSERT_EVENTS(&f,
                  S(1, 0, 200), S(2, 0, 250), S(3, 0, 100), S(4, 0, 1000),
                  C(3, 100), C(1, 200), C(2, 250), C(4, 1000));
    g_assert_cmpuint(f.s.stats.busy_max, ==, 4);
    fx_cleanup(&f);
}

/*
 * Zero latency: a step starts, then completes what it started, never
 * nested, and goes on while that frees slots (limit 1 here); with no
 * limit everything pending starts before anything completes.
 */
static void test_zero_latency(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 1);
    fx_submit(&f, 1, ZR_OP_OTHER, 0);
    fx_submit(&f, 2, ZR_OP_OTHER, 0);
    g_assert_cmpint(fx_run(&f, 50), ==, ZR_SERVICE_NEVER);
    ASSERT_EVENTS(&f,
                  S(1, 50, 50),
                  C(1, 50), S(2, 50, 50),
                  C(2, 50));
    g_assert_cmpuint(f.s.stats.busy_max, ==, 1);
    fx_cleanup(&f);

    /* the model off altogether: every time 0, no limit */
    fx_init(&f, ZR_POLICY_NONE, 0);
    g_assert_true(zr_service_set_config(&f.s, &(ZrServiceConfig) { 0 },
                                        &error_abort));
    g_assert_true(f.s.timeless);
    fx_submit(&f, 1, ZR_OP_WRITE, 8);
    fx_submit(&f, 2, ZR_OP_READ, 8);
    fx_submit(&f, 3, ZR_OP_ZONE_MGMT, 0);
    g_assert_cmpint(fx_run(&f, 70), ==, ZR_SERVICE_NEVER);
    ASSERT_EVENTS(&f,
                  S(1, 70, 70), S(2, 70, 70), S(3, 70, 70),
                  C(1, 70), C(2, 70), C(3, 70));
    g_assert_cmpuint(f.s.stats.busy_max, ==, 3);
    g_assert_cmpuint(f.s.stats.starts, ==, 3);
    g_assert_cmpuint(f.s.stats.completions, ==, 3);

    /* a follow-up submitted by a completion runs in the same step */
    f.follow_up_tag = 9;
    fx_submit(&f, 4, ZR_OP_WRITE, 1);
    g_assert_cmpint(fx_run(&f, 80), ==, ZR_SERVICE_NEVER);
    g_assert_cmpuint(f.nr_ev, ==, 10);
    g_assert_cmpint(f.ev[8].kind, ==, 'S');
    g_assert_cmpuint(f.ev[8].tag, ==, 9);
    g_assert_cmpint(f.ev[9].kind, ==, 'C');

    /* a latency again: the model is on */
    g_assert_true(zr_service_set_config(&f.s, &(ZrServiceConfig) {
        .lat_ns[ZR_OP_WRITE] = 5 }, &error_abort));
    g_assert_false(f.s.timeless);
    fx_submit(&f, 5, ZR_OP_WRITE, 1);
    g_assert_cmpint(fx_run(&f, 90), ==, 95);
    fx_cleanup(&f);
}

/* Equal completion times complete in start order. */
static void test_ties(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_REVERSE, 0);
    fx_submit(&f, 1, ZR_OP_WRITE, 1);
    fx_submit(&f, 2, ZR_OP_WRITE, 1);
    fx_submit(&f, 3, ZR_OP_WRITE, 1);
    fx_run_all(&f, 0);
    ASSERT_EVENTS(&f,
                  S(3, 0, 200), S(2, 0, 200), S(1, 0, 200),
                  C(3, 200), C(2, 200), C(1, 200));
    fx_cleanup(&f);
}

/* The wake-up hook holds starts; completions still happen. */
static void test_not_before(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 2);
    fx_submit(&f, 1, ZR_OP_READ, 1);
    g_assert_cmpint(fx_run(&f, 0), ==, 100);
    zr_service_delay_starts(&f.s, 500);
    zr_service_delay_starts(&f.s, 300);     /* cannot move it earlier */
    g_assert_cmpint(f.s.not_before_ns, ==, 500);
    fx_submit(&f, 2, ZR_OP_READ, 1);
    g_assert_cmpint(fx_run(&f, 10), ==, 100);
    g_assert_cmpint(fx_run(&f, 100), ==, 500);
    g_assert_cmpint(fx_run(&f, 499), ==, 500);
    g_assert_false(zr_service_can_start(&f.s, 499));
    g_assert_true(zr_service_can_start(&f.s, 500));
    g_assert_cmpint(fx_run(&f, 500), ==, 600);
    g_assert_cmpint(fx_run(&f, 600), ==, ZR_SERVICE_NEVER);
    ASSERT_EVENTS(&f,
                  S(1, 0, 100),
                  C(1, 100),
                  S(2, 500, 600),
                  C(2, 600));
    g_assert_cmpuint(f.s.stats.delayed_kicks, ==, 3);
    fx_cleanup(&f);
}

/*
 * One unit and the UFS legacy `spec` policy: each time the unit frees, the
 * lowest pending slot starts, including slots rung meanwhile.
 */
static void test_policy_under_load(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_SPEC, 1);
    fx_submit(&f, 7, ZR_OP_WRITE, 1);
    fx_submit(&f, 3, ZR_OP_WRITE, 1);
    fx_submit(&f, 5, ZR_OP_WRITE, 1);
    g_assert_cmpint(fx_run(&f, 0), ==, 200);
    fx_submit(&f, 1, ZR_OP_WRITE, 1);           /* rung at 100 */
    g_assert_cmpint(fx_run(&f, 100), ==, 200);
    fx_run_all(&f, 200);
    ASSERT_EVENTS(&f,
                  S(3, 0, 200),
                  C(3, 200), S(1, 200, 400),
                  C(1, 400), S(5, 400, 600),
                  C(5, 600), S(7, 600, 800),
                  C(7, 800));
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 3);
    fx_cleanup(&f);
}

/* A completion callback may submit: the new command starts at once. */
static void test_submit_from_complete(void)
{
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 1);
    fx_submit(&f, 1, ZR_OP_READ, 1);
    f.follow_up_tag = 9;
    fx_run_all(&f, 0);
    ASSERT_EVENTS(&f,
                  S(1, 0, 100),
                  C(1, 100), S(9, 100, 300),
                  C(9, 300));
    fx_cleanup(&f);
}

static void test_cancel_flush(void)
{
    ZrCmd *c1, *c2;
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, 1);
    c1 = fx_submit(&f, 1, ZR_OP_WRITE, 1);
    c2 = fx_submit(&f, 2, ZR_OP_WRITE, 1);
    g_assert_cmpint(fx_run(&f, 0), ==, 200);
    /* Abort the command in service: its slot is free at once. */
    g_assert_true(zr_service_cancel(&f.s, c1));
    g_assert_false(zr_service_cancel(&f.s, c1));
    zr_dispatch_complete(&f.d, c1);
    g_assert_true(zr_service_slot_free(&f.s));
    g_assert_cmpint(zr_service_next_completion(&f.s), ==, ZR_SERVICE_NEVER);
    g_assert_cmpint(fx_run(&f, 10), ==, 210);
    ASSERT_EVENTS(&f, S(1, 0, 200), S(2, 10, 210));
    g_assert_cmpint(c2->state, ==, ZR_CMD_STARTED);

    /* Reset: nothing in service, no wake-up time left. */
    zr_service_delay_starts(&f.s, 1000);
    zr_service_flush(&f.s);
    zr_dispatch_flush(&f.d, NULL, NULL);
    g_assert_cmpuint(f.s.busy, ==, 0);
    g_assert_cmpint(f.s.not_before_ns, ==, 0);
    g_assert_cmpint(c2->state, ==, ZR_CMD_IDLE);
    g_assert_cmpint(fx_run(&f, 20), ==, ZR_SERVICE_NEVER);
    fx_cleanup(&f);
}

static void test_config(void)
{
    ZrServiceConfig cfg = { .block_size = 3 };
    Error *err = NULL;
    ZrService s;
    Fixture f;

    g_assert_false(zr_service_init(&s, &cfg, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "block size 3"));
    error_free(err);

    /* Latency changes apply to commands started afterwards. */
    fx_init(&f, ZR_POLICY_NONE, 1);
    fx_submit(&f, 1, ZR_OP_READ, 1);
    fx_submit(&f, 2, ZR_OP_READ, 1);
    g_assert_cmpint(fx_run(&f, 0), ==, 100);
    cfg = f.s.cfg;
    cfg.lat_ns[ZR_OP_READ] = 40;
    g_assert_true(zr_service_set_config(&f.s, &cfg, &error_abort));
    fx_run_all(&f, 100);
    ASSERT_EVENTS(&f, S(1, 0, 100), C(1, 100), S(2, 100, 140), C(2, 140));
    fx_cleanup(&f);
}

/* A huge latency parks the command near the end of time, no overflow. */
/*
 * A migration in the middle: commands copied with their saved state
 * (what vmstate_zr_cmd carries) into a fresh engine and service model,
 * put back with zr_dispatch_restore() and zr_service_restore() in any
 * order, run on exactly as they would have; bad saved states are refused.
 */
static void test_restore(void)
{
    g_autofree Fixture *a = g_new0(Fixture, 1);
    g_autofree Fixture *b = g_new0(Fixture, 1);
    ZrCmd *started[MAX_CMDS], bad;
    unsigned i, n = 0, ev0;
    Error *err = NULL;

    fx_init(a, ZR_POLICY_NONE, 2);
    for (i = 1; i <= 5; i++) {
        fx_submit(a, i, i == 3 ? ZR_OP_READ : ZR_OP_WRITE, 1);
    }
    fx_run(a, 0);               /* 1 and 2 in service until 200 */
    fx_submit(a, 6, ZR_OP_ZONE_MGMT, 0);
    ev0 = a->nr_ev;

    fx_init(b, ZR_POLICY_NONE, 2);
    b->d.next_seq = a->d.next_seq;
    b->s.next_order = a->s.next_order;
    b->nr_cmds = a->nr_cmds;
    /* pending ones in reverse arrival order: they still start in order */
    for (i = a->nr_cmds; i-- > 0;) {
        b->cmds[i] = a->cmds[i];
        b->cmds[i].opaque = b;
        if (b->cmds[i].state == ZR_CMD_PENDING) {
            g_assert_true(zr_dispatch_restore(&b->d, &b->cmds[i],
                                              &error_abort));
        } else {
            started[n++] = &b->cmds[i];
        }
    }
    g_assert_cmpuint(n, ==, 2);
    for (i = n; i-- > 0;) {     /* start order: 1, then 2 */
        g_assert_true(zr_dispatch_restore(&b->d, started[i], &error_abort));
        g_assert_true(zr_service_restore(&b->s, started[i], &error_abort));
    }
    g_assert_cmpuint(zr_dispatch_nr_pending(&b->d), ==, 4);
    g_assert_cmpuint(zr_dispatch_nr_in_flight(&b->d), ==, 2);
    g_assert_cmpuint(b->s.busy, ==, 2);

    fx_run_all(a, 100);
    fx_run_all(b, 100);
    g_assert_cmpuint(b->nr_ev, ==, a->nr_ev - ev0);
    for (i = 0; i < b->nr_ev; i++) {
        g_assert_cmpint(b->ev[i].kind, ==, a->ev[ev0 + i].kind);
        g_assert_cmpuint(b->ev[i].tag, ==, a->ev[ev0 + i].tag);
        g_assert_cmpint(b->ev[i].now, ==, a->ev[ev0 + i].now);
        g_assert_cmpint(b->ev[i].done, ==, a->ev[ev0 + i].done);
    }

    /* saved states that cannot be */
    zr_cmd_init(&bad, 9, 0, ZR_OP_WRITE, 0, 1, b);
    bad.state = ZR_CMD_PENDING;
    bad.seq = 0;
    g_assert_false(zr_dispatch_restore(&b->d, &bad, &err));
    error_free_or_abort(&err);
    bad.seq = b->d.next_seq;
    g_assert_false(zr_dispatch_restore(&b->d, &bad, &err));
    error_free_or_abort(&err);
    bad.seq = 1;
    bad.queue = 1;
    g_assert_false(zr_dispatch_restore(&b->d, &bad, &err));
    error_free_or_abort(&err);
    bad.queue = 0;
    bad.op = ZR_OP__MAX;
    g_assert_false(zr_dispatch_restore(&b->d, &bad, &err));
    error_free_or_abort(&err);
    bad.op = ZR_OP_WRITE;
    bad.state = ZR_CMD_STARTED + 1;
    g_assert_false(zr_dispatch_restore(&b->d, &bad, &err));
    error_free_or_abort(&err);
    bad.done_ns = -1;
    g_assert_false(zr_service_restore(&b->s, &bad, &err));
    error_free_or_abort(&err);
    bad.done_ns = 0;
    bad.svc_order = b->s.next_order;
    g_assert_false(zr_service_restore(&b->s, &bad, &err));
    error_free_or_abort(&err);
    /* two pending commands with one sequence number */
    zr_cmd_init(&bad, 9, 0, ZR_OP_WRITE, 0, 1, b);
    fx_submit(b, 7, ZR_OP_WRITE, 1);
    bad.state = ZR_CMD_PENDING;
    bad.seq = b->cmds[b->nr_cmds - 1].seq;
    g_assert_false(zr_dispatch_restore(&b->d, &bad, &err));
    error_free_or_abort(&err);
    g_assert_cmpuint(zr_dispatch_nr_pending(&b->d), ==, 1);

    fx_cleanup(a);
    fx_cleanup(b);
}

static void test_huge_latency(void)
{
    Fixture f;
    ZrServiceConfig cfg;

    fx_init(&f, ZR_POLICY_NONE, 0);
    cfg = f.s.cfg;
    cfg.lat_ns[ZR_OP_WRITE] = UINT64_MAX;
    g_assert_true(zr_service_set_config(&f.s, &cfg, &error_abort));
    fx_submit(&f, 1, ZR_OP_WRITE, 1);
    g_assert_cmpint(fx_run(&f, 1000), ==, ZR_SERVICE_NEVER - 1);
    g_assert_cmpint(f.cmds[0].done_ns, ==, ZR_SERVICE_NEVER - 1);
    fx_cleanup(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/zoned-reorder/service/cost", test_cost);
    g_test_add_func("/zoned-reorder/service/cost-xfer-bytes",
                    test_cost_xfer_bytes);
    g_test_add_func("/zoned-reorder/service/restore", test_restore);
    g_test_add_func("/zoned-reorder/service/parallel/two", test_parallel_two);
    g_test_add_func("/zoned-reorder/service/parallel/one", test_parallel_one);
    g_test_add_func("/zoned-reorder/service/parallel/unlimited",
                    test_parallel_unlimited);
    g_test_add_func("/zoned-reorder/service/zero-latency",
                    test_zero_latency);
    g_test_add_func("/zoned-reorder/service/ties", test_ties);
    g_test_add_func("/zoned-reorder/service/not-before", test_not_before);
    g_test_add_func("/zoned-reorder/service/policy-under-load",
                    test_policy_under_load);
    g_test_add_func("/zoned-reorder/service/submit-from-complete",
                    test_submit_from_complete);
    g_test_add_func("/zoned-reorder/service/cancel-flush",
                    test_cancel_flush);
    g_test_add_func("/zoned-reorder/service/config", test_config);
    g_test_add_func("/zoned-reorder/service/huge-latency",
                    test_huge_latency);
    return g_test_run();
}
