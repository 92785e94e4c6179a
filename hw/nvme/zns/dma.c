/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: a command's data pointer as a list of guest memory segments
 * (Base 4.1 PRP lists, 4.3 SGLs), and the copies between those segments
 * and a bounce buffer, or their mapping for the backend I/O itself.
 * Every guest address goes through pci_dma_*: a failed access is a Data
 * Transfer Error, never a crash.  Run on the work or service BH only.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/rcu.h"
#include "hw/pci/pci.h"
#include "nvme-zns-internal.h"
#include "trace.h"

void nz_seglist_free(NzSegList *sg)
{
    g_free(sg->seg);
    *sg = (NzSegList) { 0 };
}

static inline QEMU_ALWAYS_INLINE
void nz_seg_add(NzSegList *sg, uint64_t addr, uint32_t len,
                bool bucket)
{
    NzSeg *last = sg->n ? &sg->seg[sg->n - 1] : NULL;

    if (!len) {
        return;
    }
    sg->bytes += len;
    if (last && last->bucket == bucket && !bucket &&
        last->addr + last->len == addr && last->len + (uint64_t)len <=
        UINT32_MAX) {
        last->len += len;
        return;
    }
    if (sg->n == sg->alloc) {
        sg->alloc = MAX(16, sg->alloc * 2);
        sg->seg = g_renew(NzSeg, sg->seg, sg->alloc);
    }
    sg->seg[sg->n++] = (NzSeg) { .addr = addr, .len = len, .bucket = bucket };
}

static uint16_t nz_prp_bad(const char *why, uint64_t addr, uint16_t status)
{
    qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: PRP: %s (0x%" PRIx64 ")\n",
                  why, addr);
    return status | NVME_DNR;
}

/*
 * Base 4.1.1: PRP1 may start anywhere in a page; every further entry, in
 * PRP2 or in a PRP list, is page aligned.  PRP2 is a data page when the
 * rest fits in one page, else a list; a list's last entry chains the next
 * list while more than one entry is still needed.
 */
static inline QEMU_ALWAYS_INLINE
uint16_t nz_map_prp(NzCtrl *s, uint64_t prp1, uint64_t prp2, uint64_t len,
                    NzSegList *sg)
{
    uint64_t page = s->page_size, mask = page - 1;
    uint64_t left, n, list, hops;
    uint32_t per_page = page / 8;

    sg->n = 0;
    sg->bytes = 0;
    if (!len) {
        return NVME_SUCCESS;
    }
    n = MIN(len, page - (prp1 & mask));
    if (prp1 & 3) {
        return nz_prp_bad("PRP1 not dword aligned", prp1,
                          NVME_INVALID_PRP_OFFSET);
    }
    nz_seg_add(sg, prp1, n, false);
    left = len - n;
    if (!left) {
        return NVME_SUCCESS;
    }
    if (left <= page) {
        if (prp2 & mask) {
            return nz_prp_bad("PRP2 data page with an offset", prp2,
                              NVME_INVALID_PRP_OFFSET);
        }
        nz_seg_add(sg, prp2, left, false);
        return NVME_SUCCESS;
    }
    if (prp2 & 7) {
        return nz_prp_bad("PRP list pointer not qword aligned", prp2,
                          NVME_INVALID_PRP_OFFSET);
    }
    list = prp2;
    /* each list page gives at least one entry: bounded by the pages */
    for (hops = DIV_ROUND_UP(left, page) + 1; left && hops; hops--) {
        uint32_t avail = per_page - (list & mask) / 8;
        uint64_t need = DIV_ROUND_UP(left, page);
        bool chain = need > avail;
        uint32_t take = chain ? avail : need, i;
        g_autofree uint64_t *ent = g_new(uint64_t, take);

        if (pci_dma_read(nz_pci(s), list, ent, take * 8) != MEMTX_OK) {
            return nz_prp_bad("PRP list unreadable", list,
                              NVME_DATA_TRAS_ERROR);
        }
        for (i = 0; i < take - chain; i++) {
            uint64_t e = le64_to_cpu(ent[i]);

            if (e & mask) {
                return nz_prp_bad("PRP entry with an offset", e,
                                  NVME_INVALID_PRP_OFFSET);
            }
            n = MIN(left, page);
            nz_seg_add(sg, e, n, false);
            left -= n;
        }
        if (chain) {
            /* the last slot of a list page points to the next list */
            list = le64_to_cpu(ent[take - 1]);
            if (list & 7) {
                return nz_prp_bad("chained PRP list not qword aligned",
                                  list, NVME_INVALID_PRP_OFFSET);
            }
        }
    }
    return left ? NVME_DATA_TRAS_ERROR | NVME_DNR : NVME_SUCCESS;
}

static uint16_t nz_sgl_bad(const char *why, uint16_t status)
{
    qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: SGL: %s\n", why);
    return status | NVME_DNR;
}

/*
 * Base 4.3: one descriptor in the command; a Segment or Last Segment
 * descriptor points to a list of descriptors, whose last entry may point
 * to the next segment (a Last Segment holds none).  Data Block and, for
 * data to the host, Bit Bucket descriptors describe the data.  SGLS says
 * no alignment is needed and longer SGLs than the transfer are allowed.
 */
