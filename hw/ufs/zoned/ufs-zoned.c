/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: the QOM type, properties, realize and reset, BAR0, and the
 * default zoned LU.  See ufs-zoned-internal.h for the other files and
 * docs/system/devices/ufs-zoned.rst for the user's view.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qapi/visitor.h"
#include "qemu/module.h"
#include "hw/qdev-properties.h"
#include "hw/boards.h"
#include "hw/pci/pci.h"
#include "hw/scsi/scsi-zbc.h"
#include "system/system.h"
#include "hw/block/zoned-reorder/counters.h"
#include "hw/block/zoned-reorder/service-props.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

static bool ufs_zoned_check_props(UfsZonedState *s, Error **errp)
{
    if (!s->mode || !strcmp(s->mode, "mcq")) {
        s->mcq = true;
    } else if (!strcmp(s->mode, "legacy")) {
        s->mcq = false;
    } else {
        error_setg(errp, "ufs-zoned: mode must be legacy or mcq, not '%s'",
                   s->mode);
        return false;
    }
    if (s->mcq_queues < 1 || s->mcq_queues > UFSZ_MCQ_MAX_QUEUES) {
        error_setg(errp, "ufs-zoned: mcq-queues must be 1 to %d, not %u",
                   UFSZ_MCQ_MAX_QUEUES, s->mcq_queues);
        return false;
    }
    if (s->h8_exit_latency_ns > UFSZ_MAX_H8_EXIT_NS) {
        error_setg(errp, "ufs-zoned: h8-exit-latency must be at most %llu ns"
                   " (1 s), not %" PRIu64, UFSZ_MAX_H8_EXIT_NS,
                   s->h8_exit_latency_ns);
        return false;
    }
    return true;
}

static void ufs_zoned_service_config(UfsZonedState *s, ZrServiceConfig *c)
{
    /* counted in bytes (ZrCmd.xfer_bytes, the EDTL): LUs' blocks differ */
    zr_service_config_from(c, &s->svc_params, 0);
}

/*
 * Count writes that start while another write to their zone is in flight
 * (zone-write-overlaps): what pipelined zoned writes look like from here.
 * The dispatch engine sees LUN << UFSZ_LUN_SHIFT | LBA, so zones of
 * different LUs never mix; the zone size is the largest of the zoned
 * LUs' (all the same in practice).
 */
static void ufs_zoned_zone_accounting(UfsZonedState *s)
{
    uint64_t zone_blocks = 0;
    Error *err = NULL;
    BusChild *kid;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        ZbcState *zbc = (ZbcState *)object_dynamic_cast(OBJECT(kid->child),
                                                        TYPE_SCSI_ZBC);

        if (zbc) {
            zone_blocks = MAX(zone_blocks, zbc->zone_blocks);
        }
    }
    if (!zr_dispatch_set_zone_size(&s->dispatch, zone_blocks, &err)) {
        warn_reportf_err(err, "ufs-zoned: no per-zone write accounting: ");
    }
}

/*
 * With no LU on the bus once the machine is built, add the default one: a
 * null-backed host-managed zoned disk (scsi-zbc defaults: 1 GiB, 4 KiB
 * blocks, 4 MiB zones, one conventional zone), so `-device ufs-zoned`
 * alone gives the guest a zoned disk.
 */
static void ufs_zoned_machine_done(Notifier *n, void *data)
{
    UfsZonedState *s = container_of(n, UfsZonedState, machine_done);
    Error *err = NULL;
    DeviceState *lu;

    if (s->default_lu && QTAILQ_EMPTY(&s->bus.qbus.children)) {
        lu = qdev_new(TYPE_SCSI_ZBC);
        qdev_prop_set_uint32(lu, "lun", 0);
        if (qdev_realize_and_unref(lu, BUS(&s->bus), &err)) {
            trace_ufs_zoned_default_lu();
        } else {
            warn_reportf_err(err, "ufs-zoned: no default LU: ");
        }
    }
    ufs_zoned_zone_accounting(s);
}

