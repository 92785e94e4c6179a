#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fio's t/zbd suite on an nvme-zns namespace (reorder=spec, two I/O queues),
# the subset make check runs: every case of the scsi-zbc subset that needs
# neither conventional zones (ZNS has none) nor SCSI tools.  1 GiB of 4 MiB
# zones, 4 KiB blocks, 8 open zones and no active limit (as the scsi-zbc geometry: test 25 writes 16 zones at once); make check-full runs every case
# (full-nvme-zns-zbd.sh).
#
#   tests/guest/test-nvme-zns-zbd.sh [run-guest options, e.g. --verbose]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
cases=${NZ_ZBD_CASES:-2,3,4,5,6,8,12,17,24,26,29}
name=${NZ_ZBD_NAME:-nvme-zns-zbd}

logdir=$B/guest-logs/$name
rm -rf "$logdir"
mkdir -p "$logdir"
img=$logdir/zns.img
truncate -s $((1024 << 20)) "$img"
rc=0
"$top/scripts/run-guest" --plan zbd-suite --log-dir "$logdir" --timeout 900 "$@" \
    --param dev=nvme0n1 --param cases="$cases" \
    -- \
    -drive "file=$img,if=none,id=zns0,format=raw,cache=unsafe" \
    -device nvme-zns,id=nz0,queues=2,reorder=spec \
    -device nvme-zns-ns,bus=nz0,drive=zns0,zone-size=4M,max-open=8 ||
    rc=$?
[ $rc -ne 0 ] || rm -f "$img"
exit $rc
