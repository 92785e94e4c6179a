/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the zoned-reorder zone model (hw/block/zoned-reorder/zone*.c):
 * every condition transition for both flavours (table-driven), resource
 * limits and implicit close, capacity < size, conventional zones, the
 * smaller last zone, geometry errors, append, read checks, what a read
 * racing writes returns, reports and saved-state restore.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/bitmap.h"
#include "hw/block/zoned-reorder/zone.h"

#define ZS 16           /* zone size in blocks */
#define NZ 8            /* zones */

/* Recompute the accounting from the zone array and compare. */
static void check_accounting(const ZrZoneModel *m)
{
    uint32_t imp = 0, exp = 0, closed = 0, i;

    for (i = 0; i < m->nr_zones; i++) {
        const ZrZone *z = &m->zones[i];

        switch (z->cond) {
        case ZR_COND_IMP_OPEN:
            imp++;
            g_assert_cmpuint(m->imp_open[m->imp_pos[i]], ==, i);
            break;
        case ZR_COND_EXP_OPEN:
            exp++;
            break;
        case ZR_COND_CLOSED:
            closed++;
            break;
        default:
            break;
        }
        if (z->type == ZR_ZONE_TYPE_SEQ_WRITE_REQUIRED) {
            g_assert_cmpuint(z->wp, >=, z->start);
            g_assert_cmpuint(z->wp, <=, z->start + z->cap);
        }
    }
    g_assert_cmpuint(m->nr_imp_open, ==, imp);
    g_assert_cmpuint(m->nr_exp_open, ==, exp);
    g_assert_cmpuint(m->nr_closed, ==, closed);
    if (m->cfg.max_open) {
        g_assert_cmpuint(imp + exp, <=, m->cfg.max_open);
    }
    if (m->cfg.max_active) {
        g_assert_cmpuint(imp + exp + closed, <=, m->cfg.max_active);
    }
}

static void model_init(ZrZoneModel *m, ZrZoneFlavour flavour, uint32_t nr_conv,
                       uint32_t max_open, uint32_t max_active)
{
    ZrZoneConfig cfg = {
        .nr_blocks = ZS * NZ,
        .zone_size = ZS,
        .nr_conv = nr_conv,
        .max_open = max_open,
        .max_active = max_active,
        .flavour = flavour,
    };

    g_assert_true(zr_zone_model_init(m, &cfg, &error_abort));
    check_accounting(m);
}

static uint64_t zstart(uint32_t i)
{
    return (uint64_t)i * ZS;
}

static ZrZoneCond cond_of(ZrZoneModel *m, uint32_t i)
{
    return m->zones[i].cond;
}

/*
 * ------------------------------------------------------------------------
 * The state machine table
 */

typedef enum {
    FROM_EMPTY,
    FROM_IMP_OPEN,          /* 4 blocks written */
    FROM_EXP_OPEN,          /* opened, nothing written */
    FROM_EXP_OPEN_DATA,     /* 4 blocks written, then opened */
    FROM_CLOSED,            /* 4 blocks written, then closed */
    FROM_FULL,
    FROM_READ_ONLY,
    FROM_OFFLINE,
} From;

typedef enum { OP_WRITE, OP_OPEN, OP_CLOSE, OP_FINISH, OP_RESET } Op;

typedef struct Outcome {
    ZrResult res;
    ZrZoneCond cond;
} Outcome;

typedef struct Transition {
    From from;
    Op op;
    Outcome want[2];        /* [ZR_FLAVOUR_ZBC], [ZR_FLAVOUR_ZNS] */
    int64_t wp_off;         /* write pointer after, from zone start */
} Transition;

#define SAME(res, cond) { { res, cond }, { res, cond } }
#define ZBC_ZNS(zbc_res, zbc_cond, zns_res, zns_cond) \
    { { zbc_res, zbc_cond }, { zns_res, zns_cond } }

static const Transition transitions[] = {
    /* ZC1:Empty / ZSE */
    { FROM_EMPTY, OP_WRITE, SAME(ZR_OK, ZR_COND_IMP_OPEN), 4 },
    { FROM_EMPTY, OP_OPEN, SAME(ZR_OK, ZR_COND_EXP_OPEN), 0 },
    { FROM_EMPTY, OP_CLOSE,
      ZBC_ZNS(ZR_OK, ZR_COND_EMPTY,
              ZR_ERR_INVALID_TRANSITION, ZR_COND_EMPTY), 0 },
    { FROM_EMPTY, OP_FINISH, SAME(ZR_OK, ZR_COND_FULL), ZS },
    { FROM_EMPTY, OP_RESET, SAME(ZR_OK, ZR_COND_EMPTY), 0 },
    /* ZC2:Implicit_Open / ZSIO */
    { FROM_IMP_OPEN, OP_WRITE, SAME(ZR_OK, ZR_COND_IMP_OPEN), 8 },
    { FROM_IMP_OPEN, OP_OPEN, SAME(ZR_OK, ZR_COND_EXP_OPEN), 4 },
    { FROM_IMP_OPEN, OP_CLOSE, SAME(ZR_OK, ZR_COND_CLOSED), 4 },
    { FROM_IMP_OPEN, OP_FINISH, SAME(ZR_OK, ZR_COND_FULL), ZS },
    { FROM_IMP_OPEN, OP_RESET, SAME(ZR_OK, ZR_COND_EMPTY), 0 },
    /* ZC3:Explicit_Open / ZSEO, write pointer at the zone start */
    { FROM_EXP_OPEN, OP_WRITE, SAME(ZR_OK, ZR_COND_EXP_OPEN), 4 },
    { FROM_EXP_OPEN, OP_OPEN, SAME(ZR_OK, ZR_COND_EXP_OPEN), 0 },
    { FROM_EXP_OPEN, OP_CLOSE,
      ZBC_ZNS(ZR_OK, ZR_COND_EMPTY, ZR_OK, ZR_COND_CLOSED), 0 },
    { FROM_EXP_OPEN, OP_FINISH, SAME(ZR_OK, ZR_COND_FULL), ZS },
    { FROM_EXP_OPEN, OP_RESET, SAME(ZR_OK, ZR_COND_EMPTY), 0 },
    /* ZC3:Explicit_Open / ZSEO, written */
    { FROM_EXP_OPEN_DATA, OP_WRITE, SAME(ZR_OK, ZR_COND_EXP_OPEN), 8 },
    { FROM_EXP_OPEN_DATA, OP_OPEN, SAME(ZR_OK, ZR_COND_EXP_OPEN), 4 },
    { FROM_EXP_OPEN_DATA, OP_CLOSE, SAME(ZR_OK, ZR_COND_CLOSED), 4 },
    { FROM_EXP_OPEN_DATA, OP_FINISH, SAME(ZR_OK, ZR_COND_FULL), ZS },
    { FROM_EXP_OPEN_DATA, OP_RESET, SAME(ZR_OK, ZR_COND_EMPTY), 0 },
    /* ZC4:Closed / ZSC */
    { FROM_CLOSED, OP_WRITE, SAME(ZR_OK, ZR_COND_IMP_OPEN), 8 },
    { FROM_CLOSED, OP_OPEN, SAME(ZR_OK, ZR_COND_EXP_OPEN), 4 },
    { FROM_CLOSED, OP_CLOSE, SAME(ZR_OK, ZR_COND_CLOSED), 4 },
    { FROM_CLOSED, OP_FINISH, SAME(ZR_OK, ZR_COND_FULL), ZS },
    { FROM_CLOSED, OP_RESET, SAME(ZR_OK, ZR_COND_EMPTY), 0 },
    /* ZC5:Full / ZSF */
    { FROM_FULL, OP_WRITE, SAME(ZR_ERR_ZONE_FULL, ZR_COND_FULL), ZS },
    { FROM_FULL, OP_OPEN,
      ZBC_ZNS(ZR_OK, ZR_COND_FULL,
              ZR_ERR_INVALID_TRANSITION, ZR_COND_FULL), ZS },
    { FROM_FULL, OP_CLOSE,
      ZBC_ZNS(ZR_OK, ZR_COND_FULL,
              ZR_ERR_INVALID_TRANSITION, ZR_COND_FULL), ZS },
    { FROM_FULL, OP_FINISH, SAME(ZR_OK, ZR_COND_FULL), ZS },
    { FROM_FULL, OP_RESET, SAME(ZR_OK, ZR_COND_EMPTY), 0 },
    /* ZC6:Read_Only / ZSRO (made read only when 4 blocks were written) */
    { FROM_READ_ONLY, OP_WRITE, SAME(ZR_ERR_READ_ONLY, ZR_COND_READ_ONLY), 4 },
    { FROM_READ_ONLY, OP_OPEN, SAME(ZR_ERR_READ_ONLY, ZR_COND_READ_ONLY), 4 },
    { FROM_READ_ONLY, OP_CLOSE, SAME(ZR_ERR_READ_ONLY, ZR_COND_READ_ONLY), 4 },
    { FROM_READ_ONLY, OP_FINISH, SAME(ZR_ERR_READ_ONLY, ZR_COND_READ_ONLY),
      4 },
    { FROM_READ_ONLY, OP_RESET, SAME(ZR_ERR_READ_ONLY, ZR_COND_READ_ONLY), 4 },
    /* ZC7:Offline / ZSO */
    { FROM_OFFLINE, OP_WRITE, SAME(ZR_ERR_OFFLINE, ZR_COND_OFFLINE), 4 },
    { FROM_OFFLINE, OP_OPEN, SAME(ZR_ERR_OFFLINE, ZR_COND_OFFLINE), 4 },
    { FROM_OFFLINE, OP_CLOSE, SAME(ZR_ERR_OFFLINE, ZR_COND_OFFLINE), 4 },
    { FROM_OFFLINE, OP_FINISH, SAME(ZR_ERR_OFFLINE, ZR_COND_OFFLINE), 4 },
    { FROM_OFFLINE, OP_RESET, SAME(ZR_ERR_OFFLINE, ZR_COND_OFFLINE), 4 },
};