static void ufs_zoned_realize(PCIDevice *pci, Error **errp)
{
    UfsZonedState *s = UFS_ZONED(pci);
    ZrDispatchConfig dcfg = {
        .policy = s->policy,
        .seed = s->seed,
    };
    ZrServiceConfig scfg;

    if (!ufs_zoned_check_props(s, errp) || !ufs_zoned_irq_init(s, errp)) {
        return;
    }
    /*
     * Legacy: one doorbell forwarded ring by ring (`spec` = arrival order;
     * the H8 batching reorders at fetch, utp.c).  MCQ: `spec` keeps each
     * SQ in order and takes the SQs round-robin (MCQCAP.RRP); legacy
     * doorbell commands during bring-up count as SQ 0.
     */
    dcfg.spec = s->mcq ? ZR_SPEC_PER_QUEUE_RR : ZR_SPEC_RING_ORDER;
    dcfg.nr_queues = s->mcq ? s->mcq_queues : 1;
    ufs_zoned_service_config(s, &scfg);
    if (!zr_service_init(&s->svc, &scfg, errp) ||
        !zr_dispatch_init(&s->dispatch, &dcfg, errp)) {
        ufs_zoned_irq_cleanup(s);
        return;
    }
    /* All DMA runs on BHs under the device's own re-entrancy guard. */
    zr_service_timer_init(&s->sched, &s->svc, &s->dispatch,
                          &ufs_zoned_service_ops, s,
                          &DEVICE(s)->mem_reentrancy_guard);
    ufs_zoned_work_init(s);
    zr_dma_ram_init(&s->ram, pci_get_address_space(pci), "ufs-zoned-ram");
    ufs_zoned_ahit_init(s);
    ufs_zoned_migrate_init(s);

    pci_config_set_prog_interface(pci->config, 0x1);
    memory_region_init_io(&s->iomem, OBJECT(s), &ufs_zoned_mmio_ops, s,
                          "ufs-zoned", UFSZ_BAR0_SIZE);
    if (s->mcq) {
        ufs_zoned_mcq_init(s);
    }
    pci_register_bar(pci, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->iomem);

    scsi_bus_init(&s->bus, sizeof(s->bus), DEVICE(pci), &ufs_zoned_scsi_info);
    /*
     * A controller hot-plugged into a running machine gets no default LU:
     * the user attaches LUs to it (a notifier added now would run at once,
     * before any could be).
     */
    s->machine_done.notify = ufs_zoned_machine_done;
    if (!phase_check(PHASE_MACHINE_READY)) {
        qemu_add_machine_init_done_notifier(&s->machine_done);
    }

    ufs_zoned_mcq_reset(s);
    ufs_zoned_regs_reset(s);
    ufs_zoned_query_reset(s);
    trace_ufs_zoned_realize(s->mcq ? "mcq" : "legacy",
                            zr_policy_name(s->policy), UFSZ_NUTRS,
                            s->mcq ? s->mcq_queues : 0);
}

static void ufs_zoned_exit(PCIDevice *pci)
{
    UfsZonedState *s = UFS_ZONED(pci);

    if (s->machine_done.notify && s->machine_done.node.le_prev) {
        qemu_remove_machine_init_done_notifier(&s->machine_done);
    }
    ufs_zoned_migrate_cleanup(s);
    ufs_zoned_utp_reset(s);
    ufs_zoned_dma_cleanup(s);
    zr_service_timer_cleanup(&s->sched);
    ufs_zoned_work_cleanup(s);
    ufs_zoned_ahit_cleanup(s);
    ufs_zoned_irq_cleanup(s);
    zr_dispatch_cleanup(&s->dispatch);
    if (s->mcq) {
        ufs_zoned_mcq_exit(s);
    }
}

static void ufs_zoned_reset(DeviceState *dev)
{
    UfsZonedState *s = UFS_ZONED(dev);

    ufs_zoned_utp_reset(s);
    ufs_zoned_query_reset(s);
    ufs_zoned_ahit_reset(s);
    ufs_zoned_regs_reset(s);
    zr_start_log_clear(&s->start_log);
}

