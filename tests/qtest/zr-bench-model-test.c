/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device models' own cost (issue 12, `make bench-model`,
 * scripts/bench-model): one controller on q35, brought up the way Linux
 * 6.12 brings it up, then a fixed stream of 4 KiB commands in four phases
 * of ZR_BENCH_N commands each (default 64, a multiple of 32):
 *
 *   W1   writes at QD1, LBA 0, 1, 2, ...      (sequential into zone 0)
 *   R1   reads at QD1 of the same LBAs
 *   W32  writes in batches of 32, one doorbell a batch, from LBA N on
 *   R32  reads of those LBAs in batches of 32
 *
 * Every completion is checked (NVMe status, UFS OCS, response and SCSI
 * status), so a stream that fails can never be counted.  The same stream
 * runs on our device and on its upstream counterpart.
 *
 For QEMU to execute the same qtest commands on both, and each in a main
 * loop of its own, this driver never polls a device while it works and
 * sends no command while QEMU is busy: before each one it waits, outside
 * QEMU, until QEMU's main thread sleeps in ppoll() and has not run for a
 * while (/proc/PID/task/PID/syscall and schedstat).  (Without that wait,
 * whether a command arrives while QEMU is still in the previous command's
 * main-loop turn changes how many turns it takes: 5 % from run to run.)
 * After a doorbell it advances virtual time by a fixed BM_STEP_NS and then
 * reads the completions, which must all be there.  One that is not costs
 * an "extra" step (reported; the benchmark wants 0 on both sides), so
 * guest time, too, is the same on both devices of a pair.
 *
 * Before each phase and after the last one the driver sends the QMP
 * command query-name, which nothing else sends: scripts/bench-model runs
 * QEMU under callgrind with --dump-before=qmp_marshal_query_name, so each
 * phase's instruction count lands in a file of its own.
 *
 * Without ZR_BENCH_N this is the `make check` smoke of the benchmark.
 */

#include "qemu/osdep.h"
#include <sys/syscall.h>
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "scsi/constants.h"
#include "zr-nvme-helpers.h"
#include "zr-ufs-helpers.h"

#define BM_QD           32          /* the deep phases' batch */
#define BM_PHASES       4
#define BM_STEP_NS      1000        /* virtual time per batch */
#define BM_ZONE         (64 * MiB)  /* zone size on every zoned device */
#define BM_ZONE_BLOCKS  (BM_ZONE / 4096)
#define BM_MAX_EXTRA    1000        /* steps a batch may take beyond one */

/* The compact UCD of one UFS slot: command, response, one PRDT entry */
#define BM_UCD          256
#define BM_UCD_RSP      64
#define BM_UCD_RSP_LEN  128
#define BM_UCD_PRDT     192

/*
 * No qtest log (libqtest's /dev/null one formats a timestamp for every
 * command, a third of QEMU's work per command here, and the same on both
 * sides).  No PIT: its channel 0 runs from reset, and the main loop's poll would
 * time out towards its next transition every 27 ms of host time forever
 * (qtest's virtual time only moves by clock_step), work that grows with
 * the host's time, not with the commands.
 */
#define BM_NULL         "-qtest-log none -machine pit=off " \
                        "-blockdev driver=null-co,node-name=d0,size=1073741824," \
                        "read-zeroes=off "
/* Ours: no reordering, no service time (scripts/bench-latency's zoned()) */
#define BM_FAST         "reorder=none,lat-read-ns=0,lat-write-ns=0," \
                        "lat-other-ns=0,xfer-read-ns-per-4k=0," \
                        "xfer-write-ns-per-4k=0,max-parallel=0"
#define BM_UFS_ZONED    "-device ufs-zoned,id=ufs0,addr=04.0,default-lu=off," \
                        BM_FAST ",mode="
#define BM_HD           " -device scsi-hd,bus=ufs0.0,lun=0,drive=d0," \
                        "logical_block_size=4096,physical_block_size=4096"
#define BM_ZBC          " -device scsi-zbc,bus=ufs0.0,lun=0,drive=d0," \
                        "logical_block_size=4096,physical_block_size=4096," \
                        "zone-size=64M,conv-zones=0"

typedef enum BmTransport {
    BM_NVME,
    BM_UFS_LEGACY,
    BM_UFS_MCQ,
} BmTransport;

