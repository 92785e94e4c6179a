/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the project's SCSI qtests: CDB builders, sense checks,
 * REPORT ZONES parsing, and a virtio-scsi initiator (see the header).
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "libqos/libqos-pc.h"
#include "libqos/malloc-pc.h"
#include "libqos/pci-pc.h"
#include "libqos/virtio.h"
#include "libqos/virtio-pci.h"
#include "scsi/constants.h"
#include "standard-headers/linux/virtio_ring.h"
#include "standard-headers/linux/virtio_scsi.h"
#include "zr-scsi-helpers.h"

#define ZR_SCSI_PCI_SLOT    4
#define ZR_SCSI_TIMEOUT_US  (30 * 1000 * 1000)
#define ZR_SCSI_REQUEST_VQ  2       /* 0 control, 1 event, 2 the first */

/*
 * ------------------------------------------------------------------------
 * CDBs, sense, REPORT ZONES
 */

void zr_cdb_rw10(uint8_t *cdb, uint8_t opcode, uint32_t lba, uint16_t nb)
{
    memset(cdb, 0, 16);
    cdb[0] = opcode;
    stl_be_p(&cdb[2], lba);
    stw_be_p(&cdb[7], nb);
}

void zr_cdb_rw16(uint8_t *cdb, uint8_t opcode, uint64_t lba, uint32_t nb)
{
    memset(cdb, 0, 16);
    cdb[0] = opcode;
    stq_be_p(&cdb[2], lba);
    stl_be_p(&cdb[10], nb);
}

void zr_cdb_report_zones(uint8_t *cdb, uint64_t lba, uint32_t alloc,
                         bool partial, uint8_t option)
{
    memset(cdb, 0, 16);
    cdb[0] = 0x95;                  /* ZBC IN */
    cdb[1] = 0x00;                  /* REPORT ZONES */
    stq_be_p(&cdb[2], lba);
    stl_be_p(&cdb[10], alloc);
    cdb[14] = (partial ? 0x80 : 0) | option;
}

void zr_cdb_zbc_out(uint8_t *cdb, uint8_t sa, uint64_t zone, bool all)
{
    memset(cdb, 0, 16);
    cdb[0] = 0x94;                  /* ZBC OUT */
    cdb[1] = sa;
    stq_be_p(&cdb[2], zone);
    cdb[14] = all ? 0x01 : 0;
}

void zr_cdb_inquiry(uint8_t *cdb, bool evpd, uint8_t page, uint16_t alloc)
{
    memset(cdb, 0, 16);
    cdb[0] = INQUIRY;
    cdb[1] = evpd ? 0x01 : 0;
    cdb[2] = page;
    stw_be_p(&cdb[3], alloc);
}

void zr_cdb_rc16(uint8_t *cdb, uint32_t alloc)
{
    memset(cdb, 0, 16);
    cdb[0] = SERVICE_ACTION_IN_16;
    cdb[1] = SAI_READ_CAPACITY_16;
    stl_be_p(&cdb[10], alloc);
}

void zr_assert_good(const ZrScsiResp *r)
{
    g_assert_cmpuint(r->response, ==, VIRTIO_SCSI_S_OK);
    if (r->status != GOOD && r->sense_len >= 14) {
        g_test_message("unexpected sense %x/%02x/%02x", r->sense[2] & 0xf,
                       r->sense[12], r->sense[13]);
    }
    g_assert_cmphex(r->status, ==, GOOD);
}

void zr_assert_sense(const ZrScsiResp *r, uint8_t key, uint8_t asc,
                     uint8_t ascq)
{
    g_assert_cmpuint(r->response, ==, VIRTIO_SCSI_S_OK);
    g_assert_cmphex(r->status, ==, CHECK_CONDITION);
    g_assert_cmpuint(r->sense_len, >=, 14);
    g_assert_cmphex(r->sense[0] & 0x7e, ==, 0x70);  /* fixed format */
    g_assert_cmphex(r->sense[2] & 0x0f, ==, key);
    g_assert_cmphex(r->sense[12], ==, asc);
    g_assert_cmphex(r->sense[13], ==, ascq);
}

