/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: Zone Management Send and Receive (ZNS 1.1 4.3, 4.4), on the
 * core's zone model, and zone descriptor extensions (ZNS 1.1 "Zone
 * Descriptor Extension": ZDES bytes a zone, set with Set Zone Descriptor
 * Extension, reported by Extended Report Zones).  Both commands run at
 * their start through the dispatch engine, so a zone reset is ordered with
 * the writes around it exactly as the reorder policy orders them.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define ZMS_SELECT_ALL      (1u << 8)
#define ZMR_PARTIAL         (1u << 16)

static uint64_t nz_cmd_slba(const NvmeCmd *cmd)
{
    return ldq_le_p(&cmd->cdw10);
}

uint16_t nz_zms_check(NzReq *r)
{
    uint32_t dw13 = le32_to_cpu(r->cmd.cdw13);
    uint8_t zsa = dw13 & 0xff;
    NzNs *ns = r->ns;

    r->slba = nz_cmd_slba(&r->cmd);
    switch (zsa) {
    case NVME_ZONE_ACTION_CLOSE:
    case NVME_ZONE_ACTION_FINISH:
    case NVME_ZONE_ACTION_OPEN:
    case NVME_ZONE_ACTION_RESET:
    case NVME_ZONE_ACTION_OFFLINE:
        break;
    case NVME_ZONE_ACTION_SET_ZD_EXT:
        /* one zone, with its extension as data (ZNS 4.3.1.6) */
        if (!ns->zde_size || (dw13 & ZMS_SELECT_ALL)) {
            qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: Set Zone Descriptor "
                          "Extension %s\n", ns->zde_size ? "with Select All"
                          : "on a namespace without extensions (ZDES 0)");
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        r->buf_len = ns->zde_size;
        break;
    default:
        /* no ZRWA (ZNS 4.3.1) */
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: Zone Management Send "
                      "action 0x%02x not supported\n", zsa);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (dw13 & ZMS_SELECT_ALL) {
        return NVME_SUCCESS;        /* SLBA is ignored */
    }
    if (r->slba >= ns->nr_blocks) {
        return NVME_LBA_RANGE | NVME_DNR;
    }
    if (r->slba & (ns->zone_blocks - 1)) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: Zone Management Send: "
                      "SLBA 0x%" PRIx64 " is not a zone start\n", r->slba);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

/* Offline Zone (ZNS 4.3.1.5): only a Read Only zone goes offline */
static ZrResult nz_zone_offline(ZrZoneModel *m, uint64_t lba, bool all)
{
    uint32_t i;

    if (!all) {
        ZrZone *z = zr_zone_at(m, lba);

        if (z->cond != ZR_COND_READ_ONLY) {
            return ZR_ERR_INVALID_TRANSITION;
        }
        return zr_zone_set_offline(m, lba);
    }
    for (i = 0; i < m->nr_zones; i++) {
        if (m->zones[i].cond == ZR_COND_READ_ONLY) {
            zr_zone_set_offline(m, m->zones[i].start);
        }
    }
    return ZR_OK;
}

static void nz_zde_sync_all(NzNs *ns)
{
    uint32_t i;

    for (i = 0; ns->zde_valid && i < ns->zones.nr_zones; i++) {
        nz_zde_sync(ns, i);
    }
}

/* Set Zone Descriptor Extension (ZNS 4.3.1.6): an Empty zone goes Closed */
static uint16_t nz_zone_set_ext(NzReq *r)
{
    NzNs *ns = r->ns;
    g_autofree uint8_t *ext = g_malloc(ns->zde_size);
    uint32_t idx = r->slba >> ns->zones.zone_shift;
    uint16_t status;
    ZrResult res;

    status = nz_dma_from_host(r->s, &r->sg, ext, ns->zde_size);
    if (!nz_status_ok(status)) {
        return status;
    }
    nz_zde_sync(ns, idx);
    res = zr_zone_activate(&ns->zones, r->slba);
    trace_nvme_zns_zms(ns->nsid, NVME_ZONE_ACTION_SET_ZD_EXT, r->slba, false,
                       zr_result_name(res));
    if (res != ZR_OK) {
        return nz_zone_status(res, true);
    }
    memcpy(ns->zde + (uint64_t)idx * ns->zde_size, ext, ns->zde_size);
    set_bit(idx, ns->zde_valid);
    return NVME_SUCCESS;
}

uint16_t nz_zms_start(NzReq *r)
{
    static const ZrZoneOp ops[] = {
        [NVME_ZONE_ACTION_CLOSE] = ZR_ZONE_OP_CLOSE,
        [NVME_ZONE_ACTION_FINISH] = ZR_ZONE_OP_FINISH,
        [NVME_ZONE_ACTION_OPEN] = ZR_ZONE_OP_OPEN,
        [NVME_ZONE_ACTION_RESET] = ZR_ZONE_OP_RESET,
    };
    uint32_t dw13 = le32_to_cpu(r->cmd.cdw13);
    uint8_t zsa = dw13 & 0xff;
    bool all = dw13 & ZMS_SELECT_ALL;
    NzNs *ns = r->ns;
    ZrResult res;

    if (zsa == NVME_ZONE_ACTION_SET_ZD_EXT) {
        return nz_zone_set_ext(r);
    }
    if (all) {
        nz_zde_sync_all(ns);
    } else {
        nz_zde_sync(ns, r->slba >> ns->zones.zone_shift);
    }
    if (zsa == NVME_ZONE_ACTION_OFFLINE) {
        res = nz_zone_offline(&ns->zones, r->slba, all);
    } else {
        res = zr_zone_mgmt(&ns->zones, ops[zsa], r->slba, all);
    }
    if (all) {
        nz_zde_sync_all(ns);
    } else {
        nz_zde_sync(ns, r->slba >> ns->zones.zone_shift);
    }
    trace_nvme_zns_zms(ns->nsid, zsa, r->slba, all, zr_result_name(res));
    return nz_zone_status(res, true);
}

