/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtests of ufs-zoned across a migration (to a file, loaded by a new
 * QEMU): commands at every stage of their life when the VM stops --
 * rung and not fetched, fetched and pending in the dispatch engine, in
 * their modelled service time, done and waiting for room in a full CQ,
 * stopped at their LU on a host error (a write, which goes on there, and
 * a read, which runs again from its start) -- all complete on the
 * destination
 * with GOOD, in their order, none runs twice (no UNALIGNED WRITE), and
 * the data is where it was written; the counters, the reorder policy and
 * the link's hibernate state come along.
 *
 * Time only moves with clock_step, so what is in flight at the migration
 * is exact.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "scsi/constants.h"
#include "zr-ufs-helpers.h"

#define Z           ZONE_BLOCKS         /* first block of zone 1 */
#define LAT_1MS     "lat-write-ns=1000000,max-parallel=1"
#define FILE_LU     "-drive if=none,id=d0,format=raw,file=%s " \
                    "-device scsi-zbc,bus=ufs0.0,lun=0,drive=d0"

static char *make_image(void)
{
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp("zr-ufs-migrate-XXXXXX", &path, NULL);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, 16 * MiB), ==, 0);
    close(fd);
    return g_steal_pointer(&path);
}

/*
 * Two MCQ queue pairs and a scsi-zbc LU on @img with the drive options
 * @opts; with @event, the drive fails its first such I/O at zone 1's
 * start with @err (blkdebug).
 */
static char *lu_props(const char *img, const char *opts, const char *event,
                      int err)
{
    g_autofree char *file = event ?
        g_strdup_printf("file.driver=blkdebug,file.image.driver=file,"
                        "file.image.filename=%s,"
                        "file.inject-error.0.event=%s,"
                        "file.inject-error.0.sector=%d,"
                        "file.inject-error.0.errno=%d,"
                        "file.inject-error.0.once=on", img, event,
                        Z * (BLK / 512), err) :
        g_strdup_printf("file=%s", img);

    return g_strdup_printf("mcq-queues=2 -drive if=none,id=d0,format=raw,"
                           "%s,%s -device scsi-zbc,bus=ufs0.0,lun=0,"
                           "drive=d0", opts, file);
}

/* Blocks [Z, Z + @n) hold, each, the number of the slot that wrote it. */
static void check_data(Ufs *u, int slot, uint32_t n)
{
    g_autofree uint8_t *buf = g_malloc(n * BLK);
    uint8_t cdb[16];
    UfsResp r;
    uint32_t i;

    zr_cdb_rw16(cdb, READ_16, Z, n);
    scsi(u, slot, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, n * BLK, &r);
    assert_good(&r);
    for (i = 0; i < n; i++) {
        g_assert_cmphex(buf[i * BLK], ==, i);
        g_assert_cmphex(buf[(i + 1) * BLK - 1], ==, i);
    }
}

static void check_all_good(Ufs *u, uint32_t n)
{
    UfsResp r;
    uint32_t i;

    for (i = 0; i < n; i++) {
        get_resp(u, i, &r);
        g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
        assert_good(&r);
    }
    g_assert_cmpuint(qom_u64(u, "unaligned-writes"), ==, 0);
}

/*
 * Two queue pairs of four entries, SQ 1 re-created to complete into CQ 0
 * (UFSHCI 4.0 5.5: SQATTR.CQID), reorder=none, and six one-block writes
 * at the start of zone 1, three from each SQ, 4.5 ms into their 1 ms
 * service times (@props has LAT_1MS): three CQEs unread in CQ 0, one
 * done and waiting for CQ room, one in service, one pending.
 */
static Ufs *mcq_six_writes(const char *props)
{
    Ufs *u = ufs_start(props);
    int i;

    ufs_mcq_enable(u, 2, 4);
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), 0);
    wr(u, ufs_mcq_cfg_reg(1, A_SQATTR), QEN | 0 << 16 | (4 * 8 - 1));
    u->q[1].sq_tail = 0;
    qom_set_str(u, "reorder", "none");
    u->done = 0;
    for (i = 0; i < 6; i++) {
        ufs_queue_write(u, i / 3, i, Z + i);
    }
    ufs_mcq_ring(u, 0);
    ufs_mcq_ring(u, 1);
    ufs_step(u, 4500 * 1000);
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(0, CQTP)), ==, 3 * 32);
    return u;
}

