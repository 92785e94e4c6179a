/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: UTP task management requests (UFSHCI 4.0 6.2, UFS 4.0
 * 10.7.6): ABORT TASK, ABORT TASK SET, CLEAR TASK SET, LOGICAL UNIT
 * RESET and QUERY TASK / QUERY TASK SET, answered at once.
 *
 * An aborted command is dropped from the dispatch engine and its LU but
 * not completed: as the spec has it, the host then clears its slot with
 * UTRLCLR (Linux's ufshcd_try_to_abort_task does exactly that).
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define UFSZ_TM_RESP_MASK       0xff

/* Busy transfer requests of @lun (with @task_tag unless it is < 0). */
static bool ufs_zoned_tm_match(UfsZonedReq *req, uint8_t lun, int task_tag)
{
    return req->busy && !req->aborted && req->upiu.header.lun == lun &&
           (req->upiu.header.trans_type & 0x3f) ==
               UFS_UPIU_TRANSACTION_COMMAND &&
           (task_tag < 0 || req->upiu.header.task_tag == task_tag);
}

static unsigned ufs_zoned_tm_abort(UfsZonedState *s, uint8_t lun,
                                   int task_tag)
{
    unsigned n = 0;
    uint32_t slot;

    for (slot = 0; slot < UFSZ_NR_REQS; slot++) {
        if (ufs_zoned_tm_match(&s->req[slot], lun, task_tag)) {
            ufs_zoned_utp_abort(s, slot);
            n++;
        }
    }
    return n;
}

static unsigned ufs_zoned_tm_count(UfsZonedState *s, uint8_t lun,
                                   int task_tag)
{
    unsigned n = 0;
    uint32_t slot;

    for (slot = 0; slot < UFSZ_NR_REQS; slot++) {
        n += ufs_zoned_tm_match(&s->req[slot], lun, task_tag);
    }
    return n;
}

/* The service response of one task management function. */
static uint8_t ufs_zoned_tm_function(UfsZonedState *s, uint8_t func,
                                     uint8_t lun, uint8_t task_tag)
{
    SCSIDevice *dev = scsi_device_find(&s->bus, 0, 0, lun);

    if (!(lun & UFS_UPIU_WLUN_ID) && (!dev || dev->lun != lun)) {
        return UFS_UPIU_INCORRECT_LOGICAL_UNIT_NO;
    }
    switch (func) {
    case UFS_ABORT_TASK:
        ufs_zoned_tm_abort(s, lun, task_tag);
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_ABORT_TASK_SET:
    case UFS_CLEAR_TASK_SET:
        ufs_zoned_tm_abort(s, lun, -1);
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_LOGICAL_RESET:
        ufs_zoned_tm_abort(s, lun, -1);
        if (!(lun & UFS_UPIU_WLUN_ID)) {
            device_cold_reset(DEVICE(dev));
        }
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_QUERY_TASK:
        return ufs_zoned_tm_count(s, lun, task_tag) ?
               UFS_UPIU_TASK_MANAGEMENT_FUNC_SUCCEEDED :
               UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_QUERY_TASK_SET:
        return ufs_zoned_tm_count(s, lun, -1) ?
               UFS_UPIU_TASK_MANAGEMENT_FUNC_SUCCEEDED :
               UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: unknown task management "
                      "function 0x%02x\n", func);
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_NOT_SUPPORTED;
    }
}

static void ufs_zoned_tm_slot(UfsZonedState *s, hwaddr addr, uint32_t slot)
{
    UtpTaskReqDesc d;
    uint8_t ocs = UFS_OCS_SUCCESS;
    uint8_t func, lun, tag, resp = 0;

    if (pci_dma_read(PCI_DEVICE(s), addr, &d, sizeof(d)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTMRD %u not readable\n",
                      slot);
        trace_ufs_zoned_err_tm(slot, "UTMRD not readable");
        return;
    }
    func = d.upiu_req.req_header.query_func;
    lun = be32_to_cpu(d.upiu_req.input_param1) & 0xff;
    tag = be32_to_cpu(d.upiu_req.input_param2) & 0xff;
    if ((d.upiu_req.req_header.trans_type & 0x3f) !=
        UFS_UPIU_TRANSACTION_TASK_REQ) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTMRD %u: not a task "
                      "management UPIU\n", slot);
        trace_ufs_zoned_err_tm(slot, "not a task management UPIU");
        ocs = UFS_OCS_INVALID_CMD_TABLE_ATTR;
    } else {
        resp = ufs_zoned_tm_function(s, func, lun, tag);
        trace_ufs_zoned_tm(slot, func, lun, tag, resp);
    }
    memset(&d.upiu_rsp, 0, sizeof(d.upiu_rsp));
    d.upiu_rsp.rsp_header.trans_type = UFS_UPIU_TRANSACTION_TASK_RSP;
    d.upiu_rsp.rsp_header.lun = d.upiu_req.req_header.lun;
    d.upiu_rsp.rsp_header.task_tag = d.upiu_req.req_header.task_tag;
    d.upiu_rsp.output_param1 = cpu_to_be32(resp & UFSZ_TM_RESP_MASK);
    d.header.dword_2 = cpu_to_le32(ocs);
    pci_dma_write(PCI_DEVICE(s), addr, &d, sizeof(d));
}

/* UTMRLDBR (5.5.3): every rung slot is answered before returning. */
void ufs_zoned_utmrl_doorbell(UfsZonedState *s, uint32_t val)
{
    hwaddr base = ((uint64_t)s->reg.utmrlbau << 32) | s->reg.utmrlba;
    uint32_t slot;

    val &= (1u << UFSZ_NUTMRS) - 1;
    if (!s->reg.utmrlrsr) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTMRLDBR 0x%08x while "
                      "the list is not running\n", val);
        trace_ufs_zoned_err_tm(val, "list not running");
        return;
    }
    for (slot = 0; slot < UFSZ_NUTMRS; slot++) {
        if (val & (1u << slot)) {
            ufs_zoned_tm_slot(s, base + slot * sizeof(UtpTaskReqDesc), slot);
        }
    }
    s->reg.utmrldbr = 0;
    if (val) {
        ufs_zoned_raise(s, R_IS_UTMRCS_MASK);
    }
}
