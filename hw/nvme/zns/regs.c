/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: the controller registers (Base 3.1.4) and doorbells (Base
 * 3.1.4.19/20), and the controller's enable, reset and shutdown (Base
 * 3.5, 3.6, 3.7).  The MMIO handlers only record: enabling, a reset and a
 * shutdown are carried out by the work BH (nz_regs_work()), as is every
 * fetch a doorbell asks for.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "nvme-zns-internal.h"
#include "trace.h"

/* CAP (Base 3.1.4.1) */
static uint64_t nz_cap(NzCtrl *s)
{
    uint64_t cap = 0;

    NVME_CAP_SET_MQES(cap, NZ_MQES);
    NVME_CAP_SET_CQR(cap, 1);           /* queues are contiguous */
    NVME_CAP_SET_AMS(cap, 1);           /* + WRR with urgent class */
    NVME_CAP_SET_TO(cap, 30);           /* 15 s, in 500 ms units */
    NVME_CAP_SET_DSTRD(cap, 0);         /* doorbells 4 bytes apart */
    NVME_CAP_SET_NSSRS(cap, 0);
    NVME_CAP_SET_CSS(cap, NVME_CAP_CSS_NCSS | NVME_CAP_CSS_IOCSS);
    NVME_CAP_SET_MPSMIN(cap, 0);        /* 4 KiB */
    NVME_CAP_SET_MPSMAX(cap, 4);        /* 64 KiB */
    return cap;
}

void nz_regs_reset(NzCtrl *s)
{
    s->cap = nz_cap(s);
    s->vs = 0x00020000;                 /* NVMe 2.0 */
    s->intms = 0;
    s->cc = 0;
    s->csts = 0;
    s->aqa = 0;
    s->asq = 0;
    s->acq = 0;
    s->enabling = false;
    s->resetting = false;
    s->shutting_down = false;
    s->page_size = NZ_PAGE;
    s->mig_bad = false;
    nz_queues_reset(s);
    nz_admin_reset(s);
    nz_irq_reset(s);
}

static uint64_t nz_reg_read(NzCtrl *s, hwaddr addr, unsigned size)
{
    uint8_t regs[0x40] = { 0 };
    uint64_t val = 0;

    stq_le_p(regs + NVME_REG_CAP, s->cap);
    stl_le_p(regs + NVME_REG_VS, s->vs);
    stl_le_p(regs + NVME_REG_INTMS, s->intms);
    stl_le_p(regs + NVME_REG_INTMC, s->intms);
    stl_le_p(regs + NVME_REG_CC, s->cc);
    stl_le_p(regs + NVME_REG_CSTS, s->csts);
    stl_le_p(regs + NVME_REG_AQA, s->aqa);
    stq_le_p(regs + NVME_REG_ASQ, s->asq);
    stq_le_p(regs + NVME_REG_ACQ, s->acq);
    if (addr + size <= sizeof(regs)) {
        val = ldn_le_p(regs + addr, size);
    }
    return val;
}

/* Write @size bytes at @off of a 64-bit register */
static void nz_write64(uint64_t *reg, hwaddr off, uint64_t val,
                       unsigned size)
{
    if (size == 8) {
        *reg = val;
    } else if (off == 0) {
        *reg = (*reg & 0xffffffff00000000ULL) | (uint32_t)val;
    } else {
        *reg = (*reg & 0xffffffffULL) | (val << 32);
    }
}

