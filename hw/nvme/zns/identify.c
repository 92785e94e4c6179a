/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: Identify (Base 5.17), with the Zoned Namespace Command Set's
 * data structures (ZNS 4.1).  Every namespace uses the Zoned Namespace
 * Command Set (CSI 02h); it is active only while CC.CSS enables all
 * supported I/O command sets (110b), as a controller whose namespaces
 * are all zoned has nothing to offer the NVM-only host.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/cutils.h"
#include "hw/pci/pci.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define NZ_MN       "QEMU NVMe ZNS Ctrl (zoned-reorder)"
#define NZ_FR       "1.0"

static void nz_pad(uint8_t *dst, size_t len, const char *src)
{
    size_t n = MIN(strlen(src), len);

    memset(dst, ' ', len);
    memcpy(dst, src, n);
}

static char *nz_serial(NzCtrl *s)
{
    PCIDevice *pci = PCI_DEVICE(s);

    if (s->serial) {
        return g_strdup(s->serial);
    }
    return g_strdup_printf("NZ%02x%02x", pci_dev_bus_num(pci), pci->devfn);
}

static bool nz_ns_visible(NzCtrl *s, NzNs *ns)
{
    return ns && NVME_CC_CSS(s->cc) == NVME_CC_CSS_ALL;
}

/* A namespace's NGUID/EUI-64: from the serial and NSID, stable per run */
static void nz_ns_ids(NzCtrl *s, NzNs *ns, uint8_t nguid[16],
                      uint8_t eui64[8])
{
    g_autofree char *sn = nz_serial(s);
    uint64_t h = 0xcbf29ce484222325ULL;
    const char *p;
    int i;

    for (p = sn; *p; p++) {
        h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
    }
    h = (h ^ ns->nsid) * 0x100000001b3ULL;
    /* IEEE OUI-less EUI-64: locally administered */
    for (i = 0; i < 8; i++) {
        eui64[i] = h >> (56 - 8 * i);
    }
    eui64[0] = (eui64[0] & ~0x01) | 0x02;
    memcpy(nguid, eui64, 8);
    for (i = 0; i < 8; i++) {
        nguid[8 + i] = (h * 31 + i) >> (8 * i);
    }
    nguid[8] ^= ns->nsid;
}

static uint16_t nz_id_ctrl(NzReq *r, NvmeIdCtrl *id)
{
    NzCtrl *s = r->s;
    g_autofree char *sn = nz_serial(s);
    g_autofree char *nqn = g_strdup_printf(
        "nqn.2026-12.io.zoned-reorder:nvme-zns:%s", sn);

    id->vid = cpu_to_le16(NZ_PCI_VENDOR);
    id->ssvid = cpu_to_le16(NZ_PCI_VENDOR);
    nz_pad(id->sn, sizeof(id->sn), sn);
    nz_pad(id->mn, sizeof(id->mn), NZ_MN);
    nz_pad(id->fr, sizeof(id->fr), NZ_FR);
    id->rab = 6;
    id->mdts = NZ_MDTS;
    id->cntlid = cpu_to_le16(0);
    id->ver = cpu_to_le32(s->vs);
    id->oaes = cpu_to_le32(1u << 27);       /* Zone Descriptor Changed */
    id->cntrltype = 1;                      /* I/O controller */
    id->acl = NZ_ACL;
    id->aerl = NZ_AERL;
    id->frmw = (1 << 1) | NVME_FRMW_SLOT1_RO;
    id->lpa = NVME_LPA_CSE | NVME_LPA_EXTENDED;
    id->elpe = NZ_ELPE;
    id->npss = 0;
    id->wctemp = cpu_to_le16(343);
    id->cctemp = cpu_to_le16(373);
    id->sqes = (6 << 4) | 6;
    id->cqes = (4 << 4) | 4;
    id->maxcmd = cpu_to_le16(NZ_IO_REQS);
    id->nn = cpu_to_le32(NZ_MAX_NS);
    id->oncs = cpu_to_le16(NVME_ONCS_DSM | NVME_ONCS_WRITE_ZEROES |
                           NVME_ONCS_FEATURES | NVME_ONCS_TIMESTAMP);
    id->vwc = NVME_VWC_PRESENT | NVME_VWC_NSID_BROADCAST_SUPPORT;
    id->nvscc = 1;
    /* SGLs without alignment, bit buckets, SGLs longer than the data */
    id->sgls = cpu_to_le32(NVME_CTRL_SGLS_SUPPORT_NO_ALIGN | 1u << 16 |
                           1u << 18);
    pstrcpy((char *)id->subnqn, sizeof(id->subnqn), nqn);
    id->psd[0].mp = cpu_to_le16(2500);      /* 25 W */
    id->psd[0].enlat = cpu_to_le32(16);
    id->psd[0].exlat = cpu_to_le32(16);
    return NVME_SUCCESS;
}

