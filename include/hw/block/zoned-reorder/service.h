/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the service-time model.
 *
 * How long a started command takes (a fixed cost per operation plus an
 * optional cost per 4 KiB transferred), how many commands may be in
 * service at once, and a "not before" time before which nothing may start
 * (the UFS device uses it for the hibernate (H8) exit latency).
 *
 * Everything here is pure: time is an argument (`now`, in ns), nothing
 * reads a clock or arms a timer, so it is unit-tested without QEMU
 * running.  zr_service_run() is the whole scheduling step: complete what
 * is due, then start what the parallelism limit allows, in the order the
 * dispatch engine's policy picks.  service-timer.h binds it to a
 * QEMU_CLOCK_VIRTUAL timer for devices.
 */

#ifndef HW_BLOCK_ZONED_REORDER_SERVICE_H
#define HW_BLOCK_ZONED_REORDER_SERVICE_H

#include "hw/block/zoned-reorder/dispatch.h"

#define ZR_SERVICE_NEVER INT64_MAX

typedef struct ZrServiceConfig {
    uint64_t lat_ns[ZR_OP__MAX];        /* fixed cost per command */
    uint64_t xfer_ns_per_4k[ZR_OP__MAX]; /* per started 4 KiB moved */
    uint32_t block_size;                /* bytes per block; 0 = 4096 */
    uint32_t max_parallel;              /* commands in service; 0 = no limit */
} ZrServiceConfig;

/*
 * The service times a device offers as properties (lat-read-ns,
 * lat-write-ns, lat-other-ns, xfer-read-ns-per-4k, xfer-write-ns-per-4k,
 * max-parallel), the same on every device; zr_service_config_from()
 * turns them into a ZrServiceConfig.  Appends cost what writes do; zone
 * management and other commands cost lat_other_ns.
 */
typedef struct ZrServiceParams {
    uint64_t lat_read_ns;
    uint64_t lat_write_ns;
    uint64_t lat_other_ns;
    uint64_t xfer_read_ns;      /* per started 4 KiB */
    uint64_t xfer_write_ns;
    uint32_t max_parallel;      /* 0 = no limit */
} ZrServiceParams;

typedef struct ZrServiceStats {
    uint64_t starts;
    uint64_t completions;
    uint64_t busy_max;          /* most commands in service at once */
    uint64_t delayed_kicks;     /* runs that found starts held by not_before */
    uint64_t busy_ns;           /* sum of service times of started commands */
} ZrServiceStats;

typedef struct ZrService {
    ZrServiceConfig cfg;
    bool timeless;              /* every service time 0, no limit */
    uint32_t busy;              /* commands in service */
    int64_t not_before_ns;      /* no start before this time */
    uint64_t next_order;
    QTAILQ_HEAD(, ZrCmd) in_service;    /* by done_ns, then start order */
    ZrServiceStats stats;
} ZrService;

/*
 * What zr_service_run() calls back.  start() runs when @cmd was picked and
 * a service slot taken, at the time passed to zr_service_run(): the device
 * does its write-pointer check and starts the I/O here, and may record
 * @done_ns.  complete() runs once the service time has elapsed and the
 * slot was released; the device completes the command to the guest (or,
 * if its backend I/O is still running, when that finishes).  Both may
 * submit new commands.  Neither may leave a service-timer hold
 * (zr_service_timer_hold()) taken when it returns: one zr_service_run()
 * call completes the zero-latency commands it started before returning
 * and does not look at holds, so a hold taken inside it would not stop
 * it (a hold taken and released inside one callback is fine).
 */
typedef struct ZrServiceOps {
    void (*start)(void *opaque, ZrCmd *cmd, int64_t done_ns);
    void (*complete)(void *opaque, ZrCmd *cmd);
} ZrServiceOps;

bool zr_service_init(ZrService *s, const ZrServiceConfig *cfg,
                     Error **errp);
bool zr_service_set_config(ZrService *s, const ZrServiceConfig *cfg,
                           Error **errp);
void zr_service_config_from(ZrServiceConfig *cfg, const ZrServiceParams *p,
                            uint32_t block_size);
bool zr_service_params_zero(const ZrServiceParams *p);
uint64_t zr_service_cost_ns(const ZrServiceConfig *cfg, ZrOp op,
                            uint64_t len);
uint64_t zr_service_cost_bytes_ns(const ZrServiceConfig *cfg, ZrOp op,
                                  uint64_t bytes);

bool zr_service_slot_free(const ZrService *s);
bool zr_service_can_start(const ZrService *s, int64_t now);
int64_t zr_service_start(ZrService *s, ZrCmd *cmd, int64_t now);
ZrCmd *zr_service_pop_done(ZrService *s, int64_t now);

/* When the first command in service completes (ZR_SERVICE_NEVER: idle) */
static inline int64_t zr_service_next_completion(const ZrService *s)
{
    ZrCmd *cmd = QTAILQ_FIRST(&s->in_service);

    return cmd ? cmd->done_ns : ZR_SERVICE_NEVER;
}

void zr_service_delay_starts(ZrService *s, int64_t not_before);
bool zr_service_cancel(ZrService *s, ZrCmd *cmd);
bool zr_service_restore(ZrService *s, ZrCmd *cmd, Error **errp);
void zr_service_flush(ZrService *s);

int64_t zr_service_run(ZrService *s, ZrDispatch *d, int64_t now,
                       const ZrServiceOps *ops, void *opaque);

#endif
