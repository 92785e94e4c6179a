/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: UTP transfer requests (UFSHCI 4.0 section 6).
 *
 * A doorbell write (UTRLDBR) records the newly rung slots; the work BH
 * (work.c) then reads their UTRDs, ring by ring, each ring in slot order.
 * In MCQ mode mcq.c fetches UTRDs from the submission queues instead.
 * Either way ufs_zoned_req_begin() reads the request UPIU and PRDT.
 * NOP OUT and QUERY REQUEST are answered at once;
 * COMMAND UPIUs are submitted to the zoned-reorder dispatch engine and
 * handed to the LU on the controller's SCSI bus when the reorder policy
 * starts them (ufs_zoned_cmd_start), so the policy decides the order the
 * LU -- and its write-pointer check -- sees.  A command completes to the
 * guest when both the LU is done and its modelled service time is over.
 *
 * Bad descriptors never assert: they complete with the Overall Command
 * Status the UTRD defines (UFSHCI 4.0 6.1.1; INVALID_CMD_TABLE_ATTR,
 * INVALID_PRDT_ATTR, MISMATCH_DATA_BUF_SIZE, MISMATCH_RESP_UPIU_SIZE)
 * and a LOG_GUEST_ERROR line; a DMA that fails is a system bus error
 * (OCS FATAL_ERROR and IS.SBFES, UFSHCI 4.0 5.3.1).
 *
 * Lifetime of a request context: claimed at fetch (busy), it holds a
 * reference on its SCSIRequest until it completes or is dropped.  The
 * SCSI bus callbacks only record what the LU did and schedule the work
 * BH.  A drop (UTRLCLR, SQ cleanup, reset) stops the command first --
 * with `stopping` set, so no callback acts on it -- and releases the
 * context last.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "hw/pci/pci.h"
#include "system/dma.h"
#include "scsi/constants.h"
#include "hw/scsi/scsi-zbc.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define UFSZ_UTRD_SIZE          32
#define UFSZ_UPIU_HDR_SIZE      32      /* header + transaction fields */
#define UFSZ_MAX_PRDT_ENTRIES   4096
#define UFSZ_PRDT_ENTRY_SIZE    16

static hwaddr ufs_zoned_utrd_addr(UfsZonedState *s, uint32_t slot)
{
    hwaddr base = ((uint64_t)s->reg.utrlbau << 32) | s->reg.utrlba;

    return base + slot * UFSZ_UTRD_SIZE;
}

/* ufs_zoned_prdt_alloc() when the room kept does not fit @n entries */
UfshcdSgEntry *ufs_zoned_prdt_grow(UfsZonedState *s, uint32_t slot,
                                   uint32_t n)
{
    if (!n) {
        return NULL;
    }
    if (n > UFSZ_PRDT_KEEP) {
        return g_new0(UfshcdSgEntry, n);
    }
    if (s->prdt_cap[slot] < n) {
        g_free(s->prdt_keep[slot]);
        s->prdt_keep[slot] = g_new0(UfshcdSgEntry, n);
        s->prdt_cap[slot] = n;
    }
    return s->prdt_keep[slot];
}

void ufs_zoned_prdt_free(UfsZonedReq *req)
{
    if (req->prdt != req->s->prdt_keep[req->slot]) {
        g_free(req->prdt);
    }
    req->prdt = NULL;
}

void ufs_zoned_dma_cleanup(UfsZonedState *s)
{
    uint32_t i;

    zr_dma_ram_cleanup(&s->ram);
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        if (s->req_sg[i].dev) {
            qemu_sglist_destroy(&s->req_sg[i]);
        }
        g_free(s->prdt_keep[i]);
        s->prdt_keep[i] = NULL;
        s->prdt_cap[i] = 0;
    }
}

/*
 * Whether [@addr, @addr + @len) is in the PCI address space: its first and
 * last dword are checked (PRDT entries and UPIUs are dword granular), so
 * that a check costs the same for any length; address_space_access_valid()
 * walks an MMIO-backed range one access size at a time.  A hole in between
 * shows at the transfer itself, as a system bus error (FATAL ERROR and
 * IS.SBFES, ufs_zoned_bus_error()).  A range inside guest RAM passes both
 * checks: it is found in the RAM map without them.
 */
static bool ufs_zoned_dma_edges_ok(UfsZonedState *s, hwaddr addr,
                                   uint64_t len, bool is_write)
{
    AddressSpace *as = pci_get_address_space(&s->parent_obj);
    uint64_t edge = MIN(len, 4);

    return address_space_access_valid(as, addr, edge, is_write,
                                      MEMTXATTRS_UNSPECIFIED) &&
           address_space_access_valid(as, addr + len - edge, edge, is_write,
                                      MEMTXATTRS_UNSPECIFIED);
}

static inline bool ufs_zoned_dma_ok(UfsZonedState *s, hwaddr addr,
                                    uint64_t len, bool is_write)
{
    if (!len) {
        return true;
    }
    if (addr + len - 1 < addr) {
        return false;
    }
    return zr_dma_ram_contains(&s->ram, addr, len) ||
           ufs_zoned_dma_edges_ok(s, addr, len, is_write);
}

static MemTxResult ufs_zoned_dma(UfsZonedState *s, hwaddr addr, void *buf,
                                 uint64_t len, DMADirection dir)
{
    return pci_dma_rw(&s->parent_obj, addr, buf, len, dir,
                      MEMTXATTRS_UNSPECIFIED);
}

/* --- completion -------------------------------------------------------- */

/* A DMA failed: a system bus error (UFSHCI 4.0 5.3.1, IS.SBFES). */
static void ufs_zoned_bus_error(UfsZonedState *s, UfsZonedReq *req,
                                const char *what)
{
    qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: slot %u: %s: DMA failed\n",
                  req ? req->slot : 0, what);
    trace_ufs_zoned_err_bus(req ? req->slot : 0, what);
    if (req) {
        req->ocs = UFS_OCS_FATAL_ERROR;
    }
    ufs_zoned_raise(s, R_IS_SBFES_MASK);
}

/* OCS is DW2 bits 7:0 of the UTRD; the rest of DW2 is left as it was. */
static void ufs_zoned_write_ocs(UfsZonedState *s, UfsZonedReq *req)
{
    uint32_t dw2 = le32_to_cpu(req->utrd.header.dword_2);

    dw2 = cpu_to_le32((dw2 & ~0xffu) | req->ocs);
    if (ufs_zoned_dma(s, ufs_zoned_utrd_addr(s, req->slot) + 8, &dw2,
                      sizeof(dw2), DMA_DIRECTION_FROM_DEVICE) != MEMTX_OK) {
        ufs_zoned_bus_error(s, NULL, "UTRD OCS write");
    }
}

/* Legacy slot done: OCS into the UTRD, doorbell bit clear, UTRCS. */
static void ufs_zoned_legacy_done(UfsZonedState *s, UfsZonedReq *req)
{
    ufs_zoned_write_ocs(s, req);
    req->busy = false;
    s->utrldbr &= ~(1u << req->slot);
    ufs_zoned_irq_completion(s, UFSZ_AGG_LEGACY,
                             le32_to_cpu(req->utrd.header.dword_0) &
                             UFS_UTP_REQ_DESC_INT_CMD);
}

