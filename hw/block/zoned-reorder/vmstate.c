/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: VMState of the zone model and the dispatch engine
 * (include/hw/block/zoned-reorder/vmstate.h).  Kept out of the pure core
 * files, which the unit tests link without the migration code.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "hw/block/zoned-reorder/zone.h"
#include "hw/block/zoned-reorder/dispatch.h"
#include "hw/block/zoned-reorder/service.h"
#include "hw/block/zoned-reorder/vmstate.h"

static const VMStateDescription vmstate_zr_zone = {
    .name = "zr-zone",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(start, ZrZone),
        VMSTATE_UINT64(size, ZrZone),
        VMSTATE_UINT64(cap, ZrZone),
        VMSTATE_UINT64(wp, ZrZone),
        VMSTATE_UINT64(wend, ZrZone),
        VMSTATE_UINT64(lru, ZrZone),
        VMSTATE_UINT8(type, ZrZone),
        VMSTATE_UINT8(cond, ZrZone),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_zr_zone_stats = {
    .name = "zr-zone-stats",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(writes, ZrZoneStats),
        VMSTATE_UINT64(appends, ZrZoneStats),
        VMSTATE_UINT64(blocks_written, ZrZoneStats),
        VMSTATE_UINT64(implicit_opens, ZrZoneStats),
        VMSTATE_UINT64(implicit_closes, ZrZoneStats),
        VMSTATE_UINT64(write_failures, ZrZoneStats),
        VMSTATE_UINT64(writes_overtaken, ZrZoneStats),
        VMSTATE_UINT64_ARRAY(ops, ZrZoneStats, ZR_ZONE_OP__MAX),
        VMSTATE_UINT64_ARRAY(errors, ZrZoneStats, ZR_RESULT__MAX),
        VMSTATE_END_OF_LIST()
    },
};

static int zr_zone_model_vm_post_load(void *opaque, int version_id)
{
    ZrZoneModel *m = opaque;
    Error *err = NULL;

    if (!zr_zone_model_post_load(m, &err)) {
        error_report_err(err);
        return -EINVAL;
    }
    return 0;
}

/* Weighted round robin, when switched on (NVMe CC.AMS = 001b) */
static bool zr_dispatch_wrr_needed(void *opaque)
{
    ZrDispatch *d = opaque;

    return d->wrr;
}

static int zr_dispatch_wrr_post_load(void *opaque, int version_id)
{
    ZrDispatch *d = opaque;
    unsigned i;

    for (i = 0; i < ZR_QCLASS__MAX; i++) {
        if (d->class_queue[i] >= d->cfg.nr_queues) {
            error_report("zoned-reorder: saved class cursor %u of %u",
                         d->class_queue[i], d->cfg.nr_queues);
            return -EINVAL;
        }
    }
    for (i = 0; i < ZR_WRR_CLASSES; i++) {
        if (!d->wrr_weight[i] || d->wrr_credit[i] > d->wrr_weight[i]) {
            error_report("zoned-reorder: saved weight %u credit %u",
                         d->wrr_weight[i], d->wrr_credit[i]);
            return -EINVAL;
        }
    }
    for (i = 0; i < d->cfg.nr_queues; i++) {
        if (d->queue_class[i] >= ZR_QCLASS__MAX) {
            error_report("zoned-reorder: saved queue class %u",
                         d->queue_class[i]);
            return -EINVAL;
        }
    }
    return 0;
}

