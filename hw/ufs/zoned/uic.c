/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: UIC commands (UFSHCI 4.0 5.6) and the UniPro/M-PHY attributes
 * Linux reads.  There is no real link: link startup always succeeds, and
 * power mode changes and hibernate complete at once with UPMCRS = PWR_LOCAL,
 * which is what ufshcd_uic_pwr_ctrl() requires.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

/* UniPro attribute IDs (MIPI UniPro 1.8) */
#define PA_AVAILTXDATALANES     0x1520
#define PA_AVAILRXDATALANES     0x1540
#define PA_CONNECTEDTXDATALANES 0x1561
#define PA_CONNECTEDRXDATALANES 0x1581
#define PA_MAXRXPWMGEAR         0x1586
#define PA_MAXRXHSGEAR          0x1587
#define PA_PWRMODE              0x1571
#define PA_GRANULARITY          0x15aa
#define PA_TACTIVATE            0x15a8

static uint32_t ufs_zoned_dme_value(uint16_t attr)
{
    switch (attr) {
    case PA_AVAILTXDATALANES:
    case PA_AVAILRXDATALANES:
    case PA_CONNECTEDTXDATALANES:
    case PA_CONNECTEDRXDATALANES:
        return 1;
    case PA_MAXRXHSGEAR:
        return 4;
    case PA_MAXRXPWMGEAR:
        return 4;
    case PA_GRANULARITY:
        return 6;
    default:
        return 0;
    }
}

void ufs_zoned_uic_cmd(UfsZonedState *s, uint32_t cmd)
{
    uint16_t attr = s->reg.ucmdarg1 >> 16;
    uint32_t result = UFS_UIC_CMD_RESULT_SUCCESS;
    uint32_t is = R_IS_UCCS_MASK;

    cmd &= 0xff;
    if (!(s->reg.hcs & R_HCS_UCRDY_MASK)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: UIC command 0x%02x while "
                      "the controller is disabled\n", cmd);
        trace_ufs_zoned_err_uic(cmd, "controller disabled");
        return;
    }
    s->reg.uiccmd = cmd;
    /* A UIC command is a request for the link: it leaves H8 (5.2.5). */
    if (cmd != UFS_UIC_CMD_DME_HIBER_ENTER &&
        cmd != UFS_UIC_CMD_DME_HIBER_EXIT) {
        ufs_zoned_ahit_busy(s);
    }
    switch (cmd) {
    case UFS_UIC_CMD_DME_LINK_STARTUP:
        s->link_up = true;
        s->reg.hcs |= R_HCS_DP_MASK | R_HCS_UTRLRDY_MASK |
                      R_HCS_UTMRLRDY_MASK;
        break;
    case UFS_UIC_CMD_DME_GET:
    case UFS_UIC_CMD_DME_PEER_GET:
        s->reg.ucmdarg3 = ufs_zoned_dme_value(attr);
        break;
    case UFS_UIC_CMD_DME_SET:
    case UFS_UIC_CMD_DME_PEER_SET:
        if (attr == PA_PWRMODE) {
            /* Power mode change: UPMS with UPMCRS = PWR_LOCAL (5.6.3). */
            s->reg.hcs = FIELD_DP32(s->reg.hcs, HCS, UPMCRS, UFS_PWR_LOCAL);
            is |= R_IS_UPMS_MASK;
        }
        break;
    case UFS_UIC_CMD_DME_HIBER_ENTER:
        /* Manual H8: the same link state auto-hibernate uses. */
        trace_ufs_zoned_h8_manual("ENTER");
        ufs_zoned_h8_enter(s);
        s->reg.hcs = FIELD_DP32(s->reg.hcs, HCS, UPMCRS, UFS_PWR_LOCAL);
        is |= R_IS_UHES_MASK;
        break;
    case UFS_UIC_CMD_DME_HIBER_EXIT:
        trace_ufs_zoned_h8_manual("EXIT");
        ufs_zoned_h8_exit_by_host(s);
        s->reg.hcs = FIELD_DP32(s->reg.hcs, HCS, UPMCRS, UFS_PWR_LOCAL);
        is |= R_IS_UHXS_MASK;
        break;
    case UFS_UIC_CMD_DME_POWERON:
    case UFS_UIC_CMD_DME_POWEROFF:
    case UFS_UIC_CMD_DME_ENABLE:
    case UFS_UIC_CMD_DME_RESET:
    case UFS_UIC_CMD_DME_END_PT_RST:
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: unknown UIC command "
                      "0x%02x\n", cmd);
        trace_ufs_zoned_err_uic(cmd, "unknown command");
        result = UFS_UIC_CMD_RESULT_FAILURE;
        break;
    }
    s->reg.ucmdarg2 = (s->reg.ucmdarg2 & ~UFS_MASK_UIC_COMMAND_RESULT) |
                      result;
    trace_ufs_zoned_uic(cmd, attr, result, s->reg.ucmdarg3);
    ufs_zoned_raise(s, is);
}