/*
 * Write @rsp (header plus @data_len bytes of data segment) to the response
 * UPIU and complete: OCS in the UTRD (legacy) or a CQE (MCQ).
 */
static void ufs_zoned_req_done(UfsZonedReq *req, UtpUpiuRsp *rsp,
                               uint16_t data_len)
{
    UfsZonedState *s = req->s;
    uint32_t len = UFSZ_UPIU_HDR_SIZE + data_len;

    /* Answered from here on, even if the DMA below re-enters the BHs. */
    req->responded = true;
    req->finish_pending = false;
    if (rsp && req->ocs == UFS_OCS_SUCCESS) {
        if (len > req->rsp_len) {
            /* UFSHCI 4.0 6.1.1: the response does not fit its buffer. */
            qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: slot %u: response "
                          "UPIU of %u bytes, buffer of %u\n", req->slot,
                          len, req->rsp_len);
            trace_ufs_zoned_err_utrd(req->slot,
                                     UFS_OCS_MISMATCH_RESP_UPIU_SIZE,
                                     "response UPIU larger than its buffer");
            req->ocs = UFS_OCS_MISMATCH_RESP_UPIU_SIZE;
        } else if (ufs_zoned_dma(s, req->rsp_addr, rsp, len,
                                 DMA_DIRECTION_FROM_DEVICE) != MEMTX_OK) {
            ufs_zoned_bus_error(s, req, "response UPIU");
        }
    }
    trace_ufs_zoned_complete(req->slot, req->sq, req->tag, req->ocs,
                             req->status);
    ufs_zoned_prdt_free(req);
    if (req->sreq) {
        scsi_req_unref(req->sreq);
        req->sreq = NULL;
    }
    if (req->sq >= 0) {
        ufs_zoned_mcq_req_done(s, req);
    } else {
        ufs_zoned_legacy_done(s, req);
    }
    ufs_zoned_ahit_maybe_idle(s);
}

/* Complete with an OCS error before the request reached an LU. */
static void ufs_zoned_req_fail(UfsZonedReq *req, uint8_t ocs,
                               const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: slot %u: %s\n", req->slot,
                  why);
    trace_ufs_zoned_err_utrd(req->slot, ocs, why);
    req->ocs = ocs;
    ufs_zoned_req_done(req, NULL, 0);
}

/* The response's first @size bytes cleared, its header from the request */
static void ufs_zoned_rsp_header(UfsZonedReq *req, UtpUpiuRsp *rsp,
                                 uint8_t tc, size_t size)
{
    memset(rsp, 0, size);
    rsp->header.trans_type = tc;
    rsp->header.lun = req->upiu.header.lun;
    rsp->header.task_tag = req->upiu.header.task_tag;
    rsp->header.iid_cmd_set_type = req->upiu.header.iid_cmd_set_type;
    rsp->header.query_func = req->upiu.header.query_func;
}

/* SCSI RESPONSE UPIU (UFS 4.0 10.7.2) from status, sense and residual. */
static void ufs_zoned_cmd_respond(UfsZonedReq *req)
{
    /* cleared as far as a SCSI response goes: the DMA goes no further */
    UtpUpiuRsp rsp UFSZ_UNINIT;
    uint16_t data_len = 0;

    ufs_zoned_rsp_header(req, &rsp, UFS_UPIU_TRANSACTION_RESPONSE,
                         offsetof(UtpUpiuRsp, sr) + sizeof(rsp.sr));
    rsp.header.scsi_status = req->status;
    /* UFS 4.0 10.7.2: O when the command wanted more than EDTL, else U */
    if (req->resid) {
        rsp.header.flags = req->overflow ? UFS_UPIU_FLAG_OVERFLOW :
                                           UFS_UPIU_FLAG_UNDERFLOW;
        rsp.sr.residual_transfer_count = cpu_to_be32(req->resid);
    }
    if (req->sense_len) {
        rsp.sr.sense_data_len = cpu_to_be16(req->sense_len);
        memcpy(rsp.sr.sense_data, req->sense, req->sense_len);
        data_len = 2 + req->sense_len;
        rsp.header.data_segment_length = cpu_to_be16(data_len);
    }
    ufs_zoned_req_done(req, &rsp, data_len);
}

static void ufs_zoned_set_sense(UfsZonedReq *req, SCSISense sense)
{
    req->status = CHECK_CONDITION;
    req->sense_len = scsi_build_sense_buf(req->sense, sizeof(req->sense),
                                          sense, true);
}

/* UFS 4.0 10.7.2: overflow residual, else what EDTL left unmoved. */
static void ufs_zoned_set_resid(UfsZonedReq *req, uint64_t exp)
{
    uint64_t want = req->sreq ? req->sreq->cmd.xfer : 0;

    if (req->overflow) {
        /* all the command wanted beyond EDTL, not only the first chunk */
        req->resid = MIN(want > exp ? want - exp : req->overflow_bytes,
                         UINT32_MAX);
    } else {
        req->resid = exp > req->xfer_off ? exp - req->xfer_off : 0;
    }
}

/* --- PRDT data movement ------------------------------------------------ */

/*
 * Move @len bytes between @buf and the PRDT at the request's transfer
 * offset; never beyond the expected transfer length or the PRDT.
 * Returns the bytes moved, or -1 on a DMA error.
 */
static int64_t ufs_zoned_prdt_rw(UfsZonedReq *req, uint8_t *buf, uint64_t len,
                                 DMADirection dir)
{
    uint64_t exp = be32_to_cpu(req->upiu.sc.exp_data_transfer_len);
    uint64_t off = req->xfer_off, pos = 0, done = 0;
    uint32_t i;

    len = MIN(len, MIN(exp, req->prdt_bytes) - MIN(off, MIN(exp,
                                                   req->prdt_bytes)));
    for (i = 0; i < req->prdt_n && done < len; i++) {
        uint64_t sz = req->prdt[i].size;
        uint64_t skip, n;

        if (off >= pos + sz) {
            pos += sz;
            continue;
        }
        skip = off - pos;
        n = MIN(sz - skip, len - done);
        if (ufs_zoned_dma(req->s, req->prdt[i].addr + skip, buf + done, n,
                          dir) != MEMTX_OK) {
            return -1;
        }
        done += n;
        off += n;
        pos += sz;
    }
    req->xfer_off = off;
    return done;
}

/* --- data moved by the LU itself --------------------------------------- */

/*
 * At most what scsi-disk moves through its own buffer in one step
 * (SCSI_DMA_BUF_SIZE in hw/scsi/scsi-disk.c), so that a command that fails
 * has moved what the copy would have: all of a write's data, none of a
 * read's.
 */
#define UFSZ_SG_MAX_BYTES       (128 * KiB)