typedef struct BmDev {
    const char *name;           /* test path; scripts/bench-model's row */
    BmTransport transport;
    const char *args;
    uint16_t vid, did;          /* NVMe: the PCI ID */
    bool zoned;                 /* NVMe: check the zone size */
} BmDev;

static const BmDev bm_devs[] = {
    { "nvme", BM_NVME, BM_NULL
      "-device nvme,id=nz0,addr=04.0,serial=zrbench "
      "-device nvme-ns,bus=nz0,nsid=1,drive=d0,logical_block_size=4096,"
      "physical_block_size=4096,zoned=on,zoned.zone_size=64M",
      0x1b36, 0x0010, true },
    { "nvme-zns", BM_NVME, BM_NULL
      "-device nvme-zns,id=nz0,addr=04.0," BM_FAST " "
      "-device nvme-zns-ns,bus=nz0,nsid=1,drive=d0,zone-size=64M",
      0x1af4, 0x10f0, true },
    { "ufs-legacy", BM_UFS_LEGACY, BM_NULL
      "-device ufs,id=ufs0,addr=04.0 "
      "-device ufs-lu,bus=ufs0,lun=0,drive=d0" },
    { "ufs-zoned-legacy-hd", BM_UFS_LEGACY, BM_NULL
      BM_UFS_ZONED "legacy" BM_HD },
    { "ufs-zoned-legacy-zbc", BM_UFS_LEGACY, BM_NULL
      BM_UFS_ZONED "legacy" BM_ZBC },
    { "ufs-mcq", BM_UFS_MCQ, BM_NULL
      "-device ufs,id=ufs0,addr=04.0,mcq=on,mcq-maxq=4 "
      "-device ufs-lu,bus=ufs0,lun=0,drive=d0" },
    { "ufs-zoned-mcq-hd", BM_UFS_MCQ, BM_NULL
      BM_UFS_ZONED "mcq,mcq-queues=4" BM_HD },
    { "ufs-zoned-mcq-zbc", BM_UFS_MCQ, BM_NULL
      BM_UFS_ZONED "mcq,mcq-queues=4" BM_ZBC },
};

typedef struct Bm {
    const BmDev *bmdev;
    QTestState *qts;
    pid_t pid;
    Nzt *n;
    Ufs *u;
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t data;              /* BM_QD buffers of 4 KiB */
    uint64_t ucd;               /* UFS: BM_QD compact UCDs */
    uint32_t idle_us;
    uint32_t extra;
    char *args;                 /* the row's arguments, -name pad added */
} Bm;

/* --- waiting for QEMU to be done ------------------------------------------ */

/* The main thread's system call (-1: running) and schedstat line */
static long bm_sample(Bm *b, char *sched, size_t len)
{
    g_autofree char *sc_path = g_strdup_printf("/proc/%d/task/%d/syscall",
                                               b->pid, b->pid);
    g_autofree char *ss_path = g_strdup_printf("/proc/%d/task/%d/schedstat",
                                               b->pid, b->pid);
    g_autofree char *sc = NULL;
    g_autofree char *ss = NULL;

    g_assert_true(g_file_get_contents(sc_path, &sc, NULL, NULL));
    g_assert_true(g_file_get_contents(ss_path, &ss, NULL, NULL));
    g_strlcpy(sched, ss, len);
    return g_ascii_isdigit(sc[0]) ? strtol(sc, NULL, 10) : -1;
}

/*
 * Wait until QEMU's main thread sleeps in ppoll() and did not run for
 * idle_us: then no bottom half is pending and every command that needs no
 * timer is complete.  Reading /proc costs QEMU nothing.
 */
static void bm_idle(Bm *b)
{
    char s1[128], s2[128];
    int i;

    for (i = 0; i < 100000; i++) {
        long c1 = bm_sample(b, s1, sizeof(s1));
        long c2;

        g_usleep(b->idle_us);
        c2 = bm_sample(b, s2, sizeof(s2));
        if (c1 == SYS_ppoll && c2 == SYS_ppoll && !strcmp(s1, s2)) {
            return;
        }
    }
    g_assert_not_reached();
}

