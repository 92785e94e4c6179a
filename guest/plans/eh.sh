#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# eh: Linux's SCSI error handler against a controller that holds some
# commands without answering (ufs-zoned x-stall-*, set by the host).  The
# plan makes the SCSI command timeout short, writes and verifies zones
# with fio, and checks that every I/O was retried successfully: no hang,
# no I/O error reaching fio, no leaked tag (afterwards no request is
# outstanding on any hardware queue, and a second fio run keeps the
# device's whole queue depth busy).  The host checks the controller's
# counters (stalled commands, aborts, cleanups, resets) afterwards.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME          disk (default sda)                          (ZR_DEV)
#   zr.cmd_timeout=S     SCSI command timeout in seconds (default 3) (ZR_CMD_TIMEOUT)
#   zr.pipeline=0|1      queue/pipeline_zoned_writes, when the kernel
#                        has it (default 0)                          (ZR_PIPELINE)
#   zr.zones=N           sequential zones written (default 2)        (ZR_ZONES)
# Results: "ZR-RESULT eh ..." with the kernel's retry count and the queue
# depth reached.
. "$ZR_LIB"

dev=${ZR_DEV:-sda}
tmo=${ZR_CMD_TIMEOUT:-3}
zones=${ZR_ZONES:-2}
q=/sys/block/$dev/queue
retries_param=/sys/module/scsi_mod/parameters/zoned_write_retries

zr_wait_for "/sys/block/$dev" 120 test -e "$q/zoned" || zr_bail "no /sys/block/$dev"
zr_wait_for "/dev/$dev" 10 test -b "/dev/$dev" || zr_bail "no /dev/$dev"
zr_is "/dev/$dev is host-managed" "$(zr_sysfs $q/zoned)" host-managed

# 1. a short command timeout, so a held command is aborted in seconds
echo "$tmo" > "/sys/block/$dev/device/timeout"
zr_is "SCSI command timeout $tmo s" "$(zr_sysfs "/sys/block/$dev/device/timeout")" "$tmo"
if [ -e "$q/pipeline_zoned_writes" ]; then
    echo "${ZR_PIPELINE:-0}" > "$q/pipeline_zoned_writes"
    zr_is "pipeline_zoned_writes = ${ZR_PIPELINE:-0}" \
        "$(zr_sysfs "$q/pipeline_zoned_writes")" "${ZR_PIPELINE:-0}"
fi
echo 2 > "$q/nomerges"
r0=$(cat "$retries_param" 2>/dev/null || echo 0)

# 2. write and verify; the held commands time out, are aborted, retried
zs=$(zr_sysfs "$q/chunk_sectors")
first=$(zr_zone_report "/dev/$dev" | awk '$6 == 2 { print $1; exit }')
zr_check "reset all zones" blkzone reset "/dev/$dev"
zr_fio_verify "$dev" eh-write $((zones * zs / 2)) --ioengine=io_uring \
    --zonemode=zbd --rw=write --bs=4k --iodepth=16 \
    --offset=$((first * 512)) --size=$((zones * zs * 512))
zr_is "kernel log: no I/O error reached the block layer" \
    "$(dmesg | grep -cE 'I/O error|critical (target|medium) error')" 0

# 3. no leaked tag: nothing outstanding, and the whole depth usable
busy=0
for t in /sys/kernel/debug/block/"$dev"/hctx*/tags; do
    [ -r "$t" ] || continue
    b=$(sed -n 's/^busy=//p' "$t")
    busy=$((busy + ${b:-0}))
done
zr_is "no request outstanding on any hardware queue (blk-mq debugfs)" "$busy" 0
zr_is "inflight counters back to zero" "$(tr -s ' ' < "/sys/block/$dev/inflight" | sed 's/^ //')" "0 0"
qd=$(zr_sysfs "/sys/block/$dev/device/queue_depth")
out=/tmp/fio-eh-depth.out
# Whole batches of $qd, submitted at once and reaped only when all are
# done, so all $qd tags are in flight right after every submission.
fio --name=eh-depth --filename="/dev/$dev" --direct=1 --ioengine=io_uring \
    --rw=randread --bs=4k --iodepth="$qd" --iodepth_batch_submit="$qd" \
    --iodepth_batch_complete_min="$qd" --size=$((zs * 512)) --offset=0 \
    --time_based --runtime=3 > "$out" 2>&1 &
fio_pid=$!
# Sample the block layer's in-flight count as fast as the shell can while
# fio runs (a measurement, not a synchronisation: the check is on the
# largest value seen; the host gives reads a service time of milliseconds,
# so each whole batch stays in flight through many samples).
max=0
while [ "$max" -lt "$qd" ] && kill -0 $fio_pid 2>/dev/null; do
    read -r rd wr < "/sys/block/$dev/inflight"
    [ $((rd + wr)) -le $max ] || max=$((rd + wr))
done
wait $fio_pid || zr_fail "fio eh-depth" "$(tail -n 10 "$out")"
zr_is "a new fio run gets all $qd tags in flight (most seen: $max)" \
    "$([ "$max" -ge "$qd" ] && echo yes || echo "no ($max)")" yes
retries=$(( $(cat "$retries_param" 2>/dev/null || echo 0) - r0 ))
zr_result "eh dev=$dev timeout=$tmo queue_depth=$qd inflight_max=$max zoned_write_retries=$retries" \
    "aborts_logged=$(dmesg | grep -ciE 'abort')" "resets_logged=$(dmesg | grep -ciE 'reset')"
zr_done