static void nz_cc_write(NzCtrl *s, uint32_t val)
{
    uint32_t old = s->cc;
    bool was_en = NVME_CC_EN(old), en = NVME_CC_EN(val);

    trace_nvme_zns_cc(old, val);
    if (was_en && en) {
        /* CSS, MPS and AMS change only while disabled (Base 3.1.4.5) */
        const uint32_t fixed = (CC_CSS_MASK << CC_CSS_SHIFT) |
                               (CC_MPS_MASK << CC_MPS_SHIFT) |
                               (CC_AMS_MASK << CC_AMS_SHIFT);

        if ((val ^ old) & fixed) {
            qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: CC.CSS/MPS/AMS "
                          "written while CC.EN=1: ignored\n");
            val = (val & ~fixed) | (old & fixed);
        }
    }
    s->cc = val;
    if (!was_en && en) {
        s->enabling = true;
    } else if (was_en && !en) {
        s->enabling = false;
        s->resetting = true;
    }
    if (en && NVME_CC_SHN(val) && !NVME_CC_SHN(old)) {
        s->shutting_down = true;
        s->csts = (s->csts & ~(CSTS_SHST_MASK << CSTS_SHST_SHIFT)) |
                  NVME_CSTS_SHST_PROGRESS;
    }
    nz_schedule(s);
}

static void nz_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    NzCtrl *s = opaque;

    trace_nvme_zns_mmio_write(addr, val, size);
    if (s->mig_bad) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: the controller's state was "
                      "lost in a failed load; ignored until a reset\n");
        return;
    }
    if (addr >= NZ_DB_BASE) {
        uint32_t n = (addr - NZ_DB_BASE) / 4;

        if ((addr & 3) || size != 4) {
            qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: doorbell 0x%"
                          HWADDR_PRIx " written with %u bytes\n", addr, size);
            return;
        }
        if (n & 1) {
            nz_cq_doorbell(s, n / 2, val);
        } else {
            nz_sq_doorbell(s, n / 2, val);
        }
        return;
    }
    switch (addr) {
    case NVME_REG_INTMS:
        if (size == 4) {
            s->intms |= val;
            nz_irq_update(s);
        }
        break;
    case NVME_REG_INTMC:
        if (size == 4) {
            s->intms &= ~val;
            nz_irq_update(s);
        }
        break;
    case NVME_REG_CC:
        if (size == 4) {
            nz_cc_write(s, val);
        }
        break;
    case NVME_REG_AQA:
        if (size == 4 && !NVME_CC_EN(s->cc)) {
            s->aqa = val & 0x0fff0fff;
        }
        break;
    case NVME_REG_ASQ:
    case NVME_REG_ASQ + 4:
        if (!NVME_CC_EN(s->cc)) {
            nz_write64(&s->asq, addr - NVME_REG_ASQ, val, size);
        }
        break;
    case NVME_REG_ACQ:
    case NVME_REG_ACQ + 4:
        if (!NVME_CC_EN(s->cc)) {
            nz_write64(&s->acq, addr - NVME_REG_ACQ, val, size);
        }
        break;
    case NVME_REG_CAP:
    case NVME_REG_CAP + 4:
    case NVME_REG_VS:
    case NVME_REG_CSTS:
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: write to read-only "
                      "register 0x%" HWADDR_PRIx "\n", addr);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: write to reserved or "
                      "unsupported register 0x%" HWADDR_PRIx "\n", addr);
        break;
    }
}

static uint64_t nz_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    NzCtrl *s = opaque;
    uint64_t val = 0;

    if (addr < NZ_DB_BASE) {
        val = nz_reg_read(s, addr, size);
    }
    /* doorbells read as 0 (Base 3.1.4.19: reading them is undefined) */
    trace_nvme_zns_mmio_read(addr, val, size);
    return val;
}

const MemoryRegionOps nz_mmio_ops = {
    .read = nz_mmio_read,
    .write = nz_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};

/*
 * Controller enable (Base 3.5.1): the admin queues as AQA/ASQ/ACQ say.
 * A configuration the controller cannot run sets CSTS.CFS instead of
 * CSTS.RDY.
 */
