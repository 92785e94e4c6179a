/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace events of scsi-zbc (generated from trace-events). */
#include "trace/trace-hw_scsi_zbc.h"
