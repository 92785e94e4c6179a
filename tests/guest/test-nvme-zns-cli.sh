#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvme-cli against nvme-zns (guest/plans/nvme-cli.sh): id-ctrl, id-ns,
# effects-log, report-zones, open/close/finish/reset, zone-append and
# changed-zone-list agree with the configured geometry.
#
#   tests/guest/test-nvme-zns-cli.sh [run-guest options]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
logdir=$B/guest-logs/nvme-zns-cli
rm -rf "$logdir"
exec "$top/scripts/run-guest" --plan nvme-cli --log-dir "$logdir" "$@" \
    --param zone_blocks=1024 --param zone_cap=768 --param max_open=6 \
    --param max_active=9 --param zasl=2 --param zdes=2 \
    -- \
    -device nvme-zns,id=nz0,zasl=2 \
    -device nvme-zns-ns,bus=nz0,zone-size=4M,zone-capacity=3M,max-open=6,max-active=9,zone-desc-ext-size=128