/*
 * MCQ, one write in service at a time, 1 ms each, three from each of two
 * SQs into one CQ with room for three: at 4.5 ms three CQEs wait unread
 * in the CQ, the fourth write is done and waits for CQ room, the fifth
 * is in service and the sixth pending.  The destination finishes them in
 * order.
 */
static void test_mcq_in_flight(void)
{
    g_autofree char *img = make_image();
    g_autofree char *props = g_strdup_printf("mcq-queues=2,reorder=rr,"
                                             LAT_1MS " " FILE_LU, img);
    g_autofree char *policy = NULL;
    g_autofree char *log = NULL;
    g_autofree char *log_dst = NULL;
    uint64_t starts;
    UfsResp r;
    Ufs *u;

    u = mcq_six_writes(props);
    starts = qom_u64(u, "starts");
    log = qom_str(u, "start-log");

    ufs_migrate(u, props);
    g_assert_cmpuint(qom_u64(u, "starts"), ==, starts);
    log_dst = qom_str(u, "start-log");
    g_assert_cmpstr(log_dst, ==, log);
    policy = qom_str(u, "reorder");
    g_assert_cmpstr(policy, ==, "none");
    g_assert_cmphex(rd(u, ufs_mcq_sq_reg(0, CQTP)), ==, 3 * 32);
    wait_done(u, 0x3f);
    check_all_good(u, 6);
    g_assert_cmpuint(qom_u64(u, "starts"), ==, starts + 1);
    check_data(u, 8, 6);
    /* the write pointer is right behind them */
    write1(u, 9, Z + 6, 0x66, &r);
    assert_good(&r);
    ufs_stop(u);
    unlink(img);
}

/*
 * Legacy doorbell, two rings: at 1.5 ms slot 0 is done, slot 1 is in
 * service, slots 2 and 3 pending.  The doorbell register and the
 * commands come along.
 */
/*
 * The LU's host I/O (a file) completes on the main loop, which runs
 * between qtest commands, whatever the virtual clock says: read the
 * doorbell (no clock step) until it shows @want, a bounded number of
 * times.
 */
static void wait_doorbell(Ufs *u, uint32_t want)
{
    int i;

    for (i = 0; i < 100000 && rd(u, A_UTRLDBR) != want; i++) {
        /* each read is a main-loop turn */
    }
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, want);
}

static void test_legacy_in_flight(void)
{
    g_autofree char *img = make_image();
    g_autofree char *props = g_strdup_printf(LAT_1MS " " FILE_LU, img);
    uint8_t tur[16] = { TEST_UNIT_READY };
    g_autoptr(GString) want = g_string_new("");
    g_autofree char *log = NULL;
    g_autofree char *log_dst = NULL;
    UfsResp r;
    Ufs *u;
    int i;

    ufs_test_mode = "legacy";
    u = ufs_start(props);
    /*
     * 34 TEST UNIT READYs through slots 4-31, 4-9 first: with the two
     * writes started below, the 32-entry start log has wrapped, and it
     * must come across oldest first.
     */
    for (i = 0; i < 34; i++) {
        scsi(u, 4 + i % 28, 0, tur, UFS_UTP_NO_DATA_TRANSFER, NULL, 0, &r);
        assert_good(&r);
        if (i >= 4) {
            g_string_append_printf(want, "%d,", 4 + i % 28);
        }
    }
    g_string_append(want, "0,1");
    for (i = 0; i < 4; i++) {
        ufs_queue_write(u, 0, i, Z + i);
    }
    ring(u, 0x3);
    ring(u, 0xc);
    ufs_step(u, 1500 * 1000);
    wait_doorbell(u, 0xe);
    log = qom_str(u, "start-log");
    g_assert_cmpstr(log, ==, want->str);

    ufs_migrate(u, props);
    g_assert_cmphex(rd(u, A_UTRLDBR), ==, 0xe);
    log_dst = qom_str(u, "start-log");
    g_assert_cmpstr(log_dst, ==, log);
    wait_done(u, 0xf);
    check_all_good(u, 4);
    check_data(u, 8, 4);
    write1(u, 9, Z + 4, 0x44, &r);
    assert_good(&r);
    ufs_stop(u);
    ufs_test_mode = "mcq";
    unlink(img);
}

/*
 * A write stopped at its LU on ENOSPC (werror=enospc) and the write
 * behind it in its zone: the SCSI requests travel with the LU, the
 * controller's part with the controller.  The destination (its drive
 * without the injected error) is stopped on the error as the source was;
 * after `cont` both complete GOOD, neither runs twice.
 */
