#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-fio: the seeds' zoned-write benchmark on one zoned block device.
# Sequential 4 KiB writes, zonemode=zbd, io_uring, direct, iodepth 64 in
# batches of 16, once per I/O scheduler.  Every I/O error is counted and
# fails the plan, unless the caller expects errors.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME|nullb     block device, or "nullb" for a zoned null_blk
#                         created here (completion_nsec as the seeds)  (ZR_DEV)
#   zr.label=TEXT         row label for the results                  (ZR_LABEL)
#   zr.scheds=A,B         I/O schedulers (default none,mq-deadline)  (ZR_SCHEDS)
#   zr.runtime=SECONDS    per run, time-based (default 10)           (ZR_RUNTIME)
#   zr.size_mb=MB         instead of a time: write this much from the
#                         first sequential zone, then verify it (crc32c)
#                         and report pass/fail                      (ZR_SIZE_MB)
#   zr.pipeline=0|1       with the patched kernel: queue/pipeline_zoned_writes
#                         (default: as the driver sets it); null_blk gets
#                         pipeline_zoned_writes=1 in configfs for 1  (ZR_PIPELINE)
#   zr.nomerges=N         queue/nomerges (default 2: every 4 KiB write is a
#                         command, as in the seeds' runs)            (ZR_NOMERGES)
#   zr.nullb_lat_ns=NS    null_blk completion_nsec (default 100000)  (ZR_NULLB_LAT_NS)
#   zr.fsync=N            fio fsync=N: a cache flush every N writes
#                         (default 0, none)                          (ZR_FSYNC)
# Results: one "ZR-RESULT bench label=.. sched=.. pipeline=.. iops=..
# kib_s=.. err=.. ios=.. retries=.. io_errors=.. misordered=..
# verify=pass|fail|-" line per run (retries: scsi_mod.zoned_write_retries,
# misordered: null_blk's zone_writes_misordered, "-" without them).
. "$ZR_LIB"

zr_need ZR_DEV ZR_LABEL
scheds=${ZR_SCHEDS:-none,mq-deadline}
runtime=${ZR_RUNTIME:-10}
dev=$ZR_DEV
retries_param=/sys/module/scsi_mod/parameters/zoned_write_retries

if [ "$dev" = nullb ]; then
    # A zoned null_blk as in the seeds' script: timer completions after
    # completion_nsec, queue depth 64, one submission queue.
    # /init mounts configfs.
    d=/sys/kernel/config/nullb/zrbench
    mkdir $d || zr_bail "cannot create $d (is null_blk built in with configfs?)"
    # Data is kept only when it is to be verified.
    mb=0
    [ -z "${ZR_SIZE_MB:-}" ] || mb=1
    params="completion_nsec=${ZR_NULLB_LAT_NS:-100000} hw_queue_depth=64
            irqmode=2 memory_backed=$mb size=256 submit_queues=1 zoned=1
            zone_size=16"
    if [ "${ZR_PIPELINE:-0}" = 1 ]; then
        [ -e $d/pipeline_zoned_writes ] ||
            zr_bail "null_blk has no pipeline_zoned_writes: not the patched kernel"
        params="$params pipeline_zoned_writes=1"
    fi
    for p in $params power=1; do
        echo "${p#*=}" > "$d/${p%%=*}" || zr_bail "null_blk: cannot set $p"
    done
    # Linux 6.12 names a configfs-made disk after its directory; older
    # kernels used nullb<index>.
    dev=zrbench
    [ -e /sys/block/$dev ] || dev=nullb$(cat $d/index)
    # The patched null_blk counts zoned writes that arrived ahead of their
    # zone's write pointer (and fails them): the block layer's ordering.
    misordered_attr=$d/zone_writes_misordered
    zr_diag "null_blk disk: $dev"
fi

q=/sys/block/$dev/queue
zr_wait_for "/sys/block/$dev" 60 test -e "$q/zoned" || zr_bail "no /sys/block/$dev"
zr_is "$dev is host-managed" "$(zr_sysfs $q/zoned)" host-managed
if [ -n "${ZR_PIPELINE:-}" ]; then
    [ -e $q/pipeline_zoned_writes ] ||
        zr_bail "no $q/pipeline_zoned_writes: not the patched kernel"
    echo "$ZR_PIPELINE" > $q/pipeline_zoned_writes
    zr_is "pipeline_zoned_writes = $ZR_PIPELINE" "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_PIPELINE"
fi
echo "${ZR_NOMERGES:-2}" > $q/nomerges
pipeline=$(cat $q/pipeline_zoned_writes 2>/dev/null || echo -)
first=$(zr_zone_report "/dev/$dev" | awk '$6 == 2 { print $1; exit }')

for sched in ${scheds//,/ }; do
    blkzone reset "/dev/$dev" || zr_bail "blkzone reset /dev/$dev failed"
    if [ -n "${ZR_SIZE_MB:-}" ]; then
        amount=(--offset=$((first * 512)) --size="${ZR_SIZE_MB}M"
                --verify=crc32c --do_verify=1 --verify_fatal=1)
    else
        amount=(--time_based=1 --runtime="$runtime")
    fi
    r0=$(cat $retries_param 2>/dev/null || echo -)
    m0=$(cat "${misordered_attr:-/nonexistent}" 2>/dev/null || echo -)
    e0=$(dmesg | grep -cE 'I/O error|target error')
    out=$(/opt/fio/fio --name=bench --filename="/dev/$dev" --direct=1 \
        --ioengine=io_uring --iodepth=64 --iodepth_batch=16 --bs=4k \
        --rw=write --zonemode=zbd --ioscheduler="$sched" "${amount[@]}" \
        --fsync="${ZR_FSYNC:-0}" \
        --output-format=terse --terse-version=3 2>&1)
    rc=$?
    retries=-
    [ "$r0" = - ] || retries=$(( $(cat $retries_param) - r0 ))
    ioerr=$(( $(dmesg | grep -cE 'I/O error|target error') - e0 ))
    misordered=-
    if [ "$m0" != - ]; then
        misordered=$(( $(cat "$misordered_attr") - m0 ))
        [ "$pipeline" != 1 ] ||
            zr_is "null_blk with $sched: no pipelined write arrived ahead of its write pointer" "$misordered" 0
    fi
    # terse v3: field 5 = error, 6 = read KiB (the verify pass), 47 = write
    # KiB, 48 = write KiB/s, 49 = write IOPS
    line=$(printf '%s\n' "$out" | grep '^3;fio-' | tail -n 1)
    IFS=';' read -r -a f <<< "$line"
    err=${f[4]:-1} rkb=${f[5]:-0} kib=${f[46]:-0} bw=${f[47]:-0} iops=${f[48]:-0}
    verify=-
    if [ -n "${ZR_SIZE_MB:-}" ]; then
        verify=fail
        [ $rc -eq 0 ] && [ "$err" = 0 ] && [ "$rkb" = $((ZR_SIZE_MB * 1024)) ] && verify=pass
        zr_is "fio on $dev with $sched: wrote and verified ${ZR_SIZE_MB} MiB" "$verify" pass
    fi
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        zr_fail "fio on $dev with $sched" "exit status $rc" "$(printf '%s\n' "$out" | tail -n 20)"
    else
        zr_is "fio on $dev with $sched: no I/O error" "$err/$ioerr" 0/0
    fi
    zr_result bench label="$ZR_LABEL" sched="$sched" pipeline="$pipeline" iops="$iops" \
        kib_s="$bw" err="$err" ios=$((kib / 4)) retries="$retries" io_errors="$ioerr" \
        misordered="$misordered" \
        verify="$verify"
done
zr_done