/* Bring zone @i into the condition @from names. */
static void setup_from(ZrZoneModel *m, uint32_t i, From from)
{
    uint64_t s = zstart(i);

    switch (from) {
    case FROM_EMPTY:
        break;
    case FROM_IMP_OPEN:
        g_assert_cmpint(zr_zone_write(m, s, 4), ==, ZR_OK);
        break;
    case FROM_EXP_OPEN:
        g_assert_cmpint(zr_zone_open(m, s), ==, ZR_OK);
        break;
    case FROM_EXP_OPEN_DATA:
        g_assert_cmpint(zr_zone_write(m, s, 4), ==, ZR_OK);
        g_assert_cmpint(zr_zone_open(m, s), ==, ZR_OK);
        break;
    case FROM_CLOSED:
        g_assert_cmpint(zr_zone_write(m, s, 4), ==, ZR_OK);
        g_assert_cmpint(zr_zone_close(m, s), ==, ZR_OK);
        break;
    case FROM_FULL:
        g_assert_cmpint(zr_zone_write(m, s, ZS), ==, ZR_OK);
        break;
    case FROM_READ_ONLY:
        g_assert_cmpint(zr_zone_write(m, s, 4), ==, ZR_OK);
        g_assert_cmpint(zr_zone_set_read_only(m, s), ==, ZR_OK);
        break;
    case FROM_OFFLINE:
        g_assert_cmpint(zr_zone_write(m, s, 4), ==, ZR_OK);
        g_assert_cmpint(zr_zone_set_offline(m, s), ==, ZR_OK);
        break;
    }
    check_accounting(m);
}

static ZrResult apply_op(ZrZoneModel *m, uint32_t i, Op op)
{
    uint64_t s = zstart(i);

    switch (op) {
    case OP_WRITE:
        /* At the write pointer; a FULL zone's points past it. */
        return zr_zone_write(m, m->zones[i].cond == ZR_COND_FULL ?
                             s : m->zones[i].wp, 4);
    case OP_OPEN:
        return zr_zone_open(m, s);
    case OP_CLOSE:
        return zr_zone_close(m, s);
    case OP_FINISH:
        return zr_zone_finish(m, s);
    case OP_RESET:
        return zr_zone_reset(m, s);
    }
    g_assert_not_reached();
}

static const ZrZoneCond from_cond[] = {
    [FROM_EMPTY] = ZR_COND_EMPTY,
    [FROM_IMP_OPEN] = ZR_COND_IMP_OPEN,
    [FROM_EXP_OPEN] = ZR_COND_EXP_OPEN,
    [FROM_EXP_OPEN_DATA] = ZR_COND_EXP_OPEN,
    [FROM_CLOSED] = ZR_COND_CLOSED,
    [FROM_FULL] = ZR_COND_FULL,
    [FROM_READ_ONLY] = ZR_COND_READ_ONLY,
    [FROM_OFFLINE] = ZR_COND_OFFLINE,
};

static void run_transitions(ZrZoneFlavour flavour)
{
    size_t t;
    /* Every (condition, operation) pair of the table is present. */
    bool seen[FROM_OFFLINE + 1][OP_RESET + 1] = { };

    for (t = 0; t < ARRAY_SIZE(transitions); t++) {
        const Transition *tr = &transitions[t];
        ZrResult want_res = tr->want[flavour].res;
        ZrZoneCond want_cond = tr->want[flavour].cond;
        ZrZoneModel m;
        uint32_t zi = 3;
        ZrResult res;

        model_init(&m, flavour, 0, 0, 0);
        setup_from(&m, zi, tr->from);
        g_assert_cmpint(cond_of(&m, zi), ==, from_cond[tr->from]);

        res = apply_op(&m, zi, tr->op);
        if (res != want_res || cond_of(&m, zi) != want_cond) {
            g_test_message("row %zu: from %d op %d: got %s/%s want %s/%s",
                           t, tr->from, tr->op, zr_result_name(res),
                           zr_zone_cond_name(cond_of(&m, zi)),
                           zr_result_name(want_res),
                           zr_zone_cond_name(want_cond));
        }
        g_assert_cmpint(res, ==, want_res);
        g_assert_cmpint(cond_of(&m, zi), ==, want_cond);
        g_assert_cmpuint(m.zones[zi].wp, ==, zstart(zi) + tr->wp_off);
        if (res != ZR_OK) {
            g_assert_cmpuint(m.stats.errors[res], ==, 1);
        }
        check_accounting(&m);
        /* Neighbours are untouched. */
        g_assert_cmpint(cond_of(&m, zi - 1), ==, ZR_COND_EMPTY);
        g_assert_cmpint(cond_of(&m, zi + 1), ==, ZR_COND_EMPTY);
        seen[tr->from][tr->op] = true;
        zr_zone_model_cleanup(&m);
    }
    for (t = 0; t <= FROM_OFFLINE; t++) {
        int op;

        for (op = 0; op <= OP_RESET; op++) {
            g_assert_true(seen[t][op]);
        }
    }
}

static void test_transitions_zbc(void)
{
    run_transitions(ZR_FLAVOUR_ZBC);
}

static void test_transitions_zns(void)
{
    run_transitions(ZR_FLAVOUR_ZNS);
}

/* A write that fills the zone goes EMPTY -> IMPLICIT OPEN -> FULL. */
static void test_write_to_full(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 2, 2);
    g_assert_cmpint(zr_zone_write(&m, 0, 10), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(zr_zone_write(&m, 10, 6), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_FULL);
    g_assert_cmpuint(zr_zone_nr_active(&m), ==, 0);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), ZS), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
    g_assert_cmpuint(m.stats.implicit_opens, ==, 2);
    g_assert_cmpuint(m.stats.writes, ==, 3);
    g_assert_cmpuint(m.stats.blocks_written, ==, 32);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * ------------------------------------------------------------------------
 * Write checks
 */

