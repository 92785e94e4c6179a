/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: UTP task management requests (UFSHCI 4.0 6.2, UFS 4.0
 * 10.7.6): ABORT TASK, ABORT TASK SET, CLEAR TASK SET, LOGICAL UNIT
 * RESET and QUERY TASK / QUERY TASK SET.  A UTMRLDBR write records the
 * rung slots; the work BH (work.c) reads each UTMRD, runs the function
 * and writes the response, once the link is out of hibernate.
 *
 * An aborted command is dropped from the dispatch engine and its LU but
 * not completed: as the spec has it, the host then clears its slot with
 * UTRLCLR (legacy) or an SQ cleanup (MCQ), which Linux's
 * ufshcd_try_to_abort_task does.  A command whose response is already
 * done (waiting for CQ room) is no longer in the task set (SAM-5 7.2): it
 * is neither aborted nor counted.  The aborts of one function run inside
 * one teardown, so none of them starts a command the next aborts.
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
    return req->busy && !req->stopping && !req->aborted &&
           !req->responded && req->upiu.header.lun == lun &&
           (req->upiu.header.trans_type & 0x3f) ==
               UFS_UPIU_TRANSACTION_COMMAND &&
           (task_tag < 0 || req->upiu.header.task_tag == task_tag);
}

/* Count the matching commands; abort them too if @abort. */
static unsigned ufs_zoned_tm_scan(UfsZonedState *s, uint8_t lun,
                                  int task_tag, bool abort)
{
    unsigned n = 0;
    uint32_t slot;

    if (abort) {
        ufs_zoned_teardown_begin(s);
    }
    for (slot = 0; slot < UFSZ_NR_REQS; slot++) {
        if (ufs_zoned_tm_match(&s->req[slot], lun, task_tag)) {
            if (abort) {
                ufs_zoned_utp_abort(s, slot);
            }
            n++;
        }
    }
    if (abort) {
        ufs_zoned_teardown_end(s);
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
        ufs_zoned_tm_scan(s, lun, task_tag, true);
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_ABORT_TASK_SET:
    case UFS_CLEAR_TASK_SET:
        ufs_zoned_tm_scan(s, lun, -1, true);
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_LOGICAL_RESET:
        s->lu_resets++;
        ufs_zoned_teardown_begin(s);
        ufs_zoned_tm_scan(s, lun, -1, true);
        if (!(lun & UFS_UPIU_WLUN_ID)) {
            device_cold_reset(DEVICE(dev));
        }
        ufs_zoned_teardown_end(s);
        return UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_QUERY_TASK:
        return ufs_zoned_tm_scan(s, lun, task_tag, false) ?
               UFS_UPIU_TASK_MANAGEMENT_FUNC_SUCCEEDED :
               UFS_UPIU_TASK_MANAGEMENT_FUNC_COMPL;
    case UFS_QUERY_TASK_SET:
        return ufs_zoned_tm_scan(s, lun, -1, false) ?
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
        /* No UTMRD to take an OCS: a system bus error (IS.SBFES). */
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTMRD %u not readable\n",
                      slot);
        trace_ufs_zoned_err_tm(slot, "UTMRD not readable");
        ufs_zoned_raise(s, R_IS_SBFES_MASK);
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
    d.header.dword_2 = cpu_to_le32((le32_to_cpu(d.header.dword_2) & ~0xffu) |
                                   ocs);
    if (pci_dma_write(PCI_DEVICE(s), addr, &d, sizeof(d)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTMRD %u not writable\n",
                      slot);
        trace_ufs_zoned_err_tm(slot, "UTMRD not writable");
        ufs_zoned_raise(s, R_IS_SBFES_MASK);
    }
}

/*
 * UTMRLDBR (5.5.3): record the rung slots (the bits read back as set
 * until answered) and leave hibernate; the work BH answers them.
 */
void ufs_zoned_utmrl_doorbell(UfsZonedState *s, uint32_t val)
{
    val &= (1u << UFSZ_NUTMRS) - 1;
    if (!s->reg.utmrlrsr) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UTMRLDBR 0x%08x while "
                      "the list is not running\n", val);
        trace_ufs_zoned_err_tm(val, "list not running");
        return;
    }
    if (!val) {
        return;
    }
    ufs_zoned_ahit_busy(s);
    s->utmrl_pending |= val;
    s->reg.utmrldbr |= val;
    ufs_zoned_schedule(s);
}

/* UTMRLCLR (5.5.4): a 0 bit withdraws a slot not yet answered. */
void ufs_zoned_utmrl_clear(UfsZonedState *s, uint32_t val)
{
    s->utmrl_pending &= val;
    s->reg.utmrldbr &= val;
}

/* Answer the rung task management slots (work BH), in slot order. */
void ufs_zoned_utmrl_work(UfsZonedState *s)
{
    hwaddr base = ((uint64_t)s->reg.utmrlbau << 32) | s->reg.utmrlba;
    uint32_t slot, done = 0;

    if (!s->utmrl_pending || !ufs_zoned_link_ready(s)) {
        return;
    }
    for (slot = 0; slot < UFSZ_NUTMRS && !s->teardown; slot++) {
        if (s->utmrl_pending & (1u << slot)) {
            s->utmrl_pending &= ~(1u << slot);
            if (s->tm_stalled < s->stall_tm) {
                /* x-stall-tm: the bit stays set until the host clears it */
                s->tm_stalled++;
                trace_ufs_zoned_tm_stall(slot, s->tm_stalled);
                continue;
            }
            ufs_zoned_tm_slot(s, base + slot * sizeof(UtpTaskReqDesc), slot);
            done |= 1u << slot;
        }
    }
    s->reg.utmrldbr &= ~done;
    if (done) {
        ufs_zoned_raise(s, R_IS_UTMRCS_MASK);
    }
    ufs_zoned_ahit_maybe_idle(s);
}