/*
 * A READ or WRITE to a scsi-hd LU moves its data with the block layer's
 * DMA (dma_blk_io()) over a scatter-gather list of the PRDT instead of
 * through ufs_zoned_req_transfer()'s copy, where that moves the same bytes
 * with the same outcome:
 *  - a scsi-hd LU: it keeps no zones, so when its data arrives does not
 *    matter (a zoned LU gets its data on the work BH, in the order the LUs
 *    asked for it); the exact class, so no subtype moves data otherwise;
 *  - the command moves EDTL bytes, all in the PRDT: no overflow and no
 *    short data-out to report;
 *  - each of those bytes in guest RAM, where DMA does not fail (the RAM
 *    going away before a read's data is in is seen at its completion);
 *  - at most UFSZ_SG_MAX_BYTES;
 *  - not a request its LU brought back in a migration: that runs again
 *    from the start with the copy, as it always did.
 */
static bool ufs_zoned_sg_fits(UfsZonedReq *req, SCSIRequest *sreq)
{
    static ObjectClass *hd;
    uint64_t exp = be32_to_cpu(req->upiu.sc.exp_data_transfer_len);
    uint64_t left = sreq->cmd.xfer, pos = 0;
    uint32_t i;

    if (!hd) {
        hd = object_class_by_name("scsi-hd");
    }
    if (!hd || object_get_class(OBJECT(sreq->dev)) != hd ||
        req->mig_live || req->xfer_off ||
        !(req->zr.op == ZR_OP_READ || req->zr.op == ZR_OP_WRITE) ||
        sreq->cmd.mode != (req->zr.op == ZR_OP_READ ? SCSI_XFER_FROM_DEV :
                                                      SCSI_XFER_TO_DEV) ||
        !left || left != exp || left > UFSZ_SG_MAX_BYTES ||
        left > req->prdt_bytes) {
        return false;
    }
    if (req->prdt_ram && req->prdt_ram_gen == req->s->ram.gen) {
        return true;    /* all of it found in RAM, none gone since */
    }
    for (i = 0; i < req->prdt_n && pos < left; i++) {
        uint64_t n = MIN(req->prdt[i].size, left - pos);

        if (!zr_dma_ram_contains(&req->s->ram, req->prdt[i].addr, n)) {
            return false;
        }
        pos += n;
    }
    return true;
}

/* The bus asks for the list as the LU takes the request (cmd_start). */
static QEMUSGList *ufs_zoned_scsi_get_sg_list(SCSIRequest *sreq)
{
    UfsZonedReq *req = sreq->hba_private;
    UfsZonedState *s;
    QEMUSGList *qsg;
    uint64_t left;
    uint32_t i;

    if (!req || !req->busy || req->sreq != sreq ||
        !ufs_zoned_sg_fits(req, sreq)) {
        return NULL;
    }
    s = req->s;
    qsg = &s->req_sg[req->slot];
    if (!qsg->dev) {
        pci_dma_sglist_init(qsg, &s->parent_obj, 4);
    }
    qsg->nsg = 0;
    qsg->size = 0;
    left = sreq->cmd.xfer;
    for (i = 0; left; i++) {
        uint64_t n = MIN(req->prdt[i].size, left);

        qemu_sglist_add(qsg, req->prdt[i].addr, n);
        left -= n;
    }
    req->sg_used = true;
    req->sg_gen = s->ram.gen;
    s->data_sg++;
    return qsg;
}

/*
 * The LU is done with a command whose data it moved itself: what the copy
 * would have moved by now (ufs_zoned_sg_fits()).  A read whose guest RAM
 * went away while it ran fails as the copy would have, with a system bus
 * error (ufs_zoned_cmd_maybe_finish()).
 */
static void ufs_zoned_sg_check_lost(UfsZonedReq *req)
{
    UfsZonedState *s = req->s;
    AddressSpace *as = pci_get_address_space(&s->parent_obj);
    QEMUSGList *qsg = &s->req_sg[req->slot];
    int i;

    for (i = 0; i < qsg->nsg; i++) {
        if (!address_space_access_valid(as, qsg->sg[i].base, qsg->sg[i].len,
                                        true, MEMTXATTRS_UNSPECIFIED)) {
            req->sg_lost = true;
            req->xfer_off = 0;
            break;
        }
    }
}

static inline void ufs_zoned_sg_done(UfsZonedReq *req, SCSIRequest *sreq,
                                     bool good)
{
    bool read = sreq->cmd.mode == SCSI_XFER_FROM_DEV;

    /* a write's residual drops when its data is taken (dma_blk_io()) */
    if (good || (!read && sreq->residual != sreq->cmd.xfer)) {
        req->xfer_off = sreq->cmd.xfer;
    }
    /* guest RAM changed while it ran: is what the read wrote still there? */
    if (good && read && req->sg_gen != req->s->ram.gen) {
        ufs_zoned_sg_check_lost(req);
    }
}

/* --- well-known LUs (UFS 4.0 10.8.4), answered by the controller ------- */

/* Data-in of a W-LU command: at most @alloc of @len bytes of @data. */
static void ufs_zoned_wlun_data(UfsZonedReq *req, uint8_t *data,
                                uint32_t len, uint32_t alloc)
{
    int64_t n;

    len = MIN(len, alloc);
    n = ufs_zoned_prdt_rw(req, data, len, DMA_DIRECTION_FROM_DEVICE);
    if (n < 0) {
        ufs_zoned_bus_error(req->s, req, "W-LU data-in");
    } else if (n < len) {
        req->overflow = true;
        req->overflow_bytes = len - n;
    }
}

static void ufs_zoned_report_luns(UfsZonedReq *req, uint32_t alloc)
{
    UfsZonedState *s = req->s;
    uint8_t buf[8 + 8 * UFSZ_MAX_LUS] = { 0 };
    uint32_t n = 0;
    BusChild *kid;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        SCSIDevice *dev = SCSI_DEVICE(kid->child);

        if (n < UFSZ_MAX_LUS && dev->lun < UFSZ_MAX_LUS) {
            buf[8 + n * 8 + 1] = dev->lun;
            n++;
        }
    }
    stl_be_p(buf, n * 8);
    ufs_zoned_wlun_data(req, buf, 8 + n * 8, alloc);
}