size_t zr_parse_report(const uint8_t *buf, size_t len, uint32_t *list_len,
                       uint64_t *max_lba, ZrZoneDesc *out, size_t max)
{
    size_t n = 0, off;

    g_assert_cmpuint(len, >=, 64);
    *list_len = ldl_be_p(&buf[0]);
    *max_lba = ldq_be_p(&buf[8]);
    for (off = 64; off + 64 <= len && n < max; off += 64, n++) {
        const uint8_t *d = &buf[off];

        out[n] = (ZrZoneDesc) {
            .type = d[0] & 0x0f,
            .cond = d[1] >> 4,
            .len = ldq_be_p(&d[8]),
            .start = ldq_be_p(&d[16]),
            .wp = ldq_be_p(&d[24]),
        };
    }
    return n;
}

/*
 * ------------------------------------------------------------------------
 * The virtio-scsi initiator
 */

struct ZrScsi {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *pcibus;
    QVirtioPCIDevice *vpci;
    QVirtioDevice *vdev;
    QVirtQueue *vq[ZR_SCSI_REQUEST_VQ + 1];
    uint64_t next_tag;
    uint8_t target;             /* the addressed LU (zr_scsi_select()) */
    uint16_t lun;
};

/* Guest memory of one command in flight. */
typedef struct ZrScsiSlot {
    uint64_t req, out, resp, in;
    uint32_t head;
} ZrScsiSlot;

static uint64_t zr_scsi_alloc(ZrScsi *s, size_t len, const void *data)
{
    uint64_t addr = guest_alloc(&s->alloc, len);

    if (data) {
        qtest_memwrite(s->qts, addr, data, len);
    }
    return addr;
}

/* The addressed LU, as virtio-scsi's single-level LUN: 1, target, LUN. */
static void zr_scsi_lun(ZrScsi *s, uint8_t *lun)
{
    lun[0] = 1;
    lun[1] = s->target;
    lun[2] = s->lun ? 0x40 | (s->lun >> 8) : 0;  /* flat space */
    lun[3] = s->lun & 0xff;
}

/* Lay out the descriptor chain of @q; returns its head. */
static void zr_scsi_queue(ZrScsi *s, ZrScsiReq *q, ZrScsiSlot *slot)
{
    QVirtQueue *vq = s->vq[ZR_SCSI_REQUEST_VQ];
    struct virtio_scsi_cmd_req req = { 0 };
    struct virtio_scsi_cmd_resp resp = { .response = 0xff, .status = 0xff };

    zr_scsi_lun(s, req.lun);
    req.tag = cpu_to_le64(++s->next_tag);
    memcpy(req.cdb, q->cdb, 16);

    *slot = (ZrScsiSlot) { 0 };
    slot->req = zr_scsi_alloc(s, sizeof(req), &req);
    slot->head = qvirtqueue_add(s->qts, vq, slot->req, sizeof(req), false,
                                true);
    if (q->out_len) {
        slot->out = zr_scsi_alloc(s, q->out_len, q->out);
        qvirtqueue_add(s->qts, vq, slot->out, q->out_len, false, true);
    }
    slot->resp = zr_scsi_alloc(s, sizeof(resp), &resp);
    qvirtqueue_add(s->qts, vq, slot->resp, sizeof(resp), true, q->in_len);
    if (q->in_len) {
        slot->in = zr_scsi_alloc(s, q->in_len, NULL);
        qvirtqueue_add(s->qts, vq, slot->in, q->in_len, true, false);
    }
    q->in_addr = slot->in;
}

/* Put the chain of @slot in the available ring (no notification). */
static void zr_scsi_publish(ZrScsi *s, ZrScsiSlot *slot)
{
    QVirtQueue *vq = s->vq[ZR_SCSI_REQUEST_VQ];
    uint16_t idx = qtest_readw(s->qts, vq->avail + 2);

    qtest_writew(s->qts, vq->avail + 4 + 2 * (idx % vq->size), slot->head);
    qtest_writew(s->qts, vq->avail + 2, idx + 1);
}

