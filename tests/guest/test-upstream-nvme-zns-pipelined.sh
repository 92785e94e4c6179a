#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test-upstream-nvme-zns.sh with pipelining forced on (our series; NVMe
# does not advertise ordered hardware queues, the user opts in with
# queue/pipeline_zoned_writes = 1): several writes per zone of upstream
# QEMU's zoned namespace are in flight (merging off), writes the controller
# starts out of order are retried after Zone Invalid Write, and the
# zns-smoke plan's fio write+verify runs must still pass: no regression on
# the reference ZNS model.
#
#   tests/guest/test-upstream-nvme-zns-pipelined.sh [run-guest options]
set -euo pipefail
B=${B:-$(cd "$(dirname "$0")/../.." && pwd)/build}
exec "$(dirname "$0")/test-upstream-nvme-zns.sh" \
    --log-dir "$B/guest-logs/upstream-nvme-zns-pipelined" \
    --param pipeline_set=1 --param pipeline=1 "$@"
