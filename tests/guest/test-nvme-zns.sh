#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Boot the guest on our nvme-zns controller with one file-backed zoned
# namespace and run the zns-smoke plan against it: Linux 6.12 binds
# nvme-pci by class, enables CC.CSS=110b, finds the zoned namespace with
# the configured geometry, and fio writes and verifies zones through it
# (libaio and io_uring, zone append included in the kernel's zone checks).
# The same plan runs against upstream QEMU's ZNS namespace in
# test-upstream-nvme-zns.sh.
#
#   tests/guest/test-nvme-zns.sh [--verbose] [--qemu PATH] [--timeout S]
#
# Output is TAP from the guest (see scripts/run-guest); exit 0 iff it passed.
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

logdir=$B/guest-logs/nvme-zns
rm -rf "$logdir"
mkdir -p "$logdir"
img=$logdir/zns.img
truncate -s $((zones * zone_size)) "$img"

exec "$top/scripts/run-guest" --plan zns-smoke --log-dir "$logdir" "$@" \
    --param zones=$zones --param zone_size=$zone_size --param zone_cap=$zone_cap \
    --param max_open=$max_open --param max_active=$max_active --param lbs=$lbs \
    -- \
    -drive "file=$img,if=none,id=zns0,format=raw,cache=unsafe" \
    -device nvme-zns,id=nz0,serial=zr-nvme-zns,reorder=spec \
    -device "nvme-zns-ns,drive=zns0,bus=nz0,nsid=1,block-size=$lbs,zone-size=$zone_size,zone-capacity=$zone_cap,max-open=$max_open,max-active=$max_active"