static void test_write_errors(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZBC, 1, 0, 0);
    /* Not at the write pointer. */
    g_assert_cmpint(zr_zone_write(&m, zstart(1) + 1, 1), ==,
                    ZR_ERR_UNALIGNED_WRITE);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 4), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 4), ==,
                    ZR_ERR_UNALIGNED_WRITE);
    g_assert_cmpint(zr_zone_write(&m, zstart(1) + 8, 4), ==,
                    ZR_ERR_UNALIGNED_WRITE);
    g_assert_cmpuint(m.stats.errors[ZR_ERR_UNALIGNED_WRITE], ==, 3);
    /* Crossing into the next zone from the write pointer. */
    g_assert_cmpint(zr_zone_write(&m, zstart(1) + 4, ZS), ==,
                    ZR_ERR_BOUNDARY);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1) + 4);
    /* Beyond the device. */
    g_assert_cmpint(zr_zone_write(&m, ZS * NZ, 1), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    g_assert_cmpint(zr_zone_write(&m, ZS * NZ - 1, 2), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    g_assert_cmpint(zr_zone_write(&m, UINT64_MAX, 2), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    /* Zero length: nothing written, nothing changes, not an error. */
    g_assert_cmpint(zr_zone_write(&m, zstart(2) + 3, 0), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_EMPTY);
    /* The check alone changes nothing. */
    g_assert_cmpint(zr_zone_write_check(&m, zstart(2), 4), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_EMPTY);
    g_assert_cmpint(zr_zone_write_check(&m, zstart(2) + 1, 4), ==,
                    ZR_ERR_UNALIGNED_WRITE);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * Which problem is reported first when a write has several.  ZBC: gap,
 * then boundary, then condition, then write pointer (libzbc conformance
 * tests 01.090/092/093, scsi_debug, tcmu-runner); ZNS: condition, gap,
 * write pointer, boundary (QEMU's NVMe model).  Zone 1 has capacity 12 of
 * 16 blocks; each case is run on a fresh model.
 */
typedef struct OrderCase {
    const char *what;
    bool fill;              /* zone 1 FULL before the write (else wp + 4) */
    bool offline;           /* zone 1 OFFLINE before the write */
    uint64_t lba;           /* offset in zone 1 */
    uint64_t len;
    ZrResult zbc, zns;
} OrderCase;

static const OrderCase order_cases[] = {
    { "below wp, crossing the capacity", false, false, 0, 14,
      ZR_ERR_BOUNDARY, ZR_ERR_UNALIGNED_WRITE },
    { "above wp, crossing the capacity", false, false, 8, 6,
      ZR_ERR_BOUNDARY, ZR_ERR_UNALIGNED_WRITE },
    { "full, crossing into the next zone", true, false, 11, 6,
      ZR_ERR_BOUNDARY, ZR_ERR_ZONE_FULL },
    { "full, inside the zone", true, false, 0, 1,
      ZR_ERR_ZONE_FULL, ZR_ERR_ZONE_FULL },
    { "full, in the gap", true, false, 12, 1,
      ZR_ERR_GAP, ZR_ERR_ZONE_FULL },
    { "offline, in the gap", false, true, 13, 1,
      ZR_ERR_GAP, ZR_ERR_OFFLINE },
    { "offline, crossing the capacity", false, true, 4, 10,
      ZR_ERR_BOUNDARY, ZR_ERR_OFFLINE },
    { "below wp, in the zone", false, false, 0, 2,
      ZR_ERR_UNALIGNED_WRITE, ZR_ERR_UNALIGNED_WRITE },
    { "at wp, exactly to the capacity", false, false, 4, 8,
      ZR_OK, ZR_OK },
};

static void test_write_check_order(gconstpointer opaque)
{
    ZrZoneFlavour flavour = GPOINTER_TO_INT(opaque);
    size_t i;

    for (i = 0; i < ARRAY_SIZE(order_cases); i++) {
        const OrderCase *c = &order_cases[i];
        ZrZoneConfig cfg = {
            .nr_blocks = ZS * NZ, .zone_size = ZS, .zone_cap = 12,
            .flavour = flavour,
        };
        ZrResult want = flavour == ZR_FLAVOUR_ZBC ? c->zbc : c->zns;
        ZrZoneModel m;
        uint64_t wp;

        g_assert_true(zr_zone_model_init(&m, &cfg, &error_abort));
        if (c->fill) {
            g_assert_cmpint(zr_zone_finish(&m, zstart(1)), ==, ZR_OK);
        } else {
            g_assert_cmpint(zr_zone_write(&m, zstart(1), 4), ==, ZR_OK);
        }
        if (c->offline) {
            g_assert_cmpint(zr_zone_set_offline(&m, zstart(1)), ==, ZR_OK);
        }
        wp = m.zones[1].wp;
        if (g_test_verbose()) {
            g_test_message("%s", c->what);
        }
        g_assert_cmpint(zr_zone_write_check(&m, zstart(1) + c->lba, c->len),
                        ==, want);
        g_assert_cmpint(zr_zone_write(&m, zstart(1) + c->lba, c->len), ==,
                        want);
        if (want != ZR_OK) {
            g_assert_cmpuint(m.zones[1].wp, ==, wp);
            g_assert_cmpuint(m.stats.errors[want], ==, 1);
        } else {
            g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
        }
        check_accounting(&m);
        zr_zone_model_cleanup(&m);
    }
}

/*
 * ------------------------------------------------------------------------
 * Open and active resources
 */

/* Implicit close takes the least recently used implicitly open zone. */
static void test_max_open_implicit_close(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 2, 0);
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_IMP_OPEN);
    check_accounting(&m);

    /* Writing zone 1 again makes zone 2 the least recently used. */
    g_assert_cmpint(zr_zone_write(&m, zstart(1) + 1, 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(3), 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_IMP_OPEN);

    /* A closed zone written again is reopened, evicting zone 1. */
    g_assert_cmpint(zr_zone_write(&m, zstart(0) + 1, 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_CLOSED);
    g_assert_cmpuint(m.stats.implicit_closes, ==, 3);
    g_assert_cmpuint(zr_zone_nr_open(&m), ==, 2);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/* Explicitly open zones are never closed behind the host's back. */
static void test_max_open_explicit(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 2, 0);
    g_assert_cmpint(zr_zone_open(&m, zstart(0)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==,
                    ZR_ERR_NO_OPEN_RESOURCE);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==, ZR_ERR_NO_OPEN_RESOURCE);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_EMPTY);
    /* Writes to the open zones are fine. */
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_EXP_OPEN);
    g_assert_cmpuint(m.stats.errors[ZR_ERR_NO_OPEN_RESOURCE], ==, 2);

    /* An explicit open may evict an implicitly open zone. */
    g_assert_cmpint(zr_zone_close(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_EMPTY);     /* ZBC: wp=start */
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_EXP_OPEN);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_EXP_OPEN);
    g_assert_cmpuint(m.stats.implicit_closes, ==, 1);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

static void test_max_active(void)
{
    ZrZoneModel m;

    /* ZNS: two active zones, one open. */
    model_init(&m, ZR_FLAVOUR_ZNS, 0, 1, 2);
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpuint(zr_zone_nr_active(&m), ==, 2);
    /* A third zone would need an active resource: closing cannot help. */
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==,
                    ZR_ERR_NO_ACTIVE_RESOURCE);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==,
                    ZR_ERR_NO_ACTIVE_RESOURCE);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_IMP_OPEN);
    /* A closed zone only needs an open resource: zone 1 is closed. */
    g_assert_cmpint(zr_zone_write(&m, zstart(0) + 1, 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_CLOSED);
    /* Finishing one gives its active resource back. */
    g_assert_cmpint(zr_zone_finish(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    /* Reset gives it back too. */
    g_assert_cmpint(zr_zone_write(&m, zstart(3), 1), ==,
                    ZR_ERR_NO_ACTIVE_RESOURCE);
    g_assert_cmpint(zr_zone_reset(&m, zstart(0)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(3), 1), ==, ZR_OK);
    g_assert_cmpuint(m.stats.errors[ZR_ERR_NO_ACTIVE_RESOURCE], ==, 3);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/* ZBC-2 single-zone FINISH of an EMPTY/CLOSED zone needs resources. */
static void test_finish_resources(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 1, 0);
    g_assert_cmpint(zr_zone_open(&m, zstart(0)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(1)), ==,
                    ZR_ERR_NO_OPEN_RESOURCE);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_EMPTY);
    zr_zone_model_cleanup(&m);

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 1, 0);
    g_assert_cmpint(zr_zone_open(&m, zstart(0)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * ------------------------------------------------------------------------
 * "All" operations
 */

static void test_all_ops(void)
{
    ZrZoneModel m;
    uint32_t i;

    model_init(&m, ZR_FLAVOUR_ZBC, 1, 3, 0);
    /* zone 1 imp, 2 exp (empty), 3 closed, 4 full, 5 read only, 6 empty */
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 2), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(3), 2), ==, ZR_OK);
    g_assert_cmpint(zr_zone_close(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(5)), ==, ZR_OK);

    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_CLOSE, 0, true), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_NOT_WP);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_EMPTY);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 4), ==, ZR_COND_FULL);
    g_assert_cmpint(cond_of(&m, 5), ==, ZR_COND_READ_ONLY);
    check_accounting(&m);

    /* Open all opens exactly the CLOSED zones. */
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_OPEN, 0, true), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_EXP_OPEN);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_EMPTY);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_EXP_OPEN);
    check_accounting(&m);

    /* Finish all: open and closed zones become FULL, EMPTY ones stay. */
    g_assert_cmpint(zr_zone_write(&m, zstart(6), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_close(&m, zstart(6)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_FINISH, 0, true), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_EMPTY);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_FULL);
    g_assert_cmpint(cond_of(&m, 6), ==, ZR_COND_FULL);
    g_assert_cmpuint(m.zones[6].wp, ==, zstart(6) + ZS);
    g_assert_cmpint(cond_of(&m, 7), ==, ZR_COND_EMPTY);
    check_accounting(&m);

    /* Reset all: everything but read only and conventional is EMPTY. */
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_RESET, 0, true), ==, ZR_OK);
    for (i = 1; i < NZ; i++) {
        g_assert_cmpint(cond_of(&m, i), ==,
                        i == 5 ? ZR_COND_READ_ONLY : ZR_COND_EMPTY);
    }
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_NOT_WP);
    g_assert_cmpuint(zr_zone_nr_active(&m), ==, 0);
    g_assert_cmpuint(m.stats.ops[ZR_ZONE_OP_RESET], ==, 1);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/* Open all needs room for every CLOSED zone, or changes nothing. */