static void ufs_zoned_wlun_cmd(UfsZonedReq *req)
{
    const uint8_t *cdb = req->upiu.sc.cdb;
    uint8_t wlun = req->upiu.header.lun;
    uint8_t buf[36] = { 0 };

    req->status = GOOD;
    if (wlun != UFS_UPIU_REPORT_LUNS_WLUN &&
        wlun != UFS_UPIU_UFS_DEVICE_WLUN && wlun != UFS_UPIU_BOOT_WLUN &&
        wlun != UFS_UPIU_RPMB_WLUN) {
        /* UFS 4.0 10.8.4 defines four W-LUs; SPC-5: no such LU. */
        ufs_zoned_set_sense(req, SENSE_CODE(LUN_NOT_SUPPORTED));
        goto respond;
    }
    switch (cdb[0]) {
    case INQUIRY:
        if (cdb[1] & 1) {
            if (cdb[2] != 0) {
                ufs_zoned_set_sense(req, SENSE_CODE(INVALID_FIELD));
                break;
            }
            /* Supported VPD pages: only page 00h */
            buf[0] = 0x1e;
            buf[3] = 1;
            ufs_zoned_wlun_data(req, buf, 5, lduw_be_p(&cdb[3]));
            break;
        }
        buf[0] = 0x1e;          /* well known logical unit */
        buf[2] = 6;             /* SPC-4 */
        buf[3] = 2;
        buf[4] = 31;
        buf[7] = 0x02;          /* CMDQUE */
        memcpy(&buf[8], "QEMU    ", 8);
        memcpy(&buf[16], wlun == UFS_UPIU_RPMB_WLUN ? "UFS RPMB WLUN   " :
               wlun == UFS_UPIU_BOOT_WLUN ? "UFS BOOT WLUN   " :
               wlun == UFS_UPIU_UFS_DEVICE_WLUN ? "UFS DEVICE WLUN " :
               "UFS REPORT WLUN ", 16);
        memcpy(&buf[32], "1.0 ", 4);
        ufs_zoned_wlun_data(req, buf, 36, lduw_be_p(&cdb[3]));
        break;
    case REPORT_LUNS:
        if (wlun != UFS_UPIU_REPORT_LUNS_WLUN) {
            ufs_zoned_set_sense(req, SENSE_CODE(INVALID_OPCODE));
            break;
        }
        ufs_zoned_report_luns(req, ldl_be_p(&cdb[6]));
        break;
    case REQUEST_SENSE:
        buf[0] = 0x70;
        buf[7] = 10;
        ufs_zoned_wlun_data(req, buf, 18, cdb[4]);
        break;
    case TEST_UNIT_READY:
    case START_STOP:
        break;
    default:
        ufs_zoned_set_sense(req, SENSE_CODE(INVALID_OPCODE));
        break;
    }
respond:
    if (req->ocs == UFS_OCS_SUCCESS) {
        uint64_t exp = be32_to_cpu(req->upiu.sc.exp_data_transfer_len);

        ufs_zoned_set_resid(req, exp);
        if (req->upiu.header.flags & UFS_UPIU_CMD_FLAGS_WRITE) {
            req->resid = 0;
        }
        ufs_zoned_cmd_respond(req);
    } else {
        ufs_zoned_req_done(req, NULL, 0);
    }
}

/* --- commands to the LUs ----------------------------------------------- */

static void ufs_zoned_cmd_classify(const uint8_t *cdb, ZrOp *op,
                                   uint64_t *lba, uint64_t *len)
{
    *op = ZR_OP_OTHER;
    *lba = 0;
    *len = 0;
    switch (cdb[0]) {
    case READ_10:
    case WRITE_10:
        *op = cdb[0] == READ_10 ? ZR_OP_READ : ZR_OP_WRITE;
        *lba = ldl_be_p(&cdb[2]);
        *len = lduw_be_p(&cdb[7]);
        break;
    case READ_16:
    case WRITE_16:
        *op = cdb[0] == READ_16 ? ZR_OP_READ : ZR_OP_WRITE;
        *lba = ldq_be_p(&cdb[2]);
        *len = ldl_be_p(&cdb[10]);
        break;
    case READ_6:
    case WRITE_6:
        *op = cdb[0] == READ_6 ? ZR_OP_READ : ZR_OP_WRITE;
        *lba = ldl_be_p(&cdb[0]) & 0x1fffff;
        *len = cdb[4] ? cdb[4] : 256;
        break;
    case 0x94:          /* ZBC OUT */
        *op = ZR_OP_ZONE_MGMT;
        *lba = ldq_be_p(&cdb[2]);
        break;
    }
}

/* Both the LU and the service model are done: respond. */
static void ufs_zoned_cmd_maybe_finish(UfsZonedReq *req)
{
    if (!req->busy || req->stopping || req->aborted || req->responded ||
        !req->scsi_done || !req->svc_done) {
        return;
    }
    if (req->sg_lost) {
        req->sg_lost = false;
        ufs_zoned_bus_error(req->s, req, "PRDT data transfer");
    }
    if (req->ocs == UFS_OCS_SUCCESS) {
        ufs_zoned_cmd_respond(req);
    } else {
        ufs_zoned_req_done(req, NULL, 0);
    }
}

/*
 * The LU that gets a command for @lun: the one scsi_device_find(&s->bus,
 * 0, 0, lun) finds (that LUN, else the first LU of target 0, and only
 * once realized), without the RCU read lock it takes: the BQL we hold
 * keeps the bus's children as they are.
 */
static inline SCSIDevice *ufs_zoned_lu_find(UfsZonedState *s, uint8_t lun)
{
    SCSIDevice *found = NULL;
    BusChild *kid;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        SCSIDevice *dev = container_of(kid->child, SCSIDevice, qdev);

        if (dev->channel || dev->id) {
            continue;
        }
        if (dev->lun == lun) {
            found = dev;
            break;
        }
        if (!found) {
            found = dev;
        }
    }
    return found && qdev_is_realized(&found->qdev) ? found : NULL;
}

/* Legacy: the slot; MCQ: (SQ + 1) << 16 | task tag */
static void ufs_zoned_log_start(UfsZonedState *s, UfsZonedReq *req)
{
    zr_start_log_add(&s->start_log, req->sq < 0 ? req->tag :
                     ((uint32_t)(req->sq + 1) << 16) | req->tag);
}

/*
 * x-stall-*: is @req one of the commands to hold without an answer?  A
 * held command never reaches its LU, so it moves no write pointer; the
 * guest times out and aborts it (task management, then UTRLCLR or an SQ
 * cleanup) or resets the LU or the controller.
 */
static bool ufs_zoned_should_stall(UfsZonedState *s, UfsZonedReq *req)
{
    uint64_t lba = UFSZ_LBA(req->zr.lba), len = MAX(req->zr.len, 1);
    bool hit = false;

    s->lu_commands++;
    if (s->stall_max && s->stalled >= s->stall_max) {
        return false;
    }
    if (s->stall_every && s->lu_commands % s->stall_every == 0) {
        hit = true;
    }
    if (s->stall_blocks && req->zr.op != ZR_OP_OTHER &&
        lba < s->stall_lba + s->stall_blocks && s->stall_lba < lba + len) {
        hit = true;
    }
    return hit;
}

/* The policy picked @cmd: hand it to its LU now. */
static void ufs_zoned_cmd_start(void *opaque, ZrCmd *cmd, int64_t done_ns)
{
    UfsZonedState *s = opaque;
    UfsZonedReq *req = cmd->opaque;
    uint8_t lun = req->upiu.header.lun;
    SCSIDevice *dev;
    int32_t len;

    trace_ufs_zoned_start(req->slot, req->sq, req->tag, lun,
                          req->upiu.sc.cdb[0], UFSZ_LBA(cmd->lba), cmd->seq);
    ufs_zoned_log_start(s, req);
    if (ufs_zoned_should_stall(s, req)) {
        s->stalled++;
        req->stalled = true;
        trace_ufs_zoned_stall(req->slot, req->sq, req->tag, lun,
                              UFSZ_LBA(cmd->lba));
        return;
    }
    dev = ufs_zoned_lu_find(s, lun);
    if (!dev) {
        ufs_zoned_set_sense(req, SENSE_CODE(LUN_NOT_SUPPORTED));
        req->scsi_done = true;
        return;
    }
    req->sreq = scsi_req_new(dev, req->slot, lun, req->upiu.sc.cdb,
                             UFS_CDB_SIZE, req);
    len = scsi_req_enqueue(req->sreq);
    if (len) {
        scsi_req_continue(req->sreq);
    }
}

