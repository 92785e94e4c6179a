/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the zoned-reorder dispatch engine and policies
 * (hw/block/zoned-reorder/dispatch.c, policy.c): the exact start order of
 * every policy on scripted arrivals, for both spec flavours and several
 * burst sizes, the reorder counters, seed reproducibility, cancel, flush,
 * per-zone write overlap and policy name parsing.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/util.h"
#include "hw/block/zoned-reorder/dispatch.h"

#define MAX_CMDS 256

typedef struct Fixture {
    ZrDispatch d;
    ZrCmd cmds[MAX_CMDS];
    unsigned nr_cmds;
} Fixture;

static void fx_init(Fixture *f, ZrPolicy policy, ZrSpecFlavour spec,
                    uint32_t nr_queues, uint32_t burst, uint64_t seed)
{
    ZrDispatchConfig cfg = {
        .policy = policy,
        .spec = spec,
        .nr_queues = nr_queues,
        .spec_burst = burst,
        .rr_burst = burst,
        .seed = seed,
        .zone_size = 16,
    };

    memset(f, 0, sizeof(*f));
    g_assert_true(zr_dispatch_init(&f->d, &cfg, &error_abort));
}

static void fx_cleanup(Fixture *f)
{
    zr_dispatch_flush(&f->d, NULL, NULL);
    zr_dispatch_cleanup(&f->d);
}

static ZrCmd *fx_submit_op(Fixture *f, uint32_t tag, uint32_t queue, ZrOp op,
                           uint64_t lba)
{
    ZrCmd *c;

    g_assert_cmpuint(f->nr_cmds, <, MAX_CMDS);
    c = &f->cmds[f->nr_cmds++];
    zr_cmd_init(c, tag, queue, op, lba, 1, f);
    zr_dispatch_submit(&f->d, c);
    return c;
}

static ZrCmd *fx_submit(Fixture *f, uint32_t tag, uint32_t queue)
{
    return fx_submit_op(f, tag, queue, ZR_OP_WRITE, 0);
}

static void fx_submit_tags(Fixture *f, const uint32_t *tags, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        fx_submit(f, tags[i], 0);
    }
}

/* Start and complete one command; return its tag. */
static uint32_t fx_pick(Fixture *f)
{
    ZrCmd *c = zr_dispatch_pick(&f->d);

    g_assert_nonnull(c);
    g_assert_cmpint(c->state, ==, ZR_CMD_STARTED);
    zr_dispatch_complete(&f->d, c);
    return c->tag;
}

/* Start everything pending; the tags in start order go to @out. */
static unsigned fx_drain(Fixture *f, uint32_t *out)
{
    unsigned n = 0;

    while (zr_dispatch_nr_pending(&f->d)) {
        out[n++] = fx_pick(f);
    }
    g_assert_null(zr_dispatch_pick(&f->d));
    return n;
}

static void assert_order(const uint32_t *got, unsigned n,
                         const uint32_t *want, unsigned n_want)
{
    unsigned i;

    if (n != n_want || memcmp(got, want, n * sizeof(*got))) {
        GString *s = g_string_new("got");

        for (i = 0; i < n; i++) {
            g_string_append_printf(s, " %u", got[i]);
        }
        g_string_append(s, ", want");
        for (i = 0; i < n_want; i++) {
            g_string_append_printf(s, " %u", want[i]);
        }
        g_test_message("%s", s->str);
        g_string_free(s, true);
    }
    g_assert_cmpuint(n, ==, n_want);
    for (i = 0; i < n; i++) {
        g_assert_cmpuint(got[i], ==, want[i]);
    }
}

#define ASSERT_ORDER(got, n, ...) do {                                  \
        static const uint32_t want_[] = { __VA_ARGS__ };                \
        assert_order((got), (n), want_, ARRAY_SIZE(want_));             \
    } while (0)

static const uint32_t tags_5371[] = { 5, 3, 7, 1 };

/*
 * ------------------------------------------------------------------------
 * Single doorbell (slot) transports
 */