static void test_open_all_resources(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 2, 0);
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==, ZR_OK);  /* 0 closed */
    g_assert_cmpint(zr_zone_close(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(3)), ==, ZR_OK);
    /* closed: 0, 1; imp: 2; exp: 3.  Room: 2 - 1 explicit = 1 < 2. */
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_OPEN, 0, true), ==,
                    ZR_ERR_NO_OPEN_RESOURCE);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_IMP_OPEN);
    /* With one closed zone, zone 2 (implicit) is closed to make room. */
    g_assert_cmpint(zr_zone_finish(&m, zstart(0)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_OPEN, 0, true), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_EXP_OPEN);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_EXP_OPEN);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * ------------------------------------------------------------------------
 * Geometry
 */

static void test_capacity(void)
{
    ZrZoneConfig cfg = {
        .nr_blocks = ZS * NZ, .zone_size = ZS, .zone_cap = 12,
        .flavour = ZR_FLAVOUR_ZNS,
    };
    ZrZoneModel m;

    g_assert_true(zr_zone_model_init(&m, &cfg, &error_abort));
    g_assert_cmpuint(m.zones[0].cap, ==, 12);
    g_assert_cmpuint(m.zones[0].size, ==, ZS);
    g_assert_cmpint(zr_zone_write(&m, 0, 13), ==, ZR_ERR_BOUNDARY);
    g_assert_cmpint(zr_zone_write(&m, 0, 8), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, 8, 5), ==, ZR_ERR_BOUNDARY);
    g_assert_cmpint(zr_zone_write(&m, 12, 1), ==, ZR_ERR_GAP);
    g_assert_cmpint(zr_zone_write(&m, 8, 4), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_FULL);
    g_assert_cmpuint(m.zones[0].wp, ==, 12);
    g_assert_cmpint(zr_zone_write(&m, 12, 1), ==, ZR_ERR_ZONE_FULL);
    /* Finish moves the write pointer to the capacity, not the size. */
    g_assert_cmpint(zr_zone_finish(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1) + 12);
    /* Reads: the gap can be refused; above the WP too. */
    g_assert_cmpint(zr_zone_read_check(&m, 10, 4, 0), ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, 10, 4, ZR_READ_CHECK_GAP), ==,
                    ZR_ERR_GAP);
    g_assert_cmpint(zr_zone_read_check(&m, 0, 12, ZR_READ_CHECK_STRICT), ==,
                    ZR_OK);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

static void test_conventional(void)
{
    ZrZoneModel m;
    uint64_t lba;
    uint32_t i;

    model_init(&m, ZR_FLAVOUR_ZBC, 2, 1, 0);
    g_assert_cmpint(m.zones[0].type, ==, ZR_ZONE_TYPE_CONVENTIONAL);
    g_assert_cmpint(m.zones[2].type, ==, ZR_ZONE_TYPE_SEQ_WRITE_REQUIRED);
    /* Anywhere, any order, repeatedly, across conventional zones. */
    g_assert_cmpint(zr_zone_write(&m, 7, 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, 2, 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, 2, 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, ZS - 2, 4), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, 0, 2 * ZS), ==, ZR_OK);
    /* But not into the first sequential zone. */
    g_assert_cmpint(zr_zone_write(&m, 2 * ZS - 1, 2), ==, ZR_ERR_BOUNDARY);
    /* No resources used: max_open 1 still lets a seq zone open. */
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==, ZR_OK);
    for (i = 0; i < 2; i++) {
        g_assert_cmpint(cond_of(&m, i), ==, ZR_COND_NOT_WP);
        g_assert_cmpuint(m.zones[i].wp, ==, zstart(i));
    }
    /* Zone operations on a conventional zone are refused. */
    for (i = 0; i < ZR_ZONE_OP__MAX; i++) {
        g_assert_cmpint(zr_zone_mgmt(&m, i, zstart(1), false), ==,
                        ZR_ERR_CONVENTIONAL);
    }
    g_assert_cmpint(zr_zone_append(&m, 0, 1, &lba), ==, ZR_ERR_CONVENTIONAL);
    g_assert_cmpint(zr_zone_set_offline(&m, 3), ==, ZR_ERR_CONVENTIONAL);
    /* ... and skipped by the "all" forms. */
    for (i = 0; i < ZR_ZONE_OP__MAX; i++) {
        g_assert_cmpint(zr_zone_mgmt(&m, i, 0, true), ==, ZR_OK);
        g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_NOT_WP);
    }
    /* (The injection hook is not a guest command: not counted.) */
    g_assert_cmpuint(m.stats.errors[ZR_ERR_CONVENTIONAL], ==, 5);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

static void test_smaller_last_zone(void)
{
    ZrZoneConfig cfg = {
        .nr_blocks = ZS * 7 + 5, .zone_size = ZS, .zone_cap = 12,
        .nr_conv = 1, .flavour = ZR_FLAVOUR_ZBC,
    };
    ZrZoneModel m;

    g_assert_true(zr_zone_model_init(&m, &cfg, &error_abort));
    g_assert_cmpuint(m.nr_zones, ==, 8);
    g_assert_cmpuint(m.zones[7].start, ==, ZS * 7);
    g_assert_cmpuint(m.zones[7].size, ==, 5);
    g_assert_cmpuint(m.zones[7].cap, ==, 5);
    g_assert_cmpuint(m.zones[6].cap, ==, 12);
    g_assert_cmpint(zr_zone_write(&m, ZS * 7, 6), ==, ZR_ERR_LBA_OUT_OF_RANGE);
    g_assert_cmpint(zr_zone_write(&m, ZS * 7, 5), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 7), ==, ZR_COND_FULL);
    g_assert_cmpint(zr_zone_reset(&m, ZS * 7), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, ZS * 7), ==, ZR_OK);
    g_assert_cmpuint(m.zones[7].wp, ==, ZS * 7 + 5);
    g_assert_cmpint(zr_zone_reset(&m, ZS * 8), ==, ZR_ERR_LBA_OUT_OF_RANGE);
    g_assert_true(zr_zone_at(&m, ZS * 7 + 4) == &m.zones[7]);
    g_assert_null(zr_zone_at(&m, ZS * 7 + 5));
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

typedef struct BadGeometry {
    ZrZoneConfig cfg;
    const char *msg;
} BadGeometry;

static void test_geometry_errors(void)
{
    static const BadGeometry bad[] = {
        { { .nr_blocks = 100, .zone_size = 0 }, "not a power of two" },
        { { .nr_blocks = 100, .zone_size = 12 }, "not a power of two" },
        { { .nr_blocks = 100, .zone_size = 16, .zone_cap = 17 },
          "capacity 17 blocks exceeds the zone size of 16" },
        { { .nr_blocks = 15, .zone_size = 16 }, "smaller than one zone" },
        { { .nr_blocks = 64, .zone_size = 16, .nr_conv = 4 },
          "leave no sequential" },
        { { .nr_blocks = 64, .zone_size = 16, .nr_conv = 1,
            .flavour = ZR_FLAVOUR_ZNS }, "no conventional zones" },
        { { .nr_blocks = 70, .zone_size = 16, .flavour = ZR_FLAVOUR_ZNS },
          "not a multiple of the zone size" },
        { { .nr_blocks = 64, .zone_size = 16, .nr_conv = 1, .max_open = 4 },
          "max open zones (4) exceeds the number of sequential" },
        { { .nr_blocks = 64, .zone_size = 16, .max_active = 5 },
          "max active zones (5) exceeds" },
        { { .nr_blocks = 64, .zone_size = 16, .max_open = 3,
            .max_active = 2 }, "max open zones (3) exceeds max active" },
        { { .nr_blocks = 64, .zone_size = 16, .flavour = 7 }, "flavour" },
        { { .nr_blocks = UINT64_MAX, .zone_size = 1 }, "too many" },
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        Error *err = NULL;
        ZrZoneModel m;

        g_assert_false(zr_zone_model_init(&m, &bad[i].cfg, &err));
        g_assert_nonnull(err);
        if (!strstr(error_get_pretty(err), bad[i].msg)) {
            g_test_message("case %zu: '%s' lacks '%s'", i,
                           error_get_pretty(err), bad[i].msg);
        }
        g_assert_nonnull(strstr(error_get_pretty(err), bad[i].msg));
        error_free(err);
    }
}

/*
 * ------------------------------------------------------------------------
 * Append, reads, injection
 */

