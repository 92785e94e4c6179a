#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# lat-qd1: the completion latency one command at a time sees (issue 14):
# fio, psync, iodepth 1, O_DIRECT, 4 KiB, on the disks of several
# controllers in one guest, with the interrupts and IPIs each run took
# (/proc/interrupts before and after).  The rounds alternate the order of
# the disks, so warm-up and drift hit every disk alike.  The region is a
# conventional zone of a zoned disk (zr.offset, zr.size), so writes need
# no zone management.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.slots=S1,S2,...     PCI slots (hex) of the controllers       (ZR_SLOTS)
#   zr.labels=L1,L2,...    a label for each                         (ZR_LABELS)
#   zr.lun=N               LU to use on each (default 0)            (ZR_LUN)
#   zr.rw=MODE             write or read (default write)            (ZR_RW)
#   zr.bs=SIZE             block size (default 4k)                  (ZR_BS)
#   zr.runtime=SECONDS     per run (default 5)                      (ZR_RUNTIME)
#   zr.rounds=N            runs per disk (default 2)                (ZR_ROUNDS)
#   zr.offset=BYTES        start of the region (default 0)          (ZR_OFFSET)
#   zr.size=BYTES          region (default 4 MiB)                   (ZR_SIZE)
#   zr.cpus=LIST           fio cpus_allowed (default: any)          (ZR_CPUS)
# Results, one per run:
#   ZR-RESULT lat-qd1 label=.. round=.. rw=.. iops=.. clat_mean_us=..
#     clat_p50_us=.. clat_p99_us=.. irqs=.. loc=.. res=.. cal=.. err=..
# irqs: interrupts of the disk's controller (its /proc/interrupts line,
# found by the PCI address); loc, res, cal: local timer interrupts,
# rescheduling and function-call IPIs, all CPUs.
. "$ZR_LIB"

IFS=, read -r -a slots <<< "${ZR_SLOTS:?zr.slots is required}"
IFS=, read -r -a labels <<< "${ZR_LABELS:-${ZR_SLOTS}}"
lun=${ZR_LUN:-0}
rw=${ZR_RW:-write}
bs=${ZR_BS:-4k}
runtime=${ZR_RUNTIME:-5}
rounds=${ZR_ROUNDS:-2}
offset=${ZR_OFFSET:-0}
size=${ZR_SIZE:-$((4 << 20))}
n=${#slots[@]}

# irq_count PATTERN: the sum over CPUs of the /proc/interrupts lines
# matching PATTERN
irq_count() {
    awk -v pat="$1" -v cpus="$(grep -c '^processor' /proc/cpuinfo)" '
        $0 ~ pat { for (i = 2; i <= cpus + 1; i++) s += $i }
        END { print s + 0 }' /proc/interrupts
}

# The /proc/interrupts lines of the controller in slot $1: its INTx line
# by number, its MSI or MSI-X vectors by PCI address.
dev_irq() {
    local irq
    irq=$(cat "/sys/bus/pci/devices/0000:00:$1.0/irq" 2>/dev/null)
    echo "(^ *$irq:)|(0000:00:$1\\.0)"
}

zr_slot_disks "$lun" "${slots[@]}"
dev=("${zr_disks[@]}")
for ((i = 0; i < n; i++)); do
    zr_pass "${labels[i]}: /dev/${dev[i]} (IRQ $(cat /sys/bus/pci/devices/0000:00:${slots[i]}.0/irq), $(ls /sys/block/${dev[i]}/mq | wc -l) hardware queues)"
done

for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < n; k++)); do
        i=$(( r % 2 ? n - 1 - k : k ))
        pat=$(dev_irq "${slots[i]}")
        irq0=$(irq_count "$pat") loc0=$(irq_count '^ *LOC:')
        res0=$(irq_count '^ *RES:') cal0=$(irq_count '^ *CAL:')
        out=$(/opt/fio/fio --name=lat --filename="/dev/${dev[i]}" --direct=1 \
            --ioengine=psync --iodepth=1 --bs="$bs" --rw="$rw" \
            --offset="$offset" --size="$size" --time_based=1 \
            --runtime="$runtime" --percentile_list=50:99 \
            ${ZR_CPUS:+--cpus_allowed="$ZR_CPUS"} \
            --output-format=terse --terse-version=3 2>&1)
        rc=$?
        irqs=$(( $(irq_count "$pat") - irq0 )) loc=$(( $(irq_count '^ *LOC:') - loc0 ))
        res=$(( $(irq_count '^ *RES:') - res0 )) cal=$(( $(irq_count '^ *CAL:') - cal0 ))
        line=$(printf '%s\n' "$out" | grep '^3;fio-' | tail -n 1)
        # terse v3 (1-based): 5 error; read: 8 IOPS, 16 clat mean (us),
        # 18-37 percentiles; write: the same 41 fields later
        base=$([ "$rw" = read ] && echo 0 || echo 41)
        set -- $(printf '%s\n' "$line" | awk -F';' -v b="$base" '{
            p50 = p99 = "?"
            for (i = b + 18; i <= b + 37; i++) {
                if ($i ~ /^50\.0+%=/) { sub(/.*=/, "", $i); p50 = $i }
                if ($i ~ /^99\.0+%=/) { sub(/.*=/, "", $i); p99 = $i }
            }
            print $5, $(b + 8), $(b + 16), p50, p99 }')
        err=${1:-?} iops=${2:-0} mean=${3:-?} p50=${4:-?} p99=${5:-?}
        if [ $rc -eq 0 ] && [ "$err" = 0 ]; then
            zr_pass "${labels[i]} round $r: $iops IOPS, clat mean $mean us"
        else
            zr_fail "${labels[i]} round $r" "exit $rc, error $err" "$out"
        fi
        zr_result lat-qd1 label="${labels[i]}" round="$r" rw="$rw" \
            iops="$iops" clat_mean_us="$mean" clat_p50_us="$p50" \
            clat_p99_us="$p99" irqs="$irqs" loc="$loc" res="$res" \
            cal="$cal" err="$err"
    done
done
zr_done