static void test_none(void)
{
    uint32_t got[8];
    unsigned n;
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit_tags(&f, tags_5371, 4);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 5, 3, 7, 1);
    g_assert_cmpuint(f.d.stats.starts, ==, 4);
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 0);
    g_assert_cmpuint(f.d.stats.overtaken_sum, ==, 0);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_NONE], ==, 4);
    fx_cleanup(&f);
}

/* UFS legacy doorbell: the lowest pending slot starts first. */
static void test_spec_lowest_slot(void)
{
    uint32_t got[8];
    unsigned n;
    Fixture f;

    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit_tags(&f, tags_5371, 4);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 1, 3, 5, 7);
    /* 1 overtook 5, 3, 7; 3 overtook 5. */
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 2);
    g_assert_cmpuint(f.d.stats.overtaken_sum, ==, 4);
    g_assert_cmpuint(f.d.stats.overtaken_max, ==, 3);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_SPEC], ==, 4);
    g_assert_cmpuint(f.d.stats.starts_reordered_in_queue, ==, 2);

    /* Arrivals between starts: only what is pending competes. */
    fx_submit(&f, 4, 0);
    fx_submit(&f, 6, 0);
    g_assert_cmpuint(fx_pick(&f), ==, 4);
    fx_submit(&f, 2, 0);
    g_assert_cmpuint(fx_pick(&f), ==, 2);
    g_assert_cmpuint(f.cmds[6].overtaken, ==, 1);
    g_assert_cmpuint(fx_pick(&f), ==, 6);
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 3);

    /* Equal tags (never on one doorbell, but defined): arrival order. */
    f.nr_cmds = 0;
    fx_submit(&f, 3, 0);
    fx_submit(&f, 3, 0);
    g_assert_true(zr_dispatch_pick(&f.d) == &f.cmds[0]);
    g_assert_true(zr_dispatch_pick(&f.d) == &f.cmds[1]);
    fx_cleanup(&f);
}

/* Slot round-robin: the scan resumes after the last started slot. */
static void test_rr_slots(void)
{
    static const uint32_t first[] = { 2, 5, 1 }, second[] = { 0, 3, 6 };
    uint32_t got[8];
    unsigned n = 0;
    Fixture f;

    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit_tags(&f, first, 3);
    got[n++] = fx_pick(&f);      /* nothing started yet: from slot 0 */
    got[n++] = fx_pick(&f);
    got[n++] = fx_pick(&f);
    fx_submit_tags(&f, second, 3);
    n += fx_drain(&f, got + n);
    ASSERT_ORDER(got, n, 1, 2, 5, 6, 0, 3);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_RR], ==, 6);
    fx_cleanup(&f);

    /* The same script under spec: lowest slot, no rotation. */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    n = 0;
    fx_submit_tags(&f, first, 3);
    got[n++] = fx_pick(&f);
    got[n++] = fx_pick(&f);
    got[n++] = fx_pick(&f);
    fx_submit_tags(&f, second, 3);
    n += fx_drain(&f, got + n);
    ASSERT_ORDER(got, n, 1, 2, 5, 0, 3, 6);
    fx_cleanup(&f);

    /* Wrap-around with all 32 slots of a UFS doorbell pending. */
    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit(&f, 29, 0);
    g_assert_cmpuint(fx_pick(&f), ==, 29);
    for (n = 0; n < 32; n++) {
        if (n != 29) {
            fx_submit(&f, n, 0);
        }
    }
    g_assert_cmpuint(fx_pick(&f), ==, 30);
    g_assert_cmpuint(fx_pick(&f), ==, 31);
    g_assert_cmpuint(fx_pick(&f), ==, 0);
    g_assert_cmpuint(fx_pick(&f), ==, 1);
    fx_cleanup(&f);

    /* A slot rung again right after it started waits a full turn. */
    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit(&f, 2, 0);
    g_assert_cmpuint(fx_pick(&f), ==, 2);
    fx_submit(&f, 2, 0);
    fx_submit(&f, 3, 0);
    fx_submit(&f, 1, 0);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 3, 1, 2);
    /* Equal tags: arrival order. */
    fx_submit(&f, 5, 0);
    fx_submit(&f, 5, 0);
    g_assert_true(zr_dispatch_pick(&f.d) == &f.cmds[f.nr_cmds - 2]);
    fx_cleanup(&f);
}