static void test_append(void)
{
    ZrZoneConfig cfg = {
        .nr_blocks = ZS * NZ, .zone_size = ZS, .zone_cap = 12,
        .max_open = 1, .flavour = ZR_FLAVOUR_ZNS,
    };
    ZrZoneModel m;
    uint64_t lba = 0;

    g_assert_true(zr_zone_model_init(&m, &cfg, &error_abort));
    g_assert_cmpint(zr_zone_append(&m, zstart(2), 4, &lba), ==, ZR_OK);
    g_assert_cmpuint(lba, ==, zstart(2));
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(zr_zone_append(&m, zstart(2), 3, &lba), ==, ZR_OK);
    g_assert_cmpuint(lba, ==, zstart(2) + 4);
    g_assert_cmpint(zr_zone_append(&m, zstart(2), 6, &lba), ==,
                    ZR_ERR_BOUNDARY);
    g_assert_cmpint(zr_zone_append(&m, zstart(2), 5, &lba), ==, ZR_OK);
    g_assert_cmpuint(lba, ==, zstart(2) + 7);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_FULL);
    g_assert_cmpint(zr_zone_append(&m, zstart(2), 1, &lba), ==,
                    ZR_ERR_ZONE_FULL);
    g_assert_cmpint(zr_zone_append(&m, zstart(2) + 1, 1, &lba), ==,
                    ZR_ERR_NOT_ZONE_START);
    g_assert_cmpint(zr_zone_append(&m, ZS * NZ, 1, &lba), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    /* Resources as for a write: one open zone, explicitly open. */
    g_assert_cmpint(zr_zone_open(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_append(&m, zstart(4), 1, &lba), ==,
                    ZR_ERR_NO_OPEN_RESOURCE);
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(5) + 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_append(&m, zstart(5), 1, &lba), ==,
                    ZR_ERR_READ_ONLY);
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(5)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_append(&m, zstart(5), 1, &lba), ==,
                    ZR_ERR_OFFLINE);
    g_assert_cmpuint(m.stats.appends, ==, 3);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

static void test_read_check(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZBC, 1, 0, 0);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 4), ==, ZR_OK);
    /* URSWRZ=1: anything in range. */
    g_assert_cmpint(zr_zone_read_check(&m, 0, ZS * NZ, 0), ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, 0, ZS * NZ + 1, 0), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    /* Below the write pointer is fine, above is not. */
    g_assert_cmpint(zr_zone_read_check(&m, zstart(1), 4, ZR_READ_CHECK_WP),
                    ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, zstart(1) + 2, 3,
                                       ZR_READ_CHECK_WP), ==,
                    ZR_ERR_READ_BEYOND_WP);
    /* Conventional zones have no write pointer to check. */
    g_assert_cmpint(zr_zone_read_check(&m, 0, ZS, ZR_READ_CHECK_STRICT), ==,
                    ZR_OK);
    /* Crossing from a conventional into a sequential zone. */
    g_assert_cmpint(zr_zone_read_check(&m, ZS - 1, 2, ZR_READ_CHECK_BOUNDARY),
                    ==, ZR_ERR_BOUNDARY);
    g_assert_cmpint(zr_zone_read_check(&m, ZS - 1, 2, ZR_READ_CHECK_WP), ==,
                    ZR_OK);
    /* Full zones read completely. */
    g_assert_cmpint(zr_zone_finish(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, zstart(2), ZS,
                                       ZR_READ_CHECK_STRICT), ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, zstart(2), ZS + 1,
                                       ZR_READ_CHECK_BOUNDARY), ==,
                    ZR_ERR_BOUNDARY);
    /* Offline zones never read, whatever the flags. */
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, zstart(2), 2 * ZS, 0), ==,
                    ZR_ERR_OFFLINE);
    /* Read only zones read. */
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_read_check(&m, zstart(4), ZS, 0), ==, ZR_OK);
    zr_zone_model_cleanup(&m);
}

static void test_inject(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 2, 3);
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    g_assert_cmpuint(zr_zone_nr_active(&m), ==, 3);
    /* Resources of injected zones are given back. */
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(2) + 5), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(0)), ==, ZR_OK);
    g_assert_cmpuint(zr_zone_nr_active(&m), ==, 0);
    /* Read only can go offline; offline is final. */
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(2)), ==, ZR_ERR_OFFLINE);
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_offline(&m, ZS * NZ), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * ------------------------------------------------------------------------
 * Reports
 */

static void test_report(void)
{
    static const struct {
        ZrReportFilter filter;
        uint32_t count;
        uint32_t first;
    } want[] = {
        { ZR_REPORT_ALL, NZ, 0 },
        { ZR_REPORT_EMPTY, 1, 7 },
        { ZR_REPORT_IMP_OPEN, 1, 1 },
        { ZR_REPORT_EXP_OPEN, 1, 2 },
        { ZR_REPORT_CLOSED, 1, 3 },
        { ZR_REPORT_FULL, 1, 4 },
        { ZR_REPORT_READ_ONLY, 1, 5 },
        { ZR_REPORT_OFFLINE, 1, 6 },
        { ZR_REPORT_INACTIVE, 0, NZ },
        { ZR_REPORT_RWP_RECOMMENDED, 0, NZ },
        { ZR_REPORT_NON_SEQ, 0, NZ },
        { ZR_REPORT_NOT_WP, 1, 0 },
    };
    ZrZoneModel m;
    uint32_t i, n;
    size_t w;

    model_init(&m, ZR_FLAVOUR_ZBC, 1, 0, 0);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(3), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_close(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(5)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_offline(&m, zstart(6)), ==, ZR_OK);

    for (w = 0; w < ARRAY_SIZE(want); w++) {
        g_assert_cmpuint(zr_zone_report_count(&m, 0, want[w].filter), ==,
                         want[w].count);
        g_assert_cmpuint(zr_zone_report_next(&m, 0, want[w].filter), ==,
                         want[w].first);
    }
    g_assert_cmpuint(ZR_REPORT__MAX, ==, ARRAY_SIZE(want));

    /* Iteration from a starting zone, as REPORT ZONES from an LBA. */
    n = 0;
    ZR_ZONE_FOREACH_MATCH(&m, i, 3, ZR_REPORT_ALL) {
        g_assert_cmpuint(i, ==, 3 + n);
        n++;
    }
    g_assert_cmpuint(n, ==, NZ - 3);
    g_assert_cmpuint(zr_zone_report_count(&m, 3, ZR_REPORT_ALL), ==, NZ - 3);
    g_assert_cmpuint(zr_zone_report_count(&m, 5, ZR_REPORT_CLOSED), ==, 0);
    g_assert_cmpuint(zr_zone_report_next(&m, NZ, ZR_REPORT_ALL), ==, NZ);
    zr_zone_model_cleanup(&m);
}

/*
 * ------------------------------------------------------------------------
 * Saved state and power cycles
 */

static void test_post_load(void)
{
    g_autofree ZrZone *saved = NULL;
    Error *err = NULL;
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 2, 3);
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_close(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(3)), ==, ZR_OK);
    saved = g_memdup2(m.zones, sizeof(ZrZone) * m.nr_zones);

    /* Restore into a fresh model: same conditions and accounting. */
    zr_zone_model_format(&m);
    memcpy(m.zones, saved, sizeof(ZrZone) * m.nr_zones);
    g_assert_true(zr_zone_model_post_load(&m, &error_abort));
    g_assert_cmpuint(m.nr_imp_open, ==, 1);
    g_assert_cmpuint(m.nr_exp_open, ==, 1);
    g_assert_cmpuint(m.nr_closed, ==, 1);
    check_accounting(&m);
    /* The restored implicitly open zone can be implicitly closed. */
    g_assert_cmpint(zr_zone_write(&m, zstart(1) + 3, 1), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    check_accounting(&m);

    /* Inconsistent saved states are refused with a message. */
    memcpy(m.zones, saved, sizeof(ZrZone) * m.nr_zones);
    m.zones[4].wp = zstart(4) + 1;          /* EMPTY with a moved WP */
    g_assert_false(zr_zone_model_post_load(&m, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "zone 4"));
    error_free(err);
    err = NULL;

    memcpy(m.zones, saved, sizeof(ZrZone) * m.nr_zones);
    m.zones[5].cond = ZR_COND_EXP_OPEN;     /* three open, limit two */
    g_assert_false(zr_zone_model_post_load(&m, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "open zones"));
    error_free(err);
    err = NULL;

    memcpy(m.zones, saved, sizeof(ZrZone) * m.nr_zones);
    m.zones[5].start = 0;
    g_assert_false(zr_zone_model_post_load(&m, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "does not match"));
    error_free(err);
    err = NULL;

    memcpy(m.zones, saved, sizeof(ZrZone) * m.nr_zones);
    m.zones[5].cond = 0x9;
    g_assert_false(zr_zone_model_post_load(&m, &err));
    error_free(err);
    zr_zone_model_cleanup(&m);
}