static void ufs_zoned_cmd_svc_done(void *opaque, ZrCmd *cmd)
{
    UfsZonedReq *req = cmd->opaque;

    req->svc_done = true;
    ufs_zoned_cmd_maybe_finish(req);
    ufs_zoned_vclock_poke(req->s);
}

const ZrServiceOps ufs_zoned_service_ops = {
    .start = ufs_zoned_cmd_start,
    .complete = ufs_zoned_cmd_svc_done,
};

/* @req has (or is about to have) a deferred event: the work BH looks. */
void ufs_zoned_req_pending_note(UfsZonedReq *req)
{
    req->s->pending_map[req->slot / 64] |= 1ULL << (req->slot % 64);
}

/* Before a deferred event of @req: number it unless one is pending. */
static inline void ufs_zoned_req_mark_pending(UfsZonedReq *req)
{
    if (!req->xfer_pending && !req->finish_pending) {
        req->pending_seq = ++req->s->pending_seq;
    }
    ufs_zoned_req_pending_note(req);
}

/* The LU asks for data (it may be in an AIO callback): defer the DMA. */
static void ufs_zoned_scsi_transfer_data(SCSIRequest *sreq, uint32_t len)
{
    UfsZonedReq *req = sreq->hba_private;

    /* no context: a stray of a migration (migrate.c) */
    if (!req || !req->busy || req->stopping || req->sreq != sreq) {
        return;
    }
    ufs_zoned_req_mark_pending(req);
    req->xfer_pending = true;
    req->xfer_len = len;
    ufs_zoned_schedule(req->s);
}

/* Stop @req's SCSI command from the work BH and complete it with @ocs. */
static void ufs_zoned_cmd_terminate(UfsZonedReq *req, uint8_t ocs)
{
    UfsZonedState *s = req->s;

    if (ocs != UFS_OCS_SUCCESS) {
        req->ocs = ocs;
    }
    ufs_zoned_teardown_begin(s);
    scsi_req_cancel(req->sreq);
    ufs_zoned_teardown_end(s);
}

/*
 * Move the data the LU asked for (work BH).  UFS 4.0 10.7.1: the device
 * never moves more than the Expected Data Transfer Length.  Data-in beyond
 * it is dropped and reported as an overflow residual; a data-out the host
 * did not supply in full is not written at all -- the command ends with
 * CHECK CONDITION, INVALID FIELD IN CDB, and the overflow residual -- so a
 * short buffer never reaches the medium as zeros.
 */
static void ufs_zoned_req_transfer(UfsZonedReq *req)
{
    SCSIRequest *sreq = req->sreq;
    DMADirection dir = sreq->cmd.mode == SCSI_XFER_FROM_DEV ?
                       DMA_DIRECTION_FROM_DEVICE : DMA_DIRECTION_TO_DEVICE;
    uint32_t len = req->xfer_len;
    int64_t n;

    n = ufs_zoned_prdt_rw(req, scsi_req_get_buf(sreq), len, dir);
    if (n < 0) {
        ufs_zoned_bus_error(req->s, req, "PRDT data transfer");
        ufs_zoned_cmd_terminate(req, UFS_OCS_FATAL_ERROR);
        return;
    }
    if (n < len) {
        req->overflow = true;
        req->overflow_bytes += len - n;
        trace_ufs_zoned_overflow(req->slot, len, n);
        if (dir == DMA_DIRECTION_TO_DEVICE) {
            qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: slot %u: data-out "
                          "of %u bytes, EDTL/PRDT give %" PRId64 "\n",
                          req->slot, len, n);
            req->short_data_out = true;
            ufs_zoned_cmd_terminate(req, UFS_OCS_SUCCESS);
            return;
        }
    }
    scsi_req_continue(sreq);
}

static bool ufs_zoned_is_unaligned_write(const uint8_t *sense, uint32_t len)
{
    return len >= 14 && (sense[2] & 0xf) == ILLEGAL_REQUEST &&
           sense[12] == 0x21 && sense[13] == 0x04;
}

/* The LU is done (possibly in an AIO callback): record, defer the rest. */
static void ufs_zoned_scsi_complete(SCSIRequest *sreq, size_t resid)
{
    UfsZonedReq *req = sreq->hba_private;
    uint64_t exp;

    if (!req || !req->busy || req->stopping || req->sreq != sreq) {
        return;
    }
    exp = be32_to_cpu(req->upiu.sc.exp_data_transfer_len);
    req->status = sreq->status;
    if (req->sg_used) {
        ufs_zoned_sg_done(req, sreq, sreq->status == GOOD);
    }
    if (sreq->status == CHECK_CONDITION) {
        req->sense_len = scsi_req_get_sense(sreq, req->sense,
                                            sizeof(req->sense));
        if (ufs_zoned_is_unaligned_write(req->sense, req->sense_len)) {
            uint8_t lun = req->upiu.header.lun;

            req->s->unaligned_writes++;
            if (lun < UFSZ_MAX_LUS) {
                req->s->unaligned_lu[lun]++;
            }
            trace_ufs_zoned_unaligned_write(req->slot, lun,
                                            UFSZ_LBA(req->zr.lba));
        }
    }
    ufs_zoned_set_resid(req, exp);
    req->scsi_done = true;
    ufs_zoned_req_mark_pending(req);
    req->finish_pending = true;
    ufs_zoned_schedule(req->s);
}

/*
 * The LU (or we, on a DMA error or a short data-out) cancelled the
 * command.  Cleared, reset or aborted commands get no completion.
 */
static void ufs_zoned_scsi_cancel(SCSIRequest *sreq)
{
    UfsZonedReq *req = sreq->hba_private;
    uint64_t exp;

    if (!req || !req->busy || req->stopping || req->aborted ||
        req->sreq != sreq) {
        return;
    }
    exp = be32_to_cpu(req->upiu.sc.exp_data_transfer_len);
    if (req->sg_used) {
        ufs_zoned_sg_done(req, sreq, false);
    }
    if (req->short_data_out) {
        ufs_zoned_set_sense(req, SENSE_CODE(INVALID_FIELD));
    } else if (req->ocs == UFS_OCS_SUCCESS) {
        req->ocs = UFS_OCS_ABORTED;
    }
    ufs_zoned_set_resid(req, exp);
    req->scsi_done = true;
    ufs_zoned_req_mark_pending(req);
    req->finish_pending = true;
    ufs_zoned_schedule(req->s);
}

/*
 * Sort @n contexts by pending_seq.  Their numbers are unique and mostly
 * consecutive (each event takes the next), so each goes straight to its
 * place in a window of UFSZ_NR_REQS numbers; numbers further apart (or
 * a clash, which would be a bug) take an insertion sort.
 */
