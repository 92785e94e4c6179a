#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scsi-zbc on virtio-scsi under Linux 6.12, the other corner of the
# geometry: 512-byte blocks, no gap zones (zone alignment method 1h), one
# conventional zone, no open zone limit (VPD B6h reports FFFFFFFFh, Linux
# max_open_zones 0), and a capacity that is not a whole number of zones
# (the last zone is 2 MiB), taken from the drive's size.
#
#   tests/guest/test-scsi-zbc-smoke-512.sh [run-guest options]
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

size=$((258 << 20))             # 64 zones of 4 MiB and one of 2 MiB
zone_size=$((4 << 20))
zone_cap=$zone_size
conv=1
max_open=0
lbs=512

scsi_zbc_run zbc-smoke scsi-zbc-smoke-512 300 "$@"
