#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scsi-zbc on virtio-scsi under Linux 6.12, with gap zones: the zbc-smoke
# plan checks that Linux registers the host-managed disk with this
# geometry (sysfs, blkzone), that VPD B6h (zone alignment method 8h) and
# REPORT ZONES (sg3-utils) agree with it, zone management, the open zone
# limit and fio write+verify.
#
#   tests/guest/test-scsi-zbc-smoke.sh [run-guest options, e.g. --verbose]
#
# Output is TAP from the guest (see scripts/run-guest); exit 0 iff it passed.
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

size=$((1024 << 20))            # 256 zones
zone_size=$((4 << 20))
zone_cap=$((3 << 20))           # each sequential zone is followed by a 1 MiB gap zone
conv=8
max_open=8
lbs=4096

scsi_zbc_run zbc-smoke scsi-zbc-smoke 300 "$@"