static void test_stopped_write(void)
{
    g_autofree char *img = make_image();
    g_autofree char *src = lu_props(img, "werror=enospc", "write_aio", 28);
    g_autofree char *dest = lu_props(img, "werror=enospc", NULL, 0);
    QDict *rsp;
    UfsResp r;
    Ufs *u;
    int i;

    u = ufs_start(src);
    ufs_mcq_enable(u, 2, 8);
    u->done = 0;
    for (i = 0; i < 2; i++) {
        ufs_queue_write(u, 0, i, Z + i);
    }
    ufs_mcq_ring(u, 0);
    ufs_step(u, 200 * 1000);
    qtest_qmp_eventwait(u->qts, "STOP");

    ufs_migrate(u, dest);
    rsp = qtest_qmp(u->qts, "{ 'execute': 'query-status' }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(rsp, "return"), "status"),
                    ==, "io-error");
    qobject_unref(rsp);
    qtest_qmp_assert_success(u->qts, "{ 'execute': 'cont' }");
    wait_done(u, 0x3);
    check_all_good(u, 2);
    check_data(u, 8, 2);
    write1(u, 9, Z + 2, 0x22, &r);
    assert_good(&r);
    ufs_stop(u);
    unlink(img);
}

/*
 * A read stopped at its LU on an error (rerror=stop): the LU runs it
 * again from its start on the destination, and the controller moves its
 * data again from the first byte.
 */
static void test_stopped_read(void)
{
    g_autofree char *img = make_image();
    g_autofree char *src = lu_props(img, "rerror=stop", "read_aio", 5);
    g_autofree char *dest = lu_props(img, "rerror=stop", NULL, 0);
    g_autofree uint8_t *buf = g_malloc0(2 * BLK);
    uint8_t cdb[16];
    UfsResp r;
    Ufs *u;

    u = ufs_start(src);
    ufs_mcq_enable(u, 2, 8);
    u->done = 0;
    write1(u, 0, Z, 0, &r);
    assert_good(&r);
    write1(u, 1, Z + 1, 1, &r);
    assert_good(&r);
    qtest_memset(u->qts, data_buf(u, 2), 0xee, 2 * BLK);
    zr_cdb_rw16(cdb, READ_16, Z, 2);
    prep_scsi(u, 2, 0, cdb, UFS_UTP_DEVICE_TO_HOST, 2 * BLK);
    ring(u, 1u << 2);
    ufs_step(u, 200 * 1000);
    qtest_qmp_eventwait(u->qts, "STOP");

    ufs_migrate(u, dest);
    qtest_qmp_assert_success(u->qts, "{ 'execute': 'cont' }");
    wait_done(u, 1u << 2);
    get_resp(u, 2, &r);
    g_assert_cmphex(r.ocs, ==, OCS_SUCCESS);
    assert_good(&r);
    g_assert_cmpuint(r.resid, ==, 0);
    qtest_memread(u->qts, data_buf(u, 2), buf, 2 * BLK);
    g_assert_cmphex(buf[0], ==, 0);
    g_assert_cmphex(buf[BLK], ==, 1);
    g_assert_cmphex(buf[2 * BLK - 1], ==, 1);
    ufs_stop(u);
    unlink(img);
}

/*
 * The link in hibernate (auto-hibernate after 1 ms idle) when the VM
 * moves: on the destination the next command brings it out (h8-exits),
 * and the counters came along.
 */
static void test_hibernate(void)
{
    const char *props = "auto-hibernate=on,h8-exit-latency=100000";
    uint64_t entries;
    UfsResp r;
    Ufs *u;

    u = ufs_start(props);
    ufs_mcq_enable(u, 2, 8);
    wr(u, A_AHIT, (3u << 10) | 1);      /* 1 ms */
    ufs_step(u, 2 * 1000 * 1000);
    entries = qom_u64(u, "h8-entries");
    g_assert_cmpuint(entries, >=, 1);

    ufs_migrate(u, props);
    g_assert_cmpuint(qom_u64(u, "h8-entries"), ==, entries);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, entries - 1);
    u->done = 0;
    write1(u, 0, Z, 0, &r);
    assert_good(&r);
    g_assert_cmpuint(qom_u64(u, "h8-exits"), ==, entries);
    ufs_stop(u);
}

