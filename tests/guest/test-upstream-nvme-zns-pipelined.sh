#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test-upstream-nvme-zns.sh with the nvme opt-in of our pipelining series
# (nvme_core.pipeline_zoned_writes=1): the zoned namespace of upstream
# QEMU's nvme advertises ordered hardware queues, several writes per zone
# are in flight (merging off), and the zns-smoke plan's fio write+verify
# runs must still pass: no regression on the reference ZNS model.
#
#   tests/guest/test-upstream-nvme-zns-pipelined.sh [run-guest options]
set -euo pipefail
B=${B:-$(cd "$(dirname "$0")/../.." && pwd)/build}
exec "$(dirname "$0")/test-upstream-nvme-zns.sh" \
    --log-dir "$B/guest-logs/upstream-nvme-zns-pipelined" \
    --append "nvme_core.pipeline_zoned_writes=1" --param pipeline=1 "$@"
