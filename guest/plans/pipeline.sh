#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pipeline: zoned-write pipelining on one host-managed disk (needs the
# patched guest kernel, guest/linux/patches).  Checks what the driver
# advertises (queue/pipeline_zoned_writes), sets pipelining and the SCSI
# retry of UNALIGNED WRITE as asked, runs fio sequential zoned writes with
# verify, and checks the outcome: "clean" (fio and verify without error)
# or "errors" (fio sees I/O errors: what a reordering device does to
# pipelined writes that nobody retries).  The host checks the device's own
# counters afterwards (scripts/run-guest --qom).
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME            disk (default sda)                        (ZR_DEV)
#   zr.advertised=0|1      what queue/pipeline_zoned_writes must read
#                          before this plan changes it               (ZR_ADVERTISED)
#   zr.pipeline=0|1        value written to it                       (ZR_PIPELINE)
#   zr.retry=0|1           scsi_mod.retry_unaligned_zoned_writes     (ZR_RETRY)
#   zr.ahit_us=US          auto_hibern8 of the disk's UFS controller,
#                          set before the run (default: unchanged)   (ZR_AHIT_US)
#   zr.zones=N             sequential zones written (default 4)      (ZR_ZONES)
#   zr.iodepth=N           fio queue depth (default 16)              (ZR_IODEPTH)
#   zr.thinktime_us=US     fio pause after every 16 writes, which lets the
#                          link enter hibernate between bursts (default 0)
#   zr.expect=clean|errors                                           (ZR_EXPECT)
# Kernel I/O errors are the log lines blk_print_req_error() writes ("I/O
# error", "critical target error" for UNALIGNED WRITE).
# Results: "ZR-RESULT pipeline ..." with fio's figures, the kernel's
# retries (scsi_mod.zoned_write_retries) and I/O errors.
. "$ZR_LIB"

zr_need ZR_ADVERTISED ZR_PIPELINE ZR_RETRY ZR_EXPECT
dev=${ZR_DEV:-sda}
zones=${ZR_ZONES:-4}
think=${ZR_THINKTIME_US:-0}
qd=${ZR_IODEPTH:-16}
q=/sys/block/$dev/queue
retries_param=/sys/module/scsi_mod/parameters/zoned_write_retries
retry_knob=/sys/module/scsi_mod/parameters/retry_unaligned_zoned_writes

zr_pipelined_disk "$dev"

# 1. what the driver advertises, then the configuration asked for
zr_is "pipeline_zoned_writes as the driver sets it: $ZR_ADVERTISED" \
    "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_ADVERTISED"
if [ -n "${ZR_AHIT_US:-}" ]; then
    host=$(readlink -f "/sys/block/$dev/device" | sed -n 's|.*/\(0000:[^/]*\)/host.*|\1|p')
    ah=/sys/bus/pci/drivers/ufshcd/$host/auto_hibern8
    # ufshcd re-evaluates ordering on every auto_hibern8 change: with
    # auto-hibernate off the legacy doorbell keeps order, too.
    echo 0 > "$ah" 2>/dev/null
    zr_is "auto_hibern8 of $host off: the driver advertises ordering" \
        "$(zr_sysfs "$ah") $(zr_sysfs $q/pipeline_zoned_writes)" "0 1"
    echo "$ZR_AHIT_US" > "$ah" 2>/dev/null
    zr_is "auto_hibern8 of $host set to $ZR_AHIT_US us" "$(zr_sysfs "$ah")" "$ZR_AHIT_US"
    zr_is "pipeline_zoned_writes follows auto_hibern8: $ZR_ADVERTISED" \
        "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_ADVERTISED"
fi
if echo 2 > $q/pipeline_zoned_writes 2>/dev/null; then
    zr_fail "pipeline_zoned_writes refuses 2"
else
    zr_pass "pipeline_zoned_writes refuses 2"
fi
echo "$ZR_PIPELINE" > $q/pipeline_zoned_writes
zr_is "pipeline_zoned_writes set to $ZR_PIPELINE" "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_PIPELINE"
if [ "$ZR_RETRY" = 1 ]; then echo Y > $retry_knob; else echo N > $retry_knob; fi
zr_is "scsi_mod.retry_unaligned_zoned_writes = $ZR_RETRY" \
    "$(zr_sysfs $retry_knob)" "$([ "$ZR_RETRY" = 1 ] && echo Y || echo N)"
# No merging: every 4 KiB write is its own command, as in the seeds' runs.
echo 2 > $q/nomerges

# 2. sequential writes with verify over $zones zones
zs=$(zr_sysfs $q/chunk_sectors)
first=$(zr_zone_report "/dev/$dev" | awk '$6 == 2 { print $1; exit }')
zr_check "reset all zones" blkzone reset "/dev/$dev"
r0=$(zr_sysfs $retries_param)
e0=$(dmesg | grep -cE 'I/O error|target error')
out=/tmp/fio-pipeline.out
rc=0
fio --name=pipeline --filename="/dev/$dev" --direct=1 --ioengine=io_uring \
    --zonemode=zbd --rw=write --bs=4k --iodepth="$qd" --iodepth_batch="$qd" \
    --thinktime="$think" --thinktime_blocks=16 \
    --offset=$((first * 512)) --size=$((zones * zs * 512)) \
    --verify=crc32c --do_verify=1 --verify_fatal=1 \
    --output-format=terse --terse-version=3 > "$out" 2>&1 || rc=$?
terse=$(grep '^3;fio-' "$out" | tail -n 1)
IFS=';' read -r -a f <<< "$terse"
err=${f[4]:-?} rkb=${f[5]:-0} wkb=${f[46]:-0} iops=${f[48]:-0}
retries=$(( $(zr_sysfs $retries_param) - r0 ))
ioerr=$(( $(dmesg | grep -cE 'I/O error|target error') - e0 ))
want_kb=$((zones * zs / 2))
zr_result "pipeline dev=$dev pipeline=$ZR_PIPELINE retry=$ZR_RETRY fio_exit=$rc fio_error=$err" \
    "write_kib=$wkb verify_kib=$rkb write_iops=$iops retries=$retries io_errors=$ioerr"
zr_fio_expect "$ZR_EXPECT" "$rc" "$err" "$wkb" "$rkb" "$want_kb" "$ioerr" "$out" \
    "($retries retries)" "without the retry"
[ "$ZR_EXPECT" = clean ] || zr_is "no retries with the retry switched off" "$retries" 0
zr_done