static void hmp_ok(Ufs *u, const char *cmd)
{
    g_autofree char *out = qtest_hmp(u->qts, "%s", cmd);

    g_assert_cmpstr(out, ==, "");
}

/*
 * savevm with commands in flight (one done, one in service, one pending),
 * then the VM goes on (they complete, another write lands), then loadvm:
 * the snapshot's commands complete again from where they stood, GOOD, in
 * order, and the later write is gone with the rest of what came after.
 */
static void test_savevm_loadvm(void)
{
    g_autofree char *img = NULL;
    g_autofree char *props = NULL;
    g_autofree uint8_t *buf = g_malloc(BLK);
    UfsTestQueue saved_q[UFS_TEST_MAX_QUEUES];
    uint8_t cdb[16];
    UfsResp r;
    Ufs *u;
    int i;

    if (!g_getenv("QTEST_QEMU_IMG")) {
        g_test_skip("QTEST_QEMU_IMG is not set");
        return;
    }
    img = zr_make_qcow2(16 * MiB);
    props = g_strdup_printf("mcq-queues=2," LAT_1MS " -drive if=none,id=d0,"
                            "format=qcow2,file=%s -device scsi-zbc,"
                            "bus=ufs0.0,lun=0,drive=d0", img);
    /* savevm's own leaks under LeakSanitizer: tests/qtest/zr-lsan.supp */
    ufs_binary_env = "QTEST_QEMU_BINARY_SNAPSHOT";
    u = ufs_start(props);
    ufs_mcq_enable(u, 2, 8);
    u->done = 0;
    write1(u, 0, Z, 0, &r);
    assert_good(&r);
    for (i = 1; i < 4; i++) {
        ufs_queue_write(u, 0, i, Z + i);
    }
    ufs_mcq_ring(u, 0);
    ufs_step(u, 1500 * 1000);
    hmp_ok(u, "savevm zr-snap");
    memcpy(saved_q, u->q, sizeof(saved_q));

    wait_done(u, 0xe);
    write1(u, 4, Z + 4, 4, &r);
    assert_good(&r);
    hmp_ok(u, "loadvm zr-snap");
    /* the driver's view of the queues goes back with the guest's memory */
    memcpy(u->q, saved_q, sizeof(saved_q));
    u->done = 0;
    wait_done(u, 0xe);
    check_all_good(u, 4);
    check_data(u, 8, 4);
    zr_cdb_rw16(cdb, READ_16, Z + 4, 1);
    scsi(u, 9, 0, cdb, UFS_UTP_DEVICE_TO_HOST, buf, BLK, &r);
    assert_good(&r);
    g_assert_cmphex(buf[0], ==, 0);
    write1(u, 10, Z + 4, 0x44, &r);
    assert_good(&r);
    ufs_stop(u);
    ufs_binary_env = NULL;
    unlink(img);
}

/*
 * The controller's part of a migration stream is input we do not trust:
 * the stream of a VM with commands at every stage, with one to four bits
 * of the ufs-zoned section flipped (seeded), either loads or is refused
 * with a message; the destination never crashes, and one that loads runs
 * on (cont, 20 ms of guest time) without crashing.
 */
static void test_corrupt_stream(void)
{
    const char *props = "mcq-queues=2," LAT_1MS;
    g_autofree char *path = NULL;
    g_autofree char *args = ufs_args(props);
    Ufs *u;
    int fd;

    fd = g_file_open_tmp("zr-ufs-stream-XXXXXX", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    u = mcq_six_writes(props);
    zr_migrate_save(u->qts, path);
    ufs_stop(u);
    g_assert_cmpuint(zr_corrupt_stream_campaign(path, "/ufs-zoned", NULL, 8192,
                                                args, 40, 11), >, 0);
    unlink(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/ufs-zoned/migrate/mcq-in-flight", test_mcq_in_flight);
    qtest_add_func("/ufs-zoned/migrate/legacy-in-flight",
                   test_legacy_in_flight);
    qtest_add_func("/ufs-zoned/migrate/stopped-write", test_stopped_write);
    qtest_add_func("/ufs-zoned/migrate/stopped-read", test_stopped_read);
    qtest_add_func("/ufs-zoned/migrate/hibernate", test_hibernate);
    qtest_add_func("/ufs-zoned/migrate/savevm-loadvm", test_savevm_loadvm);
    qtest_add_func("/ufs-zoned/migrate/corrupt-stream", test_corrupt_stream);
    return g_test_run();
}
