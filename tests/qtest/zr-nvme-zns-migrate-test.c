/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtests of nvme-zns across a migration (to a file, loaded by a new
 * QEMU): commands at every stage of their life when the VM stops --
 * fetched and pending in the dispatch engine, in their modelled service
 * time, done with their CQE waiting for room in a full CQ, an outstanding
 * Asynchronous Event Request -- all complete on the destination, in their
 * order, none runs twice (no Zone Invalid Write), the data is where it
 * was written; the counters, the queues and the policy come along.  A
 * destination that does not match, or a damaged stream, is refused.
 *
 * Time only moves with clock_step, so what is in flight at the migration
 * is exact.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "zr-scsi-helpers.h"
#include "zr-nvme-helpers.h"

#define DEV(props)      "-device nvme-zns,id=nz0,addr=04.0" props
/* One write in service at a time, 1 ms each */
#define SLOW            ",reorder=rr,lat-write-ns=1000000," \
                        "xfer-write-ns-per-4k=0,max-parallel=1"

static char *mig_args(const char *img, const char *queues)
{
    return g_strdup_printf("-drive if=none,id=d0,file=%s,format=raw "
                           DEV(SLOW ",queues=%s")
                           " -device nvme-zns-ns,bus=nz0,drive=d0",
                           img, queues);
}

/*
 * Let @ns of guest time pass in small steps: the service timer's BH and
 * the file's I/O run on the main loop between qtest commands.
 */
static void run_for(Nzt *n, int64_t ns)
{
    int64_t t;

    for (t = 0; t < ns; t += NZT_STEP_NS) {
        nzt_step(n, NZT_STEP_NS);
    }
}

/* Queue a one-block write of @fill at @lba from page @page of the data */
static uint16_t queue_write(Nzt *n, uint16_t qid, uint64_t lba, int page,
                            uint8_t fill)
{
    uint64_t buf = n->data + (uint64_t)page * 4096;
    NvmeCmd cmd;

    qtest_memset(n->qts, buf, fill, 4096);
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, lba, 1, buf, 0);
    return nzt_queue(n, qid, &cmd);
}

/*
 * Queue pair 2 again: SQ 2 of 16 entries completing into CQ 2 of 4 (room
 * for three CQEs).  Poll with n->q[2].size = 4 once the commands are in.
 */
static void small_cq(Nzt *n)
{
    nzt_delete_q(n, 2, false);
    nzt_delete_q(n, 2, true);
    nzt_create_cq(n, 2, 4, n->q[2].cq, 0);
    nzt_create_sq(n, 2, 16, n->q[2].sq, 2);
    n->q[2] = (NztQueue) { .sq = n->q[2].sq, .cq = n->q[2].cq, .size = 16,
                           .phase = true };
}

/*
 * Six writes to zone 0 from SQ 2, whose CQ has room for three CQEs, an
 * AER outstanding: at 4.5 ms three CQEs wait unread, the fourth write is
 * done and its CQE waits for room, the fifth is in its service time and
 * the sixth pending.  The destination finishes them in order.  Thirty
 * writes to zone 1 before them wrap the 32-entry start log, which comes
 * along oldest first.
 */