static void test_power_on(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    g_assert_cmpint(zr_zone_write(&m, zstart(0), 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==, ZR_OK);
    zr_zone_model_power_on(&m);
    g_assert_cmpint(cond_of(&m, 0), ==, ZR_COND_CLOSED);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_EMPTY);
    g_assert_cmpint(cond_of(&m, 2), ==, ZR_COND_CLOSED);
    g_assert_cmpuint(m.zones[2].wp, ==, zstart(2) + 3);
    g_assert_cmpuint(zr_zone_nr_open(&m), ==, 0);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * ------------------------------------------------------------------------
 * Writes in flight
 */

typedef struct Reported {
    ZrZoneIo *io[8];
    ZrResult res[8];
    int n;
} Reported;

static void record_done(ZrZoneIo *io, ZrResult res, void *opaque)
{
    Reported *rep = opaque;

    g_assert_cmpint(rep->n, <, 8);
    rep->io[rep->n] = io;
    rep->res[rep->n++] = res;
}

static void committed_of(const ZrZoneModel *m, uint32_t i, uint64_t *wp,
                         uint8_t *cond)
{
    ZrZone z;

    zr_zone_committed(m, i, &z);
    *wp = z.wp;
    *cond = z.cond;
}

/* Completions in order and out of order; a held write waits for the first. */
static void test_inflight_order(void)
{
    ZrZoneModel m;
    ZrZoneIo a, b, c;
    Reported rep = { 0 };
    uint64_t wp;
    uint8_t cond;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 4, 4, &b), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 8, 8, &c), ==, ZR_OK);
    /* The write pointer is reserved: the zone looks FULL to new writes. */
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
    g_assert_false(zr_zone_idle(&m, 1));
    committed_of(&m, 1, &wp, &cond);
    g_assert_cmpuint(wp, ==, zstart(1));
    g_assert_cmpint(cond, ==, ZR_COND_EMPTY);

    /* c and b finish first: held */
    g_assert_cmpuint(m.nr_io, ==, 3);
    g_assert_cmpint(zr_zone_write_end(&m, &c, true), ==, ZR_WAIT);
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==, ZR_WAIT);
    g_assert_cmpint(rep.n, ==, 0);
    g_assert_cmpuint(m.nr_io, ==, 3);
    committed_of(&m, 1, &wp, &cond);
    g_assert_cmpuint(wp, ==, zstart(1));
    /* a finishes: reported now, b and c through the callback, in order */
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    g_assert_cmpint(rep.n, ==, 2);
    g_assert_true(rep.io[0] == &b && rep.io[1] == &c);
    g_assert_cmpint(rep.res[0], ==, ZR_OK);
    g_assert_cmpint(rep.res[1], ==, ZR_OK);
    g_assert_true(zr_zone_idle(&m, 1));
    g_assert_cmpuint(m.nr_io, ==, 0);
    committed_of(&m, 1, &wp, &cond);
    g_assert_cmpuint(wp, ==, zstart(1) + ZS);
    g_assert_cmpint(cond, ==, ZR_COND_FULL);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * Orphans: a write overtaken or detached while its data was still moving
 * keeps its zone orphaned (zr_zone_orphaned()) until its transfer ends; a
 * held write (data written) does not; other zones are not touched.
 */
static void test_inflight_orphans(void)
{
    ZrZoneModel m;
    ZrZoneIo a, b, c;
    Reported rep = { 0 };

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 4, 4, &b), ==, ZR_OK);
    g_assert_false(zr_zone_orphaned(&m, zstart(1)));
    g_assert_cmpint(zr_zone_write_end(&m, &a, false), ==, ZR_OK);
    g_assert_true(zr_zone_orphaned(&m, zstart(1) + 9));
    g_assert_false(zr_zone_orphaned(&m, zstart(2)));
    g_assert_false(zr_zone_orphaned(&m, ZS * NZ));
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==,
                    ZR_ERR_UNALIGNED_WRITE);
    g_assert_false(zr_zone_orphaned(&m, zstart(1)));

    /* Held (data written) when the earlier one fails: no orphan. */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 4, 4, &b), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==, ZR_WAIT);
    g_assert_cmpint(zr_zone_write_end(&m, &a, false), ==, ZR_OK);
    g_assert_cmpint(rep.n, ==, 1);
    g_assert_cmpint(rep.res[0], ==, ZR_ERR_UNALIGNED_WRITE);
    g_assert_false(zr_zone_orphaned(&m, zstart(1)));

    /* Detached while moving (the zone made READ ONLY): an orphan too. */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(2), 4, &c), ==, ZR_OK);
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(2)), ==, ZR_OK);
    g_assert_true(zr_zone_orphaned(&m, zstart(2)));
    g_assert_cmpint(zr_zone_write_end(&m, &c, true), ==, ZR_OK);
    g_assert_false(zr_zone_orphaned(&m, zstart(2)));
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * Migration: writes in flight on the source (the first one still to be
 * written, the ones behind it held) come back onto a restored model in
 * any order, and behave as on the source: the first one's end reports the
 * held ones.  What cannot have been saved is refused; an abort takes the
 * restored ones off again.
 */
static void test_inflight_restore(void)
{
    ZrZoneModel src, m;
    ZrZoneIo a, b, c, ra, rb, rc, bad;
    Reported rep = { 0 };
    Error *err = NULL;

    model_init(&src, ZR_FLAVOUR_ZBC, 0, 0, 0);
    zr_zone_set_io_done(&src, record_done, &rep);
    g_assert_cmpint(zr_zone_write_begin(&src, zstart(1), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&src, zstart(1) + 4, 4, &b), ==,
                    ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&src, zstart(1) + 8, 2, &c), ==,
                    ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&src, &b, true), ==, ZR_WAIT);
    g_assert_cmpint(zr_zone_write_end(&src, &c, true), ==, ZR_WAIT);

    /* What a migration moves: the zones, and each write's lba/len/state. */
    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    memcpy(m.zones, src.zones, sizeof(ZrZone) * src.nr_zones);
    g_assert_true(zr_zone_model_post_load(&m, &error_abort));
    ra = (ZrZoneIo) { .lba = a.lba, .len = a.len, .state = a.state };
    rb = (ZrZoneIo) { .lba = b.lba, .len = b.len, .state = b.state };
    rc = (ZrZoneIo) { .lba = c.lba, .len = c.len, .state = c.state };
    g_assert_true(zr_zone_write_restore(&m, &rc, &error_abort));
    g_assert_true(zr_zone_write_restore(&m, &ra, &error_abort));
    /* Not below the write pointer, and overlapping: refused. */
    bad = (ZrZoneIo) { .lba = zstart(1) + 10, .len = 1,
                       .state = ZR_IO_IN_FLIGHT };
    g_assert_false(zr_zone_write_restore(&m, &bad, &err));
    error_free_or_abort(&err);
    bad = (ZrZoneIo) { .lba = zstart(1) + 2, .len = 4,
                       .state = ZR_IO_DONE };
    g_assert_false(zr_zone_write_restore(&m, &bad, &err));
    error_free_or_abort(&err);
    /*
     * A gap where b belongs (a held write the HBA cancelled is not saved)
     * is fine; a failed load takes everything off again.
     */
    g_assert_true(zr_zone_write_restore_check(&m, &error_abort));
    zr_zone_write_restore_abort(&m);
    g_assert_cmpuint(m.nr_io, ==, 0);
    g_assert_true(zr_zone_idle(&m, 1));
    g_assert_cmpint(ra.state, ==, ZR_IO_IDLE);
    ra.state = ZR_IO_IN_FLIGHT;
    rc.state = ZR_IO_DONE;
    g_assert_true(zr_zone_write_restore(&m, &rc, &error_abort));
    g_assert_true(zr_zone_write_restore(&m, &ra, &error_abort));
    g_assert_true(zr_zone_write_restore(&m, &rb, &error_abort));
    g_assert_true(zr_zone_write_restore_check(&m, &error_abort));
    g_assert_cmpuint(m.nr_io, ==, 3);
    g_assert_false(zr_zone_idle(&m, 1));

    /* The first one is written again: b and c are reported, in order. */
    g_assert_cmpint(zr_zone_write_end(&m, &ra, true), ==, ZR_OK);
    g_assert_cmpint(rep.n, ==, 2);
    g_assert_true(rep.io[0] == &rb && rep.io[1] == &rc);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1) + 10);
    g_assert_true(zr_zone_idle(&m, 1));
    check_accounting(&m);

    /* A held write first in line cannot have been saved. */
    g_assert_cmpint(zr_zone_write(&m, zstart(2), 4), ==, ZR_OK);
    rb = (ZrZoneIo) { .lba = zstart(2), .len = 4, .state = ZR_IO_DONE };
    g_assert_true(zr_zone_write_restore(&m, &rb, &error_abort));
    g_assert_false(zr_zone_write_restore_check(&m, &err));
    error_free_or_abort(&err);
    zr_zone_model_cleanup(&m);
    g_assert_cmpint(zr_zone_write_end(&src, &a, true), ==, ZR_OK);
    zr_zone_model_cleanup(&src);
}

