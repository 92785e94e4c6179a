/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace events of the zoned-reorder core (generated from trace-events). */
#include "trace/trace-hw_block_zoned_reorder.h"
