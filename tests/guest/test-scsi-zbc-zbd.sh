#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A representative part of fio's t/zbd/test-zbd-support (fio 3.33) on
# scsi-zbc over virtio-scsi under Linux 6.12, zone capacity = zone size
# (the whole suite on this geometry: full-scsi-zbc-zbd.sh).  About 30 s of
# fio under TCG:
#   2 block size above the zone size      3 4  reads of empty zones
#   5 6 8  sequential/random writes with md5 verify, sequential reads
#   9 10   the sg engine (SCSI only), queue depth 1 and 64
#   12 13 29  fio open zone limits 1 and 4, 16 jobs with 4
#   14 52 53  conventional zones, conventional + sequential mixes
#   17 the last zone     24 26  zone resets (reset frequency, overwrites)
#
#   tests/guest/test-scsi-zbc-zbd.sh [run-guest options, e.g. --verbose]
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

zbd_geometry

scsi_zbc_run zbd-suite scsi-zbc-zbd 600 "$@" \
    --param cases=2,3,4,5,6,8,9,10,12,13,14,17,24,26,29,52,53
