/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvme-zns: an NVMe controller with zoned namespaces whose submission
 * queue arbitration runs through the zoned-reorder dispatch engine.
 * This file: the QOM type, properties, realize, reset, the counters and
 * the default namespace.  nvme-zns-internal.h lists the other files;
 * docs/system/devices/nvme-zns.rst is the user's view.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "hw/qdev-properties.h"
#include "hw/boards.h"
#include "hw/pci/pci.h"
#include "system/system.h"
#include "hw/block/zoned-reorder/counters.h"
#include "hw/block/zoned-reorder/service-props.h"
#include "nvme-zns-internal.h"
#include "trace.h"

uint32_t nz_ioq_count(NzCtrl *s)
{
    return s->nr_ioq;
}

static bool nz_check_props(NzCtrl *s, Error **errp)
{
    if (s->nr_ioq < 1 || s->nr_ioq > NZ_MAX_IOQ) {
        error_setg(errp, "nvme-zns: queues must be 1 to %d, not %u",
                   NZ_MAX_IOQ, s->nr_ioq);
        return false;
    }
    if (s->zasl > NZ_MDTS) {
        error_setg(errp, "nvme-zns: zasl must be at most MDTS (%d)", NZ_MDTS);
        return false;
    }
    if (s->serial && strlen(s->serial) > 20) {
        error_setg(errp, "nvme-zns: serial is at most 20 characters");
        return false;
    }
    return true;
}

/*
 * Per-zone write accounting in the dispatch engine needs one zone size:
 * the largest namespace's, in blocks (namespaces' LBAs never mix, the
 * engine sees nsid << 48 | LBA).
 */
static void nz_zone_accounting(NzCtrl *s)
{
    uint64_t zone_blocks = 0;
    Error *err = NULL;
    uint32_t i;

    for (i = 1; i <= NZ_MAX_NS; i++) {
        if (s->ns[i]) {
            zone_blocks = MAX(zone_blocks, s->ns[i]->zone_blocks);
        }
    }
    if (!zr_dispatch_set_zone_size(&s->dispatch, zone_blocks, &err)) {
        warn_reportf_err(err, "nvme-zns: no per-zone write accounting: ");
    }
}

/*
 * No namespace attached once the machine is built: add the default one,
 * null-backed (1 GiB, 4 KiB blocks, 4 MiB zones), so `-device nvme-zns`
 * alone gives the guest a zoned disk.
 */
static void nz_machine_done(Notifier *n, void *data)
{
    NzCtrl *s = container_of(n, NzCtrl, machine_done);
    Error *err = NULL;
    uint32_t i;
    bool any = false;

    for (i = 1; i <= NZ_MAX_NS; i++) {
        any |= s->ns[i] != NULL;
    }
    if (s->default_ns && !any) {
        DeviceState *ns = qdev_new(TYPE_NVME_ZNS_NS);

        if (qdev_realize_and_unref(ns, &s->bus, &err)) {
            trace_nvme_zns_default_ns();
        } else {
            warn_reportf_err(err, "nvme-zns: no default namespace: ");
        }
    }
    nz_zone_accounting(s);
}

/* A controller plugged into a running machine gets it right after */
static void nz_default_ns_bh(void *opaque)
{
    NzCtrl *s = opaque;

    qemu_bh_delete(s->default_ns_bh);
    s->default_ns_bh = NULL;
    nz_machine_done(&s->machine_done, NULL);
}

static void nz_service_config(NzCtrl *s, ZrServiceConfig *c)
{
    /* counted in bytes (ZrCmd.xfer_bytes): namespaces' blocks differ */
    zr_service_config_from(c, &s->svc_params, 0);
}

