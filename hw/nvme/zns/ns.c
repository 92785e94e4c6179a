/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns-ns: a zoned namespace (ZNS 1.1) of an nvme-zns controller.
 * Its zones are the zoned-reorder core's zone model (ZNS flavour); the
 * data is on its drive, or nowhere when it has none (null-backed: writes
 * are checked and dropped, reads return zeros).  With zone-state=DRIVE
 * the zone state is kept on a drive of its own by the core's persistence
 * layer (zone-persist.h, docs/devel/zone-state.md), as scsi-zbc keeps it.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/visitor.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/block/zoned-reorder/counters.h"
#include "system/reset.h"
#include "system/runstate.h"
#include "nvme-zns-internal.h"
#include "trace.h"

#define NZ_NS_DEFAULT_SIZE      (1 * GiB)
#define NZ_NS_DEFAULT_ZONE      (4 * MiB)

/*
 * A zone's descriptor changed other than by a host command (it went read
 * only or offline): it goes on the Changed Zone List (ZNS 5.3.1) and,
 * if the host asked for it, a Zone Descriptor Changed notice follows.
 */
void nz_ns_zone_changed(NzNs *ns, uint64_t zslba)
{
    uint32_t i;

    for (i = 0; i < ns->nr_changed; i++) {
        if (ns->changed[i] == zslba) {
            return;
        }
    }
    if (ns->nr_changed < NZ_MAX_CHANGED_ZONES) {
        ns->changed[ns->nr_changed++] = zslba;
    } else {
        ns->changed_overflow = true;
    }
    trace_nvme_zns_zone_changed(ns->nsid, zslba);
    if (ns->ctrl && (ns->ctrl->aec & (1u << 27))) {
        /* ZNS 5.5: notice EFh, Changed Zone List log BFh */
        nz_aer_event(ns->ctrl, NVME_AER_TYPE_NOTICE, 0xef, 0xbf);
    }
}

static bool nz_ns_geometry(NzNs *ns, Error **errp)
{
    ZrZoneConfig zc = { .flavour = ZR_FLAVOUR_ZNS };
    uint64_t bytes;

    if (ns->block_size != 512 && ns->block_size != 4096) {
        error_setg(errp, "nvme-zns-ns: block-size must be 512 or 4096");
        return false;
    }
    ns->lbads = ctz32(ns->block_size);
    if (ns->blkconf.blk) {
        int64_t len = blk_getlength(ns->blkconf.blk);

        if (len < 0) {
            error_setg_errno(errp, -len, "nvme-zns-ns: cannot get the "
                             "drive's size");
            return false;
        }
        bytes = len;
        ns->null_backed = false;
    } else {
        bytes = ns->size ? ns->size : NZ_NS_DEFAULT_SIZE;
        ns->null_backed = true;
    }
    if (!ns->zone_size || ns->zone_size % ns->block_size ||
        !is_power_of_2(ns->zone_size / ns->block_size)) {
        error_setg(errp, "nvme-zns-ns: zone-size must be a power of two "
                   "number of blocks");
        return false;
    }
    ns->zone_blocks = ns->zone_size / ns->block_size;
    if (ns->zone_cap % ns->block_size || ns->zone_cap > ns->zone_size) {
        error_setg(errp, "nvme-zns-ns: zone-capacity must be whole blocks "
                   "and at most zone-size");
        return false;
    }
    /* ZNS zones are all the same size: whole zones only */
    ns->nr_blocks = bytes / ns->zone_size * ns->zone_blocks;
    if (!ns->nr_blocks) {
        error_setg(errp, "nvme-zns-ns: the namespace holds no whole zone "
                   "(%" PRIu64 " bytes, zones of %" PRIu64 ")", bytes,
                   ns->zone_size);
        return false;
    }
    zc.nr_blocks = ns->nr_blocks;
    zc.zone_size = ns->zone_blocks;
    zc.zone_cap = ns->zone_cap / ns->block_size;
    zc.max_open = ns->max_open;
    zc.max_active = ns->max_active;
    if (zc.max_open && zc.max_active && zc.max_open > zc.max_active) {
        error_setg(errp, "nvme-zns-ns: max-open must not exceed max-active");
        return false;
    }
    if (ns->zde_size % 64 || ns->zde_size > 255 * 64) {
        error_setg(errp, "nvme-zns-ns: zone-desc-ext-size must be a multiple "
                   "of 64 bytes, at most %u", 255 * 64);
        return false;
    }
    if (!zr_zone_model_init(&ns->zones, &zc, errp)) {
        return false;
    }
    if (ns->zde_size) {
        ns->zde = g_malloc0((uint64_t)ns->zones.nr_zones * ns->zde_size);
        ns->zde_valid = bitmap_new(ns->zones.nr_zones);
    }
    ns->realized_zones = true;
    return true;
}

