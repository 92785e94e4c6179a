#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ufs-smoke: Linux's ufshcd-pci drives one or more ufs-zoned controllers,
# each with a host-managed zoned LU 0 (scsi-zbc) and the first also with a
# conventional LU 1 (scsi-hd): the controllers probe in the mode the host
# configured (MCQ or the legacy doorbell), the zoned disks are host-managed
# with the configured zones, fio writes and verifies zones through every
# controller (one reorder policy each) and the conventional disk, and
# auto_hibern8 written through sysfs reaches the AHIT register.
#
# Controller i sits at PCI slot 0x10 + i (scripts/run-guest's caller puts
# it there).  The host reads the device counters afterwards (run-guest
# --qom): no UNALIGNED WRITE may have occurred with the stock kernel's one
# write per zone in flight, and the controller zr.ah8 names must have
# entered and left hibernate during the idle gaps this plan leaves.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.mode=mcq|legacy       the controllers' mode                 (ZR_MODE)
#   zr.policies=LIST         comma-separated reorder policy of each
#                            controller, for the log              (ZR_POLICIES)
#   zr.size=BYTES            zoned LU capacity                     (ZR_SIZE)
#   zr.zone_size=BYTES       zone size                             (ZR_ZONE_SIZE)
#   zr.conv=N                conventional zones of the zoned LUs   (ZR_CONV)
#   zr.hd_size=BYTES         controller 0's scsi-hd LU 1 (0 = none) (ZR_HD_SIZE)
#   zr.ah8=I                 controller whose auto_hibern8 is set to 1 ms
#                            before idle gaps (-1 = none)          (ZR_AH8)
#   zr.ah8_off=I             controller whose auto_hibern8 is set to 0
#                            (-1 = none)                           (ZR_AH8_OFF)
#   zr.gaps=N                idle gaps on controller zr.ah8 (default 10)
#   zr.pipeline=0|1          with the patched kernel, written to each zoned
#                            disk's queue/pipeline_zoned_writes first
#                            (default: left as the driver set it)
# Results: ZR-RESULT lines with each controller's disk, hardware queues and
# fio figures.
. "$ZR_LIB"

zr_need ZR_MODE ZR_POLICIES ZR_SIZE ZR_ZONE_SIZE ZR_CONV
IFS=, read -r -a policies <<< "$ZR_POLICIES"
n=${#policies[@]}
hd_size=${ZR_HD_SIZE:-0}
ah8=${ZR_AH8:--1}
ah8_off=${ZR_AH8_OFF:--1}
gaps=${ZR_GAPS:-10}
zs=$((ZR_ZONE_SIZE / 512))
nzones=$((ZR_SIZE / ZR_ZONE_SIZE))
first_seq=$((ZR_CONV * zs))

bdf() { printf '0000:00:%02x.0' $((0x10 + $1)); }
lu_dev() { zr_lu_node "$(bdf "$1")" "$2" block; }
sysfs_dir() { echo "/sys/bus/pci/drivers/ufshcd/$(bdf "$1")"; }

# 1. every controller probed, in the configured mode, with its disks
declare -a disk
for ((i = 0; i < n; i++)); do
    b=$(bdf $i)
    zr_wait_for "ufshcd on $b" 120 test -e "$(sysfs_dir $i)" ||
        zr_bail "ufshcd did not bind $b"
    if zr_wait_for "LU 0 of $b" 120 lu_dev $i 0; then
        disk[i]=$(lu_dev $i 0)
        zr_pass "controller $i ($b, reorder=${policies[i]}): LU 0 is /dev/${disk[i]}"
    else
        zr_diag "$(dmesg | grep "$b" | tail -n 20)"
        zr_bail "no disk for LU 0 of $b"
    fi
    zr_wait_for "/dev/${disk[i]}" 10 test -b "/dev/${disk[i]}" || zr_bail "no /dev/${disk[i]}"
    mcq=$(dmesg | grep "$b" | grep -c 'MCQ configured')
    hwq=$(ls "/sys/block/${disk[i]}/mq" | wc -l)
    if [ "$ZR_MODE" = mcq ]; then
        zr_is "controller $i: ufshcd configured MCQ" "$mcq" 1
        if [ "$hwq" -gt 1 ]; then
            zr_pass "controller $i: $hwq hardware queues"
        else
            zr_fail "controller $i: hardware queues" "got $hwq, want more than 1"
        fi
    else
        zr_is "controller $i: legacy doorbell (no MCQ)" "$mcq" 0
        zr_is "controller $i: one hardware queue" "$hwq" 1
    fi
    # the series' ufshcd-pci patch takes the MSI-X vector; 6.12 takes INTx
    msix=$(grep -c "PCI-MSIX-$b" /proc/interrupts || true)
    case $(uname -r) in
        *-zr-patched) zr_is "controller $i: ufshcd interrupt on MSI-X" "$msix" 1 ;;
        *) zr_is "controller $i: ufshcd interrupt on INTx (stock ufshcd-pci)" "$msix" 0 ;;
    esac
    q=/sys/block/${disk[i]}/queue
    zr_is "controller $i: /dev/${disk[i]} is host-managed" "$(zr_sysfs $q/zoned)" host-managed
    zr_is "controller $i: $nzones zones of $zs sectors" \
        "$(zr_sysfs $q/nr_zones) $(zr_sysfs $q/chunk_sectors)" "$nzones $zs"
    if [ -n "${ZR_PIPELINE:-}" ] && [ -e $q/pipeline_zoned_writes ]; then
        echo "$ZR_PIPELINE" > $q/pipeline_zoned_writes
        zr_is "controller $i: pipeline_zoned_writes = $ZR_PIPELINE" \
            "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_PIPELINE"
    fi
    zr_result "ctrl=$i bdf=$b policy=${policies[i]} mode=$ZR_MODE dev=${disk[i]} hw_queues=$hwq" \
        "nr_requests=$(zr_sysfs $q/nr_requests)"
