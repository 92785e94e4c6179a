/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: which guest RAM a device's DMA reaches directly.
 *
 * A device that checks each data segment before it moves data (is the
 * segment RAM it may map, or must it take the slow, checked path?) asks
 * here instead of translating every address: a memory listener on the
 * device's bus-master address space keeps the ranges of directly
 * accessible RAM (physmem's own test, memory_access_is_direct()), and a
 * query is a compare against the range that answered last.  Ranges beyond
 * ZR_DMA_RAM_RANGES are left out: an address there only gets the slow
 * path.  @gen counts the ranges that went away, so a device may keep an
 * answer and know when it is stale.  Main loop (BQL) only.
 */

#ifndef HW_BLOCK_ZONED_REORDER_DMA_RAM_H
#define HW_BLOCK_ZONED_REORDER_DMA_RAM_H

#include "exec/memory.h"

#define ZR_DMA_RAM_RANGES   16

typedef struct ZrDmaRamRange {
    hwaddr start;
    hwaddr last;
} ZrDmaRamRange;

typedef struct ZrDmaRam {
    MemoryListener listener;
    AddressSpace *as;
    bool listening;             /* registered at the first query */
    uint32_t nr;
    uint32_t hit;               /* the range the last query found */
    uint32_t gen;               /* counts the ranges that went away */
    ZrDmaRamRange range[ZR_DMA_RAM_RANGES];
} ZrDmaRam;

void zr_dma_ram_init(ZrDmaRam *r, AddressSpace *as, const char *name);
void zr_dma_ram_cleanup(ZrDmaRam *r);
/* Internal: zr_dma_ram_contains() when its fast path has no answer */
bool zr_dma_ram_contains_slow(ZrDmaRam *r, hwaddr addr, uint64_t len);

/*
 * Whether [@addr, @addr + @len) lies in one range of direct guest RAM.
 * The range the last query found answers most queries, here.
 */
static inline bool zr_dma_ram_contains(ZrDmaRam *r, hwaddr addr,
                                       uint64_t len)
{
    const ZrDmaRamRange *h = &r->range[r->hit];

    if (r->listening && len && r->hit < r->nr && addr >= h->start &&
        addr + len - 1 >= addr && addr + len - 1 <= h->last) {
        return true;
    }
    return zr_dma_ram_contains_slow(r, addr, len);
}

#endif