static void test_in_flight(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = mig_args(img, "2");
    NvmeCmd aer = { .opcode = NVME_ADM_CMD_ASYNC_EV_REQ };
    g_autofree char *policy = NULL;
    g_autofree char *log = NULL;
    g_autofree char *log_dst = NULL;
    uint16_t cid[6], aer_cid, first_cid = 0;
    g_autofree char *want_head = NULL;
    g_autofree char *want_tail = NULL;
    g_auto(GStrv) entries = NULL;
    uint64_t starts, wp;
    uint8_t buf[6 * 4096];
    NvmeCqe cqe;
    Nzt *n;
    int i;

    n = nzt_start(args, 2);
    for (i = 0; i < 30; i++) {
        uint16_t c = queue_write(n, 1, 1024 + i, i % 6, 0x40);

        first_cid = i == 3 ? c : first_cid;
    }
    nzt_ring(n, 1);
    for (i = 0; i < 30; i++) {
        nzt_wait(n, 1, &cqe);
        g_assert_cmphex(NZT_SC(&cqe), ==, NVME_SUCCESS);
    }
    small_cq(n);
    nzt_qom_set_str(n, "reorder", "none");
    aer_cid = nzt_queue(n, 0, &aer);
    nzt_ring(n, 0);
    for (i = 0; i < 6; i++) {
        cid[i] = queue_write(n, 2, i, i, 0x10 + i);
    }
    nzt_ring(n, 2);
    n->q[2].size = 4;                       /* the CQ's, for polling */
    run_for(n, 4500 * 1000);
    starts = nzt_qom_u64(n, "starts");
    g_assert_cmpuint(starts, ==, 35);
    /* starts 4 to 35: the fourth write of zone 1 to the fifth of zone 0 */
    log = nzt_qom_str(n, "start-log");
    want_head = g_strdup_printf("1:%u,", first_cid);
    want_tail = g_strdup_printf(",2:%u", cid[4]);
    g_assert_true(g_str_has_prefix(log, want_head));
    g_assert_true(g_str_has_suffix(log, want_tail));
    entries = g_strsplit(log, ",", -1);
    g_assert_cmpuint(g_strv_length(entries), ==, 32);

    nzt_migrate(n, args);
    g_assert_cmpuint(nzt_qom_u64(n, "starts"), ==, starts);
    log_dst = nzt_qom_str(n, "start-log");
    g_assert_cmpstr(log_dst, ==, log);
    policy = nzt_qom_str(n, "reorder");
    g_assert_cmpstr(policy, ==, "none");
    /*
     * Every command completes once, successfully.  In which order is the
     * drive's: two backend writes still running at the migration may end
     * either way round on a loaded host, as on real hardware.
     */
    for (i = 0; i < 6; i++) {
        int j;

        nzt_wait(n, 2, &cqe);
        g_assert_cmphex(NZT_SC(&cqe), ==, NVME_SUCCESS);
        for (j = 0; j < 6 && cid[j] != le16_to_cpu(cqe.cid); j++) {
        }
        g_assert_cmpint(j, <, 6);
        cid[j] = UINT16_MAX;                /* seen */
    }
    g_assert_cmpuint(nzt_qom_u64(n, "starts"), ==, 36);
    g_assert_cmpuint(nzt_qom_u64(n, "zone-invalid-writes"), ==, 0);
    g_assert_cmpuint(nzt_zone_state(n, 0, &wp), ==,
                     NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmpuint(wp, ==, 6);
    g_assert_cmphex(nzt_read(n, 1, 0, 6, buf), ==, 0);
    for (i = 0; i < 6; i++) {
        g_assert_cmpuint(buf[i * 4096], ==, 0x10 + i);
        g_assert_cmpuint(buf[i * 4096 + 4095], ==, 0x10 + i);
    }
    /* the AER is still outstanding: an error event completes it */
    g_assert_false(nzt_poll(n, 0, &cqe));
    nzt_wr(n, 0x1000 + 8 * 5, 1);           /* SQ 5 does not exist */
    nzt_wait(n, 0, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, aer_cid);
    g_assert_cmphex(le32_to_cpu(cqe.result) & 0xffff, ==,
                    NVME_AER_TYPE_ERROR |
                    NVME_AER_INFO_ERR_INVALID_DB_REGISTER << 8);
    nzt_stop(n);
    unlink(img);
}

/*
 * The VM stops while a write's backend I/O waits (the drive's throttle
 * holds it; the stop's drain lets it through) after its service time is
 * over: the controller holds its work while stopped, so the write, once
 * its I/O ends, waits on the finishing list with its CQE not posted, and
 * travels so; the destination posts it.
 */
static void test_stopped_finishing(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = g_strdup_printf(
        "-drive if=none,id=d0,format=raw,file=%s,"
        "throttling.bps-write=4096 "
        DEV(",lat-write-ns=0,xfer-write-ns-per-4k=0")
        " -device nvme-zns-ns,bus=nz0,drive=d0", img);
    uint8_t buf[2 * 4096];
    uint16_t cid[2];
    NvmeCqe cqe;
    Nzt *n;
    int i;

    n = nzt_start(args, 1);
    cid[0] = queue_write(n, 1, 0, 0, 0x5a);
    cid[1] = queue_write(n, 1, 1, 1, 0x5b);
    nzt_ring(n, 1);
    /* the first write goes through, the throttle holds the second */
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid[0]);
    for (i = 0; i < 10; i++) {
        nzt_step(n, NZT_STEP_NS);
    }
    g_assert_false(nzt_poll(n, 1, &cqe));
    qtest_qmp_assert_success(n->qts, "{ 'execute': 'stop' }");
    for (i = 0; i < 10; i++) {
        nzt_step(n, NZT_STEP_NS);
    }
    /* stopped: its I/O ended in the stop's drain, no CQE */
    g_assert_false(nzt_poll(n, 1, &cqe));

    nzt_migrate(n, args);
    /* the destination stands stopped as the source was, until cont */
    for (i = 0; i < 10; i++) {
        nzt_step(n, NZT_STEP_NS);
    }
    g_assert_false(nzt_poll(n, 1, &cqe));
    qtest_qmp_assert_success(n->qts, "{ 'execute': 'cont' }");
    nzt_wait(n, 1, &cqe);
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid[1]);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_SUCCESS);
    g_assert_cmphex(nzt_read(n, 1, 0, 2, buf), ==, 0);
    g_assert_cmpuint(buf[0], ==, 0x5a);
    g_assert_cmpuint(buf[4096], ==, 0x5b);
    nzt_stop(n);
    unlink(img);
}