static void zr_scsi_collect(ZrScsi *s, ZrScsiReq *q, ZrScsiSlot *slot)
{
    struct virtio_scsi_cmd_resp resp;

    qtest_memread(s->qts, slot->resp, &resp, sizeof(resp));
    q->resp.response = resp.response;
    q->resp.status = resp.status;
    q->resp.resid = le32_to_cpu(resp.resid);
    q->resp.sense_len = le32_to_cpu(resp.sense_len);
    memcpy(q->resp.sense, resp.sense, sizeof(q->resp.sense));
    if (q->in_len) {
        qtest_memread(s->qts, slot->in, q->in, q->in_len);
    }
    guest_free(&s->alloc, slot->req);
    guest_free(&s->alloc, slot->out);
    guest_free(&s->alloc, slot->resp);
    guest_free(&s->alloc, slot->in);
}

/*
 * Publish every chain in the available ring, then notify once: the
 * device handles the whole batch in one go, as after one guest kick.
 */
void zr_scsi_batch(ZrScsi *s, ZrScsiReq *reqs, size_t n)
{
    zr_scsi_batch_hook(s, reqs, n, NULL, NULL);
}

void zr_scsi_batch_hook(ZrScsi *s, ZrScsiReq *reqs, size_t n,
                        void (*hook)(ZrScsi *s, void *opaque), void *opaque)
{
    QVirtQueue *vq = s->vq[ZR_SCSI_REQUEST_VQ];
    g_autofree ZrScsiSlot *slots = g_new0(ZrScsiSlot, n);
    g_autofree bool *done = g_new0(bool, n);
    gint64 start = g_get_monotonic_time();
    size_t i, got = 0;

    for (i = 0; i < n; i++) {
        g_assert_cmpuint(reqs[i].after, <=, n);
        if (!reqs[i].after) {
            zr_scsi_queue(s, &reqs[i], &slots[i]);
            zr_scsi_publish(s, &slots[i]);
        }
    }
    s->vdev->bus->virtqueue_kick(s->vdev, vq);
    if (hook) {
        hook(s, opaque);
        start = g_get_monotonic_time();
    }

    while (got < n) {
        uint32_t head;

        if (!qvirtqueue_get_buf(s->qts, vq, &head, NULL)) {
            g_assert_cmpint(g_get_monotonic_time() - start, <=,
                            ZR_SCSI_TIMEOUT_US);
            continue;
        }
        for (i = 0; i < n && (done[i] || slots[i].head != head); i++) {
            ;
        }
        g_assert_cmpuint(i, <, n);
        done[i] = true;
        got++;
        reqs[i].done_order = got;
        /* What waited for it goes now, with a kick of its own. */
        for (size_t j = 0; j < n; j++) {
            if (reqs[j].after == i + 1) {
                zr_scsi_queue(s, &reqs[j], &slots[j]);
                zr_scsi_publish(s, &slots[j]);
                s->vdev->bus->virtqueue_kick(s->vdev, vq);
            }
        }
    }
    for (i = 0; i < n; i++) {
        zr_scsi_collect(s, &reqs[i], &slots[i]);
    }
    /* Every descriptor is back: start the pool from the beginning. */
    qvirtqueue_reset_pool(vq);
}

uint16_t zr_scsi_used_idx(ZrScsi *s)
{
    QVirtQueue *vq = s->vq[ZR_SCSI_REQUEST_VQ];

    return qtest_readw(s->qts, vq->used + 2);
}

void zr_scsi_cmd(ZrScsi *s, const uint8_t *cdb, const void *out,
                 size_t out_len, void *in, size_t in_len, ZrScsiResp *resp)
{
    ZrScsiReq q = {
        .cdb = cdb, .out = out, .out_len = out_len, .in = in,
        .in_len = in_len,
    };

    zr_scsi_batch(s, &q, 1);
    *resp = q.resp;
}