/*
 * zone-state=DRIVE: the zone state is loaded from (or, fresh, formatted
 * on) a drive of its own and written whenever the host asks for data to
 * be durable (io.c: Flush, FUA, writes with the volatile write cache off,
 * Zone Management Send), at shutdown (CC.SHN), when the VM stops and at
 * unplug; what survives a crash is in docs/devel/zone-state.md.
 */
static void nz_ns_free_zones(NzNs *ns)
{
    zr_zone_model_cleanup(&ns->zones);
    g_free(ns->zde);
    ns->zde = NULL;
    g_free(ns->zde_valid);
    ns->zde_valid = NULL;
    ns->realized_zones = false;
}

static bool nz_ns_persist_open(NzNs *ns, Error **errp)
{
    if (!ns->zs_blk) {
        if (ns->zs_format) {
            error_setg(errp, "nvme-zns-ns: zone-state-format needs a "
                       "zone-state drive");
            return false;
        }
        if (!ns->null_backed) {
            warn_report_once("nvme-zns-ns: a drive without zone-state: zone "
                             "states and write pointers are lost when QEMU "
                             "exits (see zone-state in "
                             "docs/system/devices/nvme-zns.rst)");
        }
        return true;
    }
    if (ns->null_backed) {
        error_setg(errp, "nvme-zns-ns: zone-state needs a drive: a "
                   "null-backed namespace keeps no data to match");
        return false;
    }
    if (ns->zde_size) {
        /*
         * The state format holds conditions and write pointers, not the
         * extensions: a zone they activated would come back closed
         * without its extension, which no host could tell from one it
         * opened and closed itself.
         */
        error_setg(errp, "nvme-zns-ns: zone-desc-ext-size cannot be used "
                   "with zone-state: the zone state format does not keep "
                   "zone descriptor extensions");
        return false;
    }
    if (!zr_persist_attach(&ns->persist, &ns->zones, ns->zs_blk,
                           ns->blkconf.blk, ns->block_size, ns->zs_format,
                           errp)) {
        error_prepend(errp, "nvme-zns-ns: ");
        return false;
    }
    return true;
}

/* Data and zone state durable now (shutdown, VM stop, unplug) */
int nz_ns_persist_now(NzNs *ns)
{
    if (!ns->blkconf.blk) {
        return 0;
    }
    if (!ns->persist.blk) {
        return blk_flush(ns->blkconf.blk);
    }
    return zr_persist_sync_now(&ns->persist);
}

/*
 * The VM stops (shutdown, pause, savevm): the block layer drains its
 * drives only after the stop handlers, so let this namespace's writes end
 * first and their zone state be written too.
 */
static void nz_ns_vm_state(void *opaque, bool running, RunState state)
{
    NzNs *ns = opaque;
    int ret;

    if (running || !ns->persist.blk) {
        return;
    }
    blk_drain(ns->blkconf.blk);
    ret = zr_persist_sync_now(&ns->persist);
    if (ret < 0) {
        error_report("nvme-zns-ns %u: cannot write the zone state: %s",
                     ns->nsid, strerror(-ret));
    }
}

/*
 * System reset is a power cycle for the medium, as on scsi-zbc: open
 * zones come back closed (empty with nothing written), as after a
 * restart, so zones a previous boot left open do not hold open and active
 * resources.  A controller reset (CC.EN) keeps them.
 */
static void nz_ns_power_on(void *opaque)
{
    NzNs *ns = opaque;

    zr_zone_model_power_on(&ns->zones);
}

bool nz_ns_attach(NzCtrl *s, NzNs *ns, Error **errp)
{
    uint32_t id = ns->nsid;

    if (!id) {
        for (id = 1; id <= NZ_MAX_NS && s->ns[id]; id++) {
            ;
        }
    }
    if (id < 1 || id > NZ_MAX_NS) {
        error_setg(errp, "nvme-zns-ns: nsid must be 1 to %d", NZ_MAX_NS);
        return false;
    }
    if (s->ns[id]) {
        error_setg(errp, "nvme-zns-ns: nsid %u is taken", id);
        return false;
    }
    ns->nsid = id;
    ns->ctrl = s;
    s->ns[id] = ns;
    return true;
}

