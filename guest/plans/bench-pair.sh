#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-pair: the same fio job on the disks of several controllers in one
# guest, to compare controllers under identical conditions.  The rounds
# alternate the order (A B, B A, ...), so warm-up and drift hit every disk
# alike.  Each disk is LU zr.lun of the controller in PCI slot S.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.slots=S1,S2,...     PCI slots (hex) of the controllers       (ZR_SLOTS)
#   zr.labels=L1,L2,...    a label for each                         (ZR_LABELS)
#   zr.lun=N               LU to use on each (default 0)            (ZR_LUN)
#   zr.rw=MODE             fio rw= (default randwrite)              (ZR_RW)
#   zr.bs=SIZE             block size (default 4k)                  (ZR_BS)
#   zr.iodepth=N           queue depth (default 64)                 (ZR_IODEPTH)
#   zr.runtime=SECONDS     per run (default 10)                     (ZR_RUNTIME)
#   zr.rounds=N            runs per disk (default 2)                (ZR_ROUNDS)
#   zr.size=BYTES          region of the disk fio uses (default 256 MiB)
# Results: "ZR-RESULT bench-pair label=.. round=.. iops=.. kib_s=.. err=.."
# per run.
. "$ZR_LIB"

zr_need ZR_SLOTS ZR_LABELS
IFS=, read -r -a slots <<< "$ZR_SLOTS"
IFS=, read -r -a labels <<< "$ZR_LABELS"
lun=${ZR_LUN:-0}
rw=${ZR_RW:-randwrite}
bs=${ZR_BS:-4k}
iodepth=${ZR_IODEPTH:-64}
runtime=${ZR_RUNTIME:-10}
rounds=${ZR_ROUNDS:-2}
size=${ZR_SIZE:-$((256 << 20))}
n=${#slots[@]}

zr_slot_disks "$lun" "${slots[@]}"
dev=("${zr_disks[@]}")
for ((i = 0; i < n; i++)); do
    zr_pass "${labels[i]}: /dev/${dev[i]} ($(zr_sysfs /sys/block/${dev[i]}/queue/nr_requests) requests, $(ls /sys/block/${dev[i]}/mq | wc -l) hardware queues)"
done

for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < n; k++)); do
        i=$(( r % 2 ? n - 1 - k : k ))
        out=$(/opt/fio/fio --name=pair --filename="/dev/${dev[i]}" --direct=1 \
            --ioengine=io_uring --iodepth="$iodepth" --bs="$bs" --rw="$rw" \
            --size="$size" --time_based=1 --runtime="$runtime" --norandommap=1 \
            --randrepeat=1 --output-format=terse --terse-version=3 2>&1)
        rc=$?
        line=$(printf '%s\n' "$out" | grep '^3;fio-' | tail -n 1)
        IFS=';' read -r -a f <<< "$line"
        # terse v3: 5 = error; read 7 = KiB/s, 8 = IOPS; write 48, 49
        case $rw in
        *read*) bw=${f[6]:-0} iops=${f[7]:-0} ;;
        *) bw=${f[47]:-0} iops=${f[48]:-0} ;;
        esac
        err=${f[4]:-?}
        if [ $rc -eq 0 ] && [ "$err" = 0 ]; then
            zr_pass "${labels[i]} round $r: $iops IOPS, no error"
        else
            zr_fail "${labels[i]} round $r" "exit $rc, error $err" "$out"
        fi
        zr_result bench-pair label="${labels[i]}" round="$r" iops="$iops" kib_s="$bw" err="$err"
    done
done
zr_done
