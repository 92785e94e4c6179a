/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: read-only counter properties (counters.h), one
 * getter for every device's counters.
 */

#include "qemu/osdep.h"
#include "qapi/visitor.h"
#include "hw/block/zoned-reorder/counters.h"

static void zr_counter_get(Object *obj, Visitor *v, const char *name,
                           void *opaque, Error **errp)
{
    uint64_t val = *(uint64_t *)((char *)obj + (uintptr_t)opaque);

    visit_type_uint64(v, name, &val, errp);
}

void zr_counters_add(ObjectClass *oc, const ZrCounter *c, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        object_class_property_add(oc, c[i].name, "uint64", zr_counter_get,
                                  NULL, NULL, (void *)(uintptr_t)c[i].offset);
        object_class_property_set_description(oc, c[i].name, c[i].desc);
    }
}

char *zr_counters_queue_starts(const ZrDispatch *d)
{
    GString *str = g_string_new("");
    uint32_t q;

    for (q = 0; q < d->cfg.nr_queues; q++) {
        g_string_append_printf(str, "%s%" PRIu64, q ? "," : "",
                               d->queue_starts[q]);
    }
    return g_string_free(str, false);
}