static void ufs_zoned_pending_sort(UfsZonedReq **order, uint32_t n)
{
    UfsZonedReq *at[UFSZ_NR_REQS] UFSZ_UNINIT;
    uint64_t used[UFSZ_PENDING_WORDS] = { 0 };
    uint64_t lo = UINT64_MAX, hi = 0;
    uint32_t i, k, w;

    for (i = 0; i < n; i++) {
        lo = MIN(lo, order[i]->pending_seq);
        hi = MAX(hi, order[i]->pending_seq);
    }
    if (hi - lo < UFSZ_NR_REQS) {
        for (i = 0; i < n; i++) {
            uint64_t d = order[i]->pending_seq - lo;

            if (used[d / 64] & (1ULL << (d % 64))) {
                goto insertion;
            }
            used[d / 64] |= 1ULL << (d % 64);
            at[d] = order[i];
        }
        for (w = 0, k = 0; w < UFSZ_PENDING_WORDS; w++) {
            for (; used[w]; used[w] &= used[w] - 1) {
                order[k++] = at[w * 64 + ctz64(used[w])];
            }
        }
        return;
    }
insertion:
    for (i = 1; i < n; i++) {
        UfsZonedReq *req = order[i];

        for (k = i; k && order[k - 1]->pending_seq > req->pending_seq; k--) {
            order[k] = order[k - 1];
        }
        order[k] = req;
    }
}

/*
 * The contexts with a deferred event, in the order of their events
 * (pending_seq), into @order; the bits of those that have none any more
 * are dropped.  One torn down just now keeps its bit, as it keeps its
 * event, and is left out.
 */
static uint32_t ufs_zoned_pending_collect(UfsZonedState *s,
                                          UfsZonedReq **order)
{
    uint32_t w, n = 0;

    for (w = 0; w < UFSZ_PENDING_WORDS; w++) {
        uint64_t bits = s->pending_map[w];

        while (bits) {
            uint32_t b = ctz64(bits);
            UfsZonedReq *req = &s->req[w * 64 + b];

            bits &= bits - 1;
            if (!req->busy || (!req->xfer_pending && !req->finish_pending)) {
                s->pending_map[w] &= ~(1ULL << b);
                continue;
            }
            if (!req->stopping) {
                order[n++] = req;
            }
        }
    }
    if (n > 1) {
        ufs_zoned_pending_sort(order, n);
    }
    return n;
}

/*
 * Deferred work of the LUs' callbacks, for every context (work BH), in the
 * order in which the LUs asked: an LU starts a write once it has its data,
 * so moving data in slot order would reorder the commands the controller
 * forwarded in ring or SQ order.
 */
void ufs_zoned_utp_work(UfsZonedState *s)
{
    /* filled before it is read: no zeroing of 768 bytes a pass */
    UfsZonedReq *order[UFSZ_NR_REQS] UFSZ_UNINIT;
    uint32_t i, n;

    n = ufs_zoned_pending_collect(s, order);
    for (i = 0; i < n && !s->teardown; i++) {
        UfsZonedReq *req = order[i];

        if (!req->busy || req->stopping) {
            continue;
        }
        if (req->xfer_pending && req->sreq) {
            req->xfer_pending = false;
            ufs_zoned_req_transfer(req);
        }
        if (req->finish_pending) {
            req->finish_pending = false;
            ufs_zoned_cmd_maybe_finish(req);
        }
        /* no event left: the next pass need not look at it */
        if (!req->xfer_pending && !req->finish_pending) {
            s->pending_map[req->slot / 64] &= ~(1ULL << (req->slot % 64));
        }
    }
}

const SCSIBusInfo ufs_zoned_scsi_info = {
    .tcq = true,
    .max_target = 0,
    .max_lun = UFSZ_MAX_LUS - 1,
    .get_sg_list = ufs_zoned_scsi_get_sg_list,
    .transfer_data = ufs_zoned_scsi_transfer_data,
    .complete = ufs_zoned_scsi_complete,
    .cancel = ufs_zoned_scsi_cancel,
    .save_request = ufs_zoned_save_request,
    .load_request = ufs_zoned_load_request,
};

/* --- the UTRD ---------------------------------------------------------- */

/* Read and check the PRDT (UFSHCI 4.0 6.1.2); false after failing @req. */
static bool ufs_zoned_read_prdt(UfsZonedReq *req, hwaddr addr, uint32_t n)
{
    UfsZonedState *s = req->s;
    uint32_t i;

    if (n > UFSZ_MAX_PRDT_ENTRIES) {
        ufs_zoned_req_fail(req, UFS_OCS_INVALID_PRDT_ATTR,
                           "PRDT has too many entries");
        return false;
    }
    req->prdt = ufs_zoned_prdt_alloc(s, req->slot, n);
    req->prdt_n = n;
    req->prdt_bytes = 0;
    req->prdt_ram = true;
    req->prdt_ram_gen = s->ram.gen;
    if (n && ufs_zoned_dma(s, addr, req->prdt, n * UFSZ_PRDT_ENTRY_SIZE,
                           DMA_DIRECTION_TO_DEVICE) != MEMTX_OK) {
        ufs_zoned_req_fail(req, UFS_OCS_INVALID_PRDT_ATTR,
                           "PRDT not readable");
        return false;
    }
    for (i = 0; i < n; i++) {
        UfshcdSgEntry *e = &req->prdt[i];
        uint32_t bytes = (le32_to_cpu(e->size) & 0x3ffff) + 1;

        e->addr = le64_to_cpu(e->addr);
        e->size = bytes;
        /* DBC is a dword count minus one byte: bits 1:0 must be 11b */
        if ((bytes & 3) || (e->addr & 3)) {
            ufs_zoned_req_fail(req, UFS_OCS_INVALID_PRDT_ATTR,
                               "PRDT entry not dword aligned");
            return false;
        }
        if (!zr_dma_ram_contains(&s->ram, e->addr, bytes)) {
            req->prdt_ram = false;
            if (!ufs_zoned_dma_ok(s, e->addr, bytes,
                                  !!(req->dd & UFS_UTP_DEVICE_TO_HOST))) {
                ufs_zoned_req_fail(req, UFS_OCS_INVALID_PRDT_ATTR,
                                   "PRDT entry outside guest memory");
                return false;
            }
        }
        req->prdt_bytes += bytes;
    }
    return true;
}

static void ufs_zoned_nop(UfsZonedReq *req)
{
    UtpUpiuRsp rsp UFSZ_UNINIT;     /* ufs_zoned_rsp_header() clears it */

    trace_ufs_zoned_nop(req->slot, req->upiu.header.task_tag);
    ufs_zoned_rsp_header(req, &rsp, UFS_UPIU_TRANSACTION_NOP_IN, sizeof(rsp));
    ufs_zoned_req_done(req, &rsp, 0);
}

static void ufs_zoned_query_req(UfsZonedReq *req)
{
    UtpUpiuRsp rsp UFSZ_UNINIT;     /* ufs_zoned_rsp_header() clears it */
    uint16_t data_len = 0;

    ufs_zoned_rsp_header(req, &rsp, UFS_UPIU_TRANSACTION_QUERY_RSP,
                         sizeof(rsp));
    ufs_zoned_query(req->s, &req->upiu, &rsp, &data_len);
    rsp.header.data_segment_length = cpu_to_be16(data_len);
    ufs_zoned_req_done(req, &rsp, data_len);
}

