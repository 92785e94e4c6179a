/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the nvme-zns qtests; see zr-nvme-helpers.h.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/pci/pci_regs.h"
#include "qobject/qdict.h"
#include "zr-scsi-helpers.h"
#include "zr-nvme-helpers.h"

uint32_t nzt_rd(Nzt *n, uint32_t off)
{
    return qpci_io_readl(n->dev, n->bar, off);
}

uint64_t nzt_rd64(Nzt *n, uint32_t off)
{
    return qpci_io_readq(n->dev, n->bar, off);
}

void nzt_wr(Nzt *n, uint32_t off, uint32_t val)
{
    qpci_io_writel(n->dev, n->bar, off, val);
}

Nzt *nzt_boot(const char *extra)
{
    return nzt_boot_pci(extra, 0x1af4, 0x10f0);
}

/* Boot q35 with @extra; the NVMe controller at slot 4 has PCI ID @vid:@did */
Nzt *nzt_boot_pci(const char *extra, uint16_t vid, uint16_t did)
{
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *args = g_strdup_printf(
        "%s-machine q35 -nodefaults %s", fw, extra);
    Nzt *n = g_new0(Nzt, 1);
    uint32_t i;

    n->qts = qtest_init(args);
    pc_alloc_init(&n->alloc, n->qts, ALLOC_NO_FLAGS);
    n->pcibus = qpci_new_pc(n->qts, &n->alloc);
    n->dev = qpci_device_find(n->pcibus, QPCI_DEVFN(NZT_PCI_SLOT, 0));
    g_assert_nonnull(n->dev);
    g_assert_cmphex(qpci_config_readw(n->dev, PCI_VENDOR_ID), ==, vid);
    g_assert_cmphex(qpci_config_readw(n->dev, PCI_DEVICE_ID), ==, did);
    g_assert_cmphex(qpci_config_readw(n->dev, PCI_CLASS_DEVICE), ==, 0x0108);
    g_assert_cmphex(qpci_config_readb(n->dev, PCI_CLASS_PROG), ==, 0x02);
    qpci_device_enable(n->dev);
    n->bar = qpci_iomap(n->dev, 0, NULL);
    for (i = 0; i <= NZT_MAX_Q; i++) {
        n->q[i].sq = guest_alloc(&n->alloc, NZT_QSIZE * 64);
        n->q[i].cq = guest_alloc(&n->alloc, NZT_QSIZE * 16);
        g_assert_cmpuint(n->q[i].sq & (NZT_PAGE - 1), ==, 0);
    }
    n->data = guest_alloc(&n->alloc, NZT_DATA);
    n->prp_list = guest_alloc(&n->alloc, NZT_PAGE);
    return n;
}

/*
 * A sparse image file of @mib MiB with "STALE" at block 3 (a
 * medium's stale data); g_free it
 */
char *nzt_image(int mib)
{
    char *img = NULL;
    int fd = g_file_open_tmp("zr-nvme-XXXXXX", &img, NULL);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, (off_t)mib << 20), ==, 0);
    g_assert_cmpint(pwrite(fd, "STALE", 5, 3 * 4096), ==, 5);
    close(fd);
    return img;
}

/* Boot with @extra, enable, and create I/O queue pairs 1..@nq */
Nzt *nzt_start(const char *extra, uint32_t nq)
{
    Nzt *n = nzt_boot(extra);
    uint32_t q;

    nzt_enable(n);
    g_assert_cmphex(nzt_set_feature(n, NVME_NUMBER_OF_QUEUES,
                                    (nq - 1) | (nq - 1) << 16, NULL), ==,
                    NVME_SUCCESS);
    for (q = 1; q <= nq; q++) {
        nzt_create_ioq(n, q, NZT_QSIZE, 0);
    }
    return n;
}

/*
 * Migrate the VM to a file and go on in a new QEMU started with @extra
 * (the same controller; drives as the destination has them).
 */
void nzt_migrate(Nzt *n, const char *extra)
{
    g_autofree char *fw = zr_firmware_args();
    g_autofree char *args = g_strdup_printf(
        "%s-machine q35 -nodefaults %s", fw, extra);

    n->qts = zr_migrate_via_file(n->qts, args);
    n->pcibus->qts = n->qts;
}

void nzt_stop(Nzt *n)
{
    qpci_free_pc(n->pcibus);
    g_free(n->dev);
    alloc_destroy(&n->alloc);
    qtest_quit(n->qts);
    g_free(n);
}