/* --- properties and counters ------------------------------------------ */

static int ufs_zoned_get_reorder(Object *obj, Error **errp)
{
    return UFS_ZONED(obj)->policy;
}

static void ufs_zoned_set_reorder(Object *obj, int value, Error **errp)
{
    UfsZonedState *s = UFS_ZONED(obj);

    s->policy = value;
    if (DEVICE(obj)->realized) {
        zr_dispatch_set_policy(&s->dispatch, value);
        ufs_zoned_schedule(s);      /* the work BH's end kicks the model */
    }
}

/* Read-only counters, readable with qom-get. */
static const ZrCounter ufs_zoned_counters[] = {
    { "starts", offsetof(UfsZonedState, dispatch.stats.starts),
      "commands handed to their LU" },
    { "starts-reordered",
      offsetof(UfsZonedState, dispatch.stats.starts_reordered),
      "commands started while an earlier-rung one still waited" },
    { "unaligned-writes", offsetof(UfsZonedState, unaligned_writes),
      "writes answered UNALIGNED WRITE COMMAND by their LU" },
    { "h8-entries", offsetof(UfsZonedState, h8_entries),
      "autonomous hibernate (H8) entries" },
    { "h8-exits", offsetof(UfsZonedState, h8_exits),
      "H8 exits started by a request for the link" },
    { "stalled", offsetof(UfsZonedState, stalled),
      "commands x-stall-* held without an answer" },
    { "tm-stalled", offsetof(UfsZonedState, tm_stalled),
      "task management requests x-stall-tm left unanswered" },
    { "tm-aborts", offsetof(UfsZonedState, tm_aborts),
      "commands aborted by task management (ABORT TASK, ... LU RESET)" },
    { "lu-resets", offsetof(UfsZonedState, lu_resets),
      "LOGICAL UNIT RESET task management functions" },
    { "cleared", offsetof(UfsZonedState, cleared),
      "commands dropped by UTRLCLR or a reset" },
    { "sq-cleanups", offsetof(UfsZonedState, sq_cleanups),
      "MCQ SQ cleanups that completed a command with OCS ABORTED" },
    { "host-resets", offsetof(UfsZonedState, host_resets),
      "host controller resets (HCE 1 to 0)" },
    { "interrupts", offsetof(UfsZonedState, interrupts),
      "MSI/MSI-X messages sent, or INTx assertions" },
    { "vclock-holds", offsetof(UfsZonedState, vclock.holds),
      "icount only: times guest time waited for host work" },
    { "vclock-holds-expired", offsetof(UfsZonedState, vclock.expired),
      "icount only: holds given up after 1 s of host time" },
    { "data-sg", offsetof(UfsZonedState, data_sg),
      "commands whose data the LU moved itself, over a scatter-gather list "
      "of the PRDT (a scsi-hd LU; the others are copied on the work BH)" },
    { "zone-write-overlaps",
      offsetof(UfsZonedState, dispatch.stats.zone_write_overlaps),
      "writes started while another write to their zone was in service" },
    { "zone-writes-in-flight-max",
      offsetof(UfsZonedState, dispatch.stats.zone_writes_in_flight_max),
      "most writes to one zone in service at once" },
};

/*
 * The last starts, oldest first: legacy slots "3,1,2"; MCQ commands as
 * SQ:task-tag, "0:5,1:7".
 */
static char *ufs_zoned_get_start_log(Object *obj, Error **errp)
{
    UfsZonedState *s = UFS_ZONED(obj);
    GString *str = g_string_new("");
    uint32_t i;

    for (i = 0; i < zr_start_log_len(&s->start_log); i++) {
        uint32_t e = zr_start_log_get(&s->start_log, i);

        g_string_append(str, i ? "," : "");
        if (e >> 16) {
            g_string_append_printf(str, "%u:%u", (e >> 16) - 1, e & 0xffff);
        } else {
            g_string_append_printf(str, "%u", e);
        }
    }
    return g_string_free(str, false);
}

