/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace events of ufs-zoned (generated from trace-events). */
#include "trace/trace-hw_ufs_zoned.h"
