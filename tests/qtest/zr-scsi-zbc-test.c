/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtests of scsi-zbc over virtio-scsi: every supported command, every
 * sense path, REPORT ZONES options and lengths, the zone state machine
 * through ZBC OUT, resources and implicit close, capacity below zone size
 * (gap zones), conventional zones, 512- and 4096-byte blocks, malformed
 * CDBs, reordering policies and run-time controls.
 *
 * Unless a test says otherwise the disk is null-backed, 4096-byte blocks,
 * 16 zones of 16 blocks (64 KiB), zones 0 and 1 conventional.  Expected
 * sense data are ZBC-2/SBC-4/SPC-5's, cross-checked with the libzbc
 * conformance suite (test/scripts/01_sk_ascq_check, numbers cited).
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "qapi/error.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "qobject/qlist.h"
#include "scsi/constants.h"
#include "zr-scsi-helpers.h"

#define BS          4096
#define ZB          16                  /* zone size in blocks */
#define NZ          16
#define NCONV       2
#define NBLOCKS     (ZB * NZ)
#define GEOMETRY    "size=1M,zone-size=64K,conv-zones=2"

#define SA_CLOSE    0x01
#define SA_FINISH   0x02
#define SA_OPEN     0x03
#define SA_RESET    0x04

/* ZONE CONDITION codes */
enum { C_NOT_WP = 0x0, C_EMPTY = 0x1, C_IMP = 0x2, C_EXP = 0x3,
       C_CLOSED = 0x4, C_RO = 0xd, C_FULL = 0xe, C_OFFLINE = 0xf };

#define ILLEGAL     ILLEGAL_REQUEST

static uint64_t zs(unsigned zone)
{
    return (uint64_t)zone * ZB;
}

static ZrScsi *boot(const char *props)
{
    return zr_scsi_start("-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,"
                         "lun=0,%s", props);
}

/* A raw image of @size bytes filled with @fill; the caller unlinks it. */
static char *make_image(size_t size, uint8_t fill)
{
    g_autofree uint8_t *buf = g_malloc(MAX(size, 1));
    char *path = NULL;
    int fd = g_file_open_tmp("zr-zbc-XXXXXX.img", &path, NULL);

    g_assert_cmpint(fd, >=, 0);
    memset(buf, fill, size);
    g_assert_cmpint(write(fd, buf, size), ==, size);
    close(fd);
    return path;
}

static ZrScsi *boot_drive(const char *img, const char *props)
{
    return zr_scsi_start("-drive if=none,id=d0,file=%s,format=raw "
                         "-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,"
                         "lun=0,drive=d0,%s", img, props);
}

/* --- Commands */

static void cmd(ZrScsi *s, const uint8_t *cdb, const void *out, size_t olen,
                void *in, size_t ilen, ZrScsiResp *r)
{
    zr_scsi_cmd(s, cdb, out, olen, in, ilen, r);
}

static void write16(ZrScsi *s, uint64_t lba, uint32_t nb, uint8_t fill,
                    ZrScsiResp *r)
{
    g_autofree uint8_t *buf = g_malloc(nb * BS + 1);
    uint8_t cdb[16];

    memset(buf, fill, nb * BS + 1);
    zr_cdb_rw16(cdb, WRITE_16, lba, nb);
    cmd(s, cdb, buf, nb * BS, NULL, 0, r);
}

static void write_ok(ZrScsi *s, uint64_t lba, uint32_t nb, uint8_t fill)
{
    ZrScsiResp r;

    write16(s, lba, nb, fill, &r);
    zr_assert_good(&r);
}

static void write_err(ZrScsi *s, uint64_t lba, uint32_t nb, uint8_t key,
                      uint8_t asc, uint8_t ascq)
{
    ZrScsiResp r;

    write16(s, lba, nb, 0x5a, &r);
    zr_assert_sense(&r, key, asc, ascq);
}

static void read16(ZrScsi *s, uint64_t lba, uint32_t nb, uint8_t *buf,
                   ZrScsiResp *r)
{
    uint8_t cdb[16];

    zr_cdb_rw16(cdb, READ_16, lba, nb);
    cmd(s, cdb, NULL, 0, buf, nb * BS, r);
}

static void zone_op(ZrScsi *s, uint8_t sa, uint64_t zone, bool all,
                    ZrScsiResp *r)
{
    uint8_t cdb[16];

    zr_cdb_zbc_out(cdb, sa, zone, all);
    cmd(s, cdb, NULL, 0, NULL, 0, r);
}

static void zone_ok(ZrScsi *s, uint8_t sa, uint64_t zone, bool all)
{
    ZrScsiResp r;

    zone_op(s, sa, zone, all, &r);
    zr_assert_good(&r);
}

static void zone_err(ZrScsi *s, uint8_t sa, uint64_t zone, bool all,
                     uint8_t key, uint8_t asc, uint8_t ascq)
{
    ZrScsiResp r;

    zone_op(s, sa, zone, all, &r);
    zr_assert_sense(&r, key, asc, ascq);
}

/* REPORT ZONES into @d; returns the descriptors received. */
static size_t report(ZrScsi *s, uint64_t lba, uint8_t option, bool partial,
                     uint32_t alloc, uint32_t *list_len, ZrZoneDesc *d,
                     size_t max, ZrScsiResp *r)
{
    g_autofree uint8_t *buf = g_malloc0(MAX(alloc, 64));
    uint64_t max_lba;
    uint8_t cdb[16];

    zr_cdb_report_zones(cdb, lba, alloc, partial, option);
    cmd(s, cdb, NULL, 0, buf, alloc, r);
    if (r->status != GOOD || alloc < 64) {
        return 0;
    }
    return zr_parse_report(buf, alloc - r->resid, list_len, &max_lba, d, max);
}

/* The descriptor of the zone containing @lba. */
static ZrZoneDesc zone_at(ZrScsi *s, uint64_t lba)
{
    ZrZoneDesc d;
    uint32_t list;
    ZrScsiResp r;

    g_assert_cmpuint(report(s, lba, 0, false, 128, &list, &d, 1, &r), ==, 1);
    zr_assert_good(&r);
    return d;
}

static void check_zone(ZrScsi *s, uint64_t lba, uint8_t cond, uint64_t wp)
{
    ZrZoneDesc d = zone_at(s, lba);

    g_assert_cmphex(d.cond, ==, cond);
    g_assert_cmphex(d.wp, ==, wp);
}

static uint64_t qom_u64(ZrScsi *s, const char *prop)
{
    return zr_qom_get_u64(zr_scsi_qts(s), "/machine/peripheral/zbc0", prop);
}

static void qom_set_str(ZrScsi *s, const char *prop, const char *value)
{
    qobject_unref(qtest_qmp_assert_success_ref(zr_scsi_qts(s),
        "{ 'execute': 'qom-set', 'arguments': { 'path': "
        "'/machine/peripheral/zbc0', 'property': %s, 'value': %s } }",
        prop, value));
}

static void inject(ZrScsi *s, const char *what, uint64_t lba)
{
    qobject_unref(qtest_qmp_assert_success_ref(zr_scsi_qts(s),
        "{ 'execute': 'qom-set', 'arguments': { 'path': "
        "'/machine/peripheral/zbc0', 'property': %s, 'value': %u } }",
        what, (unsigned)lba));
}

/*
 * ------------------------------------------------------------------------
 * INQUIRY, VPD, READ CAPACITY
 */

static void test_inquiry(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16], buf[64];
    ZrScsiResp r;

    zr_cdb_inquiry(cdb, false, 0, 64);
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 64 - 36);
    g_assert_cmphex(buf[0], ==, TYPE_ZBC);          /* PDT 14h, PQ 0 */
    g_assert_cmphex(buf[1], ==, 0);                 /* not removable */
    g_assert_cmphex(buf[2], ==, 0x07);              /* SPC-5 */
    g_assert_cmphex(buf[3], ==, 0x12);              /* HISUP, format 2 */
    g_assert_cmpuint(buf[4], ==, 31);
    g_assert_cmphex(buf[7], ==, 0x02);              /* CMDQUE */
    g_assert(!memcmp(&buf[8], "QEMU    QEMU ZBC DISK   ", 24));

    /* The allocation length cuts the data, not an error (SPC-5). */
    memset(buf, 0xee, sizeof(buf));
    zr_cdb_inquiry(cdb, false, 0, 5);
    cmd(s, cdb, NULL, 0, buf, 5, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmphex(buf[0], ==, TYPE_ZBC);
    g_assert_cmpuint(buf[4], ==, 31);
    g_assert_cmphex(buf[5], ==, 0xee);

    /* PAGE CODE without EVPD; CMDDT (obsolete, reserved). */
    zr_cdb_inquiry(cdb, false, 0x80, 64);
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_cdb_inquiry(cdb, false, 0, 64);
    cdb[1] = 0x02;
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_scsi_stop(s);
}

static void vpd(ZrScsi *s, uint8_t page, uint8_t *buf, size_t len,
                ZrScsiResp *r)
{
    uint8_t cdb[16];

    memset(buf, 0xee, len);
    zr_cdb_inquiry(cdb, true, page, len);
    cmd(s, cdb, NULL, 0, buf, len, r);
}

static void test_vpd(void)
{
    ZrScsi *s = boot(GEOMETRY ",serial=SN123,wwn=0x5000c50015ea71ac,"
                     "max-open=3");
    static const uint8_t pages[] = { 0x00, 0x80, 0x83, 0xb0, 0xb1, 0xb6 };
    uint8_t buf[128];
    ZrScsiResp r;

    vpd(s, 0x00, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, TYPE_ZBC);
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, sizeof(pages));
    g_assert(!memcmp(&buf[4], pages, sizeof(pages)));

    vpd(s, 0x80, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, 5);
    g_assert(!memcmp(&buf[4], "SN123", 5));

    vpd(s, 0x83, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, 4 + 13 + 12);
    g_assert_cmphex(buf[4], ==, 0x02);              /* ASCII */
    g_assert_cmphex(buf[5], ==, 0x01);              /* LU, T10 vendor ID */
    g_assert_cmpuint(buf[7], ==, 13);
    g_assert(!memcmp(&buf[8], "QEMU    SN123", 13));
    g_assert_cmphex(buf[21], ==, 0x01);             /* binary */
    g_assert_cmphex(buf[22], ==, 0x03);             /* LU, NAA */
    g_assert_cmpuint(buf[24], ==, 8);
    g_assert_cmphex(ldq_be_p(&buf[25]), ==, 0x5000c50015ea71acULL);

    vpd(s, 0xb0, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, 0x3c);
    g_assert_cmpuint(lduw_be_p(&buf[6]), ==, 1);
    g_assert_cmpuint(ldl_be_p(&buf[8]), ==, 2 * 1024 * 1024 / BS);

    vpd(s, 0xb1, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[4]), ==, 1);    /* non-rotating */

    vpd(s, 0xb6, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, 0x3c);
    g_assert_cmphex(buf[4], ==, 0x01);              /* URSWRZ */
    g_assert_cmphex((uint32_t)ldl_be_p(&buf[8]), ==, 0xffffffff);
    g_assert_cmphex((uint32_t)ldl_be_p(&buf[12]), ==, 0xffffffff);
    g_assert_cmpuint(ldl_be_p(&buf[16]), ==, 3);    /* max open SWRZ */
    g_assert_cmphex(buf[23], ==, 0x01);             /* constant length */
    g_assert_cmphex(ldq_be_p(&buf[24]), ==, 0);

    vpd(s, 0x89, buf, sizeof(buf), &r);             /* ATA information */
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_scsi_stop(s);

    /* Without serial: no page 80h; no max-open: FFFFFFFFh. */
    s = boot(GEOMETRY);
    vpd(s, 0x00, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, 5);
    g_assert_cmphex(buf[5], ==, 0x83);
    vpd(s, 0x80, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    vpd(s, 0xb6, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex((uint32_t)ldl_be_p(&buf[16]), ==, 0xffffffff);
    zr_scsi_stop(s);
}

/* The T10 vendor ID designator's name in VPD 83h of the selected LU. */
static char *vpd83_name(ZrScsi *s)
{
    uint8_t buf[128];
    ZrScsiResp r;

    vpd(s, 0x83, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[5], ==, 0x01);              /* LU, T10 vendor ID */
    g_assert_cmpuint(buf[7], >, 8);
    g_assert(!memcmp(&buf[8], "QEMU    ", 8));
    return g_strndup((char *)&buf[16], buf[7] - 8);
}

/* Consume the POWER ON unit attention of a LU addressed the first time. */
static void select_lu(ZrScsi *s, uint8_t target, uint16_t lun)
{
    uint8_t tur[16] = { TEST_UNIT_READY };
    ZrScsiResp r;

    zr_scsi_select(s, target, lun);
    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, UNIT_ATTENTION, 0x29, 0x00);
}

/*
 * Without serial or id, two disks on one bus still name different LUs in
 * VPD 83h (udev by-id links, multipath): the drive's name, or the place
 * on the bus for null-backed disks; and the same on every run.
 */
static void test_vpd_unique(void)
{
    g_autofree char *img0 = make_image(NBLOCKS * BS, 0);
    g_autofree char *img1 = make_image(NBLOCKS * BS, 0);
    g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    g_autofree char *a2 = NULL;
    const char *null2 = "-device scsi-zbc,bus=vs0.0,scsi-id=0,lun=0," GEOMETRY
                        " -device scsi-zbc,bus=vs0.0,scsi-id=0,lun=1,"
                        GEOMETRY;
    ZrScsi *s = zr_scsi_start("%s", null2);

    a = vpd83_name(s);
    select_lu(s, 0, 1);
    b = vpd83_name(s);
    g_assert_cmpstr(a, !=, b);
    zr_scsi_stop(s);
    s = zr_scsi_start("%s", null2);
    a2 = vpd83_name(s);
    g_assert_cmpstr(a, ==, a2);
    zr_scsi_stop(s);

    s = zr_scsi_start("-drive if=none,id=disk-a,file=%s,format=raw "
                      "-drive if=none,id=disk-b,file=%s,format=raw "
                      "-device scsi-zbc,bus=vs0.0,scsi-id=0,lun=0,"
                      "drive=disk-a," GEOMETRY " "
                      "-device scsi-zbc,bus=vs0.0,scsi-id=2,lun=0,"
                      "drive=disk-b," GEOMETRY, img0, img1);
    c = vpd83_name(s);
    select_lu(s, 2, 0);
    d = vpd83_name(s);
    g_assert_cmpstr(c, ==, "disk-a");
    g_assert_cmpstr(d, ==, "disk-b");
    zr_scsi_stop(s);
    unlink(img0);
    unlink(img1);
}

static void test_read_capacity(void)
{
    ZrScsi *s = boot(GEOMETRY ",physical_block_size=16384");
    uint8_t cdb[16], buf[32];
    ZrScsiResp r;

    zr_cdb_rc16(cdb, 32);
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldq_be_p(&buf[0]), ==, NBLOCKS - 1);
    g_assert_cmpuint(ldl_be_p(&buf[8]), ==, BS);
    g_assert_cmphex(buf[12], ==, 0x10);             /* RC BASIS 01b */
    g_assert_cmpuint(buf[13], ==, 2);               /* 4 blocks/physical */

    memset(buf, 0xee, sizeof(buf));
    zr_cdb_rc16(cdb, 12);
    cmd(s, cdb, NULL, 0, buf, 12, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmpuint(ldl_be_p(&buf[8]), ==, BS);
    g_assert_cmphex(buf[12], ==, 0xee);

    memset(cdb, 0, 16);
    cdb[0] = READ_CAPACITY_10;
    cmd(s, cdb, NULL, 0, buf, 8, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldl_be_p(&buf[0]), ==, NBLOCKS - 1);
    g_assert_cmpuint(ldl_be_p(&buf[4]), ==, BS);

    /* Obsolete PMI and LBA fields are reserved here. */
    cdb[8] = 0x01;
    cmd(s, cdb, NULL, 0, buf, 8, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);

    /* SERVICE ACTION IN(16) with another service action. */
    zr_cdb_rc16(cdb, 32);
    cdb[1] = 0x12;                                  /* GET LBA STATUS */
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * TEST UNIT READY, REQUEST SENSE, START STOP UNIT, LU reset
 */

static void test_sense_and_ready(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16] = { TEST_UNIT_READY }, buf[32];
    ZrScsiResp r;

    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);

    /* Nothing pending: NO SENSE, fixed or descriptor format. */
    memset(cdb, 0, 16);
    cdb[0] = REQUEST_SENSE;
    cdb[4] = 32;
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x70);
    g_assert_cmphex(buf[2], ==, NO_SENSE);
    g_assert_cmpuint(r.resid, ==, 32 - 18);
    cdb[1] = 0x01;
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x72);
    g_assert_cmphex(buf[1], ==, NO_SENSE);

    /* The sense of the last failed command is reported again. */
    write_err(s, zs(4) + 1, 1, ILLEGAL, 0x21, 0x04);
    cdb[1] = 0;
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[2], ==, ILLEGAL);
    g_assert_cmphex(buf[12], ==, 0x21);
    g_assert_cmphex(buf[13], ==, 0x04);
    zr_scsi_stop(s);
}

static void start_stop(ZrScsi *s, uint8_t b4, ZrScsiResp *r)
{
    uint8_t cdb[16] = { START_STOP, 0, 0, 0, b4 };

    cmd(s, cdb, NULL, 0, NULL, 0, r);
}