char *zr_firmware_args(void)
{
    static const char *const dirs[] = { "/usr/share/seabios",
                                        "/usr/share/qemu" };
    GString *args = g_string_new("");
    size_t i;

    for (i = 0; i < ARRAY_SIZE(dirs); i++) {
        if (g_file_test(dirs[i], G_FILE_TEST_IS_DIR)) {
            g_string_append_printf(args, "-L %s ", dirs[i]);
        }
    }
    return g_string_free(args, false);
}

void zr_expect_start_error(const char *args, const char *want)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *cmd = g_strdup_printf("timeout 60 %s %s-machine q35 "
        "-nodefaults -display none -S -accel qtest %s", qemu, fw, args);
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;

    g_assert_true(g_spawn_command_line_sync(cmd, &out, &err, &status, NULL));
    if (!strstr(err, want)) {
        g_test_message("stderr: %s", err);
    }
    /* An exit status of 1 (QEMU's), not 0 nor timeout's 124. */
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_nonnull(strstr(err, want));
}

uint8_t zr_scsi_lun_reset(ZrScsi *s)
{
    QVirtQueue *vq = s->vq[0];
    struct virtio_scsi_ctrl_tmf_req req = {
        .type = cpu_to_le32(VIRTIO_SCSI_T_TMF),
        .subtype = cpu_to_le32(VIRTIO_SCSI_T_TMF_LOGICAL_UNIT_RESET),
    };
    uint8_t resp = 0xff;
    uint64_t req_addr, resp_addr;
    uint32_t head;

    zr_scsi_lun(s, req.lun);
    req_addr = zr_scsi_alloc(s, sizeof(req), &req);
    resp_addr = zr_scsi_alloc(s, 1, &resp);
    head = qvirtqueue_add(s->qts, vq, req_addr, sizeof(req), false, true);
    qvirtqueue_add(s->qts, vq, resp_addr, 1, true, false);
    qvirtqueue_kick(s->qts, s->vdev, vq, head);
    qvirtio_wait_used_elem(s->qts, s->vdev, vq, head, NULL,
                           ZR_SCSI_TIMEOUT_US);
    resp = qtest_readb(s->qts, resp_addr);
    guest_free(&s->alloc, req_addr);
    guest_free(&s->alloc, resp_addr);
    qvirtqueue_reset_pool(vq);
    return resp;
}

static const char *zr_binary_env;

/* The command line of a VM with virtio-scsi and @fmt's devices */
static char * G_GNUC_PRINTF(1, 0) zr_scsi_args(const char *fmt, va_list ap)
{
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *extra = g_strdup_vprintf(fmt, ap);

    return g_strdup_printf("%s-machine q35 -nodefaults "
                           "-device virtio-scsi-pci,id=vs0,addr=%02x.0 %s",
                           fw, ZR_SCSI_PCI_SLOT, extra);
}

void zr_scsi_binary_env(const char *var)
{
    zr_binary_env = var;
}

ZrScsi *zr_scsi_start(const char *fmt, ...)
{
    ZrScsi *s = g_new0(ZrScsi, 1);
    g_autofree char *args = NULL;
    uint8_t tur[16] = { TEST_UNIT_READY };
    QPCIAddress addr = { .devfn = QPCI_DEVFN(ZR_SCSI_PCI_SLOT, 0) };
    ZrScsiResp resp;
    uint64_t features;
    va_list ap;
    int i;

    va_start(ap, fmt);
    args = zr_scsi_args(fmt, ap);
    va_end(ap);
    s->qts = qtest_init_with_env(zr_binary_env, args, true);
    pc_alloc_init(&s->alloc, s->qts, ALLOC_NO_FLAGS);
    s->pcibus = qpci_new_pc(s->qts, &s->alloc);
    s->vpci = virtio_pci_new(s->pcibus, &addr);
    g_assert_nonnull(s->vpci);
    s->vdev = &s->vpci->vdev;
    qvirtio_pci_device_enable(s->vpci);
    qvirtio_start_device(s->vdev);

    features = qvirtio_get_features(s->vdev);
    features &= ~(QVIRTIO_F_BAD_FEATURE | (1ull << VIRTIO_RING_F_EVENT_IDX));
    qvirtio_set_features(s->vdev, features);
    for (i = 0; i <= ZR_SCSI_REQUEST_VQ; i++) {
        s->vq[i] = qvirtqueue_setup(s->vdev, &s->alloc, i);
    }
    qvirtio_set_driver_ok(s->vdev);

    /* SAM-5: the first command after power on gets the unit attention. */
    zr_scsi_cmd(s, tur, NULL, 0, NULL, 0, &resp);
    zr_assert_sense(&resp, UNIT_ATTENTION, 0x29, 0x00);
    return s;
}