/*
 * A failed transfer takes the write pointer back; later writes of the zone
 * are overtaken: a held one is reported UNALIGNED at once, one still moving
 * when it ends.  Writes of other zones are not touched.
 */
static void test_inflight_failure(void)
{
    ZrZoneModel m;
    ZrZoneIo a, b, c, d, o;
    Reported rep = { 0 };
    uint64_t wp;
    uint8_t cond;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 2), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 2, 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 6, 4, &b), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 10, 6, &c), ==,
                    ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(2), 4, &o), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==, ZR_WAIT);

    /* a fails: back to where it started, zone open again */
    g_assert_cmpint(zr_zone_write_end(&m, &a, false), ==, ZR_OK);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1) + 2);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_IMP_OPEN);
    g_assert_cmpint(rep.n, ==, 1);
    g_assert_true(rep.io[0] == &b);
    g_assert_cmpint(rep.res[0], ==, ZR_ERR_UNALIGNED_WRITE);
    /* c's data landed above the write pointer: not written */
    g_assert_cmpint(zr_zone_write_end(&m, &c, true), ==,
                    ZR_ERR_UNALIGNED_WRITE);
    g_assert_cmpuint(m.stats.write_failures, ==, 1);
    g_assert_cmpuint(m.stats.writes_overtaken, ==, 2);
    /* the host writes again at the write pointer */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 2, 4, &d), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &d, true), ==, ZR_OK);
    committed_of(&m, 1, &wp, &cond);
    g_assert_cmpuint(wp, ==, zstart(1) + 6);
    g_assert_cmpint(zr_zone_write_end(&m, &o, true), ==, ZR_OK);
    g_assert_cmpuint(m.zones[2].wp, ==, zstart(2) + 4);

    /* a first write that fails leaves the zone EMPTY */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(3), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &a, false), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 3), ==, ZR_COND_EMPTY);
    g_assert_cmpuint(m.nr_io, ==, 0);
    /* A CLOSED zone's first write in flight: stored EMPTY (ZBC-2). */
    g_assert_cmpint(zr_zone_open(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_close(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 4), ==, ZR_COND_EMPTY);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(4), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_close(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 4), ==, ZR_COND_CLOSED);
    committed_of(&m, 4, &wp, &cond);
    g_assert_cmpint(cond, ==, ZR_COND_EMPTY);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    g_assert_cmpuint(zr_zone_nr_open(&m), ==, 2);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/* A zone full through writes in flight, at the open limit, fails back. */
static void test_inflight_failure_full(void)
{
    ZrZoneModel m;
    ZrZoneIo a;
    Reported rep = { 0 };

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 1, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 4), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 4, ZS - 4, &a), ==,
                    ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_FULL);
    g_assert_cmpint(zr_zone_open(&m, zstart(2)), ==, ZR_OK);
    /* no open resource: the zone comes back CLOSED, not over the limit */
    g_assert_cmpint(zr_zone_write_end(&m, &a, false), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_CLOSED);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1) + 4);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/*
 * Reset and finish while writes are in flight: the writes happened before;
 * held ones are reported done, moving ones end OK and move nothing.  A
 * finish keeps the written end where the data stops.
 */
static void test_inflight_zone_ops(void)
{
    ZrZoneModel m;
    ZrZoneIo a, b;
    Reported rep = { 0 };
    ZrZone z;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 4, 4, &b), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==, ZR_WAIT);
    g_assert_cmpint(zr_zone_reset(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(rep.n, ==, 1);
    g_assert_cmpint(rep.res[0], ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &a, false), ==, ZR_OK);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1));
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_EMPTY);

    g_assert_cmpint(zr_zone_write(&m, zstart(2), 5), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(2) + 5, 3, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    zr_zone_committed(&m, 2, &z);
    g_assert_cmpint(z.cond, ==, ZR_COND_FULL);
    g_assert_cmpuint(z.wp, ==, zstart(2) + ZS);
    g_assert_cmpuint(z.wend, ==, zstart(2) + 8);
    /* FINISH of a zone written up to 3 blocks: reads from 3 are zeros */
    g_assert_cmpint(zr_zone_write(&m, zstart(3), 3), ==, ZR_OK);
    g_assert_cmpint(zr_zone_finish(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpuint(m.zones[3].wend, ==, zstart(3) + 3);
    g_assert_cmpint(zr_zone_reset(&m, zstart(3)), ==, ZR_OK);
    g_assert_cmpuint(m.zones[3].wend, ==, zstart(3));
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

/* A held write whose request goes away is forgotten without a report. */
static void test_inflight_forget(void)
{
    ZrZoneModel m;
    ZrZoneIo a, b;
    Reported rep = { 0 };

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(0), 4, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(0) + 4, 4, &b), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==, ZR_WAIT);
    zr_zone_write_forget(&m, &b);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    g_assert_cmpint(rep.n, ==, 0);
    g_assert_true(zr_zone_idle(&m, 0));
    g_assert_cmpuint(m.zones[0].wp, ==, zstart(0) + 8);
    zr_zone_model_cleanup(&m);
}

/* Dirty bits follow every change of what persistence would store. */
static void test_dirty(void)
{
    ZrZoneModel m;
    ZrZoneIo a;

    model_init(&m, ZR_FLAVOUR_ZBC, 0, 0, 0);
    g_assert_true(test_bit(0, m.dirty) && test_bit(NZ - 1, m.dirty));
    bitmap_zero(m.dirty, m.nr_zones);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(2), 4, &a), ==, ZR_OK);
    g_assert_true(test_bit(2, m.dirty));
    bitmap_zero(m.dirty, m.nr_zones);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    g_assert_true(test_bit(2, m.dirty));
    g_assert_false(test_bit(1, m.dirty));
    bitmap_zero(m.dirty, m.nr_zones);
    g_assert_cmpint(zr_zone_open(&m, zstart(5)), ==, ZR_OK);
    g_assert_true(test_bit(5, m.dirty));
    zr_zone_model_cleanup(&m);
}

/* Activate (ZNS Set Zone Descriptor Extension): EMPTY -> CLOSED */
static void test_activate(void)
{
    ZrZoneModel m;

    model_init(&m, ZR_FLAVOUR_ZNS, 0, 0, 2);
    g_assert_cmpint(zr_zone_activate(&m, zstart(1)), ==, ZR_OK);
    g_assert_cmpint(cond_of(&m, 1), ==, ZR_COND_CLOSED);
    g_assert_cmpuint(m.zones[1].wp, ==, zstart(1));
    g_assert_cmpuint(zr_zone_nr_active(&m), ==, 1);
    g_assert_cmpuint(zr_zone_nr_open(&m), ==, 0);
    g_assert_cmpint(zr_zone_activate(&m, zstart(1)), ==,
                    ZR_ERR_INVALID_TRANSITION);
    g_assert_cmpint(zr_zone_activate(&m, zstart(2) + 1), ==,
                    ZR_ERR_NOT_ZONE_START);
    g_assert_cmpint(zr_zone_activate(&m, ZS * NZ), ==,
                    ZR_ERR_LBA_OUT_OF_RANGE);
    g_assert_cmpint(zr_zone_activate(&m, zstart(2)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_activate(&m, zstart(3)), ==,
                    ZR_ERR_NO_ACTIVE_RESOURCE);
    g_assert_cmpint(zr_zone_set_read_only(&m, zstart(4)), ==, ZR_OK);
    g_assert_cmpint(zr_zone_activate(&m, zstart(4)), ==, ZR_ERR_READ_ONLY);
    /* a closed empty zone is written, reset and activated again */
    g_assert_cmpint(zr_zone_write(&m, zstart(1), 1), ==, ZR_OK);
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_RESET, zstart(1), false), ==,
                    ZR_OK);
    g_assert_cmpint(zr_zone_activate(&m, zstart(1)), ==, ZR_OK);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);

    model_init(&m, ZR_FLAVOUR_ZBC, 1, 0, 0);
    g_assert_cmpint(zr_zone_activate(&m, 0), ==, ZR_ERR_CONVENTIONAL);
    zr_zone_model_cleanup(&m);
}

/*
 * What a read returns (zone-read.c): blocks not on the medium when the
 * read began or when it ended read as zeros, whatever the backend gave.
 */
static void read_with(ZrZoneModel *m, ZrZoneRead *rd, uint8_t *buf,
                      uint64_t len)
{
    memset(buf, 0xaa, len);     /* the backend: old data everywhere */
    zr_zone_read_end(m, rd, buf, 1);
    g_assert_cmpuint(rd->nr, ==, 0);
    g_assert_null(rd->heap);
}

static void assert_bytes(const uint8_t *buf, uint64_t from, uint64_t to,
                         uint8_t val)
{
    for (uint64_t i = from; i < to; i++) {
        g_assert_cmpuint(buf[i], ==, val);
    }
}