static void nz_realize(PCIDevice *pci, Error **errp)
{
    NzCtrl *s = NVME_ZNS(pci);
    DeviceState *dev = DEVICE(pci);
    ZrDispatchConfig dcfg = {
        .policy = s->policy,
        .seed = s->seed,
        .spec = ZR_SPEC_PER_QUEUE_RR,
        .spec_burst = 1,
        .rr_burst = s->rr_burst,
    };
    ZrServiceConfig scfg;
    uint32_t i;

    if (!nz_check_props(s, errp)) {
        return;
    }
    /* the dispatch engine's queues are the I/O SQs 1..n, as 0..n-1 */
    dcfg.nr_queues = s->nr_ioq;
    nz_service_config(s, &scfg);
    if (!zr_service_init(&s->svc, &scfg, errp) ||
        !zr_dispatch_init(&s->dispatch, &dcfg, errp)) {
        return;
    }
    if (!nz_irq_init(s, errp)) {
        zr_dispatch_cleanup(&s->dispatch);
        return;
    }
    for (i = 0; i < NZ_NR_REQS; i++) {
        s->req[i].s = s;
        s->req[i].idx = i;
    }
    QTAILQ_INIT(&s->done);
    QTAILQ_INIT(&s->parked);
    QTAILQ_INIT(&s->orphan_wait);
    QTAILQ_INIT(&s->finishing);
    for (i = 0; i < NZ_NR_Q; i++) {
        QTAILQ_INIT(&s->cq[i].waiting);
    }
    zr_service_timer_init(&s->sched, &s->svc, &s->dispatch, &nz_service_ops,
                          s, &dev->mem_reentrancy_guard);
    zr_dma_ram_init(&s->ram, pci_get_address_space(pci), "nvme-zns-ram");
    nz_work_init(s);

    /* Base 3.7.1 / PCI: class 01h, subclass 08h, programming interface 02h */
    pci_config_set_prog_interface(pci->config, 0x2);
    pci_config_set_class(pci->config, PCI_CLASS_STORAGE_EXPRESS);
    memory_region_init_io(&s->iomem, OBJECT(s), &nz_mmio_ops, s, "nvme-zns",
                          NZ_BAR0_SIZE);
    pci_register_bar(pci, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->iomem);

    qbus_init(&s->bus, sizeof(s->bus), TYPE_NVME_ZNS_BUS, dev, dev->id);

    nz_migrate_init(s);

    s->machine_done.notify = nz_machine_done;
    if (!phase_check(PHASE_MACHINE_READY)) {
        qemu_add_machine_init_done_notifier(&s->machine_done);
    } else {
        /* hot plug: not from inside realize, which its bus is part of */
        s->default_ns_bh = qemu_bh_new(nz_default_ns_bh, s);
        qemu_bh_schedule(s->default_ns_bh);
    }
    s->power_on_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    nz_regs_reset(s);
    trace_nvme_zns_realize(zr_policy_name(s->policy), s->nr_ioq);
}

static void nz_exit(PCIDevice *pci)
{
    NzCtrl *s = NVME_ZNS(pci);

    if (s->machine_done.notify && s->machine_done.node.le_prev) {
        qemu_remove_machine_init_done_notifier(&s->machine_done);
    }
    if (s->default_ns_bh) {
        qemu_bh_delete(s->default_ns_bh);
        s->default_ns_bh = NULL;
    }
    nz_io_quiesce(s);
    nz_migrate_cleanup(s);
    zr_service_timer_cleanup(&s->sched);
    nz_work_cleanup(s);
    nz_irq_cleanup(s);
    nz_queues_cleanup(s);
    zr_dma_ram_cleanup(&s->ram);
    zr_dispatch_cleanup(&s->dispatch);
}

/* Wait for every namespace's backend I/O (reset, unplug) */
void nz_drain(NzCtrl *s)
{
    uint32_t i;

    for (i = 1; i <= NZ_MAX_NS; i++) {
        if (s->ns[i] && s->ns[i]->blkconf.blk) {
            blk_drain(s->ns[i]->blkconf.blk);
        }
    }
}

/* A PCI (conventional or function level) reset: Base 3.7.2, like CC.EN=0 */
static void nz_reset(DeviceState *dev)
{
    NzCtrl *s = NVME_ZNS(dev);

    nz_io_quiesce(s);
    nz_regs_reset(s);
}

/* --- properties and counters ------------------------------------------ */

static int nz_get_reorder(Object *obj, Error **errp)
{
    return NVME_ZNS(obj)->policy;
}