static void test_start_stop(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    uint8_t tur[16] = { TEST_UNIT_READY }, rs[16] = { REQUEST_SENSE, 0, 0, 0,
                                                      18 };
    uint8_t buf[4 * BS];
    ZrScsiResp r;

    start_stop(s, 0x00, &r);                    /* stop (and flush) */
    zr_assert_good(&r);
    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, NOT_READY, 0x04, 0x02);
    read16(s, zs(2), 1, buf, &r);
    zr_assert_sense(&r, NOT_READY, 0x04, 0x02);
    write_err(s, zs(2), 1, NOT_READY, 0x04, 0x02);
    zone_err(s, SA_OPEN, zs(2), false, NOT_READY, 0x04, 0x02);
    /*
     * With no sense pending (INQUIRY succeeded), REQUEST SENSE reports
     * the stopped state, with GOOD status.
     */
    zr_cdb_inquiry(tur, false, 0, 36);
    cmd(s, tur, NULL, 0, buf, 36, &r);
    zr_assert_good(&r);
    memset(tur, 0, 16);
    cmd(s, rs, NULL, 0, buf, 18, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[2], ==, NOT_READY);
    g_assert_cmphex(buf[12], ==, 0x04);
    g_assert_cmphex(buf[13], ==, 0x02);

    start_stop(s, 0x01, &r);                    /* start */
    zr_assert_good(&r);
    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    write_ok(s, zs(2), 1, 0x11);

    start_stop(s, 0x02, &r);                    /* LOEJ: no medium to eject */
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    start_stop(s, 0x30, &r);                    /* STANDBY */
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);

    /* A LU reset starts the LU and reports it; zones survive it. */
    start_stop(s, 0x04, &r);                    /* stop, NO_FLUSH */
    zr_assert_good(&r);
    g_assert_cmpuint(zr_scsi_lun_reset(s), ==, 0);
    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, UNIT_ATTENTION, 0x29, 0x00);
    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    check_zone(s, zs(2), C_IMP, zs(2) + 1);
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * MODE SENSE, MODE SELECT
 */

static void mode_sense(ZrScsi *s, bool ten, uint8_t b1, uint8_t b2,
                       uint8_t sub, uint8_t *buf, ZrScsiResp *r)
{
    uint8_t cdb[16] = { ten ? MODE_SENSE_10 : MODE_SENSE, b1, b2, sub };

    if (ten) {
        stw_be_p(&cdb[7], 255);
    } else {
        cdb[4] = 255;
    }
    memset(buf, 0xee, 255);
    cmd(s, cdb, NULL, 0, buf, 255, r);
}

