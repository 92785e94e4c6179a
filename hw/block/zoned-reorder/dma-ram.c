/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: which guest RAM a device's DMA reaches directly
 * (dma-ram.h).
 */

#include "qemu/osdep.h"
#include "hw/block/zoned-reorder/dma-ram.h"
#include "trace.h"

/* RAM that DMA reads and writes directly (physmem's own test for that) */
static bool zr_dma_ram_direct(MemoryRegion *mr)
{
    return memory_access_is_direct(mr, true, MEMTXATTRS_UNSPECIFIED);
}

static void zr_dma_ram_add(MemoryListener *l, MemoryRegionSection *sec)
{
    ZrDmaRam *r = container_of(l, ZrDmaRam, listener);
    hwaddr start = sec->offset_within_address_space;
    uint64_t size = int128_get64(sec->size);

    /* a range left out only costs its addresses the slow path */
    if (!zr_dma_ram_direct(sec->mr) || !size || r->nr == ZR_DMA_RAM_RANGES) {
        return;
    }
    r->range[r->nr++] = (ZrDmaRamRange) { start, start + size - 1 };
    trace_zr_dma_ram_add(r, start, size, r->nr);
}

static void zr_dma_ram_del(MemoryListener *l, MemoryRegionSection *sec)
{
    ZrDmaRam *r = container_of(l, ZrDmaRam, listener);
    hwaddr start = sec->offset_within_address_space;
    uint32_t i;

    for (i = 0; i < r->nr; i++) {
        if (r->range[i].start == start &&
            int128_eq(sec->size,
                      int128_make64(r->range[i].last - start + 1))) {
            r->range[i] = r->range[--r->nr];
            r->hit = 0;
            r->gen++;
            trace_zr_dma_ram_del(r, start, r->nr);
            return;
        }
    }
}

void zr_dma_ram_init(ZrDmaRam *r, AddressSpace *as, const char *name)
{
    *r = (ZrDmaRam) {
        .as = as,
        .listener = {
            .name = name,
            .region_add = zr_dma_ram_add,
            .region_del = zr_dma_ram_del,
        },
    };
}

void zr_dma_ram_cleanup(ZrDmaRam *r)
{
    if (r->listening) {
        memory_listener_unregister(&r->listener);
        r->listening = false;
    }
    r->nr = r->hit = 0;
}

/* zr_dma_ram_contains() without its fast path's answer */
bool zr_dma_ram_contains_slow(ZrDmaRam *r, hwaddr addr, uint64_t len)
{
    hwaddr last = addr + len - 1;
    uint32_t i;

    if (!r->listening) {
        memory_listener_register(&r->listener, r->as);
        r->listening = true;
    }
    if (!len || last < addr) {
        return false;
    }
    if (r->hit < r->nr && addr >= r->range[r->hit].start &&
        last <= r->range[r->hit].last) {
        return true;
    }
    for (i = 0; i < r->nr; i++) {
        if (addr >= r->range[i].start && last <= r->range[i].last) {
            r->hit = i;
            return true;
        }
    }
    return false;
}
