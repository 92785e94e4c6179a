/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: the UFSHCI register file in BAR0 (interrupts: irq.c).
 *
 * UFSHCI 4.0 section 5: capabilities are read-only, IS is write-1-to-clear,
 * HCE enables/disables the controller, the UTP list doorbells and the UIC
 * command register start work (utp.c, uic.c).  In mode=mcq, MEM_CFG,
 * MCQCONFIG and the queue registers beyond them belong to mcq.c.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define A_ESILBA        offsetof(UfsReg, esilba)
#define A_ESIUBA        offsetof(UfsReg, esiuba)

/* The IS/IE bits UFSHCI 4.0 5.3.1/5.3.2 define; 13-15 and 19 are reserved */
#define UFSZ_IS_MASK    (MAKE_64BIT_MASK(0, 13) | R_IS_HCFES_MASK | \
                         R_IS_SBFES_MASK | R_IS_CEFES_MASK | R_IS_CQES_MASK)

/* Power-on values (UFSHCI 4.0 5.2, 5.3). */
void ufs_zoned_regs_reset(UfsZonedState *s)
{
    uint32_t cap = 0;

    memset(&s->reg, 0, sizeof(s->reg));
    cap = FIELD_DP32(cap, CAP, NUTRS, UFSZ_NUTRS - 1);
    cap = FIELD_DP32(cap, CAP, RTT, 1);
    cap = FIELD_DP32(cap, CAP, NUTMRS, UFSZ_NUTMRS - 1);
    cap = FIELD_DP32(cap, CAP, 64AS, 1);
    cap = FIELD_DP32(cap, CAP, AUTOH8, s->auto_hibernate);
    /* the legacy single doorbell always works (LSDBS = 0) */
    cap = FIELD_DP32(cap, CAP, LSDBS, 0);
    cap = FIELD_DP32(cap, CAP, MCQS, s->mcq);
    s->reg.cap = cap;
    s->reg.mcqcap = s->mcq ? ufs_zoned_mcqcap(s) : 0;
    s->reg.mcqconfig = FIELD_DP32(0, MCQCONFIG, MAC, UFSZ_MCQ_MAC - 1);
    s->reg.ver = 0x00000400;        /* UFSHCI 4.0 */
    s->reg.hcpid = 0;
    s->reg.hcmid = 0x1af4;          /* Red Hat */
    s->utrldbr = 0;
    s->link_up = false;
    ufs_zoned_irq_reset(s);
}

static void ufs_zoned_hce_write(UfsZonedState *s, uint32_t val)
{
    bool enable = val & R_HCE_HCE_MASK;

    if (enable && !(s->reg.hce & R_HCE_HCE_MASK)) {
        /* Enabling: the UIC layer is ready for commands (5.3.5). */
        s->reg.hce = R_HCE_HCE_MASK;
        s->reg.hcs = R_HCS_UCRDY_MASK;
        trace_ufs_zoned_hce(true);
    } else if (!enable && (s->reg.hce & R_HCE_HCE_MASK)) {
        /*
         * Disabling resets the host controller, its lists and the link
         * (5.3.5), atomically (ufs_zoned_utp_reset).  The UFS device is
         * not reset: its flags and attributes keep their values.
         */
        trace_ufs_zoned_hce(false);
        s->host_resets++;
        ufs_zoned_utp_reset(s);
        ufs_zoned_ahit_reset(s);
        ufs_zoned_regs_reset(s);
        ufs_zoned_irq_update(s);
    }
}

static uint64_t ufs_zoned_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    UfsZonedState *s = opaque;
    uint32_t val = 0;

    if (addr == A_UTRLDBR) {
        val = s->utrldbr;
    } else if (addr == A_IS) {
        val = ufs_zoned_is(s);
    } else if (addr == A_UTRIACR) {
        val = ufs_zoned_iacr_read(s, UFSZ_AGG_LEGACY);
    } else if (ufs_zoned_mcq_read(s, addr, &val)) {
        /* mcq.c */
    } else if (addr + 4 <= sizeof(s->reg)) {
        val = ((uint32_t *)&s->reg)[addr / 4];
    }
    trace_ufs_zoned_mmio_read(addr, val);
    return val;
}

