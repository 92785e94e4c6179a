#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A representative part of fio's t/zbd/test-zbd-support (fio 3.33) on
# scsi-zbc with zone capacity 3 MiB < zone size 4 MiB (ZBC-2 gap zones,
# which Linux 6.12 hides: it shows 4 MiB zones of 3 MiB capacity), under
# Linux 6.12 over virtio-scsi.  The tests whose expectations follow the
# zone capacity: sequential and random writes with verify (5 7 8 11),
# fio open zone limits (12 13), reads of empty and full zones (15 16),
# resets (24 28), parallel jobs (25), block sizes not dividing the zone
# (33 37), conventional zones (53).  The whole suite on this geometry:
# full-scsi-zbc-zbd-gaps.sh.
#
#   tests/guest/test-scsi-zbc-zbd-gaps.sh [run-guest options]
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

zbd_geometry
zone_cap=$((3 << 20))           # a 1 MiB gap zone after each

scsi_zbc_run zbd-suite scsi-zbc-zbd-gaps 600 "$@" \
    --param cases=5,7,8,11,12,13,15,16,24,25,28,33,37,53
