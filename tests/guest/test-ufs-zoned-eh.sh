#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Linux 6.12's UFS and SCSI error handling against ufs-zoned, both modes:
# the controller holds chosen commands without an answer (x-stall-*), the
# guest times out and runs its real paths, the eh plan checks that fio's
# write + verify completes with every I/O retried, no hang and no leaked
# tag.  One guest boot per scenario:
#
#   mcq-abort, legacy-abort      a write in zone 1 is held twice and the
#                                verify read of it once: ABORT TASK, then
#                                SQ cleanup (MCQ, a CQE with OCS ABORTED)
#                                or UTRLCLR (legacy), then the retry
#   mcq-lu-reset, legacy-lu-reset  the same, and the first two task
#                                management requests (the two aborts' QUERY
#                                TASK) go unanswered: Linux goes on to
#                                reset the LU and clean the commands up
#                                (MCQ: SQ cleanup, then it polls the CQ)
#   mcq-escalate, legacy-escalate  the same, and the first task management
#                                requests go unanswered too (x-stall-tm),
#                                so the abort and the LU reset fail and
#                                Linux resets the host controller
#
# Host checks (device counters read with run-guest --qom): the commands
# were held, the guest aborted them (and reset the controller when its
# task management failed), and no UNALIGNED WRITE appeared: with
# pipelining off nothing but the device could cause one.
#
#   tests/guest/test-ufs-zoned-eh.sh [run-guest options, e.g. --verbose]
#
# Output is TAP; exit 0 iff everything passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
stall_lba=$((1024 + 300))       # a block in the middle of zone 1
# Reads are held 20 ms: the plan's last fio run keeps whole batches of
# queue_depth reads in flight, and the guest shell must see one batch whole
# in /sys/block/sda/inflight.  Submitting 63 reads takes a few ms of guest
# time under icount; at 20 ms a batch stays whole after that through dozens of
# samples, in guest time under icount and under wall-clock TCG alike.
lat_read=20000000
n=700 rc=0

tap() {     # tap OK DESC
    n=$((n + 1))
    if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; rc=1; fi
}
qom() { awk -v k="$2" '$1 == "ZR-QOM" && $3 == k { print $4 }' "$1"; }

# scenario NAME "DEVICE-PROPS": one boot of the eh plan; sets $out.
scenario() {
    local name=$1 props=$2 logdir img t
    local q=()
    logdir=$B/guest-logs/eh-$name
    mkdir -p "$logdir"
    img=$logdir/zbc.img
    rm -f "$img"
    truncate -s $size "$img"
    out=$logdir/run-guest.out
    for t in stalled tm-stalled tm-aborts lu-resets cleared sq-cleanups \
             host-resets unaligned-writes; do
        q+=(--qom "/machine/peripheral/ufs0:$t")
    done
    "$top/scripts/run-guest" --plan eh --log-dir "$logdir" --timeout 400 \
        "${q[@]}" ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} \
        --param cmd_timeout=3 --param pipeline=0 -- \
        -drive "file=$img,if=none,id=zbc0,format=raw,cache=unsafe" \
        -device "ufs-zoned,id=ufs0,$props,lat-read-ns=$lat_read" \
        -device "scsi-zbc,bus=ufs0.0,lun=0,drive=zbc0" | tee "$out" || rc=1
    rm -f "$img"
}
RUN_GUEST_ARGS=("$@")

stall="x-stall-lba=$stall_lba,x-stall-blocks=1,x-stall-max=3"
for mode in mcq legacy; do
    scenario $mode-abort "mode=$mode,$stall"
    s=$(qom "$out" stalled) a=$(qom "$out" tm-aborts) u=$(qom "$out" unaligned-writes)
    tap "$([ "$s" = 3 ] && echo 1)" "$mode-abort: the controller held 3 commands (got $s)"
    tap "$([ "${a:-0}" -ge 1 ] && echo 1)" "$mode-abort: the guest aborted them with ABORT TASK ($a aborted)"
    if [ $mode = mcq ]; then
        c=$(qom "$out" sq-cleanups)
        tap "$([ "${c:-0}" -ge 1 ] && echo 1)" "$mode-abort: SQ cleanups completed them with OCS ABORTED ($c)"
    else
        c=$(qom "$out" cleared)
        tap "$([ "${c:-0}" -ge 1 ] && echo 1)" "$mode-abort: UTRLCLR cleared them ($c)"
    fi
    tap "$([ "$u" = 0 ] && echo 1)" "$mode-abort: no UNALIGNED WRITE the guest did not cause (got $u)"
    h0=$(qom "$out" host-resets)       # what bring-up alone does

    scenario $mode-lu-reset "mode=$mode,$stall,x-stall-tm=2"
    t=$(qom "$out" tm-stalled) l=$(qom "$out" lu-resets) u=$(qom "$out" unaligned-writes)
    tap "$([ "$t" = 2 ] && [ "${l:-0}" -ge 1 ] && echo 1)" \
        "$mode-lu-reset: both aborts failed ($t TM unanswered) and the guest reset the LU ($l LU resets)"
    tap "$([ "$u" = 0 ] && echo 1)" "$mode-lu-reset: no UNALIGNED WRITE the guest did not cause (got $u)"

    scenario $mode-escalate "mode=$mode,$stall,x-stall-tm=3"
    s=$(qom "$out" stalled) t=$(qom "$out" tm-stalled) h=$(qom "$out" host-resets)
    u=$(qom "$out" unaligned-writes)
    tap "$([ "${s:-0}" -ge 1 ] && [ "$t" = 3 ] && echo 1)" \
        "$mode-escalate: commands held ($s) and 3 task management requests unanswered ($t)"
    tap "$([ "${h:-0}" -gt "${h0:-0}" ] && echo 1)" \
        "$mode-escalate: the guest reset the host controller ($h HCE resets, $h0 without the escalation)"
    tap "$([ "$u" = 0 ] && echo 1)" "$mode-escalate: no UNALIGNED WRITE the guest did not cause (got $u)"
done
exit $rc