static void test_reverse(void)
{
    uint32_t got[8];
    unsigned n;
    Fixture f;

    fx_init(&f, ZR_POLICY_REVERSE, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit_tags(&f, tags_5371, 4);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 1, 7, 3, 5);
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 3);
    g_assert_cmpuint(f.d.stats.overtaken_sum, ==, 3 + 2 + 1);
    g_assert_cmpuint(f.d.stats.overtaken_max, ==, 3);
    g_assert_cmpuint(f.d.stats.starts_reordered_in_queue, ==, 3);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_REVERSE], ==, 4);
    fx_cleanup(&f);
}

/*
 * ------------------------------------------------------------------------
 * Multi-queue transports (MCQ, NVMe)
 */

#define A(i) (0 + (i))      /* queue 0 */
#define B(i) (100 + (i))    /* queue 1 */
#define C(i) (200 + (i))    /* queue 2 */

/* Arrivals a0 a1 a2 (queue 0), b0 (queue 1), c0 c1 (queue 2). */
static void submit_abc(Fixture *f)
{
    fx_submit(f, A(0), 0);
    fx_submit(f, A(1), 0);
    fx_submit(f, A(2), 0);
    fx_submit(f, B(0), 1);
    fx_submit(f, C(0), 2);
    fx_submit(f, C(1), 2);
}

static void test_spec_per_queue_rr(void)
{
    uint32_t got[8];
    unsigned n;
    Fixture f;

    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 3, 1, 0);
    submit_abc(&f);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), B(0), C(0), A(1), C(1), A(2));
    /* b0 overtook a1 a2; c0 overtook a1 a2; c1 overtook a2. */
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 3);
    g_assert_cmpuint(f.d.stats.overtaken_sum, ==, 5);
    g_assert_cmpuint(f.d.stats.overtaken_max, ==, 2);
    /* ... but never inside a submission queue. */
    g_assert_cmpuint(f.d.stats.starts_reordered_in_queue, ==, 0);
    g_assert_cmpuint(f.d.queue_starts[0], ==, 3);
    g_assert_cmpuint(f.d.queue_starts[1], ==, 1);
    g_assert_cmpuint(f.d.queue_starts[2], ==, 2);
    fx_cleanup(&f);

    /* NVMe Arbitration Burst 2. */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 3, 2, 0);
    submit_abc(&f);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), A(1), B(0), C(0), C(1), A(2));
    fx_cleanup(&f);

    /* A queue id gap: queue 1 idle, the cursor skips it. */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 4, 1, 0);
    fx_submit(&f, C(0), 2);
    fx_submit(&f, A(0), 0);
    fx_submit(&f, C(1), 2);
    fx_submit(&f, 300, 3);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), C(0), 300, C(1));
    fx_cleanup(&f);
}

