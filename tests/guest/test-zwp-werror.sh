#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A write error in the middle of a stream of zoned writes, with pipelining
# off and on (guest/plans/zwp-werror.sh).  The LU is a file-backed scsi-zbc
# behind QEMU's blkdebug, which fails one write once, 512 KiB into each of
# the first two sequential zones; the kernel must report that write, keep
# the data before it, and recover after a zone report, without a warning.
# One boot per HBA:
#
#   ufs-mcq        ufs-zoned MCQ (ordered hardware queues: the patched
#                  kernel pipelines), plus a zoned null_blk with a bad block
#                  in the same boot;
#   ufs-legacy     ufs-zoned legacy doorbell, auto-hibernate off (ordered);
#   virtio-scsi    scsi-zbc on virtio-scsi-pci (not ordered: pipelining
#                  forced on through sysfs).
#
#   tests/guest/test-zwp-werror.sh [run-guest options, e.g. --verbose]
#
# Output is TAP from the guest (see scripts/run-guest); exit 0 iff it passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
zone=8192                       # sectors
inject=1024                     # sectors into each zone
rc=0

# scenario NAME PLAN-DEVS HBA-AND-LU-ARGS...: one boot; the drive is zbc0.
scenario() {
    local name=$1 devs=$2 logdir img dbg i s
    shift 2
    logdir=$B/guest-logs/zwp-werror-$name
    img=$logdir/zbc.img
    mkdir -p "$logdir"
    rm -f "$img"
    truncate -s $size "$img"
    # blkdebug: the first write that covers each sector fails with EIO, once.
    dbg="file.driver=blkdebug,file.image.driver=file,file.image.filename=$img"
    for i in 0 1; do
        s=$(( (1 + i) * zone + inject ))
        dbg="$dbg,file.inject-error.$i.event=write_aio,file.inject-error.$i.sector=$s"
        dbg="$dbg,file.inject-error.$i.errno=5,file.inject-error.$i.once=on"
    done
    "$top/scripts/run-guest" --plan zwp-werror --log-dir "$logdir" --timeout 300 \
        --param inject=$inject --param devs="$devs" "${run_args[@]}" -- \
        -drive "$dbg,format=raw,if=none,id=zbc0,cache=unsafe" "$@" || rc=1
    rm -f "$img"
}

run_args=("$@")
lu="scsi-zbc,lun=0,drive=zbc0,zone-size=4M,conv-zones=1"
scenario ufs-mcq sda,nullb -device ufs-zoned,id=ufs0,mode=mcq,reorder=none \
    -device "$lu,bus=ufs0.0"
scenario ufs-legacy sda -device ufs-zoned,id=ufs0,mode=legacy,reorder=spec \
    -device "$lu,bus=ufs0.0"
scenario virtio-scsi sda -device virtio-scsi-pci,id=vs0 -device "$lu,bus=vs0.0"
exit $rc
