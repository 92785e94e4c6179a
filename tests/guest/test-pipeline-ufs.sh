#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Zoned-write pipelining (guest/linux/patches) against ufs-zoned, the
# correctness scenarios of docs/benchmarks.md, one guest boot each:
#
#   mcq-none       MCQ, reorder=none: the driver advertises ordering, writes
#                  to a zone overlap at the device, the device starts them
#                  in the order rung, so no UNALIGNED WRITE at all: the
#                  series keeps a zone's writes in order up to the SQ and
#                  the controller keeps them in order up to the LU.
#   legacy-ah8off  legacy doorbell, auto-hibernate off, reorder=spec,
#                  pipelining on, QD32: a single-doorbell controller keeps
#                  ring order (no reordered start), so no UNALIGNED WRITE
#                  at all.
#   legacy-random  legacy doorbell, auto-hibernate on (so the driver does not
#   legacy-spec    advertise ordering; pipelining forced on through sysfs),
#                  reorder=random / spec, bursts with idle gaps: the device
#                  answers UNALIGNED WRITE, the kernel retries every one of
#                  them (its retry count equals the device's count), fio and
#                  verify clean.
#   legacy-noretry the same as legacy-random with the SCSI retry switched off
#                  (scsi_mod.retry_unaligned_zoned_writes=N): the errors
#                  reach fio, so the device really exposes the bug.
#
#   tests/guest/test-pipeline-ufs.sh [run-guest options, e.g. --verbose]
#
# Output is TAP (guest checks, then "host:" checks of the device counters
# read with run-guest --qom); exit 0 iff everything passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
n=800 rc=0

tap() {     # tap OK DESC
    n=$((n + 1))
    if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; rc=1; fi
}
qom() { awk -v k="$2" '$1 == "ZR-QOM" && $3 == k { print $4 }' "$1"; }
res() { sed -n "s/^ZR-RESULT pipeline .* $2=\([^ ]*\).*/\1/p" "$1" | tail -n 1; }

# scenario NAME "DEVICE-PROPS" PLAN-PARAMS...: one boot; sets $out.
scenario() {
    local name=$1 props=$2 logdir img
    shift 2
    logdir=$B/guest-logs/pipeline-$name
    mkdir -p "$logdir"
    img=$logdir/zbc.img
    rm -f "$img"
    truncate -s $size "$img"
    out=$logdir/run-guest.out
    local p=()
    for kv in "$@"; do p+=(--param "$kv"); done
    "$top/scripts/run-guest" --plan pipeline --log-dir "$logdir" --timeout 300 \
        --qom /machine/peripheral/ufs0:unaligned-writes \
        --qom /machine/peripheral/ufs0:zone-write-overlaps \
        --qom /machine/peripheral/ufs0:zone-writes-in-flight-max \
        --qom /machine/peripheral/ufs0:starts-reordered \
        ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} "${p[@]}" -- \
        -drive "file=$img,if=none,id=zbc0,format=raw,cache=unsafe" \
        -device "ufs-zoned,id=ufs0,$props" \
        -device "scsi-zbc,bus=ufs0.0,lun=0,drive=zbc0" | tee "$out" || rc=1
    rm -f "$img"
}
RUN_GUEST_ARGS=("$@")

scenario mcq-none "mode=mcq,reorder=none" \
    advertised=1 pipeline=1 retry=1 expect=clean
u=$(qom "$out" unaligned-writes) o=$(qom "$out" zone-write-overlaps) m=$(qom "$out" zone-writes-in-flight-max)
sr=$(qom "$out" starts-reordered) r=$(res "$out" retries)
tap "$([ "${o:-0}" -gt 0 ] && [ "${m:-0}" -gt 1 ] && echo 1)" \
    "mcq-none: writes to one zone overlapped at the device ($o overlaps, up to $m in service)"
tap "$([ "$sr" = 0 ] && echo 1)" \
    "mcq-none: the controller started every command in the order the host rang it (reordered starts: $sr)"
tap "$([ -n "$u" ] && [ "$u" = "$r" ] && echo 1)" \
    "mcq-none: every UNALIGNED WRITE was retried (device $u, kernel retries $r)"
# Nothing reorders on the way: the series submits a zone's writes from one
# context to one hardware queue and serialises dispatch, the controller
# starts them in SQ order and hands them to the LU in that order.
tap "$([ "$u" = 0 ] && echo 1)" "mcq-none: no UNALIGNED WRITE (got $u)"

scenario legacy-ah8off "mode=legacy,reorder=spec" \
    advertised=1 pipeline=1 retry=1 iodepth=32 expect=clean
u=$(qom "$out" unaligned-writes) o=$(qom "$out" zone-write-overlaps)
sr=$(qom "$out" starts-reordered) r=$(res "$out" retries)
tap "$([ "$sr" = 0 ] && echo 1)" \
    "legacy-ah8off: the controller started every command in ring order (reordered starts: $sr)"
tap "$([ -n "$u" ] && [ "$u" = "$r" ] && echo 1)" \
    "legacy-ah8off: every UNALIGNED WRITE was retried (device $u, kernel retries $r)"
# A single-doorbell controller without auto-hibernate keeps ring order, and
# the series rings a zone's writes in LBA order (issue 9 section 2).
tap "$([ "$u" = 0 ] && echo 1)" "legacy-ah8off: no UNALIGNED WRITE at QD32 (got $u; $o overlapping writes)"

legacy="mode=legacy,auto-hibernate=on,h8-exit-latency=200000"
burst=(advertised=0 ahit_us=1000 pipeline=1 thinktime_us=3000)
for pol in random spec; do
    scenario legacy-$pol "$legacy,reorder=$pol" "${burst[@]}" retry=1 expect=clean
    u=$(qom "$out" unaligned-writes) r=$(res "$out" retries)
    # spec: the batches rung during H8 exits are fetched in slot order
    tap "$([ "${u:-0}" -gt 0 ] && echo 1)" "legacy-$pol: the device answered UNALIGNED WRITE ($u times)"
    tap "$([ -n "$u" ] && [ "$u" = "$r" ] && echo 1)" \
        "legacy-$pol: every UNALIGNED WRITE was retried (device $u, kernel retries $r)"
done

scenario legacy-noretry "$legacy,reorder=random" "${burst[@]}" retry=0 expect=errors
u=$(qom "$out" unaligned-writes)
tap "$([ "${u:-0}" -gt 0 ] && echo 1)" "legacy-noretry: the device answered UNALIGNED WRITE ($u times)"
exit $rc