/* The stream's qtest commands: each sent once QEMU is idle */
static void bm_step(Bm *b)
{
    bm_idle(b);
    qtest_clock_step(b->qts, BM_STEP_NS);
}

static void bm_write(Bm *b, uint64_t addr, const void *buf, size_t len)
{
    bm_idle(b);
    qtest_bufwrite(b->qts, addr, buf, len);
}

static void bm_read(Bm *b, uint64_t addr, void *buf, size_t len)
{
    bm_idle(b);
    qtest_bufread(b->qts, addr, buf, len);
}

static void bm_wr(Bm *b, uint32_t off, uint32_t val)
{
    bm_idle(b);
    qpci_io_writel(b->dev, b->bar, off, val);
}

static uint32_t bm_rd(Bm *b, uint32_t off)
{
    bm_idle(b);
    return qpci_io_readl(b->dev, b->bar, off);
}

/*
 * One step of virtual time before reading completions; a batch's second
 * and later ones are "extra" (the streams of a pair then differ)
 */
static void bm_step_for(Bm *b, uint32_t *tries)
{
    g_assert_cmpuint((*tries)++, <=, BM_MAX_EXTRA);
    if (*tries > 1) {
        b->extra++;
    }
    bm_step(b);
}

/* UFS: read IS and clear what it says, as ufshcd_intr does */
static uint32_t bm_ufs_is(Bm *b)
{
    uint32_t is = bm_rd(b, A_IS);

    bm_wr(b, A_IS, is);
    return is;
}

/* The phase marker callgrind dumps its counters at */
static void bm_mark(Bm *b)
{
    QDict *r;

    bm_idle(b);
    r = qtest_qmp(b->qts, "{ 'execute': 'query-name' }");
    g_assert_true(qdict_haskey(r, "return"));
    qobject_unref(r);
    bm_idle(b);
}

/* --- NVMe ------------------------------------------------------------------ */

/* Enable, Identify, one I/O queue pair: nvme_probe's order, trimmed */
static void bm_nvme_start(Bm *b)
{
    const BmDev *d = b->bmdev;
    g_autofree NvmeIdCtrl *ctrl = g_new0(NvmeIdCtrl, 1);
    g_autofree NvmeIdNs *ns = g_new0(NvmeIdNs, 1);
    g_autofree NvmeIdNsZoned *z = g_new0(NvmeIdNsZoned, 1);
    Nzt *n;

    n = b->n = nzt_boot_pci(b->args, d->vid, d->did);
    b->qts = n->qts;
    b->dev = n->dev;
    b->bar = n->bar;
    nzt_enable(n);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CTRL, 0, 0, ctrl), ==, 0);
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES, 0, NULL), ==,
                    NVME_SUCCESS);
    nzt_create_ioq(n, 1, NZT_QSIZE, 0);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_NS, 1, 0, ns), ==, 0);
    /* one 4 KiB block a command on both */
    g_assert_cmpuint(ns->lbaf[ns->flbas & 0xf].ds, ==, 12);
    g_assert_cmphex(nzt_identify(n, NVME_ID_CNS_CS_NS, 1, NVME_CSI_ZONED, z),
                    ==, 0);
    g_assert_cmpuint(le64_to_cpu(z->lbafe[ns->flbas & 0xf].zsze), ==,
                     BM_ZONE_BLOCKS);
    b->data = n->data;
    qtest_memset(b->qts, b->data, 0x5a, BM_QD * 4096);
}

