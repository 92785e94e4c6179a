#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Pipelined zoned writes under churn (guest/plans/pipeline-churn.sh): fio
# with io_uring, libaio, psync, FUA writes and flushes writes and verifies
# zones while pipeline_zoned_writes and auto_hibern8 flip and fio's
# threads move between the CPUs.  Two devices, one boot each:
#
#   mcq-spec      ufs-zoned MCQ, reorder=spec, 100 us writes: an ordered
#                 path, so the host checks that not one write was
#                 reordered (0 UNALIGNED WRITE, 0 kernel retries);
#   legacy-random ufs-zoned legacy doorbell with auto-hibernate, reorder=
#                 random: whenever the flipper turns pipelining on, the
#                 device reorders and the kernel retries (the host checks
#                 that it did).
#
#   tests/guest/test-pipeline-churn.sh [run-guest options]
#
# Output is TAP (guest checks, then "host:" checks); exit 0 iff it passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
rc=0

scenario() {    # scenario NAME DEVICE-PROPS [run-guest options]
    local name=$1 props=$2 logdir img
    shift 2
    logdir=$B/guest-logs/pipeline-churn-$name
    mkdir -p "$logdir"
    img=$logdir/zbc.img
    rm -f "$img"
    truncate -s $size "$img"
    out=$logdir/run-guest.out
    "$top/scripts/run-guest" --plan pipeline-churn --log-dir "$logdir" --timeout 420 \
        --qom /machine/peripheral/ufs0:unaligned-writes "$@" -- \
        -drive "file=$img,if=none,id=zbc0,format=raw,cache=unsafe" \
        -device "ufs-zoned,id=ufs0,$props" \
        -device "scsi-zbc,bus=ufs0.0,lun=0,drive=zbc0,zone-size=4M,conv-zones=1" |
        tee "$out" || rc=1
    rm -f "$img"
}

# unaligned OUT, retries OUT: the device's UNALIGNED WRITE answers and the
# kernel's retries of one scenario's run.
unaligned() { awk '$1 == "ZR-QOM" && $3 == "unaligned-writes" { print $4 }' "$1"; }
retries() {
    sed -n 's/^ZR-RESULT pipeline-churn .* retries=\([0-9]*\).*/\1/p' "$1" |
        awk '{ s += $1 } END { print s + 0 }'
}

scenario mcq-spec "mode=mcq,reorder=spec,lat-write-ns=100000" "$@"
# An ordered path: whatever flips and moves, nothing may reorder a zone's
# writes, so the retry must have had nothing to hide.
u=$(unaligned "$out") r=$(retries "$out")
if [ "${u:-x}" = 0 ] && [ "$r" = 0 ]; then
    echo "ok 899 - host: mcq-spec: no write reordered (0 UNALIGNED WRITE, 0 retries)"
else
    echo "not ok 899 - host: mcq-spec: no write reordered (${u:-no} UNALIGNED WRITE, $r retries)"
    rc=1
fi
scenario legacy-random "mode=legacy,reorder=random,auto-hibernate=on" "$@"
u=$(unaligned "$out") r=$(retries "$out")
if [ "${u:-0}" -gt 0 ] && [ "$r" -gt 0 ]; then
    echo "ok 900 - host: legacy-random: the device reordered ($u UNALIGNED WRITE) and the kernel retried ($r)"
else
    echo "not ok 900 - host: legacy-random: the device reordered (${u:-no} UNALIGNED WRITE) and the kernel retried ($r)"
    rc=1
fi
exit $rc
