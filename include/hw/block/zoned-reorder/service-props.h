/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the service-time model's QOM properties, the same
 * names, types and meaning on every device (ZrServiceParams, service.h).
 *
 *     static const Property props[] = {
 *         DEFINE_ZR_SERVICE_PROPS(MyState, svc_params, 80000, 40000, 10000,
 *                                 2000, 3400, 8),
 *     };
 *     ...class_init: zr_service_props_describe(oc, "flush and zone ...");
 */

#ifndef HW_BLOCK_ZONED_REORDER_SERVICE_PROPS_H
#define HW_BLOCK_ZONED_REORDER_SERVICE_PROPS_H

#include "hw/qdev-properties.h"
#include "hw/block/zoned-reorder/service.h"

#define DEFINE_ZR_SERVICE_PROPS(_state, _f, _rd, _wr, _other, _xrd, _xwr,  \
                                _par)                                      \
    DEFINE_PROP_UINT64("lat-read-ns", _state, _f.lat_read_ns, _rd),       \
    DEFINE_PROP_UINT64("lat-write-ns", _state, _f.lat_write_ns, _wr),     \
    DEFINE_PROP_UINT64("lat-other-ns", _state, _f.lat_other_ns, _other),  \
    DEFINE_PROP_UINT64("xfer-read-ns-per-4k", _state, _f.xfer_read_ns,    \
                       _xrd),                                             \
    DEFINE_PROP_UINT64("xfer-write-ns-per-4k", _state, _f.xfer_write_ns,  \
                       _xwr),                                             \
    DEFINE_PROP_UINT32("max-parallel", _state, _f.max_parallel, _par)

/* Descriptions of the properties; @other names the "other" commands */
void zr_service_props_describe(ObjectClass *oc, const char *other);

#endif