void nzt_step(Nzt *n, int64_t ns)
{
    qtest_clock_step(n->qts, ns);
}

static bool nzt_wait_csts(Nzt *n, uint32_t mask, uint32_t val)
{
    int i;

    for (i = 0; i < NZT_MAX_STEPS; i++) {
        if ((nzt_rd(n, NVME_REG_CSTS) & mask) == val) {
            return true;
        }
        nzt_step(n, NZT_STEP_NS);
    }
    return false;
}

bool nzt_disable(Nzt *n)
{
    nzt_wr(n, NVME_REG_CC, 0);
    return nzt_wait_csts(n, NVME_CSTS_READY, 0);
}

/* nvme_pci_configure_admin_queue() + nvme_enable_ctrl() */
void nzt_enable(Nzt *n)
{
    uint32_t cc = 0;
    uint32_t i;

    g_assert_true(nzt_disable(n));
    for (i = 0; i <= NZT_MAX_Q; i++) {
        n->q[i].size = 0;
    }
    nzt_wr(n, NVME_REG_AQA, (NZT_QSIZE - 1) << 16 | (NZT_QSIZE - 1));
    nzt_wr(n, NVME_REG_ASQ, n->q[0].sq);
    nzt_wr(n, NVME_REG_ASQ + 4, n->q[0].sq >> 32);
    nzt_wr(n, NVME_REG_ACQ, n->q[0].cq);
    nzt_wr(n, NVME_REG_ACQ + 4, n->q[0].cq >> 32);
    NVME_SET_CC_EN(cc, 1);
    NVME_SET_CC_CSS(cc, NVME_CC_CSS_ALL);
    NVME_SET_CC_IOSQES(cc, 6);
    NVME_SET_CC_IOCQES(cc, 4);
    NVME_SET_CC_AMS(cc, n->ams);
    nzt_wr(n, NVME_REG_CC, cc);
    g_assert_true(nzt_wait_csts(n, NVME_CSTS_READY, NVME_CSTS_READY));
    n->q[0] = (NztQueue) {
        .sq = n->q[0].sq, .cq = n->q[0].cq, .size = NZT_QSIZE,
        .phase = true,
    };
    qtest_memset(n->qts, n->q[0].cq, 0, NZT_QSIZE * 16);
}

uint16_t nzt_queue(Nzt *n, uint16_t qid, NvmeCmd *cmd)
{
    NztQueue *q = &n->q[qid];
    uint16_t cid = ++n->next_cid;

    g_assert_cmpuint(q->size, !=, 0);
    cmd->cid = cpu_to_le16(cid);
    qtest_memwrite(n->qts, q->sq + q->sq_tail * 64, cmd, sizeof(*cmd));
    q->sq_tail = (q->sq_tail + 1) % q->size;
    return cid;
}

void nzt_ring(Nzt *n, uint16_t qid)
{
    nzt_wr(n, 0x1000 + 8 * qid, n->q[qid].sq_tail);
}

bool nzt_poll(Nzt *n, uint16_t qid, NvmeCqe *cqe)
{
    return nzt_poll_cq(n, qid, qid, cqe);
}

/* Poll CQ @cqid with the CQ state kept in n->q[@qid] (q->cq its address) */
bool nzt_poll_cq(Nzt *n, uint16_t qid, uint16_t cqid, NvmeCqe *cqe)
{
    NztQueue *q = &n->q[qid];

    qtest_memread(n->qts, q->cq + q->cq_head * 16, cqe, sizeof(*cqe));
    if ((le16_to_cpu(cqe->status) & 1) != q->phase) {
        return false;
    }
    q->cq_head++;
    if (q->cq_head == q->size) {
        q->cq_head = 0;
        q->phase = !q->phase;
    }
    nzt_wr(n, 0x1000 + 8 * cqid + 4, q->cq_head);
    return true;
}

void nzt_wait(Nzt *n, uint16_t qid, NvmeCqe *cqe)
{
    int i;

    for (i = 0; i < NZT_MAX_STEPS; i++) {
        if (nzt_poll(n, qid, cqe)) {
            return;
        }
        nzt_step(n, NZT_STEP_NS);
    }
    g_assert_not_reached();
}

void nzt_io(Nzt *n, uint16_t qid, NvmeCmd *cmd, NvmeCqe *cqe)
{
    uint16_t cid = nzt_queue(n, qid, cmd);

    nzt_ring(n, qid);
    nzt_wait(n, qid, cqe);
    g_assert_cmpuint(le16_to_cpu(cqe->cid), ==, cid);
}