static void nz_enable(NzCtrl *s)
{
    uint32_t asqs = NVME_AQA_ASQS(s->aqa) + 1, acqs = NVME_AQA_ACQS(s->aqa) + 1;
    uint32_t mps = NVME_CC_MPS(s->cc), css = NVME_CC_CSS(s->cc);
    const char *why = NULL;

    s->enabling = false;
    if (asqs < 2 || acqs < 2) {
        why = "admin queue of fewer than 2 entries";
    } else if (mps > NVME_CAP_MPSMAX(s->cap)) {
        why = "CC.MPS above CAP.MPSMAX";
    } else if (css != NVME_CC_CSS_NVM && css != NVME_CC_CSS_ALL &&
               css != NVME_CC_CSS_ADMIN_ONLY) {
        why = "unsupported CC.CSS";
    } else if (NVME_CC_AMS(s->cc) > NZ_CC_AMS_WRRU) {
        why = "unsupported CC.AMS";
    } else if ((s->asq | s->acq) & ((NZ_PAGE << mps) - 1)) {
        why = "ASQ or ACQ not aligned to the memory page size";
    } else if ((NVME_CC_IOSQES(s->cc) && NVME_CC_IOSQES(s->cc) != 6) ||
               (NVME_CC_IOCQES(s->cc) && NVME_CC_IOCQES(s->cc) != 4)) {
        why = "CC.IOSQES/IOCQES other than 64/16 bytes";
    }
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: cannot enable: %s\n", why);
        trace_nvme_zns_enable_failed(why);
        s->csts |= NVME_CSTS_FAILED;
        return;
    }
    s->page_size = NZ_PAGE << mps;
    nz_arb_apply(s);
    nz_cq_create(s, 0, s->acq, acqs, true, 0);
    nz_sq_create(s, 0, s->asq, asqs, 0, 0);
    s->csts = NVME_CSTS_READY;
    trace_nvme_zns_ready(s->page_size, css);
}

/* Any backend I/O, started command or pending CQE left? */
static bool nz_busy(NzCtrl *s)
{
    return s->nr_cq_waiting || s->in_flight_io ||
           zr_dispatch_nr_in_flight(&s->dispatch) ||
           zr_dispatch_nr_pending(&s->dispatch) || !QTAILQ_EMPTY(&s->done) ||
           !QTAILQ_EMPTY(&s->finishing) || !QTAILQ_EMPTY(&s->orphan_wait);
}

/*
 * Shutdown (Base 3.6.2): fetching stops, what is in the controller
 * completes, the caches are flushed and the zone state is written, then
 * CSTS.SHST reads complete.
 */
static void nz_shutdown(NzCtrl *s)
{
    uint32_t i;

    if (nz_busy(s)) {
        return;
    }
    for (i = 1; i <= NZ_MAX_NS; i++) {
        if (s->ns[i] && nz_ns_persist_now(s->ns[i]) < 0) {
            error_report("nvme-zns: namespace %u: cannot flush its data or "
                         "zone state at shutdown", i);
        }
    }
    s->shutting_down = false;
    s->csts = (s->csts & ~(CSTS_SHST_MASK << CSTS_SHST_SHIFT)) |
              NVME_CSTS_SHST_COMPLETE;
    trace_nvme_zns_shutdown_complete();
}

/*
 * Base 3.7.2: a controller reset ends all commands, no CQEs; it is over
 * once no backend I/O is left (false: not yet).  No guest memory access.
 */
bool nz_reset_finish(NzCtrl *s)
{
    nz_io_reset(s);
    if (s->in_flight_io) {
        return false;   /* the last backend completion schedules us */
    }
    s->resetting = false;
    s->shutting_down = false;
    s->resets++;
    nz_queues_reset(s);
    nz_admin_reset(s);
    nz_irq_reset(s);
    s->csts &= CSTS_SHST_MASK << CSTS_SHST_SHIFT;
    trace_nvme_zns_reset_done(s->resets);
    return true;
}

void nz_regs_work(NzCtrl *s)
{
    if (s->resetting && !nz_reset_finish(s)) {
        return;
    }
    if (s->enabling && NVME_CC_EN(s->cc)) {
        nz_enable(s);
    }
    if (s->shutting_down) {
        nz_shutdown(s);
    }
}
