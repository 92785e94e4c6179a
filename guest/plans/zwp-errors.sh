#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zwp-errors: error paths of zone write plugging on the patched guest
# kernel (guest/linux/patches), with pipelining off and on.  Each check
# must fail the write the way stock Linux 6.12 does and must not trip a
# kernel warning (scripts/run-guest also fails the run on any WARNING:,
# BUG:, oops or hung task on the console).
#
# Scenario, per disk and per queue/pipeline_zoned_writes value, on its own
# sequential zone (review finding 1, ../shared/reviews/kernel-patches.md):
#   misaligned  8 KiB written at the start of the zone, then a 4 KiB
#               O_DIRECT write 24 KiB into it: the block layer refuses it
#               before it reaches the device (EIO) and marks the zone as
#               needing a write pointer update; a zone report updates it,
#               after which a write at the write pointer succeeds.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.devs=A,B       disks; "nullb" is a zoned null_blk made here
#                     (default sda)                                 (ZR_DEVS)
# Results: one "ZR-RESULT zwp-errors ..." line per disk and setting.
. "$ZR_LIB"

devs=${ZR_DEVS:-sda}

# warnings: kernel warnings so far (the console rule sees them too; counting
# them here says which step caused one).
warnings() { dmesg | grep -c 'WARNING:'; }

# wp_offset DEV START: write pointer of the zone at START, in sectors from
# its start (blkzone reports it so), from a zone report, which also
# resynchronises the zone's plug.
wp_offset() {
    zr_zone_report "/dev/$1" | awk -v s="$2" '$1 == s { print $4; exit }'
}

# dd_write DEV BLOCK COUNT: COUNT 4 KiB O_DIRECT writes of zeroes at 4 KiB
# block BLOCK; prints dd's messages, returns its status.
dd_write() {
    dd if=/dev/zero of="/dev/$1" bs=4096 seek="$2" count="$3" oflag=direct 2>&1
}

# misaligned DEV PIPELINE ZONE-START (sectors)
misaligned() {
    local dev=$1 pl=$2 start=$3 blk w0 out rc wp
    blk=$((start / 8))
    w0=$(warnings)
    zr_check "$dev pipeline=$pl: reset zone at sector $start" \
        blkzone reset -o "$start" -c 1 "/dev/$dev"
    zr_check "$dev pipeline=$pl: 8 KiB O_DIRECT write at the zone start" \
        dd_write "$dev" "$blk" 2
    zr_is "$dev pipeline=$pl: write pointer 8 KiB into the zone" "$(wp_offset "$dev" "$start")" 16
    rc=0
    out=$(dd_write "$dev" $((blk + 6)) 1) || rc=$?
    if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'Input/output error'; then
        zr_pass "$dev pipeline=$pl: 4 KiB O_DIRECT write 24 KiB into the zone fails with EIO"
    else
        zr_fail "$dev pipeline=$pl: 4 KiB O_DIRECT write 24 KiB into the zone fails with EIO" \
            "dd exit status $rc" "$out"
    fi
    zr_is "$dev pipeline=$pl: no kernel warning after the misaligned write" "$(warnings)" "$w0"
    # The failed write left the plug waiting for a write pointer update:
    # the zone report above (wp_offset) resynchronises it.
    wp=$(wp_offset "$dev" "$start")
    zr_is "$dev pipeline=$pl: the device's write pointer did not move" "$wp" 16
    zr_check "$dev pipeline=$pl: after the zone report, 4 KiB at the write pointer succeeds" \
        dd_write "$dev" $((blk + 2)) 1
    zr_is "$dev pipeline=$pl: write pointer 12 KiB into the zone" "$(wp_offset "$dev" "$start")" 24
    zr_is "$dev pipeline=$pl: still no kernel warning" "$(warnings)" "$w0"
    zr_result "zwp-errors scenario=misaligned dev=$dev pipeline=$pl zone=$start" \
        "warnings=$(( $(warnings) - w0 ))"
}

for dev in ${devs//,/ }; do
    if [ "$dev" = nullb ]; then
        dev=$(zr_nullb_make zrerr memory_backed=0) || zr_bail "cannot create a zoned null_blk in configfs"
        zr_diag "null_blk disk: $dev"
    fi
    zr_pipelined_disk "$dev"
    zr_each_pipeline "$dev" misaligned
done
zr_done