/* NVMe weighted round robin with an urgent class (Base 2.0 3.4.4.3) */
static void test_spec_wrr(void)
{
    static const uint32_t w[ZR_WRR_CLASSES] = { 3, 2, 1 };
    uint32_t got[32];
    unsigned n, i;
    Fixture f;

    /* queue 0 low, 1 medium, 2 high, 3 urgent; 6 commands each */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 4, 1, 0);
    zr_dispatch_set_wrr(&f.d, true, w);
    zr_dispatch_set_queue_class(&f.d, 0, ZR_QCLASS_LOW);
    zr_dispatch_set_queue_class(&f.d, 1, ZR_QCLASS_MEDIUM);
    zr_dispatch_set_queue_class(&f.d, 2, ZR_QCLASS_HIGH);
    zr_dispatch_set_queue_class(&f.d, 3, ZR_QCLASS_URGENT);
    for (i = 0; i < 6; i++) {
        fx_submit(&f, i, 0);
        fx_submit(&f, 10 + i, 1);
        fx_submit(&f, 20 + i, 2);
        fx_submit(&f, 30 + i, 3);
    }
    n = fx_drain(&f, got);
    /* urgent first, then rounds of 3 high, 2 medium, 1 low */
    ASSERT_ORDER(got, n, 30, 31, 32, 33, 34, 35,
                 20, 21, 22, 10, 11, 0,
                 23, 24, 25, 12, 13, 1,
                 14, 15, 2,         /* high empty: medium and low go on */
                 3, 4, 5);
    g_assert_cmpuint(f.d.stats.starts_reordered_in_queue, ==, 0);
    fx_cleanup(&f);

    /* Urgent work that arrives later still goes first. */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 2, 1, 0);
    zr_dispatch_set_wrr(&f.d, true, w);
    zr_dispatch_set_queue_class(&f.d, 1, ZR_QCLASS_URGENT);
    fx_submit(&f, 0, 0);
    fx_submit(&f, 1, 0);
    g_assert_cmpuint(fx_pick(&f), ==, 0);
    fx_submit(&f, 100, 1);
    g_assert_cmpuint(fx_pick(&f), ==, 100);
    g_assert_cmpuint(fx_pick(&f), ==, 1);
    fx_cleanup(&f);

    /* Two high queues: round robin with the burst inside the class. */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 3, 2, 0);
    zr_dispatch_set_wrr(&f.d, true, w);
    zr_dispatch_set_queue_class(&f.d, 0, ZR_QCLASS_HIGH);
    zr_dispatch_set_queue_class(&f.d, 1, ZR_QCLASS_HIGH);
    zr_dispatch_set_queue_class(&f.d, 2, ZR_QCLASS_LOW);
    for (i = 0; i < 4; i++) {
        fx_submit(&f, i, 0);
        fx_submit(&f, 10 + i, 1);
        fx_submit(&f, 20 + i, 2);
    }
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 0, 1, 10, 20, 11, 2, 3, 21, 12, 13, 22, 23);
    fx_cleanup(&f);

    /* Off again: plain round robin, classes ignored. */
    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_PER_QUEUE_RR, 2, 1, 0);
    zr_dispatch_set_wrr(&f.d, true, w);
    zr_dispatch_set_queue_class(&f.d, 1, ZR_QCLASS_URGENT);
    zr_dispatch_set_wrr(&f.d, false, w);
    fx_submit(&f, 0, 0);
    fx_submit(&f, 1, 0);
    fx_submit(&f, 100, 1);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 0, 100, 1);
    fx_cleanup(&f);
}

static void test_rr_queues(void)
{
    uint32_t got[8];
    unsigned n;
    Fixture f;

    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_PER_QUEUE_RR, 3, 1, 0);
    submit_abc(&f);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), B(0), C(0), A(1), C(1), A(2));
    fx_cleanup(&f);

    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_PER_QUEUE_RR, 3, 2, 0);
    submit_abc(&f);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), A(1), B(0), C(0), C(1), A(2));
    fx_cleanup(&f);

    /* A burst as deep as the queue: arrival order here. */
    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_PER_QUEUE_RR, 3, 3, 0);
    submit_abc(&f);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), A(1), A(2), B(0), C(0), C(1));
    g_assert_cmpuint(f.d.stats.starts_reordered, ==, 0);
    fx_cleanup(&f);

    /* The two bursts are separate settings. */
    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_PER_QUEUE_RR, 3, 1, 0);
    zr_dispatch_set_rr_burst(&f.d, 2);
    zr_dispatch_set_spec_burst(&f.d, 1);
    submit_abc(&f);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, A(0), A(1), B(0), C(0), C(1), A(2));
    fx_cleanup(&f);

    /* The cursor persists between batches: q1 is next after q0. */
    fx_init(&f, ZR_POLICY_RR, ZR_SPEC_PER_QUEUE_RR, 3, 1, 0);
    fx_submit(&f, A(0), 0);
    g_assert_cmpuint(fx_pick(&f), ==, A(0));
    fx_submit(&f, C(0), 2);
    fx_submit(&f, A(1), 0);
    fx_submit(&f, B(0), 1);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, B(0), C(0), A(1));
    fx_cleanup(&f);
}