static void nz_id_ns(NzCtrl *s, NzNs *ns, NvmeIdNs *id)
{
    uint8_t eui64[8];

    id->nsze = cpu_to_le64(ns->nr_blocks);
    id->ncap = cpu_to_le64(ns->nr_blocks);
    id->nuse = cpu_to_le64(ns->nr_blocks);
    id->nlbaf = 0;
    id->flbas = 0;
    id->dlfeat = NVME_ID_NS_DLFEAT_READ_BEHAVIOR_ZEROES;
    id->lbaf[0].ds = ns->lbads;
    stq_le_p(id->nvmcap, ns->nr_blocks << ns->lbads);
    nz_ns_ids(s, ns, id->nguid, eui64);
    memcpy(&id->eui64, eui64, 8);
}

static void nz_id_ns_zoned(NzCtrl *s, NzNs *ns, NvmeIdNsZoned *id)
{
    id->zoc = 0;
    id->ozcs = cpu_to_le16(ns->razb ? NVME_ID_NS_ZONED_OZCS_RAZB : 0);
    id->mar = cpu_to_le32(ns->max_active ? ns->max_active - 1 : 0xffffffff);
    id->mor = cpu_to_le32(ns->max_open ? ns->max_open - 1 : 0xffffffff);
    id->lbafe[0].zsze = cpu_to_le64(ns->zone_blocks);
    id->lbafe[0].zdes = ns->zde_size / 64;     /* in 64-byte units */
}

/* Active namespace list (CNS 02h/07h): NSIDs above @nsid, ascending */
static void nz_id_ns_list(NzCtrl *s, uint32_t nsid, uint32_t *list)
{
    uint32_t i, n = 0;

    for (i = nsid + 1; i <= NZ_MAX_NS; i++) {
        if (nz_ns_visible(s, s->ns[i])) {
            list[n++] = cpu_to_le32(i);
        }
    }
}

/* Namespace Identification Descriptor list (CNS 03h, Base 5.17.2.4) */
static void nz_id_ns_descs(NzCtrl *s, NzNs *ns, uint8_t *buf)
{
    uint8_t nguid[16], eui64[8];
    NvmeIdNsDescr *d;
    size_t off = 0;

    nz_ns_ids(s, ns, nguid, eui64);
    d = (NvmeIdNsDescr *)(buf + off);
    d->nidt = NVME_NIDT_EUI64;
    d->nidl = NVME_NIDL_EUI64;
    memcpy(buf + off + sizeof(*d), eui64, 8);
    off += sizeof(*d) + 8;
    d = (NvmeIdNsDescr *)(buf + off);
    d->nidt = NVME_NIDT_NGUID;
    d->nidl = NVME_NIDL_NGUID;
    memcpy(buf + off + sizeof(*d), nguid, 16);
    off += sizeof(*d) + 16;
    d = (NvmeIdNsDescr *)(buf + off);
    d->nidt = NVME_NIDT_CSI;
    d->nidl = NVME_NIDL_CSI;
    buf[off + sizeof(*d)] = NVME_CSI_ZONED;
}