static void nz_set_reorder(Object *obj, int value, Error **errp)
{
    NzCtrl *s = NVME_ZNS(obj);

    s->policy = value;
    if (DEVICE(obj)->realized) {
        zr_dispatch_set_policy(&s->dispatch, value);
        nz_schedule(s);
    }
}

static const ZrCounter nz_counters[] = {
    { "starts", offsetof(NzCtrl, dispatch.stats.starts),
      "I/O commands started" },
    { "starts-reordered", offsetof(NzCtrl, dispatch.stats.starts_reordered),
      "I/O commands started while an earlier-fetched one still waited" },
    { "starts-reordered-in-queue",
      offsetof(NzCtrl, dispatch.stats.starts_reordered_in_queue),
      "... while an earlier one of the same SQ still waited" },
    { "zone-invalid-writes", offsetof(NzCtrl, zone_invalid_writes),
      "writes completed with Zone Invalid Write, all namespaces" },
    { "zone-write-overlaps",
      offsetof(NzCtrl, dispatch.stats.zone_write_overlaps),
      "writes started while another write to their zone was in service" },
    { "zone-writes-in-flight-max",
      offsetof(NzCtrl, dispatch.stats.zone_writes_in_flight_max),
      "most writes to one zone in service at once" },
    { "admin-commands", offsetof(NzCtrl, admin_cmds),
      "admin commands executed" },
    { "invalid-doorbells", offsetof(NzCtrl, invalid_doorbells),
      "doorbell writes to no queue or with an invalid value" },
    { "cid-conflicts", offsetof(NzCtrl, cid_conflicts),
      "commands refused with Command ID Conflict" },
    { "data-mapped", offsetof(NzCtrl, data_mapped),
      "reads and writes whose data the drive moved straight to or from "
      "guest RAM" },
    { "data-bounced", offsetof(NzCtrl, data_bounced),
      "reads and writes whose data went through the controller's bounce "
      "buffer (not all RAM, or a null-backed namespace)" },
    { "aborts", offsetof(NzCtrl, aborts_done),
      "commands aborted by an Abort command" },
    { "resets", offsetof(NzCtrl, resets),
      "controller resets (CC.EN 1 to 0)" },
    { "interrupts", offsetof(NzCtrl, interrupts),
      "MSI-X messages sent, or INTx assertions" },
    { "vclock-holds", offsetof(NzCtrl, vclock.holds),
      "icount only: times guest time waited for host work" },
    { "vclock-holds-expired", offsetof(NzCtrl, vclock.expired),
      "icount only: holds given up after 1 s of host time" },
};

/* The last starts, oldest first, as SQ:CID: "1:5,2:9" */
static char *nz_get_start_log(Object *obj, Error **errp)
{
    NzCtrl *s = NVME_ZNS(obj);
    GString *str = g_string_new("");
    uint32_t i;

    for (i = 0; i < zr_start_log_len(&s->start_log); i++) {
        uint32_t e = zr_start_log_get(&s->start_log, i);

        g_string_append_printf(str, "%s%u:%u", i ? "," : "", e >> 16,
                               e & 0xffff);
    }
    return g_string_free(str, false);
}

static void nz_set_start_log(Object *obj, const char *value, Error **errp)
{
    zr_start_log_clear(&NVME_ZNS(obj)->start_log);  /* any write clears it */
}

/* Commands started from each I/O SQ, SQ 1 first: "12,30" */
static char *nz_get_queue_starts(Object *obj, Error **errp)
{
    return zr_counters_queue_starts(&NVME_ZNS(obj)->dispatch);
}