void nz_ns_detach(NzCtrl *s, NzNs *ns)
{
    if (ns->nsid >= 1 && ns->nsid <= NZ_MAX_NS && s->ns[ns->nsid] == ns) {
        s->ns[ns->nsid] = NULL;
    }
    ns->ctrl = NULL;
}

static void nz_ns_realize(DeviceState *dev, Error **errp)
{
    NzNs *ns = NVME_ZNS_NS(dev);
    BusState *bus = qdev_get_parent_bus(dev);
    NzCtrl *s;

    if (!bus || !object_dynamic_cast(OBJECT(bus), TYPE_NVME_ZNS_BUS)) {
        error_setg(errp, "nvme-zns-ns: must be on an nvme-zns controller's "
                   "bus");
        return;
    }
    s = NVME_ZNS(bus->parent);
    if (ns->blkconf.blk) {
        if (!blkconf_apply_backend_options(&ns->blkconf, false, false,
                                           errp)) {
            return;
        }
    }
    if (!nz_ns_geometry(ns, errp)) {
        return;
    }
    zr_zone_set_io_done(&ns->zones, nz_io_zone_released, ns);
    if (!nz_ns_persist_open(ns, errp)) {
        nz_ns_free_zones(ns);
        return;
    }
    if (!nz_ns_attach(s, ns, errp)) {
        zr_persist_close(&ns->persist);
        nz_ns_free_zones(ns);
        return;
    }
    ns->vmse = qemu_add_vm_change_state_handler(nz_ns_vm_state, ns);
    qemu_register_reset(nz_ns_power_on, ns);
    trace_nvme_zns_ns_realize(ns->nsid, ns->nr_blocks, ns->block_size,
                              ns->zone_blocks, ns->zones.nr_zones,
                              ns->null_backed);
}

static void nz_ns_unrealize(DeviceState *dev)
{
    NzNs *ns = NVME_ZNS_NS(dev);

    if (ns->ctrl) {
        /* the controller's commands may still use our drive and zones */
        nz_io_quiesce(ns->ctrl);
        nz_ns_detach(ns->ctrl, ns);
    }
    if (ns->vmse) {
        qemu_del_vm_change_state_handler(ns->vmse);
        ns->vmse = NULL;
        qemu_unregister_reset(nz_ns_power_on, ns);
    }
    if (ns->persist.blk) {
        if (zr_persist_sync_now(&ns->persist) < 0) {
            error_report("nvme-zns-ns %u: cannot write the zone state at "
                         "unplug", ns->nsid);
        }
        zr_persist_close(&ns->persist);
    }
    if (ns->realized_zones) {
        nz_ns_free_zones(ns);
    }
}

/*
 * Error injection, the names scsi-zbc uses: make the zone containing an
 * LBA Read Only or Offline (a media failure).  The controller changed the
 * zone by itself, so it goes on the Changed Zone List with a Zone
 * Descriptor Changed notice (ZNS 5.3.1, 5.5).
 */
static void nz_ns_set_inject(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    NzNs *ns = NVME_ZNS_NS(obj);
    bool offline = opaque != NULL;
    uint64_t lba;
    ZrResult res;

    if (!visit_type_uint64(v, name, &lba, errp)) {
        return;
    }
    if (!DEVICE(obj)->realized || !ns->ctrl) {
        error_setg(errp, "%s needs a realized namespace", name);
        return;
    }
    res = offline ? zr_zone_set_offline(&ns->zones, lba)
                  : zr_zone_set_read_only(&ns->zones, lba);
    if (res != ZR_OK) {
        error_setg(errp, "%s: LBA %" PRIu64 ": %s", name, lba,
                   zr_result_name(res));
        return;
    }
    nz_zde_sync(ns, lba / ns->zone_blocks);
    nz_ns_zone_changed(ns, lba & ~(ns->zone_blocks - 1));
}

static const ZrCounter nz_ns_counters[] = {
    { "zone-invalid-writes", offsetof(NzNs, zone_invalid_writes),
      "writes and appends of this namespace that failed as Zone Invalid "
      "Write (read-only counter)" },
    { "reads", offsetof(NzNs, reads), "reads started (read-only counter)" },
    { "writes", offsetof(NzNs, writes),
      "writes and write zeroes started (read-only counter)" },
    { "appends", offsetof(NzNs, appends),
      "zone appends started (read-only counter)" },
    { "blocks-read", offsetof(NzNs, blocks_read),
      "logical blocks read (read-only counter)" },
    { "blocks-written", offsetof(NzNs, blocks_written),
      "logical blocks written (read-only counter)" },
    { "zone-state-syncs", offsetof(NzNs, persist.stats.syncs),
      "zone state syncs to the zone-state drive (read-only counter)" },
    { "zone-state-blocks", offsetof(NzNs, persist.stats.blocks_written),
      "zone state table blocks written (read-only counter)" },
};