static uint16_t nz_map_sgl(NzCtrl *s, const NvmeSglDescriptor *first,
                           uint64_t len, bool to_host, NzSegList *sg)
{
    NvmeSglDescriptor d = *first;
    g_autofree NvmeSglDescriptor *list = NULL;
    uint32_t descs = 0, n = 1, i = 0;
    bool last_seg = false, in_list = false;
    uint64_t left = len;

    sg->n = 0;
    sg->bytes = 0;
    for (;;) {
        uint8_t type = NVME_SGL_TYPE(d.type);
        uint64_t addr = le64_to_cpu(d.addr);
        uint32_t dlen = le32_to_cpu(d.len);

        if (++descs > NZ_MAX_SGL_DESCS) {
            return nz_sgl_bad("too many descriptors",
                              NVME_INVALID_NUM_SGL_DESCRS);
        }
        if (NVME_SGL_SUBTYPE(d.type) != NVME_SGL_DESCR_SUBTYPE_ADDRESS) {
            return nz_sgl_bad("descriptor subtype other than address",
                              NVME_SGL_DESCR_TYPE_INVALID);
        }
        switch (type) {
        case NVME_SGL_DESCR_TYPE_DATA_BLOCK:
        case NVME_SGL_DESCR_TYPE_BIT_BUCKET:
            if (type == NVME_SGL_DESCR_TYPE_BIT_BUCKET && !to_host) {
                return nz_sgl_bad("bit bucket in data to the controller",
                                  NVME_SGL_DESCR_TYPE_INVALID);
            }
            if (left) {
                uint32_t take = MIN((uint64_t)dlen, left);

                nz_seg_add(sg, addr, take,
                           type == NVME_SGL_DESCR_TYPE_BIT_BUCKET);
                left -= take;
            }
            break;
        case NVME_SGL_DESCR_TYPE_SEGMENT:
        case NVME_SGL_DESCR_TYPE_LAST_SEGMENT:
            if (last_seg) {
                return nz_sgl_bad("segment descriptor in a last segment",
                                  NVME_INVALID_SGL_SEG_DESCR);
            }
            if (in_list && i != n) {
                return nz_sgl_bad("segment descriptor not last in its "
                                  "segment", NVME_INVALID_SGL_SEG_DESCR);
            }
            if (!dlen || dlen % sizeof(NvmeSglDescriptor) ||
                dlen / sizeof(NvmeSglDescriptor) > NZ_MAX_SGL_DESCS) {
                return nz_sgl_bad("segment length not a multiple of 16",
                                  NVME_INVALID_SGL_SEG_DESCR);
            }
            if (!left) {
                /* the data is complete; what follows does not matter */
                return NVME_SUCCESS;
            }
            n = dlen / sizeof(NvmeSglDescriptor);
            list = g_renew(NvmeSglDescriptor, list, n);
            if (pci_dma_read(nz_pci(s), addr, list, dlen) != MEMTX_OK) {
                return nz_sgl_bad("segment unreadable",
                                  NVME_DATA_TRAS_ERROR);
            }
            last_seg = type == NVME_SGL_DESCR_TYPE_LAST_SEGMENT;
            in_list = true;
            i = 0;
            break;
        default:
            return nz_sgl_bad("unsupported descriptor type",
                              NVME_SGL_DESCR_TYPE_INVALID);
        }
        if (!in_list || i == n) {
            break;
        }
        d = list[i++];
    }
    if (left) {
        return nz_sgl_bad("shorter than the transfer",
                          NVME_DATA_SGL_LEN_INVALID);
    }
    return NVME_SUCCESS;
}

uint16_t nz_map_dptr(NzCtrl *s, const NvmeCmd *cmd, uint64_t len,
                     bool to_host, NzSegList *sg)
{
    switch (NVME_CMD_FLAGS_PSDT(cmd->flags)) {
    case NVME_PSDT_PRP:
        return nz_map_prp(s, le64_to_cpu(cmd->dptr.prp1),
                          le64_to_cpu(cmd->dptr.prp2), len, sg);
    case NVME_PSDT_SGL_MPTR_CONTIGUOUS:
    case NVME_PSDT_SGL_MPTR_SGL:
        return nz_map_sgl(s, &cmd->dptr.sgl, len, to_host, sg);
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: reserved PSDT\n");
        return NVME_INVALID_FIELD | NVME_DNR;
    }
}

uint16_t nz_dma_to_host(NzCtrl *s, NzSegList *sg, const void *buf,
                        uint64_t len)
{
    uint64_t off = 0;
    uint32_t i;

    for (i = 0; i < sg->n && off < len; i++) {
        uint32_t n = MIN((uint64_t)sg->seg[i].len, len - off);

        if (!sg->seg[i].bucket &&
            pci_dma_write(nz_pci(s), sg->seg[i].addr,
                          (const uint8_t *)buf + off, n) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: data write to 0x%"
                          PRIx64 " failed\n", sg->seg[i].addr);
            return NVME_DATA_TRAS_ERROR;
        }
        off += n;
    }
    return NVME_SUCCESS;
}

