/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: Get Log Page (Base 5.16): Error Information, SMART / Health,
 * Firmware Slot, Commands Supported and Effects per command set, and the
 * Zoned Namespace Command Set's Changed Zone List (ZNS 5.3.1).
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define NZ_LOG_CHANGED_ZONES    0xbf
#define NZ_RAE                  (1u << 15)

/* Record a failed command in the Error Information log (Base 5.16.1.2) */
void nz_log_error(NzCtrl *s, NzReq *r, uint16_t status)
{
    memmove(&s->errlog[1], &s->errlog[0],
            sizeof(s->errlog) - sizeof(s->errlog[0]));
    s->errlog[0] = (NzErrEntry) {
        .count = ++s->err_count,
        .sqid = r->sqid,
        .cid = le16_to_cpu(r->cmd.cid),
        .status = status << 1,
        .lba = r->slba,
        .nsid = le32_to_cpu(r->cmd.nsid),
    };
}

static size_t nz_log_errors(NzCtrl *s, uint8_t *buf)
{
    uint32_t i;

    for (i = 0; i <= NZ_ELPE; i++) {
        NvmeErrorLog *e = (NvmeErrorLog *)buf + i;

        if (!s->errlog[i].count) {
            break;
        }
        e->error_count = cpu_to_le64(s->errlog[i].count);
        e->sqid = cpu_to_le16(s->errlog[i].sqid);
        e->cid = cpu_to_le16(s->errlog[i].cid);
        e->status_field = cpu_to_le16(s->errlog[i].status);
        e->param_error_location = cpu_to_le16(0xffff);
        e->lba = cpu_to_le64(s->errlog[i].lba);
        e->nsid = cpu_to_le32(s->errlog[i].nsid);
    }
    return (NZ_ELPE + 1) * sizeof(NvmeErrorLog);
}

static void nz_put128(void *dst, uint64_t v)
{
    stq_le_p(dst, v);
    stq_le_p((uint8_t *)dst + 8, 0);
}

static size_t nz_log_smart(NzCtrl *s, uint8_t *buf)
{
    NvmeSmartLog *l = (NvmeSmartLog *)buf;
    int64_t on = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - s->power_on_ns;

    stw_le_p(&l->temperature, 313);    /* K */
    l->available_spare = 100;
    l->available_spare_threshold = 10;
    /* data units: thousands of 512-byte units, rounded up (Base 5.16.1.3) */
    nz_put128(l->data_units_read, DIV_ROUND_UP(s->units_read, 1000));
    nz_put128(l->data_units_written, DIV_ROUND_UP(s->units_written, 1000));
    nz_put128(l->host_read_commands, s->host_reads);
    nz_put128(l->host_write_commands, s->host_writes);
    nz_put128(l->power_cycles, 1);
    nz_put128(l->power_on_hours, on / (3600 * NANOSECONDS_PER_SECOND));
    nz_put128(l->number_of_error_log_entries, s->err_count);
    return sizeof(*l);
}

static size_t nz_log_fw(uint8_t *buf)
{
    NvmeFwSlotInfoLog *l = (NvmeFwSlotInfoLog *)buf;

    l->afi = 1;
    memset(l->frs1, ' ', sizeof(l->frs1));
    memcpy(l->frs1, "1.0", 3);
    return sizeof(*l);
}

/* Commands Supported and Effects (Base 5.16.1.6), per command set */
static bool nz_log_effects(uint8_t csi, uint8_t *buf, size_t *len)
{
    NvmeEffectsLog *l = (NvmeEffectsLog *)buf;
    static const uint8_t admin[] = {
        NVME_ADM_CMD_DELETE_SQ, NVME_ADM_CMD_CREATE_SQ,
        NVME_ADM_CMD_GET_LOG_PAGE, NVME_ADM_CMD_DELETE_CQ,
        NVME_ADM_CMD_CREATE_CQ, NVME_ADM_CMD_IDENTIFY, NVME_ADM_CMD_ABORT,
        NVME_ADM_CMD_SET_FEATURES, NVME_ADM_CMD_GET_FEATURES,
        NVME_ADM_CMD_ASYNC_EV_REQ,
    };
    const uint32_t lbcc = NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_LBCC;
    size_t i;

    if (csi != NVME_CSI_NVM && csi != NVME_CSI_ZONED) {
        return false;
    }
    for (i = 0; i < ARRAY_SIZE(admin); i++) {
        l->acs[admin[i]] = cpu_to_le32(NVME_CMD_EFF_CSUPP);
    }
    l->iocs[NVME_CMD_FLUSH] = cpu_to_le32(NVME_CMD_EFF_CSUPP);
    l->iocs[NVME_CMD_READ] = cpu_to_le32(NVME_CMD_EFF_CSUPP);
    l->iocs[NVME_CMD_WRITE] = cpu_to_le32(lbcc);
    l->iocs[NVME_CMD_WRITE_ZEROES] = cpu_to_le32(lbcc);
    l->iocs[NVME_CMD_DSM] = cpu_to_le32(NVME_CMD_EFF_CSUPP);
    if (csi == NVME_CSI_ZONED) {
        l->iocs[NVME_CMD_ZONE_MGMT_SEND] = cpu_to_le32(lbcc);
        l->iocs[NVME_CMD_ZONE_MGMT_RECV] = cpu_to_le32(NVME_CMD_EFF_CSUPP);
        l->iocs[NVME_CMD_ZONE_APPEND] = cpu_to_le32(lbcc);
    }
    *len = sizeof(*l);
    return true;
}