/* Commands started from each SQ (MCQ) or the doorbell: "12,30,0,0" */
static char *ufs_zoned_get_queue_starts(Object *obj, Error **errp)
{
    return zr_counters_queue_starts(&UFS_ZONED(obj)->dispatch);
}

/* UNALIGNED WRITE answers per LU present: "0=4,1=0" */
static char *ufs_zoned_get_unaligned_per_lu(Object *obj, Error **errp)
{
    UfsZonedState *s = UFS_ZONED(obj);
    GString *str = g_string_new("");
    BusChild *kid;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        SCSIDevice *dev = SCSI_DEVICE(kid->child);

        if (dev->lun < UFSZ_MAX_LUS) {
            g_string_append_printf(str, "%s%u=%" PRIu64, str->len ? "," : "",
                                   dev->lun, s->unaligned_lu[dev->lun]);
        }
    }
    return g_string_free(str, false);
}

static void ufs_zoned_set_start_log(Object *obj, const char *value,
                                    Error **errp)
{
    zr_start_log_clear(&UFS_ZONED(obj)->start_log);  /* any write clears it */
}

static const Property ufs_zoned_props[] = {
    DEFINE_PROP_STRING("mode", UfsZonedState, mode),
    DEFINE_PROP_UINT32("mcq-queues", UfsZonedState, mcq_queues,
                       UFSZ_MCQ_DEFAULT_QUEUES),
    DEFINE_PROP_UINT64("reorder-seed", UfsZonedState, seed, 1),
    DEFINE_ZR_SERVICE_PROPS(UfsZonedState, svc_params,
                            UFSZ_DEFAULT_LAT_READ_NS,
                            UFSZ_DEFAULT_LAT_WRITE_NS,
                            UFSZ_DEFAULT_LAT_OTHER_NS,
                            UFSZ_DEFAULT_XFER_READ_NS,
                            UFSZ_DEFAULT_XFER_WRITE_NS,
                            UFSZ_DEFAULT_MAX_PARALLEL),
    DEFINE_PROP_BOOL("default-lu", UfsZonedState, default_lu, true),
    DEFINE_PROP_BOOL("auto-hibernate", UfsZonedState, auto_hibernate, false),
    DEFINE_PROP_BOOL("msi", UfsZonedState, msi_on, true),
    DEFINE_PROP_BOOL("msix", UfsZonedState, msix_on, true),
    DEFINE_PROP_UINT64("h8-exit-latency", UfsZonedState, h8_exit_latency_ns,
                       UFSZ_DEFAULT_H8_EXIT_NS),
    DEFINE_PROP_UINT32("x-stall-every", UfsZonedState, stall_every, 0),
    DEFINE_PROP_UINT64("x-stall-lba", UfsZonedState, stall_lba, 0),
    DEFINE_PROP_UINT64("x-stall-blocks", UfsZonedState, stall_blocks, 0),
    DEFINE_PROP_UINT32("x-stall-max", UfsZonedState, stall_max, 0),
    DEFINE_PROP_UINT32("x-stall-tm", UfsZonedState, stall_tm, 0),
};