/*
 * ------------------------------------------------------------------------
 * random
 */

static unsigned random_order(uint64_t seed, unsigned n, uint32_t *got)
{
    unsigned i, k;
    Fixture f;

    fx_init(&f, ZR_POLICY_RANDOM, ZR_SPEC_LOWEST_SLOT, 1, 1, seed);
    for (i = 0; i < n; i++) {
        fx_submit(&f, i, 0);
    }
    k = fx_drain(&f, got);
    fx_cleanup(&f);
    return k;
}

static void test_random(void)
{
    uint32_t a[64], b[64], c[64];
    bool seen[64] = { };
    unsigned i, n;

    n = random_order(42, 64, a);
    g_assert_cmpuint(n, ==, 64);
    for (i = 0; i < 64; i++) {
        g_assert_false(seen[a[i]]);
        seen[a[i]] = true;
    }
    /* Same seed, same arrivals: same order. */
    random_order(42, 64, b);
    g_assert_cmpmem(a, sizeof(a), b, sizeof(b));
    /* Another seed: another order. */
    random_order(43, 64, c);
    g_assert_true(memcmp(a, c, sizeof(a)) != 0);
    /* And not arrival order. */
    for (i = 0; i < 64 && a[i] == i; i++) {
        /* nothing */
    }
    g_assert_cmpuint(i, <, 64);

    /*
     * The generator is part of the interface: a seed must give the same
     * order on every host and build.  Pin one (computed independently
     * from the SplitMix64 definition and the multiply-shift reduction).
     */
    n = random_order(1, 8, a);
    ASSERT_ORDER(a, n, 4, 6, 7, 2, 1, 5, 3, 0);
}

/* Reseeding restarts the sequence, with commands arriving between picks. */
static void test_random_reseed(void)
{
    uint32_t run[2][32];
    unsigned r, i, n;
    Fixture f;

    fx_init(&f, ZR_POLICY_RANDOM, ZR_SPEC_PER_QUEUE_RR, 4, 1, 7);
    for (r = 0; r < 2; r++) {
        zr_dispatch_set_seed(&f.d, 99);
        n = 0;
        for (i = 0; i < 16; i++) {
            fx_submit(&f, i, i % 4);
            fx_submit(&f, 100 + i, (i + 1) % 4);
            run[r][n++] = fx_pick(&f);
        }
        n += fx_drain(&f, run[r] + n);
        g_assert_cmpuint(n, ==, 32);
        f.nr_cmds = 0;
    }
    g_assert_cmpmem(run[0], sizeof(run[0]), run[1], sizeof(run[1]));
    fx_cleanup(&f);
}

/* Uniform enough: the first of four pending is each one about 1/4. */
static void test_random_uniform(void)
{
    unsigned hist[4] = { }, t, i;
    Fixture f;

    fx_init(&f, ZR_POLICY_RANDOM, ZR_SPEC_LOWEST_SLOT, 1, 1, 12345);
    for (t = 0; t < 4000; t++) {
        uint32_t got[4];

        f.nr_cmds = 0;
        for (i = 0; i < 4; i++) {
            fx_submit(&f, i, 0);
        }
        fx_drain(&f, got);
        hist[got[0]]++;
    }
    for (i = 0; i < 4; i++) {
        g_assert_cmpuint(hist[i], >, 850);
        g_assert_cmpuint(hist[i], <, 1150);
    }
    fx_cleanup(&f);
}

/*
 * ------------------------------------------------------------------------
 * Run-time changes, cancel, flush, zones
 */