/* Changed Zone List (ZNS 5.3.1); it empties once read (nz_get_log()) */
static size_t nz_log_changed_zones(NzNs *ns, uint8_t *buf)
{
    uint32_t i;

    stw_le_p(buf, ns->changed_overflow ? 0xffff : ns->nr_changed);
    for (i = 0; i < ns->nr_changed && !ns->changed_overflow; i++) {
        stq_le_p(buf + 8 + 8 * i, ns->changed[i]);
    }
    return 8 + 8 * NZ_MAX_CHANGED_ZONES;
}

uint16_t nz_get_log(NzReq *r)
{
    NzCtrl *s = r->s;
    uint32_t dw10 = le32_to_cpu(r->cmd.cdw10), dw11 = le32_to_cpu(r->cmd.cdw11);
    uint32_t dw14 = le32_to_cpu(r->cmd.cdw14);
    uint32_t nsid = le32_to_cpu(r->cmd.nsid);
    uint8_t lid = dw10 & 0xff, csi = dw14 >> 24;
    bool rae = dw10 & NZ_RAE;
    uint64_t numd = ((uint64_t)(dw11 & 0xffff) << 16 | dw10 >> 16) + 1;
    uint64_t len = numd * 4;
    uint64_t off = ldq_le_p(&r->cmd.cdw12);
    g_autofree uint8_t *buf = g_malloc0(4096);
    g_autofree uint8_t *out = NULL;
    size_t size = 0;
    int clear = -1;
    NzNs *ns = NULL;
    uint16_t status;

    trace_nvme_zns_get_log(lid, csi, nsid, off, len);
    if ((off & 3) || len > NZ_MAX_XFER) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    switch (lid) {
    case NVME_LOG_ERROR_INFO:
        size = nz_log_errors(s, buf);
        clear = NVME_AER_TYPE_ERROR;
        break;
    case NVME_LOG_SMART_INFO:
        if (nsid && nsid != NVME_NSID_BROADCAST) {
            /* LPA bit 0 is clear: no per-namespace SMART data */
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        size = nz_log_smart(s, buf);
        clear = NVME_AER_TYPE_SMART;
        break;
    case NVME_LOG_FW_SLOT_INFO:
        size = nz_log_fw(buf);
        break;
    case NVME_LOG_CMD_EFFECTS:
        if (!nz_log_effects(csi, buf, &size)) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        break;
    case NZ_LOG_CHANGED_ZONES:
        ns = nz_ns_get(s, nsid);
        if (!ns) {
            return NVME_INVALID_NSID | NVME_DNR;
        }
        size = nz_log_changed_zones(ns, buf);
        clear = NVME_AER_TYPE_NOTICE;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: Get Log Page 0x%02x not "
                      "supported\n", lid);
        return NVME_INVALID_LOG_ID | NVME_DNR;
    }
    if (off > size) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    out = g_malloc0(len);
    memcpy(out, buf + off, MIN(len, size - off));
    status = nz_dma_out(s, &r->cmd, out, len);
    /* what was read is consumed only once the host has it (RAE clear) */
    if (nz_status_ok(status) && !rae) {
        if (lid == NZ_LOG_CHANGED_ZONES) {
            ns->nr_changed = 0;
            ns->changed_overflow = false;
        }
        if (clear >= 0) {
            nz_aer_clear(s, clear);
        }
    }
    return status;
}
