#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# All of fio 3.33's t/zbd/test-zbd-support on a zoned LU of ufs-zoned in
# MCQ mode with reorder=spec, with the geometry of full-scsi-zbc-zbd.sh
# (the same skips and expected failure, see there).  In make check-full.
#
#   tests/guest/full-ufs-zoned-zbd.sh [run-guest options]
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

zbd_geometry
hba="ufs-zoned,id=scsi0,mode=mcq,reorder=spec"

scsi_zbc_run zbd-suite ufs-zoned-zbd-full 1800 "$@"
