#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The seeds' argument on nvme-zns (issue 12): zoned-write pipelining forced
# on (queue/pipeline_zoned_writes = 1) on the patched kernel, two I/O
# queues, mq-deadline, two fio jobs writing and verifying, one boot each:
#
#   none      reorder=none: the controller starts commands in the order the
#             host rang them, across SQs too: writes of one zone overlap at
#             the device and none fails.
#   spec      reorder=spec: SQs are served round robin (Arbitration Burst
#             1), in order within each.  The controller reorders starts
#             across SQs, but the series hands a zone's writes to one
#             hardware queue at a time in order, so no Zone Invalid Write:
#             the same as ufs-zoned MCQ spec (README's pipelining table).
#   random    reorder=random: a controller that executes an SQ's commands
#             in any order, which NVMe allows and the seeds' replies
#             objected with: the device answers Zone Invalid Write, the
#             kernel retries every one (no I/O error), fio verifies clean.
#   random-off the same controller with pipelining off (one write per zone
#             in flight): no Zone Invalid Write at all.
#   random-dnr the random controller with x-zone-invalid-write-dnr=on: its
#             Zone Invalid Writes carry Do Not Retry, which patch 8 honours
#             before its retry, so the retry is off and the errors reach
#             fio (and the kernel log): what pipelining costs without it.
#
#   tests/guest/test-pipeline-nvme-zns.sh [run-guest options]
#
# Output is TAP (guest checks, then "host:" checks of the device counters
# read with run-guest --qom); exit 0 iff everything passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
n=800 rc=0

tap() {     # tap OK DESC
    n=$((n + 1))
    if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; rc=1; fi
}
qom() { awk -v k="$2" '$1 == "ZR-QOM" && $3 == k { print $4 }' "$1"; }

# scenario NAME "CONTROLLER-PROPS" PLAN-PARAMS...: one boot; sets $out.
scenario() {
    local name=$1 props=$2 logdir img
    shift 2
    logdir=$B/guest-logs/pipeline-nvme-$name
    rm -rf "$logdir"
    mkdir -p "$logdir"
    img=$logdir/zns.img
    truncate -s $((64 << 20)) "$img"
    out=$logdir/run-guest.out
    local p=()
    for kv in "$@"; do p+=(--param "$kv"); done
    "$top/scripts/run-guest" --plan nvme-pipeline --log-dir "$logdir" --timeout 300 \
        --qom /machine/peripheral/nz0:zone-invalid-writes \
        --qom /machine/peripheral/nz0:zone-write-overlaps \
        --qom /machine/peripheral/nz0:starts-reordered \
        --qom /machine/peripheral/nz0:queue-starts \
        ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} "${p[@]}" -- \
        -drive "file=$img,if=none,id=zns0,format=raw,cache=unsafe" \
        -device "nvme-zns,id=nz0,queues=2,$props" \
        -device "nvme-zns-ns,bus=nz0,drive=zns0" | tee "$out" || rc=1
    rm -f "$img"
}
RUN_GUEST_ARGS=("$@")

scenario none "reorder=none" pipeline=1 expect=clean
z=$(qom "$out" zone-invalid-writes) o=$(qom "$out" zone-write-overlaps)
sr=$(qom "$out" starts-reordered) qs=$(qom "$out" queue-starts)
tap "$([ "${o:-0}" -gt 0 ] && echo 1)" \
    "none: writes of one zone overlapped at the device ($o overlaps; starts per SQ $qs)"
tap "$([ "$sr" = 0 ] && echo 1)" "none: every command started in doorbell order (reordered starts: $sr)"
tap "$([ "$z" = 0 ] && echo 1)" "none: no Zone Invalid Write (got $z)"

scenario spec "reorder=spec" pipeline=1 expect=clean
z=$(qom "$out" zone-invalid-writes) sr=$(qom "$out" starts-reordered) qs=$(qom "$out" queue-starts)
tap "$([ "${sr:-0}" -gt 0 ] && echo 1)" \
    "spec: the arbitration reordered starts across SQs ($sr; starts per SQ $qs)"
tap "$([ "$z" = 0 ] && echo 1)" \
    "spec: no Zone Invalid Write (got $z): a zone's writes stay in one SQ, in order"

scenario random "reorder=random" pipeline=1 expect=clean
z=$(qom "$out" zone-invalid-writes)
tap "$([ "${z:-0}" -gt 0 ] && echo 1)" \
    "random: commands started out of SQ order: $z Zone Invalid Writes"
tap "$(grep -q '^ok .*kernel log: no I/O error' "$out" && echo 1)" \
    "random: the kernel retried all $z of them (no I/O error reached the block layer)"

scenario random-off "reorder=random" pipeline=0 expect=clean
z=$(qom "$out" zone-invalid-writes) o=$(qom "$out" zone-write-overlaps)
tap "$([ "$z" = 0 ] && [ "$o" = 0 ] && echo 1)" \
    "random-off: one write per zone in flight: no overlap ($o), no Zone Invalid Write ($z)"

scenario random-dnr "reorder=random,x-zone-invalid-write-dnr=on" pipeline=1 expect=errors
z=$(qom "$out" zone-invalid-writes)
tap "$([ "${z:-0}" -gt 0 ] && echo 1)" "random-dnr: $z Zone Invalid Writes with Do Not Retry"
tap "$(grep -q '^ok .*fio saw I/O errors' "$out" && echo 1)" \
    "random-dnr: without the retry the errors reached fio"
exit $rc