void nzt_admin(Nzt *n, NvmeCmd *cmd, NvmeCqe *cqe)
{
    nzt_io(n, 0, cmd, cqe);
}

uint16_t nzt_admin_sc(Nzt *n, NvmeCmd *cmd)
{
    NvmeCqe cqe;

    nzt_admin(n, cmd, &cqe);
    return NZT_SC(&cqe);
}

uint16_t nzt_identify(Nzt *n, uint8_t cns, uint32_t nsid, uint8_t csi,
                      void *buf)
{
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_IDENTIFY };
    uint16_t sc;

    cmd.nsid = cpu_to_le32(nsid);
    cmd.dptr.prp1 = cpu_to_le64(n->data);
    cmd.cdw10 = cpu_to_le32(cns);
    cmd.cdw11 = cpu_to_le32((uint32_t)csi << 24);
    sc = nzt_admin_sc(n, &cmd);
    if (buf) {
        qtest_memread(n->qts, n->data, buf, 4096);
    }
    return sc;
}

uint16_t nzt_get_log(Nzt *n, uint8_t lid, uint8_t csi, uint32_t nsid,
                     void *buf, uint32_t len)
{
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_GET_LOG_PAGE };
    uint32_t numd = len / 4 - 1;
    uint16_t sc;

    g_assert_cmpuint(len, <=, NZT_PAGE);
    cmd.nsid = cpu_to_le32(nsid);
    cmd.dptr.prp1 = cpu_to_le64(n->data);
    cmd.cdw10 = cpu_to_le32(lid | (numd & 0xffff) << 16);
    cmd.cdw11 = cpu_to_le32(numd >> 16);
    cmd.cdw14 = cpu_to_le32((uint32_t)csi << 24);
    sc = nzt_admin_sc(n, &cmd);
    if (buf) {
        qtest_memread(n->qts, n->data, buf, len);
    }
    return sc;
}

uint16_t nzt_set_feature(Nzt *n, uint8_t fid, uint32_t dw11, uint32_t *dw0)
{
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_SET_FEATURES };
    NvmeCqe cqe;

    cmd.cdw10 = cpu_to_le32(fid);
    cmd.cdw11 = cpu_to_le32(dw11);
    cmd.dptr.prp1 = cpu_to_le64(n->data);
    nzt_admin(n, &cmd, &cqe);
    if (dw0) {
        *dw0 = le32_to_cpu(cqe.result);
    }
    return NZT_SC(&cqe);
}

uint16_t nzt_get_feature(Nzt *n, uint8_t fid, uint8_t sel, uint32_t dw11,
                         uint32_t *dw0)
{
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_GET_FEATURES };
    NvmeCqe cqe;

    cmd.cdw10 = cpu_to_le32(fid | (uint32_t)sel << 8);
    cmd.cdw11 = cpu_to_le32(dw11);
    cmd.dptr.prp1 = cpu_to_le64(n->data);
    nzt_admin(n, &cmd, &cqe);
    if (dw0) {
        *dw0 = le32_to_cpu(cqe.result);
    }
    return NZT_SC(&cqe);
}

/* Create I/O CQ and SQ @qid (the CQ with interrupts on vector @iv) */
/* Create I/O CQ @cqid of @size entries at @addr, interrupts on vector @iv */
void nzt_create_cq(Nzt *n, uint16_t cqid, uint32_t size, uint64_t addr,
                   uint16_t iv)
{
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_CREATE_CQ };

    qtest_memset(n->qts, addr, 0, size * 16);
    cmd.dptr.prp1 = cpu_to_le64(addr);
    cmd.cdw10 = cpu_to_le32(cqid | (size - 1) << 16);
    cmd.cdw11 = cpu_to_le32(NVME_CQ_PC | NVME_CQ_IEN | (uint32_t)iv << 16);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_SUCCESS);
}

/* Create I/O SQ @qid of @size entries at @addr, completing into @cqid */
void nzt_create_sq(Nzt *n, uint16_t qid, uint32_t size, uint64_t addr,
                   uint16_t cqid)
{
    NvmeCmd cmd = { .opcode = NVME_ADM_CMD_CREATE_SQ };

    cmd.dptr.prp1 = cpu_to_le64(addr);
    cmd.cdw10 = cpu_to_le32(qid | (size - 1) << 16);
    cmd.cdw11 = cpu_to_le32(NVME_SQ_PC | (n->qprio[qid] & 3) << 1 |
                            (uint32_t)cqid << 16);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_SUCCESS);
}

