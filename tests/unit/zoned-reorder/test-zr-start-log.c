/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the start log (include/hw/block/zoned-reorder/start-log.h):
 * the last ZR_START_LOG_LEN entries oldest first across the ring's wrap,
 * clearing, the layout a save needs at every head position, and a loaded
 * count that does not fit.
 */

#include "qemu/osdep.h"
#include "hw/block/zoned-reorder/start-log.h"

/* @l holds the entries first..first + len - 1, oldest first */
static void assert_run(const ZrStartLog *l, uint32_t first, uint32_t len)
{
    uint32_t i;

    g_assert_cmpuint(zr_start_log_len(l), ==, len);
    for (i = 0; i < len; i++) {
        g_assert_cmpuint(zr_start_log_get(l, i), ==, first + i);
    }
}

static void test_wrap(void)
{
    ZrStartLog l = { 0 };
    uint32_t i;

    for (i = 0; i < 10; i++) {
        zr_start_log_add(&l, 100 + i);
    }
    assert_run(&l, 100, 10);
    for (; i < 3 * ZR_START_LOG_LEN + 5; i++) {
        zr_start_log_add(&l, 100 + i);
        assert_run(&l, 100 + i + 1 - MIN(i + 1, ZR_START_LOG_LEN),
                   MIN(i + 1, ZR_START_LOG_LEN));
    }
    zr_start_log_clear(&l);
    assert_run(&l, 0, 0);
    zr_start_log_add(&l, 7);
    assert_run(&l, 7, 1);
}

/* A save at every head position lays the entries out oldest first */
static void test_linearize(void)
{
    uint32_t head, i;

    for (head = 0; head < ZR_START_LOG_LEN; head++) {
        ZrStartLog l = { 0 };

        for (i = 0; i < ZR_START_LOG_LEN + head; i++) {
            zr_start_log_add(&l, i);
        }
        g_assert_cmpuint(l.head, ==, head);
        zr_start_log_linearize(&l);
        g_assert_cmpuint(l.head, ==, 0);
        g_assert_cmpuint(l.n, ==, ZR_START_LOG_LEN);
        for (i = 0; i < ZR_START_LOG_LEN; i++) {
            g_assert_cmpuint(l.entry[i], ==, head + i);
        }
        /* and a load of that layout reads the same */
        l.head = 5;
        g_assert_true(zr_start_log_loaded(&l));
        assert_run(&l, head, ZR_START_LOG_LEN);
    }
}

/* A short log saves as it is: nothing moves while head is 0 */
static void test_linearize_short(void)
{
    ZrStartLog l = { 0 };

    zr_start_log_add(&l, 1);
    zr_start_log_add(&l, 2);
    zr_start_log_linearize(&l);
    g_assert_cmpuint(l.entry[0], ==, 1);
    g_assert_cmpuint(l.entry[1], ==, 2);
    assert_run(&l, 1, 2);
}

/* A saved count that does not fit is refused and leaves an empty log */
static void test_loaded_bad(void)
{
    static const uint32_t counts[] = {
        ZR_START_LOG_LEN + 1, 1000, UINT32_MAX,
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(counts); i++) {
        ZrStartLog l = { .n = counts[i], .head = 3 };

        g_assert_cmpuint(zr_start_log_len(&l), ==, ZR_START_LOG_LEN);
        g_assert_false(zr_start_log_loaded(&l));
        assert_run(&l, 0, 0);
        zr_start_log_add(&l, 9);
        assert_run(&l, 9, 1);
    }
    {
        ZrStartLog l = { .n = ZR_START_LOG_LEN, .head = 3 };

        g_assert_true(zr_start_log_loaded(&l));
        g_assert_cmpuint(l.head, ==, 0);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/zr-start-log/wrap", test_wrap);
    g_test_add_func("/zr-start-log/linearize", test_linearize);
    g_test_add_func("/zr-start-log/linearize-short", test_linearize_short);
    g_test_add_func("/zr-start-log/loaded-bad", test_loaded_bad);
    return g_test_run();
}
