#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zns-smoke: a zoned NVMe namespace is seen by Linux with the geometry the
# host configured, and fio can write and verify a few zones through it.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.zones=N           expected number of zones                 (ZR_ZONES)
#   zr.zone_size=BYTES   expected zone size                       (ZR_ZONE_SIZE)
#   zr.zone_cap=BYTES    expected zone capacity                   (ZR_ZONE_CAP)
#   zr.max_open=N        expected max open zones, 0 = no limit    (ZR_MAX_OPEN)
#   zr.max_active=N      expected max active zones, 0 = no limit  (ZR_MAX_ACTIVE)
#   zr.lbs=BYTES         expected logical block size (default 512) (ZR_LBS)
#   zr.dev=NAME          block device (default nvme0n1)            (ZR_DEV)
#   zr.fio_zones=N       zones written per fio run (default 4)     (ZR_FIO_ZONES)
#   zr.fio_bs=SIZE       fio block size (default 64k)              (ZR_FIO_BS)
#   zr.pipeline_set=V    write V (0, 1, auto) to queue/pipeline_zoned_writes
#                        first (patched kernel)                 (ZR_PIPELINE_SET)
#   zr.pipeline=0|1      expected queue/pipeline_zoned_writes (patched
#                        kernel; default: not checked)              (ZR_PIPELINE)
. "$ZR_LIB"

zr_need ZR_ZONES ZR_ZONE_SIZE ZR_ZONE_CAP ZR_MAX_OPEN ZR_MAX_ACTIVE
dev=${ZR_DEV:-nvme0n1}
lbs=${ZR_LBS:-512}
fio_zones=${ZR_FIO_ZONES:-4}
fio_bs=${ZR_FIO_BS:-64k}
q=/sys/block/$dev/queue
zone_sectors=$((ZR_ZONE_SIZE / 512))
cap_sectors=$((ZR_ZONE_CAP / 512))

# 1. the namespace shows up (NVMe probing finishes asynchronously)
if zr_wait_for "/sys/block/$dev" 120 test -e "/sys/block/$dev/queue/zoned"; then
    zr_pass "/dev/$dev appeared"
else
    zr_diag "block devices: $(ls /sys/block | tr '\n' ' ')"
    zr_bail "no /sys/block/$dev"
fi
zr_wait_for "/dev/$dev" 10 test -b "/dev/$dev" || zr_bail "no /dev/$dev node"

# 2. queue limits as configured
zr_is "zoned model is host-managed" "$(zr_sysfs $q/zoned)" host-managed
if [ -n "${ZR_PIPELINE_SET:-}" ]; then
    if echo "$ZR_PIPELINE_SET" > $q/pipeline_zoned_writes; then
        zr_pass "pipeline_zoned_writes set to $ZR_PIPELINE_SET"
    else
        zr_fail "pipeline_zoned_writes refused $ZR_PIPELINE_SET"
    fi
fi
if [ -n "${ZR_PIPELINE:-}" ]; then
    zr_is "pipeline_zoned_writes = $ZR_PIPELINE" "$(zr_sysfs $q/pipeline_zoned_writes)" "$ZR_PIPELINE"
    echo 2 > $q/nomerges     # every write its own command, so they overlap
fi
zr_is "logical block size $lbs" "$(zr_sysfs $q/logical_block_size)" "$lbs"
zr_is "chunk_sectors = zone size ($zone_sectors sectors)" "$(zr_sysfs $q/chunk_sectors)" "$zone_sectors"
zr_is "nr_zones = $ZR_ZONES" "$(zr_sysfs $q/nr_zones)" "$ZR_ZONES"
zr_is "max_open_zones = $ZR_MAX_OPEN" "$(zr_sysfs $q/max_open_zones)" "$ZR_MAX_OPEN"
zr_is "max_active_zones = $ZR_MAX_ACTIVE" "$(zr_sysfs $q/max_active_zones)" "$ZR_MAX_ACTIVE"
zr_is "capacity = zones x zone size" "$(zr_sysfs /sys/block/$dev/size)" "$((ZR_ZONES * zone_sectors))"