/* Delete I/O SQ @qid (@cq: CQ @qid) */
void nzt_delete_q(Nzt *n, uint16_t qid, bool cq)
{
    NvmeCmd cmd = { .opcode = cq ? NVME_ADM_CMD_DELETE_CQ
                                 : NVME_ADM_CMD_DELETE_SQ };

    cmd.cdw10 = cpu_to_le32(qid);
    g_assert_cmphex(nzt_admin_sc(n, &cmd), ==, NVME_SUCCESS);
}

void nzt_create_ioq(Nzt *n, uint16_t qid, uint32_t size, uint16_t iv)
{
    NztQueue *q = &n->q[qid];

    g_assert_cmpuint(size, <=, NZT_QSIZE);
    nzt_create_cq(n, qid, size, q->cq, iv);
    nzt_create_sq(n, qid, size, q->sq, qid);
    *q = (NztQueue) { .sq = q->sq, .cq = q->cq, .size = size, .phase = true };
}

void nzt_rw_cmd(NvmeCmd *cmd, uint8_t opcode, uint64_t slba, uint32_t nlb,
                uint64_t prp1, uint64_t prp2)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = opcode;
    cmd->nsid = cpu_to_le32(1);
    cmd->dptr.prp1 = cpu_to_le64(prp1);
    cmd->dptr.prp2 = cpu_to_le64(prp2);
    cmd->cdw10 = cpu_to_le32(slba);
    cmd->cdw11 = cpu_to_le32(slba >> 32);
    cmd->cdw12 = cpu_to_le32(nlb - 1);
}

void nzt_zms_cmd(NvmeCmd *cmd, uint64_t slba, uint8_t zsa, bool all)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = NVME_CMD_ZONE_MGMT_SEND;
    cmd->nsid = cpu_to_le32(1);
    cmd->cdw10 = cpu_to_le32(slba);
    cmd->cdw11 = cpu_to_le32(slba >> 32);
    cmd->cdw13 = cpu_to_le32(zsa | (all ? 1u << 8 : 0));
}

void nzt_zmr_cmd(NvmeCmd *cmd, uint64_t slba, uint8_t zrasf, bool partial,
                 uint64_t prp1, uint32_t bytes)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = NVME_CMD_ZONE_MGMT_RECV;
    cmd->nsid = cpu_to_le32(1);
    cmd->dptr.prp1 = cpu_to_le64(prp1);
    cmd->cdw10 = cpu_to_le32(slba);
    cmd->cdw11 = cpu_to_le32(slba >> 32);
    cmd->cdw12 = cpu_to_le32(bytes / 4 - 1);
    cmd->cdw13 = cpu_to_le32((uint32_t)zrasf << 8 | (partial ? 1u << 16 : 0));
}

/* PRPs for @bytes at n->data: PRP1, and PRP2 or a list in n->prp_list */
static void nzt_prps(Nzt *n, uint32_t bytes, uint64_t *prp1, uint64_t *prp2)
{
    uint32_t pages = DIV_ROUND_UP(bytes, NZT_PAGE), i;

    *prp1 = n->data;
    *prp2 = 0;
    if (pages == 2) {
        *prp2 = n->data + NZT_PAGE;
    } else if (pages > 2) {
        for (i = 1; i < pages; i++) {
            uint64_t e = cpu_to_le64(n->data + (uint64_t)i * NZT_PAGE);

            qtest_memwrite(n->qts, n->prp_list + (i - 1) * 8, &e, 8);
        }
        *prp2 = n->prp_list;
    }
}

uint16_t nzt_write(Nzt *n, uint16_t qid, uint64_t slba, uint32_t nlb,
                   uint8_t fill)
{
    uint32_t bytes = nlb * 4096;
    uint64_t prp1, prp2;
    NvmeCmd cmd;
    NvmeCqe cqe;

    qtest_memset(n->qts, n->data, fill, bytes);
    nzt_prps(n, bytes, &prp1, &prp2);
    nzt_rw_cmd(&cmd, NVME_CMD_WRITE, slba, nlb, prp1, prp2);
    nzt_io(n, qid, &cmd, &cqe);
    return NZT_SC(&cqe);
}