static void test_policy_switch(void)
{
    static const uint32_t tags[] = { 1, 2, 3, 4, 5, 6 };
    uint32_t got[8];
    unsigned n = 0;
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit_tags(&f, tags, 6);
    got[n++] = fx_pick(&f);
    got[n++] = fx_pick(&f);
    zr_dispatch_set_policy(&f.d, ZR_POLICY_REVERSE);
    got[n++] = fx_pick(&f);
    got[n++] = fx_pick(&f);
    zr_dispatch_set_policy(&f.d, ZR_POLICY_SPEC);
    n += fx_drain(&f, got + n);
    ASSERT_ORDER(got, n, 1, 2, 6, 5, 3, 4);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_NONE], ==, 2);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_REVERSE], ==, 2);
    g_assert_cmpuint(f.d.stats.decisions[ZR_POLICY_SPEC], ==, 2);
    g_assert_cmpuint(f.d.stats.starts, ==, 6);
    zr_dispatch_reset_stats(&f.d);
    g_assert_cmpuint(f.d.stats.starts, ==, 0);
    g_assert_cmpuint(f.d.queue_starts[0], ==, 0);
    fx_cleanup(&f);
}

static void test_cancel(void)
{
    ZrCmd *c1, *c2, *c3;
    uint32_t got[4];
    unsigned n;
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    c1 = fx_submit(&f, 1, 0);
    c2 = fx_submit(&f, 2, 0);
    c3 = fx_submit(&f, 3, 0);
    g_assert_true(zr_dispatch_cancel(&f.d, c2));
    g_assert_false(zr_dispatch_cancel(&f.d, c2));
    g_assert_cmpint(c2->state, ==, ZR_CMD_IDLE);
    g_assert_cmpuint(zr_dispatch_nr_pending(&f.d), ==, 2);
    g_assert_true(zr_dispatch_pick(&f.d) == c1);
    g_assert_false(zr_dispatch_cancel(&f.d, c1));     /* started */
    zr_dispatch_complete(&f.d, c1);
    n = fx_drain(&f, got);
    ASSERT_ORDER(got, n, 3);
    g_assert_cmpint(c3->state, ==, ZR_CMD_IDLE);
    g_assert_cmpuint(f.d.stats.cancelled, ==, 1);
    g_assert_cmpuint(f.d.stats.completed, ==, 2);
    /* A cancelled command may be submitted again, as a new arrival. */
    zr_dispatch_submit(&f.d, c2);
    g_assert_cmpuint(c2->seq, ==, 4);
    fx_cleanup(&f);
}

static void record_tag(ZrCmd *cmd, void *opaque)
{
    GArray *a = opaque;

    g_assert_cmpint(cmd->state, ==, ZR_CMD_IDLE);
    g_array_append_val(a, cmd->tag);
}

static void test_flush(void)
{
    GArray *a = g_array_new(false, false, sizeof(uint32_t));
    Fixture f;

    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit(&f, 9, 0);
    fx_submit(&f, 4, 0);
    fx_submit(&f, 6, 0);
    g_assert_nonnull(zr_dispatch_pick(&f.d));         /* 4 in flight */
    zr_dispatch_flush(&f.d, record_tag, a);
    assert_order((uint32_t *)a->data, a->len,
                 (const uint32_t[]){ 9, 6, 4 }, 3);
    g_assert_cmpuint(zr_dispatch_nr_pending(&f.d), ==, 0);
    g_assert_cmpuint(zr_dispatch_nr_in_flight(&f.d), ==, 0);
    g_assert_cmpuint(f.d.stats.flushed, ==, 3);
    g_assert_null(zr_dispatch_pick(&f.d));
    g_array_free(a, true);
    fx_cleanup(&f);
}

