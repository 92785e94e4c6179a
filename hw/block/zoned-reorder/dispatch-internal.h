/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the interface between the dispatch engine
 * (dispatch.c: command lists and counters) and the policies (policy.c:
 * which pending command starts next).  Not a public header.
 */

#ifndef HW_BLOCK_ZONED_REORDER_DISPATCH_INTERNAL_H
#define HW_BLOCK_ZONED_REORDER_DISPATCH_INTERNAL_H

#include "hw/block/zoned-reorder/dispatch.h"

/*
 * The pending command @policy starts next; d->nr_pending > 0.  May update
 * the policy state (PRNG, round-robin cursor) but not the lists.
 */
ZrCmd *zr_policy_pick(ZrDispatch *d, ZrPolicy policy);

#endif
