#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvme-pipeline: zoned-write pipelining on a zoned NVMe namespace (the
# patched guest kernel).  NVMe does not advertise ordered hardware queues
# (patch 8 of the series), so queue/pipeline_zoned_writes reads 0 and the
# plan forces it as asked.  Two fio jobs, one per CPU, write and verify
# their own zones with io_uring at QD16, merging off, through the I/O
# scheduler asked for: with mq-deadline the hardware queue that asks takes
# the next write of any zone, so a zone's writes reach both SQs and a
# controller whose arbitration reorders across SQs starts some of them out
# of order.  The kernel retries every Zone Invalid Write of a pipelined
# write (patch 8); the host compares the device's count.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME            namespace (default nvme0n1)             (ZR_DEV)
#   zr.pipeline=0|1        value written to queue/pipeline_zoned_writes
#   zr.sched=NAME          I/O scheduler (default mq-deadline)     (ZR_SCHED)
#   zr.zones=N             zones each job writes (default 2)       (ZR_ZONES)
#   zr.iodepth=N           fio queue depth (default 16)            (ZR_IODEPTH)
#   zr.expect=clean|errors                                         (ZR_EXPECT)
# Results: "ZR-RESULT nvme-pipeline ..." with fio's figures and the kernel's
# I/O errors.  No counter of the kernel's retries exists for NVMe: a Zone
# Invalid Write the kernel did not retry is an I/O error, so with none the
# kernel retried exactly the device's count.
. "$ZR_LIB"

zr_need ZR_PIPELINE ZR_EXPECT
dev=${ZR_DEV:-nvme0n1}
sched=${ZR_SCHED:-mq-deadline}
zones=${ZR_ZONES:-2}
qd=${ZR_IODEPTH:-16}
q=/sys/block/$dev/queue

zr_pipelined_disk "$dev"
zr_is "pipeline_zoned_writes as nvme sets it: 0" "$(zr_sysfs $q/pipeline_zoned_writes)" 0
echo "$ZR_PIPELINE" > $q/pipeline_zoned_writes
zr_is "pipeline_zoned_writes set to $ZR_PIPELINE" "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_PIPELINE"
echo "$sched" > $q/scheduler
zr_is "scheduler $sched" "$(sed -n 's/.*\[\(.*\)\].*/\1/p' $q/scheduler)" "$sched"
echo 2 > $q/nomerges
hw=$(ls -d /sys/block/$dev/mq/* | wc -l)
zr_is "two hardware queues (two I/O SQs)" "$hw" 2

zs=$(zr_sysfs $q/chunk_sectors)
zr_check "reset all zones" blkzone reset "/dev/$dev"
e0=$(dmesg | grep -cE 'I/O error|critical')
out=/tmp/fio-nvme-pipeline.out
rc=0
fio --name=pipeline --filename="/dev/$dev" --direct=1 --ioengine=io_uring \
    --zonemode=zbd --rw=write --bs=4k --iodepth="$qd" --iodepth_batch="$qd" \
    --numjobs=2 --cpus_allowed=0-1 --cpus_allowed_policy=split \
    --size=$((zones * zs * 512)) --offset_increment=$((zones * zs * 512)) \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
    --output-format=terse --terse-version=3 > "$out" 2>&1 || rc=$?
terse=$(grep '^3;fio-' "$out" | tail -n 1)
IFS=';' read -r -a f <<< "$terse"
err=${f[4]:-?} rkb=${f[5]:-0} wkb=${f[46]:-0} iops=${f[48]:-0}
ioerr=$(( $(dmesg | grep -cE 'I/O error|critical') - e0 ))
cap_kb=$(zr_zone_report "/dev/$dev" | awk 'NR == 1 { print $3 / 2 }')
want_kb=$((2 * zones * cap_kb))
zr_result "nvme-pipeline dev=$dev pipeline=$ZR_PIPELINE sched=$sched fio_exit=$rc fio_error=$err" \
    "write_kib=$wkb verify_kib=$rkb write_iops=$iops io_errors=$ioerr"
zr_fio_expect "$ZR_EXPECT" "$rc" "$err" "$wkb" "$rkb" "$want_kb" "$ioerr" "$out" "" ""
zr_done