static void test_zone_overlap(void)
{
    ZrCmd *c[5];
    unsigned i;
    Fixture f;

    fx_init(&f, ZR_POLICY_NONE, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    c[0] = fx_submit_op(&f, 1, 0, ZR_OP_WRITE, 0);
    c[1] = fx_submit_op(&f, 2, 0, ZR_OP_WRITE, 4);
    c[2] = fx_submit_op(&f, 3, 0, ZR_OP_READ, 8);
    c[3] = fx_submit_op(&f, 4, 0, ZR_OP_WRITE, 16);
    c[4] = fx_submit_op(&f, 5, 0, ZR_OP_APPEND, 0);
    for (i = 0; i < 5; i++) {
        g_assert_true(zr_dispatch_pick(&f.d) == c[i]);
    }
    g_assert_cmpuint(f.d.stats.zone_write_overlaps, ==, 2);
    g_assert_cmpuint(f.d.stats.zone_writes_in_flight_max, ==, 3);
    g_assert_cmpuint(zr_dispatch_zone_writes_in_flight(&f.d, 15), ==, 3);
    g_assert_cmpuint(zr_dispatch_zone_writes_in_flight(&f.d, 16), ==, 1);
    g_assert_cmpuint(zr_dispatch_nr_in_flight(&f.d), ==, 5);
    zr_dispatch_complete(&f.d, c[0]);
    g_assert_cmpuint(zr_dispatch_zone_writes_in_flight(&f.d, 0), ==, 2);
    /* Serialised writes (zone write locking) never overlap. */
    zr_dispatch_complete(&f.d, c[1]);
    zr_dispatch_complete(&f.d, c[4]);
    fx_submit_op(&f, 6, 0, ZR_OP_WRITE, 1);
    zr_dispatch_complete(&f.d, zr_dispatch_pick(&f.d));
    fx_submit_op(&f, 7, 0, ZR_OP_WRITE, 2);
    zr_dispatch_pick(&f.d);
    g_assert_cmpuint(f.d.stats.zone_write_overlaps, ==, 2);

    /*
     * A zone size set later (a device learns it from its LUs): 32 blocks
     * put the writes in flight at 2 and at 16 in one zone; 0 switches the
     * accounting off; a size that is not a power of two is refused.
     */
    g_assert_cmpuint(zr_dispatch_zone_writes_in_flight(&f.d, 0), ==, 1);
    g_assert_true(zr_dispatch_set_zone_size(&f.d, 32, &error_abort));
    g_assert_cmpuint(zr_dispatch_zone_writes_in_flight(&f.d, 0), ==, 2);
    /* A write the device leaves out (an LU with no zones) is not counted */
    {
        ZrCmd *u = fx_submit_op(&f, 9, 0, ZR_OP_WRITE, 5);

        u->zone_untracked = true;
        g_assert_true(zr_dispatch_pick(&f.d) == u);
        g_assert_cmpuint(zr_dispatch_zone_writes_in_flight(&f.d, 0), ==, 2);
        g_assert_cmpuint(f.d.stats.zone_write_overlaps, ==, 2);
    }
    g_assert_true(zr_dispatch_set_zone_size(&f.d, 0, &error_abort));
    fx_submit_op(&f, 8, 0, ZR_OP_WRITE, 3);
    zr_dispatch_pick(&f.d);
    g_assert_cmpuint(f.d.stats.zone_write_overlaps, ==, 2);
    {
        Error *err = NULL;

        g_assert_false(zr_dispatch_set_zone_size(&f.d, 24, &err));
        g_assert_nonnull(strstr(error_get_pretty(err), "power of two"));
        error_free(err);
        g_assert_cmpuint(f.d.cfg.zone_size, ==, 0);
    }
    fx_cleanup(&f);
}

static void test_pick_batch(void)
{
    static const uint32_t tags[] = { 8, 6, 4, 2, 0 };
    ZrCmd *out[8];
    Fixture f;

    fx_init(&f, ZR_POLICY_SPEC, ZR_SPEC_LOWEST_SLOT, 1, 1, 0);
    fx_submit_tags(&f, tags, 5);
    g_assert_cmpuint(zr_dispatch_pick_batch(&f.d, out, 3), ==, 3);
    g_assert_cmpuint(out[0]->tag, ==, 0);
    g_assert_cmpuint(out[1]->tag, ==, 2);
    g_assert_cmpuint(out[2]->tag, ==, 4);
    g_assert_cmpuint(zr_dispatch_nr_pending(&f.d), ==, 2);
    g_assert_cmpuint(zr_dispatch_pick_batch(&f.d, out, 8), ==, 2);
    g_assert_cmpuint(zr_dispatch_nr_in_flight(&f.d), ==, 5);
    g_assert_cmpuint(f.d.stats.pending_max, ==, 5);
    fx_cleanup(&f);
}

/*
 * ------------------------------------------------------------------------
 * Names and configuration
 */

static void test_policy_names(void)
{
    static const char *const names[] = {
        "none", "spec", "rr", "random", "reverse",
    };
    g_autofree char *all = zr_policy_names();
    Error *err = NULL;
    ZrPolicy p;
    int i;

    g_assert_cmpint(ZrPolicy_lookup.size, ==, ZR_POLICY__MAX);
    for (i = 0; i < ZR_POLICY__MAX; i++) {
        g_assert_cmpstr(zr_policy_name(i), ==, names[i]);
        g_assert_cmpstr(ZrPolicy_lookup.array[i], ==, names[i]);
        g_assert_true(zr_policy_parse(names[i], &p, &error_abort));
        g_assert_cmpint(p, ==, i);
        g_assert_cmpint(qapi_enum_parse(&ZrPolicy_lookup, names[i], -1,
                                        &error_abort), ==, i);
    }
    g_assert_cmpstr(all, ==, "none, spec, rr, random, reverse");
    g_assert_false(zr_policy_parse("fifo", &p, &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "invalid reorder policy 'fifo'; valid policies are: "
                    "none, spec, rr, random, reverse");
    error_free(err);
    err = NULL;
    g_assert_false(zr_policy_parse("RR", &p, &err));
    error_free(err);
    g_assert_cmpstr(zr_policy_name(ZR_POLICY__MAX), ==, "invalid");
    g_assert_cmpstr(zr_op_name(ZR_OP_APPEND), ==, "append");
}

static void test_config_errors(void)
{
    ZrDispatchConfig cfg = { .nr_queues = 0 };
    Error *err = NULL;
    ZrDispatch d;

    g_assert_false(zr_dispatch_init(&d, &cfg, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "at least one queue"));
    error_free(err);
    err = NULL;

    cfg.nr_queues = 1;
    cfg.zone_size = 12;
    g_assert_false(zr_dispatch_init(&d, &cfg, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "power of two"));
    error_free(err);
    err = NULL;

    cfg.zone_size = 0;
    cfg.policy = ZR_POLICY__MAX;
    g_assert_false(zr_dispatch_init(&d, &cfg, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "policy"));
    error_free(err);

    /* Burst 0 means 1. */
    cfg.policy = ZR_POLICY_RR;
    g_assert_true(zr_dispatch_init(&d, &cfg, &error_abort));
    g_assert_cmpuint(d.cfg.rr_burst, ==, 1);
    g_assert_cmpuint(d.cfg.spec_burst, ==, 1);
    zr_dispatch_cleanup(&d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/zoned-reorder/dispatch/none", test_none);
    g_test_add_func("/zoned-reorder/dispatch/spec/lowest-slot",
                    test_spec_lowest_slot);
    g_test_add_func("/zoned-reorder/dispatch/spec/per-queue-rr",
                    test_spec_per_queue_rr);
    g_test_add_func("/zoned-reorder/dispatch/spec/wrr", test_spec_wrr);
    g_test_add_func("/zoned-reorder/dispatch/rr/slots", test_rr_slots);
    g_test_add_func("/zoned-reorder/dispatch/rr/queues", test_rr_queues);
    g_test_add_func("/zoned-reorder/dispatch/random", test_random);
    g_test_add_func("/zoned-reorder/dispatch/random/reseed",
                    test_random_reseed);
    g_test_add_func("/zoned-reorder/dispatch/random/uniform",
                    test_random_uniform);
    g_test_add_func("/zoned-reorder/dispatch/reverse", test_reverse);
    g_test_add_func("/zoned-reorder/dispatch/policy-switch",
                    test_policy_switch);
    g_test_add_func("/zoned-reorder/dispatch/cancel", test_cancel);
    g_test_add_func("/zoned-reorder/dispatch/flush", test_flush);
    g_test_add_func("/zoned-reorder/dispatch/zone-overlap",
                    test_zone_overlap);
    g_test_add_func("/zoned-reorder/dispatch/pick-batch", test_pick_batch);
    g_test_add_func("/zoned-reorder/dispatch/policy-names",
                    test_policy_names);
    g_test_add_func("/zoned-reorder/dispatch/config-errors",
                    test_config_errors);
    return g_test_run();
}