void zr_scsi_select(ZrScsi *s, uint8_t target, uint16_t lun)
{
    s->target = target;
    s->lun = lun;
}

QTestState *zr_scsi_qts(ZrScsi *s)
{
    return s->qts;
}

void zr_scsi_stop(ZrScsi *s)
{
    int i;

    for (i = 0; i <= ZR_SCSI_REQUEST_VQ; i++) {
        qvirtqueue_cleanup(s->vdev->bus, s->vq[i], &s->alloc);
    }
    qvirtio_pci_device_disable(s->vpci);
    g_free(s->vpci->pdev);      /* virtio_pci_new() found it for us */
    g_free(s->vpci);
    qpci_free_pc(s->pcibus);
    alloc_destroy(&s->alloc);
    qtest_quit(s->qts);
    g_free(s);
}

/*
 * Wait for the MIGRATION event that ends the migration on @qts; true if it
 * completed, false if it failed.
 */
static bool zr_migration_wait(QTestState *qts)
{
    for (;;) {
        QDict *ev = qtest_qmp_eventwait_ref(qts, "MIGRATION");
        const char *status = qdict_get_str(qdict_get_qdict(ev, "data"),
                                           "status");
        bool done = !strcmp(status, "completed");
        bool failed = !strcmp(status, "failed");

        g_assert_cmpstr(status, !=, "cancelled");
        qobject_unref(ev);
        if (done || failed) {
            return done;
        }
    }
}

static void zr_migration_events(QTestState *qts)
{
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate-set-capabilities', "
                             "'arguments': { 'capabilities': [ "
                             "{ 'capability': 'events', 'state': true } ] } }");
}

