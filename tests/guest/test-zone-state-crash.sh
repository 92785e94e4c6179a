#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Crash consistency of the zone state kept by the core's persistence layer
# (zone-state=DRIVE, docs/devel/zone-state.md), on scsi-zbc and on
# nvme-zns namespaces: a guest writes a zone in chunks, flushing
# after each (guest/plans/zone-crash.sh); the host kills QEMU with SIGKILL
# after the Nth flush it saw acknowledged, N different each round, and
# boots again on the same image and zone-state drive, on virtio-scsi and
# on ufs-zoned (MCQ; the LU is a scsi-zbc), and on nvme-zns (the flush is
# an NVMe Flush).  Each boot first
# checks every zone written so far: the write pointer is at or above what
# the last acknowledged flush covered and at most one chunk above, every
# chunk below it holds its data, and no zone came back open.  Then it
# writes the next zone, until the next kill.  A last boot only checks.
# On ufs-zoned the first round is a clean restart instead (the zone written
# whole, QEMU shut down by the guest), then one kill.
#
# What a SIGKILL can show: the drives are files with cache=writeback, and
# the host's page cache survives the kill of QEMU, so data that was
# written but never flushed is still there.  The write pointer half of the
# check is the real one (the zone state never runs behind an acknowledged
# flush, nor ahead of the data); that the zone state never claims data
# that did not reach the medium is checked by the core's design and the
# qtests, not here.
#
#   tests/guest/test-zone-state-crash.sh [run-guest options]
#
# Output is TAP (the guest's checks of each boot, then "host:" checks);
# exit 0 iff everything passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
zone=8192                       # sectors
logdir=$B/guest-logs/zone-crash
img=$logdir/zbc.img
state=$logdir/zbc.zones
n=900 rc=0
RUN_GUEST_ARGS=("$@")

tap() {     # tap OK DESC
    n=$((n + 1))
    if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; rc=1; fi
}

mkdir -p "$logdir"

# boot DIR [run-guest args...]: one boot of the plan on the two drives,
# behind the HBA of $hba
boot() {
    local dir=$1 lu="drive=zbc0,zone-state=zs0,zone-size=4M,conv-zones=1"
    local -a dev param=()
    shift
    case $hba in
        virtio-scsi) dev=(-device virtio-scsi-pci,id=vs0 -device "scsi-zbc,bus=vs0.0,$lu") ;;
        ufs-mcq) dev=(-device ufs-zoned,id=ufs0,mode=mcq -device "scsi-zbc,bus=ufs0.0,lun=0,$lu") ;;
        nvme-zns) dev=(-device nvme-zns,id=nz0
                       -device nvme-zns-ns,bus=nz0,drive=zbc0,zone-state=zs0,zone-size=4M)
                  param=(--param dev=nvme0n1) ;;
    esac
    "$top/scripts/run-guest" --plan zone-crash --log-dir "$dir" --timeout 300 \
        "${param[@]}" "$@" -- \
        -drive "file=$img,if=none,id=zbc0,format=raw,cache=writeback" \
        -drive "file=$state,if=none,id=zs0,format=raw,cache=writeback" \
        "${dev[@]}"
}

# guest_checks DIR: the plan's TAP lines of a boot
guest_checks() {
    tr -d '\r' < "$1/console.log" | grep -E '^(not )?ok [0-9]+ - ' || true
}

# scenario HBA KILLS...: rounds that each write a zone and are killed
# after KILLS[r] acknowledged flushes, then a checking boot
scenario() {
    local hba=$1 acked= restarts=0 r dir start want pid wp line
    local -a kills
    shift
    kills=("$@")
    rm -f "$img" "$state"
    truncate -s $size "$img"
    : > "$state"                # empty: formatted at the first start
    for ((r = 0; r < ${#kills[@]}; r++)); do
        dir=$logdir/$hba-round$r
        mkdir -p "$dir"
        rm -f "$dir/console.log"
        start=$(( (1 + r) * zone ))
        boot "$dir" --param acked="$acked" --param write=$start \
            ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} > "$dir/run-guest.out" 2>&1 &
        runner=$!
        # Wait for the Nth acknowledged flush on the console (tail -F waits for
        # the file to appear), then kill QEMU: no timing involved.  N = 0:
        # no kill, the plan writes the whole zone and QEMU shuts down.
        want=${kills[$r]}
        if [ "$want" = 0 ]; then
            wait "$runner" || true
            grep -q "zone-crash PASS" "$dir/run-guest.out" && pid=clean || pid=
        else
        # (A plan that ends without them ends the wait too: its verdict line.)
        # read takes tail's output line by line as it comes (no buffering
        # tool in between).
        timeout 280 tail -n +1 -F "$dir/console.log" 2>/dev/null | {
            seen=0
            while IFS= read -r l; do
                l=${l%$'\r'}
                case $l in
                    ZR-ACKED*) seen=$((seen + 1)); [ $seen -lt "$want" ] || break;;
                    ZR-VERDICT*) break;;
                esac
            done
        } || true
        # QEMU itself, not the timeout(1) that run-guest wraps it in
        pid=$(pgrep -f -- "^[^ ]*qemu-system-x86_64 .*$dir/qmp.sock" | head -n 1 || true)
        if [ -n "$pid" ]; then
            kill -KILL "$pid"
        fi
        wait "$runner" || true
        fi
        # Every flush acknowledged on the console before the kill must survive
        # (the guest prints the line after the flush completed).
        line=$(tr -d '\r' < "$dir/console.log" | grep '^ZR-ACKED' | tail -n 1 || true)
        guest_checks "$dir"
        if ! tr -d '\r' < "$dir/console.log" | grep -q '^not ok'; then
            [ $r -eq 0 ] || restarts=$((restarts + 1))
        fi
        wp=$(sed -n 's/^ZR-ACKED start=[0-9]* wp=\([0-9]*\).*/\1/p' <<< "$line")
        if [ "$want" = 0 ]; then
            tap "$([ "$pid" = clean ] && [ -n "$wp" ] && echo 1)" \
                "$hba round $r: zone $start written to $wp, clean shutdown"
        else
            tap "$([ -n "$pid" ] && [ -n "$wp" ] && echo 1)" \
                "$hba round $r: QEMU killed with SIGKILL after $want acknowledged flushes (zone $start acknowledged up to $wp)"
        fi
        acked="${acked:+$acked,}$start:${wp:-0}"
    done

    dir=$logdir/$hba-final
    boot "$dir" --param acked="$acked" ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} \
        > "$dir.out" 2>&1 || true
    guest_checks "$dir"
    if grep -q "zone-crash PASS" "$dir.out"; then
        restarts=$((restarts + 1))
        tap 1 "$hba: the last boot checked all ${#kills[@]} zones and passed"
    else
        tap 0 "$hba: the last boot checked all ${#kills[@]} zones and passed ($(tail -n 3 "$dir.out"))"
    fi
    tap "$([ $restarts -eq ${#kills[@]} ] && echo 1)" \
        "$hba: $restarts of ${#kills[@]} restarts were consistent"
    echo "ZR-RESULT zone-state-crash hba=$hba kills=${#kills[@]} consistent_restarts=$restarts acked=$acked"
}

scenario virtio-scsi 3 1 6 2 4
scenario ufs-mcq 0 2
scenario nvme-zns 0 2 5
rm -f "$img" "$state"
exit $rc