static const VMStateDescription vmstate_zr_dispatch_wrr = {
    .name = "zr-dispatch/wrr",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = zr_dispatch_wrr_needed,
    .post_load = zr_dispatch_wrr_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(wrr, ZrDispatch),
        VMSTATE_VARRAY_UINT32(queue_class, ZrDispatch, cfg.nr_queues, 0,
                              vmstate_info_uint8, uint8_t),
        VMSTATE_UINT32_ARRAY(wrr_weight, ZrDispatch, ZR_WRR_CLASSES),
        VMSTATE_UINT32_ARRAY(wrr_credit, ZrDispatch, ZR_WRR_CLASSES),
        VMSTATE_UINT32_ARRAY(class_queue, ZrDispatch, ZR_QCLASS__MAX),
        VMSTATE_UINT32_ARRAY(class_taken, ZrDispatch, ZR_QCLASS__MAX),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_zr_zone_model = {
    .name = "zr-zone-model",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = zr_zone_model_vm_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(nr_zones, ZrZoneModel,
                             "the zone geometry differs"),
        VMSTATE_STRUCT_VARRAY_POINTER_UINT32(zones, ZrZoneModel, nr_zones,
                                             vmstate_zr_zone, ZrZone),
        VMSTATE_UINT64(lru_clock, ZrZoneModel),
        VMSTATE_STRUCT(stats, ZrZoneModel, 1, vmstate_zr_zone_stats,
                       ZrZoneStats),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_zr_dispatch_stats = {
    .name = "zr-dispatch-stats",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(submitted, ZrDispatchStats),
        VMSTATE_UINT64(starts, ZrDispatchStats),
        VMSTATE_UINT64(starts_reordered, ZrDispatchStats),
        VMSTATE_UINT64(overtaken_sum, ZrDispatchStats),
        VMSTATE_UINT64(overtaken_max, ZrDispatchStats),
        VMSTATE_UINT64(starts_reordered_in_queue, ZrDispatchStats),
        VMSTATE_UINT64_ARRAY(decisions, ZrDispatchStats, ZR_POLICY__MAX),
        VMSTATE_UINT64(completed, ZrDispatchStats),
        VMSTATE_UINT64(cancelled, ZrDispatchStats),
        VMSTATE_UINT64(flushed, ZrDispatchStats),
        VMSTATE_UINT64(pending_max, ZrDispatchStats),
        VMSTATE_UINT64(zone_write_overlaps, ZrDispatchStats),
        VMSTATE_UINT64(zone_writes_in_flight_max, ZrDispatchStats),
        VMSTATE_END_OF_LIST()
    },
};

static int zr_dispatch_vm_post_load(void *opaque, int version_id)
{
    ZrDispatch *d = opaque;

    if (d->cfg.policy >= ZR_POLICY__MAX) {
        error_report("zoned-reorder: saved reorder policy %u", d->cfg.policy);
        return -EINVAL;
    }
    /* Positions the policy keeps must name a queue of this engine. */
    if (d->rr_queue >= d->cfg.nr_queues) {
        error_report("zoned-reorder: saved round-robin queue %u of %u",
                     d->rr_queue, d->cfg.nr_queues);
        return -EINVAL;
    }
    return 0;
}

/*
 * The policy, set at run time with qom-set: the destination follows.  A
 * subsection, so that a stream without it (an older build's) loads and
 * keeps the destination's configured policy.
 */
static bool zr_dispatch_policy_needed(void *opaque)
{
    return true;
}

static const VMStateDescription vmstate_zr_dispatch_policy = {
    .name = "zr-dispatch/policy",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = zr_dispatch_policy_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(cfg.policy, ZrDispatch),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_zr_dispatch = {
    .name = "zr-dispatch",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = zr_dispatch_vm_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(cfg.nr_queues, ZrDispatch,
                             "the number of queues differs"),
        VMSTATE_UINT64(next_seq, ZrDispatch),
        VMSTATE_UINT64(prng.state, ZrDispatch),
        VMSTATE_UINT32(rr_queue, ZrDispatch),
        VMSTATE_UINT32(rr_taken, ZrDispatch),
        VMSTATE_UINT32(last_slot, ZrDispatch),
        VMSTATE_BOOL(any_started, ZrDispatch),
        VMSTATE_VARRAY_UINT32(queue_starts, ZrDispatch, cfg.nr_queues, 0,
                              vmstate_info_uint64, uint64_t),
        VMSTATE_STRUCT(stats, ZrDispatch, 1, vmstate_zr_dispatch_stats,
                       ZrDispatchStats),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_zr_dispatch_policy,
        &vmstate_zr_dispatch_wrr,
        NULL
    },
};

/*
 * A command as the engine and the service model know it.  Its list links
 * are not in it: the device puts loaded commands back with
 * zr_dispatch_restore() and zr_service_restore().
 */
static bool zr_cmd_xfer_needed(void *opaque)
{
    return ((ZrCmd *)opaque)->xfer_set;
}

/* A subsection, so that streams of builds without it still load. */
static const VMStateDescription vmstate_zr_cmd_xfer = {
    .name = "zr-cmd/xfer-bytes",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = zr_cmd_xfer_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(xfer_bytes, ZrCmd),
        VMSTATE_BOOL(xfer_set, ZrCmd),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_zr_cmd = {
    .name = "zr-cmd",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(tag, ZrCmd),
        VMSTATE_UINT32(queue, ZrCmd),
        VMSTATE_UINT32(op, ZrCmd),
        VMSTATE_UINT64(lba, ZrCmd),
        VMSTATE_UINT64(len, ZrCmd),
        VMSTATE_BOOL(zone_untracked, ZrCmd),
        VMSTATE_UINT32(state, ZrCmd),
        VMSTATE_UINT64(seq, ZrCmd),
        VMSTATE_UINT32(overtaken, ZrCmd),
        VMSTATE_INT64(done_ns, ZrCmd),
        VMSTATE_UINT64(svc_order, ZrCmd),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_zr_cmd_xfer,
        NULL
    },
};

static const VMStateDescription vmstate_zr_service_stats = {
    .name = "zr-service-stats",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(starts, ZrServiceStats),
        VMSTATE_UINT64(completions, ZrServiceStats),
        VMSTATE_UINT64(busy_max, ZrServiceStats),
        VMSTATE_UINT64(delayed_kicks, ZrServiceStats),
        VMSTATE_UINT64(busy_ns, ZrServiceStats),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The service model's clock-related state: the time before which nothing
 * starts (an H8 exit in progress) and the start-order counter.  The
 * configuration is the destination's own properties; the commands in
 * service come back with zr_service_restore().
 */
const VMStateDescription vmstate_zr_service = {
    .name = "zr-service",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_INT64(not_before_ns, ZrService),
        VMSTATE_UINT64(next_order, ZrService),
        VMSTATE_STRUCT(stats, ZrService, 1, vmstate_zr_service_stats,
                       ZrServiceStats),
        VMSTATE_END_OF_LIST()
    },
};