/*
 * Whether @dev is a scsi-zbc LU (or a subtype): a walk up its class
 * chain, which object_dynamic_cast() would start with a type lookup by
 * name; the answer for the last class asked is kept (classes live as
 * long as QEMU, and so does their chain).
 */
static bool ufs_zoned_lu_is_zbc(SCSIDevice *dev)
{
    static ObjectClass *zbc, *last;
    static bool last_zbc;
    ObjectClass *cls = object_get_class(OBJECT(dev)), *oc;

    if (cls == last) {
        return last_zbc;
    }
    if (!zbc) {
        zbc = object_class_by_name(TYPE_SCSI_ZBC);
    }
    for (oc = cls; oc && oc != zbc; oc = object_class_get_parent(oc)) {
        /* up to the top, or to scsi-zbc */
    }
    last = cls;
    last_zbc = zbc && oc == zbc;
    return last_zbc;
}

static void ufs_zoned_command(UfsZonedReq *req)
{
    UfsZonedState *s = req->s;
    uint64_t exp = be32_to_cpu(req->upiu.sc.exp_data_transfer_len);
    SCSIDevice *dev;
    ZrOp op;
    uint64_t lba, len;

    if (req->dd != UFS_UTP_NO_DATA_TRANSFER && exp > req->prdt_bytes) {
        ufs_zoned_req_fail(req, UFS_OCS_MISMATCH_DATA_BUF_SIZE,
                           "expected transfer length exceeds the PRDT");
        return;
    }
    if (req->upiu.header.lun & UFS_UPIU_WLUN_ID) {
        trace_ufs_zoned_wlun(req->slot, req->upiu.header.lun,
                             req->upiu.sc.cdb[0]);
        ufs_zoned_wlun_cmd(req);
        return;
    }
    ufs_zoned_cmd_classify(req->upiu.sc.cdb, &op, &lba, &len);
    /* zr_op_name() is a call: only when the event is on */
    if (trace_event_get_state_backends(TRACE_UFS_ZONED_SUBMIT)) {
        trace_ufs_zoned_submit(req->slot, req->upiu.header.lun,
                               req->upiu.sc.cdb[0], zr_op_name(op), lba, len);
    }
    zr_cmd_init(&req->zr, req->tag, MAX(req->sq, 0), op,
                (uint64_t)req->upiu.header.lun << UFSZ_LUN_SHIFT | lba, len,
                req);
    /* what the command moves, in bytes: the LUs' block sizes differ */
    req->zr.xfer_bytes = req->dd == UFS_UTP_NO_DATA_TRANSFER ? 0 : exp;
    req->zr.xfer_set = true;
    /* Only zoned LUs take part in the per-zone write accounting. */
    dev = ufs_zoned_lu_find(s, req->upiu.header.lun);
    req->zr.zone_untracked = !dev || dev->lun != req->upiu.header.lun ||
        !ufs_zoned_lu_is_zbc(dev);
    zr_dispatch_submit(&s->dispatch, &req->zr);
}

/*
 * Run the request @utrd describes: read its UPIU and PRDT, answer NOP OUT
 * and QUERY REQUEST, submit commands to the dispatch engine.  Bad input
 * completes @req with the OCS the spec gives it.
 */
void ufs_zoned_req_begin(UfsZonedReq *req, const UtpTransferReqDesc *utrd)
{
    UfsZonedState *s = req->s;
    uint32_t dw0, ct;
    hwaddr prdt_addr;
    uint32_t rsp_off;
    uint8_t tc;

    req->utrd = *utrd;
    dw0 = le32_to_cpu(utrd->header.dword_0);
    ct = dw0 >> 28;
    req->dd = dw0 & (UFS_UTP_HOST_TO_DEVICE | UFS_UTP_DEVICE_TO_HOST);
    req->ucd_addr = ufs_zoned_utrd_ucd(utrd);
    rsp_off = le16_to_cpu(utrd->response_upiu_offset) * 4;
    req->rsp_len = le16_to_cpu(utrd->response_upiu_length) * 4;
    req->rsp_addr = req->ucd_addr + rsp_off;
    prdt_addr = req->ucd_addr + le16_to_cpu(utrd->prd_table_offset) * 4;

    if (ct != UFS_UTP_CMD_TYPE_SCSI && ct != UFS_UTP_CMD_TYPE_UFS_STORAGE) {
        ufs_zoned_req_fail(req, UFS_OCS_INVALID_CMD_TABLE_ATTR,
                           "unknown UTRD command type");
        return;
    }
    if (req->dd == (UFS_UTP_HOST_TO_DEVICE | UFS_UTP_DEVICE_TO_HOST)) {
        ufs_zoned_req_fail(req, UFS_OCS_INVALID_CMD_TABLE_ATTR,
                           "reserved UTRD data direction");
        return;
    }
    if (req->rsp_len < UFSZ_UPIU_HDR_SIZE) {
        ufs_zoned_req_fail(req, UFS_OCS_MISMATCH_RESP_UPIU_SIZE,
                           "response UPIU length too small");
        return;
    }
    if (ufs_zoned_dma(s, req->ucd_addr, &req->upiu, sizeof(req->upiu),
                      DMA_DIRECTION_TO_DEVICE) != MEMTX_OK ||
        !ufs_zoned_dma_ok(s, req->rsp_addr, req->rsp_len, true)) {
        ufs_zoned_req_fail(req, UFS_OCS_INVALID_CMD_TABLE_ATTR,
                           "command descriptor outside guest memory");
        return;
    }
    if (req->sq >= 0) {
        req->tag = req->upiu.header.task_tag;
    }
    if (!ufs_zoned_read_prdt(req, prdt_addr,
                             le16_to_cpu(utrd->prd_table_length))) {
        return;
    }

    tc = req->upiu.header.trans_type & 0x3f;
    trace_ufs_zoned_utrd(req->slot, req->sq, req->tag, tc,
                         req->upiu.header.lun, req->dd >> 25);
    switch (tc) {
    case UFS_UPIU_TRANSACTION_NOP_OUT:
        ufs_zoned_nop(req);
        break;
    case UFS_UPIU_TRANSACTION_QUERY_REQ:
        ufs_zoned_query_req(req);
        break;
    case UFS_UPIU_TRANSACTION_COMMAND:
        req->svc_done = false;
        ufs_zoned_command(req);
        break;
    default:
        ufs_zoned_req_fail(req, UFS_OCS_INVALID_CMD_TABLE_ATTR,
                           "unknown UPIU transaction code");
        break;
    }
}