static const ZrReportFilter nz_zrasf[] = {
    [NVME_ZONE_REPORT_ALL] = ZR_REPORT_ALL,
    [NVME_ZONE_REPORT_EMPTY] = ZR_REPORT_EMPTY,
    [NVME_ZONE_REPORT_IMPLICITLY_OPEN] = ZR_REPORT_IMP_OPEN,
    [NVME_ZONE_REPORT_EXPLICITLY_OPEN] = ZR_REPORT_EXP_OPEN,
    [NVME_ZONE_REPORT_CLOSED] = ZR_REPORT_CLOSED,
    [NVME_ZONE_REPORT_FULL] = ZR_REPORT_FULL,
    [NVME_ZONE_REPORT_READ_ONLY] = ZR_REPORT_READ_ONLY,
    [NVME_ZONE_REPORT_OFFLINE] = ZR_REPORT_OFFLINE,
};

uint16_t nz_zmr_check(NzReq *r)
{
    uint32_t dw13 = le32_to_cpu(r->cmd.cdw13);
    uint8_t zra = dw13 & 0xff, zrasf = (dw13 >> 8) & 0xff;
    uint64_t bytes = ((uint64_t)le32_to_cpu(r->cmd.cdw12) + 1) * 4;

    r->slba = nz_cmd_slba(&r->cmd);
    r->to_host = true;
    if (zra != NVME_ZONE_REPORT &&
        (zra != NVME_ZONE_REPORT_EXTENDED || !r->ns->zde_size)) {
        /* an extended report needs zone descriptor extensions (ZDES > 0) */
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: Zone Receive Action "
                      "0x%02x not supported\n", zra);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (zrasf >= ARRAY_SIZE(nz_zrasf)) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (r->slba >= r->ns->nr_blocks) {
        return NVME_LBA_RANGE | NVME_DNR;
    }
    if (bytes > NZ_MAX_XFER) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    r->buf_len = bytes;
    return NVME_SUCCESS;
}

/*
 * Zone Management Receive (ZNS 4.4.1): Report Zones, or Extended Report
 * Zones, whose entries are each descriptor followed by its zone's
 * extension (zeros when the zone has none).
 */
uint16_t nz_zmr_start(NzReq *r)
{
    uint32_t dw13 = le32_to_cpu(r->cmd.cdw13);
    ZrReportFilter f = nz_zrasf[(dw13 >> 8) & 0xff];
    bool partial = dw13 & ZMR_PARTIAL;
    bool ext = (dw13 & 0xff) == NVME_ZONE_REPORT_EXTENDED;
    NzNs *ns = r->ns;
    ZrZoneModel *m = &ns->zones;
    uint32_t from = zr_zone_index(m, zr_zone_at(m, r->slba));
    size_t entry = sizeof(NvmeZoneDescr) + (ext ? ns->zde_size : 0);
    uint64_t room = (r->buf_len - sizeof(NvmeZoneReportHeader)) / entry;
    uint64_t put = 0, matched;
    NvmeZoneReportHeader *hdr;
    uint32_t i;

    nz_req_buf(r, true);
    r->to_host_len = r->buf_len;
    if (r->buf_len < sizeof(*hdr)) {
        /* too small for the header: the host gets what fits, zeros */
        return NVME_SUCCESS;
    }
    hdr = (NvmeZoneReportHeader *)r->buf;
    ZR_ZONE_FOREACH_MATCH(m, i, from, f) {
        const ZrZone *z = &m->zones[i];
        NvmeZoneDescr *d;

        if (put == room) {
            break;
        }
        d = (NvmeZoneDescr *)(r->buf + sizeof(*hdr) + put++ * entry);
        nz_zde_sync(ns, i);
        d->zt = NVME_ZONE_TYPE_SEQ_WRITE;
        d->zs = z->cond << 4;
        d->za = 0;
        if (ns->zde_valid && test_bit(i, ns->zde_valid)) {
            d->za = NVME_ZA_ZD_EXT_VALID;
            if (ext) {
                memcpy(d + 1, ns->zde + (uint64_t)i * ns->zde_size,
                       ns->zde_size);
            }
        }
        d->zcap = cpu_to_le64(z->cap);
        d->zslba = cpu_to_le64(z->start);
        d->wp = cpu_to_le64(z->wp);
    }
    matched = partial ? put : zr_zone_report_count(m, from, f);
    hdr->nr_zones = cpu_to_le64(matched);
    trace_nvme_zns_zmr(r->ns->nsid, r->slba, f, partial, put, matched);
    return NVME_SUCCESS;
}
