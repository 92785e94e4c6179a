#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fio's t/zbd suite (the subset of test-scsi-zbc-zbd.sh) on a zoned LU of
# ufs-zoned in MCQ mode with reorder=spec: the same geometry as the
# virtio-scsi run, so the two transports can be compared test by test.
#
#   tests/guest/test-ufs-zoned-zbd.sh [run-guest options, e.g. --verbose]
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

zbd_geometry
hba="ufs-zoned,id=scsi0,mode=mcq,reorder=spec"

scsi_zbc_run zbd-suite ufs-zoned-zbd 600 "$@" \
    --param cases=2,3,4,5,6,8,9,10,12,13,14,17,24,26,29,52,53