/* @k commands from @lba on, one SQ doorbell; reap and check them all */
static void bm_nvme_batch(Bm *b, bool write, uint64_t lba, uint32_t k)
{
    Nzt *n = b->n;
    NztQueue *q = &n->q[1];
    NvmeCmd cmd[BM_QD];
    NvmeCqe cqe[BM_QD];
    uint16_t cid0 = n->next_cid + 1;
    bool seen[BM_QD] = { false };
    uint32_t i, c, done = 0, tries = 0;

    /* batches never wrap: the queue size is a multiple of the batch */
    g_assert_cmpuint(q->sq_tail + k, <=, q->size);
    for (i = 0; i < k; i++) {
        nzt_rw_cmd(&cmd[i], write ? NVME_CMD_WRITE : NVME_CMD_READ, lba + i,
                   1, b->data + i * 4096, 0);
        cmd[i].cid = cpu_to_le16(++n->next_cid);
    }
    bm_write(b, q->sq + q->sq_tail * 64, cmd, k * sizeof(cmd[0]));
    q->sq_tail = (q->sq_tail + k) % q->size;
    bm_wr(b, 0x1000 + 8 * 1, q->sq_tail);

    while (done < k) {
        uint32_t want = k - done;

        bm_step_for(b, &tries);
        g_assert_cmpuint(q->cq_head + want, <=, q->size);
        bm_read(b, q->cq + q->cq_head * 16, cqe, want * sizeof(cqe[0]));
        for (i = 0; i < want; i++) {
            uint16_t st = le16_to_cpu(cqe[i].status);

            if ((st & 1) != q->phase) {
                break;
            }
            /* any order: upstream posts them as the block layer ends them */
            c = (uint16_t)(le16_to_cpu(cqe[i].cid) - cid0);
            g_assert_cmphex(st >> 1, ==, NVME_SUCCESS);
            g_assert_cmpuint(c, <, k);
            g_assert_false(seen[c]);
            seen[c] = true;
            g_assert_cmpuint(le16_to_cpu(cqe[i].sq_id), ==, 1);
            q->cq_head++;
            if (q->cq_head == q->size) {
                q->cq_head = 0;
                q->phase = !q->phase;
            }
        }
        if (i) {
            done += i;
            bm_wr(b, 0x1000 + 8 * 1 + 4, q->cq_head);
        }
    }
}

/* --- UFS ------------------------------------------------------------------- */

/* ufshcd's bring-up, the LU ready, and MCQ when the row says so */
static void bm_ufs_start(Bm *b)
{
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *args = g_strdup_printf("%s-machine q35 -nodefaults %s",
                                            fw, b->args);
    Ufs *u;

    u = b->u = ufs_boot_args(args);
    b->qts = u->qts;
    b->dev = u->dev;
    b->bar = u->bar;
    ufs_bringup(u);
    nop(u, NUTRS - 1);
    lu_ready(u, 0);
    if (b->bmdev->transport == BM_UFS_MCQ) {
        ufs_mcq_enable(u, 1, 2 * BM_QD);
    }
    b->data = u->data;
    b->ucd = guest_alloc(&u->alloc, BM_QD * BM_UCD);
    g_assert_cmpuint(b->ucd & 127, ==, 0);
    qtest_memset(b->qts, b->data, 0x5a, BM_QD * 4096);
}

/* The UTRD of slot @slot */
static void bm_ufs_utrd(Bm *b, uint8_t *utrd, int slot, bool write)
{
    uint64_t c = b->ucd + slot * BM_UCD;

    memset(utrd, 0, 32);
    stl_le_p(utrd, (1u << 28) | UFS_UTP_REQ_DESC_INT_CMD |
             (write ? UFS_UTP_HOST_TO_DEVICE : UFS_UTP_DEVICE_TO_HOST));
    stl_le_p(utrd + 8, UFS_OCS_INVALID_COMMAND_STATUS);
    stq_le_p(utrd + 16, c);
    stl_le_p(utrd + 24, (BM_UCD_RSP / 4) << 16 | (BM_UCD_RSP_LEN / 4));
    stl_le_p(utrd + 28, (BM_UCD_PRDT / 4) << 16 | 1);
}

/*
 * The UCD of slot @slot: command UPIU of a 4 KiB READ(16) or WRITE(16),
 * response area cleared, the PRDT entry of the slot's buffer
 */
static void bm_ufs_ucd(Bm *b, uint8_t *ucd, int slot, bool write,
                       uint64_t lba)
{
    memset(ucd, 0, BM_UCD);
    ucd[0] = UFS_UPIU_TRANSACTION_COMMAND;
    ucd[1] = write ? UFS_UPIU_CMD_FLAGS_WRITE : UFS_UPIU_CMD_FLAGS_READ;
    ucd[2] = 0;
    ucd[3] = slot;
    stl_be_p(ucd + 12, 4096);
    zr_cdb_rw16(ucd + 16, write ? WRITE_16 : READ_16, lba, 1);
    stq_le_p(ucd + BM_UCD_PRDT, b->data + slot * 4096);
    stl_le_p(ucd + BM_UCD_PRDT + 12, 4096 - 1);
}

