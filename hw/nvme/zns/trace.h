/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace events of nvme-zns (generated from trace-events). */
#include "trace/trace-hw_nvme_zns.h"
