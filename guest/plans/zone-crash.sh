#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zone-crash: one round of the zone state crash test
# (tests/guest/test-zone-state-crash.sh kills QEMU with SIGKILL while this
# plan writes, then boots it again on the same image and zone-state drive).
#
#   1. Check: for each zone the host names in zr.acked ("START:WP", in
#      sectors; WP is what the last flush the guest saw complete covered),
#      the write pointer after the crash is at or above WP (a write acked
#      before a completed flush is never lost) and at most one chunk above
#      it (the flush in progress at the kill may or may not have made it),
#      on a chunk boundary; every chunk below the write pointer holds its
#      pattern (the state never covers data the image does not hold), and
#      the zone is CLOSED or FULL, not open (the power-on rule).
#   2. Write: from the write pointer of the zone at sector zr.write, chunks
#      of zr.chunk sectors, each with its own byte pattern, each followed
#      by a cache flush (fsync of the disk: SYNCHRONIZE CACHE), after which
#      "ZR-ACKED start=S wp=W" goes to the console, until the zone is full.
#      The host kills QEMU after some of these lines.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME      disk (default sda)                            (ZR_DEV)
#   zr.acked=LIST    zones to check, START:WP,...                 (ZR_ACKED)
#   zr.write=START   zone to write after the check (none: check only)
#                                                                 (ZR_WRITE)
#   zr.chunk=N       sectors per chunk (default 256, 128 KiB)     (ZR_CHUNK)
. "$ZR_LIB"

dev=${ZR_DEV:-sda}
chunk=${ZR_CHUNK:-256}
q=/sys/block/$dev/queue

zr_wait_for "/sys/block/$dev" 120 test -e "$q/zoned" || zr_bail "no /sys/block/$dev"
zr_wait_for "/dev/$dev" 10 test -b "/dev/$dev" || zr_bail "no /dev/$dev"
zr_is "/dev/$dev is host-managed" "$(zr_sysfs $q/zoned)" host-managed
zs=$(zr_sysfs "$q/chunk_sectors")

# zone START: "WP COND" of the zone at START (WP in sectors from its start)
zone() {
    zr_zone_report "/dev/$dev" | awk -v s="$1" '$1 == s { print $4, $5; exit }'
}

# pattern START OFF: the byte value of the chunk at OFF sectors into the
# zone at START, as three octal digits for tr
pattern() {
    printf '%03o' $(( ((($1 / zs) * 31 + $2 / chunk) % 250) + 1 ))
}

# chunk_ok START OFF: the chunk holds its pattern, read with O_DIRECT
chunk_ok() {
    head -c $((chunk * 512)) /dev/zero | tr '\000' "\\$(pattern "$1" "$2")" > /tmp/ref
    dd if="/dev/$dev" bs=4096 skip=$(( ($1 + $2) / 8 )) count=$((chunk / 8)) \
        iflag=direct 2>/dev/null | cmp -s - /tmp/ref
}

# 1. the zones written before the crash
for ent in ${ZR_ACKED//,/ }; do
    start=${ent%%:*} acked=${ent#*:}
    read -r wp cond <<< "$(zone "$start")"
    if [ -n "$wp" ] && [ "$wp" -ge "$acked" ] && [ "$wp" -le $((acked + chunk)) ] &&
       [ $((wp % chunk)) -eq 0 ]; then
        zr_pass "zone $start: write pointer $wp: the flushed $acked survived, at most one chunk more"
    else
        zr_fail "zone $start: write pointer at $acked or one chunk above" "write pointer ${wp:-none}"
        continue
    fi
    # 4 = CLOSED, 14 = FULL (blkzone's numbers); 1 = EMPTY when wp is 0
    zr_is "zone $start: not left open by the crash" \
        "$(case $cond in 4|14) echo closed-or-full;; 1) [ "$wp" = 0 ] && echo closed-or-full;; *) echo "cond $cond";; esac)" \
        closed-or-full
    bad=none
    for ((off = 0; off < wp; off += chunk)); do
        chunk_ok "$start" "$off" || { bad=$off; break; }
    done
    zr_is "zone $start: every chunk below the write pointer holds its data" "$bad" none
done

# 2. write
if [ -n "${ZR_WRITE:-}" ]; then
    start=$ZR_WRITE
    read -r wp cond <<< "$(zone "$start")"
    [ -n "$wp" ] || zr_bail "no zone at sector $start"
    cap=$(zr_zone_report "/dev/$dev" | awk -v s="$start" '$1 == s { print $3; exit }')
    zr_diag "writing zone $start from $wp to $cap, $chunk sectors a chunk"
    while [ "$wp" -lt "$cap" ]; do
        # zonemode=zbd writes at the zone's write pointer; io_size is the
        # chunk (fio wants size to be at least a zone)
        fio --name=crash --filename="/dev/$dev" --direct=1 --zonemode=zbd \
            --rw=write --bs=4k --iodepth=8 --ioengine=libaio \
            --offset=$((start * 512)) --size=$((zs * 512)) \
            --io_size=$((chunk * 512)) \
            --buffer_pattern="0x$(printf '%02x' $((8#$(pattern "$start" "$wp"))))" \
            > /tmp/fio-crash.out 2>&1 || zr_bail "fio: $(grep -v '^ *$' /tmp/fio-crash.out | tail -n 3)"
        dd if=/dev/null of="/dev/$dev" count=0 conv=notrunc,fsync 2>/dev/null ||
            zr_bail "flush of /dev/$dev failed"
        wp=$((wp + chunk))
        echo "ZR-ACKED start=$start wp=$wp up=$(cut -d" " -f1 /proc/uptime)"
    done
    zr_pass "zone $start written to its capacity ($cap sectors)"
fi
zr_done