/* The response UPIUs of slots 0..@k-1: all GOOD */
static void bm_ufs_check_rsp(Bm *b, uint32_t k)
{
    g_autofree uint8_t *ucd = g_malloc(k * BM_UCD);
    uint32_t i;

    bm_read(b, b->ucd, ucd, k * BM_UCD);
    for (i = 0; i < k; i++) {
        const uint8_t *r = ucd + i * BM_UCD + BM_UCD_RSP;

        g_assert_cmphex(r[0], ==, UFS_UPIU_TRANSACTION_RESPONSE);
        g_assert_cmpuint(r[3], ==, i);
        g_assert_cmphex(r[6], ==, 0);                   /* response */
        g_assert_cmphex(r[7], ==, GOOD);                /* SCSI status */
    }
}

/*
 * Legacy doorbell: UTRDs and UCDs of slots 0..@k-1, one UTRLDBR write;
 * then ufshcd_intr's reads: IS (cleared), UTRLDBR, each OCS.
 */
static void bm_ufs_legacy_batch(Bm *b, bool write, uint64_t lba, uint32_t k)
{
    Ufs *u = b->u;
    g_autofree uint8_t *ucd = g_malloc(k * BM_UCD);
    uint8_t utrl[BM_QD * 32];
    uint32_t mask = k == 32 ? UINT32_MAX : (1u << k) - 1;
    uint32_t i, tries = 0;

    for (i = 0; i < k; i++) {
        bm_ufs_utrd(b, utrl + i * 32, i, write);
        bm_ufs_ucd(b, ucd + i * BM_UCD, i, write, lba + i);
    }
    bm_write(b, u->utrl, utrl, k * 32);
    bm_write(b, b->ucd, ucd, k * BM_UCD);
    bm_wr(b, A_UTRLDBR, mask);
    for (;;) {
        uint32_t is;

        bm_step_for(b, &tries);
        is = bm_ufs_is(b);
        if (!(bm_rd(b, A_UTRLDBR) & mask)) {
            g_assert_true(is & R_IS_UTRCS_MASK || tries > 1);
            break;
        }
    }
    bm_read(b, u->utrl, utrl, k * 32);
    for (i = 0; i < k; i++) {
        g_assert_cmphex(utrl[i * 32 + 8], ==, OCS_SUCCESS);
    }
    bm_ufs_check_rsp(b, k);
}

/*
 * MCQ, SQ 0: @k UTRDs into the SQ, one SQTP write; then what
 * ufshcd_handle_mcq_cq_events reads: IS and CQIS (both cleared), CQTP,
 * the CQEs, and CQHP written.
 */
static void bm_ufs_mcq_batch(Bm *b, bool write, uint64_t lba, uint32_t k)
{
    Ufs *u = b->u;
    UfsTestQueue *t = &u->q[0];
    g_autofree uint8_t *ucd = g_malloc(k * BM_UCD);
    uint8_t sqe[BM_QD * 32], cqe[BM_QD * 32];
    bool seen[BM_QD] = { false };
    uint32_t i, done = 0, tries = 0;

    g_assert_cmpuint(t->sq_tail + k, <=, u->entries);
    for (i = 0; i < k; i++) {
        bm_ufs_utrd(b, sqe + i * 32, i, write);
        bm_ufs_ucd(b, ucd + i * BM_UCD, i, write, lba + i);
    }
    bm_write(b, b->ucd, ucd, k * BM_UCD);
    bm_write(b, t->sq + t->sq_tail * 32, sqe, k * 32);
    t->sq_tail = (t->sq_tail + k) % u->entries;
    bm_wr(b, ufs_mcq_sq_reg(0, SQTP), t->sq_tail * 32);

    while (done < k) {
        uint32_t is, cqis, tail, n;

        bm_step_for(b, &tries);
        is = bm_ufs_is(b);
        cqis = bm_rd(b, ufs_mcq_sq_reg(0, CQIS));
        bm_wr(b, ufs_mcq_sq_reg(0, CQIS), cqis);
        tail = bm_rd(b, ufs_mcq_sq_reg(0, CQTP)) / 32;
        n = (tail + u->entries - t->cq_head) % u->entries;
        g_assert_cmpuint(n, <=, k - done);
        if (!n) {
            continue;
        }
        g_assert_true(is & R_IS_CQES_MASK || tries > 1);
        g_assert_cmpuint(t->cq_head + n, <=, u->entries);
        bm_read(b, t->cq + t->cq_head * 32, cqe, n * 32);
        for (i = 0; i < n; i++) {
            uint64_t addr = ldq_le_p(cqe + i * 32) & ~0x7full;
            uint64_t slot = (addr - b->ucd) / BM_UCD;

            /* any order: upstream posts them as the block layer ends them */
            g_assert_cmphex(addr, ==, b->ucd + slot * BM_UCD);
            g_assert_cmpuint(slot, <, k);
            g_assert_false(seen[slot]);
            seen[slot] = true;
            g_assert_cmphex(cqe[i * 32 + 16] & 0xf, ==, OCS_SUCCESS);
        }
        t->cq_head = tail;
        done += n;
        bm_wr(b, ufs_mcq_sq_reg(0, CQHP), t->cq_head * 32);
    }
    bm_ufs_check_rsp(b, k);
}