uint16_t nzt_read(Nzt *n, uint16_t qid, uint64_t slba, uint32_t nlb,
                  void *buf)
{
    uint32_t bytes = nlb * 4096;
    uint64_t prp1, prp2;
    NvmeCmd cmd;
    NvmeCqe cqe;

    qtest_memset(n->qts, n->data, 0xee, bytes);
    nzt_prps(n, bytes, &prp1, &prp2);
    nzt_rw_cmd(&cmd, NVME_CMD_READ, slba, nlb, prp1, prp2);
    nzt_io(n, qid, &cmd, &cqe);
    if (buf) {
        qtest_memread(n->qts, n->data, buf, bytes);
    }
    return NZT_SC(&cqe);
}

uint16_t nzt_zms(Nzt *n, uint64_t slba, uint8_t zsa, bool all)
{
    NvmeCmd cmd;
    NvmeCqe cqe;

    nzt_zms_cmd(&cmd, slba, zsa, all);
    nzt_io(n, 1, &cmd, &cqe);
    return NZT_SC(&cqe);
}

uint16_t nzt_append(Nzt *n, uint64_t zslba, uint32_t nlb, uint64_t *alba)
{
    uint64_t prp1, prp2;
    NvmeCmd cmd;
    NvmeCqe cqe;

    qtest_memset(n->qts, n->data, 0xa5, nlb * 4096);
    nzt_prps(n, nlb * 4096, &prp1, &prp2);
    nzt_rw_cmd(&cmd, NVME_CMD_ZONE_APPEND, zslba, nlb, prp1, prp2);
    nzt_io(n, 1, &cmd, &cqe);
    if (alba) {
        *alba = le32_to_cpu(cqe.result) | (uint64_t)le32_to_cpu(cqe.dw1) << 32;
    }
    return NZT_SC(&cqe);
}

/* Report zones from @slba; returns the header's count */
uint64_t nzt_report(Nzt *n, uint64_t slba, uint8_t zrasf, bool partial,
                    NvmeZoneDescr *zd, uint32_t max)
{
    uint32_t bytes = 64 + 64 * max;
    uint64_t nr;
    NvmeCmd cmd;
    NvmeCqe cqe;

    g_assert_cmpuint(bytes, <=, NZT_PAGE);
    qtest_memset(n->qts, n->data, 0xee, bytes);
    nzt_zmr_cmd(&cmd, slba, zrasf, partial, n->data, bytes);
    nzt_io(n, 1, &cmd, &cqe);
    g_assert_cmphex(NZT_SC(&cqe), ==, NVME_SUCCESS);
    nr = qtest_readq(n->qts, n->data);
    if (zd) {
        qtest_memread(n->qts, n->data + 64, zd, 64 * max);
    }
    return nr;
}

uint8_t nzt_zone_state(Nzt *n, uint64_t zslba, uint64_t *wp)
{
    NvmeZoneDescr zd;

    g_assert_cmpuint(nzt_report(n, zslba, 0, true, &zd, 1), ==, 1);
    g_assert_cmphex(le64_to_cpu(zd.zslba), ==, zslba);
    if (wp) {
        *wp = le64_to_cpu(zd.wp);
    }
    return zd.zs >> 4;
}

uint64_t nzt_qom_u64_at(Nzt *n, const char *path, const char *prop)
{
    QDict *r = qtest_qmp(n->qts, "{ 'execute': 'qom-get', 'arguments': "
                         "{ 'path': %s, 'property': %s } }", path, prop);
    uint64_t v = qdict_get_int(r, "return");

    qobject_unref(r);
    return v;
}

uint64_t nzt_qom_u64(Nzt *n, const char *prop)
{
    return nzt_qom_u64_at(n, "/machine/peripheral/nz0", prop);
}

char *nzt_qom_str(Nzt *n, const char *prop)
{
    QDict *r = qtest_qmp(n->qts, "{ 'execute': 'qom-get', 'arguments': "
                         "{ 'path': '/machine/peripheral/nz0', "
                         "'property': %s } }", prop);
    char *v = g_strdup(qdict_get_str(r, "return"));

    qobject_unref(r);
    return v;
}

void nzt_qom_set_str(Nzt *n, const char *prop, const char *value)
{
    QDict *r = qtest_qmp(n->qts, "{ 'execute': 'qom-set', 'arguments': "
                         "{ 'path': '/machine/peripheral/nz0', "
                         "'property': %s, 'value': %s } }", prop, value);

    g_assert_false(qdict_haskey(r, "error"));
    qobject_unref(r);
}
