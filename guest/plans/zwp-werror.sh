#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zwp-werror: a write error in the middle of a stream of zoned writes, with
# pipelining off and on (needs the patched guest kernel).  One write fails
# ZR_INJECT sectors into each of the first two sequential zones: on a
# QEMU disk the host (tests/guest/test-zwp-werror.sh) makes the backing
# image fail it once with EIO (QEMU's blkdebug); on a zoned null_blk made
# here ("nullb") a bad block fails it (null_blk's badblocks, cleared after
# the stream so the zone can recover).  Per zone, fio writes the zone with 0xa5, 4 KiB writes at
# queue depth 16 (libaio, no merging, so each request is one write):
#   - fio fails with ENODATA (the device's MEDIUM ERROR, WRITE ERROR) or
#     EIO (a later write the device then refused as unaligned, or
#     null_blk's error), and the lowest sector the kernel reports an error
#     for ("... error, dev sda, sector N") is the injected one: the writes
#     before it were not failed with it;
#   - a zone report then shows the device's write pointer exactly at the
#     failed write: every write before it landed, and the device never
#     reports a write its write pointer does not cover (a failed write
#     leaves it where it was, the writes behind it in the zone are
#     refused); the blocks before the failed write hold 0xa5;
#   - the zone recovers: 4 KiB at the reported write pointer succeeds and
#     moves it by 4 KiB;
#   - no kernel warning (scripts/run-guest's console rule covers WARNING,
#     BUG, lockdep and hung tasks; counted here per step too).
#
# Parameters (kernel command line zr.* -> environment):
#   zr.devs=A,B     disks; "nullb" is a zoned, memory-backed null_blk
#                   made here (default sda)                         (ZR_DEVS)
#   zr.inject=N     sectors from the zone start of the failing write
#                   (default 1024, i.e. 512 KiB)                  (ZR_INJECT)
# Results: one "ZR-RESULT zwp-werror ..." line per disk and setting.
. "$ZR_LIB"

devs=${ZR_DEVS:-sda}
inject=${ZR_INJECT:-1024}
nullb_dir=

warnings() { dmesg | grep -c 'WARNING:'; }

# wp_offset DEV START: the zone's write pointer in sectors from its start,
# from a zone report (which also resynchronises the zone's plug).
wp_offset() {
    zr_zone_report "/dev/$1" | awk -v s="$2" '$1 == s { print $4; exit }'
}

# pattern_only DEV BLOCK COUNT: the distinct byte values of COUNT 4 KiB
# blocks at 4 KiB block BLOCK, read with O_DIRECT.
pattern_only() {
    dd if="/dev/$1" bs=4096 skip="$2" count="$3" iflag=direct 2>/dev/null |
        od -An -v -tx1 | tr -s ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' '
}

# werror DEV PIPELINE ZONE-START (sectors)
werror() {
    local dev=$1 pl=$2 start=$3 out=/tmp/fio-werror-$1-$2.out rc=0 w0 e0 err wkb first wp n bad
    local -a f
    bad=$((start + inject))
    # null_blk: the bad block, until the stream has failed on it
    [ -z "$nullb_dir" ] || echo "+$bad-$((bad + 7))" > "$nullb_dir/badblocks"
    w0=$(warnings)
    zr_check "$dev pipeline=$pl: reset zone at sector $start" blkzone reset -o "$start" -c 1 "/dev/$dev"
    e0=$(dmesg | grep -c "error, dev $dev, sector")
    fio --name="werror-$dev-$pl" --filename="/dev/$dev" --direct=1 --zonemode=zbd \
        --rw=write --bs=4k --offset=$((start * 512)) --size=$((len * 512)) \
        --ioengine=libaio --iodepth=16 --buffer_pattern=0xa5 \
        --output-format=terse --terse-version=3 > "$out" 2>&1 || rc=$?
    IFS=';' read -r -a f <<< "$(grep '^3;fio-' "$out" | tail -n 1)"
    err=${f[4]:-?} wkb=${f[46]:-?}
    # ENODATA when the failed write itself reaches fio first (MEDIUM
    # ERROR is BLK_STS_MEDIUM), EIO when a write behind it does
    if [ $rc -ne 0 ] && { [ "$err" = 5 ] || [ "$err" = 61 ]; }; then
        zr_pass "$dev pipeline=$pl: fio fails with EIO or ENODATA (error $err, $wkb KiB written)"
    else
        zr_fail "$dev pipeline=$pl: fio fails with EIO or ENODATA" "exit $rc, error $err, wrote $wkb KiB" \
            "$(tail -n 10 "$out")"
    fi
    # The lowest failed sector, from fio's error lines (every failed
    # write, "io_u error ... offset=BYTES") and the kernel's (ratelimited:
    # ten in five seconds, fewer than the writes a pipelined zone fails).
    first=$( { dmesg | grep "error, dev $dev, sector" | tail -n +$((e0 + 1)) |
                 sed -n 's/.* sector \([0-9]*\) .*/\1/p'
               sed -n 's/.*io_u error.* offset=\([0-9]*\).*/\1/p' "$out" |
                 while read -r o; do echo $((o / 512)); done; } |
             sort -n | head -n 1)
    zr_is "$dev pipeline=$pl: the lowest failed sector is the injected one" "${first:-none}" "$bad"
    n=$(( $(dmesg | grep -c "error, dev $dev, sector") - e0 ))
    [ -z "$nullb_dir" ] || echo "-$bad-$((bad + 7))" > "$nullb_dir/badblocks"
    wp=$(wp_offset "$dev" "$start")
    zr_is "$dev pipeline=$pl: the write pointer is at the failed write" "${wp:-unknown}" "$inject"
    zr_is "$dev pipeline=$pl: the blocks before the failed write hold 0xa5" \
        "$(pattern_only "$dev" $((start / 8)) $((inject / 8)))" "a5 "
    zr_check "$dev pipeline=$pl: after the zone report, 4 KiB at the write pointer succeeds" \
        sh -c "dd if=/dev/zero bs=4096 count=1 2>/dev/null | tr '\\000' '\\245' |
               dd of=/dev/$dev bs=4096 seek=$(( (start + ${wp:-0}) / 8 )) oflag=direct 2>&1"
    zr_is "$dev pipeline=$pl: the write pointer moved by 4 KiB" "$(wp_offset "$dev" "$start")" $(( ${wp:-0} + 8 ))
    zr_is "$dev pipeline=$pl: no kernel warning" "$(warnings)" "$w0"
    zr_result "zwp-werror dev=$dev pipeline=$pl zone=$start inject=$inject fio_error=$err write_kib=$wkb" \
        "first_failed=${first:-none} io_errors=$n wp=${wp:-none}"
}

for dev in ${devs//,/ }; do
    nullb_dir=
    if [ "$dev" = nullb ]; then
        dev=$(zr_nullb_make zrwerr memory_backed=1) ||
            zr_bail "cannot create a zoned null_blk in configfs"
        nullb_dir=/sys/kernel/config/nullb/zrwerr
        zr_diag "null_blk disk: $dev"
    fi
    zr_pipelined_disk "$dev"
    q=/sys/block/$dev/queue
    len=$(zr_sysfs "$q/chunk_sectors")  # fio writes one whole zone
    echo 2 > "$q/nomerges"              # every write its own request
    zr_each_pipeline "$dev" werror
    echo 0 > "$q/nomerges"
done
zr_done
