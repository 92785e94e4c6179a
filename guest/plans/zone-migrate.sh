#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zone-migrate: fio writes and verifies zones while the host migrates the
# VM to a file and starts it again from there
# (tests/guest/test-zone-migrate.sh).  The plan does not see the
# migration: it starts fio, says "ZR-MIGRATE-NOW" on the console once part
# of the data is written (the host then migrates; the rest of the plan
# runs in the destination QEMU), and checks what fio and the zones say at
# the end.
#
#   1. fio, zonemode=zbd, writes zr.zones sequential zones from the first
#      one at queue depth 16 (libaio, O_DIRECT, 64 KiB) with a crc32c
#      header in every block, then reads everything back and verifies it;
#   2. once 1/4 of the writes are done: ZR-MIGRATE-NOW;
#   3. fio ended without an error, each zone written is FULL, the rest
#      EMPTY, and no write failed as unaligned (the kernel's retry counter:
#      with pipelining on, commands in flight at the migration must not
#      come back as UNALIGNED WRITE COMMAND; the device also reorders,
#      so retries happen, but none may fail).
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME     disk (default sda)                               (ZR_DEV)
#   zr.zones=N      zones to write (default 4)                     (ZR_ZONES)
#   zr.check=1      only check, on a cold boot after the migration:
#                   the zones FULL (the rest EMPTY) and fio's verify of
#                   the data                                       (ZR_CHECK)
# Pipelining is on (queue/pipeline_zoned_writes = 1).
. "$ZR_LIB"

dev=${ZR_DEV:-sda}
nz=${ZR_ZONES:-4}
q=/sys/block/$dev/queue

zr_pipelined_disk "$dev"
zs=$(zr_sysfs "$q/chunk_sectors")
mapfile -t seq < <(zr_zone_report "/dev/$dev" | awk '$6 == 2 { print $1 }')
[ ${#seq[@]} -gt "$nz" ] || zr_bail "/dev/$dev has fewer than $((nz + 1)) sequential zones"
start=${seq[0]}
echo 1 > "$q/pipeline_zoned_writes"
pl=$(zr_sysfs "$q/pipeline_zoned_writes")

# A cold boot after the migration: the zones and the data are there.
if [ "${ZR_CHECK:-0}" = 1 ]; then
    for ((i = 0; i <= nz; i++)); do
        c=$(zr_zone_report "/dev/$dev" | awk -v s="${seq[i]}" '$1 == s { print $5; exit }')
        zr_is "cold boot: zone at ${seq[i]} is $([ $i -lt "$nz" ] && echo FULL || echo EMPTY)" \
            "$c" "$([ $i -lt "$nz" ] && echo 14 || echo 1)"
    done
    zr_check "cold boot: fio verifies the $nz zones" \
        fio --name=migrate --filename="/dev/$dev" --rw=write --bs=64k \
        --ioengine=psync --direct=1 --offset=$((start * 512)) \
        --size=$((nz * zs * 512)) --verify=crc32c --verify_only=1 \
        --verify_fatal=1 --output-format=terse --terse-version=3
    zr_done
fi

writes_done() { awk '{ print $5 }' "/sys/block/$dev/stat"; }
w0=$(writes_done)
fio --name=migrate --filename="/dev/$dev" --zonemode=zbd --rw=write \
    --bs=64k --iodepth=16 --ioengine=libaio --direct=1 \
    --offset=$((start * 512)) --size=$((nz * zs * 512)) \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_dump=0 \
    --output-format=terse --terse-version=3 > /tmp/fio-migrate.out 2>&1 &
pid=$!
total=$((nz * zs * 512 / 65536))
for ((i = 0; i < 6000; i++)); do
    [ $(($(writes_done) - w0)) -lt $((total / 4)) ] || break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
done
echo "ZR-MIGRATE-NOW writes=$(($(writes_done) - w0)) of $total"
rc=0
wait "$pid" || rc=$?
zr_is "fio wrote and verified $nz zones across the migration" "$rc" 0
[ "$rc" = 0 ] || zr_diag "$(tail -n 5 /tmp/fio-migrate.out)"
for ((i = 0; i <= nz; i++)); do
    c=$(zr_zone_report "/dev/$dev" | awk -v s="${seq[i]}" '$1 == s { print $5; exit }')
    if [ "$i" -lt "$nz" ]; then
        zr_is "zone at ${seq[i]} is FULL" "$c" 14
    else
        zr_is "zone at ${seq[i]} is EMPTY" "$c" 1
    fi
done
zr_is "no kernel I/O error" "$(dmesg | grep -c 'I/O error\|critical target error')" 0
zr_result "zone-migrate zones=$nz pipeline=$pl" \
    "retries=$(cat /sys/module/scsi_mod/parameters/zoned_write_retries 2>/dev/null || echo 0)"
zr_done
