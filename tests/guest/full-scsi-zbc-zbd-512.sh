#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The whole of fio's t/zbd/test-zbd-support (fio 3.33) on scsi-zbc with
# 512-byte blocks and no device open zone limit, run with the script's
# "-o 8" (every job gets --max_open_zones=8 --ignore_zone_limits=1 and
# each write test starts from reset zones), over virtio-scsi under Linux
# 6.12 (make check-full).  Without -o the script would pass the "not
# reported" FFFFFFFFh of VPD B6h to test 32 as --max_open_zones, which fio
# refuses (at most 4096).  Linux shows max_open_zones 128 here, its zone
# write plug pool size.  Test 54 is an expected failure (fio 3.33 bug).
# About 5 minutes under TCG.
#
#   tests/guest/full-scsi-zbc-zbd-512.sh [run-guest options]
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

zbd_geometry
max_open=0                      # -o 8 (max_open_opt) instead
lbs=512

scsi_zbc_run zbd-suite scsi-zbc-zbd-512-full 1800 "$@" --param max_open_opt=8