static void ufs_zoned_mmio_write(void *opaque, hwaddr addr, uint64_t data,
                                 unsigned size)
{
    UfsZonedState *s = opaque;
    uint32_t val = data;

    trace_ufs_zoned_mmio_write(addr, val);
    ufs_zoned_irq_mmio_begin(s);
    switch (addr) {
    case A_HCE:
        ufs_zoned_hce_write(s, val);
        break;
    case A_IS:
        s->reg.is &= ~val;
        ufs_zoned_irq_update(s);
        break;
    case A_IE:
        s->reg.ie = val & UFSZ_IS_MASK;
        ufs_zoned_irq_update(s);
        break;
    case A_AHIT:
        ufs_zoned_ahit_write(s, val);
        break;
    case A_UTRIACR:
        ufs_zoned_iacr_write(s, UFSZ_AGG_LEGACY, val);
        break;
    case A_UTRLBA:
        s->reg.utrlba = val & R_UTRLBA_UTRLBA_MASK;
        break;
    case A_UTRLBAU:
        s->reg.utrlbau = val;
        break;
    case A_UTMRLBA:
        s->reg.utmrlba = val & R_UTMRLBA_UTMRLBA_MASK;
        break;
    case A_UTMRLBAU:
        s->reg.utmrlbau = val;
        break;
    case A_UTRLRSR:
        s->reg.utrlrsr = val & 1;
        break;
    case A_UTMRLRSR:
        s->reg.utmrlrsr = val & 1;
        break;
    case A_UTRLDBR:
        ufs_zoned_utrl_doorbell(s, val);
        break;
    case A_UTRLCLR:
        ufs_zoned_utrl_clear(s, val);
        break;
    case A_UTMRLDBR:
        ufs_zoned_utmrl_doorbell(s, val);
        break;
    case A_UTMRLCLR:
        ufs_zoned_utmrl_clear(s, val);
        break;
    case A_UTRLCNR:
        s->reg.utrlcnr &= ~val;
        break;
    case A_UICCMD:
        ufs_zoned_uic_cmd(s, val);
        break;
    case A_UCMDARG1:
        s->reg.ucmdarg1 = val;
        break;
    case A_UCMDARG2:
        s->reg.ucmdarg2 = val;
        break;
    case A_UCMDARG3:
        s->reg.ucmdarg3 = val;
        break;
    case A_CONFIG:
        ufs_zoned_mcq_select(s, val);
        break;
    case A_MCQCONFIG:
        s->reg.mcqconfig = val & R_MCQCONFIG_MAC_MASK;
        break;
    case A_ESILBA:
    case A_ESIUBA:
        break;      /* MCQCAP.EIS = 0: no event-specific interrupts */
    case A_CAP:
    case A_MCQCAP:
    case A_VER:
    case A_HCPID:
    case A_HCMID:
    case A_HCS:
    case A_UECPA:
    case A_UECDL:
    case A_UECN:
    case A_UECT:
    case A_UECDME:
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: write 0x%08x to "
                      "read-only register 0x%" HWADDR_PRIx "\n", val, addr);
        break;
    default:
        if (!ufs_zoned_mcq_write(s, addr, val)) {
            qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: write 0x%08x to "
                          "unknown register 0x%" HWADDR_PRIx "\n", val,
                          addr);
        }
        break;
    }
    ufs_zoned_irq_mmio_end(s);
}

const MemoryRegionOps ufs_zoned_mmio_ops = {
    .read = ufs_zoned_mmio_read,
    .write = ufs_zoned_mmio_write,
    UFSZ_MMIO_DWORDS,
};