/* --- the stream -------------------------------------------------------------- */

static void bm_batch(Bm *b, bool write, uint64_t lba, uint32_t k)
{
    switch (b->bmdev->transport) {
    case BM_NVME:
        bm_nvme_batch(b, write, lba, k);
        break;
    case BM_UFS_LEGACY:
        bm_ufs_legacy_batch(b, write, lba, k);
        break;
    case BM_UFS_MCQ:
        bm_ufs_mcq_batch(b, write, lba, k);
        break;
    }
}

static void bm_phase(Bm *b, bool write, uint64_t lba, uint32_t n, uint32_t qd)
{
    uint32_t i;

    for (i = 0; i < n; i += qd) {
        bm_batch(b, write, lba + i, qd);
    }
    bm_mark(b);
}

static uint32_t bm_env_u32(const char *name, uint32_t dflt)
{
    const char *v = g_getenv(name);

    return v ? (uint32_t)g_ascii_strtoull(v, NULL, 10) : dflt;
}

static void test_stream(const void *opaque)
{
    const BmDev *d = opaque;
    uint32_t n = bm_env_u32("ZR_BENCH_N", 64);
    Bm b = { .bmdev = d, .idle_us = bm_env_u32("ZR_BENCH_IDLE_US", 50) };
    g_autofree char *pad = NULL;

    g_assert_cmpuint(n % BM_QD, ==, 0);
    g_assert_cmpuint(n, >, 0);
    g_assert_cmpuint(2 * n, <=, BM_ZONE_BLOCKS);
    /*
     * ZR_BENCH_HEAP_PAD bytes of -name move every later heap block of
     * QEMU: libc's string functions and malloc cost what they cost at the
     * addresses they get, so scripts/bench-model runs each rep at another
     * pad and averages over heap layouts instead of measuring one.
     */
    pad = g_strnfill(bm_env_u32("ZR_BENCH_HEAP_PAD", 0), 'p');
    b.args = g_strdup_printf("%s -name bm%s", d->args, pad);
    if (d->transport == BM_NVME) {
        bm_nvme_start(&b);
    } else {
        bm_ufs_start(&b);
    }
    b.pid = qtest_pid(b.qts);
    bm_mark(&b);
    bm_phase(&b, true, 0, n, 1);
    bm_phase(&b, false, 0, n, 1);
    bm_phase(&b, true, n, n, BM_QD);
    bm_phase(&b, false, n, n, BM_QD);
    g_test_message("ZR-BENCH device=%s n=%u phases=%d extra=%u pid=%d",
                   d->name, n, BM_PHASES, b.extra, (int)b.pid);
    g_free(b.args);
    if (b.n) {
        nzt_stop(b.n);
    } else {
        ufs_stop(b.u);
    }
}

int main(int argc, char **argv)
{
    size_t i;

    g_test_init(&argc, &argv, NULL);
    for (i = 0; i < ARRAY_SIZE(bm_devs); i++) {
        g_autofree char *path = g_strdup_printf("zr-bench-model/%s",
                                                bm_devs[i].name);

        qtest_add_data_func(path, &bm_devs[i], test_stream);
    }
    return g_test_run();
}
