/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: migration state of the zone model and of the
 * dispatch engine, for the devices' VMStateDescriptions
 * (docs/devel/zone-state.md, "Migration and snapshots").
 *
 * What a device embeds with VMSTATE_STRUCT:
 *  - vmstate_zr_zone_model: every zone (condition, write pointer, written
 *    end, LRU stamp) and the counters.  The geometry is the destination's
 *    own (the same properties): the zone count must match and each zone's
 *    layout is checked on load (zr_zone_model_post_load()), which also
 *    rebuilds the open/closed accounting and leaves the writes-in-flight
 *    lists empty for the device to refill (zr_zone_write_restore()).
 *  - vmstate_zr_dispatch: the policy and its state (PRNG, round-robin
 *    position, last slot) and the counters, so that a seeded run goes on
 *    making the decisions it would have made.  Commands are not in it:
 *    the device saves its requests and submits those not started again
 *    on the destination, in arrival order, or puts them back as they
 *    were with zr_dispatch_restore().
 *  - vmstate_zr_cmd: one command's state in the engine and the service
 *    model (sequence number, state, completion time), for a device that
 *    saves its commands as they were and restores them with
 *    zr_dispatch_restore() and zr_service_restore().
 *  - vmstate_zr_service: the service model's wake-up time, start-order
 *    counter and counters.
 */

#ifndef HW_BLOCK_ZONED_REORDER_VMSTATE_H
#define HW_BLOCK_ZONED_REORDER_VMSTATE_H

#include "migration/vmstate.h"

extern const VMStateDescription vmstate_zr_zone_model;
extern const VMStateDescription vmstate_zr_dispatch;
extern const VMStateDescription vmstate_zr_cmd;
extern const VMStateDescription vmstate_zr_service;

#endif
