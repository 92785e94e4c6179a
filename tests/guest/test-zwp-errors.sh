#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Error paths of zone write plugging on the patched guest kernel, with
# pipelining off and on (plan zwp-errors): on scsi-zbc behind virtio-scsi
# and on a zoned null_blk, an O_DIRECT write that is not at the zone's
# write pointer fails with EIO, the zone recovers after a zone report, and
# the kernel prints no warning (review finding 1: v1 of the series hit
# WARN_ON_ONCE(!nr_inflight) in blk_zone_write_plug_bio_endio() here, with
# pipelining off too).
#
#   tests/guest/test-zwp-errors.sh [run-guest options, e.g. --verbose]
#
# Output is TAP from the guest (see scripts/run-guest); exit 0 iff it passed.
set -euo pipefail
# shellcheck source=tests/guest/lib-scsi-zbc.sh
. "$(dirname "$0")/lib-scsi-zbc.sh"

size=$((64 << 20))              # 16 zones of 4 MiB
zone_size=$((4 << 20))
zone_cap=$zone_size
conv=2
max_open=0
lbs=4096

scsi_zbc_run zwp-errors zwp-errors 300 "$@" --param devs=sda,nullb
