#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A zone reset while pipelined writes are still being retried, then new
# writes to the zone at once (guest/plans/zwp-reset.sh, review finding 5):
# no data written before the reset may land after it.  The device is
# ufs-zoned in MCQ mode with reorder=random, 20 ms writes and at most 4
# commands in service: the other writes of a stream wait in the device,
# which starts them in random order, so that many writes of the first
# stream fail as unaligned and are retried while the zone is reset (this
# holds whatever the clock: under icount, where the guest rings writes one
# at a time, a device that started every write at once would start them in
# ring order); the plan runs with pipelining off and on.  The host checks
# that the device did reorder (UNALIGNED WRITE answers): without that the
# scenario proves nothing.
#
#   tests/guest/test-zwp-reset.sh [run-guest options, e.g. --verbose]
#
# Output is TAP (guest checks, then "host:" checks); exit 0 iff it passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
logdir=$B/guest-logs/zwp-reset
out=$logdir/run-guest.out
img=$logdir/zbc.img
rc=0

mkdir -p "$logdir"
rm -f "$img"
truncate -s $size "$img"
"$top/scripts/run-guest" --plan zwp-reset --log-dir "$logdir" --timeout 300 \
    --qom /machine/peripheral/ufs0:unaligned-writes "$@" -- \
    -drive "file=$img,if=none,id=zbc0,format=raw,cache=unsafe" \
    -device "ufs-zoned,id=ufs0,mode=mcq,reorder=random,lat-write-ns=20000000,max-parallel=4" \
    -device "scsi-zbc,bus=ufs0.0,lun=0,drive=zbc0,zone-size=4M,conv-zones=1" | tee "$out" || rc=1
rm -f "$img"

u=$(awk '$1 == "ZR-QOM" && $3 == "unaligned-writes" { print $4 }' "$out")
if [ "${u:-0}" -gt 0 ]; then
    echo "ok 900 - host: the device reordered writes ($u UNALIGNED WRITE answers)"
else
    echo "not ok 900 - host: the device reordered writes (${u:-no} UNALIGNED WRITE answers)"
    rc=1
fi
exit $rc