static void ufs_zoned_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);

    pc->realize = ufs_zoned_realize;
    pc->exit = ufs_zoned_exit;
    pc->config_write = ufs_zoned_irq_config_write;
    pc->vendor_id = PCI_VENDOR_ID_REDHAT;
    pc->device_id = PCI_DEVICE_ID_REDHAT_UFS;
    pc->class_id = PCI_CLASS_STORAGE_UFS;
    pc->revision = 1;
    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    dc->desc = "UFS host controller with zoned LUs and reorder policies";
    device_class_set_legacy_reset(dc, ufs_zoned_reset);
    device_class_set_props(dc, ufs_zoned_props);
    dc->vmsd = &vmstate_ufs_zoned;

    object_class_property_set_description(oc, "mode",
        "mcq (default: UFSHCI 4.0 multi-circular queues, CAP.MCQS=1) or "
        "legacy (single doorbell only, CAP.MCQS=0)");
    object_class_property_set_description(oc, "mcq-queues",
        "MCQ queue pairs advertised in MCQCAP.MAXQ (1-32)");
    object_class_property_set_description(oc, "reorder-seed",
        "seed of the random reorder policy (same seed, same order)");
    /* bytes moved come from the UPIU's expected data transfer length */
    zr_service_props_describe(oc, "the other commands (SYNCHRONIZE CACHE, "
                              "zone operations, REPORT ZONES, ...)");
    object_class_property_set_description(oc, "default-lu",
        "add a null-backed scsi-zbc LU 0 when no LU is attached");
    object_class_property_set_description(oc, "auto-hibernate",
        "CAP.AUTOH8: the link enters H8 after AHIT of idleness");
    object_class_property_set_description(oc, "msi",
        "offer an MSI capability (one vector); INTx until the host "
        "enables it");
    object_class_property_set_description(oc, "msix",
        "offer MSI-X (one vector, table and PBA in BAR 2); the host "
        "picks MSI-X, MSI or INTx");
    object_class_property_set_description(oc, "h8-exit-latency",
        "ns from a request for the link in H8 until it carries requests "
        "(at most 1 s)");
    object_class_property_set_description(oc, "x-stall-every",
        "test only: hold every Nth SCSI command to an LU without an answer "
        "(0 = off), so the guest times out and runs its error handler");
    object_class_property_set_description(oc, "x-stall-lba",
        "test only: hold commands whose blocks meet [x-stall-lba, "
        "x-stall-lba + x-stall-blocks)");
    object_class_property_set_description(oc, "x-stall-blocks",
        "test only: length of the x-stall-lba range (0 = off)");
    object_class_property_set_description(oc, "x-stall-max",
        "test only: hold at most this many commands in all (0 = no limit)");
    object_class_property_set_description(oc, "x-stall-tm",
        "test only: leave this many task management requests unanswered, "
        "so the guest's abort and LU reset fail and it escalates");
    object_class_property_add_enum(oc, "reorder", "ZrPolicy",
                                   &ZrPolicy_lookup, ufs_zoned_get_reorder,
                                   ufs_zoned_set_reorder);
    object_class_property_set_description(oc, "reorder",
        "order in which rung commands start: none, spec (legacy: ring "
        "order, a batch rung during an H8 exit in slot order; MCQ: in "
        "order per SQ, SQs round-robin), rr, random, reverse (settable at "
        "run time)");
    zr_counters_add(oc, ufs_zoned_counters, ARRAY_SIZE(ufs_zoned_counters));
    object_class_property_add_str(oc, "start-log", ufs_zoned_get_start_log,
                                  ufs_zoned_set_start_log);
    object_class_property_set_description(oc, "start-log",
        "the last 32 command starts, oldest first: legacy slots, or "
        "SQ:task-tag in MCQ (write clears)");
    object_class_property_add_str(oc, "queue-starts",
                                  ufs_zoned_get_queue_starts, NULL);
    object_class_property_set_description(oc, "queue-starts",
        "commands started from each SQ (MCQ; legacy doorbell counts as 0)");
    object_class_property_add_str(oc, "unaligned-writes-per-lu",
                                  ufs_zoned_get_unaligned_per_lu, NULL);
    object_class_property_set_description(oc, "unaligned-writes-per-lu",
        "UNALIGNED WRITE COMMAND answers per LU: lun=count,...");
}

static const TypeInfo ufs_zoned_info = {
    .name = TYPE_UFS_ZONED,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(UfsZonedState),
    .class_init = ufs_zoned_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { }
    },
};

static void ufs_zoned_register_types(void)
{
    type_register_static(&ufs_zoned_info);
}

type_init(ufs_zoned_register_types)
