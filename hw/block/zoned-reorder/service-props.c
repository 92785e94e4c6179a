/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: descriptions of the service-time properties
 * (service-props.h), written once for every device.
 */

#include "qemu/osdep.h"
#include "qom/object.h"
#include "hw/block/zoned-reorder/service-props.h"

void zr_service_props_describe(ObjectClass *oc, const char *other)
{
    g_autofree char *other_desc = g_strdup_printf(
        "modelled service time of %s, in ns of the virtual clock", other);

    object_class_property_set_description(oc, "lat-read-ns",
        "modelled service time of a read, in ns of the virtual clock");
    object_class_property_set_description(oc, "lat-write-ns",
        "modelled service time of a write (or zone append), in ns");
    object_class_property_set_description(oc, "lat-other-ns", other_desc);
    object_class_property_set_description(oc, "xfer-read-ns-per-4k",
        "modelled transfer time of a read per started 4 KiB moved, added "
        "to lat-read-ns");
    object_class_property_set_description(oc, "xfer-write-ns-per-4k",
        "modelled transfer time of a write per started 4 KiB moved, added "
        "to lat-write-ns");
    object_class_property_set_description(oc, "max-parallel",
        "commands in service at once (0 = no limit)");
}
