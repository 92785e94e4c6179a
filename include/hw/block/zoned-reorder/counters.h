/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: a device's read-only counters as QOM properties, so
 * that `qom-get` reads them (counters.c).  A device lists its counters once,
 * each a uint64_t at an offset in its instance, and adds them to its class.
 */

#ifndef HW_BLOCK_ZONED_REORDER_COUNTERS_H
#define HW_BLOCK_ZONED_REORDER_COUNTERS_H

#include "qom/object.h"
#include "hw/block/zoned-reorder/dispatch.h"

typedef struct ZrCounter {
    const char *name;
    size_t offset;          /* of a uint64_t in the device's instance */
    const char *desc;
} ZrCounter;

/* One read-only "uint64" class property per counter of @c[0..n) */
void zr_counters_add(ObjectClass *oc, const ZrCounter *c, size_t n);

/* The commands @d started from each of its queues, queue 0 first: "12,30" */
char *zr_counters_queue_starts(const ZrDispatch *d);

#endif
