#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Boot the guest on QEMU's upstream NVMe controller with one zoned namespace
# and run the zns-smoke plan against it.  This checks the guest harness
# (kernel, initramfs, fio, run-guest) against a reference ZNS model before
# our own devices are involved.
#
#   tests/guest/test-upstream-nvme-zns.sh [--verbose] [--qemu PATH] [--timeout S]
#
# Output is TAP from the guest (see scripts/run-guest); exit 0 iff it passed.
# The geometry below is passed to both QEMU and the plan, so the plan checks
# the values that were really configured.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B

zones=32
zone_size=$((4 * 1024 * 1024))
zone_cap=$((3 * 1024 * 1024))
max_open=8
max_active=12
lbs=4096

logdir=$B/guest-logs/upstream-nvme-zns
mkdir -p "$logdir"
img=$logdir/zns.img
rm -f "$img"
truncate -s $((zones * zone_size)) "$img"

exec "$top/scripts/run-guest" --plan zns-smoke --log-dir "$logdir" "$@" \
    --param zones=$zones --param zone_size=$zone_size --param zone_cap=$zone_cap \
    --param max_open=$max_open --param max_active=$max_active --param lbs=$lbs \
    -- \
    -drive "file=$img,if=none,id=zns0,format=raw,cache=unsafe" \
    -device nvme,serial=zr-upstream-zns,id=nvme0 \
    -device "nvme-ns,drive=zns0,bus=nvme0,nsid=1,logical_block_size=$lbs,physical_block_size=$lbs,zoned=on,zoned.zone_size=$zone_size,zoned.zone_capacity=$zone_cap,zoned.max_open=$max_open,zoned.max_active=$max_active"