static void test_read_race(void)
{
    ZrZoneModel m;
    ZrZoneRead rd = { 0 }, rd2 = { 0 };
    ZrZoneIo a, b;
    Reported rep = { 0 };
    uint8_t buf[4 * ZS];

    model_init(&m, ZR_FLAVOUR_ZBC, 1, 0, 0);
    zr_zone_set_io_done(&m, record_done, &rep);

    /* a write in flight when the read begins: its blocks read as zeros */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1), 4, &a), ==, ZR_OK);
    zr_zone_read_begin(&m, &rd, zstart(1), 8);
    g_assert_cmpuint(rd.nr, ==, 1);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    read_with(&m, &rd, buf, 8);
    assert_bytes(buf, 0, 8, 0);

    /* begun after the write landed: its data, zeros above the wp */
    zr_zone_read_begin(&m, &rd, zstart(1), 8);
    read_with(&m, &rd, buf, 8);
    assert_bytes(buf, 0, 4, 0xaa);
    assert_bytes(buf, 4, 8, 0);

    /* an earlier write still moving hides the later one that landed */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 4, 2, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(1) + 6, 2, &b), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &b, true), ==, ZR_WAIT);
    zr_zone_read_begin(&m, &rd, zstart(1), 8);
    read_with(&m, &rd, buf, 8);
    assert_bytes(buf, 0, 4, 0xaa);
    assert_bytes(buf, 4, 8, 0);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    g_assert_cmpint(rep.n, ==, 1);

    /* the zone reset while the read ran: zeros */
    zr_zone_read_begin(&m, &rd, zstart(1), 8);
    g_assert_cmpint(zr_zone_mgmt(&m, ZR_ZONE_OP_RESET, zstart(1), false),
                    ==, ZR_OK);
    read_with(&m, &rd, buf, 8);
    assert_bytes(buf, 0, 8, 0);

    /*
     * Four zones (more than fit inline): the conventional zone is never
     * masked, a full zone reads whole, the others as zeros.
     */
    g_assert_cmpint(zr_zone_write_begin(&m, zstart(2), ZS, &a), ==, ZR_OK);
    g_assert_cmpint(zr_zone_write_end(&m, &a, true), ==, ZR_OK);
    zr_zone_read_begin(&m, &rd, 0, 4 * ZS);
    g_assert_cmpuint(rd.nr, ==, 4);
    g_assert_nonnull(rd.heap);
    read_with(&m, &rd, buf, 4 * ZS);
    assert_bytes(buf, 0, ZS, 0xaa);
    assert_bytes(buf, ZS, 2 * ZS, 0);
    assert_bytes(buf, 2 * ZS, 3 * ZS, 0xaa);
    assert_bytes(buf, 3 * ZS, 4 * ZS, 0);

    /* the same read into scattered memory (a device's mapped guest pages) */
    {
        size_t cut1 = ZS / 2 + 1, cut2 = 2 * ZS + ZS / 2 + 1;
        struct iovec iov[3] = {
            { .iov_base = buf, .iov_len = cut1 },
            { .iov_base = buf + cut1, .iov_len = cut2 - cut1 },
            { .iov_base = buf + cut2, .iov_len = 4 * ZS - cut2 },
        };
        QEMUIOVector qiov;

        qemu_iovec_init_external(&qiov, iov, 3);
        zr_zone_read_begin(&m, &rd, 0, 4 * ZS);
        memset(buf, 0xaa, 4 * ZS);
        zr_zone_read_end_iov(&m, &rd, &qiov, 1);
        g_assert_null(rd.heap);
        assert_bytes(buf, 0, ZS, 0xaa);
        assert_bytes(buf, ZS, 2 * ZS, 0);
        assert_bytes(buf, 2 * ZS, 3 * ZS, 0xaa);
        assert_bytes(buf, 3 * ZS, 4 * ZS, 0);
        /* a failed read (no vector): nothing to mask, nothing leaks */
        zr_zone_read_begin(&m, &rd, 0, 4 * ZS);
        zr_zone_read_end_iov(&m, &rd, NULL, 1);
        g_assert_null(rd.heap);
    }

    /* begun again (a resubmission), released, failed: nothing leaks */
    zr_zone_read_begin(&m, &rd, 0, 4 * ZS);
    zr_zone_read_begin(&m, &rd, 0, 4 * ZS);
    zr_zone_read_release(&rd);
    g_assert_null(rd.heap);
    zr_zone_read_begin(&m, &rd2, 0, 4 * ZS);
    zr_zone_read_end(&m, &rd2, NULL, 1);
    g_assert_null(rd2.heap);
    /* out of range: nothing begun */
    zr_zone_read_begin(&m, &rd, ZS * NZ - 1, 2);
    g_assert_cmpuint(rd.nr, ==, 0);
    check_accounting(&m);
    zr_zone_model_cleanup(&m);
}

static void test_names(void)
{
    int i;

    for (i = 0; i < ZR_RESULT__MAX; i++) {
        g_assert_nonnull(zr_result_name(i));
        g_assert_cmpstr(zr_result_name(i), !=, "invalid");
    }
    g_assert_cmpstr(zr_result_name(ZR_ERR_UNALIGNED_WRITE), ==,
                    "unaligned-write");
    g_assert_cmpstr(zr_zone_cond_name(ZR_COND_IMP_OPEN), ==, "imp-open");
    g_assert_cmpstr(zr_zone_cond_name(0x7), ==, "invalid");
    g_assert_cmpstr(zr_zone_op_name(ZR_ZONE_OP_FINISH), ==, "finish");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/zoned-reorder/zone/transitions/zbc",
                    test_transitions_zbc);
    g_test_add_func("/zoned-reorder/zone/transitions/zns",
                    test_transitions_zns);
    g_test_add_func("/zoned-reorder/zone/write-to-full", test_write_to_full);
    g_test_add_func("/zoned-reorder/zone/write-errors", test_write_errors);
    g_test_add_data_func("/zoned-reorder/zone/write-check-order/zbc",
                         GINT_TO_POINTER(ZR_FLAVOUR_ZBC),
                         test_write_check_order);
    g_test_add_data_func("/zoned-reorder/zone/write-check-order/zns",
                         GINT_TO_POINTER(ZR_FLAVOUR_ZNS),
                         test_write_check_order);
    g_test_add_func("/zoned-reorder/zone/max-open/implicit-close",
                    test_max_open_implicit_close);
    g_test_add_func("/zoned-reorder/zone/max-open/explicit",
                    test_max_open_explicit);
    g_test_add_func("/zoned-reorder/zone/max-active", test_max_active);
    g_test_add_func("/zoned-reorder/zone/finish-resources",
                    test_finish_resources);
    g_test_add_func("/zoned-reorder/zone/all", test_all_ops);
    g_test_add_func("/zoned-reorder/zone/open-all-resources",
                    test_open_all_resources);
    g_test_add_func("/zoned-reorder/zone/capacity", test_capacity);
    g_test_add_func("/zoned-reorder/zone/conventional", test_conventional);
    g_test_add_func("/zoned-reorder/zone/smaller-last-zone",
                    test_smaller_last_zone);
    g_test_add_func("/zoned-reorder/zone/geometry-errors",
                    test_geometry_errors);
    g_test_add_func("/zoned-reorder/zone/append", test_append);
    g_test_add_func("/zoned-reorder/zone/read-check", test_read_check);
    g_test_add_func("/zoned-reorder/zone/read-race", test_read_race);
    g_test_add_func("/zoned-reorder/zone/activate", test_activate);
    g_test_add_func("/zoned-reorder/zone/inject", test_inject);
    g_test_add_func("/zoned-reorder/zone/report", test_report);
    g_test_add_func("/zoned-reorder/zone/post-load", test_post_load);
    g_test_add_func("/zoned-reorder/zone/power-on", test_power_on);
    g_test_add_func("/zoned-reorder/zone/in-flight/order",
                    test_inflight_order);
    g_test_add_func("/zoned-reorder/zone/in-flight/failure",
                    test_inflight_failure);
    g_test_add_func("/zoned-reorder/zone/in-flight/failure-full",
                    test_inflight_failure_full);
    g_test_add_func("/zoned-reorder/zone/in-flight/zone-ops",
                    test_inflight_zone_ops);
    g_test_add_func("/zoned-reorder/zone/in-flight/orphans",
                    test_inflight_orphans);
    g_test_add_func("/zoned-reorder/zone/in-flight/restore",
                    test_inflight_restore);
    g_test_add_func("/zoned-reorder/zone/in-flight/forget",
                    test_inflight_forget);
    g_test_add_func("/zoned-reorder/zone/dirty", test_dirty);
    g_test_add_func("/zoned-reorder/zone/names", test_names);
    return g_test_run();
}
