#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A write error in the middle of a stream of zoned writes, with pipelining
# off and on (guest/plans/zwp-werror.sh): ufs-zoned in MCQ mode (ordered
# hardware queues, so the patched kernel pipelines) with a file-backed
# scsi-zbc LU behind QEMU's blkdebug, which fails one write once, 512 KiB
# into each of the first two sequential zones.  The kernel must report that
# write, not retry the zone's writes past it, and recover after a zone
# report, without a warning.
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
logdir=$B/guest-logs/zwp-werror
img=$logdir/zbc.img
rc=0

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
    --param inject=$inject "$@" -- \
    -drive "$dbg,format=raw,if=none,id=zbc0,cache=unsafe" \
    -device "ufs-zoned,id=ufs0,mode=mcq,reorder=none" \
    -device "scsi-zbc,bus=ufs0.0,lun=0,drive=zbc0,zone-size=4M,conv-zones=1" || rc=1
rm -f "$img"
exit $rc