# 3. the zone report
report=$(zr_zone_report "/dev/$dev")
zr_is "blkzone report lists $ZR_ZONES zones" "$(printf '%s\n' "$report" | grep -c .)" "$ZR_ZONES"
bad=$(printf '%s\n' "$report" | awk -v zs="$zone_sectors" -v cap="$cap_sectors" '
    { n = NR - 1
      if ($1 != n * zs) print "zone " n ": start " $1 ", want " n * zs
      if ($2 != zs)     print "zone " n ": len " $2 ", want " zs
      if ($3 != cap)    print "zone " n ": cap " $3 ", want " cap
      if ($6 != 2)      print "zone " n ": type " $6 ", want 2 (SEQ_WRITE_REQUIRED)" }')
if [ -z "$bad" ]; then
    zr_pass "every zone: start n*$zone_sectors, len $zone_sectors, cap $cap_sectors, sequential-write-required"
else
    zr_fail "zone geometry in blkzone report" "$(printf '%s\n' "$bad" | head -n 8)"
fi
zr_check "all zones reset" blkzone reset "/dev/$dev"
nonempty=$(zr_zone_report "/dev/$dev" | awk '$4 != 0 || $5 != 1' | wc -l)
zr_is "after reset every zone is empty with wp at its start" "$nonempty" 0
zr_is "blkzone capacity = zones x capacity" \
    "$(zr_zone_capacity "/dev/$dev")" \
    "$((ZR_ZONES * cap_sectors))"

zr_result "dev=$dev model=$(zr_sysfs $q/zoned) zones=$(zr_sysfs $q/nr_zones)" \
    "zone_sectors=$(zr_sysfs $q/chunk_sectors) cap_sectors=$cap_sectors" \
    "max_open=$(zr_sysfs $q/max_open_zones) max_active=$(zr_sysfs $q/max_active_zones)" \
    "lbs=$(zr_sysfs $q/logical_block_size) max_append_kb=$(( $(zr_sysfs $q/zone_append_max_bytes) / 1024 ))"

# 4. fio: sequential writes with verification over a few zones, once with
# each asynchronous engine, on separate zones.
[ $((2 * fio_zones)) -le "$ZR_ZONES" ] || zr_bail "need at least $((2 * fio_zones)) zones for the fio runs"
first=0
for engine in libaio io_uring; do
    out=/tmp/fio-$engine.out
    t0=$(cut -d' ' -f1 /proc/uptime)
    rc=0
    fio --name="zns-$engine" --filename="/dev/$dev" --direct=1 \
        --ioengine="$engine" --iodepth=4 --zonemode=zbd --rw=write --bs="$fio_bs" \
        --offset=$((first * ZR_ZONE_SIZE)) --size=$((fio_zones * ZR_ZONE_SIZE)) \
        --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --output-format=terse --terse-version=3 > "$out" 2>&1 || rc=$?
    t1=$(cut -d' ' -f1 /proc/uptime)
    terse=$(grep '^3;fio-' "$out" | tail -n 1)
    IFS=';' read -r -a f <<< "$terse"
    err=${f[4]:-?} rkb=${f[5]:-?} wkb=${f[46]:-?} wbw=${f[47]:-?} wiops=${f[48]:-?}
    want_kb=$((fio_zones * ZR_ZONE_CAP / 1024))
    if [ $rc -eq 0 ] && [ "$err" = 0 ] && [ "$wkb" = "$want_kb" ] && [ "$rkb" = "$want_kb" ]; then
        zr_pass "fio $engine zonemode=zbd write+verify of zones $first..$((first + fio_zones - 1)): 0 errors"
    else
        zr_fail "fio $engine zonemode=zbd write+verify of zones $first..$((first + fio_zones - 1))" \
            "exit $rc, error $err, wrote ${wkb} KiB, verified ${rkb} KiB, want ${want_kb} KiB" \
            "$(tail -n 20 "$out")"
    fi
    full=$(zr_zone_report "/dev/$dev" | awk -v a="$first" -v b="$((first + fio_zones))" \
        'NR - 1 >= a && NR - 1 < b && $5 == 14' | wc -l)
    zr_is "fio $engine left its $fio_zones zones full" "$full" "$fio_zones"
    zr_result "fio engine=$engine error=$err write_kib=$wkb verify_kib=$rkb write_bw_kibs=$wbw" \
        "write_iops=$wiops seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')"
    first=$((first + fio_zones))
done

# 5. reset what we wrote; the device is empty again
zr_check "reset all zones after fio" blkzone reset "/dev/$dev"
nonempty=$(zr_zone_report "/dev/$dev" | awk '$4 != 0 || $5 != 1' | wc -l)
zr_is "every zone empty again" "$nonempty" 0

zr_done