static void test_mode_sense(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t buf[255];
    ZrScsiResp r;

    /* MODE SENSE(6), all pages, with the block descriptor. */
    mode_sense(s, false, 0, 0x3f, 0, buf, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(buf[0], ==, 4 + 8 + 12 + 20 + 12 - 1);
    g_assert_cmpuint(r.resid, ==, 255 - (buf[0] + 1));
    g_assert_cmphex(buf[1], ==, 0);
    g_assert_cmphex(buf[2], ==, 0x10);              /* DPOFUA, not WP */
    g_assert_cmpuint(buf[3], ==, 8);
    g_assert_cmpuint(ldl_be_p(&buf[4]), ==, NBLOCKS);
    g_assert_cmpuint(ldl_be_p(&buf[8]) & 0xffffff, ==, BS);
    g_assert_cmphex(buf[12], ==, 0x01);
    g_assert_cmphex(buf[13], ==, 0x0a);
    g_assert_cmphex(buf[24], ==, 0x08);
    g_assert_cmphex(buf[25], ==, 0x12);
    g_assert_cmphex(buf[26], ==, 0x04);             /* WCE */
    g_assert_cmphex(buf[44], ==, 0x0a);
    g_assert_cmphex(buf[45], ==, 0x0a);
    g_assert_cmphex(buf[47], ==, 0x10);             /* QAM 1 */

    /* MODE SENSE(10), LLBAA: the long descriptor; DBD: none. */
    mode_sense(s, true, 0x10, 0x08, 0, buf, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[0]), ==, 8 + 16 + 20 - 2);
    g_assert_cmphex(buf[4], ==, 0x01);              /* LONGLBA */
    g_assert_cmpuint(lduw_be_p(&buf[6]), ==, 16);
    g_assert_cmpuint(ldq_be_p(&buf[8]), ==, NBLOCKS);
    g_assert_cmpuint(ldl_be_p(&buf[20]), ==, BS);
    g_assert_cmphex(buf[24], ==, 0x08);
    mode_sense(s, true, 0x08, 0x08, 0, buf, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(lduw_be_p(&buf[6]), ==, 0);
    g_assert_cmphex(buf[8], ==, 0x08);

    /* Changeable values: WCE only; saved values: not supported. */
    mode_sense(s, false, 0x08, 0x48, 0, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[6], ==, 0x04);
    g_assert_cmphex(buf[7], ==, 0x00);
    mode_sense(s, false, 0x08, 0x4a, 0, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[6], ==, 0x00);
    mode_sense(s, false, 0x08, 0xc8, 0, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x39, 0x00);

    /* Unsupported page and subpage; 3Fh/FFh is all pages. */
    mode_sense(s, false, 0x08, 0x1c, 0, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    mode_sense(s, false, 0x08, 0x08, 0x01, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    mode_sense(s, false, 0x08, 0x3f, 0xff, buf, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(buf[0], ==, 4 + 12 + 20 + 12 - 1);
    zr_scsi_stop(s);
}

/* MODE SELECT(10) of a parameter list of @len bytes. */
static void mode_select(ZrScsi *s, uint8_t b1, const uint8_t *list,
                        size_t len, ZrScsiResp *r)
{
    uint8_t cdb[16] = { MODE_SELECT_10, b1 };

    stw_be_p(&cdb[7], len);
    cmd(s, cdb, list, len, NULL, 0, r);
}

static void test_mode_select(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    /* header (8), short block descriptor (8), Caching page (20) */
    uint8_t list[36] = { 0 }, buf[255];
    ZrScsiResp r;

    list[7] = 8;
    stl_be_p(&list[12], BS);
    list[16] = 0x08;
    list[17] = 0x12;

    /* WCE off, and back on: MODE SENSE shows the current value. */
    mode_select(s, 0x10, list, sizeof(list), &r);
    zr_assert_good(&r);
    mode_sense(s, false, 0x08, 0x08, 0, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[6], ==, 0x00);
    mode_sense(s, false, 0x08, 0x88, 0, buf, &r);   /* default: on */
    g_assert_cmphex(buf[6], ==, 0x04);
    list[18] = 0x04;
    mode_select(s, 0x10, list, sizeof(list), &r);
    zr_assert_good(&r);
    mode_sense(s, false, 0x08, 0x08, 0, buf, &r);
    g_assert_cmphex(buf[6], ==, 0x04);

    /* A bit that is not changeable (RCD). */
    list[18] = 0x05;
    mode_select(s, 0x10, list, sizeof(list), &r);
    zr_assert_sense(&r, ILLEGAL, 0x26, 0x00);
    list[18] = 0x04;
    /* A page length of its own. */
    list[17] = 0x10;
    mode_select(s, 0x10, list, sizeof(list), &r);
    zr_assert_sense(&r, ILLEGAL, 0x26, 0x00);
    list[17] = 0x12;
    /* The list ends inside the page. */
    mode_select(s, 0x10, list, sizeof(list) - 4, &r);
    zr_assert_sense(&r, ILLEGAL, 0x1a, 0x00);
    /* A block length that is not ours. */
    stl_be_p(&list[12], 512);
    mode_select(s, 0x10, list, sizeof(list), &r);
    zr_assert_sense(&r, ILLEGAL, 0x26, 0x00);
    stl_be_p(&list[12], BS);
    /* SP: saving is not supported; PF = 0: only standard pages. */
    mode_select(s, 0x11, list, sizeof(list), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    mode_select(s, 0x00, list, sizeof(list), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    /* An empty list changes nothing. */
    mode_select(s, 0x10, list, 0, &r);
    zr_assert_good(&r);
    /* MODE SELECT(6): header (4), short block descriptor, no page. */
    {
        uint8_t cdb6[16] = { MODE_SELECT, 0x10, 0, 0, 12 };
        uint8_t list6[12] = { [3] = 8 };

        stl_be_p(&list6[8], BS);
        cmd(s, cdb6, list6, sizeof(list6), NULL, 0, &r);
        zr_assert_good(&r);
    }
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * REPORT SUPPORTED OPERATION CODES
 */

static void rsoc(ZrScsi *s, uint8_t b2, uint8_t opcode, uint16_t sa,
                 uint8_t *buf, size_t len, ZrScsiResp *r)
{
    uint8_t cdb[16] = { MAINTENANCE_IN, 0x0c, b2, opcode };

    stw_be_p(&cdb[4], sa);
    stl_be_p(&cdb[6], len);
    cmd(s, cdb, NULL, 0, buf, len, r);
}

static void test_rsoc(void)
{
    static const struct {
        uint8_t opcode;
        int sa;
        uint8_t cdb_len;
    } want[] = {
        { TEST_UNIT_READY, -1, 6 }, { REQUEST_SENSE, -1, 6 },
        { INQUIRY, -1, 6 }, { MODE_SELECT, -1, 6 }, { MODE_SENSE, -1, 6 },
        { START_STOP, -1, 6 }, { READ_CAPACITY_10, -1, 10 },
        { READ_10, -1, 10 }, { WRITE_10, -1, 10 },
        { SYNCHRONIZE_CACHE, -1, 10 }, { MODE_SELECT_10, -1, 10 },
        { MODE_SENSE_10, -1, 10 }, { READ_16, -1, 16 }, { WRITE_16, -1, 16 },
        { SYNCHRONIZE_CACHE_16, -1, 16 }, { 0x94, 1, 16 }, { 0x94, 2, 16 },
        { 0x94, 3, 16 }, { 0x94, 4, 16 }, { 0x95, 0, 16 },
        { SERVICE_ACTION_IN_16, 0x10, 16 }, { REPORT_LUNS, -1, 12 },
        { MAINTENANCE_IN, 0x0c, 12 },
    };
    static const uint8_t read16_usage[16] = {
        READ_16, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
    };
    ZrScsi *s = boot(GEOMETRY);
    uint8_t buf[1024];
    ZrScsiResp r;
    size_t i, n;

    /* All commands, then the same with command timeouts descriptors. */
    rsoc(s, 0x00, 0, 0, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    n = ldl_be_p(&buf[0]) / 8;
    g_assert_cmpuint(n, ==, ARRAY_SIZE(want));
    for (i = 0; i < n; i++) {
        const uint8_t *d = &buf[4 + i * 8];

        g_assert_cmphex(d[0], ==, want[i].opcode);
        g_assert_cmphex(d[5], ==, want[i].sa >= 0 ? 0x01 : 0x00);
        g_assert_cmpuint(lduw_be_p(&d[2]), ==, MAX(want[i].sa, 0));
        g_assert_cmpuint(lduw_be_p(&d[6]), ==, want[i].cdb_len);
    }
    rsoc(s, 0x80, 0, 0, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldl_be_p(&buf[0]), ==, n * 20);
    g_assert_cmphex(buf[4 + 5], ==, 0x02);          /* CTDP */
    g_assert_cmpuint(lduw_be_p(&buf[4 + 8]), ==, 10);

    /* One command: its CDB usage data. */
    rsoc(s, 0x01, READ_16, 0, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x03);              /* supported */
    g_assert_cmpuint(lduw_be_p(&buf[2]), ==, 16);
    g_assert(!memcmp(&buf[4], read16_usage, 16));
    g_assert_cmpuint(r.resid, ==, sizeof(buf) - 20);
    /*
     * RESET WRITE POINTER: ALL used, ZONE COUNT not supported; byte 1 of
     * the usage data is the service action (SPC-5).
     */
    rsoc(s, 0x82, 0x94, 0x04, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x83);              /* CTDP, supported */
    g_assert_cmphex(buf[4 + 0], ==, 0x94);
    g_assert_cmphex(buf[4 + 1], ==, 0x04);
    g_assert_cmphex(buf[4 + 12], ==, 0x00);
    g_assert_cmphex(buf[4 + 13], ==, 0x00);
    g_assert_cmphex(buf[4 + 14], ==, 0x01);
    g_assert_cmpuint(lduw_be_p(&buf[20]), ==, 10);  /* timeouts descriptor */
    rsoc(s, 0x03, SERVICE_ACTION_IN_16, 0x10, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x03);
    g_assert_cmphex(buf[4 + 1], ==, 0x10);
    rsoc(s, 0x02, MAINTENANCE_IN, 0x0c, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[4 + 1], ==, 0x0c);
    rsoc(s, 0x02, 0x95, 0x00, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[4 + 1], ==, 0x00);
    rsoc(s, 0x03, READ_10, 0x55, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x03);

    /* Not supported: opcode, service action. */
    rsoc(s, 0x01, READ_6, 0, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x01);
    rsoc(s, 0x02, 0x94, 0x05, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x01);

    /* Option 1 on an opcode with service actions, 2 on one without. */
    rsoc(s, 0x01, 0x94, 0, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    rsoc(s, 0x02, READ_16, 0, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    rsoc(s, 0x04, READ_16, 0, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * Malformed CDBs
 */

static void test_bad_cdbs(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16], buf[BS];
    ZrScsiResp r;

    /* Unsupported operation codes (READ(6), WRITE(12), vendor 0xff). */
    memset(cdb, 0, 16);
    cdb[0] = READ_6;
    cdb[4] = 1;
    cmd(s, cdb, NULL, 0, buf, BS, &r);
    zr_assert_sense(&r, ILLEGAL, 0x20, 0x00);
    memset(cdb, 0, 16);
    cdb[0] = WRITE_12;
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x20, 0x00);
    memset(cdb, 0, 16);
    cdb[0] = 0xff;
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x20, 0x00);

    /* Known opcodes, unsupported service actions. */
    zr_cdb_report_zones(cdb, 0, 64, false, 0);
    cdb[1] = 0x06;                                  /* REPORT REALMS */
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zone_err(s, 0x00, zs(2), false, ILLEGAL, 0x24, 0x00);
    zone_err(s, 0x05, zs(2), false, ILLEGAL, 0x24, 0x00);  /* SEQUENTIALIZE */
    memset(cdb, 0, 16);
    cdb[0] = MAINTENANCE_IN;
    cdb[1] = 0x0a;                                  /* REPORT TPG */
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);

    /* Reserved bits: READ(16) byte 14, RDPROTECT, the CONTROL byte. */
    zr_cdb_rw16(cdb, READ_16, zs(2), 1);
    cdb[14] = 0x01;
    cmd(s, cdb, NULL, 0, buf, BS, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_cdb_rw16(cdb, READ_16, zs(2), 1);
    cdb[1] |= 0x20;
    cmd(s, cdb, NULL, 0, buf, BS, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_cdb_rw16(cdb, READ_16, zs(2), 1);
    cdb[15] = 0x04;                                 /* NACA */
    cmd(s, cdb, NULL, 0, buf, BS, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    /* ZBC OUT ZONE COUNT above one and REPORT ZONES byte 14 bit 6. */
    zr_cdb_zbc_out(cdb, SA_OPEN, zs(2), false);
    cdb[13] = 0x02;
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_cdb_report_zones(cdb, 0, 64, false, 0x40);
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);

    /* Transfer length above MAXIMUM TRANSFER LENGTH (512 blocks). */
    {
        g_autofree uint8_t *big = g_malloc(513 * BS);

        zr_cdb_rw16(cdb, READ_16, 0, 513);
        cmd(s, cdb, NULL, 0, big, 513 * BS, &r);
        zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    }

    /* Nothing changed, the LU still answers. */
    check_zone(s, zs(2), C_EMPTY, zs(2));
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * READ and WRITE
 */

static void test_write_rules(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16];
    ZrScsiResp r;

    /* Not at the write pointer (libzbc 01.070, 01.075). */
    write_err(s, zs(2) + 1, 1, ILLEGAL, 0x21, 0x04);
    check_zone(s, zs(2), C_EMPTY, zs(2));
    write_ok(s, zs(2), 4, 0x11);
    check_zone(s, zs(2), C_IMP, zs(2) + 4);
    write_err(s, zs(2), 2, ILLEGAL, 0x21, 0x04);
    write_err(s, zs(2) + 8, 2, ILLEGAL, 0x21, 0x04);
    g_assert_cmpuint(qom_u64(s, "stats.unaligned-writes"), ==, 3);

    /* Crossing the zone end from, below, above the wp (01.071/092/093). */
    write_err(s, zs(2) + 4, ZB, ILLEGAL, 0x21, 0x05);
    write_err(s, zs(2) + 2, ZB, ILLEGAL, 0x21, 0x05);
    write_err(s, zs(2) + 8, ZB, ILLEGAL, 0x21, 0x05);
    check_zone(s, zs(2), C_IMP, zs(2) + 4);

    /* Filling the zone makes it FULL; a FULL zone refuses (01.073). */
    write_ok(s, zs(2) + 4, ZB - 4, 0x11);
    check_zone(s, zs(2), C_FULL, zs(3));
    write_err(s, zs(2), 1, ILLEGAL, 0x24, 0x00);
    write_err(s, zs(3) - 1, 2, ILLEGAL, 0x21, 0x05);     /* 01.090 */

    /* Conventional zones: anywhere, in any order, not into a seq zone. */
    write_ok(s, 5, 2, 0x22);
    write_ok(s, 1, 2, 0x22);
    write_ok(s, 0, 2 * ZB, 0x22);
    write_err(s, zs(2) - 1, 2, ILLEGAL, 0x21, 0x05);     /* 01.077 */

    /* Beyond the capacity. */
    write_err(s, NBLOCKS, 1, ILLEGAL, 0x21, 0x00);
    write_err(s, NBLOCKS - 1, 2, ILLEGAL, 0x21, 0x00);
    write_err(s, UINT64_MAX, 1, ILLEGAL, 0x21, 0x00);

    /* Zero length: nothing written, nothing checked but the range. */
    zr_cdb_rw16(cdb, WRITE_16, zs(3) + 7, 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    check_zone(s, zs(3), C_EMPTY, zs(3));
    zr_cdb_rw16(cdb, WRITE_16, NBLOCKS, 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);

    /* WRITE(10) with FUA. */
    {
        uint8_t data[2 * BS] = { 0 };

        zr_cdb_rw10(cdb, WRITE_10, zs(3), 2);
        cdb[1] = 0x08;
        cmd(s, cdb, data, sizeof(data), NULL, 0, &r);
        zr_assert_good(&r);
        check_zone(s, zs(3), C_IMP, zs(3) + 2);
    }
    g_assert_cmpuint(qom_u64(s, "stats.writes"), ==, 6);
    g_assert_cmpuint(qom_u64(s, "stats.blocks-written"), ==,
                     4 + (ZB - 4) + 2 + 2 + 2 * ZB + 2);
    zr_scsi_stop(s);
}

static void test_read_rules(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0xaa);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    g_autofree uint8_t *buf = g_malloc(2 * ZB * BS);
    uint8_t cdb[16];
    ZrScsiResp r;
    size_t i;

    /* Written blocks read back; above the wp, zeros, not the old 0xaa. */
    write_ok(s, zs(2), 4, 0x11);
    read16(s, zs(2), 8, buf, &r);
    zr_assert_good(&r);
    for (i = 0; i < 8 * BS; i++) {
        g_assert_cmphex(buf[i], ==, i < 4 * BS ? 0x11 : 0x00);
    }
    /* URSWRZ = 1: across sequential zones, above write pointers. */
    read16(s, zs(2) + 8, ZB, buf, &r);
    zr_assert_good(&r);
    /* Conventional zones hold what the drive holds. */
    read16(s, 0, 2, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0xaa);
    /* Conventional into sequential: 01.062/064. */
    read16(s, zs(2) - 1, 2, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x06);
    /* READ(10), range, zero length. */
    zr_cdb_rw10(cdb, READ_10, zs(2), 1);
    cmd(s, cdb, NULL, 0, buf, BS, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x11);
    read16(s, NBLOCKS - 1, 2, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw16(cdb, READ_16, zs(5), 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);

    /* RESET: the data reads as zeros again. */
    zone_ok(s, SA_RESET, zs(2), false);
    read16(s, zs(2), 4, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x00);
    g_assert_cmphex(buf[4 * BS - 1], ==, 0x00);

    /*
     * FINISH: the blocks never written read as zeros, but nothing is
     * written to the drive for them (the old contents stay in the image).
     */
    write_ok(s, zs(3), 2, 0x33);
    zone_ok(s, SA_FINISH, zs(3), false);
    read16(s, zs(3), ZB, buf, &r);
    zr_assert_good(&r);
    for (i = 0; i < ZB * BS; i++) {
        g_assert_cmphex(buf[i], ==, i < 2 * BS ? 0x33 : 0x00);
    }
    {
        g_autofree char *raw = NULL;
        gsize len;

        g_assert(g_file_get_contents(img, &raw, &len, NULL));
        g_assert_cmpuint(len, ==, NBLOCKS * BS);
        g_assert_cmphex((uint8_t)raw[zs(3) * BS + 2 * BS - 1], ==, 0x33);
        g_assert_cmphex((uint8_t)raw[zs(3) * BS + 2 * BS], ==, 0xaa);
        g_assert_cmphex((uint8_t)raw[zs(4) * BS - 1], ==, 0xaa);
    }
    zr_scsi_stop(s);
    unlink(img);
}

/* URSWRZ = 0: reads above the wp and across zones are refused. */
static void test_read_restricted(void)
{
    ZrScsi *s = boot(GEOMETRY ",unrestricted-read=off");
    uint8_t buf[2 * ZB * BS];
    ZrScsiResp r;

    vpd(s, 0xb6, buf, 64, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[4], ==, 0x00);
    write_ok(s, zs(2), 4, 0x11);
    read16(s, zs(2), 4, buf, &r);
    zr_assert_good(&r);
    read16(s, zs(2) + 2, 3, buf, &r);                   /* 01.060 */
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x06);
    zone_ok(s, SA_FINISH, zs(2), false);
    zone_ok(s, SA_FINISH, zs(3), false);
    read16(s, zs(3) - 1, 2, buf, &r);                   /* 01.061/063 */
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x07);
    read16(s, zs(2), ZB, buf, &r);
    zr_assert_good(&r);
    zr_scsi_stop(s);
}

static void test_null_backed(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t buf[4 * BS];
    uint8_t cdb[16];
    ZrScsiResp r;

    write_ok(s, 0, 4, 0x77);
    write_ok(s, zs(6), 4, 0x77);
    read16(s, 0, 4, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0);
    g_assert_cmphex(buf[sizeof(buf) - 1], ==, 0);
    read16(s, zs(6), 4, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[BS], ==, 0);
    memset(cdb, 0, 16);
    cdb[0] = SYNCHRONIZE_CACHE;
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    check_zone(s, zs(6), C_IMP, zs(6) + 4);
    zr_scsi_stop(s);

    /* The defaults: 1 GiB, 4 MiB zones, one conventional zone. */
    s = boot("serial=x");
    zr_cdb_rc16(cdb, 32);
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldq_be_p(&buf[0]), ==, 1024 * 1024 * 1024 / BS - 1);
    check_zone(s, 0, C_NOT_WP, UINT64_MAX);
    g_assert_cmpuint(zone_at(s, 0).len, ==, 4 * 1024 * 1024 / BS);
    check_zone(s, 4 * 1024 * 1024 / BS, C_EMPTY, 4 * 1024 * 1024 / BS);
    zr_scsi_stop(s);
}

static void test_sync_cache(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    uint8_t cdb[16] = { 0 };
    ZrScsiResp r;

    write_ok(s, zs(2), 1, 0x11);
    zr_cdb_rw10(cdb, SYNCHRONIZE_CACHE, 0, 0);
    cdb[1] = 0x02;                                  /* IMMED */
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    zr_cdb_rw16(cdb, SYNCHRONIZE_CACHE_16, zs(2), ZB);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    zr_cdb_rw16(cdb, SYNCHRONIZE_CACHE_16, NBLOCKS - 1, 2);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw10(cdb, SYNCHRONIZE_CACHE, NBLOCKS, 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * Zone management
 */

typedef enum {
    S_EMPTY, S_IMP, S_EXP, S_EXP_DATA, S_CLOSED, S_FULL, S__MAX
} Start;

static const char *const start_names[S__MAX] = {
    "empty", "imp-open", "exp-open", "exp-open-with-data", "closed", "full",
};

/* Put zone 4 in @st (every other zone EMPTY). */
static void prepare(ZrScsi *s, Start st)
{
    zone_ok(s, SA_RESET, 0, true);
    switch (st) {
    case S_EMPTY:
        break;
    case S_IMP:
        write_ok(s, zs(4), 4, 1);
        break;
    case S_EXP:
        zone_ok(s, SA_OPEN, zs(4), false);
        break;
    case S_EXP_DATA:
        write_ok(s, zs(4), 4, 1);
        zone_ok(s, SA_OPEN, zs(4), false);
        break;
    case S_CLOSED:
        write_ok(s, zs(4), 4, 1);
        zone_ok(s, SA_CLOSE, zs(4), false);
        break;
    case S_FULL:
        write_ok(s, zs(4), ZB, 1);
        break;
    default:
        g_assert_not_reached();
    }
}

typedef struct Expect {
    uint8_t cond;
    int wp;                 /* offset in the zone; -1 = unchanged */
} Expect;

/*
 * ZBC-2's zone condition state machine for each op, single zone and ALL
 * (libzbc section 02 runs the same matrix).  wp: E = zone start, F =
 * zone end, K = kept.
 */
#define E 0
#define F ZB
#define K (-1)
#define X(c, w) { C_##c, w }
static const Expect sm_single[S__MAX][4] = {
    /*               OPEN        CLOSE          FINISH      RESET */
    [S_EMPTY] =    { X(EXP, E), X(EMPTY, E),  X(FULL, F), X(EMPTY, E) },
    [S_IMP] =      { X(EXP, K), X(CLOSED, K), X(FULL, F), X(EMPTY, E) },
    [S_EXP] =      { X(EXP, E), X(EMPTY, E),  X(FULL, F), X(EMPTY, E) },
    [S_EXP_DATA] = { X(EXP, K), X(CLOSED, K), X(FULL, F), X(EMPTY, E) },
    [S_CLOSED] =   { X(EXP, K), X(CLOSED, K), X(FULL, F), X(EMPTY, E) },
    [S_FULL] =     { X(FULL, F), X(FULL, F),  X(FULL, F), X(EMPTY, E) },
};
static const Expect sm_all[S__MAX][4] = {
    [S_EMPTY] =    { X(EMPTY, E), X(EMPTY, E), X(EMPTY, E), X(EMPTY, E) },
    [S_IMP] =      { X(IMP, K), X(CLOSED, K), X(FULL, F), X(EMPTY, E) },
    [S_EXP] =      { X(EXP, E), X(EMPTY, E),  X(FULL, F), X(EMPTY, E) },
    [S_EXP_DATA] = { X(EXP, K), X(CLOSED, K), X(FULL, F), X(EMPTY, E) },
    [S_CLOSED] =   { X(EXP, K), X(CLOSED, K), X(FULL, F), X(EMPTY, E) },
    [S_FULL] =     { X(FULL, F), X(FULL, F),  X(FULL, F), X(EMPTY, E) },
};
#undef X
#undef E
#undef F
#undef K

static void test_state_machine(void)
{
    static const uint8_t sas[4] = { SA_OPEN, SA_CLOSE, SA_FINISH, SA_RESET };
    ZrScsi *s = boot(GEOMETRY);
    int st, op, all;

    for (all = 0; all < 2; all++) {
        for (st = 0; st < S__MAX; st++) {
            for (op = 0; op < 4; op++) {
                const Expect *e = all ? &sm_all[st][op] : &sm_single[st][op];
                uint64_t wp;

                prepare(s, st);
                wp = zone_at(s, zs(4)).wp;
                if (g_test_verbose()) {
                    g_test_message("%s, op %d, all %d", start_names[st],
                                   sas[op], all);
                }
                /* With ALL the ZONE ID is ignored, even out of range. */
                zone_ok(s, sas[op], all ? UINT64_MAX : zs(4), all);
                check_zone(s, zs(4), e->cond,
                           e->wp < 0 ? wp : zs(4) + e->wp);
            }
        }
    }
    zr_scsi_stop(s);
}

static void test_zone_mgmt_errors(void)
{
    ZrScsi *s = boot(GEOMETRY);
    static const uint8_t sas[4] = { SA_OPEN, SA_CLOSE, SA_FINISH, SA_RESET };
    int i;

    for (i = 0; i < 4; i++) {
        /* Not a zone start (01.020/030/040/050). */
        zone_err(s, sas[i], zs(4) + 1, false, ILLEGAL, 0x24, 0x00);
        /* A conventional zone (01.023/031/041/051). */
        zone_err(s, sas[i], zs(1), false, ILLEGAL, 0x24, 0x00);
        /* Beyond the capacity (01.024/032/042/052, ZBC-2). */
        zone_err(s, sas[i], NBLOCKS, false, ILLEGAL, 0x21, 0x00);
    }
    /* READ ONLY and OFFLINE zones, injected. */
    write_ok(s, zs(5), 2, 1);
    inject(s, "inject-read-only", zs(5) + 3);
    inject(s, "inject-offline", zs(6));
    check_zone(s, zs(5), C_RO, zs(5) + 2);
    check_zone(s, zs(6), C_OFFLINE, zs(6));
    for (i = 0; i < 4; i++) {
        zone_err(s, sas[i], zs(5), false, DATA_PROTECT, 0x27, 0x08);
        zone_err(s, sas[i], zs(6), false, DATA_PROTECT, 0x2c, 0x0e);
    }
    write_err(s, zs(5) + 2, 1, DATA_PROTECT, 0x27, 0x08);
    write_err(s, zs(6), 1, DATA_PROTECT, 0x2c, 0x0e);
    {
        g_autofree uint8_t *buf = g_malloc((ZB + 1) * BS);
        ZrScsiResp r;

        read16(s, zs(5), 1, buf, &r);
        zr_assert_good(&r);
        read16(s, zs(6), 1, buf, &r);
        zr_assert_sense(&r, DATA_PROTECT, 0x2c, 0x0e);
        read16(s, zs(5), ZB + 1, buf, &r);      /* reaches zone 6 */
        zr_assert_sense(&r, DATA_PROTECT, 0x2c, 0x0e);
    }
    /* ALL skips them. */
    zone_ok(s, SA_RESET, 0, true);
    check_zone(s, zs(5), C_RO, zs(5) + 2);
    /* The hooks refuse what the model refuses. */
    {
        QDict *rsp = qtest_qmp(zr_scsi_qts(s), "{ 'execute': 'qom-set', "
            "'arguments': { 'path': '/machine/peripheral/zbc0', "
            "'property': 'inject-offline', 'value': 0 } }");

        g_assert(qdict_haskey(rsp, "error"));
        qobject_unref(rsp);
    }
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * Open resources
 */

static void test_max_open(void)
{
    ZrScsi *s = boot(GEOMETRY ",max-open=2");

    /* Implicit opens: the least recently used one is closed for room. */
    write_ok(s, zs(2), 1, 1);
    write_ok(s, zs(3), 1, 1);
    write_ok(s, zs(2) + 1, 1, 1);               /* zone 3 is now LRU */
    write_ok(s, zs(4), 1, 1);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    check_zone(s, zs(3), C_CLOSED, zs(3) + 1);
    check_zone(s, zs(4), C_IMP, zs(4) + 1);
    g_assert_cmpuint(qom_u64(s, "stats.implicit-opens"), ==, 3);
    g_assert_cmpuint(qom_u64(s, "stats.implicit-closes"), ==, 1);

    /* Explicitly open zones are never closed behind the host's back. */
    zone_ok(s, SA_OPEN, zs(2), false);
    zone_ok(s, SA_OPEN, zs(5), false);          /* closes zone 4 */
    check_zone(s, zs(4), C_CLOSED, zs(4) + 1);
    write_err(s, zs(6), 1, DATA_PROTECT, 0x55, 0x0e);       /* 01.072 */
    write_err(s, zs(3) + 1, 1, DATA_PROTECT, 0x55, 0x0e);   /* CLOSED */
    zone_err(s, SA_OPEN, zs(6), false, DATA_PROTECT, 0x55, 0x0e); /* 01.021 */
    zone_err(s, SA_FINISH, zs(6), false, DATA_PROTECT, 0x55, 0x0e);
    /* Two CLOSED zones, no room: OPEN ALL opens none (01.022). */
    zone_err(s, SA_OPEN, 0, true, DATA_PROTECT, 0x55, 0x0e);
    check_zone(s, zs(3), C_CLOSED, zs(3) + 1);
    /* Writes to the open zones go on; closing one makes room. */
    write_ok(s, zs(5), 1, 1);
    zone_ok(s, SA_CLOSE, zs(2), false);
    write_ok(s, zs(6), 1, 1);
    check_zone(s, zs(6), C_IMP, zs(6) + 1);
    /* FINISH ALL needs no resources. */
    zone_ok(s, SA_FINISH, 0, true);
    check_zone(s, zs(3), C_FULL, zs(4));
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * REPORT ZONES
 */

static void test_report_zones(void)
{
    ZrScsi *s = boot(GEOMETRY);
    ZrZoneDesc d[40];
    uint32_t list;
    ZrScsiResp r;
    uint8_t hdr[64];
    uint8_t cdb[16];
    size_t n, i;
    static const struct {
        uint8_t option;
        size_t n;
        unsigned first;
    } filters[] = {
        { 0x01, 8, 8 }, { 0x02, 1, 2 }, { 0x03, 1, 3 }, { 0x04, 1, 4 },
        { 0x05, 1, 5 }, { 0x06, 1, 6 }, { 0x07, 1, 7 }, { 0x08, 0, 0 },
        { 0x10, 0, 0 }, { 0x11, 0, 0 }, { 0x3e, 0, 0 }, { 0x3f, 2, 0 },
    };

    /* The whole device. */
    n = report(s, 0, 0, false, 64 + 40 * 64, &list, d, 40, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(n, ==, NZ);
    g_assert_cmpuint(list, ==, NZ * 64);
    g_assert_cmpuint(r.resid, ==, (40 - NZ) * 64);
    for (i = 0; i < NZ; i++) {
        g_assert_cmpuint(d[i].start, ==, zs(i));
        g_assert_cmpuint(d[i].len, ==, ZB);
        g_assert_cmpuint(d[i].type, ==, i < NCONV ? 0x1 : 0x2);
        g_assert_cmpuint(d[i].cond, ==, i < NCONV ? C_NOT_WP : C_EMPTY);
        g_assert_cmphex(d[i].wp, ==, i < NCONV ? UINT64_MAX : zs(i));
    }
    zr_cdb_report_zones(cdb, 0, 64, false, 0);
    cmd(s, cdb, NULL, 0, hdr, 64, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldq_be_p(&hdr[8]), ==, NBLOCKS - 1);   /* MAX LBA */
    g_assert_cmpuint(ldq_be_p(&hdr[16]), ==, 0);    /* no gap zones */

    /* One zone in each condition: every reporting option. */
    write_ok(s, zs(2), 1, 1);
    zone_ok(s, SA_OPEN, zs(3), false);
    write_ok(s, zs(4), 1, 1);
    zone_ok(s, SA_CLOSE, zs(4), false);
    zone_ok(s, SA_FINISH, zs(5), false);
    inject(s, "inject-read-only", zs(6));
    inject(s, "inject-offline", zs(7));
    for (i = 0; i < ARRAY_SIZE(filters); i++) {
        n = report(s, 0, filters[i].option, false, 64 + 40 * 64, &list, d,
                   40, &r);
        zr_assert_good(&r);
        g_assert_cmpuint(n, ==, filters[i].n);
        g_assert_cmpuint(list, ==, filters[i].n * 64);
        if (n) {
            g_assert_cmpuint(d[0].start, ==, zs(filters[i].first));
        }
    }

    /* Allocation length and PARTIAL (ZBC-2 ZONE LIST LENGTH). */
    n = report(s, 0, 0, false, 64 + 3 * 64, &list, d, 40, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(n, ==, 3);
    g_assert_cmpuint(list, ==, NZ * 64);
    n = report(s, 0, 0, true, 64 + 3 * 64, &list, d, 40, &r);
    g_assert_cmpuint(n, ==, 3);
    g_assert_cmpuint(list, ==, 3 * 64);
    n = report(s, 0, 0, true, 64 + 64 + 10, &list, d, 40, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmpuint(list, ==, 64);
    n = report(s, 0, 0, true, 64, &list, d, 40, &r);
    g_assert_cmpuint(list, ==, 0);
    memset(hdr, 0xee, sizeof(hdr));
    zr_cdb_report_zones(cdb, 0, 32, false, 0);
    cmd(s, cdb, NULL, 0, hdr, 32, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmphex(hdr[32], ==, 0xee);
    g_assert_cmpuint(ldl_be_p(&hdr[0]), ==, NZ * 64);
    zr_cdb_report_zones(cdb, 0, 0, false, 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);

    /* The first zone is the one containing the LBA; to the last one. */
    n = report(s, zs(3) + 5, 0, false, 64 + 40 * 64, &list, d, 40, &r);
    g_assert_cmpuint(n, ==, NZ - 3);
    g_assert_cmpuint(d[0].start, ==, zs(3));
    n = report(s, NBLOCKS - 1, 0, false, 64 + 40 * 64, &list, d, 40, &r);
    g_assert_cmpuint(n, ==, 1);
    g_assert_cmpuint(d[0].start, ==, zs(NZ - 1));
    n = report(s, zs(9), 0x01, false, 64 + 40 * 64, &list, d, 40, &r);
    g_assert_cmpuint(n, ==, NZ - 9);

    /* Beyond MAXIMUM LBA (01.010); reserved reporting options (01.011). */
    report(s, NBLOCKS, 0, false, 128, &list, d, 1, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    report(s, 0, 0x0a, false, 128, &list, d, 1, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    report(s, 0, 0x12, false, 128, &list, d, 1, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * Zone capacity below zone size: gap zones
 */

static void test_gap_zones(void)
{
    ZrScsi *s = boot("size=1M,zone-size=64K,zone-capacity=48K,conv-zones=2");
    const uint64_t cap = 12;
    ZrZoneDesc d[40];
    uint8_t cdb[16], buf[64];
    uint32_t list;
    ZrScsiResp r;
    size_t n, i;

    vpd(s, 0xb6, buf, 64, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[23], ==, 0x08);             /* constant offsets */
    g_assert_cmpuint(ldq_be_p(&buf[24]), ==, ZB);   /* granularity */

    n = report(s, 0, 0, false, 64 + 40 * 64, &list, d, 40, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(n, ==, NCONV + 2 * (NZ - NCONV));
    g_assert_cmpuint(list, ==, n * 64);
    for (i = NCONV; i < NZ; i++) {
        const ZrZoneDesc *z = &d[NCONV + 2 * (i - NCONV)];

        g_assert_cmpuint(z[0].type, ==, 0x2);
        g_assert_cmpuint(z[0].start, ==, zs(i));
        g_assert_cmpuint(z[0].len, ==, cap);
        g_assert_cmpuint(z[1].type, ==, 0x5);       /* GAP */
        g_assert_cmpuint(z[1].cond, ==, C_NOT_WP);
        g_assert_cmpuint(z[1].start, ==, zs(i) + cap);
        g_assert_cmpuint(z[1].len, ==, ZB - cap);
    }
    /* ZONE STARTING LBA GRANULARITY in the header, as in VPD B6h. */
    zr_cdb_report_zones(cdb, 0, 64, false, 0);
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldq_be_p(&buf[16]), ==, ZB);
    n = report(s, 0, 0x3e, false, 64 + 40 * 64, &list, d, 40, &r);
    g_assert_cmpuint(n, ==, NZ - NCONV);
    g_assert_cmpuint(d[0].start, ==, zs(2) + cap);
    n = report(s, 0, 0x3f, false, 64 + 40 * 64, &list, d, 40, &r);
    g_assert_cmpuint(n, ==, NZ);
    /* A start LBA in a gap zone reports from that gap zone. */
    n = report(s, zs(3) + cap + 1, 0, false, 64 + 40 * 64, &list, d, 40, &r);
    g_assert_cmpuint(d[0].type, ==, 0x5);
    g_assert_cmpuint(d[0].start, ==, zs(3) + cap);

    /* Writes: up to the capacity, not across it, not into the gap. */
    write_ok(s, zs(2), 8, 1);
    write_err(s, zs(2) + 8, 8, ILLEGAL, 0x21, 0x05);
    write_err(s, zs(2) + cap, 1, ILLEGAL, 0x21, 0x09);     /* 05.373 */
    write_ok(s, zs(2) + 8, 4, 1);
    check_zone(s, zs(2), C_FULL, zs(2) + cap);
    write_err(s, zs(2) + cap + 1, 1, ILLEGAL, 0x21, 0x09);
    /* Zone management naming a gap zone (05.323/333/353). */
    zone_err(s, SA_OPEN, zs(3) + cap, false, ILLEGAL, 0x21, 0x09);
    zone_err(s, SA_RESET, zs(3) + cap, false, ILLEGAL, 0x21, 0x09);
    zone_err(s, SA_RESET, zs(3) + cap + 1, false, ILLEGAL, 0x24, 0x00);
    /* FINISH stops at the capacity; gap zones read as zeros (05.363). */
    zone_ok(s, SA_FINISH, zs(3), false);
    check_zone(s, zs(3), C_FULL, zs(3) + cap);
    {
        uint8_t data[4 * BS];

        read16(s, zs(3) + cap, 4, data, &r);
        zr_assert_good(&r);
        g_assert_cmphex(data[0], ==, 0);
    }
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * Block sizes, smaller last zone, geometry errors
 */

static void test_512_blocks(void)
{
    g_autofree char *img = make_image(1024 * 1024, 0);
    ZrScsi *s = boot_drive(img, "logical_block_size=512,zone-size=64K,"
                           "conv-zones=2");
    const uint64_t zb = 128;        /* 64 KiB in 512-byte blocks */
    uint8_t cdb[16], buf[4096], data[4096];
    ZrScsiResp r;

    zr_cdb_rc16(cdb, 32);
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldq_be_p(&buf[0]), ==, 1024 * 1024 / 512 - 1);
    g_assert_cmpuint(ldl_be_p(&buf[8]), ==, 512);
    g_assert_cmpuint(zone_at(s, 2 * zb).len, ==, zb);
    g_assert_cmpuint(zone_at(s, 2 * zb).start, ==, 2 * zb);

    memset(data, 0x5c, sizeof(data));
    zr_cdb_rw16(cdb, WRITE_16, 2 * zb, 8);
    cmd(s, cdb, data, sizeof(data), NULL, 0, &r);
    zr_assert_good(&r);
    check_zone(s, 2 * zb, C_IMP, 2 * zb + 8);
    zr_cdb_rw16(cdb, WRITE_16, 2 * zb + 7, 1);
    cmd(s, cdb, data, 512, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x04);
    zr_cdb_rw16(cdb, READ_16, 2 * zb, 8);
    cmd(s, cdb, NULL, 0, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert(!memcmp(buf, data, sizeof(buf)));
    vpd(s, 0xb0, buf, 64, &r);
    g_assert_cmpuint(ldl_be_p(&buf[8]), ==, 2 * 1024 * 1024 / 512);
    zr_scsi_stop(s);
    unlink(img);
}

static void test_smaller_last_zone(void)
{
    ZrScsi *s = boot("size=1056K,zone-size=64K,conv-zones=2");
    ZrZoneDesc d[20];
    uint32_t list;
    ZrScsiResp r;
    size_t n;

    n = report(s, 0, 0, false, 64 + 20 * 64, &list, d, 20, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(n, ==, NZ + 1);
    g_assert_cmpuint(d[NZ].start, ==, zs(NZ));
    g_assert_cmpuint(d[NZ].len, ==, 8);
    write_err(s, zs(NZ), 9, ILLEGAL, 0x21, 0x00);
    write_ok(s, zs(NZ), 8, 1);
    check_zone(s, zs(NZ), C_FULL, zs(NZ) + 8);
    zr_scsi_stop(s);
}

static void test_geometry_errors(void)
{
    static const struct {
        const char *props;
        const char *msg;
    } bad[] = {
        { "'zone-size': 3000", "zone-size 3000 is not a multiple of the "
          "logical block size 4096" },
        { "'zone-size': 12288", "zone size 3 blocks is not a power of two" },
        { "'zone-size': 65536, 'zone-capacity': 131072",
          "exceeds the zone size" },
        { "'logical_block_size': 1024", "is not supported (512 or 4096)" },
        { "'size': 1000000", "size 1000000 is not a multiple" },
        { "'zone-size': 65536, 'conv-zones': 16",
          "leave no sequential write required zone" },
        { "'zone-size': 65536, 'conv-zones': 2, 'max-open': 15",
          "max open zones (15) exceeds the number of sequential write "
          "required zones (14)" },
        { "'zone-size': 65536, 'zone-capacity': 49152, 'size': 1081344",
          "must be a multiple of zone-size" },
        { "'serial': '0123456789012345678901234567890123456789'",
          "at most 36 characters" },
        { "'size': 65536, 'zone-size': 131072",
          "smaller than one zone" },
        { "'logical_block_size': 512, 'physical_block_size': 4096, "
          "'zone-size': 2048", "zone-size 2048 is not a multiple of the "
          "physical block size 4096" },
        { "'logical_block_size': 512, 'physical_block_size': 4096, "
          "'zone-size': 65536, 'zone-capacity': 33280",
          "zone-capacity 33280 is not a multiple of the physical block" },
        { "'logical_block_size': 512, 'physical_block_size': 4096, "
          "'zone-size': 65536, 'size': 1049088",
          "is not a multiple of the physical block size 4096" },
    };
    g_autofree char *fw = zr_firmware_args();
    QTestState *qts = qtest_initf("%s-machine q35 -nodefaults "
                                  "-device virtio-scsi-pci,id=vs0", fw);
    size_t i;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_autofree char *json = g_strdup_printf(
            "{ 'driver': 'scsi-zbc', 'id': 'bad', 'bus': 'vs0.0', %s%s }",
            strstr(bad[i].props, "'size'") ? "" : "'size': 1048576, ",
            bad[i].props);
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'device_add', "
                               "'arguments': %p }",
                               qobject_from_json(json, &error_abort));
        const char *desc;

        g_assert(qdict_haskey(rsp, "error"));
        desc = qdict_get_str(qdict_get_qdict(rsp, "error"), "desc");
        if (!strstr(desc, bad[i].msg)) {
            g_test_message("got: %s", desc);
        }
        g_assert_nonnull(strstr(desc, bad[i].msg));
        qobject_unref(rsp);
    }
    /* A good one plugs and unplugs. */
    qtest_qmp_device_add(qts, "scsi-zbc", "good", "{ 'bus': 'vs0.0', "
                         "'size': 1048576, 'zone-size': 65536 }");
    qtest_qmp_device_del(qts, "good");
    qtest_quit(qts);
}

/* device_add of @props; returns the error's description, or NULL. */
static char *try_device_add(QTestState *qts, const char *props)
{
    g_autofree char *json = g_strdup_printf("{ 'driver': 'scsi-zbc', %s }",
                                            props);
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'device_add', "
                           "'arguments': %p }",
                           qobject_from_json(json, &error_abort));
    char *desc = NULL;

    if (qdict_haskey(rsp, "error")) {
        desc = g_strdup(qdict_get_str(qdict_get_qdict(rsp, "error"),
                                      "desc"));
    }
    qobject_unref(rsp);
    return desc;
}

/*
 * An HBA with an iothread (virtio-scsi iothread=, or iothread-vq-mapping)
 * would run the disk outside the BQL: realize refuses it with an error
 * that says why, for drive-backed and null-backed disks
 * (realize is the same for -device and device_add); the same HBA without
 * an iothread takes the disk.
 */
static void test_iothread(void)
{
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    QTestState *qts = qtest_initf("%s-machine q35 -nodefaults "
        "-object iothread,id=io0 "
        "-drive if=none,id=d0,file=%s,format=raw "
        "-device virtio-scsi-pci,id=vs0,iothread=io0 "
        "-device virtio-scsi-pci,id=vs1 "
        "-device '{ \"driver\": \"virtio-scsi-pci\", \"id\": \"vs2\", "
        "\"iothread-vq-mapping\": [ { \"iothread\": \"io0\" } ] }'",
        fw, img);
    static const char *const bad[] = {
        "'bus': 'vs0.0', 'size': 1048576, 'zone-size': 65536",
        "'bus': 'vs0.0', 'drive': 'd0', 'zone-size': 65536",
        "'bus': 'vs2.0', 'size': 1048576, 'zone-size': 65536",
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_autofree char *err = try_device_add(qts, bad[i]);

        g_assert_nonnull(err);
        g_assert_nonnull(strstr(err, "does not support iothreads"));
    }
    g_assert_null(try_device_add(qts, "'id': 'ok', 'bus': 'vs1.0', "
                                 "'drive': 'd0', 'zone-size': 65536"));
    qtest_qmp_assert_success(qts, "{ 'execute': 'query-status' }");
    qtest_quit(qts);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * Bad input: one malformed CDB, parameter list or LBA range per test.
 * Each asserts the sense data the standard gives, then that the LU and
 * QEMU still answer (alive()).
 */

/* The LU answers TEST UNIT READY and QEMU its monitor. */
static void alive(ZrScsi *s)
{
    uint8_t tur[16] = { TEST_UNIT_READY };
    ZrScsiResp r;

    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    qtest_qmp_assert_success(zr_scsi_qts(s), "{ 'execute': 'query-status' }");
}

/* alive(), then shut QEMU down. */
static void stop_alive(ZrScsi *s)
{
    alive(s);
    zr_scsi_stop(s);
}

/* MODE SELECT(6) of a parameter list of @len bytes. */
static void mode_select6(ZrScsi *s, const uint8_t *list, size_t len,
                         ZrScsiResp *r)
{
    uint8_t cdb[16] = { MODE_SELECT, 0x10, 0, 0, len };

    cmd(s, cdb, list, len, NULL, 0, r);
}

/* Boot, send MODE SELECT(10) (or (6)) of @list, expect ILLEGAL REQUEST. */
static void bad_mode_select(bool ten, const uint8_t *list, size_t len,
                            uint8_t asc)
{
    ZrScsi *s = boot(GEOMETRY);
    ZrScsiResp r;

    if (ten) {
        mode_select(s, 0x10, list, len, &r);
    } else {
        mode_select6(s, list, len, &r);
    }
    zr_assert_sense(&r, ILLEGAL, asc, 0x00);
    stop_alive(s);
}

/*
 * SPC-5: a BLOCK DESCRIPTOR LENGTH that is not one whole descriptor is an
 * INVALID FIELD IN PARAMETER LIST.  With bdlen = 1 and LONGLBA the device
 * used to read the block length at bytes 20-23 of a 9-byte list (a heap
 * over-read that valgrind and ASan report).
 */
static void test_bad_mode_select_bdlen_odd(void)
{
    uint8_t list[9] = { 0 };

    list[4] = 0x01;                                 /* LONGLBA */
    stw_be_p(&list[6], 1);                          /* BLOCK DESC. LENGTH */
    bad_mode_select(true, list, sizeof(list), 0x26);
}

/* LONGLBA with a short (8-byte) descriptor: not one long descriptor. */
static void test_bad_mode_select_longlba_short_bd(void)
{
    uint8_t list[16] = { 0 };

    list[4] = 0x01;
    stw_be_p(&list[6], 8);
    stl_be_p(&list[12], BS);
    bad_mode_select(true, list, sizeof(list), 0x26);
}

/* A block descriptor running past the list: PARAMETER LIST LENGTH ERROR. */
static void test_bad_mode_select_bd_past_list(void)
{
    uint8_t list[16] = { 0 };

    list[4] = 0x01;
    stw_be_p(&list[6], 16);                         /* 8 bytes are there */
    bad_mode_select(true, list, sizeof(list), 0x1a);
    stw_be_p(&list[6], 0xffff);
    bad_mode_select(true, list, sizeof(list), 0x1a);
}

/* MODE SELECT(6): bdlen 255 in a 4-byte list, half a descriptor. */
static void test_bad_mode_select6_lengths(void)
{
    uint8_t list[12] = { 0 };

    list[3] = 0xff;
    bad_mode_select(false, list, 4, 0x1a);
    list[3] = 4;
    bad_mode_select(false, list, 8, 0x26);
    bad_mode_select(false, list, 3, 0x1a);          /* short header */
}

/* The longest MODE SELECT(10) list: a page of code 0 after the header. */
static void test_bad_mode_select_long_list(void)
{
    g_autofree uint8_t *list = g_malloc0(0xffff);

    bad_mode_select(true, list, 0xffff, 0x26);
}

/*
 * 512-byte logical blocks in 4096-byte physical blocks: writes in
 * sequential zones are whole physical blocks (ZBC-2; libzbc 01.075), the
 * write pointer stays where it was; conventional zones take any length.
 */
#define PB_GEOMETRY "logical_block_size=512,physical_block_size=4096," \
                    "size=1M,zone-size=64K,conv-zones=2"
#define PB_ZB       128                 /* 64 KiB in 512-byte blocks */

static void write512(ZrScsi *s, uint64_t lba, uint32_t nb, ZrScsiResp *r)
{
    g_autofree uint8_t *buf = g_malloc0(nb * 512);
    uint8_t cdb[16];

    zr_cdb_rw16(cdb, WRITE_16, lba, nb);
    cmd(s, cdb, buf, nb * 512, NULL, 0, r);
}

static void test_bad_write_physical_end(void)
{
    ZrScsi *s = boot(PB_GEOMETRY);
    ZrScsiResp r;

    write512(s, 2 * PB_ZB, 3, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x04);
    check_zone(s, 2 * PB_ZB, C_EMPTY, 2 * PB_ZB);
    write512(s, 2 * PB_ZB, 8, &r);
    zr_assert_good(&r);
    write512(s, 2 * PB_ZB + 8, 9, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x04);
    check_zone(s, 2 * PB_ZB, C_IMP, 2 * PB_ZB + 8);
    g_assert_cmpuint(qom_u64(s, "stats.unaligned-writes"), ==, 2);
    stop_alive(s);
}

static void test_bad_write_physical_start(void)
{
    ZrScsi *s = boot(PB_GEOMETRY);
    ZrScsiResp r;

    /* Off the write pointer and off a physical block. */
    write512(s, 3 * PB_ZB + 1, 7, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x04);
    check_zone(s, 3 * PB_ZB, C_EMPTY, 3 * PB_ZB);
    /* Conventional zones: any alignment. */
    write512(s, 1, 3, &r);
    zr_assert_good(&r);
    stop_alive(s);
}

/* ZBC OUT ZONE COUNT: 1 is the same as 0, above 1 is refused unless ALL. */
static void test_bad_zone_count(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16];
    ZrScsiResp r;

    zr_cdb_zbc_out(cdb, SA_OPEN, zs(2), false);
    stw_be_p(&cdb[12], 2);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    check_zone(s, zs(2), C_EMPTY, zs(2));
    stw_be_p(&cdb[12], 0xffff);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    stw_be_p(&cdb[12], 1);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    check_zone(s, zs(2), C_EXP, zs(2));
    /* ALL ignores ZONE ID and ZONE COUNT. */
    zr_cdb_zbc_out(cdb, SA_CLOSE, UINT64_MAX, true);
    stw_be_p(&cdb[12], 0xffff);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    check_zone(s, zs(2), C_EMPTY, zs(2));
    stop_alive(s);
}

/* ZONE ID beyond the capacity, for every service action (libzbc 01.024). */
static void test_bad_zone_id_beyond(void)
{
    static const uint8_t sas[] = { SA_CLOSE, SA_FINISH, SA_OPEN, SA_RESET };
    ZrScsi *s = boot(GEOMETRY);
    size_t i;

    for (i = 0; i < ARRAY_SIZE(sas); i++) {
        zone_err(s, sas[i], NBLOCKS, false, ILLEGAL, 0x21, 0x00);
        zone_err(s, sas[i], UINT64_MAX, false, ILLEGAL, 0x21, 0x00);
    }
    stop_alive(s);
}

/* READ/WRITE ranges that wrap around 2^64 or end past the capacity. */
static void test_bad_rw_range(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16], buf[2 * BS];
    ZrScsiResp r;

    zr_cdb_rw16(cdb, READ_16, UINT64_MAX, 2);
    cmd(s, cdb, NULL, 0, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw16(cdb, READ_16, NBLOCKS - 1, 2);
    cmd(s, cdb, NULL, 0, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw16(cdb, WRITE_16, UINT64_MAX - 1, 2);
    cmd(s, cdb, buf, sizeof(buf), NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw10(cdb, WRITE_10, 0xffffffff, 2);
    cmd(s, cdb, buf, sizeof(buf), NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    /* SBC-4: the LBA is checked even when nothing is transferred. */
    zr_cdb_rw10(cdb, READ_10, NBLOCKS, 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    stop_alive(s);
}

/* SYNCHRONIZE CACHE checks its range too (SBC-4). */
static void test_bad_sync_range(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16];
    ZrScsiResp r;

    zr_cdb_rw16(cdb, SYNCHRONIZE_CACHE_16, NBLOCKS, 0);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw16(cdb, SYNCHRONIZE_CACHE_16, 1, UINT32_MAX);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    zr_cdb_rw10(cdb, SYNCHRONIZE_CACHE, NBLOCKS - 1, 2);
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    stop_alive(s);
}

/* REPORT ZONES: reserved options, start LBAs beyond MAXIMUM LBA. */
static void test_bad_report_fields(void)
{
    static const uint8_t opts[] = { 0x09, 0x0a, 0x0f, 0x12, 0x20, 0x3d };
    ZrScsi *s = boot(GEOMETRY);
    ZrZoneDesc d[1];
    uint32_t list;
    ZrScsiResp r;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(opts); i++) {
        report(s, 0, opts[i], false, 128, &list, d, 1, &r);
        zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    }
    report(s, NBLOCKS, 0, true, 128, &list, d, 1, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    report(s, UINT64_MAX, 0, false, 128, &list, d, 1, &r);
    zr_assert_sense(&r, ILLEGAL, 0x21, 0x00);
    stop_alive(s);
}

/* REPORT ZONES allocation lengths shorter than the header: cut, GOOD. */
static void test_bad_report_short_alloc(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16], buf[64];
    ZrScsiResp r;
    uint32_t alloc;

    for (alloc = 1; alloc < 64; alloc += 9) {
        memset(buf, 0xee, sizeof(buf));
        zr_cdb_report_zones(cdb, 0, alloc, alloc & 1, 0);
        cmd(s, cdb, NULL, 0, buf, alloc, &r);
        zr_assert_good(&r);
        g_assert_cmpuint(r.resid, ==, 0);
        if (alloc >= 4) {
            g_assert_cmpuint(ldl_be_p(buf), ==, alloc & 1 ? 0 : NZ * 64);
        }
    }
    stop_alive(s);
}

/*
 * 65536 zones; an allocation length of 3 MiB gets the 2 MiB bound: the
 * header and 32767 descriptors.  PARTIAL = 0: ZONE LIST LENGTH counts all
 * the zones; PARTIAL = 1: the descriptors returned.
 */
static void test_bad_report_capped(void)
{
    const uint32_t alloc = 3 * 1024 * 1024, max = 2 * 1024 * 1024;
    const uint32_t nzones = 65536, zb = 4;
    ZrScsi *s = boot("size=1G,zone-size=16K,conv-zones=1");
    g_autofree uint8_t *buf = g_malloc(alloc);
    uint8_t cdb[16];
    ZrScsiResp r;
    int partial;

    for (partial = 0; partial < 2; partial++) {
        uint32_t ndesc = (max - 64) / 64;
        const uint8_t *last = &buf[64 + (ndesc - 1) * 64];

        zr_cdb_report_zones(cdb, 0, alloc, partial, 0);
        cmd(s, cdb, NULL, 0, buf, alloc, &r);
        zr_assert_good(&r);
        g_assert_cmpuint(r.resid, ==, alloc - max);
        g_assert_cmpuint(ldl_be_p(buf), ==,
                         (partial ? ndesc : nzones) * 64);
        g_assert_cmpuint(ldq_be_p(&last[16]), ==, (uint64_t)(ndesc - 1) * zb);
        /* The host goes on from the zone after the last one it got. */
        zr_cdb_report_zones(cdb, (uint64_t)ndesc * zb, alloc, partial, 0);
        cmd(s, cdb, NULL, 0, buf, alloc, &r);
        zr_assert_good(&r);
        g_assert_cmpuint(ldl_be_p(buf), ==,
                         (partial ? ndesc : nzones - ndesc) * 64);
        g_assert_cmpuint(ldq_be_p(&buf[64 + 16]), ==, (uint64_t)ndesc * zb);
    }
    stop_alive(s);
}

/* REPORT SUPPORTED OPERATION CODES: reserved options, odd lengths. */
static void test_bad_rsoc_fields(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t buf[512];
    ZrScsiResp r;
    uint8_t opt;

    for (opt = 4; opt < 8; opt++) {
        rsoc(s, opt, READ_16, 0, buf, sizeof(buf), &r);
        zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    }
    /* A service action that does not fit the 5-bit field: unsupported. */
    rsoc(s, 0x02, 0x94, 0x0104, buf, sizeof(buf), &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[1], ==, 0x01);
    rsoc(s, 0x80, 0, 0, buf, 1, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    stop_alive(s);
}

/* INQUIRY: unknown VPD pages, allocation lengths cutting a page. */
static void test_bad_inquiry_fields(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t buf[8];
    ZrScsiResp r;

    vpd(s, 0xff, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    vpd(s, 0xb2, buf, sizeof(buf), &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    vpd(s, 0x83, buf, 3, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    g_assert_cmphex(buf[1], ==, 0x83);
    stop_alive(s);
}

/* MODE SENSE: saved values, subpages other than FFh of page 3Fh. */
static void test_bad_mode_sense_fields(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t buf[255];
    ZrScsiResp r;

    mode_sense(s, true, 0, 0xff, 0, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x39, 0x00);
    mode_sense(s, true, 0, 0x3f, 0xfe, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    mode_sense(s, false, 0, 0x00, 0, buf, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    stop_alive(s);
}

/* Vendor bits of the CONTROL byte and reserved bytes of READ CAPACITY. */
static void test_bad_control_byte(void)
{
    ZrScsi *s = boot(GEOMETRY);
    uint8_t cdb[16], buf[64];
    ZrScsiResp r;

    zr_cdb_rc16(cdb, 32);
    cdb[15] = 0x80;
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_cdb_rc16(cdb, 32);
    cdb[14] = 0x01;                                 /* PMI (obsolete) */
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    zr_cdb_report_zones(cdb, 0, 64, false, 0);
    cdb[15] = 0x01;                                 /* LINK */
    cmd(s, cdb, NULL, 0, buf, 64, &r);
    zr_assert_sense(&r, ILLEGAL, 0x24, 0x00);
    stop_alive(s);
}

/*
 * block_resize is refused (the disk does not share the resize
 * permission: its zone layout is fixed), the capacity stays.
 */
static void test_bad_block_resize(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    uint8_t cdb[16], buf[32];
    ZrScsiResp r;
    QDict *rsp;

    rsp = qtest_qmp(zr_scsi_qts(s), "{ 'execute': 'block_resize', "
                    "'arguments': { 'device': 'd0', 'size': %d } }",
                    2 * NBLOCKS * BS);
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    zr_cdb_rc16(cdb, 32);
    cmd(s, cdb, NULL, 0, buf, 32, &r);
    zr_assert_good(&r);
    g_assert_cmpuint(ldq_be_p(&buf[0]), ==, NBLOCKS - 1);
    stop_alive(s);
    unlink(img);
}

/*
 * A snapshot drains the drive (the disk's drained_begin/end, which hold
 * the HBA and the dispatch engine) and puts an overlay under it; the disk
 * goes on with its zones and data as before.
 */
static void test_drain_snapshot(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    g_autofree char *ovl = g_strdup_printf("%s.qcow2", img);
    ZrScsi *s = boot_drive(img, GEOMETRY ",reorder=reverse");
    uint8_t data[2 * BS];
    ZrScsiResp r;

    write_ok(s, zs(2), 1, 0x21);
    qtest_qmp_assert_success(zr_scsi_qts(s), "{ 'execute': "
        "'blockdev-snapshot-sync', 'arguments': { 'device': 'd0', "
        "'snapshot-file': %s, 'format': 'qcow2' } }", ovl);
    write_ok(s, zs(2) + 1, 1, 0x22);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    read16(s, zs(2), 2, data, &r);
    zr_assert_good(&r);
    g_assert_cmphex(data[0], ==, 0x21);
    g_assert_cmphex(data[BS], ==, 0x22);
    stop_alive(s);
    unlink(ovl);
    unlink(img);
}

/*
 * FINISH with ALL finishes the open and CLOSED zones only; what each
 * skipped reads as zeros, but is not written on the drive (the image keeps
 * its old contents there); EMPTY zones stay as they are.
 */
static void test_finish_all_zeroes(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0xaa);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    g_autofree uint8_t *disk = NULL;
    g_autofree uint8_t *buf = g_malloc(ZB * BS);
    uint8_t cdb[16] = { SYNCHRONIZE_CACHE_16 };
    size_t len;
    ZrScsiResp r;
    size_t i;
    int z;

    write_ok(s, zs(2), 1, 0x11);                    /* IMPLICITLY OPEN */
    zone_ok(s, SA_OPEN, zs(3), false);              /* EXPLICITLY OPEN */
    write_ok(s, zs(4), 2, 0x44);
    zone_ok(s, SA_CLOSE, zs(4), false);             /* CLOSED */
    zone_ok(s, SA_FINISH, 0, true);
    check_zone(s, zs(2), C_FULL, zs(3));
    check_zone(s, zs(3), C_FULL, zs(4));
    check_zone(s, zs(4), C_FULL, zs(5));
    check_zone(s, zs(5), C_EMPTY, zs(5));
    for (z = 2; z <= 5; z++) {
        read16(s, zs(z), ZB, buf, &r);
        zr_assert_good(&r);
        for (i = 0; i < ZB * BS; i++) {
            uint8_t want = z == 2 && i < BS ? 0x11 :
                           z == 4 && i < 2 * BS ? 0x44 : 0;

            g_assert_cmphex(buf[i], ==, want);
        }
    }
    cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    g_assert(g_file_get_contents(img, (char **)&disk, &len, NULL));
    g_assert_cmpuint(len, ==, NBLOCKS * BS);
    for (i = zs(2) * BS; i < zs(6) * BS; i++) {
        uint8_t want = i < (zs(2) + 1) * BS ? 0x11 :
                       i >= zs(4) * BS && i < (zs(4) + 2) * BS ? 0x44 : 0xaa;

        if (disk[i] != want) {
            g_test_message("byte %zu: 0x%02x", i, disk[i]);
        }
        g_assert_cmphex(disk[i], ==, want);
    }
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * A zone operation takes effect after the writes already started in its
 * zone: RESET and FINISH rung with writes of the zone wait for them.
 */
static void test_zone_op_after_writes(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0xaa);
    ZrScsi *s = boot_drive(img, GEOMETRY);
    static uint8_t data[4 * BS];
    uint8_t cdbs[16 * 3], buf[BS];
    ZrScsiReq q[3];
    ZrScsiResp r;

    memset(data, 0x41, sizeof(data));
    zr_cdb_rw16(&cdbs[0], WRITE_16, zs(2), 4);
    zr_cdb_rw16(&cdbs[16], WRITE_16, zs(2) + 4, 4);
    zr_cdb_zbc_out(&cdbs[32], SA_RESET, zs(2), false);
    q[0] = (ZrScsiReq) { .cdb = &cdbs[0], .out = data, .out_len = 4 * BS };
    q[1] = (ZrScsiReq) { .cdb = &cdbs[16], .out = data, .out_len = 4 * BS };
    q[2] = (ZrScsiReq) { .cdb = &cdbs[32] };
    zr_scsi_batch(s, q, 3);
    for (int i = 0; i < 3; i++) {
        zr_assert_good(&q[i].resp);
    }
    g_assert_cmpuint(qom_u64(s, "stats.zone-op-waits"), ==, 1);
    check_zone(s, zs(2), C_EMPTY, zs(2));
    read16(s, zs(2) + 4, 1, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x00);

    /* FINISH: the data before it is there, the rest reads as zeros. */
    zr_cdb_zbc_out(&cdbs[32], SA_FINISH, zs(2), false);
    zr_scsi_batch(s, q, 3);
    for (int i = 0; i < 3; i++) {
        zr_assert_good(&q[i].resp);
    }
    g_assert_cmpuint(qom_u64(s, "stats.zone-op-waits"), ==, 2);
    check_zone(s, zs(2), C_FULL, zs(3));
    read16(s, zs(2) + 7, 1, buf, &r);
    g_assert_cmphex(buf[0], ==, 0x41);
    read16(s, zs(2) + 8, 1, buf, &r);
    g_assert_cmphex(buf[0], ==, 0x00);
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * scsi-zbc on a drive whose backend fails once (blkdebug): the drive's
 * error options, the image, the event, the sector, the errno.
 */
#define BLKDEBUG_ZBC \
    "-drive if=none,id=d0,format=raw,%s,file.driver=blkdebug," \
    "file.image.driver=file,file.image.filename=%s," \
    "file.inject-error.0.event=%s,file.inject-error.0.sector=%" PRIu64 \
    ",file.inject-error.0.errno=%d,file.inject-error.0.once=on " \
    "-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,lun=0,drive=d0," GEOMETRY

/* The VM stopped on an I/O error (werror=stop); resume it. */
static void stopped_then_cont(ZrScsi *s, void *opaque)
{
    QTestState *qts = zr_scsi_qts(s);
    QDict *rsp;

    qtest_qmp_eventwait(qts, "STOP");
    rsp = qtest_qmp(qts, "{ 'execute': 'query-status' }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(rsp, "return"), "status"),
                    ==, "io-error");
    qobject_unref(rsp);
    /* Nothing moved while the write waits. */
    *(uint64_t *)opaque = qom_u64(s, "stats.write-failures");
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
}

/*
 * werror: a backend ENOSPC stops the VM by default (-drive werror=enospc);
 * the write waits with its zone's write pointer reserved and completes on
 * cont; the write queued behind it in the zone completes after it.  With
 * werror=report the same error is reported (MEDIUM ERROR is not what a
 * full host disk is: SPACE ALLOCATION FAILED) and nothing moves; with
 * rerror=stop a read stops too.
 */
static void test_werror(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    uint64_t sec = zs(2) * (BS / 512);
    const char *blkdebug = BLKDEBUG_ZBC;
    uint64_t failures = UINT64_MAX;
    uint8_t buf[BS], cdbs[16 * 2];
    ZrScsiReq q[2];
    ZrScsiResp r;
    ZrScsi *s;

    s = zr_scsi_start(blkdebug, "werror=enospc", img, "write_aio", sec, 28);
    for (int i = 0; i < 2; i++) {
        zr_cdb_rw16(&cdbs[16 * i], WRITE_16, zs(2) + i, 1);
        memset(buf, 0x31, sizeof(buf));
        q[i] = (ZrScsiReq) { .cdb = &cdbs[16 * i], .out = buf,
                             .out_len = BS };
    }
    zr_scsi_batch_hook(s, q, 2, stopped_then_cont, &failures);
    g_assert_cmpuint(failures, ==, 0);
    zr_assert_good(&q[0].resp);
    zr_assert_good(&q[1].resp);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    read16(s, zs(2), 1, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x31);
    zr_scsi_stop(s);

    s = zr_scsi_start(blkdebug, "werror=report", img, "write_aio", sec, 28);
    write_err(s, zs(2), 1, DATA_PROTECT, 0x27, 0x07);
    check_zone(s, zs(2), C_EMPTY, zs(2));
    zr_scsi_stop(s);

    s = zr_scsi_start(blkdebug, "rerror=stop", img, "read_aio", sec, 28);
    write_ok(s, zs(2), 1, 0x32);
    zr_cdb_rw16(cdbs, READ_16, zs(2), 1);
    q[0] = (ZrScsiReq) { .cdb = cdbs, .in = buf, .in_len = BS };
    zr_scsi_batch_hook(s, q, 1, stopped_then_cont, &failures);
    zr_assert_good(&q[0].resp);
    g_assert_cmphex(buf[0], ==, 0x32);
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * A write overtaken by a failed earlier write of its zone answers UNALIGNED
 * WRITE, but its data may still be on its way to the drive: the guest's
 * retry of the failed write waits until it has landed
 * (stats.orphan-waits), so the old transfer cannot finish after the
 * retry's and bring old data back.  The drive: blkdebug failing the first
 * write at once, over null-co taking 200 ms a request.
 */
static void test_orphan_wait(void)
{
    ZrScsi *s = zr_scsi_start(
        "-drive if=none,id=d0,format=raw,werror=report,"
        "file.driver=blkdebug,file.image.driver=null-co,"
        "file.image.size=%d,file.image.latency-ns=200000000,"
        "file.inject-error.0.event=write_aio,"
        "file.inject-error.0.sector=%" PRIu64 ",file.inject-error.0.errno=5,"
        "file.inject-error.0.once=on,file.inject-error.0.immediately=on "
        "-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,lun=0,drive=d0,"
        GEOMETRY, NBLOCKS * BS, zs(2) * (BS / 512));
    uint8_t buf[BS], cdbs[16 * 2];
    ZrScsiReq q[3];

    memset(buf, 0x61, sizeof(buf));
    zr_cdb_rw16(&cdbs[0], WRITE_16, zs(2), 1);
    zr_cdb_rw16(&cdbs[16], WRITE_16, zs(2) + 1, 1);
    /* fails at once; overtaken, its data landing; the retry of the first */
    q[0] = (ZrScsiReq) { .cdb = &cdbs[0], .out = buf, .out_len = BS };
    q[1] = (ZrScsiReq) { .cdb = &cdbs[16], .out = buf, .out_len = BS };
    q[2] = (ZrScsiReq) { .cdb = &cdbs[0], .out = buf, .out_len = BS,
                         .after = 1 };
    zr_scsi_batch(s, q, 3);
    zr_assert_sense(&q[0].resp, 0x03, 0x0c, 0x00);
    zr_assert_sense(&q[1].resp, ILLEGAL, 0x21, 0x04);
    zr_assert_good(&q[2].resp);
    g_assert_cmpuint(q[1].done_order, <, q[2].done_order);
    g_assert_cmpuint(qom_u64(s, "stats.orphan-waits"), ==, 1);
    g_assert_cmpuint(qom_u64(s, "stats.writes-overtaken"), ==, 1);
    check_zone(s, zs(2), C_IMP, zs(2) + 1);
    zr_scsi_stop(s);
}

/*
 * ------------------------------------------------------------------------
 * Migration
 */

/*
 * The VM stopped on a backend error: migrate it to a file and a new QEMU
 * (@opaque: its arguments, the drive without the error injection), which
 * stays stopped on the error as the source was, then resume it there.
 */
static void stopped_migrate_cont(ZrScsi *s, void *opaque)
{
    QDict *rsp;

    qtest_qmp_eventwait(zr_scsi_qts(s), "STOP");
    zr_scsi_migrate(s, "%s", (const char *)opaque);
    rsp = qtest_qmp(zr_scsi_qts(s), "{ 'execute': 'query-status' }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(rsp, "return"), "status"),
                    ==, "io-error");
    qobject_unref(rsp);
    qtest_qmp_assert_success(zr_scsi_qts(s), "{ 'execute': 'cont' }");
}

/*
 * Commands in flight across a migration.  A write stopped on ENOSPC
 * (werror=enospc) and the write behind it in its zone, whose data is
 * already on the medium: on the destination the first is issued again in
 * its place and the second is reported after it, both GOOD (neither runs
 * again, so neither turns into UNALIGNED WRITE), with the write pointer
 * right behind them.  A read stopped on an error (rerror=stop) runs again
 * from the start on the destination.  The zone model and its counters
 * come along.
 */
static void test_migrate_in_flight(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    uint64_t sec = zs(2) * (BS / 512);
    const char *blkdebug = BLKDEBUG_ZBC;
    g_autofree char *dest = g_strdup_printf(
        "-drive if=none,id=d0,format=raw,file=%s "
        "-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,lun=0,drive=d0,"
        GEOMETRY, img);
    uint8_t buf[2 * BS], cdbs[16 * 3];
    uint64_t writes;
    ZrScsiReq q[3];
    ZrScsiResp r;
    ZrScsi *s;

    s = zr_scsi_start(blkdebug, "werror=enospc", img, "write_aio", sec, 28);
    write_ok(s, zs(3), 1, 0x33);
    writes = qom_u64(s, "stats.writes");
    for (int i = 0; i < 2; i++) {
        zr_cdb_rw16(&cdbs[16 * i], WRITE_16, zs(2) + i, 1);
        q[i] = (ZrScsiReq) { .cdb = &cdbs[16 * i], .out = buf + i * BS,
                             .out_len = BS };
    }
    memset(buf, 0x31, BS);
    memset(buf + BS, 0x32, BS);
    zr_scsi_batch_hook(s, q, 2, stopped_migrate_cont, dest);
    zr_assert_good(&q[0].resp);
    zr_assert_good(&q[1].resp);
    /* All the data moved (on the source): nothing left to transfer. */
    g_assert_cmpuint(q[0].resp.resid, ==, 0);
    g_assert_cmpuint(q[1].resp.resid, ==, 0);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    check_zone(s, zs(3), C_IMP, zs(3) + 1);
    g_assert_cmpuint(qom_u64(s, "stats.writes"), ==, writes + 2);
    g_assert_cmpuint(qom_u64(s, "stats.unaligned-writes"), ==, 0);
    read16(s, zs(2), 2, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x31);
    g_assert_cmphex(buf[BS], ==, 0x32);
    write_ok(s, zs(2) + 2, 1, 0x34);
    zr_scsi_stop(s);

    /*
     * Zone operations waiting behind the stopped write run again on the
     * destination in the order they arrived: FINISH, then RESET, so the
     * zone ends EMPTY (the other way round it would be FULL).
     */
    s = zr_scsi_start(blkdebug, "werror=enospc", img, "write_aio",
                      sec + 4 * (BS / 512), 28);
    memset(buf, 0x51, sizeof(buf));
    zr_cdb_rw16(&cdbs[0], WRITE_16, zs(2) + 4, 1);
    zr_cdb_zbc_out(&cdbs[16], SA_FINISH, zs(2), false);
    zr_cdb_zbc_out(&cdbs[32], SA_RESET, zs(2), false);
    write_ok(s, zs(2), 4, 0x50);
    q[0] = (ZrScsiReq) { .cdb = &cdbs[0], .out = buf, .out_len = BS };
    q[1] = (ZrScsiReq) { .cdb = &cdbs[16] };
    q[2] = (ZrScsiReq) { .cdb = &cdbs[32] };
    zr_scsi_batch_hook(s, q, 3, stopped_migrate_cont, dest);
    zr_assert_good(&q[0].resp);
    zr_assert_good(&q[1].resp);
    zr_assert_good(&q[2].resp);
    check_zone(s, zs(2), C_EMPTY, zs(2));
    zr_scsi_stop(s);

    s = zr_scsi_start(blkdebug, "rerror=stop", img, "read_aio", sec, 5);
    write_ok(s, zs(2), 1, 0x41);
    write_ok(s, zs(2) + 1, 1, 0x42);
    zr_cdb_rw16(cdbs, READ_16, zs(2), 2);
    q[0] = (ZrScsiReq) { .cdb = cdbs, .in = buf, .in_len = 2 * BS };
    memset(buf, 0, sizeof(buf));
    zr_scsi_batch_hook(s, q, 1, stopped_migrate_cont, dest);
    zr_assert_good(&q[0].resp);
    g_assert_cmphex(buf[0], ==, 0x41);
    g_assert_cmphex(buf[2 * BS - 1], ==, 0x42);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    zr_scsi_stop(s);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * Zone state on a drive of its own (zone-state=)
 */

#define ZS_DRIVES   "-drive if=none,id=d0,format=raw,file=%s " \
                    "-drive if=none,id=zs0,format=raw,file=%s "
#define ZS_DEVICE   "-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,lun=0," \
                    "drive=d0,zone-state=zs0,"

static ZrScsi *boot_state(const char *img, const char *state,
                          const char *props)
{
    return zr_scsi_start(ZS_DRIVES ZS_DEVICE "%s", img, state, props);
}

/* All the zone descriptors of the disk. */
static size_t report_all(ZrScsi *s, ZrZoneDesc *d, size_t max)
{
    uint32_t list;
    ZrScsiResp r;
    size_t n = report(s, 0, 0, false, 64 + 64 * max, &list, d, max, &r);

    zr_assert_good(&r);
    return n;
}

/*
 * Zones written, opened, closed, finished and made READ ONLY; QEMU quits
 * (SIGTERM: the VM stops, the state is written) and starts again on the
 * same drives: the same zones and data, open zones CLOSED (EMPTY when
 * nothing was written), and a third start reports exactly what the second
 * did.  The state drive starts as an empty file and is formatted.
 */
static void test_zone_state_restart(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0xaa);
    g_autofree char *state = make_image(0, 0);
    ZrZoneDesc a[NZ], b[NZ];
    uint8_t buf[3 * BS];
    ZrScsiResp r;
    ZrScsi *s;
    size_t n;

    s = boot_state(img, state, GEOMETRY);
    write_ok(s, zs(2), 2, 0x22);                    /* IMPLICITLY OPEN */
    zone_ok(s, SA_OPEN, zs(3), false);              /* EXPLICITLY OPEN */
    write_ok(s, zs(4), 3, 0x44);
    zone_ok(s, SA_OPEN, zs(4), false);              /* ... with data */
    write_ok(s, zs(5), ZB, 0x55);                   /* FULL */
    write_ok(s, zs(6), 1, 0x66);
    zone_ok(s, SA_FINISH, zs(6), false);            /* FULL, 1 written */
    write_ok(s, zs(7), 1, 0x77);
    zone_ok(s, SA_CLOSE, zs(7), false);             /* CLOSED */
    inject(s, "inject-read-only", zs(8));
    /* Each zone operation made it durable before completing. */
    g_assert_cmpuint(qom_u64(s, "stats.zone-state-syncs"), >=, 4);
    zr_scsi_stop(s);

    s = boot_state(img, state, GEOMETRY);
    check_zone(s, zs(2), C_CLOSED, zs(2) + 2);
    check_zone(s, zs(3), C_EMPTY, zs(3));
    check_zone(s, zs(4), C_CLOSED, zs(4) + 3);
    check_zone(s, zs(5), C_FULL, zs(6));
    check_zone(s, zs(6), C_FULL, zs(7));
    check_zone(s, zs(7), C_CLOSED, zs(7) + 1);
    g_assert_cmphex(zone_at(s, zs(8)).cond, ==, C_RO);
    check_zone(s, zs(9), C_EMPTY, zs(9));
    read16(s, zs(2), 3, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x22);
    g_assert_cmphex(buf[2 * BS - 1], ==, 0x22);
    g_assert_cmphex(buf[2 * BS], ==, 0x00);         /* above the wp */
    read16(s, zs(6), 2, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x66);
    g_assert_cmphex(buf[BS], ==, 0x00);             /* finished, unwritten */
    /* The zone goes on where it was. */
    write_err(s, zs(2), 1, ILLEGAL, 0x21, 0x04);
    write_ok(s, zs(2) + 2, 1, 0x23);
    n = report_all(s, a, NZ);
    zr_scsi_stop(s);

    s = boot_state(img, state, GEOMETRY);
    g_assert_cmpuint(report_all(s, b, NZ), ==, n);
    for (size_t i = 0; i < n; i++) {
        g_assert_cmphex(b[i].cond, ==, a[i].cond == C_IMP ? C_CLOSED
                                                           : a[i].cond);
        g_assert_cmphex(b[i].wp, ==, a[i].wp);
        g_assert_cmphex(b[i].start, ==, a[i].start);
    }
    zr_scsi_stop(s);
    unlink(state);
    unlink(img);
}

/*
 * A guest reboot (system reset) is a power cycle for the zones: the open
 * ones come back CLOSED, with or without a zone-state drive, so a previous
 * boot's open zones do not use up max-open.
 */
static void test_zone_state_reset(void)
{
    ZrScsi *s = boot(GEOMETRY ",max-open=2");

    write_ok(s, zs(2), 1, 0x22);
    zone_ok(s, SA_OPEN, zs(3), false);
    g_assert_cmpuint(qom_u64(s, "zones.implicitly-open"), ==, 1);
    g_assert_cmpuint(qom_u64(s, "zones.explicitly-open"), ==, 1);
    qtest_system_reset(zr_scsi_qts(s));
    g_assert_cmpuint(qom_u64(s, "zones.implicitly-open"), ==, 0);
    g_assert_cmpuint(qom_u64(s, "zones.explicitly-open"), ==, 0);
    g_assert_cmpuint(qom_u64(s, "zones.closed"), ==, 1);
    zr_scsi_stop(s);
}

/* QEMU with @args exits at realize with an error containing @want. */
static void expect_start_error(const char *args, const char *want)
{
    g_autofree char *all = g_strdup_printf("-device virtio-scsi-pci,id=vs0 %s",
                                           args);

    zr_expect_start_error(all, want);
}

static void corrupt(const char *path, off_t off, size_t len)
{
    g_autofree uint8_t *buf = g_malloc(len);
    int fd = open(path, O_RDWR);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pread(fd, buf, len, off), ==, len);
    for (size_t i = 0; i < len; i++) {
        buf[i] ^= 0x5a;
    }
    g_assert_cmpint(pwrite(fd, buf, len, off), ==, len);
    close(fd);
}

/* Every mismatch is an error at realize, never a silent re-format. */
static void test_zone_state_errors(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    g_autofree char *state = make_image(0, 0);
    g_autofree char *junk = make_image(64 * 1024, 0x5a);
    g_autofree char *args = NULL;
    ZrScsi *s;

#define ZS_ARGS(st, props) \
    g_strdup_printf(ZS_DRIVES ZS_DEVICE "%s", img, st, props)

    s = boot_state(img, state, GEOMETRY);
    write_ok(s, zs(2), 1, 0x22);
    zr_scsi_stop(s);

    args = ZS_ARGS(state, "size=1M,zone-size=128K,conv-zones=2");
    expect_start_error(args, "another geometry: zone size in blocks 16");
    g_free(args);
    args = ZS_ARGS(state, "size=1M,zone-size=64K,conv-zones=3");
    expect_start_error(args, "conventional zones 2");
    g_free(args);
    args = ZS_ARGS(junk, GEOMETRY);
    expect_start_error(args, "holds something else");
    g_free(args);
    args = g_strdup_printf("-device scsi-zbc,bus=vs0.0,"
                           "zone-state=zs0," GEOMETRY
                           " -drive if=none,id=zs0,format=raw,file=%s", state);
    expect_start_error(args, "zone-state needs a drive");
    g_free(args);

    /* One copy of table block 0 broken: the other one is used. */
    corrupt(state, 4096 + 100, 8);
    s = boot_state(img, state, GEOMETRY);
    check_zone(s, zs(2), C_CLOSED, zs(2) + 1);
    zr_scsi_stop(s);
    /* Both broken: an error. */
    corrupt(state, 4096 + 100, 8);
    corrupt(state, 2 * 4096 + 100, 8);
    args = ZS_ARGS(state, GEOMETRY);
    expect_start_error(args, "neither copy is valid");
    /* The superblock broken. */
    corrupt(state, 40, 1);
    expect_start_error(args, "fails its checksum");
    corrupt(state, 40, 1);
    /* Truncated. */
    g_assert_cmpint(truncate(state, 4096), ==, 0);
    expect_start_error(args, "truncated");

    /* zone-state-format=on formats it anew, and the junk file too. */
    s = boot_state(img, junk, GEOMETRY ",zone-state-format=on");
    check_zone(s, zs(2), C_EMPTY, zs(2));
    write_ok(s, zs(2), 1, 0x23);
    zr_scsi_stop(s);
    s = boot_state(img, junk, GEOMETRY);
    check_zone(s, zs(2), C_CLOSED, zs(2) + 1);
    zr_scsi_stop(s);
#undef ZS_ARGS
    unlink(junk);
    unlink(state);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * Reordering
 */

/* Three writes to zone 2 at wp, wp+1, wp+2 in one batch. */
static void batch_writes(ZrScsi *s, size_t n, ZrScsiReq *q, uint8_t *cdbs)
{
    static uint8_t data[BS];
    size_t i;

    for (i = 0; i < n; i++) {
        zr_cdb_rw16(&cdbs[16 * i], WRITE_16, zs(2) + i, 1);
        q[i] = (ZrScsiReq) { .cdb = &cdbs[16 * i], .out = data,
                             .out_len = BS };
    }
    zr_scsi_batch(s, q, n);
}

/*
 * A backend write error (blkdebug, EIO once) leaves the write pointer
 * where it was: the write answers MEDIUM ERROR, WRITE ERROR; a later write
 * of the zone that had started behind it answers UNALIGNED WRITE COMMAND,
 * its data, on the drive above the write pointer, reads as zeros; the
 * host's retry at the write pointer succeeds.
 */
static void test_write_error(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0xaa);
    uint64_t s2 = (zs(2) + 1) * (BS / 512), s3 = zs(3) * (BS / 512);
    ZrScsi *s = zr_scsi_start(
        "-drive if=none,id=d0,format=raw,file.driver=blkdebug,"
        "file.image.driver=file,file.image.filename=%s,"
        "file.inject-error.0.event=write_aio,"
        "file.inject-error.0.sector=%" PRIu64 ",file.inject-error.0.errno=5,"
        "file.inject-error.0.once=on,"
        "file.inject-error.1.event=write_aio,"
        "file.inject-error.1.sector=%" PRIu64 ",file.inject-error.1.errno=5,"
        "file.inject-error.1.once=on "
        "-device scsi-zbc,id=zbc0,bus=vs0.0,scsi-id=0,lun=0,drive=d0,"
        GEOMETRY, img, s2, s3);
    uint8_t buf[3 * BS];
    ZrScsiReq q[3];
    uint8_t cdbs[16 * 3];
    ZrScsiResp r;

    /* One write, alone: nothing moves. */
    write16(s, zs(3), 2, 0x33, &r);
    zr_assert_sense(&r, 0x03, 0x0c, 0x00);
    check_zone(s, zs(3), C_EMPTY, zs(3));
    write_ok(s, zs(3), 2, 0x34);
    check_zone(s, zs(3), C_IMP, zs(3) + 2);

    /* Three at once: the middle one fails, the last one never happened. */
    batch_writes(s, 3, q, cdbs);
    zr_assert_good(&q[0].resp);
    zr_assert_sense(&q[1].resp, 0x03, 0x0c, 0x00);
    zr_assert_sense(&q[2].resp, ILLEGAL, 0x21, 0x04);
    check_zone(s, zs(2), C_IMP, zs(2) + 1);
    read16(s, zs(2), 3, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[2 * BS], ==, 0x00);
    write_ok(s, zs(2) + 1, 2, 0x55);
    check_zone(s, zs(2), C_IMP, zs(2) + 3);
    read16(s, zs(2), 3, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[BS], ==, 0x55);
    g_assert_cmphex(buf[3 * BS - 1], ==, 0x55);
    zr_scsi_stop(s);
    unlink(img);
}

static void test_reorder(void)
{
    ZrScsi *s = boot(GEOMETRY ",reorder=reverse");
    ZrScsiReq q[8];
    uint8_t cdbs[16 * 8];
    uint8_t first[8], second[8];
    size_t i;

    /* Newest first: the two later writes start off the wp. */
    batch_writes(s, 3, q, cdbs);
    zr_assert_good(&q[0].resp);
    zr_assert_sense(&q[1].resp, ILLEGAL, 0x21, 0x04);
    zr_assert_sense(&q[2].resp, ILLEGAL, 0x21, 0x04);
    check_zone(s, zs(2), C_IMP, zs(2) + 1);
    g_assert_cmpuint(qom_u64(s, "stats.starts-reordered"), ==, 2);
    g_assert_cmpuint(qom_u64(s, "stats.unaligned-writes"), ==, 2);

    /* Switched at run time to arrival order: all succeed. */
    qom_set_str(s, "reorder", "none");
    zone_ok(s, SA_RESET, zs(2), false);
    batch_writes(s, 3, q, cdbs);
    for (i = 0; i < 3; i++) {
        zr_assert_good(&q[i].resp);
    }
    check_zone(s, zs(2), C_IMP, zs(2) + 3);
    g_assert_cmpuint(qom_u64(s, "stats.starts-reordered"), ==, 2);
    zr_scsi_stop(s);

    /* random: the same seed gives the same outcome on every run. */
    for (i = 0; i < 2; i++) {
        uint8_t *st = i ? second : first;
        size_t j, good = 0;

        s = boot(GEOMETRY ",reorder=random,reorder-seed=7");
        batch_writes(s, 8, q, cdbs);
        for (j = 0; j < 8; j++) {
            st[j] = q[j].resp.status;
            good += st[j] == GOOD;
        }
        g_assert_cmpuint(good, >=, 1);
        g_assert_cmpuint(qom_u64(s, "stats.starts-reordered"), >, 0);
        check_zone(s, zs(2), C_IMP, zs(2) + good);
        zr_scsi_stop(s);
    }
    g_assert(!memcmp(first, second, sizeof(first)));
}

/*
 * Migration with a zone-state drive: the destination takes the zone state
 * from the stream (open zones stay open: a migration is no power cycle),
 * and the guest's WCE (MODE SELECT) with the drive's cache following it,
 * and writes it to the drive it took over from the source, reading which
 * copy of each table block is the newer first, so a cold start afterwards
 * finds what the destination did.
 */
/* Whether the drive @id writes back (its cache on), as query-block says. */
static bool drive_writeback(QTestState *qts, const char *id)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-block' }");
    QList *list = qdict_get_qlist(rsp, "return");
    const QListEntry *e;
    bool wb = false, found = false;

    QLIST_FOREACH_ENTRY(list, e) {
        QDict *d = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(d, "device"), id)) {
            wb = qdict_get_bool(qdict_get_qdict(qdict_get_qdict(d, "inserted"),
                                                "cache"), "writeback");
            found = true;
        }
    }
    g_assert_true(found);
    qobject_unref(rsp);
    return wb;
}

static void test_migrate_zone_state(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    g_autofree char *state = make_image(0, 0);
    /* MODE SELECT(10): header, short block descriptor, Caching, WCE = 0 */
    uint8_t list[36] = { [7] = 8, [16] = 0x08, [17] = 0x12 };
    uint8_t cdb[16], buf[BS], sense[255];
    ZrScsiResp r;
    ZrScsi *s;

    s = boot_state(img, state, GEOMETRY);
    stl_be_p(&list[12], BS);
    mode_select(s, 0x10, list, sizeof(list), &r);
    zr_assert_good(&r);
    g_assert_false(drive_writeback(zr_scsi_qts(s), "d0"));
    write_ok(s, zs(2), 2, 0x22);
    zone_ok(s, SA_OPEN, zs(3), false);
    write_ok(s, zs(4), 1, 0x44);
    zone_ok(s, SA_CLOSE, zs(4), false);
    zr_scsi_migrate(s, ZS_DRIVES ZS_DEVICE "%s", img, state, GEOMETRY);
    /* The guest's WCE = 0 came along, and the drive follows it. */
    mode_sense(s, false, 0x08, 0x08, 0, sense, &r);
    zr_assert_good(&r);
    g_assert_cmphex(sense[6], ==, 0x00);
    g_assert_false(drive_writeback(zr_scsi_qts(s), "d0"));
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    check_zone(s, zs(3), C_EXP, zs(3));
    check_zone(s, zs(4), C_CLOSED, zs(4) + 1);
    write_ok(s, zs(2) + 2, 1, 0x23);
    zone_ok(s, SA_RESET, zs(4), false);
    zr_cdb_rw10(cdb, SYNCHRONIZE_CACHE, 0, 0);
    zr_scsi_cmd(s, cdb, NULL, 0, NULL, 0, &r);
    zr_assert_good(&r);
    zr_scsi_stop(s);

    s = boot_state(img, state, GEOMETRY);
    check_zone(s, zs(2), C_CLOSED, zs(2) + 3);
    check_zone(s, zs(3), C_EMPTY, zs(3));
    check_zone(s, zs(4), C_EMPTY, zs(4));
    read16(s, zs(2) + 2, 1, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x23);
    zr_scsi_stop(s);
    unlink(state);
    unlink(img);
}

static void hmp_ok(ZrScsi *s, const char *cmd)
{
    g_autofree char *out = qtest_hmp(zr_scsi_qts(s), "%s", cmd);

    g_assert_cmpstr(out, ==, "");
}

/*
 * savevm and loadvm on qcow2 (data and zone-state drives): loadvm brings
 * back the zones and the data of the snapshot, the zone-state drive
 * included, and the device goes on from there (a write at the snapshot's
 * write pointer is GOOD); a cold start finds what came after the loadvm.
 */
static void test_savevm_loadvm(void)
{
    g_autofree char *img = NULL, *state = NULL;
    const char *drives =
        "-drive if=none,id=d0,format=qcow2,file=%s "
        "-drive if=none,id=zs0,format=qcow2,file=%s " ZS_DEVICE GEOMETRY;
    uint8_t buf[BS];
    ZrScsiResp r;
    ZrScsi *s;

    if (!g_getenv("QTEST_QEMU_IMG")) {
        g_test_skip("QTEST_QEMU_IMG is not set");
        return;
    }
    img = zr_make_qcow2(NBLOCKS * BS);
    state = zr_make_qcow2(1 << 20);
    /*
     * Under LeakSanitizer, savevm's own leaks in QEMU need full stacks to
     * be suppressed (tests/qtest/zr-lsan.supp, scripts/check).
     */
    zr_scsi_binary_env("QTEST_QEMU_BINARY_SNAPSHOT");
    s = zr_scsi_start(drives, img, state);
    write_ok(s, zs(2), 2, 0x22);
    zone_ok(s, SA_OPEN, zs(3), false);
    hmp_ok(s, "savevm zr-snap");
    write_ok(s, zs(2) + 2, 1, 0x23);
    write_ok(s, zs(4), 1, 0x44);
    zone_ok(s, SA_CLOSE, zs(3), false);
    hmp_ok(s, "loadvm zr-snap");
    zr_scsi_resync(s);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    check_zone(s, zs(3), C_EXP, zs(3));
    check_zone(s, zs(4), C_EMPTY, zs(4));
    read16(s, zs(2) + 2, 1, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x00);
    write_ok(s, zs(2) + 2, 1, 0x24);
    zr_scsi_stop(s);

    s = zr_scsi_start(drives, img, state);
    check_zone(s, zs(2), C_CLOSED, zs(2) + 3);
    check_zone(s, zs(4), C_EMPTY, zs(4));
    read16(s, zs(2) + 2, 1, buf, &r);
    zr_assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0x24);
    zr_scsi_stop(s);
    zr_scsi_binary_env(NULL);
    unlink(state);
    unlink(img);
}

/*
 * ------------------------------------------------------------------------
 * The service-time model (lat-*, xfer-*, max-parallel)
 *
 * Under qtest QEMU_CLOCK_VIRTUAL moves only with clock_step, so each test
 * queues its commands, then (from the batch hook) steps the clock and
 * checks, after each step, how many commands the device has answered (the
 * used ring) and how many it has put in service.
 */

#define SVC_WAIT_US (10 * 1000 * 1000)

typedef struct SvcCheck {
    int64_t step;           /* ns to step the virtual clock */
    uint16_t answered;      /* commands of the batch answered after it */
    uint64_t starts;        /* stats.service-starts after it */
} SvcCheck;

typedef struct SvcPlan {
    uint64_t starts;        /* stats.service-starts before the first step */
    const SvcCheck *checks;
    size_t n;
    uint16_t used0;         /* the used index before the batch */
    const ZrScsiReq *read;  /* with data-in that must not be there yet */
    const uint8_t *data;    /* ... the data it will have */
    const char *snapshot;   /* overlay file: snapshot d0 (a drain) first */
} SvcPlan;

/* Wait (the main loop runs) until @s has answered @n of the batch. */
static void svc_wait_answered(ZrScsi *s, SvcPlan *p, uint16_t n)
{
    gint64 start = g_get_monotonic_time();

    while ((uint16_t)(zr_scsi_used_idx(s) - p->used0) < n) {
        g_assert_cmpint(g_get_monotonic_time() - start, <=, SVC_WAIT_US);
        g_usleep(1000);
    }
}

/* Wait until the model has started @n commands since boot. */
static void svc_wait_starts(ZrScsi *s, uint64_t n)
{
    gint64 start = g_get_monotonic_time();

    while (qom_u64(s, "stats.service-starts") < n) {
        g_assert_cmpint(g_get_monotonic_time() - start, <=, SVC_WAIT_US);
        g_usleep(1000);
    }
}

static void svc_hook(ZrScsi *s, void *opaque)
{
    SvcPlan *p = opaque;
    QTestState *qts = zr_scsi_qts(s);
    size_t i;

    svc_wait_starts(s, p->starts);
    if (p->snapshot) {
        qtest_qmp_assert_success(qts, "{ 'execute': "
            "'blockdev-snapshot-sync', 'arguments': { 'device': 'd0', "
            "'snapshot-file': %s, 'format': 'qcow2' } }", p->snapshot);
    }
    for (i = 0; i < p->n; i++) {
        const SvcCheck *c = &p->checks[i];

        qtest_clock_step(qts, c->step);
        svc_wait_answered(s, p, c->answered);
        /* A round trip more: what was due has run by now. */
        g_assert_cmpuint(qom_u64(s, "stats.service-starts"), ==, c->starts);
        g_assert_cmpuint((uint16_t)(zr_scsi_used_idx(s) - p->used0), ==,
                         c->answered);
        if (p->read && !c->answered) {
            g_autofree uint8_t *buf = g_malloc(p->read->in_len);

            qtest_memread(qts, p->read->in_addr, buf, p->read->in_len);
            g_assert(memcmp(buf, p->data, p->read->in_len));
        }
    }
}

static void svc_batch(ZrScsi *s, ZrScsiReq *q, size_t n, SvcPlan *p)
{
    p->used0 = zr_scsi_used_idx(s);
    zr_scsi_batch_hook(s, q, n, svc_hook, p);
}

/* WRITE(16) of @nb blocks of @fill at @lba, as request @q. */
static void svc_write_req(ZrScsiReq *q, uint8_t *cdb, uint8_t *buf,
                          uint64_t lba, uint32_t nb, uint8_t fill)
{
    zr_cdb_rw16(cdb, WRITE_16, lba, nb);
    memset(buf, fill, nb * BS);
    *q = (ZrScsiReq) { .cdb = cdb, .out = buf, .out_len = nb * BS };
}

/*
 * One command, the model's @starts-th, answered exactly @ns after it
 * starts (and not 1 ns before) with GOOD.
 */
static void svc_timed(ZrScsi *s, ZrScsiReq *q, int64_t ns, uint64_t starts)
{
    const SvcCheck checks[] = {
        { ns - 1, 0, starts },
        { 1, 1, starts },
    };
    SvcPlan p = { .starts = starts, .checks = checks, .n = 2 };

    svc_batch(s, q, 1, &p);
    zr_assert_good(&q->resp);
}

static void svc_timed_write(ZrScsi *s, uint64_t lba, uint32_t nb,
                            int64_t ns, uint64_t starts)
{
    g_autofree uint8_t *buf = g_malloc(nb * BS);
    uint8_t cdb[16];
    ZrScsiReq q;

    svc_write_req(&q, cdb, buf, lba, nb, 0xa5);
    svc_timed(s, &q, ns, starts);
}

/* A command without data, as a ZrScsiReq. */
static ZrScsiReq svc_req(const uint8_t *cdb)
{
    return (ZrScsiReq) { .cdb = cdb };
}

static void svc_check_blocked(ZrScsi *s)
{
    QDict *rsp = qtest_qmp(zr_scsi_qts(s),
        "{ 'execute': 'migrate', 'arguments': { 'uri': 'file:/dev/null' } }");
    const char *desc;

    g_assert(qdict_haskey(rsp, "error"));
    desc = qdict_get_str(qdict_get_qdict(rsp, "error"), "desc");
    g_assert(strstr(desc, "service-time model"));
    qobject_unref(rsp);
}

/*
 * lat-write-ns=1000000: a write is answered 1 ms of virtual time after it
 * starts, null-backed or with a drive (whose I/O ends before); the time
 * is counted for each write.  Migration is blocked while the model is on.
 */
static void test_service_latency(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    ZrScsi *s = boot(GEOMETRY ",lat-write-ns=1000000");

    svc_timed_write(s, zs(2), 1, 1000000, 1);
    svc_timed_write(s, zs(2) + 1, 1, 1000000, 2);
    check_zone(s, zs(2), C_IMP, zs(2) + 2);
    g_assert_cmpuint(qom_u64(s, "stats.service-completions"), ==, 2);
    g_assert_cmpuint(qom_u64(s, "service.busy"), ==, 0);
    svc_check_blocked(s);
    zr_scsi_stop(s);

    s = boot_drive(img, GEOMETRY ",lat-write-ns=1000000");
    svc_timed_write(s, zs(3), 4, 1000000, 1);
    zr_scsi_stop(s);
    unlink(img);

    /* Model off (the defaults): answered with no clock step at all. */
    s = boot(GEOMETRY);
    write_ok(s, zs(2), 1, 0x11);
    g_assert_cmpuint(qom_u64(s, "stats.service-starts"), ==, 0);
    zr_scsi_stop(s);
}

/*
 * lat-other-ns times the zone operations and SYNCHRONIZE CACHE; a write
 * with no cost of its own, in service for 0 ns, needs no clock step.
 */
static void test_service_other(void)
{
    ZrScsi *s = boot(GEOMETRY ",lat-other-ns=300000");
    uint8_t cdb[16];
    ZrScsiReq q;

    zr_cdb_zbc_out(cdb, SA_OPEN, zs(2), false);
    q = svc_req(cdb);
    svc_timed(s, &q, 300000, 1);
    check_zone(s, zs(2), C_EXP, zs(2));
    zr_cdb_rw16(cdb, SYNCHRONIZE_CACHE_16, 0, 0);
    q = svc_req(cdb);
    svc_timed(s, &q, 300000, 2);
    write_ok(s, zs(2), 1, 0x11);
    g_assert_cmpuint(qom_u64(s, "stats.service-starts"), ==, 3);
    zr_scsi_stop(s);
}

/*
 * A drain (a snapshot of the drive) with one write in service and one
 * waiting for the slot: both go on afterwards on time.
 */
static void test_service_drain(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0);
    g_autofree char *ovl = g_strdup_printf("%s.qcow2", img);
    ZrScsi *s = boot_drive(img, GEOMETRY ",lat-write-ns=1000000,"
                           "max-parallel=1");
    g_autofree uint8_t *buf = g_malloc(BS);
    uint8_t cdbs[2][16];
    ZrScsiReq q[2];
    const SvcCheck checks[] = {
        { 999999, 0, 1 },
        { 1, 1, 2 },
        { 1000000, 2, 2 },
    };
    SvcPlan p = { .starts = 1, .checks = checks, .n = ARRAY_SIZE(checks),
                  .snapshot = ovl };

    svc_write_req(&q[0], cdbs[0], buf, zs(2), 1, 0x11);
    svc_write_req(&q[1], cdbs[1], buf, zs(3), 1, 0x11);
    svc_batch(s, q, 2, &p);
    zr_assert_good(&q[0].resp);
    zr_assert_good(&q[1].resp);
    check_zone(s, zs(3), C_IMP, zs(3) + 1);
    zr_scsi_stop(s);
    unlink(ovl);
    unlink(img);
}

/* xfer-write-ns-per-4k: a 64 KiB write costs 16 times a 4 KiB one. */
static void test_service_xfer(void)
{
    ZrScsi *s = boot(GEOMETRY ",xfer-write-ns-per-4k=10000");

    svc_timed_write(s, zs(2), 1, 10000, 1);
    svc_timed_write(s, zs(3), ZB, 16 * 10000, 2);
    check_zone(s, zs(3), C_FULL, zs(3) + ZB);
    zr_scsi_stop(s);

    /* Added to the latency. */
    s = boot(GEOMETRY ",lat-write-ns=1000,xfer-write-ns-per-4k=10000");
    svc_timed_write(s, zs(2), 2, 1000 + 2 * 10000, 1);
    zr_scsi_stop(s);
}

/*
 * max-parallel=1: of two writes to different zones queued together the
 * second starts only when the first's service time is over; without the
 * limit both start at once.
 */
static void test_service_max_parallel(void)
{
    uint8_t cdbs[2][16];
    g_autofree uint8_t *buf = g_malloc(BS);
    ZrScsiReq q[2];
    const SvcCheck serial[] = {
        { 999999, 0, 1 },
        { 1, 1, 2 },
        { 999999, 1, 2 },
        { 1, 2, 2 },
    };
    const SvcCheck parallel[] = {
        { 999999, 0, 2 },
        { 1, 2, 2 },
    };
    SvcPlan p = { .starts = 1, .checks = serial, .n = ARRAY_SIZE(serial) };
    ZrScsi *s = boot(GEOMETRY ",lat-write-ns=1000000,max-parallel=1");

    svc_write_req(&q[0], cdbs[0], buf, zs(2), 1, 0x11);
    svc_write_req(&q[1], cdbs[1], buf, zs(3), 1, 0x11);
    svc_batch(s, q, 2, &p);
    zr_assert_good(&q[0].resp);
    zr_assert_good(&q[1].resp);
    g_assert_cmpuint(q[0].done_order, ==, 1);
    g_assert_cmpuint(qom_u64(s, "stats.service-busy-max"), ==, 1);
    zr_scsi_stop(s);

    s = boot(GEOMETRY ",lat-write-ns=1000000");
    p = (SvcPlan) { .starts = 2, .checks = parallel,
                    .n = ARRAY_SIZE(parallel) };
    svc_write_req(&q[0], cdbs[0], buf, zs(2), 1, 0x11);
    svc_write_req(&q[1], cdbs[1], buf, zs(3), 1, 0x11);
    svc_batch(s, q, 2, &p);
    zr_assert_good(&q[0].resp);
    zr_assert_good(&q[1].resp);
    g_assert_cmpuint(qom_u64(s, "stats.service-busy-max"), ==, 2);
    zr_scsi_stop(s);
}

/*
 * lat-read-ns: neither a read's data nor its status reaches the guest
 * before the time is over; an error (CHECK CONDITION) waits as well.
 */
static void test_service_read(void)
{
    g_autofree char *img = make_image(NBLOCKS * BS, 0x5a);
    g_autofree uint8_t *want = g_malloc(2 * BS);
    g_autofree uint8_t *got = g_malloc0(2 * BS);
    ZrScsi *s = boot_drive(img, GEOMETRY ",lat-read-ns=500000,"
                           "unrestricted-read=off");
    const SvcCheck checks[] = {
        { 499999, 0, 1 },
        { 1, 1, 1 },
    };
    const SvcCheck err[] = {
        { 499999, 0, 2 },
        { 1, 1, 2 },
    };
    SvcPlan p = { .starts = 1, .checks = checks, .n = 2 };
    uint8_t cdb[16];
    ZrScsiReq q;

    memset(want, 0x5a, 2 * BS);
    zr_cdb_rw16(cdb, READ_16, 0, 2);
    q = (ZrScsiReq) { .cdb = cdb, .in = got, .in_len = 2 * BS };
    p.read = &q;
    p.data = want;
    svc_batch(s, &q, 1, &p);
    zr_assert_good(&q.resp);
    g_assert(!memcmp(got, want, 2 * BS));

    /* Above the write pointer of an empty zone: the sense is timed too. */
    zr_cdb_rw16(cdb, READ_16, zs(2), 1);
    q = (ZrScsiReq) { .cdb = cdb, .in = got, .in_len = BS };
    p = (SvcPlan) { .starts = 2, .checks = err, .n = 2 };
    svc_batch(s, &q, 1, &p);
    zr_assert_sense(&q.resp, ILLEGAL, 0x21, 0x06);
    zr_scsi_stop(s);
    unlink(img);
}

static void svc_reset_hook(ZrScsi *s, void *opaque)
{
    svc_wait_starts(s, 1);
    g_assert_cmpuint(qom_u64(s, "service.busy"), ==, 1);
    g_assert_cmpuint(zr_scsi_lun_reset(s), ==, 0);
}

/*
 * LOGICAL UNIT RESET with one write in service and one waiting for the
 * slot: both end, the slot is free again, and the LU goes on timing.
 */
static void test_service_reset(void)
{
    uint8_t cdbs[2][16], tur[16] = { TEST_UNIT_READY };
    g_autofree uint8_t *buf = g_malloc(BS);
    ZrScsi *s = boot(GEOMETRY ",lat-write-ns=1000000,max-parallel=1");
    ZrScsiReq q[2];
    ZrScsiResp r;

    svc_write_req(&q[0], cdbs[0], buf, zs(2), 1, 0x11);
    svc_write_req(&q[1], cdbs[1], buf, zs(3), 1, 0x11);
    zr_scsi_batch_hook(s, q, 2, svc_reset_hook, NULL);
    g_assert_cmpuint(q[0].resp.response, !=, 0);
    g_assert_cmpuint(q[1].resp.response, !=, 0);
    cmd(s, tur, NULL, 0, NULL, 0, &r);
    zr_assert_sense(&r, UNIT_ATTENTION, 0x29, 0x00);
    g_assert_cmpuint(qom_u64(s, "service.busy"), ==, 0);
    /* The cancelled write that waited left without its service time. */
    g_assert_cmpuint(qom_u64(s, "stats.service-starts"), ==, 2);
    svc_timed_write(s, zs(4), 1, 1000000, 3);
    g_assert_cmpuint(qom_u64(s, "service.busy"), ==, 0);
    zr_scsi_stop(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/scsi-zbc/inquiry", test_inquiry);
    qtest_add_func("/scsi-zbc/vpd", test_vpd);
    qtest_add_func("/scsi-zbc/vpd-unique", test_vpd_unique);
    qtest_add_func("/scsi-zbc/read-capacity", test_read_capacity);
    qtest_add_func("/scsi-zbc/sense-and-ready", test_sense_and_ready);
    qtest_add_func("/scsi-zbc/start-stop", test_start_stop);
    qtest_add_func("/scsi-zbc/mode-sense", test_mode_sense);
    qtest_add_func("/scsi-zbc/mode-select", test_mode_select);
    qtest_add_func("/scsi-zbc/rsoc", test_rsoc);
    qtest_add_func("/scsi-zbc/bad-cdbs", test_bad_cdbs);
    qtest_add_func("/scsi-zbc/write-rules", test_write_rules);
    qtest_add_func("/scsi-zbc/read-rules", test_read_rules);
    qtest_add_func("/scsi-zbc/read-restricted", test_read_restricted);
    qtest_add_func("/scsi-zbc/null-backed", test_null_backed);
    qtest_add_func("/scsi-zbc/sync-cache", test_sync_cache);
    qtest_add_func("/scsi-zbc/state-machine", test_state_machine);
    qtest_add_func("/scsi-zbc/zone-mgmt-errors", test_zone_mgmt_errors);
    qtest_add_func("/scsi-zbc/max-open", test_max_open);
    qtest_add_func("/scsi-zbc/report-zones", test_report_zones);
    qtest_add_func("/scsi-zbc/gap-zones", test_gap_zones);
    qtest_add_func("/scsi-zbc/512-blocks", test_512_blocks);
    qtest_add_func("/scsi-zbc/smaller-last-zone", test_smaller_last_zone);
    qtest_add_func("/scsi-zbc/geometry-errors", test_geometry_errors);
    qtest_add_func("/scsi-zbc/iothread", test_iothread);
    qtest_add_func("/scsi-zbc/reorder", test_reorder);
    qtest_add_func("/scsi-zbc/orphan-wait", test_orphan_wait);
    qtest_add_func("/scsi-zbc/migrate/in-flight", test_migrate_in_flight);
    qtest_add_func("/scsi-zbc/migrate/zone-state", test_migrate_zone_state);
    qtest_add_func("/scsi-zbc/migrate/savevm-loadvm", test_savevm_loadvm);
    qtest_add_func("/scsi-zbc/bad/mode-select-bdlen-odd",
                   test_bad_mode_select_bdlen_odd);
    qtest_add_func("/scsi-zbc/bad/mode-select-longlba-short-bd",
                   test_bad_mode_select_longlba_short_bd);
    qtest_add_func("/scsi-zbc/bad/mode-select-bd-past-list",
                   test_bad_mode_select_bd_past_list);
    qtest_add_func("/scsi-zbc/bad/mode-select6-lengths",
                   test_bad_mode_select6_lengths);
    qtest_add_func("/scsi-zbc/bad/mode-select-long-list",
                   test_bad_mode_select_long_list);
    qtest_add_func("/scsi-zbc/bad/write-physical-end",
                   test_bad_write_physical_end);
    qtest_add_func("/scsi-zbc/bad/write-physical-start",
                   test_bad_write_physical_start);
    qtest_add_func("/scsi-zbc/bad/zone-count", test_bad_zone_count);
    qtest_add_func("/scsi-zbc/bad/zone-id-beyond", test_bad_zone_id_beyond);
    qtest_add_func("/scsi-zbc/bad/rw-range", test_bad_rw_range);
    qtest_add_func("/scsi-zbc/bad/sync-range", test_bad_sync_range);
    qtest_add_func("/scsi-zbc/bad/report-fields", test_bad_report_fields);
    qtest_add_func("/scsi-zbc/bad/report-short-alloc",
                   test_bad_report_short_alloc);
    qtest_add_func("/scsi-zbc/bad/report-capped", test_bad_report_capped);
    qtest_add_func("/scsi-zbc/bad/rsoc-fields", test_bad_rsoc_fields);
    qtest_add_func("/scsi-zbc/bad/inquiry-fields", test_bad_inquiry_fields);
    qtest_add_func("/scsi-zbc/bad/mode-sense-fields",
                   test_bad_mode_sense_fields);
    qtest_add_func("/scsi-zbc/bad/control-byte", test_bad_control_byte);
    qtest_add_func("/scsi-zbc/bad/block-resize", test_bad_block_resize);
    qtest_add_func("/scsi-zbc/finish-all-zeroes", test_finish_all_zeroes);
    qtest_add_func("/scsi-zbc/write-error", test_write_error);
    qtest_add_func("/scsi-zbc/werror", test_werror);
    qtest_add_func("/scsi-zbc/zone-op-after-writes",
                   test_zone_op_after_writes);
    qtest_add_func("/scsi-zbc/zone-state/restart", test_zone_state_restart);
    qtest_add_func("/scsi-zbc/zone-state/reset", test_zone_state_reset);
    qtest_add_func("/scsi-zbc/zone-state/errors", test_zone_state_errors);
    qtest_add_func("/scsi-zbc/drain-snapshot", test_drain_snapshot);
    qtest_add_func("/scsi-zbc/service/latency", test_service_latency);
    qtest_add_func("/scsi-zbc/service/xfer", test_service_xfer);
    qtest_add_func("/scsi-zbc/service/max-parallel",
                   test_service_max_parallel);
    qtest_add_func("/scsi-zbc/service/read", test_service_read);
    qtest_add_func("/scsi-zbc/service/reset", test_service_reset);
    qtest_add_func("/scsi-zbc/service/other", test_service_other);
    qtest_add_func("/scsi-zbc/service/drain", test_service_drain);
    return g_test_run();
}