void zr_migrate_save(QTestState *from, const char *path)
{
    g_autofree char *uri = g_strdup_printf("file:%s", path);

    zr_migration_events(from);
    qtest_qmp_assert_success(from, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    g_assert_true(zr_migration_wait(from));
}

bool zr_migrate_load(QTestState *to, const char *path)
{
    g_autofree char *uri = g_strdup_printf("file:%s", path);

    zr_migration_events(to);
    qtest_qmp_assert_success(to, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    return zr_migration_wait(to);
}

/*
 * A campaign of damaged streams: @runs copies of the saved stream @path,
 * each with one to four bits flipped (seeded: @seed) in the @window bytes
 * after the section @idstr (its instance and version ids skipped) or, with
 * @until, the @window bytes of that section before the next @until (the
 * end of a section, where its last fields are), loaded
 * into a new QEMU started with @args and -incoming defer.  Each one loads
 * (then runs on: cont and 20 ms of guest time) or is refused; the
 * destination never crashes.  Returns how many were refused.  A longer
 * campaign: ZR_STREAM_RUNS=N ZR_STREAM_SEED=S in the environment.
 */
unsigned zr_corrupt_stream_campaign(const char *path, const char *idstr,
                                    const char *until, gsize window,
                                    const char *args, unsigned runs,
                                    guint32 seed)
{
    g_autofree char *dest = g_strdup_printf("%s -incoming defer", args);
    g_autofree char *bad = NULL;
    g_autofree gchar *orig = NULL;
    const char *runs_env = g_getenv("ZR_STREAM_RUNS");
    const char *seed_env = g_getenv("ZR_STREAM_SEED");
    g_autoptr(GRand) rnd = g_rand_new_with_seed(seed_env ? atoi(seed_env) :
                                                seed);
    unsigned loaded = 0, refused = 0, i, j;
    const gchar *sec;
    gsize len, start, end;
    int fd;

    runs = runs_env ? atoi(runs_env) : runs;
    fd = g_file_open_tmp("zr-stream-bad-XXXXXX", &bad, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    g_assert_true(g_file_get_contents(path, &orig, &len, NULL));
    sec = memmem(orig, len, idstr, strlen(idstr));
    g_assert_nonnull(sec);
    /* after the idstr, the instance and version ids */
    start = sec - orig + strlen(idstr) + 8;
    end = MIN(len, start + window);
    if (until) {
        const gchar *next = memmem(orig + start, len - start, until,
                                   strlen(until));

        g_assert_nonnull(next);
        end = next - orig;
        start = MAX(start, end > window ? end - window : 0);
    }
    g_assert_cmpuint(start, <, end);

    for (i = 0; i < runs; i++) {
        g_autofree gchar *copy = g_memdup2(orig, len);
        unsigned flips = g_rand_int_range(rnd, 1, 5);
        QTestState *to;

        for (j = 0; j < flips; j++) {
            copy[g_rand_int_range(rnd, start, end)] ^=
                1u << g_rand_int_range(rnd, 0, 8);
        }
        g_assert_true(g_file_set_contents(bad, copy, len, NULL));
        to = qtest_init_with_env(zr_binary_env, dest, true);
        if (zr_migrate_load(to, bad)) {
            loaded++;
            qtest_qmp_assert_success(to, "{ 'execute': 'cont' }");
            for (j = 0; j < 200; j++) {
                qtest_clock_step(to, 100000);
            }
        } else {
            refused++;
        }
        qtest_quit(to);
    }
    g_test_message("corrupted streams: %u loaded, %u refused", loaded,
                   refused);
    unlink(bad);
    return refused;
}

QTestState *zr_migrate_via_file(QTestState *from, const char *args)
{
    g_autofree char *path = NULL;
    g_autofree char *dest = NULL;
    QTestState *to;
    int fd;

    fd = g_file_open_tmp("zr-migration-XXXXXX", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    zr_migrate_save(from, path);
    dest = g_strdup_printf("%s -incoming defer", args);
    to = qtest_init_with_env(zr_binary_env, dest, true);
    g_assert_true(zr_migrate_load(to, path));
    unlink(path);
    qtest_quit(from);
    return to;
}

void zr_scsi_migrate(ZrScsi *s, const char *fmt, ...)
{
    g_autofree char *args = NULL;
    va_list ap;

    va_start(ap, fmt);
    args = zr_scsi_args(fmt, ap);
    va_end(ap);
    s->qts = zr_migrate_via_file(s->qts, args);
    s->pcibus->qts = s->qts;
}

void zr_scsi_resync(ZrScsi *s)
{
    int i;

    for (i = 0; i <= ZR_SCSI_REQUEST_VQ; i++) {
        s->vq[i]->last_used_idx = qtest_readw(s->qts, s->vq[i]->used + 2);
        qvirtqueue_reset_pool(s->vq[i]);
    }
}

uint64_t zr_qom_get_u64(QTestState *qts, const char *path, const char *prop)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': %s, 'property': %s } }", path, prop);
    uint64_t val;

    g_assert_true(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

char *zr_make_qcow2(size_t size)
{
    const char *qemu_img = g_getenv("QTEST_QEMU_IMG");
    g_autofree char *size_s = g_strdup_printf("%zu", size);
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    const char *argv[] = { qemu_img, "create", "-q", "-f", "qcow2", NULL,
                           size_s, NULL };
    int fd, status;

    g_assert_nonnull(qemu_img);
    fd = g_file_open_tmp("zr-XXXXXX.qcow2", &path, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    argv[5] = path;
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT,
                               NULL, NULL, NULL, NULL, &status, &err));
    g_assert_no_error(err);
    g_assert_cmpint(status, ==, 0);
    return g_steal_pointer(&path);
}