/* A legacy slot was rung: read its UTRD from the list and run it. */
static void ufs_zoned_legacy_fetch(UfsZonedState *s, uint32_t slot)
{
    UfsZonedReq *req = ufs_zoned_req_init(s, slot, -1, slot);
    UtpTransferReqDesc utrd;

    if (ufs_zoned_dma(s, ufs_zoned_utrd_addr(s, slot), &utrd, sizeof(utrd),
                      DMA_DIRECTION_TO_DEVICE) != MEMTX_OK) {
        /*
         * No UTRD to take an OCS: a system bus error, which Linux answers
         * with a host reset; the slot is given back.
         */
        ufs_zoned_bus_error(s, NULL, "UTRD fetch");
        req->busy = false;
        s->utrldbr &= ~(1u << slot);
        ufs_zoned_raise(s, R_IS_UTRCS_MASK);
        return;
    }
    ufs_zoned_req_begin(req, &utrd);
}

/*
 * Fetch the rung slots (work BH).  A single-doorbell controller forwards
 * what each doorbell write rang in ring order, slot order only within a
 * ring.  While the link leaves hibernate nothing is fetched; every ring
 * meanwhile was merged into one (ufs_zoned_utrl_doorbell), so the batch
 * goes out in slot-index order when the exit is over -- the reordering
 * auto-hibernate causes on UFSHCI 3.0 style controllers.
 */
void ufs_zoned_utrl_fetch(UfsZonedState *s)
{
    while (s->nr_rings && ufs_zoned_link_ready(s) && !s->teardown) {
        uint32_t ring = s->rings[0];
        uint32_t slot;

        if (--s->nr_rings) {
            memmove(s->rings, s->rings + 1,
                    s->nr_rings * sizeof(s->rings[0]));
        }
        trace_ufs_zoned_fetch_ring(ring, s->nr_rings);
        for (; ring; ring &= ring - 1) {
            slot = ctz32(ring);
            if ((s->utrldbr & (1u << slot)) && !s->req[slot].busy) {
                ufs_zoned_legacy_fetch(s, slot);
            }
        }
    }
}

/* UTRLDBR (5.4.3): record the newly rung slots; the work BH fetches. */
void ufs_zoned_utrl_doorbell(UfsZonedState *s, uint32_t val)
{
    uint32_t new = val & ~s->utrldbr;

    if (!s->reg.utrlrsr) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTRLDBR 0x%08x while the "
                      "list is not running (UTRLRSR = 0)\n", val);
        trace_ufs_zoned_err_doorbell(val, "list not running");
        return;
    }
    trace_ufs_zoned_doorbell(val, new);
    if (!new) {
        return;
    }
    ufs_zoned_ahit_busy(s);
    s->utrldbr |= new;
    if (s->nr_rings && (!ufs_zoned_link_ready(s) ||
                        s->nr_rings == UFSZ_NUTRS)) {
        s->rings[s->nr_rings - 1] |= new;   /* batched behind an H8 exit */
    } else {
        s->rings[s->nr_rings++] = new;
    }
    ufs_zoned_schedule(s);
}

/* Stop a command in the core and its LU; its context stays busy. */
static void ufs_zoned_req_stop(UfsZonedState *s, UfsZonedReq *req)
{
    if (req->zr.state != ZR_CMD_IDLE) {
        zr_service_timer_cancel(&s->sched, &req->zr);
    }
    if (req->sreq) {
        SCSIRequest *sreq = req->sreq;

        req->sreq = NULL;
        scsi_req_cancel(sreq);
        scsi_req_unref(sreq);
    }
    req->xfer_pending = false;
    req->finish_pending = false;
}

/*
 * Task management aborted the command in request context @slot: UTRLCLR
 * (legacy) or an SQ cleanup (MCQ) will follow.  Called inside a teardown.
 */
void ufs_zoned_utp_abort(UfsZonedState *s, uint32_t slot)
{
    UfsZonedReq *req = &s->req[slot];

    trace_ufs_zoned_abort(slot, req->sq, req->tag);
    s->tm_aborts++;
    req->aborted = true;
    ufs_zoned_req_stop(s, req);
}

/*
 * An SQ cleanup found @req (inside a teardown): stop it and let the work
 * BH complete it with OCS ABORTED (UFSHCI 4.0 5.5: the controller posts
 * a CQE for the cleaned-up command).
 */
void ufs_zoned_req_complete_aborted(UfsZonedReq *req)
{
    UfsZonedState *s = req->s;

    s->sq_cleanups++;
    req->stopping = true;
    ufs_zoned_req_stop(s, req);
    req->stopping = false;
    req->aborted = false;
    req->cleanup = true;
    req->ocs = UFS_OCS_ABORTED;
    req->scsi_done = true;
    req->svc_done = true;
    ufs_zoned_req_mark_pending(req);
    req->finish_pending = true;
    ufs_zoned_schedule(s);
}

/*
 * Drop one request without completing it to the guest (inside a
 * teardown): stopped first, with `stopping` set so no callback acts on
 * it; the context is released last.
 */
void ufs_zoned_req_drop(UfsZonedState *s, UfsZonedReq *req)
{
    if (!req->busy || req->stopping) {
        return;
    }
    trace_ufs_zoned_clear(req->slot, req->sq, req->tag);
    s->cleared++;
    req->stopping = true;
    ufs_zoned_req_stop(s, req);
    ufs_zoned_prdt_free(req);
    req->stopping = false;
    if (req->sq >= 0) {
        ufs_zoned_mcq_req_free(s, req);
    } else {
        req->busy = false;
    }
}

/* UTRLCLR (5.4.4): a 0 bit clears that slot; there is no completion. */
void ufs_zoned_utrl_clear(UfsZonedState *s, uint32_t val)
{
    uint32_t clear = ~val & s->utrldbr;
    uint32_t slot, i, n = 0;

    ufs_zoned_teardown_begin(s);
    for (slot = 0; slot < UFSZ_NUTRS; slot++) {
        if (clear & (1u << slot)) {
            ufs_zoned_req_drop(s, &s->req[slot]);
        }
    }
    s->utrldbr &= ~clear;
    /* Rung but not yet fetched: forget them, and drop emptied rings. */
    for (i = 0; i < s->nr_rings; i++) {
        s->rings[i] &= ~clear;
        if (s->rings[i]) {
            s->rings[n++] = s->rings[i];
        }
    }
    s->nr_rings = n;
    ufs_zoned_teardown_end(s);
    ufs_zoned_ahit_maybe_idle(s);
}

/*
 * Host controller reset (HCE=0) or device reset: atomic.  Both BHs are
 * held, so nothing is fetched, started, moved or completed while the
 * commands are cancelled, even when cancelling drains the block layer;
 * then every context is dropped and the queues forgotten.
 */
void ufs_zoned_utp_reset(UfsZonedState *s)
{
    uint32_t i;

    ufs_zoned_teardown_begin(s);
    s->nr_rings = 0;
    s->utmrl_pending = 0;
    s->mcq_fetch_pending = false;
    ufs_zoned_mcq_stop_all(s);
    zr_service_timer_reset(&s->sched, NULL, NULL);
    for (i = 0; i < UFSZ_NR_REQS; i++) {
        ufs_zoned_req_drop(s, &s->req[i]);
    }
    ufs_zoned_mcq_reset(s);
    s->utrldbr = 0;
    ufs_zoned_teardown_end(s);
}
