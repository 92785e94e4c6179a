#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-fio: the seeds' zoned-write benchmark on one zoned block device.
# Sequential 4 KiB writes, zonemode=zbd, io_uring, direct, iodepth 64 in
# batches of 16, once per I/O scheduler; fio verifies nothing here (the
# correctness plans do) but every I/O error is counted and fails the plan.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME|nullb     block device, or "nullb" for a zoned null_blk
#                         created here (completion_nsec as the seeds)  (ZR_DEV)
#   zr.label=TEXT         row label for the results                  (ZR_LABEL)
#   zr.scheds=A,B         I/O schedulers (default none,mq-deadline)  (ZR_SCHEDS)
#   zr.runtime=SECONDS    per run (default 10)                       (ZR_RUNTIME)
#   zr.nullb_lat_ns=NS    null_blk completion_nsec (default 100000)  (ZR_NULLB_LAT_NS)
# Results: one "ZR-RESULT bench label=.. sched=.. iops=.. kib_s=.. err=..
# ios=.." line per run.
. "$ZR_LIB"

zr_need ZR_DEV ZR_LABEL
scheds=${ZR_SCHEDS:-none,mq-deadline}
runtime=${ZR_RUNTIME:-10}
dev=$ZR_DEV

if [ "$dev" = nullb ]; then
    # A zoned null_blk as in the seeds' script: timer completions after
    # completion_nsec, queue depth 64, one submission queue.
    # /init mounts configfs.
    d=/sys/kernel/config/nullb/zrbench
    mkdir $d || zr_bail "cannot create $d (is null_blk built in with configfs?)"
    for p in completion_nsec=${ZR_NULLB_LAT_NS:-100000} hw_queue_depth=64 \
             irqmode=2 memory_backed=0 size=256 submit_queues=1 \
             zoned=1 zone_size=16 power=1; do
        echo "${p#*=}" > "$d/${p%%=*}" || zr_bail "null_blk: cannot set $p"
    done
    # Linux 6.12 names a configfs-made disk after its directory; older
    # kernels used nullb<index>.
    dev=zrbench
    [ -e /sys/block/$dev ] || dev=nullb$(cat $d/index)
    zr_diag "null_blk disk: $dev"
fi

zr_wait_for "/sys/block/$dev" 60 test -e "/sys/block/$dev/queue/zoned" ||
    zr_bail "no /sys/block/$dev"
zr_is "$dev is host-managed" "$(zr_sysfs /sys/block/$dev/queue/zoned)" host-managed

for sched in ${scheds//,/ }; do
    blkzone reset "/dev/$dev" || zr_bail "blkzone reset /dev/$dev failed"
    out=$(/opt/fio/fio --name=bench --filename="/dev/$dev" --direct=1 \
        --ioengine=io_uring --iodepth=64 --iodepth_batch=16 --bs=4k \
        --rw=write --zonemode=zbd --ioscheduler="$sched" \
        --time_based=1 --runtime="$runtime" \
        --output-format=terse --terse-version=3 2>&1)
    rc=$?
    # terse v3: field 5 = error, 47 = write KiB, 48 = write KiB/s,
    # 49 = write IOPS
    line=$(printf '%s\n' "$out" | grep '^3;fio-' | tail -n 1)
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        zr_fail "fio on $dev with $sched" "exit status $rc" "$out"
        zr_result bench label="$ZR_LABEL" sched="$sched" iops=0 kib_s=0 err=1 ios=0
        continue
    fi
    IFS=';' read -r -a f <<< "$line"
    err=${f[4]} kib=${f[46]} bw=${f[47]} iops=${f[48]}
    zr_is "fio on $dev with $sched: no I/O error" "$err" 0
    zr_result bench label="$ZR_LABEL" sched="$sched" iops="$iops" kib_s="$bw" \
        err="$err" ios=$((kib / 4))
done
zr_done