static const Property nz_props[] = {
    DEFINE_PROP_UINT32("queues", NzCtrl, nr_ioq, NZ_DEFAULT_IOQ),
    DEFINE_PROP_UINT64("reorder-seed", NzCtrl, seed, 1),
    DEFINE_PROP_UINT32("rr-burst", NzCtrl, rr_burst, 1),
    DEFINE_ZR_SERVICE_PROPS(NzCtrl, svc_params, NZ_DEFAULT_LAT_READ_NS,
                            NZ_DEFAULT_LAT_WRITE_NS, NZ_DEFAULT_LAT_OTHER_NS,
                            NZ_DEFAULT_XFER_READ_NS, NZ_DEFAULT_XFER_WRITE_NS,
                            NZ_DEFAULT_MAX_PARALLEL),
    DEFINE_PROP_STRING("serial", NzCtrl, serial),
    DEFINE_PROP_BOOL("default-ns", NzCtrl, default_ns, true),
    DEFINE_PROP_BOOL("msix", NzCtrl, msix_on, true),
    DEFINE_PROP_UINT8("zasl", NzCtrl, zasl, 0),
    DEFINE_PROP_BOOL("x-zone-invalid-write-dnr", NzCtrl, ziw_dnr, false),
};

static void nz_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);

    pc->realize = nz_realize;
    pc->exit = nz_exit;
    pc->config_write = nz_irq_config_write;
    pc->vendor_id = NZ_PCI_VENDOR;
    pc->device_id = NZ_PCI_DEVICE;
    pc->class_id = PCI_CLASS_STORAGE_EXPRESS;
    pc->revision = 1;
    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    dc->desc = "NVMe controller with zoned namespaces and reorder policies";
    dc->vmsd = &vmstate_nvme_zns;
    device_class_set_legacy_reset(dc, nz_reset);
    device_class_set_props(dc, nz_props);

    object_class_property_set_description(oc, "queues",
        "I/O submission/completion queue pairs offered (1-64)");
    object_class_property_set_description(oc, "reorder-seed",
        "seed of the random reorder policy (same seed, same order)");
    object_class_property_set_description(oc, "rr-burst",
        "commands the rr policy takes from one SQ before the next");
    zr_service_props_describe(oc, "the other I/O commands (Flush, Dataset "
                              "Management, Zone Management Send/Receive)");
    object_class_property_set_description(oc, "serial",
        "Identify Controller SN (at most 20 characters)");
    object_class_property_set_description(oc, "default-ns",
        "add a null-backed zoned namespace 1 when none is attached");
    object_class_property_set_description(oc, "msix",
        "offer MSI-X (one vector per queue, table and PBA in BAR 4); "
        "INTx otherwise");
    object_class_property_set_description(oc, "zasl",
        "Zone Append Size Limit: 2^zasl 4 KiB pages (0 = MDTS, 512 KiB)");
    object_class_property_set_description(oc, "x-zone-invalid-write-dnr",
        "test only: set Do Not Retry on Zone Invalid Write, so a host's "
        "retry of misordered writes is off and the errors reach it");
    object_class_property_add_enum(oc, "reorder", "ZrPolicy",
                                   &ZrPolicy_lookup, nz_get_reorder,
                                   nz_set_reorder);
    object_class_property_set_description(oc, "reorder",
        "order in which fetched I/O commands start: none (fetch order), "
        "spec (in order per SQ, SQs round-robin with the Arbitration "
        "Burst), rr, random, reverse (settable at run time)");
    zr_counters_add(oc, nz_counters, ARRAY_SIZE(nz_counters));
    object_class_property_add_str(oc, "start-log", nz_get_start_log,
                                  nz_set_start_log);
    object_class_property_set_description(oc, "start-log",
        "the last 32 I/O command starts, oldest first, as SQ:CID "
        "(write clears)");
    object_class_property_add_str(oc, "queue-starts", nz_get_queue_starts,
                                  NULL);
    object_class_property_set_description(oc, "queue-starts",
        "I/O commands started from each I/O SQ, SQ 1 first");
}

static const TypeInfo nz_info = {
    .name = TYPE_NVME_ZNS,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(NzCtrl),
    .class_init = nz_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { }
    },
};

static const TypeInfo nz_bus_info = {
    .name = TYPE_NVME_ZNS_BUS,
    .parent = TYPE_BUS,
    .instance_size = sizeof(BusState),
};

static void nz_register_types(void)
{
    type_register_static(&nz_info);
    type_register_static(&nz_bus_info);
}

type_init(nz_register_types)