/* A destination whose controller differs (queues=4) refuses the stream */
static void test_mismatch(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = mig_args(img, "2");
    g_autofree char *other = mig_args(img, "4");
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *dest = g_strdup_printf(
        "%s-machine q35 -nodefaults %s -incoming defer", fw, other);
    g_autofree char *path = NULL;
    QTestState *to;
    Nzt *n;
    int fd;

    n = nzt_start(args, 1);
    g_assert_cmphex(nzt_write(n, 1, 0, 1, 0x5a), ==, 0);
    fd = g_file_open_tmp("zr-nvme-mig-XXXXXX", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    zr_migrate_save(n->qts, path);
    nzt_stop(n);
    to = qtest_init(dest);
    g_assert_false(zr_migrate_load(to, path));
    qtest_quit(to);
    unlink(path);
    unlink(img);
}

/*
 * Damaged streams (bits flipped in the controller's section, seeded: in
 * its registers and queues, and in its commands at the section's end):
 * each is loaded or refused, the destination never crashes (it runs on
 * after a load); some are refused.
 */
static void test_corrupt_stream(void)
{
    g_autofree char *img = nzt_image(64);
    g_autofree char *args = mig_args(img, "2");
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *full = g_strdup_printf("%s-machine q35 -nodefaults %s",
                                            fw, args);
    g_autofree char *path = NULL;
    Nzt *n;
    int fd, i;

    n = nzt_start(args, 2);
    small_cq(n);
    for (i = 0; i < 6; i++) {
        queue_write(n, 2, i, i, 0x10 + i);
    }
    nzt_ring(n, 2);
    run_for(n, 4500 * 1000);
    fd = g_file_open_tmp("zr-nvme-stream-XXXXXX", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    zr_migrate_save(n->qts, path);
    nzt_stop(n);
    /* the controller's first 16 KiB (registers, queues), then its end:
     * the MSI-X table and the commands, up to the namespace's section */
    g_assert_cmpuint(zr_corrupt_stream_campaign(path, "/nvme-zns", NULL,
                                                16384, full, 30, 12), >, 0);
    g_assert_cmpuint(zr_corrupt_stream_campaign(path, "/nvme-zns",
                                                "nvme-zns-ns", 2048, full,
                                                40, 13), >, 0);
    unlink(path);
    unlink(img);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/nvme-zns/migrate/in-flight", test_in_flight);
    qtest_add_func("/nvme-zns/migrate/stopped-finishing",
                   test_stopped_finishing);
    qtest_add_func("/nvme-zns/migrate/mismatch", test_mismatch);
    qtest_add_func("/nvme-zns/migrate/corrupt-stream", test_corrupt_stream);
    return g_test_run();
}