uint16_t nz_dma_from_host(NzCtrl *s, NzSegList *sg, void *buf, uint64_t len)
{
    uint64_t off = 0;
    uint32_t i;

    for (i = 0; i < sg->n && off < len; i++) {
        uint32_t n = MIN((uint64_t)sg->seg[i].len, len - off);

        if (pci_dma_read(nz_pci(s), sg->seg[i].addr,
                         (uint8_t *)buf + off, n) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "nvme-zns: data read from 0x%"
                          PRIx64 " failed\n", sg->seg[i].addr);
            return NVME_DATA_TRAS_ERROR;
        }
        off += n;
    }
    return NVME_SUCCESS;
}

/* Admin data to the host: PRPs only (Base 4.1: PSDT is 00b for admin) */
uint16_t nz_dma_out(NzCtrl *s, const NvmeCmd *cmd, const void *buf,
                    uint64_t len)
{
    NzSegList sg = { 0 };
    uint16_t status;

    status = nz_map_dptr(s, cmd, len, true, &sg);
    if (nz_status_ok(status)) {
        status = nz_dma_to_host(s, &sg, buf, len);
    }
    nz_seglist_free(&sg);
    return status;
}

uint16_t nz_dma_in(NzCtrl *s, const NvmeCmd *cmd, void *buf, uint64_t len)
{
    NzSegList sg = { 0 };
    uint16_t status;

    status = nz_map_dptr(s, cmd, len, false, &sg);
    if (nz_status_ok(status)) {
        status = nz_dma_from_host(s, &sg, buf, len);
    }
    nz_seglist_free(&sg);
    return status;
}

/*
 * Is [@addr, +@len) RAM the controller reaches directly (no bounce)?  The
 * RAM ranges answer most; what they leave out is translated.
 */
static bool nz_dma_direct(NzCtrl *s, uint64_t addr, uint64_t len,
                          bool to_host)
{
    hwaddr xlat, l = len;
    MemoryRegion *mr;

    if (zr_dma_ram_contains(&s->ram, addr, len)) {
        return true;
    }
    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(pci_get_address_space(nz_pci(s)), addr,
                                 &xlat, &l, to_host, MEMTXATTRS_UNSPECIFIED);
    return l == len &&
           memory_access_is_direct(mr, to_host, MEMTXATTRS_UNSPECIFIED);
}

/*
 * Map @sg's guest memory for the backend I/O itself, as QEMU's DMA
 * helpers do: the data then moves once, between the drive and guest
 * memory, and @qiov describes it.  Only when every segment is RAM the
 * controller reaches directly; anything else -- a bit bucket, MMIO, an
 * unassigned address, a segment that crosses a region -- returns false
 * with nothing mapped, and the caller copies through its bounce buffer
 * (nz_dma_from_host(), nz_dma_to_host()), where a failed access gets its
 * status.  Nothing is accessed here, so a register behind a PRP is never
 * read twice.
 */
bool nz_dma_map(NzCtrl *s, NzSegList *sg, bool to_host, NzDmaMap *map,
                QEMUIOVector *qiov)
{
    DMADirection dir = to_host ? DMA_DIRECTION_FROM_DEVICE
                               : DMA_DIRECTION_TO_DEVICE;
    uint32_t i;

    map->n = 0;
    for (i = 0; i < sg->n; i++) {
        if (sg->seg[i].bucket ||
            !nz_dma_direct(s, sg->seg[i].addr, sg->seg[i].len, to_host)) {
            return false;
        }
    }
    if (map->alloc < sg->n) {
        map->alloc = MAX(sg->n, 4);
        map->iov = g_renew(struct iovec, map->iov, map->alloc);
    }
    for (i = 0; i < sg->n; i++) {
        dma_addr_t len = sg->seg[i].len;
        void *p = pci_dma_map(nz_pci(s), sg->seg[i].addr, &len, dir);

        if (!p || len != sg->seg[i].len) {
            if (p) {
                pci_dma_unmap(nz_pci(s), p, len, dir, 0);
            }
            nz_dma_unmap(s, map, to_host, false);
            return false;
        }
        map->iov[map->n++] = (struct iovec) { .iov_base = p,
                                              .iov_len = len };
    }
    qemu_iovec_init_external(qiov, map->iov, map->n);
    return true;
}

/* Undo nz_dma_map(); @written: the data to the host is there */
void nz_dma_unmap(NzCtrl *s, NzDmaMap *map, bool to_host, bool written)
{
    DMADirection dir = to_host ? DMA_DIRECTION_FROM_DEVICE
                               : DMA_DIRECTION_TO_DEVICE;
    uint32_t i;

    for (i = 0; i < map->n; i++) {
        pci_dma_unmap(nz_pci(s), map->iov[i].iov_base, map->iov[i].iov_len,
                      dir, written ? map->iov[i].iov_len : 0);
    }
    map->n = 0;
}
