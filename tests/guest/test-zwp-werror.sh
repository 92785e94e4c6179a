#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A write error in the middle of a stream of zoned writes, with pipelining
# off and on (guest/plans/zwp-werror.sh).  The LU is a file-backed scsi-zbc
# behind QEMU's blkdebug, which fails the write 512 KiB into each of the
# first two sequential zones (and the kernel's five retries of it); the kernel must report that write, keep
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
    # blkdebug: the first six writes that cover each sector fail with EIO
    # (six rules of one failure each).  scsi-zbc answers MEDIUM ERROR,
    # WRITE ERROR, which Linux retries five times (scsi_check_sense(): a
    # medium error other than a read error NEEDS_RETRY; SD_MAX_RETRIES),
    # so the write fails for good, and the recovery write after it is the
    # seventh and succeeds.  (One failure alone is retried and fio never
    # sees it; the qtest /scsi-zbc/write-error covers that.)
    dbg="file.driver=blkdebug,file.image.driver=file,file.image.filename=$img"
    r=0
    for i in 0 1; do
        s=$(( (1 + i) * zone + inject ))
        for k in 1 2 3 4 5 6; do
            dbg="$dbg,file.inject-error.$r.event=write_aio,file.inject-error.$r.sector=$s"
            dbg="$dbg,file.inject-error.$r.errno=5,file.inject-error.$r.once=on"
            r=$((r + 1))
        done
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