static const Property nz_ns_props[] = {
    DEFINE_PROP_DRIVE("drive", NzNs, blkconf.blk),
    DEFINE_PROP_UINT32("nsid", NzNs, nsid, 0),
    DEFINE_PROP_SIZE("size", NzNs, size, 0),
    DEFINE_PROP_UINT32("block-size", NzNs, block_size, 4096),
    DEFINE_PROP_SIZE("zone-size", NzNs, zone_size, NZ_NS_DEFAULT_ZONE),
    DEFINE_PROP_SIZE("zone-capacity", NzNs, zone_cap, 0),
    DEFINE_PROP_UINT32("max-open", NzNs, max_open, 0),
    DEFINE_PROP_UINT32("max-active", NzNs, max_active, 0),
    DEFINE_PROP_BOOL("cross-zone-read", NzNs, razb, true),
    DEFINE_PROP_UINT32("zone-desc-ext-size", NzNs, zde_size, 0),
    DEFINE_PROP_DRIVE("zone-state", NzNs, zs_blk),
    DEFINE_PROP_BOOL("zone-state-format", NzNs, zs_format, false),
};

static void nz_ns_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    dc->bus_type = TYPE_NVME_ZNS_BUS;
    dc->vmsd = &vmstate_nvme_zns_ns;
    dc->realize = nz_ns_realize;
    dc->unrealize = nz_ns_unrealize;
    /*
     * The default namespace is realized once the machine is ready, which
     * counts as a hot plug; a user's device_add still fails, as the bus
     * has no hotplug handler.
     */
    dc->hotpluggable = true;
    dc->desc = "zoned namespace (ZNS) of an nvme-zns controller";
    device_class_set_props(dc, nz_ns_props);

    object_class_property_set_description(oc, "drive",
        "the data; none: null-backed (writes dropped, reads zeros)");
    object_class_property_set_description(oc, "nsid",
        "namespace ID, 1-8 (0: the lowest free)");
    object_class_property_set_description(oc, "size",
        "null-backed only: bytes (default 1 GiB)");
    object_class_property_set_description(oc, "block-size",
        "logical block size: 512 or 4096");
    object_class_property_set_description(oc, "zone-size",
        "bytes per zone, a power of two number of blocks (default 4 MiB)");
    object_class_property_set_description(oc, "zone-capacity",
        "writable bytes per zone (0 = the zone size)");
    object_class_property_set_description(oc, "max-open",
        "maximum open zones, MOR + 1 (0 = no limit)");
    object_class_property_set_description(oc, "max-active",
        "maximum active zones, MAR + 1 (0 = no limit)");
    object_class_property_set_description(oc, "cross-zone-read",
        "OZCS.RAZB: reads may cross zone boundaries");
    object_class_property_set_description(oc, "zone-desc-ext-size",
        "zone descriptor extension bytes per zone (ZDES), a multiple of 64 "
        "up to 16320; 0: none");
    object_class_property_set_description(oc, "zone-state",
        "drive holding the zone states and write pointers, so they "
        "survive a restart (a new or zeroed drive is formatted)");
    object_class_property_set_description(oc, "zone-state-format",
        "format the zone-state drive anew, whatever it holds (every zone "
        "empty)");
    zr_counters_add(oc, nz_ns_counters, ARRAY_SIZE(nz_ns_counters));
    object_class_property_add(oc, "inject-read-only", "uint64", NULL,
                              nz_ns_set_inject, NULL, NULL);
    object_class_property_set_description(oc, "inject-read-only",
        "make the zone containing this LBA Read Only, with a Zone "
        "Descriptor Changed notice (test hook)");
    object_class_property_add(oc, "inject-offline", "uint64", NULL,
                              nz_ns_set_inject, NULL, (void *)1);
    object_class_property_set_description(oc, "inject-offline",
        "make the zone containing this LBA Offline, with a Zone Descriptor "
        "Changed notice (test hook)");
}

static const TypeInfo nz_ns_info = {
    .name = TYPE_NVME_ZNS_NS,
    .parent = TYPE_DEVICE,
    .instance_size = sizeof(NzNs),
    .class_init = nz_ns_class_init,
};

static void nz_ns_register_types(void)
{
    type_register_static(&nz_ns_info);
}

type_init(nz_ns_register_types)