uint16_t nz_identify(NzReq *r)
{
    NzCtrl *s = r->s;
    NvmeIdentify *c = (NvmeIdentify *)&r->cmd;
    uint32_t nsid = le32_to_cpu(c->nsid);
    uint8_t cns = c->cns, csi = c->csi;
    g_autofree uint8_t *buf = g_malloc0(NVME_IDENTIFY_DATA_SIZE);
    NzNs *ns = nz_ns_get(s, nsid);
    bool ns_ok = nz_ns_visible(s, ns);
    uint16_t status = NVME_SUCCESS;

    trace_nvme_zns_identify(cns, nsid, csi);
    switch (cns) {
    case NVME_ID_CNS_CTRL:
        status = nz_id_ctrl(r, (NvmeIdCtrl *)buf);
        break;
    case NVME_ID_CNS_NS:
        if (!nsid || nsid > NZ_MAX_NS) {
            /* FFFFFFFFh too: no Namespace Management (Base 5.17.2.1) */
            status = NVME_INVALID_NSID | NVME_DNR;
        } else if (ns_ok) {
            nz_id_ns(s, ns, (NvmeIdNs *)buf);
        }
        break;
    case NVME_ID_CNS_NS_ACTIVE_LIST:
        if (nsid >= 0xfffffffe) {
            status = NVME_INVALID_NSID | NVME_DNR;
        } else {
            nz_id_ns_list(s, nsid, (uint32_t *)buf);
        }
        break;
    case NVME_ID_CNS_NS_DESCR_LIST:
        if (!ns_ok) {
            status = NVME_INVALID_NSID | NVME_DNR;
        } else {
            nz_id_ns_descs(s, ns, buf);
        }
        break;
    case NVME_ID_CNS_CS_NS:
        if (csi != NVME_CSI_NVM && csi != NVME_CSI_ZONED) {
            status = NVME_INVALID_FIELD | NVME_DNR;
        } else if (!nsid || nsid > NZ_MAX_NS) {
            status = NVME_INVALID_NSID | NVME_DNR;
        } else if (ns_ok && csi == NVME_CSI_ZONED) {
            nz_id_ns_zoned(s, ns, (NvmeIdNsZoned *)buf);
        }
        /* CSI 00h: the NVM-specific fields are all zero (no PI, no STM) */
        break;
    case NVME_ID_CNS_CS_CTRL:
        if (csi == NVME_CSI_ZONED) {
            ((NvmeIdCtrlZoned *)buf)->zasl = s->zasl;
        } else if (csi != NVME_CSI_NVM) {
            status = NVME_INVALID_FIELD | NVME_DNR;
        }
        break;
    case NVME_ID_CNS_CS_NS_ACTIVE_LIST:
        if (nsid >= 0xfffffffe) {
            status = NVME_INVALID_NSID | NVME_DNR;
        } else if (csi == NVME_CSI_ZONED) {
            nz_id_ns_list(s, nsid, (uint32_t *)buf);
        } else if (csi != NVME_CSI_NVM) {
            status = NVME_INVALID_FIELD | NVME_DNR;
        }
        break;
    case NVME_ID_CNS_CS_IND_NS:
        if (!nsid || nsid > NZ_MAX_NS) {
            status = NVME_INVALID_NSID | NVME_DNR;
        } else if (ns_ok) {
            NvmeIdNsInd *ind = (NvmeIdNsInd *)buf;

            ind->nstat = NVME_ID_NS_IND_NSTAT_NRDY;   /* ready */
        }
        break;
    case NVME_ID_CNS_IO_COMMAND_SET:
        /* one combination: NVM and Zoned Namespace (Base 5.17.2.20) */
        stq_le_p(buf, 1u << NVME_CSI_NVM | 1u << NVME_CSI_ZONED);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: Identify CNS 0x%02x not "
                      "supported\n", cns);
        status = NVME_INVALID_FIELD | NVME_DNR;
        break;
    }
    if (nz_status_ok(status)) {
        status = nz_dma_out(s, &r->cmd, buf, NVME_IDENTIFY_DATA_SIZE);
    }
    return status;
}