done

# 2. the conventional LU
if [ "$hd_size" -gt 0 ]; then
    if zr_wait_for "LU 1 of $(bdf 0)" 60 lu_dev 0 1; then
        hd=$(lu_dev 0 1)
        zr_pass "controller 0: LU 1 is /dev/$hd"
        zr_wait_for "/dev/$hd" 10 test -b "/dev/$hd" || zr_bail "no /dev/$hd"
        zr_is "LU 1 is not zoned" "$(zr_sysfs /sys/block/$hd/queue/zoned)" none
        zr_is "LU 1 capacity" "$(zr_sysfs /sys/block/$hd/size)" $((hd_size / 512))
        zr_fio_verify "$hd" hd-randwrite $((hd_size / 1024)) --ioengine=io_uring --rw=randwrite \
            --bs=4k --iodepth=16 --size="$hd_size"
    else
        zr_fail "controller 0: LU 1 (scsi-hd) appeared"
    fi
fi

# 3. zoned writes with verify through every controller: four jobs, one
# zone each, 16 writes queued per job; the stock kernel keeps one write per
# zone in flight, so reordering across zones must not cause errors.
for ((i = 0; i < n; i++)); do
    zr_check "controller $i: reset all zones" blkzone reset "/dev/${disk[i]}"
    zr_fio_verify "${disk[i]}" "zoned-${policies[i]}" $((4 * ZR_ZONE_SIZE / 1024)) \
        --ioengine=io_uring --zonemode=zbd --rw=write --bs=16k --iodepth=16 \
        --numjobs=4 --group_reporting --offset=$((first_seq * 512)) \
        --offset_increment="$ZR_ZONE_SIZE" --size="$ZR_ZONE_SIZE"
    full=$(zr_zone_report "/dev/${disk[i]}" |
           awk -v a="$first_seq" -v b=$((first_seq + 4 * zs)) '$1 >= a && $1 < b && $5 == 14' | wc -l)
    zr_is "controller $i: the 4 zones fio wrote are full" "$full" 4
done

# 4. auto-hibernate through sysfs (UFSHCI AHIT): the default Linux
# programs, 0 (off) on one controller, 1 ms on another, each read back
# from the register; then idle gaps on the 1 ms one, each ended by a TEST
# UNIT READY, so that controller enters and leaves H8 once per gap.
ah8_attr() { echo "$(sysfs_dir "$1")/auto_hibern8"; }
if [ "$ah8_off" -ge 0 ]; then
    zr_is "controller $ah8_off: auto_hibern8 defaults to 150000 us" "$(zr_sysfs "$(ah8_attr $ah8_off)")" 150000
    echo 0 > "$(ah8_attr $ah8_off)" 2>/dev/null
    zr_is "controller $ah8_off: auto_hibern8 set to 0" "$(zr_sysfs "$(ah8_attr $ah8_off)")" 0
fi
if [ "$ah8" -ge 0 ]; then
    echo 1000 > "$(ah8_attr $ah8)" 2>/dev/null
    zr_is "controller $ah8: auto_hibern8 set to 1000 us" "$(zr_sysfs "$(ah8_attr $ah8)")" 1000
    sg=$(zr_lu_node "$(bdf $ah8)" 0 scsi_generic)
    ok=0
    for ((k = 0; k < gaps; k++)); do
        sleep 0.05      # an idle gap 50 times the AHIT: the link enters H8
        sg_turs "/dev/$sg" > /dev/null 2>&1 && ok=$((ok + 1))
    done
    zr_is "controller $ah8: $gaps TEST UNIT READY after idle gaps succeeded" "$ok" "$gaps"
fi

# 5. nothing went wrong on the way
zr_is "kernel log: no I/O errors" "$(dmesg | grep -c 'I/O error')" 0
bad=$(dmesg | grep -iE 'ufshcd|ufs' | grep -ciE 'hibern8.*fail|link.*broken|host reset|abort|timed out|error')
zr_is "kernel log: no ufshcd errors, aborts or resets" "$bad" 0
[ "$bad" = 0 ] || zr_diag "$(dmesg | grep -iE 'ufshcd|ufs' | grep -iE 'hibern8.*fail|link.*broken|host reset|abort|timed out|error' | head -n 20)"
zr_done
